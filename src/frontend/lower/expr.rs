//! Expressions in three-address form: operands, conversions, built-ins (`threadIdx`, …),
//! arithmetic, comparisons and conditions (`spec/lowering.md`).

use crate::core::{BinOp, Const, Dim, Expr, Operand, Stmt, Ty, UnOp};
use crate::frontend::ast::{self, BinaryOp, ExprKind, UnaryOp};
use crate::frontend::diag::Pos;
use crate::frontend::lower::{int, loc, seq, var, Binding, Lw, R};

impl Lw<'_> {
    pub(super) fn conv_op(from: Ty, to: Ty) -> Option<UnOp> {
        match (from, to) {
            (a, b) if a == b => None,
            (_, Ty::Float) => Some(UnOp::ToFloat),
            (_, Ty::Int) => Some(UnOp::ToInt),
            (_, Ty::Bool) => Some(UnOp::ToBool),
        }
    }

    pub(super) fn convert(
        &mut self,
        o: Operand,
        from: Ty,
        to: Ty,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> Operand {
        match Self::conv_op(from, to) {
            None => o,
            Some(op) => {
                if let Operand::Const(c) = &o {
                    let folded = match (c, to) {
                        (Const::Int(n), Ty::Float) => Some(Const::Float(*n as f64)),
                        (Const::Int(n), Ty::Bool) => Some(Const::Bool(*n != 0)),
                        (Const::Bool(b), Ty::Int) => Some(Const::Int(*b as i64)),
                        (Const::Float(x), Ty::Int) if x.is_finite() && x.abs() < 9.0e18 => {
                            Some(Const::Int(x.trunc() as i64))
                        }
                        _ => None,
                    };
                    if let Some(c) = folded {
                        return Operand::Const(c);
                    }
                }
                self.bind(Expr::Un(op, o), to, p, out)
            }
        }
    }

    pub(super) fn convert_expr(
        &mut self,
        e: Expr,
        from: Ty,
        to: Ty,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> Expr {
        if Self::conv_op(from, to).is_none() {
            return e;
        }
        let o = self.bind(e, from, p, out);
        match Self::conv_op(from, to) {
            Some(op) => {
                if let Operand::Const(_) = o {
                    Expr::Opd(self.convert(o, from, to, p, out))
                } else {
                    Expr::Un(op, o)
                }
            }
            None => Expr::Opd(o),
        }
    }

    pub(super) fn opd(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<(Operand, Ty)> {
        let (x, ty) = self.rv(e, out)?;
        Ok((self.bind(x, ty, e.pos, out), ty))
    }

    pub(super) fn int_opd(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<Operand> {
        let (o, ty) = self.opd(e, out)?;
        Ok(self.convert(o, ty, Ty::Int, e.pos, out))
    }

    pub(super) fn builtin(&mut self, e: &ast::Expr) -> Option<R<(Operand, Ty)>> {
        let ExprKind::Member(b, f) = &e.kind else {
            return None;
        };
        let ExprKind::Ident(n) = &b.kind else {
            return None;
        };
        if self.lookup(n).is_some() {
            return None;
        }
        let kind = match n.as_str() {
            "threadIdx" | "blockIdx" | "blockDim" | "gridDim" => n.as_str(),
            _ => return None,
        };
        let Some(d) = dim_of(f) else {
            return Some(self.err(
                e.pos,
                format!("`{kind}.{f}`: expected a component x, y or z"),
            ));
        };
        Some(Ok((
            match kind {
                "threadIdx" => Operand::Tid(Dim::ALL[d]),
                "blockDim" => int(self.launch.block[d] as i64),
                "gridDim" => match self.launch.grid {
                    Some(g) => int(g[d] as i64),
                    None => {
                        self.builtins.insert((1, d));
                        Operand::Param(format!("gridDim.{f}"))
                    }
                },
                _ => {
                    self.builtins.insert((0, d));
                    Operand::Param(format!("blockIdx.{f}"))
                }
            },
            Ty::Int,
        )))
    }

    /// Lowers `e` to a core expression (at most one operator) plus statements in `out`.
    pub(super) fn rv(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<(Expr, Ty)> {
        let p = e.pos;
        match &e.kind {
            ExprKind::Int(n) => Ok((Expr::Opd(int(*n)), Ty::Int)),
            ExprKind::Float(x) => Ok((Expr::Opd(Operand::Const(Const::Float(*x))), Ty::Float)),
            ExprKind::Str(_) => self.err(p, "string literal cannot be modelled in miniCUDA"),
            ExprKind::Sizeof(Some(n)) => Ok((Expr::Opd(int(*n as i64)), Ty::Int)),
            ExprKind::SizeofType(t) => Ok((Expr::Opd(int(self.sizeof_type(t, p)? as i64)), Ty::Int)),
            ExprKind::Sizeof(None) => self.err(p, "`sizeof` of an expression is not supported by warpcert (use `sizeof(type)`)"),
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Local(c, t)) => Ok((Expr::Opd(var(&c)), t)),
                Some(Binding::Value(o, t)) => Ok((Expr::Opd(o), t)),
                Some(Binding::SharedScalar { core, elem, idx }) => Ok((Expr::Read(core, idx), elem)),
                Some(Binding::Array { .. }) | Some(Binding::Ptr { .. }) | Some(Binding::VarPtr { .. }) | Some(Binding::UnsetPtr { .. }) => self.err(
                    p,
                    format!("array/pointer `{n}` used as a value: pointer arithmetic or aliasing that cannot be resolved to an array + index"),
                ),
                None if n == "warpSize" => Ok((Expr::Opd(int(self.hw.warp_size as i64)), Ty::Int)),
                None => Err(self.unknown_ident(n, p)),
            },
            ExprKind::Member(b, f) => match self.builtin(e) {
                Some(r) => r.map(|(o, t)| (Expr::Opd(o), t)),
                None => {
                    let _ = b;
                    self.err(p, format!("struct member access `.{f}` is not supported by warpcert (structs cannot be modelled)"))
                }
            },
            ExprKind::Arrow(_, f) => self.err(p, format!("member access `->{f}` is not supported by warpcert (structs cannot be modelled)")),
            ExprKind::Index(..) | ExprKind::Unary(UnaryOp::Deref, _) => {
                let (arr, idx, ty) = self.access(e, out)?;
                Ok((Expr::Read(arr, idx), ty))
            }
            ExprKind::Unary(UnaryOp::AddrOf, _) => self.err(p, "address-of `&` cannot be modelled in miniCUDA"),
            ExprKind::Unary(UnaryOp::Plus, a) => self.rv(a, out),
            ExprKind::Unary(UnaryOp::Neg, a) => {
                let (o, t) = self.opd(a, out)?;
                let (o, t) = if t == Ty::Bool { (self.convert(o, t, Ty::Int, p, out), Ty::Int) } else { (o, t) };
                match o {
                    Operand::Const(Const::Int(n)) if n != i64::MIN => Ok((Expr::Opd(int(-n)), t)),
                    Operand::Const(Const::Float(x)) => Ok((Expr::Opd(Operand::Const(Const::Float(-x))), t)),
                    o => Ok((Expr::Un(UnOp::Neg, o), t)),
                }
            }
            ExprKind::Unary(UnaryOp::BitNot, a) => {
                let o = self.int_opd(a, out)?;
                match o {
                    Operand::Const(Const::Int(n)) => Ok((Expr::Opd(int(!n)), Ty::Int)),
                    o => Ok((Expr::Un(UnOp::BitNot, o), Ty::Int)),
                }
            }
            ExprKind::Unary(UnaryOp::Not, _) => Ok((self.cond(e, out)?, Ty::Bool)),
            ExprKind::Binary(BinaryOp::Comma, a, b) => {
                self.effect(a, out)?;
                self.rv(b, out)
            }
            ExprKind::Binary(BinaryOp::LAnd | BinaryOp::LOr, ..) => Ok((self.cond(e, out)?, Ty::Bool)),
            ExprKind::Binary(op, a, b) => {
                if let Some(r) = self.ptr_binary(*op, a, b, p, out)? {
                    return Ok(r);
                }
                let Some(bop) = bin_of(*op) else {
                    return self.err(p, "unsupported operator");
                };
                self.binary(bop, a, b, p, out)
            }
            ExprKind::Assign(op, l, r) => {
                let (o, t) = self.assign(*op, l, r, p, true, out)?;
                Ok((Expr::Opd(o), t))
            }
            ExprKind::IncDec { pre, inc, e: l } => {
                let (o, t) = self.incdec(*pre, *inc, l, p, true, out)?;
                Ok((Expr::Opd(o), t))
            }
            ExprKind::Cond(c, a, b) => {
                let ce = self.cond(c, out)?;
                let mut ta = Vec::new();
                let (xa, tya) = self.rv(a, &mut ta)?;
                let mut tb = Vec::new();
                let (xb, tyb) = self.rv(b, &mut tb)?;
                let ty = if tya == Ty::Float || tyb == Ty::Float {
                    Ty::Float
                } else if tya == Ty::Bool && tyb == Ty::Bool {
                    Ty::Bool
                } else {
                    Ty::Int
                };
                let t = self.temp(ty);
                let xa = self.convert_expr(xa, tya, ty, a.pos, &mut ta);
                ta.push(Stmt::Assign(t.clone(), xa, loc(a.pos)));
                let xb = self.convert_expr(xb, tyb, ty, b.pos, &mut tb);
                tb.push(Stmt::Assign(t.clone(), xb, loc(b.pos)));
                out.push(Stmt::If(ce, Box::new(seq(ta)), Box::new(seq(tb)), loc(p)));
                Ok((Expr::Opd(var(&t)), ty))
            }
            ExprKind::Cast(ty, a) => {
                if ty.ptr > 0 || ty.is_ref {
                    return self.err(p, format!("pointer cast to `{}` cannot be modelled in miniCUDA", ty.describe()));
                }
                let to = self.scalar_ty(ty, p)?;
                let (x, from) = self.rv(a, out)?;
                Ok((self.convert_expr(x, from, to, p, out), to))
            }
            ExprKind::Inst(n, _) => self.err(p, format!("template function `{n}<…>` used as a value (only calls are supported)")),
            ExprKind::Opaque(_, args, rt) => self.opaque(args, rt, p, out),
            ExprKind::Call(f, args) => match self.call(f, args, p, true, out)? {
                Some((o, t)) => Ok((Expr::Opd(o), t)),
                None => self.err(p, "the result of a `void` function call is used as a value"),
            },
        }
    }

    pub(super) fn common(a: Ty, b: Ty) -> Ty {
        if a == Ty::Float || b == Ty::Float {
            Ty::Float
        } else {
            Ty::Int
        }
    }

    pub(super) fn binary(
        &mut self,
        bop: BinOp,
        a: &ast::Expr,
        b: &ast::Expr,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<(Expr, Ty)> {
        let (oa, ta) = self.opd(a, out)?;
        let (ob, tb) = self.opd(b, out)?;
        self.binary_opds(bop, oa, ta, ob, tb, p, out)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn binary_opds(
        &mut self,
        bop: BinOp,
        oa: Operand,
        ta: Ty,
        ob: Operand,
        tb: Ty,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<(Expr, Ty)> {
        let mut ct = Self::common(ta, tb);
        if is_int_only(bop) && ct == Ty::Float {
            return self.err(
                p,
                format!(
                    "operator `{}` applied to a floating-point value",
                    bop.symbol()
                ),
            );
        }
        if (bop == BinOp::Eq || bop == BinOp::Ne) && ta == Ty::Bool && tb == Ty::Bool {
            ct = Ty::Bool;
        }
        let oa = self.convert(oa, ta, ct, p, out);
        let ob = self.convert(ob, tb, ct, p, out);
        let rt = if bop.is_comparison() { Ty::Bool } else { ct };
        if let (Operand::Const(Const::Int(x)), Operand::Const(Const::Int(y))) = (&oa, &ob) {
            if let Some(v) = fold(bop, *x, *y) {
                return Ok((Expr::Opd(int(v)), rt));
            }
        }
        Ok((Expr::Bin(bop, oa, ob), rt))
    }

    /// A Bool-typed core expression for the condition `e` (statements in `out`).
    pub(super) fn cond(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<Expr> {
        let p = e.pos;
        match &e.kind {
            ExprKind::Unary(UnaryOp::Not, a) => {
                let c = self.cond(a, out)?;
                match c {
                    Expr::Bin(op, x, y) if flip(op).is_some() && !self.is_float_cmp(&x, &y) => {
                        Ok(Expr::Bin(flip(op).unwrap_or(op), x, y))
                    }
                    Expr::Opd(Operand::Const(Const::Bool(b))) => {
                        Ok(Expr::Opd(Operand::Const(Const::Bool(!b))))
                    }
                    c => {
                        let o = self.bind(c, Ty::Bool, p, out);
                        Ok(Expr::Un(UnOp::Not, o))
                    }
                }
            }
            ExprKind::Binary(op @ (BinaryOp::LAnd | BinaryOp::LOr), a, b) => {
                let t = self.temp(Ty::Bool);
                let ca = self.cond(a, out)?;
                out.push(Stmt::Assign(t.clone(), ca, loc(a.pos)));
                let mut inner = Vec::new();
                let cb = self.cond(b, &mut inner)?;
                inner.push(Stmt::Assign(t.clone(), cb, loc(b.pos)));
                let (th, el) = if *op == BinaryOp::LAnd {
                    (seq(inner), Stmt::Skip)
                } else {
                    (Stmt::Skip, seq(inner))
                };
                out.push(Stmt::If(
                    Expr::Opd(var(&t)),
                    Box::new(th),
                    Box::new(el),
                    loc(p),
                ));
                Ok(Expr::Opd(var(&t)))
            }
            _ => {
                let (x, ty) = self.rv(e, out)?;
                if ty == Ty::Bool {
                    return Ok(x);
                }
                let o = self.bind(x, ty, p, out);
                if let Operand::Const(Const::Int(n)) = o {
                    return Ok(Expr::Opd(Operand::Const(Const::Bool(n != 0))));
                }
                Ok(Expr::Un(UnOp::ToBool, o))
            }
        }
    }

    pub(super) fn opd_ty(&self, o: &Operand) -> Ty {
        match o {
            Operand::Var(x) => self
                .locals
                .iter()
                .find(|(n, _)| n == x)
                .map(|(_, t)| *t)
                .unwrap_or(Ty::Int),
            Operand::Param(_) | Operand::Tid(_) => Ty::Int,
            Operand::Const(Const::Int(_)) => Ty::Int,
            Operand::Const(Const::Bool(_)) => Ty::Bool,
            Operand::Const(Const::Float(_)) => Ty::Float,
        }
    }

    pub(super) fn is_float_cmp(&self, x: &Operand, y: &Operand) -> bool {
        let fx = match x {
            Operand::Param(n) => self
                .scopes
                .first()
                .map(|s| {
                    s.values().any(
                        |b| matches!(b, Binding::Value(Operand::Param(m), Ty::Float) if m == n),
                    )
                })
                .unwrap_or(false),
            o => self.opd_ty(o) == Ty::Float,
        };
        fx || self.opd_ty(y) == Ty::Float
    }
}

pub(super) fn flip(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Lt => BinOp::Ge,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        BinOp::Ge => BinOp::Lt,
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        _ => return None,
    })
}

pub(super) fn fold(op: BinOp, a: i64, b: i64) -> Option<i64> {
    match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div => a.checked_div(b),
        BinOp::Rem => a.checked_rem(b),
        BinOp::Shl if (0..62).contains(&b) => a.checked_mul(1i64 << b),
        BinOp::Shr if (0..63).contains(&b) => Some(a >> b),
        BinOp::BitAnd => Some(a & b),
        BinOp::BitOr => Some(a | b),
        BinOp::BitXor => Some(a ^ b),
        BinOp::Min => Some(a.min(b)),
        BinOp::Max => Some(a.max(b)),
        _ => None,
    }
}

pub(super) fn bin_of(op: BinaryOp) -> Option<BinOp> {
    Some(match op {
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Sub => BinOp::Sub,
        BinaryOp::Mul => BinOp::Mul,
        BinaryOp::Div => BinOp::Div,
        BinaryOp::Rem => BinOp::Rem,
        BinaryOp::Shl => BinOp::Shl,
        BinaryOp::Shr => BinOp::Shr,
        BinaryOp::BitAnd => BinOp::BitAnd,
        BinaryOp::BitOr => BinOp::BitOr,
        BinaryOp::BitXor => BinOp::BitXor,
        BinaryOp::Lt => BinOp::Lt,
        BinaryOp::Le => BinOp::Le,
        BinaryOp::Gt => BinOp::Gt,
        BinaryOp::Ge => BinOp::Ge,
        BinaryOp::Eq => BinOp::Eq,
        BinaryOp::Ne => BinOp::Ne,
        BinaryOp::LAnd | BinaryOp::LOr | BinaryOp::Comma => return None,
    })
}

pub(super) fn is_int_only(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Rem | BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
    )
}

pub(super) fn dim_of(f: &str) -> Option<usize> {
    match f {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}
