//! Calls: inlining of `__device__` functions (template instantiation, reference
//! parameters bound to the caller's locals, return values), `min`/`max`, `__syncthreads`.

use crate::core::{BinOp, Expr, Operand, Stmt, Ty};
use crate::frontend::ast::{self, BaseTy, BinaryOp, CType, ExprKind, FnKind, StmtKind, UnaryOp};
use crate::frontend::diag::{Pos, SourceMap};
use crate::frontend::lower::intrinsics::atomic_op;
use crate::frontend::lower::pointer::moved_pointers;
use crate::frontend::lower::stmt::assigned_names;
use crate::frontend::lower::warp::is_warp_intrinsic;
use crate::frontend::lower::{int, loc, var, Binding, FnCtx, Lw, R};
use std::collections::HashMap;

impl Lw<'_> {
    /// The type of argument `a` for template argument deduction, found without lowering it
    /// (literals, variables, parameters, casts, built-ins, array elements, operators on
    /// those); `None` when it cannot be told this way.
    pub(super) fn arg_ty(&self, a: &ast::Expr) -> Option<Ty> {
        match &a.kind {
            ExprKind::Int(_)
            | ExprKind::Sizeof(_)
            | ExprKind::SizeofType(_)
            | ExprKind::Member(..) => Some(Ty::Int),
            ExprKind::Float(_) => Some(Ty::Float),
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Binding::Local(_, t)) | Some(Binding::Value(_, t)) => Some(*t),
                Some(Binding::SharedScalar { elem, .. }) => Some(*elem),
                _ if n == "warpSize" => Some(Ty::Int),
                _ => None,
            },
            ExprKind::Cast(t, _) => self.scalar_ty(t, a.pos).ok(),
            ExprKind::Index(b, _) => {
                let mut base = b;
                while let ExprKind::Index(bb, _) = &base.kind {
                    base = bb;
                }
                match &base.kind {
                    ExprKind::Ident(n) => match self.lookup(n) {
                        Some(Binding::Ptr { elem, .. })
                        | Some(Binding::VarPtr { elem, .. })
                        | Some(Binding::Array { elem, .. }) => Some(*elem),
                        _ => None,
                    },
                    _ => None,
                }
            }
            ExprKind::Unary(UnaryOp::Neg | UnaryOp::Plus, x) => self.arg_ty(x),
            ExprKind::Unary(UnaryOp::BitNot, _) => Some(Ty::Int),
            ExprKind::Unary(UnaryOp::Not, _) => Some(Ty::Bool),
            ExprKind::Binary(op, x, y) => match op {
                BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::LAnd
                | BinaryOp::LOr => Some(Ty::Bool),
                BinaryOp::Comma => self.arg_ty(y),
                _ => Some(Self::common(self.arg_ty(x)?, self.arg_ty(y)?)),
            },
            _ => None,
        }
    }

    /// The element type of pointer expression `a`, found without lowering it.
    pub(super) fn ptr_elem(&self, a: &ast::Expr) -> Option<Ty> {
        match &a.kind {
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Binding::Ptr { elem, .. })
                | Some(Binding::VarPtr { elem, .. })
                | Some(Binding::Array { elem, .. }) => Some(*elem),
                _ => None,
            },
            ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, x, y) => {
                self.ptr_elem(x).or_else(|| self.ptr_elem(y))
            }
            ExprKind::Unary(UnaryOp::AddrOf, x) => self.arg_ty(x),
            _ => None,
        }
    }

    /// A call `f(args)`; `want`: the value is used (else evaluated for effect only).
    pub(super) fn call(
        &mut self,
        f: &ast::Expr,
        args: &[ast::Expr],
        p: Pos,
        want: bool,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Operand, Ty)>> {
        let (name, targs) = match &f.kind {
            ExprKind::Ident(name) => (name, &[][..]),
            ExprKind::Inst(name, targs) => (name, targs.as_slice()),
            _ => {
                return self.err(
                    p,
                    "call through a function pointer or member cannot be modelled in miniCUDA",
                )
            }
        };
        if let Some(op) = atomic_op(name) {
            return self.atomic(name, op, args, p, want, out);
        }
        if matches!(
            name.as_str(),
            "atomicInc"
                | "atomicDec"
                | "atomicCAS"
                | "atomicInc_block"
                | "atomicDec_block"
                | "atomicCAS_block"
                | "atomicInc_system"
                | "atomicDec_system"
                | "atomicCAS_system"
        ) {
            return self.atomic_conditional(name, args, p, want, out);
        }
        if is_annotation(name) {
            self.warnings.push(self.sm.warning(
                p,
                format!("GPUVerify annotation `{name}(…)` ignored (it has no cost)"),
            ));
            return Ok(None);
        }
        if is_warp_intrinsic(name) && !self.unit.functions.iter().any(|g| &g.name == name) {
            return self.warp_call(name, args, p, out);
        }
        let defined = self.unit.functions.iter().any(|g| &g.name == name);
        // a device function of the file is inlined even when its name looks like an
        // unsupported built-in (`atomicAggInc` of the CUDA samples)
        if let Some(msg) = unsupported_call(name).filter(|_| !defined) {
            return self.err(p, msg);
        }
        match name.as_str() {
            "__syncthreads" => {
                if !args.is_empty() {
                    return self.err(p, "`__syncthreads` takes no arguments");
                }
                out.push(Stmt::Sync(loc(p)));
                return Ok(None);
            }
            super::GRID_SYNC => {
                // a grid-wide barrier, modelled per block (spec/lowering.md §9.6)
                self.warnings.push(self.sm.warning(
                    p,
                    "grid-wide barrier modelled per block (spec/lowering.md §9.6): it is the core `sync` of the block, charged as `__syncthreads()`; values other blocks wrote before it are unknown inputs (as every global read is for the analysis); the interleaving semantics runs blocks one after another and reports every conflicting access pair of two blocks as a race, also pairs this barrier orders",
                ));
                out.push(Stmt::Sync(loc(p)));
                return Ok(None);
            }
            "min" | "max" | "fminf" | "fmaxf" | "fmin" | "fmax" | "umin" | "umax" | "__mul24"
            | "__umul24" => {
                if args.len() != 2 {
                    return self.err(
                        p,
                        format!("`{name}` expects 2 arguments, found {}", args.len()),
                    );
                }
                let bop = match name.as_str() {
                    "min" | "fminf" | "fmin" | "umin" => BinOp::Min,
                    "max" | "fmaxf" | "fmax" | "umax" => BinOp::Max,
                    _ => BinOp::Mul,
                };
                let (x, t) = self.binary(bop, &args[0], &args[1], p, out)?;
                return Ok(Some((self.bind(x, t, p, out), t)));
            }
            _ => {}
        }
        if !defined {
            if let Some(r) = self.intrinsic(name, args, p, out) {
                return r.map(Some);
            }
        }
        let unit = self.unit;
        let Some(fd) = unit.functions.iter().find(|g| &g.name == name) else {
            if self.unit.prototypes.iter().any(|n| n == name) {
                return self.err(p, format!("function `{name}` is declared but not defined in this file (its body is needed for inlining)"));
            }
            return self.err(p, format!("call to unknown function `{name}` (only `__device__` functions defined in the file, `min`, `max` and `__syncthreads` are supported)"));
        };
        self.inline_call(name, fd, targs, args, p, out)
    }

    /// Inlines the call `name(args)` of `fd` (template arguments `targs`): binds the
    /// parameters in a fresh scope, lowers the body with its own jump flag and return
    /// variable, and returns the result variable.
    fn inline_call(
        &mut self,
        name: &str,
        fd: &ast::Function,
        targs: &[ast::CType],
        args: &[ast::Expr],
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Operand, Ty)>> {
        if fd.kind == FnKind::Global {
            return self.err(p, format!("call of kernel `{name}` from device code (dynamic parallelism) is not supported"));
        }
        if self.call_stack.iter().any(|c| c == name) {
            return self.err(
                p,
                format!("recursive call to `{name}`: recursion cannot be modelled in miniCUDA"),
            );
        }
        if !fd.template && !targs.is_empty() {
            return self.err(
                p,
                format!("`{name}` is not a template but is called with template arguments"),
            );
        }
        let targs: Vec<CType> = targs.iter().map(|t| self.subst(t)).collect();
        let mut callee_subst = if fd.template {
            instantiate(self.sm, fd, &targs, p)?
        } else {
            HashMap::new()
        };
        let body = match &fd.body {
            Ok(b) => b,
            Err(d) => return Err(d.clone()),
        };
        if fd.params.len() != args.len() {
            return self.err(
                p,
                format!(
                    "`{name}` expects {} argument(s), found {}",
                    fd.params.len(),
                    args.len()
                ),
            );
        }
        let mut scope = HashMap::new();
        let assigned_in_body = assigned_names(body);
        let moved_in_body = moved_pointers(body);
        for (prm, a) in fd.params.iter().zip(args) {
            // template argument deduction from this argument (`T x`, `const T &x`, `T *p`)
            if let BaseTy::Named(tn) = &prm.ty.base {
                let is_tparam = fd.tparams.iter().any(|t| t.is_type && &t.name == tn);
                if is_tparam && !callee_subst.contains_key(tn) {
                    let deduced = if prm.ty.ptr > 0 {
                        self.ptr_elem(a)
                    } else {
                        self.arg_ty(a)
                    };
                    let Some(t) = deduced else {
                        return self.err(a.pos, format!("cannot deduce template parameter `{tn}` of `{name}` from this argument; write `{name}<float>(…)`"));
                    };
                    let base = match t {
                        Ty::Float => BaseTy::Float,
                        Ty::Int => BaseTy::Int,
                        Ty::Bool => BaseTy::Bool,
                    };
                    callee_subst.insert(tn.clone(), CType::base(base));
                }
            }
            let pty = subst_with(&callee_subst, &prm.ty);
            if pty.is_ref {
                let b = self.ref_arg(
                    name,
                    prm,
                    a,
                    &pty,
                    assigned_in_body.contains(&prm.name),
                    out,
                )?;
                scope.insert(prm.name.clone(), b);
                continue;
            }
            if pty.ptr > 0 {
                let (array, off, elem) = self.ptr_expr(a, out)?;
                let moved = moved_in_body.contains(&prm.name);
                let b = self.bind_ptr(&prm.name, moved, array, off, elem, a.pos, out);
                scope.insert(prm.name.clone(), b);
                continue;
            }
            let pt = self.scalar_ty(&pty, prm.pos)?;
            let (x, t) = self.rv(a, out)?;
            let x = self.convert_expr(x, t, pt, a.pos, out);
            let core = self.new_local(&prm.name, pt);
            out.push(Stmt::Assign(core.clone(), x, loc(a.pos)));
            scope.insert(prm.name.clone(), Binding::Local(core, pt));
        }
        if let Some(tp) = fd
            .tparams
            .iter()
            .find(|t| t.is_type && !callee_subst.contains_key(&t.name))
        {
            return self.err(p, format!("template parameter `{}` of `{name}` cannot be deduced from the arguments; write `{name}<float>(…)`", tp.name));
        }
        let ret = match fd.ret.as_ref().map(|t| subst_with(&callee_subst, t)) {
            Some(t) if !(t.base == BaseTy::Void && t.ptr == 0) => {
                let rt = self.scalar_ty(&t, fd.pos)?;
                Some((self.fresh("ret", rt), rt))
            }
            _ => None,
        };
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![scope]);
        let saved_f = std::mem::replace(
            &mut self.f,
            FnCtx {
                jmp: None,
                ret: ret.clone(),
                loop_depth: 0,
                moved: moved_in_body,
            },
        );
        let saved_subst = std::mem::replace(&mut self.tsubst, callee_subst);
        self.call_stack.push(name.to_string());
        let mut inner = Vec::new();
        let r = self.block(body, &mut inner, true);
        self.call_stack.pop();
        self.tsubst = saved_subst;
        self.scopes = saved_scopes;
        let fctx = std::mem::replace(&mut self.f, saved_f);
        r?;
        if let Some(j) = fctx.jmp {
            out.push(Stmt::Assign(j, Expr::Opd(int(0)), loc(p)));
        }
        out.extend(inner);
        Ok(ret.map(|(r, t)| (var(&r), t)))
    }

    /// The binding of reference parameter `prm` (type `pty`) of `name` to argument `a`: the
    /// caller's local (or `__shared__` scalar) of the same type it names, else a copy when the
    /// body never assigns it (`assigned`) and it is not an array element.
    fn ref_arg(
        &mut self,
        name: &str,
        prm: &ast::Param,
        a: &ast::Expr,
        pty: &CType,
        assigned: bool,
        out: &mut Vec<Stmt>,
    ) -> R<Binding> {
        let vty = CType {
            is_ref: false,
            ..pty.clone()
        };
        if vty.ptr > 0 {
            return self.err(
                prm.pos,
                format!(
                    "reference-to-pointer parameter `{}` of `{name}` is not supported by warpcert",
                    prm.name
                ),
            );
        }
        let want_ty = self.scalar_ty(&vty, prm.pos)?;
        // a reference bound to a local variable (or a `__shared__` scalar) of the
        // same type aliases it: the inlined body reads and writes that variable
        if let ExprKind::Ident(n) = &a.kind {
            match self.lookup(n).cloned() {
                Some(Binding::Local(core, t)) if t == want_ty => {
                    return Ok(Binding::Local(core, t));
                }
                Some(b @ Binding::SharedScalar { elem, .. }) if elem == want_ty => {
                    return Ok(b);
                }
                _ => {}
            }
        }
        let is_mem = matches!(
            &a.kind,
            ExprKind::Index(..) | ExprKind::Unary(UnaryOp::Deref, _)
        );
        if is_mem {
            // a reference to an array cell: every use reads or writes that cell (§7)
            let (core, idx, elem) = self.access(a, out)?;
            if elem == want_ty {
                let idx = match idx {
                    Operand::Var(_) => {
                        let t = self.temp(Ty::Int);
                        out.push(Stmt::Assign(t.clone(), Expr::Opd(idx), loc(a.pos)));
                        var(&t)
                    }
                    o => o,
                };
                return Ok(Binding::SharedScalar { core, elem, idx });
            }
        }
        if assigned || is_mem {
            return self.err(
                    a.pos,
                    format!(
                        "reference parameter `{}` of `{name}` must be bound to a local variable of type `{}` (references to array elements, or assigned references to other expressions, are not supported by warpcert)",
                        prm.name,
                        want_ty.keyword()
                    ),
                );
        }
        // a reference the body never assigns, bound to a value: a copy is equivalent
        let (x, t) = self.rv(a, out)?;
        let x = self.convert_expr(x, t, want_ty, a.pos, out);
        let core = self.new_local(&prm.name, want_ty);
        out.push(Stmt::Assign(core.clone(), x, loc(a.pos)));
        Ok(Binding::Local(core, want_ty))
    }
}

