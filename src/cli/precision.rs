//! `warpcert bench --precision` (issue 15): the project's precision suite
//! (`tests/precision/*.cu`, one or more kernels per pattern of real code), each analysed and
//! checked for every metric, and compared with the largest per-warp cost of the lock-step
//! semantics (`semantics::run_kernel`) over the case's parameter points and inputs.
//!
//! Every case names one metric whose exact per-warp worst cost was derived by hand (the
//! derivation is the comment at the top of the kernel's file; [`Case::hand`] is its
//! formula): `tests/precision.rs` checks the formula against the semantics at every point,
//! and every bound against the simulated maximum (a bound below it is unsound).

use crate::analysis::{analyze, AnalysisOptions};
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, Metric, MetricName, Program};
use crate::frontend;
use crate::report::precision::{Cell, PointRatio};
use crate::semantics::{run_kernel, ArrayInit, Inputs, Params, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A parameter point: the kernel's `int` parameters, and `G`, the number of blocks the
/// simulation launches (`gridDim.x`).
pub type Point = BTreeMap<String, i64>;

/// One kernel of the suite with its launch, points, inputs and hand-derived truth.
pub struct Case {
    /// Shown name.
    pub name: &'static str,
    /// File under `tests/precision/`.
    pub file: &'static str,
    /// The pattern of issue 15's table the kernel exercises.
    pub pattern: &'static str,
    /// Block dimensions.
    pub block: [u32; 3],
    /// `Some(G)`: the analysis is given the concrete grid `[G, 1, 1]` (and the simulation
    /// runs it); `None`: the analysis has a symbolic grid, the simulation runs `G` blocks
    /// (the point's `G`).
    pub concrete_grid: Option<u32>,
    /// The metric whose worst per-warp cost [`Case::hand`] gives.
    pub metric: MetricName,
    /// The parameter points.
    pub points: Vec<Point>,
    /// The exact per-warp worst cost of `metric` at a point (hand derivation).
    pub hand: fn(&Point) -> i64,
    /// Inputs beside zero and two random ones (adversarial contents).
    pub extra_inputs: fn() -> Vec<Inputs>,
}

fn pts(name: &str, vals: &[i64], g: i64) -> Vec<Point> {
    vals.iter()
        .map(|&v| Point::from([(name.to_string(), v), ("G".to_string(), g)]))
        .collect()
}

fn none() -> Vec<Inputs> {
    Vec::new()
}

fn p(pt: &Point, k: &str) -> i64 {
    pt.get(k).copied().unwrap_or(0)
}

/// `⌊log2 n⌋` for `n ≥ 1`.
fn ilog2(n: i64) -> i64 {
    i64::from(63 - n.leading_zeros() as i32)
}

/// Sectors of one grid-stride warp (`tests/precision/gridstride.cu`): `4q + ⌈min(32, r)/8⌉`
/// per access with `q = ⌊n/S⌋`, `r = n − qS`.
fn stride_sectors(n: i64, s: i64) -> i64 {
    if n <= 0 {
        return 0;
    }
    let (q, r) = (n / s, n % s);
    4 * q + (r.min(32) + 7) / 8
}

/// The suite (file comments give each hand derivation).
pub fn suite() -> Vec<Case> {
    let widths: Vec<i64> = vec![
        24, 25, 26, 27, 28, 30, 31, 32, 33, 36, 40, 57, 64, 100, 1000,
    ];
    let rounds: Vec<i64> = vec![0, 1, 2, 3, 5, 8, 17, 31, 32, 33, 64, 100];
    let sizes: Vec<i64> = vec![0, 1, 31, 32, 33, 100, 255, 256, 257, 1000, 4096, 5000];
    vec![
        Case {
            name: "rows16",
            file: "rows16.cu",
            pattern: "2-D block 16×16, row*W+col",
            block: [16, 16, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("W", &widths, 1),
            hand: |pt| match p(pt, "W") % 8 {
                0 => 8,
                4 => 10,
                _ => 12,
            },
            extra_inputs: none,
        },
        Case {
            name: "rows8",
            file: "rows8.cu",
            pattern: "2-D block 8×32, row*W+col",
            block: [8, 32, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("W", &[16, 17, 18, 19, 20, 24, 30, 32, 33, 64, 100, 1001], 1),
            hand: |pt| match p(pt, "W") % 8 {
                0 => 8,
                4 => 12,
                2 | 6 => 14,
                _ => 16,
            },
            extra_inputs: none,
        },
        Case {
            name: "modloop",
            file: "modloop.cu",
            pattern: "% 32 in a loop",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Conflicts,
            points: pts("n", &rounds, 1),
            hand: |_| 0,
            extra_inputs: none,
        },
        Case {
            name: "mod16",
            file: "mod16.cu",
            pattern: "% 16 in a loop (4-byte elements)",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Conflicts,
            points: pts("n", &rounds, 1),
            hand: |_| 0,
            extra_inputs: none,
        },
        Case {
            name: "maskloop",
            file: "maskloop.cu",
            pattern: "& 63 in a loop",
            block: [64, 1, 1],
            concrete_grid: None,
            metric: MetricName::Conflicts,
            points: pts("n", &rounds, 1),
            hand: |pt| p(pt, "n").max(0),
            extra_inputs: none,
        },
        Case {
            name: "table8",
            file: "table8.cu",
            pattern: "data-dependent index, shared table",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Conflicts,
            points: vec![Point::from([("G".to_string(), 1)])],
            hand: |_| 0,
            extra_inputs: bank_inputs,
        },
        Case {
            name: "table_words",
            file: "table_words.cu",
            pattern: "data-dependent index, shared table",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Conflicts,
            points: vec![Point::from([("G".to_string(), 1)])],
            hand: |_| 7,
            extra_inputs: bank_inputs,
        },
        Case {
            name: "gridstride",
            file: "gridstride.cu",
            pattern: "grid-stride loop, symbolic grid",
            block: [256, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &sizes, 1),
            hand: |pt| 2 * stride_sectors(p(pt, "n"), 256),
            extra_inputs: none,
        },
        Case {
            name: "gridstride_prod",
            file: "gridstride_prod.cu",
            pattern: "grid-stride loop, stride a product of launch dimensions",
            block: [256, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &sizes, 1),
            hand: |pt| 2 * stride_sectors(p(pt, "n"), 256),
            extra_inputs: none,
        },
        Case {
            name: "gridstride@2",
            file: "gridstride.cu",
            pattern: "grid-stride loop, --grid 2",
            block: [256, 1, 1],
            concrete_grid: Some(2),
            metric: MetricName::Sectors,
            points: pts("n", &sizes, 2),
            hand: |pt| 2 * stride_sectors(p(pt, "n"), 512),
            extra_inputs: none,
        },
        Case {
            name: "gridstride_sum@240",
            file: "gridstride_sum.cu",
            pattern: "grid-stride loop, --grid 240",
            block: [128, 1, 1],
            concrete_grid: Some(240),
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 100, 30720, 30721, 30752, 70000], 240),
            hand: |pt| stride_sectors(p(pt, "n"), 128 * 240) + 4,
            extra_inputs: none,
        },
        Case {
            name: "halving",
            file: "halving.cu",
            pattern: "halving loop s >>= 1",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 3, 7, 8, 100, 1024, 5000], 1),
            hand: |pt| {
                let n = p(pt, "n");
                if n <= 0 {
                    0
                } else {
                    8 * (ilog2(n) + 1)
                }
            },
            extra_inputs: none,
        },
        Case {
            name: "doubling",
            file: "doubling.cu",
            pattern: "doubling loop i *= 2",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 3, 7, 8, 9, 100, 1024, 5000], 1),
            hand: |pt| {
                let n = p(pt, "n");
                if n <= 1 {
                    0
                } else {
                    4 * (ilog2(n - 1) + 1)
                }
            },
            extra_inputs: none,
        },
        Case {
            name: "triangular",
            file: "triangular.cu",
            pattern: "triangular nest",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 3, 10, 31, 60], 1),
            hand: |pt| {
                let n = p(pt, "n").max(0);
                n * (n + 1) / 2 + 4
            },
            extra_inputs: none,
        },
        Case {
            name: "nest_entry",
            file: "nest_entry.cu",
            pattern: "nest: inner loop from the outer counter, other bound",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 63, 64, 65, 200], 1),
            hand: |pt| {
                let n = p(pt, "n");
                (0..64).map(|i| (n - i).max(0)).sum::<i64>() + 4
            },
            extra_inputs: none,
        },
        Case {
            name: "nest_entry_stride",
            file: "nest_entry_stride.cu",
            pattern: "nest: inner loop from the outer counter, other bound",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 40, 255, 256, 300, 512, 1000], 1),
            hand: |pt| (p(pt, "n").max(0) + 7) / 8 + 4,
            extra_inputs: none,
        },
        Case {
            name: "guard_loop",
            file: "guard_loop.cu",
            pattern: "guard inside a loop",
            block: [256, 1, 1],
            concrete_grid: None,
            metric: MetricName::Divwarps,
            // 5 blocks (1280 threads) cover every n of the points: the warp that straddles
            // n is simulated
            points: [
                (32, 4),
                (33, 4),
                (100, 3),
                (256, 5),
                (1000, 2),
                (1001, 0),
                (63, 7),
            ]
            .iter()
            .map(|&(n, m)| {
                Point::from([
                    ("n".to_string(), n),
                    ("m".to_string(), m),
                    ("G".to_string(), 5),
                ])
            })
            .collect(),
            hand: |pt| {
                if p(pt, "n") % 32 != 0 {
                    p(pt, "m").max(0)
                } else {
                    0
                }
            },
            extra_inputs: none,
        },
        Case {
            name: "guard_device",
            file: "guard_device.cu",
            pattern: "guard in a device function",
            block: [256, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            // 17 blocks (4352 threads) cover every n of the points, so the warp that
            // straddles n is simulated (the divwarps truth; with 2 blocks n = 1000 is
            // beyond every thread)
            points: pts("n", &[32, 33, 100, 256, 1000, 4096], 17),
            hand: |_| 8,
            extra_inputs: none,
        },
        Case {
            name: "one_lane",
            file: "one_lane.cu",
            pattern: "one-lane store",
            block: [128, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: vec![Point::from([("G".to_string(), 3)])],
            hand: |_| 5,
            extra_inputs: none,
        },
        Case {
            name: "last_round",
            file: "last_round.cu",
            pattern: "divergence in the last round only",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Divwarps,
            points: pts("n", &sizes, 1),
            hand: |pt| {
                let n = p(pt, "n");
                i64::from(n > 0 && n % 32 != 0)
            },
            extra_inputs: none,
        },
        Case {
            name: "break_loop",
            file: "break_loop.cu",
            pattern: "loop left by break",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Divwarps,
            points: pts("n", &[0, 1, 2, 5, 31, 32, 40], 1),
            hand: |pt| match p(pt, "n") {
                n if n <= 0 => 0,
                n if n <= 31 => 3 * n - 1,
                _ => 93,
            },
            extra_inputs: staircase,
        },
        Case {
            name: "uniform_break",
            file: "uniform_break.cu",
            pattern: "loop left by a uniform break",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Divwarps,
            points: pts("n", &[0, 1, 2, 5, 31, 32, 40], 1),
            hand: |_| 0,
            extra_inputs: negative_at_3,
        },
        Case {
            name: "break_before",
            file: "break_before.cu",
            pattern: "loop left by break, break before the cost",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 5, 31, 32, 40], 1),
            hand: |pt| 8 * p(pt, "n").max(0),
            extra_inputs: staircase,
        },
        Case {
            name: "break_after",
            file: "break_after.cu",
            pattern: "loop left by break, break after the cost",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 5, 31, 32, 40], 1),
            hand: |pt| 8 * p(pt, "n").max(0),
            extra_inputs: staircase,
        },
        Case {
            name: "for_return",
            file: "for_return.cu",
            pattern: "loop left by return",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 5, 31, 32, 40], 1),
            hand: |pt| 8 * p(pt, "n").max(0) + 4,
            extra_inputs: return_staircases,
        },
        Case {
            name: "while_return",
            file: "while_return.cu",
            pattern: "while loop left by return, counter after it",
            block: [32, 1, 1],
            concrete_grid: None,
            metric: MetricName::Sectors,
            points: pts("n", &[0, 1, 2, 5, 31, 32, 40], 1),
            hand: |pt| 8 * p(pt, "n").max(0) + 4,
            extra_inputs: return_staircases,
        },
        Case {
            name: "grid240",
            file: "grid240.cu",
            pattern: "concrete large grid --grid 240",
            block: [256, 1, 1],
            concrete_grid: Some(240),
            metric: MetricName::Sectors,
            points: pts("n", &[32, 100, 1000, 61440], 240),
            hand: |_| 12,
            extra_inputs: none,
        },
    ]
}

