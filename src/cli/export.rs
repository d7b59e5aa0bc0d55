//! `warpcert export-coq CERT -o OUT.v`: a certificate as a Coq file proving its bound
//! (`crate::export::coq`, `coq-export/README.md`).

use super::EXIT_FAILED;
use crate::report::check::export_json;
use crate::report::error::{ErrorKind, ErrorReport};
use crate::report::Format;
use clap::Args;
use std::path::{Path, PathBuf};

/// Arguments of `warpcert export-coq`.
#[derive(Debug, Args)]
pub struct ExportCoqArgs {
    /// The certificate file.
    cert: PathBuf,
    /// The Coq file to write (default: standard output).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Output format: the Coq text (or nothing with `-o`), or a JSON object naming the
    /// certificate and the file written (holding the Coq text when there is no `-o`).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl ExportCoqArgs {
    /// The `--format` option.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// Exports `cert` to the Coq file `out`; the error says which step failed.
pub fn write_coq(cert: &Path, out: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(cert)
        .map_err(|e| format!("cannot read {}: {e}", cert.display()))?;
    let v = crate::export::coq::export(&text).map_err(|e| format!("{}: {e}", cert.display()))?;
    if let Some(dir) = out.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
    }
    std::fs::write(out, v).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// Runs `warpcert export-coq`: 0 written, 1 not exportable (kernel rejection or a rule
/// the Coq theories do not cover), 2 unreadable input.
pub fn run(args: &ExportCoqArgs) -> i32 {
    let cert = args.cert.display().to_string();
    let text = match std::fs::read_to_string(&args.cert) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!("cannot read {cert}: {e}");
            return ErrorReport::in_file(ErrorKind::Io, &cert, msg).emit(args.format);
        }
    };
    let v = match crate::export::coq::export(&text) {
        Ok(v) => v,
        Err(e) => {
            let msg = format!("{cert}: {e}");
            eprintln!("error: {msg}");
            if args.format.is_json() {
                println!("{}", export_json(&cert, Err(&e.to_string())));
            }
            return EXIT_FAILED;
        }
    };
    if let Some(p) = &args.output {
        if let Err(e) = std::fs::write(p, &v) {
            let msg = format!("cannot write {}: {e}", p.display());
            return ErrorReport::in_file(ErrorKind::Io, &p.display().to_string(), msg)
                .emit(args.format);
        }
    }
    match (args.format, &args.output) {
        (Format::Text, Some(_)) => {}
        (Format::Text, None) => print!("{v}"),
        (Format::Json | Format::Jsonl, out) => {
            println!("{}", export_json(&cert, Ok((out.as_deref(), &v))))
        }
    }
    0
}
