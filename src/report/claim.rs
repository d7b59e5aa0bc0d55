//! What `warpcert claim` prints (issue 19): one verdict per claim — `certified` with the
//! certificate, `refuted` with the witness (parameter values, warp, cost, the claim's
//! value), or `unknown` with what was tried — as text or JSON; for `--table`, one line per
//! row and the counts.

use super::error::FORMAT_VERSION;
use super::printed::fold_text;
use super::Format;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The certificate of a certified claim.
#[derive(Clone, Debug, Serialize)]
pub struct CertificateEvidence {
    /// Where it was written, if asked.
    pub path: Option<String>,
    /// Whether the kernel accepted it (always, for a `certified` verdict).
    pub checked: bool,
    /// warpcert's bound below the claim (the root Q:WEAK's child).
    pub below: String,
    /// The certificate's bound: the claim written over `max(0, ·)` atoms (equal to the
    /// claim at every parameter value ≥ 0).
    pub bound: String,
    /// `tightest bound` or `LP with the claim as target`.
    pub how: String,
}

/// The witness of a refuted claim.
#[derive(Clone, Debug, Serialize)]
pub struct WitnessEvidence {
    /// Where it was written, if asked.
    pub path: Option<String>,
    /// Whether the kernel replayed it and found the claim refuted (always, for `refuted`).
    pub checked: bool,
    /// Parameter values.
    pub params: BTreeMap<String, i64>,
    /// The warp of block 0.
    pub warp: u64,
    /// Its cost (exact, `p/q` when not an integer).
    pub cost: String,
    /// The claim at the parameters (exact).
    pub claimed: String,
    /// The claim at the parameters (decimal, for reading).
    pub claimed_decimal: f64,
    /// The array contents (`zero`, `alternating`, `spread`, …).
    pub input: String,
    /// The Coq refutation file, if written.
    pub coq: Option<String>,
}

/// One audited claim.
#[derive(Clone, Debug, Serialize)]
pub struct ClaimReport {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The kernel file.
    pub file: String,
    /// The kernel.
    pub kernel: String,
    /// The metric.
    pub metric: String,
    /// Block dimensions.
    pub block: [u32; 3],
    /// `upper` or `lower`.
    pub relation: String,
    /// The claim as given.
    pub claim: String,
    /// Where it comes from (tables).
    pub source: Option<String>,
    /// `certified`, `refuted`, `unknown` or `error`.
    pub verdict: String,
    /// warpcert's own tightest bound, when the analysis found one.
    pub ours: Option<String>,
    /// For `certified`.
    pub certificate: Option<CertificateEvidence>,
    /// For `refuted`.
    pub witness: Option<WitnessEvidence>,
    /// What was tried (the reasons for `unknown`; the error for `error`).
    pub tried: Vec<String>,
}

impl ClaimReport {
    /// A row that could not be audited (bad input).
    pub fn error(file: &str, metric: &str, claim: &str, why: String) -> ClaimReport {
        ClaimReport {
            format_version: FORMAT_VERSION,
            file: file.to_string(),
            kernel: String::new(),
            metric: metric.to_string(),
            block: [0; 3],
            relation: String::new(),
            claim: claim.to_string(),
            source: None,
            verdict: "error".into(),
            ours: None,
            certificate: None,
            witness: None,
            tried: vec![why],
        }
    }

    /// One line: `kernel metric: verdict (evidence)`.
    pub fn line(&self) -> String {
        let ev = match (&self.certificate, &self.witness) {
            (Some(c), _) => format!("certificate: root Q:WEAK over {} ({})", c.below, c.how),
            (_, Some(w)) => format!(
                "{} warp {} costs {} {} {} ({}, input {})",
                params_text(&w.params),
                w.warp,
                w.cost,
                if self.relation == "lower" { "<" } else { ">" },
                short_decimal(w.claimed_decimal),
                w.claimed,
                w.input
            ),
            _ => self.tried.last().cloned().unwrap_or_default(),
        };
        format!(
            "{} {} [{}]: {} — {ev}",
            self.kernel, self.metric, self.claim, self.verdict
        )
    }

    fn text(&self) -> String {
        let mut s = format!(
            "{} ({}), block {}x{}x{}, {}: {}\n  claim ({}): {}\n",
            self.kernel,
            self.file,
            self.block[0],
            self.block[1],
            self.block[2],
            self.metric,
            self.verdict,
            self.relation,
            self.claim
        );
        if let Some(o) = &self.ours {
            let _ = writeln!(s, "  warpcert's bound: {}", fold_text(o));
        }
        if let Some(c) = &self.certificate {
            let _ = writeln!(
                s,
                "  certificate: bound {} (the claim at parameters ≥ 0), root Q:WEAK to {} ({}), accepted by the kernel{}",
                fold_text(&c.bound),
                fold_text(&c.below),
                c.how,
                c.path
                    .as_ref()
                    .map(|p| format!(", written to {p}"))
                    .unwrap_or_default()
            );
        }
        if let Some(w) = &self.witness {
            let _ = writeln!(
                s,
                "  witness: {}, block 0, warp {}, input {}: cost {} {} the claim's {} = {}\n  replayed by the kernel: the claim is refuted{}{}",
                params_text(&w.params),
                w.warp,
                w.input,
                w.cost,
                if self.relation == "lower" { "<" } else { ">" },
                w.claimed,
                short_decimal(w.claimed_decimal),
                w.path
                    .as_ref()
                    .map(|p| format!("; witness written to {p}"))
                    .unwrap_or_default(),
                w.coq
                    .as_ref()
                    .map(|p| format!("; Coq refutation written to {p}"))
                    .unwrap_or_default()
            );
        }
        if self.verdict != "certified" && self.verdict != "refuted" {
            for t in &self.tried {
                let _ = writeln!(s, "  tried: {t}");
            }
        }
        s
    }
}

fn params_text(p: &BTreeMap<String, i64>) -> String {
    if p.is_empty() {
        return "no parameters".into();
    }
    p.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn short_decimal(x: f64) -> String {
    if (x - x.round()).abs() < 1e-12 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.6}")
    }
}

/// Prints one report; errors: the JSON serializer's message.
pub fn print_one(format: Format, r: &ClaimReport) -> Result<(), String> {
    let out = super::render(format, r, ClaimReport::text)?;
    print!("{out}");
    Ok(())
}

/// A table's reports and counts.
#[derive(Clone, Debug, Serialize)]
pub struct TableReport {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The claims table.
    pub table: String,
    /// Counts by verdict.
    pub counts: BTreeMap<String, usize>,
    /// One report per row.
    pub rows: Vec<ClaimReport>,
}

/// Prints a table report; errors: the JSON serializer's message.
pub fn print_table(format: Format, t: &TableReport) -> Result<(), String> {
    let out = super::render(format, t, |t| {
        let mut s = String::new();
        for r in &t.rows {
            let _ = writeln!(s, "{}", r.line());
        }
        let counts: Vec<String> = t.counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let _ = writeln!(s, "{}: {}", t.table, counts.join(", "));
        s
    })?;
    print!("{out}");
    Ok(())
}
