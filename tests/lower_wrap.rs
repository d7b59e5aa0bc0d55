//! Rule L:IFWRAP (spec/logic.md §4b, issue 14): a divergent `if (x == 0)` whose local `x`
//! has a wrapped entry `(wrap x k m)` (`x = (k·tid + c) rem m` for one unknown `c`) splits
//! the warp whenever the lanes' `k·tid mod m` cover every residue and `m ≥ 2`: the lane
//! with `k·tid ≡ −c` tests true, the one with `k·tid ≡ 1 − c` false. RaCUDA's syn-brdis
//! (`if ((threadIdx.x + i) % 2 == 0)` in a loop over `i`) has its `divwarps` answer
//! `exact` with it; L:IFDIV could not prove it (its lanes are fixed, the true lane moves
//! with `i`). The kernel rejects the rule where the split is not proved (modulus 64 on a
//! 32-lane warp, a 1-lane block, a test against 1, no wrapped entry); Coq (LowerCheck.v,
//! `DIfWrap`) accepts the export and refutes its mutants.
//!
//! Hand derivations (block 32, one warp, lanes `threadIdx.x = 0 … 31`):
//! * PARITY and syn-brdis: in round `i` the lanes with `threadIdx.x + i` even (16 of them)
//!   take the then branch and the 16 others the else branch: one split per round, `n`
//!   (resp. `N`) rounds, so `divwarps = max(0, n)`. The loops inside the branches of
//!   syn-brdis are uniform (bound `M`): no split. syn-brdis-opt has two such `if`s per
//!   round and a uniform loop between them: `2·max(0, N)`.
//! * MOD64 (`% 64`): in round `i` a lane tests true iff `64 | threadIdx.x + i`; the lanes'
//!   values `i … i + 31` hold a multiple of 64 iff `i mod 64 = 0` or `i mod 64 ≥ 33`. At
//!   `n = 40` the rounds `i = 0` and `i = 33 … 39` split, `i = 1 … 32` do not: 8 splits,
//!   below the upper bound 40 (Q:IF4 charges every round), so the answer must stay
//!   `upper`.
//!
//! Each value is confirmed by the lock-step semantics (`run_warp`).

mod common;

use common::warp_cost;

use common::answer::{exact_answer, loaded};
use common::coq::{accepted_and_mutants_refuted, coqc_available};
use common::lower_guard::lower_src;
use common::{load_for, racuda_corpus};
use warpcert::analysis::AnalysisOptions;
use warpcert::core::ir::Program;
use warpcert::core::metric::{q, MetricName};
use warpcert::core::Launch;

/// One split per round: the lanes' parity test moves with `i`.
const PARITY: &str = "__global__ void k(int *out, int n) { for (int i = 0; i < n; i++) { if ((threadIdx.x + i) % 2 == 0) { out[threadIdx.x] = i; } } }";

/// As PARITY with `% 64`: round `i ≡ 32 (mod 64)` does not split a 32-lane warp.
const MOD64: &str = "__global__ void k(int *out, int n) { for (int i = 0; i < n; i++) { if ((threadIdx.x + i) % 64 == 0) { out[threadIdx.x] = i; } } }";

/// The `divwarps` answer of `prog`: (relation, per-warp bound, lower certificate or "").
fn answer(name: &str, prog: Program, launch: Launch) -> (String, String, String) {
    let l = loaded(prog, launch, MetricName::Divwarps);
    let tag = format!("lwrap-{name}-{:?}", std::thread::current().id()).replace(['(', ')'], "");
    let (rel, per_warp, upper, lower) =
        exact_answer(&l, MetricName::Divwarps, &AnalysisOptions::default(), &tag);
    let u = warpcert_kernel::check(&upper).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(u.bound, per_warp, "{name}");
    (rel, per_warp, lower)
}

/// PARITY's lower certificate (exact `max(0, n)`, L:IFWRAP, warp 0).
fn parity_lower() -> String {
    let (prog, launch) = lower_src(PARITY, 32, 1);
    let (rel, per_warp, lower) = answer("parity", prog, launch);
    assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", "max(0, n)"));
    assert!(lower.contains("(L:IFWRAP "), "{lower}");
    let v = warpcert_kernel::check(&lower).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(
        (v.role, v.bound.as_str()),
        (warpcert_kernel::Role::Lower(0), "max(0, n)")
    );
    lower
}

#[test]
fn parity_divwarps_exact_and_attained() {
    parity_lower();
    let (prog, launch) = lower_src(PARITY, 32, 1);
    for n in [0, 1, 2, 5, 17] {
        assert_eq!(
            warp_cost(
                &prog,
                MetricName::Divwarps,
                &launch,
                [0, 0, 0],
                0,
                &[("n", n)]
            ),
            q(n),
            "n={n}"
        );
    }
}

