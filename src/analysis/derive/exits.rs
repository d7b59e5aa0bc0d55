//! Filtered judgments (`spec/logic.md` §4a): loops left by jumps (Q:WHILEEXIT1/2), their
//! bodies in filtered position, exits (Q:IFEXIT1/4) and the candidate atoms of such loops.

use crate::analysis::derive::candidates::{has_loop, loop_key};
use crate::analysis::derive::liveness::restrict_deps;
use crate::analysis::derive::loops::houdini_candidates;
use crate::analysis::derive::ranking::floor_rank;
use crate::analysis::derive::{err, minus_writes, with, Abs, Ctx, AK, AN};
use crate::analysis::derive::{FlagExitAn, If1An, IfExitAn, IfGuardAn, WhileExitAn};
use crate::analysis::entail::{entails, entails_all, join_p};
use crate::analysis::linear::{cond, expr_uniform, join_deps, lin_expr};
use crate::analysis::AnalysisError;
use crate::certificate::{Farkas, Rewrite};
use crate::core::assertion::linear::{CKind, Cstr, DepMap, Lin};
use crate::core::assertion::poly::{Atom, AtomVal};
use crate::core::metric::Q;
use crate::core::{Const, Expr, Loc, Operand, Stmt, Ty};
use num_traits::{One, Signed, ToPrimitive, Zero};

