//! A token-level C preprocessor: `#define` (object- and function-like, `#` and `##`
//! approximated), `#undef`, `#include "…"` (relative to the including file; a missing CUDA
//! Samples helper header with a built-in stand-in in [`super::sdk`] is read from it, with a
//! warning), `#include <…>` skipped (with a warning unless it is a C library or CUDA
//! toolkit header, [`super::sdk::is_known_system_header`]),
//! `#if/#ifdef/#ifndef/#elif/#else/#endif` on integer constant expressions with `defined`,
//! `#pragma` and unknown directives ignored, `#error` an error in active regions.
//!
//! Tokens keep the position of the original file they come from; tokens produced by a macro
//! expansion take the position of the macro's use, so later errors point at the user's code.

use super::diag::{Diagnostic, Pos, SourceMap, Warning, MAX_MACRO_OUTPUT, MAX_NESTING};
use super::lexer::{lex, TokKind, Token};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
struct Macro {
    params: Option<Vec<String>>,
    body: Vec<Token>,
}

/// Output of preprocessing: the token stream of the translation unit, and warnings.
pub struct Preprocessed {
    /// Tokens after directive processing and macro expansion.
    pub tokens: Vec<Token>,
    /// Warnings (missing local includes, includes in string mode).
    pub warnings: Vec<Warning>,
}

struct Pp<'a> {
    sm: &'a mut SourceMap,
    paths: Vec<Option<PathBuf>>,
    macros: HashMap<String, Macro>,
    out: Vec<Token>,
    warnings: Vec<Warning>,
    depth: usize,
    /// Tokens of macro output still allowed ([`MAX_MACRO_OUTPUT`]).
    budget: std::cell::Cell<usize>,
}

#[derive(Clone, Copy)]
struct Cond {
    parent_active: bool,
    taken: bool,
    active: bool,
}

/// Preprocesses file `main` of `sm` (already added); `path` is its location on disk (for
/// `#include "…"`; `None` for in-memory text, where local includes are skipped with a warning).
/// Errors: lexical errors, `#error`, malformed `#if` expressions, unbalanced conditionals,
/// include nesting deeper than 32.
/// `defines` are `(name, value)` pairs defined before the file is read (the `-DNAME=VALUE`
/// flags of a GPUVerify header line); they are read from a pseudo-file `<header -D flags>`.
pub fn preprocess(
    sm: &mut SourceMap,
    main: u32,
    path: Option<&Path>,
    defines: &[(String, String)],
) -> Result<Preprocessed, Diagnostic> {
    let mut pp = Pp {
        sm,
        paths: Vec::new(),
        macros: HashMap::new(),
        out: Vec::new(),
        warnings: Vec::new(),
        depth: 0,
        budget: std::cell::Cell::new(MAX_MACRO_OUTPUT),
    };
    pp.set_path(main, path.map(|p| p.to_path_buf()));
    if !defines.is_empty() {
        let text: String = defines
            .iter()
            .map(|(n, v)| format!("#define {n} {v}\n"))
            .collect();
        let id = pp.sm.add("<header -D flags>", text);
        pp.set_path(id, None);
        pp.file(id)?;
    }
    pp.file(main)?;
    Ok(Preprocessed {
        tokens: pp.out,
        warnings: pp.warnings,
    })
}

fn is_adjacent(a: &Token, name_len: usize, b: &Token) -> bool {
    a.pos.file == b.pos.file
        && a.pos.line == b.pos.line
        && a.pos.col as usize + name_len == b.pos.col as usize
}

