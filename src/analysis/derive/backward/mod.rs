//! The backward pass (RaCUDA §7): potentials with template coefficients (LP variables)
//! from the post of each statement to its pre, one rule family per method, and the LP
//! constraints that make every rule instance valid.

mod branch;
mod loops;

use crate::analysis::derive::{err, identity_witnesses, Abs, Ctx, AK, AN};
use crate::analysis::derive::{AssignAn, WarpAn};
use crate::analysis::linear::uniform_form;
use crate::analysis::lp::{Lp, Rel};
use crate::analysis::tpoly::TPoly;
use crate::analysis::AnalysisError;
use crate::certificate::{Field, Rewrite};
use crate::core::assertion::linear::{DepMap, Lin};
use crate::core::assertion::poly::{canon_atom, Atom, AtomVal, Coef, Mono};
use crate::core::assertion::sorted::SharedMap;
use crate::core::metric::Q;
use crate::core::Loc;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A derivation node whose potentials are templates.
pub(super) struct TNode {
    pub(super) rule: &'static str,
    pub(super) pre: (Abs, TPoly),
    pub(super) post: (Abs, TPoly),
    pub(super) fields: Vec<Field>,
    pub(super) children: Vec<TChild>,
}

pub(super) enum TChild {
    /// Shared with the forward tree (taken without a copy once that is freed).
    Expr(super::ENode),
    Stmt(TNode),
}

pub(super) struct Back<'c, 'a> {
    pub(super) ctx: &'c Ctx<'a>,
    pub(super) lp: Lp,
    /// Assignments that forced potential coefficients to 0 (reported if the LP fails).
    pub(super) hints: Vec<(Loc, String)>,
    /// Whether long sequences' LPs are solved tail by tail (`derive/seq.rs`).
    pub(super) tails: bool,
    /// How many tails were solved on their own.
    pub(super) tails_solved: usize,
    /// The last pre potential [`Back::back`] restricted to its `D` ([`Back::restrict_d`]),
    /// with that `D`: the post potential of the statement before, under the same `D`, needs
    /// no restriction again (issue 13: their terms and maps are shared).
    pub(super) restricted: Option<(TPoly, Arc<DepMap>)>,
    /// Deferred shifts (derive/nest.rs): for an inner loop of a triangular loop, the shift
    /// of the outer ranking atom that a Q:WEAK at the inner loop's entry applies (instead
    /// of the outer body's entry).
    pub(super) deferred: BTreeMap<usize, Rewrite>,
    /// In the body of a capped loop (Q:WHILEGUARDCAP / Q:WHILEEXITCAP): the exit nodes
    /// charge no `M^div` ([`Back::split_cost`]).
    pub(super) capped: bool,
}

impl Back<'_, '_> {
    /// The `M^div` of an exit node's split: 0 in a capped loop's body (spec/logic.md §4a).
    pub(super) fn split_cost(&self) -> Q {
        if self.capped {
            Q::zero()
        } else {
            self.ctx.metric.div.clone()
        }
    }
}

impl Back<'_, '_> {
    /// Forces to 0 (LP equalities) and drops the monomials that mention a variable `bad`
    /// rejects.
    pub(super) fn restrict(
        &mut self,
        qp: TPoly,
        bad: impl Fn(&str) -> bool,
        why: &str,
    ) -> Result<TPoly, AnalysisError> {
        self.restrict_atoms(qp, |a| a.vars().any(|v| bad(v)), why)
    }

    /// Forces to 0 (LP equalities) and drops the monomials with an atom one of whose forms
    /// `bad` rejects (both forms of a quotient log atom).
    pub(super) fn restrict_atoms(
        &mut self,
        qp: TPoly,
        bad: impl Fn(&Lin) -> bool,
        why: &str,
    ) -> Result<TPoly, AnalysisError> {
        self.restrict_monos(qp, |a| a.forms().into_iter().any(&bad), why)
    }

