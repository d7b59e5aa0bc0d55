//! Rule L:IFLANES (spec/logic.md §4b "Lane subsets", issue 14): a divergent `if` whose test
//! compares values that are exact on every lane (operands with exact linear entries
//! `(dep x k r 0)`) runs its then branch on exactly the lanes where the comparison holds
//! and its else branch on the others; each non-empty side is a lower judgment over its own
//! lanes (SC:IFT when every lane passes, SC:IFD when the warp splits). reduce1's
//! `conflicts` answer becomes `exact` (both certificates accepted by the kernel). The kernel
//! rejects a count above a branch's lanes, a missing child, a missing witness list and a
//! test that is not exact on the lanes, each pinned by its message. In Coq (LowerCheck.v
//! `DIfLanes`, iflanescoq19), `coqc` accepts both certificates and refutes mutants of the
//! L:IFLANES part.
//!
//! Hand derivation (block 256, warp 0 = `tid = threadIdx.x = 0 … 31`, `int` = 4 bytes,
//! 32 banks of 4 bytes: word `w` is in bank `w mod 32`; `conflicts` charges `n − 1` per
//! access, `n` the number of distinct words in the fullest bank, spec/metrics.md).
//! reduce1's loop `for (s = 1; s < 256; s *= 2)` has 8 rounds; in each, `index = 2s·tid`
//! and the lanes with `index < 256`, i.e. `tid < 128/s`, run
//! `sdata[index] += sdata[index + s]`: two reads and one write of the same pattern (the
//! read of `index + s` is the same set shifted by `s`, the same bank counts).
//!
//! | `s` | active lanes of warp 0 | indices | banks hit × words each | `n − 1` | 3 accesses |
//! |-----|------------------------|---------|------------------------|---------|------------|
//! | 1   | 0 … 31 (all)           | 0, 2, …, 62     | 16 even banks × 2 | 1 | 3  |
//! | 2   | 0 … 31 (all)           | 0, 4, …, 124    | 8 banks × 4       | 3 | 9  |
//! | 4   | 0 … 31 (all)           | 0, 8, …, 248    | 4 banks × 8       | 7 | 21 |
//! | 8   | 0 … 15                 | 0, 16, …, 240   | banks 0, 16 × 8   | 7 | 21 |
//! | 16  | 0 … 7                  | 0, 32, …, 224   | bank 0 × 8        | 7 | 21 |
//! | 32  | 0 … 3                  | 0, 64, 128, 192 | bank 0 × 4        | 3 | 9  |
//! | 64  | 0, 1                   | 0, 128          | bank 0 × 2        | 1 | 3  |
//! | 128 | 0                      | 0               | bank 0 × 1        | 0 | 0  |
//!
//! The copy `sdata[tid] = g_idata[i]` (one word per bank) and the final read `sdata[0]`
//! cost 0: **87** for warp 0. (Warp 1, `tid = 32 … 63`, is active only for `s = 1, 2`:
//! 3 + 9 = 12; the later warps likewise less.) Rounds `s ≤ 4` have no else lanes (L:IFLANES
//! with only its then child: SC:IFT), rounds `8 ≤ s ≤ 64` split the warp (then child over
//! `tid < 128/s`, the else child `skip` over the rest), and round 128's single lane costs
//! 0, which L:IFD proves. The lock-step semantics (`run_warp`, tests/common::warp_cost)
//! confirms 87 for warp 0 and 12 for warp 1.

mod common;

use common::answer::exact_both;
use common::mutants::{drop_list, kernel_refuses, nth_at, without_subtree_at};
use common::{racuda_kernel, warp_cost};
use warpcert::core::ir::Program;
use warpcert::core::metric::{q, MetricName};
use warpcert::core::Launch;

fn reduce1() -> Option<(Program, Launch)> {
    racuda_kernel("lower_iflanes reduce1", "reduce1.cu", 256)
}

