//! Rule L:IFALIGN (spec/logic.md §4b, issues 14 and 15): with Q:IFALIGN on
//! (`AnalysisOptions::align`, `analyze --align`) the upper `divwarps` bound of a guarded
//! element-wise kernel is the residue indicator `[32 ∤ n]`; the lower derivation charges
//! the same atom on the warp its lanes prove split (L:IFDIV's lanes, the atom `≤ 1`), so
//! the answer stays `exact` with both certificates accepted by the kernel; the kernel
//! rejects a wrong charge and a wrong lane; Coq (LowerCheck.v, `DIfAlign` read as
//! L:IFALIGN) accepts the export and refutes its mutants.
//!
//! Hand derivation (vectorAdd of the RaCUDA corpus, and the precision cases guard_device
//! and grid240: `i = 256·blockIdx.x + threadIdx.x`, block 256, one `if (i < n)`, no loop).
//! Warp `w` of block `b` holds `i = 256b + 32w + l`, `l = 0 … 31`; it splits iff
//! `256b + 32w < n < 256b + 32w + 32` (lane 0 passes, lane 31 fails), which needs
//! `32 ∤ n`, and then costs 1 divwarp (the only branch); otherwise 0. So the worst warp
//! costs `[32 ∤ n]` (upper, Q:IFALIGN), and warp 0 of block `b` costs exactly 1 =
//! `[32 ∤ n]` on the region `256b + 1 ≤ n ≤ 256b + 31` (lower, L:HYP with L:IFALIGN on
//! lanes 0 and 31). The lock-step semantics confirms warp 0's cost at points of the region
//! and 0 at multiples of 32.

mod common;

use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
use common::{balanced_end, load_for, racuda_corpus, root};
use std::path::{Path, PathBuf};
use warpcert::analysis::AnalysisOptions;
use warpcert::cli::analyze::analyze_metric;
use warpcert::cli::options::Loaded;
use warpcert::cli::precision::{load, suite};
use warpcert::core::metric::{Metric, MetricName, Q};
use warpcert::core::{Hardware, Launch};
use warpcert::report::AnalyzeOutcome;
use warpcert::semantics::{run_warp, Inputs, Params, RunOptions, Value};

/// The options of `analyze --align`.
fn align() -> AnalysisOptions {
    AnalysisOptions {
        align: true,
        ..AnalysisOptions::default()
    }
}

