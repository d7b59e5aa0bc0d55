//! The lower-bound rule of counted uniform loops (spec/logic.md §4b, L:WHILE): the
//! invariant `c·max0(L) + R` from the upper body's ranking `shift`, and the rewrite that
//! proves the ranking atom 0 at the exit.

use super::{ids, only, pp, pre_q, stmt_node, with_q, LowerError, Lx};
use crate::analysis::entail::entails;
use crate::certificate::{self, Field, Node, Rewrite};
use crate::core::assertion::poly::Atom;
use crate::core::assertion::{Cstr, Poly};
use crate::core::ir::{Expr, Stmt};
use crate::core::metric::Q;
use num_traits::{One, Signed, Zero};

impl Lx<'_> {
    /// A uniform loop ranked by `max0(L)` (the upper body's Q:WEAK shifts it by 1):
    /// invariant `I = c·max0(L) + R` with `c` the cost of a round (test included), and the
    /// exit potential `c·max0(L)` removed by `zero` under `P ∧ ¬e`.
    pub(super) fn counted_loop(
        &self,
        n: &Node,
        e: &Expr,
        body: &Stmt,
        r: &Poly,
    ) -> Result<Node, LowerError> {
        let (pre, post) = pp(n)?;
        let [ce, b] = n.children.as_slice() else {
            return Err("Q:WHILE1: two children expected".into());
        };
        let writes = body.writes();
        if writes.iter().any(|x| r.mentions(x)) {
            return Err(
                "Q:WHILE1: the potential after the loop mentions a local the loop writes".into(),
            );
        }
        let (le, c) = self.expr(ce, e, pre)?;
        let k = &self.m.if_ + c;
        let (bpre, bpost) = pp(b)?;
        // the body under its ranking Q:WEAK (if any)
        let inner = if b.rule == "Q:WEAK" { only(b, 1)? } else { b };
        let rank = b.fields.iter().find_map(|f| match f {
            Field::Rewrite("pre", rws) => rws.iter().find_map(|rw| match rw {
                Rewrite::Shift(l, d, _) if d.is_one() => Some(Atom::from(l)),
                Rewrite::IShift(a, d, _) if d.is_one() => Some(a.clone()),
                _ => None,
            }),
            _ => None,
        });
        // a round's cost: the body from the post R + k (nothing of the ranking atom)
        let probe = pre_q(&self.stmt(inner, body, &r.plus_const(&k))?);
        let diff = probe.plus(&r.scaled(&-Q::one()));
        let round = match diff.terms.iter().collect::<Vec<_>>().as_slice() {
            [] => Q::zero(),
            [(m, c)] if m.is_empty() => (*c).clone(),
            _ => return Err("Q:WHILE1: a round's cost is not a constant (nested loop?)".into()),
        };
        if round.is_negative() {
            return Err("Q:WHILE1: a round has a negative cost".into());
        }
        if round.is_zero() {
            // rounds cost nothing: the invariant is R itself, no ranking needed
            let lbody = self.stmt(b, body, &r.plus_const(&k))?;
            let lpre = with_q(pre, r.plus_const(&k));
            return Ok(stmt_node(
                "L:WHILE",
                lpre,
                with_q(post, r.clone()),
                vec![],
                vec![le, lbody],
            ));
        }
        let atom = rank.filter(|_| b.rule == "Q:WEAK").ok_or_else(|| {
            "Q:WHILE1: no `shift`/`ishift` of an atom by 1 ranks the loop".to_string()
        })?;
        let mut inv = r.clone();
        inv.add_raw_term(std::slice::from_ref(&atom), round.clone());
        let lin_inner = self.stmt(inner, body, &inv.plus_const(&k))?;
        let rws: Vec<Rewrite> = b
            .fields
            .iter()
            .filter_map(|f| match f {
                Field::Rewrite("pre", rws) => Some(
                    rws.iter()
                        .filter(|r| matches!(r, Rewrite::Shift(..) | Rewrite::IShift(..)))
                        .cloned(),
                ),
                _ => None,
            })
            .flatten()
            .collect();
        let mut bfields: Vec<Field> = b
            .fields
            .iter()
            .filter(|f| matches!(f, Field::Entail(..)))
            .cloned()
            .collect();
        bfields.push(Field::Rewrite("pre", rws));
        let lbody = stmt_node(
            "L:WEAK",
            with_q(bpre, inv.clone()),
            with_q(bpost, inv.plus_const(&k)),
            bfields,
            vec![lin_inner],
        );
        let lpre = with_q(pre, inv.plus_const(&k));
        let lwhile = stmt_node(
            "L:WHILE",
            lpre.clone(),
            with_q(post, inv.clone()),
            vec![],
            vec![le, lbody],
        );
        let fields = vec![
            ids("pre", pre.p.len()),
            ids("post", post.p.len()),
            Field::Rewrite("post", vec![exit_zero(&post.p, &atom)?]),
        ];
        Ok(stmt_node(
            "L:WEAK",
            lpre,
            with_q(post, r.clone()),
            fields,
            vec![lwhile],
        ))
    }
}

/// The rewrite that proves the ranking atom 0 at the loop's exit (`p` the exit's
/// constraints): `(zero L w)` for `max0(L)` with `P ⇒ L ≤ 0`; for `⌊L/d⌋⁺`, `(izero …)`
/// whose cut adds `1/d` of the defining fact `d·q − L ≤ 0` to `1/d` of a witness of
/// `P ⇒ L ≤ d − 1`, giving `q − (d − 1)/d ≤ 0`, rounded to `q ≤ 0` (spec/certificate.md
/// "Integer rewrites"). Errors: no such witness.
fn exit_zero(p: &[Cstr], atom: &Atom) -> Result<Rewrite, LowerError> {
    let none = || "Q:WHILE1: the exit condition does not prove the ranking atom 0".to_string();
    match atom {
        Atom::Max0(l) => {
            let w = entails(p, &Cstr::le((**l).clone())).ok_or_else(none)?;
            Ok(Rewrite::Zero((**l).clone(), w))
        }
        Atom::Floor(l, d) => {
            let dq = Q::from_integer(d.clone());
            let w = entails(p, &Cstr::le(l.plus_const(&(Q::one() - &dq)))).ok_or_else(none)?;
            let mut cut: Vec<(usize, Q)> = w.terms().map(|(i, c)| (i, c / &dq)).collect();
            cut.push((p.len(), Q::one() / &dq));
            let cg = certificate::Cg {
                cuts: vec![certificate::Farkas::Comb(Box::new(cut))],
                farkas: certificate::Farkas::Id(p.len() + 2),
            };
            Ok(Rewrite::IZero(atom.clone(), cg))
        }
        // a halving loop's log atom: no lower rule proves it 0 at the exit (L:WHILE covers
        // counted loops only)
        Atom::Log(_) => {
            Err("L:WHILE: a log-atom ranking (halving loop) has no lower-bound rule".to_string())
        }
        Atom::LogQ(..) => Err(
            "L:WHILE: a quotient-log-atom ranking (doubling loop) has no lower-bound rule"
                .to_string(),
        ),
        // never a ranking atom (Q:IFALIGN's charge only)
        Atom::Res(..) => Err("L:WHILE: a residue atom is no ranking atom".to_string()),
        Atom::Win(..) => Err("L:WHILE: a window atom is no ranking atom".to_string()),
        // the upper bound of a symbolic grid only; the lower derivations keep constant ones
        Atom::FloorSym(..) => Err(
            "L:WHILE: a symbolic floor atom (spec/logic.md §1 \"Symbolic divisors\") has no lower-bound rule"
                .to_string(),
        ),
    }
}