/// GPUVerify specification annotations (no run-time effect; `spec/lowering.md` §0): dropped
/// by both front ends.
pub(crate) fn is_annotation(name: &str) -> bool {
    matches!(
        name,
        "__requires"
            | "__ensures"
            | "__invariant"
            | "__global_invariant"
            | "__candidate_invariant"
            | "__global_requires"
            | "__global_ensures"
            | "__function_wide_invariant"
            | "__function_wide_candidate_invariant"
            | "__assert"
            | "__global_assert"
            | "__assume"
            | "__barrier_invariant"
            | "__barrier_invariant_binary"
    )
}

pub(super) fn unsupported_call(name: &str) -> Option<String> {
    let what = if name.starts_with("atomic") {
        return Some(format!("atomic operation `{name}` cannot be modelled in miniCUDA (warpcert models atomicAdd, atomicSub, atomicMin, atomicMax, atomicAnd, atomicOr, atomicXor, atomicExch, atomicInc, atomicDec and atomicCAS, spec/lowering.md §6)"));
    } else if matches!(name, "__match_any_sync" | "__match_all_sync") {
        "warp-level primitive"
    } else if matches!(
        name,
        "printf" | "assert" | "malloc" | "free" | "memcpy" | "memset"
    ) {
        "library call"
    } else if name.starts_with("__threadfence") {
        "memory fence"
    } else if name.starts_with("__syncthreads_") {
        "barrier with reduction"
    } else if name.starts_with("tex") || name.starts_with("surf") {
        "texture/surface access"
    } else {
        return None;
    };
    Some(format!(
        "{what} `{name}` cannot be modelled in miniCUDA (not supported by warpcert)"
    ))
}

