//! Q:WHILEGUARD (spec/logic.md §4a, issue 15): a loop left by `break`/`return` is lowered to
//! `g ← E; while (g) { …; if jmp < 2 then { …; g ← E } else { g ← false; … } }`
//! (spec/lowering.md §6); the lanes entering the body satisfy `cond(E)`, so the body's
//! potential pays each round by the shift of the loop's ranking atom and no round is
//! prepaid. The kernel rejects the rule outside its premises; `coqc` checks its exports.

mod common;

use common::balanced_end;
use common::coq::{accepted_and_mutants_refuted, coqc_available};
use common::warp32::analyse;
use std::collections::BTreeMap;
use warpcert::core::metric::Q;
use warpcert::core::MetricName;

fn src(name: &str) -> String {
    let path = format!("{}/tests/precision/{name}.cu", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lock-step per-warp cost of `src` under `m` at `n`, with `in[b] = −1` (others 1).
fn simulated(src: &str, m: MetricName, n: i64, b: Option<usize>) -> Q {
    common::warp32::simulated(src, m, n, b, 32 * 24)
}

/// `s` with the last occurrence of `from` replaced by `to` (which must occur).
fn mutate_last(s: &str, from: &str, to: &str) -> String {
    let i = s
        .rfind(from)
        .unwrap_or_else(|| panic!("`{from}` not in the certificate"));
    format!("{}{}{}", &s[..i], to, &s[i + from.len()..])
}

/// `break_before`, `break_after` and `for_return` (tests/precision/) use Q:WHILEGUARD for
/// `sectors`; the kernel accepts the certificates; the bound covers the lock-step cost at
/// every tested `n` and break position, and equals the hand-derived truth of the files'
/// comments where no lane breaks: `8·max(0, n)` (break_before/after), `8·max(0, n) + 4`
/// (for_return) — no round prepaid (before Q:WHILEGUARD: `8 + 8·max(0, n)`, `12 + 8·max(0, n)`).
#[test]
fn loops_left_by_jumps_are_tight_with_whileguard() {
    for (name, extra) in [("break_before", 0), ("break_after", 0), ("for_return", 4)] {
        let s = src(name);
        let (cert, bound) = analyse(&s, MetricName::Sectors);
        assert!(
            cert.contains("(Q:WHILEGUARD "),
            "{name}: Q:WHILEGUARD not used"
        );
        warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("{name} rejected: {r:?}"));
        for n in [-1i64, 0, 1, 2, 5, 12] {
            let at = BTreeMap::from([("n".to_string(), n)]);
            let b = bound.eval(&at);
            let hand = Q::from_integer((8 * n.max(0) + extra).into());
            assert_eq!(b, hand, "{name}: bound at n = {n}");
            for brk in [None, Some(0), Some(33), Some(32 * 3 + 7)] {
                let t = simulated(&s, MetricName::Sectors, n, brk);
                assert!(
                    t <= b,
                    "{name}: unsound at n = {n}, break {brk:?}: {t} > {b}"
                );
                if brk.is_none() {
                    assert_eq!(t, hand, "{name}: hand derivation at n = {n}");
                }
            }
        }
    }
}

/// Issue 15 (guard15): Q:WHILEGUARD's body post `J` (the loop head's potential) owes the
/// round `I + k` only where a lane enters the body (`(rewrite guard …)` under `P ∧ GE`), so a
/// loop no lane enters is charged its last test `M^if + C` alone. Hand derivation of the
/// `divwarps` bound of the three loops left by `break` from the rules: each round charges
/// `M^div = 1` three times (the data `if`, Q:IF4; the jump-flag test, Q:IFGUARD4; the loop
/// test, `k = M^if + M^div + C` with `M^if = C = 0`), the last test `M^if + C = 0`, nothing
/// else splits: `3·max(0, n)` (before: `1 + 3·max(0, n)`, the round's `k` charged even at
/// `n = 0`). Issue 15 (exit15b): the guard `k < n` is uniform before the loop, so its first
/// test cannot split and Q:WHILEGUARD0 charges the first round without the `M^div` of `k`:
/// `2·max(0, n) + max(0, n − 1)`, i.e. `3n − 1` for `n ≥ 1`, the hand derivation of
/// break_loop.cu (the first and the last test never split, the `n − 1` between may). The
/// loops left by `return` (for_return, while_return) have in addition the
/// lowered `if` on the return flag after the loop, which Q:IF4 charges `M^div = 1` (some
/// lanes may have returned): `1 + 2·max(0, n) + max(0, n − 1)` (before: `1 + 3·max(0, n)`),
/// `3n` for `n ≥ 1`, the hand count for for_return (rounds `0 … n − 2` split three times,
/// the last one twice, the flag test after the loop once). At `n ≤ 0` no
/// lane enters any of the five loops: the lock-step cost of the executable semantics
/// (`warpcert run`) is 0 `divwarps` (the guard's write and the failed test run on the whole
/// warp), which the bound of every loop equals, and their `steps` bound equals the
/// lock-step cost there too: for the loops left by `return` since issue 15 (case17), whose
/// derivations split on `n ≤ 0` (Q:CASE) with the loop as Q:WHILENONE there, so the flag
/// test after it is uniform (before: the flag test's `M^div`, 1 more `divwarps` and 1
/// more step at `n ≤ 0`). Every bound covers the lock-step cost at every tested `n` and break position.
#[test]
fn a_loop_no_lane_enters_costs_its_last_test_alone() {
    let kernels = [
        ("break_loop", 0),
        ("break_before", 0),
        ("break_after", 0),
        ("for_return", 1),
        ("while_return", 1),
    ];
    for (name, after) in kernels {
        let s = src(name);
        for m in [MetricName::Divwarps, MetricName::Steps] {
            let (cert, bound) = analyse(&s, m);
            assert!(
                cert.contains("(Q:WHILEGUARD0 "),
                "{name} {m:?}: Q:WHILEGUARD0 not used"
            );
            warpcert_kernel::check(&cert)
                .unwrap_or_else(|r| panic!("{name} {m:?} rejected: {r:?}"));
            for n in [-1i64, 0] {
                let at = BTreeMap::from([("n".to_string(), n)]);
                let t = simulated(&s, m, n, None);
                let b = bound.eval(&at);
                if m == MetricName::Divwarps {
                    assert_eq!(
                        t,
                        Q::from_integer(0.into()),
                        "{name}: hand derivation at n = {n}"
                    );
                    assert_eq!(b, t, "{name}: divwarps bound at n = {n}");
                } else {
                    assert_eq!(b, t, "{name}: steps bound at n = {n}");
                }
            }
            for n in [1i64, 2, 5] {
                let at = BTreeMap::from([("n".to_string(), n)]);
                let b = bound.eval(&at);
                if m == MetricName::Divwarps {
                    let hand = Q::from_integer((after + 3 * n - 1).into());
                    assert_eq!(b, hand, "{name}: divwarps bound at n = {n}");
                }
                for brk in [None, Some(0), Some(33), Some(32 * 3 + 7)] {
                    let t = simulated(&s, m, n, brk);
                    assert!(
                        t <= b,
                        "{name} {m:?}: unsound at n = {n}, break {brk:?}: {t} > {b}"
                    );
                }
            }
        }
    }
}

/// The `(rewrite guard …)` list of break_before's `divwarps` Q:WHILEGUARD0 removed: the
/// body's post `J = 3·max(0, n − k)` no longer shows that it pays the round
/// `I + k = 3·max(0, n − k − 1) + 3` (the shift needs the guard's condition `k < n`), and the
/// kernel rejects the node with the list's name; likewise without `(rewrite entry …)` the
/// entry potential `J₀ = 2·max(0, n − k) + max(0, n − k − 1)` does not show `≥ I + M^if + C
/// = 3·max(0, n − k − 1) + 2`.
#[test]
fn whileguard_without_its_guard_rewrites_is_rejected() {
    let (cert, _) = analyse(&src("break_before"), MetricName::Divwarps);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    for list in ["guard", "entry"] {
        let mutant = strip_list(&cert, list);
        let r = warpcert_kernel::check(&mutant)
            .expect_err("a round paid without the guard's condition");
        assert_eq!(r.rule, "Q:WHILEGUARD0", "{r:?}");
        assert!(
            r.to_string()
                .contains(&format!("rewrite {list}: difference has negative term")),
            "rejected for another reason: {r}"
        );
    }
}

/// `cert` with the `(rewrite LIST …)` field of its Q:WHILEGUARD0 node removed.
fn strip_list(cert: &str, list: &str) -> String {
    let line = cert
        .lines()
        .find(|l| l.contains("(Q:WHILEGUARD0 "))
        .expect("a Q:WHILEGUARD0 node");
    let at = line
        .find(&format!("(rewrite {list} "))
        .expect("the rewrite list");
    let end = at + balanced_end(&line[at..], '(', ')').expect("a closed list");
    let stripped = line.replacen(&line[at..end], "", 1);
    cert.replacen(line, &stripped, 1)
}

/// Q:WHILEGUARD0 (spec/logic.md §4a, issue 15, exit15b): break_before's `divwarps` loop
/// (guard `k < n` uniform before the loop, a divergent `break` in the body). Hand
/// derivation from the rule: `J = 3·max(0, n − k)` pays the later rounds as under
/// Q:WHILEGUARD, and the entry potential `J₀ = 2·max(0, n − k) + max(0, n − k − 1)` the
/// first (`2 + 3·max(0, n − k − 1)` under `k < n`, no `M^div` for the first test): the bound
/// `2·max(0, n) + max(0, n − 1)`. Mutant: the rule renamed Q:WHILEGUARD, without its entry
/// list (whose pre must be `J + Q' + M^if + C`: rejected, the pre differs). The exported file checks in Coq
/// (`DWhileGuard0`), and with its entry
/// rewrites `r0` emptied the reflective check fails. Coq part skips without `coqc`.
#[test]
fn whileguard0_charges_the_first_round_no_split_and_mutants_are_rejected() {
    let (cert, bound) = analyse(&src("break_before"), MetricName::Divwarps);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    for n in [-1i64, 0, 1, 2, 5] {
        let b = bound.eval(&BTreeMap::from([("n".to_string(), n)]));
        let hand = if n <= 0 { 0 } else { 3 * n - 1 };
        assert_eq!(b, Q::from_integer(hand.into()), "bound at n = {n}");
    }
    let renamed = strip_list(&cert, "entry").replacen("(Q:WHILEGUARD0 ", "(Q:WHILEGUARD ", 1);
    let r = warpcert_kernel::check(&renamed).expect_err("J₀ accepted as J");
    assert_eq!(r.rule, "Q:WHILEGUARD", "{r:?}");
    assert!(
        r.to_string().contains("body post + post + M^if + C"),
        "rejected for another reason: {r}"
    );
    let v = warpcert::export::coq::export(&cert).unwrap_or_else(|e| panic!("export: {e}"));
    let line = v
        .lines()
        .find(|l| l.contains("(DWhileGuard0 "))
        .expect("a DWhileGuard0 node");
    // `rg` and `r0` are the same shifts: the last list of the line is `r0`
    let at = line.rfind(" [RShift").expect("entry rewrites");
    let no_r0 = v.replacen(line, &format!("{} []", &line[..at]), 1);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "whileguard0",
        &[("whileguard0_orig", &v)],
        &[("whileguard0_no_r0", &no_r0)],
    );
}

