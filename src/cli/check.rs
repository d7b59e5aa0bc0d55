//! `warpcert check CERT`: the independent kernel's verdict on a certificate file.

use super::EXIT_FAILED;
use crate::report::error::{ErrorKind, ErrorReport, FORMAT_VERSION};
use crate::report::Format;
use clap::Args;
use std::path::PathBuf;

/// Arguments of `warpcert check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The certificate file.
    cert: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// A rejection in one line; a checking thread that could not run is a resource failure
/// (low memory), not a verdict on the certificate, and says so.
pub fn rejection_text(r: &warpcert_kernel::Rejection) -> String {
    if r.reason == warpcert_kernel::Reason::ThreadFailed {
        "resource failure: the kernel's checking thread could not run (low memory?); the certificate was not checked".into()
    } else {
        format!("certificate REJECTED by the kernel: {r}")
    }
}

impl CheckArgs {
    /// The `--format` option.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// Runs `warpcert check`; 0 accepted, 1 rejected, 2 unreadable.
pub fn run(args: &CheckArgs) -> i32 {
    let text = match std::fs::read_to_string(&args.cert) {
        Ok(t) => t,
        Err(e) => {
            let f = args.cert.display().to_string();
            let msg = format!("cannot read {f}: {e}");
            return ErrorReport::in_file(ErrorKind::Io, &f, msg).emit(args.format);
        }
    };
    let verdict = warpcert_kernel::check(&text);
    let code = if verdict.is_ok() { 0 } else { EXIT_FAILED };
    match (args.format, verdict) {
        (Format::Text, Ok(v)) => println!("{v}"),
        (Format::Text, Err(r)) if r.reason == warpcert_kernel::Reason::ThreadFailed => {
            println!("{}", rejection_text(&r))
        }
        (Format::Text, Err(r)) => println!("{r}"),
        (Format::Json, v) => {
            let obj = match v {
                Ok(v) => serde_json::json!({
                    "format_version": FORMAT_VERSION,
                    "certificate": args.cert.display().to_string(),
                    "accepted": true,
                    "kernel": v.kernel,
                    "metric": v.metric,
                    "bound": v.bound,
                    "nodes": v.nodes_checked,
                }),
                Err(r) => serde_json::json!({
                    "format_version": FORMAT_VERSION,
                    "resource_failure": r.reason == warpcert_kernel::Reason::ThreadFailed,
                    "certificate": args.cert.display().to_string(),
                    "accepted": false,
                    "rule": r.rule,
                    "node": r.node_path,
                    "reason": r.to_string(),
                }),
            };
            println!("{obj:#}");
        }
    }
    code
}
