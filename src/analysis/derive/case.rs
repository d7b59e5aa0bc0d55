//! Q:WHILENONE and Q:CASE (spec/logic.md §4a, issue 15): a guard loop no thread enters,
//! and the case split of a whole derivation on the sign of an `int` parameter, which lets
//! the case where such a loop runs no round keep its flags uniform (`for_return`
//! `divwarps` 0 at `n ≤ 0`).

use crate::analysis::derive::{run, Abs, Ctx, AK, AN};
use crate::analysis::entail::entails_all;
use crate::analysis::linear::cond;
use crate::analysis::AnalysisError;
use crate::certificate::{Assn, Farkas, Field, Judgment, Node, Rewrite};
use crate::core::assertion::linear::{Cstr, DepMap, Lin};
use crate::core::assertion::poly::{Atom, Poly};
use crate::core::metric::Q;
use crate::core::{Expr, Operand, Stmt, Ty};
use num_traits::{One, Zero};
use std::sync::Arc;

impl Ctx<'_> {
    /// Q:WHILENONE for `it = while (g) body` right after `prev = g ← E` in a sequence, when
    /// the pre `(P, D)` entails `cond(¬E)` (non-empty): the loop's post is its pre, the
    /// node charges the failed test. `None` otherwise.
    pub(super) fn fwd_while_none(
        &self,
        prev: &Stmt,
        it: &Stmt,
        pre: &Abs,
    ) -> Result<Option<AN>, AnalysisError> {
        let (Stmt::Assign(g, c, _), Stmt::While(e @ Expr::Opd(Operand::Var(h)), _, loc)) =
            (prev, it)
        else {
            return Ok(None);
        };
        if g != h || self.guard_var(e).is_none() {
            return Ok(None);
        }
        let (_, cne, ..) = cond(self, c);
        if cne.is_empty() {
            return Ok(None);
        }
        let Some(w_none) = entails_all(&pre.p, &cne) else {
            return Ok(None);
        };
        let (en, cost) = self.expr_node(e, pre, *loc)?;
        Ok(Some(AN {
            pre: pre.clone(),
            post: pre.clone(),
            kind: AK::WhileNone {
                e: en.into(),
                cost,
                w_none,
            },
        }))
    }
}

/// The rules of a guard loop (spec/logic.md §4a): a derivation with one of them may gain
/// from a case split on the sign of a parameter ([`split_cases`]).
const GUARD_RULES: [&str; 3] = ["Q:WHILEGUARD", "Q:WHILEGUARD0", "Q:WHILEGUARD1"];

/// Values of a parameter at which a split's bound is compared with the unsplit one.
const SAMPLES: [i64; 12] = [-3, -1, 0, 1, 2, 3, 5, 17, 31, 32, 40, 100];

/// Q:CASE at the root (spec/logic.md §4a, issue 15): for a derivation with a guard loop and
/// each `int` parameter `p` of its bound, the analysis again under `p ≤ 0` (`Q_T`) and under
/// `p ≥ 1` (`Q_F`); the two derivations become the children of a Q:CASE whose pre
/// potential is the coefficient-wise maximum of `Q_T` and `Q_F*`, where `Q_F*` is `Q_F`
/// after `(shift p 1)` with part of its constant folded back into `max0(p)`
/// (`c + a·max0(p − 1) ↦ a'·max0(p) + (a − a')·max0(p − 1) + (c − a')`, `a' = min(a, c)`,
/// which the same shift maps back to `Q_F`'s image). The `then` case needs no rewrite (`Q ≥ Q_T` coefficient-wise), the
/// `else` case the shift `(shift p 1)` applied to both sides. The split is kept when its
/// bound is nowhere above `bound` at the sampled parameter values ([`SAMPLES`], other
/// parameters at 0, 1, 7 and 64) and below it at one; otherwise `(derivation, bound)` is
/// returned unchanged.
pub(crate) fn split_cases(
    prog: &crate::core::Program,
    metric: &crate::core::Metric,
    hw: &crate::core::Hardware,
    launch: &crate::core::Launch,
    opts: &crate::analysis::AnalysisOptions,
    derivation: Node,
    bound: Poly,
) -> (Node, Poly) {
    let mut used = std::collections::BTreeMap::new();
    derivation.count_rules(&mut used);
    if !GUARD_RULES.iter().any(|r| used.contains_key(r)) {
        return (derivation, bound);
    }
    let ints: Vec<String> = prog
        .params
        .iter()
        .filter(|p| p.ty == Ty::Int)
        .map(|p| p.name.clone())
        .collect();
    for p in ints.iter().filter(|p| bound.mentions(p)) {
        if let Some((n, q)) = split_on(prog, metric, hw, launch, opts, p) {
            if below(&q, &bound, p, &ints) {
                return (n, q);
            }
        }
    }
    (derivation, bound)
}

