//! Statement rules `⊢_M {P; D; Q} s {P'; D'; Q'}` (spec/logic.md §4; RaCUDA Fig. 8, rules
//! Q:*). Each receives the context, the node (whose `pre`/`post` are present and
//! well-formed), the statement and the node's `pre`; it checks its children and returns 0.

use super::{Ctx, Subject};
use crate::arith::{check_farkas, Atom, Cstr, Dep, DepMap, Lin, Poly, Rat};
use crate::metric::at;
use crate::syntax::{Assn, Expr, Farkas, Node, Opd, Space, Stmt, WarpOp, Witness, Witnesses};
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_traits::{One, ToPrimitive, Zero};
use std::borrow::Cow;

fn wrong(cx: &Ctx, expected: &'static str, s: Subject<'_>) -> Rejection {
    cx.rej(Reason::WrongSubject { expected, found: s.describe() })
}

fn plus(q: &Poly, c: &Rat) -> Poly {
    q.plus_const(c)
}

pub(super) fn without(d: &DepMap, w: &[String]) -> DepMap {
    d.iter().filter(|(x, _)| !w.contains(x)).map(|(x, e)| (x.clone(), e.clone())).collect()
}

/// `D = D'` except at `x`, compared without building `D \ {x}` and `D' \ {x}` (the same
/// pairs in the same order); when they differ, the rejection of [`Ctx::same_d`] on them.
pub(super) fn same_d_except(cx: &Ctx, a: &DepMap, b: &DepMap, x: &str) -> Result<(), Rejection> {
    let keep = |(v, _): &(&String, &Dep)| v.as_str() != x;
    if a.iter().filter(keep).eq(b.iter().filter(keep)) {
        return Ok(());
    }
    let wx = [x.to_string()];
    cx.same_d(&without(a, &wx), &without(b, &wx), "pre D except x", "post D except x")
}

/// Q:SKIP — `skip`: `pre = post`.
pub fn q_skip(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Skip) = s else {
        return Err(wrong(cx, "skip", s));
    };
    cx.shape::<0>(n, &[])?;
    cx.same(pre, cx.post(n)?, "pre", "post")?;
    Ok(Rat::zero())
}

/// Q:SYNC — `sync`: `P = P'`, `D = D'`, `Q = Q' + M^sync`.
pub fn q_sync(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Sync) = s else {
        return Err(wrong(cx, "sync", s));
    };
    cx.shape::<0>(n, &[])?;
    let post = cx.post(n)?;
    cx.same_p(&pre.p, &post.p, "pre", "post")?;
    cx.same_d(&pre.d, &post.d, "pre", "post")?;
    cx.same_q(&pre.q, &plus(&post.q, &cx.m.sync), "pre", "post + M^sync")?;
    Ok(Rat::zero())
}

/// Q:SEQ — `s1; s2`: `c1.pre = pre`, `c1.post = c2.pre`, `c2.post = post`. In filtered
/// position (spec/logic.md §4a) `c2` is filtered too. A node with `k ≥ 2` children
/// (format 3) is about the chain `s1; (s2; (… ; sk))` and is the nested binary rule
/// instances with the intermediate assertions its children's: child `i < k` is about `si`
/// (ordinary), child `k` about the rest of the chain (filtered when the node is), and
/// `c_i.post = c_{i+1}.pre`. Iterative over the children.
pub fn q_seq(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(mut cur @ Stmt::Seq(..)) = s else {
        return Err(wrong(cx, "seq", s));
    };
    if let Some(f) = n.fields.iter().find(|f| !["pre", "post"].contains(&f.as_str())) {
        return Err(cx.rej(Reason::UnexpectedField(f.to_string())));
    }
    let k = n.children.len();
    if k < 2 {
        return Err(cx.rej(Reason::ChildCount { expected: 2, found: k }));
    }
    let mut prev = pre;
    let mut prev_item: Option<&Stmt> = None;
    for (i, c) in n.children.iter().enumerate() {
        let last = i + 1 == k;
        let item = if last {
            cur
        } else {
            let Stmt::Seq(a, b) = cur else {
                return Err(wrong(cx, "a sequence of one statement per child", s));
            };
            cur = b;
            a
        };
        let filter = if last { cx.filter() } else { None };
        // Q:WHILEGUARD reads the statement before it (keyed by the child's address)
        *cx.prev.borrow_mut() = prev_item.map(|p| (c as *const Node as usize, p.clone()));
        cx.check_node_in(c, Subject::Stmt(item), pre, i, filter.as_ref())?;
        prev_item = Some(item);
        let (cp, cq) = cx.pp(c)?;
        if i == 0 {
            cx.same(cp, pre, "pre of first premise", "pre")?;
        } else {
            cx.same(prev, cp, "post of a premise", "pre of the next")?;
        }
        prev = cq;
    }
    cx.same(prev, cx.post(n)?, "post of the last premise", "post")?;
    Ok(Rat::zero())
}

/// The halved operand's linear form `A = lin(a)` of `x ← a >> c` (`c` an integer in
/// `1..64`) or `x ← a / c` (`c ≥ 2`), when `lin_P(e)` is undefined: the bounding
/// substitution of Q:VWRITE1 (spec/logic.md §4, "Halving") applies under `P ⇒ A ≥ 1`.
fn shr_operand(cx: &Ctx, pre: &Assn, e: &Expr) -> Option<(Lin, BigInt)> {
    match e {
        Expr::Bin(op, a, Opd::Int(c))
            if (op == ">>" && (BigInt::one()..BigInt::from(64)).contains(c))
                || (op == "/" && *c >= BigInt::from(2)) =>
        {
            let div = if op == ">>" { BigInt::one() << c.to_usize()? } else { c.clone() };
            cx.lin_fixed(&pre.p, e).is_none().then(|| cx.lin_opd(a)).flatten().map(|a| (a, div))
        }
        _ => None,
    }
}

/// The bounding substitution `l⌈x ← a >> c⌉` (spec/logic.md §4, "Halving"): `x ← A − 1`
/// when `x`'s coefficient in `l` is positive, `x ← 0` when it is negative. Under `A ≥ 1`
/// the new value `v = ⌊A / 2^c⌋` (or `A / c` truncated) has `0 ≤ v ≤ A − 1`, so
/// `l(v) ≤ l⌈x ← e⌉`.
fn bound_subst(l: &Lin, x: &str, a: &Lin) -> Lin {
    match l.terms.get(x) {
        Some(k) if k.is_positive() => l.subst(x, &a.add_scaled(&Lin::constant(-Rat::one()), &Rat::one())),
        Some(_) => l.subst(x, &Lin::constant(Rat::zero())),
        None => l.clone(),
    }
}

/// The bounding substitution of a log atom (spec/logic.md §4, "Halving"): in
/// `⌊log2 L⌋⁺`, `x ← A/d` when `x`'s coefficient in `L` is positive (`d = 2^c` for
/// `a >> c`, `d = c` for `a / c`), `x ← 0` when it is negative. Under `A ≥ 1` the new value
/// `v = ⌊A/d⌋` has `0 ≤ v ≤ A/d`, and the log atom is monotone in its form. Other atoms:
/// [`bound_subst`]. A quotient log atom `⌊log2 (L/M)⌋⁺` whose `M` does not mention `x`
/// (Q:VWRITE1 checks it, [`divisor_mentions`]) is monotone in `L`: the same substitution
/// in `L`.
fn log_bound_subst(atom: &Atom, x: &str, a: &Lin, d: &BigInt) -> Atom {
    let up = |l: &Lin| l.subst(x, &a.scale(&Rat::new(BigInt::one(), d.clone())));
    match atom {
        Atom::Log(l) if l.terms.get(x).is_some_and(Rat::is_positive) => Atom::Log(up(l)),
        Atom::LogQ(l, m) if l.terms.get(x).is_some_and(Rat::is_positive) => Atom::LogQ(up(l), m.clone()),
        _ => atom.map_lin(|l| bound_subst(l, x, a)),
    }
}

/// Whether some quotient log atom `⌊log2 (L/M)⌋⁺` of `q` has `x` in its divisor form `M`
/// (antitone there), or some residue atom `[m ∤ L]` mentions `x` (not monotone,
/// spec/logic.md §1 "Residue atoms"): no bounding substitution applies (spec/logic.md §4
/// "Halving").
fn divisor_mentions(q: &Poly, x: &str) -> bool {
    q.terms.keys().flatten().any(|a| match a {
        Atom::LogQ(_, m) | Atom::FloorSym(_, m) => m.mentions(x),
        Atom::Res(l, _) | Atom::Win(l, _, _) => l.mentions(x),
        _ => false,
    })
}