/// `in[t] = 32·(t mod 8)`: the 32 lanes name 8 distinct words of bank 0 (table kernels).
fn bank_inputs() -> Vec<Inputs> {
    let cells = (0..64).map(|t| Value::Int(32 * (t % 8))).collect();
    vec![Inputs::zero().with_array("in", ArrayInit::Values(cells))]
}

/// `in[32k + t] = −1` iff `t = k` (lane `k` breaks in round `k`), else `1`.
fn staircase() -> Vec<Inputs> {
    let cells = (0..32 * 48)
        .map(|i| Value::Float(if i % 33 == 0 { -1.0 } else { 1.0 }))
        .collect();
    vec![Inputs::zero().with_array("in", ArrayInit::Values(cells))]
}

/// The staircase, and the staircase without lane 31's negative cell (`in[33k] = −1` for
/// `k ≤ 30` only): lanes `0 … 30` return in rounds `0 … 30` and lane 31 never, so for
/// `n ≥ 32` the loop test of round 30 and the return-flag test after the loop split too —
/// the worst `divwarps` of for_return/while_return, 94 (tests/whileguard.rs
/// `return_loop_divwarps`), where the full staircase ends with every lane returned (93).
fn return_staircases() -> Vec<Inputs> {
    let cells = (0..32 * 48)
        .map(|i| {
            Value::Float(if i % 33 == 0 && i < 33 * 31 {
                -1.0
            } else {
                1.0
            })
        })
        .collect();
    let mut v = staircase();
    v.push(Inputs::zero().with_array("in", ArrayInit::Values(cells)));
    v
}

