//! Recursive-descent parser (Pratt for expressions) from preprocessed tokens to [`Unit`]:
//! this file holds the parser state, its token helpers and the top level (items, function
//! signatures, types); `stmt.rs` parses statements and declarations, `expr.rs` expressions.
//! Nesting deeper than [`super::diag::MAX_NESTING`] is an error at its position.
//!
//! Top level: `__global__`/`__device__` function definitions are parsed; everything else
//! (host functions, `main`, `namespace`, `typedef`, structs, variables) is skipped by
//! brace/semicolon matching. A syntax error inside a device function body is stored in the
//! function (`Function::body`) and reported when that function is lowered or called.

use super::ast::*;
use super::diag::{Diagnostic, Pos, SourceMap, Warning};
use super::lexer::{TokKind, Token};
use std::collections::{HashMap, HashSet};

mod expr;
mod stmt;

type PResult<T> = Result<T, Diagnostic>;

/// The parser state.
pub struct Parser<'a> {
    toks: &'a [Token],
    i: usize,
    sm: &'a SourceMap,
    typedefs: HashMap<String, Option<CType>>,
    cg_handles: HashSet<String>,
    /// Template parameters of the item being parsed (`template <class T, int N>`).
    tparams: Vec<TParam>,
    /// Names of the template functions defined so far (`f<T>(…)` is an instantiation only
    /// for these; elsewhere `x < T(…)` is a comparison).
    templates: HashSet<String>,
    depth: usize,
    /// Warnings collected (RaCUDA dialect deviations found while parsing).
    pub warnings: Vec<Warning>,
}

const QUALS: [&str; 14] = [
    "const",
    "volatile",
    "static",
    "inline",
    "__inline__",
    "__forceinline__",
    "__noinline__",
    "register",
    "__restrict__",
    "__restrict",
    "restrict",
    "extern",
    "__shared__",
    "__constant__",
];

const BASE_WORDS: [&str; 10] = [
    "void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
];

fn named_type(s: &str) -> Option<BaseTy> {
    Some(match s {
        "size_t" | "ptrdiff_t" | "int64_t" | "uint64_t" | "ulong" | "longlong" => BaseTy::Long,
        "uint" | "int32_t" | "uint32_t" | "unsigned_int" => BaseTy::Int,
        "uchar" | "int8_t" | "uint8_t" => BaseTy::Char,
        "ushort" | "int16_t" | "uint16_t" => BaseTy::Short,
        "float2" | "float3" | "float4" | "int2" | "int3" | "int4" | "uint2" | "uint3" | "uint4"
        | "uchar4" | "uchar3" | "uchar2" | "double2" | "dim3" => BaseTy::Named(s.to_string()),
        _ => return None,
    })
}

fn is_unsigned_alias(s: &str) -> bool {
    matches!(
        s,
        "size_t"
            | "uint64_t"
            | "ulong"
            | "uint"
            | "uint32_t"
            | "uchar"
            | "uint8_t"
            | "ushort"
            | "uint16_t"
    )
}

