//! Rule L:IFSPLIT (spec/logic.md §4b "Lane subsets", issue 14): a divergent `if` whose test
//! `x == 0` has a remainder entry `(rem x k r m)` runs its then branch on exactly the lanes
//! `m | k·tid + r` and its else branch on the others; each branch is a lower judgment over
//! its own lanes, so its access counts are counted over those lanes only. addSub0's
//! `sectors` and `steps` answers become `exact` (both certificates accepted by the kernel).
//! The kernel rejects a count above a branch's lanes, a then derivation about the other
//! lanes, a missing branch, a missing else witness list and a test of another form, each
//! pinned by its message. In Coq (LowerCheck.v `DIfSplit`, lowersplit19), `coqc` accepts
//! both certificates of both answers and refutes mutants of the L:IFSPLIT part.
//!
//! Hand derivation (int = 4 bytes, 32-byte sectors, warp 32, block 1024, warp 0,
//! `blockIdx.x = 0`): addSub0's round `i` of `for (i = 0; i < w; i++)` has `j = tid`,
//! `t1 = j % 2` and `if (t1 == 0) B[j·w + i] += A[i]; else B[j·w + i] -= A[i];`. The then
//! branch runs on the 16 even lanes, the else branch on the 16 odd ones (SC:IFD: both run).
//! In a branch, neighbouring lanes' `B` indices are `2w` ints = `8w` bytes apart, so the
//! read and the write of `B` each touch 16 sectors once `8w ≥ 32` (`w ≥ 4`), and `A[i]`
//! one: 33 per branch, 66 per round, `66·w` from `w = 4` — the upper bound
//! `66·max(0, w)`. Below: `w = 1`: a branch's 16 lanes span 128 contiguous bytes (8-byte
//! steps, base 0 or 4): 4 sectors, so `2·(4 + 4 + 1) = 18`; `w = 2`: 16-byte steps over
//! 256 bytes: 8 sectors, `2·2·(8 + 8 + 1) = 68`. The lower certificate's region is
//! `w ≥ 8` (L:GWRITESTRIDE's `8 − w ≤ 0`: its count uses the gap between consecutive
//! `tid`s, 1, not the branch's gap 2), where the bound is attained.
//!
//! The lock-step semantics (`run_warp`, tests/common::warp_cost) confirms each value.

mod common;

use common::answer::exact_both;
use common::mutants::{drop_list, kernel_refuses, nth_at, without_subtree_at};
use common::{racuda_kernel, warp_cost};
use warpcert::core::ir::Program;
use warpcert::core::metric::{q, MetricName};
use warpcert::core::Launch;

fn addsub0() -> Option<(Program, Launch)> {
    racuda_kernel("lower_ifsplit addSub0", "addSub0.cu", 1024)
}

/// Hand values of the module docs: `66·w` from `w = 4`, 18 at `w = 1`, 68 at `w = 2`; the
/// certificate's region `w ≥ 8`, where the lower bound `66·w` is at most (here equal to)
/// the lock-step cost of warp 0 (and of the block's last warp, 31).
#[test]
fn addsub0_sectors_exact() {
    let Some((prog, launch)) = addsub0() else {
        return;
    };
    let lower = exact_both(
        "addsub0-sectors",
        &prog,
        launch,
        MetricName::Sectors,
        "66*max(0, w)",
    );
    assert!(lower.contains("(hyp (le (lin 8 (-1 w))))"), "{lower}");
    assert_eq!(lower.matches("(L:IFSPLIT ").count(), 1, "{lower}");
    // each branch's B read and write: 16 lanes, 16 sectors
    assert_eq!(
        lower.matches("(L:GARRAYSTRIDE (n 16)").count(),
        2,
        "{lower}"
    );
    assert_eq!(
        lower.matches("(L:GWRITESTRIDE (post ").count(),
        2,
        "{lower}"
    );
    let cost = |w: i64, warp: u64| {
        warp_cost(
            &prog,
            MetricName::Sectors,
            &launch,
            [0, 0, 0],
            warp,
            &[("w", w), ("h", 1)],
        )
    };
    for w in [4, 5, 8, 9, 12] {
        for warp in [0, 31] {
            assert_eq!(cost(w, warp), q(66 * w), "w={w} warp {warp}");
        }
    }
    assert_eq!(cost(1, 0), q(18), "w=1");
    assert_eq!(cost(2, 0), q(68), "w=2");
}

