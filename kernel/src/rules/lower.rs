//! Lower-bound rules `⊢ᴸ_M {P; D; Q} s {P'; D'; Q'}` (spec/logic.md §4b, rules `L:*`): the
//! cost of the named warp from a state satisfying `(P, D)` is at least `Q − Q'`. They occur
//! only in certificates with a `(lower W)` section (the registry's roles). The rules whose
//! statement cost is charged exactly share the checks of their `Q:` counterparts; the
//! access counts of L:GARRAY/L:SARRAY/L:GWRITE/L:SWRITE are bounded above by the warp's
//! count ([`Ctx::access_lower`], through [`Ctx::count`]); L:WEAK reverses Q:WEAK's
//! comparisons and allows only equality rewrites.

use super::stmt::{self, Test};
use super::{expr, Ctx, Subject};
use crate::arith::Rat;
use crate::syntax::{Assn, Node, Space};
use crate::Rejection;
use num_traits::Zero;

/// L:SKIP — `skip`: `pre = post` (Q:SKIP's premises).
pub fn l_skip(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_skip(cx, n, s, pre)
}

/// L:SYNC — `sync`: `Q = Q' + M^sync` (exact).
pub fn l_sync(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_sync(cx, n, s, pre)
}

/// L:SEQ — `s1; s2`: Q:SEQ's premises with `L:` children.
pub fn l_seq(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_seq(cx, n, s, pre)
}

/// L:VWRITE1 — `x ← e`: `Q = Q'[x ← lin_P(e)] + M^vwrite + C`, exact substitution only (no
/// halving or product bound: those are upper-direction inequalities).
pub fn l_vwrite1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::vwrite1(cx, n, s, pre, false)
}

/// L:VWRITE2 — `x ← e`, `Q'` not mentioning `x`: `Q = Q' + M^vwrite + C` (exact).
pub fn l_vwrite2(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_vwrite2(cx, n, s, pre)
}

/// L:GWRITE — `A[o] ← e`, `A` global: `(n N)` with `N ≤ N_W(o)`,
/// `Q = Q' + M^gwrite(N) + C1 + C2`.
pub fn l_gwrite(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::write(cx, n, s, pre, Space::Global)
}

/// L:SWRITE — as L:GWRITE for a shared array (`Conflicts`, `M^swrite`).
pub fn l_swrite(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::write(cx, n, s, pre, Space::Shared)
}

/// L:LWRITE — `A[o] ← e`, `A` thread-local: `Q = Q' + M^vwrite + C1 + C2` (exact).
pub fn l_lwrite(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_lwrite(cx, n, s, pre)
}

/// L:IF1 — uniform `if`: one branch pre potential `Q₀` for both branches (at most each
/// branch's lower bound), `Q = Q₀ + M^if + C`.
pub fn l_if1(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_if1(cx, n, s, pre)
}

/// L:IF2 — `P ⇒ e`: only the then branch, `Q = Q₀ + M^if + C`.
pub fn l_if2(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_if2(cx, n, s, pre)
}

/// L:IF3 — `P ⇒ ¬e`: only the else branch, `Q = Q₀ + M^if + C`.
pub fn l_if3(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_if3(cx, n, s, pre)
}

/// L:IFD — `if e then s1 else s2`, possibly divergent, its branches charged nothing: a
/// run's cost is never negative on a non-empty warp (spec/logic.md §4b). One child `e`;
/// `(entail post …)`: `P ⇒ P'`; no constraint of `P'` and no atom of `Q'` mentions a local
/// of `W(s1) ∪ W(s2)` (`IfdWritten`); `D' = D \ W(s1) ∪ W(s2)`; `Q = Q' + M^if + C`.
pub fn l_ifd(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    divergent_if(cx, n, s, pre, Split::No)
}

/// L:IFDIV — `if e then s1 else s2` that provably splits warp `W`: L:IFD's premises and
/// `(lanes ℓ1 ℓ2)`, two lanes of `W` (`0 ≤ ℓ < Wsz`, thread id `Wsz·W + ℓ` below the block
/// size, else `IfdivLane`), with `(entail then …)`: `P ∧ threadIdx = tid(ℓ1) ⇒ e` and
/// `(entail else …)`: `P ∧ threadIdx = tid(ℓ2) ⇒ ¬e` (source list: the three equalities
/// `threadIdx.x = a`, `threadIdx.y = b`, `threadIdx.z = c`, then `P`; targets `cond(e)`,
/// `cond(¬e)`, spec/logic.md §2); `Q = Q' + M^if + C + M^div + minc(s1) + minc(s2)`
/// (both branches run on non-empty thread sets; [`minc`]; spec/logic.md §4b).
pub fn l_ifdiv(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    divergent_if(cx, n, s, pre, Split::Div)
}

/// L:IFALIGN — `if e then s1 else s2` that provably splits warp `W` (L:IFDIV's premises:
/// lanes `ℓ1`, `ℓ2` deciding the test both ways under `P`), charged `M^div·[m ∤ s − X]`
/// instead of `M^div`: `Q = Q' + M^if + C + minc(s1) + minc(s2) + M^div·[m ∤ s − X]` exactly (else
/// `IfalignCharge`), the atom computed from the node's `(class S M)` (required,
/// `MissingField`) by Q:IFALIGN's [`align_charge`](super::align::align_charge) with its
/// class checks (`BadResidueClass`). Sound as L:IFDIV, the atom being at most 1; the
/// producer copies the class of the Q:IFALIGN node of the same `if`, so both bounds have
/// one form (spec/logic.md §4b).
pub fn l_ifalign(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    divergent_if(cx, n, s, pre, Split::Res)
}