/// The factors' linear forms `(A, B)` of a product `x ← a * b` whose `lin_P(e)` is
/// undefined: the lower bounding substitution of Q:VWRITE1 (spec/logic.md §4, "Products").
fn product_operands(cx: &Ctx, pre: &Assn, e: &Expr) -> Option<(Lin, Lin)> {
    match e {
        Expr::Bin(op, a, b) if op == "*" && cx.lin_fixed(&pre.p, e).is_none() => Some((cx.lin_opd(a)?, cx.lin_opd(b)?)),
        _ => None,
    }
}

/// `α − A ≤ 0`: the side condition `P ⇒ A ≥ α` of a factor.
fn at_least(a: &Lin, alpha: &Rat) -> Cstr {
    Cstr { eq: false, lin: Lin::constant(alpha.clone()).add_scaled(a, &-Rat::one()), lane: None }
}

/// A factor's bound `α`: 1 when its witness `w` shows `P ⇒ A ≥ 1`, else 0 (the witness must
/// then show `P ⇒ A ≥ 0`, checked with the other witnesses).
fn factor_bound(p: &[Cstr], a: &Lin, w: Option<&Farkas>) -> Rat {
    match w {
        Some(w) if check_farkas(p, &at_least(a, &Rat::one()), w).is_ok() => Rat::one(),
        _ => Rat::zero(),
    }
}

/// The lower bound `β·A + α·B − α·β` of `A·B` under `A ≥ α ∧ B ≥ β` (`(A − α)(B − β) ≥ 0`)
/// and its side conditions `α − A ≤ 0`, `β − B ≤ 0`; `α`, `β` are read off the last two
/// witnesses `ws` of `(entail post …)` ([`factor_bound`]).
fn product_floor(p: &[Cstr], (a, b): &(Lin, Lin), ws: &[Farkas]) -> (Lin, [Cstr; 2]) {
    let (alpha, beta) = match ws {
        [.., wa, wb] => (factor_bound(p, a, Some(wa)), factor_bound(p, b, Some(wb))),
        _ => (Rat::zero(), Rat::zero()),
    };
    let floor = b.scale(&alpha).add_scaled(a, &beta).add_scaled(&Lin::constant(-(&alpha * &beta)), &Rat::one());
    (floor, [at_least(a, &alpha), at_least(b, &beta)])
}

/// Shared part of Q:VWRITE1/2: `D'` equals `D` except at `x`, the `(entail post …)`
/// witnesses for `P ⇒ P'[x ← e]`; returns the child's cost, when a bounding
/// substitution was used (`bounding`: Q:VWRITE1 only), which: `x ← a >> c` with
/// `A = lin(a)` ("Halving"), or `x ← a * b` with the lower bound `β·A + α·B − α·β`
/// ("Products"), and `lin_P(e)`.
fn vwrite_common(
    cx: &Ctx,
    n: &Node,
    (x, e): (&str, &Expr),
    pre: &Assn,
    bounding: bool,
) -> Result<(Rat, Option<Bounding>, Option<Lin>), Rejection> {
    let post = cx.post(n)?;
    let c = cx.shape::<1>(n, &["entail post"])?;
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    same_d_except(cx, &pre.d, &post.d, x)?;
    let le = cx.lin_fixed(&pre.p, e);
    // the bounding substitution is claimed by one witness more than `P'` has constraints
    let claimed = n.entails.get("post").map_or(0, Witnesses::len) == post.p.len() + 1;
    let shr = if bounding && claimed && le.is_none() { shr_operand(cx, pre, e) } else { None };
    // the product's lower bounding substitution is claimed by two witnesses more
    let two = n.entails.get("post").map_or(0, Witnesses::len) == post.p.len() + 2;
    let prod = if bounding && two && le.is_none() { product_operands(cx, pre, e) } else { None };
    // the last two witnesses (a product's), written out
    let ws: Vec<Farkas> = match (&prod, n.entails.get("post")) {
        (Some(_), Some(l)) => l.iter().skip(l.len().saturating_sub(2)).map(Witness::to_farkas).collect(),
        _ => Vec::new(),
    };
    let (floor, sides) = prod.as_ref().map(|ab| product_floor(&pre.p, ab, &ws)).unzip();
    let mut targets = Vec::new();
    for k in post.p.iter() {
        let lin = match (&le, &shr, k.lin.mentions(x)) {
            // a frame constraint (not about `x`) is its own target: borrowed, not copied
            (_, _, false) => {
                targets.push(Cow::Borrowed(k));
                continue;
            }
            (Some(l), _, true) => k.lin.subst(x, l),
            (None, Some((a, _)), true) if !k.eq && k.lane.is_none() => bound_subst(&k.lin, x, a),
            (None, None, true) => match &floor {
                Some(f) if !k.eq && k.lane.is_none() && k.lin.terms.get(x).is_some_and(Rat::is_negative) => {
                    k.lin.subst(x, f)
                }
                _ => return Err(cx.rej(Reason::SubstUndefined(x.to_string()))),
            },
            (None, _, true) => return Err(cx.rej(Reason::SubstUndefined(x.to_string()))),
        };
        targets.push(Cow::Owned(Cstr { eq: k.eq, lin, lane: k.lane.clone() }));
    }
    // the last witness(es): P ⇒ A ≥ 1 (halving), P ⇒ A ≥ α and P ⇒ B ≥ β (a product)
    targets.extend(shr.iter().map(|(a, _)| Cow::Owned(at_least(a, &Rat::one()))));
    targets.extend(sides.into_iter().flatten().map(Cow::Owned));
    cx.entail(n, "post", &pre.p, &targets)?;
    Ok((cost, shr.map(|(a, d)| Bounding::Halve(a, d)).or(floor.map(Bounding::Floor)), le))
}

/// The bounding substitution Q:VWRITE1 used: halving's `A = lin(a)`, or a product's lower
/// bound `β·A + α·B − α·β`.
enum Bounding {
    Halve(Lin, BigInt),
    Floor(Lin),
}

pub(super) fn assign<'a>(cx: &Ctx, s: Subject<'a>) -> Result<(&'a String, &'a Expr), Rejection> {
    match s {
        Subject::Stmt(Stmt::Assign(x, e)) => Ok((x, e)),
        _ => Err(wrong(cx, "an assignment", s)),
    }
}

/// `want` is implied by one of the candidate entries `have` (none: `⊤`).
pub(super) fn dep_implied(cx: &Ctx, x: &str, have: &[Dep], want: &Dep) -> Result<(), Rejection> {
    if have.iter().any(|h| h.implies(want)) {
        return Ok(());
    }
    Err(cx.rej(Reason::DepNotImplied {
        var: x.to_string(),
        have: have.first().map_or("⊤".to_string(), Dep::to_string),
        want: want.to_string(),
    }))
}

/// Q:VWRITE1 — `x ← e` with substitution: `D'(x)` present and implied by `ent_P,D(e)`,
/// `Q = Q'[x ← lin_P(e)] + M^vwrite + C`, `(entail post …)`. RaCUDA's `P ⇒ e unif` and
/// `x ∈ X` are replaced by the well-formedness of `pre` and `post` (spec/logic.md §4).
/// For `x ← a >> c` without `lin_P(e)` the substitution is the bounding one ("Halving"),
/// for `x ← a * b` the lower bounding one, in atoms that do not rise with `x` ("Products").
pub fn q_vwrite1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    vwrite1(cx, n, s, pre, true)
}

/// Q:VWRITE1 (`bounding`: with the bounding substitutions) and L:VWRITE1 (without them:
/// spec/logic.md §4b).
pub(super) fn vwrite1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, bounding: bool) -> Result<Rat, Rejection> {
    let (x, e) = assign(cx, s)?;
    let post = cx.post(n)?;
    let (cost, shr, le) = vwrite_common(cx, n, (x, e), pre, bounding)?;
    let want = post.d.get(x).ok_or_else(|| cx.rej(Reason::NotInUniformSet(x.clone())))?;
    dep_implied(cx, x, &cx.assigned_candidates(pre, e), want)?;
    let q = match (post.q.mentions(x), le, &shr) {
        (false, _, _) => post.q.clone(),
        (true, Some(l), _) => post.q.map_atoms(|a| a.subst(x, &l)),
        // Q' has no negative coefficient (well-formedness), so it is monotone in its atoms
        (true, None, Some(Bounding::Halve(a, d))) if !divisor_mentions(&post.q, x) => {
            post.q.map_atom_kinds(|at| log_bound_subst(at, x, a, d))
        }
        // a product: only atoms falling with x (x ← its lower bound A + B − 1)
        (true, None, Some(Bounding::Floor(f))) if post.q.atoms_nonrising(x) => post.q.map_atoms(|l| l.subst(x, f)),
        (true, None, _) => return Err(cx.rej(Reason::SubstUndefined(x.clone()))),
    };
    cx.same_q(&pre.q, &plus(&q, &(&cx.m.vwrite + cost)), "pre", "post[x ← e] + M^vwrite + C")?;
    Ok(Rat::zero())
}

