//! Q:WHILEWARP (spec/logic.md §4, issue 15): a loop whose test cannot split a warp, checked
//! by the offset class of the test's form and a window per warp of the block.

use super::stmt::{test_form, thread_k, while_rule, Test};
use super::{Ctx, Subject};
use crate::arith::{DepMap, Lin, Rat};
use crate::syntax::{Assn, Node, Stmt};
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, Zero};

/// The offset class `(ρ, G)` of the form `l` under `d` (spec/logic.md §4, Q:WHILEWARP):
/// starting from `(c_L, 0)`, a parameter term `a·p` gives `G ← gcd(G, a)`, a local term
/// `a·v` with the linear entry `(k_v, r_v, g_v)` gives `ρ ← ρ + a·r_v`,
/// `G ← gcd(G, a·g_v)`; `threadIdx.*` terms give nothing. Then for every active thread
/// `L(t) = K·tid(t) + c` with one integer `c ≡ ρ (mod G)` (`G = 0`: `c = ρ`).
/// Errors: a coefficient or the constant of `l` is not an integer, or a local of `l` has no
/// linear entry.
fn offset_class(cx: &Ctx, d: &DepMap, l: &Lin) -> Result<(BigInt, BigInt), Rejection> {
    let int = |q: &Rat| {
        if q.is_integer() {
            Ok(q.to_integer())
        } else {
            Err(cx.rej(Reason::NoCondition(l.to_string())))
        }
    };
    let (mut rho, mut g) = (int(&l.c)?, BigInt::zero());
    for (v, a) in &l.terms {
        let a = int(a)?;
        if super::TIDS.contains(&v.as_str()) {
            continue;
        }
        if cx.prog.param(v).is_some() {
            g = g.gcd(&a);
        } else {
            let e = d.get(v).filter(|e| e.linear()).ok_or_else(|| cx.rej(Reason::NoLinearEntry(v.clone())))?;
            rho += &a * &e.r;
            g = g.gcd(&(&a * &e.g));
        }
    }
    Ok((rho, g))
}

/// Whether some integer `c ≡ ρ (mod G)` lies in `[lo, hi]` (`G = 0`: `c = ρ`).
fn class_meets(rho: &BigInt, g: &BigInt, lo: &BigInt, hi: &BigInt) -> bool {
    if lo > hi {
        return false;
    }
    if g.is_zero() {
        return lo <= rho && rho <= hi;
    }
    let first = lo + (rho - lo).mod_floor(&g.abs());
    &first <= hi
}

/// The window check of Q:WHILEWARP: for every warp of the block (all its lanes, as in
/// "Access bounds"), with `lo`, `hi` the least and largest `K·tid` over its lanes, no
/// integer `c ≡ ρ (mod G)` lies in `[1 − hi, −lo]`. Sound: two lanes `a`, `b` of a warp
/// with `L(a) ≤ 0 < L(b)` give `1 − hi ≤ 1 − K·tid(b) ≤ c ≤ −K·tid(a) ≤ −lo`.
/// Errors: a non-integer `K`, or a block too large to enumerate.
pub(super) fn never_splits(cx: &Ctx, k: &[Rat; 3], rho: &BigInt, g: &BigInt) -> Result<bool, Rejection> {
    let Some(spans) = warp_spans(cx, k)? else {
        return Ok(false);
    };
    let one = BigInt::from(1);
    Ok(!spans.iter().any(|(lo, hi)| class_meets(rho, g, &(&one - hi), &-lo)))
}

/// The least and largest `K·tid` over the lanes of each warp of the block, in warp order
/// (the enumeration behind [`never_splits`] and [`window_hull`]). `None` for a non-integer
/// `K`. Errors: a block too large to enumerate.
fn warp_spans(cx: &Ctx, k: &[Rat; 3]) -> Result<Option<Vec<(BigInt, BigInt)>>, Rejection> {
    if k.iter().any(|kd| !kd.is_integer()) {
        return Ok(None);
    }
    let k: Vec<BigInt> = k.iter().map(|kd| kd.to_integer()).collect();
    let total = crate::access::block_threads(cx.block)
        .filter(|&t| t <= crate::access::WORK_LIMIT)
        .ok_or_else(|| cx.rej(Reason::NoLinearEntry("the block's lanes (too many to enumerate)".into())))?;
    let warp = u64::from(cx.hw[0].max(1));
    let mut spans = Vec::new();
    let mut start = 0u64;
    while start < total {
        let end = (start + warp).min(total);
        let vals: Vec<BigInt> = (start..end)
            .map(|t| {
                let ti = crate::access::thread_index(cx.block, t);
                k.iter().zip(ti).fold(BigInt::zero(), |acc, (kd, x)| acc + kd * BigInt::from(x))
            })
            .collect();
        if let (Some(lo), Some(hi)) = (vals.iter().min(), vals.iter().max()) {
            spans.push((lo.clone(), hi.clone()));
        }
        start = end;
    }
    Ok(Some(spans))
}

/// Q:WHILEWARP — a loop whose test cannot split a warp (spec/logic.md §4): `cond(e) =
/// [L ≤ 0]` with `cond(¬e)` non-empty, every local of `L` with a linear entry in `D`,
/// `K` the thread coefficients and `(ρ, G)` the offset class of `L`, and the window check
/// ([`never_splits`]); otherwise as Q:WHILE2 with `M^if + C` in place of
/// `M^if + M^div + C`: `B.pre = (P ∧ e, D, I)`, `B.post = (P, D, I + M^if + C)`,
/// `pre = (P, D, I + M^if + C)`, `post = (P ∧ ¬e, D \ W(s), I↾W(s))`.
pub fn q_whilewarp(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::While(e, _)) = s else {
        return Err(cx.rej(Reason::WrongSubject { expected: "a while loop", found: s.describe() }));
    };
    let l = test_form(cx, e)?;
    let k = thread_k(cx, &pre.d, &l)?;
    let (rho, g) = offset_class(cx, &pre.d, &l)?;
    if !never_splits(cx, &k, &rho, &g)? {
        return Err(cx.rej(Reason::MaySplit(e.to_string())));
    }
    while_rule(cx, n, s, pre, Test::NoSplit)
}

/// The hull `[a, b]` of the split windows of Q:WHILEWARP's window check: `a` the least
/// `1 − hi` and `b` the largest `−lo` over the warps of the block (`lo`, `hi` the least and
/// largest `K·tid` over a warp's lanes, `lo < hi`), so that a test `L = K·tid + c ≤ 0` that splits a
/// warp has `c ∈ [a, b]` (spec/logic.md §4, Q:WHILELASTWINDOW). `None` for a non-integer
/// `K`. Errors: a block too large to enumerate.
pub(super) fn window_hull(cx: &Ctx, k: &[Rat; 3]) -> Result<Option<(BigInt, BigInt)>, Rejection> {
    let Some(spans) = warp_spans(cx, k)? else {
        return Ok(None);
    };
    // a warp whose lanes share one `K·tid` (`lo = hi`) has an empty window
    let windows = spans.into_iter().filter(|(lo, hi)| lo != hi).map(|(lo, hi)| (BigInt::from(1) - hi, -lo));
    Ok(windows.fold(None, |acc, (wa, wb)| match acc {
        None => Some((wa, wb)),
        Some((a, b)) => Some((a.min(wa), b.max(wb))),
    }))
}
