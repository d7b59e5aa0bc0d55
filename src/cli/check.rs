//! `warpcert check CERT`: the independent kernel's verdict on a certificate file.

use super::{EXIT_BAD_INPUT, EXIT_FAILED};
use crate::report::{self, Format};
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

/// Runs `warpcert check`; 0 accepted, 1 rejected, 2 unreadable.
pub fn run(args: &CheckArgs) -> i32 {
    let text = match std::fs::read_to_string(&args.cert) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.cert.display());
            return EXIT_BAD_INPUT;
        }
    };
    let verdict = warpcert_kernel::check(&text);
    let code = if verdict.is_ok() { 0 } else { EXIT_FAILED };
    print!(
        "{}",
        report::check::check_report(args.format, &args.cert.display().to_string(), &verdict)
    );
    code
}
