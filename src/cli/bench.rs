//! `warpcert bench`: every benchmark kernel × metric of the RaCUDA/Pico benchmark (issue 3:
//! the sixteen RaCUDA kernels, NVIDIA's histogram256 beside them and NVIDIA's Mandelbrot
//! through the project's wrapper kernel; a kernel the front
//! end cannot read yet gets one `front end: …` row), analysed and checked, in one table: our per-warp bound, RaCUDA's and Pico's published
//! bounds (`shared/targets.md`: RaCUDA Tables 4–7 via the corpus MANIFEST, Pico Table 1),
//! a verdict against each, the tightness ratio bound / largest simulated per-warp cost
//! (`semantics::run_kernel`) at sampled parameters and inputs, median times, and the
//! bound's relation (issue 14 item 4): `exact` when, beside the upper certificate, a
//! lower-bound certificate with the same bound passed the kernel, else `upper` — decided by
//! `analyze`'s own [`super::analyze::exact_lower`] and [`super::analyze::relation_of`]
//! (default analysis options, as `warpcert analyze FILE --block B`), counted under the
//! table as `exact cells: X of Y`.
//!
//! **Comparisons.** A published bound is compared with ours numerically at every point of
//! a grid over its parameters (each of `0..=64` and the multiples of 32 up to 4096; for two
//! parameters, all pairs): `equal` (same value everywhere, within 10⁻⁹ relative),
//! `tighter` (ours ≤ theirs everywhere, < somewhere), `looser` (ours > theirs somewhere;
//! the first such point is shown); `no bound` rows as `RaCUDA: no bound`. A published bound
//! ours is looser than is **audited** (`warpcert claim`, issue 19): when the counterexample
//! search finds parameters, inputs and a warp costing more, with a witness the kernel
//! replays, the verdict is `RaCUDA refuted (warp w costs c > b at …)` (`Pico refuted …`),
//! noting the tag when Pico Table 1 marks the bound incorrect (tags M, R). Otherwise a
//! RaCUDA bound below the largest simulated per-warp cost at a sample is `RaCUDA below
//! simulated (b < w at …)` (for `divwarps`/`steps`, whose witnesses the kernel does not
//! replay; RaCUDA's `steps` count evaluation steps of its own intermediate language). Pico's Table 1 prints two decimals; `0.31 wA + 15.0` is read as
//! `5/16·wA + 15` (10 sectors per 32-column tile, `⌈wA/32⌉ ≤ wA/32 + 1`) and
//! `0.97 wA + 30.0` as `31/32·(wA + 31)` (31 conflicts per tile), the exact forms these
//! roundings come from.

use crate::analysis::{analyze, AnalysisOptions};
use crate::claim::expr::ClaimExpr;
use crate::claim::refute::SearchLimits;
use crate::claim::{audit, Claim, Relation, Target, Verdict};
use crate::core::assertion::Poly;
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, Metric, MetricName, Program};
use crate::frontend;
use crate::report::bench as report;
use crate::semantics::{run_kernel, Inputs, Params, Value};
use clap::Args;
use num_traits::{ToPrimitive, Zero};
use published::{Env, Published, Source};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use super::options::Loaded;
use super::{published, EXIT_FAILED};

/// A row the table does not have: no published bound.
const NB: Published = Published {
    text: "no bound",
    value: "",
    f: None,
    incorrect: false,
};

/// Arguments of `warpcert bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Folder holding the RaCUDA benchmark kernels.
    #[arg(long, default_value = "../shared/corpus/racuda")]
    corpus: PathBuf,
    /// Runs per kernel and metric; the table shows the median time.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Skip the simulation (no tightness column).
    #[arg(long)]
    no_sim: bool,
    /// Output format: the Markdown table, or one JSON object with a `rows` array (the
    /// table's columns as keys).
    #[arg(long, value_enum, default_value = "text")]
    format: crate::report::Format,
    /// Instead of the benchmark table: generated kernel families growing one dimension at
    /// a time, with analysis and check time, certificate bytes, peak memory and fitted
    /// growth exponents (each point in a child process, under a time and memory limit).
    #[arg(long)]
    scaling: bool,
    /// Instead of the benchmark table: the precision suite (`tests/precision/`, issue 15),
    /// per kernel and metric the certified bound, the largest simulated per-warp cost and
    /// their ratio (worst point and median).
    #[arg(long, conflicts_with = "scaling")]
    precision: bool,
    /// With `--precision`: analyse without Q:IFALIGN (`analyze --no-align`, spec/logic.md §4).
    #[arg(long, requires = "precision")]
    no_align: bool,
    /// Instead of the benchmark table: the speed of the executable semantics (lock-step
    /// lane-steps and interleaving thread-steps per CPU second on vector_add).
    #[arg(long, conflicts_with_all = ["scaling", "precision"])]
    interp: bool,
    /// With the benchmark table (issue 14 item 5): for every `exact` row, export both
    /// certificates (`export-coq`) and check each with `coqc` against `coq-export/theories`
    /// (compiled first by `coq-export/build.sh`); the relation column then reads `exact,
    /// coqc upper ok / lower ok`, or names the export refusal or the file coqc rejected.
    #[arg(long, conflicts_with_all = ["scaling", "precision", "interp"])]
    coq: bool,
    /// Only these benchmark kernels (names as in the table's first column, e.g.
    /// `vectorAdd,reduce1`; comma-separated); an unknown name is an error.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    #[command(flatten)]
    scaling_opts: super::scaling::ScalingArgs,
}

