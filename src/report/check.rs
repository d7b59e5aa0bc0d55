//! Output of `warpcert check CERT`: the independent kernel's verdict as text (its own
//! rendering) or as a JSON object.

use super::Format;
use warpcert_kernel::{Rejection, Verdict};

/// The verdict on the certificate file `cert` in `format`, ending with a newline.
/// JSON: `{certificate, accepted: true, kernel, metric, bound, nodes}` when accepted,
/// `{certificate, accepted: false, rule, node, reason}` when rejected.
pub fn check_report(format: Format, cert: &str, verdict: &Result<Verdict, Rejection>) -> String {
    match (format, verdict) {
        (Format::Text, Ok(v)) => format!("{v}\n"),
        (Format::Text, Err(r)) => format!("{r}\n"),
        (Format::Json, v) => {
            let obj = match v {
                Ok(v) => serde_json::json!({
                    "certificate": cert,
                    "accepted": true,
                    "kernel": v.kernel,
                    "metric": v.metric,
                    "bound": v.bound,
                    "nodes": v.nodes_checked,
                }),
                Err(r) => serde_json::json!({
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