    /// Forces to 0 (LP equalities) and drops the monomials with an atom `bad` rejects.
    pub(super) fn restrict_monos(
        &mut self,
        qp: TPoly,
        bad: impl Fn(&Atom) -> bool,
        why: &str,
    ) -> Result<TPoly, AnalysisError> {
        // in monomial order, as the LP equalities are numbered in the order they are added
        let mut out = qp;
        let drop: Vec<Mono> = out
            .terms
            .keys()
            .filter(|m| m.iter().any(&bad))
            .cloned()
            .collect();
        for m in drop {
            if let Some(c) = out.terms_mut().remove(&m) {
                self.lp
                    .add(c, Rel::Eq, why)
                    .map_err(|e| err(None, format!("no bound: {e}")))?;
            }
        }
        // the terms stay shared when none is zero
        if out.terms.values().any(|c| c.is_zero_c()) {
            out.terms_mut().retain(|_, c| !c.is_zero_c());
        }
        Ok(out)
    }

    /// Forces to 0 the monomials with an atom that is not uniform under `d` (spec/logic.md
    /// §1: atoms are forms whose thread coefficients cancel under `D`).
    pub(super) fn restrict_d(&mut self, qp: TPoly, d: &DepMap) -> Result<TPoly, AnalysisError> {
        // the context's map of local types, not `Program`'s scan (issue 13)
        let ctx = self.ctx;
        self.restrict_atoms(
            qp,
            |a| !uniform_form(ctx, d, a),
            "potential atoms must be uniform under D",
        )
    }

    /// `hi ≥ lo` coefficientwise.
    pub(super) fn geq(&mut self, hi: &TPoly, lo: &TPoly, why: &str) -> Result<(), AnalysisError> {
        let mut monos: BTreeSet<&Mono> = hi.terms.keys().collect();
        monos.extend(lo.terms.keys());
        for m in monos {
            let a = hi.terms.get(m).cloned().unwrap_or_default();
            let b = lo.terms.get(m).cloned().unwrap_or_default();
            self.lp
                .add(a.minus(&b), Rel::Ge, why)
                .map_err(|e| err(None, format!("no bound: {e}")))?;
        }
        Ok(())
    }