impl BenchArgs {
    /// The `--format` option.
    pub fn format(&self) -> crate::report::Format {
        self.format
    }
}

/// One benchmark kernel: file, block, the parameters the bounds are compared over, the
/// parameter points and grid of the simulation (the published bounds are rows of
/// `spec/published-bounds.csv`, [`published`]).
struct Bench {
    /// Relative to the corpus folder, or to the project root when `in_project`.
    file: &'static str,
    /// A kernel of the project's own (`tests/data/`, around a corpus file it includes),
    /// shown under this name.
    in_project: Option<&'static str>,
    /// Values of the non-`int` parameters (and `int` ones the samples do not set) in every
    /// simulation: `float` as is, `bool` as `value ≠ 0`.
    fixed: &'static [(&'static str, f64)],
    /// Adversarial variants of `fixed` (`float` / `bool` parameters, on which the bounds do
    /// not depend): every sample is simulated once more per variant, with the variant's
    /// values replacing those of `fixed` it names (the simulated maximum is over all runs).
    variants: &'static [&'static [(&'static str, f64)]],
    /// Which `__global__` function (files with several kernels).
    kernel: Option<&'static str>,
    block: [u32; 3],
    vars: &'static [&'static str],
    samples: &'static [&'static [(&'static str, i64)]],
    grid: [u32; 3],
}

/// A corpus kernel (the file's only kernel, no fixed parameters): file, block, the
/// parameters the bounds are compared over, the simulation's samples and grid.
fn corpus(
    file: &'static str,
    block: [u32; 3],
    vars: &'static [&'static str],
    samples: &'static [&'static [(&'static str, i64)]],
    grid: [u32; 3],
) -> Bench {
    Bench {
        file,
        in_project: None,
        fixed: &[],
        variants: &[],
        kernel: None,
        block,
        vars,
        samples,
        grid,
    }
}

/// The benchmark (launches of RaCUDA Table 2 / the artifact's parameter files).
fn benches() -> Vec<Bench> {
    const ADDSUB: &[&[(&str, i64)]] = &[
        &[("w", 1), ("h", 1)],
        &[("w", 7), ("h", 5)],
        &[("w", 33), ("h", 32)],
        &[("w", 100), ("h", 3)],
    ];
    const MATMUL: &[&[(&str, i64)]] = &[
        &[("wA", 32), ("wB", 32)],
        &[("wA", 100), ("wB", 100)],
        &[("wA", 64), ("wB", 96)],
    ];
    const REDUCE: &[&[(&str, i64)]] = &[&[("n", 512)], &[("n", 300)], &[("n", 100)]];
    const SYN: &[&[(&str, i64)]] = &[
        &[("M", 1), ("N", 1), ("val", 3)],
        &[("M", 4), ("N", 3), ("val", 3)],
        &[("M", 9), ("N", 6), ("val", 3)],
    ];
    let reduce = |file| corpus(file, [256, 1, 1], &[], REDUCE, [2, 1, 1]);
    vec![
        corpus("addSub0.cu", [1024, 1, 1], &["w", "h"], ADDSUB, [1, 1, 1]),
        corpus("addSub1.cu", [1024, 1, 1], &["w", "h"], ADDSUB, [1, 1, 1]),
        corpus("addSub2.cu", [1024, 1, 1], &["w", "h"], ADDSUB, [1, 1, 1]),
        corpus("addSub3.cu", [1024, 1, 1], &["w", "h"], ADDSUB, [1, 1, 1]),
        corpus(
            "vectorAdd.cu",
            [256, 1, 1],
            &[],
            &[
                &[("numElements", 1)],
                &[("numElements", 1000)],
                &[("numElements", 4096)],
            ],
            [2, 1, 1],
        ),
        corpus("matrixMul.cu", [32, 32, 1], &["wA"], MATMUL, [1, 1, 1]),
        corpus("matrixMulBad.cu", [32, 32, 1], &["wA"], MATMUL, [1, 1, 1]),
        corpus(
            "matrixMulTranspose.cu",
            [32, 32, 1],
            &["wA"],
            MATMUL,
            [1, 1, 1],
        ),
        reduce("reduce0.cu"),
        reduce("reduce1.cu"),
        reduce("reduce2.cu"),
        reduce("reduce2a.cu"),
        reduce("reduce3.cu"),
        reduce("reduce3a.cu"),
        // NVIDIA's histogram256 (cuda-samples, beside the RaCUDA folder) with the sample's own
        // launch: HISTOGRAM256_THREADBLOCK_SIZE = 192 threads (RaCUDA and Pico analysed a
        // 64-thread variant; their bounds are shown for reference). The analysis grid is
        // symbolic; the simulation runs 1 block (the grid-stride loop's smallest step, the
        // largest per-warp cost), with the inputs of `extra_inputs` too.
        Bench {
            file: "../cuda-samples-subset/histogram256.cu",
            in_project: None,
            fixed: &[],
            variants: &[],
            kernel: Some("histogram256Kernel"),
            block: [192, 1, 1],
            vars: &["dataCount"],
            samples: &[
                &[("dataCount", 64)],
                &[("dataCount", 1000)],
                &[("dataCount", 4096)],
            ],
            grid: [1, 1, 1],
        },
        corpus("syn-brdis.cu", [32, 1, 1], &["M", "N"], SYN, [1, 1, 1]),
        corpus("syn-brdis-opt.cu", [32, 1, 1], &["M", "N"], SYN, [1, 1, 1]),
        // NVIDIA's CalcMandelbrot<float> (Mandelbrot_kernel.cuh, read in place) called once
        // per pixel by the project's wrapper kernel, the sample's Mandelbrot0 block loop
        // (tests/data/frontend/mandelbrot_wrapper.cu); block 32×1 (RaCUDA Table 2).
        // RaCUDA's rows are for its own Mandelbrot_cuda.cu (MANIFEST: not in the corpus):
        // sectors 36 max(0, numBlocks), conflicts 0, no divwarps or steps bound. The
        // simulation puts the 32 pixels of a row across the set's boundary (scale 0.05 from
        // x = −2): some lanes escape at once, some late, some never. The `variants` are
        // adversarial rows (issue 15) whose lanes escape at many distinct iterations over
        // many rounds of the unrolled loop (each escape check where some lanes return splits
        // the warp, and so does the loop test `jmp < 2` after such a round): the lead's row
        // (crunch 200: 30 splits a call), then the best rows of a random search with hill
        // climbing over (xOff, yOff, scale), scored by a model of the lock-step divwarps for
        // one sample each (tests/data/frontend/mandelbrot_rows.py, arguments `CRUNCH
        // NUMBLOCKS IMAGEW IMAGEH GRIDWIDTH SEED TRIES CLIMBS`: `20 1 32 1 1 1 1500 1500`
        // → 15 of at most 19, `100 4 40 3 2 1 1500 1500` → 82 of at most 94, `200 3 64 2 2
        // 2 1500 3000` → 107 of at most 120, `1000 1 32 1 1 2 800 1500` → 45 of at most 62).
        // Hand maxima of divwarps per sample (that script's header; a call of crunch = 20R
        // has R rounds, at most min(31, 20R − 1) exit splits and min(31, R − 1) loop-test
        // splits; a block cut by the image edge has 8 lanes and 1 more split): crunch 20: 19;
        // crunch 100: 2·(31 + 4) + 2·(1 + 7 + 4) = 94; crunch 200: 3·(31 + 9) = 120;
        // crunch 1000: 31 + 31 = 62. Bounds there (issue 15, mandel19; the exit loop's floor
        // atom `⌊(i − 1)/20⌋⁺`, mandel20): A (Q:WHILEEXIT2) 21 / 424 / 630 / 1050, B
        // (Q:WHILEEXITCAP) 62 / 252 / 186 / 62, C (Q:WHILEEXITCAP2, the loop test per round)
        // 33 / 152 / 126 / 82 (with `max0(i)` alone A was 42 / 508 / 693 / 1071 and C
        // 34 / 156 / 129 / 83). Why crunch 100 stays at C = 152 (1.85×):
        // tests/mandelbrot_havoc.rs (a variant whose escape iterations are free input gets
        // these A, B, C and reaches 140 at gridWidth 1, which a bound without gridWidth
        // cannot tell from this sample).
        // The bounds hold per warp for every gridDim (the analysis grid is symbolic, the
        // bound a multiple of numBlocks); with grid 1 one warp runs every block of the
        // block loop, the largest per-warp cost, so the simulation runs 1 block.
        Bench {
            file: "tests/data/frontend/mandelbrot_wrapper.cu",
            in_project: Some("mandelbrot"),
            fixed: &[
                ("xOff", -2.0),
                ("yOff", -0.1),
                ("xJP", 0.0),
                ("yJP", 0.0),
                ("scale", 0.05),
                ("isJ", 0.0),
            ],
            variants: &[
                &[
                    ("xOff", -0.56855921),
                    ("yOff", -0.63567367),
                    ("scale", -0.000128897),
                ],
                &[
                    ("xOff", -1.571526109051854),
                    ("yOff", 0.29993359320128926),
                    ("scale", 0.01942513303490928),
                ],
                &[
                    ("xOff", 0.18613075777380855),
                    ("yOff", -0.6377549667812233),
                    ("scale", -0.0032922781950016217),
                ],
                &[
                    ("xOff", -0.6576098672824903),
                    ("yOff", -0.44711537652046435),
                    ("scale", 0.00017506666974053496),
                ],
                &[
                    ("xOff", -0.7153651734200788),
                    ("yOff", -0.28433334467162363),
                    ("scale", -0.0003014806068170098),
                ],
            ],
            kernel: None,
            block: [32, 1, 1],
            vars: &["numBlocks", "crunch"],
            samples: &[
                &[
                    ("crunch", 20),
                    ("numBlocks", 1),
                    ("imageW", 32),
                    ("imageH", 1),
                    ("gridWidth", 1),
                ],
                &[
                    ("crunch", 100),
                    ("numBlocks", 4),
                    ("imageW", 40),
                    ("imageH", 3),
                    ("gridWidth", 2),
                ],
                &[
                    ("crunch", 200),
                    ("numBlocks", 3),
                    ("imageW", 64),
                    ("imageH", 2),
                    ("gridWidth", 2),
                ],
                &[
                    ("crunch", 1000),
                    ("numBlocks", 1),
                    ("imageW", 32),
                    ("imageH", 1),
                    ("gridWidth", 1),
                ],
            ],
            grid: [1, 1, 1],
        },
    ]
}

impl Bench {
    /// The kernel's name in the table: the file's stem, or the project kernel's name.
    fn stem(&self) -> &'static str {
        self.in_project.unwrap_or_else(|| {
            self.file
                .rsplit('/')
                .next()
                .unwrap_or(self.file)
                .trim_end_matches(".cu")
        })
    }
}

/// The benchmark kernels named in `only` (all when it is empty); `Err` names the first
/// unknown name and lists the known ones.
fn selected(only: &[String]) -> Result<Vec<Bench>, String> {
    let all = benches();
    if let Some(bad) = only
        .iter()
        .find(|n| !all.iter().any(|b| b.stem() == n.as_str()))
    {
        let known: Vec<&str> = all.iter().map(Bench::stem).collect();
        return Err(format!(
            "--only: no benchmark kernel named {bad} (known: {})",
            known.join(", ")
        ));
    }
    Ok(all
        .into_iter()
        .filter(|b| only.is_empty() || only.iter().any(|n| n == b.stem()))
        .collect())
}

/// The comparison grid of one parameter: `0..=64` and the multiples of 32 up to 4096.
fn axis() -> Vec<i64> {
    let mut a: Vec<i64> = (0..=64).collect();
    a.extend((3..=128).map(|k| 32 * k));
    a
}

/// Every point of the comparison grid over `vars` (one empty point when there are none).
fn grid_points(vars: &[&str]) -> Vec<BTreeMap<String, i64>> {
    let mut pts = vec![BTreeMap::new()];
    for x in vars {
        let mut next = Vec::new();
        for p in &pts {
            for &val in &axis() {
                let mut q = p.clone();
                q.insert(x.to_string(), val);
                next.push(q);
            }
        }
        pts = next;
    }
    pts
}

fn to_f(x: &Q) -> f64 {
    x.to_f64().unwrap_or(f64::NAN)
}

/// Our bound against a published one over the grid (module documentation).
fn verdict(ours: &Poly, theirs: &Published, pts: &[BTreeMap<String, i64>], who: &str) -> String {
    let Some(f) = &theirs.f else {
        return format!("{who}: no bound");
    };
    let mut strict = false;
    for p in pts {
        let a = to_f(&ours.eval(p));
        let env = env_of(p);
        let b = f.eval(&env);
        let tol = 1e-9 * a.abs().max(b.abs()).max(1.0);
        if a > b + tol {
            return format!("looser ({} > {}{})", fmt_num(a), fmt_num(b), at_point(p));
        }
        if a < b - tol {
            strict = true;
        }
    }
    if strict { "tighter" } else { "equal" }.to_string()
}

/// A sample point as the published bounds' environment.
fn env_of(p: &BTreeMap<String, i64>) -> Env {
    p.iter().map(|(k, &x)| (k.clone(), x as f64)).collect()
}

/// ` at k=v …` for a point with parameters, empty for none.
fn at_point(p: &BTreeMap<String, i64>) -> String {
    if p.is_empty() {
        return String::new();
    }
    let kv: Vec<String> = p.iter().map(|(k, x)| format!("{k}={x}")).collect();
    format!(" at {}", kv.join(" "))
}

fn fmt_num(x: f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round() as i64)
    } else {
        format!("{x:.2}")
    }
}

