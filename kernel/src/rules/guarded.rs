//! Q:GWRITEGUARD and Q:VWRITEGUARD (spec/logic.md §4 "Guarded accesses", issue 15): a global
//! access whose active lanes all pass a guard `K·tid + c ≤ 0` of `P` (the divergent test of
//! a grid-stride loop), charged `M^g(N₀ + Σ_j C_j·[t_j ≤ −c])` instead of `M^g(N)`, the
//! indicators written as differences of floor atoms.

use super::stmt::{assign, dep_implied, same_d_except, thread_k};
use super::{Ctx, Subject};
use crate::access;
use crate::arith::{Atom, Cstr, Lin, Poly, Rat};
use crate::syntax::{Assn, Expr, Node, Opd, Space, Stmt};
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The guarded charge of the access `arr[o]` (global) under the pre `env`, checked
/// (spec/logic.md §4 "Guarded accesses"): `dep_D(o)` is linear; the node's
/// `(guard I S (C t)…)` names the inequality `L ≤ 0` at index `I` of `P` (integer
/// coefficients and constant, every local with a linear entry), `S ≥ 1`, every `C_j ≥ 0`,
/// `N₀ ≥ 0`; and for every kept lane value `T = K·tid` of [`access::guard_table`],
/// `N₀ + Σ_j C_j·[t_j ≤ T] ≥` the table's count at `T`. Returns `(plus, minus)`: the
/// polynomials `N₀ + Σ_j C_j·A⁺_j` and `Σ_j C_j·A⁻_j` with
/// `A⁺_j = ⌊(S − L_u − t_j)/S⌋⁺`, `A⁻_j = ⌊(−L_u − t_j)/S⌋⁺`, `L_u = L − K·tid`, whose
/// difference is the charge `N₀ + Σ_j C_j·[1 − L_u − t_j ≥ 1]` on integer states.
///
/// Errors: [`Reason::MissingField`] (`guard`), [`Reason::BadGuard`] (the field's numbers,
/// the constraint, the entry), [`Reason::NoLinearEntry`], [`Reason::GuardCharge`] (the
/// first `T` where the charge is below the count), [`Reason::ResourceLimit`].
pub fn guard_charge(cx: &Ctx, n: &Node, env: &Assn, arr: &str, o: &Opd) -> Result<(Poly, Poly), Rejection> {
    let (a, n0, kind) = cx.access_site(n, arr, Space::Global)?;
    let g = n.guard.as_deref().ok_or_else(|| cx.rej(Reason::MissingField("guard")))?;
    let bad = |why: &'static str| cx.rej(Reason::BadGuard(why));
    if n0.is_negative() {
        return Err(bad("N₀ < 0"));
    }
    if !g.div.is_positive() {
        return Err(bad("the divisor S < 1"));
    }
    if g.terms.iter().any(|(c, _)| c.is_negative()) {
        return Err(bad("a coefficient C < 0"));
    }
    let dep = Ctx::dep_opd(&env.d, o).filter(|d| d.linear()).ok_or_else(|| bad("the index has no linear entry"))?;
    let cstr: &Cstr =
        g.index.to_usize().and_then(|i| env.p.get(i)).ok_or_else(|| bad("the index I names no constraint of P"))?;
    if cstr.eq || cstr.lane.is_some() {
        return Err(bad("the guard constraint is not an inequality L ≤ 0"));
    }
    let l = &cstr.lin;
    if !l.c.is_integer() || l.terms.values().any(|q| !q.is_integer()) {
        return Err(bad("the guard form has a non-integer coefficient"));
    }
    let k = thread_k(cx, &env.d, l)?;
    let mut kk = [0i128; 3];
    for (dst, q) in kk.iter_mut().zip(&k) {
        *dst = q
            .to_integer()
            .to_i64()
            .map(i128::from)
            .ok_or_else(|| bad("the guard's thread coefficients are too large"))?;
    }
    let limit = || cx.rej(Reason::ResourceLimit { what: "guard charge enumeration", limit: access::WORK_LIMIT });
    let tids: Vec<Cstr> = env.p.iter().cloned().collect();
    let table = access::guard_table(cx.block, cx.hw, &tids, &dep, kk, a.bytes, kind).map_err(|_| limit())?;
    for (t_val, need) in &table {
        let mut lhs = n0.clone();
        for (c, t) in &g.terms {
            if t <= &BigInt::from(*t_val) {
                lhs += c;
            }
        }
        if lhs < BigInt::from(*need) {
            return Err(cx.rej(Reason::GuardCharge { at: t_val.to_string(), charged: lhs.to_string(), need: *need }));
        }
    }
    // the uniform part L_u = L − K·tid
    let mut lu = l.clone();
    for (name, q) in super::TIDS.iter().zip(&k) {
        lu.add_term(name, &-q.clone());
    }
    let s = Rat::from_integer(g.div.clone());
    let mut plus = Poly::constant(Rat::from_integer(n0));
    let mut minus = Poly::zero();
    for (c, t) in &g.terms {
        let t = Rat::from_integer(t.clone());
        // −L_u − t_j, then + S for A⁺
        let base = lu.scale(&-Rat::one()).add_scaled(&Lin::constant(-t), &Rat::one());
        let mut up = base.clone();
        up.c += &s;
        plus.add_term(Rat::from_integer(c.clone()), vec![Atom::Floor(up, g.div.clone())]);
        minus.add_term(Rat::from_integer(c.clone()), vec![Atom::Floor(base, g.div.clone())]);
    }
    Ok((plus, minus))
}

