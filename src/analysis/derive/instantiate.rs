//! Instantiation of the template derivation with the exact LP solution.

use crate::analysis::derive::backward::{TChild, TNode};
use crate::analysis::derive::{err, Abs};
use crate::analysis::tpoly::TPoly;
use crate::analysis::AnalysisError;
use crate::certificate::{Assn, Judgment, Node};
use crate::core::assertion::poly::Poly;
use crate::core::assertion::sorted::SharedMap;
use crate::core::metric::Q;

/// How many recently instantiated potentials [`Recent`] remembers: a node's pre and post,
/// its first child's pre (its own pre's terms, shared) and the previous child's post.
const RECENT: usize = 8;

/// The potentials instantiated last, with their templates (held, so that a template's
/// shared terms are recognized by identity: the post of one item of a sequence is the pre
/// of the next, issue 13); their instantiations share their terms too.
struct Recent(Vec<(TPoly, Poly)>);

impl Recent {
    /// `qp` with the LP solution `sol`. Error: a negative instantiated coefficient (an
    /// internal error).
    fn poly(&mut self, qp: TPoly, sol: &[Q]) -> Result<Poly, AnalysisError> {
        if let Some((_, p)) = self
            .0
            .iter()
            .find(|(t, _)| SharedMap::ptr_eq(&t.terms, &qp.terms))
        {
            return Ok(p.clone());
        }
        let qq = qp.instantiate(sol);
        if !qq.nonneg() {
            return Err(err(None, "internal: negative potential coefficient"));
        }
        if self.0.len() == RECENT {
            self.0.remove(0);
        }
        self.0.push((qp, qq.clone()));
        Ok(qq)
    }
}

/// The derivation of the template derivation `n` with the LP solution `sol` (the
/// template's fields, expression nodes and shared `P`/`D` are moved, not copied: issue 13,
/// their copies and the template's freeing were a tenth of the analysis). Error: a
/// negative instantiated coefficient (an internal error).
pub(super) fn inst(n: TNode, sol: &[Q]) -> Result<Node, AnalysisError> {
    inst_in(n, sol, &mut Recent(Vec::with_capacity(RECENT)))
}

fn inst_in(n: TNode, sol: &[Q], recent: &mut Recent) -> Result<Node, AnalysisError> {
    let mut assn = |(abs, qp): (Abs, TPoly)| -> Result<Assn, AnalysisError> {
        Ok(Assn {
            p: abs.p,
            d: abs.d,
            q: recent.poly(qp, sol)?,
        })
    };
    let pre = assn(n.pre)?;
    let post = assn(n.post)?;
    let mut children = Vec::with_capacity(n.children.len());
    for c in n.children {
        children.push(match c {
            // the only holder once the forward tree is freed (run_toward): no copy
            TChild::Expr(e) => std::sync::Arc::unwrap_or_clone(e),
            TChild::Stmt(s) => inst_in(s, sol, recent)?,
        });
    }
    Ok(Node {
        rule: n.rule,
        judgment: Judgment::Stmt { pre, post },
        fields: n.fields,
        children,
    })
}