    pub(super) fn back(&mut self, a: &AN, qpost: TPoly) -> Result<(TNode, TPoly), AnalysisError> {
        let done = matches!(&self.restricted, Some((q, d))
            if SharedMap::ptr_eq(&q.terms, &qpost.terms) && Arc::ptr_eq(d, &a.post.d));
        let qpost = if done {
            qpost
        } else {
            self.restrict_d(qpost, &a.post.d)?
        };
        let node =
            |rule, qpre: &TPoly, fields, children| node_of(a, &qpost, rule, qpre, fields, children);
        let (n, qpre) = match &a.kind {
            AK::Skip => (node("Q:SKIP", &qpost, vec![], vec![]), qpost.clone()),
            AK::Sync => {
                let qp = qpost.plus_const(&self.ctx.metric.sync);
                (node("Q:SYNC", &qp, vec![], vec![]), qp)
            }
            AK::Seq(items) => {
                let (kids, qp) = self.back_seq(items, &qpost)?;
                (node("Q:SEQ", &qp, vec![], kids), qp)
            }
            AK::Weaken { inner, w_post } => {
                let (fields, n, q) = self.back_weaken(inner, w_post, &qpost)?;
                (node("Q:WEAK", &q, fields, vec![TChild::Stmt(n)]), q)
            }
            AK::Assign(an) => self.back_assign(a, an, &qpost)?,
            AK::Warp(an) => self.back_warp(a, an, &qpost)?,
            AK::Write {
                global,
                local,
                n,
                o,
                e,
                cost,
                rows,
                guarded,
            } => {
                if let (false, true, None, Some((g, c))) =
                    (*local, *global, rows.as_deref(), guarded.as_deref())
                {
                    // Q:GWRITEGUARD (spec/logic.md §4 "Guarded accesses"), in a Q:WEAK
                    // bridging the step's atoms when the step is not the divisor
                    let (charge, bridged, rws) =
                        self.guard_tpoly(g, &self.ctx.metric.gwrite.mul, &qpost, &a.post.p)?;
                    let qp = bridged.plus_const(c).plus(&charge);
                    let fields = vec![
                        Field::N(g.n0),
                        Field::Guard(g.index, g.div, g.terms.clone()),
                    ];
                    let children = vec![TChild::Expr(o.clone()), TChild::Expr(e.clone())];
                    let inner = node_of(a, &bridged, "Q:GWRITEGUARD", &qp, fields, children);
                    return Ok(guard_weak(a, inner, &qp, &qpost, rws));
                }
                let (rule, fields, qp) = match (*local, *global, rows.as_deref()) {
                    (true, _, _) => ("Q:LWRITE", vec![], qpost.plus_const(cost)),
                    (false, true, Some((r, c))) => (
                        "Q:GWRITEROWS",
                        vec![Field::N(r.n0), Field::Rows(r.terms.clone())],
                        qpost
                            .plus_const(c)
                            .plus(&self.rows_tpoly(r, &self.ctx.metric.gwrite.mul)),
                    ),
                    (false, true, None) => ("Q:GWRITE", vec![Field::N(*n)], qpost.plus_const(cost)),
                    (false, false, _) => ("Q:SWRITE", vec![Field::N(*n)], qpost.plus_const(cost)),
                };
                (
                    node(
                        rule,
                        &qp,
                        fields,
                        vec![TChild::Expr(o.clone()), TChild::Expr(e.clone())],
                    ),
                    qp,
                )
            }
            AK::If23 {
                rule,
                witnesses,
                e,
                cost,
                branch,
            } => {
                let (nb, qb) = self.back(branch, qpost.clone())?;
                let qp = qb.plus_const(&(cost + &self.ctx.metric.if_));
                (
                    node(
                        rule,
                        &qp,
                        vec![Field::Entail("cond", witnesses.clone())],
                        vec![TChild::Expr(e.clone()), TChild::Stmt(nb)],
                    ),
                    qp,
                )
            }
            AK::If1(an) => self.back_if1(a, an, &qpost)?,
            AK::Tighten { inner, w_pre } => {
                let (n, q) = self.back(inner, qpost.clone())?;
                (
                    node(
                        "Q:WEAK",
                        &q,
                        vec![
                            Field::Entail("pre", w_pre.clone()),
                            Field::Entail("post", identity_witnesses(&inner.post.p)),
                        ],
                        vec![TChild::Stmt(n)],
                    ),
                    q,
                )
            }
            AK::If4(an) => self.back_if4(a, an, &qpost)?,
            AK::IfExit(an) => self.back_if_exit(a, an, &qpost)?,
            AK::IfGuard(an) => self.back_if_guard(a, an, &qpost)?,
            AK::FlagExit(an) => self.back_flag_exit(a, an, &qpost)?,
            AK::Guard { inner, rw } => {
                // Q:GUARD: the assignment's post potential from a template through the
                // rewrites under cond(c)
                let mut monos: BTreeSet<Mono> = qpost.terms.keys().cloned().collect();
                monos.extend(unshifted_monos(rw, &qpost));
                let tpl = self.template(&monos);
                self.geq(&apply_rewrites(&tpl, rw), &qpost, "GUARD post")?;
                let (n, q) = self.back(inner, tpl)?;
                let fields = if rw.is_empty() {
                    vec![]
                } else {
                    vec![Field::Rewrite("guard", rw.clone())]
                };
                (node("Q:GUARD", &q, fields, vec![TChild::Stmt(n)]), q)
            }
            AK::GuardExit { inner } => {
                let (n, q) = self.back(inner, TPoly::zero())?;
                let fields = vec![Field::Entail("exit", identity_witnesses(&inner.post.p))];
                (node("Q:GUARDEXIT", &q, fields, vec![TChild::Stmt(n)]), q)
            }
            AK::WhileExit(an) => self.back_while_exit(a, an, &qpost)?,
            AK::WhileNone { e, cost, w_none } => {
                // Q:WHILENONE: the failed test alone
                let qp = qpost.plus_const(&(cost + &self.ctx.metric.if_));
                let fields = vec![Field::Entail("none", w_none.clone())];
                (
                    node("Q:WHILENONE", &qp, fields, vec![TChild::Expr(e.clone())]),
                    qp,
                )
            }
            AK::Unroll { inner } => {
                let (ni, qi) = self.back(inner, qpost.clone())?;
                (node("Q:UNROLL", &qi, vec![], vec![TChild::Stmt(ni)]), qi)
            }
            AK::While(an) => match self.deferred.get(&an.key).cloned() {
                Some(rw) => self.back_deferred(a, an, &qpost, rw)?,
                None => self.back_while(a, an, &qpost)?,
            },
        };
        let qpre = self.restrict_d(qpre, &a.pre.d)?;
        self.restricted = Some((qpre.clone(), Arc::clone(&a.pre.d)));
        let mut n = n;
        n.pre.1 = qpre.clone();
        Ok((n, qpre))
    }

