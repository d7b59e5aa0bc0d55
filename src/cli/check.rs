//! `warpcert check CERT [--source FILE.cu]`: the independent kernel's verdict on a
//! certificate file, and optionally that the certificate's program is what the front end
//! makes of the source file (spec/certificate.md "Provenance").

use super::EXIT_FAILED;
use crate::certificate::{program_sexp, provenance};
use crate::core::{Hardware, Launch};
use crate::frontend;
use crate::report::error::{ErrorKind, ErrorReport};
use crate::report::{self, Format};
use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use warpcert_kernel::Verdict;

/// Arguments of `warpcert check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The certificate file.
    cert: PathBuf,
    /// The CUDA source the certificate claims to come from: its SHA-256 must be the one in
    /// the certificate's provenance section, and lowering it again (kernel, block, grid,
    /// fixed parameters and hardware of the certificate) must give the certificate's program.
    #[arg(long)]
    source: Option<PathBuf>,
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

/// Why `--source` does not match a certificate the kernel accepted.
pub fn source_mismatch(cert: &str, v: &Verdict, source: &Path) -> Option<String> {
    let Some(p) = &v.provenance else {
        return Some("the certificate has no provenance section (format version 2 written by `analyze --cert`)".into());
    };
    let bytes = match std::fs::read(source) {
        Ok(b) => b,
        Err(e) => return Some(format!("cannot read {}: {e}", source.display())),
    };
    let got = provenance::sha256_hex(&bytes);
    if got != p.source_sha256 {
        return Some(format!(
            "{} has SHA-256 {got}, the certificate was made from a file with SHA-256 {}",
            source.display(),
            p.source_sha256
        ));
    }
    let in_cert = provenance::program_text(cert).map(|t| provenance::sha256_hex(t.as_bytes()));
    if in_cert.as_deref() != Some(p.program_sha256.as_str()) {
        return Some(
            "the certificate's program does not have the SHA-256 its provenance section states"
                .into(),
        );
    }
    let [warp_size, banks, bank_bytes, sector_bytes] = v.hardware;
    let hw = Hardware {
        warp_size,
        banks,
        bank_bytes,
        sector_bytes,
    };
    let launch = Launch {
        block: v.block,
        grid: p.grid,
    };
    let fixed: BTreeMap<String, i64> = p
        .fixed
        .iter()
        .filter_map(|(n, x)| i64::try_from(x).ok().map(|x| (n.clone(), x)))
        .collect();
    let lowered = frontend::parse_file(source)
        .map_err(|d| d.to_string())
        .and_then(|parsed| {
            frontend::lower(&parsed, Some(&v.kernel), &launch, &hw, &fixed)
                .map_err(|d| d.to_string())
        });
    let prog = match lowered {
        Ok((prog, _)) => prog,
        Err(e) => return Some(format!("the front end rejects {}: {e}", source.display())),
    };
    // The certificate's program text has the stated SHA-256 (checked above); the
    // re-lowered program must be the same tree (its layout may differ: the writer's
    // layout of the program section is not part of the format).
    let again_text = program_sexp(&prog);
    let in_cert_text = provenance::program_text(cert).unwrap_or_default();
    if !provenance::same_tree(&again_text, in_cert_text) {
        let again = provenance::sha256_hex(again_text.as_bytes());
        return Some(format!(
            "lowering {} gives a program with SHA-256 {again}, which differs from the certificate's program (SHA-256 {})",
            source.display(),
            p.program_sha256
        ));
    }
    None
}

/// Runs `warpcert check`; 0 accepted, 1 rejected (by the kernel, or a `--source` that does
/// not match), 2 unreadable.
/// Runs `warpcert check`; 0 accepted, 1 rejected (by the kernel, or a `--source` that does
/// not match) or a resource failure, 2 unreadable.
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
    let mismatch = match (&verdict, &args.source) {
        (Ok(v), Some(src)) => source_mismatch(&text, v, src),
        _ => None,
    };
    let code = if verdict.is_ok() && mismatch.is_none() {
        0
    } else {
        EXIT_FAILED
    };
    print!(
        "{}",
        report::check::check_report(
            args.format,
            &args.cert.display().to_string(),
            &verdict,
            args.source.as_deref(),
            mismatch.as_deref(),
        )
    );
    code
}
