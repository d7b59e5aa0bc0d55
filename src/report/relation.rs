//! Output of `warpcert analyze --relation …` and `--stats` (Pico's relational analysis,
//! `spec/relational.md` §7): text and JSON.

use serde::Serialize;
use std::fmt::Write;
use warpcert_kernel::witness::{WitnessError, WitnessVerdict};
use warpcert_kernel::{Rejection, Verdict};

/// `exact / total` for one kind of construct.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Ratio {
    /// Constructs analysed exactly.
    pub exact: usize,
    /// All constructs.
    pub total: usize,
}

impl Ratio {
    /// Adds another ratio.
    pub fn add(&mut self, o: Ratio) {
        self.exact += o.exact;
        self.total += o.total;
    }
    fn pct(&self) -> String {
        if self.total == 0 {
            "–".into()
        } else {
            format!("{:.1} %", 100.0 * self.exact as f64 / self.total as f64)
        }
    }
}

/// Exactness accounting of one kernel and metric (Pico §6.5/§7.2): conditionals weighted by
/// their comparisons, loops, indices of accesses the metric counts.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Stats {
    /// Conditionals.
    pub conditionals: Ratio,
    /// Loops.
    pub loops: Ratio,
    /// Array indices.
    pub indices: Ratio,
}

impl Stats {
    /// Adds another kernel's counts.
    pub fn add(&mut self, o: &Stats) {
        self.conditionals.add(o.conditionals);
        self.loops.add(o.loops);
        self.indices.add(o.indices);
    }
}

/// A witness for a lower bound: a concrete launch and input whose replay under the
/// lock-step cost semantics costs `cost` in warp `warp` of block `block`.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    /// Parameter values (name, value).
    pub params: Vec<(String, i64)>,
    /// Block index.
    pub block: [u32; 3],
    /// Warp index within the block.
    pub warp: u64,
    /// Input model (`zero`: every unwritten cell is 0).
    pub input: String,
    /// The replayed cost.
    pub cost: String,
}

/// The certified companion of a relational result (spec/relational.md §9): a RaCUDA-logic
/// certificate for the same kernel and metric, checked by the independent kernel.
#[derive(Clone, Debug, Serialize)]
pub struct Certified {
    /// The certified per-warp upper bound (for every parameter value), if the RaCUDA-logic
    /// analysis found one.
    pub bound: Option<String>,
    /// Whether the kernel accepted the certificate.
    pub checked: bool,
    /// The kernel's verdict, or why there is no certificate.
    pub verdict: String,
    /// How the relational formula compares with the certified bound at sampled parameter
    /// values (absent when the relational analysis gave no formula).
    pub comparison: Option<String>,
    /// Where the certificate was written (`--cert`).
    pub path: Option<String>,
    /// The lower-bound certificate the kernel accepted with the same bound (spec/logic.md
    /// §4b), which makes the certified answer `exact`; absent when none was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lower: Option<super::LowerReport>,
}

/// One relational result (`warpcert analyze --relation`).
#[derive(Clone, Debug, Serialize)]
pub struct RelationReport {
    /// Kernel name.
    pub kernel: String,
    /// `sectors` (Pico's `ua`) or `conflicts` (Pico's `bc`).
    pub metric: String,
    /// Which relation holds between the largest per-warp cost and `per_warp`:
    /// `exact`, `upper` or `lower`; absent when there is no bound.
    pub relation: Option<String>,
    /// Relation requested on the command line (`exact`, `upper`, `lower`, `auto`).
    pub requested: String,
    /// Per-warp bound (a closed form in the kernel's parameters, or a number for a witness).
    /// Under `--relation upper|auto` it is the bound the kernel accepted (the certified
    /// companion's), never a formula only point-checked (issue 14).
    pub per_warp: Option<String>,
    /// The relational formula when it is not the answer: not certified by the kernel, with
    /// the relation the relational analysis claims for it (`--relation upper|auto`).
    pub unchecked: Option<Unchecked>,
    /// Side conditions under which the closed form holds.
    pub assumptions: Vec<String>,
    /// The witness of a lower bound.
    pub witness: Option<Witness>,
    /// Why no bound (or no bound of the requested relation) was given.
    pub note: Option<String>,
    /// Exactness accounting (warpcert's criterion, spec/relational.md §5).
    pub stats: Stats,
    /// Exactness accounting by Pico's criterion (§6.5).
    pub stats_pico: Stats,
    /// Rule applications (SKIP, ACC, SEQ, IF-U, IF-D, FOR) summed over the block's warps.
    pub rules: Vec<(String, usize)>,
    /// How the result is checked: what is and is not certified.
    pub certification: String,
    /// The certified companion bound (RaCUDA logic, kernel-checked).
    pub certified: Option<Certified>,
    /// Analysis time, milliseconds.
    pub time_ms: f64,
}

