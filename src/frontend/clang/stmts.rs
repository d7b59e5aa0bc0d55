//! Statements (`spec/lowering.md` §9.3): control flow in the builtin parser's shapes,
//! statement attributes (`#pragma unroll`) ignored, `assert`/`printf`/GPUVerify annotations
//! as expression statements.

use super::convert::{callee_decl, first, ident, kids, stmt, strip, Conv};
use super::json::Node;
use super::names::is_annotation;
use super::types::Ty;
use crate::frontend::ast::{BaseTy, Expr, ExprKind, Stmt, StmtKind};
use crate::frontend::diag::Diagnostic;
use std::collections::HashMap;

type R<T> = Result<T, Diagnostic>;

impl Conv<'_> {
    pub(super) fn block_stmts(&mut self, n: &Node) -> R<Vec<Stmt>> {
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

    pub(super) fn stmt1(&mut self, n: &Node) -> R<Stmt> {
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

    pub(super) fn opt_child(n: &Node, k: usize) -> Option<&Node> {
        n.inner.get(k).filter(|c| !c.kind.is_empty())
    }

    pub(super) fn stmt_into(&mut self, n: &Node, out: &mut Vec<Stmt>) -> R<()> {
        let p = self.pos(n);
        let s = match n.kind.as_str() {
            "CompoundStmt" => StmtKind::Block(self.block_stmts(n)?),
            "DeclStmt" => {
                for d in &n.inner {
                    let mut v = Vec::new();
                    self.decl(d, &mut v)?;
                    out.append(&mut self.pending);
                    out.append(&mut v);
                }
                return Ok(());
            }
            "NullStmt" => StmtKind::Empty,
            "BreakStmt" => StmtKind::Break,
            "ContinueStmt" => StmtKind::Continue,
            "ReturnStmt" => match (first(n), self.ret_leaves.clone()) {
                (Some(x), Some(ret)) => {
                    // a record-valued function: its result leaves into the result parameters
                    let vals = self.record_val(x)?;
                    out.append(&mut self.pending);
                    for (path, pn) in ret {
                        let Some((_, v)) = vals.iter().find(|(q, _)| *q == path) else {
                            return self.err(x, "returned record without this field");
                        };
                        let a =
                            ExprKind::Assign(None, Box::new(ident(&pn, p)), Box::new(v.clone()));
                        out.push(stmt(StmtKind::Expr(Expr { kind: a, pos: p }), p));
                    }
                    StmtKind::Return(None)
                }
                (Some(x), None) => StmtKind::Return(Some(self.expr(x)?)),
                (None, _) => StmtKind::Return(None),
            },
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
                // the condition's record-valued calls go before the `if`
                out.append(&mut self.pending);
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
                let c = self.cond(c)?;
                self.no_pending(n)?;
                StmtKind::While(c, Box::new(self.stmt1(b)?))
            }
            "DoStmt" => {
                let mut it = kids(n);
                let (Some(b), Some(c)) = (it.next(), it.next()) else {
                    return self.err(n, "malformed `do` in clang's AST");
                };
                let b = self.stmt1(b)?;
                let c = self.cond(c)?;
                self.no_pending(n)?;
                StmtKind::DoWhile(Box::new(b), c)
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
                    self.no_pending(n)?;
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
            "SwitchStmt" => return self.switch_stmt(n, out),
            "GotoStmt" | "LabelStmt" => {
                return self.err(n, "`goto` and labels are not supported by warpcert")
            }
            k if k.ends_with("Stmt") && !k.ends_with("Expr") => {
                return self.err(n, format!("statement `{k}` is not supported by warpcert"))
            }
            _ => match self.expr_stmt(n)? {
                Some(x) => StmtKind::Expr(x),
                None => {
                    out.append(&mut self.pending);
                    return Ok(());
                }
            },
        };
        out.append(&mut self.pending);
        out.push(stmt(s, p));
        Ok(())
    }

    /// An error when the expressions just converted (a loop's condition or step, an arm of
    /// `?:`, `&&`, `||`) left statements to hoist: a record-valued call there would run once
    /// before the statement, not each time (or only when) the expression is evaluated.
    pub(super) fn no_pending(&mut self, n: &Node) -> R<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        self.pending.clear();
        self.err(n, "a record-valued call in a loop's condition or step, or in an arm of `?:`, `&&` or `||`, is not supported yet (it would be evaluated once before the statement)")
    }

    /// A `for` initializer: a declaration statement lowered in the loop's scope.
    pub(super) fn stmt1_flat(&mut self, n: &Node) -> R<Stmt> {
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
        if s.kind == "CallExpr" && self.calls_named(s, "memcpy") {
            return self.memcpy_stmt(s).map(Some);
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
}