/// Q:VWRITE2 — possibly non-uniform `x ← e`: `D'(x)` absent or implied by `dep_D(e)`,
/// `Q'` does not mention `x`, `Q = Q' + M^vwrite + C`, `(entail post …)`.
pub fn q_vwrite2(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (x, e) = assign(cx, s)?;
    let post = cx.post(n)?;
    let (cost, _, _) = vwrite_common(cx, n, (x, e), pre, false)?;
    if let Some(want) = post.d.get(x) {
        dep_implied(cx, x, &cx.assigned_candidates(pre, e), want)?;
    }
    if post.q.mentions(x) {
        return Err(cx.rej(Reason::PotentialMentions(x.clone())));
    }
    cx.same_q(&pre.q, &plus(&post.q, &(&cx.m.vwrite + cost)), "pre", "post + M^vwrite + C")?;
    Ok(Rat::zero())
}

/// Shared part of Q:SHFL/Q:VOTE (`x ← shfl …`, `x ← vote …`): children are the operand
/// judgments; `P'` is `P` without the constraints mentioning `x`; `D'` equals `D` except
/// at `x`, where it is absent or implied by `cand` (`None`: no entry allowed); `Q'` does
/// not mention `x`; `Q = Q' + M^op + M^vwrite + C_1 (+ C_2)`.
fn warp_common(cx: &Ctx, n: &Node, x: &str, ops: &[&Opd], cand: Option<Dep>, pre: &Assn) -> Result<(), Rejection> {
    let post = cx.post(n)?;
    let mut cost = &cx.m.op + &cx.m.vwrite;
    match ops {
        [a] => {
            let c = cx.shape::<1>(n, &[])?;
            cost += cx.check_node(&c[0], Subject::Opd(a), pre, 0)?;
        }
        [a, b] => {
            let c = cx.shape::<2>(n, &[])?;
            cost += cx.check_node(&c[0], Subject::Opd(a), pre, 0)?;
            cost += cx.check_node(&c[1], Subject::Opd(b), pre, 1)?;
        }
        _ => return Err(cx.rej(Reason::ChildCount { expected: 2, found: ops.len() })),
    }
    let kept: Vec<Cstr> = pre.p.iter().filter(|k| !k.lin.mentions(x)).cloned().collect();
    cx.same_p(&kept, &post.p, "pre P without x", "post P")?;
    same_d_except(cx, &pre.d, &post.d, x)?;
    if let Some(want) = post.d.get(x) {
        dep_implied(cx, x, cand.as_slice(), want)?;
    }
    if post.q.mentions(x) {
        return Err(cx.rej(Reason::PotentialMentions(x.to_string())));
    }
    cx.same_q(&pre.q, &plus(&post.q, &cost), "pre", "post + M^op + M^vwrite + C")?;
    Ok(())
}

/// Q:SHFL — `x ← shfl k w (v, l)`: as [`warp_common`], with `D'(x)` implied by `dep_D(v)`
/// when that is warp-uniform (`k = 0`: every lane reads a lane holding the same value, or
/// keeps its own), else absent (spec/logic.md §4).
pub fn q_shfl(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Warp(x, WarpOp::Shfl(_, _, v, l))) = s else {
        return Err(wrong(cx, "shfl", s));
    };
    let cand = Ctx::dep_opd(&pre.d, v).filter(|d| d.k.iter().all(|k| k.is_zero()));
    warp_common(cx, n, x, &[v, l], cand, pre)?;
    Ok(Rat::zero())
}

/// Q:VOTE — `x ← vote k (p)`: as [`warp_common`], with `D'(x)` implied by the uniform
/// entry `(0, 0, 1)` (the vote is one value for all active lanes of the warp).
pub fn q_vote(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Warp(x, WarpOp::Vote(_, p))) = s else {
        return Err(wrong(cx, "vote", s));
    };
    warp_common(cx, n, x, &[p], Some(Dep::unknown_uniform()), pre)?;
    Ok(Rat::zero())
}

pub(super) fn write(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, space: Space) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Write(arr, o, e)) = s else {
        return Err(wrong(cx, "an array write", s));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &["n"])?;
    let count = cx.count(n, pre, arr, o, space)?;
    let c1 = cx.check_node(&c[0], Subject::Opd(o), pre, 0)?;
    let c2 = cx.check_node(&c[1], Subject::Expr(e), pre, 1)?;
    cx.same_p(&pre.p, &post.p, "pre", "post")?;
    cx.same_d(&pre.d, &post.d, "pre", "post")?;
    let f = if space == Space::Global { &cx.m.gwrite } else { &cx.m.swrite };
    cx.same_q(&pre.q, &plus(&post.q, &(at(f, &count) + c1 + c2)), "pre", "post + M^write(N) + C1 + C2")?;
    Ok(Rat::zero())
}

/// Q:GWRITE — `A[o] ← e`, `A` global: `(n N)` with `N ≥ N*_MemReads(o)`, `P' = P`,
/// `D' = D`, `Q = Q' + M^gwrite(N) + C1 + C2`.
pub fn q_gwrite(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    write(cx, n, s, pre, Space::Global)
}

/// Q:LWRITE — `A[o] ← e`, `A` thread-local: no field, `P' = P`, `D' = D`,
/// `Q = Q' + M^vwrite + C1 + C2`.
pub fn q_lwrite(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::Write(arr, o, e)) = s else {
        return Err(wrong(cx, "an array write", s));
    };
    super::expr::local_array(cx, arr)?;
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &[])?;
    let c1 = cx.check_node(&c[0], Subject::Opd(o), pre, 0)?;
    let c2 = cx.check_node(&c[1], Subject::Expr(e), pre, 1)?;
    cx.same_p(&pre.p, &post.p, "pre", "post")?;
    cx.same_d(&pre.d, &post.d, "pre", "post")?;
    cx.same_q(&pre.q, &plus(&post.q, &(&cx.m.vwrite + c1 + c2)), "pre", "post + M^vwrite + C1 + C2")?;
    Ok(Rat::zero())
}

/// Q:SWRITE — as Q:GWRITE for a shared array, with `Conflicts` and `M^swrite`.
pub fn q_swrite(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    write(cx, n, s, pre, Space::Shared)
}

pub(super) fn cond_stmt<'a>(cx: &Ctx, s: Subject<'a>) -> Result<(&'a Expr, &'a Stmt, &'a Stmt), Rejection> {
    match s {
        Subject::Stmt(Stmt::If(e, a, b)) => Ok((e, a, b)),
        _ => Err(wrong(cx, "an if statement", s)),
    }
}

/// Q:IF1 — uniform `if`: `P ⇒ e unif`; `T.pre = (P ∧ e, D, Q₀)`, `F.pre = (P ∧ ¬e, D, Q₀)`,
/// `T.post = F.post = post`, `Q = Q₀ + M^if + C`. In filtered position both branches are
/// filtered.
pub fn q_if1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (e, s1, s2) = cond_stmt(cx, s)?;
    let post = cx.post(n)?;
    let c = cx.shape::<3>(n, &[])?;
    cx.uniform(&pre.d, e)?;
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    let filter = cx.filter();
    cx.check_node_in(&c[1], Subject::Stmt(s1), pre, 1, filter.as_ref())?;
    cx.check_node_in(&c[2], Subject::Stmt(s2), pre, 2, filter.as_ref())?;
    let ((tp, tq), (fp, fq)) = (cx.pp(&c[1])?, cx.pp(&c[2])?);
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, e, false), &tp.p, "P ∧ e", "then pre")?;
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, e, true), &fp.p, "P ∧ ¬e", "else pre")?;
    cx.same_d(&pre.d, &tp.d, "pre", "then pre")?;
    cx.same_d(&pre.d, &fp.d, "pre", "else pre")?;
    cx.same_q(&tp.q, &fp.q, "then pre", "else pre")?;
    cx.same(tq, post, "then post", "post")?;
    cx.same(fq, post, "else post", "post")?;
    cx.same_q(&pre.q, &plus(&tp.q, &(&cx.m.if_ + cost)), "pre", "branch pre + M^if + C")?;
    Ok(Rat::zero())
}

fn if_decided(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, neg: bool) -> Result<Rat, Rejection> {
    let (e, s1, s2) = cond_stmt(cx, s)?;
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &["entail cond"])?;
    let targets = cx.decided_cond(e, neg)?;
    cx.entail(n, "cond", &pre.p, &targets)?;
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    cx.check_node_in(&c[1], Subject::Stmt(if neg { s2 } else { s1 }), pre, 1, cx.filter().as_ref())?;
    let (bp, bq) = cx.pp(&c[1])?;
    cx.same_p(&pre.p, &bp.p, "pre", "branch pre")?;
    cx.same_d(&pre.d, &bp.d, "pre", "branch pre")?;
    cx.same(bq, post, "branch post", "post")?;
    cx.same_q(&pre.q, &plus(&bp.q, &(&cx.m.if_ + cost)), "pre", "branch pre + M^if + C")?;
    Ok(Rat::zero())
}