/// The largest simulated per-warp cost of each metric (in [`MetricName::ALL`] order) at
/// one sample point, with the point's integer parameters.
struct Simulated {
    at: BTreeMap<String, i64>,
    worst: Vec<Q>,
}

/// `bound / max simulated per-warp cost` at each sample (max over zero, two random and
/// the [`alternating`] inputs; the bound is `min(A, B, …)` where `capped` has further
/// certified bounds B, C, Q:WHILEGUARDCAP / Q:WHILEEXITCAP / Q:WHILEEXITCAP2), as `lo–hi` over the samples; `1` when both are 0, `∞` when
/// only the bound is. Also returns the simulated maxima (for [`below_simulated`]).
fn tightness(
    prog: &Program,
    b: &Bench,
    bounds: &[Option<Poly>],
    capped: &[Vec<Poly>],
    hw: &Hardware,
) -> Result<(Vec<String>, Vec<Simulated>), String> {
    let mut sims = Vec::new();
    let launch = Launch {
        block: b.block,
        grid: Some(b.grid),
    };
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); metrics.len()];
    for s in b.samples {
        let mut worst = vec![Q::zero(); metrics.len()];
        // the simulation's grid: a bound over a symbolic grid (a symbolic floor atom's
        // `gridDim.x`) is evaluated at the launch that is simulated
        let mut env: BTreeMap<String, i64> = ["gridDim.x", "gridDim.y", "gridDim.z"]
            .iter()
            .zip(b.grid)
            .filter(|(k, _)| prog.param_ty(k).is_some())
            .map(|(k, g)| (k.to_string(), i64::from(g)))
            .collect();
        for (k, x) in b.fixed {
            if prog.param_ty(k) == Some(crate::core::Ty::Int) {
                env.insert(k.to_string(), *x as i64);
            }
        }
        for (k, x) in s.iter() {
            if prog.param_ty(k).is_some() {
                env.insert(k.to_string(), *x);
            }
        }
        // the fixed values, then each adversarial variant of them
        let sets = std::iter::once(&[][..]).chain(b.variants.iter().copied());
        for variant in sets {
            let mut params = Params::new();
            for (k, x0) in b.fixed {
                let x = variant
                    .iter()
                    .find(|(v, _)| v == k)
                    .map_or(*x0, |(_, x)| *x);
                match prog.param_ty(k) {
                    Some(crate::core::Ty::Float) => {
                        params.insert(k.to_string(), Value::Float(x));
                    }
                    Some(crate::core::Ty::Bool) => {
                        params.insert(k.to_string(), Value::Bool(x != 0.0));
                    }
                    Some(crate::core::Ty::Int) => {
                        params.insert(k.to_string(), Value::Int(x as i64));
                    }
                    None => {}
                }
            }
            for (k, x) in s.iter() {
                if prog.param_ty(k).is_some() {
                    params.insert(k.to_string(), Value::Int(*x));
                }
            }
            let mut inputs = vec![
                Inputs::zero(),
                Inputs::random(1),
                Inputs::random(2),
                alternating(prog),
            ];
            inputs.extend(extra_inputs(b));
            for input in inputs {
                let run = run_kernel(prog, &metrics, hw, &launch, &params, &input)
                    .map_err(|e| format!("simulation: {e}"))?;
                for (i, r) in run.metrics.iter().enumerate() {
                    if r.max_per_warp > worst[i] {
                        worst[i] = r.max_per_warp.clone();
                    }
                }
            }
        }
        for (i, w) in worst.iter().enumerate() {
            if let Some(bd) = &bounds[i] {
                let bv = capped
                    .get(i)
                    .into_iter()
                    .flatten()
                    .fold(bd.eval(&env), |v, k| v.min(k.eval(&env)));
                let r = if w.is_zero() {
                    if bv.is_zero() {
                        1.0
                    } else {
                        f64::INFINITY
                    }
                } else {
                    to_f(&(bv / w))
                };
                ratios[i].push(r);
            }
        }
        sims.push(Simulated { at: env, worst });
    }
    let shown = ratios
        .into_iter()
        .map(|rs| {
            if rs.is_empty() {
                return "–".to_string();
            }
            let lo = rs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = rs.iter().copied().fold(0.0, f64::max);
            let show = |x: f64| {
                if x.is_infinite() {
                    "∞".to_string()
                } else {
                    format!("{x:.2}")
                }
            };
            if (hi - lo).abs() < 5e-3 {
                show(lo)
            } else {
                format!("{}–{}", show(lo), show(hi))
            }
        })
        .collect();
    Ok((shown, sims))
}

