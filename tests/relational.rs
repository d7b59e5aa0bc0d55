//! Pico's relational analysis (`spec/relational.md`): the paper's worked examples with its
//! numbers, the rows of Pico Table 1 on the RaCUDA corpus (compared with Pico's bounds from
//! `../shared/targets.md` and with the executable semantics), and exhaustive property tests
//! against the lock-step semantics at warp sizes 4 and 8.

mod common;

use std::collections::BTreeMap;
use warpcert::core::metric::{q, Q};
use warpcert::core::{Dim, Hardware, Launch, MetricName, Space};
use warpcert::relational::analysis::analyze_warp;
use warpcert::relational::calculus::{
    Access, Atom, COp, Cond, Lanes, Mode, NExpr, NOp, PicoMetric, Proto, Range, SStmt,
};
use warpcert::relational::cost::closed_form;
use warpcert::relational::{self, Relation};
use warpcert::semantics::{run_kernel, Inputs, Params, Value};

fn acc(index: NExpr) -> Proto {
    Proto::Acc(Access {
        array: "A".into(),
        index,
        space: Space::Global,
        elem_bytes: 4,
        mode: Mode::Read,
        line: 0,
        id: 1,
    })
}

/// Example 2.1 / 4.1: `for x ∈ 0..tid {A[0]}` is related by `=` to
/// `for x ∈ 0..W−1 {tick(W − x)}` under `M_E`, cost (W² + W)/2: 528 at W = 32, 10 at W = 4.
#[test]
fn example_4_1_divergent_loop_exact() {
    let p = Proto::For(
        1,
        "x".into(),
        Range::upto(NExpr::Lit(0), NExpr::tid()),
        Box::new(acc(NExpr::Lit(0))),
    );
    for (w, expect) in [(4usize, 10i64), (32, 528), (5, 15), (8, 36)] {
        let a = analyze_warp(&p, &Lanes::pico(w), PicoMetric::ActiveThreads).unwrap();
        assert!(a.exact, "W = {w}");
        // The scalar program of Example 4.1 (hand-derived): for x ∈ 0..W−1 {tick(W − x)}.
        let expect_stmt = SStmt::For(
            "x".into(),
            Range::upto(NExpr::Lit(0), NExpr::Lit(w as i64 - 1)),
            Box::new(SStmt::Tick(NExpr::bin(
                NOp::Sub,
                NExpr::Lit(w as i64),
                NExpr::var("x"),
            ))),
        );
        assert_eq!(a.stmt, expect_stmt, "W = {w}");
        let c = closed_form(&a.stmt).unwrap();
        assert!(c.exact);
        assert_eq!(c.poly.as_int(), Some(expect), "W = {w}");
        assert_eq!(expect as usize, (w * w + w) / 2);
    }
}

/// Example 2.2 / 4.2 (addSub₀'s protocol): `for x ∈ 0..i {if (tid % 2 = 0) {A[tid × i + x]}}`
/// is bounded (`≤`) by `for x ∈ 0..i {tick(⌊W/2⌋)}` under `ua`: 16 per iteration at W = 32,
/// so 16·(i + 1). For odd W the count of even lanes is ⌈W/2⌉ (notes, Appendix A item 10).
#[test]
fn example_4_2_divergent_conditional_upper() {
    let i = NExpr::param("i");
    let body = Proto::If(
        2,
        Cond::Cmp(
            COp::Eq,
            NExpr::bin(NOp::Mod, NExpr::tid(), NExpr::Lit(2)),
            NExpr::Lit(0),
        ),
        Box::new(acc(NExpr::bin(
            NOp::Add,
            NExpr::bin(NOp::Mul, NExpr::tid(), i.clone()),
            NExpr::var("x"),
        ))),
    );
    let p = Proto::For(1, "x".into(), Range::upto(NExpr::Lit(0), i), Box::new(body));
    let ua = PicoMetric::Ua { sector_bytes: 32 };
    for (w, per_iter) in [(32usize, 16i64), (4, 2), (5, 3)] {
        let a = analyze_warp(&p, &Lanes::pico(w), ua).unwrap();
        assert!(!a.exact, "the index tid × i + x is not closed: relation ≤");
        let c = closed_form(&a.stmt).unwrap();
        for iv in [0i64, 1, 7, 100] {
            let v = c.poly.eval(&|n| (n == "i").then(|| q(iv))).unwrap();
            assert_eq!(v, q(per_iter * (iv + 1)), "W = {w}, i = {iv}");
        }
        // The conditional and the loop are exact (Pico §6.5: Eq. 9 is exact), the index not.
        let t = warpcert::relational::analysis::totals(&a.exactness);
        use warpcert::relational::analysis::Kind;
        assert_eq!(t[&Kind::Conditional], (1, 1));
        assert_eq!(t[&Kind::Loop], (1, 1));
        assert_eq!(t[&Kind::Index], (0, 1));
    }
}

