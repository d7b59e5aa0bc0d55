//! The backward pass of conditionals: Q:IF1, Q:IF4 and Q:IFEXIT1/4 (with the rewrites of a
//! branch in filtered position).

use super::{apply_rewrites, node_of, unshifted_monos, Back, TChild, TNode};
use crate::analysis::derive::{
    identity_witnesses, subset_witnesses, Abs, FlagExitAn, If1An, If4An, IfExitAn, IfGuardAn, AN,
};
use crate::analysis::tpoly::TPoly;
use crate::analysis::AnalysisError;
use crate::certificate::{Farkas, Field, Rewrite};
use crate::core::assertion::linear::Lin;
use crate::core::assertion::poly::{Atom, Coef, Mono};
use num_bigint::BigInt;
use std::collections::BTreeSet;
use std::sync::Arc;

impl Back<'_, '_> {
    /// Q:IF1: one template above both branch potentials (through the branch rewrites).
    pub(super) fn back_if1(
        &mut self,
        a: &AN,
        an: &If1An,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let If1An {
            e,
            cost,
            t,
            f,
            join,
            wt,
            wf,
            rw_t,
            rw_f,
        } = an;
        let node =
            |rule, qpre: &TPoly, fields, children| node_of(a, qpost, rule, qpre, fields, children);
        let (nt, qt) = self.back(t, qpost.clone())?;
        let (nf, qf) = self.back(f, qpost.clone())?;
        let mut monos: BTreeSet<Mono> = qt.terms.keys().cloned().collect();
        monos.extend(qf.terms.keys().cloned());
        monos.extend(unshifted_monos(rw_t, &qt));
        monos.extend(unshifted_monos(rw_f, &qf));
        let tpl = self.template(&monos);
        self.geq(&apply_rewrites(&tpl, rw_t), &qt, "IF1 then-branch")?;
        self.geq(&apply_rewrites(&tpl, rw_f), &qf, "IF1 else-branch")?;
        let weak = |child: TNode, w: &Vec<Farkas>, pre: &Abs, rw: &Vec<Rewrite>| {
            let mut fields = vec![Field::Entail("pre", identity_witnesses(&pre.p))];
            if !rw.is_empty() {
                fields.push(Field::Rewrite("pre", rw.clone()));
            }
            fields.push(Field::Entail("post", w.clone()));
            TNode {
                rule: "Q:WEAK",
                pre: (pre.clone(), tpl.clone()),
                post: (join.clone(), qpost.clone()),
                fields,
                children: vec![TChild::Stmt(child)],
            }
        };
        let tpre = t.pre.clone();
        let fpre = f.pre.clone();
        let wnt = weak(nt, wt, &tpre, rw_t);
        let wnf = weak(nf, wf, &fpre, rw_f);
        let qp = tpl.plus_const(&(cost + &self.ctx.metric.if_));
        Ok((
            node(
                "Q:IF1",
                &qp,
                vec![],
                vec![
                    TChild::Expr(e.clone()),
                    TChild::Stmt(wnt),
                    TChild::Stmt(wnf),
                ],
            ),
            qp,
        ))
    }

    /// Q:IF4: the else branch, then the then branch, sequentially.
    pub(super) fn back_if4(
        &mut self,
        a: &AN,
        an: &If4An,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let If4An {
            e,
            cost,
            t,
            f,
            w_else_cond,
            w_else_then,
            w_join_then,
            w_join_else,
            align,
        } = an;
        let node =
            |rule, qpre: &TPoly, fields, children| node_of(a, qpost, rule, qpre, fields, children);
        let (nf, q1) = self.back(f, qpost.clone())?;
        let (nt, qt) = self.back(t, q1)?;
        let qp = qt.plus_const(&(cost + &self.ctx.metric.if_));
        // Q:IFALIGN charges M^div·[m ∤ s − X], Q:IF4 M^div (spec/logic.md §4)
        let mut fields = vec![
            Field::Entail("else-cond", w_else_cond.clone()),
            Field::Entail("else-then", w_else_then.clone()),
            Field::Entail("join-then", w_join_then.clone()),
            Field::Entail("join-else", w_join_else.clone()),
        ];
        let (rule, qp) = match align {
            Some((form, s, m)) => {
                fields.push(Field::Class(s.clone(), m.clone()));
                ("Q:IFALIGN", qp.plus(&self.residue_charge(form, m)))
            }
            None => ("Q:IF4", qp.plus_const(&self.ctx.metric.div)),
        };
        Ok((
            node(
                rule,
                &qp,
                fields,
                vec![TChild::Expr(e.clone()), TChild::Stmt(nt), TChild::Stmt(nf)],
            ),
            qp,
        ))
    }

