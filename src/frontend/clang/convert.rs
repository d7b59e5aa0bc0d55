//! clang's typed AST (of one translation unit) → the front end's AST (`frontend::ast`), so
//! that the lowering to miniCUDA (`frontend::lower`) is shared by both front ends.
//!
//! clang has already resolved names, overloads, implicit conversions and templates; this
//! converter keeps the shapes the builtin parser produces for the same source (implicit
//! conversions are dropped: the lowering inserts them from the types, as for parsed code)
//! and desugars what the parser does not read (`spec/lowering.md` §9): records and vector
//! types (scalarized locals, field accesses as element offsets of the record's scalar view),
//! cooperative groups of a block, `__ldg`, `SharedMemory<T>`-style helpers, default
//! arguments, `assert`/`printf`, math functions (as opaque operations).

use super::json::Node;
use super::types::{self, Records, Ty};
use super::unsupported::Missing;
use crate::frontend::ast::{
    BaseTy, BinaryOp, CType, Decl, Expr, ExprKind, FnKind, Function, Param, Stmt, StmtKind, UnaryOp,
};
use crate::frontend::diag::{Diagnostic, Pos, SourceMap, Warning};
use std::collections::{BTreeSet, HashMap};

type R<T> = Result<T, Diagnostic>;

/// Where a declaration comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The prelude or a stub toolkit header: known by name, never converted by body.
    Prelude,
    /// A system header (`/usr/include`): never converted.
    System,
    /// The user's files.
    User,
}

/// How a local of the function being converted is represented.
#[derive(Clone, Debug)]
pub(super) enum Local {
    /// A record value: one scalar local (or parameter) per leaf, by leaf path.
    Record(Vec<(Vec<String>, String)>),
    /// `cg::thread_block b = this_thread_block();`
    Block,
}

/// The converter of one translation unit.
pub struct Conv<'a> {
    /// Every declaration with an id, by id.
    pub decls: HashMap<&'a str, &'a Node>,
    /// The origin of each file name clang printed.
    pub origin: &'a dyn Fn(&str) -> Origin,
    /// Record layouts.
    pub records: Records,
    /// Source files for diagnostics (user files added on first use).
    pub sm: SourceMap,
    files: HashMap<String, u32>,
    /// Ids of file-scope variables (translation unit, namespaces, `extern "C"`).
    global_ids: BTreeSet<String>,
    /// Every identifier used (lowering temporaries avoid them).
    pub identifiers: BTreeSet<String>,
    /// Converted functions.
    pub functions: Vec<Function>,
    pub(super) fn_names: HashMap<String, String>,
    /// File-scope `__shared__` declarations.
    pub shared: Vec<Decl>,
    /// File-scope `__device__` variables.
    pub device_vars: Vec<Decl>,
    /// The names of the `device_vars` declared `__constant__`.
    pub constant_vars: Vec<String>,
    pub(super) global_seen: BTreeSet<String>,
    /// Warnings (printf/assert dropped, opaque math).
    pub warnings: Vec<Warning>,
    pub(super) locals: Vec<HashMap<String, Local>>,
    /// Position of the current function (errors without a better place).
    pub(super) here: Pos,
    /// Opaque functions already warned about (one warning per name).
    pub(super) warned_opaque: BTreeSet<String>,
}

pub(super) fn pos_err(sm: &SourceMap, p: Pos, m: impl Into<String>) -> Diagnostic {
    sm.error(p, m)
}

pub(super) fn e(kind: ExprKind, pos: Pos) -> Expr {
    Expr { kind, pos }
}

pub(super) fn int(n: i64, pos: Pos) -> Expr {
    e(ExprKind::Int(n), pos)
}

pub(super) fn ident(n: &str, pos: Pos) -> Expr {
    e(ExprKind::Ident(n.to_string()), pos)
}

pub(super) fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    let p = a.pos;
    e(ExprKind::Binary(op, Box::new(a), Box::new(b)), p)
}

/// `a + b`, with `+ 0` dropped and integer constants folded.
pub(super) fn add(a: Expr, b: Expr) -> Expr {
    match (&a.kind, &b.kind) {
        (_, ExprKind::Int(0)) => a,
        (ExprKind::Int(0), _) => b,
        (ExprKind::Int(x), ExprKind::Int(y)) => int(x + y, a.pos),
        _ => bin(BinaryOp::Add, a, b),
    }
}

/// `a * k`, with `* 1` dropped.
pub(super) fn scale(a: Expr, k: i64) -> Expr {
    match &a.kind {
        _ if k == 1 => a,
        ExprKind::Int(x) => int(x * k, a.pos),
        _ => {
            let p = a.pos;
            bin(BinaryOp::Mul, a, int(k, p))
        }
    }
}

fn stmt(kind: StmtKind, pos: Pos) -> Stmt {
    Stmt { kind, pos }
}

/// Children that are expressions or statements (attributes and `{}` placeholders skipped).
pub(super) fn kids(n: &Node) -> impl Iterator<Item = &Node> {
    n.inner.iter().filter(|c| !c.kind.ends_with("Attr"))
}

pub(super) fn first(n: &Node) -> Option<&Node> {
    kids(n).next()
}