/// L:IFDT — `if e then s1 else s2`, possibly divergent, whose then branch some lane of
/// `W` provably takes: L:IFD's premises and `(lanes ℓ)`, a lane of `W` (else `IfdivLane`),
/// with `(entail then …)`: `P ∧ threadIdx = tid(ℓ) ⇒ e` (sources as L:IFDIV's);
/// `Q = Q' + M^if + C + minc(s1)` ([`minc`]: what every run of `s1` on a non-empty thread
/// set costs at least). The then branch runs on all of `W` or on its true lanes, which
/// hold `ℓ` (spec/logic.md §4b).
pub fn l_ifdt(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    divergent_if(cx, n, s, pre, Split::Then)
}

/// L:IFWRAP — `if e then s1 else s2` that provably splits warp `W` by a wrapped test
/// (issue 14, syn-brdis's `if ((threadIdx.x + i) % 2 == 0)`): L:IFD's premises, the test
/// `x == 0` or `x != 0` (`(bin == (var x) (int 0))`, `!=` alike) with the pre's entry
/// `D(x) = (wrap x k m)`, `m ≥ 2`, and the values `k·tid(ℓ) mod m` over the lanes `ℓ` of
/// `W` covering every residue `0 … m − 1` ([`wrap_split`], else `IfwrapSplit`);
/// `Q = Q' + M^if + C + M^div + minc(s1) + minc(s2)` as L:IFDIV. For the entry's unknown
/// `c`, the lane with `k·tid ≡ −c` has `x = 0` and the one with `k·tid ≡ 1 − c` has
/// `x ≠ 0` (spec/logic.md §4b).
pub fn l_ifwrap(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    divergent_if(cx, n, s, pre, Split::Wrap)
}

/// L:IFWRAP's split condition on the test `e` under the pre's map `d` for warp `warp`
/// (spec/logic.md §4b): `e` is `(bin == (var x) (int 0))` or `(bin != (var x) (int 0))`,
/// `d(x)` a wrapped entry `(wrap x k m)` with `2 ≤ m ≤ Wsz`, and every residue mod `m`
/// is `k·tid(ℓ) mod m` for some lane `ℓ` of the warp (thread id below the block size).
/// Errors: `IfwrapSplit` naming the failed condition.
fn wrap_split(cx: &Ctx, d: &crate::arith::DepMap, e: &crate::syntax::Expr, warp: u32) -> Result<(), Rejection> {
    use crate::arith::EntryKind;
    use crate::syntax::{Expr, Opd};
    use num_integer::Integer;
    use num_traits::ToPrimitive;
    let bad = |why| cx.rej(crate::Reason::IfwrapSplit { test: e.to_string(), warp, why });
    let x = match e {
        Expr::Bin(op, Opd::Var(x), Opd::Int(z)) if (op == "==" || op == "!=") && z.is_zero() => x,
        _ => return Err(bad("not `x == 0` or `x != 0` for a local x")),
    };
    let ent =
        d.get(x).filter(|ent| ent.kind == EntryKind::Wrap).ok_or_else(|| bad("no wrapped entry for the local"))?;
    let ws = cx.hw[0];
    let m =
        ent.g.to_u32().filter(|m| (2..=ws).contains(m)).ok_or_else(|| bad("the modulus is not in 2 … warp size"))?;
    let mut seen = vec![false; m as usize];
    // the lanes of the judgment's set T (all of warp `warp`, or a branch's subset)
    for t in cx.threads() {
        let tid = crate::access::thread_index(cx.block, t);
        let v: num_bigint::BigInt = ent.k.iter().zip(tid.iter()).map(|(k, t)| k * *t).sum();
        let r = v.mod_floor(&num_bigint::BigInt::from(m)).to_usize().unwrap_or(0);
        if let Some(s) = seen.get_mut(r) {
            *s = true;
        }
    }
    if seen.iter().all(|b| *b) {
        Ok(())
    } else {
        Err(bad("the lanes' k·tid do not cover every residue mod m"))
    }
}

/// `minc(s)` (spec/logic.md §4b, L:IFDT): a lower bound on the cost of every run of `s`
/// on a non-empty thread set, in the metric's unit. An operand costs its constant
/// (`M^var`, `M^const`, `M^param`); an expression its operands plus `M^op`, or plus the
/// access at count 1 (`M^gread(1)`, `M^sread(1)`, `M^var` for a local array); `x ← e`:
/// `minc(e) + M^vwrite`; `A[o] ← e`: `minc(o) + minc(e) + M^gwrite(1)` (`M^swrite(1)`,
/// `M^vwrite`); `s1; s2`: the sum; `if`/`while`: the test and `M^if`; `sync`: `M^sync`;
/// `skip` and warp operations 0. Iterative over sequences. Coq: `Lower.sminc`,
/// `seval_minc`.
pub fn minc(cx: &Ctx, s: &crate::syntax::Stmt) -> Rat {
    use crate::metric::at;
    use crate::syntax::{Expr, Opd, Stmt};
    let one = Rat::from_integer(1.into());
    let m = &cx.m;
    let opd = |o: &Opd| match o {
        Opd::Var(_) | Opd::Tid(_) => m.var.clone(),
        Opd::Param(_) => m.param.clone(),
        Opd::Int(_) | Opd::Bool(_) | Opd::Float(_) => m.konst.clone(),
    };
    // the access of array `a` at count 1 (a read, or a write when `write`)
    let acc = |a: &str, write: bool| match cx.prog.array(a).map(|x| x.space) {
        Some(Space::Global) => at(if write { &m.gwrite } else { &m.gread }, &one),
        Some(Space::Shared) => at(if write { &m.swrite } else { &m.sread }, &one),
        Some(Space::Local) => {
            if write {
                m.vwrite.clone()
            } else {
                m.var.clone()
            }
        }
        None => Rat::zero(),
    };
    let expr = |e: &Expr| match e {
        Expr::Opd(o) => opd(o),
        Expr::Bin(_, a, b) => opd(a) + opd(b) + &m.op,
        Expr::Un(_, a) => opd(a) + &m.op,
        Expr::Read(a, i) => opd(i) + acc(a, false),
    };
    let mut total = Rat::zero();
    let mut todo = vec![s];
    while let Some(s) = todo.pop() {
        total += match s {
            Stmt::Skip | Stmt::Warp(..) => Rat::zero(),
            Stmt::Sync => m.sync.clone(),
            Stmt::Seq(a, b) => {
                todo.push(b);
                todo.push(a);
                Rat::zero()
            }
            Stmt::Assign(_, e) => expr(e) + &m.vwrite,
            Stmt::Write(a, o, e) => opd(o) + expr(e) + acc(a, true),
            Stmt::If(e, ..) | Stmt::While(e, _) => expr(e) + &m.if_,
        };
    }
    total
}