/// `in[3] = −1`, else `1`: every lane breaks in round 3 (uniform_break).
fn negative_at_3() -> Vec<Inputs> {
    let cells = (0..32 * 48)
        .map(|i| Value::Float(if i == 3 { -1.0 } else { 1.0 }))
        .collect();
    vec![Inputs::zero().with_array("in", ArrayInit::Values(cells))]
}

/// The folder of the suite's kernels.
pub fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/precision")
}

/// A case's kernel, lowered for its analysis launch.
pub fn load(case: &Case, hw: &Hardware) -> Result<Program, String> {
    let launch = analysis_launch(case);
    let file = frontend::parse_file(&suite_dir().join(case.file)).map_err(|d| d.to_string())?;
    frontend::lower(&file, None, &launch, hw, &BTreeMap::new())
        .map(|(p, _)| p)
        .map_err(|d| d.to_string())
}

fn analysis_launch(case: &Case) -> Launch {
    Launch {
        block: case.block,
        grid: case.concrete_grid.map(|g| [g, 1, 1]),
    }
}

/// The largest simulated per-warp cost of every metric (in [`MetricName::ALL`] order) at a
/// point, over zero, two random and the case's extra inputs.
pub fn simulate(case: &Case, prog: &Program, hw: &Hardware, pt: &Point) -> Result<Vec<Q>, String> {
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let g = u32::try_from(p(pt, "G").max(1)).unwrap_or(1);
    let launch = Launch {
        block: case.block,
        grid: Some([g, 1, 1]),
    };
    let mut params = Params::new();
    for (k, v) in pt {
        if prog.param_ty(k).is_some() {
            params.insert(k.clone(), Value::Int(*v));
        }
    }
    let mut inputs = vec![Inputs::zero(), Inputs::random(1), Inputs::random(2)];
    inputs.extend((case.extra_inputs)());
    let mut worst = vec![Q::from_integer(0.into()); metrics.len()];
    for input in &inputs {
        let run = run_kernel(prog, &metrics, hw, &launch, &params, input)
            .map_err(|e| format!("simulation at {pt:?}: {e}"))?;
        for (w, r) in worst.iter_mut().zip(&run.metrics) {
            if r.max_per_warp > *w {
                *w = r.max_per_warp.clone();
            }
        }
    }
    Ok(worst)
}

