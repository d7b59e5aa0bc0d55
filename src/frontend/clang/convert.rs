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
//!
//! This file holds the converter's state and the helpers the others share; the conversion
//! itself is split by what it converts: `functions` (definitions and parameters), `stmts`
//! (statements), `decls` (local, shared and file-scope declarations), `exprs` (scalar and
//! pointer expressions), `records` (record values), `calls` (calls).

use super::json::Node;
use super::types::{Records, Ty};
use super::unsupported::Missing;
use crate::frontend::ast::{
    BaseTy, BinaryOp, CType, Decl, Expr, ExprKind, Function, Stmt, StmtKind,
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
    /// A `thread_group` parameter bound to a warp tile of `N` lanes (a specialization of
    /// its function for a `thread_block_tile<N>` argument, `spec/lowering.md` §9.5).
    Tile(u32),
    /// `cg::grid_group g = this_grid();` or a `grid_group` parameter (`spec/lowering.md`
    /// §9.6).
    Grid,
    /// `cg::coalesced_group g = …;`: the `int` local holding its lane mask
    /// (`clang/coalesced.rs`, `spec/lowering.md` §9.5).
    Coalesced(String),
    /// `auto f = [captures](params) { … };` (`clang/lambda.rs`, `spec/lowering.md` §9.7):
    /// the device function its `operator()` was converted to and the trailing arguments
    /// every call passes for the captures.
    Lambda {
        /// The converted function's name.
        func: String,
        /// One argument per capture parameter, in order.
        captures: Vec<Expr>,
    },
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
    pub(super) global_ids: BTreeSet<String>,
    /// Every identifier used (lowering temporaries avoid them).
    pub identifiers: BTreeSet<String>,
    /// Converted functions.
    pub functions: Vec<Function>,
    pub(super) fn_names: HashMap<String, String>,
    /// The groups bound to the `thread_group`/`thread_block` parameters of the function
    /// being converted, in order (`None`: the block, `Some(N)`: a warp tile of `N` lanes).
    pub(super) group_args: Vec<Option<u32>>,
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
    /// Statements the current statement needs before it: the locals and the call of a
    /// record-valued function (`records::record_call`), emitted by `stmts`.
    pub(super) pending: Vec<Stmt>,
    /// Record-valued functions (by AST name): their result leaves (path, type), passed as
    /// trailing reference parameters.
    pub(super) record_fns: HashMap<String, Vec<(Vec<String>, CType)>>,
    /// While converting a record-valued function: its result parameters by leaf path.
    pub(super) ret_leaves: Option<Vec<(Vec<String>, String)>>,
    /// While converting a lambda's body: the ids of its own and its captured variables
    /// (any other local of the enclosing function it names is a constant or an error).
    pub(super) lambda_scope: Option<BTreeSet<String>>,
    /// The names of the variables and parameters declared in the function being converted,
    /// with their number of declarations (a capture by reference is passed by name).
    pub(super) declared_names: HashMap<String, usize>,
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

pub(super) fn stmt(kind: StmtKind, pos: Pos) -> Stmt {
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
pub(super) use super::names::is_opaque_math;

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
                if c.kind == "VarDecl" {
                    // a local bound to a lambda: its closure type and `operator()`
                    for x in &c.inner {
                        let l = super::warp::unwrap(x);
                        if l.kind == "LambdaExpr" {
                            index(l, out);
                        }
                    }
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
            group_args: Vec::new(),
            shared: Vec::new(),
            device_vars: Vec::new(),
            constant_vars: Vec::new(),
            global_seen: BTreeSet::new(),
            warnings: Vec::new(),
            locals: Vec::new(),
            here: Pos::default(),
            warned_opaque: BTreeSet::new(),
            pending: Vec::new(),
            record_fns: HashMap::new(),
            ret_leaves: None,
            lambda_scope: None,
            declared_names: HashMap::new(),
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

    /// The size in bytes of one element of `t`'s scalar view (of `t` itself when it has
    /// none), at least 1: the unit leaf byte offsets are divided by to index the view.
    pub(super) fn view_elem_bytes(&self, t: &Ty) -> u64 {
        let v = self.view_of(t).map(|v| v.0).unwrap_or_else(|| t.clone());
        self.records.size_align(&v).map(|x| x.0).unwrap_or(1).max(1)
    }

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
}

pub(super) fn types_same_view(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Scalar(x, _), Ty::Scalar(y, _)) => x == y,
        _ => false,
    }
}