// ------------------------------------------------------------------------------------------
// The RaCUDA corpus and Pico Table 1

fn corpus(name: &str) -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/racuda")
        .join(name);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("skipping: {} is absent", p.display());
        None
    }
}

fn load(path: &std::path::Path, block: [u32; 3], hw: &Hardware) -> warpcert::core::Program {
    let parsed = warpcert::frontend::parse_file(path).unwrap();
    let launch = Launch { block, grid: None };
    warpcert::frontend::lower(&parsed, None, &launch, hw, &BTreeMap::new())
        .unwrap()
        .0
}

/// Largest per-warp cost of `metric` over the blocks of `grid` (zero inputs).
fn simulate(
    prog: &warpcert::core::Program,
    metric: MetricName,
    hw: &Hardware,
    block: [u32; 3],
    grid: [u32; 3],
    params: &BTreeMap<String, i64>,
) -> Q {
    let m = warpcert::core::Metric::standard(metric);
    let mut ps = Params::new();
    for p in &prog.params {
        if let Some(v) = params.get(&p.name) {
            ps.insert(p.name.clone(), Value::Int(*v));
        }
    }
    let launch = Launch {
        block,
        grid: Some(grid),
    };
    let run = run_kernel(prog, &[m], hw, &launch, &ps, &Inputs::zero()).unwrap();
    run.metrics[0].max_per_warp.clone()
}

struct Row {
    file: &'static str,
    metric: MetricName,
    block: [u32; 3],
    /// Pico's bound (Table 1 of the paper, `../shared/targets.md`) at the parameters.
    pico: fn(&BTreeMap<String, i64>) -> f64,
}

/// The program of a Table 1 row, lowered for its block, and its launch (symbolic grid);
/// `None` (with the skip message of [`corpus`]) when the corpus is absent.
fn row_program(row: &Row, hw: &Hardware) -> Option<(warpcert::core::Program, Launch)> {
    let path = corpus(row.file)?;
    let launch = Launch {
        block: row.block,
        grid: None,
    };
    Some((load(&path, row.block, hw), launch))
}

fn rows() -> Vec<Row> {
    use MetricName::{Conflicts as B, Sectors as U};
    let mm = [32, 32, 1];
    let b256 = [256, 1, 1];
    let wa = |p: &BTreeMap<String, i64>| p["wA"] as f64;
    let w = |p: &BTreeMap<String, i64>| p["w"] as f64;
    let h = |p: &BTreeMap<String, i64>| p["h"] as f64;
    let _ = (wa, w, h);
    vec![
        Row {
            file: "matrixMul.cu",
            metric: U,
            block: mm,
            pico: |p| 0.31 * p["wA"] as f64 + 15.0,
        },
        Row {
            file: "matrixMulBad.cu",
            metric: U,
            block: mm,
            pico: |p| 16.0 * p["wA"] as f64 + 496.0,
        },
        Row {
            file: "matrixMulTranspose.cu",
            metric: U,
            block: mm,
            pico: |p| 0.31 * p["wA"] as f64 + 15.0,
        },
        Row {
            file: "vectorAdd.cu",
            metric: U,
            block: b256,
            pico: |_| 12.0,
        },
        Row {
            file: "reduce0.cu",
            metric: U,
            block: b256,
            pico: |_| 5.0,
        },
        Row {
            file: "reduce1.cu",
            metric: U,
            block: b256,
            pico: |_| 5.0,
        },
        Row {
            file: "reduce2.cu",
            metric: U,
            block: b256,
            pico: |_| 5.0,
        },
        Row {
            file: "reduce2a.cu",
            metric: U,
            block: b256,
            pico: |_| 5.0,
        },
        Row {
            file: "reduce3.cu",
            metric: U,
            block: b256,
            pico: |_| 9.0,
        },
        Row {
            file: "reduce3a.cu",
            metric: U,
            block: b256,
            pico: |_| 9.0,
        },
        Row {
            file: "addSub0.cu",
            metric: U,
            block: b256,
            pico: |p| 66.0 * p["w"] as f64,
        },
        Row {
            file: "addSub1.cu",
            metric: U,
            block: [128, 1, 1],
            pico: |p| 130.0 * p["w"] as f64,
        },
        Row {
            file: "addSub2.cu",
            metric: U,
            block: b256,
            pico: |p| 14.0 * p["h"] as f64 + 14.0,
        },
        Row {
            file: "addSub3.cu",
            metric: U,
            block: b256,
            pico: |p| 10.0 * p["h"] as f64 + 14.0,
        },
        Row {
            file: "matrixMul.cu",
            metric: B,
            block: mm,
            pico: |_| 0.0,
        },
        Row {
            file: "matrixMulTranspose.cu",
            metric: B,
            block: mm,
            pico: |p| 0.97 * p["wA"] as f64 + 30.0,
        },
        Row {
            file: "reduce0.cu",
            metric: B,
            block: b256,
            pico: |_| 0.0,
        },
        Row {
            file: "reduce1.cu",
            metric: B,
            block: b256,
            pico: |_| 23715.0,
        },
        Row {
            file: "reduce2.cu",
            metric: B,
            block: b256,
            pico: |_| 0.0,
        },
        Row {
            file: "reduce2a.cu",
            metric: B,
            block: b256,
            pico: |_| 0.0,
        },
        Row {
            file: "reduce3.cu",
            metric: B,
            block: b256,
            pico: |_| 0.0,
        },
        Row {
            file: "reduce3a.cu",
            metric: B,
            block: b256,
            pico: |_| 0.0,
        },
        Row {
            file: "addSub3.cu",
            metric: B,
            block: b256,
            pico: |_| 0.0,
        },
    ]
}