/// Q:IF2 — `P ⇒ e` (`(entail cond …)`): only the then branch `T`, `T.pre = (P, D, Q₀)`,
/// `T.post = post`, `Q = Q₀ + M^if + C`.
pub fn q_if2(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    if_decided(cx, n, s, pre, false)
}

/// Q:IF3 — `P ⇒ ¬e` (`(entail cond …)`): only the else branch `F`, as Q:IF2.
pub fn q_if3(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    if_decided(cx, n, s, pre, true)
}

/// Q:IF4 — possibly divergent `if`: `T.pre = (P ∧ e, D, Q₀)`, `T.post = (P1, D1, Q1)`,
/// `F.pre = (P_F, D1 \ W(s1), Q1)`, `F.post = (P2, D2, Q2)`; witnesses `else-cond`
/// (`P ∧ ¬e ⇒ P_F`), `else-then` (`P1 ⇒ P_F`), `join-then` (`P1 ⇒ P'`), `join-else`
/// (`P2 ⇒ P'`); `D' = D2 \ W(s2)`, `Q' = Q2`, `Q = Q₀ + M^if + C + M^div`.
pub fn q_if4(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    if4(cx, n, s, pre, &Poly::constant(cx.m.div.clone()), "then pre + M^if + C + M^div", &[])
}

/// Q:IF4's premises with the divergence charge `div` in its `pre` equation
/// `Qn = Q + M^if + C + div` (`M^div` for Q:IF4; `M^div·[m ∤ s − X]` for Q:IFALIGN,
/// spec/logic.md §4); `what` names the right-hand side in a rejection; `more` are the
/// rule's fields besides Q:IF4's (Q:IFALIGN: `class`).
pub(super) fn if4(
    cx: &Ctx,
    n: &Node,
    s: Subject<'_>,
    pre: &Assn,
    div: &Poly,
    what: &'static str,
    more: &[&str],
) -> Result<Rat, Rejection> {
    let (e, s1, s2) = cond_stmt(cx, s)?;
    let post = cx.post(n)?;
    let fields = ["entail else-cond", "entail else-then", "entail join-then", "entail join-else"];
    let c = cx.shape::<3>(n, &[&fields[..], more].concat())?;
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    cx.check_node(&c[1], Subject::Stmt(s1), pre, 1)?;
    cx.check_node(&c[2], Subject::Stmt(s2), pre, 2)?;
    let ((tp, t1), (fp, f2)) = (cx.pp(&c[1])?, cx.pp(&c[2])?);
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, e, false), &tp.p, "P ∧ e", "then pre")?;
    cx.same_d(&pre.d, &tp.d, "pre", "then pre")?;
    cx.same_d(&without(&t1.d, &s1.writes()), &fp.d, "then post D \\ W(s1)", "else pre")?;
    cx.same_q(&t1.q, &fp.q, "then post", "else pre")?;
    cx.entail(n, "else-cond", &cx.and_cond(&pre.p, &pre.d, e, true), &fp.p)?;
    let linear: Vec<Cstr> = fp.p.iter().filter(|c| c.lane.is_none()).cloned().collect();
    cx.entail(n, "else-then", &t1.p, &linear)?;
    cx.entail(n, "join-then", &t1.p, &post.p)?;
    cx.entail(n, "join-else", &f2.p, &post.p)?;
    cx.same_d(&without(&f2.d, &s2.writes()), &post.d, "else post D \\ W(s2)", "post")?;
    cx.same_q(&f2.q, &post.q, "else post", "post")?;
    let extra = &cx.m.if_ + cost;
    cx.same_q(&pre.q, &plus(&tp.q, &extra).add_scaled(div, &Rat::one()), "pre", what)?;
    // A branch no thread takes runs on the empty set, where every P holds vacuously: its
    // post potential, possibly obtained by a rewrite that P justifies (a loop's exit
    // condition), is not available. Pointwise Q ≥ Q1 ≥ Q2 makes either branch skippable
    // (spec/logic.md §4, Q:IF4; the counterexample is tests/data/coq/if4_then_only).
    cx.ge_pointwise(&tp.q, &t1.q, "then pre", "then post")?;
    cx.ge_pointwise(&fp.q, &f2.q, "else pre", "else post")?;
    Ok(Rat::zero())
}

/// How a while rule treats its test (spec/logic.md §4): Q:WHILE1 (`P ⇒ e unif`), Q:WHILE2
/// (the test may split the warp: `M^div` every round), Q:WHILEWARP (the test cannot split a
/// warp, which the caller has checked: no `M^div`, Q:WHILE2's post).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Test {
    Uniform,
    Divergent,
    NoSplit,
}

pub(super) fn while_rule(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, test: Test) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::While(e, body)) = s else {
        return Err(wrong(cx, "a while loop", s));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &[])?;
    if test == Test::Uniform {
        cx.uniform(&pre.d, e)?;
    }
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    cx.check_node(&c[1], Subject::Stmt(body), pre, 1)?;
    let (bpre, bpost) = cx.pp(&c[1])?;
    let divergent = test != Test::Uniform;
    let step = if test == Test::Divergent { &cx.m.if_ + &cx.m.div + cost } else { &cx.m.if_ + cost };
    cx.same_q(&pre.q, &plus(&bpre.q, &step), "pre", "body pre + loop-test cost")?;
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, e, false), &bpre.p, "P ∧ e", "body pre")?;
    cx.same_d(&pre.d, &bpre.d, "pre", "body pre")?;
    cx.same(pre, bpost, "pre", "body post")?;
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, e, true), &post.p, "P ∧ ¬e", "post")?;
    let writes = body.writes();
    let d_out = if divergent { without(&pre.d, &writes) } else { (*pre.d).clone() };
    cx.same_d(&d_out, &post.d, if divergent { "pre D \\ W(s)" } else { "pre" }, "post")?;
    // Q:WHILE2's post potential is the invariant without its terms over W(s).
    let q_out = if divergent { bpre.q.without_vars(&writes) } else { bpre.q.clone() };
    cx.same_q(&post.q, &q_out, "post", if divergent { "body pre without W(s) terms" } else { "body pre" })?;
    Ok(Rat::zero())
}

/// Q:WHILE1 — uniform loop: `P ⇒ e unif`; `B.pre = (P ∧ e, D, Q')`,
/// `B.post = (P, D, Q' + M^if + C)`, `pre = (P, D, Q' + M^if + C)`, `post = (P ∧ ¬e, D, Q')`.
pub fn q_while1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    while_rule(cx, n, s, pre, Test::Uniform)
}

/// Q:WHILE2 — possibly divergent loop: as Q:WHILE1 without uniformity, with
/// `M^if + M^div + C`, and `post = (P ∧ ¬e, D \ W(s), Q'↾W(s))` (`Q'` without its terms
/// that mention a local of `W(s)`).
pub fn q_while2(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    while_rule(cx, n, s, pre, Test::Divergent)
}

/// Q:UNROLL — `while (e) s` by its first iteration: one child about
/// `if e then (s; while (e) s) else skip` with the node's own `pre` and `post` (the lock-step
/// semantics gives both statements the same final store and cost; spec/logic.md §4).
pub fn q_unroll(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(w @ Stmt::While(e, body)) = s else {
        return Err(wrong(cx, "a while loop", s));
    };
    let c = cx.shape::<1>(n, &[])?;
    let unrolled = Stmt::If(e.clone(), Box::new(Stmt::Seq(body.clone(), Box::new(w.clone()))), Box::new(Stmt::Skip));
    cx.check_node(&c[0], Subject::Stmt(&unrolled), pre, 0)?;
    let (cp, cq) = cx.pp(&c[0])?;
    cx.same(pre, cp, "pre", "unrolled pre")?;
    cx.same(cq, cx.post(n)?, "unrolled post", "post")?;
    Ok(Rat::zero())
}

