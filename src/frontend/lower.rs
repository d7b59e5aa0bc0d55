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
//! used as statements become a read and a write of the cell; a `__device__` function can be
//! the entry in place of a kernel.

use super::ast::{self, BaseTy, BinaryOp, CType, ExprKind, FnKind, StmtKind, UnaryOp};
use super::diag::{Diagnostic, Pos, SourceMap, Warning};
use super::Parsed;
use crate::core::{
    ArrayDecl, BinOp, Const, Dim, Expr, Hardware, Launch, Loc, Operand, ParamDecl, Program, Space,
    Stmt, Ty, UnOp,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
    /// array `core`, accessed at index 0.
    SharedScalar { core: String, elem: Ty },
    /// A pointer into array `array` at element offset `offset`.
    Ptr {
        array: String,
        offset: Operand,
        elem: Ty,
    },
    /// A pointer local declared without initializer (`T *q;`), not yet assigned.
    UnsetPtr { elem: Ty },
}

#[derive(Default)]
struct FnCtx {
    jmp: Option<String>,
    ret: Option<(String, Ty)>,
    loop_depth: usize,
}

struct Lw<'a> {
    unit: &'a ast::Unit,
    sm: &'a SourceMap,
    reserved: &'a BTreeSet<String>,
    launch: Launch,
    hw: Hardware,
    used: HashSet<String>,
    locals: Vec<(String, Ty)>,
    arrays: Vec<ArrayDecl>,
    shared_by_pos: HashMap<Pos, String>,
    builtins: BTreeSet<(u8, usize)>,
    warnings: Vec<Warning>,
    globals: HashMap<String, Binding>,
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

/// Lowers `kernel` of `parsed`; see [`super::lower`].
pub fn lower_kernel(
    parsed: &Parsed,
    kernel: Option<&str>,
    launch: &Launch,
    hw: &Hardware,
    pv: &BTreeMap<String, i64>,
) -> R<(Program, Vec<Warning>)> {
    let sm = &parsed.sources;
    let first = Pos {
        file: 0,
        line: 1,
        col: 1,
    };
    let kernels: Vec<&ast::Function> = parsed
        .unit
        .functions
        .iter()
        .filter(|f| f.kind == FnKind::Global)
        .collect();
    let devices: Vec<&ast::Function> = parsed
        .unit
        .functions
        .iter()
        .filter(|f| f.kind == FnKind::Device && f.body.is_ok())
        .collect();
    let device_list = || -> String {
        let names: Vec<String> = devices
            .iter()
            .map(|f| {
                if f.template {
                    format!("{}<…>", f.name)
                } else {
                    f.name.clone()
                }
            })
            .collect();
        names.join(", ")
    };
    // `name` or `name<T1, …>` (explicit template arguments of a template entry)
    let (kname, targs_text) = match kernel {
        Some(k) => match k.split_once('<') {
            Some((n, rest)) => (Some(n.trim()), Some(rest.trim_end().trim_end_matches('>'))),
            None => (Some(k.trim()), None),
        },
        None => (None, None),
    };
    let kf = match kname {
        Some(k) => match kernels.iter().find(|f| f.name == k) {
            Some(f) => *f,
            None => match devices.iter().find(|f| f.name == k) {
                Some(f) => *f,
                None => {
                    let names: Vec<&str> = kernels.iter().map(|f| f.name.as_str()).collect();
                    return Err(sm.error(
                        first,
                        format!(
                            "no `__global__` kernel or `__device__` function named `{k}`; kernels in this file: {}; device functions: {}",
                            if names.is_empty() { "none".to_string() } else { names.join(", ") },
                            device_list()
                        ),
                    ));
                }
            },
        },
        None => match kernels.as_slice() {
            [one] => *one,
            [] if devices.is_empty() => {
                return Err(sm.error(first, "no `__global__` kernel found in this file"))
            }
            [] => {
                return Err(sm.error(
                    first,
                    format!(
                        "no `__global__` kernel found in this file; a `__device__` function can be analysed as the entry with --kernel NAME (templates as NAME<float>): {}",
                        device_list()
                    ),
                ))
            }
            many => {
                let names: Vec<&str> = many.iter().map(|f| f.name.as_str()).collect();
                return Err(sm.error(
                    first,
                    format!(
                        "several `__global__` kernels ({}); choose one with --kernel",
                        names.join(", ")
                    ),
                ));
            }
        },
    };
    let body = match &kf.body {
        Ok(b) => b,
        Err(d) => return Err(d.clone()),
    };
    let mut entry_warnings = Vec::new();
    let display_name = match targs_text {
        Some(t) => {
            let parts: Vec<&str> = t.split(',').map(|x| x.trim()).collect();
            format!("{}<{}>", kf.name, parts.join(", "))
        }
        None => kf.name.clone(),
    };
    let tsubst = if kf.template {
        let Some(text) = targs_text else {
            return Err(sm.error(
                kf.pos,
                format!(
                    "`{}` is a template: give its type arguments, e.g. --kernel '{}<float>'",
                    kf.name, kf.name
                ),
            ));
        };
        let mut targs = Vec::new();
        for part in text.split(',') {
            match type_from_name(part.trim()) {
                Some(t) => targs.push(t),
                None => {
                    return Err(sm.error(
                        kf.pos,
                        format!(
                            "template argument `{}` of `{}`: only scalar types (float, double, int, unsigned, bool, char, short, long) are supported",
                            part.trim(),
                            kf.name
                        ),
                    ))
                }
            }
        }
        let m = instantiate(sm, kf, &targs, kf.pos)?;
        if let Some(tp) = kf.tparams.iter().find(|t| !m.contains_key(&t.name)) {
            return Err(sm.error(
                kf.pos,
                format!(
                    "template parameter `{}` of `{}` has no argument in `{display_name}`",
                    tp.name, kf.name
                ),
            ));
        }
        m
    } else {
        if targs_text.is_some() {
            return Err(sm.error(
                kf.pos,
                format!("`{}` is not a template; drop the `<…>`", kf.name),
            ));
        }
        HashMap::new()
    };
    if kf.kind == FnKind::Device {
        entry_warnings.push(sm.warning(
            kf.pos,
            format!(
                "entry `{display_name}` is a `__device__` function, analysed as if it were a kernel: its scalar parameters become kernel parameters, i.e. the same value in every thread of a warp (bounds hold for calls with warp-uniform arguments); its result is discarded"
            ),
        ));
    }
    let mut lw = Lw {
        unit: &parsed.unit,
        sm,
        reserved: &parsed.identifiers,
        launch: *launch,
        hw: *hw,
        used: HashSet::new(),
        locals: Vec::new(),
        arrays: Vec::new(),
        shared_by_pos: HashMap::new(),
        builtins: BTreeSet::new(),
        warnings: Vec::new(),
        globals: HashMap::new(),
        scopes: vec![HashMap::new()],
        call_stack: vec![kf.name.clone()],
        f: FnCtx::default(),
        tsubst,
        warned_atomics: HashSet::new(),
    };
    lw.warnings.extend(entry_warnings);
    if let (Some(rt), FnKind::Global) = (&kf.ret, kf.kind) {
        if rt.base != BaseTy::Void || rt.ptr > 0 {
            lw.warnings.push(sm.warning(
                kf.pos,
                format!(
                    "kernel `{}` is declared to return `{}` (RaCUDA dialect, not valid CUDA); the value is ignored",
                    kf.name,
                    rt.describe()
                ),
            ));
        }
    }
    for name in [
        "blockIdx.x",
        "blockIdx.y",
        "blockIdx.z",
        "gridDim.x",
        "gridDim.y",
        "gridDim.z",
    ] {
        lw.used.insert(name.to_string());
    }
    // parameters
    let assigned = assigned_names(body);
    let mut params = Vec::new();
    let mut entry = Vec::new();
    for p in &kf.params {
        if p.name.is_empty() {
            continue;
        }
        lw.used.insert(p.name.clone());
    }
    for p in &kf.params {
        if p.name.is_empty() {
            continue;
        }
        if p.ty.is_ref {
            return Err(sm.error(
                p.pos,
                format!(
                    "reference parameter `{}` of entry `{}` is not supported by warpcert (references are supported as parameters of inlined `__device__` calls, bound to local variables)",
                    p.name, kf.name
                ),
            ));
        }
        if p.ty.ptr > 0 {
            if p.ty.ptr > 1 {
                return Err(sm.error(
                    p.pos,
                    format!(
                        "pointer-to-pointer parameter `{}` cannot be modelled as an array",
                        p.name
                    ),
                ));
            }
            let (elem, bytes) = lw.elem_of(&p.ty, p.pos)?;
            lw.arrays.push(ArrayDecl {
                name: p.name.clone(),
                space: Space::Global,
                elem,
                elem_bytes: bytes,
                len: None,
            });
            lw.scopes[0].insert(
                p.name.clone(),
                Binding::Ptr {
                    array: p.name.clone(),
                    offset: int(0),
                    elem,
                },
            );
            continue;
        }
        let ty = lw.scalar_ty(&p.ty, p.pos)?;
        let value = match pv.get(&p.name) {
            Some(v) => Operand::Const(match ty {
                Ty::Float => Const::Float(*v as f64),
                Ty::Bool => Const::Bool(*v != 0),
                Ty::Int => Const::Int(*v),
            }),
            None => {
                params.push(ParamDecl {
                    name: p.name.clone(),
                    ty,
                });
                Operand::Param(p.name.clone())
            }
        };
        if assigned.contains(&p.name) {
            let core = lw.new_local(&p.name, ty);
            entry.push(Stmt::Assign(core.clone(), Expr::Opd(value), loc(p.pos)));
            lw.scopes[0].insert(p.name.clone(), Binding::Local(core, ty));
        } else {
            lw.scopes[0].insert(p.name.clone(), Binding::Value(value, ty));
        }
    }
    for k in pv.keys() {
        if !kf.params.iter().any(|p| &p.name == k && p.ty.ptr == 0) {
            lw.warnings.push(sm.warning(
                kf.pos,
                format!("value given for `{k}`, which is not a scalar parameter of kernel `{}`; ignored", kf.name),
            ));
        }
    }
    // file-scope `__device__` variables, then file-scope shared arrays
    for d in &parsed.unit.device_vars {
        let b = lw.device_var_decl(d)?;
        lw.globals.insert(d.name.clone(), b);
    }
    for d in &parsed.unit.shared {
        let b = lw.shared_decl(d)?;
        lw.globals.insert(d.name.clone(), b);
    }
    let mut out = entry;
    lw.block(body, &mut out, true)?;
    for (kind, d) in lw.builtins.iter() {
        let name = format!(
            "{}.{}",
            if *kind == 0 { "blockIdx" } else { "gridDim" },
            ["x", "y", "z"][*d]
        );
        params.push(ParamDecl { name, ty: Ty::Int });
    }
    let program = Program {
        name: display_name,
        params,
        arrays: lw.arrays,
        locals: lw.locals,
        body: seq(out),
    };
    let mut warnings = parsed.warnings.clone();
    warnings.extend(lw.warnings);
    Ok((program, warnings))
}