/// The hand count of the module docs (87), the certificate's shape (L:IFLANES for the
/// rounds `s = 1 … 64`, the bank counts `n` of the table), and the lock-step semantics.
#[test]
fn reduce1_conflicts_exact() {
    let Some((prog, launch)) = reduce1() else {
        return;
    };
    let lower = exact_both(
        "reduce1-conflicts",
        &prog,
        launch,
        MetricName::Conflicts,
        "87",
    );
    // no parameter hypothesis: the rounds do not depend on `n`
    assert!(lower.contains("(lower 0)\n"), "{lower}");
    assert_eq!(lower.matches("(L:IFLANES ").count(), 7, "{lower}");
    // rounds 8 … 64 split the warp: an else child (skip) beside the then child
    assert_eq!(lower.matches("(entail else ").count(), 4, "{lower}");
    // the fullest bank's words per round s = 1 … 64, two reads and a write each
    let counts: Vec<u32> = lower
        .match_indices("(L:SARRAY (n ")
        .map(|(i, p)| {
            let rest = &lower[i + p.len()..];
            rest[..rest.find(')').unwrap()].parse().unwrap()
        })
        .collect();
    assert_eq!(
        counts,
        [2, 2, 4, 4, 8, 8, 8, 8, 8, 8, 4, 4, 2, 2],
        "{lower}"
    );
    for params in [
        [("n", 512), ("blockIdx.x", 0)],
        [("n", 1), ("blockIdx.x", 0)],
    ] {
        assert_eq!(
            warp_cost(&prog, MetricName::Conflicts, &launch, [0, 0, 0], 0, &params),
            q(87),
            "warp 0 {params:?}"
        );
        assert_eq!(
            warp_cost(&prog, MetricName::Conflicts, &launch, [0, 0, 0], 1, &params),
            q(12),
            "warp 1 {params:?}"
        );
    }
}

/// Mutants of the L:IFLANES part of reduce1's lower certificate, each rejected with its
/// message.
#[test]
fn reduce1_iflanes_mutants_rejected() {
    let Some((prog, launch)) = reduce1() else {
        return;
    };
    let lower = exact_both("reduce1-mut", &prog, launch, MetricName::Conflicts, "87");
    let reject = |what: &str, text: String, msg: &str| kernel_refuses(what, &text, None, msg);
    // round s = 8 (the 4th L:IFLANES, the first that splits the warp): its then branch
    // runs on lanes 0 … 15 only, whose reads hit banks 0 and 16 with 8 words each; over
    // the whole warp (lanes 0 … 31, `16·tid`) the fullest bank would hold 16 words
    let round8 = nth_at(&lower, "(L:IFLANES ", 3);
    let read = round8 + nth_at(&lower[round8..], "(L:SARRAY (n 8)", 0);
    reject(
        "count of the whole warp in a split round",
        format!(
            "{}(L:SARRAY (n 16){}",
            &lower[..read],
            &lower[read + "(L:SARRAY (n 8)".len()..]
        ),
        "claimed access count 16 is above the named warp's count 8",
    );
    // the same round without its else child (the lanes 16 … 31 that skip)
    let skip = round8 + nth_at(&lower[round8..], "(L:SKIP ", 0);
    reject(
        "split round without its else child",
        without_subtree_at(&lower, skip),
        "expected 3 children, found 2",
    );
    // round s = 1 (every lane passes) without its then child
    let round1 = nth_at(&lower, "(L:IFLANES ", 0);
    let then = round1 + nth_at(&lower[round1..], "(L:WEAK ", 0);
    reject(
        "all-lane round without its then child",
        without_subtree_at(&lower, then),
        "expected 2 children, found 1",
    );
    // the then witnesses (`P ∧ e ⇒` the then branch's pre) dropped
    let with_then = "(entail then (ids 0 11)) ";
    assert!(lower[round8..].contains(with_then), "{lower}");
    let at = round8 + nth_at(&lower[round8..], with_then, 0);
    reject(
        "no then witnesses",
        format!("{}{}", &lower[..at], &lower[at + with_then.len()..]),
        "entail then: expected",
    );
    // a test whose right side is the parameter `n`: not one value known on every lane
    let test = "(if (bin < (var index) (int 256))";
    assert!(lower.contains(test), "{lower}");
    reject(
        "test against a parameter",
        lower.replacen(test, "(if (bin < (var index) (param n))", 1),
        "L:IFLANES: the test `(bin < (var index) (param n))` is not decided lane by lane: an operand has no exact linear entry",
    );
}

