//! Lowering of the C/CUDA AST to the miniCUDA core (`crate::core::Program`).
//!
//! The scheme, construct by construct, is normative in `spec/lowering.md` (the `steps`
//! metric counts core steps, so the shape of the output matters). In short: three-address
//! form with fresh temporaries `t0, t1, …`; short circuit and `?:` become `if`s on temps;
//! `for`/`while`/`do` become `while` with the guard kept as `o1 op o2` when possible;
//! `break`/`continue`/non-final `return` set a per-function flag `jmp_k` (1 continue, 2 break,
//! 3 return) that guards the rest of the body (inside loops the rest is nested in the branch
//! that does not jump; a `while (1)` left by jumps is driven by the flag); device functions are inlined (template
//! functions instantiated, reference parameters bound to the caller's locals); atomics
//! become a read and a write of the cell (their value, when used, is the read's); a `__device__` function can be
//! the entry in place of a kernel.

/// The name of a grid-wide barrier (`grid.sync()`, converted by `clang/grid.rs`) in the
/// AST: lowered to the core `sync` with a warning (`spec/lowering.md` §9.6). Not a CUDA
/// name; a user function of this name would be inlined instead.
pub(crate) const GRID_SYNC: &str = "__warpcert_grid_sync";

mod access;
mod call;
mod decl;
mod entry;
mod expr;
mod intrinsics;
mod pointer;
mod stmt;
mod warp;

pub(crate) use call::is_annotation;
pub use entry::lower_kernel;

use crate::core::{ArrayDecl, BinOp, Const, Expr, Hardware, Launch, Loc, Operand, Stmt, Ty};
use crate::frontend::ast::{self, BaseTy, CType};
use crate::frontend::diag::{Diagnostic, Pos, SourceMap, Warning};
use crate::frontend::lower::call::subst_with;
use std::collections::{BTreeSet, HashMap, HashSet};

type R<T> = Result<T, Diagnostic>;

#[derive(Clone, Debug)]
enum Binding {
    /// A thread-local scalar.
    Local(String, Ty),
    /// A read-only scalar: kernel parameter (`Param`) or its value (`Const`).
    Value(Operand, Ty),
    /// A (shared) array declared with dimensions; `dims` are the sizes (None = unknown).
    Array {
        core: String,
        dims: Vec<Option<u64>>,
        elem: Ty,
    },
    /// A scalar `__shared__ T x;` or `__device__ T x;`: the one-element (shared or global)
    /// array `core`, accessed at index `idx` = 0; or a reference parameter of an inlined
    /// function bound to the array cell `core[idx]` (§7; `idx` a constant or a copy).
    SharedScalar {
        core: String,
        elem: Ty,
        idx: Operand,
    },
    /// A pointer into array `array` at element offset `offset`.
    Ptr {
        array: String,
        offset: Operand,
        elem: Ty,
    },
    /// A pointer into array `array` whose element offset is the local `off` (a pointer
    /// that moves: `p += s`, `p++`, `p = q` under control flow; `pointer.rs`).
    VarPtr {
        array: String,
        off: String,
        elem: Ty,
    },
    /// A pointer local declared without initializer (`T *q;`), not yet assigned; `off` is
    /// its offset local when it moves.
    UnsetPtr { elem: Ty, off: Option<String> },
}

#[derive(Default)]
struct FnCtx {
    jmp: Option<String>,
    ret: Option<(String, Ty)>,
    loop_depth: usize,
    /// Pointers of the function whose offset lives in a local (`pointer::moved_pointers`).
    moved: HashSet<String>,
}

struct Lw<'a> {
    unit: &'a ast::Unit,
    sm: &'a SourceMap,
    reserved: &'a BTreeSet<String>,
    launch: Launch,
    hw: Hardware,
    used: HashSet<String>,
    /// Per `fresh` prefix, the first index not yet tried (names are never freed, so `fresh`
    /// resumes there: linear, not quadratic, in the number of temporaries).
    next_fresh: HashMap<String, usize>,
    locals: Vec<(String, Ty)>,
    arrays: Vec<ArrayDecl>,
    shared_by_pos: HashMap<Pos, String>,
    builtins: BTreeSet<(u8, usize)>,
    warnings: Vec<Warning>,
    globals: HashMap<String, Binding>,
    /// Core names of the arrays of `__constant__` variables (read-only, spec/lowering.md §5).
    constants: BTreeSet<String>,
    scopes: Vec<HashMap<String, Binding>>,
    call_stack: Vec<String>,
    f: FnCtx,
    /// Template type parameters of the function being lowered → their instantiation.
    tsubst: HashMap<String, CType>,
    /// Positions of atomics already warned about (inlining repeats them).
    warned_atomics: HashSet<Pos>,
}

fn loc(p: Pos) -> Loc {
    Loc {
        line: p.line,
        col: p.col,
    }
}

fn int(n: i64) -> Operand {
    Operand::Const(Const::Int(n))
}

fn var(x: &str) -> Operand {
    Operand::Var(x.to_string())
}

fn seq(v: Vec<Stmt>) -> Stmt {
    Stmt::seq(v)
}

