//! Q:IFALIGN (spec/logic.md §4, issue 15): a divergent `if` whose test can split a warp only
//! when a uniform form is off a residue class, charged `M^div·[m ∤ s − X]` (a residue atom,
//! spec/logic.md §1) instead of `M^div`.

use super::nosplit::never_splits;
use super::stmt::{cond_stmt, if4, test_form, thread_k, while_parts, whilelast};
use super::{Ctx, Subject};
use crate::arith::{Atom, Dep, DepMap, Lin, Poly, Rat};
use crate::syntax::{Assn, Node};
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

/// The local class `(ρ, G)` and the uniform part `X` of the test form `l` under `d`
/// (spec/logic.md §4, Q:IFALIGN): from `(c_L, 0)`, a local term `a·v` with the linear entry
/// `(k_v, r_v, g_v)`, `k_v ≠ 0`, gives `ρ ← ρ + a·r_v`, `G ← gcd(G, a·g_v)`; `threadIdx.*`
/// terms give nothing; `X = ρ + Σ a_u·u` over the parameter terms and the local terms
/// whose entry is uniform (`k_u = 0`). Every active thread has
/// `L(t) = K·tid(t) + c` with one integer `c ≡ X (mod G)`. Errors: a non-integer
/// coefficient or constant of `l`, or a local of `l` without a linear entry.
pub fn local_class(cx: &Ctx, d: &DepMap, l: &Lin) -> Result<(Lin, BigInt), Rejection> {
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

/// The divergence charge `[m ∤ s − X]` of Q:IFALIGN for the test `e` under `d` with the
/// node's residue class `(s, m)` (`(class S M)`, spec/logic.md §4): the residue atom as a
/// polynomial (`M^div` is applied by the caller). The class is checked, not searched:
/// `m ≥ 1`, `m | G` (every `m` when `G = 0`), and Q:WHILEWARP's window check
/// ([`never_splits`]) passes with the class `(s, m)`. Errors: the test is not one
/// inequality of linear operands with a negation, a local of its form has no linear entry,
/// or the class fails one of the three conditions ([`Reason::BadResidueClass`]).
pub fn align_charge(
    cx: &Ctx,
    d: &DepMap,
    e: &crate::syntax::Expr,
    (s, m): &(BigInt, BigInt),
) -> Result<Poly, Rejection> {
    let l = test_form(cx, e)?;
    let k = thread_k(cx, d, &l)?;
    let (x, g) = local_class(cx, d, &l)?;
    let bad = |why| cx.rej(Reason::BadResidueClass { test: e.to_string(), class: (s.clone(), m.clone()), why });
    if !m.is_positive() {
        return Err(bad("M < 1"));
    }
    if !g.is_zero() && !g.is_multiple_of(m) {
        return Err(bad("M does not divide the local class's modulus G"));
    }
    if !never_splits(cx, &k, s, m)? {
        return Err(bad("a warp's window meets the class (Q:WHILEWARP's window check fails)"));
    }
    let form = Lin::constant(Rat::from_integer(s.clone())).add_scaled(&x, &-Rat::one());
    let mut p = Poly::zero();
    p.add_term(Rat::one(), vec![Atom::Res(form, m.clone())]);
    Ok(p)
}

/// Q:IFALIGN — `if e then s1 else s2`, possibly divergent, charged only off the residue class
/// `(class S M)` of the node (spec/logic.md §4): every premise of Q:IF4 with
/// `Qn = Q + M^if + C + M^div·[m ∤ s − X]` ([`align_charge`]).
pub fn q_ifalign(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (e, _, _) = cond_stmt(cx, s)?;
    let class = n.class.as_deref().ok_or_else(|| cx.rej(Reason::MissingField("class")))?;
    let charge = Poly::zero().add_scaled(&align_charge(cx, &pre.d, e, class)?, &cx.m.div);
    if4(cx, n, s, pre, &charge, "then pre + M^if + C + M^div·[m ∤ s − X]", &["class"])
}

/// Q:WHILELASTALIGN — Q:WHILELAST whose one-time `M^div` is charged only off the residue
/// class `(class S M)` of the node (spec/logic.md §4): every premise of Q:WHILELAST with
/// `pre = (P, D, I + M^if + C + M^div·[m ∤ s − X])`, the class checked on the loop test
/// under the loop's `D` ([`align_charge`]), and no variable of the uniform part `X` written
/// by the body, so that `X` keeps its entry value at every test. Errors: those of
/// [`align_charge`] and Q:WHILELAST's, and [`Reason::UniformPartWritten`].
pub fn q_whilelastalign(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (e, body) = while_parts(cx, s)?;
    let class = n.class.as_deref().ok_or_else(|| cx.rej(Reason::MissingField("class")))?;
    let charge = Poly::zero().add_scaled(&align_charge(cx, &pre.d, e, class)?, &cx.m.div);
    let (x, _) = local_class(cx, &pre.d, &test_form(cx, e)?)?;
    let writes = body.writes();
    if let Some(v) = x.terms.keys().find(|v| writes.contains(v)) {
        return Err(cx.rej(Reason::UniformPartWritten { var: v.clone(), test: e.to_string() }));
    }
    whilelast(cx, n, s, pre, &charge, "body pre + M^if + C + M^div·[m ∤ s − X]", &["class"])
}

/// Q:WHILELASTWINDOW — Q:WHILELAST whose one-time `M^div` is charged only when the uniform
/// part of the test can reach a split window (spec/logic.md §4): with `(n M)` the node's
/// modulus, `X` the uniform part and `G` the local modulus of the test form `L` under the
/// loop's `D` ([`local_class`]), `K` its thread coefficients and `[a, b]` the hull of the
/// warps' split windows ([`super::nosplit::window_hull`]), every premise of Q:WHILELAST with
/// `pre = (P, D, I + M^if + C + M^div·[(b − X) mod M < b − a + 1])` (a window atom,
/// spec/logic.md §1). Side conditions: `M ≥ 1`, `M | G` (every `M` when `G = 0`), some warp
/// has a window, and no variable of `X` is written by the body. Errors: those of
/// Q:WHILELAST, [`Reason::BadResidueClass`] (class `(0, M)`) and
/// [`Reason::UniformPartWritten`].
pub fn q_whilelastwindow(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (e, body) = while_parts(cx, s)?;
    let m = n.n.clone().ok_or_else(|| cx.rej(Reason::MissingField("n")))?;
    let l = test_form(cx, e)?;
    let k = thread_k(cx, &pre.d, &l)?;
    let (x, g) = local_class(cx, &pre.d, &l)?;
    let bad = |why| cx.rej(Reason::BadResidueClass { test: e.to_string(), class: (BigInt::zero(), m.clone()), why });
    if !m.is_positive() {
        return Err(bad("M < 1"));
    }
    if !g.is_zero() && !g.is_multiple_of(&m) {
        return Err(bad("M does not divide the local class's modulus G"));
    }
    let Some((a, b)) = super::nosplit::window_hull(cx, &k)? else {
        return Err(bad("no warp has a split window (K not integer or constant on every warp)"));
    };
    let writes = body.writes();
    if let Some(v) = x.terms.keys().find(|v| writes.contains(v)) {
        return Err(cx.rej(Reason::UniformPartWritten { var: v.clone(), test: e.to_string() }));
    }
    // [(b − X) mod M < b − a + 1]
    let form = Lin::constant(Rat::from_integer(b.clone())).add_scaled(&x, &-Rat::one());
    let mut charge = Poly::zero();
    charge.add_term(cx.m.div.clone(), vec![Atom::Win(form, m, &b - &a + BigInt::one())]);
    whilelast(cx, n, s, pre, &charge, "body pre + M^if + C + M^div·[(b − X) mod M < b − a + 1]", &["n"])
}
