//! Sequences (issue 13): a right-nested chain `s1; (s2; (… sn))` is analysed as one list,
//! iteratively (no recursion per statement), and becomes one Q:SEQ node with `n` children
//! (`spec/certificate.md`, format 3). Along the list, the constraints and dependence entries
//! of locals that are dead (no later statement reads them before writing them) are dropped
//! by a Q:WEAK as soon as [`TRIM_BATCH`] of them have accumulated, so that the assertions
//! along a long sequence stay as small as the set of live locals.

use crate::analysis::derive::backward::{Back, TChild, TNode};
use crate::analysis::derive::{identity_witnesses, objective, subset_witnesses, Abs, Ctx, AK, AN};
use crate::analysis::tpoly::{LinExpr, TPoly};
use crate::analysis::AnalysisError;
use crate::certificate::{Farkas, Field};
use crate::core::assertion::linear::{Cstr, DepMap};
use crate::core::assertion::poly::Coef;
use crate::core::{Expr, Operand, Stmt};

/// Dead constraints and entries that trigger a Q:WEAK dropping them: a weakening node per
/// statement would double the derivation, so they are dropped in batches (the assertions
/// then hold at most this many facts about dead locals).
pub(super) const TRIM_BATCH: usize = 8;

/// Constraints of a sequence's tail from which its LP is solved on its own
/// ([`Back::solve_tail`]): the simplex takes time quadratic in the LP's size, so a
/// sequence of many loops is solved in parts of about this size. Above the LP of every
/// kernel of `warpcert bench` and `bench --precision` (at most 387 constraints), whose LPs
/// are solved whole as before.
pub(super) const TAIL_CONSTRAINTS: usize = 1000;

impl Ctx<'_> {
    /// The forward pass of the chain `s` (a `Stmt::Seq`): every item in order from `pre`,
    /// the last one in filtered position for `filt` when given (spec/logic.md §4a: in a
    /// filtered sequence only the last statement is filtered). Returns [`AK::Seq`] and the
    /// post.
    pub(super) fn fwd_seq(
        &mut self,
        s: &Stmt,
        pre: &Abs,
        filt: Option<&Expr>,
    ) -> Result<(AK, Abs), AnalysisError> {
        let items = s.seq_items();
        let last = items.len().saturating_sub(1);
        let mut cur = pre.clone();
        let mut out: Vec<AN> = Vec::with_capacity(items.len());
        let mut prev: Option<&Stmt> = None;
        for (i, &it) in items.iter().enumerate() {
            // the part before a loop's jump-flag test, with the test (Q:FLAGEXIT)
            if let Some(f) = filt.filter(|_| i + 1 == last) {
                if let Some(an) = self.fwd_flag_exit(it, items[last], &cur, f)? {
                    cur = an.post.clone();
                    if out.is_empty() {
                        return Ok((an.kind, cur));
                    }
                    out.push(an);
                    break;
                }
            }
            // the guard's write right before its loop (Q:WHILEGUARD)
            if let (Some(Stmt::Assign(g, c, _)), Stmt::While(Expr::Opd(Operand::Var(h)), body, _)) =
                (prev, it)
            {
                if g == h {
                    self.guard_entry
                        .insert(&**body as *const Stmt as usize, c.clone());
                }
            }
            // Q:WHILENONE: a guard loop no thread enters (derive/case.rs)
            let none = match (prev, filt) {
                (Some(p0), None) => self.fwd_while_none(p0, it, &cur)?,
                _ => None,
            };
            prev = Some(it);
            let an = match (none, filt) {
                (Some(an), _) => an,
                (None, Some(f)) if i == last => self.fwd_filt(it, &cur, f)?,
                (None, _) => self.fwd(it, &cur)?,
            };
            let guarded = matches!(&an.kind, AK::WhileExit(w) if w.ge.is_some());
            let an = if guarded {
                guard_entry_weaken(&mut out, an)
            } else if i < last {
                self.trim_dead(an, it)
            } else {
                an
            };
            cur = an.post.clone();
            out.push(an);
        }
        Ok((AK::Seq(out), cur))
    }

    /// `an` (about the sequence item `it`), wrapped in a Q:WEAK whose post drops the
    /// constraints and `D` entries of the locals dead after `it`, when at least
    /// [`TRIM_BATCH`] of them are there; `an` unchanged otherwise.
    fn trim_dead(&self, an: AN, it: &Stmt) -> AN {
        let Some(live) = self.live_after.get(&(it as *const Stmt as usize)) else {
            return an;
        };
        let dead = |v: &str| self.local_ty(v).is_some() && !live.contains(v);
        let dead_c = |c: &Cstr| c.lin.vars().any(|v| dead(v));
        let n = an.post.d.keys().filter(|x| dead(x)).count()
            + an.post.p.iter().filter(|c| dead_c(c)).count();
        if n < TRIM_BATCH {
            return an;
        }
        let p: Vec<Cstr> = an.post.p.iter().filter(|c| !dead_c(c)).cloned().collect();
        let d: DepMap = an
            .post
            .d
            .iter()
            .filter(|(x, _)| !dead(x))
            .map(|(x, e)| (x.clone(), *e))
            .collect();
        let w_post = subset_witnesses(&an.post.p, &p);
        AN {
            pre: an.pre.clone(),
            post: Abs {
                p: p.into(),
                d: d.into(),
            },
            kind: AK::Weaken {
                inner: Box::new(an),
                w_post,
            },
        }
    }
}

