//! L:IFSPLIT in lower-bound certificates (spec/logic.md §4b "Lane subsets", issue 14,
//! addSub0's `if (j % 2 == 0)`): a divergent `if` whose test `x == 0` / `x != 0` has a
//! remainder entry `(rem x k r m)` runs its then branch on exactly the lanes
//! `T1 = {ℓ ∈ T : m | k·tid(ℓ) + r}` and its else branch on the others, so each branch gets
//! its own lower derivation over its lane subset (access counts over those lanes only).
//! L:IFLANES (reduce1's `if (index < blockDim.x)` in an unrolled round): a comparison
//! of operands whose values are exact on every lane (`(dep x k r 0)`) is decided lane by
//! lane, and each non-empty side is derived over its lanes the same way.
//! Heuristic and untrusted: the kernel checks (`rules::lower::l_ifsplit`, `l_iflanes`).

use super::{pp, pre_q, stmt_node, with_q, Lx};
use crate::certificate::{Assn, Farkas, Field, Node};
use crate::core::assertion::{EntryKind, Poly};
use crate::core::ir::{BinOp, Const, Expr, Operand, Stmt};
use crate::core::metric::Q;

/// The constant value of `q`, `None` if it has a non-constant term.
fn constant(q: &Poly) -> Option<Q> {
    let mut v = Q::from_integer(0.into());
    for (m, c) in q.terms.iter() {
        if !m.is_empty() {
            return None;
        }
        v += c;
    }
    Some(v)
}

/// `k·tid + r`: the value of a linear entry `(k, r)` on the lane of thread index `tid`.
fn at_lane(k: [i128; 3], r: i128, tid: [i64; 3]) -> i128 {
    (0..3).map(|i| k[i] * i128::from(tid[i])).sum::<i128>() + r
}

/// How a divergent `if`'s lanes are divided between its branches, one way per lane-subset
/// rule (spec/logic.md §4b "Lane subsets").
#[derive(Clone, Copy, Debug)]
pub(super) enum Subsets {
    /// L:IFSPLIT: a remainder test `x == 0` / `x != 0` (`Lx::split_set`); both subsets
    /// non-empty.
    Rem,
    /// L:IFLANES: a comparison of lane-exact operands (`Lx::lanes_set`); one subset may be
    /// empty.
    Exact,
}