/// A relational formula the kernel did not check (spec/relational.md §7): shown beside the
/// certified answer, never as the answer.
#[derive(Clone, Debug, Serialize)]
pub struct Unchecked {
    /// The closed form (Pico's analysis).
    pub per_warp: String,
    /// The relation the relational analysis claims (`exact` or `upper`).
    pub relation: String,
}

impl RelationReport {
    /// Whether `per_warp` is the certified companion's bound (the kernel accepted it).
    pub fn per_warp_certified(&self) -> bool {
        let cert = self.certified.as_ref().filter(|c| c.checked);
        self.witness.is_none()
            && self.per_warp.is_some()
            && cert.is_some_and(|c| c.bound == self.per_warp)
    }
}

/// The certification note of a relational formula (spec/relational.md §9).
pub const NOT_CERTIFIED: &str = "formula not certified by the kernel (spec/relational.md §9)";

/// The kernel's verdict on a lower-bound witness, in one line.
pub fn witness_verdict(v: &Result<WitnessVerdict, WitnessError>) -> String {
    match v {
        Ok(v) => format!(
            "witness replayed by the independent kernel: accepted (cost {})",
            v.cost
        ),
        Err(e) => format!("witness REJECTED by the kernel: {e}"),
    }
}

/// The outcome of one kernel-replayed point check of a relational formula, at the
/// parameter value `value` (every scalar parameter takes it).
#[derive(Clone, Debug)]
pub enum PointCheck {
    /// The replay would exceed the budget: skipped, with the reason.
    Skipped(i64, String),
    /// No witness could be built at this point, with the reason.
    NoWitness(i64, String),
    /// The kernel replayed the witness: its cost, whether it agrees with the formula
    /// (equal for an exact formula, at most it for an upper one), the formula's value.
    Replayed {
        /// The parameter value.
        value: i64,
        /// The replayed cost.
        cost: String,
        /// Whether cost and formula agree.
        ok: bool,
        /// The formula at the point.
        bound: String,
    },
    /// The kernel rejected the witness, with its reason.
    Rejected(i64, String),
    /// The formula cannot be evaluated at the point.
    NotEvaluable(i64),
}

/// The certification note of a relational formula with its point checks: "passed" only
/// when at least one point was checked and none failed (a formula not evaluable at a point
/// fails it).
pub fn point_check_note(points: &[PointCheck]) -> String {
    let (mut checked, mut skipped, mut all_ok) = (0, 0, true);
    let shown: Vec<String> = points
        .iter()
        .map(|p| match p {
            PointCheck::Skipped(v, e) => {
                skipped += 1;
                format!("params={v}: {e}")
            }
            PointCheck::NoWitness(v, e) => format!("no check at {v}: {e}"),
            PointCheck::Replayed {
                value,
                cost,
                ok,
                bound,
            } => {
                checked += 1;
                all_ok &= ok;
                let vs = if *ok { "vs" } else { "CONTRADICTS" };
                format!("params={value}: replayed {cost} {vs} bound {bound}")
            }
            PointCheck::Rejected(v, e) => {
                checked += 1;
                all_ok = false;
                format!("params={v}: witness rejected by the kernel: {e}")
            }
            PointCheck::NotEvaluable(v) => {
                // a formula that cannot be evaluated at parameter values has a free
                // variable or divides by zero there: it is no answer (issue 14)
                checked += 1;
                all_ok = false;
                format!("params={v}: bound not evaluable")
            }
        })
        .collect();
    let verdict = if !all_ok {
        "FAILED".to_string()
    } else if checked == 0 {
        "skipped".to_string()
    } else if skipped > 0 {
        format!(
            "passed at {checked} of {} points, {skipped} skipped",
            points.len()
        )
    } else {
        "passed".to_string()
    };
    format!(
        "{NOT_CERTIFIED}; kernel-replayed point checks {verdict} ({})",
        shown.join("; ")
    )
}

/// The kernel's verdict on the certified companion's certificate, in one line.
pub fn companion_verdict(v: &Result<Verdict, Rejection>) -> String {
    match v {
        Ok(v) => super::check::accepted_line(v),
        Err(e) => format!("REJECTED by the kernel: {e}"),
    }
}

/// Why there is no certified companion: the RaCUDA-logic analysis failed.
pub fn no_companion(why: &str) -> String {
    format!("no RaCUDA-logic certificate: {why}")
}