/// The audit of a published bound (`crate::claim::audit`, default search limits): `Some(…
/// refuted (warp w costs c > b at …))` when a witness the kernel replays refutes it.
fn refuted(t: &Target, m: MetricName, theirs: &Published, who: &str) -> Option<String> {
    let expr = ClaimExpr::parse(theirs.value).ok()?;
    let claim = Claim {
        text: theirs.value.to_string(),
        expr,
        metric: m,
        relation: Relation::Upper,
    };
    let a = audit(
        t,
        &claim,
        &AnalysisOptions::default(),
        &SearchLimits::default(),
    );
    let Verdict::Refuted(w) = a.verdict else {
        return None;
    };
    let at: BTreeMap<String, i64> = w.params.iter().cloned().collect();
    let tag = if theirs.incorrect {
        "; tagged incorrect in Pico Table 1"
    } else {
        ""
    };
    Some(format!(
        "{who} refuted (warp {} costs {} > {}{}{tag})",
        w.warp,
        fmt_num(to_f(&w.cost)),
        fmt_num(to_f(&w.claimed)),
        at_point(&at)
    ))
}

/// The first sample where a published bound is below the simulated per-warp cost of
/// metric `i` (so it is not an upper bound under warpcert's semantics: for `steps`,
/// RaCUDA counted evaluation steps on its own intermediate language, not on warpcert's
/// lowered core program), rendered as `b < w at …`.
fn below_simulated(theirs: &Published, sims: &[Simulated], i: usize) -> Option<String> {
    let f = theirs.f.as_ref()?;
    sims.iter().find_map(|s| {
        let env = env_of(&s.at);
        let (b, w) = (f.eval(&env), to_f(&s.worst[i]));
        (b < w - 1e-9 * w.abs().max(1.0))
            .then(|| format!("{} < {}{}", fmt_num(b), fmt_num(w), at_point(&s.at)))
    })
}

