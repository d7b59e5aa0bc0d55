//! Instantiation of the template derivation with the exact LP solution.

use crate::analysis::derive::backward::{TChild, TNode};
use crate::analysis::derive::{err, Abs};
use crate::analysis::tpoly::TPoly;
use crate::analysis::AnalysisError;
use crate::certificate::{Assn, Judgment, Node};
use crate::core::metric::Q;

pub(super) fn inst(n: &TNode, sol: &[Q]) -> Result<Node, AnalysisError> {
    let assn = |(abs, qp): &(Abs, TPoly)| -> Result<Assn, AnalysisError> {
        let qq = qp.instantiate(sol);
        if !qq.nonneg() {
            return Err(err(None, "internal: negative potential coefficient"));
        }
        Ok(Assn {
            p: abs.p.clone(),
            d: abs.d.clone(),
            q: qq,
        })
    };
    let mut children = Vec::new();
    for c in &n.children {
        children.push(match c {
            TChild::Expr(e) => e.clone(),
            TChild::Stmt(s) => inst(s, sol)?,
        });
    }
    Ok(Node {
        rule: n.rule,
        judgment: Judgment::Stmt {
            pre: assn(&n.pre)?,
            post: assn(&n.post)?,
        },
        fields: n.fields.clone(),
        children,
    })
}
