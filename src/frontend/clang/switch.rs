//! `switch` on an integer (`spec/lowering.md` §9.8), lowered to an `if`/`else if` chain
//! with C's fall-through made explicit.
//!
//! The body is read as groups: each starts at one or more labels (`case c:`, `default:`)
//! at the top level of the body and runs to the next labelled statement. A group ends the
//! switch when its last statement is `break;` (dropped), `return`, or `continue`;
//! otherwise control falls through into the next group, so the group's branch holds the
//! statements of the following groups too, up to the first one that ends. The branch of a
//! group with case labels runs when the scrutinee equals one of them (evaluated once into
//! a fresh local unless it is a plain variable, which nothing can change before the chain
//! has chosen); the branch of the `default:` group is the final `else`; without `default:`
//! no value matching no case runs nothing. Statements before the first label never run.
//!
//! Located errors: a case range (`case 1 ... 3:`), a label nested in a statement of the
//! body (Duff's device), a `break` that is not the last statement of its group (outside
//! loops and switches nested in it), a declaration directly in the body (its scope spans
//! the groups), a `switch` with an initializer or a condition variable.

use super::convert::{bin, const_int, first, ident, kids, lit_i64, stmt, strip, Conv};
use super::json::Node;
use crate::frontend::ast::{BaseTy, BinaryOp, CType, Decl, Expr, Stmt, StmtKind};
use crate::frontend::diag::Diagnostic;
use std::collections::HashMap;

type R<T> = Result<T, Diagnostic>;

/// One group of a switch body: its labels (`None`: `default`) and statements.
struct Group<'n> {
    labels: Vec<Option<i64>>,
    nodes: Vec<&'n Node>,
    /// The last statement leaves the switch (`break`, `return`, `continue`).
    ends: bool,
}

/// The first node of `kinds` in `n`, not looking into nested loops and switches (when
/// `loops`), lambdas, or `n` itself.
fn find_inside<'n>(n: &'n Node, kinds: &[&str], loops: bool) -> Option<&'n Node> {
    for c in &n.inner {
        if kinds.contains(&c.kind.as_str()) {
            return Some(c);
        }
        let nested = match c.kind.as_str() {
            "ForStmt" | "WhileStmt" | "DoStmt" => loops,
            "SwitchStmt" | "LambdaExpr" => true,
            _ => false,
        };
        if !nested {
            if let Some(x) = find_inside(c, kinds, loops) {
                return Some(x);
            }
        }
    }
    None
}