/// Mutants the kernel rejects: the guard's write in the body made `k <= n` (the body no
/// longer re-establishes `cond(E)` of the entry write: rejected at Q:WHILEGUARD);
/// Q:WHILEGUARD renamed Q:WHILEEXIT2 (its body's pre has the guard's condition, which
/// Q:WHILEEXIT2 does not give); the divergent loop's Q:WHILEGUARD renamed Q:WHILEGUARD1
/// (rejected at Q:WHILEGUARD1: its guard is not uniform / its body exits divergently); and
/// uniform_break's Q:WHILEGUARD1 renamed Q:WHILEEXIT1 (the body's pre has `GE`).
#[test]
fn whileguard_certificate_mutants_are_rejected() {
    let (cert, _) = analyse(&src("break_before"), MetricName::Sectors);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    let at_rule = |mutant: &str, rule: &str, what: &str| {
        let r = warpcert_kernel::check(mutant).expect_err(what);
        assert_eq!(r.rule, rule, "{what}: rejected elsewhere: {r:?}");
    };
    at_rule(
        &mutate_last(
            &cert,
            "(assign g0 (bin < (var k) (param n)))",
            "(assign g0 (bin <= (var k) (param n)))",
        ),
        "Q:WHILEGUARD",
        "a body that re-establishes another condition accepted",
    );
    at_rule(
        &cert.replacen("(Q:WHILEGUARD ", "(Q:WHILEEXIT2 ", 1),
        "Q:WHILEEXIT2",
        "the guard's condition in a Q:WHILEEXIT2 body accepted",
    );
    // break_before's loop is left by a divergent break: not the uniform mode
    at_rule(
        &cert.replacen("(Q:WHILEGUARD ", "(Q:WHILEGUARD1 ", 1),
        "Q:WHILEGUARD1",
        "the uniform mode of a divergent loop accepted",
    );
    // uniform_break's loop is uniform: Q:WHILEGUARD1 (issue 15, exit16); as Q:WHILEEXIT1
    // its body's pre has the guard's condition, which Q:WHILEEXIT1 does not give
    let (uni, _) = analyse(&src("uniform_break"), MetricName::Sectors);
    warpcert_kernel::check(&uni).expect("the uniform original is accepted");
    assert!(
        uni.contains("(Q:WHILEGUARD1 "),
        "uniform_break: Q:WHILEGUARD1 not used"
    );
    at_rule(
        &uni.replacen("(Q:WHILEGUARD1 ", "(Q:WHILEEXIT1 ", 1),
        "Q:WHILEEXIT1",
        "the guard's condition in a Q:WHILEEXIT1 body accepted",
    );
}

