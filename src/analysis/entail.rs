//! Entailment `P ⇒ c` between linear constraints with Farkas witnesses
//! (`spec/certificate.md`, `FARKAS`): syntactic matches first, then a small LP over the
//! multipliers, rationalized and verified exactly (RaCUDA §7 uses Presburger arithmetic;
//! warpcert only claims what a rational Farkas combination proves).

use super::lp::{Lp, Rel};
use super::tpoly::LinExpr;
use crate::certificate::Farkas;
use crate::core::assertion::linear::{CKind, Cstr, Lin};
use crate::core::metric::Q;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeSet;

/// Exact check of a witness: `target − Σ λ_i·P_i` is a constant `≤ 0` (`le`) or `0` (`eq`,
/// eq sources only), `λ ≥ 0` on `le` sources, indices in range, no lane source; a lane
/// target `(mod L m S)` needs exactly `(I 1)` with `P_I = (mod L m S')`, `S' ⊆ S`.
pub fn check_farkas(p: &[Cstr], target: &Cstr, w: &Farkas) -> bool {
    if let CKind::Mod(m, rs) = &target.kind {
        return match w.identity() {
            Some(i) => p.get(i).is_some_and(|src| match &src.kind {
                CKind::Mod(m2, rs2) => {
                    m2 == m && src.lin == target.lin && rs2.iter().all(|r| rs.contains(r))
                }
                _ => false,
            }),
            _ => false,
        };
    }
    let mut rest = target.lin.clone();
    for (i, l) in w.terms() {
        let Some(src) = p.get(i) else {
            return false;
        };
        match (&target.kind, &src.kind) {
            (_, CKind::Mod(..)) => return false,
            (CKind::Eq, CKind::Le) => return false,
            (_, CKind::Le) if l.is_negative() => return false,
            _ => {}
        }
        rest = rest.add_scaled(&src.lin, &-l.clone());
    }
    rest.is_const()
        && match target.kind {
            CKind::Le => !rest.c.is_positive(),
            CKind::Eq => rest.c.is_zero(),
            CKind::Mod(..) => false,
        }
}

fn ratio(a: &Lin, b: &Lin) -> Option<Q> {
    // k with a.terms = k·b.terms (k ≠ 0), if any
    if a.terms.len() != b.terms.len() || a.terms.is_empty() {
        return None;
    }
    let mut k: Option<Q> = None;
    for (v, x) in &a.terms {
        let y = b.terms.get(v)?;
        let r = x / y;
        match &k {
            None => k = Some(r),
            Some(k0) if *k0 == r => {}
            _ => return None,
        }
    }
    k
}

/// A witness for `P ⇒ target`, or `None` if none was found.
pub fn entails(p: &[Cstr], target: &Cstr) -> Option<Farkas> {
    if target.is_lane() {
        return (0..p.len())
            .map(Farkas::Id)
            .find(|w| check_farkas(p, target, w));
    }
    // the target itself (the common case of frame constraints)
    if let Some(i) = p.iter().position(|c| {
        !c.is_lane() && c.lin == target.lin && (c.kind == CKind::Eq || target.kind == CKind::Le)
    }) {
        return Some(Farkas::Id(i));
    }
    let empty = Farkas::default();
    if check_farkas(p, target, &empty) {
        return Some(empty);
    }
    for (i, src) in p.iter().enumerate() {
        if src.is_lane() {
            continue;
        }
        if let Some(k) = ratio(&target.lin, &src.lin) {
            let w = Farkas::Comb(Box::new(vec![(i, k)]));
            if check_farkas(p, target, &w) {
                return Some(w);
            }
        }
    }
    // every variable of the target must occur somewhere in P
    let pv: BTreeSet<&String> = p
        .iter()
        .filter(|c| !c.is_lane())
        .flat_map(|c| c.lin.vars())
        .collect();
    if target.lin.vars().any(|v| !pv.contains(v)) {
        return None;
    }
    lp_entails(p, target)
}

fn lp_entails(p: &[Cstr], target: &Cstr) -> Option<Farkas> {
    let mut lp = Lp::default();
    let mut idx = Vec::new();
    for (i, c) in p.iter().enumerate() {
        if c.is_lane() || (target.kind == CKind::Eq && c.kind == CKind::Le) {
            continue;
        }
        let v = lp.fresh(c.kind == CKind::Le);
        idx.push((i, v));
    }
    let vars: BTreeSet<&String> = p
        .iter()
        .flat_map(|c| c.lin.vars())
        .chain(target.lin.vars())
        .collect();
    for x in vars {
        // target_x − Σ λ_i P_i,x = 0
        let mut e = LinExpr {
            c: target.lin.coef(x),
            ..Default::default()
        };
        for (i, v) in &idx {
            let a = p[*i].lin.coef(x);
            if !a.is_zero() {
                e.v.insert(*v, -a);
            }
        }
        lp.add(e, Rel::Eq, "variable coefficient").ok()?;
    }
    // constant: Σ λ_i P_i,c − target_c ≥ 0 (le) or = 0 (eq)
    let mut e = LinExpr {
        c: -target.lin.c.clone(),
        ..Default::default()
    };
    for (i, v) in &idx {
        let a = p[*i].lin.c.clone();
        if !a.is_zero() {
            e.v.insert(*v, a);
        }
    }
    let rel = if target.kind == CKind::Le {
        Rel::Ge
    } else {
        Rel::Eq
    };
    lp.add(e, rel, "constant").ok()?;
    let mut obj = LinExpr::default();
    for (i, v) in &idx {
        if p[*i].kind == CKind::Le {
            obj.v.insert(*v, Q::one());
        }
    }
    let sol = lp.solve(&obj).ok()?;
    let w = Farkas::Comb(Box::new(
        idx.iter()
            .filter_map(|(i, v)| {
                let l = sol.get(*v)?.clone();
                (!l.is_zero()).then_some((*i, l))
            })
            .collect(),
    ));
    check_farkas(p, target, &w).then_some(w)
}