impl Ctx<'_> {
    /// Candidate atoms of a loop without a ranking atom of its own, from the conditions
    /// of its body (spec/logic.md §4a; nested loops excluded): for every `if` whose
    /// condition gives a constraint `L ≤ 0` to its else branch, the atom `−L + 1` (`≥ 1` on
    /// that branch; `i` for `if (i <= 0) return; …`), and for every update `x ← x + δ` (`δ` an
    /// integer) in the body of a variable `x` of the atom, the atom as it reads before the
    /// update, `(−L + 1)[x ← x − δ]` (`i + 20` for `i −= 20`). Returns (atoms, updated atoms).
    ///
    /// For a loop whose condition is a `bool` guard `g` (spec/lowering.md §6), every write
    /// `g ← c` of the body gives its conditions too, on the side that stays (`cond(c)`):
    /// `n − k` for `g ← k < n` (Q:GUARD).
    ///
    /// The third list, parallel to the atoms, is each atom's floor divisor (spec/logic.md §1
    /// "Floor atoms"): the integer `c ≥ 2` by which its only update lowers it (`20` for
    /// `i` under `i −= 20`), in the floor form only; [`exit_floor_atoms`] gives its floor
    /// atoms.
    pub(super) fn exit_atoms(&self, e: &Expr, body: &Stmt) -> ExitAtoms {
        fn walk<'s>(s: &'s Stmt, ifs: &mut Vec<&'s Expr>, asg: &mut Vec<(&'s String, &'s Expr)>) {
            match s {
                Stmt::Seq(..) => {
                    for x in s.seq_items() {
                        walk(x, ifs, asg);
                    }
                }
                Stmt::If(e, a, b, _) => {
                    ifs.push(e);
                    walk(a, ifs, asg);
                    walk(b, ifs, asg);
                }
                Stmt::Assign(x, e, _) => asg.push((x, e)),
                _ => {}
            }
        }
        let (mut ifs, mut asg) = (Vec::new(), Vec::new());
        walk(body, &mut ifs, &mut asg);
        let guard = self.guard_var(e);
        let guard_conds: Vec<Cstr> = asg
            .iter()
            .filter(|(x, _)| guard.as_deref() == Some(x.as_str()))
            .flat_map(|(_, c)| cond(&*self, c).0)
            .collect();
        let mut updates: Vec<(String, Q)> = Vec::new();
        for (x, ex) in asg {
            if self.local_ty(x) != Some(Ty::Int) {
                continue;
            }
            if let Some(le) = lin_expr(self, ex) {
                let d = le.sub(&Lin::var(x));
                if d.is_const() && !d.c.is_zero() {
                    updates.push((x.clone(), d.c));
                }
            }
        }
        let (mut hs, mut shifted, mut divs) = (Vec::new(), Vec::new(), Vec::new());
        // the else branch: the one that stays in the loop when the then-branch jumps
        // (spec/lowering.md §6); for a guard write, the side that sets the guard
        let stays = ifs
            .into_iter()
            .flat_map(|e| cond(&*self, e).1)
            .chain(guard_conds);
        for c in stays {
            if c.kind != CKind::Le {
                continue;
            }
            let h = c.lin.scale(&-Q::one()).plus_const(&Q::one());
            let upd: Vec<Lin> = updates
                .iter()
                .filter(|(x, _)| h.mentions(x))
                .map(|(x, d)| h.plus_const(&-(h.coef(x) * d)))
                .collect();
            if upd.is_empty() {
                continue;
            }
            // one update of one variable of `h`, lowering it by an integer c ≥ 2 a round
            let div = match upd.as_slice() {
                [u] if self.floor => exit_floor_divisor(&u.sub(&h)),
                _ => None,
            };
            if !hs.contains(&h) {
                hs.push(h);
                divs.push(div);
            }
            for u in upd {
                if !shifted.contains(&u) {
                    shifted.push(u);
                }
            }
        }
        (hs, shifted, divs)
    }

    /// Shift rewrites for a branch of a loop body in filtered position whose pre is `p`
    /// (spec/logic.md §4a): for candidate atoms `A`, `A'` of the innermost exit loop with
    /// `A − A' = s > 0` constant and `p ⇒ A' ≥ 0`, `max0(A) = max0(A') + s` (the potential of
    /// the loop head, re-expressed after the counter's update, releases the update's `s`).
    pub(super) fn branch_rewrites(&self, p: &[Cstr]) -> Vec<Rewrite> {
        let Some(key) = self.exit_stack.last() else {
            return Vec::new();
        };
        let atoms = self.exit_own.get(key).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for a in &atoms {
            let mut best: Option<(Q, Farkas)> = None;
            for b in &atoms {
                let diff = a.sub(b);
                if !diff.is_const() || !diff.c.is_positive() {
                    continue;
                }
                if best.as_ref().is_some_and(|(s, _)| *s >= diff.c) {
                    continue;
                }
                // p ⇒ a ≥ s, i.e. s − a ≤ 0
                let target = Cstr::le(Lin::constant(diff.c.clone()).sub(a));
                if let Some(w) = entails(p, &target) {
                    best = Some((diff.c.clone(), w));
                }
            }
            if let Some((s, w)) = best {
                out.push(Rewrite::Shift(a.clone(), s, w));
            }
        }
        // floor atoms (spec/logic.md §4a, "Floor atoms of exit loops"): for candidates
        // `⌊L/c⌋⁺`, `⌊(L − c)/c⌋⁺` with `p ⇒ L ≥ c`, `⌊L/c⌋⁺ = ⌊(L − c)/c⌋⁺ + 1` (`ishift`,
        // the integer witness of a counted loop's floor rank, ranking.rs `floor_rank`)
        let floors = self.exit_floors.get(key).cloned().unwrap_or_default();
        for a in &floors {
            let Atom::Floor(l, c) = a else { continue };
            let below = match a.shifted(&Q::one()).canonical() {
                AtomVal::Scaled(f, b) if f.is_one() => b,
                _ => continue,
            };
            let Some(ci) = c.to_i64() else { continue };
            if !floors.contains(&below) {
                continue;
            }
            let cq = Q::from_integer(c.clone());
            // p ⇒ L ≥ c, i.e. c − L ≤ 0
            let Some(w) = entails(p, &Cstr::le(Lin::constant(cq.clone()).sub(l))) else {
                continue;
            };
            if let Some(fr) = floor_rank(l, ci, &Q::one(), l, &cq, &w, p) {
                out.push(Rewrite::IShift(fr.atom.clone(), Q::one(), fr.cg(p.len())));
            }
        }
        out
    }

    /// The forward pass of a statement in filtered position for the loop condition `f`
    /// (spec/logic.md §4a): the post's `P` is about every thread, its `D` only about the
    /// threads that satisfy `f` afterwards. An `if` whose then-branch ends with `¬f` (a jump
    /// out of the loop) is Q:IFEXIT1/4; a uniform `if` is Q:IF1 with filtered branches; a
    /// sequence's last statement is filtered; anything else is an ordinary statement.
    pub(super) fn fwd_filt(&mut self, s: &Stmt, pre: &Abs, f: &Expr) -> Result<AN, AnalysisError> {
        if let Some(an) = self.fwd_guard(s, pre, f)? {
            return Ok(an);
        }
        let kind_post: (AK, Abs) = match s {
            Stmt::Seq(..) => self.fwd_seq(s, pre, Some(f))?,
            Stmt::If(c, s1, s2, loc) => match self.fwd_filt_if(c, s1, s2, loc, pre, f)? {
                Some(kind_post) => kind_post,
                None => return self.fwd(s, pre),
            },
            _ => return self.fwd(s, pre),
        };
        let (kind, post) = kind_post;
        Ok(AN {
            pre: pre.clone(),
            post,
            kind,
        })
    }

    /// [`Ctx::fwd_filt`] of `if c then s1 else s2`: Q:IF2/3 when `P` decides `c`, Q:IFEXIT1/4
    /// when the then branch leaves the loop (its post entails `¬f`), Q:IF1 with filtered
    /// branches when `c` is uniform; `None` for an ordinary `if`.
    fn fwd_filt_if(
        &mut self,
        c: &Expr,
        s1: &Stmt,
        s2: &Stmt,
        loc: &Loc,
        pre: &Abs,
        f: &Expr,
    ) -> Result<Option<(AK, Abs)>, AnalysisError> {
        let (ce, cne, can_t, can_f) = cond(&*self, c);
        let decided = |cs: &[Cstr], ok: bool| {
            if ok && !cs.is_empty() {
                entails_all(&pre.p, cs)
            } else {
                None
            }
        };
        let w_t = decided(&ce, can_t);
        let w_f = if w_t.is_none() {
            decided(&cne, can_f)
        } else {
            None
        };
        if w_t.is_some() || w_f.is_some() {
            let (en, cost) = self.expr_node(c, pre, *loc)?;
            let (rule, w, br) = match (w_t, w_f) {
                (Some(w), _) => ("Q:IF2", w, s1),
                (None, Some(w)) => ("Q:IF3", w, s2),
                _ => unreachable!("one of the two is Some"),
            };
            let b = self.fwd_filt(br, pre, f)?;
            let post = b.post.clone();
            Ok(Some((
                AK::If23 {
                    rule,
                    witnesses: w,
                    e: en.into(),
                    cost,
                    branch: Box::new(b),
                },
                post,
            )))
        } else {
            let exit_c = cond(&*self, f).1;
            let tpre = Abs {
                p: with(&pre.p, &ce).into(),
                d: pre.d.clone(),
            };
            let fpre = Abs {
                p: with(&pre.p, &cne).into(),
                d: pre.d.clone(),
            };
            let uniform = expr_uniform(&pre.d, c);
            if !uniform && self.guard_var(f).is_some_and(|g| falsifies(&g, s2)) {
                return self.fwd_if_guard(c, s1, s2, loc, (pre, &tpre, &fpre), f);
            }
            let t = self.fwd(s1, &tpre)?;
            let w_exit = if exit_c.is_empty() {
                None
            } else {
                entails_all(&t.post.p, &exit_c)
            };
            if let Some(w_exit) = w_exit {
                let (en, cost) = self.expr_node(c, pre, *loc)?;
                let rw_f = self.branch_rewrites(&fpre.p);
                // the else branch is followed by the end of the body: locals dead
                // there lose their entries
                let live_at = self.live_else.get(&(s2 as *const Stmt as usize));
                let fpre_small = match &live_at {
                    Some(live) => Abs {
                        p: (fpre
                            .p
                            .iter()
                            .filter(|c| {
                                c.lin.vars().all(|v| live.contains(v.as_str()))
                                    || (c.only_tid() && !self.launch_p.contains(c))
                            })
                            .cloned()
                            .collect::<Vec<_>>())
                        .into(),
                        d: restrict_deps(&fpre.d, live).into(),
                    },
                    None => fpre.clone(),
                };
                let fb = self.fwd_filt(s2, &fpre_small, f)?;
                let (pj, w_join_then, w_join_else) = joined(&t.post.p, &fb.post.p, *loc, "exit")?;
                let post = Abs {
                    p: pj.into(),
                    d: fb.post.d.clone(),
                };
                Ok(Some((
                    AK::IfExit(IfExitAn {
                        uniform,
                        e: en.into(),
                        cost,
                        t: Box::new(t),
                        f: Box::new(fb),
                        w_exit,
                        w_join_then,
                        w_join_else,
                        rw_f,
                        f_pre: fpre,
                    }),
                    post,
                )))
            } else if uniform {
                let (en, cost) = self.expr_node(c, pre, *loc)?;
                let rw_t = self.branch_rewrites(&tpre.p);
                let rw_f = self.branch_rewrites(&fpre.p);
                let t = self.fwd_filt(s1, &tpre, f)?;
                let fb = self.fwd_filt(s2, &fpre, f)?;
                let join = Abs {
                    p: join_p(&t.post.p, &fb.post.p).into(),
                    d: join_deps(&t.post.d, &fb.post.d).into(),
                };
                let internal = || err(Some(*loc), "internal: join not entailed");
                let wt = entails_all(&t.post.p, &join.p).ok_or_else(internal)?;
                let wf = entails_all(&fb.post.p, &join.p).ok_or_else(internal)?;
                Ok(Some((
                    AK::If1(If1An {
                        e: en.into(),
                        cost,
                        t: Box::new(t),
                        f: Box::new(fb),
                        join: join.clone(),
                        wt,
                        wf,
                        rw_t,
                        rw_f,
                    }),
                    join,
                )))
            } else {
                Ok(None)
            }
        }
    }

    /// Q:WHILEEXIT1/2 (spec/logic.md §4a): the invariant `(P, D)` by the same Houdini
    /// iteration as [`Ctx::fwd_while`], with the body in filtered position, so `D` is about
    /// the threads that stay in the loop. `None` when the body has no exit (Q:IFEXIT1/4) on
    /// its filtered spine: then the loop is left only at the test and the ordinary rules
    /// apply.
    pub(super) fn fwd_while_exit(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
    ) -> Result<Option<(AK, Abs)>, AnalysisError> {
        let key = loop_key(body);
        self.exit_stack.push(key);
        let r = self.exit_invariant(e, body, loc, pre, &[]);
        self.exit_stack.pop();
        let (mut body_an, mut p, mut d) = r?;
        if !has_exit(&body_an) {
            return Ok(None);
        }
        let (_, cne, _, _) = cond(&*self, e);
        // Q:WHILEGUARD / Q:WHILEGUARD1: the body again, from the guard's condition
        let ge = self.guard_facts(e, body);
        if let Some(ge) = &ge {
            self.exit_stack.push(key);
            let r = self.exit_invariant(e, body, loc, pre, ge);
            self.exit_stack.pop();
            (body_an, p, d) = r?;
        }
        let uniform = expr_uniform(&d, e) && !has_divergent_exit(&body_an);
        // Q:WHILEGUARD0: the guard uniform in the pre, the body with a divergent exit
        let entry = ge.is_some() && !uniform && expr_uniform(&d, e);
        let writes = body.writes();
        let w_pre = entails_all(&pre.p, &p).ok_or_else(|| {
            err(
                Some(loc),
                "internal: invariant not entailed by the loop entry",
            )
        })?;
        let w_body_post = entails_all(&body_an.post.p, &p)
            .ok_or_else(|| err(Some(loc), "internal: invariant not re-established"))?;
        let (en, cost) = self.expr_node(
            e,
            &Abs {
                p: p.clone().into(),
                d: d.clone().into(),
            },
            loc,
        )?;
        let post = Abs {
            p: with(&p, &cne).into(),
            d: minus_writes(&d, &writes).into(),
        };
        Ok(Some((
            AK::WhileExit(WhileExitAn {
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
                key,
                nested: has_loop(body),
                ge,
                entry,
            }),
            post,
        )))
    }

    pub(super) fn exit_invariant(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
        ge: &[Cstr],
    ) -> Result<(AN, Vec<Cstr>, DepMap), AnalysisError> {
        let (ce, _, _, _) = cond(&*self, e);
        let ce = with(&ce, ge);
        let mut p = houdini_candidates(&pre.p);
        let live = self.live_loop.get(&loop_key(body)).cloned();
        // constraints on locals dead at the loop are dropped (by the Q:WEAK around it), and
        // so are those on locals the body writes: the threads that leave by a jump carry
        // values of the round they left in, so such facts rarely survive, and starting
        // without them saves a round of the iteration over this (typically long) body
        let writes = body.writes();
        p.retain(|c| {
            (c.only_tid() && !self.launch_p.contains(c))
                || c.lin.vars().all(|v| {
                    live.as_ref().is_none_or(|l| l.contains(v.as_str())) && !writes.contains(v)
                })
        });
        let mut d = match &live {
            Some(live) => restrict_deps(&pre.d, live),
            None => (*pre.d).clone(),
        };
        // warm start: an enclosing loop's invariant search analyses this loop again from a
        // weaker entry; its invariant is then (almost always) within the previous one, so
        // the previous fixpoint is the first candidate (still checked by the iteration)
        if let Some((pp, pd)) = self.exit_fix.get(&loop_key(body)) {
            p.retain(|c| pp.contains(c));
            d = join_deps(&d, pd);
        }
        for _ in 0..40 {
            let b = self.fwd_filt(
                body,
                &Abs {
                    p: with(&p, &ce).into(),
                    d: d.clone().into(),
                },
                e,
            )?;
            let np: Vec<Cstr> = p
                .iter()
                .filter(|c| entails(&b.post.p, c).is_some())
                .cloned()
                .collect();
            let nd = join_deps(&d, &b.post.d);
            if np == p && nd == d {
                self.exit_fix.insert(loop_key(body), (p.clone(), d.clone()));
                return Ok((b, p, d));
            }
            p = np;
            d = nd;
        }
        Err(err(Some(loc), "the loop-invariant search did not converge"))
    }
}