impl Pp<'_> {
    fn set_path(&mut self, f: u32, p: Option<PathBuf>) {
        while self.paths.len() <= f as usize {
            self.paths.push(None);
        }
        self.paths[f as usize] = p;
    }

    fn file(&mut self, f: u32) -> Result<(), Diagnostic> {
        let toks = lex(self.sm, f)?;
        let mut conds: Vec<Cond> = Vec::new();
        let mut pending: Vec<Token> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = &toks[i];
            if t.bol && t.is("#") {
                let mut j = i + 1;
                while j < toks.len() && !toks[j].bol {
                    j += 1;
                }
                let line: Vec<Token> = toks[i + 1..j].to_vec();
                let hash_pos = t.pos;
                i = j;
                let active = conds.last().map(|c| c.active).unwrap_or(true);
                let name = line
                    .first()
                    .and_then(|t| t.ident())
                    .unwrap_or("")
                    .to_string();
                match name.as_str() {
                    "if" | "ifdef" | "ifndef" => {
                        let v = if !active {
                            false
                        } else if name == "if" {
                            self.eval_if(&line[1..], hash_pos)? != 0
                        } else {
                            let d = line
                                .get(1)
                                .and_then(|t| t.ident())
                                .map(|n| self.macros.contains_key(n))
                                .unwrap_or(false);
                            if name == "ifdef" {
                                d
                            } else {
                                !d
                            }
                        };
                        conds.push(Cond {
                            parent_active: active,
                            taken: v,
                            active: active && v,
                        });
                    }
                    "elif" | "else" | "endif" => {
                        let Some(c) = conds.last().copied() else {
                            return Err(self
                                .sm
                                .error(hash_pos, format!("`#{name}` without `#if`")));
                        };
                        if name == "endif" {
                            conds.pop();
                        } else {
                            let v = if !c.parent_active || c.taken {
                                false
                            } else if name == "elif" {
                                self.eval_if(&line[1..], hash_pos)? != 0
                            } else {
                                true
                            };
                            if let Some(top) = conds.last_mut() {
                                top.active = c.parent_active && v;
                                top.taken = c.taken || v;
                            }
                        }
                    }
                    _ if !active => {}
                    "define" => {
                        self.flush(&mut pending)?;
                        self.define(&line, hash_pos)?;
                    }
                    "undef" => {
                        self.flush(&mut pending)?;
                        if let Some(n) = line.get(1).and_then(|t| t.ident()) {
                            self.macros.remove(n);
                        }
                    }
                    "include" => {
                        self.flush(&mut pending)?;
                        self.include(f, &line, hash_pos)?;
                    }
                    "error" => {
                        return Err(self.sm.error(hash_pos, "`#error` directive reached"));
                    }
                    _ => {} // #pragma, #line, #warning, unknown: ignored
                }
                continue;
            }
            if conds.last().map(|c| c.active).unwrap_or(true) {
                pending.push(t.clone());
            }
            i += 1;
        }
        self.flush(&mut pending)?;
        if let Some(c) = conds.last() {
            let _ = c;
            let pos = toks.last().map(|t| t.pos).unwrap_or(Pos {
                file: f,
                line: 1,
                col: 1,
            });
            return Err(self
                .sm
                .error(pos, "unterminated `#if`/`#ifdef` at end of file"));
        }
        Ok(())
    }

    fn flush(&mut self, pending: &mut Vec<Token>) -> Result<(), Diagnostic> {
        if pending.is_empty() {
            return Ok(());
        }
        let toks = std::mem::take(pending);
        let expanded = self.expand(&toks, &[], 0)?;
        self.out.extend(expanded);
        Ok(())
    }

    fn define(&mut self, line: &[Token], pos: Pos) -> Result<(), Diagnostic> {
        let Some(name_tok) = line.get(1) else {
            return Err(self.sm.error(pos, "`#define` without a name"));
        };
        let Some(name) = name_tok.ident() else {
            return Err(self
                .sm
                .error(name_tok.pos, "`#define` expects a macro name"));
        };
        let mut k = 2;
        let mut params = None;
        if line
            .get(2)
            .map(|t| t.is("(") && is_adjacent(name_tok, name.len(), t))
            == Some(true)
        {
            let mut ps = Vec::new();
            k = 3;
            loop {
                let Some(t) = line.get(k) else {
                    return Err(self
                        .sm
                        .error(name_tok.pos, "unterminated macro parameter list"));
                };
                k += 1;
                if t.is(")") {
                    break;
                }
                if t.is(",") {
                    continue;
                }
                match &t.kind {
                    TokKind::Ident(p) => ps.push(p.clone()),
                    TokKind::Punct("...") => ps.push("__VA_ARGS__".to_string()),
                    _ => return Err(self.sm.error(t.pos, "bad macro parameter")),
                }
            }
            params = Some(ps);
        }
        let body = line.get(k..).unwrap_or(&[]).to_vec();
        self.macros.insert(name.to_string(), Macro { params, body });
        Ok(())
    }

    fn include(&mut self, cur: u32, line: &[Token], pos: Pos) -> Result<(), Diagnostic> {
        let Some(t) = line.get(1) else {
            return Ok(());
        };
        let TokKind::Str(rel) = &t.kind else {
            // `<system>` headers (and computed includes) are skipped; headers other than
            // the C library's and the CUDA toolkit's with a note
            if t.is("<") {
                let name: String = line
                    .get(2..)
                    .unwrap_or(&[])
                    .iter()
                    .take_while(|x| !x.is(">"))
                    .map(tok_text)
                    .collect();
                if !super::sdk::is_known_system_header(&name) {
                    self.warnings.push(self.sm.warning(
                        t.pos,
                        format!("`#include <{name}>` not read (system/SDK headers are skipped; a name it would define that the kernel uses must be a warpcert built-in, else lowering reports it as unknown)"),
                    ));
                }
            }
            return Ok(());
        };
        let base = self.paths.get(cur as usize).cloned().flatten();
        let Some(base) = base else {
            if let Some(text) = super::sdk::stand_in(rel) {
                return self.stand_in(rel, text, t.pos, "source given as text, no directory");
            }
            self.warnings.push(self.sm.warning(
                t.pos,
                format!("`#include \"{rel}\"` not followed (source given as text, no directory)"),
            ));
            return Ok(());
        };
        let p = base
            .parent()
            .map(|d| d.join(rel))
            .unwrap_or_else(|| PathBuf::from(rel));
        if self.depth >= 32 {
            return Err(self.sm.error(pos, "`#include` nested more than 32 levels"));
        }
        match std::fs::read(&p) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let id = self.sm.add(&p.display().to_string(), text);
                self.set_path(id, Some(p));
                self.depth += 1;
                let r = self.file(id);
                self.depth -= 1;
                r
            }
            Err(e) => {
                if let Some(text) = super::sdk::stand_in(rel) {
                    let why = format!("cannot read {}: {e}", p.display());
                    return self.stand_in(rel, text, t.pos, &why);
                }
                self.warnings.push(self.sm.warning(
                    t.pos,
                    format!(
                        "`#include \"{rel}\"`: cannot read {}: {e}; skipped",
                        p.display()
                    ),
                ));
                Ok(())
            }
        }
    }

    /// Reads warpcert's built-in stand-in `text` for the missing header `rel` (warning at `at`).
    fn stand_in(&mut self, rel: &str, text: &str, at: Pos, why: &str) -> Result<(), Diagnostic> {
        let names: Vec<&str> = text
            .lines()
            .filter_map(|l| {
                l.strip_prefix("#define ")
                    .or_else(|| l.strip_prefix("typedef "))
                    .map(|r| {
                        let r = r.trim_end_matches(';');
                        if l.starts_with('t') {
                            r.rsplit(' ').next().unwrap_or(r)
                        } else {
                            r.split([' ', '(']).next().unwrap_or(r)
                        }
                    })
            })
            .collect();
        self.warnings.push(self.sm.warning(
            at,
            format!(
                "`#include \"{rel}\"` ({why}): using warpcert's built-in stand-in with the upstream NVIDIA CUDA Samples definitions of {}",
                names.join(", ")
            ),
        ));
        let id = self
            .sm
            .add(&format!("<warpcert stand-in for {rel}>"), text.to_string());
        self.set_path(id, None);
        self.depth += 1;
        let r = self.file(id);
        self.depth -= 1;
        r
    }

    /// Expands macros in `toks` (positions of expansions = position of the use), as C
    /// rescans: the expansion of a macro replaces its use at the front of the pending tokens,
    /// with the macro disabled until its expansion has been read, so chains of any length take
    /// no stack. Arguments of function-like macros are expanded first, one level of recursion
    /// per nested call (at most [`MAX_NESTING`]). `outer` are the macros disabled by the
    /// caller.
    ///
    /// Errors: a macro whose expansion names itself (recursion), more than
    /// [`MAX_MACRO_OUTPUT`] tokens of macro output in the translation unit, or arguments
    /// nested deeper than [`MAX_NESTING`]; each names the macro and the use.
    fn expand(
        &self,
        toks: &[Token],
        outer: &[String],
        depth: usize,
    ) -> Result<Vec<Token>, Diagnostic> {
        let mut out = Vec::with_capacity(toks.len());
        // pending tokens, reversed: the next one is the last
        let mut stack: Vec<Token> = toks.iter().rev().cloned().collect();
        // macros being expanded, with the stack length below which their expansion is read
        let mut active: Vec<(String, usize)> = Vec::new();
        while let Some(t) = stack.pop() {
            while active.last().is_some_and(|(_, base)| *base > stack.len()) {
                active.pop();
            }
            let Some((name, m)) = t.ident().and_then(|n| self.macros.get_key_value(n)) else {
                out.push(t);
                continue;
            };
            if active.iter().any(|(a, _)| a == name) || outer.iter().any(|a| a == name) {
                return Err(self.sm.limit(
                    t.pos,
                    format!("macro `{name}` expands to itself: recursive macros cannot be expanded (C would leave `{name}` unexpanded here)"),
                ));
            }
            let body = match &m.params {
                None => relocate(&m.body, &t),
                Some(params) => {
                    if !stack.last().is_some_and(|n| n.is("(")) {
                        out.push(t);
                        continue;
                    }
                    let Some(args) = take_args(&mut stack, params) else {
                        out.push(t);
                        continue;
                    };
                    if depth >= MAX_NESTING {
                        return Err(self.sm.limit(
                            t.pos,
                            format!("macro calls nested in the arguments of `{name}` exceed warpcert's limit of {MAX_NESTING} levels"),
                        ));
                    }
                    let mut disabled: Vec<String> = outer.to_vec();
                    disabled.extend(active.iter().map(|(a, _)| a.clone()));
                    let expanded_args = args
                        .iter()
                        .map(|a| self.expand(a, &disabled, depth + 1))
                        .collect::<Result<Vec<_>, _>>()?;
                    relocate(&substitute(&m.body, params, &args, &expanded_args, &t), &t)
                }
            };
            let left = self.budget.get().checked_sub(body.len() + 1);
            let Some(left) = left else {
                let top = outer
                    .first()
                    .or(active.first().map(|(a, _)| a))
                    .unwrap_or(name);
                return Err(self.sm.limit(
                    t.pos,
                    format!("expanding macro `{top}` exceeds warpcert's limit of {MAX_MACRO_OUTPUT} tokens of macro output (an exponential macro? the limit was reached in `{name}`)"),
                ));
            };
            self.budget.set(left);
            let base = stack.len();
            stack.extend(body.into_iter().rev());
            active.push((name.clone(), base));
        }
        Ok(out)
    }

    fn eval_if(&self, line: &[Token], pos: Pos) -> Result<i64, Diagnostic> {
        // replace defined(X) / defined X
        let mut toks = Vec::new();
        let mut i = 0;
        while i < line.len() {
            if line[i].ident() == Some("defined") {
                let (name, adv) = if line.get(i + 1).map(|t| t.is("(")).unwrap_or(false) {
                    (line.get(i + 2).and_then(|t| t.ident()), 4)
                } else {
                    (line.get(i + 1).and_then(|t| t.ident()), 2)
                };
                let v = name.map(|n| self.macros.contains_key(n)).unwrap_or(false);
                toks.push(Token {
                    kind: TokKind::Int(v as i64),
                    pos: line[i].pos,
                    bol: false,
                });
                i += adv;
                continue;
            }
            toks.push(line[i].clone());
            i += 1;
        }
        let toks = self.expand(&toks, &[], 0)?;
        let mut ev = CondEval { toks: &toks, i: 0 };
        let v = ev.expr(0);
        match v {
            Some(v) if ev.i == toks.len() => Ok(v),
            _ => Err(self.sm.error(pos, "cannot evaluate `#if` expression")),
        }
    }
}