fn if_exit(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, uniform: bool) -> Result<Rat, Rejection> {
    let (c, s1, s2) = cond_stmt(cx, s)?;
    let filter = cx.filter().ok_or_else(|| cx.rej(Reason::NotFiltered))?;
    let post = cx.post(n)?;
    let ch = cx.shape::<3>(n, &["entail exit", "entail join-then", "entail join-else"])?;
    if uniform {
        cx.uniform(&pre.d, c)?;
    }
    let exit = cx.cond(&filter, true);
    if exit.is_empty() {
        return Err(cx.rej(Reason::NoCondition(filter.to_string())));
    }
    let cost = cx.check_node(&ch[0], Subject::Expr(c), pre, 0)?;
    cx.check_node(&ch[1], Subject::Stmt(s1), pre, 1)?;
    cx.check_node_in(&ch[2], Subject::Stmt(s2), pre, 2, Some(&filter))?;
    let ((tp, t1), (fp, f2)) = (cx.pp(&ch[1])?, cx.pp(&ch[2])?);
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, c, false), &tp.p, "P ∧ c", "then pre")?;
    cx.same_d(&pre.d, &tp.d, "pre", "then pre")?;
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, c, true), &fp.p, "P ∧ ¬c", "else pre")?;
    cx.same_d(&pre.d, &fp.d, "pre", "else pre")?;
    cx.entail(n, "exit", &t1.p, &exit)?;
    cx.entail(n, "join-then", &t1.p, &post.p)?;
    cx.entail(n, "join-else", &f2.p, &post.p)?;
    cx.same_d(&f2.d, &post.d, "else post", "post")?;
    cx.same_q(&f2.q, &post.q, "else post", "post")?;
    if uniform {
        cx.same_q(&tp.q, &fp.q, "then pre", "else pre")?;
        cx.same_q(&pre.q, &plus(&fp.q, &(&cx.m.if_ + cost)), "pre", "branch pre + M^if + C")?;
    } else {
        cx.divergent_exit.set(true);
        let both = tp.q.add_scaled(&fp.q, &Rat::one());
        cx.same_q(
            &pre.q,
            &plus(&both, &(&cx.m.if_ + cost + cx.split_cost())),
            "pre",
            "then pre + else pre + M^if + C + M^div",
        )?;
    }
    Ok(Rat::zero())
}

/// Q:IFEXIT1 — `if c then s1 else s2` in filtered position for the loop condition `e`
/// (spec/logic.md §4a), `s1` leaving the loop: `P ⇒ c unif`; `T` ordinary with
/// `T.pre = (P ∧ c, D, Q₀)`, `(entail exit …)`: `T.post.P ⇒ ¬e` (`cond(¬e)` non-empty);
/// `F` filtered with `F.pre = (P ∧ ¬c, D, Q₀)`; `(entail join-then …)`/`(entail join-else …)`:
/// `T.post.P ⇒ P'`, `F.post.P ⇒ P'`; `D' = F.post.D`, `Q' = F.post.Q`; `Q = Q₀ + M^if + C`.
pub fn q_ifexit1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    if_exit(cx, n, s, pre, true)
}

/// Q:IFEXIT4 — as Q:IFEXIT1 without uniformity, with separate potentials
/// `T.pre.Q = Q_T`, `F.pre.Q = Q_F` and `Q = Q_T + Q_F + M^if + C + M^div`.
pub fn q_ifexit4(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    if_exit(cx, n, s, pre, false)
}

fn while_exit(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, uniform: bool) -> Result<Rat, Rejection> {
    while_exit_ge(cx, n, s, pre, uniform, None, false, None)
}

/// Q:WHILEEXIT1/2 (`ge = None`), or Q:WHILEGUARD/Q:WHILEGUARD1 with the facts `GE` added to
/// the body's pre, the body's post `J` paying the round `I + k` under `P ∧ GE`
/// (`(rewrite guard …)`) and the pre `J + Q' + M^if + C` (the last test never splits the
/// warp; a loop no lane enters costs it alone). `cap = Some((X, false))`: Q:WHILEGUARDCAP /
/// Q:WHILEEXITCAP (`rules/cap.rs`): `k = M^if + C`, the body checked with its exit nodes
/// charged without `M^div` ([`Ctx::split_cost`]), and the pre `X` more;
/// `cap = Some((X, true))`: Q:WHILEEXITCAP2, the same with the loop test's
/// `k = M^if + M^div + C` (the test pays its split per round, as Q:WHILEEXIT2).
#[allow(clippy::too_many_arguments)]
pub(super) fn while_exit_ge(
    cx: &Ctx,
    n: &Node,
    s: Subject<'_>,
    pre: &Assn,
    uniform: bool,
    guard: Option<&[Cstr]>,
    entry: bool,
    cap: Option<(&Rat, bool)>,
) -> Result<Rat, Rejection> {
    let ge = guard.unwrap_or(&[]);
    let Subject::Stmt(Stmt::While(e, body)) = s else {
        return Err(wrong(cx, "a while loop", s));
    };
    let post = cx.post(n)?;
    // Q:WHILEGUARD(1): `(rewrite guard …)` shows the loop head's `J` pays the round
    // Q:WHILEGUARD0: `(rewrite entry …)` shows the pre's `J₀` pays the first round
    let lists: &[&str] = match (guard.is_some(), entry) {
        (true, true) => &["rewrite guard", "rewrite entry"],
        (true, false) => &["rewrite guard"],
        _ => &[],
    };
    let c = cx.shape::<2>(n, lists)?;
    if let Expr::Read(a, _) = e {
        return Err(cx.rej(Reason::ExitTestReads(a.clone())));
    }
    // Q:WHILEGUARD1 (every test) and Q:WHILEGUARD0 (the first test): `P ⇒ g unif`
    if uniform || entry {
        cx.uniform(&pre.d, e)?;
    }
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    let saved = cx.divergent_exit.replace(false);
    let saved_cap = cx.capped.replace(cap.is_some());
    let r = cx.check_node_in(&c[1], Subject::Stmt(body), pre, 1, Some(e));
    cx.capped.set(saved_cap);
    let divergent = cx.divergent_exit.replace(saved);
    r?;
    if uniform && divergent {
        return Err(cx.rej(Reason::DivergentExit));
    }
    let (bpre, bpost) = cx.pp(&c[1])?;
    let k0 = &cx.m.if_ + &cost;
    // Q:WHILEEXITCAP2 (`cap = Some((_, true))`) keeps the test's `M^div`, the other cap
    // rules drop it
    let test_div = cap.is_none_or(|(_, per_round)| per_round);
    let k = if uniform || !test_div { k0.clone() } else { &k0 + &cx.m.div };
    // Q:WHILEGUARDCAP / Q:WHILEEXITCAP(2): the pre less the lane-count charge `X`
    let pre_q = cap.map_or_else(|| pre.q.clone(), |(x, _)| plus(&pre.q, &-x.clone()));
    // `P ∧ cond(e)`, `P ∧ cond(¬e)`: no lane facts (spec/logic.md §4a, Q:WHILEEXIT2)
    let and_cond = |neg| -> Vec<Cstr> { pre.p.iter().cloned().chain(cx.cond(e, neg)).collect() };
    let body_p: Vec<Cstr> = and_cond(false).into_iter().chain(ge.iter().cloned()).collect();
    let what = if guard.is_none() { "P ∧ cond(e)" } else { "P ∧ cond(e) ∧ GE" };
    cx.same_p(&body_p, &bpre.p, what, "body pre")?;
    cx.same_d(&pre.d, &bpre.d, "pre", "body pre")?;
    cx.same_p(&pre.p, &bpost.p, "pre", "body post")?;
    cx.same_d(&pre.d, &bpost.d, "pre", "body post")?;
    if guard.is_some() {
        // Q:WHILEGUARD(1): the body's post `J` is the loop head's potential; it owes the
        // round `I + k` only where a lane enters the body, under `P ∧ GE`; the last test
        // is failed by every thread, so it never splits: the pre is `J + Q' + M^if + C`
        cx.dominates(n, "guard", &bpre.p, &bpost.q, &plus(&bpre.q, &k))?;
        if entry {
            // Q:WHILEGUARD0: the first test cannot split the warp (`g` uniform in the
            // pre), so the pre's `J₀ = pre − Q' − M^if − C` (no negative coefficient) owes
            // the first round `I + M^if + C` (no `M^div`) under `P ∧ GE`
            cx.ge_pointwise(&pre.q, &plus(&post.q, &k0), "pre", "post + M^if + C")?;
            let j0 = plus(&pre.q.add_scaled(&post.q, &-Rat::one()), &-k0.clone());
            cx.dominates(n, "entry", &bpre.p, &j0, &plus(&bpre.q, &k0))?;
        } else {
            let want = plus(&bpost.q.add_scaled(&post.q, &Rat::one()), &k0);
            cx.same_q(&pre_q, &want, "pre", "body post + post + M^if + C")?;
        }
    } else {
        cx.same_q(&bpost.q, &plus(&bpre.q, &k), "body post", "body pre + loop-test cost")?;
        let want = plus(&bpre.q.add_scaled(&post.q, &Rat::one()), &(&k + &k));
        cx.same_q(&pre_q, &want, "pre", "body pre + post + 2·loop-test cost")?;
    }
    cx.same_p(&and_cond(true), &post.p, "P ∧ cond(¬e)", "post")?;
    cx.same_d(&without(&pre.d, &body.writes()), &post.d, "pre D \\ W(s)", "post")?;
    Ok(Rat::zero())
}