/// Kernel-specific adversarial inputs. histogram256: every byte of `d_Data[i]` is
/// `32·(i mod 8)`, so the 32 lanes of a warp add to 8 distinct bins of one bank
/// (`s_WarpHist` starts at a multiple of 256 ints): 8-way conflicts on each of the 8
/// shared accesses of an iteration, the worst case the bound allows.
fn extra_inputs(b: &Bench) -> Vec<Inputs> {
    use crate::semantics::ArrayInit;
    if b.kernel != Some("histogram256Kernel") {
        return Vec::new();
    }
    let word = |i: usize| Value::Int(((i % 8) * 32) as i64 * 0x0101_0101);
    vec![Inputs::zero().with_array(
        "d_Data",
        ArrayInit::Values((0..1 << 14).map(word).collect()),
    )]
}

/// An adversarial input: every array's cells alternate `0` and `2` (`0.0`/`2.0`, `false`/
/// `true`), so data-dependent conditions such as matrixMulBad's `be − 1.0 < 0.001` split
/// warps (random floats lie in `[0, 1)` and never do).
fn alternating(prog: &Program) -> Inputs {
    use crate::core::Ty;
    use crate::semantics::ArrayInit;
    let mut inp = Inputs::zero();
    for a in &prog.arrays {
        let cell = |i: usize| match a.elem {
            Ty::Int => Value::Int(2 * (i % 2) as i64),
            Ty::Float => Value::Float(2.0 * (i % 2) as f64),
            Ty::Bool => Value::Bool(i % 2 == 1),
        };
        inp.arrays.insert(
            a.name.clone(),
            ArrayInit::Values((0..1 << 16).map(cell).collect()),
        );
    }
    inp
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs.get(xs.len() / 2).copied().unwrap_or(0.0)
}