fn to_f64(x: &Q) -> f64 {
    use num_traits::ToPrimitive;
    x.to_f64().unwrap_or(f64::NAN)
}

/// addSub0 (Pico Example 2.2, Table 1): `66 w` uncoalesced accesses, relation upper.
#[test]
fn addsub0_is_66w() {
    let Some(path) = corpus("addSub0.cu") else {
        return;
    };
    let hw = Hardware::default();
    let prog = load(&path, [256, 1, 1], &hw);
    let launch = Launch {
        block: [256, 1, 1],
        grid: None,
    };
    let r = relational::analyze(&prog, MetricName::Sectors, &hw, &launch).unwrap();
    assert!(r.has_bound());
    assert_eq!(r.bound_string(), "66*w");
    assert_eq!(r.relation, Relation::Upper);
}

/// Every Table 1 row (histogram256 is not in the corpus): a bound is found, it is at most
/// Pico's published bound at several parameter values, and it is at least the largest
/// simulated per-warp cost (soundness against the executable semantics) at small ones.
#[test]
fn pico_table1_rows() {
    let hw = Hardware::default();
    for row in rows() {
        let Some((prog, launch)) = row_program(&row, &hw) else {
            return;
        };
        let r = relational::analyze(&prog, row.metric, &hw, &launch).unwrap();
        assert!(
            r.has_bound(),
            "{} {}: {:?}",
            row.file,
            row.metric,
            r.failures
        );
        for v in [32i64, 64, 100, 1000] {
            let ps: BTreeMap<String, i64> = ["wA", "wB", "w", "h", "n", "numElements"]
                .iter()
                .map(|n| (n.to_string(), v))
                .collect();
            let ours = to_f64(&r.eval(&ps).unwrap());
            let pico = (row.pico)(&ps);
            assert!(
                ours <= pico + 1e-9,
                "{} {} at {v}: ours {ours} ({}) > Pico {pico}",
                row.file,
                row.metric,
                r.bound_string()
            );
        }
        // Soundness at small parameters, two blocks.
        let v = if row.file.starts_with("matrix") {
            32
        } else {
            5
        };
        let ps: BTreeMap<String, i64> = ["wA", "wB", "w", "h", "n", "numElements"]
            .iter()
            .map(|n| (n.to_string(), if *n == "n" { 300 } else { v }))
            .collect();
        let sim = simulate(&prog, row.metric, &hw, row.block, [2, 1, 1], &ps);
        let ours = r.eval(&ps).unwrap();
        assert!(
            ours >= sim,
            "{} {}: bound {} < simulated {sim}",
            row.file,
            row.metric,
            r.bound_string()
        );
        if r.relation == Relation::Exact {
            assert_eq!(
                ours, sim,
                "{} {}: exact bound differs",
                row.file, row.metric
            );
        }
    }
}