/// Q:WHILEEXIT1 — uniform loop left by jumps (spec/logic.md §4a): `e` reads no array,
/// `P ⇒ e unif`; `B` filtered for `e` with `B.pre = (P ∧ cond(e), D, I)`,
/// `B.post = (P, D, I + k)`, `k = M^if + C`, and no Q:IFEXIT4 in `B`'s filtered spine;
/// `pre = (P, D, I + Q' + 2k)`, `post = (P ∧ cond(¬e), D \ W(s), Q')` (no lane facts).
pub fn q_whileexit1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    while_exit(cx, n, s, pre, true)
}

/// Q:WHILEEXIT2 — possibly divergent loop left by jumps: as Q:WHILEEXIT1 without the
/// uniformity conditions, with `k = M^if + M^div + C`.
pub fn q_whileexit2(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    while_exit(cx, n, s, pre, false)
}

/// Q:WHILEGUARD — the loop `while (g) s` on a `bool` guard `g`, preceded in its Q:SEQ by
/// the guard's write `g ← E` (spec/logic.md §4a): as Q:WHILEEXIT2, with the body's pre
/// `(P ∧ GE, D, I)` where `GE = cond(E)`, provided every path of `s` ends with a write
/// `g ← c` with `cond(c) = GE` or falsifies `g` ([`guard_last`]): a thread that satisfies
/// the test satisfies `GE`, on entry and after every round. The body's post is
/// `(P, D, J)` with `(rewrite guard …)`: `J ≥ I + k` under `P ∧ GE`, and the pre
/// `(P, D, J + Q' + M^if + C)`. Errors: as Q:WHILEEXIT2, [`Reason::GuardEntry`],
/// [`Reason::NotDominated`] (list `guard`).
pub fn q_whileguard(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    while_guard(cx, n, s, pre, false, false, None)
}

/// Q:WHILEGUARD1 — the uniform mode of Q:WHILEGUARD (spec/logic.md §4a): Q:WHILEEXIT1
/// (`P ⇒ g unif`, `k = M^if + C`, no divergent exit in the body's filtered spine) with the
/// body's pre `(P ∧ GE, D, I)`, under the same guard premises as Q:WHILEGUARD.
pub fn q_whileguard1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    while_guard(cx, n, s, pre, true, false, None)
}

/// Q:WHILEGUARD0 — Q:WHILEGUARD whose first test cannot split the warp (issue 15,
/// spec/logic.md §4a): `P ⇒ g unif` in the pre; the pre is `(P, D, J₀ + Q' + M^if + C)`
/// for any `J₀` without negative coefficients with `(rewrite entry …)`: `J₀ ≥ I + M^if + C`
/// under `P ∧ GE` (the first round owes no `M^div`); the rest as Q:WHILEGUARD (the body's
/// post `J` pays the later rounds `I + k` by `(rewrite guard …)`). Errors: as Q:WHILEGUARD,
/// [`Reason::NotUniform`], [`Reason::NotPointwiseBelow`] (pre below `Q' + M^if + C`),
/// [`Reason::NotDominated`] (list `entry`).
pub fn q_whileguard0(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    while_guard(cx, n, s, pre, false, true, None)
}

/// Q:WHILEGUARD (`uniform = false`), Q:WHILEGUARD1 (`uniform = true`) and Q:WHILEGUARD0
/// (`entry = true`); `cap`: Q:WHILEGUARDCAP ([`while_exit_ge`]).
pub(super) fn while_guard(
    cx: &Ctx,
    n: &Node,
    s: Subject<'_>,
    pre: &Assn,
    uniform: bool,
    entry: bool,
    cap: Option<(&Rat, bool)>,
) -> Result<Rat, Rejection> {
    let Subject::Stmt(Stmt::While(Expr::Opd(Opd::Var(g)), body)) = s else {
        return Err(wrong(cx, "a loop on a bool guard", s));
    };
    if cx.prog.local(g) != Some(crate::syntax::Ty::Bool) {
        return Err(cx.rej(Reason::GuardEntry(format!("`{g}` is not a bool local"))));
    }
    let key = n as *const Node as usize;
    let s0 = cx.prev.borrow().as_ref().filter(|(k, _)| *k == key).map(|(_, p)| p.clone());
    let e0 = match s0 {
        Some(Stmt::Assign(x, e0)) if x == *g => e0,
        _ => return Err(cx.rej(Reason::GuardEntry(format!("the loop is not a Q:SEQ child right after `{g} ← E`")))),
    };
    let ge = cx.cond(&e0, false);
    if !guard_last(cx, g, &ge, body) {
        return Err(cx.rej(Reason::GuardEntry(format!(
            "a path of the body neither ends with `{g} ← E'`, cond(E') = cond({e0}), nor falsifies `{g}`"
        ))));
    }
    while_exit_ge(cx, n, s, pre, uniform, Some(&ge), entry, cap)
}

/// Whether every path of `s` ends with a write `g ← c` with `cond(c) = ge` or falsifies
/// `g` (spec/logic.md §4a, Q:WHILEGUARD; Coq `guard_last`): `(assign g c)`; `(seq s1 s2)`
/// with `s2` such; `(if c s1 s2)` with each branch such or falsifying `g`.
fn guard_last(cx: &Ctx, g: &str, ge: &[Cstr], s: &Stmt) -> bool {
    let either = |b: &Stmt| guard_last(cx, g, ge, b) || falsifies(g, b);
    match s {
        Stmt::Assign(x, c) => x == g && cx.cond(c, false) == ge,
        Stmt::Seq(_, b) => guard_last(cx, g, ge, b),
        Stmt::If(_, a, b) => either(a) && either(b),
        _ => false,
    }
}

/// Q:WEAK — consequence: child about the same statement; `(frame C)`, `C ≥ 0`;
/// `(entail pre …)`: `P ⇒ N.pre.P`; `(rewrite pre …)`: `Q ≥ N.pre.Q + C` under `P`;
/// `D ⊒ N.pre.D`; `(entail post …)`: `N.post.P ⇒ P'`; `(rewrite post …)`:
/// `N.post.Q + C ≥ Q'` under `N.post.P`; `N.post.D ⊒ D'`. In filtered position the child is
/// filtered.
pub fn q_weak(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    weak(cx, n, s, pre, false)
}

/// Q:WEAK (`lower` false) and L:WEAK (`lower` true, spec/logic.md §4b): the same fields
/// and checks, with the two potential comparisons reversed for L:WEAK (`Q ≤ N.pre.Q + C`,
/// `N.post.Q + C ≤ Q'`) and only equality rewrites ([`Ctx::rewritten`]). The rewrites
/// apply to `Q` (pre) and to `N.post.Q + C` (post) in both.
pub(super) fn weak(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, lower: bool) -> Result<Rat, Rejection> {
    let post = cx.post(n)?;
    let c = cx.shape::<1>(n, &["frame", "entail pre", "rewrite pre", "entail post", "rewrite post"])?;
    let frame = n.frame.clone().unwrap_or_else(Rat::zero);
    if frame.is_negative() {
        return Err(cx.rej(Reason::Negative { what: "frame", value: frame.to_string() }));
    }
    cx.check_node_in(&c[0], s, pre, 0, cx.filter().as_ref())?;
    let (np, nq) = cx.pp(&c[0])?;
    let compare = |name: &'static str, p: &[Cstr], rewritten: &Poly, other: &Poly| {
        if !lower {
            return cx.dominates(n, name, p, rewritten, other);
        }
        let q = cx.rewritten(n, name, p, rewritten, true)?;
        match other.add_scaled(&q, &-Rat::one()).negative_term() {
            Some(term) => Err(cx.rej(Reason::NotDominated { list: name, term })),
            None => Ok(()),
        }
    };
    cx.entail(n, "pre", &pre.p, &np.p)?;
    compare("pre", &pre.p, &pre.q, &plus(&np.q, &frame))?;
    cx.covers(&pre.d, &np.d)?;
    cx.entail(n, "post", &nq.p, &post.p)?;
    compare("post", &nq.p, &plus(&nq.q, &frame), &post.q)?;
    cx.covers(&nq.d, &post.d)?;
    Ok(Rat::zero())
}

/// The thread coefficients `K = (a_threadIdx.x, a_threadIdx.y, a_threadIdx.z) +
/// Σ_{v local} a_v·k_v` of the form `l` under `d` (spec/logic.md §4, Q:WHILELAST,
/// Q:WHILEWARP). Errors: a local of `l` without a linear entry.
pub(super) fn thread_k(cx: &Ctx, d: &DepMap, l: &crate::arith::Lin) -> Result<[Rat; 3], Rejection> {
    let mut k: [Rat; 3] = Default::default();
    for (v, a) in &l.terms {
        if let Some(i) = super::TIDS.iter().position(|t| t == v) {
            if let Some(ki) = k.get_mut(i) {
                *ki += a;
            }
        } else if cx.prog.param(v).is_none() {
            let e = d.get(v).filter(|e| e.linear()).ok_or_else(|| cx.rej(Reason::NoLinearEntry(v.clone())))?;
            for (ki, ke) in k.iter_mut().zip(&e.k) {
                *ki += a * Rat::from_integer(ke.clone());
            }
        }
    }
    Ok(k)
}

