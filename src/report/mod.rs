//! Reports: what `warpcert analyze`, `run` and `check` print, as text for people and as
//! JSON for tools. Only this module knows the output formats.

pub mod audit;
pub mod bench;
pub mod bound;
pub mod check;
pub mod claim;
pub mod coverage;
pub mod error;
pub mod html;
pub mod interp;
pub mod precision;
pub mod printed;
pub mod relation;
pub mod sarif;
pub mod scaling;
pub mod semantics;

use serde::Serialize;
use std::fmt::Write;

/// Output format chosen with `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// One JSON document on stdout.
    Json,
    /// JSON Lines: one compact JSON object per line (`analyze` on many files or
    /// directories: one per kernel, then `{"summary": …}`; other commands: one line).
    Jsonl,
}

impl Format {
    /// JSON or JSON Lines (machine-readable errors).
    pub fn is_json(self) -> bool {
        matches!(self, Format::Json | Format::Jsonl)
    }
}

/// `value` in `format`: `text(value)` for [`Format::Text`], pretty-printed JSON and a newline
/// for [`Format::Json`]. Errors: the JSON serializer's message.
pub fn render<T: Serialize + ?Sized>(
    format: Format,
    value: &T,
    text: impl FnOnce(&T) -> String,
) -> Result<String, String> {
    match format {
        Format::Text => Ok(text(value)),
        Format::Json => serde_json::to_string_pretty(value)
            .map(|s| s + "\n")
            .map_err(|e| e.to_string()),
        Format::Jsonl => serde_json::to_string(value)
            .map(|s| s + "\n")
            .map_err(|e| e.to_string()),
    }
}

/// `analyze`'s warning beside the bounds when the interleaving semantics finds a data race
/// on a small launch (`block`, `grid`, every `int` parameter `threads`, zero inputs):
/// `race` the race found; the bounds assume `race-free` (spec/certificate.md).
pub fn race_warning(block: [u32; 3], grid: [u32; 3], threads: i64, race: &str) -> String {
    format!(
        "warning: data race on a small launch (block {}x{}x{}, grid {}x{}x{}, int parameters {threads}, zero inputs): {race}; the bounds assume race freedom (race-free)",
        block[0], block[1], block[2], grid[0], grid[1], grid[2]
    )
}

/// `analyze`'s note when neither `--block` nor a `//--blockDim=` header gives the block.
pub fn default_block_note(block: [u32; 3]) -> String {
    format!(
        "note: no --block and no //--blockDim= header: using block {}x{}x{}",
        block[0], block[1], block[2]
    )
}

/// The certificate part of an analysis report.
#[derive(Clone, Debug, Serialize)]
pub struct CertificateReport {
    /// Where the certificate was written, if `--cert` was given.
    pub path: Option<String>,
    /// Whether the independent kernel accepted it.
    pub checked: bool,
    /// The kernel's verdict, in one line (`accepted: …` or the rejection).
    pub verdict: String,
    /// Derivation nodes the kernel checked.
    pub nodes: usize,
    /// Time the kernel took, in milliseconds.
    pub check_ms: f64,
}

/// The accepted lower-bound certificate of an `exact` answer: role `lower`, the warp it is
/// about, its bound (the kernel's rendering, equal to the upper bound) and where it was
/// written (`--cert`: `KERNEL.METRIC.lower.cert` beside the upper one).
#[derive(Clone, Debug, Serialize)]
pub struct LowerReport {
    /// Always `"lower"`.
    pub role: &'static str,
    /// The named warp of block 0's numbering (every block: the claim holds for all).
    pub warp: u32,
    /// The bound the kernel checked.
    pub bound: String,
    /// Whether the kernel accepted it (always true when present).
    pub checked: bool,
    /// Where it was written, if `--cert` was given.
    pub path: Option<String>,
    /// The parameter hypotheses of the lower certificate (spec/logic.md §4b, L:HYP), as
    /// text: the bound is attained on the parameter region they describe (non-empty: the
    /// kernel checked a witness point), not at every parameter value. Absent: everywhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
}

/// The text line of an accepted lower-bound certificate (`analyze`, and `--relation
/// upper|auto`'s certified answer): its warp, bound, path and the region where it is attained.
pub fn lower_line(l: &LowerReport) -> String {
    format!(
        "lower-bound certificate (warp {}): accepted by the kernel (bound {}){}: exact{}",
        l.warp,
        l.bound,
        l.path
            .as_ref()
            .map(|p| format!(", written to {p}"))
            .unwrap_or_default(),
        l.when
            .as_ref()
            .map(|w| format!(" (attained when {w}; at most that elsewhere)"))
            .unwrap_or_default()
    )
}

/// One certificate an answer relied on (`analyze --format json`, `certificates`, issue 14):
/// its role, where it was written, whether the kernel accepted it and the bound it proves
/// (the kernel's rendering of the certificate's bound).
#[derive(Clone, Debug, Serialize)]
pub struct CertEntry {
    /// `"upper"` (at least every warp's cost) or `"lower"` (at most the named warp's).
    pub role: &'static str,
    /// Where it was written, if `--cert` was given.
    pub path: Option<String>,
    /// Whether the kernel accepted it (a rejected certificate gives no answer, so always
    /// true in a bound report).
    pub checked: bool,
    /// The bound the kernel checked.
    pub bound: String,
}

