//! The table of `warpcert bench --scaling` (issue 13, item 6): per family and size, the
//! analysis and check times, certificate bytes, peak memory, and per family the growth
//! exponents fitted by least squares on log-log.

use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// What one point (a generated kernel, analysed and checked for every metric asked) measured.
/// Times are wall-clock seconds measured in the point's own process, with the metrics
/// analysed and checked concurrently on the available cores, each metric's check right
/// after its analysis (`cli::scaling`); `cpu_s` is the CPU time of the same work, all threads summed (on a
/// loaded machine the wall-clock times include waiting for a core).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PointResult {
    /// Metrics analysed.
    pub metrics: u32,
    /// Metrics with a bound whose certificate the kernel accepted.
    pub bounds: u32,
    /// The analyses' share of the wall-clock time of all the metrics (run concurrently), in
    /// seconds: the point's wall-clock time in the ratio of the summed per-metric analysis
    /// and check times.
    pub analysis_s: f64,
    /// The kernel checks' share of the same wall-clock time ([`PointResult::analysis_s`]),
    /// in seconds.
    pub check_s: f64,
    /// CPU seconds of the analyses and checks (all threads of the point's process; 0 where
    /// `/proc` is absent).
    #[serde(default)]
    pub cpu_s: f64,
    /// Certificate bytes, summed over the metrics.
    pub cert_bytes: u64,
    /// Statements of the lowered program (every node but `seq` and `skip`: assignments,
    /// writes, `if`, `while`, `sync`, warp operations), the unit of issue 13's size budget.
    #[serde(default)]
    pub statements: u64,
    /// Peak resident set of the point's process, in MB.
    pub peak_mb: f64,
    /// Why metrics got no bound (front end, analysis or kernel), one line each.
    pub errors: Vec<String>,
}

/// How a point ended.
#[derive(Clone, Debug, PartialEq)]
pub enum PointOutcome {
    /// It finished (with or without bounds).
    Done(PointResult),
    /// Killed after this many seconds.
    TimeLimit(u64),
    /// Killed past this many MB of resident memory.
    MemLimit(u64),
    /// Not run: a smaller size of the family already hit a limit or failed.
    NotRun,
    /// The child process failed (crash, unreadable result).
    Failed(String),
}

impl PointOutcome {
    /// One line for progress messages.
    pub fn short(&self) -> String {
        match self {
            PointOutcome::Done(r) => format!(
                "{:.2} s analysis, {:.2} s check, {:.2} s CPU, {} bytes, {:.0} MB, {}/{} bounds",
                r.analysis_s, r.check_s, r.cpu_s, r.cert_bytes, r.peak_mb, r.bounds, r.metrics
            ),
            PointOutcome::TimeLimit(s) => format!("> {s} s (killed)"),
            PointOutcome::MemLimit(m) => format!("> {m} MB (killed)"),
            PointOutcome::NotRun => "not run".into(),
            PointOutcome::Failed(e) => format!("failed: {e}"),
        }
    }
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingRow {
    /// Family name.
    pub family: String,
    /// Size (statements, loops, branches, parameters or nest depth).
    pub size: u32,
    /// What happened.
    pub outcome: PointOutcome,
}

/// Least-squares slope of `ln y` on `ln x` over the points with `x, y > 0`; `None` with
/// fewer than two such points or all `x` equal.
pub fn fit_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn exp_text(e: Option<f64>) -> String {
    e.map_or("–".into(), |e| format!("n^{e:.2}"))
}

/// The Markdown table (a caption saying which times are wall-clock and which CPU, one row
/// per point, then one exponent row per family).
pub fn scaling_table(rows: &[ScalingRow], metric: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Analysis s and check s: the wall-clock seconds of the point, its metrics analysed and checked concurrently on the available cores (each checked right after its analysis), split in the ratio of the summed per-metric analysis and check times; CPU s: CPU seconds of both, all threads summed.\n"
    );
    let _ = writeln!(
        out,
        "| family | size | analysis s (wall) | check s (wall) | CPU s | certificate bytes | bytes / size | bytes / certificate / statement | peak MB | bounds ({metric}) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let cells = match &r.outcome {
            PointOutcome::Done(p) => {
                let why = p.errors.first().map_or(String::new(), |e| {
                    format!(" ({})", e.chars().take(80).collect::<String>())
                });
                format!(
                    "{:.2} | {:.2} | {:.2} | {} | {:.0} | {:.0} | {:.0} | {}/{}{why}",
                    p.analysis_s,
                    p.check_s,
                    p.cpu_s,
                    p.cert_bytes,
                    p.cert_bytes as f64 / r.size.max(1) as f64,
                    p.cert_bytes as f64 / (p.metrics.max(1) as u64 * p.statements.max(1)) as f64,
                    p.peak_mb,
                    p.bounds,
                    p.metrics
                )
            }
            PointOutcome::TimeLimit(s) => format!("> {s} (limit) | – | – | – | – | – | – | –"),
            PointOutcome::MemLimit(m) => format!("– | – | – | – | – | – | > {m} (limit) | –"),
            PointOutcome::NotRun => "not run (smaller size over a limit) | | | | | | | ".into(),
            PointOutcome::Failed(e) => format!("failed: {e} | | | | | | | "),
        };
        let _ = writeln!(out, "| {} | {} | {cells} |", r.family, r.size);
    }
    let mut families: Vec<&str> = rows.iter().map(|r| r.family.as_str()).collect();
    families.dedup();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "| family | fitted growth: analysis + check wall time | CPU time | peak memory | certificate bytes |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for f in families {
        let done: Vec<(f64, &PointResult)> = rows
            .iter()
            .filter(|r| r.family == f)
            .filter_map(|r| match &r.outcome {
                PointOutcome::Done(p) => Some((r.size as f64, p)),
                _ => None,
            })
            .collect();
        let fit = |g: &dyn Fn(&PointResult) -> f64| {
            fit_exponent(&done.iter().map(|(n, p)| (*n, g(p))).collect::<Vec<_>>())
        };
        let _ = writeln!(
            out,
            "| {f} | {} | {} | {} | {} |",
            exp_text(fit(&|p| p.analysis_s + p.check_s)),
            exp_text(fit(&|p| p.cpu_s)),
            exp_text(fit(&|p| p.peak_mb)),
            exp_text(fit(&|p| p.cert_bytes as f64)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y = 3·x² gives slope 2 exactly; y = 5 gives 0; one point gives none.
    #[test]
    fn exponent_of_a_power_law() {
        let sq: Vec<(f64, f64)> = [1.0, 10.0, 100.0]
            .iter()
            .map(|&x| (x, 3.0 * x * x))
            .collect();
        assert!((fit_exponent(&sq).unwrap() - 2.0).abs() < 1e-12);
        let flat = [(1.0, 5.0), (7.0, 5.0)];
        assert!(fit_exponent(&flat).unwrap().abs() < 1e-12);
        assert_eq!(fit_exponent(&[(2.0, 1.0)]), None);
    }
}
