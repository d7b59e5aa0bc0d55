//! The lower-bound rules of expressions and operands (spec/logic.md §4b): exact operand
//! nodes, EQ:OP/EQ:UOP/EQ:LARRAY, and L:GARRAY/L:SARRAY charged at the named warp's access
//! count `N_W` (the kernel's own enumeration).

use super::{cost_of, only, LowerError, Lx};
use crate::analysis::linear::dep_operand;
use crate::certificate::{Assn, Field, Judgment, Node};
use crate::core::ir::{Expr, Operand, Space};
use crate::core::metric::Q;
use num_bigint::BigInt;
use warpcert_kernel::access::{n_lanes, Kind};

impl Lx<'_> {
    /// `N_W(o)` of spec/logic.md §4b (the kernel's own enumeration, [`n_lanes`]).
    pub(super) fn n_w(
        &self,
        a: &str,
        o: &Operand,
        pre: &Assn,
        space: Space,
    ) -> Result<u64, LowerError> {
        let arr = self
            .prog
            .array(a)
            .ok_or_else(|| format!("array `{a}` undeclared"))?;
        let dep = dep_operand(&pre.d, o).map(|d| {
            warpcert_kernel::arith::Dep::norm(
                d.k.map(BigInt::from),
                BigInt::from(d.r),
                BigInt::from(d.g),
            )
        });
        let kind = if space == Space::Global {
            Kind::MemReads
        } else {
            Kind::Conflicts
        };
        let hw = [
            self.hw.warp_size,
            self.hw.banks,
            self.hw.bank_bytes,
            self.hw.sector_bytes,
        ];
        n_lanes(
            self.launch.block,
            hw,
            &self.threads,
            dep.as_ref(),
            arr.elem_bytes,
            kind,
        )
        .map_err(|_| {
            format!(
                "the access count of `{a}` for warp {} is not computable",
                self.warp
            )
        })
    }

    /// The lower expression node about `e` and its cost.
    pub(super) fn expr(&self, n: &Node, e: &Expr, pre: &Assn) -> Result<(Node, Q), LowerError> {
        let expr_node = |rule, cost: Q, fields, children| {
            (
                Node {
                    rule,
                    judgment: Judgment::Expr { cost: cost.clone() },
                    fields,
                    children,
                },
                cost,
            )
        };
        match (n.rule, e) {
            (_, Expr::Opd(o)) => self.expr_opd(n, o, pre),
            ("EQ:OP", Expr::Bin(_, a, b)) => {
                let [ca, cb] = n.children.as_slice() else {
                    return Err("EQ:OP: two children expected".into());
                };
                let ((la, ka), (lb, kb)) = (self.expr_opd(ca, a, pre)?, self.expr_opd(cb, b, pre)?);
                Ok(expr_node(
                    "EQ:OP",
                    ka + kb + &self.m.op,
                    vec![],
                    vec![la, lb],
                ))
            }
            ("EQ:UOP", Expr::Un(_, a)) => {
                let (la, ka) = self.expr_opd(only(n, 1)?, a, pre)?;
                Ok(expr_node("EQ:UOP", ka + &self.m.op, vec![], vec![la]))
            }
            ("EQ:LARRAY", Expr::Read(_, o)) => {
                let (lo, ko) = self.expr_opd(only(n, 1)?, o, pre)?;
                Ok(expr_node("EQ:LARRAY", ko + &self.m.var, vec![], vec![lo]))
            }
            (r @ ("EQ:GARRAY" | "EQ:SARRAY"), Expr::Read(a, o)) => {
                let (lo, ko) = self.expr_opd(only(n, 1)?, o, pre)?;
                let (space, f, rule) = if r == "EQ:GARRAY" {
                    (Space::Global, &self.m.gread, "L:GARRAY")
                } else {
                    (Space::Shared, &self.m.sread, "L:SARRAY")
                };
                let nw = self.n_w(a, o, pre, space)?;
                // a strided index: one sector per lane (L:GARRAYSTRIDE, §4b)
                if let Some((ns, w)) = self.stride(a, o, pre).filter(|(ns, _)| *ns > nw) {
                    return Ok(expr_node(
                        "L:GARRAYSTRIDE",
                        ko + f.at(ns),
                        vec![Field::N(ns), Field::Entail("stride", vec![w])],
                        vec![lo],
                    ));
                }
                Ok(expr_node(rule, ko + f.at(nw), vec![Field::N(nw)], vec![lo]))
            }
            (r, _) => Err(format!("{r}: no lower-bound rule for this expression")),
        }
    }

    /// An operand node (`OQ:*`, exact: kept with its cost).
    pub(super) fn expr_opd(
        &self,
        n: &Node,
        _o: &Operand,
        _pre: &Assn,
    ) -> Result<(Node, Q), LowerError> {
        match n.rule {
            "OQ:VAR" | "OQ:CONST" | "OQ:PARAM" | "OQ:TID" => Ok((n.clone(), cost_of(n))),
            r => Err(format!("{r}: an operand rule was expected")),
        }
    }
}