/// Takes the parenthesized arguments of a function-like macro call from the front of
/// `stack` (reversed pending tokens, `(` last). `None`, with `stack` unchanged, when the
/// parenthesis is not closed.
fn take_args(stack: &mut Vec<Token>, params: &[String]) -> Option<Vec<Vec<Token>>> {
    let mut taken: Vec<Token> = Vec::new();
    let mut args: Vec<Vec<Token>> = vec![Vec::new()];
    let mut level = 0usize;
    let va = params.last().map(|p| p == "__VA_ARGS__").unwrap_or(false);
    taken.extend(stack.pop()); // `(`
    let mut closed = false;
    while let Some(a) = stack.pop() {
        if a.is("(") {
            level += 1;
        } else if a.is(")") {
            if level == 0 {
                taken.push(a);
                closed = true;
                break;
            }
            level -= 1;
        } else if a.is(",") && level == 0 && !(va && args.len() >= params.len()) {
            args.push(Vec::new());
            taken.push(a);
            continue;
        }
        if let Some(last) = args.last_mut() {
            last.push(a.clone());
        }
        taken.push(a);
    }
    if !closed {
        stack.extend(taken.into_iter().rev());
        return None;
    }
    if params.is_empty() && args.len() == 1 && args[0].is_empty() {
        args.clear();
    }
    Some(args)
}