/// A short name of the C construct `e`, for messages (e.g. "conditional `?:`").
pub(super) fn construct_name(e: &ast::Expr) -> String {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) => "a number literal `…`".to_string(),
        ExprKind::Str(_) => "a string literal `\"…\"`".to_string(),
        ExprKind::Ident(n) => format!("the variable `{n}`"),
        ExprKind::Member(_, f) => format!("member access `.{f}`"),
        ExprKind::Arrow(_, f) => format!("member access `->{f}`"),
        ExprKind::Index(..) => "an array element `a[i]`".to_string(),
        ExprKind::Call(..) | ExprKind::Inst(..) | ExprKind::Opaque(..) => {
            "a call `f(…)`".to_string()
        }
        ExprKind::Unary(..) | ExprKind::IncDec { .. } => "a unary operator `op e`".to_string(),
        ExprKind::Binary(..) => "a binary operator `a op b`".to_string(),
        ExprKind::Assign(..) => "an assignment `a = b`".to_string(),
        ExprKind::Cond(..) => "a conditional `c ? a : b`".to_string(),
        ExprKind::Cast(..) => "a cast `(T) e`".to_string(),
        ExprKind::Sizeof(_) | ExprKind::SizeofType(_) => "`sizeof`".to_string(),
    }
}

/// `t` with template type parameters replaced according to `m` (pointer depth and
/// reference-ness of `t` are kept and added to those of the argument).
pub(super) fn subst_with(m: &HashMap<String, CType>, t: &CType) -> CType {
    if let BaseTy::Named(n) = &t.base {
        if let Some(a) = m.get(n) {
            return CType {
                base: a.base.clone(),
                unsigned: a.unsigned,
                ptr: t.ptr + a.ptr,
                is_ref: t.is_ref || a.is_ref,
            };
        }
    }
    t.clone()
}