impl Ctx<'_> {
    /// Q:WHILEGUARD (spec/logic.md §4a): for `while (g) body` right after `g ← E` in a
    /// sequence ([`Ctx::fwd_seq`]), `GE = cond(E)` when every path of the body ends with
    /// `g ← c`, `cond(c) = GE`, or falsifies `g` ([`guard_last`]); `None` otherwise.
    fn guard_facts(&self, e: &Expr, body: &Stmt) -> Option<Vec<Cstr>> {
        let g = self.guard_var(e)?;
        let c = self.guard_entry.get(&(body as *const Stmt as usize))?;
        let ge = cond(self, c).0;
        (!ge.is_empty() && guard_last(self.prog, &g, &ge, body)).then_some(ge)
    }

    /// The `bool` local `g` of a loop condition `(var g)` (spec/lowering.md §6: the guard of
    /// a loop left by `break`/`return`).
    pub(super) fn guard_var(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Opd(Operand::Var(g)) if self.local_ty(g) == Some(Ty::Bool) => Some(g.clone()),
            _ => None,
        }
    }

    /// Q:GUARD / Q:GUARDEXIT (spec/logic.md §4a) for `s` in filtered position for the guard
    /// `f = (var g)`: a statement that falsifies `g` is Q:GUARDEXIT, a write `g ← c` is
    /// Q:GUARD with the shift rewrites of its post under `cond(c)`; `None` otherwise.
    fn fwd_guard(&mut self, s: &Stmt, pre: &Abs, f: &Expr) -> Result<Option<AN>, AnalysisError> {
        let Some(g) = self.guard_var(f) else {
            return Ok(None);
        };
        if falsifies(&g, s) {
            let inner = self.fwd(s, pre)?;
            return Ok(Some(AN {
                pre: pre.clone(),
                post: inner.post.clone(),
                kind: AK::GuardExit {
                    inner: Box::new(inner),
                },
            }));
        }
        let Stmt::Assign(x, c, _) = s else {
            return Ok(None);
        };
        if *x != g {
            return Ok(None);
        }
        let inner = self.fwd(s, pre)?;
        let rw = self.branch_rewrites(&with(&inner.post.p, &cond(&*self, c).0));
        Ok(Some(AN {
            pre: pre.clone(),
            post: inner.post.clone(),
            kind: AK::Guard {
                inner: Box::new(inner),
                rw,
            },
        }))
    }
}