/// Runs `warpcert bench`; prints the table, returns 0 when every row has a checked bound.
pub fn run(args: &BenchArgs) -> i32 {
    if args.scaling {
        return super::scaling::run(&args.scaling_opts);
    }
    if args.precision {
        return super::precision::run(args.format, !args.no_align);
    }
    if args.interp {
        return super::bench_interp::run(args.format);
    }
    if !args.corpus.is_dir() {
        let msg = format!(
            "benchmark folder {} not found (it is ../shared/corpus/racuda beside the project)",
            args.corpus.display()
        );
        let kind = crate::report::error::ErrorKind::Io;
        return crate::report::error::ErrorReport::new(kind, msg).emit(args.format);
    }
    let chosen = match selected(&args.only) {
        Ok(c) => c,
        Err(e) => {
            let kind = crate::report::error::ErrorKind::Usage;
            return crate::report::error::ErrorReport::new(kind, e).emit(args.format);
        }
    };
    let hw = Hardware::default();
    let mut out = report::Table::new(args.format);
    let table = match published::table() {
        Ok(t) => t,
        Err(e) => {
            let kind = crate::report::error::ErrorKind::Io;
            return crate::report::error::ErrorReport::new(kind, e).emit(args.format);
        }
    };
    let mut all_ok = true;
    let mut count = report::ExactCount::default();
    let opts = AnalysisOptions::default();
    for b in chosen {
        let path = if b.in_project.is_some() {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(b.file)
        } else {
            args.corpus.join(b.file)
        };
        let launch = Launch {
            block: b.block,
            grid: None,
        };
        let loaded = frontend::parse_file(&path)
            .map_err(|d| d.to_string())
            .and_then(|p| {
                frontend::lower(&p, b.kernel, &launch, &hw, &BTreeMap::new())
                    .map_err(|d| d.to_string())
            });
        let stem = b.stem();
        count.cells += MetricName::ALL.len();
        let loaded = match loaded {
            Ok((program, _)) => Loaded {
                program,
                launch,
                hw,
                metrics: MetricName::ALL.to_vec(),
                warnings: Vec::new(),
                block_source: "--block",
            },
            Err(e) => {
                all_ok = false;
                let first = e.lines().next().unwrap_or("").to_string();
                out.row(report::front_end_failure_row(stem, &first));
                continue;
            }
        };
        let prog = &loaded.program;
        let pts = grid_points(b.vars);
        let mut rows = Vec::new();
        let mut bounds = Vec::new();
        let mut capped_bounds = Vec::new();
        for &m in MetricName::ALL.iter() {
            let metric = Metric::standard(m);
            let mut times = Vec::new();
            let mut checks = Vec::new();
            let mut last = None;
            let mut last_capped = Vec::new();
            for _ in 0..args.runs.max(1) {
                let t0 = Instant::now();
                let a = analyze(prog, &metric, &hw, &launch, &opts);
                let t1 = t0.elapsed().as_secs_f64() * 1e3;
                match a {
                    Ok(a) => {
                        let c0 = Instant::now();
                        let verdict = warpcert_kernel::check(&a.certificate);
                        checks.push(c0.elapsed().as_secs_f64() * 1e3);
                        times.push(t1);
                        // the capped bounds (Q:WHILEGUARDCAP / Q:WHILEEXITCAP /
                        // Q:WHILEEXITCAP2), shown as `min(A, B, …)` for those whose own
                        // certificate is accepted; the simulated ratio uses the minimum, the
                        // comparisons A
                        let capped: Vec<(String, Poly)> = a.chain()[1..]
                            .iter()
                            .filter_map(|c| {
                                let v = warpcert_kernel::check(&c.certificate).ok()?;
                                let text =
                                    crate::report::printed::print_bound(&v.bound_poly, &v.bound)
                                        .text;
                                Some((text, super::analyze::verdict_bound(&v)))
                            })
                            .collect();
                        last_capped = capped.iter().map(|c| c.1.clone()).collect();
                        // the row's bound is the kernel's verdict; a rejection shows none
                        last = Some(
                            verdict
                                .as_ref()
                                .map(|v| {
                                    let shown = crate::report::printed::print_bound(
                                        &v.bound_poly,
                                        &v.bound,
                                    );
                                    let b = super::analyze::verdict_bound(v);
                                    let text = if capped.is_empty() {
                                        shown.text
                                    } else {
                                        let ks: Vec<&str> =
                                            capped.iter().map(|c| c.0.as_str()).collect();
                                        format!("min({}, {})", shown.text, ks.join(", "))
                                    };
                                    (b, text, v.bound.clone(), a.derivation, a.certificate)
                                })
                                .map_err(|r| crate::report::check::rejected_no_bound(r, None)),
                        );
                    }
                    Err(e) => {
                        last = Some(Err(e.to_string()));
                        break;
                    }
                }
            }
            match last {
                Some(Ok((bound, shown, upper, deriv, cert))) => {
                    // the relation as `analyze` decides it (a lower-bound certificate the
                    // kernel accepts with the same bound), outside the timed runs; with
                    // `--coq` the lower certificate is written to a scratch file
                    let scratch = args.coq.then(|| {
                        std::env::temp_dir()
                            .join(format!("warpcert-bench-coq-{}", std::process::id()))
                            .join(format!("{stem}.{m}.cert"))
                    });
                    if let Some(d) = scratch.as_ref().and_then(|p| p.parent()) {
                        let _ = std::fs::create_dir_all(d);
                    }
                    let sp = scratch.as_ref().map(|p| p.display().to_string());
                    let lower = super::analyze::exact_lower(
                        &loaded,
                        &metric,
                        &opts,
                        &deriv,
                        &upper,
                        sp.as_deref(),
                    );
                    let mut relation = match &lower {
                        Ok(lr) => super::analyze::relation_of(lr.as_ref()).to_string(),
                        Err(e) => format!("upper (lower-bound search: {})", report::short(e)),
                    };
                    count.exact += usize::from(relation == "exact");
                    if let (Some(p), Ok(Some(lr))) = (&scratch, &lower) {
                        let lp = lr.path.clone().map(PathBuf::from);
                        relation = format!("exact, {}", coq_pair(p, &cert, lp.as_deref()));
                    }
                    bounds.push(Some(bound.clone()));
                    capped_bounds.push(last_capped.clone());
                    let timed = (median(times), median(checks));
                    rows.push((m, Ok((bound, shown, timed, relation))));
                }
                Some(Err(e)) => {
                    all_ok = false;
                    bounds.push(None);
                    capped_bounds.push(Vec::new());
                    rows.push((m, Err(e)));
                }
                None => {
                    bounds.push(None);
                    capped_bounds.push(Vec::new());
                }
            }
        }
        let (tight, sims) = if args.no_sim {
            (vec!["–".to_string(); MetricName::ALL.len()], Vec::new())
        } else {
            tightness(prog, &b, &bounds, &capped_bounds, &hw)
                .unwrap_or_else(|e| (vec![report::short(&e); MetricName::ALL.len()], Vec::new()))
        };
        for (i, (m, row)) in rows.into_iter().enumerate() {
            let rac = &published::lookup(&table, stem, Source::RaCuda, m).unwrap_or(NB);
            let pico = published::lookup(&table, stem, Source::Pico, m);
            let pico = pico.as_ref();
            match row {
                Ok((bound, shown, (t, c), relation)) => {
                    let target = Target {
                        prog,
                        hw: &hw,
                        block: b.block,
                    };
                    let mut vs_racuda = verdict(&bound, rac, &pts, "RaCUDA");
                    if vs_racuda.starts_with("looser") {
                        if let Some(r) = refuted(&target, m, rac, "RaCUDA") {
                            vs_racuda = r;
                        } else if let Some(why) = below_simulated(rac, &sims, i) {
                            vs_racuda = format!("RaCUDA below simulated ({why})");
                        }
                    }
                    let vs_pico = pico.map(|p| {
                        let v = verdict(&bound, p, &pts, "Pico");
                        match v.starts_with("looser") {
                            true => refuted(&target, m, p, "Pico").unwrap_or(v),
                            false => v,
                        }
                    });
                    out.row(report::bound_row(&report::BoundRow {
                        stem,
                        metric: m,
                        bound: &bound,
                        printed: Some(&shown),
                        // only a certificate the kernel accepted has a bound row
                        accepted: true,
                        racuda: rac.text,
                        vs_racuda: &vs_racuda,
                        pico: pico.map(|p| p.text),
                        vs_pico,
                        tightness: &tight[i],
                        analysis_ms: t,
                        check_ms: c,
                        relation: &relation,
                    }));
                }
                Err(e) => out.row(report::no_bound_row(
                    stem,
                    m,
                    &e,
                    rac.text,
                    pico.map(|p| p.text),
                )),
            }
        }
    }
    out.finish_counted(&count);
    if args.coq {
        let _ = std::fs::remove_dir_all(
            std::env::temp_dir().join(format!("warpcert-bench-coq-{}", std::process::id())),
        );
    }
    if all_ok {
        0
    } else {
        EXIT_FAILED
    }
}