/// A relational formula against the certified bound at `n` sampled points: how many
/// equal, how many below, the first point above (formula, certified, point) if any.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// Points where the formula could be evaluated.
    pub n: usize,
    /// Points where formula = certified bound.
    pub equal: usize,
    /// Points where formula < certified bound.
    pub below: usize,
    /// The first point where formula > certified bound.
    pub above: Option<(String, String, String)>,
    /// Whether the formula is exact (then a point above is a contradiction).
    pub exact: bool,
}

/// The comparison in one line. An exact formula above a certified upper bound would be a
/// contradiction (one of the two analyses unsound); an upper formula above it is only looser.
pub fn comparison_note(c: &Comparison) -> String {
    let n = c.n;
    let above = c
        .above
        .as_ref()
        .map(|(f, b, at)| format!("formula {f} > certified {b} at {at}"));
    match above {
        Some(w) if c.exact => format!(
            "CONTRADICTION: the exact formula exceeds the certified bound at some of {n} sampled points ({w})"
        ),
        Some(w) if c.below > 0 => format!(
            "neither is tighter everywhere: the certified bound is tighter at some of {n} sampled points ({w}), the unchecked formula at {} of them",
            c.below
        ),
        Some(w) => format!(
            "the certified bound is tighter than the formula at some of {n} sampled points ({w})"
        ),
        None if c.equal == n => format!("formula = certified bound at all {n} sampled points"),
        None => format!(
            "formula ≤ certified bound at all {n} sampled points (equal at {}, below at {})",
            c.equal, c.below
        ),
    }
}

/// `--relation lower` when no lower-bound witness could be built, with the reason.
pub fn no_witness_note(why: &str) -> String {
    format!("no witness: {why}")
}

/// `--relation exact` on a kernel the analysis is not exact for (its upper bound).
pub fn not_exact_note(upper: &str) -> String {
    format!("the analysis is not exact for this kernel (upper bound {upper})")
}

/// Renders relational results as text.
pub fn relation_text(rs: &[RelationReport]) -> String {
    let mut out = String::new();
    for r in rs {
        let _ = writeln!(out, "{} {} (relational, Pico):", r.kernel, r.metric);
        match (&r.relation, &r.per_warp) {
            (Some(rel), Some(b)) => {
                let sym = match rel.as_str() {
                    "exact" => "=",
                    "lower" => "≥",
                    _ => "≤",
                };
                let how = if r.unchecked.is_some() || r.per_warp_certified() {
                    ", certified by the kernel"
                } else {
                    ""
                };
                let _ = writeln!(out, "  per warp  {sym} {b}   (relation: {rel}{how})");
            }
            _ => {
                let _ = writeln!(out, "  no bound");
            }
        }
        if let Some(u) = &r.unchecked {
            let sym = if u.relation == "exact" { "=" } else { "≤" };
            let _ = writeln!(
                out,
                "  unchecked {sym} {}   (relational, Pico, relation {}: not certified by the kernel)",
                u.per_warp, u.relation
            );
        }
        if !r.assumptions.is_empty() {
            let _ = writeln!(out, "  assuming  {}", r.assumptions.join(", "));
        }
        if let Some(w) = &r.witness {
            let ps: Vec<String> = w.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let _ = writeln!(
                out,
                "  witness   block ({},{},{}) warp {} params [{}] input {} → cost {}",
                w.block[0],
                w.block[1],
                w.block[2],
                w.warp,
                ps.join(", "),
                w.input,
                w.cost
            );
        }
        if let Some(n) = &r.note {
            let _ = writeln!(out, "  note      {n}");
        }
        let s = &r.stats;
        let _ = writeln!(
            out,
            "  exact     conditionals {}/{}  loops {}/{}  indices {}/{}",
            s.conditionals.exact,
            s.conditionals.total,
            s.loops.exact,
            s.loops.total,
            s.indices.exact,
            s.indices.total
        );
        let _ = writeln!(out, "  checked   {}", r.certification);
        if let Some(c) = &r.certified {
            match &c.bound {
                Some(b) => {
                    let _ = writeln!(
                        out,
                        "  certified ≤ {b}   (RaCUDA-logic certificate {}{})",
                        c.verdict,
                        c.path
                            .as_ref()
                            .map(|p| format!(", written to {p}"))
                            .unwrap_or_default()
                    );
                }
                None => {
                    let _ = writeln!(out, "  certified none: {}", c.verdict);
                }
            }
            if let Some(l) = &c.lower {
                let _ = writeln!(out, "            {}", super::lower_line(l));
            }
            if let Some(cmp) = &c.comparison {
                let _ = writeln!(out, "            {cmp}");
            }
        }
    }
    out
}