    /// Q:SHFL/Q:VOTE: the potential after the statement must not mention `x` (its value
    /// is not a linear form); the pre potential is the post's plus the cost.
    fn back_warp(
        &mut self,
        a: &AN,
        an: &WarpAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let WarpAn {
            rule,
            x,
            loc,
            children,
            cost,
        } = an;
        if qpost.mentions(x) {
            let why = format!(
                "`{x}` is assigned a warp shuffle or vote, so the potential after it cannot mention `{x}`"
            );
            if !self.hints.iter().any(|(l, w)| l == loc && *w == why) {
                self.hints.push((*loc, why));
            }
        }
        let xs = x.clone();
        let restricted = self.restrict(
            qpost.clone(),
            |v| v == xs,
            "the potential after a warp operation must not mention the assigned variable",
        )?;
        let qp = restricted.plus_const(cost);
        let kids = children
            .iter()
            .map(|c| TChild::Expr(c.clone().into()))
            .collect();
        let mut nn = node_of(a, qpost, rule, &qp, vec![], kids);
        nn.post.1 = restricted;
        Ok((nn, qp))
    }

    /// Q:VWRITE1/2 (spec/logic.md §4): substitution of the assigned value into the
    /// potential, or a potential that does not mention the variable.
    pub(super) fn back_assign(
        &mut self,
        a: &AN,
        an: &AssignAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let AssignAn {
            x,
            loc,
            lin,
            halve,
            product,
            vw1,
            witnesses,
            e,
            cost,
            rows,
            guarded,
        } = an;
        let node =
            |rule, qpre: &TPoly, fields, children| node_of(a, qpost, rule, qpre, fields, children);
        // (integer costs summed without the rational gcd, issue 13)
        let k = crate::core::metric::q_sum(cost, &self.ctx.metric.vwrite);
        let fields = vec![Field::Entail("post", witnesses.clone())];
        // Q:VWRITE1 substitutes (a non-uniform value too when the potential after it
        // mentions x through uniform forms, spec/logic.md §4); Q:VWRITE2 otherwise
        let substitute = *vw1 || (qpost.mentions(x) && a.post.d.contains_key(x));
        if substitute && lin.is_some() {
            let le = lin.clone().unwrap_or_default();
            let qp = qpost.subst(x, &le).plus_const(&k);
            Ok((
                node("Q:VWRITE1", &qp, fields, vec![TChild::Expr(e.clone())]),
                qp,
            ))
        } else if let (true, Some((la, w, div))) =
            (substitute && qpost.mentions(x), halve.as_deref())
        {
            // bounding substitution: x ← a − 1 in atoms rising with x (x ← a/d in log
            // atoms), x ← 0 in the others; the last witness is P ⇒ a ≥ 1 (spec/logic.md §4
            // "Halving")
            // a quotient log atom is antitone in its divisor form: no bounding substitution
            // there (the kernel refuses it), so those terms are 0
            let qpost = &self.restrict_monos(
                qpost.clone(),
                |a| match a {
                    Atom::LogQ(_, m) => m.mentions(x),
                    Atom::Res(..) | Atom::Win(..) => a.mentions(x),
                    _ => false,
                },
                "a halving assignment cannot bound a quotient log atom's divisor or a residue atom",
            )?;
            let qp = bound_subst(qpost, x, la, div).plus_const(&k);
            let mut ws = witnesses.clone();
            ws.push(w.clone());
            let fields = vec![Field::Entail("post", ws)];
            Ok((
                node("Q:VWRITE1", &qp, fields, vec![TChild::Expr(e.clone())]),
                qp,
            ))
        } else if let (true, Some((floor, wa, wb))) = (substitute, product.as_deref()) {
            // lower bounding substitution: x ← β·a + α·b − α·β in atoms falling with x, the
            // atoms rising with x forced to 0; the last witnesses are P ⇒ a ≥ α, P ⇒ b ≥ β
            // (spec/logic.md §4 "Products")
            let restricted = self.restrict_monos(
                qpost.clone(),
                |a| {
                    a.lin().coef(x) > Q::zero()
                        || matches!(a, Atom::LogQ(_, m) if m.mentions(x))
                        || matches!(a, Atom::Res(..) | Atom::Win(..) if a.mentions(x))
                },
                "the potential after a product's assignment must not rise with the variable",
            )?;
            let qp = restricted.subst(x, floor).plus_const(&k);
            let mut ws = witnesses.clone();
            ws.extend([wa.clone(), wb.clone()]);
            let fields = vec![Field::Entail("post", ws)];
            let mut nn = node("Q:VWRITE1", &qp, fields, vec![TChild::Expr(e.clone())]);
            nn.post.1 = restricted;
            Ok((nn, qp))
        } else {
            // Q' must not mention x: force those coefficients to 0 (now qpost is exact)
            if qpost.mentions(x) {
                let why = if *vw1 {
                    format!("`{x}` is assigned a non-linear value, so the potential after it cannot mention `{x}`")
                } else {
                    format!("`{x}` is not warp-uniform before this assignment (Q:VWRITE1 needs it in X(D)) or the value is not uniform, so the potential after it cannot mention `{x}`")
                };
                if !self.hints.iter().any(|(l, w)| l == loc && *w == why) {
                    self.hints.push((*loc, why));
                }
            }
            let xs = x.clone();
            let restricted = self.restrict(
                qpost.clone(),
                |v| v == xs,
                "the potential after an assignment without substitution must not mention the variable",
            )?;
            // Q:VWRITEROWS / Q:VWRITEGUARD when their P' (P without the constraints on x) is
            // the post's (compared in place, not copied: issue 13)
            let kept = || {
                a.pre
                    .p
                    .iter()
                    .filter(|c| !c.mentions(x))
                    .eq(a.post.p.iter())
            };
            if let (Some((r, c, on)), false, true) =
                (rows.as_deref(), *vw1, rows.is_some() && kept())
            {
                let qp = restricted
                    .plus_const(&crate::core::metric::q_sum(c, &self.ctx.metric.vwrite))
                    .plus(&self.rows_tpoly(r, &self.ctx.metric.gread.mul));
                let fields = vec![Field::N(r.n0), Field::Rows(r.terms.clone())];
                let mut nn = node("Q:VWRITEROWS", &qp, fields, vec![TChild::Expr(on.clone())]);
                nn.post.1 = restricted;
                return Ok((nn, qp));
            }
            // Q:VWRITEGUARD likewise (spec/logic.md §4 "Guarded accesses")
            if let (Some((g, c, on)), false, true) =
                (guarded.as_deref(), *vw1, guarded.is_some() && kept())
            {
                let (charge, bridged, rws) =
                    self.guard_tpoly(g, &self.ctx.metric.gread.mul, &restricted, &a.post.p)?;
                let qp = bridged
                    .plus_const(&crate::core::metric::q_sum(c, &self.ctx.metric.vwrite))
                    .plus(&charge);
                let fields = vec![
                    Field::N(g.n0),
                    Field::Guard(g.index, g.div, g.terms.clone()),
                ];
                let children = vec![TChild::Expr(on.clone())];
                let inner = node_of(a, &bridged, "Q:VWRITEGUARD", &qp, fields, children);
                let (mut nn, qp) = guard_weak(a, inner, &qp, &restricted, rws);
                nn.post.1 = restricted;
                return Ok((nn, qp));
            }
            let qp = restricted.plus_const(&k);
            let rule = if *vw1 { "Q:VWRITE1" } else { "Q:VWRITE2" };
            let mut nn = node(rule, &qp, fields, vec![TChild::Expr(e.clone())]);
            nn.post.1 = restricted;
            Ok((nn, qp))
        }
    }
}