/// Q:GWRITEGUARD — `A[o] ← e`, `A` global, every active lane passing the guard of
/// [`guard_charge`]: children `o`, `e` (costs `C1`, `C2`); `P' = P`, `D' = D`,
/// `Q + μ·Σ C·A⁻ = Q' + μ·(N₀ + Σ C·A⁺) + α + C1 + C2` (spec/logic.md §4 "Guarded
/// accesses"; `M^gwrite = (μ, α)`).
pub fn q_gwriteguard(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Write(arr, o, e)) = s else {
        return Err(cx.rej(Reason::WrongSubject { expected: "an array write", found: s.describe() }));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &["n", "guard"])?;
    let (plus, minus) = guard_charge(cx, n, pre, arr, o)?;
    let (mu, alpha) = &cx.m.gwrite;
    let c1 = cx.check_node(&c[0], Subject::Opd(o), pre, 0)?;
    let c2 = cx.check_node(&c[1], Subject::Expr(e), pre, 1)?;
    cx.same_p(&pre.p, &post.p, "pre", "post")?;
    cx.same_d(&pre.d, &post.d, "pre", "post")?;
    let left = pre.q.add_scaled(&minus, mu);
    let right = post.q.add_scaled(&plus, mu).plus_const(&(alpha + c1 + c2));
    cx.same_q(&left, &right, "pre + μ·Σ C·A⁻", "post + μ·(N₀ + Σ C·A⁺) + α + C1 + C2")?;
    Ok(Rat::zero())
}

/// Q:VWRITEGUARD — `x ← read A o`, `A` global, every active lane passing the guard of
/// [`guard_charge`]: one child about `o` (cost `C_o`); `P'` is `P` without the constraints
/// mentioning `x`, `D' = D` except at `x`, where it is absent, `Q'` does not mention `x`;
/// `Q + μ·Σ C·A⁻ = Q' + M^vwrite + μ·(N₀ + Σ C·A⁺) + α + C_o` (spec/logic.md §4 "Guarded
/// accesses"; `M^gread = (μ, α)`).
pub fn q_vwriteguard(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (x, e) = assign(cx, s)?;
    let Expr::Read(arr, o) = e else {
        return Err(cx.rej(Reason::WrongSubject { expected: "x ← read A o", found: s.describe() }));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<1>(n, &["n", "guard"])?;
    let (plus, minus) = guard_charge(cx, n, pre, arr, o)?;
    let (mu, alpha) = &cx.m.gread;
    let co = cx.check_node(&c[0], Subject::Opd(o), pre, 0)?;
    let kept: Vec<Cstr> = pre.p.iter().filter(|k| !k.lin.mentions(x)).cloned().collect();
    cx.same_p(&kept, &post.p, "pre P without x", "post P")?;
    same_d_except(cx, &pre.d, &post.d, x)?;
    if let Some(want) = post.d.get(x) {
        dep_implied(cx, x, &[], want)?;
    }
    if post.q.mentions(x) {
        return Err(cx.rej(Reason::PotentialMentions(x.to_string())));
    }
    let left = pre.q.add_scaled(&minus, mu);
    let right = post.q.add_scaled(&plus, mu).plus_const(&(&cx.m.vwrite + alpha + co));
    cx.same_q(&left, &right, "pre + μ·Σ C·A⁻", "post + M^vwrite + μ·(N₀ + Σ C·A⁺) + α + C_o")?;
    Ok(Rat::zero())
}