/// The certificates export to Coq (`DWhileGuard`, and `DAssoc` when statements follow the
/// loop: for_return) and `coqc` accepts them; Coq-level mutants of the `DWhileGuard` node
/// fail the reflective check: the guard's condition `GE` emptied (the body's pre is no
/// longer `P ++ GE`), and its guard rewrites `rg` emptied (the body's post no longer pays
/// the round under `P ++ GE`, issue 15, guard15). Skips, saying so, without `coqc`.
#[test]
fn whileguard_certificates_check_in_coq_and_a_mutant_fails() {
    let mut texts = Vec::new();
    for (name, m) in [
        ("break_before", MetricName::Sectors),
        ("for_return", MetricName::Sectors),
    ] {
        let (cert, _) = analyse(&src(name), m);
        let v = warpcert::export::coq::export(&cert).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(v.contains("(DWhileGuard "), "{name}");
        texts.push((format!("whileguard_{name}"), v));
    }
    assert!(texts[1].1.contains("(DAssoc "), "for_return: no DAssoc");
    let orig = &texts[0].1;
    let at = orig.find("(DWhileGuard ").unwrap();
    let open = at + orig[at..].find('[').unwrap();
    let close = open + balanced_end(&orig[open..], '[', ']').expect("a closed list");
    assert!(close > open + 2, "an empty GE");
    let mutant = format!("{}[]{}", &orig[..open], &orig[close..]);
    // the guard rewrites `rg`, the list after `GE` (issue 15, guard15), emptied
    let ropen = close + orig[close..].find('[').unwrap();
    let rclose = ropen + balanced_end(&orig[ropen..], '[', ']').expect("a closed list");
    assert!(rclose > ropen + 2, "an empty rg");
    let no_rg = format!("{}[]{}", &orig[..ropen], &orig[rclose..]);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "whileguard",
        &texts
            .iter()
            .map(|(n, t)| (n.as_str(), t))
            .collect::<Vec<_>>(),
        &[("whileguard_mutant", &mutant), ("whileguard_no_rg", &no_rg)],
    );
}