/// `Q⌈x ← a >> c⌉` of Q:VWRITE1 (spec/logic.md §4 "Halving"): in each atom, `x ← a − 1`
/// where `x`'s coefficient is positive, `x ← 0` where it is negative; renormalized.
fn bound_subst(q: &TPoly, x: &str, a: &Lin, div: &Q) -> TPoly {
    let up = a.plus_const(&-Q::one());
    let log_up = a.scale(&(Q::one() / div));
    let mut out = TPoly::zero();
    for (m, c) in &q.terms {
        // a floor atom is monotone in its form: the same bounding substitution
        let atoms: Vec<Atom> = m
            .iter()
            .map(|a| match a.lin().terms.get(x) {
                Some(k) if k.is_positive() && matches!(a, Atom::Log(_)) => a.subst(x, &log_up),
                // a quotient log atom (x only in its bound form L, above): monotone in L
                Some(k) if k.is_positive() && matches!(a, Atom::LogQ(..)) => a.subst(x, &log_up),
                Some(k) if k.is_positive() => a.subst(x, &up),
                Some(_) => a.subst(x, &Lin::constant(Q::zero())),
                None => a.clone(),
            })
            .collect();
        out.add_raw_term(&atoms, c.clone());
    }
    out
}

/// The monomials of `q` with each atom `A'` that a shift of `rw` produces
/// (`max0(A) = max0(A') + s`, `⌊L/c⌋⁺ = ⌊(L − c)/c⌋⁺ + 1`) replaced by `A`: the monomials
/// a template needs so that the rewrites can turn it into `q`.
pub(super) fn unshifted_monos(rw: &[Rewrite], q: &TPoly) -> Vec<Mono> {
    let mut out = Vec::new();
    for r in rw {
        // `max0(A) = max0(A − s) + s`, and for a floor atom `⌊L/c⌋⁺ = ⌊(L − c)/c⌋⁺ + 1`
        let (a, f, b) = match r {
            Rewrite::Shift(a, sft, _) => match canon_atom(&a.plus_const(&-sft.clone())) {
                AtomVal::Scaled(f, b) => (Atom::from(a), f, Atom::from(&b)),
                AtomVal::Const(_) => continue,
            },
            Rewrite::IShift(a, d, _) => match a.shifted(d).canonical() {
                AtomVal::Scaled(f, b) => (a.clone(), f, b),
                AtomVal::Const(_) => continue,
            },
            _ => continue,
        };
        if !f.is_one() {
            continue;
        }
        for m in q.terms.keys() {
            if m.contains(&b) {
                let mut nm: Mono = m
                    .iter()
                    .map(|x| if *x == b { a.clone() } else { x.clone() })
                    .collect();
                nm.sort();
                out.push(nm);
            }
        }
    }
    out
}