/// Q:WHILEGUARD follows the guard's write directly in its Q:SEQ: the Q:WEAK that
/// weakens the loop's entry to its invariant `(P, D)` (Q:WHILEEXIT2's outer Q:WEAK) is
/// moved onto the previous item's post, and the loop's pre becomes the invariant.
fn guard_entry_weaken(out: &mut Vec<AN>, mut an: AN) -> AN {
    let AK::WhileExit(w) = &an.kind else {
        return an;
    };
    let (inv, w_pre) = (w.inv.clone(), w.w_pre.clone());
    if let Some(prev) = out.pop() {
        out.push(AN {
            pre: prev.pre.clone(),
            post: inv.clone(),
            kind: AK::Weaken {
                inner: Box::new(prev),
                w_post: w_pre,
            },
        });
    }
    an.pre = inv;
    an
}

impl Back<'_, '_> {
    /// Q:SEQ over the items of [`AK::Seq`], from the last to the first: each item's pre
    /// potential is the previous item's post potential. Returns the children and the pre
    /// potential of the first.
    pub(super) fn back_seq(
        &mut self,
        items: &[AN],
        qpost: &TPoly,
    ) -> Result<(Vec<TChild>, TPoly), AnalysisError> {
        let mut q = qpost.clone();
        let mut kids = Vec::with_capacity(items.len());
        // the LP of a tail is its own when the potential after it is a constant
        let mut tail = self.tails && q.terms.values().all(|c| c.v.is_empty());
        let (mut from, mut var_from) = (self.lp.cons.len(), self.lp.nonneg.len());
        for it in items.iter().rev() {
            let (n, qm) = self.back(it, q)?;
            kids.push(TChild::Stmt(n));
            q = qm;
            if tail && self.lp.cons.len() - from >= TAIL_CONSTRAINTS {
                match self.solve_tail(from, var_from, &q) {
                    Some(qc) => q = qc,
                    None => tail = false,
                }
                (from, var_from) = (self.lp.cons.len(), self.lp.nonneg.len());
            }
        }
        kids.reverse();
        Ok((kids, q))
    }

    /// Solves the LP of the tail whose constraints are `lp.cons[from..]` over the variables
    /// `var_from..`, making its pre potential `q` small (the objective of the root,
    /// [`objective`]), and returns `q` with that solution (a constant potential): the
    /// statements before the tail see only `q`, so the rest of the LP is about them
    /// alone. `None` (LP unchanged) when the tail has no solution of its own.
    fn solve_tail(&mut self, from: usize, var_from: usize, q: &TPoly) -> Option<TPoly> {
        let obj = objective(self.ctx, q, var_from..self.lp.nonneg.len());
        self.lp.solve_tail(from, var_from, &obj).ok()?;
        self.tails_solved += 1;
        let mut out = TPoly::zero();
        for (m, c) in &q.terms {
            let mut v = LinExpr::from_q(&c.c);
            for (i, a) in &c.v {
                let x = self.lp.fixed.get(*i).cloned().flatten()?;
                v.c += a * &x;
            }
            out.add_term(m.clone(), v);
        }
        Some(out)
    }

    /// The fields and child of the Q:WEAK of [`AK::Weaken`]: pre unchanged (identity
    /// witnesses), post a sublist (`w_post`), no frame.
    pub(super) fn back_weaken(
        &mut self,
        inner: &AN,
        w_post: &[Farkas],
        qpost: &TPoly,
    ) -> Result<(Vec<Field>, TNode, TPoly), AnalysisError> {
        let (n, q) = self.back(inner, qpost.clone())?;
        let fields = vec![
            Field::Entail("pre", identity_witnesses(&inner.pre.p)),
            Field::Entail("post", w_post.to_vec()),
        ];
        Ok((fields, n, q))
    }
}