/// Q:FLAGEXIT (spec/logic.md §4a, issue 15): `while_return` (a `while` loop left by
/// `return`, its counter `i` updated in the branch that does not return) had no bound
/// (Q:IF4 joined the lanes that returned, so `i` lost its entry and no potential could
/// mention it). Its sectors certificate uses Q:FLAGEXIT, the kernel accepts it, and the
/// bound is the hand count of the file's comment, `8·max(0, n) + 4`, at every tested `n`;
/// it covers the lock-step cost for every break position. Mutants: the flag test made
/// `jmp0 < 4` (a lane that returned, `jmp0 = 3`, would pass it: the exit witness of the
/// Q:IFEXIT4 inside the flagged part fails), and Q:FLAGEXIT renamed Q:IFGUARD4 (about the
/// sequence, not an `if`).
#[test]
fn flagexit_while_return_is_tight_and_mutants_are_rejected() {
    let s = src("while_return");
    let (cert, bound) = analyse(&s, MetricName::Sectors);
    assert!(
        cert.contains("(Q:FLAGEXIT "),
        "while_return: Q:FLAGEXIT not used"
    );
    warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("while_return rejected: {r:?}"));
    for n in [-1i64, 0, 1, 2, 5, 12] {
        let at = BTreeMap::from([("n".to_string(), n)]);
        let b = bound.eval(&at);
        let hand = Q::from_integer((8 * n.max(0) + 4).into());
        assert_eq!(b, hand, "while_return: bound at n = {n}");
        for brk in [None, Some(0), Some(33), Some(32 * 3 + 7)] {
            let t = simulated(&s, MetricName::Sectors, n, brk);
            assert!(t <= b, "unsound at n = {n}, return {brk:?}: {t} > {b}");
            if brk.is_none() {
                assert_eq!(t, hand, "hand derivation at n = {n}");
            }
        }
    }
    let flag4 = cert.replacen(
        "(if (bin < (var jmp0) (int 2))",
        "(if (bin < (var jmp0) (int 4))",
        1,
    );
    assert_ne!(flag4, cert, "the flag test is not in the certificate");
    let r = warpcert_kernel::check(&flag4).expect_err("a flag test passed by returned lanes");
    assert_eq!(r.rule, "Q:IFEXIT4", "{r:?}");
    assert!(
        r.to_string().contains("entail exit witness 0"),
        "rejected for another reason: {r}"
    );
    let renamed = cert.replacen("(Q:FLAGEXIT ", "(Q:IFGUARD4 ", 1);
    let r = warpcert_kernel::check(&renamed).expect_err("Q:FLAGEXIT renamed Q:IFGUARD4");
    assert_eq!(r.rule, "Q:IFGUARD4", "{r:?}");
}

