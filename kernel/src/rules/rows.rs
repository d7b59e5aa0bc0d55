//! Q:GWRITEROWS and Q:VWRITEROWS (spec/logic.md §4 "Rows", issue 15): a global access whose
//! index has a scaled entry with a row multiplier `X` (`threadIdx.y * W + threadIdx.x`),
//! charged `M^g(N₀ + Σ_j C_j·[M_j ∤ X])` instead of `M^g(N)` with `N` the worst row
//! alignment: the per-row sector count of a warp depends on `X mod P` only.

use super::stmt::{assign, dep_implied, same_d_except};
use super::{Ctx, Subject};
use crate::access;
use crate::arith::{Atom, Cstr, EntryKind, Poly, Rat};
use crate::syntax::{Expr, Node, Opd, Space, Stmt, Ty};
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// Largest `lcm(P, M_1, …)` the side condition is enumerated over.
pub const ROWS_LIMIT: u64 = 1 << 16;

/// The row charge `N₀ + Σ_j C_j·[M_j ∤ X]` of the access `arr[o]` (in `space`) under the
/// pre `env`, checked (spec/logic.md §4 "Rows"): the index's scaled entry (through
/// `scaled_D(o)`) has one `?` dimension `d` with a row multiplier `X = A·P + B` over an
/// integer parameter `P`; `N₀ ≥ 0`, every `C_j ≥ 0` and `M_j ≥ 1`; and for every
/// `ρ ∈ [0, L)`, `L = lcm(P_M, M_1, …)` with `P_M = M / gcd(es, M)`,
/// `N₀ + Σ_j C_j·[M_j ∤ ρ] ≥ max(1, f(ρ mod P_M))` with `f` of [`access::row_table`].
/// Returns the charge as a polynomial (before the metric's `M^g`).
///
/// Errors: [`Reason::NoRowMultiplier`], [`Reason::BadRowTerm`], [`Reason::RowCharge`] (the
/// first `ρ` where the charge is below the count), [`Reason::ResourceLimit`].
pub fn rows_charge(
    cx: &Ctx,
    n: &Node,
    env: &crate::syntax::Assn,
    arr: &str,
    o: &Opd,
    space: Space,
) -> Result<Poly, Rejection> {
    let (a, n0, kind) = cx.access_site(n, arr, space)?;
    let dep = Ctx::scaled_opd(&env.d, o)
        .filter(|d| matches!(d.kind, EntryKind::Scaled(u) if u.iter().filter(|b| **b).count() == 1))
        .ok_or_else(|| cx.rej(Reason::NoRowMultiplier(o.to_string())))?;
    let mul = dep.mul.clone().ok_or_else(|| cx.rej(Reason::NoRowMultiplier(o.to_string())))?;
    if cx.prog.param(&mul.param) != Some(Ty::Int) {
        return Err(cx.rej(Reason::NoRowMultiplier(format!("{o}: `{}` is not an integer parameter", mul.param))));
    }
    let dim = dep.unknown_dims().iter().position(|b| *b).unwrap_or(0);
    let bad = |why: &'static str| cx.rej(Reason::BadRowTerm(why));
    if n0.is_negative() {
        return Err(bad("N₀ < 0"));
    }
    let mut lcm = BigInt::one();
    for (c, m) in &n.rows {
        if c.is_negative() {
            return Err(bad("a coefficient C < 0"));
        }
        if !m.is_positive() {
            return Err(bad("a modulus M < 1"));
        }
        lcm = lcm.lcm(m);
    }
    let limit = || cx.rej(Reason::ResourceLimit { what: "row charge enumeration", limit: ROWS_LIMIT });
    let tids: Vec<Cstr> = env.p.iter().cloned().collect();
    let (period, f) = access::row_table(cx.block, cx.hw, &tids, &dep, dim, a.bytes, kind).map_err(|_| limit())?;
    let big_l = lcm.lcm(&BigInt::from(period)).to_u64().filter(|l| *l <= ROWS_LIMIT).ok_or_else(limit)?;
    for rho in 0..big_l {
        let mut lhs = n0.clone();
        for (c, m) in &n.rows {
            if !BigInt::from(rho).is_multiple_of(m) {
                lhs += c;
            }
        }
        let need = f.get(usize::try_from(rho % period.max(1)).unwrap_or(0)).copied().unwrap_or(0).max(1);
        if lhs < BigInt::from(need) {
            return Err(cx.rej(Reason::RowCharge { rho, modulus: big_l, charged: lhs.to_string(), need }));
        }
    }
    let mut p = Poly::constant(Rat::from_integer(n0));
    for (c, m) in &n.rows {
        p.add_term(Rat::from_integer(c.clone()), vec![Atom::Res(mul.lin(), m.clone())]);
    }
    Ok(p)
}

