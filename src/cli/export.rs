//! `warpcert export-coq CERT -o OUT.v`: a certificate as a Coq file proving its bound
//! (`crate::export::coq`, `coq-export/README.md`).

use super::{EXIT_BAD_INPUT, EXIT_FAILED};
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
    let text = match std::fs::read_to_string(&args.cert) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.cert.display());
            return EXIT_BAD_INPUT;
        }
    };
    match crate::export::coq::export(&text) {
        Ok(v) => match &args.output {
            Some(p) => match std::fs::write(p, v) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: cannot write {}: {e}", p.display());
                    EXIT_BAD_INPUT
                }
            },
            None => {
                print!("{v}");
                0
            }
        },
        Err(e) => {
            eprintln!("error: {}: {e}", args.cert.display());
            EXIT_FAILED
        }
    }
}