/// `steps` rides on the same counts: `6 + 123·max(0, w)` (the semantics at `w = 8, 9`, in
/// the region, equal to it).
#[test]
fn addsub0_steps_exact() {
    let Some((prog, launch)) = addsub0() else {
        return;
    };
    exact_both(
        "addsub0-steps",
        &prog,
        launch,
        MetricName::Steps,
        "6 + 123*max(0, w)",
    );
    for w in [8, 9] {
        assert_eq!(
            warp_cost(
                &prog,
                MetricName::Steps,
                &launch,
                [0, 0, 0],
                0,
                &[("w", w), ("h", 1)]
            ),
            q(6 + 123 * w),
            "w={w}"
        );
    }
}

/// Mutants of addSub0's lower certificate, each rejected with its message.
#[test]
fn addsub0_ifsplit_mutants_rejected() {
    let Some((prog, launch)) = addsub0() else {
        return;
    };
    let lower = exact_both(
        "addsub0-mut",
        &prog,
        launch,
        MetricName::Sectors,
        "66*max(0, w)",
    );
    let reject = |what: &str, text: String, msg: &str| kernel_refuses(what, &text, None, msg);
    // a wrong lane count: the then branch's B read claims 17 sectors of its 16 lanes (or
    // the warp's 32, which a full-warp judgment would allow)
    for n in [17, 32] {
        reject(
            "n above the branch's lanes",
            lower.replacen(
                "(L:GARRAYSTRIDE (n 16)",
                &format!("(L:GARRAYSTRIDE (n {n})"),
                1,
            ),
            &format!("claimed access count {n} is above the named warp's count 16"),
        );
    }
    // a branch derivation over the wrong lanes: with the test `t1 != 0` the then branch
    // runs on the odd lanes, but its derivation's pre is about the even ones (`t1 = 0`,
    // `threadIdx.x mod 2 = 0`), which `P ∧ t1 ≠ 0` does not entail
    let test = "(if (bin == (var t1) (int 0))";
    assert!(lower.contains(test), "{lower}");
    reject(
        "then derivation on the else lanes",
        lower.replacen(test, "(if (bin != (var t1) (int 0))", 1),
        "entail then",
    );
    // a missing branch: the else derivation dropped
    let split = nth_at(&lower, "(L:IFSPLIT ", 0);
    let else_at = split + nth_at(&lower[split..], "(L:SEQ (pre ", 1);
    reject(
        "missing else branch",
        without_subtree_at(&lower, else_at),
        "expected 3 children, found 2",
    );
    // the else branch's witnesses (`P ∧ ¬e ⇒` its pre) dropped
    let with_else = lower
        .split("(entail else ")
        .nth(1)
        .and_then(|r| r.find(") _").map(|k| format!("(entail else {}) ", &r[..k])))
        .unwrap_or_else(|| panic!("no else witnesses: {lower}"));
    reject(
        "no else witnesses",
        lower.replacen(&with_else, "", 1),
        "entail else: expected",
    );
    // a test of another form: `t1 == 1` is not decided by the remainder entry here
    reject(
        "test t1 == 1",
        lower.replacen(test, "(if (bin == (var t1) (int 1))", 1),
        "L:IFSPLIT: the test `(bin == (var t1) (int 1))` does not split the lane set: not `x == 0` or `x != 0` for a local x",
    );
}

