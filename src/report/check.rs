//! Output of `warpcert check CERT [--source FILE]`: the independent kernel's verdict as text
//! (its own rendering) or as a JSON object; and `export-coq`'s JSON result (the export
//! runs the kernel first).

use super::error::FORMAT_VERSION;
use super::Format;
use std::path::Path;
use warpcert_kernel::{Rejection, Verdict};

/// The verdict on the certificate file `cert` in `format`, ending with a newline.
///
/// `source` is the `--source` file when one was given, and `mismatch` the reason the
/// certificate's program or hashes differ from what the front end makes of it (then the
/// certificate counts as rejected).
/// JSON: `{certificate, accepted: true, kernel, metric, bound, relation, role, warp,
/// assumptions, source_checked, nodes}` when accepted (`role` `upper` with relation `<=`
/// and `warp` null, or `lower` with `>=` and the named warp: spec/logic.md §4b), `{certificate, accepted: false, rule, node,
/// reason}` when the kernel rejects, `{certificate, accepted: false, reason}` on a
/// `--source` mismatch.
pub fn check_report(
    format: Format,
    cert: &str,
    verdict: &Result<Verdict, Rejection>,
    source: Option<&Path>,
    mismatch: Option<&str>,
) -> String {
    match (format, verdict, mismatch) {
        (Format::Text, Ok(v), None) => match source {
            Some(src) => format!(
                "{v}\nsource {}: same SHA-256 and same lowered program\n",
                src.display()
            ),
            None => format!("{v}\n"),
        },
        (Format::Text, Ok(_), Some(m)) => format!("REJECTED: --source does not match: {m}\n"),
        (Format::Text, Err(r), _) if r.reason == warpcert_kernel::Reason::ThreadFailed => {
            "resource failure: the kernel's checking thread could not run (low memory?); the certificate was not checked\n".to_string()
        }
        (Format::Text, Err(r), _) => format!("{r}\n"),
        (Format::Json | Format::Jsonl, v, mismatch) => {
            let obj = match (v, mismatch) {
                (Ok(v), None) => serde_json::json!({
                    "format_version": FORMAT_VERSION,
                    "certificate": cert,
                    "accepted": true,
                    "kernel": v.kernel,
                    "metric": v.metric,
                    "bound": v.bound,
                    "relation": v.role.relation(),
                    "role": v.role.name(),
                    "warp": match v.role {
                        warpcert_kernel::Role::Lower(w) => Some(w),
                        warpcert_kernel::Role::Upper => None,
                    },
                    "assumptions": v.assumptions.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    "source_checked": source.is_some(),
                    "nodes": v.nodes_checked,
                }),
                (Ok(_), Some(m)) => serde_json::json!({
                    "format_version": FORMAT_VERSION,
                    "certificate": cert,
                    "accepted": false,
                    "reason": format!("--source does not match: {m}"),
                }),
                (Err(r), _) => serde_json::json!({
                    "format_version": FORMAT_VERSION,
                    "resource_failure": r.reason == warpcert_kernel::Reason::ThreadFailed,
                    "certificate": cert,
                    "accepted": false,
                    "rule": r.rule,
                    "node": r.node_path,
                    "reason": r.to_string(),
                }),
            };
            format!("{obj:#}\n")
        }
    }
}

/// The line shown instead of a bound when the kernel rejects a certificate (`analyze`,
/// `bench`): the rejection, that no bound is given, and where the certificate was written.
pub fn rejected_no_bound(r: &Rejection, written_to: Option<&str>) -> String {
    let written = written_to
        .map(|p| format!(" (certificate written to {p})"))
        .unwrap_or_default();
    format!("certificate REJECTED by the kernel, no bound: {r}{written}")
}

/// The kernel's acceptance in one line, with the bound it checked (`analyze`, the certified
/// companion of `--relation`).
pub fn accepted_line(v: &Verdict) -> String {
    format!("accepted by the kernel (bound {})", v.bound)
}

/// `export-coq --format json`: `{format_version, certificate, exported: true, output, coq}`
/// (`coq` the file's text when no `-o` was given) for `Ok((output, coq_text))`, and
/// `{format_version, certificate, exported: false, reason}` for `Err(reason)`.
pub fn export_json(cert: &str, result: Result<(Option<&Path>, &str), &str>) -> String {
    let obj = match result {
        Ok((out, v)) => serde_json::json!({
            "format_version": FORMAT_VERSION,
            "certificate": cert,
            "exported": true,
            "output": out.map(|p| p.display().to_string()),
            "coq": if out.is_none() { Some(v) } else { None },
        }),
        Err(reason) => serde_json::json!({
            "format_version": FORMAT_VERSION,
            "certificate": cert,
            "exported": false,
            "reason": reason,
        }),
    };
    format!("{obj:#}")
}
