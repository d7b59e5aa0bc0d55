//! Entailment `P ⇒ c` between linear constraints with Farkas witnesses
//! (`spec/certificate.md`, `FARKAS`): syntactic matches first, then a small LP over the
//! multipliers, rationalized and verified exactly (RaCUDA §7 uses Presburger arithmetic;
//! warpcert only claims what a rational Farkas combination proves).

use super::linear::{CKind, Cstr, Lin};
use super::lp::{Lp, Rel};
use super::poly::LinExpr;
use crate::certificate::Farkas;
use crate::core::metric::Q;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeSet;

/// Exact check of a witness: `target − Σ λ_i·P_i` is a constant `≤ 0` (`le`) or `0` (`eq`,
/// eq sources only), `λ ≥ 0` on `le` sources, indices in range, no lane source; a lane
/// target `(mod L m S)` needs exactly `(I 1)` with `P_I = (mod L m S')`, `S' ⊆ S`.
pub fn check_farkas(p: &[Cstr], target: &Cstr, w: &Farkas) -> bool {
    if let CKind::Mod(m, rs) = &target.kind {
        return match w.0.as_slice() {
            [(i, l)] if l.is_one() => p.get(*i).is_some_and(|src| match &src.kind {
                CKind::Mod(m2, rs2) => {
                    m2 == m && src.lin == target.lin && rs2.iter().all(|r| rs.contains(r))
                }
                _ => false,
            }),
            _ => false,
        };
    }
    let mut rest = target.lin.clone();
    for (i, l) in &w.0 {
        let Some(src) = p.get(*i) else {
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
            .map(|i| Farkas(vec![(i, Q::one())]))
            .find(|w| check_farkas(p, target, w));
    }
    // the target itself (the common case of frame constraints)
    if let Some(i) = p.iter().position(|c| {
        !c.is_lane() && c.lin == target.lin && (c.kind == CKind::Eq || target.kind == CKind::Le)
    }) {
        return Some(Farkas(vec![(i, Q::one())]));
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
            let w = Farkas(vec![(i, k)]);
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
    let w = Farkas(
        idx.iter()
            .filter_map(|(i, v)| {
                let l = sol.get(*v)?.clone();
                (!l.is_zero()).then_some((*i, l))
            })
            .collect(),
    );
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