/// The Q:CASE derivation on `p ≤ 0` / `p ≥ 1` and its bound ([`split_cases`]); `None` when
/// either case has no derivation or the root assertions do not fit.
fn split_on(
    prog: &crate::core::Program,
    metric: &crate::core::Metric,
    hw: &crate::core::Hardware,
    launch: &crate::core::Launch,
    opts: &crate::analysis::AnalysisOptions,
    p: &str,
) -> Option<(Node, Poly)> {
    let lp = Lin::var(p);
    let c_then = Cstr::le(lp.clone());
    let c_else = Cstr::le(Lin::constant(Q::one()).sub(&lp));
    let mut ct = Ctx::new(prog, metric, hw, launch, opts).under(std::slice::from_ref(&c_then));
    let (nt, qt) = run(&mut ct).ok()?;
    let mut cf = Ctx::new(prog, metric, hw, launch, opts).under(std::slice::from_ref(&c_else));
    let (nf, qf) = run(&mut cf).ok()?;
    let (Judgment::Stmt { pre: tpre, .. }, Judgment::Stmt { pre: fpre, .. }) =
        (&nt.judgment, &nf.judgment)
    else {
        return None;
    };
    // both roots: the launch facts with the case appended, the same map
    let (Some((c_t, p0)), Some((c_f, p0f))) = (tpre.p.split_last(), fpre.p.split_last()) else {
        return None;
    };
    if *c_t != c_then || *c_f != c_else || p0 != p0f || tpre.d != fpre.d {
        return None;
    }
    let atom = Atom::Max0(Arc::new(lp.clone()));
    let down = Atom::Max0(Arc::new(lp.plus_const(&-Q::one())));
    let shift =
        |q: &Poly| q.replace_atom(&atom, &[(Q::one(), None), (Q::one(), Some(down.clone()))]);
    // Q_F*: the shifted Q_F with `a'` of `c + a·max0(p − 1)` folded back into
    // `a'·max0(p)`, `a' = min(a, c)`: the same shift maps it to the shifted Q_F exactly
    let mut qf_star = shift(&qf);
    let a = qf_star
        .terms
        .get(&vec![down.clone()])
        .cloned()
        .unwrap_or_default();
    let c = qf_star.terms.get(&Vec::new()).cloned().unwrap_or_default();
    let fold = a.min(c);
    if fold > Q::zero() {
        qf_star.add_term(vec![down.clone()], -fold.clone());
        qf_star.add_term(Vec::new(), -fold.clone());
        qf_star.add_term(vec![atom.clone()], fold);
    }
    if qf_star.terms.values().any(|v| *v < Q::zero()) {
        return None;
    }
    // Q = max(Q_T, Q_F*) coefficient-wise
    let mut q = qt.clone();
    for (m, v) in qf_star.terms.iter() {
        let have = q.terms.get(m).cloned().unwrap_or_default();
        if *v > have {
            q.add_term(m.clone(), v - &have);
        }
    }
    let shift_rw = Rewrite::Shift(lp, Q::one(), Farkas::Id(p0.len()));
    let node = Node {
        rule: "Q:CASE",
        judgment: Judgment::Stmt {
            pre: Assn {
                p: Arc::new(p0.to_vec()),
                d: tpre.d.clone(),
                q: q.clone(),
            },
            post: Assn {
                p: Arc::new(Vec::new()),
                d: Arc::new(DepMap::default()),
                q: Poly::zero(),
            },
        },
        fields: vec![
            Field::Rewrite("else", vec![shift_rw]),
            Field::Entail("join-then", Vec::new()),
            Field::Entail("join-else", Vec::new()),
        ],
        children: vec![nt, nf],
    };
    Some((node, q))
}

/// `q ≤ bound` at every sampled point and `q < bound` at one ([`split_cases`]).
fn below(q: &Poly, bound: &Poly, p: &str, ints: &[String]) -> bool {
    let mut strict = false;
    for v in SAMPLES {
        for other in [0i64, 1, 7, 64] {
            let env: std::collections::BTreeMap<String, i64> = ints
                .iter()
                .map(|x| (x.clone(), if x == p { v } else { other }))
                .collect();
            let (a, b) = (q.eval(&env), bound.eval(&env));
            if a > b {
                return false;
            }
            strict |= a < b;
        }
    }
    strict
}
