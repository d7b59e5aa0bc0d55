//! Q:CASE (a case split on a uniform linear condition) and Q:WHILENONE (a guard loop no
//! thread enters), spec/logic.md §4a (issue 15, `for_return` / `while_return` `divwarps`
//! at `n ≤ 0`).

use super::{uniform_form, Ctx, Subject, TIDS};
use crate::arith::{Cstr, Lin, Poly, Rat};
use crate::syntax::{Assn, Expr, Node, Opd, Stmt, Ty};
use crate::{Reason, Rejection};
use num_traits::{One, Zero};

/// Q:CASE — `s` derived twice: child `T` from `(P ++ [L ≤ 0], D, Q_T)`, child `F` from
/// `(P ++ [−L + 1 ≤ 0], D, Q_F)` (both ordinary), for a form `L` with integer coefficients
/// and constant that is uniform under `D` (its locals have linear entries, its thread
/// coefficients cancel). `(rewrite then …)` / `(rewrite else …)`: equality rewrites under
/// the child's `P`, applied to both the node's `Q` and the child's, whose difference must
/// have no negative coefficient. Post: `(entail join-then …)` `T.post.P ⇒ P'`,
/// `(entail join-else …)` `F.post.P ⇒ P'`, `T.post.D ⊒ D'`, `F.post.D ⊒ D'`, and
/// `T.post.Q`, `F.post.Q` coefficient-wise at least `Q'`. Errors: [`Reason::CaseSplit`]
/// (the children's pre `P`, `L` not integral or not uniform),
/// [`Reason::InequalityRewrite`], [`Reason::NotDominated`] (lists `then`, `else`),
/// [`Reason::NotPointwiseBelow`], entailment and covering rejections.
pub fn q_case(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(_) = s else {
        return Err(cx.rej(Reason::CaseSplit("Q:CASE is about a statement".into())));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &["rewrite then", "rewrite else", "entail join-then", "entail join-else"])?;
    cx.check_node(&c[0], s, pre, 0)?;
    cx.check_node(&c[1], s, pre, 1)?;
    let ((tp, t1), (fp, f1)) = (cx.pp(&c[0])?, cx.pp(&c[1])?);
    // `L` is `T.pre`'s last constraint `L ≤ 0`, appended to the node's `P`
    let l = match tp.p.last() {
        Some(Cstr { eq: false, lin, lane: None }) if tp.p.len() == pre.p.len() + 1 => lin.clone(),
        _ => return Err(cx.rej(Reason::CaseSplit("the then pre is not P with one constraint `L ≤ 0` appended".into()))),
    };
    case_form(cx, &pre.d, &l)?;
    let neg = Cstr::le(l.scale(&-Rat::one()).add_scaled(&Lin::constant(Rat::one()), &Rat::one()));
    let want_t: Vec<Cstr> = pre.p.iter().cloned().chain([Cstr::le(l)]).collect();
    let want_f: Vec<Cstr> = pre.p.iter().cloned().chain([neg]).collect();
    cx.same_p(&want_t, &tp.p, "P ∧ L ≤ 0", "then pre")?;
    cx.same_p(&want_f, &fp.p, "P ∧ −L + 1 ≤ 0", "else pre")?;
    cx.same_d(&pre.d, &tp.d, "pre", "then pre")?;
    cx.same_d(&pre.d, &fp.d, "pre", "else pre")?;
    both_sides(cx, n, "then", &tp.p, &pre.q, &tp.q)?;
    both_sides(cx, n, "else", &fp.p, &pre.q, &fp.q)?;
    cx.entail(n, "join-then", &t1.p, &post.p)?;
    cx.entail(n, "join-else", &f1.p, &post.p)?;
    cx.covers(&t1.d, &post.d)?;
    cx.covers(&f1.d, &post.d)?;
    cx.ge_pointwise(&t1.q, &post.q, "then post", "post")?;
    cx.ge_pointwise(&f1.q, &post.q, "else post", "post")?;
    Ok(Rat::zero())
}