/// The lock-step staircase cost of `src` ([`common::warp32::staircase`]: lane `k < lanes`
/// reads a negative value in round `k` and returns there) with `in` of `32·48` cells.
fn staircase(src: &str, m: MetricName, n: i64, lanes: usize) -> Q {
    common::warp32::staircase(src, m, n, lanes, 32 * 48)
}

/// The worst `divwarps` of one warp of the loops left by `return` (for_return.cu,
/// while_return.cu), by hand from the lowered program (spec/lowering.md §6: `if t < 0 then
/// jmp0 ← 3 [else i ← i + 1]; if jmp0 < 2 then { …; g0 ← i < n } else g0 ← false`, then
/// `if jmp0 == 0` after the loop). The counter is the same on every lane that stays. In a
/// round, the exit `if` splits iff some but not all active lanes read a negative value;
/// then the flag test splits too, and the loop test unless the round is the last
/// (`i + 1 = n`: every lane fails `i < n`); a lane that returned stays out, so a split
/// needs two lanes and removes one: at most 31 rounds split. The flag test after the loop
/// splits iff some lane returned and some did not. So: `n ≤ 0`: 0 (no round runs, `jmp0`
/// stays 0 on every lane); `1 ≤ n ≤ 31`: at most `3(n − 1) + 2 + 1 = 3n`, reached when
/// lane `k` returns in round `k` for `k < n`; `n ≥ 32`: at most `3·31 + 1 = 94`, reached
/// when lanes `0 … 30` return in rounds `0 … 30` and lane 31 never (it keeps the loop test
/// of round 30 split and the flag test after the loop). Letting lane 31 return too (round
/// 31, alone: no split) ends with every lane at `jmp0 = 3`: `93`.
fn return_loop_divwarps(n: i64) -> i64 {
    match n {
        n if n <= 0 => 0,
        n if n <= 31 => 3 * n,
        _ => 94,
    }
}

