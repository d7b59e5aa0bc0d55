//! Issue 14, Done-when item 3: every relational answer of the project's own test kernels
//! (`tests/data/**/*.cu`, `tests/precision/*.cu`, the relational test kernels of
//! `tests/common/relational_kernels.rs`) against the lock-step semantics at seeded random
//! parameter values and inputs.
//!
//! `warpcert analyze --relation upper|exact|auto` prints `RelResult::bound_string()` with
//! `RelResult::relation` whenever `has_bound()` (`src/cli/relation.rs`: `upper` and `auto`
//! print it with its relation, `exact` only when the relation is exact), so checking that
//! result checks all three answers. At every sampled point and input the expected value is
//! the executable semantics' largest per-warp cost over the whole grid (`run_kernel`, the
//! test oracle): an upper answer must be at least it, an exact answer equal to it. Points
//! where one of the answer's printed assumptions fails are not claims of the answer and are
//! skipped (counted); so are runs over the fuel budget (counted).

mod common;

use common::relational_kernels::KERNELS;
use common::rng::Rng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program, Ty};
use warpcert::relational::{self, Relation};
use warpcert::semantics::{run_kernel_with, Inputs, Params, RunOptions, Value};

/// Values around the warp size and the 32-byte sectors (where rounding changes), and small
/// values; half the draws are uniform in `0..=70`. Non-negative: assumption A1 of
/// spec/relational.md §4.
const POOL: [i64; 17] = [0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100];

fn draw(rng: &mut Rng) -> i64 {
    if rng.below(2) == 0 {
        POOL[rng.below(POOL.len() as u64) as usize]
    } else {
        rng.below(71) as i64
    }
}

/// Sampled points per kernel; the semantics' fuel per warp.
const POINTS: usize = 12;
const FUEL: u64 = 3_000_000;

/// One kernel to check: its program, the analysis launch, and the grid sizes the runs use.
struct Subject {
    name: String,
    prog: Program,
    launch: Launch,
}

fn cu_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut es: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    es.sort();
    for p in es {
        if p.is_dir() {
            cu_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "cu") {
            out.push(p);
        }
    }
}

/// Every kernel instance of a `tests/data/clang` file, read by clang (skipped, saying so,
/// when clang is absent).
fn load_clang(
    file: &Path,
    shown: &str,
    launch: &Launch,
    hw: &Hardware,
    skipped: &mut Vec<String>,
) -> Vec<Subject> {
    use warpcert::frontend::clang;
    if !clang::available() {
        skipped.push(format!("{shown} (clang is not installed)"));
        return vec![];
    }
    let cp = match clang::parse_file(file, &clang::ClangOptions::default(), None) {
        Ok(cp) => cp,
        Err(_) => {
            skipped.push(shown.to_string());
            return vec![];
        }
    };
    let mut out = Vec::new();
    for inst in &cp.instances {
        match clang::lower(&cp, inst, launch, hw, &BTreeMap::new()) {
            Ok((prog, _)) => out.push(Subject {
                name: format!("{shown}:{} block {:?}", inst.display, launch.block),
                prog,
                launch: *launch,
            }),
            Err(_) => skipped.push(format!("{shown}:{}", inst.display)),
        }
    }
    out
}

/// Every kernel of `file` the front end accepts, lowered for `launch`; rejected files are
/// counted in `skipped` (tests/data/err holds deliberately wrong kernels).
fn load_file(
    file: &Path,
    launch: &Launch,
    hw: &Hardware,
    skipped: &mut Vec<String>,
) -> Vec<Subject> {
    let root = common::root();
    let shown = file
        .strip_prefix(&root)
        .unwrap_or(file)
        .display()
        .to_string();
    if shown.starts_with("tests/data/clang/") {
        return load_clang(file, &shown, launch, hw, skipped);
    }
    let parsed = match warpcert::frontend::parse_file(file) {
        Ok(p) => p,
        Err(_) => {
            skipped.push(shown);
            return vec![];
        }
    };
    let mut out = Vec::new();
    for k in &parsed.kernels {
        match warpcert::frontend::lower(&parsed, Some(k), launch, hw, &BTreeMap::new()) {
            Ok((prog, _)) => out.push(Subject {
                name: format!("{shown}:{k} block {:?}", launch.block),
                prog,
                launch: *launch,
            }),
            Err(_) => skipped.push(format!("{shown}:{k}")),
        }
    }
    out
}