impl Ctx<'_> {
    /// Q:IFGUARD4 (spec/logic.md §4a): the divergent `if c then s1 else s2` in filtered
    /// position for the guard `f = (var g)` whose else branch falsifies `g`; `pres` are the
    /// node's pre and the branches' `(P ∧ c, D)`, `(P ∧ ¬c, D)`. The then branch is filtered
    /// (its post's `D` is about the lanes that stay), the else branch ordinary.
    fn fwd_if_guard(
        &mut self,
        c: &Expr,
        s1: &Stmt,
        s2: &Stmt,
        loc: &Loc,
        pres: (&Abs, &Abs, &Abs),
        f: &Expr,
    ) -> Result<Option<(AK, Abs)>, AnalysisError> {
        let (pre, tpre, fpre) = pres;
        let (en, cost) = self.expr_node(c, pre, *loc)?;
        let t = self.fwd_filt(s1, tpre, f)?;
        let fb = self.fwd(s2, fpre)?;
        let (test, post) = guard_test(en, cost, t, fb, *loc, "guard")?;
        Ok(Some((AK::IfGuard(test), post)))
    }
}

impl Ctx<'_> {
    /// Q:FLAGEXIT (spec/logic.md §4a) for the last two items `part; last` of a loop body in
    /// filtered position for the guard `f = (var g)`, where `last` is the jump-flag test
    /// `if c then … else …` whose else branch falsifies `g`: `part` filtered for `c` (the
    /// lanes that jumped set the flag, so `c` fails for them), when that keeps the entry of
    /// a local of the loop's own atoms that the ordinary `part` loses (a counter updated in
    /// the branch that does not jump, `tests/precision/while_return.cu`). `None` otherwise.
    pub(super) fn fwd_flag_exit(
        &mut self,
        part: &Stmt,
        last: &Stmt,
        pre: &Abs,
        f: &Expr,
    ) -> Result<Option<AN>, AnalysisError> {
        let Some(g) = self.guard_var(f) else {
            return Ok(None);
        };
        let Stmt::If(c, s2, s3, loc) = last else {
            return Ok(None);
        };
        let (ce, cne, _, _) = cond(&*self, c);
        if !falsifies(&g, s3) || matches!(c, Expr::Read(..)) || cne.is_empty() {
            return Ok(None);
        }
        let own: Vec<String> = match self.exit_stack.last() {
            Some(key) => self
                .exit_own
                .get(key)
                .into_iter()
                .flatten()
                .flat_map(|a| a.vars().cloned().collect::<Vec<_>>())
                .collect(),
            None => return Ok(None),
        };
        let ord = self.fwd(part, pre)?;
        let filt = self.fwd_filt(part, pre, c)?;
        let kept = own
            .iter()
            .any(|v| filt.post.d.contains_key(v) && !ord.post.d.contains_key(v));
        // capped mode (Q:WHILEGUARDCAP): the exits of `part` are Q:IFEXIT4 nodes before the
        // flag test, which the cap condition needs instead of an ordinary Q:IF4
        if !has_exit(&filt) || !(kept || self.cap) {
            return Ok(None);
        }
        let p1 = filt.post.clone();
        let (en, cost) = self.expr_node(c, &p1, *loc)?;
        let tpre = Abs {
            p: with(&p1.p, &ce).into(),
            d: p1.d.clone(),
        };
        let fpre = Abs {
            p: p1.p.clone(),
            d: DepMap::new().into(),
        };
        let t = self.fwd_filt(s2, &tpre, f)?;
        let fb = self.fwd(s3, &fpre)?;
        let (test, post) = guard_test(en, cost, t, fb, *loc, "flag")?;
        Ok(Some(AN {
            pre: pre.clone(),
            post,
            kind: AK::FlagExit(FlagExitAn {
                part: Box::new(filt),
                test,
            }),
        }))
    }
}

