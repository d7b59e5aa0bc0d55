//! Issue 3, Mandelbrot: NVIDIA's `CalcMandelbrot<float>` (Mandelbrot_kernel.cuh, read in
//! place from `../shared/corpus/cuda-samples-subset/`) analysed as a device entry, and the
//! project's wrapper kernel `tests/data/frontend/mandelbrot_wrapper.cu` (the sample's block
//! loop around one `CalcMandelbrot<float>` call per pixel, block 32×1 as in RaCUDA Table 2),
//! get kernel-checked bounds for all four metrics (the loop left by `return`s is ranked by
//! the rules of spec/logic.md §4a, the grid-stride loop by a monotone relaxation of its
//! symbolic step). RaCUDA found no divwarps or steps bound for its mandelbrot (Tables 6–7).
//!
//! Soundness is checked against the lock-step semantics (`run_kernel`): the largest
//! simulated per-warp cost is at most the bound for random iteration limits, image sizes,
//! block counts, grids, scales and offsets (so that some lanes escape early and others
//! never), and for hand-made adversarial pixels. Tests skip, saying so, when `../shared` is
//! absent.

mod common;

use common::*;
use num_rational::BigRational;
use quickcheck::{QuickCheck, TestResult};
use std::collections::BTreeMap;
use std::path::PathBuf;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::assertion::Poly;
use warpcert::core::{Launch, Metric, MetricName, Program};
use warpcert::frontend;
use warpcert::semantics::{run_kernel, Inputs, Params, Value};

type Q = BigRational;

const BLOCK: [u32; 3] = [32, 1, 1];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Which {
    /// `CalcMandelbrot<float>` as the entry (warp-uniform arguments).
    Entry,
    /// The wrapper kernel `mandelbrotCounts`.
    Wrapper,
}

fn wrapper_path() -> PathBuf {
    root().join("tests/data/frontend/mandelbrot_wrapper.cu")
}

