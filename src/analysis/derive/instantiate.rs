//! Instantiation of the template derivation with the exact LP solution.

use crate::analysis::derive::backward::{TChild, TNode};
use crate::analysis::derive::{err, Abs};
use crate::analysis::tpoly::TPoly;
use crate::analysis::AnalysisError;
use crate::certificate::{Assn, Judgment, Node};
use crate::core::metric::Q;

/// The derivation of the template derivation `n` with the LP solution `sol` (the
/// template's fields, expression nodes and shared `P`/`D` are moved, not copied: issue 13,
/// their copies and the template's freeing were a tenth of the analysis). Error: a
/// negative instantiated coefficient (an internal error).
pub(super) fn inst(n: TNode, sol: &[Q]) -> Result<Node, AnalysisError> {
    let assn = |(abs, qp): (Abs, TPoly)| -> Result<Assn, AnalysisError> {
        let qq = qp.instantiate(sol);
        if !qq.nonneg() {
            return Err(err(None, "internal: negative potential coefficient"));
        }
        Ok(Assn {
            p: abs.p,
            d: abs.d,
            q: qq,
        })
    };
    let mut children = Vec::with_capacity(n.children.len());
    for c in n.children {
        children.push(match c {
            TChild::Expr(e) => e,
            TChild::Stmt(s) => inst(s, sol)?,
        });
    }
    Ok(Node {
        rule: n.rule,
        judgment: Judgment::Stmt {
            pre: assn(n.pre)?,
            post: assn(n.post)?,
        },
        fields: n.fields,
        children,
    })
}