/// `M^g` applied to a charge polynomial: `mul·p + add` for the affine `M^g = (mul, add)`.
fn metric_at(f: &(Rat, Rat), p: &Poly) -> Poly {
    Poly::zero().add_scaled(p, &f.0).plus_const(&f.1)
}

/// Q:GWRITEROWS — `A[o] ← e`, `A` global, `o` with a row multiplier `X`: fields `(n N₀)`,
/// `(rows (C M)…)` checked by [`rows_charge`]; `P' = P`, `D' = D`,
/// `Q = Q' + M^gwrite(N₀ + Σ C·[M ∤ X]) + C1 + C2` (spec/logic.md §4 "Rows").
pub fn q_gwriterows(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &crate::syntax::Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Write(arr, o, e)) = s else {
        return Err(cx.rej(Reason::WrongSubject { expected: "an array write", found: s.describe() }));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &["n", "rows"])?;
    let charge = metric_at(&cx.m.gwrite, &rows_charge(cx, n, pre, arr, o, Space::Global)?);
    let c1 = cx.check_node(&c[0], Subject::Opd(o), pre, 0)?;
    let c2 = cx.check_node(&c[1], Subject::Expr(e), pre, 1)?;
    cx.same_p(&pre.p, &post.p, "pre", "post")?;
    cx.same_d(&pre.d, &post.d, "pre", "post")?;
    let want = post.q.add_scaled(&charge, &Rat::one()).plus_const(&(c1 + c2));
    cx.same_q(&pre.q, &want, "pre", "post + M^gwrite(N₀ + Σ C·[M ∤ X]) + C1 + C2")?;
    Ok(Rat::zero())
}

/// Q:VWRITEROWS — `x ← read A o`, `A` global, `o` with a row multiplier `X`: fields
/// `(n N₀)`, `(rows (C M)…)` checked by [`rows_charge`]; one child about `o`; `P'` is `P`
/// without the constraints mentioning `x`, `D' = D` except at `x`, where it is absent;
/// `Q'` does not mention `x`; `Q = Q' + M^vwrite + M^gread(N₀ + Σ C·[M ∤ X]) + C_o`
/// (spec/logic.md §4 "Rows"; Q:VWRITE2 with EQ:GARRAY's cost made a polynomial).
pub fn q_vwriterows(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &crate::syntax::Assn) -> Result<Rat, Rejection> {
    let (x, e) = assign(cx, s)?;
    let Expr::Read(arr, o) = e else {
        return Err(cx.rej(Reason::WrongSubject { expected: "x ← read A o", found: s.describe() }));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<1>(n, &["n", "rows"])?;
    let charge = metric_at(&cx.m.gread, &rows_charge(cx, n, pre, arr, o, Space::Global)?);
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
    let want = post.q.add_scaled(&charge, &Rat::one()).plus_const(&(&cx.m.vwrite + co));
    cx.same_q(&pre.q, &want, "pre", "post + M^vwrite + M^gread(N₀ + Σ C·[M ∤ X]) + C_o")?;
    Ok(Rat::zero())
}