fn program(which: Which) -> Program {
    let dir = samples_corpus("mandelbrot").expect("corpus present (checked by the caller)");
    let (path, kernel) = match which {
        Which::Entry => (
            dir.join("Mandelbrot_kernel.cuh"),
            Some("CalcMandelbrot<float>"),
        ),
        Which::Wrapper => (wrapper_path(), None),
    };
    let parsed = frontend::parse_file(&path).unwrap_or_else(|d| panic!("{d}"));
    let launch = Launch {
        block: BLOCK,
        grid: None,
    };
    frontend::lower(&parsed, kernel, &launch, &hw(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}"))
        .0
}

/// The program, the bound, the certificate, the rules used and the further bounds of the
/// answer `min(A, B, C)` (the capped chain: B, Q:WHILEEXITCAP; C, Q:WHILEEXITCAP2; each with
/// its rule's name), analysed and kernel-checked once per test binary.
type Entry = (
    Program,
    Poly,
    String,
    BTreeMap<&'static str, usize>,
    Vec<(Poly, String)>,
);

fn analysed(which: Which, m: MetricName) -> Entry {
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<BTreeMap<(Which, MetricName), Entry>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(e) = cache.lock().unwrap().get(&(which, m)) {
        return e.clone();
    }
    let prog = program(which);
    let launch = Launch {
        block: BLOCK,
        grid: None,
    };
    let a = analyze(
        &prog,
        &Metric::standard(m),
        &hw(),
        &launch,
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{which:?} {m}: {e}"));
    let v = warpcert_kernel::check(&a.certificate)
        .unwrap_or_else(|r| panic!("{which:?} {m}: rejected: {r}"));
    assert_eq!(v.bound, a.bound.to_bound_string());
    let further: Vec<(Poly, String)> = a.chain()[1..]
        .iter()
        .map(|c| {
            let v = warpcert_kernel::check(&c.certificate)
                .unwrap_or_else(|r| panic!("{which:?} {m}: capped rejected: {r}"));
            assert_eq!(v.bound, c.bound.to_bound_string());
            let rule = ["Q:WHILEEXITCAP2", "Q:WHILEEXITCAP", "Q:WHILEGUARDCAP"]
                .into_iter()
                .find(|r| c.rules_used.contains_key(r))
                // the symbolic-divisor run (spec/logic.md §1 "Symbolic divisors"): the
                // block loop `blockIndex += gridDim.x` ranked by ⌊(numBlocks + G − 1)/G⌋⁺
                .or_else(|| c.certificate.contains("(floors ").then_some("floors"))
                .unwrap_or("?");
            (c.bound.clone(), rule.to_string())
        })
        .collect();
    let e = (prog, a.bound, a.certificate, a.rules_used, further);
    cache.lock().unwrap().insert((which, m), e.clone());
    e
}

/// The coefficient in `p` of the monomial whose atoms are `max(0, L)` and `⌊L/d⌋⁺`, named
/// by their linear forms `L` (`d` the divisor of its floor atoms; at least one).
fn floor_coef(p: &Poly, atoms: &[&str], d: i64) -> Q {
    use warpcert::core::assertion::poly::Atom;
    p.terms
        .iter()
        .find(|(m, _)| {
            let floors_ok = m.iter().all(|a| match a {
                Atom::Floor(_, c) => *c == d.into(),
                Atom::Max0(_) => true,
                _ => false,
            });
            let has_floor = m.iter().any(|a| matches!(a, Atom::Floor(..)));
            let mut names: Vec<String> = m.iter().map(|a| a.lin().to_string()).collect();
            names.sort();
            let mut want: Vec<String> = atoms.iter().map(|s| s.to_string()).collect();
            want.sort();
            floors_ok && has_floor && names == want
        })
        .map(|(_, c)| c.clone())
        .unwrap_or_default()
}

fn q(n: i64, d: i64) -> Q {
    Q::new(n.into(), d.into())
}

/// The device entry: no arrays, and every branch is uniform (its arguments are the same in
/// every lane), so sectors, conflicts and divwarps are 0 (by hand); steps is affine in
/// `⌊(crunch − 1)/20⌋⁺` — one round of the `do … while (1)` per 20 iterations of the limit,
/// `1 + ⌊(crunch − 1)/20⌋⁺` rounds for `crunch ≥ 1` (the exit loop's floor atom, spec/logic.md
/// §4a; it was `max(0, crunch)` before mandel20).
/// Derivation shape (by hand from the source): one uniform loop left by jumps
/// (Q:WHILEEXIT1) with 21 uniform exits (Q:IFEXIT1: the 19 escape tests before `i -= 20`,
/// `i <= 0` and the escape test after it).
#[test]
fn entry_bounds_are_certified() {
    if samples_corpus("entry_bounds_are_certified").is_none() {
        return;
    }
    for m in [
        MetricName::Sectors,
        MetricName::Conflicts,
        MetricName::Divwarps,
    ] {
        let (_, b, _, _, _) = analysed(Which::Entry, m);
        assert_eq!(b.to_bound_string(), "0", "{m}");
    }
    let (_, b, _, rules, _) = analysed(Which::Entry, MetricName::Steps);
    assert_eq!(b.degree(), 1, "{}", b.to_bound_string());
    let vars: Vec<String> = b
        .terms
        .keys()
        .flatten()
        .flat_map(|a| a.lin().vars().cloned().collect::<Vec<_>>())
        .collect();
    assert!(vars.iter().all(|v| v == "crunch"), "{vars:?}");
    assert!(
        floor_coef(&b, &["crunch - 1"], 20) > q(0, 1),
        "{}",
        b.to_bound_string()
    );
    assert_eq!(rules.get("Q:WHILEEXIT1"), Some(&1));
    assert_eq!(rules.get("Q:IFEXIT1"), Some(&21));
    assert_eq!(rules.get("Q:IFEXIT4"), None);
}

/// The wrapper (block 32×1, symbolic grid). By hand: sectors — one write of 32 consecutive
/// ints (128 bytes at an unknown 4-byte alignment: at most 5 sectors) per round of the
/// grid-stride loop, at most `numBlocks − blockIdx.x ≤ numBlocks` rounds (the step
/// `gridDim.x` is ≥ 1; the root Q:WEAK drops `blockIdx.x ≥ 0` from the bound);
/// conflicts 0 (no shared memory); divwarps — per round of 20 iterations of the limit, each
/// of the 20 escape tests (thread-dependent pixel) may diverge once and so may the loop test:
/// 21 a round, `1 + ⌊(crunch − 1)/20⌋⁺` rounds (the exit loop's floor atom, spec/logic.md §4a,
/// mandel20; `21/20` per unit of `crunch` with `max0(crunch)` before), and the `if` of the
/// image edge once a block. The certificates use Q:WHILEEXIT2 with 20 Q:IFEXIT4 and one
/// Q:IFEXIT1 (`i <= 0` is uniform), and the grid-stride loop a `mono` rewrite.
#[test]
fn wrapper_bounds_are_certified() {
    if samples_corpus("wrapper_bounds_are_certified").is_none() {
        return;
    }
    let (_, b, _, _, _) = analysed(Which::Wrapper, MetricName::Sectors);
    assert_eq!(b.to_bound_string(), "5*max(0, numBlocks)");
    let (_, b, _, _, _) = analysed(Which::Wrapper, MetricName::Conflicts);
    assert_eq!(b.to_bound_string(), "0");
    let (_, b, cert, rules, _) = analysed(Which::Wrapper, MetricName::Divwarps);
    assert_eq!(
        b.to_bound_string(),
        "21*max(0, numBlocks) + 21*max(0, numBlocks)*max(0, ⌊(crunch - 1)/20⌋) + max(0, numBlocks)*[32 ∤ imageW]"
    );
    assert_eq!(rules.get("Q:WHILEEXIT2"), Some(&1));
    assert_eq!(rules.get("Q:IFEXIT4"), Some(&20));
    assert_eq!(rules.get("Q:IFEXIT1"), Some(&1));
    assert!(
        cert.contains("(mono "),
        "the grid-stride loop uses a mono rewrite"
    );
    let (_, b, _, _, _) = analysed(Which::Wrapper, MetricName::Steps);
    assert!(
        floor_coef(&b, &["numBlocks", "crunch - 1"], 20) > q(0, 1),
        "{}",
        b.to_bound_string()
    );
}

fn metrics() -> Vec<Metric> {
    MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect()
}

/// Runs `which` with `params` on `grid` blocks and compares every metric's largest
/// simulated per-warp cost with the bound at `params` (`blockIdx.x = 0`, where the bound is
/// largest). Returns the simulated costs.
fn sound_at(which: Which, params: &[(&str, Value)], grid: u32) -> Result<Vec<Q>, String> {
    let (prog, _, _, _, _) = analysed(which, MetricName::Steps);
    let mut ps = Params::new();
    let mut env = BTreeMap::new();
    for (k, v) in params {
        ps.insert(k.to_string(), *v);
        if let Value::Int(n) = v {
            env.insert(k.to_string(), *n);
        }
    }
    // the symbolic-divisor bound of the chain divides by gridDim.x
    env.insert("gridDim.x".to_string(), i64::from(grid));
    let launch = Launch {
        block: BLOCK,
        grid: Some([grid, 1, 1]),
    };
    let run = run_kernel(&prog, &metrics(), &hw(), &launch, &ps, &Inputs::zero())
        .map_err(|e| format!("{which:?} {params:?}: run: {e}"))?;
    let mut out = Vec::new();
    for r in &run.metrics {
        // the answer `min(A, B, C)`: every certified part must hold
        let (_, b, _, _, further) = analysed(which, r.metric);
        let bv = further
            .iter()
            .fold(b.eval(&env), |v, (k, _)| v.min(k.eval(&env)));
        if r.max_per_warp > bv {
            return Err(format!(
                "{which:?} {} at {params:?} grid {grid}: simulated {} > bound {} = {}",
                r.metric,
                r.max_per_warp,
                b.to_bound_string(),
                bv
            ));
        }
        out.push(r.max_per_warp.clone());
    }
    Ok(out)
}

fn f(x: f64) -> Value {
    Value::Float(x)
}

fn wrapper_params(
    crunch: i64,
    num_blocks: i64,
    grid_width: i64,
    (w, h): (i64, i64),
    (x_off, y_off, scale): (f64, f64, f64),
    julia: Option<(f64, f64)>,
) -> Vec<(&'static str, Value)> {
    let (jx, jy) = julia.unwrap_or((0.0, 0.0));
    vec![
        ("imageW", Value::Int(w)),
        ("imageH", Value::Int(h)),
        ("crunch", Value::Int(crunch)),
        ("xOff", f(x_off)),
        ("yOff", f(y_off)),
        ("xJP", f(jx)),
        ("yJP", f(jy)),
        ("scale", f(scale)),
        ("gridWidth", Value::Int(grid_width)),
        ("numBlocks", Value::Int(num_blocks)),
        ("isJ", Value::Bool(julia.is_some())),
    ]
}

/// The device entry at random warp-uniform arguments: limits in `0..=200` (and a few
/// negative ones), points of the plane around the set, Mandelbrot and Julia mode.
#[test]
fn entry_is_sound() {
    if samples_corpus("entry_is_sound").is_none() {
        return;
    }
    fn prop(crunch: u8, neg: bool, x: i16, y: i16, julia: bool, jx: i8, jy: i8) -> TestResult {
        let crunch = if neg {
            -i64::from(crunch % 30)
        } else {
            i64::from(crunch) * 200 / 255
        };
        let ps = vec![
            ("xPos", f(f64::from(x) / 32768.0 * 2.2 - 0.5)),
            ("yPos", f(f64::from(y) / 32768.0 * 1.3)),
            ("xJParam", f(f64::from(jx) / 128.0)),
            ("yJParam", f(f64::from(jy) / 128.0)),
            ("crunch", Value::Int(crunch)),
            ("isJulia", Value::Bool(julia)),
        ];
        match sound_at(Which::Entry, &ps, 1) {
            Ok(_) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    QuickCheck::new()
        .tests(40)
        .quickcheck(prop as fn(u8, bool, i16, i16, bool, i8, i8) -> TestResult);
}

/// The wrapper at random launches: limits in `0..=200`, 0–4 image blocks, grids of 1 or 2
/// blocks, image widths 20–64 (partial rows) and heights 1–3, scales and offsets that put
/// the 32 pixels of a row across the boundary of the set (some lanes escape at once, some
/// late, some never), Mandelbrot and Julia mode.
#[test]
fn wrapper_is_sound() {
    if samples_corpus("wrapper_is_sound").is_none() {
        return;
    }
    type Launch = (u8, u8, bool, bool);
    type Image = (u8, u8, u8, i8, i8, bool);
    fn prop((crunch, nb, g2, gw): Launch, (w, h, sc, xo, yo, julia): Image) -> TestResult {
        let crunch = i64::from(crunch) * 200 / 255;
        let num_blocks = i64::from(nb % 5);
        let scale = 0.005 + f64::from(sc) / 255.0 * 0.1;
        let x_off = -2.2 + f64::from(xo) / 128.0 * 1.2;
        let y_off = f64::from(yo) / 128.0 * 1.1;
        let ps = wrapper_params(
            crunch,
            num_blocks,
            if gw { 2 } else { 1 },
            (20 + i64::from(w % 45), 1 + i64::from(h % 3)),
            (x_off, y_off, scale),
            julia.then_some((-0.8, 0.156)),
        );
        match sound_at(Which::Wrapper, &ps, if g2 { 2 } else { 1 }) {
            Ok(_) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    QuickCheck::new()
        .tests(25)
        .quickcheck(prop as fn(Launch, Image) -> TestResult);
}

/// Adversarial pixels, by hand: with `xOff = −1`, `yOff = 0`, `scale = 4` (one image block,
/// one row), lane 0 computes `c = −1` (the orbit 0, −1, 0, −1, … never escapes) and every
/// other lane `c = 4k − 1 ≥ 3`, which escapes at the second test (`|c|² > 4`), all at once.
/// The warp diverges at that test and, if lane 0 is still running after `i -= 20`
/// (`crunch > 20`), once more at the loop test that lets lanes 1–31 go; then lane 0 runs
/// all `⌈crunch/20⌉` rounds alone. The opposite extremes (no lane escapes: `scale = 0` at
/// `c = 0`; every lane escapes at the second test: `c = 3`) have no divergence at all. All
/// are within the bounds.
#[test]
fn wrapper_adversarial_lanes() {
    if samples_corpus("wrapper_adversarial_lanes").is_none() {
        return;
    }
    let div = MetricName::ALL
        .iter()
        .position(|&m| m == MetricName::Divwarps)
        .unwrap();
    for crunch in [200, 37, 21, 20, 1, 0] {
        let one_stays = wrapper_params(crunch, 1, 1, (32, 1), (-1.0, 0.0, 4.0), None);
        let sim = sound_at(Which::Wrapper, &one_stays, 1).unwrap();
        let expected = if crunch > 20 { 2 } else { 1 };
        assert_eq!(
            sim[div],
            Q::from_integer(expected.into()),
            "crunch {crunch}"
        );
        for grid in [1, 2] {
            let none_escape = wrapper_params(crunch, 3, 1, (32, 3), (0.0, 0.0, 0.0), None);
            let sim = sound_at(Which::Wrapper, &none_escape, grid).unwrap();
            assert_eq!(sim[div], Q::from_integer(0.into()));
            let all_escape = wrapper_params(crunch, 3, 1, (32, 3), (3.0, 0.0, 0.0), None);
            let sim = sound_at(Which::Wrapper, &all_escape, grid).unwrap();
            assert_eq!(sim[div], Q::from_integer(0.into()));
        }
    }
}

/// The adversarial pixel rows of `warpcert bench` (src/cli/bench.rs, issue 15), found by
/// the search of tests/data/frontend/mandelbrot_rows.py, each at the sample it was searched
/// for, on grid 1: the lock-step semantics gives the divwarps that script's model counts (an
/// independent count: a split at each exit check some but not all active lanes take, one at
/// the loop test `jmp < 2` after such a round, one where the image edge cuts a block), and
/// stays within `min(A, B, C)` (B by hand: `numBlocks·(62 + [32 ∤ imageW])`; C by hand
/// from Q:WHILEEXITCAP2: `numBlocks·(33 + ⌊(crunch − 1)/20⌋⁺ + [32 ∤ imageW])`, the exits'
/// `31`, the loop test's split after each round but the last (`⌊(crunch − 1)/20⌋⁺` of them,
/// the exit loop's floor atom, mandel20; `1/20·crunch` before) and `2k = 2`; A from the
/// analysis). Both B and C are the analysis's bounds there, certified by the kernel.
#[test]
fn wrapper_bench_adversarial_rows() {
    if samples_corpus("wrapper_bench_adversarial_rows").is_none() {
        return;
    }
    let div = MetricName::ALL
        .iter()
        .position(|&m| m == MetricName::Divwarps)
        .unwrap();
    // (crunch, numBlocks, gridWidth, (imageW, imageH)), row, model count, B
    type Row = (i64, i64, i64, (i64, i64), (f64, f64, f64), i64, i64);
    let rows: [Row; 4] = [
        (
            20,
            1,
            1,
            (32, 1),
            (-1.571526109051854, 0.29993359320128926, 0.01942513303490928),
            15,
            62,
        ),
        (
            100,
            4,
            2,
            (40, 3),
            (
                0.18613075777380855,
                -0.6377549667812233,
                -0.0032922781950016217,
            ),
            82,
            4 * 63,
        ),
        (
            200,
            3,
            2,
            (64, 2),
            (
                -0.6576098672824903,
                -0.44711537652046435,
                0.00017506666974053496,
            ),
            107,
            3 * 62,
        ),
        (
            1000,
            1,
            1,
            (32, 1),
            (
                -0.7153651734200788,
                -0.28433334467162363,
                -0.0003014806068170098,
            ),
            45,
            62,
        ),
    ];
    let (_, _, _, _, further) = analysed(Which::Wrapper, MetricName::Divwarps);
    let rules: Vec<&str> = further.iter().map(|(_, r)| r.as_str()).collect();
    assert_eq!(rules, ["Q:WHILEEXITCAP", "Q:WHILEEXITCAP2", "floors"]);
    for (crunch, nb, gw, wh, row, model, b) in rows {
        let ps = wrapper_params(crunch, nb, gw, wh, row, None);
        let sim = sound_at(Which::Wrapper, &ps, 1).unwrap();
        assert_eq!(sim[div], Q::from_integer(model.into()), "crunch {crunch}");
        assert!(
            sim[div] <= Q::from_integer(b.into()),
            "B at crunch {crunch}"
        );
        let cut = i64::from(wh.0 % 32 != 0);
        let c = Q::from_integer((nb * (33 + cut + (crunch - 1).max(0) / 20)).into());
        assert!(sim[div] <= c, "C at crunch {crunch}");
        let env = BTreeMap::from([
            ("numBlocks".to_string(), nb),
            ("crunch".to_string(), crunch),
            ("imageW".to_string(), wh.0),
        ]);
        assert_eq!(further[0].0.eval(&env), Q::from_integer(b.into()));
        assert_eq!(further[1].0.eval(&env), c, "C at crunch {crunch}");
    }
}