/// `coqc` of both certificates of an exact row (`bench --coq`): the upper certificate
/// `cert` and the lower one at `lower` (written by `exact_lower`), each exported with
/// [`crate::export::coq::export`] beside `scratch` and checked with `coqc -Q theories
/// WarpCert` from `coq-export/` of the source tree. Returns `coqc upper ok / lower ok`, or
/// for each side the export's refusal (`export: …`) or `coqc rejected` with its first line.
fn coq_pair(scratch: &std::path::Path, cert: &str, lower: Option<&std::path::Path>) -> String {
    let coq_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("coq-export");
    let one = |text: Result<String, String>, side: &str| -> String {
        let text = match text {
            Ok(t) => t,
            Err(e) => return format!("{side} unreadable: {e}"),
        };
        let v = match crate::export::coq::export(&text) {
            Ok(v) => v,
            Err(e) => return format!("{side} export: {e}"),
        };
        let stem = scratch
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("row")
            .replace(['-', '.'], "_");
        let file = scratch.with_file_name(format!("{stem}_{side}.v"));
        if let Err(e) = std::fs::write(&file, v) {
            return format!("{side}: {e}");
        }
        let out = std::process::Command::new("coqc")
            .current_dir(&coq_dir)
            .args(["-Q", "theories", "WarpCert"])
            .arg(&file)
            .output();
        let _ = std::fs::remove_file(&file);
        let _ = std::fs::remove_file(file.with_extension("vo"));
        let _ = std::fs::remove_file(file.with_extension("glob"));
        let _ = std::fs::remove_file(file.with_extension("vok"));
        let _ = std::fs::remove_file(file.with_extension("vos"));
        match out {
            Ok(o) if o.status.success() => format!("{side} ok"),
            Ok(o) => {
                let err = String::from_utf8_lossy(&o.stderr);
                let first = err.lines().find(|l| l.contains("Error")).unwrap_or("");
                format!("{side} coqc rejected ({})", report::short(first))
            }
            Err(e) => format!("{side}: coqc could not run ({e})"),
        }
    };
    let u = one(Ok(cert.to_string()), "upper");
    let l = match lower {
        Some(p) => one(
            std::fs::read_to_string(p).map_err(|e| e.to_string()),
            "lower",
        ),
        None => "lower not written".to_string(),
    };
    let _ = std::fs::remove_file(scratch);
    if let Some(p) = lower {
        let _ = std::fs::remove_file(p);
    }
    format!("coqc {u} / {l}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(n: i64, worst: i64) -> Simulated {
        Simulated {
            at: BTreeMap::from([("n".to_string(), n)]),
            worst: vec![Q::from_integer(worst.into())],
        }
    }

    /// RaCUDA's vectorAdd `steps` bound is 27 (targets.md, Table 7); a simulated cost of
    /// 32 at one sample makes it "below simulated", a cost of 27 everywhere does not.
    #[test]
    fn a_published_bound_below_a_simulated_cost_is_named_with_its_point() {
        let rac = Published {
            text: "27",
            value: "27",
            f: Some(published::Formula::Num(27.0)),
            incorrect: false,
        };
        let sims = [sim(1, 27), sim(2, 32)];
        assert_eq!(
            below_simulated(&rac, &sims, 0).as_deref(),
            Some("27 < 32 at n=2")
        );
        assert_eq!(below_simulated(&rac, &sims[..1], 0), None);
        assert_eq!(below_simulated(&NB, &sims, 0), None);
    }
}