// ------------------------------------------------------------------------------------------
// Exhaustive property tests against the lock-step semantics

use common::relational_kernels::KERNELS;

/// For warp sizes 4 and 8, blocks of one and two warps, two blocks, `n ∈ 0..5`, both
/// metrics: an `exact` bound equals the largest simulated per-warp cost, an `upper` bound is
/// at least it.
#[test]
fn exhaustive_small_launches() {
    let mut exact_cases = 0;
    for (name, src) in KERNELS {
        for warp in [4u32, 8] {
            for warps_per_block in [1u32, 2] {
                let hw = Hardware {
                    warp_size: warp,
                    banks: warp,
                    ..Hardware::default()
                };
                let block = [warp * warps_per_block, 1, 1];
                let launch = Launch { block, grid: None };
                let parsed = warpcert::frontend::parse_str("k.cu", src).unwrap();
                // gridDim.x stays a parameter of the analysis; the runs use 2.
                let prog = warpcert::frontend::lower(&parsed, None, &launch, &hw, &BTreeMap::new())
                    .unwrap()
                    .0;
                for metric in [MetricName::Sectors, MetricName::Conflicts] {
                    let r = relational::analyze(&prog, metric, &hw, &launch).unwrap();
                    assert!(r.has_bound(), "{name}: {:?}", r.failures);
                    if r.relation == Relation::Exact {
                        exact_cases += 1;
                    }
                    for n in 0..5i64 {
                        let ps: BTreeMap<String, i64> =
                            [("n".to_string(), n), ("gridDim.x".to_string(), 2)]
                                .into_iter()
                                .collect();
                        let sim = simulate(&prog, metric, &hw, block, [2, 1, 1], &ps);
                        let ours = r.eval(&ps).unwrap();
                        let ctx = format!(
                            "{name} W={warp} block={} {metric} n={n}: bound {} ({:?})",
                            block[0],
                            r.bound_string(),
                            r.relation
                        );
                        match r.relation {
                            Relation::Exact => assert_eq!(ours, sim, "{ctx}"),
                            _ => assert!(ours >= sim, "{ctx}: simulated {sim}"),
                        }
                        // `--relation lower`: a witness at these parameters replays in the
                        // kernel to its stated cost, which is at most the maximum.
                        let w =
                            relational::witness::witness(&prog, metric, &hw, &launch, n).unwrap();
                        let v = warpcert_kernel::witness::check_witness(&w.text)
                            .unwrap_or_else(|e| panic!("{ctx}: witness rejected: {e}"));
                        assert_eq!(v.cost.big(), w.cost, "{ctx}");
                        assert!(w.cost <= sim, "{ctx}: witness {} > max {sim}", w.cost);
                    }
                }
            }
        }
    }
    // The exact claims are exercised: 7 kernels × 2 warp sizes × 2 block sizes × 2 metrics
    // = 56 analyses, of which (hand count) all but the misaligned sectors cases (param_loop
    // and tree_reduction at 4-lane blocks: 16-byte block offsets), grid_stride, and the
    // parameter-offset sectors of tid_dependent_bound are exact.
    assert!(exact_cases >= 40, "only {exact_cases} exact analyses");
}

/// The divergent-loop kernel is analysed exactly (Example 4.1 through the front end).
#[test]
fn divergent_loop_kernel_is_exact() {
    let hw = Hardware {
        warp_size: 4,
        ..Hardware::default()
    };
    let launch = Launch {
        block: [4, 1, 1],
        grid: None,
    };
    let parsed = warpcert::frontend::parse_str("k.cu", KERNELS[0].1).unwrap();
    let prog = warpcert::frontend::lower(&parsed, None, &launch, &hw, &BTreeMap::new())
        .unwrap()
        .0;
    let r = relational::analyze(&prog, MetricName::Sectors, &hw, &launch).unwrap();
    assert_eq!(r.relation, Relation::Exact);
    // One sector per iteration, 4 iterations (lanes 0..3 iterate 1..4 times).
    assert_eq!(r.bound_string(), "4");
    let _ = (Atom::Tid(Dim::X), q(0));
}

