//! The lower-bound rules of statements (spec/logic.md §4b): each upper node `Q:*` of a
//! statement becomes its `L:*` node with the potential recomputed from the post (L:SKIP,
//! L:SYNC, L:SEQ, L:VWRITE1/2, L:GWRITE/L:SWRITE/L:LWRITE, L:IF1/2/3, L:UNROLL, L:WEAK);
//! divergent `if`s and loops are handed to `divergent.rs` and `loops.rs`.

use super::{chain_items, ids, min_poly, only, pp, pre_q, stmt_node, with_q, LowerError, Lx};
use crate::analysis::linear::lin_fixed;
use crate::certificate::{Field, Node};
use crate::core::assertion::Poly;
use crate::core::ir::{Space, Stmt};

impl Lx<'_> {
    /// The L: node about `s` with post potential `post_q`, from the upper node `n`.
    pub(super) fn stmt(&self, n: &Node, s: &Stmt, post_q: &Poly) -> Result<Node, LowerError> {
        let (pre, post) = pp(n)?;
        let lpost = with_q(post, post_q.clone());
        let keep = |f: &&Field| matches!(f, Field::Entail(..));
        match (n.rule, s) {
            ("Q:SKIP", _) => Ok(stmt_node("L:SKIP", lpost.clone(), lpost, vec![], vec![])),
            ("Q:SYNC", _) => Ok(stmt_node(
                "L:SYNC",
                with_q(pre, post_q.plus_const(&self.m.sync)),
                lpost,
                vec![],
                vec![],
            )),
            ("Q:SEQ", _) => {
                let items = chain_items(s, n.children.len());
                let mut q = post_q.clone();
                let mut out = Vec::with_capacity(items.len());
                for (c, item) in n.children.iter().zip(&items).rev() {
                    let lc = self.stmt(c, item, &q)?;
                    q = lc.pre().map(|a| a.q.clone()).unwrap_or_else(Poly::zero);
                    out.push(lc);
                }
                out.reverse();
                Ok(stmt_node("L:SEQ", with_q(pre, q), lpost, vec![], out))
            }
            ("Q:VWRITE1" | "Q:VWRITE2", Stmt::Assign(x, e, _)) => {
                let (ce, c) = self.expr(only(n, 1)?, e, pre)?;
                let q = if post_q.mentions(x) {
                    let l = lin_fixed(self.prog, &pre.p, e)
                        .filter(|_| n.rule == "Q:VWRITE1")
                        .ok_or_else(|| {
                            format!(
                                "{}: the potential mentions `{x}`, assigned a non-linear value",
                                n.rule
                            )
                        })?;
                    post_q.subst(x, &l)
                } else {
                    post_q.clone()
                };
                // exactly one witness per constraint of P' (no bounding substitution)
                let fields = n
                    .fields
                    .iter()
                    .map(|f| match f {
                        Field::Entail("post", ws) => {
                            Field::Entail("post", ws.iter().take(post.p.len()).cloned().collect())
                        }
                        f => f.clone(),
                    })
                    .collect();
                let rule = if n.rule == "Q:VWRITE1" {
                    "L:VWRITE1"
                } else {
                    "L:VWRITE2"
                };
                let pq = q.plus_const(&(&self.m.vwrite + c));
                Ok(stmt_node(rule, with_q(pre, pq), lpost, fields, vec![ce]))
            }
            ("Q:GWRITE" | "Q:SWRITE" | "Q:LWRITE", Stmt::Write(a, o, e, _)) => {
                let [c1, c2] = n.children.as_slice() else {
                    return Err(format!("{}: two children expected", n.rule));
                };
                let (lo, k1) = self.expr_opd(c1, o, pre)?;
                let (le, k2) = self.expr(c2, e, pre)?;
                let (rule, fields, acc) = match n.rule {
                    "Q:LWRITE" => ("L:LWRITE", vec![], self.m.vwrite.clone()),
                    r => {
                        let (space, f) = if r == "Q:GWRITE" {
                            (Space::Global, &self.m.gwrite)
                        } else {
                            (Space::Shared, &self.m.swrite)
                        };
                        let nw = self.n_w(a, o, pre, space)?;
                        // a strided index: one sector per lane (L:GWRITESTRIDE, §4b)
                        let stride = self.stride(a, o, pre).filter(|(ns, _)| *ns > nw);
                        if let Some((ns, w)) = stride {
                            let pq = post_q.plus_const(&(f.at(ns) + k1 + k2));
                            return Ok(stmt_node(
                                "L:GWRITESTRIDE",
                                with_q(pre, pq),
                                lpost,
                                vec![Field::N(ns), Field::Entail("stride", vec![w])],
                                vec![lo, le],
                            ));
                        }
                        (
                            if r == "Q:GWRITE" {
                                "L:GWRITE"
                            } else {
                                "L:SWRITE"
                            },
                            vec![Field::N(nw)],
                            f.at(nw),
                        )
                    }
                };
                let pq = post_q.plus_const(&(acc + k1 + k2));
                Ok(stmt_node(
                    rule,
                    with_q(pre, pq),
                    lpost,
                    fields,
                    vec![lo, le],
                ))
            }
            ("Q:IF1", Stmt::If(e, s1, s2, _)) => {
                let [ce, t, f] = n.children.as_slice() else {
                    return Err("Q:IF1: three children expected".into());
                };
                let (le, c) = self.expr(ce, e, pre)?;
                let (lt, lf) = (self.stmt(t, s1, post_q)?, self.stmt(f, s2, post_q)?);
                let (tq, fq) = (pre_q(&lt), pre_q(&lf));
                let q0 = min_poly(&tq, &fq);
                let lt = self.lowered_to(lt, &q0);
                let lf = self.lowered_to(lf, &q0);
                let pq = q0.plus_const(&(&self.m.if_ + c));
                Ok(stmt_node(
                    "L:IF1",
                    with_q(pre, pq),
                    lpost,
                    vec![],
                    vec![le, lt, lf],
                ))
            }
            ("Q:IF2" | "Q:IF3", Stmt::If(e, s1, s2, _)) => {
                let [ce, b] = n.children.as_slice() else {
                    return Err(format!("{}: two children expected", n.rule));
                };
                let (le, c) = self.expr(ce, e, pre)?;
                let lb = self.stmt(b, if n.rule == "Q:IF2" { s1 } else { s2 }, post_q)?;
                let pq = pre_q(&lb).plus_const(&(&self.m.if_ + c));
                let rule = if n.rule == "Q:IF2" { "L:IF2" } else { "L:IF3" };
                Ok(stmt_node(
                    rule,
                    with_q(pre, pq),
                    lpost,
                    n.fields.iter().filter(keep).cloned().collect(),
                    vec![le, lb],
                ))
            }
            ("Q:IF4" | "Q:IFALIGN", Stmt::If(e, s1, s2, _)) => {
                self.divergent_if(n, e, [s1, s2], s, post_q)
            }
            ("Q:UNROLL", Stmt::While(e, body, loc)) => {
                // L:UNROLL: the child is about `if e then (body; while e body) else skip`
                let unrolled = Stmt::If(
                    e.clone(),
                    Box::new(Stmt::Seq(body.clone(), Box::new(s.clone()))),
                    Box::new(Stmt::Skip),
                    *loc,
                );
                let lc = self.stmt(only(n, 1)?, &unrolled, post_q)?;
                Ok(stmt_node(
                    "L:UNROLL",
                    with_q(pre, pre_q(&lc)),
                    lpost,
                    vec![],
                    vec![lc],
                ))
            }
            ("Q:WEAK", _) => {
                // the potential passes through: only (P, D) are weakened
                let lc = self.stmt(only(n, 1)?, s, post_q)?;
                let q = pre_q(&lc);
                Ok(stmt_node(
                    "L:WEAK",
                    with_q(pre, q),
                    lpost,
                    n.fields.iter().filter(keep).cloned().collect(),
                    vec![lc],
                ))
            }
            ("Q:WHILE1", Stmt::While(e, body, _)) => self.counted_loop(n, e, body, post_q),
            (r, _) => Err(format!("{r}: no lower-bound rule (spec/logic.md §4b)")),
        }
    }

    /// `lc` with its pre potential lowered to `q` (an L:WEAK without rewrites, when `q`
    /// differs: `q` is coefficientwise at most `lc`'s pre).
    fn lowered_to(&self, lc: Node, q: &Poly) -> Node {
        let Ok((cp, cq)) = pp(&lc).map(|(a, b)| (a.clone(), b.clone())) else {
            return lc;
        };
        if &cp.q == q {
            return lc;
        }
        let fields = vec![ids("pre", cp.p.len()), ids("post", cq.p.len())];
        stmt_node("L:WEAK", with_q(&cp, q.clone()), cq, fields, vec![lc])
    }
}