impl Conv<'_> {
    /// `switch (c) body` as an `if` chain appended to `out`.
    pub(super) fn switch_stmt(&mut self, n: &Node, out: &mut Vec<Stmt>) -> R<()> {
        let p = self.pos(n);
        if n.has_init || n.has_var {
            return self.err(
                n,
                "`switch` with an initializer or a condition variable is not supported",
            );
        }
        let mut it = kids(n);
        let (Some(c), Some(body)) = (it.next(), it.next()) else {
            return self.err(n, "malformed `switch` in clang's AST");
        };
        let groups = self.switch_groups(body)?;
        // the scrutinee, evaluated once
        let cx = self.cond(c)?;
        out.append(&mut self.pending);
        let plain = strip(c).kind == "DeclRefExpr"
            && strip(c)
                .referenced_decl
                .as_deref()
                .is_some_and(|r| matches!(r.kind.as_str(), "VarDecl" | "ParmVarDecl"));
        let scrutinee = if plain {
            cx
        } else {
            let t = self.records.of(c);
            let ty = t
                .ctype()
                .filter(|t| t.ptr == 0)
                .unwrap_or(CType::base(BaseTy::Int));
            let name = self.fresh("__switch_value");
            out.push(stmt(
                StmtKind::Decl(vec![Decl {
                    name: name.clone(),
                    ty,
                    dims: Vec::new(),
                    init: Some(cx),
                    shared: false,
                    is_extern: false,
                    pos: p,
                }]),
                p,
            ));
            ident(&name, p)
        };
        // each group's statements, converted once
        let mut converted = Vec::new();
        for g in &groups {
            self.locals.push(HashMap::new());
            let mut v = Vec::new();
            let mut r = Ok(());
            for s in &g.nodes {
                r = self.stmt_into(s, &mut v);
                if r.is_err() {
                    break;
                }
            }
            self.locals.pop();
            r?;
            converted.push(v);
        }
        // branch k: group k and the groups it falls through into
        let branch = |k: usize| -> Vec<Stmt> {
            let mut v = Vec::new();
            for j in k..groups.len() {
                v.extend(converted[j].iter().cloned());
                if groups[j].ends {
                    break;
                }
            }
            v
        };
        let mut chain: Option<Stmt> = groups
            .iter()
            .position(|g| g.labels.contains(&None))
            .map(|k| stmt(StmtKind::Block(branch(k)), p));
        for (k, g) in groups.iter().enumerate().rev() {
            if g.labels.contains(&None) {
                continue; // its case labels are in the `else`, which no other case reaches
            }
            let mut cond: Option<Expr> = None;
            for v in g.labels.iter().flatten() {
                let eq = bin(BinaryOp::Eq, scrutinee.clone(), super::convert::int(*v, p));
                cond = Some(match cond {
                    None => eq,
                    Some(prev) => bin(BinaryOp::LOr, prev, eq),
                });
            }
            let Some(cond) = cond else { continue };
            let then = stmt(StmtKind::Block(branch(k)), p);
            chain = Some(stmt(
                StmtKind::If(cond, Box::new(then), chain.map(Box::new)),
                p,
            ));
        }
        if let Some(s) = chain {
            out.push(s);
        }
        Ok(())
    }

    /// The groups of a switch body, checked (see the module documentation).
    fn switch_groups<'n>(&mut self, body: &'n Node) -> R<Vec<Group<'n>>> {
        let stmts: Vec<&Node> = if body.kind == "CompoundStmt" {
            kids(body).collect()
        } else {
            vec![body]
        };
        let mut groups: Vec<Group> = Vec::new();
        for s in stmts {
            let mut cur = s;
            let mut labels = Vec::new();
            loop {
                match cur.kind.as_str() {
                    "CaseStmt" => {
                        let parts: Vec<&Node> = kids(cur).collect();
                        if parts.len() != 2 {
                            return self.err(
                                cur,
                                "case range (`case a ... b:`) is not supported by warpcert",
                            );
                        }
                        let v = parts[0]
                            .value
                            .as_ref()
                            .and_then(lit_i64)
                            .or_else(|| const_int(parts[0], &self.decls));
                        let Some(v) = v else {
                            return self.err(cur, "case label whose value warpcert cannot read");
                        };
                        labels.push(Some(v));
                        cur = parts[1];
                    }
                    "DefaultStmt" => {
                        labels.push(None);
                        match first(cur) {
                            Some(x) => cur = x,
                            None => return self.err(cur, "malformed `default:` in clang's AST"),
                        }
                    }
                    _ => break,
                }
            }
            if cur.kind == "DeclStmt" {
                return self.err(cur, "a declaration directly in a `switch` body (its scope spans the cases) is not supported: put the case's statements in `{ … }`");
            }
            if let Some(l) = find_inside(cur, &["CaseStmt", "DefaultStmt"], false) {
                return self.err(l, "a `case` label nested inside a statement of the `switch` body is not supported by warpcert");
            }
            match groups.last_mut() {
                _ if !labels.is_empty() => groups.push(Group {
                    labels,
                    nodes: vec![cur],
                    ends: false,
                }),
                Some(g) => g.nodes.push(cur),
                None => {} // before the first label: never runs
            }
        }
        for g in &mut groups {
            match g.nodes.last().map(|x| x.kind.as_str()) {
                Some("BreakStmt") => {
                    g.nodes.pop();
                    g.ends = true;
                }
                Some("ReturnStmt" | "ContinueStmt") => g.ends = true,
                _ => {}
            }
        }
        for g in &groups {
            for s in &g.nodes {
                let hit = if s.kind == "BreakStmt" {
                    Some(*s)
                } else {
                    find_inside(s, &["BreakStmt"], true)
                };
                if let Some(b) = hit {
                    return self.err(b, "`break` inside a `switch` other than as the last statement of a case is not supported by warpcert");
                }
            }
        }
        Ok(groups)
    }
}