/// The body `mb` of a function-like macro with `params` replaced: `#p` by the spelling of
/// argument `p`, `x ## p` pasted, other parameters by their expanded argument.
fn substitute(
    mb: &[Token],
    params: &[String],
    args: &[Vec<Token>],
    expanded_args: &[Vec<Token>],
    t: &Token,
) -> Vec<Token> {
    let mut body = Vec::new();
    let mut k = 0;
    while k < mb.len() {
        let b = &mb[k];
        if b.is("#") {
            if let Some(pi) = mb
                .get(k + 1)
                .and_then(|n| n.ident())
                .and_then(|n| params.iter().position(|p| p == n))
            {
                let s: Vec<String> = args
                    .get(pi)
                    .map(|a| a.iter().map(tok_text).collect())
                    .unwrap_or_default();
                body.push(Token {
                    kind: TokKind::Str(s.join(" ")),
                    pos: t.pos,
                    bol: false,
                });
                k += 2;
                continue;
            }
        }
        if b.is("##") {
            // token pasting of two identifier/number spellings
            if let (Some(prev), Some(next)) = (body.pop(), mb.get(k + 1)) {
                let next_toks: Vec<Token> = match next
                    .ident()
                    .and_then(|n| params.iter().position(|p| p == n))
                {
                    Some(pi) => args.get(pi).cloned().unwrap_or_default(),
                    None => vec![next.clone()],
                };
                let joined = format!(
                    "{}{}",
                    tok_text(&prev),
                    next_toks.first().map(tok_text).unwrap_or_default()
                );
                body.push(Token {
                    kind: TokKind::Ident(joined),
                    pos: t.pos,
                    bol: false,
                });
                body.extend(next_toks.into_iter().skip(1));
                k += 2;
                continue;
            }
        }
        match b.ident().and_then(|n| params.iter().position(|p| p == n)) {
            Some(pi) => {
                if let Some(a) = expanded_args.get(pi) {
                    body.extend(a.iter().cloned());
                }
            }
            None => body.push(b.clone()),
        }
        k += 1;
    }
    body
}

