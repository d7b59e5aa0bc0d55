//! Pointer variables (`spec/lowering.md` §5): a pointer is resolved statically to an array
//! and an element offset. A pointer whose offset moves — `p += s`, `p++`, or `p = q` under
//! control flow relative to its declaration — keeps its offset in a local of its own
//! (`Binding::VarPtr`), so `p[i]` reads `array[p_off + i]` at the real address; its array
//! must be the same on every path (else a located error). Comparisons and differences of
//! two pointers into one array are those of their offsets.

use crate::core::{BinOp, Expr, Operand, Stmt, Ty};
use crate::frontend::ast::{self, BinaryOp, ExprKind, StmtKind};
use crate::frontend::diag::Pos;
use crate::frontend::lower::{int, loc, var, Binding, Lw, R};
use std::collections::{HashMap, HashSet};

/// Names of the pointers of a function body (and of its parameters, which count as declared
/// at the body's top level) whose offset must live in a local: targets of `op=`, `++`,
/// `--`, and of `=` nested deeper than their declaration (under a branch, loop or block,
/// where the lowering cannot rebind them statically). Names of scalars may be included; only pointer bindings use the set.
pub(super) fn moved_pointers(body: &[ast::Stmt]) -> HashSet<String> {
    struct W {
        depth_of: HashMap<String, i32>,
        out: HashSet<String>,
    }
    impl W {
        fn e(&mut self, x: &ast::Expr, d: i32) {
            match &x.kind {
                ExprKind::Assign(op, l, r) => {
                    if let ExprKind::Ident(n) = &l.kind {
                        let decl = self.depth_of.get(n).copied().unwrap_or(0);
                        if op.is_some() || d > decl {
                            self.out.insert(n.clone());
                        }
                    }
                    self.e(l, d);
                    self.e(r, d);
                }
                ExprKind::IncDec { e: l, .. } => {
                    if let ExprKind::Ident(n) = &l.kind {
                        self.out.insert(n.clone());
                    }
                    self.e(l, d);
                }
                ExprKind::Member(a, _)
                | ExprKind::Arrow(a, _)
                | ExprKind::Unary(_, a)
                | ExprKind::Cast(_, a) => self.e(a, d),
                ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                    self.e(a, d);
                    self.e(b, d);
                }
                ExprKind::Call(f, args) => {
                    self.e(f, d);
                    args.iter().for_each(|a| self.e(a, d));
                }
                ExprKind::Opaque(_, args, _) => args.iter().for_each(|a| self.e(a, d)),
                ExprKind::Cond(a, b, c) => {
                    // the arms are evaluated under a branch
                    self.e(a, d);
                    self.e(b, d + 1);
                    self.e(c, d + 1);
                }
                _ => {}
            }
        }
        fn s(&mut self, x: &ast::Stmt, d: i32) {
            match &x.kind {
                StmtKind::Decl(ds) => {
                    for dl in ds {
                        if let Some(i) = &dl.init {
                            self.e(i, d);
                        }
                        self.depth_of.insert(dl.name.clone(), d);
                    }
                }
                StmtKind::Expr(x) => self.e(x, d),
                StmtKind::If(c, a, b) => {
                    self.e(c, d);
                    self.s(a, d + 1);
                    if let Some(b) = b {
                        self.s(b, d + 1);
                    }
                }
                StmtKind::While(c, b) | StmtKind::DoWhile(b, c) => {
                    self.e(c, d + 1);
                    self.s(b, d + 1);
                }
                StmtKind::For(i, c, st, b) => {
                    if let Some(i) = i {
                        self.s(i, d + 1);
                    }
                    if let Some(c) = c {
                        self.e(c, d + 2);
                    }
                    if let Some(st) = st {
                        self.e(st, d + 2);
                    }
                    self.s(b, d + 2);
                }
                StmtKind::Block(v) => v.iter().for_each(|y| self.s(y, d + 1)),
                StmtKind::Return(Some(x)) => self.e(x, d),
                _ => {}
            }
        }
    }
    let mut w = W {
        depth_of: HashMap::new(),
        out: HashSet::new(),
    };
    body.iter().for_each(|x| w.s(x, 0));
    w.out
}