impl Lx<'_> {
    /// The lanes of the judgment's set whose thread index satisfies `holds`, and the others
    /// (both in the set's order).
    fn lanes_where(&self, holds: impl Fn([i64; 3]) -> bool) -> (Vec<u64>, Vec<u64>) {
        self.threads
            .iter()
            .copied()
            .partition(|&t| holds(self.launch.thread_index(t)))
    }

    /// The lanes of the judgment's set taking the then branch of the test `e` and the
    /// others (the kernel's `split_set`): `e` is `x == 0` or `x != 0` with a remainder entry
    /// `(rem x k r m)` in `pre`'s `D`. `None` otherwise or when either set is empty.
    fn split_set(&self, e: &Expr, pre: &Assn) -> Option<(Vec<u64>, Vec<u64>)> {
        let (x, eq) = match e {
            Expr::Bin(
                op @ (BinOp::Eq | BinOp::Ne),
                Operand::Var(x),
                Operand::Const(Const::Int(0)),
            ) => (x, *op == BinOp::Eq),
            _ => return None,
        };
        let ent = pre.d.get(x).filter(|d| d.kind == EntryKind::Rem)?;
        if ent.g < 1 {
            return None;
        }
        let (k, r, g) = (ent.k.map(i128::from), i128::from(ent.r), i128::from(ent.g));
        let (then, other) = self.lanes_where(|tid| (at_lane(k, r, tid).rem_euclid(g) == 0) == eq);
        (!then.is_empty() && !other.is_empty()).then_some((then, other))
    }

    /// The lanes of the judgment's set where the comparison `e` holds and the others (the
    /// kernel's `lanes_set`, L:IFLANES): `e` is `a op b` with `op` a comparison and each
    /// operand an integer constant, a `threadIdx.d` or a local whose entry in `pre`'s `D`
    /// is linear and exact (`g = 0`). `None` otherwise; either set may be empty.
    fn lanes_set(&self, e: &Expr, pre: &Assn) -> Option<(Vec<u64>, Vec<u64>)> {
        let Expr::Bin(op, a, b) = e else {
            return None;
        };
        if !matches!(
            op,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        ) {
            return None;
        }
        // (k, r) with the operand's value `k·tid + r` on every lane
        let exact = |o: &Operand| -> Option<([i128; 3], i128)> {
            match o {
                Operand::Const(Const::Int(z)) => Some(([0; 3], i128::from(*z))),
                Operand::Tid(d) => {
                    let mut k = [0; 3];
                    k[d.index()] = 1;
                    Some((k, 0))
                }
                Operand::Var(x) => {
                    let ent = pre
                        .d
                        .get(x)
                        .filter(|d| d.kind == EntryKind::Linear && d.g == 0)?;
                    Some((ent.k.map(i128::from), i128::from(ent.r)))
                }
                _ => None,
            }
        };
        let ((ka, ra), (kb, rb)) = (exact(a)?, exact(b)?);
        Some(self.lanes_where(|tid| {
            let (va, vb) = (at_lane(ka, ra, tid), at_lane(kb, rb, tid));
            match op {
                BinOp::Lt => va < vb,
                BinOp::Le => va <= vb,
                BinOp::Gt => va > vb,
                BinOp::Ge => va >= vb,
                BinOp::Eq => va == vb,
                _ => va != vb,
            }
        }))
    }

    /// The L:IFSPLIT (`how` = [`Subsets::Rem`]) or L:IFLANES ([`Subsets::Exact`]) node for
    /// the divergent `if e then s1 else s2` of the upper Q:IF4 node `n` (children: the
    /// test, then and else derivations), with the test's lower node `le` and cost `c`, the
    /// post `ipost` (the if's `P'`, `D \ W`, the post potential) and the witnesses `ws` of
    /// `P ⇒ P'`. Each branch whose lane subset is non-empty is derived over it from post
    /// potential 0 and must come out with a constant pre potential `Ki`; the charge is
    /// `M^if + C + Σ Ki`, plus `M^div` when both subsets are non-empty. Returns the node and
    /// `Σ Ki`. `None` where the rule does not apply or a branch has no such derivation (the
    /// caller falls back to L:IFD and its relatives).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn subset_if(
        &self,
        how: Subsets,
        n: &Node,
        e: &Expr,
        [s1, s2]: [&Stmt; 2],
        pre: &Assn,
        ipost: &Assn,
        ws: &[Farkas],
        le: &Node,
        c: &Q,
    ) -> Option<(Node, Q)> {
        if !self.split || n.rule != "Q:IF4" {
            return None;
        }
        let [_, t, f] = n.children.as_slice() else {
            return None;
        };
        let (rule, (t1, t2)) = match how {
            Subsets::Rem => ("L:IFSPLIT", self.split_set(e, pre)?),
            Subsets::Exact => ("L:IFLANES", self.lanes_set(e, pre)?),
        };
        if t1.is_empty() && t2.is_empty() {
            return None;
        }
        let both = !t1.is_empty() && !t2.is_empty();
        let zero = Poly::zero();
        let mut kids = vec![le.clone()];
        let mut fields = vec![Field::Entail("post", ws.to_vec())];
        let mut ks = Q::from_integer(0.into());
        if !t1.is_empty() {
            let lt = self.on(t1).stmt(t, s1, &zero).ok()?;
            ks += constant(&pre_q(&lt))?;
            // `P ∧ e ⇒ P1`: Q:IF4's then pre is `P ∧ e` itself
            let (tp, _) = pp(&lt).ok()?;
            fields.push(Field::Entail(
                "then",
                (0..tp.p.len()).map(Farkas::Id).collect(),
            ));
            kids.push(lt);
        }
        if !t2.is_empty() {
            let lf = self.on(t2).stmt(f, s2, &zero).ok()?;
            ks += constant(&pre_q(&lf))?;
            // `P ∧ ¬e ⇒ P2`: Q:IF4's `else-cond` list
            let else_ws = n.fields.iter().find_map(|fl| match fl {
                Field::Entail("else-cond", w) => Some(w.clone()),
                _ => None,
            })?;
            fields.push(Field::Entail("else", else_ws));
            kids.push(lf);
        }
        let mut charge = &self.m.if_ + c + &ks;
        if both {
            charge += &self.m.div;
        }
        let node = stmt_node(
            rule,
            with_q(pre, ipost.q.plus_const(&charge)),
            ipost.clone(),
            fields,
            kids,
        );
        Some((node, ks))
    }
}
