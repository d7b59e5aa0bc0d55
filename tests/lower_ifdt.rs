//! Rule L:IFDT (spec/logic.md §4b, issue 14): a possibly divergent `if` whose then branch
//! some lane of the named warp provably takes is charged `minc(s1)`, the least cost of a
//! run of the branch on any non-empty thread set. The one-lane store
//! `if (tid == 0) g_odata[blockIdx.x] = …` of the RaCUDA reductions costs 1 sector, which
//! L:IFD charged 0; with L:IFDT their `sectors` answers are `exact`. The kernel rejects a
//! lane outside the warp, a lane that does not take the branch and an over-charge; Coq
//! (LowerCheck.v, `DIf4` with an empty else-cond list read as L:IFDT) accepts the export
//! and refutes its mutants.
//!
//! Hand derivations (block 256, warp 0 = lanes `threadIdx.x = 0 … 31`, `int` = 4 bytes,
//! 32-byte sectors):
//! * reduce0, reduce1, reduce2: `i = 256·blockIdx.x + tid`; when `n ≥ 256·(blockIdx.x + 1)`
//!   every lane passes `i < n` and the warp reads `g_idata[i]`, 32 consecutive ints of
//!   128 aligned bytes: 4 sectors. The reduction loop touches shared memory only (0
//!   sectors). `tid == 0` holds on lane 0 only: one 4-byte store, 1 sector. Total 5.
//! * reduce3, reduce3a: `i = 512·blockIdx.x + tid`; when `n ≥ 512·(blockIdx.x + 1)` both
//!   loads `g_idata[i]` and `g_idata[i + 256]` pass on every lane: 4 + 4 sectors, and the
//!   store 1. Total 9.
//! * `ONE` below: only the store, by lane 0 of warp 0: 1 sector for warp 0, 0 for warp 1.
//!
//! The lock-step semantics (`run_warp`) confirms each value at points of the region.

mod common;

use common::warp_cost;

use common::answer::{exact_answer, loaded};
use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
use common::lower_guard::lower_src;
use common::{balanced_end, load_for, racuda_corpus};
use warpcert::analysis::AnalysisOptions;
use warpcert::core::ir::Program;
use warpcert::core::metric::{q, MetricName};
use warpcert::core::Launch;

/// A one-lane store: lane 0 of each block writes one int.
const ONE: &str =
    "__global__ void k(int *out, int n) { int t = threadIdx.x; if (t == 0) out[blockIdx.x] = n; }";

/// The `sectors` answer of `prog`: both certificates accepted by the kernel with bound
/// `want`, the lower one for warp 0 through L:IFDT on lane 0.
fn assert_exact_sectors(name: &str, prog: Program, launch: Launch, want: &str) -> String {
    let l = loaded(prog, launch, MetricName::Sectors);
    let (rel, per_warp, upper, lower) = exact_answer(
        &l,
        MetricName::Sectors,
        &AnalysisOptions::default(),
        &format!("lifdt-{name}"),
    );
    assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", want), "{name}");
    let u = warpcert_kernel::check(&upper).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(
        (u.role, u.bound.as_str()),
        (warpcert_kernel::Role::Upper, want)
    );
    let v = warpcert_kernel::check(&lower).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(
        (v.role, v.bound.as_str()),
        (warpcert_kernel::Role::Lower(0), want)
    );
    assert!(
        lower.contains("(L:IFDT ") && lower.contains("(lanes 0)"),
        "{name}: {lower}"
    );
    lower
}

#[test]
fn reductions_sectors_exact() {
    let Some(dir) = racuda_corpus("lower_ifdt reductions") else {
        return;
    };
    let launch = Launch {
        block: [256, 1, 1],
        grid: None,
    };
    // (file, bound, a point of the region (blockIdx.x, n), the block size per block index)
    for (file, want, per_block) in [
        ("reduce0.cu", 5, 256),
        ("reduce1.cu", 5, 256),
        ("reduce2.cu", 5, 256),
        ("reduce3.cu", 9, 512),
        ("reduce3a.cu", 9, 512),
    ] {
        let prog = load_for(&dir.join(file), &launch);
        assert_exact_sectors(file, prog.clone(), launch, &want.to_string());
        for b in [0, 3] {
            let n = per_block * (i64::from(b) + 1);
            assert_eq!(
                warp_cost(
                    &prog,
                    MetricName::Sectors,
                    &launch,
                    [b, 0, 0],
                    0,
                    &[("n", n)]
                ),
                q(want),
                "{file} b={b} n={n}"
            );
        }
    }
}