impl Lw<'_> {
    pub(super) fn err<T>(&self, p: Pos, msg: impl Into<String>) -> R<T> {
        Err(self.sm.error(p, msg))
    }

    /// A located error for a write to the array of a `__constant__` variable: constant
    /// memory is read-only in device code (spec/lowering.md §5).
    pub(super) fn writable(&self, arr: &str, p: Pos) -> R<()> {
        if self.constants.contains(arr) {
            return self.err(
                p,
                format!("write to `__constant__` variable `{arr}`: constant memory is read-only in device code"),
            );
        }
        Ok(())
    }

    pub(super) fn is_shared_scalar(&self, n: &str) -> bool {
        matches!(self.lookup(n), Some(Binding::SharedScalar { .. }))
    }

    pub(super) fn unknown_ident(&self, n: &str, p: Pos) -> Diagnostic {
        match self.unit.unsupported_globals.iter().find(|(g, _)| g == n) {
            Some((_, q)) => self.sm.error(
                p,
                format!("file-scope `{q}` variable `{n}` cannot be modelled in miniCUDA (only kernel pointer parameters, `__device__` variables and `__shared__` arrays; constant and pointer variables are not modelled)"),
            ),
            None => self.sm.error(
                p,
                format!("unknown identifier `{n}` (not declared here; an undefined macro from a missing header?)"),
            ),
        }
    }

    /// `t` with the current template parameters replaced by their instantiation.
    pub(super) fn subst(&self, t: &CType) -> CType {
        subst_with(&self.tsubst, t)
    }

    pub(super) fn scalar_ty(&self, t: &CType, p: Pos) -> R<Ty> {
        let t = &self.subst(t);
        if t.is_ref {
            return self.err(
                p,
                format!(
                    "C++ reference type `{}` is not supported by warpcert",
                    t.describe()
                ),
            );
        }
        if t.ptr > 0 {
            return self.err(
                p,
                format!("pointer type `{}` used as a scalar", t.describe()),
            );
        }
        Ok(match &t.base {
            BaseTy::Bool => Ty::Bool,
            BaseTy::Char | BaseTy::Short | BaseTy::Int | BaseTy::Long => Ty::Int,
            BaseTy::Float | BaseTy::Double => Ty::Float,
            BaseTy::Void => return self.err(p, "`void` value cannot be used"),
            BaseTy::Named(n) => {
                let vector = [
                    "char",
                    "uchar",
                    "short",
                    "ushort",
                    "int",
                    "uint",
                    "long",
                    "ulong",
                    "longlong",
                    "ulonglong",
                    "float",
                    "double",
                ]
                .iter()
                .any(|b| {
                    n.strip_prefix(b)
                        .map(|d| matches!(d, "1" | "2" | "3" | "4"))
                        .unwrap_or(false)
                }) || n == "dim3";
                return self.err(
                    p,
                    if vector {
                        format!("vector type `{n}` is not supported by warpcert (its multi-word accesses and members `.x`, `.y`, … have no miniCUDA counterpart)")
                    } else {
                        format!("type `{n}` (a struct, class or unknown type) is not supported by warpcert (structs cannot be modelled)")
                    },
                );
            }
        })
    }

    /// `sizeof(T)` for a template parameter `T`, in bytes, after instantiation.
    pub(super) fn sizeof_type(&self, t: &CType, p: Pos) -> R<u32> {
        let t = self.subst(t);
        let n = if t.ptr > 0 { Some(8) } else { t.base_bytes() };
        match n {
            Some(n) => Ok(n),
            None => self.err(p, format!("`sizeof({})` is not known", t.describe())),
        }
    }

    pub(super) fn elem_of(&self, t: &CType, p: Pos) -> R<(Ty, u32)> {
        let base = CType::base(self.subst(t).base);
        let ty = self.scalar_ty(&base, p)?;
        let bytes = base.base_bytes().unwrap_or(4);
        Ok((ty, bytes))
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.globals.get(name))
    }

    pub(super) fn unique(&mut self, base: &str) -> String {
        let mut cand = base.to_string();
        let mut k = 1;
        while self.used.contains(&cand) {
            cand = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(cand.clone());
        cand
    }

    pub(super) fn new_local(&mut self, name: &str, ty: Ty) -> String {
        let core = self.unique(name);
        self.locals.push((core.clone(), ty));
        core
    }

    /// A fresh lowering name `prefix<n>` that is no identifier of the source.
    pub(super) fn fresh(&mut self, prefix: &str, ty: Ty) -> String {
        let mut k = self.next_fresh.get(prefix).copied().unwrap_or(0);
        loop {
            let cand = format!("{prefix}{k}");
            k += 1;
            if !self.used.contains(&cand) && !self.reserved.contains(&cand) {
                self.next_fresh.insert(prefix.to_string(), k);
                self.used.insert(cand.clone());
                self.locals.push((cand.clone(), ty));
                return cand;
            }
        }
    }

    pub(super) fn temp(&mut self, ty: Ty) -> String {
        self.fresh("t", ty)
    }

    pub(super) fn bind(&mut self, e: Expr, ty: Ty, p: Pos, out: &mut Vec<Stmt>) -> Operand {
        if let Expr::Opd(o) = e {
            return o;
        }
        let t = self.temp(ty);
        out.push(Stmt::Assign(t.clone(), e, loc(p)));
        var(&t)
    }

    pub(super) fn jmp(&mut self) -> String {
        if let Some(j) = &self.f.jmp {
            return j.clone();
        }
        let j = self.fresh("jmp", Ty::Int);
        self.f.jmp = Some(j.clone());
        j
    }

    pub(super) fn not_jumped(&mut self) -> Expr {
        let j = self.jmp();
        Expr::Bin(BinOp::Eq, var(&j), int(0))
    }
}
