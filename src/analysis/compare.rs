//! Comparison of a claimed potential with the analysis's (issue 19): `C ≥ B` pointwise,
//! justified as the kernel justifies Q:WEAK's `(rewrite pre …)` (spec/certificate.md): the
//! atoms of `C` that `B` does not have are replaced by `(mono …)` rewrites with atoms of
//! `B` (`max0(a) ≥ k·max0(b)` when the launch facts entail `a − k·b ≥ 0` and `a − k·b` is
//! a constant), then every coefficient of `C' − B` must be `≥ 0`.

use crate::analysis::entail::entails;
use crate::analysis::tpoly::{LinExpr, TPoly};
use crate::certificate::Rewrite;
use crate::core::assertion::linear::{Cstr, Lin};
use crate::core::assertion::poly::{Coef, Mono};
use crate::core::assertion::Poly;
use crate::core::metric::Q;
use num_traits::{Signed, Zero};
use std::collections::BTreeSet;

/// The claim `c` with each of its atoms that is not in `atoms` replaced, where possible,
/// by a proportional atom of `atoms` (largest factor first) through a `(mono …)` rewrite
/// whose side condition `p` entails. Returns the rewritten claim and the rewrites, in the
/// order the kernel applies them. Atoms without such a partner are kept.
pub fn align(c: &Poly, atoms: &BTreeSet<Lin>, p: &[Cstr]) -> (Poly, Vec<Rewrite>) {
    let mut out = c.clone();
    let mut rws = Vec::new();
    let own: BTreeSet<Lin> = c.max0_atoms().cloned().collect();
    for a in own.iter().filter(|a| !atoms.contains(*a)) {
        let mut best: Option<(Q, &Lin)> = None;
        for b in atoms {
            let Some(k) = ratio(a, b) else { continue };
            let diff = a.sub(&b.scale(&k));
            if diff.c.is_negative() || best.as_ref().is_some_and(|(bk, _)| *bk >= k) {
                continue;
            }
            best = Some((k, b));
        }
        let Some((k, b)) = best else { continue };
        let image = b.scale(&k);
        // P ⇒ a ≥ k·b: the target (le k·b − a) is the constant −diff ≤ 0
        let Some(w) = entails(p, &Cstr::le(image.sub(a))) else {
            continue;
        };
        out = out.mono(a, &image);
        rws.push(Rewrite::Mono(a.clone(), image, w));
    }
    (out, rws)
}

/// The LP constraints `C'(m) − B(m) ≥ 0` for every monomial `m` of the template bound `b`
/// (coefficients over LP variables) and of the aligned claim `C'` ([`align`] against the
/// template's atoms), each with a description.
pub fn target_constraints(b: &TPoly, claim: &Poly, p: &[Cstr]) -> Vec<(LinExpr, String)> {
    let atoms: BTreeSet<Lin> = b.max0_atoms().cloned().collect();
    let (c, _) = align(claim, &atoms, p);
    let monos: BTreeSet<&Mono> = b.terms.keys().chain(c.terms.keys()).collect();
    monos
        .into_iter()
        .map(|m| {
            let cc = c.terms.get(m).cloned().unwrap_or_else(Q::zero);
            let e = match b.terms.get(m) {
                Some(bc) => LinExpr::from_q(&cc).minus(bc),
                None => LinExpr::from_q(&cc),
            };
            (e, "the bound is below the claim".to_string())
        })
        .collect()
}

/// `k > 0` with `a.terms = k · b.terms` (same variables), if any.
fn ratio(a: &Lin, b: &Lin) -> Option<Q> {
    if a.terms.len() != b.terms.len() || a.terms.is_empty() {
        return None;
    }
    let mut k: Option<Q> = None;
    for (v, ca) in &a.terms {
        let cb = b.terms.get(v)?;
        if cb.is_zero() {
            return None;
        }
        let r = ca / cb;
        match &k {
            Some(k0) if *k0 != r => return None,
            _ => k = Some(r),
        }
    }
    k.filter(|k| k.is_positive())
}

/// The first monomial where `c` has a smaller coefficient than `b` (none: `c ≥ b`
/// coefficient-wise, the kernel's check after the rewrites).
pub fn first_deficit(c: &Poly, b: &Poly) -> Option<String> {
    for (m, cb) in &b.terms {
        let cc = c.terms.get(m).cloned().unwrap_or_else(Q::zero);
        if cc < *cb {
            let mut one = Poly::zero();
            one.add_term(m.clone(), Q::from_integer(1.into()));
            return Some(one.to_bound_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::metric::q;

    fn atom(c: i64, v: &str) -> Lin {
        Lin::var(v).plus_const(&q(c))
    }

    /// `3·max0(wA + 31) ≥ 3·max0(wA)`: `wA + 31 − wA = 31 ≥ 0` from no facts at all.
    #[test]
    fn a_shifted_atom_is_lowered_by_mono() {
        let mut c = Poly::zero();
        c.add_raw_term(&[atom(31, "wA")], q(3));
        let atoms = BTreeSet::from([Lin::var("wA")]);
        let (c2, rws) = align(&c, &atoms, &[]);
        assert_eq!(rws.len(), 1);
        let mut want = Poly::zero();
        want.add_raw_term(&[Lin::var("wA")], q(3));
        assert_eq!(c2, want);
        assert_eq!(first_deficit(&c2, &want), None);
        // the other way round (max0(wA) ≥ max0(wA + 31)) is not entailed
        let (_, rws) = align(&want, &BTreeSet::from([atom(31, "wA")]), &[]);
        assert!(rws.is_empty());
        assert!(first_deficit(&want, &c).is_some());
    }
}
