//! Q:CASE and Q:WHILENONE (spec/logic.md §4a, issue 15): `for_return` / `while_return`
//! `divwarps` is split on the sign of `n` at the root; under `n ≤ 0` the guard loop is
//! Q:WHILENONE, which keeps the jump flag's entry, so the flag test after the loop is
//! uniform and charged 0. The kernel rejects mutants at the new rules, naming them; `coqc`
//! checks the export (`DCase`, `DWhileNone`). The hand-derived truth (0 at `n ≤ 0`, `3n`
//! for `1 ≤ n ≤ 31`, 94 beyond) is confirmed by lock-step runs in
//! tests/whileguard.rs (`return_loops_divwarps_hand_derivation_and_bound`).

mod common;

use common::coq::{accepted_and_mutants_refuted, coqc_available};
use common::warp32::analyse;
use std::collections::BTreeMap;
use warpcert::core::metric::Q;
use warpcert::core::MetricName;

fn src(name: &str) -> String {
    let path = format!("{}/tests/precision/{name}.cu", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The hand-derived worst `divwarps` of one warp (tests/precision/for_return.cu's comment):
/// 0 for `n ≤ 0` (no round runs, every lane keeps `jmp0 = 0`), `3n` for `1 ≤ n ≤ 31`.
fn hand(n: i64) -> i64 {
    if n <= 0 {
        0
    } else {
        3 * n
    }
}

/// Both return loops: the certificate uses Q:CASE and Q:WHILENONE, the kernel accepts it,
/// and the bound is the hand count `3·max(0, n)` at every `n ≤ 31` (before: `1 + 2·max(0,
/// n) + max(0, n − 1)`, 1 at `n = 0`); the lock-step run with every lane passing (no
/// return) costs 0 at `n ≤ 0`.
#[test]
fn return_loops_divwarps_are_exact_up_to_31() {
    for name in ["for_return", "while_return"] {
        let s = src(name);
        let (cert, bound) = analyse(&s, MetricName::Divwarps);
        assert!(cert.contains("(Q:CASE "), "{name}: no Q:CASE");
        assert!(cert.contains("(Q:WHILENONE "), "{name}: no Q:WHILENONE");
        warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("{name} rejected: {r:?}"));
        for n in [-3i64, -1, 0, 1, 2, 5, 17, 31] {
            let at = BTreeMap::from([("n".to_string(), n)]);
            assert_eq!(
                bound.eval(&at),
                Q::from_integer(hand(n).into()),
                "{name}: bound at n = {n}"
            );
        }
        for n in [-2i64, 0] {
            let run = common::warp32::simulated(&s, MetricName::Divwarps, n, None, 32 * 24);
            assert_eq!(
                run,
                Q::from_integer(0.into()),
                "{name}: lock-step at n = {n}"
            );
        }
    }
}

/// `s` with the first occurrence of `from` replaced by `to` (which must occur).
fn mutate(s: &str, from: &str, to: &str) -> String {
    assert!(s.contains(from), "`{from}` not in the certificate");
    s.replacen(from, to, 1)
}

/// Kernel mutants of for_return's `divwarps` certificate, each rejected at the new rule
/// with its message: the else case's shift removed (the pre `3·max0(n)` no longer covers
/// `2·max0(n) + max0(n − 1) + 1` coefficient-wise), the shift made a `mono` (an
/// inequality: not allowed on the smaller side), Q:WHILENONE's witness of
/// `P ⇒ cond(¬E)` (`n − i ≤ 0` from `n ≤ 0` and `i = 0`) cut to one term, and its
/// witness list dropped.
#[test]
fn case_and_whilenone_mutants_are_rejected_by_message() {
    let (cert, _) = analyse(&src("for_return"), MetricName::Divwarps);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    let rejected = |mutant: &str, rule: &str, msg: &str| {
        let r = warpcert_kernel::check(mutant).expect_err(msg);
        assert_eq!(r.rule, rule, "{msg}: rejected elsewhere: {r:?}");
        assert!(
            r.to_string().contains(msg),
            "{msg}: rejected for another reason: {r}"
        );
    };
    let shift = "(rewrite else (shift (lin 0 (1 n)) 1 (farkas (6 1))))";
    rejected(
        &mutate(&cert, &format!(" {shift}"), ""),
        "Q:CASE",
        "rewrite else: difference has negative term",
    );
    rejected(
        &mutate(
            &cert,
            shift,
            "(rewrite else (mono (lin 0 (1 n)) (lin -1 (1 n)) (farkas)))",
        ),
        "Q:CASE",
        "rewrite else: mono/imono is an inequality",
    );
    rejected(
        &mutate(
            &cert,
            "(entail none (farkas (6 1) (7 -1)))",
            "(entail none (farkas (6 1)))",
        ),
        "Q:WHILENONE",
        "entail none witness 0",
    );
    rejected(
        &mutate(&cert, " (entail none (farkas (6 1) (7 -1)))", ""),
        "Q:WHILENONE",
        "none",
    );
    // the guard's write `g0 ← i <= n`: under `n ≤ 0`, `i = 0` some thread may enter
    // (`n = 0`), and cond(¬E) = `n − i + 1 ≤ 0` does not follow
    rejected(
        &mutate(
            &cert,
            "(assign g0 (bin < (var i) (param n)))",
            "(assign g0 (bin <= (var i) (param n)))",
        ),
        "Q:WHILENONE",
        "entail none witness 0",
    );
}

/// The export of both certificates (`DCase`, `DWhileNone`) is accepted by `coqc`; two Coq
/// mutants fail the reflective check: `DCase`'s else rewrites emptied, and `DWhileNone`'s
/// witnesses of `P ⇒ cond(¬E)` emptied. Skips, saying so, without `coqc`.
#[test]
fn case_certificates_check_in_coq_and_mutants_fail() {
    let mut texts = Vec::new();
    for name in ["for_return", "while_return"] {
        let (cert, _) = analyse(&src(name), MetricName::Divwarps);
        let v = warpcert::export::coq::export(&cert).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            v.contains("(DCase ") || v.contains("DCase "),
            "{name}: no DCase"
        );
        assert!(v.contains("DWhileNone "), "{name}: no DWhileNone");
        texts.push((format!("case_{name}"), v));
    }
    let orig = texts[0].1.clone();
    let shift_rw = orig
        .find("DCase ")
        .and_then(|i| orig[i..].find("[RShift").map(|j| i + j))
        .expect("DCase's else rewrites");
    let end = shift_rw + common::balanced_end(&orig[shift_rw..], '[', ']').expect("a closed list");
    let no_rf = format!("{}[]{}", &orig[..shift_rw], &orig[end..]);
    let wn = orig.find("DWhileNone ").expect("DWhileNone");
    let wopen = wn + orig[wn..].find('[').expect("its witnesses");
    let wclose = wopen + common::balanced_end(&orig[wopen..], '[', ']').expect("a closed list");
    let no_ws = format!("{}[]{}", &orig[..wopen], &orig[wclose..]);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "case",
        &texts
            .iter()
            .map(|(n, t)| (n.as_str(), t))
            .collect::<Vec<_>>(),
        &[("case_no_rf", &no_rf), ("case_no_ws", &no_ws)],
    );
}