/// Issue 15 (ret16): the hand-derived worst `divwarps` of for_return and while_return
/// ([`return_loop_divwarps`]) is reached by the lock-step semantics (the staircase inputs)
/// and never exceeded by it (single returns at other lanes and rounds, no return); the
/// certified bound covers it at every `n` and equals it for `n ≤ 31`: at `n ≤ 0` the
/// derivation is split on the sign of `n` (Q:CASE) and the loop no lane enters is
/// Q:WHILENONE, which keeps `jmp0`'s entry, so the flag test after it is uniform (issue 15,
/// case17; before: bound 1 at `n ≤ 0`, spec/logic.md §4a, Q:WHILEGUARD0 "Limits"); for
/// `n ≥ 32` it is `3n` against the saturated 94 (each split removes a lane for good),
/// asserted as it is (a tighter bound must update this test and the precision table
/// together).
#[test]
fn return_loops_divwarps_hand_derivation_and_bound() {
    for name in ["for_return", "while_return"] {
        let s = src(name);
        let (cert, bound) = analyse(&s, MetricName::Divwarps);
        warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("{name} rejected: {r:?}"));
        for n in [-3i64, -1, 0, 1, 2, 5, 17, 31, 32, 33, 40] {
            let hand = Q::from_integer(return_loop_divwarps(n).into());
            let lanes = if n >= 32 { 31 } else { n.max(0) as usize };
            let worst = staircase(&s, MetricName::Divwarps, n, lanes);
            assert_eq!(worst, hand, "{name}: hand derivation at n = {n}");
            let all = staircase(&s, MetricName::Divwarps, n, 32);
            assert!(
                all <= hand,
                "{name}: every lane returning exceeds the hand count at n = {n}"
            );
            if n >= 32 {
                assert_eq!(
                    all,
                    Q::from_integer(93.into()),
                    "{name}: lane 31 returning at n = {n}"
                );
            }
            for brk in [
                None,
                Some(0),
                Some(33),
                Some(32 * 3 + 7),
                Some(32 * 30 + 31),
            ] {
                let t = simulated(&s, MetricName::Divwarps, n, brk);
                assert!(
                    t <= hand,
                    "{name}: {t} > hand {hand} at n = {n}, return {brk:?}"
                );
            }
            let at = BTreeMap::from([("n".to_string(), n)]);
            let b = bound.eval(&at);
            assert!(b >= hand, "{name}: unsound at n = {n}: {b} < {hand}");
            let expected = match n {
                n if n <= 31 => hand.clone(),
                n => Q::from_integer((3 * n).into()),
            };
            assert_eq!(b, expected, "{name}: bound at n = {n}");
        }
    }
}