/// Witnesses for every constraint of `targets`, or `None` if one is not entailed.
pub fn entails_all(p: &[Cstr], targets: &[Cstr]) -> Option<Vec<Farkas>> {
    targets.iter().map(|t| entails(p, t)).collect()
}

/// The constraints of `a` entailed by `b`, then those of `b` entailed by `a` (without
/// duplicates): a list entailed by both (the join of two abstract states).
pub fn join_p(a: &[Cstr], b: &[Cstr]) -> Vec<Cstr> {
    let mut out: Vec<Cstr> = Vec::new();
    for c in a {
        if !out.contains(c) && entails(b, c).is_some() {
            out.push(c.clone());
        }
    }
    for c in b {
        if !out.contains(c) && entails(a, c).is_some() {
            out.push(c.clone());
        }
    }
    out
}

/// The constraints over `threadIdx.*` alone that follow from `p` by substituting the other
/// variables out through its equalities (Gaussian elimination) and that `p` does not list:
/// e.g. `index ≤ 255 ∧ index = 32·tid ∧ tid = threadIdx.x` gives `32·threadIdx.x − 255 ≤ 0`.
/// `N*` enumerates only the lanes satisfying the thread constraints of `P` (spec/logic.md
/// §2 "Access bounds"), so adding them (through a Q:WEAK, with the Farkas witnesses of
/// [`entails`]) can only lower access bounds. Lane constraints are not used.
pub fn thread_projection(p: &[Cstr]) -> Vec<Cstr> {
    let is_tid = |v: &str| v.starts_with("threadIdx.");
    let pick = |k: CKind| -> Vec<Lin> {
        p.iter()
            .filter(|c| c.kind == k)
            .map(|c| c.lin.clone())
            .collect()
    };
    let (mut eqs, mut les) = (pick(CKind::Eq), pick(CKind::Le));
    // each round removes one equality and one variable from the others: at most |eqs| rounds
    while let Some((i, v)) = eqs
        .iter()
        .enumerate()
        .find_map(|(i, l)| l.terms.keys().find(|v| !is_tid(v)).map(|v| (i, v.clone())))
    {
        let l = eqs.remove(i);
        let a = l.coef(&v);
        let mut rest = l;
        rest.terms.remove(&v);
        // l = a·v + rest = 0, so v = −rest / a
        let e = rest.scale(&(-Q::one() / a));
        for x in eqs.iter_mut().chain(les.iter_mut()) {
            *x = x.subst(&v, &e);
        }
    }
    let mut out: Vec<Cstr> = Vec::new();
    for c in les
        .into_iter()
        .map(Cstr::le)
        .chain(eqs.into_iter().map(Cstr::eq))
    {
        if c.only_tid() && !c.lin.is_const() && !p.contains(&c) && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lin(c: i64, terms: &[(&str, i64)]) -> Lin {
        let mut l = Lin::constant(Q::from_integer(c.into()));
        for (v, a) in terms {
            l = l.add(&Lin::var(v).scale(&Q::from_integer((*a).into())));
        }
        l
    }

    /// By hand: `index − 255 ≤ 0`, `index − 32·tid = 0`, `tid − threadIdx.x = 0` give
    /// `32·threadIdx.x − 255 ≤ 0`; `index − n ≤ 0` keeps the parameter `n` and gives nothing;
    /// a constraint already in `P` is not repeated; its witness exists (`entails`).
    #[test]
    fn thread_projection_substitutes_locals_through_equalities() {
        let p = vec![
            Cstr::le(lin(-255, &[("index", 1)])),
            Cstr::eq(lin(0, &[("index", 1), ("tid", -32)])),
            Cstr::eq(lin(0, &[("tid", 1), ("threadIdx.x", -1)])),
            Cstr::le(lin(0, &[("index", 1), ("n", -1)])),
            Cstr::le(lin(0, &[("threadIdx.x", -1)])),
        ];
        let want = Cstr::le(lin(-255, &[("threadIdx.x", 32)]));
        assert_eq!(thread_projection(&p), vec![want.clone()]);
        assert!(entails(&p, &want).is_some());
        let mut with_it = p.clone();
        with_it.push(want);
        assert!(thread_projection(&with_it).is_empty());
    }
}