    /// The divergence charge `M^div·[m ∤ F]` of Q:IFALIGN and Q:WHILELASTALIGN for the
    /// charge form `F = s − X` (spec/logic.md §4): one residue atom.
    pub(super) fn residue_charge(&self, form: &Lin, m: &BigInt) -> TPoly {
        let mut charge = TPoly::zero();
        let atom = Atom::Res(Arc::new(form.clone()), m.clone());
        charge.add_raw_term(&[atom], Coef::from_q(&self.ctx.metric.div));
        charge
    }

    /// The divergence charge `M^div·[(b − X) mod m < b − a + 1]` of Q:WHILELASTWINDOW
    /// (spec/logic.md §4): one window atom.
    pub(super) fn window_charge(&self, x: &Lin, m: &BigInt, a: i128, b: i128) -> TPoly {
        let mut charge = TPoly::zero();
        let form = x
            .scale(&crate::core::metric::q(-1))
            .plus_const(&crate::core::metric::Q::from_integer(BigInt::from(b)));
        let atom = Atom::Win(Arc::new(form), m.clone(), BigInt::from(b - a + 1));
        charge.add_raw_term(&[atom], Coef::from_q(&self.ctx.metric.div));
        charge
    }

    /// The atom part `mul·Σ C_j·[M_j ∤ X]` of a row charge (Q:GWRITEROWS, Q:VWRITEROWS;
    /// spec/logic.md §4 "Rows"), `mul` the metric's per-access factor; `N₀` is in the
    /// constant cost.
    pub(super) fn rows_tpoly(
        &self,
        r: &crate::analysis::derive::RowsCharge,
        mul: &crate::core::metric::Q,
    ) -> TPoly {
        let mut charge = TPoly::zero();
        for (c, m) in &r.terms {
            let atom = Atom::Res(Arc::new(r.form.clone()), BigInt::from(*m));
            charge.add_raw_term(
                &[atom],
                Coef::from_q(&(mul * crate::core::metric::q(*c as i64))),
            );
        }
        charge
    }

    /// The atom part `mul·Σ C_j·(A⁺_j − A⁻_j)` of a guarded charge (Q:GWRITEGUARD,
    /// Q:VWRITEGUARD; spec/logic.md §4 "Guarded accesses"), `mul` the metric's per-access
    /// factor; `N₀` is in the constant cost. Also returns the access's post `qpost` with each
    /// floor atom the loop's step leaves (`⌊(S − L_u − t_j − δ)/S⌋⁺` for a step `δ ≥ S`)
    /// replaced by the `A⁻_j` that dominates it under `p` (the closest, as the loop's
    /// `step_imono`), with the `imono` rewrites that undo it (a Q:WEAK's post rewrites). The
    /// LP is asked for `qpost ≥ mul·Σ C_j·A⁻_j` on those atoms, so that the access's pre
    /// has no negative coefficient.
    pub(super) fn guard_tpoly(
        &mut self,
        g: &crate::analysis::derive::guarded::GuardCharge,
        mul: &crate::core::metric::Q,
        qpost: &TPoly,
        p: &[crate::core::assertion::linear::Cstr],
    ) -> Result<(TPoly, TPoly, Vec<Rewrite>), AnalysisError> {
        let (mut plus, mut minus) = (TPoly::zero(), TPoly::zero());
        let mut bridged = qpost.clone();
        let mut rws = Vec::new();
        for (c, t) in &g.terms {
            let k = mul * crate::core::metric::q(*c as i64);
            let (Some(up), Some(down)) = (g.atom(*t, true), g.atom(*t, false)) else {
                return Err(crate::analysis::derive::err(
                    None,
                    "internal: a guarded charge's atom is not canonical",
                ));
            };
            plus.add_raw_term(std::slice::from_ref(&up), Coef::from_q(&k));
            minus.add_raw_term(std::slice::from_ref(&down), Coef::from_q(&k));
            if bridged.terms.keys().any(|m| m.contains(&down)) {
                continue;
            }
            let Atom::Floor(l1, s) = &down else { continue };
            let mut cands: Vec<(Atom, Lin)> = bridged
                .terms
                .keys()
                .flatten()
                .filter_map(|b| match b {
                    Atom::Floor(l2, s2) if s2 == s && b != &down => {
                        Some((b.clone(), (**l2).clone()))
                    }
                    _ => None,
                })
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            cands.sort_by(|x, y| y.1.sub(l1).c.cmp(&x.1.sub(l1).c));
            let found = cands.into_iter().find_map(|(b, l2)| {
                crate::analysis::derive::ranking::floor_mono_cg(p, l1, &l2, s).map(|cg| (b, cg))
            });
            if let Some((b, cg)) = found {
                let one = crate::core::metric::q(1);
                bridged = bridged.replace_atom(&b, &[(one, Some(down.clone()))]);
                rws.push(Rewrite::IMono(down.clone(), b, cg));
            }
        }
        let mut have = TPoly::zero();
        for m in minus.terms.keys() {
            if let Some(c) = bridged.terms.get(m) {
                have.add_term(m.clone(), c.clone());
            }
        }
        self.geq(
            &have,
            &minus,
            "a guarded access leaves its charge's lower atoms",
        )?;
        let charge = plus.plus(&minus.scaled(&crate::core::metric::q(-1)));
        Ok((charge, bridged, rws))
    }