fn subjects(hw: &Hardware, skipped: &mut Vec<String>) -> Vec<Subject> {
    let root = common::root();
    // Two warps per block, symbolic grid: warps differ (threadIdx ranges) and blockIdx stays
    // symbolic, as in `warpcert analyze`'s default.
    let two_warps = Launch {
        block: [64, 1, 1],
        grid: None,
    };
    let mut files = Vec::new();
    cu_files(&root.join("tests/data"), &mut files);
    // A 2-D block of two and a half warps (the last one partial).
    let partial = Launch {
        block: [16, 5, 1],
        grid: None,
    };
    let mut out = Vec::new();
    for f in &files {
        for l in [&two_warps, &partial] {
            out.extend(load_file(f, l, hw, skipped));
        }
    }
    // The precision suite with its own launches (block, concrete or symbolic grid).
    let cases = warpcert::cli::precision::suite();
    let mut prec = Vec::new();
    cu_files(&warpcert::cli::precision::suite_dir(), &mut prec);
    for f in &prec {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let launch = cases
            .iter()
            .find(|c| c.file == name)
            .map(|c| Launch {
                block: c.block,
                grid: c.concrete_grid.map(|g| [g, 1, 1]),
            })
            .unwrap_or(two_warps);
        out.extend(load_file(f, &launch, hw, skipped));
    }
    for (name, src) in KERNELS {
        let parsed = warpcert::frontend::parse_str("k.cu", src).unwrap();
        for l in [&two_warps, &partial] {
            let prog = warpcert::frontend::lower(&parsed, None, l, hw, &BTreeMap::new())
                .unwrap()
                .0;
            out.push(Subject {
                name: format!("relational_kernels:{name} block {:?}", l.block),
                prog,
                launch: *l,
            });
        }
    }
    out
}

/// A point: the kernel's parameter values (`Value`s for the run, integers for the bound) and
/// the grid size of the run.
struct Point {
    run: Params,
    env: BTreeMap<String, i64>,
    grid: [u32; 3],
}

fn point(s: &Subject, rng: &mut Rng) -> Point {
    let grid = s.launch.grid.unwrap_or([1 + rng.below(3) as u32, 1, 1]);
    let mut run = Params::new();
    let mut env = BTreeMap::new();
    for (i, d) in ["x", "y", "z"].iter().enumerate() {
        env.insert(format!("gridDim.{d}"), grid[i] as i64);
    }
    for p in &s.prog.params {
        if p.name.contains('.') || p.name == "warpSize" {
            continue; // built-ins: set by the runner from the launch
        }
        match p.ty {
            Ty::Int => {
                let v = draw(rng);
                run.insert(p.name.clone(), Value::Int(v));
                env.insert(p.name.clone(), v);
            }
            Ty::Bool => {
                let b = rng.below(2) == 1;
                run.insert(p.name.clone(), Value::Bool(b));
                env.insert(p.name.clone(), b as i64);
            }
            Ty::Float => {
                run.insert(p.name.clone(), Value::Float(rng.below(1000) as f64 / 8.0));
            }
        }
    }
    Point { run, env, grid }
}

#[derive(Default)]
struct Coverage {
    /// (kernel, metric) pairs with an answer, per relation.
    exact: usize,
    upper: usize,
    /// Pairs without an answer (failures of the analysis: no formula printed).
    none: usize,
    /// (answer, point, input) comparisons made, per relation.
    exact_checks: usize,
    upper_checks: usize,
    /// Points skipped: an assumption fails; the run is over the fuel or errs.
    assumption_skips: usize,
    run_skips: usize,
}

