//! Statements and control flow: blocks, `if`, loops (`for`/`while`/`do` as `while`), and
//! the jump flags of `break`/`continue`/`return` (`spec/lowering.md` §6).

use crate::core::{BinOp, Const, Expr, Operand, Stmt, Ty};
use crate::frontend::ast::{self, BinaryOp, ExprKind, StmtKind};
use crate::frontend::diag::Pos;
use crate::frontend::lower::call::contains_return;
use crate::frontend::lower::{int, loc, seq, var, Binding, Lw, R};
use std::collections::{HashMap, HashSet};

impl Lw<'_> {
    pub(super) fn block(&mut self, stmts: &[ast::Stmt], out: &mut Vec<Stmt>, tail: bool) -> R<()> {
        self.scopes.push(HashMap::new());
        let r = self.seq_stmts(stmts, out, tail);
        self.scopes.pop();
        r
    }

    /// `if (c) t [else e]; rest` where exactly one branch `ends` (definitely jumps or
    /// returns): lowers `if c then t' else e'` where the branch that may fall through is
    /// followed by `rest` (both lowered with `tail`); `Ok(false)`, nothing emitted, when `s`
    /// is no `if` or both or neither branch ends.
    pub(super) fn if_with_rest(
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

    pub(super) fn seq_stmts(
        &mut self,
        stmts: &[ast::Stmt],
        out: &mut Vec<Stmt>,
        tail: bool,
    ) -> R<()> {
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

    pub(super) fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>, tail: bool) -> R<()> {
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
                        if let Some(
                            Binding::Ptr { .. } | Binding::VarPtr { .. } | Binding::UnsetPtr { .. },
                        ) = self.lookup(q)
                        {
                            return self.assign_ptr(q, r, l.pos, out);
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

    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_loop(
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

/// Names assigned (`=`, `op=`, `++`, `--`) anywhere in `stmts` (identifiers only).
pub(super) fn assigned_names(stmts: &[ast::Stmt]) -> HashSet<String> {
    pub(super) fn e(x: &ast::Expr, out: &mut HashSet<String>) {
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
    pub(super) fn s(x: &ast::Stmt, out: &mut HashSet<String>) {
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
pub(super) fn jumps(s: &ast::Stmt) -> (bool, bool, bool) {
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

pub(super) fn may_jump(s: &ast::Stmt) -> bool {
    let (a, b, c) = jumps(s);
    a || b || c
}

/// "Definitely jumps" (spec/lowering.md §6): every path through `s` executes a `return`, or
/// a `break`/`continue` of the innermost enclosing loop (jumps inside nested loops of `s` do
/// not count).
pub(super) fn definitely_jumps(s: &ast::Stmt) -> bool {
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
pub(super) fn split_or_jump(s: &ast::Stmt) -> Option<ast::Stmt> {
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
pub(super) fn definitely_returns(s: &ast::Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(v) => v.iter().any(definitely_returns),
        StmtKind::If(_, a, Some(b)) => definitely_returns(a) && definitely_returns(b),
        _ => false,
    }
}
