//! Q:IFALIGN (spec/logic.md §4, issue 15): a divergent `if` whose test can split a warp only
//! when a uniform form is off a residue class, charged `M^div·[m ∤ s − X]` (a residue atom,
//! spec/logic.md §1) instead of `M^div`.

use super::nosplit::never_splits;
use super::stmt::{cond_stmt, if4, test_form, thread_k};
use super::{Ctx, Subject};
use crate::arith::{Atom, Dep, Lin, Poly, Rat};
use crate::syntax::{Assn, Node};
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Zero};
use std::collections::BTreeMap;

/// Largest modulus `m` the residue class search tries (spec/logic.md §4, Q:IFALIGN).
pub const RESIDUE_MODULUS_LIMIT: u32 = 4096;

/// The local class `(ρ, G)` and the uniform part `X` of the test form `l` under `d`
/// (spec/logic.md §4, Q:IFALIGN): from `(c_L, 0)`, a local term `a·v` with the linear entry
/// `(k_v, r_v, g_v)`, `k_v ≠ 0`, gives `ρ ← ρ + a·r_v`, `G ← gcd(G, a·g_v)`; `threadIdx.*`
/// terms give nothing; `X = ρ + Σ a_u·u` over the parameter terms and the local terms
/// whose entry is uniform (`k_u = 0`). Every active thread has
/// `L(t) = K·tid(t) + c` with one integer `c ≡ X (mod G)`. Errors: a non-integer
/// coefficient or constant of `l`, or a local of `l` without a linear entry.
pub fn local_class(cx: &Ctx, d: &BTreeMap<String, Dep>, l: &Lin) -> Result<(Lin, BigInt), Rejection> {
    let int = |q: &Rat| {
        if q.is_integer() {
            Ok(q.to_integer())
        } else {
            Err(cx.rej(Reason::NoCondition(l.to_string())))
        }
    };
    let (mut x, mut g) = (Lin::constant(Rat::from_integer(int(&l.c)?)), BigInt::zero());
    for (v, a) in &l.terms {
        let a = int(a)?;
        if super::TIDS.contains(&v.as_str()) {
            continue;
        }
        // a parameter, or a local uniform under `d` (one value on every active thread)
        if cx.prog.param(v).is_some() || d.get(v).is_some_and(Dep::uniform) {
            x.add_term(v, &Rat::from_integer(a));
        } else {
            let e = d.get(v).filter(|e| e.linear()).ok_or_else(|| cx.rej(Reason::NoLinearEntry(v.clone())))?;
            x.c += Rat::from_integer(&a * &e.r);
            g = g.gcd(&(&a * &e.g));
        }
    }
    Ok((x, g))
}

/// The residue class `(s, m)` of Q:IFALIGN (spec/logic.md §4): the least `m` in
/// `1 …` [`RESIDUE_MODULUS_LIMIT`] with `m | g` (every `m` when `g = 0`) for which some
/// `s ∈ [0, m)` passes Q:WHILEWARP's window check with the class `(s, m)`, and the least
/// such `s`; `None` when there is none. Errors: those of the window check.
pub fn residue_class(cx: &Ctx, k: &[Rat; 3], g: &BigInt) -> Result<Option<(BigInt, BigInt)>, Rejection> {
    for m in 1..=RESIDUE_MODULUS_LIMIT {
        let m = BigInt::from(m);
        if !g.is_zero() && !g.is_multiple_of(&m) {
            continue;
        }
        let mut s = BigInt::zero();
        while s < m {
            if never_splits(cx, k, &s, &m)? {
                return Ok(Some((s, m)));
            }
            s += BigInt::one();
        }
    }
    Ok(None)
}

/// The divergence charge `[m ∤ s − X]` of Q:IFALIGN for the test `e` under `d`
/// (spec/logic.md §4): the residue atom as a polynomial (`M^div` is applied by the caller).
/// Errors: the test is not one inequality of linear operands with a negation, a local of
/// its form has no linear entry, or no residue class exists ([`Reason::NoResidueClass`]).
pub fn align_charge(cx: &Ctx, d: &BTreeMap<String, Dep>, e: &crate::syntax::Expr) -> Result<Poly, Rejection> {
    let l = test_form(cx, e)?;
    let k = thread_k(cx, d, &l)?;
    let (x, g) = local_class(cx, d, &l)?;
    let (s, m) = residue_class(cx, &k, &g)?.ok_or_else(|| cx.rej(Reason::NoResidueClass(e.to_string())))?;
    let form = Lin::constant(Rat::from_integer(s)).add_scaled(&x, &-Rat::one());
    let mut p = Poly::zero();
    p.add_term(Rat::one(), vec![Atom::Res(form, m)]);
    Ok(p)
}

/// Q:IFALIGN — `if e then s1 else s2`, possibly divergent, charged only off a residue class
/// (spec/logic.md §4): every premise of Q:IF4 with `Qn = Q + M^if + C + M^div·[m ∤ s − X]`
/// ([`align_charge`]).
pub fn q_ifalign(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (e, _, _) = cond_stmt(cx, s)?;
    let charge = Poly::zero().add_scaled(&align_charge(cx, &pre.d, e)?, &cx.m.div);
    if4(cx, n, s, pre, &charge, "then pre + M^if + C + M^div·[m ∤ s − X]")
}