/// L:IFSPLIT in Coq (LowerCheck.v `DIfSplit`, lowersplit19; spec/logic.md §4b "Lane
/// subsets"): `export-coq` writes addSub0's `sectors` and `steps` certificates, upper and
/// lower, and `coqc` accepts all four (theorem closed under the global context). Mutants
/// of the L:IFSPLIT part of the lower `sectors` export are refuted by the reflective check
/// (`lcheck` computes `false`); the reason of each, derived by hand, is in its comment.
/// Skips (saying so) without the corpus or `coqc`.
#[test]
fn coqc_accepts_ifsplit_exports_and_refutes_mutants() {
    use common::answer::{exact_answer, loaded};
    use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
    use warpcert::analysis::AnalysisOptions;
    let Some((prog, launch)) = addsub0() else {
        return;
    };
    let mut exports: Vec<(String, String)> = Vec::new();
    for (m, want) in [
        (MetricName::Sectors, "66*max(0, w)"),
        (MetricName::Steps, "6 + 123*max(0, w)"),
    ] {
        let name = format!("addsub0-coq-{m:?}");
        let l = loaded(prog.clone(), launch, m);
        let (rel, per_warp, upper, lower) = exact_answer(&l, m, &AnalysisOptions::default(), &name);
        assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", want), "{name}");
        assert_eq!(lower.matches("(L:IFSPLIT ").count(), 1, "{name}: {lower}");
        for (role, text) in [("upper", &upper), ("lower", &lower)] {
            let x = warpcert::export::coq::export(text)
                .unwrap_or_else(|e| panic!("{name} {role}: {e:?}"));
            exports.push((format!("addsub0_{m:?}_{role}"), x));
        }
    }
    let lower = &exports[1].1;
    assert_eq!(lower.matches("DIfSplit ").count(), 1, "{lower}");
    // Mutants of the L:IFSPLIT part of the lower `sectors` export (warp 0, block 1024: the
    // then lanes are the 16 even ones, tid.x = 0, 2, …, 30; the else lanes the 16 odd ones).
    let mutants: Vec<(&str, String)> = vec![
        // a raised branch claim: the then branch's strided read of B claims 17 sectors;
        // `stride_ok` counts the distinct tid.x of the then lanes, 16 < 17 (over the whole
        // warp it would count 32 and accept: the branch is checked over its subset)
        (
            "ifsplit_then_claim_17",
            mutate_after(lower, "(DVwrite2S ", " 16%Z ", " 17%Z "),
        ),
        // the same for the else branch's strided write of B (its second `DWriteS`): the 16
        // odd lanes have 16 distinct tid.x < 17
        ("ifsplit_else_claim_17", {
            let at = nth_at(lower, "(DWriteS ", 1);
            let tail = mutate_after(&lower[at..], "(DWriteS ", " 16%Z ", " 17%Z ");
            format!("{}{tail}", &lower[..at])
        }),
        // the lanes moved to the other branch: the test `t1 != 0` makes the then lanes the
        // odd ones (`split_test` gives `b = false`), and `P ∧ t1 ≠ 0` has no constraint
        // `t1 = 0` at index 12 (its cond list is empty for `!=`), so the then witnesses do
        // not prove the then pre's `t1 = 0` (`entails … wth` is false)
        (
            "ifsplit_test_ne",
            replace_once(
                lower,
                "(SIf (EBin OEq (OVar 3) (OConst (VInt 0%Z)))",
                "(SIf (EBin ONe (OVar 3) (OConst (VInt 0%Z)))",
            ),
        ),
        // a changed remainder modulus, consistently (`t1 = j % 4` and every entry
        // `(rem t1 1 0 0 0 4)`, which L:VWRITE's entry rule derives, so only the split
        // changes): the then lanes are tid.x ≡ 0 (mod 4), 8 lanes with 8 distinct tid.x,
        // below the then branch's claims 16 (`stride_ok` is false)
        (
            "ifsplit_modulus_4",
            replace_all(
                &replace_once(
                    lower,
                    "EBin OMod (OVar 2) (OConst (VInt 2%Z))",
                    "EBin OMod (OVar 2) (OConst (VInt 4%Z))",
                ),
                "DRem 3 (1%Z, 0%Z, 0%Z) 0%Z 2%Z",
                "DRem 3 (1%Z, 0%Z, 0%Z) 0%Z 4%Z",
            ),
        ),
        // the then witnesses dropped: the then pre has 14 constraints and `entails` needs
        // one witness per constraint (`entails _ (_ :: _) [] = false`)
        ("ifsplit_then_witnesses_dropped", {
            let at = nth_at(lower, "DIfSplit ", 0);
            format!("{}{}", &lower[..at], drop_list(&lower[at..], 1))
        }),
    ];

    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the L:IFSPLIT exports are not checked");
        return;
    }
    let accepted: Vec<(&str, &str)> = exports
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let muts: Vec<(&str, &str)> = mutants.iter().map(|(n, t)| (*n, t.as_str())).collect();
    accepted_and_mutants_refuted("lower-ifsplit", &accepted, &muts);
}

/// `text` with its only occurrence of `from` replaced by `to`.
fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` in the export");
    text.replacen(from, to, 1)
}

/// `text` with every occurrence of `from` (at least one) replaced by `to`.
fn replace_all(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in the export");
    text.replace(from, to)
}