/// `L` of `cond(e) = [L ≤ 0]` when `cond(¬e)` is non-empty (Q:WHILELAST, Q:WHILEWARP).
pub(super) fn test_form(cx: &Ctx, e: &Expr) -> Result<Lin, Rejection> {
    let (ce, cne) = (cx.cond(e, false), cx.cond(e, true));
    match (ce.as_slice(), cne.is_empty()) {
        ([k], false) if !k.eq && k.lane.is_none() => Ok(k.lin.clone()),
        _ => Err(cx.rej(Reason::NoCondition(e.to_string()))),
    }
}

/// The lane spread `w` of the form `l` under `d` (spec/logic.md §4, Q:WHILELAST): with
/// `K = (a_threadIdx.x, a_threadIdx.y, a_threadIdx.z) + Σ_{v local} a_v·k_v` (every local of
/// `l` must have a linear entry in `d`; parameters are uniform), the largest
/// `max K·tid − min K·tid` over the lanes of one warp of the block. Errors: a local of `l`
/// without a linear entry, or a block larger than the enumeration limit.
fn lane_spread(cx: &Ctx, d: &DepMap, l: &crate::arith::Lin) -> Result<Rat, Rejection> {
    let k = thread_k(cx, d, l)?;
    let total = crate::access::block_threads(cx.block)
        .filter(|&t| t <= crate::access::WORK_LIMIT)
        .ok_or_else(|| cx.rej(Reason::NoLinearEntry("the block's lanes (too many to enumerate)".into())))?;
    let warp = u64::from(cx.hw[0].max(1));
    let (mut w, mut start) = (Rat::zero(), 0u64);
    while start < total {
        let end = (start + warp).min(total);
        let vals: Vec<Rat> = (start..end)
            .map(|t| {
                let ti = crate::access::thread_index(cx.block, t);
                k.iter().zip(ti).fold(Rat::zero(), |acc, (kd, x)| acc + kd * Rat::from_integer(x.into()))
            })
            .collect();
        if let (Some(lo), Some(hi)) = (vals.iter().min(), vals.iter().max()) {
            w = w.max(hi - lo);
        }
        start = end;
    }
    Ok(w)
}

/// Q:WHILELAST — possibly divergent loop whose test splits the warp at most once, in its
/// last round (spec/logic.md §4): `cond(e) = [L ≤ 0]` with `cond(¬e)` non-empty, every local
/// of `L` with a linear entry in `D`, `w` the lane spread of `L` ([`lane_spread`]); children
/// `e`, `B`, `B'`; `B.pre = (P ∧ e, D, I)`, `B.post = (P, D, I + M^if + C)`;
/// `B'.pre = (P ∧ e, −L + 1 − w ≤ 0; D; I)`, `B'.post = (P_N, D, I + M^if + C)` with
/// `(entail last …)`: `P_N ⇒ P ∧ cond(¬e)`; `pre = (P, D, I + M^if + M^div + C)`,
/// `post = (P ∧ ¬e, D \ W(s), I↾W(s))`.
pub fn q_whilelast(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    whilelast(cx, n, s, pre, &Poly::constant(cx.m.div.clone()), "body pre + M^if + M^div + C", &[])
}

/// The `while (e) s` of a Q:WHILELAST or Q:WHILELASTALIGN node (spec/logic.md §4).
pub(super) fn while_parts<'s>(cx: &Ctx, s: Subject<'s>) -> Result<(&'s Expr, &'s Stmt), Rejection> {
    match s {
        Subject::Stmt(Stmt::While(e, body)) => Ok((e, body)),
        _ => Err(wrong(cx, "a while loop", s)),
    }
}

/// Q:WHILELAST's premises with the one-time divergence charge `div` in its `pre` equation
/// `pre = (P, D, I + M^if + C + div)` (`M^div` for Q:WHILELAST; `M^div·[m ∤ s − X]` for
/// Q:WHILELASTALIGN, spec/logic.md §4); `what` names the right-hand side in a rejection;
/// `more` are the rule's fields besides Q:WHILELAST's (Q:WHILELASTALIGN: `class`).
pub(super) fn whilelast(
    cx: &Ctx,
    n: &Node,
    s: Subject<'_>,
    pre: &Assn,
    div: &Poly,
    what: &'static str,
    more: &[&str],
) -> Result<Rat, Rejection> {
    let (e, body) = while_parts(cx, s)?;
    let post = cx.post(n)?;
    let c = cx.shape::<3>(n, &[&["entail last"][..], more].concat())?;
    let l = test_form(cx, e)?;
    let cne = cx.cond(e, true);
    let w = lane_spread(cx, &pre.d, &l)?;
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    cx.check_node(&c[1], Subject::Stmt(body), pre, 1)?;
    cx.check_node(&c[2], Subject::Stmt(body), pre, 2)?;
    let ((bpre, bpost), (lpre, lpost)) = (cx.pp(&c[1])?, cx.pp(&c[2])?);
    let step = &cx.m.if_ + cost;
    cx.same_q(&pre.q, &plus(&bpre.q, &step).add_scaled(div, &Rat::one()), "pre", what)?;
    let pe = cx.and_cond(&pre.p, &pre.d, e, false);
    cx.same_p(&pe, &bpre.p, "P ∧ e", "body pre")?;
    cx.same_d(&pre.d, &bpre.d, "pre", "body pre")?;
    cx.same_p(&pre.p, &bpost.p, "pre", "body post")?;
    cx.same_d(&pre.d, &bpost.d, "pre", "body post")?;
    cx.same_q(&bpost.q, &plus(&bpre.q, &step), "body post", "body pre + M^if + C")?;
    // the last round: the lanes that stay after a split test are within `w` of one that left
    let one = Rat::one();
    let window = Cstr::le(l.scale(&-one.clone()).add_scaled(&crate::arith::Lin::constant(&one - &w), &one));
    let pl: Vec<Cstr> = pe.into_iter().chain([window]).collect();
    cx.same_p(&pl, &lpre.p, "P ∧ e ∧ −L + 1 − w ≤ 0", "last body pre")?;
    cx.same_d(&pre.d, &lpre.d, "pre", "last body pre")?;
    cx.same_q(&bpre.q, &lpre.q, "body pre", "last body pre")?;
    cx.same_d(&pre.d, &lpost.d, "pre", "last body post")?;
    cx.same_q(&bpost.q, &lpost.q, "body post", "last body post")?;
    let exit: Vec<Cstr> = pre.p.iter().cloned().chain(cne).collect();
    cx.entail(n, "last", &lpost.p, &exit)?;
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, e, true), &post.p, "P ∧ ¬e", "post")?;
    let writes = body.writes();
    cx.same_d(&without(&pre.d, &writes), &post.d, "pre D \\ W(s)", "post")?;
    cx.same_q(&post.q, &bpre.q.without_vars(&writes), "post", "body pre without W(s) terms")?;
    Ok(Rat::zero())
}

/// The bool local `g` of a filter `(var g)` (Q:GUARD, Q:GUARDEXIT; spec/logic.md §4a).
fn guard_var(cx: &Ctx) -> Result<String, Rejection> {
    let filter = cx.filter().ok_or_else(|| cx.rej(Reason::NotFiltered))?;
    match &filter {
        Expr::Opd(Opd::Var(g)) if cx.prog.local(g) == Some(crate::syntax::Ty::Bool) => Ok(g.clone()),
        _ => Err(cx.rej(Reason::NoCondition(filter.to_string()))),
    }
}

/// Whether the last write of `g` in `s` is `g ← false` (spec/logic.md §4a, Q:GUARDEXIT):
/// `s = (assign g (bool false))`, or `s = (seq s1 s2)` with `s2` falsifying `g`, or `s1`
/// falsifying it and `g ∉ W(s2)`.
pub(super) fn falsifies(g: &str, s: &Stmt) -> bool {
    match s {
        Stmt::Assign(x, Expr::Opd(Opd::Bool(false))) => x == g,
        Stmt::Seq(a, b) => falsifies(g, b) || (falsifies(g, a) && !b.writes().iter().any(|w| w == g)),
        _ => false,
    }
}