/// What a divergent `if` of the lower logic charges beyond `M^if + C`: nothing (L:IFD),
/// `M^div` (L:IFDIV) or `M^div` times a residue atom (L:IFALIGN), which need the lane
/// witnesses of a split, or `minc(s1)` (L:IFDT), which needs a lane taking the then branch.
#[derive(Clone, Copy, PartialEq)]
enum Split {
    No,
    Div,
    Res,
    Then,
    Wrap,
}

impl Split {
    fn rule(self) -> &'static str {
        match self {
            Split::No => "L:IFD",
            Split::Div => "L:IFDIV",
            Split::Res => "L:IFALIGN",
            Split::Then => "L:IFDT",
            Split::Wrap => "L:IFWRAP",
        }
    }
}

/// The thread index of lane `lane` of warp `warp` as the three facts `threadIdx.d = v`
/// (L:IFDIV), or `IfdivLane` when it is not a lane of that warp.
fn lane_facts(
    cx: &Ctx,
    rule: &'static str,
    warp: u32,
    lane: &num_bigint::BigInt,
) -> Result<Vec<crate::arith::Cstr>, Rejection> {
    use crate::arith::{Cstr, Lin};
    use num_traits::ToPrimitive;
    let bad = || cx.rej(crate::Reason::IfdivLane { rule, lane: lane.to_string(), warp });
    let l = lane.to_u64().filter(|l| *l < u64::from(cx.hw[0])).ok_or_else(bad)?;
    let t = u64::from(cx.hw[0]).checked_mul(u64::from(warp)).and_then(|b| b.checked_add(l)).ok_or_else(bad)?;
    if crate::access::block_threads(cx.block).is_none_or(|b| t >= b) {
        return Err(bad());
    }
    // the lane must be in the judgment's lane set T (a branch's subset under L:IFSPLIT)
    if !cx.threads().contains(&t) {
        return Err(bad());
    }
    let tid = crate::access::thread_index(cx.block, t);
    Ok(super::TIDS
        .iter()
        .zip(tid)
        .map(|(v, k)| {
            Cstr::equal(
                Lin::var(v).add_scaled(&Lin::constant(Rat::from_integer(k.into())), &-Rat::from_integer(1.into())),
            )
        })
        .collect())
}

/// L:IFD's frame (shared by L:IFD, L:IFDIV, L:IFALIGN and L:IFSPLIT, spec/logic.md §4b): no
/// constraint of `P'` and no atom of `Q'` mentions a local of `W(s1) ∪ W(s2)`
/// (`IfdWritten`), `(entail post …)` proves `P ⇒ P'`, and `D' = D \ W(s1) ∪ W(s2)`.
fn ifd_frame(
    cx: &Ctx,
    n: &Node,
    s1: &crate::syntax::Stmt,
    s2: &crate::syntax::Stmt,
    pre: &Assn,
    post: &Assn,
) -> Result<(), Rejection> {
    use crate::Reason;
    let mut w = s1.writes();
    w.extend(s2.writes());
    for x in &w {
        if post.p.iter().any(|c| c.lin.mentions(x)) {
            return Err(cx.rej(Reason::IfdWritten { part: "P", var: x.clone() }));
        }
        if post.q.mentions(x) {
            return Err(cx.rej(Reason::IfdWritten { part: "Q", var: x.clone() }));
        }
    }
    cx.entail(n, "post", &pre.p, &post.p)?;
    cx.same_d(&stmt::without(&pre.d, &w), &post.d, "pre D \\ W(s1) ∪ W(s2)", "post")
}