/// L:IFLANES in Coq (LowerCheck.v `DIfLanes`, iflanescoq19; spec/logic.md §4b "Lane
/// subsets"): `export-coq` writes reduce1's `conflicts` certificates, upper and lower, and
/// `coqc` accepts both (theorem closed under the global context). Mutants of the L:IFLANES
/// part of the lower export are refuted by the reflective check (`lcheck` computes
/// `false`); the reason of each, derived by hand, is in its comment. Skips (saying so)
/// without the corpus or `coqc`.
#[test]
fn coqc_accepts_iflanes_exports_and_refutes_mutants() {
    use common::answer::{exact_answer, loaded};
    use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
    use warpcert::analysis::AnalysisOptions;
    let Some((prog, launch)) = reduce1() else {
        return;
    };
    let m = MetricName::Conflicts;
    let l = loaded(prog, launch, m);
    let (rel, per_warp, upper, lower) =
        exact_answer(&l, m, &AnalysisOptions::default(), "reduce1-coq");
    assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", "87"));
    let export = |role: &str, text: &str| {
        warpcert::export::coq::export(text).unwrap_or_else(|e| panic!("reduce1 {role}: {e:?}"))
    };
    let (up, low) = (export("upper", &upper), export("lower", &lower));
    // the 7 rounds s = 1 … 64 (round 128 is L:IFD)
    assert_eq!(low.matches("(DIfLanes ").count(), 7, "{low}");
    // Mutants (warp 0, lanes tid = 0 … 31; round s: the then lanes are tid < 128/s).
    let round8 = nth_at(&low, "(DIfLanes ", 3);
    let mutants: Vec<(&str, String)> = vec![
        // a raised branch claim: round s = 8's first read `sdata[index]` claims 9 words in
        // the fullest bank; `lcheck` checks the then branch over its lanes tid = 0 … 15,
        // whose words 16·tid (+ base) fill two banks with 8 each, so `nw_ok` (8 < 9) is
        // false (over the whole warp it would count 16 and accept: the subset matters)
        ("iflanes_then_claim_9", {
            let tail = mutate_after(&low[round8..], "(DVwrite2 ", " 8%Z ", " 9%Z ");
            format!("{}{tail}", &low[..round8])
        }),
        // the comparison flipped, `index >= 256`: in round s = 1 (index = 2·tid ≤ 62) no lane
        // of the warp passes, so `lcheck` reads the else side, whose child is the printed
        // placeholder `DSkip` with the if's pre (10+ constraints) and whose witness list is
        // empty; `entails _ (_ :: _) [] = false`
        ("iflanes_test_ge", {
            let from = "(SIf (EBin OLt (OVar 5) (OConst (VInt 256%Z)))";
            assert_eq!(low.matches(from).count(), 1, "{low}");
            low.replacen(from, "(SIf (EBin OGe (OVar 5) (OConst (VInt 256%Z)))", 1)
        }),
        // round s = 8's then witnesses (`P ∧ e ⇒ P1`, its second list) dropped: the then
        // pre has constraints and `entails` needs one witness per constraint
        ("iflanes_then_witnesses_dropped", {
            let tail = drop_list(&low[round8..], 1);
            format!("{}{tail}", &low[..round8])
        }),
    ];
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the L:IFLANES exports are not checked");
        return;
    }
    let accepted = [
        ("reduce1_conflicts_upper", up.as_str()),
        ("reduce1_conflicts_lower", low.as_str()),
    ];
    let muts: Vec<(&str, &str)> = mutants.iter().map(|(n, t)| (*n, t.as_str())).collect();
    accepted_and_mutants_refuted("lower-iflanes", &accepted, &muts);
}