/// Lower-bound witnesses for every Table 1 row: the independent kernel replays each with its
/// own interpreter and finds the stated cost; the cost is at most the relational bound at the
/// witness' parameters, and equal to it where the bound is exact.
#[test]
fn witnesses_replay_in_kernel() {
    let hw = Hardware::default();
    for row in rows() {
        let Some((prog, launch)) = row_program(&row, &hw) else {
            return;
        };
        let w = relational::witness::witness(&prog, row.metric, &hw, &launch, 64).unwrap();
        let v = warpcert_kernel::witness::check_witness(&w.text)
            .unwrap_or_else(|e| panic!("{} {}: {e}", row.file, row.metric));
        assert_eq!(v.cost.big(), w.cost);
        let r = relational::analyze(&prog, row.metric, &hw, &launch).unwrap();
        let mut ps: BTreeMap<String, i64> = w.params.iter().cloned().collect();
        ps.insert("gridDim.x".into(), 1);
        let b = r.eval(&ps).unwrap();
        assert!(b >= w.cost, "{} {}", row.file, row.metric);
        if r.relation == Relation::Exact {
            assert_eq!(b, w.cost, "{} {}", row.file, row.metric);
        }
        // A wrong stated cost is rejected.
        let bad = w.text.replace(
            &format!("(cost {})", warpcert::report::bound::rational(&w.cost)),
            &format!(
                "(cost {})",
                warpcert::report::bound::rational(&(w.cost.clone() + q(1)))
            ),
        );
        // The kernel replays the run and finds the true cost, not the stated one.
        assert_eq!(
            warpcert_kernel::witness::check_witness(&bad),
            Err(warpcert_kernel::witness::WitnessError::CostDiffers {
                replayed: w.cost.clone().into(),
                stated: (w.cost.clone() + q(1)).into(),
            }),
            "{} {}",
            row.file,
            row.metric
        );
    }
}

/// The translation of addSub0 (notes Appendix B source) is Example 2.2's protocol with the
/// else-branch: `for i ∈ 0..w−1 { if (j % 2 = 0) {B[j·w+i]; A[i]; B[j·w+i]};
/// if (¬(j % 2 = 0)) {…} }` with `j = blockIdx.x·256 + threadIdx.x` (read, read, write).
#[test]
fn addsub0_protocol_shape() {
    let Some(path) = corpus("addSub0.cu") else {
        return;
    };
    let hw = Hardware::default();
    let prog = load(&path, [256, 1, 1], &hw);
    let tr = relational::translate::translate(&prog);
    assert!(tr.unsupported.is_empty());
    let Proto::For(_, x, r, body) = &tr.proto else {
        panic!("not a loop: {}", tr.proto)
    };
    assert_eq!(x, "i");
    assert_eq!(r.lo, NExpr::Lit(0));
    assert_eq!(r.hi.to_string(), "(w - 1)");
    let Proto::Seq(branches) = &**body else {
        panic!("{body}")
    };
    assert_eq!(branches.len(), 2);
    let j = "((blockIdx.x * 256) + threadIdx.x)";
    for (b, cmp) in branches.iter().zip(["==", "!="]) {
        let Proto::If(_, Cond::Cmp(_, l, _), inner) = b else {
            panic!("{b}")
        };
        assert_eq!(l.to_string(), format!("({j} % 2)"));
        assert!(b.to_string().contains(cmp));
        let Proto::Seq(accs) = &**inner else {
            panic!("{inner}")
        };
        let shown: Vec<(String, String, Mode)> = accs
            .iter()
            .map(|a| match a {
                Proto::Acc(a) => (a.array.clone(), a.index.to_string(), a.mode),
                p => panic!("{p}"),
            })
            .collect();
        let bidx = format!("(({j} * w) + i)");
        assert_eq!(
            shown,
            vec![
                ("B".to_string(), bidx.clone(), Mode::Read),
                ("A".to_string(), "i".to_string(), Mode::Read),
                ("B".to_string(), bidx, Mode::Write),
            ]
        );
    }
}

