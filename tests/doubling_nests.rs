//! Doubling loops around halving loops (issue 12, the shape of NVIDIA's bitonic and merge
//! sorts): `for (s = 1; s < n; s <<= 1) { for (t = s; t > 0; t >>= 1) … }`. The outer
//! counter's `<<` is linear (spec/logic.md §2) and its geometric atom's `split` rewrite
//! (derive/loops_geo.rs, spec/certificate.md `RW`) pays each round's inner loop, whose
//! rounds grow with the counter, from one linear potential. Every bound is checked by the
//! kernel and compared with the lock-step semantics.

mod common;

use common::{certified, lower_1d, warp_cost};

use std::collections::BTreeMap;
use warpcert::analysis::Analysis;
use warpcert::core::metric::Q;
use warpcert::core::{Launch, MetricName, Program};

fn lower(src: &str, block: u32) -> (Program, Launch) {
    lower_1d("nest.cu", src, block)
}

fn at(a: &Analysis, n: i64) -> Q {
    a.bound.eval(&BTreeMap::from([("n".to_string(), n)]))
}

/// `⌊log2 v⌋ + 1`, the rounds of `for (t = v; t > 0; t >>= 1)` for `v ≥ 1`.
fn halvings(v: i64) -> i64 {
    64 - i64::from(v.leading_zeros())
}

/// Merge-sort shape: the inner loop starts from a copy of the doubling counter.
const COPY: &str = "__global__ void k(float *out, int n) {
  for (int s = 1; s < n; s <<= 1) {
    int t = s;
    for (; t > 0; t >>= 1) {
      out[threadIdx.x] = 1.0f;
    }
  }
}
";

/// Bitonic shape: the inner loop starts from half the counter (`t ← s / 2`, bounded by
/// `s − 1` through Q:VWRITE1's bounding substitution).
const HALF: &str = "__global__ void k(float *out, int n) {
  for (int s = 2; s < n; s <<= 1) {
    for (int t = s / 2; t > 0; t >>= 1) {
      out[threadIdx.x] = 1.0f;
    }
  }
}
";

/// `sectors` of [`COPY`] at block 32: each inner round stores 32 consecutive floats, 4
/// sectors; the outer loop runs for `s = 1, 2, 4, … < n`, the inner `halvings(s)` rounds
/// (hand derivation, confirmed by the lock-step semantics below). The bound is linear in
/// `n`: `Σ_s 4·halvings(s) ≤ Σ_s 4·s < 8·n`, where a potential that ignored the growth of
/// the inner loop could not pay it.
#[test]
fn doubling_around_halving_copy_is_bounded_linearly() {
    doubling_around_halving_is_linear(COPY, 1, halvings);
}

/// `sectors` of [`HALF`] at block 32: rounds `s = 2, 4, … < n`, inner `halvings(s / 2)`
/// rounds of 4 sectors (hand derivation, confirmed by the semantics).
#[test]
fn doubling_around_halving_half_is_bounded_linearly() {
    doubling_around_halving_is_linear(HALF, 2, |s| halvings(s / 2));
}