/// Checks one kernel's answers for both metrics at [`POINTS`] points and two inputs.
fn check_subject(
    s: &Subject,
    hw: &Hardware,
    rng: &mut Rng,
    cov: &mut Coverage,
    failures: &mut Vec<String>,
) {
    let metrics = [MetricName::Sectors, MetricName::Conflicts];
    if std::env::var_os("REL_PROPERTY_VERBOSE").is_some() {
        eprintln!("kernel {}", s.name);
    }
    let mut answers = Vec::new();
    for m in metrics {
        match relational::analyze(&s.prog, m, hw, &s.launch) {
            Ok(r) if r.has_bound() => {
                match r.relation {
                    Relation::Exact => cov.exact += 1,
                    _ => cov.upper += 1,
                }
                answers.push((m, r));
            }
            Ok(r) => {
                cov.none += 1;
                if std::env::var_os("REL_PROPERTY_VERBOSE").is_some() {
                    eprintln!("no answer: {} {m}: {}", s.name, r.failures.join("; "));
                }
            }
            Err(e) => {
                cov.none += 1;
                if std::env::var_os("REL_PROPERTY_VERBOSE").is_some() {
                    eprintln!("no answer: {} {m}: {e}", s.name);
                }
            }
        }
    }
    if answers.is_empty() {
        return;
    }
    let sem_metrics: Vec<Metric> = metrics.iter().map(|&m| Metric::standard(m)).collect();
    let opts = RunOptions {
        fuel: FUEL,
        ..RunOptions::default()
    };
    for _ in 0..POINTS {
        let pt = point(s, rng);
        let launch = Launch {
            block: s.launch.block,
            grid: Some(pt.grid),
        };
        let seed = rng.next_u64();
        for input in [Inputs::zero(), Inputs::random(seed)] {
            let run =
                match run_kernel_with(&s.prog, &sem_metrics, hw, &launch, &pt.run, &input, &opts) {
                    Ok(r) => r,
                    Err(e) => {
                        cov.run_skips += 1;
                        if std::env::var_os("REL_PROPERTY_VERBOSE").is_some() {
                            eprintln!("run skipped: {} at {:?}: {e}", s.name, pt.env);
                        }
                        continue;
                    }
                };
            for (m, r) in &answers {
                let i = metrics.iter().position(|x| x == m).unwrap();
                let sim: &Q = &run.metrics[i].max_per_warp;
                let ctx = format!(
                    "{} {m} {:?} at {:?} grid {:?} ({}): bound {}",
                    s.name,
                    r.relation,
                    pt.env,
                    pt.grid,
                    if input == Inputs::zero() {
                        "zero input"
                    } else {
                        "random input"
                    },
                    r.bound_string()
                );
                if r.assumptions
                    .iter()
                    .any(|a| relational::assumption_holds(a, &pt.env) != Some(true))
                {
                    cov.assumption_skips += 1;
                    continue;
                }
                let Some(b) = r.eval(&pt.env) else {
                    failures.push(format!("{ctx}: not evaluable"));
                    continue;
                };
                match r.relation {
                    Relation::Exact => {
                        cov.exact_checks += 1;
                        if &b != sim {
                            failures.push(format!("{ctx} = {b}, simulated maximum {sim}"));
                        }
                    }
                    _ => {
                        cov.upper_checks += 1;
                        if &b < sim {
                            failures.push(format!("{ctx} = {b} < simulated maximum {sim}"));
                        }
                    }
                }
            }
        }
    }
}

/// Every relational answer of the test kernels at 12 seeded random points × 2 inputs.
#[test]
fn every_relational_answer_holds_at_random_points() {
    let hw = Hardware::default();
    let mut skipped = Vec::new();
    let subs = subjects(&hw, &mut skipped);
    let mut rng = Rng::new(14);
    let mut cov = Coverage::default();
    let mut failures = Vec::new();
    for s in &subs {
        check_subject(s, &hw, &mut rng, &mut cov, &mut failures);
    }
    eprintln!(
        "kernels {} (front end rejected {}: {}); answers: exact {}, upper {}, none {}; \
         checks: exact {}, upper {}; skipped: assumption {}, run {}",
        subs.len(),
        skipped.len(),
        skipped.join(", "),
        cov.exact,
        cov.upper,
        cov.none,
        cov.exact_checks,
        cov.upper_checks,
        cov.assumption_skips,
        cov.run_skips
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Floors against a loader regression emptying the test (not expected values: the run of
    // 2026-11-26 made 5 842 exact and 1 998 upper comparisons over 198 kernel launches, and
    // 146 launches when clang is absent and the tests/data/clang kernels are skipped).
    let floor = if warpcert::frontend::clang::available() {
        150
    } else {
        120
    };
    assert!(subs.len() >= floor, "only {} kernels loaded", subs.len());
    assert!(
        cov.exact_checks >= 3000,
        "only {} exact checks",
        cov.exact_checks
    );
    assert!(
        cov.upper_checks >= 1000,
        "only {} upper checks",
        cov.upper_checks
    );
}