/// Q:GUARD — `g ← c` in filtered position for the loop condition `(var g)`, `g` a `bool`
/// local (spec/logic.md §4a): child `N` ordinary about the same statement with
/// `N.pre = (P, D, Q)`, `N.post = (P1, D1, Q1)`; `post = (P1, D', Q')` with `D1 ⊒ D'` and
/// `(rewrite guard …)`: `Q1 ≥ Q'` under `P1 ∧ cond(c)` (the post potential is only owed to the
/// threads that set `g` to true, for which `c` held).
pub fn q_guard(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let g = guard_var(cx)?;
    let Subject::Stmt(Stmt::Assign(x, c)) = s else {
        return Err(wrong(cx, "an assignment of the loop guard", s));
    };
    if *x != g {
        return Err(wrong(cx, "an assignment of the loop guard", s));
    }
    let post = cx.post(n)?;
    let ch = cx.shape::<1>(n, &["rewrite guard"])?;
    cx.check_node(&ch[0], s, pre, 0)?;
    let (np, nq) = cx.pp(&ch[0])?;
    cx.same(pre, np, "pre", "child pre")?;
    cx.same_p(&nq.p, &post.p, "child post", "post")?;
    cx.covers(&nq.d, &post.d)?;
    let pc: Vec<Cstr> = nq.p.iter().cloned().chain(cx.cond(c, false)).collect();
    cx.dominates(n, "guard", &pc, &nq.q, &post.q)?;
    Ok(Rat::zero())
}

/// Q:GUARDEXIT — a statement `s` in filtered position for the loop condition `(var g)`,
/// `g` a `bool` local, whose last write of `g` is `g ← false` ([`falsifies`]; spec/logic.md
/// §4a): child `N` ordinary about `s` with `N.pre = pre`, `N.post = (P1, D1, Q1)`;
/// `(entail exit …)`: `P1 ⇒ P'`; `D'`, `Q'` unconstrained (no thread satisfies `g` after `s`).
pub fn q_guardexit(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let g = guard_var(cx)?;
    let Subject::Stmt(st) = s else {
        return Err(wrong(cx, "a statement", s));
    };
    if !falsifies(&g, st) {
        return Err(wrong(cx, "a statement ending with `g ← false`", s));
    }
    let post = cx.post(n)?;
    let ch = cx.shape::<1>(n, &["entail exit"])?;
    cx.check_node(&ch[0], s, pre, 0)?;
    let (np, nq) = cx.pp(&ch[0])?;
    cx.same(pre, np, "pre", "child pre")?;
    cx.entail(n, "exit", &nq.p, &post.p)?;
    Ok(Rat::zero())
}

/// Q:IFGUARD4 — `if c then s1 else s2` in filtered position for the loop condition
/// `(var g)`, `g` a `bool` local, whose else branch falsifies `g` ([`falsifies`];
/// spec/logic.md §4a): the lanes taking the else branch leave the loop, those taking the
/// then branch stay or not as `s1` decides. Children `c`, `T` (filtered for `(var g)`),
/// `F` (ordinary); `T.pre = (P ∧ c, D, Q_T)`, `F.pre = (P ∧ ¬c, D, Q_F)`;
/// `(entail join-then …)`: `T.post.P ⇒ P'`, `(entail join-else …)`: `F.post.P ⇒ P'`;
/// `D' = T.post.D`, `Q' = T.post.Q`; `Q = Q_T + Q_F + M^if + C + M^div`.
pub fn q_ifguard4(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let g = guard_var(cx)?;
    let (c, s1, s2) = cond_stmt(cx, s)?;
    if !falsifies(&g, s2) {
        return Err(wrong(cx, "an `if` whose else branch ends with `g ← false`", s));
    }
    let filter = cx.filter().ok_or_else(|| cx.rej(Reason::NotFiltered))?;
    let post = cx.post(n)?;
    let ch = cx.shape::<3>(n, &["entail join-then", "entail join-else"])?;
    let cost = cx.check_node(&ch[0], Subject::Expr(c), pre, 0)?;
    cx.check_node_in(&ch[1], Subject::Stmt(s1), pre, 1, Some(&filter))?;
    cx.check_node(&ch[2], Subject::Stmt(s2), pre, 2)?;
    let ((tp, t1), (fp, f2)) = (cx.pp(&ch[1])?, cx.pp(&ch[2])?);
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, c, false), &tp.p, "P ∧ c", "then pre")?;
    cx.same_d(&pre.d, &tp.d, "pre", "then pre")?;
    cx.same_p(&cx.and_cond(&pre.p, &pre.d, c, true), &fp.p, "P ∧ ¬c", "else pre")?;
    cx.same_d(&pre.d, &fp.d, "pre", "else pre")?;
    cx.entail(n, "join-then", &t1.p, &post.p)?;
    cx.entail(n, "join-else", &f2.p, &post.p)?;
    cx.same_d(&t1.d, &post.d, "then post", "post")?;
    cx.same_q(&t1.q, &post.q, "then post", "post")?;
    cx.divergent_exit.set(true);
    let both = tp.q.add_scaled(&fp.q, &Rat::one());
    cx.same_q(
        &pre.q,
        &plus(&both, &(&cx.m.if_ + cost + cx.split_cost())),
        "pre",
        "then pre + else pre + M^if + C + M^div",
    )?;
    Ok(Rat::zero())
}

/// Q:FLAGEXIT — `s1; if f then s2 else s3` in filtered position for the loop condition
/// `(var g)`, `g` a `bool` local, whose else branch falsifies `g` (spec/logic.md §4a; the
/// lowered jump-flag test `if jmp < 2 then { …; g ← E } else { g ← false; … }` after the
/// part `s1` of the body whose exits set the flag). Children `N` (`s1`, filtered for `f`),
/// `f` (reads no array), `T` (`s2`, filtered for `(var g)`), `F` (`s3`, ordinary).
/// `N.pre = (P, D, Q₀)`, `N.post = (P1, D1, Q1)`; the test's cost `C` under `(P1, D1)`;
/// `T.pre = (P1 ∧ cond(f), D1, Q1)`; `F.pre = (P1, ∅, Q_F)`; `(entail join-then …)`:
/// `T.post.P ⇒ P'`, `(entail join-else …)`: `F.post.P ⇒ P'`; `D' = T.post.D`,
/// `Q' = T.post.Q`; `Q = Q₀ + Q_F + M^if + C + M^div`.
pub fn q_flagexit(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let g = guard_var(cx)?;
    let filter = cx.filter().ok_or_else(|| cx.rej(Reason::NotFiltered))?;
    let Subject::Stmt(Stmt::Seq(s1, rest)) = s else {
        return Err(wrong(cx, "a statement followed by the jump-flag test", s));
    };
    let Stmt::If(f, s2, s3) = &**rest else {
        return Err(wrong(cx, "a statement followed by the jump-flag test", s));
    };
    if !falsifies(&g, s3) {
        return Err(wrong(cx, "a flag test whose else branch ends with `g ← false`", s));
    }
    if let Expr::Read(a, _) = f {
        return Err(cx.rej(Reason::ExitTestReads(a.clone())));
    }
    let post = cx.post(n)?;
    let ch = cx.shape::<4>(n, &["entail join-then", "entail join-else"])?;
    cx.check_node_in(&ch[0], Subject::Stmt(s1), pre, 0, Some(f))?;
    let (np, n1) = cx.pp(&ch[0])?;
    cx.same_p(&pre.p, &np.p, "pre", "flagged part pre")?;
    cx.same_d(&pre.d, &np.d, "pre", "flagged part pre")?;
    let cost = cx.check_node(&ch[1], Subject::Expr(f), n1, 1)?;
    cx.check_node_in(&ch[2], Subject::Stmt(s2), n1, 2, Some(&filter))?;
    cx.check_node(&ch[3], Subject::Stmt(s3), n1, 3)?;
    let ((tp, t1), (fp, f2)) = (cx.pp(&ch[2])?, cx.pp(&ch[3])?);
    let p_f: Vec<Cstr> = n1.p.iter().cloned().chain(cx.cond(f, false)).collect();
    cx.same_p(&p_f, &tp.p, "P1 ∧ cond(f)", "then pre")?;
    cx.same_d(&n1.d, &tp.d, "flagged part post", "then pre")?;
    cx.same_q(&n1.q, &tp.q, "flagged part post", "then pre")?;
    cx.same_p(&n1.p, &fp.p, "flagged part post", "else pre")?;
    cx.same_d(&DepMap::new(), &fp.d, "∅", "else pre")?;
    cx.entail(n, "join-then", &t1.p, &post.p)?;
    cx.entail(n, "join-else", &f2.p, &post.p)?;
    cx.same_d(&t1.d, &post.d, "then post", "post")?;
    cx.same_q(&t1.q, &post.q, "then post", "post")?;
    cx.divergent_exit.set(true);
    let both = np.q.add_scaled(&fp.q, &Rat::one());
    cx.same_q(
        &pre.q,
        &plus(&both, &(&cx.m.if_ + cost + cx.split_cost())),
        "pre",
        "part pre + else pre + M^if + C + M^div",
    )?;
    Ok(Rat::zero())
}