/// L:IFD, L:IFDIV and L:IFALIGN (`split`: the charge beyond `M^if + C`).
fn divergent_if(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn, split: Split) -> Result<Rat, Rejection> {
    use crate::Reason;
    let (e, s1, s2) = stmt::cond_stmt(cx, s)?;
    let post = cx.post(n)?;
    let c = match split {
        Split::Res => cx.shape::<1>(n, &["entail post", "lanes", "entail then", "entail else", "class"])?,
        Split::Div => cx.shape::<1>(n, &["entail post", "lanes", "entail then", "entail else"])?,
        Split::Then => cx.shape::<1>(n, &["entail post", "lanes", "entail then"])?,
        Split::No | Split::Wrap => cx.shape::<1>(n, &["entail post"])?,
    };
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    ifd_frame(cx, n, s1, s2, pre, post)?;
    let mut extra = &cx.m.if_ + cost;
    // `Fix(ℓ) ∧ P ⇒ cond(e)` (`neg`: `cond(¬e)`), the witnesses in list `name`
    let lane_witness = |lane, neg, name| {
        let mut source = lane_facts(cx, split.rule(), cx.lower.unwrap_or(0), lane)?;
        source.extend(pre.p.iter().cloned());
        let targets = cx.decided_cond(e, neg)?;
        if targets.is_empty() {
            return Err(cx.rej(Reason::NoCondition(e.to_string())));
        }
        cx.entail(n, name, &source, &targets)
    };
    match split {
        Split::No => cx.same_q(&pre.q, &post.q.plus_const(&extra), "pre", "post + M^if + C")?,
        Split::Then => {
            // one lane of W takes the then branch: it runs on a non-empty thread set
            let [l1] = n.lanes.as_slice() else {
                return Err(cx.rej(Reason::MissingField("lanes")));
            };
            lane_witness(l1, false, "then")?;
            extra += minc(cx, s1);
            cx.same_q(&pre.q, &post.q.plus_const(&extra), "pre", "post + M^if + C + minc(s1)")?;
        }
        Split::Wrap => {
            // the warp splits on the wrapped test: both branches run on non-empty sets
            wrap_split(cx, &pre.d, e, cx.lower.unwrap_or(0))?;
            extra += &cx.m.div + minc(cx, s1) + minc(cx, s2);
            cx.same_q(&pre.q, &post.q.plus_const(&extra), "pre", "post + M^if + C + M^div + minc(s1) + minc(s2)")?;
        }
        Split::Div | Split::Res => {
            // the warp splits: both branches run on non-empty thread sets
            let [l1, l2] = n.lanes.as_slice() else {
                return Err(cx.rej(Reason::MissingField("lanes")));
            };
            lane_witness(l1, false, "then")?;
            lane_witness(l2, true, "else")?;
            extra += minc(cx, s1) + minc(cx, s2);
            if split == Split::Res {
                // `Q = Q' + M^if + C + minc(s1) + minc(s2) + M^div·[m ∤ s − X]`, the atom
                // from the node's class as Q:IFALIGN computes it (class checks included)
                let class = n.class.as_deref().ok_or_else(|| cx.rej(Reason::MissingField("class")))?;
                let charge = super::align::align_charge(cx, &pre.d, e, class)?;
                let want = post.q.plus_const(&extra).add_scaled(&charge, &cx.m.div);
                let diff = pre.q.add_scaled(&want, &-Rat::from_integer(1.into()));
                if !diff.terms.is_empty() {
                    return Err(cx.rej(Reason::IfalignCharge(diff.to_string())));
                }
            } else {
                extra += &cx.m.div;
                cx.same_q(&pre.q, &post.q.plus_const(&extra), "pre", "post + M^if + C + M^div + minc(s1) + minc(s2)")?;
            }
        }
    }
    Ok(Rat::zero())
}

/// L:IFSPLIT — `if e then s1 else s2` whose test splits the judgment's lane set `T` by a
/// remainder entry (issue 14, addSub0's `if (j % 2 == 0)`; spec/logic.md §4b "Lane
/// subsets"): the test is `x == 0` or `x != 0` with the pre's entry `D(x) = (rem x k r m)`,
/// `T1 = {ℓ ∈ T : m | k·tid(ℓ) + r}` for `==` (`T \ T1` for `!=`) the lanes taking the then
/// branch and `T2 = T \ T1`, both non-empty ([`split_set`], else `IfsplitLanes`). Three
/// children: `e`, the then branch as a lower judgment over `T1` and the else branch over
/// `T2` (checked with [`Ctx::lane_set`] set to the subset). Fields `(entail post …)`:
/// `P ⇒ P'`; `(entail then …)`: `P ∧ e ⇒ P1`; `(entail else …)`: `P ∧ ¬e ⇒ P2` (`∧` with
/// `cond` and `lane_D`, §2); `D ⊒ D1`, `D ⊒ D2` (`DepNotImplied`); each branch's pre and
/// post potentials constants (`IfsplitPotential`); L:IFD's frame (`IfdWritten`,
/// `D' = D \ W(s1) ∪ W(s2)`); `Q = Q' + M^if + C + M^div + (Q1 − Q1') + (Q2 − Q2')`.
/// Sound: the lock-step run is SC:IFD with the then branch on exactly `T1` and the else
/// branch on exactly `T2` (from the store the then branch left, which changed no local of
/// `T2`'s lanes), each costing at least its constant difference.
pub fn l_ifsplit(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    use crate::Reason;
    let (e, s1, s2) = stmt::cond_stmt(cx, s)?;
    let post = cx.post(n)?;
    let c = cx.shape::<3>(n, &["entail post", "entail then", "entail else"])?;
    let cost = cx.check_node(&c[0], Subject::Expr(e), pre, 0)?;
    let (t1, t2) = split_set(cx, &pre.d, e)?;
    let potential = |branch, which, q| Reason::IfsplitPotential { branch, which, q };
    let k1 = subset_branch(cx, n, pre, e, &c[1], 1, s1, t1, false, potential)?;
    let k2 = subset_branch(cx, n, pre, e, &c[2], 2, s2, t2, true, potential)?;
    ifd_frame(cx, n, s1, s2, pre, post)?;
    let extra = &cx.m.if_ + cost + &cx.m.div + k1 + k2;
    cx.same_q(&pre.q, &post.q.plus_const(&extra), "pre", "post + M^if + C + M^div + (Q1 − Q1') + (Q2 − Q2')")?;
    Ok(Rat::zero())
}