/// The `divwarps` answer of `l` with Q:IFALIGN on, its certificates written to a fresh
/// directory: (relation, per-warp bound, upper certificate text, lower certificate text).
fn divwarps_answer(l: &Loaded, name: &str) -> (String, String, String, String) {
    let tmp = std::env::temp_dir().join(format!("warpcert-lalign-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let path = tmp.join(format!("{name}.cert"));
    let out = analyze_metric(l, MetricName::Divwarps, &align(), Some(path.clone()), None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let AnalyzeOutcome::Bound(b) = out else {
        panic!("{name}: no bound")
    };
    let upper = std::fs::read_to_string(&path).unwrap();
    let lower =
        std::fs::read_to_string(tmp.join(format!("{name}.lower.cert"))).unwrap_or_else(|e| {
            panic!(
                "{name}: no lower certificate ({e}), relation {}",
                b.relation
            )
        });
    let _ = std::fs::remove_dir_all(&tmp);
    (b.relation.to_string(), b.per_warp, upper, lower)
}

fn loaded(program: warpcert::core::ir::Program, launch: Launch) -> Loaded {
    Loaded {
        program,
        launch,
        hw: Hardware::default(),
        metrics: vec![MetricName::Divwarps],
        warnings: vec![],
        block_source: "test",
    }
}

/// A precision case (tests/precision/) loaded at its launch.
fn precision(name: &str) -> Loaded {
    let c = suite()
        .into_iter()
        .find(|c| c.name == name)
        .expect("precision case");
    let hw = Hardware::default();
    let launch = Launch {
        block: c.block,
        grid: c.concrete_grid.map(|g| [g, 1, 1]),
    };
    loaded(load(&c, &hw).unwrap(), launch)
}

/// Both certificates accepted by the kernel with the bound `[32 ∤ n]` (`n` the guard's
/// parameter), the lower one for warp 0 through L:IFALIGN on lanes 0 and 31.
fn assert_exact(
    name: &str,
    n: &str,
    (rel, per_warp, upper, lower): &(String, String, String, String),
) {
    let bound = format!("[32 ∤ {n}]");
    assert_eq!(
        (rel.as_str(), per_warp.as_str()),
        ("exact", bound.as_str()),
        "{name}"
    );
    let u = warpcert_kernel::check(upper).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(
        (u.role, u.bound.as_str()),
        (warpcert_kernel::Role::Upper, bound.as_str())
    );
    assert!(upper.contains("(Q:IFALIGN "), "{name}: {upper}");
    let v = warpcert_kernel::check(lower).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(
        (v.role, v.bound.as_str()),
        (warpcert_kernel::Role::Lower(0), bound.as_str())
    );
    assert!(
        lower.contains("(L:IFALIGN ") && lower.contains("(lanes 0 31)"),
        "{name}: {lower}"
    );
}

/// `divwarps` of warp 0 of block `b` of `prog` at `n_name = n`, lock-step semantics.
fn warp0(prog: &warpcert::core::ir::Program, launch: &Launch, b: u32, n_name: &str, n: i64) -> Q {
    let params = Params::from([(n_name.to_string(), Value::Int(n))]);
    run_warp(
        prog,
        &[Metric::standard(MetricName::Divwarps)],
        &Hardware::default(),
        launch,
        [b, 0, 0],
        0,
        &params,
        &Inputs::zero(),
        &RunOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{n_name}={n} block {b}: {e}"))
    .costs[0]
        .clone()
}

/// The value of the residue indicator `[32 ∤ n]` (hand: 0 iff 32 divides n).
fn indicator(n: i64) -> Q {
    Q::from_integer(i64::from(n.rem_euclid(32) != 0).into())
}

/// Points `(b, n)` with `256b + 1 ≤ n ≤ 256b + 31` (the lower certificate's region) where
/// warp 0 of block `b` splits (cost 1), and `(b, n)` with `32 | n` where no warp splits.
const REGION: [(u32, i64); 4] = [(0, 1), (0, 5), (16, 4097), (16, 4127)];
const ALIGNED: [(u32, i64); 3] = [(0, 32), (16, 4096), (15, 4096)];

fn semantics_agree(prog: &warpcert::core::ir::Program, launch: &Launch, n_name: &str) {
    for (b, n) in REGION {
        assert_eq!(
            warp0(prog, launch, b, n_name, n),
            Q::from_integer(1.into()),
            "b={b} n={n}"
        );
        assert_eq!(indicator(n), Q::from_integer(1.into()));
    }
    for (b, n) in ALIGNED {
        assert_eq!(
            warp0(prog, launch, b, n_name, n),
            Q::from_integer(0.into()),
            "b={b} n={n}"
        );
        assert_eq!(indicator(n), Q::from_integer(0.into()));
    }
}

fn vector_add() -> Option<(PathBuf, Launch)> {
    let dir = racuda_corpus("lower_align vectorAdd")?;
    let launch = Launch {
        block: [256, 1, 1],
        grid: None,
    };
    Some((dir.join("vectorAdd.cu"), launch))
}

#[test]
fn vector_add_divwarps_exact_with_align() {
    let Some((path, launch)) = vector_add() else {
        return;
    };
    let prog = load_for(&path, &launch);
    let answer = divwarps_answer(&loaded(prog.clone(), launch), "vectorAdd");
    assert_exact("vectorAdd", "numElements", &answer);
    semantics_agree(&prog, &launch, "numElements");
}

#[test]
fn precision_guards_divwarps_exact_with_align() {
    for name in ["guard_device", "grid240"] {
        let l = precision(name);
        let answer = divwarps_answer(&l, name);
        assert_exact(name, "n", &answer);
        semantics_agree(&l.program, &l.launch, "n");
    }
}

/// The lower certificate of examples/vector_add.cu (same kernel as vectorAdd, `len`) with
/// Q:IFALIGN on.
fn example_lower(tag: &str) -> String {
    let path = root().join("examples/vector_add.cu");
    let launch = Launch {
        block: [256, 1, 1],
        grid: None,
    };
    let answer = divwarps_answer(&loaded(load_for(Path::new(&path), &launch), launch), tag);
    assert_exact("vector_add", "len", &answer);
    answer.3
}

/// The kernel's checks of L:IFALIGN: a charge of twice the atom (the root's bound and pre
/// potential raised together, so that only the `if` differs), a constant beside the atom,
/// and a `then` lane that does not pass the test.
#[test]
fn ifalign_mutants_rejected() {
    let lower = example_lower("va_kernel");
    let atom = "(ndvd (lin 0 (1 len)) 32)";
    let reject = |text: &str| {
        let r = warpcert_kernel::check(text).expect_err("accepted");
        assert_eq!(r.rule, "L:IFALIGN", "{r}");
        r.to_string()
    };
    let twice = lower.replace(&format!("(poly (1 {atom}))"), &format!("(poly (2 {atom}))"));
    assert_ne!(twice, lower);
    let r = reject(&twice);
    assert!(
        r.contains("L:IFALIGN: the pre potential exceeds post + M^if + C by `2*[32 ∤ len]`"),
        "{r}"
    );
    let plus = lower.replace(
        &format!("(poly (1 {atom}))"),
        &format!("(poly (1) (1 {atom}))"),
    );
    assert_ne!(plus, lower);
    let r = reject(&plus);
    assert!(
        r.contains("by `1 + [32 ∤ len]`, not M^div times one residue atom"),
        "{r}"
    );
    let lane = reject(&lower.replacen("(lanes 0 31)", "(lanes 31 31)", 1));
    assert!(lane.contains("entail then witness 0"), "{lane}");
}

/// The Coq export (`DIfAlign` with L:IFDIV's lists and the charge `[32 ∤ len]`) is
/// accepted; refuted: the bound raised to `2·[32 ∤ len]`, the charge's modulus changed to 16
/// (`[16 ∤ len]` does not cover the pre's `[32 ∤ len]`), the `else` lane list dropped (no
/// split, so nothing may be charged).
#[test]
fn ifalign_coq_accepts_and_mutants_refuted() {
    let lower = example_lower("va_coq");
    let x = warpcert::export::coq::export(&lower).unwrap_or_else(|e| panic!("{e}"));
    assert!(x.contains("(DIfAlign "), "{x}");
    let res = "(KRes (mkLin 0%Z [(1%Z, VP 0)]) 32%positive)";
    let raised = mutate_after(
        &x,
        "Definition bound :",
        "((1 # 1), [mkAtmK",
        "((2 # 1), [mkAtmK",
    );
    let raised = mutate_after(
        &raised,
        "Definition a0 :",
        "((1 # 1), [mkAtmK",
        "((2 # 1), [mkAtmK",
    );
    let modulus = mutate_after(&x, "(DIfAlign ", "32%positive (DSkip", "16%positive (DSkip");
    // the first list after the access witness `0%Z` is the `else` lane witnesses
    let at = x.find("(DIfAlign ").unwrap();
    let start = at + x[at..].find(" 0%Z [").unwrap() + " 0%Z ".len();
    let end = start + balanced_end(&x[start..], '[', ']').unwrap();
    let dropped = format!("{}[]{}", &x[..start], &x[end..]);
    for m in [&raised, &modulus, &dropped] {
        assert_ne!(m, &x);
    }
    assert!(x.contains(res), "{x}");
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; the L:IFALIGN export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "ifalign",
        &[("ifalign_vector_add", x.as_str())],
        &[
            ("ifalign_bound_raised", raised.as_str()),
            ("ifalign_modulus", modulus.as_str()),
            ("ifalign_else_dropped", dropped.as_str()),
        ],
    );
}