/// One analysed metric of one kernel (`warpcert analyze`): the JSON object of the contract.
#[derive(Clone, Debug, Serialize)]
pub struct BoundReport {
    /// [`error::FORMAT_VERSION`].
    pub format_version: u32,
    /// Kernel name.
    pub kernel: String,
    /// Metric name (`sectors`, `conflicts`, `divwarps`, `steps`).
    pub metric: String,
    /// Which relation the bound satisfies: `"upper"` (the kernel accepted the upper
    /// certificate), or `"exact"` when moreover a lower-bound certificate with the same
    /// bound for some warp was accepted ([`BoundReport::lower`], spec/logic.md §4b).
    pub relation: &'static str,
    /// The lower-bound certificate behind an `exact` relation (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower: Option<Box<LowerReport>>,
    /// Per-warp bound, an expression over the kernel's parameters: the certificate's bound
    /// in short normal form, which the kernel read back as that bound
    /// (spec/certificate.md "Printed formula"), else the kernel's own rendering.
    pub per_warp: String,
    /// Why the short form was not printed: the kernel's comparison refused it (absent when
    /// the short form, or the unchanged bound, was printed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub printing_note: Option<String>,
    /// Every certificate the answer relies on: the upper one, and the lower one of an
    /// `exact` answer.
    pub certificates: Vec<CertEntry>,
    /// Number of warps of the launch (an integer, or an expression over `gridDim.*`).
    pub warps: String,
    /// Whole-kernel bound: `warps × per_warp`.
    pub total: String,
    /// The certificate and the kernel's verdict (boxed: keeps [`AnalyzeOutcome`]'s
    /// variants of similar size).
    pub certificate: Box<CertificateReport>,
    /// Analysis time including certificate generation, milliseconds.
    pub time_ms: f64,
    /// Block dimensions used.
    pub block: [u32; 3],
    /// Grid dimensions used, if concrete.
    pub grid: Option<[u32; 3]>,
    /// Hardware parameters used.
    pub hardware: crate::core::Hardware,
}

/// A metric for which no bound was found (`warpcert analyze`), with the reason.
#[derive(Clone, Debug, Serialize)]
pub struct FailureReport {
    /// [`error::FORMAT_VERSION`].
    pub format_version: u32,
    /// Kernel name.
    pub kernel: String,
    /// Metric name.
    pub metric: String,
    /// Why no bound was found, with the source location.
    pub error: String,
}

/// Either outcome of analysing one metric.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum AnalyzeOutcome {
    /// A checked bound.
    Bound(BoundReport),
    /// No bound, and why.
    Failure(FailureReport),
}

/// Renders analysis outcomes as text: one block per metric.
pub fn analyze_text(outcomes: &[AnalyzeOutcome]) -> String {
    let mut out = String::new();
    for (i, o) in outcomes.iter().enumerate() {
        if i == 0 {
            if let AnalyzeOutcome::Bound(b) = o {
                let _ = writeln!(
                    out,
                    "kernel {}  block {}x{}x{}  grid {}  warp {} banks {}x{}B sector {}B",
                    b.kernel,
                    b.block[0],
                    b.block[1],
                    b.block[2],
                    b.grid
                        .map(|g| format!("{}x{}x{}", g[0], g[1], g[2]))
                        .unwrap_or_else(|| "symbolic".into()),
                    b.hardware.warp_size,
                    b.hardware.banks,
                    b.hardware.bank_bytes,
                    b.hardware.sector_bytes
                );
            }
        }
        match o {
            AnalyzeOutcome::Bound(b) => {
                let _ = writeln!(out, "{}:", b.metric);
                let rel = if b.lower.is_some() { "=" } else { "≤" };
                let _ = writeln!(out, "  per warp  {rel} {}", b.per_warp);
                if let Some(n) = &b.printing_note {
                    let _ = writeln!(out, "  note: {n}");
                }
                let _ = writeln!(out, "  warps     = {}", b.warps);
                let _ = writeln!(out, "  kernel    ≤ {}", b.total);
                let _ = writeln!(
                    out,
                    "  certificate: {}{} ({} nodes, checked in {:.1} ms; analysis {:.1} ms)",
                    b.certificate.verdict,
                    b.certificate
                        .path
                        .as_ref()
                        .map(|p| format!(", written to {p}"))
                        .unwrap_or_default(),
                    b.certificate.nodes,
                    b.certificate.check_ms,
                    b.time_ms
                );
                if let Some(l) = &b.lower {
                    let _ = writeln!(out, "  {}", lower_line(l));
                }
            }
            AnalyzeOutcome::Failure(f) => {
                let _ = writeln!(out, "{}:", f.metric);
                let _ = writeln!(out, "  no bound: {}", f.error);
            }
        }
    }
    out
}

/// One metric of a concrete run (`warpcert run`).
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// [`error::FORMAT_VERSION`].
    pub format_version: u32,
    /// Kernel name.
    pub kernel: String,
    /// Metric name.
    pub metric: String,
    /// Largest cost of one warp, exact (`p/q` or an integer).
    pub max_per_warp: String,
    /// Sum over all warps of all blocks.
    pub total: String,
    /// Number of warps run, in decimal (a string, as in `analyze`, where it may be an
    /// expression or exceed 2⁵³).
    pub warps: String,
}

/// Renders run results as text.
pub fn run_text(reports: &[RunReport]) -> String {
    let mut out = String::new();
    if let Some(r) = reports.first() {
        let _ = writeln!(out, "kernel {}  ({} warps run)", r.kernel, r.warps);
    }
    for r in reports {
        let _ = writeln!(
            out,
            "{:<10} max per warp {:>12}   total {:>14}",
            r.metric, r.max_per_warp, r.total
        );
    }
    out
}
