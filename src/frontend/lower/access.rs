//! Arrays and pointers (element offsets, reads) and assignments (`=`, `op=`, `++`, `--`,
//! pointer assignment).

use crate::core::{BinOp, Const, Expr, Operand, Stmt, Ty};
use crate::frontend::ast::{self, BinaryOp, ExprKind, UnaryOp};
use crate::frontend::diag::Pos;
use crate::frontend::lower::call::construct_name;
use crate::frontend::lower::expr::bin_of;
use crate::frontend::lower::{int, loc, var, Binding, Lw, R};

impl Lw<'_> {
    pub(super) fn is_ptr(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => matches!(
                self.lookup(n),
                Some(Binding::Ptr { .. })
                    | Some(Binding::VarPtr { .. })
                    | Some(Binding::Array { .. })
                    | Some(Binding::UnsetPtr { .. })
            ),
            ExprKind::Binary(BinaryOp::Add, a, b) => self.is_ptr(a) || self.is_ptr(b),
            ExprKind::Binary(BinaryOp::Sub, a, b) => self.is_ptr(a) && !self.is_ptr(b),
            ExprKind::Assign(Some(BinaryOp::Add | BinaryOp::Sub), a, _)
            | ExprKind::IncDec { e: a, .. } => self.is_ptr(a),
            ExprKind::Cast(t, a) => t.ptr > 0 && self.is_ptr(a),
            ExprKind::Unary(UnaryOp::AddrOf, _) => true,
            _ => false,
        }
    }

    pub(super) fn add_off(
        &mut self,
        off: Operand,
        i: Operand,
        sub: bool,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> Operand {
        match (&off, &i) {
            (Operand::Const(Const::Int(0)), _) if !sub => i,
            (_, Operand::Const(Const::Int(0))) => off,
            (Operand::Const(Const::Int(a)), Operand::Const(Const::Int(b))) => {
                match if sub {
                    a.checked_sub(*b)
                } else {
                    a.checked_add(*b)
                } {
                    Some(v) => int(v),
                    None => self.bind(
                        Expr::Bin(if sub { BinOp::Sub } else { BinOp::Add }, off, i),
                        Ty::Int,
                        p,
                        out,
                    ),
                }
            }
            _ => self.bind(
                Expr::Bin(if sub { BinOp::Sub } else { BinOp::Add }, off, i),
                Ty::Int,
                p,
                out,
            ),
        }
    }

    /// Resolves a pointer expression to (array, element offset, element type).
    pub(super) fn ptr_expr(
        &mut self,
        e: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) -> R<(String, Operand, Ty)> {
        let p = e.pos;
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Ptr {
                    array,
                    offset,
                    elem,
                }) => Ok((array, offset, elem)),
                Some(Binding::VarPtr { array, off, elem }) => Ok((array, var(&off), elem)),
                Some(Binding::Array { core, dims, elem }) if dims.len() == 1 => {
                    Ok((core, int(0), elem))
                }
                Some(Binding::Array { .. }) => self.err(
                    p,
                    format!("multi-dimensional array `{n}` used as a pointer cannot be modelled"),
                ),
                Some(Binding::UnsetPtr { .. }) => self.err(
                    p,
                    format!("pointer `{n}` is used before a pointer is assigned to it"),
                ),
                _ => self.err(p, format!("`{n}` is not an array or pointer")),
            },
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
                let sub = *op == BinaryOp::Sub;
                let (pe, ie) = if self.is_ptr(a) {
                    (a, b)
                } else if !sub {
                    (b, a)
                } else {
                    (a, b)
                };
                let (arr, off, elem) = self.ptr_expr(pe, out)?;
                let i = self.int_opd(ie, out)?;
                let off = self.add_off(off, i, sub, p, out);
                Ok((arr, off, elem))
            }
            ExprKind::Assign(..) | ExprKind::IncDec { .. } => match self.moved_ptr_value(e, out)? {
                Some(r) => Ok(r),
                None => self.err(p, "pointer assignment used as a value cannot be modelled"),
            },
            ExprKind::Cast(t, _) if t.ptr > 0 => self.err(
                p,
                format!(
                    "pointer cast to `{}` cannot be modelled in miniCUDA",
                    t.describe()
                ),
            ),
            ExprKind::Unary(UnaryOp::AddrOf, a)
                if matches!(
                    &a.kind,
                    ExprKind::Index(..) | ExprKind::Unary(UnaryOp::Deref, _)
                ) || matches!(&a.kind, ExprKind::Ident(n) if self.is_shared_scalar(n)) =>
            {
                // `&A[i]`, `&*p`, `&s` (a `__shared__` scalar): the address of a cell
                self.access(a, out)
            }
            ExprKind::Unary(UnaryOp::AddrOf, _) => {
                self.err(p, "address-of `&` of a variable cannot be modelled in miniCUDA (only `&A[i]` of an array cell)")
            }
            _ => self.err(
                p,
                format!(
                    "pointer expression ({}) cannot be resolved to an array + offset",
                    construct_name(e)
                ),
            ),
        }
    }

    /// Resolves an lvalue/rvalue array access `A[i]`, `A[i][j]`, `*(p + i)`, `p[i]` to
    /// (array, index operand, element type); index computations go to `out`.
    pub(super) fn access(
        &mut self,
        e: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) -> R<(String, Operand, Ty)> {
        let p = e.pos;
        if let ExprKind::Unary(UnaryOp::Deref, a) = &e.kind {
            return self.ptr_expr(a, out);
        }
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(Binding::SharedScalar { core, elem, idx }) = self.lookup(n).cloned() {
                return Ok((core, idx, elem));
            }
        }
        let mut idxs: Vec<&ast::Expr> = Vec::new();
        let mut base = e;
        while let ExprKind::Index(b, i) = &base.kind {
            idxs.push(i);
            base = b;
        }
        idxs.reverse();
        if let ExprKind::Ident(n) = &base.kind {
            if let Some(Binding::Array { core, dims, elem }) = self.lookup(n).cloned() {
                if dims.len() != idxs.len() {
                    return self.err(
                        p,
                        format!(
                            "array `{n}` has {} dimension(s) but is indexed with {}",
                            dims.len(),
                            idxs.len()
                        ),
                    );
                }
                let mut acc = self.int_opd(idxs[0], out)?;
                for (k, ie) in idxs.iter().enumerate().skip(1) {
                    let Some(d) = dims[k] else {
                        return self.err(
                            p,
                            format!("inner dimension {k} of array `{n}` has no constant size"),
                        );
                    };
                    let (m, _) =
                        self.binary_opds(BinOp::Mul, acc, Ty::Int, int(d as i64), Ty::Int, p, out)?;
                    let m = self.bind(m, Ty::Int, p, out);
                    let i = self.int_opd(ie, out)?;
                    acc = self.add_off(m, i, false, p, out);
                }
                return Ok((core, acc, elem));
            }
        }
        if idxs.len() != 1 {
            return self.err(p, "multi-dimensional indexing of a pointer cannot be modelled (only `__shared__ T a[N][M]` arrays)");
        }
        if !self.is_ptr(base) {
            if let ExprKind::Ident(n) = &base.kind {
                if self.lookup(n).is_none() {
                    return Err(self.unknown_ident(n, base.pos));
                }
                return self.err(
                    base.pos,
                    format!("`{n}` is not an array (local arrays are not supported by warpcert)"),
                );
            }
            return self.err(
                base.pos,
                "indexed expression cannot be resolved to an array",
            );
        }
        let (arr, off, elem) = self.ptr_expr(base, out)?;
        let i = self.int_opd(idxs[0], out)?;
        let idx = self.add_off(off, i, false, p, out);
        Ok((arr, idx, elem))
    }

    pub(super) fn assign(
        &mut self,
        op: Option<BinaryOp>,
        l: &ast::Expr,
        r: &ast::Expr,
        p: Pos,
        want: bool,
        out: &mut Vec<Stmt>,
    ) -> R<(Operand, Ty)> {
        let bop = match op {
            Some(o) => match bin_of(o) {
                Some(b) => Some(b),
                None => return self.err(p, "unsupported compound assignment"),
            },
            None => None,
        };
        match &l.kind {
            ExprKind::Ident(n) if !self.is_shared_scalar(n) => {
                let (core, lt) = match self.lookup(n).cloned() {
                    Some(Binding::Local(c, t)) => (c, t),
                    Some(Binding::Ptr { .. } | Binding::VarPtr { .. } | Binding::UnsetPtr { .. }) if !want => {
                        match bop {
                            None => self.assign_ptr(n, r, p, out)?,
                            Some(b @ (BinOp::Add | BinOp::Sub)) => {
                                self.move_ptr(n, b == BinOp::Sub, Some(r), p, out)?;
                            }
                            Some(_) => return self.err(p, format!("operator on pointer `{n}`")),
                        }
                        return Ok((int(0), Ty::Int));
                    }
                    Some(Binding::Value(..)) => return self.err(l.pos, format!("cannot assign to `{n}`")),
                    Some(_) => return self.err(l.pos, format!("assignment to pointer/array `{n}` (pointer aliasing cannot be modelled)")),
                    None => return Err(self.unknown_ident(n, l.pos)),
                };
                match bop {
                    None => {
                        let (x, t) = self.rv(r, out)?;
                        let x = self.convert_expr(x, t, lt, p, out);
                        out.push(Stmt::Assign(core.clone(), x, loc(p)));
                    }
                    Some(b) => {
                        let (ob, tb) = self.opd(r, out)?;
                        let (x, t) = self.binary_opds(b, var(&core), lt, ob, tb, p, out)?;
                        let x = self.convert_expr(x, t, lt, p, out);
                        out.push(Stmt::Assign(core.clone(), x, loc(p)));
                    }
                }
                Ok((var(&core), lt))
            }
            ExprKind::Index(..) | ExprKind::Unary(UnaryOp::Deref, _) | ExprKind::Ident(_) => {
                let (arr, idx, et) = self.access(l, out)?;
                let value = match bop {
                    None => {
                        let (x, t) = self.rv(r, out)?;
                        self.convert_expr(x, t, et, p, out)
                    }
                    Some(b) => {
                        let t1 = self.temp(et);
                        out.push(Stmt::Assign(t1.clone(), Expr::Read(arr.clone(), idx.clone()), loc(p)));
                        let (ob, tb) = self.opd(r, out)?;
                        let (x, t) = self.binary_opds(b, var(&t1), et, ob, tb, p, out)?;
                        self.convert_expr(x, t, et, p, out)
                    }
                };
                if want {
                    let o = self.bind(value, et, p, out);
                    self.writable(&arr, p)?;
                    out.push(Stmt::Write(arr, idx, Expr::Opd(o.clone()), loc(p)));
                    Ok((o, et))
                } else {
                    self.writable(&arr, p)?;
                    out.push(Stmt::Write(arr, idx, value, loc(p)));
                    Ok((int(0), et))
                }
            }
            _ => self.err(l.pos, "left-hand side of the assignment cannot be modelled (expected a variable or an array element)"),
        }
    }

    pub(super) fn incdec(
        &mut self,
        pre: bool,
        inc: bool,
        l: &ast::Expr,
        p: Pos,
        want: bool,
        out: &mut Vec<Stmt>,
    ) -> R<(Operand, Ty)> {
        let bop = if inc { BinOp::Add } else { BinOp::Sub };
        match &l.kind {
            ExprKind::Ident(n) if !self.is_shared_scalar(n) => {
                let (core, lt) = match self.lookup(n).cloned() {
                    Some(Binding::Local(c, t)) => (c, t),
                    Some(Binding::VarPtr { .. }) | Some(Binding::UnsetPtr { .. }) if !want => {
                        self.move_ptr(n, !inc, None, p, out)?;
                        return Ok((int(0), Ty::Int));
                    }
                    Some(Binding::Ptr { .. }) | Some(Binding::Array { .. }) => {
                        return self.err(
                            l.pos,
                            format!(
                            "pointer increment of `{n}` (pointer arithmetic cannot be modelled)"
                        ),
                        )
                    }
                    Some(_) => return self.err(l.pos, format!("cannot assign to `{n}`")),
                    None => return Err(self.unknown_ident(n, l.pos)),
                };
                let old = if want && !pre {
                    let t = self.temp(lt);
                    out.push(Stmt::Assign(t.clone(), Expr::Opd(var(&core)), loc(p)));
                    Some(var(&t))
                } else {
                    None
                };
                let one = if lt == Ty::Float {
                    Operand::Const(Const::Float(1.0))
                } else {
                    int(1)
                };
                out.push(Stmt::Assign(
                    core.clone(),
                    Expr::Bin(bop, var(&core), one),
                    loc(p),
                ));
                Ok((old.unwrap_or_else(|| var(&core)), lt))
            }
            ExprKind::Index(..) | ExprKind::Unary(UnaryOp::Deref, _) | ExprKind::Ident(_) => {
                let (arr, idx, et) = self.access(l, out)?;
                let t1 = self.temp(et);
                out.push(Stmt::Assign(
                    t1.clone(),
                    Expr::Read(arr.clone(), idx.clone()),
                    loc(p),
                ));
                let one = if et == Ty::Float {
                    Operand::Const(Const::Float(1.0))
                } else {
                    int(1)
                };
                let newv = Expr::Bin(bop, var(&t1), one);
                if want && pre {
                    let t2 = self.bind(newv, et, p, out);
                    self.writable(&arr, p)?;
                    out.push(Stmt::Write(arr, idx, Expr::Opd(t2.clone()), loc(p)));
                    Ok((t2, et))
                } else {
                    self.writable(&arr, p)?;
                    out.push(Stmt::Write(arr, idx, newv, loc(p)));
                    Ok((var(&t1), et))
                }
            }
            _ => self.err(
                l.pos,
                "operand of `++`/`--` cannot be modelled (expected a variable or an array element)",
            ),
        }
    }

    /// An expression evaluated for its effect only.
    pub(super) fn effect(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<()> {
        match &e.kind {
            ExprKind::Assign(op, l, r) => self.assign(*op, l, r, e.pos, false, out).map(|_| ()),
            ExprKind::IncDec { pre, inc, e: l } => {
                self.incdec(*pre, *inc, l, e.pos, false, out).map(|_| ())
            }
            ExprKind::Binary(BinaryOp::Comma, a, b) => {
                self.effect(a, out)?;
                self.effect(b, out)
            }
            ExprKind::Call(f, args) => self.call(f, args, e.pos, false, out).map(|_| ()),
            ExprKind::Cast(_, a) => self.effect(a, out),
            // a pointer moved for its effect (`p++` on a record pointer: `(p += s) - s`)
            _ if self.is_ptr(e) => self.ptr_expr(e, out).map(|_| ()),
            _ => self.rv(e, out).map(|_| ()),
        }
    }
}