#[test]
fn one_lane_store_exact() {
    let (prog, launch) = lower_src(ONE, 64, 2);
    assert_exact_sectors("one", prog.clone(), launch, "1");
    for b in [0, 1] {
        for (w, cost) in [(0, 1), (1, 0)] {
            assert_eq!(
                warp_cost(
                    &prog,
                    MetricName::Sectors,
                    &launch,
                    [b, 0, 0],
                    w,
                    &[("n", 7)]
                ),
                q(cost),
                "warp {w}, block {b}"
            );
        }
    }
}

/// The lower certificate of `ONE` for warp 0 (bound 1); `tag` names its directory.
fn one_lower(tag: &str) -> String {
    let (prog, launch) = lower_src(ONE, 64, 2);
    assert_exact_sectors(tag, prog, launch, "1")
}

/// The kernel's checks of L:IFDT: a lane outside warp 0 (32), a lane of it that does not
/// take the branch (1: `t = threadIdx.x = 1` does not entail `t == 0`), and an over-charge
/// (the bound and the root's pre potential raised to 2 together, so that only the `if`
/// differs: pre 2 against post 0 + M^if 0 + C 0 + minc 1).
#[test]
fn ifdt_mutants_rejected() {
    let lower = one_lower("one_kernel");
    let reject = |text: &str| {
        assert_ne!(text, lower);
        let r = warpcert_kernel::check(text).expect_err("accepted");
        assert_eq!(r.rule, "L:IFDT", "{r}");
        r.to_string()
    };
    let r = reject(&lower.replacen("(lanes 0)", "(lanes 32)", 1));
    assert!(
        r.contains("L:IFDT: lane witness `32` is not a lane of warp 0"),
        "{r}"
    );
    let r = reject(&lower.replacen("(lanes 0)", "(lanes 1)", 1));
    assert!(
        r.contains("entail then witness 0 for `t = 0`: residual constant 1 is too large"),
        "{r}"
    );
    assert_eq!(lower.matches("(poly (1))").count(), 2, "{lower}");
    let r = reject(&lower.replace("(poly (1))", "(poly (2))"));
    assert!(
        r.contains("pre differs from post + M^if + C + minc(s1) (Q: `2` vs `1`)"),
        "{r}"
    );
    // the branch not charged at all: L:IFD (no lane fields) with the same potentials
    let at = lower.find("(lanes 0)").unwrap();
    let end = at + lower[at..].find(" _)").unwrap();
    let ifd = format!("{}{}", &lower[..at], &lower[end + 1..]).replacen("(L:IFDT ", "(L:IFD ", 1);
    assert!(
        ifd.contains("(L:IFD (post 1) (entail post (ids 0 7)) _)"),
        "{ifd}"
    );
    let r = warpcert_kernel::check(&ifd).expect_err("accepted");
    assert_eq!(r.rule, "L:IFD", "{r}");
    assert!(
        r.to_string()
            .contains("pre differs from post + M^if + C (Q: `1` vs `0`)"),
        "{r}"
    );
}

/// The Coq export (`DIf4` whose else-then list holds the `then` lane witness and whose
/// else-cond list is empty, read by LowerCheck.v as L:IFDT with `sminc` of the then
/// branch) is accepted for reduce0 and `ONE`; refuted: `ONE`'s bound raised to 2 (with
/// the pre potentials down to the if's), and the then lane witness dropped (the node is then L:IFD, charging 0).
#[test]
fn ifdt_coq_accepts_and_mutants_refuted() {
    let lower = one_lower("one_coq");
    let x = warpcert::export::coq::export(&lower).unwrap_or_else(|e| panic!("{e}"));
    assert!(x.contains("(DIf4 "), "{x}");
    // the bound, the root pre `a0` and the if's pre `a2`: 1 each (the if's post 0)
    assert_eq!(x.matches("mkPot (1 # 1) []").count(), 3, "{x}");
    let raised = x.replace("mkPot (1 # 1) []", "mkPot (2 # 1) []");
    // after the access witness `0%Z`: the else-cond list `[]`, then the else-then list
    let at = x.find("(DIf4 ").unwrap();
    let start = at + x[at..].find(" 0%Z [] [").unwrap() + " 0%Z [] ".len();
    let end = start + balanced_end(&x[start..], '[', ']').unwrap();
    let dropped = format!("{}[]{}", &x[..start], &x[end..]);
    for m in [&raised, &dropped] {
        assert_ne!(m, &x);
    }
    let reduce0 = racuda_corpus("lower_ifdt coq").map(|dir| {
        let launch = Launch {
            block: [256, 1, 1],
            grid: None,
        };
        let prog = load_for(&dir.join("reduce0.cu"), &launch);
        let lower = assert_exact_sectors("reduce0_coq", prog, launch, "5");
        warpcert::export::coq::export(&lower).unwrap_or_else(|e| panic!("{e}"))
    });
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; the L:IFDT export is not checked");
        return;
    }
    // SPLIT (steps, L:IFDIV charging both branches, 15): accepted; with its else-cond
    // list (the `else` lane witness) emptied the node reads as L:IFDT, which charges
    // `sminc` of the then branch (2) only, not M^div (1) nor the else branch (2): refuted
    let split = split_lower();
    let xs = warpcert::export::coq::export(&split).unwrap_or_else(|e| panic!("{e}"));
    let else_dropped = mutate_after(&xs, "(DIf4 ", "0%Z [(1%Z, [(0, (-1)%Z)])] [", "0%Z [] [");
    let mut accepted = vec![("ifdt_one", x.as_str()), ("ifdiv_split", xs.as_str())];
    if let Some(r) = &reduce0 {
        accepted.push(("ifdt_reduce0", r.as_str()));
    }
    accepted_and_mutants_refuted(
        "ifdt",
        &accepted,
        &[
            ("ifdt_bound_raised", raised.as_str()),
            ("ifdt_lane_dropped", dropped.as_str()),
            ("ifdiv_else_dropped", else_dropped.as_str()),
        ],
    );
}