/// The split form `L` of Q:CASE: integer coefficients and constant, every variable an `int`
/// parameter, a `threadIdx.*` or a local with a linear entry in `d`, thread coefficients
/// cancelling ([`uniform_form`]).
fn case_form(cx: &Ctx, d: &crate::arith::DepMap, l: &Lin) -> Result<(), Rejection> {
    let bad = |why: String| Err(cx.rej(Reason::CaseSplit(why)));
    if !l.c.is_integer() || l.terms.values().any(|a| !a.is_integer()) {
        return bad(format!("the split form `{l}` has a non-integer coefficient"));
    }
    for v in l.terms.keys() {
        let ok =
            TIDS.contains(&v.as_str()) || cx.prog.param(v) == Some(Ty::Int) || d.get(v).is_some_and(|e| e.linear());
        if !ok {
            return bad(format!(
                "`{v}` in the split form `{l}` is not an int parameter or a local with a linear entry"
            ));
        }
    }
    if !uniform_form(d, l) {
        return bad(format!("the split form `{l}` is not uniform under the pre's D"));
    }
    Ok(())
}

/// `R(q1) − R(q2)` has no negative coefficient, `R` the equality rewrites of
/// `(rewrite NAME …)` under `p`, applied to both sides (each is an equality on the states
/// satisfying `p`, so `q1 = R(q1) ≥ R(q2) = q2` there).
fn both_sides(cx: &Ctx, n: &Node, name: &'static str, p: &[Cstr], q1: &Poly, q2: &Poly) -> Result<(), Rejection> {
    let a = cx.rewritten(n, name, p, q1, true)?;
    let b = cx.rewritten(n, name, p, q2, true)?;
    match a.add_scaled(&b, &-Rat::one()).negative_term() {
        Some(term) => Err(cx.rej(Reason::NotDominated { list: name, term })),
        None => Ok(()),
    }
}

/// Q:WHILENONE — `while (g) s`, `g` a `bool` local, a Q:SEQ child right after `g ← E`, with
/// `(entail none …)`: `P ⇒ cond(¬E)`, `cond(¬E)` non-empty: every thread has `g = false`,
/// the loop is its failed test. Child `e` (`(var g)`, cost `C`); `pre = (P, D, Q)`,
/// `post = (P, D, Q')` with `Q = Q' + M^if + C`. Errors: [`Reason::WhileNone`] (not a guard
/// loop after its write, `cond(¬E)` empty), entailment rejections, potential mismatches.
pub fn q_whilenone(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::While(e @ Expr::Opd(Opd::Var(g)), _)) = s else {
        return Err(cx.rej(Reason::WhileNone("not a loop on a bool guard".into())));
    };
    if cx.prog.local(g) != Some(Ty::Bool) {
        return Err(cx.rej(Reason::WhileNone(format!("`{g}` is not a bool local"))));
    }
    let key = n as *const Node as usize;
    let s0 = cx.prev.borrow().as_ref().filter(|(k, _)| *k == key).map(|(_, p)| p.clone());
    let e0 = match s0 {
        Some(Stmt::Assign(x, e0)) if x == *g => e0,
        _ => return Err(cx.rej(Reason::WhileNone(format!("the loop is not a Q:SEQ child right after `{g} ← E`")))),
    };
    let none = cx.cond(&e0, true);
    if none.is_empty() {
        return Err(cx.rej(Reason::WhileNone(format!("cond(¬E) is empty for E = `{e0}`"))));
    }
    let post = cx.post(n)?;
    let c = cx.shape::<1>(n, &["entail none"])?;
    cx.entail(n, "none", &pre.p, &none)?;
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    cx.same_p(&pre.p, &post.p, "pre", "post")?;
    cx.same_d(&pre.d, &post.d, "pre", "post")?;
    let k = &cx.m.if_ + &cost;
    cx.same_q(&pre.q, &post.q.add_scaled(&Poly::constant(k), &Rat::one()), "pre", "post + M^if + C")?;
    Ok(Rat::zero())
}