/// Names assigned (`=`, `op=`, `++`, `--`) anywhere in `stmts` (identifiers only).
fn assigned_names(stmts: &[ast::Stmt]) -> HashSet<String> {
    fn e(x: &ast::Expr, out: &mut HashSet<String>) {
        match &x.kind {
            ExprKind::Assign(_, l, r) => {
                if let ExprKind::Ident(n) = &l.kind {
                    out.insert(n.clone());
                }
                e(l, out);
                e(r, out);
            }
            ExprKind::IncDec { e: l, .. } => {
                if let ExprKind::Ident(n) = &l.kind {
                    out.insert(n.clone());
                }
                e(l, out);
            }
            ExprKind::Member(a, _)
            | ExprKind::Arrow(a, _)
            | ExprKind::Unary(_, a)
            | ExprKind::Cast(_, a) => e(a, out),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                e(a, out);
                e(b, out);
            }
            ExprKind::Call(f, args) => {
                e(f, out);
                args.iter().for_each(|a| e(a, out));
            }
            ExprKind::Opaque(_, args, _) => args.iter().for_each(|a| e(a, out)),
            ExprKind::Cond(a, b, c) => {
                e(a, out);
                e(b, out);
                e(c, out);
            }
            _ => {}
        }
    }
    fn s(x: &ast::Stmt, out: &mut HashSet<String>) {
        match &x.kind {
            StmtKind::Decl(ds) => ds
                .iter()
                .filter_map(|d| d.init.as_ref())
                .for_each(|i| e(i, out)),
            StmtKind::Expr(x) => e(x, out),
            StmtKind::If(c, a, b) => {
                e(c, out);
                s(a, out);
                if let Some(b) = b {
                    s(b, out);
                }
            }
            StmtKind::While(c, b) | StmtKind::DoWhile(b, c) => {
                e(c, out);
                s(b, out);
            }
            StmtKind::For(i, c, st, b) => {
                if let Some(i) = i {
                    s(i, out);
                }
                if let Some(c) = c {
                    e(c, out);
                }
                if let Some(st) = st {
                    e(st, out);
                }
                s(b, out);
            }
            StmtKind::Block(v) => v.iter().for_each(|x| s(x, out)),
            StmtKind::Return(Some(x)) => e(x, out),
            _ => {}
        }
    }
    let mut out = HashSet::new();
    stmts.iter().for_each(|x| s(x, &mut out));
    out
}

/// Jumps of a statement that leave it: (break, continue) of the enclosing loop, return.
fn jumps(s: &ast::Stmt) -> (bool, bool, bool) {
    match &s.kind {
        StmtKind::Break => (true, false, false),
        StmtKind::Continue => (false, true, false),
        StmtKind::Return(_) => (false, false, true),
        StmtKind::If(_, a, b) => {
            let x = jumps(a);
            let y = b.as_ref().map(|b| jumps(b)).unwrap_or_default();
            (x.0 || y.0, x.1 || y.1, x.2 || y.2)
        }
        StmtKind::Block(v) => v.iter().map(jumps).fold((false, false, false), |a, b| {
            (a.0 || b.0, a.1 || b.1, a.2 || b.2)
        }),
        StmtKind::While(_, b) | StmtKind::DoWhile(b, _) | StmtKind::For(_, _, _, b) => {
            (false, false, jumps(b).2)
        }
        _ => (false, false, false),
    }
}

fn may_jump(s: &ast::Stmt) -> bool {
    let (a, b, c) = jumps(s);
    a || b || c
}

/// "Definitely jumps" (spec/lowering.md §6): every path through `s` executes a `return`, or
/// a `break`/`continue` of the innermost enclosing loop (jumps inside nested loops of `s` do
/// not count).
fn definitely_jumps(s: &ast::Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue => true,
        StmtKind::Block(v) => v.iter().any(definitely_jumps),
        StmtKind::If(_, a, Some(b)) => definitely_jumps(a) && definitely_jumps(b),
        _ => false,
    }
}

/// `if (a || b) J [else E]` whose then-branch `J` definitely jumps, as
/// `if (a) J else if (b) J [else E]` (spec/lowering.md §6: inside loops, so that both
/// comparisons reach the program as conditions); `None` for any other statement.
fn split_or_jump(s: &ast::Stmt) -> Option<ast::Stmt> {
    let StmtKind::If(c, t, e) = &s.kind else {
        return None;
    };
    let ExprKind::Binary(BinaryOp::LOr, a, b) = &c.kind else {
        return None;
    };
    if !definitely_jumps(t) {
        return None;
    }
    let inner = ast::Stmt {
        kind: StmtKind::If((**b).clone(), t.clone(), e.clone()),
        pos: b.pos,
    };
    Some(ast::Stmt {
        kind: StmtKind::If((**a).clone(), t.clone(), Some(Box::new(inner))),
        pos: s.pos,
    })
}

/// "Definitely returns": every path through `s` executes a `return`.
fn definitely_returns(s: &ast::Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(v) => v.iter().any(definitely_returns),
        StmtKind::If(_, a, Some(b)) => definitely_returns(a) && definitely_returns(b),
        _ => false,
    }
}