/// L:IFSPLIT's lane subsets for the test `e` under the pre's map `d` (spec/logic.md §4b):
/// `e` is `(bin == (var x) (int 0))` or `(bin != (var x) (int 0))` with `d(x)` a remainder
/// entry `(rem x k r m)`; returns the thread ids of the judgment's set `T` ([`Ctx::threads`])
/// taking the then branch (`m | k·tid + r` for `==`, not for `!=`) and the others, in
/// order. Errors: `IfsplitLanes` naming the failed condition (either set empty included).
pub fn split_set(
    cx: &Ctx,
    d: &crate::arith::DepMap,
    e: &crate::syntax::Expr,
) -> Result<(Vec<u64>, Vec<u64>), Rejection> {
    use crate::arith::EntryKind;
    use crate::syntax::{Expr, Opd};
    use num_integer::Integer;
    let bad = |why| cx.rej(crate::Reason::IfsplitLanes { test: e.to_string(), why });
    let (x, eq) = match e {
        Expr::Bin(op, Opd::Var(x), Opd::Int(z)) if (op == "==" || op == "!=") && z.is_zero() => (x, op == "=="),
        _ => return Err(bad("not `x == 0` or `x != 0` for a local x")),
    };
    let ent =
        d.get(x).filter(|ent| ent.kind == EntryKind::Rem).ok_or_else(|| bad("no remainder entry for the local"))?;
    if ent.g < num_bigint::BigInt::from(1) {
        return Err(bad("the remainder entry's modulus is below 1"));
    }
    let (mut then, mut other) = (Vec::new(), Vec::new());
    for t in cx.threads() {
        let tid = crate::access::thread_index(cx.block, t);
        let v: num_bigint::BigInt =
            ent.k.iter().zip(tid.iter()).map(|(k, t)| k * *t).sum::<num_bigint::BigInt>() + &ent.r;
        // `σ(x, ℓ) = 0` iff `m | k·tid(ℓ) + r`, since `−m < σ(x, ℓ) < m`
        if v.mod_floor(&ent.g).is_zero() == eq {
            then.push(t);
        } else {
            other.push(t);
        }
    }
    if then.is_empty() {
        return Err(bad("no lane of the set takes the then branch"));
    }
    if other.is_empty() {
        return Err(bad("no lane of the set takes the else branch"));
    }
    Ok((then, other))
}

/// L:IFLANES — `if e then s1 else s2` whose test is decided lane by lane by exact entries
/// (issue 14, reduce1's `if (index < blockDim.x)` with `index = 2·s·tid` in an unrolled
/// round; spec/logic.md §4b "Lane subsets"): `e` compares two operands whose values are
/// exact on every lane ([`lanes_set`], else `IflanesTest`), which gives the lanes `T1` of
/// the judgment's set `T` taking the then branch and `T2 = T \ T1`. One child `e`, then one
/// lower judgment per **non-empty** subset, then-branch first (over `T1`, from `P ∧ e`;
/// over `T2`, from `P ∧ ¬e`, each checked as L:IFSPLIT's branches, [`subset_branch`]); fields
/// `(entail post …)`, `(entail then …)` (read when `T1 ≠ ∅`), `(entail else …)` (read when
/// `T2 ≠ ∅`); L:IFD's frame; `Q = Q' + M^if + C + Σ_{Ti ≠ ∅} (Qi − Qi') + [T1 ≠ ∅ ≠ T2]·M^div`.
/// Sound: the lock-step step is SC:IFT (`T2 = ∅`: `s1` on all of `T`), SC:IFF (`T1 = ∅`)
/// or SC:IFD (both non-empty: L:IFSPLIT's argument), each branch on exactly its subset.
pub fn l_iflanes(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let (e, s1, s2) = stmt::cond_stmt(cx, s)?;
    let post = cx.post(n)?;
    let (t1, t2) = lanes_set(cx, &pre.d, e)?;
    let fields = ["entail post", "entail then", "entail else"];
    let (e_node, kids) = match (t1.is_empty(), t2.is_empty()) {
        (false, false) => {
            let c = cx.shape::<3>(n, &fields)?;
            (&c[0], vec![(&c[1], s1, t1, false), (&c[2], s2, t2, true)])
        }
        (false, true) => {
            let c = cx.shape::<2>(n, &fields)?;
            (&c[0], vec![(&c[1], s1, t1, false)])
        }
        (true, false) => {
            let c = cx.shape::<2>(n, &fields)?;
            (&c[0], vec![(&c[1], s2, t2, true)])
        }
        (true, true) => {
            return Err(cx.rej(crate::Reason::IflanesTest { test: e.to_string(), why: "the lane set is empty" }))
        }
    };
    let cost = cx.check_node(e_node, Subject::Expr(e), pre, 0)?;
    let split = kids.len() == 2;
    let mut extra = &cx.m.if_ + cost;
    let potential = |branch, which, q| crate::Reason::IflanesPotential { branch, which, q };
    for (i, (child, st, set, neg)) in kids.into_iter().enumerate() {
        extra += subset_branch(cx, n, pre, e, child, i + 1, st, set, neg, potential)?;
    }
    if split {
        extra += &cx.m.div;
    }
    ifd_frame(cx, n, s1, s2, pre, post)?;
    cx.same_q(&pre.q, &post.q.plus_const(&extra), "pre", "post + M^if + C + Σ (Qi − Qi') [+ M^div]")?;
    Ok(Rat::zero())
}

/// One branch of L:IFSPLIT or L:IFLANES: `child`, about `st` (child index `i`), a lower
/// judgment over the lane subset `set` (checked with [`Ctx::lane_set`] set to it), whose pre
/// `P` is entailed by `P ∧ e` (`neg`: `P ∧ ¬e`; list `then`/`else`), whose pre `D` the if's
/// covers, and whose potentials are constants (else the rule's reason `potential(branch,
/// which, q)`); returns `Qi − Qi'`.
#[allow(clippy::too_many_arguments)]
fn subset_branch(
    cx: &Ctx,
    n: &Node,
    pre: &Assn,
    e: &crate::syntax::Expr,
    child: &Node,
    i: usize,
    st: &crate::syntax::Stmt,
    set: Vec<u64>,
    neg: bool,
    potential: fn(&'static str, &'static str, String) -> crate::Reason,
) -> Result<Rat, Rejection> {
    let saved = cx.lane_set.replace(Some(std::rc::Rc::new(set)));
    let checked = cx.check_node(child, Subject::Stmt(st), pre, i);
    *cx.lane_set.borrow_mut() = saved;
    checked?;
    let (bpre, bpost) = cx.pp(child)?;
    let name = if neg { "else" } else { "then" };
    cx.entail(n, name, &cx.and_cond(&pre.p, &pre.d, e, neg), &bpre.p)?;
    cx.covers(&pre.d, &bpre.d)?;
    let constant = |q: &crate::arith::Poly, which: &'static str| {
        if q.terms.keys().all(Vec::is_empty) {
            Ok(q.terms.iter().map(|(_, v)| v.clone()).fold(Rat::zero(), |a, b| a + b))
        } else {
            Err(cx.rej(potential(name, which, q.to_string())))
        }
    };
    Ok(constant(&bpre.q, "pre")? - constant(&bpost.q, "post")?)
}

