//! `warpcert analyze --relation exact|upper|lower|auto` and `--stats`: Pico's relational
//! analysis (`crate::relational`, `spec/relational.md`).

use super::options::{load, Loaded};
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::analysis::{analyze, AnalysisOptions};
use crate::core::{Metric, MetricName, Ty};
use crate::relational::{self, Relation};
use crate::report::relation::{
    companion_verdict, comparison_note, no_companion, no_witness_note, not_exact_note,
    point_check_note, relation_text, stats_text, witness_verdict, Certified, Comparison,
    PointCheck, Ratio, RelationReport, Stats, StatsRow, Unchecked, Witness, NOT_CERTIFIED,
};
use crate::report::{self};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The relation asked for with `--relation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RelationArg {
    /// Only an exact result: a bound whose upper and lower-bound certificates the kernel
    /// accepted (fails otherwise).
    Exact,
    /// A bound the kernel accepted (`exact` when a lower-bound certificate was accepted too).
    Upper,
    /// A lower bound: the exact bound, or a replayed witness.
    Lower,
    /// As `upper`: `exact` where both certificates were accepted, else `upper`.
    Auto,
}

impl RelationArg {
    fn as_str(self) -> &'static str {
        match self {
            RelationArg::Exact => "exact",
            RelationArg::Upper => "upper",
            RelationArg::Lower => "lower",
            RelationArg::Auto => "auto",
        }
    }
}

/// Value given to scalar parameters left symbolic when a lower-bound witness is replayed.
pub const WITNESS_PARAM: i64 = 64;

fn stats_of(r: &relational::RelResult) -> Stats {
    stats_from(r.totals())
}

fn stats_from(t: std::collections::BTreeMap<relational::analysis::Kind, (usize, usize)>) -> Stats {
    let get = |k| {
        let (e, n) = t.get(&k).copied().unwrap_or((0, 0));
        Ratio { exact: e, total: n }
    };
    Stats {
        conditionals: get(relational::analysis::Kind::Conditional),
        loops: get(relational::analysis::Kind::Loop),
        indices: get(relational::analysis::Kind::Index),
    }
}

fn relational_metrics(l: &Loaded) -> Vec<MetricName> {
    l.metrics
        .iter()
        .copied()
        .filter(|m| matches!(m, MetricName::Sectors | MetricName::Conflicts))
        .collect()
}

/// The kernel's replay of a witness, on a large stack (its reader recurses along the
/// program's nesting: a cooperative-group partition lowers to thousands of statements).
/// The error is boxed (it is large).
fn replay(
    text: &str,
) -> Result<warpcert_kernel::witness::WitnessVerdict, Box<warpcert_kernel::witness::WitnessError>> {
    crate::core::stack::with_big_stack(|| {
        warpcert_kernel::witness::check_witness(text).map_err(Box::new)
    })
}

/// A witness for the largest per-warp cost, replayed by the independent kernel.
fn witness(l: &Loaded, metric: MetricName) -> Result<(Witness, String), String> {
    let w = relational::witness::witness(&l.program, metric, &l.hw, &l.launch, WITNESS_PARAM)?;
    let verdict = witness_verdict(&replay(&w.text).map_err(|e| *e));
    Ok((
        Witness {
            params: w.params,
            block: [0, 0, 0],
            warp: w.warp,
            input: "zero".into(),
            cost: crate::report::bound::rational(&w.cost),
        },
        verdict,
    ))
}

/// Parameter values of the point checks (every scalar parameter takes the same value).
pub const POINT_CHECK_VALUES: [i64; 3] = [1, 7, WITNESS_PARAM];

/// Rule applications (of the lock-step semantics, summed over the warps of block 0) a point
/// check may replay; a point needing more is skipped and reported as skipped.
pub const POINT_CHECK_BUDGET: u64 = 500_000;

/// Checks the bound at [`POINT_CHECK_VALUES`] against kernel-replayed witnesses: at each
/// point the replayed cost of the costliest warp of block 0 must equal (exact) or not exceed
/// (upper) the bound's value. Points whose replay exceeds [`POINT_CHECK_BUDGET`] are skipped
/// (and say so), and so are the larger values after one over the budget (their replay is
/// not started: the nests this happens on run longer with larger parameters); the checks
/// "passed" only when at least one point was checked and none failed.
fn point_check(l: &Loaded, metric: MetricName, r: &relational::RelResult) -> String {
    let mut points = Vec::new();
    let mut over: Option<i64> = None;
    for value in POINT_CHECK_VALUES {
        if let Some(v) = over {
            points.push(PointCheck::Skipped(
                value,
                format!("skipped: the replay at the smaller value {v} already exceeded the budget"),
            ));
            continue;
        }
        let w = match relational::witness::witness_within(
            &l.program,
            metric,
            &l.hw,
            &l.launch,
            value,
            POINT_CHECK_BUDGET,
        ) {
            Ok(w) => w,
            Err(e @ relational::witness::WitnessError::OverBudget(_)) => {
                over = Some(value);
                points.push(PointCheck::Skipped(value, e.to_string()));
                continue;
            }
            Err(e) => {
                points.push(PointCheck::NoWitness(value, e.to_string()));
                continue;
            }
        };
        let replay = replay(&w.text);
        let mut ps: std::collections::BTreeMap<String, i64> = w.params.iter().cloned().collect();
        for d in ["x", "y", "z"] {
            ps.insert(format!("gridDim.{d}"), 1);
        }
        points.push(match (replay, r.eval(&ps)) {
            (Ok(v), Some(b)) => PointCheck::Replayed {
                value,
                cost: v.cost.to_string(),
                ok: if r.relation == Relation::Exact {
                    b == v.cost.big()
                } else {
                    b >= v.cost.big()
                },
                bound: crate::report::bound::rational(&b),
            },
            (Err(e), _) => PointCheck::Rejected(value, e.to_string()),
            (_, None) => PointCheck::NotEvaluable(value),
        });
    }
    point_check_note(&points)
}

/// Values of one symbolic parameter at which the relational formula and the certified bound
/// are compared (non-negative: assumption A1 of spec/relational.md §4).
const SAMPLE_AXIS: [i64; 25] = [
    0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 255, 256, 1000,
    1024, 4096,
];

/// The sample points of [`certified_companion`]: every `int` parameter of the program
/// (kernel parameters, `blockIdx.*`, `gridDim.*`) over [`SAMPLE_AXIS`] (`gridDim.*` from 1),
/// the axis thinned so that there are at most about 20 000 points.
fn sample_points(l: &Loaded) -> Vec<BTreeMap<String, i64>> {
    let vars: Vec<&str> = l
        .program
        .params
        .iter()
        .filter(|p| p.ty == Ty::Int)
        .map(|p| p.name.as_str())
        .collect();
    let mut per_axis = SAMPLE_AXIS.len();
    while per_axis > 2 && per_axis.pow(vars.len() as u32) > 20_000 {
        per_axis -= 1;
    }
    let mut pts = vec![BTreeMap::new()];
    for v in vars {
        let axis: Vec<i64> = SAMPLE_AXIS
            .iter()
            .copied()
            .filter(|&x| !v.starts_with("gridDim.") || x >= 1)
            .take(per_axis)
            .collect();
        pts = pts
            .into_iter()
            .flat_map(|p| {
                axis.iter().map(move |&x| {
                    let mut q = p.clone();
                    q.insert(v.to_string(), x);
                    q
                })
            })
            .collect();
    }
    pts
}

/// The certified companion of a relational result (spec/relational.md §9): the RaCUDA-logic
/// analysis of the same kernel and metric, its certificate checked by the independent
/// kernel, and the comparison of the certified per-warp bound `B` — the bound of the
/// kernel's verdict, none when the kernel rejects — with the relational formula `F` at
/// [`sample_points`]. `B` is what is certified (for every parameter value); the comparison
/// only says how `F` relates to it where sampled.
fn certified_companion(
    l: &Loaded,
    metric: MetricName,
    r: Option<&relational::RelResult>,
    cert_out: Option<&Path>,
) -> Certified {
    let m = Metric::standard(metric);
    let opts = AnalysisOptions::default();
    let a = match analyze(&l.program, &m, &l.hw, &l.launch, &opts) {
        Ok(a) => a,
        Err(e) => {
            return Certified {
                bound: None,
                checked: false,
                verdict: no_companion(&e.to_string()),
                comparison: None,
                path: None,
                lower: None,
            }
        }
    };
    let mut path = None;
    if let Some(p) = cert_out {
        match std::fs::write(p, &a.certificate) {
            Ok(()) => path = Some(p.display().to_string()),
            Err(e) => eprintln!("error: cannot write {}: {e}", p.display()),
        }
    }
    // What is shown as certified comes from the kernel's verdict, never from the analysis.
    let verdict = warpcert_kernel::check(&a.certificate);
    let note = companion_verdict(&verdict);
    let Ok(v) = verdict else {
        return Certified {
            bound: None,
            checked: false,
            verdict: note,
            comparison: None,
            path,
            lower: None,
        };
    };
    let certified = super::analyze::verdict_bound(&v);
    // the further bounds of the analysis's chain (a symbolic-divisor run, spec/logic.md §1
    // "Symbolic divisors"; the capped runs of §4a), each checked by the kernel on its own:
    // the certified bound is the minimum of the accepted ones
    let extra: Vec<warpcert_kernel::Verdict> = a
        .chain()
        .into_iter()
        .skip(1)
        .filter_map(|c| warpcert_kernel::check(&c.certificate).ok())
        .collect();
    let extra_polys: Vec<_> = extra.iter().map(super::analyze::verdict_bound).collect();
    let comparison = r.filter(|r| r.has_bound()).map(|r| {
        let mut c = Comparison {
            n: 0,
            equal: 0,
            below: 0,
            above: None,
            exact: r.relation == Relation::Exact,
        };
        for p in sample_points(l) {
            let Some(f) = r.eval(&p) else { continue };
            c.n += 1;
            let b = extra_polys
                .iter()
                .map(|e| e.eval(&p))
                .fold(certified.eval(&p), |m, x| if x < m { x } else { m });
            if f == b {
                c.equal += 1;
            } else if f < b {
                c.below += 1;
            } else if c.above.is_none() {
                let at: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
                c.above = Some((
                    crate::report::bound::rational(&f),
                    crate::report::bound::rational(&b),
                    at.join(" "),
                ));
            }
        }
        comparison_note(&c)
    });
    // the relation as `analyze` decides it: a lower-bound certificate the kernel accepts
    // with the same bound (spec/logic.md §4b), written beside the upper one, searched with
    // the companion's own metric and options
    let lower = super::analyze::exact_lower(l, &m, &opts, &a.derivation, &v.bound, path.as_deref())
        .unwrap_or_else(|e| {
            eprintln!("error: {e}");
            None
        });
    let bound = match extra.as_slice() {
        [] => v.bound.clone(),
        more => {
            let parts: Vec<&str> = std::iter::once(v.bound.as_str())
                .chain(more.iter().map(|x| x.bound.as_str()))
                .collect();
            format!("min({})", parts.join(", "))
        }
    };
    Certified {
        bound: Some(bound),
        checked: true,
        verdict: note,
        comparison,
        path,
        lower,
    }
}

/// One metric's relational report.
///
/// `cert_out`: where to write the RaCUDA-logic certificate of the certified companion.
pub fn relation_report(
    l: &Loaded,
    metric: MetricName,
    want: RelationArg,
    cert_out: Option<&Path>,
) -> RelationReport {
    let start = Instant::now();
    let res = relational::analyze(&l.program, metric, &l.hw, &l.launch);
    let mut rep = RelationReport {
        kernel: l.program.name.clone(),
        metric: metric.to_string(),
        relation: None,
        requested: want.as_str().into(),
        per_warp: None,
        unchecked: None,
        assumptions: vec![],
        witness: None,
        note: None,
        stats: Stats::default(),
        stats_pico: Stats::default(),
        rules: vec![],
        certification: NOT_CERTIFIED.into(),
        certified: None,
        time_ms: 0.0,
    };
    let r = match res {
        Ok(r) => r,
        Err(e) => {
            rep.note = Some(e);
            rep.certified = Some(certified_companion(l, metric, None, cert_out));
            answer_certified(&mut rep, want);
            rep.time_ms = start.elapsed().as_secs_f64() * 1e3;
            return rep;
        }
    };
    rep.stats = stats_of(&r);
    rep.stats_pico = stats_from(r.pico_totals());
    rep.rules = r.rules.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    rep.assumptions = r.assumptions.clone();
    let exact = r.has_bound() && r.relation == Relation::Exact;
    match want {
        RelationArg::Lower if !exact => match witness(l, metric) {
            Ok((w, verdict)) => {
                rep.relation = Some("lower".into());
                rep.per_warp = Some(w.cost.clone());
                rep.certification = verdict;
                rep.witness = Some(w);
                rep.assumptions.clear();
            }
            Err(e) => rep.note = Some(no_witness_note(&e)),
        },
        _ => {
            if r.has_bound() {
                rep.relation = Some(r.relation.as_str().into());
                rep.per_warp = Some(r.bound_string());
                rep.certification = point_check(l, metric, &r);
            } else {
                rep.note = Some(r.failures.join("; "));
            }
        }
    }
    rep.certified = Some(certified_companion(l, metric, Some(&r), cert_out));
    answer_certified(&mut rep, want);
    rep.time_ms = start.elapsed().as_secs_f64() * 1e3;
    rep
}

/// Under `--relation upper|auto` the answer is a bound the kernel accepted (issue 14,
/// spec/relational.md §7): the relational formula, which only point checks test, moves to
/// `unchecked`, and the certified companion's bound becomes `per_warp` with the relation
/// `upper` — `exact` for the bound 0 (no cost is below 0) and where a lower-bound
/// certificate with the same bound was accepted (`Certified::lower`, spec/logic.md §4b). Without a certified bound
/// there is no answer (`note` says why). `lower` is left as it is.
///
/// Under `--relation exact` the same holds, and a certified bound that is only `upper` is
/// no answer: the note says so and names it (spec/relational.md §7). Pico's formula, even
/// when it claims `exact`, is only point-checked and never the answer (issue 14).
fn answer_certified(rep: &mut RelationReport, want: RelationArg) {
    if want == RelationArg::Lower {
        return;
    }
    if let (Some(f), Some(rel)) = (rep.per_warp.take(), rep.relation.take()) {
        rep.unchecked = Some(Unchecked {
            per_warp: f,
            relation: rel,
        });
    }
    match rep
        .certified
        .as_ref()
        .filter(|c| c.checked)
        .and_then(|c| c.bound.clone())
    {
        Some(b) => {
            let zero = crate::report::bound::parse_rational(&b)
                .is_some_and(|q| num_traits::Zero::is_zero(&q));
            let lower = rep.certified.as_ref().is_some_and(|c| c.lower.is_some());
            if want == RelationArg::Exact && !(zero || lower) {
                let why = format!(
                    "{} and no lower-bound certificate of it was accepted",
                    not_exact_note(&b)
                );
                lead_note(rep, why);
                return;
            }
            rep.relation = Some(if zero || lower { "exact" } else { "upper" }.into());
            rep.per_warp = Some(b);
        }
        None => {
            let why = "no bound accepted by the kernel (the relational formula is not certified)";
            lead_note(rep, why.into());
        }
    }
}

/// Puts `why` before the report's note (`why; note`), or makes it the note.
fn lead_note(rep: &mut RelationReport, why: String) {
    rep.note = Some(match rep.note.take() {
        Some(n) => format!("{why}; {n}"),
        None => why,
    });
}

/// `warpcert analyze FILE --relation R [--cert PATH]`: exit 0 when every metric got a result
/// of the requested relation. `--cert` receives the certified companions' certificates (a
/// file for one metric, a directory of `KERNEL.METRIC.cert` for several).
pub fn run_relation(args: &KernelArgs, want: RelationArg, cert: Option<&Path>) -> i32 {
    let l = match load(args, None) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_BAD_INPUT;
        }
    };
    for w in &l.warnings {
        eprintln!("{w}");
    }
    let metrics = relational_metrics(&l);
    let several = metrics.len() > 1;
    if let (Some(dir), true) = (cert, several) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            eprintln!("error: cannot create {}: {e}", dir.display());
            return EXIT_BAD_INPUT;
        }
    }
    let reps: Vec<RelationReport> = metrics
        .into_iter()
        .map(|m| {
            let out = cert.map(|c| super::analyze::cert_path(c, &l.program.name, m, several));
            relation_report(&l, m, want, out.as_deref())
        })
        .collect();
    if reps.is_empty() {
        eprintln!("--relation applies to the metrics sectors and conflicts");
        return EXIT_BAD_INPUT;
    }
    match report::render(args.format, &reps, |v| relation_text(v)) {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    }
    if reps.iter().all(|r| r.relation.is_some()) {
        0
    } else {
        EXIT_FAILED
    }
}

fn cu_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "cu"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `warpcert analyze PATH --stats`: the exactness table over a file or every `.cu` file of
/// a directory (Pico §7.2).
pub fn run_stats(args: &KernelArgs) -> i32 {
    let files = if args.file.is_dir() {
        cu_files(&args.file)
    } else {
        vec![args.file.clone()]
    };
    if files.is_empty() {
        eprintln!("no .cu files in {}", args.file.display());
        return EXIT_BAD_INPUT;
    }
    let mut rows = Vec::new();
    for f in files {
        let mut a = args.clone();
        a.file = f.clone();
        let name = f
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let metrics = match super::options::parse_metrics(&args.metric) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("{e}");
                return EXIT_BAD_INPUT;
            }
        };
        let metrics: Vec<MetricName> = metrics
            .into_iter()
            .filter(|m| matches!(m, MetricName::Sectors | MetricName::Conflicts))
            .collect();
        match load(&a, None) {
            Ok(l) => {
                for m in metrics {
                    let res = relational::analyze(&l.program, m, &l.hw, &l.launch);
                    rows.push(match res {
                        Ok(r) => StatsRow {
                            file: name.clone(),
                            metric: m.to_string(),
                            stats: Some(stats_of(&r)),
                            stats_pico: Some(stats_from(r.pico_totals())),
                            note: None,
                        },
                        Err(e) => StatsRow {
                            file: name.clone(),
                            metric: m.to_string(),
                            stats: None,
                            stats_pico: None,
                            note: Some(e),
                        },
                    });
                }
            }
            Err(e) => {
                let first = e.text.lines().next().unwrap_or("").to_string();
                for m in metrics {
                    rows.push(StatsRow {
                        file: name.clone(),
                        metric: m.to_string(),
                        stats: None,
                        stats_pico: None,
                        note: Some(first.clone()),
                    });
                }
            }
        }
    }
    match report::render(args.format, &rows, |v| stats_text(v)) {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    }
    0
}