/// A scalar C type from its spelling in a `--kernel NAME<T>` argument.
pub(super) fn type_from_name(s: &str) -> Option<CType> {
    let words: Vec<&str> = s.split_whitespace().collect();
    let unsigned =
        words.contains(&"unsigned") || matches!(s, "uint" | "uchar" | "ushort" | "size_t");
    let w: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| *w != "unsigned" && *w != "signed" && *w != "const")
        .collect();
    let base = match w.as_slice() {
        [] if unsigned => BaseTy::Int,
        ["float"] => BaseTy::Float,
        ["double"] => BaseTy::Double,
        ["int"] | ["uint"] => BaseTy::Int,
        ["bool"] => BaseTy::Bool,
        ["char"] | ["uchar"] => BaseTy::Char,
        ["short"] | ["ushort"] => BaseTy::Short,
        ["long"] | ["long", "long"] | ["size_t"] | ["long", "int"] => BaseTy::Long,
        _ => return None,
    };
    Some(CType {
        base,
        unsigned,
        ptr: 0,
        is_ref: false,
    })
}

/// The substitution of the template parameters of `f` by `targs` (explicit arguments, in
/// order). Errors: non-type parameters, more arguments than type parameters, or type
/// parameters left without an argument.
pub(super) fn instantiate(
    sm: &SourceMap,
    f: &ast::Function,
    targs: &[CType],
    at: Pos,
) -> R<HashMap<String, CType>> {
    if let Some(tp) = f.tparams.iter().find(|t| !t.is_type) {
        return Err(sm.error(
            at,
            format!(
                "non-type template parameter `{}` of `{}` cannot be instantiated by warpcert (only type parameters)",
                tp.name, f.name
            ),
        ));
    }
    if targs.len() > f.tparams.len() {
        return Err(sm.error(
            at,
            format!(
                "`{}` has {} template parameter(s), {} argument(s) given",
                f.name,
                f.tparams.len(),
                targs.len()
            ),
        ));
    }
    let mut m = HashMap::new();
    for (tp, a) in f.tparams.iter().zip(targs) {
        m.insert(tp.name.clone(), a.clone());
    }
    Ok(m)
}

pub(super) fn contains_return(s: &ast::Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::If(_, a, b) => {
            contains_return(a) || b.as_ref().map(|b| contains_return(b)).unwrap_or(false)
        }
        StmtKind::Block(v) => v.iter().any(contains_return),
        StmtKind::While(_, b) | StmtKind::DoWhile(b, _) | StmtKind::For(_, _, _, b) => {
            contains_return(b)
        }
        _ => false,
    }
}