/// L:IFLANES's lane subsets for the test `e` under the pre's map `d` (spec/logic.md §4b):
/// `e` is `(bin op a b)` with `op` one of `<`, `<=`, `>`, `>=`, `==`, `!=` and each operand
/// an integer constant, a `threadIdx.d` or a local with an **exact** linear entry
/// `(dep x k r 0)` (`dep_D` with `g = 0`), so that its value on lane `ℓ` is
/// `k·tid(ℓ) + r`; returns the thread ids of the judgment's set `T` ([`Ctx::threads`])
/// where the comparison of these values holds and the others, in order (either may be
/// empty). Errors: `IflanesTest` naming the failed condition.
pub fn lanes_set(
    cx: &Ctx,
    d: &crate::arith::DepMap,
    e: &crate::syntax::Expr,
) -> Result<(Vec<u64>, Vec<u64>), Rejection> {
    use crate::syntax::Expr;
    use num_bigint::BigInt;
    let bad = |why| cx.rej(crate::Reason::IflanesTest { test: e.to_string(), why });
    let Expr::Bin(op, a, b) = e else {
        return Err(bad("not a comparison `a op b`"));
    };
    if !["<", "<=", ">", ">=", "==", "!="].contains(&op.as_str()) {
        return Err(bad("not a comparison `a op b`"));
    }
    let exact = |o| {
        Ctx::dep_opd(d, o)
            .filter(|x| x.linear() && x.g.is_zero())
            .ok_or_else(|| bad("an operand has no exact linear entry"))
    };
    let (da, db) = (exact(a)?, exact(b)?);
    let value = |x: &crate::arith::Dep, tid: &[i64; 3]| -> BigInt {
        x.k.iter().zip(tid.iter()).map(|(k, t)| k * BigInt::from(*t)).sum::<BigInt>() + &x.r
    };
    let (mut then, mut other) = (Vec::new(), Vec::new());
    for t in cx.threads() {
        let tid = crate::access::thread_index(cx.block, t);
        let (va, vb) = (value(&da, &tid), value(&db, &tid));
        let holds = match op.as_str() {
            "<" => va < vb,
            "<=" => va <= vb,
            ">" => va > vb,
            ">=" => va >= vb,
            "==" => va == vb,
            _ => va != vb,
        };
        if holds {
            then.push(t);
        } else {
            other.push(t);
        }
    }
    Ok((then, other))
}

/// L:UNROLL — `while (e) s` with a constant trip count: one child about
/// `if e then (s; while (e) s) else skip` with the node's pre and post (Q:UNROLL's premises;
/// both statements have the same runs and costs, so the lower bound carries over).
pub fn l_unroll(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::q_unroll(cx, n, s, pre)
}

/// L:WHILE — uniform loop with invariant `I`: `B.pre = (P ∧ e, D, I)`,
/// `B.post = (P, D, I + M^if + C)`, `pre = (P, D, I + M^if + C)`, `post = (P ∧ ¬e, D, I)`.
pub fn l_while(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::while_rule(cx, n, s, pre, Test::Uniform)
}

/// L:WEAK — one child `N`, `(frame F)`: `P ⇒ N.pre.P`, `D ⊒ N.pre.D`, `Q` rewritten under
/// `P` is at most `N.pre.Q + F`; `N.post.P ⇒ P'`, `N.post.D ⊒ D'`, `N.post.Q + F`
/// rewritten under `N.post.P` is at most `Q'`. Only equality rewrites.
pub fn l_weak(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    stmt::weak(cx, n, s, pre, true)
}

/// L:GARRAY — `(read A o)`, `A` global: `(n N)` with `N ≤ N_W(o)`; costs `C_o + M^gread(N)`.
pub fn l_garray(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    expr::read(cx, n, s, env, Space::Global)
}

/// L:SARRAY — `(read A o)`, `A` shared: `(n N)` with `N ≤ N_W(o)`; costs `C_o + M^sread(N)`.
pub fn l_sarray(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    expr::read(cx, n, s, env, Space::Shared)
}

/// L:GARRAYSTRIDE — `(read A o)`, `A` global, with fields `(n N)` and `(entail stride w)`:
/// `0 ≤ N ≤ stride_W(o)` ([`stride_count`]); costs `C_o + M^gread(N)` (spec/logic.md §4b
/// "Strided accesses").
pub fn l_garraystride(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    let Subject::Expr(crate::syntax::Expr::Read(arr, o)) = s else {
        return Err(cx.rej(crate::Reason::WrongSubject { expected: "an array read", found: s.describe() }));
    };
    let c = cx.shape::<1>(n, &["n", "entail stride"])?;
    let count = stride_count(cx, n, env, arr, o)?;
    let co = cx.check_node(&c[0], Subject::Opd(o), env, 0)?;
    Ok(co + crate::metric::at(&cx.m.gread, &count))
}

/// L:GWRITESTRIDE — `A[o] ← e`, `A` global, with fields `(n N)` and `(entail stride w)`:
/// L:GWRITE's premises (`P' = P`, `D' = D`, `Q = Q' + M^gwrite(N) + C1 + C2`) with
/// `0 ≤ N ≤ stride_W(o)` ([`stride_count`]; spec/logic.md §4b "Strided accesses").
pub fn l_gwritestride(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let Subject::Stmt(crate::syntax::Stmt::Write(arr, o, e)) = s else {
        return Err(cx.rej(crate::Reason::WrongSubject { expected: "an array write", found: s.describe() }));
    };
    let post = cx.post(n)?;
    let c = cx.shape::<2>(n, &["n", "entail stride"])?;
    let count = stride_count(cx, n, pre, arr, o)?;
    let c1 = cx.check_node(&c[0], Subject::Opd(o), pre, 0)?;
    let c2 = cx.check_node(&c[1], Subject::Expr(e), pre, 1)?;
    cx.same_p(&pre.p, &post.p, "pre", "post")?;
    cx.same_d(&pre.d, &post.d, "pre", "post")?;
    let charge = crate::metric::at(&cx.m.gwrite, &count) + c1 + c2;
    cx.same_q(&pre.q, &post.q.plus_const(&charge), "pre", "post + M^gwrite(N) + C1 + C2")?;
    Ok(Rat::zero())
}