/// A split with a local assignment in each branch (`x = 1` / `x = 2`), then a coalesced
/// store, block 32, `steps` with Q:IFALIGN off (so the upper node is Q:IF4 and the lower
/// one L:IFDIV on lanes 0 and 16). Hand derivation (every `steps` constant 1, `M^gwrite(n)
/// = n`): the test `threadIdx.x < 16` 3 (operand, constant, operator), `M^if` 1, each branch
/// `x ← c` 2 (constant, `M^vwrite`), `M^div` 1 (lanes 0–15 take the then branch, 16–31
/// the else branch), the store 1 + 1 + 4 (32 ints in 128 aligned bytes: 4 sectors): 15.
/// L:IFDIV charges both branches their `minc` (2 each, exact here), so the answer is
/// `exact`; before, with the branches charged 0, the lower bound was 11.
const SPLIT: &str = "__global__ void k(int *out) { int x; if (threadIdx.x < 16) x = 1; else x = 2; out[threadIdx.x] = x; }";

/// SPLIT's `steps` lower certificate (exact, 15, L:IFDIV on lanes 0 and 16).
fn split_lower() -> String {
    let (prog, launch) = lower_src(SPLIT, 32, 1);
    let l = loaded(prog, launch, MetricName::Steps);
    let opts = AnalysisOptions {
        align: false,
        ..AnalysisOptions::default()
    };
    let tag = format!("lifdt-split-{:?}", std::thread::current().id()).replace(['(', ')'], "");
    let (rel, per_warp, _, lower) = exact_answer(&l, MetricName::Steps, &opts, &tag);
    assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", "15"));
    assert!(
        lower.contains("(L:IFDIV ") && lower.contains("(lanes 0 16)"),
        "{lower}"
    );
    let v = warpcert_kernel::check(&lower).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(v.bound, "15");
    lower
}

/// SPLIT with Q:IFALIGN on (the default): the upper node may be Q:IFALIGN with a class
/// whose atom is the constant `[32 ∤ 16]` = 1 (no residue atom in its charge); the lower
/// certificate is then L:IFDIV's, and the answer the same exact 15 (hand derivation above).
#[test]
fn constant_residue_charge_falls_back_to_ifdiv() {
    let (prog, launch) = lower_src(SPLIT, 32, 1);
    let l = loaded(prog, launch, MetricName::Steps);
    let opts = AnalysisOptions::default();
    assert!(opts.align);
    let tag =
        format!("lifdt-split-align-{:?}", std::thread::current().id()).replace(['(', ')'], "");
    let (rel, per_warp, _, lower) = exact_answer(&l, MetricName::Steps, &opts, &tag);
    assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", "15"));
    assert!(lower.contains("(L:IFDIV "), "{lower}");
}

#[test]
fn ifdiv_charges_both_branches() {
    split_lower();
    let (prog, launch) = lower_src(SPLIT, 32, 1);
    assert_eq!(
        warp_cost(&prog, MetricName::Steps, &launch, [0, 0, 0], 0, &[]),
        q(15)
    );
}