/// A guard test (Q:IFGUARD4, and Q:FLAGEXIT's test) from its test node `e` of cost `cost`,
/// its then branch `t` (filtered for the guard) and its exit branch `f`: the join of the
/// branches' `P` with its two witnesses (`what` names the join in an error), and the
/// node's post, the join with `t`'s `D`.
fn guard_test(
    e: crate::certificate::Node,
    cost: Q,
    t: AN,
    f: AN,
    loc: Loc,
    what: &str,
) -> Result<(IfGuardAn, Abs), AnalysisError> {
    let (pj, w_join_then, w_join_else) = joined(&t.post.p, &f.post.p, loc, what)?;
    let post = Abs {
        p: pj.into(),
        d: t.post.d.clone(),
    };
    let test = IfGuardAn {
        e: e.into(),
        cost,
        t: Box::new(t),
        f: Box::new(f),
        w_join_then,
        w_join_else,
    };
    Ok((test, post))
}

/// Whether every path of `s` ends with `g ← c`, `cond(c) = ge`, or falsifies `g` (the
/// kernel's and Coq's `guard_last`, spec/logic.md §4a, Q:WHILEGUARD).
fn guard_last(prog: &crate::core::Program, g: &str, ge: &[Cstr], s: &Stmt) -> bool {
    let either = |b: &Stmt| guard_last(prog, g, ge, b) || falsifies(g, b);
    match s {
        Stmt::Assign(x, c, _) => x == g && cond(prog, c).0 == ge,
        Stmt::Seq(_, b) => guard_last(prog, g, ge, b),
        Stmt::If(_, a, b, _) => either(a) && either(b),
        _ => false,
    }
}