fn tok_text(t: &Token) -> String {
    match &t.kind {
        TokKind::Ident(s) => s.clone(),
        TokKind::Int(n) => n.to_string(),
        TokKind::Float(x) => x.to_string(),
        TokKind::Str(s) => format!("\"{s}\""),
        TokKind::Punct(p) => p.to_string(),
        TokKind::Unknown(c) => c.to_string(),
    }
}

fn relocate(body: &[Token], at: &Token) -> Vec<Token> {
    body.iter()
        .map(|b| Token {
            kind: b.kind.clone(),
            pos: at.pos,
            bol: false,
        })
        .collect()
}

struct CondEval<'a> {
    toks: &'a [Token],
    i: usize,
}

impl CondEval<'_> {
    fn prec(p: &str) -> Option<u8> {
        Some(match p {
            "||" => 1,
            "&&" => 2,
            "|" => 3,
            "^" => 4,
            "&" => 5,
            "==" | "!=" => 6,
            "<" | ">" | "<=" | ">=" => 7,
            "<<" | ">>" => 8,
            "+" | "-" => 9,
            "*" | "/" | "%" => 10,
            _ => return None,
        })
    }

    fn expr(&mut self, min: u8) -> Option<i64> {
        let mut lhs = self.unary()?;
        while let Some(t) = self.toks.get(self.i) {
            if t.is("?") && min == 0 {
                self.i += 1;
                let a = self.expr(0)?;
                if !self.toks.get(self.i)?.is(":") {
                    return None;
                }
                self.i += 1;
                let b = self.expr(0)?;
                lhs = if lhs != 0 { a } else { b };
                continue;
            }
            let TokKind::Punct(p) = t.kind else { break };
            let Some(pr) = Self::prec(p) else { break };
            if pr <= min {
                break;
            }
            self.i += 1;
            let rhs = self.expr(pr)?;
            lhs = match p {
                "||" => (lhs != 0 || rhs != 0) as i64,
                "&&" => (lhs != 0 && rhs != 0) as i64,
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => (lhs == rhs) as i64,
                "!=" => (lhs != rhs) as i64,
                "<" => (lhs < rhs) as i64,
                ">" => (lhs > rhs) as i64,
                "<=" => (lhs <= rhs) as i64,
                ">=" => (lhs >= rhs) as i64,
                "<<" => lhs.checked_shl(rhs as u32).unwrap_or(0),
                ">>" => lhs.checked_shr(rhs as u32).unwrap_or(0),
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" => lhs.checked_div(rhs)?,
                "%" => lhs.checked_rem(rhs)?,
                _ => return None,
            };
        }
        Some(lhs)
    }

    fn unary(&mut self) -> Option<i64> {
        let t = self.toks.get(self.i)?;
        self.i += 1;
        match &t.kind {
            TokKind::Int(n) => Some(*n),
            TokKind::Ident(_) => Some(0),
            TokKind::Punct("(") => {
                let v = self.expr(0)?;
                if !self.toks.get(self.i)?.is(")") {
                    return None;
                }
                self.i += 1;
                Some(v)
            }
            TokKind::Punct("!") => Some((self.unary()? == 0) as i64),
            TokKind::Punct("-") => Some(self.unary()?.wrapping_neg()),
            TokKind::Punct("+") => self.unary(),
            TokKind::Punct("~") => Some(!self.unary()?),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> Result<Vec<TokKind>, Diagnostic> {
        let mut sm = SourceMap::default();
        let f = sm.add("t.cu", src.to_string());
        preprocess(&mut sm, f, None, &[]).map(|p| p.tokens.into_iter().map(|t| t.kind).collect())
    }

    #[test]
    fn object_and_function_macros() {
        let k = run("#define N 4\n#define SQ(x) ((x)*(x))\nSQ(N)").unwrap_or_default();
        let s: Vec<String> = k
            .iter()
            .map(|t| match t {
                TokKind::Int(n) => n.to_string(),
                TokKind::Punct(p) => p.to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(s.join(""), "((4)*(4))");
    }

    #[test]
    fn conditionals() {
        let k = run("#define A 1\n#if defined(A) && A > 0\nx\n#elif 1\ny\n#else\nz\n#endif\n#ifndef B\nw\n#endif")
            .unwrap_or_default();
        assert_eq!(
            k,
            vec![TokKind::Ident("x".into()), TokKind::Ident("w".into())]
        );
    }

    #[test]
    fn unbalanced_if_is_error() {
        assert!(run("#if 1\nx\n").is_err());
        assert!(run("#endif\n").is_err());
    }

    #[test]
    fn exponential_macros_are_an_error_naming_the_macro() {
        let mut src = String::from("#define M0 x x\n");
        for k in 1..40 {
            src.push_str(&format!("#define M{k} M{} M{}\n", k - 1, k - 1));
        }
        src.push_str("\nM39");
        match run(&src) {
            Err(d) => {
                assert!(d.message.contains("macro `M"), "{}", d.message);
                assert!(d.message.contains("limit"), "{}", d.message);
                assert_eq!((d.line, d.col), (42, 1)); // 40 #define lines, a blank line, the use
            }
            Ok(t) => panic!("{} tokens", t.len()),
        }
    }

    #[test]
    fn chains_of_any_length_expand() {
        // the C preprocessor expands a chain of object-like macros to its end (C11 6.10.3.4)
        let mut src = String::from("#define A0 1\n");
        for k in 1..=5000 {
            src.push_str(&format!("#define A{k} A{}\n", k - 1));
        }
        src.push_str("A5000 A65");
        assert_eq!(run(&src).ok(), Some(vec![TokKind::Int(1), TokKind::Int(1)]));
    }

    #[test]
    fn recursive_macro_is_an_error() {
        for src in [
            "#define A A\nA",
            "#define A B\n#define B A + 1\nA",
            "#define F(x) F(x)\nF(1)",
        ] {
            match run(src) {
                Err(d) => assert!(d.message.contains("expands to itself"), "{}", d.message),
                Ok(t) => panic!("{src:?} gave {t:?}"),
            }
        }
    }

    #[test]
    fn nested_function_macros_expand_arguments_first() {
        let k = run("#define D(x) (x+x)\nD(D(1))").unwrap_or_default();
        let s: String = k
            .iter()
            .map(|t| match t {
                TokKind::Int(n) => n.to_string(),
                TokKind::Punct(p) => p.to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(s, "((1+1)+(1+1))");
    }

    #[test]
    fn expansion_keeps_use_position() {
        let mut sm = SourceMap::default();
        let f = sm.add("t.cu", "#define K 7\n\n  K".to_string());
        let p = preprocess(&mut sm, f, None, &[]).ok().map(|p| p.tokens);
        let pos = p.and_then(|t| t.first().map(|t| (t.pos.line, t.pos.col)));
        assert_eq!(pos, Some((3, 3)));
    }
}