    /// Q:IFEXIT1/4 (spec/logic.md §4a): the exit branch ends with the zero potential; the
    /// else branch's potential comes from a template through the rewrites.
    pub(super) fn back_if_exit(
        &mut self,
        a: &AN,
        an: &IfExitAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let IfExitAn {
            uniform,
            e,
            cost,
            t,
            f,
            w_exit,
            w_join_then,
            w_join_else,
            rw_f,
            f_pre,
        } = an;
        let node =
            |rule, qpre: &TPoly, fields, children| node_of(a, qpost, rule, qpre, fields, children);
        let (nf, qf) = self.back(f, qpost.clone())?;
        let (nt, qt) = self.back(t, TPoly::zero())?;
        let ident = |abs: &Abs| Field::Entail("pre", identity_witnesses(&abs.p));
        let ident_post = |abs: &Abs| Field::Entail("post", identity_witnesses(&abs.p));
        // the else branch's potential, from a template through the rewrites
        let weak_f = |this: &mut Self, tpl: &TPoly| -> Result<TNode, AnalysisError> {
            this.geq(&apply_rewrites(tpl, rw_f), &qf, "IFEXIT else-branch")?;
            let mut fields = vec![Field::Entail("pre", subset_witnesses(&f_pre.p, &f.pre.p))];
            if !rw_f.is_empty() {
                fields.push(Field::Rewrite("pre", rw_f.clone()));
            }
            fields.push(ident_post(&f.post));
            Ok(TNode {
                rule: "Q:WEAK",
                pre: (f_pre.clone(), tpl.clone()),
                post: (f.post.clone(), qpost.clone()),
                fields,
                children: vec![],
            })
        };
        let fields = vec![
            Field::Entail("exit", w_exit.clone()),
            Field::Entail("join-then", w_join_then.clone()),
            Field::Entail("join-else", w_join_else.clone()),
        ];
        if *uniform {
            let mut monos: BTreeSet<Mono> = qt.terms.keys().cloned().collect();
            monos.extend(qf.terms.keys().cloned());
            monos.extend(unshifted_monos(rw_f, &qf));
            let tpl = self.template(&monos);
            self.geq(&tpl, &qt, "IFEXIT then-branch")?;
            let mut wf = weak_f(self, &tpl)?;
            wf.children.push(TChild::Stmt(nf));
            let wt = TNode {
                rule: "Q:WEAK",
                pre: (t.pre.clone(), tpl.clone()),
                post: (t.post.clone(), TPoly::zero()),
                fields: vec![ident(&t.pre), ident_post(&t.post)],
                children: vec![TChild::Stmt(nt)],
            };
            let qp = tpl.plus_const(&(cost + &self.ctx.metric.if_));
            Ok((
                node(
                    "Q:IFEXIT1",
                    &qp,
                    fields,
                    vec![TChild::Expr(e.clone()), TChild::Stmt(wt), TChild::Stmt(wf)],
                ),
                qp,
            ))
        } else {
            let (fchild, qfn) = if rw_f.is_empty() && f_pre.d == f.pre.d && f_pre.p == f.pre.p {
                (nf, qf.clone())
            } else {
                let mut monos: BTreeSet<Mono> = qf.terms.keys().cloned().collect();
                monos.extend(unshifted_monos(rw_f, &qf));
                let tpl = self.template(&monos);
                let mut wf = weak_f(self, &tpl)?;
                wf.children.push(TChild::Stmt(nf));
                (wf, tpl)
            };
            let qp = qt
                .plus(&qfn)
                .plus_const(&(cost + &self.ctx.metric.if_ + &self.split_cost()));
            Ok((
                node(
                    "Q:IFEXIT4",
                    &qp,
                    fields,
                    vec![
                        TChild::Expr(e.clone()),
                        TChild::Stmt(nt),
                        TChild::Stmt(fchild),
                    ],
                ),
                qp,
            ))
        }
    }