/// The checked claim `(n N)` of L:GARRAYSTRIDE / L:GWRITESTRIDE for the global access
/// `arr[o]` under the pre `env` (spec/logic.md §4b "Strided accesses"): `scaled_D(o)` has
/// one `?` dimension `d` with a row multiplier `u = A·P + B` over an `int` parameter,
/// `(A, B) ≠ (0, 0)`; the non-`?` part of the entry has one value on the named warp's
/// lanes; `(entail stride w)` proves `S − s·u ≤ 0` from `P` (`S = ⌈M/es⌉`, `s` the sign of
/// `A`, else of `B`); and `0 ≤ N ≤` the number of distinct `tid_d` over the warp's lanes.
/// Returns `N`.
///
/// Errors: `StrideEntry` (the entry, the multiplier or the warp's non-`?` part), a
/// Farkas rejection of list `entail stride`, `AccessAbove`, and [`Ctx::access_site`]'s.
pub fn stride_count(cx: &Ctx, n: &Node, env: &Assn, arr: &str, o: &crate::syntax::Opd) -> Result<Rat, Rejection> {
    use crate::arith::{Cstr, EntryKind, Lin};
    use crate::syntax::Ty;
    use crate::Reason;
    use num_integer::Integer;
    use num_traits::Signed;
    let (a, claimed, _) = cx.access_site(n, arr, Space::Global)?;
    let bad = |why: &'static str| cx.rej(Reason::StrideEntry { index: o.to_string(), why });
    let dep = Ctx::scaled_opd(&env.d, o)
        .filter(|d| matches!(d.kind, EntryKind::Scaled(u) if u.iter().filter(|b| **b).count() == 1))
        .ok_or_else(|| bad("no scaled entry with one `?` dimension"))?;
    let mul = dep.mul.clone().ok_or_else(|| bad("no row multiplier"))?;
    if cx.prog.param(&mul.param) != Some(Ty::Int) {
        return Err(bad("the multiplier's variable is not an `int` parameter"));
    }
    let sign = if mul.a.is_zero() { mul.b.signum() } else { mul.a.signum() };
    if sign.is_zero() {
        return Err(bad("the multiplier is 0"));
    }
    let dim = dep.unknown_dims().iter().position(|b| *b).unwrap_or(0);
    // the lanes of the judgment's set T (all of the named warp, or a branch's subset under
    // L:IFSPLIT), all active
    let lanes: Vec<[i64; 3]> = cx.threads().into_iter().map(|t| crate::access::thread_index(cx.block, t)).collect();
    let rest = |t: &[i64; 3]| -> num_bigint::BigInt {
        dep.k
            .iter()
            .zip(t)
            .enumerate()
            .filter(|(e, _)| *e != dim)
            .map(|(_, (k, v))| k * num_bigint::BigInt::from(*v))
            .sum()
    };
    if lanes.iter().any(|t| rest(t) != lanes.first().map(rest).unwrap_or_default()) {
        return Err(bad("the part without `?` varies on the warp's lanes"));
    }
    let mut ts: Vec<i64> = lanes.iter().filter_map(|t| t.get(dim).copied()).collect();
    ts.sort_unstable();
    ts.dedup();
    // `S − s·(A·P + B) ≤ 0`, S = ⌈M/es⌉: neighbouring lanes' addresses ≥ M bytes apart
    let sector = num_bigint::BigInt::from(cx.hw[3]);
    let s_min = Integer::div_ceil(&sector, &num_bigint::BigInt::from(a.bytes.max(1)));
    let target = Cstr::le(Lin::constant(Rat::from_integer(s_min)).add_scaled(&mul.lin(), &-Rat::from_integer(sign)));
    cx.entail(n, "stride", &env.p, &[target])?;
    let allowed = ts.len() as u64;
    if claimed.is_negative() || claimed > num_bigint::BigInt::from(allowed) {
        return Err(cx.rej(Reason::AccessAbove { claimed: claimed.to_string(), allowed }));
    }
    Ok(Rat::from_integer(claimed))
}

/// `went_W(e)` (spec/logic.md §4b "Warp-exact products"): the entry L:VWRITE1/L:VWRITE2
/// may give `x ← a * b` in a lower certificate about warp `W`, beyond `ent_P,D(e)`: both
/// operands are one integer on every lane of `W` ([`warp_value`]), so the product is one
/// integer `≡ r₁·r₂ (mod gcd(g₁·g₂, r₁·g₂, r₂·g₁))`. `None` outside lower certificates or
/// for any other expression. Coq: `LowerCheck.wprod`, `wprod_sound`.
pub fn went_w(cx: &Ctx, d: &crate::arith::DepMap, e: &crate::syntax::Expr) -> Option<crate::arith::Dep> {
    use crate::arith::Dep;
    let w = cx.lower?;
    let crate::syntax::Expr::Bin(op, a, b) = e else {
        return None;
    };
    if op != "*" {
        return None;
    }
    let (r1, g1) = warp_value(cx, w, d, a)?;
    let (r2, g2) = warp_value(cx, w, d, b)?;
    let x = Dep { k: Default::default(), r: r1, g: g1, kind: crate::arith::EntryKind::Linear, mul: None };
    let y = Dep { k: Default::default(), r: r2, g: g2, kind: crate::arith::EntryKind::Linear, mul: None };
    Some(x.mul_uniform(&y))
}