/// Strips the wrappers that carry no meaning for the model.
pub(super) fn strip(mut n: &Node) -> &Node {
    loop {
        let pass = match n.kind.as_str() {
            "ParenExpr"
            | "ExprWithCleanups"
            | "MaterializeTemporaryExpr"
            | "CXXBindTemporaryExpr"
            | "ConstantExpr"
            | "CXXFunctionalCastExpr"
                if n.kind != "CXXFunctionalCastExpr" =>
            {
                true
            }
            "ImplicitCastExpr" => !matches!(
                n.cast_kind.as_deref(),
                Some("BitCast") | Some("PointerToBoolean") | Some("NullToPointer")
            ),
            "SubstNonTypeTemplateParmExpr" => {
                if let Some(last) = n.inner.last() {
                    n = last;
                    continue;
                }
                false
            }
            _ => false,
        };
        match (pass, first(n)) {
            (true, Some(c)) => n = c,
            _ => return n,
        }
    }
}

pub(super) fn callee_decl(call: &Node) -> Option<&Node> {
    let c = strip(first(call)?);
    match c.kind.as_str() {
        "DeclRefExpr" => c.referenced_decl.as_deref(),
        "MemberExpr" => None,
        _ => None,
    }
}

pub(super) fn lit_i64(v: &serde_json::Value) -> Option<i64> {
    match v {
        serde_json::Value::Number(n) => n.as_i64().or_else(|| n.as_u64().map(|u| u as i64)),
        serde_json::Value::String(s) => s
            .parse::<i64>()
            .ok()
            .or_else(|| s.parse::<u64>().ok().map(|u| u as i64)),
        serde_json::Value::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

/// Integer constant value of an expression made of literals and operators (what clang
/// folded for us in template arguments, enumerators, array sizes and `const` globals).
pub fn const_int(n: &Node, decls: &HashMap<&str, &Node>) -> Option<i64> {
    let n = strip(n);
    match n.kind.as_str() {
        "IntegerLiteral" | "CharacterLiteral" | "CXXBoolLiteralExpr" => lit_i64(n.value.as_ref()?),
        "ImplicitCastExpr"
        | "CStyleCastExpr"
        | "CXXStaticCastExpr"
        | "CXXFunctionalCastExpr"
        | "ParenExpr"
        | "ConstantExpr" => {
            if let Some(v) = n.value.as_ref().and_then(lit_i64) {
                return Some(v);
            }
            const_int(first(n)?, decls)
        }
        "UnaryOperator" => {
            let a = const_int(first(n)?, decls)?;
            match n.opcode.as_deref()? {
                "-" => a.checked_neg(),
                "+" => Some(a),
                "~" => Some(!a),
                "!" => Some((a == 0) as i64),
                _ => None,
            }
        }
        "BinaryOperator" => {
            let mut it = kids(n);
            let a = const_int(it.next()?, decls)?;
            let b = const_int(it.next()?, decls)?;
            Some(match n.opcode.as_deref()? {
                "+" => a.checked_add(b)?,
                "-" => a.checked_sub(b)?,
                "*" => a.checked_mul(b)?,
                "/" => a.checked_div(b)?,
                "%" => a.checked_rem(b)?,
                "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
                ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
                "&" => a & b,
                "|" => a | b,
                "^" => a ^ b,
                "<" => (a < b) as i64,
                ">" => (a > b) as i64,
                "<=" => (a <= b) as i64,
                ">=" => (a >= b) as i64,
                "==" => (a == b) as i64,
                "!=" => (a != b) as i64,
                "&&" => (a != 0 && b != 0) as i64,
                "||" => (a != 0 || b != 0) as i64,
                _ => return None,
            })
        }
        "ConditionalOperator" => {
            let mut it = kids(n);
            let c = const_int(it.next()?, decls)?;
            let a = it.next()?;
            let b = it.next()?;
            const_int(if c != 0 { a } else { b }, decls)
        }
        "UnaryExprOrTypeTraitExpr" => None,
        "DeclRefExpr" => {
            let r = n.referenced_decl.as_deref()?;
            let d = decls.get(r.id.as_str())?;
            match d.kind.as_str() {
                "EnumConstantDecl" => match first(d) {
                    Some(x) => const_int(x, decls),
                    None => None,
                },
                "VarDecl" => {
                    let q = d.ty.as_ref()?.qual.as_str();
                    if (q.starts_with("const ") || d.constexpr) && d.init.is_some() {
                        const_int(first(d)?, decls)
                    } else {
                        None
                    }
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Math functions and integer intrinsics that become an opaque operation (`Opaque`): the
/// lowering handles the others it knows (`min`, `max`, `abs`, `fabsf`, `fma`, `__fdividef`,
/// rounding-mode arithmetic, `_rz`/`_rn` conversions, `__mul24`, atomics, `__syncthreads`).
/// GPUVerify's annotations (`spec/lowering.md` §0): dropped, as by the builtin parser.
pub(super) fn is_annotation(name: &str) -> bool {
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

pub(super) fn is_opaque_math(name: &str) -> bool {
    let stem = name.trim_start_matches("__");
    let stem = stem.strip_suffix('f').unwrap_or(stem);
    matches!(
        stem,
        "sqrt"
            | "rsqrt"
            | "cbrt"
            | "exp"
            | "exp2"
            | "exp10"
            | "expm1"
            | "log"
            | "log2"
            | "log10"
            | "log1p"
            | "sin"
            | "cos"
            | "tan"
            | "asin"
            | "acos"
            | "atan"
            | "sinh"
            | "cosh"
            | "tanh"
            | "floor"
            | "ceil"
            | "round"
            | "rint"
            | "trunc"
            | "erf"
            | "erfc"
            | "sinpi"
            | "cospi"
            | "normcdf"
            | "normcdfinv"
            | "lgamma"
            | "tgamma"
            | "pow"
            | "atan2"
            | "fmod"
            | "hypot"
            | "copysign"
            | "fdim"
            | "remainder"
            | "saturate"
            | "frcp_rn"
            | "fsqrt_rn"
            | "isnan"
            | "isinf"
            | "isfinite"
    ) || matches!(
        name,
        "__popc"
            | "__popcll"
            | "__clz"
            | "__clzll"
            | "__ffs"
            | "__ffsll"
            | "__brev"
            | "__byte_perm"
            | "__umulhi"
            | "__mulhi"
            | "__sad"
            | "__usad"
            | "__float2int_rn"
            | "__float2int_ru"
            | "__float2int_rd"
            | "__float2uint_rn"
            | "__double2int_rn"
            | "__int_as_float"
            | "__float_as_int"
            | "__uint_as_float"
            | "__float_as_uint"
            | "__double_as_longlong"
            | "__longlong_as_double"
    )
}

impl<'a> Conv<'a> {
    /// A converter over the declarations of `root`.
    pub fn new(root: &'a Node, origin: &'a dyn Fn(&str) -> Origin) -> Conv<'a> {
        let mut decls = HashMap::new();
        fn index<'b>(n: &'b Node, out: &mut HashMap<&'b str, &'b Node>) {
            if !n.id.is_empty() && n.kind.ends_with("Decl") {
                out.entry(n.id.as_str()).or_insert(n);
            }
            for c in &n.inner {
                if c.kind.ends_with("Decl") || c.kind == "TranslationUnitDecl" {
                    index(c, out);
                } else if c.kind == "CompoundStmt" || c.kind == "DeclStmt" {
                    // locals are found through their DeclStmt when converting
                    index_stmts(c, out);
                }
            }
        }
        fn index_stmts<'b>(n: &'b Node, out: &mut HashMap<&'b str, &'b Node>) {
            for c in &n.inner {
                if c.kind.ends_with("Decl") && !c.id.is_empty() {
                    out.entry(c.id.as_str()).or_insert(c);
                }
                if c.kind == "DeclStmt" || c.kind.ends_with("Stmt") {
                    index_stmts(c, out);
                }
            }
        }
        index(root, &mut decls);
        let mut global_ids = BTreeSet::new();
        fn globals(n: &Node, out: &mut BTreeSet<String>) {
            for c in &n.inner {
                match c.kind.as_str() {
                    "VarDecl" => {
                        out.insert(c.id.clone());
                    }
                    "NamespaceDecl" | "LinkageSpecDecl" => globals(c, out),
                    _ => {}
                }
            }
        }
        globals(root, &mut global_ids);
        Conv {
            decls,
            origin,
            records: Records::collect(root),
            sm: SourceMap::default(),
            files: HashMap::new(),
            global_ids,
            identifiers: BTreeSet::new(),
            functions: Vec::new(),
            fn_names: HashMap::new(),
            shared: Vec::new(),
            device_vars: Vec::new(),
            constant_vars: Vec::new(),
            global_seen: BTreeSet::new(),
            warnings: Vec::new(),
            locals: Vec::new(),
            here: Pos::default(),
            warned_opaque: BTreeSet::new(),
        }
    }

    /// The file index of `path` in the source map (added, with its text, on first use).
    pub fn file(&mut self, path: &str) -> u32 {
        if let Some(&i) = self.files.get(path) {
            return i;
        }
        let text = std::fs::read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let i = self.sm.add(path, text);
        self.files.insert(path.to_string(), i);
        i
    }

    /// The user-visible position of a node (expansion location of its first token).
    pub fn pos(&mut self, n: &Node) -> Pos {
        let l = if n.loc.col.is_some() || n.loc.expansion.is_some() {
            &n.loc
        } else {
            &n.range.begin
        };
        let (f, line, col) = l.user();
        if line == 0 {
            return self.here;
        }
        let f = f.to_string();
        let file = self.file(&f);
        Pos { file, line, col }
    }

    pub(super) fn err<T>(&mut self, n: &Node, m: impl Into<String>) -> R<T> {
        let p = self.pos(n);
        Err(pos_err(&self.sm, p, m))
    }

    pub(super) fn missing<T>(&mut self, n: &Node, what: Missing, name: &str) -> R<T> {
        self.err(n, what.message(name))
    }

    pub(super) fn origin_of(&self, d: &Node) -> Origin {
        let (f, _, _) = d.loc.user();
        (self.origin)(f)
    }

    pub(super) fn lookup(&self, id: &str) -> Option<&Local> {
        self.locals.iter().rev().find_map(|m| m.get(id))
    }

    pub(super) fn fresh(&mut self, base: &str) -> String {
        let mut k = 0;
        loop {
            let c = if k == 0 {
                base.to_string()
            } else {
                format!("{base}_{k}")
            };
            if !self.identifiers.contains(&c) {
                self.identifiers.insert(c.clone());
                return c;
            }
            k += 1;
        }
    }

    // ------------------------------------------------------------------ types

    pub(super) fn view_of(&self, t: &Ty) -> Option<(Ty, i64)> {
        // scalar view of one element of type `t` and its stride in view elements
        match t {
            Ty::Scalar(b, _) if *b != BaseTy::Void => Some((t.clone(), 1)),
            Ty::Record(_) | Ty::Array(..) => {
                let leaves = self.records.leaves(t)?;
                let v = leaves.first()?.ty.clone();
                let (vs, _) = self.records.size_align(&v)?;
                let same = leaves
                    .iter()
                    .all(|l| types_same_view(&l.ty, &v) && l.offset % vs == 0);
                let (size, _) = self.records.size_align(t)?;
                if !same || size % vs != 0 {
                    return None;
                }
                Some((v, (size / vs) as i64))
            }
            _ => None,
        }
    }

    pub(super) fn ctype_of(&mut self, t: &Ty, n: &Node) -> R<CType> {
        match t {
            Ty::Ptr(inner) if matches!(**inner, Ty::Record(_) | Ty::Array(..)) => {
                let Some((v, _)) = self.view_of(inner) else {
                    return self.err(n, format!("pointer to `{}`: a record whose fields are not all of one scalar type cannot be an array of warpcert's core yet", inner.describe()));
                };
                let mut c = v.ctype().unwrap_or(CType::base(BaseTy::Int));
                c.ptr = 1;
                Ok(c)
            }
            _ => match t.ctype() {
                Some(c) => Ok(c),
                None => self.err(n, format!("type `{}` is not supported here", t.describe())),
            },
        }
    }

    // ------------------------------------------------------------------ functions

    /// The AST name of function declaration `id` (converted on first use); `None` for a
    /// declaration without body.
    pub fn function(&mut self, id: &str) -> Option<String> {
        if let Some(n) = self.fn_names.get(id) {
            return Some(n.clone());
        }
        let d = *self.decls.get(id)?;
        let body = d.inner.iter().find(|c| c.kind == "CompoundStmt")?;
        let base = d.name.clone().unwrap_or_else(|| "f".into());
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let name = if self.functions.iter().any(|f| f.name == base)
            || self.fn_names.values().any(|v| *v == base)
        {
            self.fresh(&format!("{base}__{}", self.functions.len()))
        } else {
            base
        };
        self.fn_names.insert(id.to_string(), name.clone());
        let f = self.convert_function(d, body, &name);
        self.functions.push(f);
        Some(name)
    }

    fn convert_function(&mut self, d: &Node, body: &Node, name: &str) -> Function {
        let pos = self.pos(d);
        let saved_here = self.here;
        self.here = pos;
        let global = d.inner.iter().any(|c| c.kind == "CUDAGlobalAttr");
        let ret_text =
            d.ty.as_ref()
                .map(|q| q.canonical().to_string())
                .unwrap_or_default();
        let ret = ret_text
            .split_once('(')
            .map(|(r, _)| self.records.resolve(&types::parse(r.trim())));
        let saved = std::mem::take(&mut self.locals);
        self.locals.push(HashMap::new());
        let mut params = Vec::new();
        let mut perr = None;
        for p in d.inner.iter().filter(|c| c.kind == "ParmVarDecl") {
            match self.param(p) {
                Ok(ps) => params.extend(ps),
                Err(e) => {
                    perr.get_or_insert(e);
                }
            }
        }
        let ret_c = match &ret {
            Some(Ty::Scalar(..)) | Some(Ty::Ptr(_)) => ret.as_ref().and_then(|t| t.ctype()),
            Some(Ty::Record(r)) => {
                perr.get_or_insert(pos_err(&self.sm, pos, format!("device function `{name}` returns a record `{r}`: record-valued functions are not supported yet")));
                None
            }
            _ => Some(CType::base(BaseTy::Void)),
        };
        let body = match perr {
            Some(e) => Err(e),
            None => self.block_stmts(body),
        };
        self.locals = saved;
        self.here = saved_here;
        Function {
            name: name.to_string(),
            kind: if global {
                FnKind::Global
            } else {
                FnKind::Device
            },
            ret: ret_c,
            params,
            body,
            template: false,
            tparams: Vec::new(),
            pos,
        }
    }

    fn param(&mut self, p: &Node) -> R<Vec<Param>> {
        let pos = self.pos(p);
        let name = p.name.clone().unwrap_or_default();
        self.identifiers.insert(name.clone());
        let t = self.records.of(p);
        match t.unref() {
            Ty::Record(r) if !self.is_cg(r) => {
                let by_ref = matches!(t, Ty::Ref(_));
                let Some(leaves) = self.records.leaves(t.unref()) else {
                    return self.err(p, format!("parameter `{name}` of record type `{r}` without a layout warpcert can read"));
                };
                let mut out = Vec::new();
                let mut map = Vec::new();
                for l in leaves {
                    let ln = self.fresh(&format!("{name}_{}", l.path.join("_")));
                    let mut c = l.ty.ctype().unwrap_or(CType::base(BaseTy::Int));
                    c.is_ref = by_ref;
                    out.push(Param {
                        name: ln.clone(),
                        ty: c,
                        pos,
                    });
                    map.push((l.path, ln));
                }
                if let Some(m) = self.locals.last_mut() {
                    m.insert(p.id.clone(), Local::Record(map));
                }
                Ok(out)
            }
            Ty::Record(r) if r.ends_with("thread_block") || r.ends_with("thread_group") => {
                // the block's group: calls pass `this_thread_block()` (checked at the call)
                if let Some(m) = self.locals.last_mut() {
                    m.insert(p.id.clone(), Local::Block);
                }
                Ok(Vec::new())
            }
            Ty::Record(r) => {
                let what = if r.contains("grid") {
                    Missing::GridGroup
                } else {
                    Missing::WarpTile
                };
                self.missing(p, what, r)
            }
            _ => {
                let c = self.ctype_of(&t, p)?;
                Ok(vec![Param { name, ty: c, pos }])
            }
        }
    }

    pub(super) fn is_cg(&self, rec: &str) -> bool {
        rec.starts_with("cooperative_groups::")
            || matches!(
                rec,
                "thread_block" | "thread_group" | "grid_group" | "coalesced_group"
            )
            || rec.starts_with("thread_block_tile")
    }

    // ------------------------------------------------------------------ statements

    fn block_stmts(&mut self, n: &Node) -> R<Vec<Stmt>> {
        self.locals.push(HashMap::new());
        let mut out = Vec::new();
        let mut res = Ok(());
        for c in kids(n) {
            if let Err(e) = self.stmt_into(c, &mut out) {
                res = Err(e);
                break;
            }
        }
        self.locals.pop();
        res.map(|_| out)
    }

    fn stmt1(&mut self, n: &Node) -> R<Stmt> {
        let p = self.pos(n);
        if n.kind == "CompoundStmt" {
            return Ok(stmt(StmtKind::Block(self.block_stmts(n)?), p));
        }
        let mut v = Vec::new();
        self.locals.push(HashMap::new());
        let r = self.stmt_into(n, &mut v);
        self.locals.pop();
        r?;
        Ok(match v.len() {
            1 => v.pop().unwrap_or(stmt(StmtKind::Empty, p)),
            0 => stmt(StmtKind::Empty, p),
            _ => stmt(StmtKind::Block(v), p),
        })
    }

    fn opt_child(n: &Node, k: usize) -> Option<&Node> {
        n.inner.get(k).filter(|c| !c.kind.is_empty())
    }

    fn stmt_into(&mut self, n: &Node, out: &mut Vec<Stmt>) -> R<()> {
        let p = self.pos(n);
        let s = match n.kind.as_str() {
            "CompoundStmt" => StmtKind::Block(self.block_stmts(n)?),
            "DeclStmt" => {
                for d in &n.inner {
                    self.decl(d, out)?;
                }
                return Ok(());
            }
            "NullStmt" => StmtKind::Empty,
            "BreakStmt" => StmtKind::Break,
            "ContinueStmt" => StmtKind::Continue,
            "ReturnStmt" => {
                let v = match first(n) {
                    Some(x) => Some(self.expr(x)?),
                    None => None,
                };
                StmtKind::Return(v)
            }
            "IfStmt" => {
                if n.has_init || n.has_var {
                    return self.err(
                        n,
                        "`if` with an initializer or a condition variable is not supported",
                    );
                }
                let mut it = kids(n);
                let (Some(c), Some(t)) = (it.next(), it.next()) else {
                    return self.err(n, "malformed `if` in clang's AST");
                };
                let c = self.cond(c)?;
                let t = self.stmt1(t)?;
                let el = match it.next() {
                    Some(x) if n.has_else => Some(Box::new(self.stmt1(x)?)),
                    _ => None,
                };
                StmtKind::If(c, Box::new(t), el)
            }
            "WhileStmt" => {
                if n.has_var {
                    return self.err(n, "`while` with a condition variable is not supported");
                }
                let mut it = kids(n);
                let (Some(c), Some(b)) = (it.next(), it.next()) else {
                    return self.err(n, "malformed `while` in clang's AST");
                };
                StmtKind::While(self.cond(c)?, Box::new(self.stmt1(b)?))
            }
            "DoStmt" => {
                let mut it = kids(n);
                let (Some(b), Some(c)) = (it.next(), it.next()) else {
                    return self.err(n, "malformed `do` in clang's AST");
                };
                let b = self.stmt1(b)?;
                StmtKind::DoWhile(Box::new(b), self.cond(c)?)
            }
            "ForStmt" => {
                if Self::opt_child(n, 1).is_some() {
                    return self.err(n, "`for` with a condition variable is not supported");
                }
                self.locals.push(HashMap::new());
                let r = (|| -> R<StmtKind> {
                    let init = match Self::opt_child(n, 0) {
                        Some(i) => Some(Box::new(self.stmt1_flat(i)?)),
                        None => None,
                    };
                    let c = match Self::opt_child(n, 2) {
                        Some(c) => Some(self.cond(c)?),
                        None => None,
                    };
                    let step = match Self::opt_child(n, 3) {
                        Some(s) => Some(self.expr(s)?),
                        None => None,
                    };
                    let body = match Self::opt_child(n, 4) {
                        Some(b) => self.stmt1(b)?,
                        None => stmt(StmtKind::Empty, p),
                    };
                    Ok(StmtKind::For(init, c, step, Box::new(body)))
                })();
                self.locals.pop();
                r?
            }
            "AttributedStmt" => {
                // `#pragma unroll` (LoopHintAttr) and other statement attributes: no meaning
                // for the cost model; the statement itself is kept
                return match n.inner.iter().rev().find(|c| !c.kind.ends_with("Attr")) {
                    Some(c) => self.stmt_into(c, out),
                    None => Ok(()),
                };
            }
            "SwitchStmt" => {
                return self.err(
                    n,
                    "`switch` is not supported by warpcert (rewrite as `if`/`else if`)",
                )
            }
            "GotoStmt" | "LabelStmt" => {
                return self.err(n, "`goto` and labels are not supported by warpcert")
            }
            k if k.ends_with("Stmt") && !k.ends_with("Expr") => {
                return self.err(n, format!("statement `{k}` is not supported by warpcert"))
            }
            _ => match self.expr_stmt(n)? {
                Some(x) => StmtKind::Expr(x),
                None => return Ok(()),
            },
        };
        out.push(stmt(s, p));
        Ok(())
    }

    /// A `for` initializer: a declaration statement lowered in the loop's scope.
    fn stmt1_flat(&mut self, n: &Node) -> R<Stmt> {
        let p = self.pos(n);
        let mut v = Vec::new();
        self.stmt_into(n, &mut v)?;
        Ok(match v.len() {
            1 => v.pop().unwrap_or(stmt(StmtKind::Empty, p)),
            0 => stmt(StmtKind::Empty, p),
            _ => {
                // several declarators of one declaration: merge into one Decl statement
                let mut ds = Vec::new();
                for s in v {
                    match s.kind {
                        StmtKind::Decl(d) => ds.extend(d),
                        _ => return self.err(n, "unsupported `for` initializer"),
                    }
                }
                stmt(StmtKind::Decl(ds), p)
            }
        })
    }

    /// An expression statement; `None` when it is dropped (`printf`, `(void) x`).
    pub(super) fn expr_stmt(&mut self, n: &Node) -> R<Option<Expr>> {
        let s = strip(n);
        // assert(c): `(static_cast<bool>(c) ? void(0) : __assert_fail(…))` — c is evaluated
        if s.kind == "ConditionalOperator" {
            let parts: Vec<&Node> = kids(s).collect();
            if parts.len() == 3 && self.calls_named(parts[2], "__assert_fail") {
                let p = self.pos(s);
                self.warnings.push(self.sm.warning(p, "`assert`: its condition is evaluated (steps), the kernel is assumed not to fail it"));
                return Ok(Some(self.expr(parts[0])?));
            }
        }
        if let Some(a) = self.annotation_call(s) {
            let p = self.pos(s);
            self.warnings.push(self.sm.warning(
                p,
                format!("GPUVerify annotation `{a}` dropped (no run-time effect, no cost)"),
            ));
            return Ok(None);
        }
        if s.kind == "CallExpr" && self.calls_named(s, "printf") {
            let p = self.pos(s);
            self.warnings.push(self.sm.warning(p, "`printf` is dropped: output has no cost in warpcert's metrics (its arguments are not evaluated)"));
            return Ok(None);
        }
        if matches!(s.kind.as_str(), "CStyleCastExpr" | "CXXStaticCastExpr")
            && self.records.of(s) == Ty::Scalar(BaseTy::Void, false)
        {
            return Ok(None);
        }
        // record assignment `q = v[i];` as one statement per leaf
        if s.kind == "CXXOperatorCallExpr"
            || (s.kind == "BinaryOperator" && s.opcode.as_deref() == Some("="))
        {
            if let Some(stmts) = self.record_assign(s)? {
                return Ok(Some(stmts));
            }
        }
        if s.kind == "CXXMemberCallExpr" {
            if let Some(x) = self.cg_call(s)? {
                return Ok(x);
            }
        }
        Ok(Some(self.expr(n)?))
    }

    /// The name of the GPUVerify annotation `n` calls, if it is one.
    pub(super) fn annotation_call(&self, n: &Node) -> Option<String> {
        let n = strip(n);
        if n.kind != "CallExpr" {
            return None;
        }
        let name = callee_decl(n)?.name.clone()?;
        is_annotation(&name).then_some(name)
    }

    pub(super) fn calls_named(&self, n: &Node, name: &str) -> bool {
        let n = strip(n);
        n.kind == "CallExpr" && callee_decl(n).and_then(|d| d.name.as_deref()) == Some(name)
    }

    fn decl(&mut self, d: &Node, out: &mut Vec<Stmt>) -> R<()> {
        match d.kind.as_str() {
            "VarDecl" => {}
            "TypedefDecl" | "TypeAliasDecl" | "CXXRecordDecl" | "RecordDecl" | "EnumDecl"
            | "StaticAssertDecl" | "UsingDecl" | "UsingDirectiveDecl" | "NamespaceAliasDecl" => {
                return Ok(())
            }
            k => return self.err(d, format!("declaration `{k}` is not supported here")),
        }
        let pos = self.pos(d);
        let name = d.name.clone().unwrap_or_default();
        self.identifiers.insert(name.clone());
        let t = self.records.of(d);
        let shared = d.inner.iter().any(|c| c.kind == "CUDASharedAttr");
        let is_extern = d.storage_class.as_deref() == Some("extern");
        if d.inner.iter().any(|c| c.kind == "CUDAConstantAttr") {
            return self.missing(d, Missing::ConstantMemory, &name);
        }
        let init_node = if d.init.is_some() { first(d) } else { None };
        if shared {
            let decl = self.array_decl(d, &name, &t, true, is_extern)?;
            out.push(stmt(StmtKind::Decl(vec![decl]), pos));
            return Ok(());
        }
        match &t {
            // a thread-local array: lowered as a `local` array (spec/lowering.md §5)
            Ty::Array(..) if init_node.is_none() => {
                let decl = self.array_decl(d, &name, &t, false, false)?;
                out.push(stmt(StmtKind::Decl(vec![decl]), pos));
                return Ok(());
            }
            Ty::Array(..) => return self.missing(d, Missing::LocalArray, &name),
            Ty::Record(r) if self.is_cg(r) => {
                if let Some(res) = self.tile_decl(d, r, init_node) {
                    return res;
                }
                let ok = r.ends_with("thread_block") || r.ends_with("thread_group");
                if !ok {
                    let what = if r.contains("grid") {
                        Missing::GridGroup
                    } else {
                        Missing::WarpTile
                    };
                    return self.missing(d, what, r);
                }
                if let Some(i) = init_node {
                    let s = strip(i);
                    let okinit = s.kind == "CallExpr" && self.calls_named(s, "this_thread_block")
                        || s.kind == "DeclRefExpr";
                    if !okinit {
                        return self.err(i, format!("cooperative group `{name}` must be initialized with `this_thread_block()`"));
                    }
                    if s.kind == "CallExpr" {
                        // fine
                    } else if let Some(r) = s.referenced_decl.as_deref() {
                        if !matches!(self.lookup(&r.id), Some(Local::Block)) {
                            return self.err(i, "unsupported cooperative group initializer");
                        }
                    }
                }
                if let Some(m) = self.locals.last_mut() {
                    m.insert(d.id.clone(), Local::Block);
                }
                return Ok(());
            }
            Ty::Record(r) => {
                let Some(leaves) = self.records.leaves(&t) else {
                    return self.err(d, format!("local of record type `{r}` without a layout warpcert can read (pointer fields, base classes)"));
                };
                let vals = match init_node {
                    Some(i) => Some(self.record_val(i)?),
                    None => None,
                };
                let mut map = Vec::new();
                let mut decls = Vec::new();
                for l in leaves.iter() {
                    let ln = self.fresh(&format!("{name}_{}", l.path.join("_")));
                    let init = match &vals {
                        Some(v) => v.iter().find(|(p, _)| *p == l.path).map(|(_, x)| x.clone()),
                        None => None,
                    };
                    decls.push(Decl {
                        name: ln.clone(),
                        ty: l.ty.ctype().unwrap_or(CType::base(BaseTy::Int)),
                        dims: Vec::new(),
                        init,
                        shared: false,
                        is_extern: false,
                        pos,
                    });
                    map.push((l.path.clone(), ln));
                }
                if let Some(m) = self.locals.last_mut() {
                    m.insert(d.id.clone(), Local::Record(map));
                }
                out.push(stmt(StmtKind::Decl(decls), pos));
                return Ok(());
            }
            _ => {}
        }
        let ty = self.ctype_of(&t, d)?;
        let init = match init_node {
            Some(i) => {
                if let Some(x) = self.shared_memory_helper(i, &name, &t, out)? {
                    Some(x)
                } else {
                    Some(self.expr(i)?)
                }
            }
            None => None,
        };
        out.push(stmt(
            StmtKind::Decl(vec![Decl {
                name,
                ty,
                dims: Vec::new(),
                init,
                shared: false,
                is_extern: false,
                pos,
            }]),
            pos,
        ));
        Ok(())
    }

    /// `T *p = SharedMemory<T>();` (a conversion operator or call whose body declares an
    /// `extern __shared__` array and returns it cast to `T *`): a fresh `extern __shared__
    /// T name_smem[]` and `p` bound to it.
    fn shared_memory_helper(
        &mut self,
        init: &Node,
        name: &str,
        t: &Ty,
        out: &mut Vec<Stmt>,
    ) -> R<Option<Expr>> {
        let Ty::Ptr(elem) = t else { return Ok(None) };
        let s = strip(init);
        let call = match s.kind.as_str() {
            "CXXMemberCallExpr" | "CallExpr" => s,
            "CStyleCastExpr" | "ImplicitCastExpr" | "CXXStaticCastExpr" => {
                match first(s).map(strip) {
                    Some(c) if c.kind == "CXXMemberCallExpr" || c.kind == "CallExpr" => c,
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let target = match call.kind.as_str() {
            "CXXMemberCallExpr" => {
                let m = first(call).map(strip);
                m.and_then(|m| m.referenced_member_decl.clone())
            }
            _ => callee_decl(call).map(|d| d.id.clone()),
        };
        let Some(fd) = target.and_then(|id| self.decls.get(id.as_str()).copied()) else {
            return Ok(None);
        };
        let Some(body) = fd.inner.iter().find(|c| c.kind == "CompoundStmt") else {
            return Ok(None);
        };
        let has_extern_shared = body.inner.iter().any(|st| {
            st.kind == "DeclStmt"
                && st.inner.iter().any(|v| {
                    v.storage_class.as_deref() == Some("extern")
                        && v.inner.iter().any(|a| a.kind == "CUDASharedAttr")
                })
        });
        if !has_extern_shared {
            return Ok(None);
        }
        let pos = self.pos(init);
        let arr = self.fresh(&format!("{name}_smem"));
        let elem_c = match self.view_of(elem) {
            Some((v, _)) => v.ctype().unwrap_or(CType::base(BaseTy::Int)),
            None => {
                return self.err(
                    init,
                    format!(
                        "dynamic shared memory of record type `{}` is not supported",
                        elem.describe()
                    ),
                )
            }
        };
        out.push(stmt(
            StmtKind::Decl(vec![Decl {
                name: arr.clone(),
                ty: elem_c,
                dims: vec![None],
                init: None,
                shared: true,
                is_extern: true,
                pos,
            }]),
            pos,
        ));
        Ok(Some(ident(&arr, pos)))
    }

    fn array_decl(
        &mut self,
        d: &Node,
        name: &str,
        t: &Ty,
        shared: bool,
        is_extern: bool,
    ) -> R<Decl> {
        let pos = self.pos(d);
        let mut dims = Vec::new();
        let mut cur = t;
        while let Ty::Array(inner, n) = cur {
            dims.push(n.map(|v| int(v as i64, pos)));
            cur = inner;
        }
        let (elem, stride) = match cur {
            Ty::Scalar(..) => (cur.ctype().unwrap_or(CType::base(BaseTy::Int)), 1),
            Ty::Record(_) => match self.view_of(cur) {
                Some((v, s)) => (v.ctype().unwrap_or(CType::base(BaseTy::Int)), s),
                None => return self.err(d, format!("shared array of record type `{}` whose fields are not all of one scalar type is not supported yet", cur.describe())),
            },
            _ => return self.err(d, format!("array of `{}` is not supported", cur.describe())),
        };
        if stride != 1 {
            // an array of records is an array of its scalar view, `stride` times longer
            match dims.last_mut() {
                Some(Some(x)) => {
                    if let ExprKind::Int(v) = x.kind {
                        x.kind = ExprKind::Int(v * stride);
                    }
                }
                Some(None) => {}
                None => dims.push(Some(int(stride, pos))),
            }
        }
        let init = if d.init.is_some() {
            return self.err(d, format!("initializer of array `{name}` is not supported"));
        } else {
            None
        };
        Ok(Decl {
            name: name.to_string(),
            ty: elem,
            dims,
            init,
            shared,
            is_extern,
            pos,
        })
    }

    /// A file-scope variable referenced from device code: registered once.
    fn global_var(&mut self, d: &Node) -> R<()> {
        let name = d.name.clone().unwrap_or_default();
        if !self.global_seen.insert(d.id.clone()) {
            return Ok(());
        }
        self.identifiers.insert(name.clone());
        let t = self.records.of(d);
        let shared = d.inner.iter().any(|c| c.kind == "CUDASharedAttr");
        // `__constant__`: a read-only global array (spec/lowering.md §5)
        let device = d
            .inner
            .iter()
            .any(|c| matches!(c.kind.as_str(), "CUDADeviceAttr" | "CUDAConstantAttr"));
        let is_extern = d.storage_class.as_deref() == Some("extern");
        let decl = match &t {
            Ty::Array(..) => self.array_decl(d, &name, &t, shared, is_extern)?,
            Ty::Scalar(..) => {
                let pos = self.pos(d);
                Decl {
                    name: name.clone(),
                    ty: t.ctype().unwrap_or(CType::base(BaseTy::Int)),
                    dims: Vec::new(),
                    init: None,
                    shared,
                    is_extern,
                    pos,
                }
            }
            _ => {
                return self.err(
                    d,
                    format!(
                        "file-scope variable `{name}` of type `{}` is not supported",
                        t.describe()
                    ),
                )
            }
        };
        if shared {
            self.shared.push(decl);
        } else if device {
            if d.inner.iter().any(|c| c.kind == "CUDAConstantAttr") {
                self.constant_vars.push(decl.name.clone());
            }
            self.device_vars.push(decl);
        } else {
            return self.err(
                d,
                format!("file-scope host variable `{name}` used in device code"),
            );
        }
        Ok(())
    }

    // ------------------------------------------------------------------ expressions

    fn cond(&mut self, n: &Node) -> R<Expr> {
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
                    "++" | "--" => ExprKind::IncDec { pre: !n.is_postfix, inc: op == "++", e: Box::new(self.expr(a)?) },
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
                ExprKind::Cond(Box::new(self.expr(v[0])?), Box::new(self.expr(v[1])?), Box::new(self.expr(v[2])?))
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
                _ => return self.err(n, "member function call is not supported here"),
            },
            "CXXOperatorCallExpr" => return self.err(n, "overloaded operator call (e.g. on vector types from helper_math.h) is not supported yet"),
            "CXXConstructExpr" => return self.err(n, format!("construction of `{}` is not supported here", self.records.of(n).describe())),
            "CXXNullPtrLiteralExpr" | "GNUNullExpr" => return self.err(n, "null pointer is not supported"),
            "RecoveryExpr" => return self.err(n, "clang could not type this expression (see clang's error above)"),
            "CXXThisExpr" => return self.err(n, "`this` (member functions of records) is not supported yet"),
            "InitListExpr" => return self.err(n, "initializer list is not supported here"),
            "CXXDefaultArgExpr" => return self.err(n, "default argument outside a call"),
            "LambdaExpr" => return self.err(n, "lambda expression is not supported"),
            k => return self.err(n, format!("expression `{k}` is not supported")),
        };
        Ok(e(k, p))
    }

    fn binary(&mut self, n: &Node) -> R<Expr> {
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
        if matches!(ta, Ty::Ptr(_)) && matches!(tb, Ty::Ptr(_)) && sym == "-" {
            return self.err(n, "pointer difference is not supported");
        }
        let la = self.expr(a)?;
        let mut rb = self.expr(b)?;
        let mut la = la;
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

    /// A cast whose target may be a pointer: allowed between element types with the same
    /// scalar view (`float4 *` ↔ `float *`, `uint4 *` ↔ `unsigned *`); dropped otherwise
    /// for implicit value conversions (the lowering converts by type).
    fn pointer_cast(&mut self, n: &Node, inner: &Node) -> R<Expr> {
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

    fn address_of(&mut self, n: &Node, a: &Node) -> R<Expr> {
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

    fn decl_ref(&mut self, n: &Node) -> R<Expr> {
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
                if matches!(self.lookup(&r.id), Some(Local::Record(_))) {
                    return self.err(n, format!("record `{name}` used as a scalar"));
                }
                let Some(d) = self.decls.get(r.id.as_str()).copied() else {
                    return Ok(ident(&name, p));
                };
                let global = d.kind == "VarDecl" && self.is_file_scope(d);
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

    fn is_file_scope(&self, d: &Node) -> bool {
        self.global_ids.contains(d.id.as_str())
    }

    fn builtin_member(&mut self, n: &Node) -> Option<Expr> {
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

pub(super) fn types_same_view(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Scalar(x, _), Ty::Scalar(y, _)) => x == y,
        _ => false,
    }
}
