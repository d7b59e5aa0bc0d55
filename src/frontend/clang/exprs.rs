//! Scalar and pointer expressions (`spec/lowering.md` §9.3): literals, casts (pointer
//! casts between element types of one scalar view), references (enumerators and constant
//! globals as values), subscripts and field accesses, operators (record-pointer arithmetic
//! scaled to the view), `sizeof`/`alignof`.

use super::convert::{
    add, const_int, e, first, ident, int, kids, lit_i64, pos_err, scale, strip, types_same_view,
    Conv, Local, Origin,
};
use super::json::Node;
use super::types::{self, Ty};
use crate::frontend::ast::{BaseTy, BinaryOp, CType, Expr, ExprKind, UnaryOp};
use crate::frontend::diag::Diagnostic;

type R<T> = Result<T, Diagnostic>;

impl Conv<'_> {
    pub(super) fn cond(&mut self, n: &Node) -> R<Expr> {
        // conditions: clang's `IntegralToBoolean` casts are what the lowering does itself
        let s = strip(n);
        if s.kind == "ImplicitCastExpr"
            && matches!(s.cast_kind.as_deref(), Some("PointerToBoolean"))
        {
            return self.err(n, "a pointer used as a condition is not supported");
        }
        self.expr(n)
    }

    /// A scalar or pointer expression.
    pub fn expr(&mut self, n0: &Node) -> R<Expr> {
        let n = strip(n0);
        let p = self.pos(n);
        let k = match n.kind.as_str() {
            "IntegerLiteral" | "CharacterLiteral" | "CXXBoolLiteralExpr" => match n.value.as_ref().and_then(lit_i64) {
                Some(v) => ExprKind::Int(v),
                None => return self.err(n, "integer literal out of range"),
            },
            "FloatingLiteral" => {
                let v = n.value.as_ref().and_then(|v| v.as_str().and_then(|s| s.parse::<f64>().ok()).or_else(|| v.as_f64()));
                match v {
                    Some(x) => ExprKind::Float(x),
                    None => return self.err(n, "floating literal not understood"),
                }
            }
            "StringLiteral" => ExprKind::Str(String::new()),
            "ImplicitCastExpr" => {
                let inner = first(n).ok_or_else(|| pos_err(&self.sm, p, "empty cast"))?;
                return self.pointer_cast(n, inner);
            }
            "CStyleCastExpr" | "CXXStaticCastExpr" | "CXXFunctionalCastExpr" | "CXXReinterpretCastExpr" | "CXXConstCastExpr" => {
                let inner = first(n).ok_or_else(|| pos_err(&self.sm, p, "empty cast"))?;
                let t = self.records.of(n);
                match &t {
                    Ty::Ptr(_) => return self.pointer_cast(n, inner),
                    Ty::Scalar(..) => ExprKind::Cast(t.ctype().unwrap_or(CType::base(BaseTy::Int)), Box::new(self.expr(inner)?)),
                    _ => return self.err(n, format!("cast to `{}` is not supported here", t.describe())),
                }
            }
            "DeclRefExpr" => return self.decl_ref(n),
            "ArraySubscriptExpr" => {
                let mut it = kids(n);
                let (Some(b), Some(i)) = (it.next(), it.next()) else {
                    return self.err(n, "malformed subscript");
                };
                if let Some(lv) = self.record_field_lvalue(n)? {
                    return Ok(lv);
                }
                let bt = self.records.of(strip(b));
                if let Some(Ty::Record(_)) | Some(Ty::Array(..)) = bt.inner().map(|x| x.unref()) {
                    if !matches!(bt, Ty::Array(..)) {
                        return self.err(n, "a record element used as a scalar");
                    }
                }
                ExprKind::Index(Box::new(self.expr(b)?), Box::new(self.expr(i)?))
            }
            "MemberExpr" => {
                if let Some(b) = self.builtin_member(n) {
                    return Ok(b);
                }
                match self.record_field_lvalue(n)? {
                    Some(x) => return Ok(x),
                    None => return self.err(n, format!("member `{}` is not supported here", n.name.clone().unwrap_or_default())),
                }
            }
            "UnaryOperator" => {
                let a = first(n).ok_or_else(|| pos_err(&self.sm, p, "empty operator"))?;
                let op = n.opcode.clone().unwrap_or_default();
                match op.as_str() {
                    "++" | "--" => return self.inc_dec(n, a, op == "++"),
                    "&" => return self.address_of(n, a),
                    "*" => {
                        if let Some(x) = self.record_field_lvalue(n)? {
                            return Ok(x);
                        }
                        ExprKind::Unary(UnaryOp::Deref, Box::new(self.expr(a)?))
                    }
                    "-" => ExprKind::Unary(UnaryOp::Neg, Box::new(self.expr(a)?)),
                    "+" => ExprKind::Unary(UnaryOp::Plus, Box::new(self.expr(a)?)),
                    "!" => ExprKind::Unary(UnaryOp::Not, Box::new(self.expr(a)?)),
                    "~" => ExprKind::Unary(UnaryOp::BitNot, Box::new(self.expr(a)?)),
                    o => return self.err(n, format!("operator `{o}` is not supported")),
                }
            }
            "BinaryOperator" | "CompoundAssignOperator" => return self.binary(n),
            "ConditionalOperator" => {
                let v: Vec<&Node> = kids(n).collect();
                if v.len() != 3 {
                    return self.err(n, "malformed `?:`");
                }
                let c = self.expr(v[0])?;
                let before = std::mem::take(&mut self.pending);
                let (a, b) = (self.expr(v[1])?, self.expr(v[2])?);
                self.no_pending(n)?;
                self.pending = before;
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b))
            }
            "UnaryExprOrTypeTraitExpr" => {
                let t = match &n.arg_type {
                    Some(q) => self.records.resolve(&types::parse(q.canonical())),
                    None => first(n).map(|x| self.records.of(strip(x))).unwrap_or(Ty::Other(String::new())),
                };
                let what = n.name.clone().unwrap_or_default();
                match self.records.size_align(&t) {
                    Some((s, a)) => ExprKind::Int(if what == "alignof" { a } else { s } as i64),
                    None => return self.err(n, format!("`{what}` of `{}` is not known", t.describe())),
                }
            }
            "CallExpr" => return self.call(n),
            "CXXMemberCallExpr" => match self.cg_call(n)? {
                Some(Some(x)) => return Ok(x),
                _ => match self.half_conversion(n)? {
                    Some(x) => return Ok(x),
                    None => return self.err(n, "member function call is not supported here"),
                },
            },
            "CXXOperatorCallExpr" if self.user_callee(n) || self.is_lambda_call(n) => return self.call(n),
            "CXXOperatorCallExpr" => return self.err(n, "overloaded operator call without a definition in the translation unit is not supported"),
            "CXXConstructExpr" if n.ty.as_ref().is_some_and(|t| super::lambda::is_lambda_type(&t.qual)) => return self.err(n, "a lambda copied or passed to a function is not supported by warpcert (a lambda is inlined where it is called directly, `f(…)`)"),
            "CXXConstructExpr" => return self.err(n, format!("construction of `{}` is not supported here", self.records.of(n).describe())),
            "CXXNullPtrLiteralExpr" | "GNUNullExpr" => return self.err(n, "null pointer is not supported"),
            "RecoveryExpr" => return self.err(n, "clang could not type this expression (see clang's error above)"),
            "CXXThisExpr" => return self.err(n, "`this` (member functions of records) is not supported yet"),
            "InitListExpr" => return self.err(n, "initializer list is not supported here"),
            "CXXDefaultArgExpr" => return self.err(n, "default argument outside a call"),
            "LambdaExpr" => return self.err(n, "a lambda expression other than the initializer of a local (`auto f = [&](…) { … };`) is not supported by warpcert"),
            "ImplicitValueInitExpr" => {
                // value-initialization (`T x{}`, `return {};`, the missing elements of an
                // initializer list): zero
                match self.records.of(n) {
                    Ty::Scalar(BaseTy::Float | BaseTy::Double, _) => ExprKind::Float(0.0),
                    Ty::Scalar(..) => ExprKind::Int(0),
                    t => return self.err(n, format!("value-initialization of `{}` is not supported here", t.describe())),
                }
            }
            k => return self.err(n, format!("expression `{k}` is not supported")),
        };
        Ok(e(k, p))
    }

    pub(super) fn binary(&mut self, n: &Node) -> R<Expr> {
        let p = self.pos(n);
        let mut it = kids(n);
        let (Some(a), Some(b)) = (it.next(), it.next()) else {
            return self.err(n, "malformed binary operator");
        };
        let op = n.opcode.clone().unwrap_or_default();
        if op == "," {
            if let Some(name) = self.annotation_call(a) {
                self.warnings.push(self.sm.warning(
                    p,
                    format!("GPUVerify annotation `{name}` dropped (no run-time effect, no cost)"),
                ));
                return self.expr(b);
            }
        }
        let (compound, sym) = match op.strip_suffix('=') {
            Some(s) if !matches!(op.as_str(), "==" | "!=" | "<=" | ">=") => (true, s.to_string()),
            _ => (false, op.clone()),
        };
        let bop = |s: &str| -> Option<BinaryOp> {
            Some(match s {
                "+" => BinaryOp::Add,
                "-" => BinaryOp::Sub,
                "*" => BinaryOp::Mul,
                "/" => BinaryOp::Div,
                "%" => BinaryOp::Rem,
                "<<" => BinaryOp::Shl,
                ">>" => BinaryOp::Shr,
                "&" => BinaryOp::BitAnd,
                "|" => BinaryOp::BitOr,
                "^" => BinaryOp::BitXor,
                "<" => BinaryOp::Lt,
                "<=" => BinaryOp::Le,
                ">" => BinaryOp::Gt,
                ">=" => BinaryOp::Ge,
                "==" => BinaryOp::Eq,
                "!=" => BinaryOp::Ne,
                "&&" => BinaryOp::LAnd,
                "||" => BinaryOp::LOr,
                "," => BinaryOp::Comma,
                _ => return None,
            })
        };
        // pointer arithmetic on record pointers: offsets scaled to the scalar view
        let ta = self.records.of(strip(a));
        let tb = self.records.of(strip(b));
        let stride_of = |c: &Self, t: &Ty| -> Option<i64> {
            match t {
                Ty::Ptr(x) => c.view_of(x).map(|(_, s)| s),
                _ => None,
            }
        };
        let mut la = self.expr(a)?;
        let mut rb = if matches!(op.as_str(), "&&" | "||") {
            // the right operand runs only sometimes: nothing of it may be hoisted
            let before = std::mem::take(&mut self.pending);
            let r = self.expr(b)?;
            self.no_pending(n)?;
            self.pending = before;
            r
        } else {
            self.expr(b)?
        };
        if matches!(ta, Ty::Ptr(_)) && matches!(tb, Ty::Ptr(_)) && op == "-" {
            // a difference of record pointers counts records: the view offsets' difference
            // divided by the stride (both offsets are multiples of it)
            let d = e(
                ExprKind::Binary(BinaryOp::Sub, Box::new(la), Box::new(rb)),
                p,
            );
            return Ok(match stride_of(self, &ta) {
                Some(s) if s != 1 => e(
                    ExprKind::Binary(BinaryOp::Div, Box::new(d), Box::new(int(s, p))),
                    p,
                ),
                _ => d,
            });
        }
        if matches!(sym.as_str(), "+" | "-") {
            if let Some(s) = stride_of(self, &ta) {
                rb = scale(rb, s);
            } else if let Some(s) = stride_of(self, &tb) {
                la = scale(la, s);
            }
        }
        if op == "=" {
            return Ok(e(ExprKind::Assign(None, Box::new(la), Box::new(rb)), p));
        }
        let Some(bo) = bop(&sym) else {
            return self.err(n, format!("operator `{op}` is not supported"));
        };
        if compound {
            Ok(e(ExprKind::Assign(Some(bo), Box::new(la), Box::new(rb)), p))
        } else {
            Ok(e(ExprKind::Binary(bo, Box::new(la), Box::new(rb)), p))
        }
    }

    /// `++x`, `x++`, `--x`, `x--`. On a pointer to records of stride `s` in their view (§9.3)
    /// the pointer moves by `s`: `x += s` (prefix), `(x += s) - s` (postfix: the old value).
    fn inc_dec(&mut self, n: &Node, a: &Node, inc: bool) -> R<Expr> {
        let p = self.pos(n);
        let x = self.expr(a)?;
        let stride = match self.records.of(strip(a)) {
            Ty::Ptr(t) => self.view_of(&t).map(|(_, s)| s).unwrap_or(1),
            _ => 1,
        };
        if stride == 1 {
            let pre = !n.is_postfix;
            return Ok(e(
                ExprKind::IncDec {
                    pre,
                    inc,
                    e: Box::new(x),
                },
                p,
            ));
        }
        let op = if inc { BinaryOp::Add } else { BinaryOp::Sub };
        let moved = e(
            ExprKind::Assign(Some(op), Box::new(x), Box::new(int(stride, p))),
            p,
        );
        if !n.is_postfix {
            return Ok(moved);
        }
        let back = if inc { BinaryOp::Sub } else { BinaryOp::Add };
        Ok(e(
            ExprKind::Binary(back, Box::new(moved), Box::new(int(stride, p))),
            p,
        ))
    }

    /// A cast whose target may be a pointer: allowed between element types with the same
    /// scalar view (`float4 *` ↔ `float *`, `uint4 *` ↔ `unsigned *`); dropped otherwise
    /// for implicit value conversions (the lowering converts by type).
    pub(super) fn pointer_cast(&mut self, n: &Node, inner: &Node) -> R<Expr> {
        let to = self.records.of(n);
        let from = self.records.of(strip(inner));
        match n.cast_kind.as_deref() {
            Some("PointerToBoolean") => {
                return self.err(n, "a pointer used as a truth value is not supported")
            }
            Some("NullToPointer") => return self.err(n, "null pointer is not supported"),
            _ => {}
        }
        if let (Ty::Ptr(t), Ty::Ptr(f)) = (&to, &from) {
            let vt = self.view_of(t.unref());
            let vf = self.view_of(f.unref());
            match (vt, vf) {
                (Some((a, _)), Some((b, _))) if types_same_view(&a, &b) => return self.expr(inner),
                (Some((a, _)), Some((b, _))) => {
                    return self.err(n, format!("pointer cast from `{}` to `{}` changes the element type (`{}` to `{}`): only casts between types of the same scalar element are supported", from.describe(), to.describe(), b.describe(), a.describe()))
                }
                _ if matches!(**t, Ty::Scalar(BaseTy::Void, _)) || matches!(**f, Ty::Scalar(BaseTy::Void, _)) => {
                    return self.err(n, "cast through `void *` is not supported")
                }
                _ => return self.err(n, format!("pointer cast from `{}` to `{}` is not supported", from.describe(), to.describe())),
            }
        }
        if n.kind != "ImplicitCastExpr" {
            if let Ty::Scalar(..) = to {
                let p = self.pos(n);
                return Ok(e(
                    ExprKind::Cast(
                        to.ctype().unwrap_or(CType::base(BaseTy::Int)),
                        Box::new(self.expr(inner)?),
                    ),
                    p,
                ));
            }
        }
        self.expr(inner)
    }

    pub(super) fn address_of(&mut self, n: &Node, a: &Node) -> R<Expr> {
        let p = self.pos(n);
        let s = strip(a);
        // &v[i] on a record array: the view pointer `v + i*stride`
        if s.kind == "ArraySubscriptExpr" {
            let bt = self.records.of(strip(
                first(s).ok_or_else(|| pos_err(&self.sm, p, "bad subscript"))?,
            ));
            if let Some(inner) = bt.inner() {
                if let Some((_, st)) = self.view_of(inner) {
                    if st != 1 {
                        let mut it = kids(s);
                        let (Some(b), Some(i)) = (it.next(), it.next()) else {
                            return self.err(n, "malformed subscript");
                        };
                        let b = self.expr(b)?;
                        let i = scale(self.expr(i)?, st);
                        return Ok(add(b, i));
                    }
                }
            }
        }
        if s.kind == "MemberExpr" {
            return self.err(n, "address of a record field is not supported yet");
        }
        Ok(e(
            ExprKind::Unary(UnaryOp::AddrOf, Box::new(self.expr(a)?)),
            p,
        ))
    }

    pub(super) fn decl_ref(&mut self, n: &Node) -> R<Expr> {
        let p = self.pos(n);
        let Some(r) = n.referenced_decl.as_deref() else {
            return self.err(n, "reference without declaration");
        };
        let name = r.name.clone().unwrap_or_default();
        match r.kind.as_str() {
            "EnumConstantDecl" => match self
                .decls
                .get(r.id.as_str())
                .and_then(|d| first(d))
                .and_then(|x| const_int(x, &self.decls))
            {
                Some(v) => Ok(int(v, p)),
                None => self.err(n, format!("enumerator `{name}` without a known value")),
            },
            "FunctionDecl" | "CXXMethodDecl" => {
                self.err(n, format!("function `{name}` used as a value"))
            }
            "VarDecl" | "ParmVarDecl" => {
                match self.lookup(&r.id) {
                    Some(Local::Record(_)) => {
                        return self.err(n, format!("record `{name}` used as a scalar"))
                    }
                    Some(Local::Lambda { .. }) => {
                        return self.err(n, format!("lambda `{name}` used other than by a direct call `{name}(…)` (copied, stored or passed to a function) is not supported by warpcert"))
                    }
                    _ => {}
                }
                let Some(d) = self.decls.get(r.id.as_str()).copied() else {
                    return Ok(ident(&name, p));
                };
                let global = d.kind == "VarDecl" && self.is_file_scope(d);
                let outer = !global
                    && self
                        .lambda_scope
                        .as_ref()
                        .is_some_and(|s| !s.contains(&r.id));
                if outer {
                    // a local of the enclosing function a lambda names without capturing
                    // it: a constant (not odr-used), or a `static`/`__shared__` local
                    if let Some(v) = first(d).and_then(|x| const_int(x, &self.decls)) {
                        let q = d.ty.as_ref().map(|q| q.qual.as_str()).unwrap_or("");
                        if q.starts_with("const ") || d.constexpr {
                            return Ok(int(v, p));
                        }
                    }
                    return self.err(n, format!("a lambda uses `{name}` of the enclosing function without capturing it (a `static` or `__shared__` local): not supported by warpcert"));
                }
                if !global {
                    return Ok(ident(&name, p));
                }
                match self.origin_of(d) {
                    Origin::Prelude | Origin::System => Ok(ident(&name, p)),
                    Origin::User => {
                        let is_cuda = d.inner.iter().any(|c| {
                            matches!(
                                c.kind.as_str(),
                                "CUDASharedAttr" | "CUDADeviceAttr" | "CUDAConstantAttr"
                            )
                        });
                        if !is_cuda {
                            if let Some(v) = first(d).and_then(|x| const_int(x, &self.decls)) {
                                return Ok(int(v, p));
                            }
                            if let Some(x) =
                                first(d).map(strip).filter(|x| x.kind == "FloatingLiteral")
                            {
                                return self.expr(x);
                            }
                        }
                        self.global_var(d)?;
                        Ok(ident(&name, p))
                    }
                }
            }
            k => self.err(n, format!("reference to `{name}` ({k}) is not supported")),
        }
    }

    pub(super) fn is_file_scope(&self, d: &Node) -> bool {
        self.global_ids.contains(d.id.as_str())
    }

    pub(super) fn builtin_member(&mut self, n: &Node) -> Option<Expr> {
        let base = strip(first(n)?);
        if base.kind != "DeclRefExpr" {
            return None;
        }
        let r = base.referenced_decl.as_deref()?;
        let bn = r.name.as_deref()?;
        if !matches!(bn, "threadIdx" | "blockIdx" | "blockDim" | "gridDim") {
            return None;
        }
        let d = self.decls.get(r.id.as_str())?;
        if self.origin_of(d) != Origin::Prelude {
            return None;
        }
        let p = self.pos(n);
        Some(e(
            ExprKind::Member(Box::new(ident(bn, p)), n.name.clone()?),
            p,
        ))
    }
}