fn flip(op: BinOp) -> Option<BinOp> {
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

fn fold(op: BinOp, a: i64, b: i64) -> Option<i64> {
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

fn bin_of(op: BinaryOp) -> Option<BinOp> {
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

fn is_int_only(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Rem | BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
    )
}

fn dim_of(f: &str) -> Option<usize> {
    match f {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

/// GPUVerify specification annotations (no run-time effect).
fn is_annotation(name: &str) -> bool {
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

/// The read-modify-write operator of a modelled atomic (`None` for `atomicExch`), also
/// for the `_block`/`_system` scoped variants; `None` for other names.
fn atomic_op(name: &str) -> Option<Option<BinOp>> {
    let base = name
        .strip_suffix("_block")
        .or_else(|| name.strip_suffix("_system"))
        .unwrap_or(name);
    Some(match base {
        "atomicAdd" => Some(BinOp::Add),
        "atomicSub" => Some(BinOp::Sub),
        "atomicMin" => Some(BinOp::Min),
        "atomicMax" => Some(BinOp::Max),
        "atomicAnd" => Some(BinOp::BitAnd),
        "atomicOr" => Some(BinOp::BitOr),
        "atomicXor" => Some(BinOp::BitXor),
        "atomicExch" => None,
        _ => return None,
    })
}

/// Whether `name` is one of the math/conversion/bit intrinsics handled by `Lw::intrinsic`.
fn is_intrinsic(name: &str) -> bool {
    let rounded = |stem: &str| {
        ["_rn", "_rz", "_ru", "_rd"]
            .iter()
            .any(|r| name == format!("__f{stem}{r}") || name == format!("__d{stem}{r}"))
    };
    ["add", "sub", "mul", "div"].iter().any(|s| rounded(s))
        || matches!(
            name,
            "__fdividef"
                | "fdividef"
                | "abs"
                | "labs"
                | "llabs"
                | "fabs"
                | "fabsf"
                | "fma"
                | "fmaf"
        )
        || ((name.starts_with("__fma") && name.len() <= 10)
            || name.starts_with("__float2")
            || name.starts_with("__double2")
            || name.starts_with("__int2")
            || name.starts_with("__uint2")
            || name.starts_with("__ll2"))
        || matches!(
            name,
            "sqrt"
                | "sqrtf"
                | "rsqrt"
                | "rsqrtf"
                | "cbrt"
                | "cbrtf"
                | "exp"
                | "expf"
                | "exp2"
                | "exp2f"
                | "exp10"
                | "exp10f"
                | "__expf"
                | "log"
                | "logf"
                | "log2"
                | "log2f"
                | "log10"
                | "log10f"
                | "__logf"
                | "__log2f"
                | "sin"
                | "sinf"
                | "cos"
                | "cosf"
                | "tan"
                | "tanf"
                | "__sinf"
                | "__cosf"
                | "__tanf"
                | "sincosf"
                | "tanh"
                | "tanhf"
                | "atan"
                | "atanf"
                | "atan2"
                | "atan2f"
                | "pow"
                | "powf"
                | "__powf"
                | "floor"
                | "floorf"
                | "ceil"
                | "ceilf"
                | "round"
                | "roundf"
                | "rint"
                | "rintf"
                | "trunc"
                | "truncf"
                | "fmod"
                | "fmodf"
                | "hypot"
                | "hypotf"
                | "__saturatef"
                | "erf"
                | "erff"
                | "__frcp_rn"
                | "__fsqrt_rn"
        )
        || matches!(
            name,
            "__popc"
                | "__popcll"
                | "__clz"
                | "__clzll"
                | "__ffs"
                | "__ffsll"
                | "__brev"
                | "__brevll"
                | "__byte_perm"
                | "__funnelshift_l"
                | "__funnelshift_r"
                | "__funnelshift_lc"
                | "__funnelshift_rc"
                | "__umulhi"
                | "__mulhi"
                | "__umul64hi"
                | "__mul64hi"
                | "__sad"
                | "__usad"
                | "__hadd"
                | "__rhadd"
                | "__uhadd"
                | "__urhadd"
        )
}

fn unsupported_call(name: &str) -> Option<String> {
    let what = if name.starts_with("atomic") {
        return Some(format!("atomic operation `{name}` cannot be modelled in miniCUDA (warpcert models atomicAdd, atomicSub, atomicMin, atomicMax, atomicAnd, atomicOr, atomicXor, atomicExch, atomicInc, atomicDec and atomicCAS used as statements)"));
    } else if name.starts_with("__shfl") {
        "warp shuffle"
    } else if matches!(
        name,
        "__ballot"
            | "__ballot_sync"
            | "__any"
            | "__all"
            | "__any_sync"
            | "__all_sync"
            | "__activemask"
            | "__syncwarp"
            | "__match_any_sync"
            | "__match_all_sync"
    ) {
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

impl Lw<'_> {
    fn err<T>(&self, p: Pos, msg: impl Into<String>) -> R<T> {
        Err(self.sm.error(p, msg))
    }

    fn is_shared_scalar(&self, n: &str) -> bool {
        matches!(self.lookup(n), Some(Binding::SharedScalar { .. }))
    }

    fn unknown_ident(&self, n: &str, p: Pos) -> Diagnostic {
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
    fn subst(&self, t: &CType) -> CType {
        subst_with(&self.tsubst, t)
    }

    fn scalar_ty(&self, t: &CType, p: Pos) -> R<Ty> {
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
    fn sizeof_type(&self, t: &CType, p: Pos) -> R<u32> {
        let t = self.subst(t);
        let n = if t.ptr > 0 { Some(8) } else { t.base_bytes() };
        match n {
            Some(n) => Ok(n),
            None => self.err(p, format!("`sizeof({})` is not known", t.describe())),
        }
    }

    fn elem_of(&self, t: &CType, p: Pos) -> R<(Ty, u32)> {
        let base = CType::base(self.subst(t).base);
        let ty = self.scalar_ty(&base, p)?;
        let bytes = base.base_bytes().unwrap_or(4);
        Ok((ty, bytes))
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.globals.get(name))
    }

    fn unique(&mut self, base: &str) -> String {
        let mut cand = base.to_string();
        let mut k = 1;
        while self.used.contains(&cand) {
            cand = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(cand.clone());
        cand
    }

    fn new_local(&mut self, name: &str, ty: Ty) -> String {
        let core = self.unique(name);
        self.locals.push((core.clone(), ty));
        core
    }

    /// A fresh lowering name `prefix<n>` that is no identifier of the source.
    fn fresh(&mut self, prefix: &str, ty: Ty) -> String {
        let mut k = 0usize;
        loop {
            let cand = format!("{prefix}{k}");
            if !self.used.contains(&cand) && !self.reserved.contains(&cand) {
                self.used.insert(cand.clone());
                self.locals.push((cand.clone(), ty));
                return cand;
            }
            k += 1;
        }
    }

    fn temp(&mut self, ty: Ty) -> String {
        self.fresh("t", ty)
    }

    fn bind(&mut self, e: Expr, ty: Ty, p: Pos, out: &mut Vec<Stmt>) -> Operand {
        if let Expr::Opd(o) = e {
            return o;
        }
        let t = self.temp(ty);
        out.push(Stmt::Assign(t.clone(), e, loc(p)));
        var(&t)
    }

    fn jmp(&mut self) -> String {
        if let Some(j) = &self.f.jmp {
            return j.clone();
        }
        let j = self.fresh("jmp", Ty::Int);
        self.f.jmp = Some(j.clone());
        j
    }

    fn not_jumped(&mut self) -> Expr {
        let j = self.jmp();
        Expr::Bin(BinOp::Eq, var(&j), int(0))
    }

    // ----- conversions -----

    fn conv_op(from: Ty, to: Ty) -> Option<UnOp> {
        match (from, to) {
            (a, b) if a == b => None,
            (_, Ty::Float) => Some(UnOp::ToFloat),
            (_, Ty::Int) => Some(UnOp::ToInt),
            (_, Ty::Bool) => Some(UnOp::ToBool),
        }
    }

    fn convert(&mut self, o: Operand, from: Ty, to: Ty, p: Pos, out: &mut Vec<Stmt>) -> Operand {
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

    fn convert_expr(&mut self, e: Expr, from: Ty, to: Ty, p: Pos, out: &mut Vec<Stmt>) -> Expr {
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

    // ----- expressions -----

    fn opd(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<(Operand, Ty)> {
        let (x, ty) = self.rv(e, out)?;
        Ok((self.bind(x, ty, e.pos, out), ty))
    }

    fn int_opd(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<Operand> {
        let (o, ty) = self.opd(e, out)?;
        Ok(self.convert(o, ty, Ty::Int, e.pos, out))
    }

    fn builtin(&mut self, e: &ast::Expr) -> Option<R<(Operand, Ty)>> {
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
    fn rv(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<(Expr, Ty)> {
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
                Some(Binding::SharedScalar { core, elem }) => Ok((Expr::Read(core, int(0)), elem)),
                Some(Binding::Array { .. }) | Some(Binding::Ptr { .. }) | Some(Binding::UnsetPtr { .. }) => self.err(
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

    /// `spec/lowering.md` §9.4: `⟦a1⟧ₒ; …; t1 ← o1 + o2; …` (arguments converted to the
    /// result's kind), then `t ← tofloat t1` / `toint t1` / `tobool t1`: one operation per
    /// extra argument plus one conversion, whose value stands in for the function's.
    fn opaque(
        &mut self,
        args: &[ast::Expr],
        rt: &CType,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<(Expr, Ty)> {
        let to = self.scalar_ty(rt, p)?;
        let kind = if to == Ty::Float { Ty::Float } else { Ty::Int };
        let mut acc: Option<Operand> = None;
        for a in args {
            let (o, t) = self.opd(a, out)?;
            let o = self.convert(o, t, kind, p, out);
            acc = Some(match acc {
                None => o,
                Some(prev) => self.bind(Expr::Bin(BinOp::Add, prev, o), kind, p, out),
            });
        }
        let o = acc.unwrap_or(Operand::Const(Const::Int(0)));
        let op = match to {
            Ty::Float => UnOp::ToFloat,
            Ty::Int => UnOp::ToInt,
            Ty::Bool => UnOp::ToBool,
        };
        Ok((Expr::Un(op, o), to))
    }

    fn common(a: Ty, b: Ty) -> Ty {
        if a == Ty::Float || b == Ty::Float {
            Ty::Float
        } else {
            Ty::Int
        }
    }

    fn binary(
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
    fn binary_opds(
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
    fn cond(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<Expr> {
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

    fn opd_ty(&self, o: &Operand) -> Ty {
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

    fn is_float_cmp(&self, x: &Operand, y: &Operand) -> bool {
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

    // ----- arrays and pointers -----

    fn is_ptr(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => matches!(
                self.lookup(n),
                Some(Binding::Ptr { .. })
                    | Some(Binding::Array { .. })
                    | Some(Binding::UnsetPtr { .. })
            ),
            ExprKind::Binary(BinaryOp::Add, a, b) => self.is_ptr(a) || self.is_ptr(b),
            ExprKind::Binary(BinaryOp::Sub, a, _) => self.is_ptr(a),
            ExprKind::Cast(t, a) => t.ptr > 0 && self.is_ptr(a),
            ExprKind::Unary(UnaryOp::AddrOf, _) => true,
            _ => false,
        }
    }

    fn add_off(
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
    fn ptr_expr(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<(String, Operand, Ty)> {
        let p = e.pos;
        match &e.kind {
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Ptr {
                    array,
                    offset,
                    elem,
                }) => Ok((array, offset, elem)),
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
    fn access(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<(String, Operand, Ty)> {
        let p = e.pos;
        if let ExprKind::Unary(UnaryOp::Deref, a) = &e.kind {
            return self.ptr_expr(a, out);
        }
        if let ExprKind::Ident(n) = &e.kind {
            if let Some(Binding::SharedScalar { core, elem }) = self.lookup(n).cloned() {
                return Ok((core, int(0), elem));
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

    // ----- assignments -----

    fn assign(
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
                    out.push(Stmt::Write(arr, idx, Expr::Opd(o.clone()), loc(p)));
                    Ok((o, et))
                } else {
                    out.push(Stmt::Write(arr, idx, value, loc(p)));
                    Ok((int(0), et))
                }
            }
            _ => self.err(l.pos, "left-hand side of the assignment cannot be modelled (expected a variable or an array element)"),
        }
    }

    fn incdec(
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
                    out.push(Stmt::Write(arr, idx, Expr::Opd(t2.clone()), loc(p)));
                    Ok((t2, et))
                } else {
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
    fn effect(&mut self, e: &ast::Expr, out: &mut Vec<Stmt>) -> R<()> {
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
            _ => self.rv(e, out).map(|_| ()),
        }
    }

    // ----- calls -----

    /// The type of argument `a` for template argument deduction, found without lowering it
    /// (literals, variables, parameters, casts, built-ins, array elements, operators on
    /// those); `None` when it cannot be told this way.
    fn arg_ty(&self, a: &ast::Expr) -> Option<Ty> {
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
                        Some(Binding::Ptr { elem, .. }) | Some(Binding::Array { elem, .. }) => {
                            Some(*elem)
                        }
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
    fn ptr_elem(&self, a: &ast::Expr) -> Option<Ty> {
        match &a.kind {
            ExprKind::Ident(n) => match self.lookup(n) {
                Some(Binding::Ptr { elem, .. }) | Some(Binding::Array { elem, .. }) => Some(*elem),
                _ => None,
            },
            ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, x, y) => {
                self.ptr_elem(x).or_else(|| self.ptr_elem(y))
            }
            ExprKind::Unary(UnaryOp::AddrOf, x) => self.arg_ty(x),
            _ => None,
        }
    }

    /// `atomicInc`, `atomicDec`, `atomicCAS` as statements on integer cells
    /// (`spec/lowering.md` §6, atomics): the conditional update is computed without a branch
    /// (`c` a comparison, `ci ← toint c`, the new value blended by `ci`), so it costs no
    /// divergence, like the hardware instruction.
    fn atomic_conditional(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        p: Pos,
        want: bool,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Operand, Ty)>> {
        let base = name.split('_').next().unwrap_or(name);
        let n = if base == "atomicCAS" { 3 } else { 2 };
        if args.len() != n {
            return self.err(
                p,
                format!("`{name}` expects {n} arguments, found {}", args.len()),
            );
        }
        if want {
            return self.err(
                p,
                format!(
                    "the value returned by `{name}` (the old value of the cell) cannot be modelled: in lock-step every lane of a warp that hits the same cell would read the same old value; warpcert supports `{name}` only as a statement"
                ),
            );
        }
        let (arr, off, elem) = self.ptr_expr(&args[0], out)?;
        if elem != Ty::Int {
            return self.err(p, format!("`{name}` on a non-integer array `{arr}`"));
        }
        let mut ops = Vec::new();
        for a in &args[1..] {
            ops.push(self.int_opd(a, out)?);
        }
        let tn = self.temp(Ty::Int);
        let t = var(&tn);
        out.push(Stmt::Assign(
            tn,
            Expr::Read(arr.clone(), off.clone()),
            loc(p),
        ));
        let l = loc(p);
        let b = |this: &mut Self, e: Expr, ty: Ty, out: &mut Vec<Stmt>| -> Operand {
            let x = this.temp(ty);
            out.push(Stmt::Assign(x.clone(), e, l));
            var(&x)
        };
        let value = match base {
            "atomicInc" => {
                // ((old >= v) ? 0 : old + 1)  =  (old + 1) * toint(old < v)
                let c = b(
                    self,
                    Expr::Bin(BinOp::Lt, t.clone(), ops[0].clone()),
                    Ty::Bool,
                    out,
                );
                let ci = b(self, Expr::Un(UnOp::ToInt, c), Ty::Int, out);
                let u = b(self, Expr::Bin(BinOp::Add, t.clone(), int(1)), Ty::Int, out);
                Expr::Bin(BinOp::Mul, u, ci)
            }
            "atomicDec" => {
                // ((old == 0 || old > v) ? v : old - 1)  =  d + (v - d) * toint(c), d = old - 1
                let c1 = b(self, Expr::Bin(BinOp::Eq, t.clone(), int(0)), Ty::Bool, out);
                let c2 = b(
                    self,
                    Expr::Bin(BinOp::Gt, t.clone(), ops[0].clone()),
                    Ty::Bool,
                    out,
                );
                let c = b(self, Expr::Bin(BinOp::Or, c1, c2), Ty::Bool, out);
                let ci = b(self, Expr::Un(UnOp::ToInt, c), Ty::Int, out);
                let d = b(self, Expr::Bin(BinOp::Sub, t.clone(), int(1)), Ty::Int, out);
                let e = b(
                    self,
                    Expr::Bin(BinOp::Sub, ops[0].clone(), d.clone()),
                    Ty::Int,
                    out,
                );
                let f = b(self, Expr::Bin(BinOp::Mul, e, ci), Ty::Int, out);
                Expr::Bin(BinOp::Add, d, f)
            }
            _ => {
                // ((old == cmp) ? v : old)  =  old + (v - old) * toint(old == cmp)
                let c = b(
                    self,
                    Expr::Bin(BinOp::Eq, t.clone(), ops[0].clone()),
                    Ty::Bool,
                    out,
                );
                let ci = b(self, Expr::Un(UnOp::ToInt, c), Ty::Int, out);
                let e = b(
                    self,
                    Expr::Bin(BinOp::Sub, ops[1].clone(), t.clone()),
                    Ty::Int,
                    out,
                );
                let f = b(self, Expr::Bin(BinOp::Mul, e, ci), Ty::Int, out);
                Expr::Bin(BinOp::Add, t.clone(), f)
            }
        };
        out.push(Stmt::Write(arr.clone(), off, value, loc(p)));
        if self.warned_atomics.insert(p) {
            self.warnings.push(self.sm.warning(
                p,
                format!(
                    "`{name}` on `{arr}` is lowered to a read, a branch-free update and a write of the cell (spec/lowering.md §6): lanes hitting the same address count once and the value stored when several lanes of a warp update the same cell is not modelled, as for `atomicAdd`"
                ),
            ));
        }
        Ok(None)
    }

    /// `atomicOp(ptr, v)` as a statement (`spec/lowering.md` §6, atomics):
    /// `⟦ptr⟧; ⟦v⟧ₒ; t ← A[o]; A[o] ← t op ov` (`atomicExch`: `A[o] ← ov`).
    fn atomic(
        &mut self,
        name: &str,
        op: Option<BinOp>,
        args: &[ast::Expr],
        p: Pos,
        want: bool,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Operand, Ty)>> {
        if args.len() != 2 {
            return self.err(
                p,
                format!("`{name}` expects 2 arguments, found {}", args.len()),
            );
        }
        if want {
            return self.err(
                p,
                format!(
                    "the value returned by `{name}` (the old value of the cell) cannot be modelled: in lock-step every lane of a warp that hits the same cell would read the same old value; warpcert supports `{name}` only as a statement"
                ),
            );
        }
        let (arr, off, elem) = self.ptr_expr(&args[0], out)?;
        let (ov, tv) = self.opd(&args[1], out)?;
        let t1 = self.temp(elem);
        out.push(Stmt::Assign(
            t1.clone(),
            Expr::Read(arr.clone(), off.clone()),
            loc(p),
        ));
        let value = match op {
            Some(b) => {
                let (x, t) = self.binary_opds(b, var(&t1), elem, ov, tv, p, out)?;
                self.convert_expr(x, t, elem, p, out)
            }
            None => self.convert_expr(Expr::Opd(ov), tv, elem, p, out),
        };
        out.push(Stmt::Write(arr.clone(), off, value, loc(p)));
        if self.warned_atomics.insert(p) {
            self.warnings.push(self.sm.warning(
                p,
                format!(
                    "`{name}` on `{arr}` is lowered to a read and a write of the cell (spec/lowering.md §6): its cost is that of one read and one write of the warp's addresses (lanes hitting the same address count once, as for a broadcast; hardware serialization of such lanes is not charged); the value stored when several lanes of a warp update the same cell is not modelled (lock-step keeps one lane's write), so simulated contents of `{arr}` are not faithful after it"
                ),
            ));
        }
        Ok(None)
    }

    /// CUDA math and conversion intrinsics with a core equivalent (`spec/lowering.md` §2),
    /// or an error naming those without one; `None` for other names.
    fn intrinsic(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> Option<R<(Operand, Ty)>> {
        if !is_intrinsic(name) {
            return None;
        }
        Some(self.intrinsic_call(name, args, p, out))
    }

    fn intrinsic_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<(Operand, Ty)> {
        let arity = |n: usize| -> R<()> {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.sm.error(
                    p,
                    format!("`{name}` expects {n} argument(s), found {}", args.len()),
                ))
            }
        };
        // IEEE rounding-mode variants: the abstract base type has one of each operation
        let rounded = |stem: &str| -> bool {
            ["_rn", "_rz", "_ru", "_rd"]
                .iter()
                .any(|r| name == format!("__f{stem}{r}") || name == format!("__d{stem}{r}"))
        };
        let bop = if rounded("add") {
            Some(BinOp::Add)
        } else if rounded("sub") {
            Some(BinOp::Sub)
        } else if rounded("mul") {
            Some(BinOp::Mul)
        } else if rounded("div") || name == "__fdividef" || name == "fdividef" {
            Some(BinOp::Div)
        } else {
            None
        };
        if let Some(b) = bop {
            arity(2)?;
            let (oa, ta) = self.opd(&args[0], out)?;
            let (ob, tb) = self.opd(&args[1], out)?;
            let oa = self.convert(oa, ta, Ty::Float, p, out);
            let ob = self.convert(ob, tb, Ty::Float, p, out);
            return Ok((
                self.bind(Expr::Bin(b, oa, ob), Ty::Float, p, out),
                Ty::Float,
            ));
        }
        match name {
            "abs" | "labs" | "llabs" | "fabs" | "fabsf" => {
                // ⟦a⟧ₒ; t ← neg oa; t' ← oa max t
                arity(1)?;
                let (o, t) = self.opd(&args[0], out)?;
                let (o, t) = match t {
                    Ty::Bool => (self.convert(o, t, Ty::Int, p, out), Ty::Int),
                    _ if name.starts_with('f') => (self.convert(o, t, Ty::Float, p, out), Ty::Float),
                    _ => (o, t),
                };
                let n = match &o {
                    Operand::Const(Const::Int(v)) if *v != i64::MIN => int(-v),
                    Operand::Const(Const::Float(x)) => Operand::Const(Const::Float(-x)),
                    _ => self.bind(Expr::Un(UnOp::Neg, o.clone()), t, p, out),
                };
                let (x, t) = self.binary_opds(BinOp::Max, o, t, n, t, p, out)?;
                Ok((self.bind(x, t, p, out), t))
            }
            "fma" | "fmaf" | "__fmaf_rn" | "__fmaf_rz" | "__fmaf_ru" | "__fmaf_rd" | "__fma_rn"
            | "__fma_rz" | "__fma_ru" | "__fma_rd" => {
                // ⟦a⟧ₒ; ⟦b⟧ₒ; t ← oa * ob; ⟦c⟧ₒ; t' ← t + oc   (on floats)
                arity(3)?;
                let (oa, ta) = self.opd(&args[0], out)?;
                let oa = self.convert(oa, ta, Ty::Float, p, out);
                let (ob, tb) = self.opd(&args[1], out)?;
                let ob = self.convert(ob, tb, Ty::Float, p, out);
                let m = self.bind(Expr::Bin(BinOp::Mul, oa, ob), Ty::Float, p, out);
                let (oc, tc) = self.opd(&args[2], out)?;
                let oc = self.convert(oc, tc, Ty::Float, p, out);
                Ok((self.bind(Expr::Bin(BinOp::Add, m, oc), Ty::Float, p, out), Ty::Float))
            }
            "__float2int_rz" | "__double2int_rz" | "__float2uint_rz" | "__double2uint_rz"
            | "__float2ll_rz" | "__double2ll_rz" => {
                arity(1)?;
                let (o, t) = self.opd(&args[0], out)?;
                Ok((self.convert(o, t, Ty::Int, p, out), Ty::Int))
            }
            "__int2float_rn" | "__uint2float_rn" | "__int2double_rn" | "__uint2double_rn"
            | "__ll2float_rn" | "__ll2double_rn" => {
                arity(1)?;
                let (o, t) = self.opd(&args[0], out)?;
                Ok((self.convert(o, t, Ty::Float, p, out), Ty::Float))
            }
            "sqrt" | "sqrtf" | "rsqrt" | "rsqrtf" | "cbrt" | "cbrtf" | "exp" | "expf" | "exp2"
            | "exp2f" | "exp10" | "exp10f" | "__expf" | "log" | "logf" | "log2" | "log2f"
            | "log10" | "log10f" | "__logf" | "__log2f" | "sin" | "sinf" | "cos" | "cosf"
            | "tan" | "tanf" | "__sinf" | "__cosf" | "__tanf" | "sincosf" | "tanh" | "tanhf"
            | "atan" | "atanf" | "atan2" | "atan2f" | "pow" | "powf" | "__powf" | "floor"
            | "floorf" | "ceil" | "ceilf" | "round" | "roundf" | "rint" | "rintf" | "trunc"
            | "truncf" | "fmod" | "fmodf" | "hypot" | "hypotf" | "__saturatef" | "erf" | "erff"
            | "__frcp_rn" | "__fsqrt_rn" | "__float2int_rn" | "__float2int_ru"
            | "__float2int_rd" | "__double2int_rn" => Err(self.sm.error(
                p,
                format!("math function `{name}` has no miniCUDA operator (the abstract base type has only `+ - * / min max`, comparisons and conversions that truncate)"),
            )),
            "__popc" | "__popcll" | "__clz" | "__clzll" | "__ffs" | "__ffsll" | "__brev"
            | "__brevll" | "__byte_perm" | "__funnelshift_l" | "__funnelshift_r"
            | "__funnelshift_lc" | "__funnelshift_rc" | "__umulhi" | "__mulhi" | "__umul64hi"
            | "__mul64hi" | "__sad" | "__usad" | "__hadd" | "__rhadd" | "__uhadd" | "__urhadd" => {
                Err(self.sm.error(
                    p,
                    format!("bit/integer intrinsic `{name}` has no miniCUDA operator"),
                ))
            }
            _ => Err(self.sm.error(
                p,
                format!("conversion/arithmetic intrinsic `{name}` has no miniCUDA operator (only the truncating `_rz` float→int and the `_rn` int→float conversions are modelled)"),
            )),
        }
    }

    /// A call `f(args)`; `want`: the value is used (else evaluated for effect only).
    fn call(
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
        if let Some(msg) = unsupported_call(name) {
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
        let defined = self.unit.functions.iter().any(|g| &g.name == name);
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
                let vty = CType {
                    is_ref: false,
                    ..pty.clone()
                };
                if vty.ptr > 0 {
                    return self.err(prm.pos, format!("reference-to-pointer parameter `{}` of `{name}` is not supported by warpcert", prm.name));
                }
                let want_ty = self.scalar_ty(&vty, prm.pos)?;
                // a reference bound to a local variable (or a `__shared__` scalar) of the
                // same type aliases it: the inlined body reads and writes that variable
                if let ExprKind::Ident(n) = &a.kind {
                    match self.lookup(n).cloned() {
                        Some(Binding::Local(core, t)) if t == want_ty => {
                            scope.insert(prm.name.clone(), Binding::Local(core, t));
                            continue;
                        }
                        Some(Binding::SharedScalar { core, elem }) if elem == want_ty => {
                            scope.insert(prm.name.clone(), Binding::SharedScalar { core, elem });
                            continue;
                        }
                        _ => {}
                    }
                }
                let is_mem = matches!(
                    &a.kind,
                    ExprKind::Index(..) | ExprKind::Unary(UnaryOp::Deref, _)
                );
                if assigned_in_body.contains(&prm.name) || is_mem {
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
                scope.insert(prm.name.clone(), Binding::Local(core, want_ty));
                continue;
            }
            if pty.ptr > 0 {
                let (array, off, elem) = self.ptr_expr(a, out)?;
                let offset = match off {
                    Operand::Var(_) => {
                        let t = self.temp(Ty::Int);
                        out.push(Stmt::Assign(t.clone(), Expr::Opd(off), loc(a.pos)));
                        var(&t)
                    }
                    o => o,
                };
                scope.insert(
                    prm.name.clone(),
                    Binding::Ptr {
                        array,
                        offset,
                        elem,
                    },
                );
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
            },
        );
        let saved_subst = std::mem::replace(&mut self.tsubst, callee_subst);
        self.call_stack.push(name.clone());
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

    // ----- declarations -----

    fn const_dim(&mut self, e: &ast::Expr, arr: &str) -> R<Option<u64>> {
        let mut notes = Vec::new();
        let v = self.eval_dim(e, &mut notes)?;
        for n in notes {
            self.warnings.push(self.sm.warning(
                e.pos,
                format!("`__shared__` array `{arr}` sized by {n} (RaCUDA dialect, not valid CUDA)"),
            ));
        }
        Ok(v.and_then(|v| u64::try_from(v).ok()))
    }

    fn eval_dim(&mut self, e: &ast::Expr, notes: &mut Vec<String>) -> R<Option<i64>> {
        Ok(match &e.kind {
            ExprKind::Int(n) => Some(*n),
            ExprKind::Sizeof(Some(n)) => Some(*n as i64),
            ExprKind::SizeofType(t) => Some(self.sizeof_type(t, e.pos)? as i64),
            ExprKind::Member(..) => match self.builtin(e) {
                Some(r) => {
                    let (o, _) = r?;
                    notes.push("the runtime value `blockDim`/`gridDim`".to_string());
                    match o {
                        Operand::Const(Const::Int(n)) => Some(n),
                        _ => None,
                    }
                }
                None => return self.err(e.pos, "array size must be a constant"),
            },
            ExprKind::Ident(n) => match self.lookup(n).cloned() {
                Some(Binding::Value(o, _)) => {
                    notes.push(format!("the parameter `{n}`"));
                    match o {
                        Operand::Const(Const::Int(v)) => Some(v),
                        _ => None,
                    }
                }
                Some(Binding::Local(..)) => {
                    notes.push(format!("the local variable `{n}`"));
                    None
                }
                _ if n == "warpSize" => Some(self.hw.warp_size as i64),
                _ => return self.err(e.pos, format!("array size `{n}` is not a constant")),
            },
            ExprKind::Binary(op, a, b) => {
                let x = self.eval_dim(a, notes)?;
                let y = self.eval_dim(b, notes)?;
                match (x, y, bin_of(*op)) {
                    (Some(x), Some(y), Some(o)) => fold(o, x, y),
                    _ => None,
                }
            }
            _ => return self.err(e.pos, "array size must be a constant expression"),
        })
    }

    /// A file-scope `__device__` variable: a global array (length 1 for a scalar, read and
    /// written at index 0 like a `__shared__` scalar). Its initializer is ignored with a
    /// warning: like every global array its contents are an input.
    fn device_var_decl(&mut self, d: &ast::Decl) -> R<Binding> {
        if d.init.is_some() {
            self.warnings.push(self.sm.warning(
                d.pos,
                format!(
                    "initializer of `__device__` variable `{}` ignored: global memory contents are inputs of the analysis (any value)",
                    d.name
                ),
            ));
        }
        let (elem, bytes) = self.elem_of(&d.ty, d.pos)?;
        let mut dims = Vec::new();
        for de in &d.dims {
            match de {
                Some(x) => {
                    let n = self.const_dim(x, &d.name)?;
                    if n == Some(0) {
                        return self.err(
                            x.pos,
                            format!("array `{}` has a dimension of size 0 (not valid C)", d.name),
                        );
                    }
                    dims.push(n)
                }
                None => {
                    return self.err(
                        d.pos,
                        format!("`__device__` array `{}` needs a size", d.name),
                    )
                }
            }
        }
        let core = self.unique(&d.name);
        let len = dims
            .iter()
            .try_fold(1u64, |acc, x| x.and_then(|x| acc.checked_mul(x)));
        self.arrays.push(ArrayDecl {
            name: core.clone(),
            space: Space::Global,
            elem,
            elem_bytes: bytes,
            len,
        });
        if dims.is_empty() {
            Ok(Binding::SharedScalar { core, elem })
        } else {
            Ok(Binding::Array { core, dims, elem })
        }
    }

    fn shared_decl(&mut self, d: &ast::Decl) -> R<Binding> {
        if d.ty.ptr > 0 {
            return self.err(
                d.pos,
                format!("`__shared__` pointer `{}` cannot be modelled", d.name),
            );
        }
        if d.init.is_some() {
            return self.err(
                d.pos,
                format!(
                    "initializer on `__shared__` array `{}` is not valid CUDA",
                    d.name
                ),
            );
        }
        let (elem, bytes) = self.elem_of(&d.ty, d.pos)?;
        if d.dims.is_empty() {
            let core = match self.shared_by_pos.get(&d.pos) {
                Some(c) => c.clone(),
                None => {
                    let c = self.unique(&d.name);
                    self.arrays.push(ArrayDecl {
                        name: c.clone(),
                        space: Space::Shared,
                        elem,
                        elem_bytes: bytes,
                        len: Some(1),
                    });
                    self.shared_by_pos.insert(d.pos, c.clone());
                    c
                }
            };
            return Ok(Binding::SharedScalar { core, elem });
        }
        let mut dims = Vec::new();
        for (k, de) in d.dims.iter().enumerate() {
            match de {
                Some(x) => {
                    let n = self.const_dim(x, &d.name)?;
                    if n == Some(0) {
                        return self.err(
                            x.pos,
                            format!("array `{}` has a dimension of size 0 (not valid C)", d.name),
                        );
                    }
                    dims.push(n)
                }
                None if k == 0 && d.is_extern => dims.push(None),
                None => {
                    return self.err(
                        d.pos,
                        format!("`__shared__` array `{}` needs a size (or `extern`)", d.name),
                    )
                }
            }
        }
        let core = match self.shared_by_pos.get(&d.pos) {
            Some(c) => c.clone(),
            None => {
                let c = self.unique(&d.name);
                let len = dims
                    .iter()
                    .try_fold(1u64, |acc, x| x.and_then(|x| acc.checked_mul(x)));
                self.arrays.push(ArrayDecl {
                    name: c.clone(),
                    space: Space::Shared,
                    elem,
                    elem_bytes: bytes,
                    len,
                });
                self.shared_by_pos.insert(d.pos, c.clone());
                c
            }
        };
        Ok(Binding::Array { core, dims, elem })
    }

    fn decl(&mut self, d: &ast::Decl, out: &mut Vec<Stmt>) -> R<()> {
        if d.shared {
            let b = self.shared_decl(d)?;
            self.scopes.last_mut().map(|s| s.insert(d.name.clone(), b));
            return Ok(());
        }
        if !d.dims.is_empty() {
            return self.err(d.pos, format!("thread-local array `{}` is not supported by warpcert (only `__shared__` and global arrays)", d.name));
        }
        if d.ty.ptr > 0 {
            let Some(init) = &d.init else {
                if d.ty.ptr > 1 {
                    return self.err(
                        d.pos,
                        format!("pointer-to-pointer local `{}` cannot be modelled", d.name),
                    );
                }
                // `T *q;`: bound by a later `q = ptr;` in the same block (§5)
                let (elem, _) = self.elem_of(&d.ty, d.pos)?;
                self.scopes
                    .last_mut()
                    .map(|s| s.insert(d.name.clone(), Binding::UnsetPtr { elem }));
                return Ok(());
            };
            let (array, off, elem) = self.ptr_expr(init, out)?;
            let offset = match off {
                Operand::Var(_) => {
                    let t = self.temp(Ty::Int);
                    out.push(Stmt::Assign(t.clone(), Expr::Opd(off), loc(d.pos)));
                    var(&t)
                }
                o => o,
            };
            self.scopes.last_mut().map(|s| {
                s.insert(
                    d.name.clone(),
                    Binding::Ptr {
                        array,
                        offset,
                        elem,
                    },
                )
            });
            return Ok(());
        }
        let ty = self.scalar_ty(&d.ty, d.pos)?;
        let init = match &d.init {
            Some(i) => {
                let (x, t) = self.rv(i, out)?;
                Some(self.convert_expr(x, t, ty, i.pos, out))
            }
            None => None,
        };
        let core = self.new_local(&d.name, ty);
        if let Some(x) = init {
            out.push(Stmt::Assign(core.clone(), x, loc(d.pos)));
        }
        self.scopes
            .last_mut()
            .map(|s| s.insert(d.name.clone(), Binding::Local(core, ty)));
        Ok(())
    }

    // ----- statements -----

    fn block(&mut self, stmts: &[ast::Stmt], out: &mut Vec<Stmt>, tail: bool) -> R<()> {
        self.scopes.push(HashMap::new());
        let r = self.seq_stmts(stmts, out, tail);
        self.scopes.pop();
        r
    }

    /// `if (c) t [else e]; rest` where exactly one branch `ends` (definitely jumps or
    /// returns): lowers `if c then t' else e'` where the branch that may fall through is
    /// followed by `rest` (both lowered with `tail`); `Ok(false)`, nothing emitted, when `s`
    /// is no `if` or both or neither branch ends.
    fn if_with_rest(
        &mut self,
        s: &ast::Stmt,
        rest: &[ast::Stmt],
        ends: fn(&ast::Stmt) -> bool,
        tail: bool,
        out: &mut Vec<Stmt>,
    ) -> R<bool> {
        let StmtKind::If(c, t, e) = &s.kind else {
            return Ok(false);
        };
        let t_ends = ends(t);
        if t_ends == e.as_ref().is_some_and(|e| ends(e)) {
            return Ok(false);
        }
        let mut list_t = vec![(**t).clone()];
        let mut list_e: Vec<ast::Stmt> = e.iter().map(|e| (**e).clone()).collect();
        if t_ends {
            list_e.extend(rest.iter().cloned());
        } else {
            list_t.extend(rest.iter().cloned());
        }
        let ce = self.cond(c, out)?;
        let mut th = Vec::new();
        self.seq_stmts(&list_t, &mut th, tail)?;
        let mut el = Vec::new();
        self.seq_stmts(&list_e, &mut el, tail)?;
        out.push(Stmt::If(
            ce,
            Box::new(seq(th)),
            Box::new(seq(el)),
            loc(s.pos),
        ));
        Ok(true)
    }

    fn seq_stmts(&mut self, stmts: &[ast::Stmt], out: &mut Vec<Stmt>, tail: bool) -> R<()> {
        let mut i = 0;
        while i < stmts.len() {
            let split;
            let s = if self.f.loop_depth > 0 {
                split = split_or_jump(&stmts[i]);
                split.as_ref().unwrap_or(&stmts[i])
            } else {
                &stmts[i]
            };
            let last = i + 1 == stmts.len();
            let rest = &stmts[i + 1..];
            // inside a loop, `if (c) J [else e]; rest` where exactly one branch definitely
            // jumps: the other branch is lowered together with `rest` (no `jmp == 0` guard)
            if !last
                && self.f.loop_depth > 0
                && self.if_with_rest(s, rest, definitely_jumps, false, out)?
            {
                return Ok(());
            }
            // `if (c) { …; return; } [else e] rest` outside loops: `if c then … else {e; rest}`
            // (and symmetrically when only the `else` branch definitely returns)
            if tail
                && !last
                && self.f.loop_depth == 0
                && self.if_with_rest(s, rest, definitely_returns, true, out)?
            {
                return Ok(());
            }
            self.stmt(s, out, tail && last)?;
            if matches!(
                s.kind,
                StmtKind::Break | StmtKind::Continue | StmtKind::Return(_)
            ) {
                return Ok(()); // the rest of the list is dead code
            }
            if !last && may_jump(s) {
                let mut inner = Vec::new();
                self.seq_stmts(rest, &mut inner, tail)?;
                let g = self.not_jumped();
                out.push(Stmt::If(
                    g,
                    Box::new(seq(inner)),
                    Box::new(Stmt::Skip),
                    loc(rest[0].pos),
                ));
                return Ok(());
            }
            i += 1;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>, tail: bool) -> R<()> {
        let p = s.pos;
        match &s.kind {
            StmtKind::Empty => Ok(()),
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.decl(d, out)?;
                }
                Ok(())
            }
            StmtKind::Expr(e) => {
                if let ExprKind::Assign(None, l, r) = &e.kind {
                    if let ExprKind::Ident(q) = &l.kind {
                        if let Some(Binding::Ptr { elem, .. } | Binding::UnsetPtr { elem }) =
                            self.lookup(q).cloned()
                        {
                            return self.assign_ptr(q, elem, r, l.pos, out);
                        }
                    }
                }
                self.effect(e, out)
            }
            StmtKind::Block(v) => self.block(v, out, tail),
            StmtKind::If(c, a, b) => {
                if self.f.loop_depth > 0 {
                    if let Some(split) = split_or_jump(s) {
                        return self.stmt(&split, out, tail);
                    }
                }
                // `if (a && b) s` without else: nested ifs
                if let (ExprKind::Binary(BinaryOp::LAnd, x, y), None) = (&c.kind, b) {
                    let inner_if = ast::Stmt {
                        kind: StmtKind::If((**y).clone(), a.clone(), None),
                        pos: y.pos,
                    };
                    let outer = ast::Stmt {
                        kind: StmtKind::If((**x).clone(), Box::new(inner_if), None),
                        pos: p,
                    };
                    return self.stmt(&outer, out, tail);
                }
                let ce = self.cond(c, out)?;
                let mut th = Vec::new();
                self.block(std::slice::from_ref(a), &mut th, tail)?;
                let mut el = Vec::new();
                if let Some(b) = b {
                    self.block(std::slice::from_ref(b), &mut el, tail)?;
                }
                out.push(Stmt::If(ce, Box::new(seq(th)), Box::new(seq(el)), loc(p)));
                Ok(())
            }
            StmtKind::While(c, body) => self.lower_loop(None, Some(c), None, body, false, p, out),
            StmtKind::For(init, c, step, body) => {
                self.scopes.push(HashMap::new());
                let r = (|| {
                    if let Some(i) = init {
                        self.stmt(i, out, false)?;
                    }
                    self.lower_loop(None, c.as_ref(), step.as_ref(), body, false, p, out)
                })();
                self.scopes.pop();
                r
            }
            StmtKind::DoWhile(body, c) => self.lower_loop(None, Some(c), None, body, true, p, out),
            StmtKind::Break | StmtKind::Continue => {
                if self.f.loop_depth == 0 {
                    return self.err(p, "`break`/`continue` outside of a loop");
                }
                let j = self.jmp();
                let code = if matches!(s.kind, StmtKind::Break) {
                    2
                } else {
                    1
                };
                out.push(Stmt::Assign(j, Expr::Opd(int(code)), loc(p)));
                Ok(())
            }
            StmtKind::Return(e) => {
                if let Some(e) = e {
                    match self.f.ret.clone() {
                        Some((r, rt)) => {
                            let (x, t) = self.rv(e, out)?;
                            let x = self.convert_expr(x, t, rt, e.pos, out);
                            out.push(Stmt::Assign(r, x, loc(p)));
                        }
                        None => self.effect(e, out)?,
                    }
                }
                if !tail {
                    let j = self.jmp();
                    out.push(Stmt::Assign(j, Expr::Opd(int(3)), loc(p)));
                }
                Ok(())
            }
        }
    }

    /// The statement `q = e;` for a pointer local `q` (§5): allowed only when `q` was
    /// declared in the current block (so the assignment is not under a branch or loop that
    /// the declaration is outside of); `q` is rebound to the resolved pointer of `e`.
    fn assign_ptr(
        &mut self,
        q: &str,
        elem: Ty,
        r: &ast::Expr,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let here = self
            .scopes
            .last()
            .map(|s| s.contains_key(q))
            .unwrap_or(false);
        if !here {
            return self.err(
                p,
                format!("assignment to pointer `{q}` inside a branch, loop or block it was not declared in (pointer aliasing that depends on control flow cannot be modelled)"),
            );
        }
        let (array, off, e2) = self.ptr_expr(r, out)?;
        if e2 != elem {
            return self.err(
                p,
                format!(
                    "pointer `{q}` (to {}) assigned a pointer to {}",
                    elem.keyword(),
                    e2.keyword()
                ),
            );
        }
        let offset = match off {
            Operand::Var(_) => {
                let t = self.temp(Ty::Int);
                out.push(Stmt::Assign(t.clone(), Expr::Opd(off), loc(p)));
                var(&t)
            }
            o => o,
        };
        if let Some(s) = self.scopes.last_mut() {
            s.insert(
                q.to_string(),
                Binding::Ptr {
                    array,
                    offset,
                    elem,
                },
            );
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn lower_loop(
        &mut self,
        _label: Option<&str>,
        c: Option<&ast::Expr>,
        step: Option<&ast::Expr>,
        body: &ast::Stmt,
        do_while: bool,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let (brk, cont, ret) = {
            let (b, c, _) = jumps(body);
            let r = contains_return(body);
            (b, c, r)
        };
        // guard computation
        let mut pre = Vec::new();
        let guard = match c {
            Some(c) => self.cond(c, &mut pre)?,
            None => Expr::Opd(Operand::Const(Const::Bool(true))),
        };
        self.f.loop_depth += 1;
        let mut b = Vec::new();
        let r = self.block(std::slice::from_ref(body), &mut b, false);
        self.f.loop_depth -= 1;
        r?;
        let mut next = Vec::new(); // continue reset, step, guard recomputation
        if cont {
            let j = self.jmp();
            next.push(Stmt::Assign(j, Expr::Opd(int(0)), loc(p)));
        }
        if let Some(st) = step {
            self.effect(st, &mut next)?;
        }
        // a loop whose condition is the constant `true`, left only by `break`/`return`
        // (no `continue`, no step): driven by the jump flag itself
        let always = matches!(guard, Expr::Opd(Operand::Const(Const::Bool(true))));
        if always && (brk || ret) && !cont && step.is_none() {
            let j = self.jmp();
            out.push(Stmt::While(
                Expr::Bin(BinOp::Lt, var(&j), int(2)),
                Box::new(seq(b)),
                loc(p),
            ));
            if brk {
                let reset = Stmt::Assign(j.clone(), Expr::Opd(int(0)), loc(p));
                if ret {
                    out.push(Stmt::If(
                        Expr::Bin(BinOp::Eq, var(&j), int(2)),
                        Box::new(reset),
                        Box::new(Stmt::Skip),
                        loc(p),
                    ));
                } else {
                    out.push(reset);
                }
            }
            return Ok(());
        }
        if !brk && !ret && !do_while {
            out.extend(pre.clone());
            b.extend(next);
            b.extend(pre);
            out.push(Stmt::While(guard, Box::new(seq(b)), loc(p)));
            return Ok(());
        }
        let g = self.fresh("g", Ty::Bool);
        if do_while {
            out.push(Stmt::Assign(
                g.clone(),
                Expr::Opd(Operand::Const(Const::Bool(true))),
                loc(p),
            ));
        } else {
            out.extend(pre.clone());
            out.push(Stmt::Assign(g.clone(), guard.clone(), loc(p)));
        }
        next.extend(pre);
        next.push(Stmt::Assign(g.clone(), guard, loc(p)));
        if brk || ret {
            let j = self.jmp();
            let mut stop = vec![Stmt::Assign(
                g.clone(),
                Expr::Opd(Operand::Const(Const::Bool(false))),
                loc(p),
            )];
            if brk {
                let reset = Stmt::Assign(j.clone(), Expr::Opd(int(0)), loc(p));
                if ret {
                    stop.push(Stmt::If(
                        Expr::Bin(BinOp::Eq, var(&j), int(2)),
                        Box::new(reset),
                        Box::new(Stmt::Skip),
                        loc(p),
                    ));
                } else {
                    stop.push(reset);
                }
            }
            b.push(Stmt::If(
                Expr::Bin(BinOp::Lt, var(&j), int(2)),
                Box::new(seq(next)),
                Box::new(seq(stop)),
                loc(p),
            ));
        } else {
            b.extend(next);
        }
        out.push(Stmt::While(Expr::Opd(var(&g)), Box::new(seq(b)), loc(p)));
        Ok(())
    }
}

/// A short name of the C construct `e`, for messages (e.g. "conditional `?:`").
fn construct_name(e: &ast::Expr) -> String {
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
fn subst_with(m: &HashMap<String, CType>, t: &CType) -> CType {
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
fn type_from_name(s: &str) -> Option<CType> {
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
fn instantiate(
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

fn contains_return(s: &ast::Stmt) -> bool {
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