    /// Q:FLAGEXIT (spec/logic.md §4a): the flag test's then branch owes the node's post
    /// potential, its pre is the post of the part before the test (filtered for the test);
    /// the exit branch starts from the empty `D` (a constant potential) and ends with the
    /// zero potential; the pre pays the part, the exit branch, the test and `M^div`.
    pub(super) fn back_flag_exit(
        &mut self,
        a: &AN,
        an: &FlagExitAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let (nt, qt, nf, qf, fields) = self.back_guard_branches(&an.test, qpost)?;
        let (np, qp0) = self.back(&an.part, qt)?;
        let qp = self.guard_pre(&an.test, qp0, &qf);
        let children = vec![
            TChild::Stmt(np),
            TChild::Expr(an.test.e.clone()),
            TChild::Stmt(nt),
            TChild::Stmt(nf),
        ];
        Ok((node_of(a, qpost, "Q:FLAGEXIT", &qp, fields, children), qp))
    }

    /// Q:IFGUARD4 (spec/logic.md §4a): the then branch owes the node's post potential,
    /// the exit (else) branch ends with the zero potential; the pre pays both branches,
    /// the test and `M^div`.
    pub(super) fn back_if_guard(
        &mut self,
        a: &AN,
        an: &IfGuardAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let (nt, qt, nf, qf, fields) = self.back_guard_branches(an, qpost)?;
        let qp = self.guard_pre(an, qt, &qf);
        let children = vec![
            TChild::Expr(an.e.clone()),
            TChild::Stmt(nt),
            TChild::Stmt(nf),
        ];
        Ok((node_of(a, qpost, "Q:IFGUARD4", &qp, fields, children), qp))
    }

    /// The branches of a guard test (Q:IFGUARD4, and Q:FLAGEXIT's test): the then branch
    /// from the node's post potential, the exit branch from the zero potential, and the
    /// two join witnesses as fields.
    #[allow(clippy::type_complexity)]
    fn back_guard_branches(
        &mut self,
        an: &IfGuardAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly, TNode, TPoly, Vec<Field>), AnalysisError> {
        let (nt, qt) = self.back(&an.t, qpost.clone())?;
        let (nf, qf) = self.back(&an.f, TPoly::zero())?;
        let fields = vec![
            Field::Entail("join-then", an.w_join_then.clone()),
            Field::Entail("join-else", an.w_join_else.clone()),
        ];
        Ok((nt, qt, nf, qf, fields))
    }

    /// The pre potential of a guard test: `q` (what the then side owes) plus the exit
    /// branch's `qf`, the test's cost, `M^if` and `M^div`.
    fn guard_pre(&self, an: &IfGuardAn, q: TPoly, qf: &TPoly) -> TPoly {
        q.plus(qf)
            .plus_const(&(&an.cost + &self.ctx.metric.if_ + &self.split_cost()))
    }
}