impl Lw<'_> {
    /// The binding of a pointer named `name` to (`array`, `off`): a `VarPtr` with a fresh
    /// offset local `name_off ← off` when `name` moves (`moved_pointers`), else a `Ptr`
    /// (an offset held in a variable copied, so later changes of that variable do not
    /// move it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_ptr(
        &mut self,
        name: &str,
        moved: bool,
        array: String,
        off: Operand,
        elem: Ty,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> Binding {
        if moved {
            let o = self.new_local(&format!("{name}_off"), Ty::Int);
            out.push(Stmt::Assign(o.clone(), Expr::Opd(off), loc(p)));
            return Binding::VarPtr {
                array,
                off: o,
                elem,
            };
        }
        let offset = match off {
            Operand::Var(_) => {
                let t = self.temp(Ty::Int);
                out.push(Stmt::Assign(t.clone(), Expr::Opd(off), loc(p)));
                var(&t)
            }
            o => o,
        };
        Binding::Ptr {
            array,
            offset,
            elem,
        }
    }

    /// Index of the innermost scope that binds `q` (`None`: a global).
    fn scope_of(&self, q: &str) -> Option<usize> {
        self.scopes.iter().rposition(|s| s.contains_key(q))
    }

    /// `q` is declared in the current block, or is a parameter and the current block is the
    /// function's body (scope 0 holds the parameters, scope 1 the body): an assignment
    /// here is not under a branch or loop relative to the declaration.
    fn declared_here(&self, q: &str) -> bool {
        let n = self.scopes.len();
        match self.scope_of(q) {
            Some(k) => k + 1 == n || (k == 0 && n == 2),
            None => false,
        }
    }

    /// The statement `q = e;` for a pointer `q` (§5). In the block that declares `q`, `q` is
    /// rebound to the pointer `e` resolves to; elsewhere `e` must point into the array `q`
    /// points into (or `q` must be unset so far and kept in a local), and `q`'s offset
    /// local is assigned.
    pub(super) fn assign_ptr(
        &mut self,
        q: &str,
        r: &ast::Expr,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let Some(cur) = self.lookup(q).cloned() else {
            return Err(self.unknown_ident(q, p));
        };
        let elem = match &cur {
            Binding::Ptr { elem, .. }
            | Binding::VarPtr { elem, .. }
            | Binding::UnsetPtr { elem, .. } => *elem,
            _ => return self.err(p, format!("assignment to array `{q}`")),
        };
        let here = self.declared_here(q);
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
        let new = match cur {
            Binding::VarPtr { array: a0, off: o, .. } if here || a0 == array => {
                out.push(Stmt::Assign(o.clone(), Expr::Opd(off), loc(p)));
                Binding::VarPtr { array, off: o, elem }
            }
            Binding::VarPtr { array: a0, .. } => {
                return self.err(
                    p,
                    format!("pointer `{q}` points into `{a0}` but is assigned a pointer into `{array}` inside a branch, loop or block: which array it points into would depend on control flow, which warpcert's core cannot express (spec/lowering.md §5)"),
                )
            }
            Binding::UnsetPtr { off: Some(o), .. } => {
                out.push(Stmt::Assign(o.clone(), Expr::Opd(off), loc(p)));
                Binding::VarPtr { array, off: o, elem }
            }
            _ if here => {
                let moved = self.f.moved.contains(q);
                self.bind_ptr(q, moved, array, off, elem, p, out)
            }
            _ => {
                return self.err(
                    p,
                    format!("assignment to pointer `{q}` inside a branch, loop or block it was not declared in (pointer aliasing that depends on control flow cannot be modelled)"),
                )
            }
        };
        if let Some(k) = self.scope_of(q) {
            self.scopes[k].insert(q.to_string(), new);
        }
        Ok(())
    }

    /// `q op= i` (`op` `+` or `-`) or `q++`/`q--` on a pointer `q` whose offset is a local:
    /// `q_off ← q_off op ⟦i⟧ₒ`. Returns the array, the offset local and the element type.
    pub(super) fn move_ptr(
        &mut self,
        q: &str,
        sub: bool,
        by: Option<&ast::Expr>,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<(String, String, Ty)> {
        let (array, o, elem) = match self.lookup(q).cloned() {
            Some(Binding::VarPtr { array, off, elem }) => (array, off, elem),
            Some(Binding::UnsetPtr { .. }) => {
                return self.err(
                    p,
                    format!("pointer `{q}` is moved before a pointer is assigned to it"),
                )
            }
            _ => {
                return self.err(
                    p,
                    format!(
                    "`{q}` cannot be moved: only pointer variables (not arrays) can be incremented"
                ),
                )
            }
        };
        let i = match by {
            Some(e) => self.int_opd(e, out)?,
            None => int(1),
        };
        let op = if sub { BinOp::Sub } else { BinOp::Add };
        out.push(Stmt::Assign(o.clone(), Expr::Bin(op, var(&o), i), loc(p)));
        Ok((array, o, elem))
    }

    /// A pointer-valued `q op= i`, `++q`, `q++` … used as a pointer (`*p++ = x`): the update,
    /// and the pointer's value (the old offset, copied, for a postfix form).
    pub(super) fn moved_ptr_value(
        &mut self,
        e: &ast::Expr,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(String, Operand, Ty)>> {
        let p = e.pos;
        match &e.kind {
            ExprKind::Assign(Some(op @ (BinaryOp::Add | BinaryOp::Sub)), l, r) => {
                let ExprKind::Ident(q) = &l.kind else {
                    return Ok(None);
                };
                let (a, o, t) = self.move_ptr(q, *op == BinaryOp::Sub, Some(r), p, out)?;
                Ok(Some((a, var(&o), t)))
            }
            ExprKind::IncDec { pre, inc, e: l } => {
                let ExprKind::Ident(q) = &l.kind else {
                    return Ok(None);
                };
                let old = match self.lookup(q) {
                    Some(Binding::VarPtr { off, .. }) if !*pre => {
                        let off = off.clone();
                        let t = self.temp(Ty::Int);
                        out.push(Stmt::Assign(t.clone(), Expr::Opd(var(&off)), loc(p)));
                        Some(var(&t))
                    }
                    _ => None,
                };
                let (a, o, t) = self.move_ptr(q, !*inc, None, p, out)?;
                Ok(Some((a, old.unwrap_or_else(|| var(&o)), t)))
            }
            _ => Ok(None),
        }
    }

    /// `a op b` for two pointers: a comparison of their offsets, or (`-`) the difference of
    /// their offsets in elements; both must point into one array. `None` when `a` and `b`
    /// are not both pointers.
    pub(super) fn ptr_binary(
        &mut self,
        op: BinaryOp,
        a: &ast::Expr,
        b: &ast::Expr,
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Expr, Ty)>> {
        let cmp = matches!(
            op,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        );
        if !(cmp || op == BinaryOp::Sub) || !self.is_ptr(a) || !self.is_ptr(b) {
            return Ok(None);
        }
        let (xa, oa, _) = self.ptr_expr(a, out)?;
        let (xb, ob, _) = self.ptr_expr(b, out)?;
        if xa != xb {
            return self.err(
                p,
                format!("pointers into different arrays (`{xa}`, `{xb}`) compared or subtracted: their relation is not modelled (spec/lowering.md §5)"),
            );
        }
        let Some(bop) = crate::frontend::lower::expr::bin_of(op) else {
            return Ok(None);
        };
        self.binary_opds(bop, oa, Ty::Int, ob, Ty::Int, p, out)
            .map(Some)
    }
}