/// One row of the `--stats` table.
#[derive(Clone, Debug, Serialize)]
pub struct StatsRow {
    /// File (relative name).
    pub file: String,
    /// Metric.
    pub metric: String,
    /// Counts, or `None` when the kernel could not be loaded.
    pub stats: Option<Stats>,
    /// Counts by Pico's criterion.
    pub stats_pico: Option<Stats>,
    /// Error or failure note.
    pub note: Option<String>,
}

/// Renders the exactness table: one line per file × metric, then totals per metric in the
/// layout of Pico §7.2.
pub fn stats_text(rows: &[StatsRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<58} {:<9} {:>9} {:>9} {:>9}",
        "file", "metric", "conds", "loops", "indices"
    );
    let mut tot: std::collections::BTreeMap<String, (Stats, usize, usize)> = Default::default();
    for r in rows {
        match &r.stats {
            Some(s) => {
                let _ = writeln!(
                    out,
                    "{:<58} {:<9} {:>4}/{:<4} {:>4}/{:<4} {:>4}/{:<4}",
                    r.file,
                    r.metric,
                    s.conditionals.exact,
                    s.conditionals.total,
                    s.loops.exact,
                    s.loops.total,
                    s.indices.exact,
                    s.indices.total
                );
                let e = tot.entry(r.metric.clone()).or_default();
                e.0.add(s);
                e.1 += 1;
            }
            None => {
                let _ = writeln!(
                    out,
                    "{:<58} {:<9} skipped: {}",
                    r.file,
                    r.metric,
                    r.note.clone().unwrap_or_default()
                );
                tot.entry(r.metric.clone()).or_default().2 += 1;
            }
        }
    }
    let mut tot_pico: std::collections::BTreeMap<String, (Stats, usize, usize)> =
        Default::default();
    for r in rows {
        if let Some(s) = &r.stats_pico {
            let e = tot_pico.entry(r.metric.clone()).or_default();
            e.0.add(s);
            e.1 += 1;
        } else {
            tot_pico.entry(r.metric.clone()).or_default().2 += 1;
        }
    }
    totals_block(
        &mut out,
        "exact by warpcert's criterion (spec/relational.md §5)",
        &tot,
    );
    totals_block(
        &mut out,
        "exact by Pico's criterion (§6.5: conditionals without divergent variables, loops with uniform binding)",
        &tot_pico,
    );
    out
}

fn totals_block(
    out: &mut String,
    title: &str,
    tot: &std::collections::BTreeMap<String, (Stats, usize, usize)>,
) {
    let _ = writeln!(out);
    let _ = writeln!(out, "{title}");
    let _ = writeln!(
        out,
        "{:<10} {:>8} {:>18} {:>18} {:>18}",
        "metric", "kernels", "conditionals", "loops", "indices"
    );
    for (m, (s, n, skipped)) in tot {
        let _ = writeln!(
            out,
            "{:<10} {:>8} {:>9} {:>8} {:>9} {:>8} {:>9} {:>8}   ({} skipped)",
            m,
            n,
            format!("{}/{}", s.conditionals.exact, s.conditionals.total),
            s.conditionals.pct(),
            format!("{}/{}", s.loops.exact, s.loops.total),
            s.loops.pct(),
            format!("{}/{}", s.indices.exact, s.indices.total),
            s.indices.pct(),
            skipped
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{comparison_note, Comparison};

    fn cmp(equal: usize, below: usize, above: bool, exact: bool) -> Comparison {
        let n = equal + below + usize::from(above);
        let above = above.then(|| ("13".into(), "9".into(), "n=1".into()));
        Comparison {
            n,
            equal,
            below,
            above,
            exact,
        }
    }

    /// Each of the five outcomes has its own sentence; in particular a formula that is
    /// tighter at some points and looser at others says both (histogram256 at a symbolic
    /// grid: the formula divides by `gridDim.x`, the certified bound by 192).
    #[test]
    fn comparison_note_names_each_outcome() {
        assert_eq!(
            comparison_note(&cmp(4, 0, false, false)),
            "formula = certified bound at all 4 sampled points"
        );
        assert!(comparison_note(&cmp(3, 2, false, false))
            .starts_with("formula ≤ certified bound at all 5"));
        assert!(comparison_note(&cmp(3, 0, true, true)).starts_with("CONTRADICTION"));
        let one_way = comparison_note(&cmp(3, 0, true, false));
        assert!(
            one_way.starts_with("the certified bound is tighter"),
            "{one_way}"
        );
        let both = comparison_note(&cmp(3, 2, true, false));
        assert!(both.starts_with("neither is tighter everywhere"), "{both}");
        assert!(
            both.ends_with("the unchecked formula at 2 of them"),
            "{both}"
        );
    }
}