/// The checks of both doubling-around-halving tests on `src` at block 32: the certified
/// `sectors` bound is linear in `n`; at each sample `n` the lock-step semantics (warp 0)
/// equals the hand count `Σ 4·inner(s)` over the outer rounds `s = s0, 2·s0, 4·s0, … < n`
/// (4 sectors an inner round), and the bound lies between it and `8·max(1, n)`; the
/// `steps`, `conflicts` and `divwarps` bounds are certified and above the semantics.
fn doubling_around_halving_is_linear(src: &str, s0: i64, inner: impl Fn(i64) -> i64) {
    let (prog, launch) = lower(src, 32);
    let a = certified(&prog, &launch, MetricName::Sectors);
    assert!(a.bound.degree() <= 1, "bound {:?} is not linear", a.bound);
    for n in [0i64, 1, 2, 3, 4, 5, 8, 9, 17, 100, 1000] {
        let mut hand = 0;
        let mut s = s0;
        while s < n {
            hand += 4 * inner(s);
            s <<= 1;
        }
        let sim = warp_cost(
            &prog,
            MetricName::Sectors,
            &launch,
            [0, 0, 0],
            0,
            &[("n", n)],
        );
        assert_eq!(
            sim,
            Q::from_integer(hand.into()),
            "hand derivation at n = {n}"
        );
        let b = at(&a, n);
        assert!(b >= sim, "n = {n}: bound {b} < {sim}");
        assert!(
            b <= Q::from_integer((8 * n.max(1)).into()),
            "n = {n}: bound {b} above 8·n"
        );
    }
    for m in [
        MetricName::Steps,
        MetricName::Conflicts,
        MetricName::Divwarps,
    ] {
        let a = certified(&prog, &launch, m);
        for n in [0i64, 1, 2, 7, 64, 300] {
            let sim = warp_cost(&prog, m, &launch, [0, 0, 0], 0, &[("n", n)]);
            assert!(at(&a, n) >= sim, "{m} at n = {n}: {} < {sim}", at(&a, n));
        }
    }
}

/// The kernel rejects a `split` whose premise fails: `max0(n) = max0(n − s) + max0(s)` is
/// only an equality where `n ≥ s ≥ 0`. A certificate of [`COPY`] whose split `D` is made
/// larger than the atom (`n + 1` in place of the step) must be rejected.
#[test]
fn kernel_rejects_an_unjustified_split() {
    let (prog, launch) = lower(COPY, 32);
    let a = certified(&prog, &launch, MetricName::Sectors);
    let text = &a.certificate;
    let start = text
        .find("(split ")
        .expect("the certificate uses a split rewrite");
    // the split's LIN and D: the first two s-expressions after `(split `
    let rest = &text[start + 7..];
    let (lin, after) = sexp_prefix(rest);
    let (d, _) = sexp_prefix(after.trim_start());
    let bad = format!("(split {lin} {lin} ");
    let forged = text.replacen(&format!("(split {lin} {d} "), &bad, 1);
    assert_ne!(&forged, text, "the forged certificate differs");
    assert!(
        warpcert_kernel::check(&forged).is_err(),
        "a split by the whole atom with the original witnesses is rejected"
    );
}

/// The first balanced s-expression (or atom) of `s` and the rest.
fn sexp_prefix(s: &str) -> (&str, &str) {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return (&s[..=i], &s[i + 1..]);
                }
            }
            ' ' if depth == 0 => return (&s[..i], &s[i..]),
            _ => {}
        }
    }
    (s, "")
}

/// The `split` rewrite in Coq (`RSplit` of Logic.v, its soundness in `rw_rhs_sum` of
/// Soundness.v): the sectors certificate of [`COPY`] is exported, contains `RSplit` and is
/// accepted by `coqc` (`Print Assumptions`: closed); a mutant whose split subtracts the whole
/// atom (`D := LIN`, with the original witnesses) is rejected by the reflective check.
#[test]
fn split_rewrite_checks_in_coq_and_a_mutant_fails() {
    use common::coq::{accepted_and_mutants_refuted, coqc_available};
    let (prog, launch) = lower(COPY, 32);
    let a = certified(&prog, &launch, MetricName::Sectors);
    let e = warpcert::export::coq::export(&a.certificate).unwrap_or_else(|e| panic!("{e}"));
    let at = e
        .find("RSplit (")
        .expect("the export has an RSplit rewrite");
    let (lin, rest) = sexp_prefix(&e[at + 7..]);
    let (d, _) = sexp_prefix(rest.trim_start());
    let mutant = e.replacen(
        &format!("RSplit {lin} {d} "),
        &format!("RSplit {lin} {lin} "),
        1,
    );
    assert_ne!(mutant, e, "the mutant differs");
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "split",
        &[("copy_sectors", &e)],
        &[("copy_sectors_mutant", &mutant)],
    );
}