/// Whether the last write of `g` in `s` is `g ← false` (spec/logic.md §4a, Q:GUARDEXIT; the
/// kernel's `falsifies`).
fn falsifies(g: &str, s: &Stmt) -> bool {
    match s {
        Stmt::Assign(x, Expr::Opd(Operand::Const(Const::Bool(false))), _) => x == g,
        Stmt::Seq(a, b) => {
            falsifies(g, b) || (falsifies(g, a) && !b.writes().iter().any(|w| w == g))
        }
        _ => false,
    }
}

/// Whether the filtered spine of `a` (spec/logic.md §4a) has a Q:IFEXIT1/4.
pub(super) fn has_exit(a: &AN) -> bool {
    match &a.kind {
        AK::Seq(v) => v.last().is_some_and(has_exit),
        AK::If23 { branch, .. } => has_exit(branch),
        AK::If1(If1An { t, f, .. }) => has_exit(t) || has_exit(f),
        AK::IfExit(IfExitAn { .. }) | AK::GuardExit { .. } | AK::IfGuard(_) | AK::FlagExit(_) => {
            true
        }
        _ => false,
    }
}

/// Whether the filtered spine of `a` has a Q:IFEXIT4 (a divergent exit).
pub(super) fn has_divergent_exit(a: &AN) -> bool {
    match &a.kind {
        AK::Seq(v) => v.last().is_some_and(has_divergent_exit),
        AK::If23 { branch, .. } => has_divergent_exit(branch),
        AK::If1(If1An { t, f, .. }) => has_divergent_exit(t) || has_divergent_exit(f),
        AK::IfExit(IfExitAn { uniform, f, .. }) => !uniform || has_divergent_exit(f),
        AK::IfGuard(_) | AK::FlagExit(_) => true,
        _ => false,
    }
}