/// A template after the shift rewrites of `rw`, in order.
pub(super) fn apply_rewrites(t: &TPoly, rw: &[Rewrite]) -> TPoly {
    let mut out = t.clone();
    for r in rw {
        match r {
            Rewrite::Shift(a, sft, _) => out = out.shift(a, sft),
            Rewrite::Split(a, d, _, _) => out = out.split(a, d),
            Rewrite::Zero(a, _) => out = out.zero_atom(&a.into()),
            Rewrite::Mono(l, l2, _) => out = out.mono(l, l2),
            Rewrite::IShift(a, d, _) => out = out.shift(a, d),
            Rewrite::IZero(a, _) => out = out.zero_atom(a),
            Rewrite::LHalve(l, _) => out = out.lhalve(l),
            Rewrite::LDouble(l, m, _, _) => out = out.ldouble(l, m),
            Rewrite::IMono(a1, a2, _) => {
                out = out.replace_atom(a1, &[(Q::one(), Some(a2.clone()))])
            }
        }
    }
    out
}

/// A node about the statement of `a`: pre `(a.pre, qpre)`, post `(a.post, qpost)`.
/// The node of a guarded access (derive/guarded.rs), wrapped in a Q:WEAK whose post
/// rewrites are `rws` (the `imono`s from the access's lower atoms `A⁻_j` to the atoms the
/// loop step leaves) when there are any; `qp` is the access's pre, `qpost` the node's post.
fn guard_weak(
    a: &AN,
    inner: TNode,
    qp: &TPoly,
    qpost: &TPoly,
    rws: Vec<Rewrite>,
) -> (TNode, TPoly) {
    if rws.is_empty() {
        return (inner, qp.clone());
    }
    let fields = vec![
        Field::Entail("pre", identity_witnesses(&a.pre.p)),
        Field::Entail("post", identity_witnesses(&a.post.p)),
        Field::Rewrite("post", rws),
    ];
    (
        node_of(a, qpost, "Q:WEAK", qp, fields, vec![TChild::Stmt(inner)]),
        qp.clone(),
    )
}

fn node_of(
    a: &AN,
    qpost: &TPoly,
    rule: &'static str,
    qpre: &TPoly,
    fields: Vec<Field>,
    children: Vec<TChild>,
) -> TNode {
    TNode {
        rule,
        pre: (a.pre.clone(), qpre.clone()),
        post: (a.post.clone(), qpost.clone()),
        fields,
        children,
    }
}