impl<'a> Parser<'a> {
    /// A parser over `toks`; positions are resolved through `sm`.
    pub fn new(toks: &'a [Token], sm: &'a SourceMap) -> Parser<'a> {
        Parser {
            toks,
            i: 0,
            sm,
            typedefs: HashMap::new(),
            cg_handles: HashSet::new(),
            tparams: Vec::new(),
            templates: HashSet::new(),
            depth: 0,
            warnings: Vec::new(),
        }
    }

    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.i)
    }
    fn peek_at(&self, k: usize) -> Option<&'a Token> {
        self.toks.get(self.i + k)
    }
    fn at(&self, p: &str) -> bool {
        self.peek().map(|t| t.is(p)).unwrap_or(false)
    }
    fn at_ident(&self, s: &str) -> bool {
        self.peek().and_then(|t| t.ident()) == Some(s)
    }
    fn pos(&self) -> Pos {
        match self.peek() {
            Some(t) => t.pos,
            None => self.toks.last().map(|t| t.pos).unwrap_or(Pos {
                file: 0,
                line: 1,
                col: 1,
            }),
        }
    }
    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(self.sm.error(self.pos(), msg))
    }
    fn found(&self) -> String {
        self.peek()
            .map(|t| t.describe())
            .unwrap_or_else(|| "end of file".to_string())
    }
    fn expect(&mut self, p: &str) -> PResult<Pos> {
        if self.at(p) {
            let pos = self.pos();
            self.i += 1;
            Ok(pos)
        } else {
            self.err(format!("expected `{p}`, found {}", self.found()))
        }
    }
    fn ident(&mut self) -> PResult<(String, Pos)> {
        match self.peek() {
            Some(t) => match &t.kind {
                TokKind::Ident(s) => {
                    self.i += 1;
                    Ok((s.clone(), t.pos))
                }
                _ => self.err(format!("expected an identifier, found {}", self.found())),
            },
            None => self.err("expected an identifier, found end of file"),
        }
    }

    fn is_type_word(&self, t: &Token) -> bool {
        match t.ident() {
            Some(s) => {
                BASE_WORDS.contains(&s)
                    || QUALS.contains(&s)
                    || named_type(s).is_some()
                    || self.typedefs.contains_key(s)
                    || self.is_tparam_type(s)
            }
            None => false,
        }
    }

    // ----- top level -----

    /// Parses the whole token stream. Errors only for junk that cannot start a declaration.
    pub fn unit(&mut self) -> PResult<Unit> {
        let mut unit = Unit::default();
        while let Some(t) = self.peek() {
            if t.is(";") {
                self.i += 1;
                continue;
            }
            let Some(word) = t.ident() else {
                if t.is("}") || t.is("{") {
                    // stray braces from skipped `extern "C" {` / namespaces
                    self.i += 1;
                    continue;
                }
                return self.err(format!("expected a declaration, found {}", t.describe()));
            };
            match word {
                "template" => {
                    self.i += 1;
                    self.tparams = self.template_params();
                    let r = self.item(&mut unit, true);
                    self.tparams.clear();
                    r?;
                }
                "typedef" => self.typedef(),
                "namespace" | "using" | "struct" | "class" | "union" | "enum" => self.skip_item(),
                "extern" if matches!(self.peek_at(1).map(|t| &t.kind), Some(TokKind::Str(_))) => {
                    self.i += 2;
                }
                _ => self.item(&mut unit, false)?,
            }
        }
        Ok(unit)
    }

    /// Whether `s` names a type parameter of the current template.
    fn is_tparam_type(&self, s: &str) -> bool {
        self.tparams.iter().any(|t| t.is_type && t.name == s)
    }

    /// Reads `<class T, typename U, int N = 4>` after `template`: the parameter names (the
    /// last identifier of each comma-separated part before any `=`); `class`/`typename`
    /// parts are type parameters. Skips the list like `skip_angles` on anything else.
    fn template_params(&mut self) -> Vec<TParam> {
        let start = self.i;
        self.skip_angles();
        let end = self.i;
        let inner = self
            .toks
            .get(start + 1..end.saturating_sub(1))
            .unwrap_or(&[]);
        let mut out = Vec::new();
        for part in inner.split(|t| t.is(",")) {
            let head: Vec<&Token> = part.iter().take_while(|t| !t.is("=")).collect();
            let is_type = head
                .first()
                .and_then(|t| t.ident())
                .map(|w| w == "class" || w == "typename")
                .unwrap_or(false);
            if let Some(name) = head.iter().rev().find_map(|t| t.ident()) {
                if !(is_type && head.len() == 1) {
                    out.push(TParam {
                        name: name.to_string(),
                        is_type,
                    });
                }
            }
        }
        out
    }

    fn skip_angles(&mut self) {
        if !self.at("<") {
            return;
        }
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            self.i += 1;
            if t.is("<") {
                depth += 1;
            } else if t.is(">") {
                depth -= 1;
                if depth <= 0 {
                    return;
                }
            } else if t.is(">>") {
                depth -= 2;
                if depth <= 0 {
                    return;
                }
            } else if t.is("{") || t.is(";") {
                return;
            }
        }
    }

    /// Skips one top-level item: up to a `;` at depth 0, or a `{…}` block at depth 0
    /// (followed by an optional `;`).
    fn skip_item(&mut self) {
        let mut depth = 0i32;
        while let Some(t) = self.peek() {
            self.i += 1;
            if t.is("(") || t.is("[") {
                depth += 1;
            } else if t.is(")") || t.is("]") {
                depth -= 1;
            } else if t.is(";") && depth <= 0 {
                return;
            } else if t.is("{") {
                self.skip_braces_from_open();
                if self.at(";") {
                    self.i += 1;
                }
                if depth <= 0 {
                    return;
                }
            }
        }
    }

    /// After consuming a `{`, skips to just after its matching `}`.
    fn skip_braces_from_open(&mut self) {
        let mut depth = 1i32;
        while let Some(t) = self.peek() {
            self.i += 1;
            if t.is("{") {
                depth += 1;
            } else if t.is("}") {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
        }
    }

    fn typedef(&mut self) {
        let start = self.i;
        self.i += 1;
        let simple = self.parse_type(true).ok().and_then(|ty| {
            let n = self.peek().and_then(|t| t.ident()).map(|s| s.to_string());
            if n.is_some() && self.peek_at(1).map(|t| t.is(";")) == Some(true) {
                n.map(|n| (n, ty))
            } else {
                None
            }
        });
        match simple {
            Some((n, ty)) => {
                self.typedefs.insert(n, Some(ty));
                self.i += 2;
            }
            None => {
                self.i = start;
                self.skip_item();
                if let (Some(n), Some(true)) = (
                    self.peek().and_then(|t| t.ident()).map(|n| n.to_string()),
                    self.peek_at(1).map(|t| t.is(";")),
                ) {
                    self.typedefs.insert(n, None);
                    self.i += 2;
                    return;
                }
                // `typedef struct { … } name;`: remember `name` as an (unsupported) type
                if let Some(t) = self.toks.get(self.i.wrapping_sub(2)) {
                    if let Some(n) = t.ident() {
                        if self.toks.get(self.i.wrapping_sub(1)).map(|x| x.is(";")) == Some(true) {
                            self.typedefs.insert(n.to_string(), None);
                        }
                    }
                }
            }
        }
    }

    fn item(&mut self, unit: &mut Unit, template: bool) -> PResult<()> {
        let start = self.i;
        // scan the declaration head up to `(`, `;`, `=` or `{`
        let mut global = false;
        let mut device = false;
        let mut shared = false;
        let mut k = self.i;
        while let Some(t) = self.toks.get(k) {
            match t.ident() {
                Some("__global__") => global = true,
                Some("__device__") => device = true,
                Some("__shared__") => shared = true,
                _ => {}
            }
            if t.is("(") || t.is(";") || t.is("{") || t.is("=") {
                break;
            }
            k += 1;
        }
        let is_fn = self.toks.get(k).map(|t| t.is("(")).unwrap_or(false);
        let constant = self.toks[start..k]
            .iter()
            .any(|t| t.ident() == Some("__constant__"));
        if !is_fn && !shared && (device || constant) {
            // `__device__ T x [= e];`, `__device__ T a[N];`: a global-memory variable;
            // `__constant__` ones too (read-only global arrays, spec/lowering.md §5)
            while self.at_ident("__device__")
                || self.at_ident("__constant__")
                || self.at_ident("static")
            {
                self.i += 1;
            }
            match self.decl_stmt() {
                Ok(StmtKind::Decl(ds)) if ds.iter().all(|d| d.ty.ptr == 0 && !d.ty.is_ref) => {
                    if constant {
                        unit.constant_vars.extend(ds.iter().map(|d| d.name.clone()));
                    }
                    unit.device_vars.extend(ds);
                    return Ok(());
                }
                _ => self.i = start,
            }
        }
        if !is_fn && !shared && (device || constant) {
            if let Some(n) = self.toks[start..k].iter().rev().find_map(|t| t.ident()) {
                let q = if constant {
                    "__constant__"
                } else {
                    "__device__"
                };
                unit.unsupported_globals
                    .push((n.to_string(), q.to_string()));
            }
            self.skip_item();
            return Ok(());
        }
        if !(global || device || (shared && !is_fn)) {
            self.skip_item();
            return Ok(());
        }
        if !is_fn {
            if shared {
                match self.decl_stmt() {
                    Ok(StmtKind::Decl(ds)) => unit.shared.extend(ds),
                    _ => {
                        self.i = start;
                        self.skip_item();
                    }
                }
            } else {
                self.skip_item();
            }
            return Ok(());
        }
        match self.function(global, template) {
            Ok(Some(f)) => unit.functions.push(f),
            Ok(None) => {
                if let Some(n) = self.toks[start..k].iter().rev().find_map(|t| t.ident()) {
                    unit.prototypes.push(n.to_string());
                }
            }
            Err(d) => {
                // a broken signature: record a function stub if we know its name
                let name = self.toks[start..k]
                    .iter()
                    .rev()
                    .find_map(|t| t.ident())
                    .unwrap_or("")
                    .to_string();
                let pos = self.toks[start..k]
                    .iter()
                    .rev()
                    .find(|t| t.ident().is_some())
                    .map(|t| t.pos)
                    .unwrap_or_else(|| self.pos());
                self.i = start;
                self.skip_item();
                unit.functions.push(Function {
                    name,
                    kind: if global {
                        FnKind::Global
                    } else {
                        FnKind::Device
                    },
                    ret: None,
                    params: Vec::new(),
                    body: Err(d),
                    template,
                    tparams: self.tparams.clone(),
                    pos,
                });
            }
        }
        Ok(())
    }

    fn function(&mut self, global: bool, template: bool) -> PResult<Option<Function>> {
        // specifiers
        loop {
            match self.peek().and_then(|t| t.ident()) {
                Some(
                    "__global__" | "__device__" | "__host__" | "static" | "inline" | "__inline__"
                    | "__forceinline__" | "__noinline__" | "extern",
                ) => self.i += 1,
                Some("__launch_bounds__" | "__attribute__" | "__declspec") => {
                    self.i += 1;
                    self.skip_parens()?;
                }
                _ => break,
            }
        }
        let head_pos = self.pos();
        // return type: absent when an identifier is directly followed by `(`
        let ret = if self.peek().and_then(|t| t.ident()).is_some()
            && self.peek_at(1).map(|t| t.is("(")) == Some(true)
        {
            None
        } else {
            Some(self.parse_type(true)?)
        };
        while matches!(
            self.peek().and_then(|t| t.ident()),
            Some("__launch_bounds__" | "__attribute__" | "__declspec")
        ) {
            self.i += 1;
            self.skip_parens()?;
        }
        let (name, pos) = self.ident()?;
        if template {
            self.templates.insert(name.clone());
        }
        if ret.is_none() {
            self.warnings.push(self.sm.warning(
                head_pos,
                format!("function `{name}` has no return type (RaCUDA dialect, not valid CUDA); assuming `void`"),
            ));
        }
        self.expect("(")?;
        let mut params = Vec::new();
        if self.at_ident("void") && self.peek_at(1).map(|t| t.is(")")) == Some(true) {
            self.i += 1;
        }
        while !self.at(")") {
            let ty = self.parse_type(true)?;
            let (pname, ppos) = match self.peek().and_then(|t| t.ident()) {
                Some(_) => self.ident()?,
                None => (String::new(), self.pos()),
            };
            let mut ty = ty;
            while self.at("[") {
                // `T a[]` parameter = pointer
                self.i += 1;
                while !self.at("]") && self.peek().is_some() {
                    self.i += 1;
                }
                self.expect("]")?;
                ty.ptr += 1;
            }
            params.push(Param {
                name: pname,
                ty,
                pos: ppos,
            });
            if !self.at(")") {
                self.expect(",")?;
            }
        }
        self.expect(")")?;
        if self.at(";") {
            self.i += 1;
            return Ok(None); // prototype
        }
        if !self.at("{") {
            return self.err(format!(
                "expected `{{` or `;` after the parameters of `{name}`, found {}",
                self.found()
            ));
        }
        let open = self.i;
        let body = self.block_body();
        if body.is_err() {
            self.i = open + 1;
            self.skip_braces_from_open();
        }
        Ok(Some(Function {
            name,
            kind: if global {
                FnKind::Global
            } else {
                FnKind::Device
            },
            ret,
            params,
            body,
            template,
            tparams: self.tparams.clone(),
            pos,
        }))
    }

    fn skip_parens(&mut self) -> PResult<()> {
        self.expect("(")?;
        let mut depth = 1;
        while let Some(t) = self.peek() {
            self.i += 1;
            if t.is("(") {
                depth += 1;
            } else if t.is(")") {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
        }
        self.err("unbalanced parentheses")
    }

    /// Parses a type: qualifiers, base words, `*`s (with `const`/`__restrict__`), `&`.
    /// `allow_ptr`: also read the pointer part.
    fn parse_type(&mut self, allow_ptr: bool) -> PResult<CType> {
        let start = self.pos();
        let mut words: Vec<String> = Vec::new();
        let mut named: Option<BaseTy> = None;
        let mut unsigned = false;
        let mut alias_ptr = 0;
        while let Some(w) = self.peek().and_then(|t| t.ident()) {
            if QUALS.contains(&w) {
                self.i += 1;
                continue;
            }
            if BASE_WORDS.contains(&w) {
                if w == "unsigned" {
                    unsigned = true;
                }
                words.push(w.to_string());
                self.i += 1;
                continue;
            }
            if words.is_empty() && named.is_none() {
                if self.is_tparam_type(w) {
                    named = Some(BaseTy::Named(w.to_string()));
                    self.i += 1;
                    continue;
                }
                if let Some(b) = named_type(w) {
                    unsigned = is_unsigned_alias(w);
                    named = Some(b);
                    self.i += 1;
                    continue;
                }
                if let Some(td) = self.typedefs.get(w) {
                    match td {
                        Some(ct) => {
                            unsigned = ct.unsigned;
                            alias_ptr = ct.ptr;
                            named = Some(ct.base.clone());
                        }
                        None => named = Some(BaseTy::Named(w.to_string())),
                    }
                    self.i += 1;
                    continue;
                }
            }
            break;
        }
        if words.is_empty() && named.is_none() {
            // an unknown type name (struct, class, template parameter) followed by a declarator
            if let Some(w) = self.peek().and_then(|t| t.ident()) {
                let next_is_decl = self
                    .peek_at(1)
                    .map(|n| n.ident().is_some() || n.is("*") || n.is("&"))
                    .unwrap_or(false);
                if next_is_decl {
                    named = Some(BaseTy::Named(w.to_string()));
                    self.i += 1;
                }
            }
        }
        let base = if let Some(b) = named {
            b
        } else if words.is_empty() {
            return Err(self
                .sm
                .error(start, format!("expected a type, found {}", self.found())));
        } else if words.iter().any(|w| w == "void") {
            BaseTy::Void
        } else if words.iter().any(|w| w == "bool") {
            BaseTy::Bool
        } else if words.iter().any(|w| w == "char") {
            BaseTy::Char
        } else if words.iter().any(|w| w == "short") {
            BaseTy::Short
        } else if words.iter().any(|w| w == "float") {
            BaseTy::Float
        } else if words.iter().any(|w| w == "double") {
            BaseTy::Double
        } else if words.iter().any(|w| w == "long") {
            BaseTy::Long
        } else {
            BaseTy::Int
        };
        let mut ty = CType {
            base,
            unsigned,
            ptr: alias_ptr,
            is_ref: false,
        };
        if allow_ptr {
            self.ptr_part(&mut ty);
        }
        Ok(ty)
    }

    fn ptr_part(&mut self, ty: &mut CType) {
        loop {
            if self.at("*") {
                ty.ptr += 1;
                self.i += 1;
            } else if self.at("&") {
                ty.is_ref = true;
                self.i += 1;
            } else if self
                .peek()
                .and_then(|t| t.ident())
                .map(|w| QUALS.contains(&w))
                .unwrap_or(false)
            {
                self.i += 1;
            } else {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::lexer::lex;

    fn parse(src: &str) -> Result<Unit, Diagnostic> {
        let mut sm = SourceMap::default();
        let f = sm.add("t.cu", src.to_string());
        let toks = lex(&sm, f)?;
        Parser::new(&toks, &sm).unit()
    }

    #[test]
    fn precedence_and_casts() {
        let u = parse("__global__ void k(int *a) { a[0] = 1 + 2 * (int)3.5 << 1; }");
        let f = u.ok().and_then(|u| u.functions.into_iter().next());
        let body = f.and_then(|f| f.body.ok()).unwrap_or_default();
        let StmtKind::Expr(Expr {
            kind: ExprKind::Assign(None, _, rhs),
            ..
        }) = &body[0].kind
        else {
            panic!("expected assignment")
        };
        // `<<` binds weaker than `+`: (1 + 2*(int)3.5) << 1
        assert!(matches!(rhs.kind, ExprKind::Binary(BinaryOp::Shl, _, _)));
    }

    #[test]
    fn launch_bounds_after_return_type() {
        let u = parse("__global__ void __launch_bounds__(256, 2) k(int *a) { a[0] = 1; }");
        let f = u.ok().and_then(|u| u.functions.into_iter().next());
        assert_eq!(
            f.map(|f| (f.name, f.body.is_ok())),
            Some(("k".to_string(), true))
        );
    }

    #[test]
    fn dangling_else_binds_to_inner_if() {
        let u = parse("__global__ void k(int *a) { if (1) if (2) a[0] = 1; else a[0] = 2; }");
        let body = u
            .ok()
            .and_then(|u| u.functions.into_iter().next())
            .and_then(|f| f.body.ok())
            .unwrap_or_default();
        let StmtKind::If(_, inner, outer_else) = &body[0].kind else {
            panic!("expected if")
        };
        assert!(outer_else.is_none());
        assert!(matches!(&inner.kind, StmtKind::If(_, _, Some(_))));
    }

    #[test]
    fn host_code_is_skipped() {
        let u = parse(
            "struct S { int a; }; int main(int c, char **v) { foo<<<1, 2>>>(x); return 0; }\n\
             __global__ void k() {}",
        );
        let names: Vec<String> = u
            .map(|u| u.functions.into_iter().map(|f| f.name).collect())
            .unwrap_or_default();
        assert_eq!(names, vec!["k".to_string()]);
    }
}