/// A join `P1 ⊔ P2` and the witnesses that `P1` and `P2` entail it.
type Joined = (Vec<Cstr>, Vec<Farkas>, Vec<Farkas>);

/// `P1 ⊔ P2` of two branches' posts and the Farkas witnesses of `P1 ⇒ P1 ⊔ P2` and
/// `P2 ⇒ P1 ⊔ P2` (the `join-then`/`join-else` entailments of Q:GUARDEXIT, Q:IFGUARD4 and
/// Q:FLAGEXIT, spec/logic.md §4a). Errors: the join not entailed, an internal error naming
/// `what` (each side entails the join by construction).
fn joined(p1: &[Cstr], p2: &[Cstr], loc: Loc, what: &str) -> Result<Joined, AnalysisError> {
    let pj = join_p(p1, p2);
    let internal = || err(Some(loc), format!("internal: {what} join not entailed"));
    let w1 = entails_all(p1, &pj).ok_or_else(internal)?;
    let w2 = entails_all(p2, &pj).ok_or_else(internal)?;
    Ok((pj, w1, w2))
}

/// [`Ctx::exit_atoms`]' result: the atoms, the atoms before their update, and each atom's
/// floor divisor.
pub(super) type ExitAtoms = (Vec<Lin>, Vec<Lin>, Vec<Option<i64>>);