/// `went_W(o)` of an `int` operand `o` (spec/logic.md §4b "Warp-exact products"): `(r, g)`
/// such that `o` is one integer `c ≡ r (mod g)` on every lane of warp `w`. `o` must have a
/// linear entry `(k, r₀, g₀)` (`dep_D(o)`: an integer constant, an `int` parameter, a
/// thread index or an `int` local with a linear entry) whose `k·tid` is one value `K` on
/// all the warp's lanes; then `(r, g)` is the class `(r₁, m)` of the first congruence
/// hypothesis `(mod p m (r₁))` of the certificate whose form is exactly the parameter
/// `o = p` (L:HYP), else `(r₀ + K, g₀)`. Coq: `LowerCheck.wdep`, `wdep_sound`.
fn warp_value(
    cx: &Ctx,
    w: u32,
    d: &crate::arith::DepMap,
    o: &crate::syntax::Opd,
) -> Option<(num_bigint::BigInt, num_bigint::BigInt)> {
    use crate::syntax::{Opd, Ty};
    use num_bigint::BigInt;
    let int = match o {
        Opd::Int(_) | Opd::Tid(_) => true,
        Opd::Param(p) => cx.prog.param(p) == Some(Ty::Int),
        Opd::Var(x) => cx.prog.local(x) == Some(Ty::Int),
        Opd::Bool(_) | Opd::Float(_) => false,
    };
    let dep = Ctx::dep_opd(d, o).filter(|_| int)?;
    // the lanes of warp w: thread ids Wsz·w + l below the block size (x fastest)
    let wsz = u64::from(cx.hw[0]);
    let total = crate::access::block_threads(cx.block)?;
    let first = wsz.checked_mul(u64::from(w))?;
    let kv = |t: u64| -> BigInt {
        let tid = crate::access::thread_index(cx.block, t);
        dep.k.iter().zip(tid).map(|(k, t)| k * BigInt::from(t)).sum()
    };
    let k0 = kv(first);
    if (first..first.saturating_add(wsz).min(total)).any(|t| kv(t) != k0) {
        return None;
    }
    if let Opd::Param(p) = o {
        if let Some(cls) = param_class(cx, p) {
            return Some(cls);
        }
    }
    Some((&dep.r + k0, dep.g.clone()))
}

/// The class `(r, m)` of the first congruence hypothesis `(mod p m (r))` (one residue, form
/// exactly the parameter `p`) of the certificate's L:HYP facts, if any.
fn param_class(cx: &Ctx, p: &str) -> Option<(num_bigint::BigInt, num_bigint::BigInt)> {
    use num_traits::One;
    cx.hyps.iter().find_map(|c| {
        let l = c.lane.as_ref()?;
        let [r] = l.rs.as_slice() else {
            return None;
        };
        let is_p = c.lin.c.is_zero() && c.lin.terms.len() == 1 && c.lin.terms.get(p).is_some_and(|a| a.is_one());
        (is_p && l.m >= num_bigint::BigInt::one()).then(|| (r.clone(), l.m.clone()))
    })
}

/// L:HYP — the root of a lower-bound certificate with parameter hypotheses `H` and a
/// witness point `w` (spec/logic.md §4b, "Parameter hypotheses"): returns the root pre's
/// expected `P`, the launch facts `launch` followed by `H`. Checks that every fact of `H`
/// mentions only `int` parameters (`HypothesisVariable`), that `w` names distinct `int`
/// parameters (`WitnessName`) and gives a value to every parameter of `launch ∧ H`
/// (`WitnessMissing`), and that every fact of `launch ∧ H` holds at `w` with every
/// `threadIdx.d = 0` (`WitnessViolates`): the region of the claim is not empty.
pub fn l_hyp(
    cx: &Ctx,
    launch: &[crate::arith::Cstr],
    h: &crate::syntax::Hypotheses,
) -> Result<Vec<crate::arith::Cstr>, Rejection> {
    use crate::syntax::Ty;
    use crate::Reason;
    let is_int_param = |v: &str| cx.prog.param(v) == Some(Ty::Int);
    for c in &h.facts {
        if let Some(v) = c.lin.terms.keys().find(|v| !is_int_param(v)) {
            return Err(cx.rej(Reason::HypothesisVariable(v.clone())));
        }
    }
    let mut at: std::collections::BTreeMap<&str, Rat> = std::collections::BTreeMap::new();
    for (n, v) in &h.witness {
        if !is_int_param(n) || at.insert(n, Rat::from_integer(v.clone())).is_some() {
            return Err(cx.rej(Reason::WitnessName(n.clone())));
        }
    }
    // the root pre: the launch facts and H's linear facts (its congruences, lane facts
    // over parameters, enter the derivation through `went_W` only)
    let mut p = launch.to_vec();
    p.extend(h.facts.iter().filter(|c| c.lane.is_none()).cloned());
    for c in launch.iter().chain(&h.facts) {
        let mut val = c.lin.c.clone();
        for (v, k) in c.lin.terms.iter() {
            let x = match at.get(v.as_str()) {
                Some(x) => x.clone(),
                None if v.starts_with("threadIdx.") => Rat::zero(),
                None => return Err(cx.rej(Reason::WitnessMissing(v.clone()))),
            };
            val = crate::arith::add(&val, &crate::arith::mul(k, &x));
        }
        let holds = match &c.lane {
            // a congruence `L mod m ∈ S` (Euclidean), at an integer point
            Some(l) => val.is_integer() && l.rs.contains(&num_integer::Integer::mod_floor(&val.to_integer(), &l.m)),
            None if c.eq => val.is_zero(),
            None => val <= Rat::zero(),
        };
        if !holds {
            return Err(cx.rej(Reason::WitnessViolates(c.to_string())));
        }
    }
    Ok(p)
}