/// Every kernel of the GPUVerify test suite the front end accepts (launch from its header;
/// grid 2 when the header gives none or a large one): where the relational bound is `exact`
/// it equals the largest simulated per-warp cost, where `upper` it is at least that, with
/// every scalar parameter set to 1 and to 4 (zero inputs). Kernels whose run fails (races,
/// division by zero, …) are skipped with a message.
#[test]
fn gpuverify_corpus_against_semantics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/gpuverify-testsuite");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: {} is absent", dir.display());
        return;
    };
    let mut files: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    let hw = Hardware::default();
    let mut checked = 0;
    for f in files {
        let Ok(parsed) = warpcert::frontend::parse_file(&f) else {
            continue;
        };
        let block = parsed.header.block.unwrap_or([256, 1, 1]);
        if block.iter().product::<u32>() > 1024 {
            continue;
        }
        let grid = match parsed.header.grid {
            Some(g) if g.iter().product::<u32>() <= 4 => g,
            _ => [2, 1, 1],
        };
        let launch = Launch { block, grid: None };
        let Ok((prog, _)) =
            warpcert::frontend::lower(&parsed, None, &launch, &hw, &BTreeMap::new())
        else {
            continue;
        };
        for metric in [MetricName::Sectors, MetricName::Conflicts] {
            let r = relational::analyze(&prog, metric, &hw, &launch).unwrap();
            if !r.has_bound() {
                continue;
            }
            for v in [1i64, 4] {
                let mut ps: BTreeMap<String, i64> = prog
                    .params
                    .iter()
                    .filter(|p| !p.name.starts_with("blockIdx."))
                    .map(|p| (p.name.clone(), v))
                    .collect();
                for (d, g) in ["x", "y", "z"].iter().zip(grid) {
                    ps.insert(format!("gridDim.{d}"), g as i64);
                }
                let m = warpcert::core::Metric::standard(metric);
                let mut sp = Params::new();
                for p in &prog.params {
                    if let Some(x) = ps.get(&p.name) {
                        let val = match p.ty {
                            warpcert::core::Ty::Int => Value::Int(*x),
                            warpcert::core::Ty::Bool => Value::Bool(true),
                            warpcert::core::Ty::Float => Value::Float(*x as f64),
                        };
                        sp.insert(p.name.clone(), val);
                    }
                }
                let run = run_kernel(
                    &prog,
                    &[m],
                    &hw,
                    &Launch {
                        block,
                        grid: Some(grid),
                    },
                    &sp,
                    &Inputs::zero(),
                );
                let sim = match run {
                    Ok(k) => k.metrics[0].max_per_warp.clone(),
                    Err(e) => {
                        eprintln!("skipping {} ({metric}, {v}): {e}", f.display());
                        continue;
                    }
                };
                let Some(ours) = r.eval(&ps) else {
                    eprintln!(
                        "skipping {}: bound {} not evaluable",
                        f.display(),
                        r.bound_string()
                    );
                    continue;
                };
                let ctx = format!(
                    "{} {metric} params={v}: bound {}",
                    f.display(),
                    r.bound_string()
                );
                match r.relation {
                    Relation::Exact => assert_eq!(ours, sim, "{ctx}"),
                    _ => assert!(ours >= sim, "{ctx} < simulated {sim}"),
                }
                checked += 1;
            }
        }
    }
    eprintln!("checked {checked} (kernel, metric, parameter) cases");
}

/// The two analyses against each other on every Table 1 row (spec/relational.md §9): the
/// RaCUDA-logic certificate of the row is accepted by the independent kernel, and where the
/// relational formula is `exact` it never exceeds that certified upper bound (an exact cost
/// above a certified bound would mean one of the two analyses is unsound). Sample points:
/// every scalar parameter at the same value, `blockIdx.x = 0`, `gridDim.x = 1`.
#[test]
fn exact_formulas_never_exceed_the_certified_bounds() {
    let hw = Hardware::default();
    for row in rows() {
        let Some((prog, launch)) = row_program(&row, &hw) else {
            return;
        };
        let r = relational::analyze(&prog, row.metric, &hw, &launch).unwrap();
        let a = warpcert::analysis::analyze(
            &prog,
            &warpcert::core::Metric::standard(row.metric),
            &hw,
            &launch,
            &warpcert::analysis::AnalysisOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{} {}: {e}", row.file, row.metric));
        let v = warpcert_kernel::check(&a.certificate)
            .unwrap_or_else(|e| panic!("{} {}: rejected: {e}", row.file, row.metric));
        assert_eq!(v.bound, a.bound.to_bound_string());
        if r.relation != Relation::Exact {
            continue;
        }
        for x in [0i64, 1, 5, 31, 32, 33, 64, 100, 1000, 4096] {
            let mut ps: BTreeMap<String, i64> =
                prog.params.iter().map(|p| (p.name.clone(), x)).collect();
            ps.insert("blockIdx.x".into(), 0);
            ps.insert("gridDim.x".into(), 1);
            let f = r.eval(&ps).unwrap();
            let b = a.bound.eval(&ps);
            assert!(
                f <= b,
                "{} {} at {x}: exact {} = {f} > certified {} = {b}",
                row.file,
                row.metric,
                r.bound_string(),
                a.bound.to_bound_string()
            );
        }
    }
}
