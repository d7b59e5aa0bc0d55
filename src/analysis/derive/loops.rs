//! Loops: the loop pass (Q:WHILE1/2, Q:WHILELAST, Q:WHILEWARP) with the Houdini search for
//! loop invariants `(P, D)`; ranking atoms are in `ranking.rs`, template candidates in
//! `candidates.rs`.

use crate::analysis::derive::candidates::loop_key;
use crate::analysis::derive::liveness::restrict_deps;
use crate::analysis::derive::{err, minus_writes, with, Abs, Ctx, AK};
use crate::analysis::derive::{LastRound, WhileAn};
use crate::analysis::entail::{entails, entails_all};
use crate::analysis::linear::{
    align_charge, cond, expr_uniform, join_deps, lane_spread, never_splits, window_charge,
};
use crate::analysis::AnalysisError;
use crate::core::assertion::linear::{CKind, Cstr, DepMap};
use crate::core::metric::Q;
use crate::core::{Expr, Loc, Stmt};
use num_traits::{One, Zero};

impl Ctx<'_> {
    pub(super) fn fwd_while(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        let (ce, cne, _, _) = cond(&*self, e);
        let mut p = houdini_candidates(&pre.p);
        // entries of locals dead at the loop are dropped (the Q:WEAK around the loop)
        let mut d = match self.live_loop.get(&loop_key(body)) {
            Some(live) => restrict_deps(&pre.d, live),
            None => (*pre.d).clone(),
        };
        let mut rounds = 0;
        let (body_an, p, d) = loop {
            rounds += 1;
            if rounds > 40 {
                return Err(err(Some(loc), "the loop-invariant search did not converge"));
            }
            let b = self.fwd(
                body,
                &Abs {
                    p: with(&p, &self.with_lanes(&d, e, &ce, false)).into(),
                    d: d.clone().into(),
                },
            )?;
            let np: Vec<Cstr> = p
                .iter()
                .filter(|c| entails(&b.post.p, c).is_some())
                .cloned()
                .collect();
            let nd = join_deps(&d, &b.post.d);
            if np == p && nd == d {
                break (b, p, d);
            }
            p = np;
            d = nd;
        };
        let uniform = expr_uniform(&d, e);
        let writes = body.writes();
        let w_pre = entails_all(&pre.p, &p).ok_or_else(|| {
            err(
                Some(loc),
                "internal: invariant not entailed by the loop entry",
            )
        })?;
        let w_body_post = entails_all(&body_an.post.p, &p)
            .ok_or_else(|| err(Some(loc), "internal: invariant not re-established"))?;
        let (atom, atom_err) = self.ranking_atom(e, body, loc, &p, &d);
        // Q:WHILEWARP and Q:WHILELAST only pay off when a divergent test costs something
        let nosplit = !uniform && !self.metric.div.is_zero() && self.never_splits(e, &d);
        let last = if uniform || nosplit || self.metric.div.is_zero() {
            None
        } else {
            self.last_round(e, body, &p, &d)?
        };
        if let Some((form, _, m)) = last.as_ref().and_then(|l| l.align.as_ref()) {
            self.add_residue_to_ancestors(loop_key(body), form, m);
        }
        let (en, cost) = self.expr_node(
            e,
            &Abs {
                p: p.clone().into(),
                d: d.clone().into(),
            },
            loc,
        )?;
        let post = Abs {
            p: with(&p, &self.with_lanes(&d, e, &cne, true)).into(),
            d: (if uniform {
                d.clone()
            } else {
                minus_writes(&d, &writes)
            })
            .into(),
        };
        Ok((
            AK::While(Box::new(WhileAn {
                e: en.into(),
                cost,
                uniform,
                inv: Abs {
                    p: p.into(),
                    d: d.into(),
                },
                body: Box::new(body_an),
                w_pre,
                w_body_post,
                atom,
                atom_err,
                last,
                nosplit,
                writes,
                loc,
                key: loop_key(body),
            })),
            post,
        ))
    }

    /// Whether Q:WHILEWARP applies to `while (e) …` under `d` (spec/logic.md §4): `cond(e)`
    /// is one inequality `L ≤ 0`, `cond(¬e)` is non-empty, and `L` never splits a warp.
    fn never_splits(&self, e: &Expr, d: &DepMap) -> bool {
        let (ce, cne, _, _) = cond(self, e);
        match ce.as_slice() {
            [c] if c.kind == CKind::Le && !cne.is_empty() => {
                never_splits(self, d, &c.lin, self.launch, self.hw.warp_size)
            }
            _ => false,
        }
    }

    /// Q:WHILELAST's last-round body (spec/logic.md §4): when `cond(e) = [L ≤ 0]` (and
    /// `cond(¬e)` is non-empty) and every local of `L` has a linear entry in `d`, the body
    /// analysed from `P ∧ e ∧ −L + 1 − w ≤ 0` (`w` the lane spread of `L`): the lanes still
    /// running after a test that split the warp. `None` when the rule does not apply: the
    /// condition has another shape, or this body does not end with every lane failing `e`
    /// under `P` (the loop is then charged `M^div` every round, Q:WHILE2).
    fn last_round(
        &mut self,
        e: &Expr,
        body: &Stmt,
        p: &[Cstr],
        d: &DepMap,
    ) -> Result<Option<LastRound>, AnalysisError> {
        let (ce, cne, _, _) = cond(&*self, e);
        let l = match ce.as_slice() {
            [c] if c.kind == CKind::Le && !cne.is_empty() => c.lin.clone(),
            _ => return Ok(None),
        };
        let Some(w) = lane_spread(&*self, d, &l, self.launch, self.hw.warp_size) else {
            return Ok(None);
        };
        let window = Cstr::le(l.scale(&-Q::one()).plus_const(&(Q::one() - w)));
        let mut pre_p = with(p, &self.with_lanes(d, e, &ce, false));
        pre_p.push(window);
        let pre = Abs {
            p: pre_p.into(),
            d: d.clone().into(),
        };
        let b = match self.fwd(body, &pre) {
            Ok(b) => b,
            Err(_) => return Ok(None),
        };
        let exit = with(p, &cne);
        let covered = d
            .iter()
            .all(|(x, want)| b.post.d.get(x).is_some_and(|h| h.implies(want)));
        // Q:WHILELASTALIGN: the one split charged off the test's residue class, when the
        // body leaves X (the uniform part of the test) alone (spec/logic.md §4)
        let align = if self.align {
            align_charge(&*self, d, &l, self.launch, self.hw.warp_size).filter(|(form, _, _)| {
                let writes = body.writes();
                !form.vars().any(|v| writes.contains(v))
            })
        } else {
            None
        };
        // Q:WHILELASTWINDOW (a windowed run): the split charged by the window atom
        // [(b − X) mod m < b − a + 1] (spec/logic.md §4)
        let window = if self.window && align.is_some() {
            window_charge(&*self, d, &l, self.launch, self.hw.warp_size).filter(|(x, ..)| {
                let writes = body.writes();
                !x.vars().any(|v| writes.contains(v))
            })
        } else {
            None
        };
        match entails_all(&b.post.p, &exit) {
            Some(w_post) if covered => Ok(Some(LastRound {
                body: Box::new(b),
                w_post,
                exit,
                align,
                window,
            })),
            _ => Ok(None),
        }
    }
}

/// Houdini's candidate invariant constraints for a loop entered with `p`: its constraints,
/// each equality split into two inequalities (so that one side can survive alone); lane
/// facts are about `threadIdx` alone and hold in every round.
pub(super) fn houdini_candidates(p: &[Cstr]) -> Vec<Cstr> {
    let mut out: Vec<Cstr> = Vec::new();
    for c in p {
        match c.kind {
            CKind::Le | CKind::Mod(..) => out.push(c.clone()),
            CKind::Eq => {
                out.push(Cstr::le(c.lin.clone()));
                out.push(Cstr::le(c.lin.scale(&-Q::one())));
            }
        }
    }
    out.dedup();
    out
}
