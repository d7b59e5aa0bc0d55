//! Rule L:IFALIGN (spec/logic.md §4b, issues 14 and 15): with Q:IFALIGN on
//! (`AnalysisOptions::align`, on by default) the upper `divwarps` bound of a guarded
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

use common::warp_cost;

use common::answer::exact_answer;
use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
use common::{balanced_end, load_for, racuda_corpus, root};
use std::path::{Path, PathBuf};
use warpcert::analysis::AnalysisOptions;
use warpcert::cli::options::Loaded;
use warpcert::cli::precision::{load, suite};
use warpcert::core::metric::{MetricName, Q};
use warpcert::core::{Hardware, Launch};

/// The options of `analyze` (Q:IFALIGN on, the default).
fn align() -> AnalysisOptions {
    AnalysisOptions {
        align: true,
        ..AnalysisOptions::default()
    }
}

/// The `divwarps` answer of `l` with Q:IFALIGN on, its certificates written to a fresh
/// directory: (relation, per-warp bound, upper certificate text, lower certificate text).
fn divwarps_answer(l: &Loaded, name: &str) -> (String, String, String, String) {
    exact_answer(l, MetricName::Divwarps, &align(), &format!("lalign-{name}"))
}

fn loaded(program: warpcert::core::ir::Program, launch: Launch) -> Loaded {
    common::answer::loaded(program, launch, MetricName::Divwarps)
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

/// The value of the residue indicator `[32 ∤ n]` (hand: 0 iff 32 divides n).
fn indicator(n: i64) -> Q {
    Q::from_integer(i64::from(n.rem_euclid(32) != 0).into())
}

/// Points `(b, n)` with `256b + 1 ≤ n ≤ 256b + 31` (the lower certificate's region) where
/// warp 0 of block `b` splits (cost 1), and `(b, n)` with `32 | n` where no warp splits.
const REGION: [(u32, i64); 4] = [(0, 1), (0, 5), (16, 4097), (16, 4127)];
const ALIGNED: [(u32, i64); 3] = [(0, 32), (16, 4096), (15, 4096)];

fn semantics_agree(prog: &warpcert::core::ir::Program, launch: &Launch, n_name: &str) {
    // warp 0 of block b splits at the REGION points (cost 1), at none of the ALIGNED ones
    for (points, cost) in [(REGION.as_slice(), 1), (ALIGNED.as_slice(), 0)] {
        for &(b, n) in points {
            assert_eq!(
                warp_cost(
                    prog,
                    MetricName::Divwarps,
                    launch,
                    [b, 0, 0],
                    0,
                    &[(n_name, n)]
                ),
                Q::from_integer(cost.into()),
                "b={b} n={n}"
            );
            assert_eq!(indicator(n), Q::from_integer(cost.into()));
        }
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
/// a `then` lane that does not pass the test, and the class `(class 1 32)` (the upper
/// Q:IFALIGN node's, copied) changed or removed. The kernel computes the atom from the
/// class as Q:IFALIGN does: `i − len + 1 ≤ 0` has `X = 1 − len`, so `(1, 32)` gives
/// `[32 ∤ 1 − (1 − len)] = [32 ∤ len]`; `(1, 64)` passes the class checks (`64 | G = 256`,
/// the windows `[−32w − 30, −32w]` miss every integer `≡ 1 (mod 32)`) but gives
/// `[64 ∤ len]`, not the potential's atom; `(1, 16)` fails the window check (31
/// consecutive integers meet every class mod 16).
#[test]
fn ifalign_mutants_rejected() {
    let lower = example_lower("va_kernel");
    let atom = "(ndvd (lin 0 (1 len)) 32)";
    let reject = |text: &str| {
        assert_ne!(text, lower);
        let r = warpcert_kernel::check(text).expect_err("accepted");
        assert_eq!(r.rule, "L:IFALIGN", "{r}");
        r.to_string()
    };
    let off = "L:IFALIGN: the pre potential minus post + M^if + C + minc(s1) + minc(s2) + M^div·[m ∤ s − X] is";
    // pre 2·atom against post 0 + 0 + 0 + 1·atom: the difference is one atom
    let twice = lower.replace(&format!("(poly (1 {atom}))"), &format!("(poly (2 {atom}))"));
    let r = reject(&twice);
    assert!(r.contains(&format!("{off} `[32 ∤ len]`, not 0")), "{r}");
    // pre 1 + atom: the difference is the constant 1
    let plus = lower.replace(
        &format!("(poly (1 {atom}))"),
        &format!("(poly (1) (1 {atom}))"),
    );
    let r = reject(&plus);
    assert!(r.contains(&format!("{off} `1`, not 0")), "{r}");
    let lane = reject(&lower.replacen("(lanes 0 31)", "(lanes 31 31)", 1));
    assert!(lane.contains("entail then witness 0"), "{lane}");
    assert_eq!(lower.matches("(class 1 32)").count(), 1, "{lower}");
    let r = reject(&lower.replacen("(class 1 32)", "(class 1 64)", 1));
    assert!(
        r.contains(&format!("{off} `[32 ∤ len] - [64 ∤ len]`, not 0")),
        "{r}"
    );
    let r = reject(&lower.replacen("(class 1 32)", "(class 1 16)", 1));
    assert!(
        r.contains("(class 1 16) is not one of the test `")
            && r.contains("a warp's window meets the class"),
        "{r}"
    );
    let r = reject(&lower.replacen("(class 1 32)", "", 1));
    assert!(r.contains("missing field (class …)"), "{r}");
}

/// The Coq export (`DIfAlign` with L:IFDIV's lists and the class `(1)%Z 32%positive`, from
/// which LowerCheck.v builds the charge `[32 ∤ 1 − (1 − len)]`) is accepted; refuted: the
/// bound raised to `2·[32 ∤ len]`, the class's modulus changed to 16 (`[16 ∤ len]` does not
/// cover the pre's `[32 ∤ len]`), its residue changed to 2 (`[32 ∤ len + 1]` does not
/// either), the `else` lane list dropped (no split, so nothing may be charged).
#[test]
fn ifalign_coq_accepts_and_mutants_refuted() {
    let lower = example_lower("va_coq");
    let x = warpcert::export::coq::export(&lower).unwrap_or_else(|e| panic!("{e}"));
    assert!(x.contains("(DIfAlign "), "{x}");
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
    let class = "(1)%Z 32%positive (DSkip";
    let modulus = mutate_after(&x, "(DIfAlign ", class, "(1)%Z 16%positive (DSkip");
    let residue = mutate_after(&x, "(DIfAlign ", class, "(2)%Z 32%positive (DSkip");
    // the first list after the access witness `0%Z` is the `else` lane witnesses
    let at = x.find("(DIfAlign ").unwrap();
    let start = at + x[at..].find(" 0%Z [").unwrap() + " 0%Z ".len();
    let end = start + balanced_end(&x[start..], '[', ']').unwrap();
    let dropped = format!("{}[]{}", &x[..start], &x[end..]);
    for m in [&raised, &modulus, &residue, &dropped] {
        assert_ne!(m, &x);
    }
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
            ("ifalign_residue", residue.as_str()),
            ("ifalign_else_dropped", dropped.as_str()),
        ],
    );
}