/// The floor divisor of an exit atom whose update lowers it by the constant `s` (`s` the
/// form before the update minus the form after): `s` when it is an integer `≥ 2`
/// ([`floor_divisor`](crate::analysis::derive::ranking::floor_divisor) of a counted loop's
/// step).
fn exit_floor_divisor(s: &Lin) -> Option<i64> {
    if !s.is_const() {
        return None;
    }
    crate::analysis::derive::ranking::floor_divisor(&s.c, false, false)
}

/// The floor atoms of an exit atom `h` (`h ≥ 1` keeps a lane in the loop at its test) that
/// its only update lowers by `c ≥ 2` a round (spec/logic.md §4a, "Floor atoms of exit
/// loops"): `⌊(h − 1)/c⌋⁺`, the rounds after the current one when the test follows the
/// update (`do { …; i −= 20; if (i <= 0) return; }` from `i`: `1 + ⌊(i − 1)/20⌋⁺` rounds),
/// and `⌊(h − 1 + c)/c⌋⁺`, one more, the same count when the test precedes the update.
/// Under `h − 1 ≥ 0` the second is the first plus one (`ishift`, [`Ctx::branch_rewrites`]).
pub(super) fn exit_floor_atoms(h: &Lin, c: i64) -> [crate::core::assertion::poly::Atom; 2] {
    use crate::core::assertion::poly::Atom;
    let r = h.plus_const(&-Q::one());
    [
        Atom::floor(r.clone(), c),
        Atom::floor(r.plus_const(&Q::from_integer(c.into())), c),
    ]
}
