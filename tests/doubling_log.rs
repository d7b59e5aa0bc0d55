//! Quotient log atoms `⌊log2 (L/M)⌋⁺` (spec/logic.md §1 "Quotient log atoms", issue 15):
//! the doubling loop of `tests/precision/doubling.cu` gets the exact logarithmic bound in
//! the floor form, the kernel accepts its certificate and rejects mutants of its
//! `(ldouble …)` rewrite (one per side condition, each with its message) (the Coq export of
//! the certificate: tests/coq_log.rs).

mod common;

use std::collections::BTreeMap;
use warpcert::core::metric::q;
use warpcert::core::MetricName;

/// The doubling kernel analysed in the floor form (the default) for one block of 32.
fn doubling(metric: MetricName) -> warpcert::analysis::Analysis {
    common::precision_one_block("doubling", metric)
}

/// Hand derivation (the comment of doubling.cu): `for (i = 1; i < n; i *= 2)` runs once per
/// `i = 1, 2, 4, … < n`, i.e. `⌈log2 n⌉` rounds for `n ≥ 1` (none for `n ≤ 1`), each
/// writing `out[threadIdx.x]` (4 sectors). `⌈log2 n⌉ = ⌊log2 (2n − 2)⌋` for `n ≥ 2`, so the
/// bound `4·⌊log2 (2n − 2)⌋⁺` is the truth: 52 at n = 5000 (13 rounds; the linear bound
/// was 4·4999 = 19 996). The kernel accepts the certificate and prints the same bound; the
/// loop's invariant atom is `⌊log2 ((2n − 2)/i)⌋⁺` and the body's entry splits it with
/// `ldouble` (witnesses: source 6 is `1 − i ≤ 0`, source 7 the condition `i − n + 1 ≤ 0`).
#[test]
fn doubling_loop_gets_the_exact_log_bound() {
    let a = doubling(MetricName::Sectors);
    assert_eq!(a.bound.to_bound_string(), "4*⌊log2(max(1, 2*n - 2))⌋");
    let at = |n: i64| a.bound.eval(&BTreeMap::from([("n".to_string(), n)]));
    for (n, rounds) in [
        (-3, 0),
        (0, 0),
        (1, 0),
        (2, 1),
        (3, 2),
        (4, 2),
        (5, 3),
        (8, 3),
        (9, 4),
        (4096, 12),
        (4097, 13),
        (5000, 13),
    ] {
        assert_eq!(at(n), q(4 * rounds), "n = {n}");
    }
    let v = warpcert_kernel::check(&a.certificate).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(v.bound, "4*⌊log2(max(1, 2*n - 2))⌋");
    assert!(a.certificate.contains(LDOUBLE), "{}", a.certificate);
    assert!(a
        .certificate
        .contains("(4 (log2q (lin -2 (2 n)) (lin 0 (1 i))))"));
}

const LDOUBLE: &str = "(ldouble (lin -2 (2 n)) (lin 0 (1 i)) (farkas (6 1)) (farkas (7 2)))";

/// Mutants of the `(ldouble …)` rewrite are rejected, one per side condition, each with its
/// message: no witness for `M ≥ 1` (the empty combination leaves `1 − i`), a witness for
/// `i ≤ n − 1` instead of `2i ≤ 2n − 2` (multiplier 1), a divisor form `i/2` with a
/// non-integer coefficient (`⌊2M⌋ = 2⌊M⌋` needs an integral `M`), and a form the potential
/// does not have (`2n/i`: the atom stays, so the round's 4 sectors are not paid).
#[test]
fn ldouble_mutants_are_rejected() {
    let good = doubling(MetricName::Sectors).certificate;
    let cases = [
        (
            "(ldouble (lin -2 (2 n)) (lin 0 (1 i)) (farkas) (farkas (7 2)))",
            "-i + 1 <= 0",
        ),
        (
            "(ldouble (lin -2 (2 n)) (lin 0 (1 i)) (farkas (6 1)) (farkas (7 1)))",
            "2*i - 2*n + 2 <= 0",
        ),
        (
            "(ldouble (lin -2 (2 n)) (lin 0 (1/2 i)) (farkas (6 2)) (farkas (7 1)))",
            "has a non-integer coefficient",
        ),
        (
            "(ldouble (lin 0 (2 n)) (lin 0 (1 i)) (farkas (6 1)) (farkas (7 2)))",
            "difference has negative term",
        ),
    ];
    for (bad, msg) in cases {
        let text = good.replacen(LDOUBLE, bad, 1);
        assert_ne!(text, good);
        let r = warpcert_kernel::check(&text).expect_err(bad);
        assert!(r.to_string().contains(msg), "{bad}: {r}");
    }
}
