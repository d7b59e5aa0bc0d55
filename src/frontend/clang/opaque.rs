//! Opaque operations on records and without operands (`spec/lowering.md` §9.4): the
//! half-precision intrinsics of `cuda_fp16.h` (`__hadd2`, `__hfma2`, `__float2half2_rn`,
//! `__low2float`, …) and `clock()`/`clock64()`. Their values are not modelled: each is an
//! `ExprKind::Opaque` (a `toint`/`tofloat` of its operands, unconstrained in the linear
//! facts), so a bound holds for every value they can return. A record argument gives its
//! scalar leaves as operands; a record result is one opaque operation per leaf, its
//! operands bound once to fresh locals first (each memory read of an argument is
//! evaluated, and charged, once).

use super::convert::{e, ident, kids, strip, Conv};
use super::json::Node;
use super::records::Leaves;
use super::types::Ty;
use crate::frontend::ast::{BaseTy, CType, Decl, Expr, ExprKind, Stmt, StmtKind};
use crate::frontend::diag::{Diagnostic, Pos};
use std::collections::HashMap;

type R<T> = Result<T, Diagnostic>;

impl Conv<'_> {
    /// The operands of an opaque call with arguments `args`: each scalar argument, each
    /// scalar leaf of a record argument, with their types.
    fn opaque_operands(&mut self, args: &[&Node]) -> R<Vec<(Expr, CType)>> {
        let mut v = Vec::new();
        for a in args {
            if strip(a).kind == "CXXDefaultArgExpr" {
                continue;
            }
            let t = self.records.of(strip(a));
            if let Ty::Record(_) = t.unref() {
                let Some(shape) = self.records.leaves(t.unref()) else {
                    return self.err(
                        a,
                        format!(
                            "record type `{}` without a layout warpcert can read",
                            t.describe()
                        ),
                    );
                };
                let types: HashMap<Vec<String>, Ty> =
                    shape.into_iter().map(|l| (l.path, l.ty)).collect();
                for (path, x) in self.record_val(a)? {
                    let ct = types
                        .get(&path)
                        .and_then(|t| t.ctype())
                        .unwrap_or(CType::base(BaseTy::Int));
                    v.push((x, ct));
                }
            } else {
                let ct = t.ctype().unwrap_or(CType::base(BaseTy::Int));
                v.push((self.expr(a)?, ct));
            }
        }
        Ok(v)
    }

    fn warn_opaque(&mut self, name: &str, p: Pos) {
        if self.warned_opaque.insert(name.to_string()) {
            self.warnings.push(self.sm.warning(p, format!("`{name}` is modelled as one operation on its arguments (steps), its value is not modelled: the analysis treats it as unknown, `warpcert run` computes a stand-in value (spec/lowering.md §9.4)")));
        }
    }

    /// A scalar-valued half-precision intrinsic or `clock()` call `n` of `name`.
    pub(super) fn opaque_scalar_call(&mut self, n: &Node, name: &str, p: Pos) -> R<Expr> {
        let rt = self.records.of(n);
        let Some(ct) = rt.unref().ctype() else {
            return self.err(
                n,
                format!("`{name}` returning `{}` used as a scalar", rt.describe()),
            );
        };
        let args: Vec<&Node> = kids(n).skip(1).collect();
        let ops = self.opaque_operands(&args)?;
        self.warn_opaque(name, p);
        Ok(e(
            ExprKind::Opaque(name.to_string(), ops.into_iter().map(|o| o.0).collect(), ct),
            p,
        ))
    }

    /// The leaves of a record-valued opaque call `n` of `name` with arguments `args` (a
    /// half-precision intrinsic, an operator or constructor of the prelude's half types):
    /// the operands are bound to fresh locals (pending), each leaf is an opaque operation
    /// on them.
    pub(super) fn opaque_record_call(&mut self, n: &Node, name: &str, args: &[&Node]) -> R<Leaves> {
        let p = self.pos(n);
        let t = self.records.of(n);
        let Some(shape) = self.records.leaves(t.unref()) else {
            return self.err(
                n,
                format!(
                    "record type `{}` without a layout warpcert can read",
                    t.describe()
                ),
            );
        };
        let ops = self.opaque_operands(args)?;
        let mut decls = Vec::new();
        let mut names = Vec::new();
        for (x, ct) in ops {
            let stem: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
            let ln = self.fresh(&format!("{stem}_a"));
            decls.push(Decl {
                name: ln.clone(),
                ty: ct,
                dims: Vec::new(),
                init: Some(x),
                shared: false,
                is_extern: false,
                pos: p,
            });
            names.push(ln);
        }
        if !decls.is_empty() {
            self.pending.push(Stmt {
                kind: StmtKind::Decl(decls),
                pos: p,
            });
        }
        self.warn_opaque(name, p);
        let mut out = Vec::new();
        for l in shape {
            let ct = l.ty.ctype().unwrap_or(CType::base(BaseTy::Int));
            let operands = names.iter().map(|x| ident(x, p)).collect();
            out.push((
                l.path,
                e(ExprKind::Opaque(name.to_string(), operands, ct), p),
            ));
        }
        Ok(out)
    }
}

/// The prelude's half-precision records (`half`, `half2` are typedefs of them).
pub(super) fn is_half_record(rec: &str) -> bool {
    matches!(rec, "__half" | "__half2")
}

impl Conv<'_> {
    /// `h.operator float()` (`(float)h`) on a half-precision record: an opaque operation on
    /// its leaves; `None` when `n` is not one.
    pub(super) fn half_conversion(&mut self, n: &Node) -> R<Option<Expr>> {
        let Some(m) = kids(n).next().map(strip) else {
            return Ok(None);
        };
        let Some(obj) = (m.kind == "MemberExpr").then(|| kids(m).next()).flatten() else {
            return Ok(None);
        };
        let method = m.name.clone().unwrap_or_default();
        let ot = self.records.of(strip(obj));
        let half = matches!(ot.unref(), Ty::Record(r) if is_half_record(r));
        if !half || m.is_arrow || !method.starts_with("operator ") {
            return Ok(None);
        }
        let p = self.pos(n);
        let Some(ct) = self.records.of(n).unref().ctype() else {
            return Ok(None);
        };
        let ops = self.opaque_operands(&[obj])?;
        self.warn_opaque("__half2float", p);
        Ok(Some(e(
            ExprKind::Opaque(
                "__half2float".to_string(),
                ops.into_iter().map(|o| o.0).collect(),
                ct,
            ),
            p,
        )))
    }
}