/// The environment a bound is evaluated in at a point: its parameters and `gridDim.x = G`
/// (a symbolic grid's bound may mention it).
fn bound_env(pt: &Point) -> Point {
    let mut env = pt.clone();
    env.insert("gridDim.x".into(), p(pt, "G").max(1));
    env
}

/// One case measured: per metric (in [`MetricName::ALL`] order) the cell of the table, and
/// per point the simulated maxima.
pub struct Measured {
    /// The table's cells.
    pub cells: Vec<Cell>,
    /// Per point: the point and the simulated maxima of every metric.
    pub sims: Vec<(Point, Vec<Q>)>,
}

/// Analyses (and checks) every metric of a case with the default options and simulates
/// every point. Errors: the front end or the simulation failed.
pub fn measure(case: &Case, hw: &Hardware) -> Result<Measured, String> {
    measure_with(case, hw, &AnalysisOptions::default())
}

/// [`measure`] with the analysis options `opts` (e.g. `align`, Q:IFALIGN).
pub fn measure_with(
    case: &Case,
    hw: &Hardware,
    opts: &AnalysisOptions,
) -> Result<Measured, String> {
    let prog = load(case, hw)?;
    let launch = analysis_launch(case);
    let sims: Vec<(Point, Vec<Q>)> = case
        .points
        .iter()
        .map(|pt| simulate(case, &prog, hw, pt).map(|w| (pt.clone(), w)))
        .collect::<Result<_, _>>()?;
    let mut cells = Vec::new();
    for (i, &m) in MetricName::ALL.iter().enumerate() {
        let a = analyze(&prog, &Metric::standard(m), hw, &launch, opts);
        let (bound, accepted, error, capped) = match a {
            Ok(a) => {
                let ok = warpcert_kernel::check(&a.certificate).is_ok();
                // a capped bound counts only with its own certificate accepted
                let capped: Vec<_> = a.chain()[1..]
                    .iter()
                    .filter(|c| warpcert_kernel::check(&c.certificate).is_ok())
                    .map(|c| c.bound.clone())
                    .collect();
                (Some(a.bound), ok, None, capped)
            }
            Err(e) => (None, false, Some(e.to_string()), Vec::new()),
        };
        let points = sims
            .iter()
            .map(|(pt, w)| PointRatio {
                at: pt.clone(),
                bound: bound.as_ref().map(|b| {
                    let v = b.eval(&bound_env(pt));
                    capped.iter().fold(v, |v, k| v.min(k.eval(&bound_env(pt))))
                }),
                truth: w[i].clone(),
            })
            .collect();
        cells.push(Cell {
            kernel: case.name.to_string(),
            pattern: case.pattern.to_string(),
            metric: m,
            hand_derived: m == case.metric,
            bound,
            capped,
            accepted,
            error,
            points,
        });
    }
    Ok(Measured { cells, sims })
}

/// Runs `warpcert bench --precision`: the table of every case; 0 when every cell is bounded,
/// certified and sound at every point. `align`: Q:IFALIGN enabled ([`measure_with`]).
pub fn run(format: crate::report::Format, align: bool) -> i32 {
    let opts = AnalysisOptions {
        align,
        ..AnalysisOptions::default()
    };
    let hw = Hardware::default();
    let mut table = crate::report::precision::Table::new(format);
    let mut all_ok = true;
    for case in suite() {
        match measure_with(&case, &hw, &opts) {
            Ok(m) => {
                for c in m.cells {
                    all_ok &= c.accepted && c.sound();
                    table.row(&c);
                }
            }
            Err(e) => {
                all_ok = false;
                table.failure(case.name, &e);
            }
        }
    }
    table.finish();
    if all_ok {
        0
    } else {
        super::EXIT_FAILED
    }
}
