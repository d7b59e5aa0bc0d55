//! Log atoms `⌊log2 L⌋⁺ = ⌊log2 max(1, ⌊L⌋)⌋` (spec/logic.md §1 "Log atoms", issue 15): the
//! halving loop of `tests/precision/halving.cu` gets a logarithmic bound in the floor form,
//! the kernel accepts its certificate and rejects mutants of its `(lhalve …)` rewrite, the
//! crate's and the kernel's values of a log atom agree with hand values (the Coq export of
//! the certificate: tests/coq_log.rs).

mod common;

use std::collections::BTreeMap;
use warpcert::core::assertion::linear::Lin;
use warpcert::core::assertion::poly::{log2_floor, Atom, Poly};
use warpcert::core::metric::{q, Q};
use warpcert::core::MetricName;

/// The halving kernel analysed in the floor form (the default) for one block of 32.
fn halving(metric: MetricName) -> warpcert::analysis::Analysis {
    common::precision_one_block("halving", metric)
}

/// Hand derivation (the comment of halving.cu): each round reads and writes
/// `out[threadIdx.x]`, 4 sectors each, and `for (s = n; s > 0; s >>= 1)` runs
/// `⌊log2 n⌋ + 1 = ⌊log2 2n⌋` rounds for `n ≥ 1`, none for `n ≤ 0`: `8·⌊log2 2n⌋⁺` sectors,
/// which is the bound (104 at n = 5000, where the linear bound was 40 000). The kernel
/// accepts the certificate and prints the same bound.
#[test]
fn halving_loop_gets_the_exact_log_bound() {
    let a = halving(MetricName::Sectors);
    assert_eq!(a.bound.to_bound_string(), "8*⌊log2(max(1, 2*n))⌋");
    let at = |n: i64| a.bound.eval(&BTreeMap::from([("n".to_string(), n)]));
    for (n, rounds) in [
        (-3, 0),
        (0, 0),
        (1, 1),
        (2, 2),
        (3, 2),
        (4, 3),
        (7, 3),
        (8, 4),
        (5000, 13),
    ] {
        assert_eq!(at(n), q(8 * rounds), "n = {n}");
    }
    let v = warpcert_kernel::check(&a.certificate).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(v.bound, "8*⌊log2(max(1, 2*n))⌋");
    assert!(a
        .certificate
        .contains("(lhalve (lin 0 (2 s)) (farkas (6 2)))"));
}

/// Mutants of the `(lhalve …)` rewrite are rejected, each with its message: a witness for
/// `s ≥ 1` instead of `2s ≥ 2` (multiplier 1), a form `4s` the potential does not have (the
/// atom `⌊log2 2s⌋⁺` stays, so the round's 8 sectors are not paid), and an integer rewrite
/// `ishift` on the log atom.
#[test]
fn lhalve_mutants_are_rejected() {
    let good = halving(MetricName::Sectors).certificate;
    let rw = "(lhalve (lin 0 (2 s)) (farkas (6 2)))";
    let cases = [
        (
            "(lhalve (lin 0 (2 s)) (farkas (6 1)))",
            "residual `-s + 1` is not constant",
        ),
        (
            "(lhalve (lin 0 (4 s)) (farkas (6 4)))",
            "difference has negative term `-8`",
        ),
        (
            "(ishift (log2 (lin 0 (2 s))) 1 (farkas (6 2)))",
            "has no integer rewrite",
        ),
    ];
    for (bad, msg) in cases {
        let text = good.replacen(rw, bad, 1);
        assert_ne!(text, good);
        let r = warpcert_kernel::check(&text).expect_err(bad);
        assert!(r.to_string().contains(msg), "{bad}: {r}");
    }
}

/// Hand values of `⌊log2 max(1, ⌊v⌋)⌋`: 0 for v < 2 (negative values too), 1 on [2, 4),
/// 2 on [4, 8), 12 at 5000 (2^12 = 4096 ≤ 5000 < 8192), 1 at 7/2 (⌊7/2⌋ = 3); the crate's
/// and the kernel's functions agree, and a constant log atom is its value.
#[test]
fn log_atoms_evaluate_to_hand_values() {
    let cases = [
        (q(-7), 0),
        (q(0), 0),
        (q(1), 0),
        (q(2), 1),
        (q(3), 1),
        (q(4), 2),
        (q(7), 2),
        (q(8), 3),
        (q(5000), 12),
        (Q::new(7.into(), 2.into()), 1),
        (Q::new(3.into(), 2.into()), 0),
    ];
    for (v, want) in cases {
        assert_eq!(log2_floor(&v), q(want), "{v}");
        assert_eq!(
            warpcert_kernel::arith::log2_floor(&v.clone().into()),
            want.into(),
            "{v}"
        );
    }
    let mut p = Poly::zero();
    p.add_raw_term(&[Atom::Log(Lin::constant(q(9)).into())], q(5));
    assert_eq!(p.to_bound_string(), "15");
}