#[test]
fn syn_brdis_divwarps_exact() {
    let Some(dir) = racuda_corpus("lower_wrap syn-brdis") else {
        return;
    };
    let launch = Launch {
        block: [32, 1, 1],
        grid: None,
    };
    for (file, want, per_round) in [
        ("syn-brdis.cu", "max(0, N)", 1),
        ("syn-brdis-opt.cu", "2*max(0, N)", 2),
    ] {
        let prog = load_for(&dir.join(file), &launch);
        let (rel, per_warp, lower) = answer(file, prog.clone(), launch);
        assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", want), "{file}");
        assert!(lower.contains("(L:IFWRAP "), "{file}: {lower}");
        for (n, m) in [(0, 1), (1, 1), (3, 2), (6, 0)] {
            assert_eq!(
                warp_cost(
                    &prog,
                    MetricName::Divwarps,
                    &launch,
                    [0, 0, 0],
                    0,
                    &[("N", n), ("M", m), ("val", 3)]
                ),
                q(per_round * n),
                "{file} N={n} M={m}"
            );
        }
    }
}

/// `% 64` on a 32-lane warp: not every round splits (lock-step: 8 at n = 40, against the
/// upper bound 40; hand derivation in the module docs), and the answer stays `upper`.
#[test]
fn modulus_above_the_warp_stays_upper() {
    let (prog, launch) = lower_src(MOD64, 32, 1);
    assert_eq!(
        warp_cost(
            &prog,
            MetricName::Divwarps,
            &launch,
            [0, 0, 0],
            0,
            &[("n", 40)]
        ),
        q(8)
    );
    let l = loaded(prog, launch, MetricName::Divwarps);
    let out = warpcert::cli::analyze::analyze_metric(
        &l,
        MetricName::Divwarps,
        &AnalysisOptions::default(),
        None,
        None,
    )
    .unwrap();
    let warpcert::report::AnalyzeOutcome::Bound(b) = out else {
        panic!("no bound")
    };
    assert_eq!(b.relation, "upper", "{}", b.per_warp);
}

/// The kernel's checks of L:IFWRAP on PARITY's lower certificate.
#[test]
fn ifwrap_mutants_rejected() {
    let lower = parity_lower();
    let reject = |text: &str| {
        assert_ne!(text, &lower);
        let r = warpcert_kernel::check(text).expect_err("accepted");
        assert_eq!(r.rule, "L:IFWRAP", "{r}");
        r.to_string()
    };
    // `% 64` with its (correct) wrapped entry: the modulus exceeds the warp's 32 lanes
    assert!(
        lower.contains("(int 2)))") && lower.contains("(wrap t1 1 0 0 2)"),
        "{lower}"
    );
    let m64 = lower
        .replacen("(int 2)))", "(int 64)))", 1)
        .replace("(wrap t1 1 0 0 2)", "(wrap t1 1 0 0 64)");
    let r = reject(&m64);
    assert!(r.contains("the modulus is not in 2 … warp size"), "{r}");
    // the test against 1: not `x == 0`
    let one = lower.replacen("(bin == (var t1) (int 0))", "(bin == (var t1) (int 1))", 1);
    let r = reject(&one);
    assert!(r.contains("not `x == 0` or `x != 0` for a local x"), "{r}");
    // a range entry (the window of `% 2`, which the assignment allows) instead of the
    // wrapped one: no wrapped entry at the test
    let none = lower.replace("(wrap t1 1 0 0 2)", "(rng t1 2)");
    let r = reject(&none);
    assert!(r.contains("no wrapped entry for the local"), "{r}");
    // a block of one thread: its one lane covers the residue 0 only (and never splits)
    assert!(lower.contains("(launch 32 1 1)"), "{lower}");
    let lone = lower
        .replacen("(launch 32 1 1)", "(launch 1 1 1)", 1)
        .replacen(
            "(le (lin -31 (1 threadIdx.x)))",
            "(le (lin 0 (1 threadIdx.x)))",
            1,
        );
    let r = reject(&lone);
    assert!(
        r.contains("the lanes' k·tid do not cover every residue mod m"),
        "{r}"
    );
}

/// The Coq export (`DIfWrap`) of PARITY's lower certificate is accepted; refuted: the
/// wrapped entries' modulus and the program's `% 2` raised to 64 together (32 lanes cannot
/// cover 64 residues: the split is then not proved, `wrap_covers`).
#[test]
fn ifwrap_coq_accepts_and_mutants_refuted() {
    let lower = parity_lower();
    let x = warpcert::export::coq::export(&lower).unwrap_or_else(|e| panic!("{e}"));
    assert!(x.contains("(DIfWrap "), "{x}");
    // the program's `% 2` and the wrapped entries' modulus raised to 64 together (the
    // kernel rejects this certificate, so the mutation is made in the export)
    let x64 = x
        .replacen(
            "(EBin OMod (OVar 1) (OConst (VInt 2%Z)))",
            "(EBin OMod (OVar 1) (OConst (VInt 64%Z)))",
            1,
        )
        .replace(
            "DWrap 2 (1%Z, 0%Z, 0%Z) 2%Z",
            "DWrap 2 (1%Z, 0%Z, 0%Z) 64%Z",
        );
    assert!(
        !x64.contains("DWrap 2 (1%Z, 0%Z, 0%Z) 2%Z") && x64.contains("(VInt 64%Z)"),
        "{x}"
    );
    assert_ne!(x64, x);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; the L:IFWRAP export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "ifwrap",
        &[("ifwrap_parity", x.as_str())],
        &[("ifwrap_mod64", x64.as_str())],
    );
}
