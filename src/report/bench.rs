//! Output of `warpcert bench`: one Markdown table row per kernel and metric, comparing the
//! certified per-warp bound with the published RaCUDA and Pico bounds.

use crate::core::assertion::Poly;
use crate::core::MetricName;

/// The table's header and separator lines.
pub const TABLE_HEADER: &str = "| kernel | metric | warpcert bound (per warp) | RaCUDA bound | vs RaCUDA | Pico bound | vs Pico | bound / max simulated | analysis ms | check ms |\n|---|---|---|---|---|---|---|---|---|---|\n";

/// A failure reason on one line, without table separators, cut at 140 characters.
pub fn short(e: &str) -> String {
    let one = e.replace(['|', '\n'], " ");
    if one.chars().count() > 140 {
        format!("{}…", one.chars().take(140).collect::<String>())
    } else {
        one
    }
}

/// The row of a kernel the front end rejected (`reason`: the first line of its error).
pub fn front_end_failure_row(stem: &str, reason: &str) -> String {
    format!(
        "| {stem} | all | front end: {} | | | | | | | |\n",
        short(reason)
    )
}

/// One row with a bound.
pub struct BoundRow<'a> {
    /// The kernel's short name.
    pub stem: &'a str,
    /// The metric.
    pub metric: MetricName,
    /// The per-warp bound the analysis found.
    pub bound: &'a Poly,
    /// Whether the independent kernel accepted its certificate.
    pub accepted: bool,
    /// RaCUDA's published bound, as printed in the paper.
    pub racuda: &'a str,
    /// The comparison with RaCUDA's bound.
    pub vs_racuda: &'a str,
    /// Pico's published bound, if any.
    pub pico: Option<&'a str>,
    /// The comparison with Pico's bound, if any.
    pub vs_pico: Option<String>,
    /// Bound / largest simulated cost.
    pub tightness: &'a str,
    /// Median analysis time, milliseconds.
    pub analysis_ms: f64,
    /// Median kernel check time, milliseconds.
    pub check_ms: f64,
}

/// The row of a bound (`(REJECTED)` after a bound the kernel did not accept).
pub fn bound_row(r: &BoundRow<'_>) -> String {
    let shown = if r.accepted {
        r.bound.to_bound_string()
    } else {
        format!("{} (REJECTED)", r.bound.to_bound_string())
    };
    format!(
        "| {} | {} | {shown} | {} | {} | {} | {} | {} | {:.1} | {:.1} |\n",
        r.stem,
        r.metric,
        r.racuda,
        r.vs_racuda,
        r.pico.unwrap_or("–"),
        r.vs_pico.as_deref().unwrap_or("–"),
        r.tightness,
        r.analysis_ms,
        r.check_ms,
    )
}

/// The row of a metric without a bound.
pub fn no_bound_row(
    stem: &str,
    metric: MetricName,
    reason: &str,
    racuda: &str,
    pico: Option<&str>,
) -> String {
    format!(
        "| {stem} | {metric} | no bound: {} | {racuda} | – | {} | – | – | – | – |\n",
        short(reason),
        pico.unwrap_or("–")
    )
}
