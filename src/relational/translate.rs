//! Translation of a lowered miniCUDA program (`crate::core::Program`) into a memory access
//! protocol (Pico §6.1; `spec/relational.md` §3) by symbolic execution of the locals:
//!
//! * every local holds a symbolic value (a numeric expression, a condition, or an unknown);
//!   array reads, floats and values that differ between the branches of an `if` become
//!   fresh unknowns `$k` (Pico's `$A1`: thread-local, type `D`);
//! * `A[o]` reads and `A[o] ← e` writes become accesses `A[n]` with `n` the symbolic index;
//! * `if e then s₁ else s₂` becomes `if (c) {p₁}; if (¬c) {p₂}`;
//! * `while` loops of the shape the front end produces for `for (x = init; x ◇ b; x ⊕= k)`
//!   (one local updated by `+ − * / << >>` with a loop-invariant step, compared with a
//!   loop-invariant bound) become `for x ∈ init..hi {p}`; other loops are recorded as
//!   untranslatable (no bound). Other locals assigned in a loop body are unknown at its head;
//! * `sync` is `skip` (no cost in either metric).

use super::calculus::{Access, Atom, COp, Cond, Mode, NExpr, NOp, Proto, Range, Step};
use crate::core::{BinOp, Const, Expr, Operand, Program, Stmt, UnOp};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq)]
enum Val {
    N(NExpr),
    C(Cond),
}

/// The protocol of a program, with what could not be translated.
#[derive(Clone, Debug)]
pub struct Translation {
    /// The protocol.
    pub proto: Proto,
    /// Loops that are not of a supported shape (source line, reason). Non-empty means the
    /// protocol is incomplete and no bound may be claimed.
    pub unsupported: Vec<(u32, String)>,
    /// Number of loops, conditionals and accesses (for reports).
    pub next_id: u32,
}

struct Tr<'a> {
    prog: &'a Program,
    env: BTreeMap<String, Val>,
    next_unknown: u32,
    next_id: u32,
    unsupported: Vec<(u32, String)>,
}

/// Translates `prog` into a protocol. Never fails: unsupported loops are listed in
/// [`Translation::unsupported`].
pub fn translate(prog: &Program) -> Translation {
    let mut t = Tr {
        prog,
        env: BTreeMap::new(),
        next_unknown: 0,
        next_id: 0,
        unsupported: Vec::new(),
    };
    // Every local starts at the default value of its type (0 / false).
    for (x, ty) in &prog.locals {
        let v = match ty {
            crate::core::Ty::Int => Val::N(NExpr::Lit(0)),
            crate::core::Ty::Bool => Val::C(Cond::Bool(false)),
            crate::core::Ty::Float => Val::N(NExpr::Atom(Atom::Unknown(u32::MAX))),
        };
        t.env.insert(x.clone(), v);
    }
    let proto = t.stmt(&prog.body);
    Translation {
        proto: flatten(proto),
        unsupported: t.unsupported,
        next_id: t.next_id,
    }
}

fn flatten(p: Proto) -> Proto {
    match p {
        Proto::Seq(ps) => {
            let mut out = Vec::new();
            for q in ps {
                match flatten(q) {
                    Proto::Seq(inner) => out.extend(inner),
                    Proto::Skip => {}
                    q => out.push(q),
                }
            }
            match out.len() {
                0 => Proto::Skip,
                1 => out.pop().unwrap_or(Proto::Skip),
                _ => Proto::Seq(out),
            }
        }
        Proto::If(id, c, q) => Proto::If(id, c, Box::new(flatten(*q))),
        Proto::For(id, x, r, q) => Proto::For(id, x, r, Box::new(flatten(*q))),
        p => p,
    }
}

impl Tr<'_> {
    fn fresh(&mut self) -> NExpr {
        self.next_unknown += 1;
        NExpr::Atom(Atom::Unknown(self.next_unknown))
    }
    fn id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn opd(&mut self, o: &Operand) -> Val {
        match o {
            Operand::Var(x) => match self.env.get(x) {
                Some(Val::N(NExpr::Atom(Atom::Unknown(u32::MAX)))) | None => Val::N(self.fresh()),
                Some(v) => v.clone(),
            },
            Operand::Param(p) => match self.prog.param_ty(p) {
                Some(crate::core::Ty::Int) | None => Val::N(NExpr::param(p)),
                Some(crate::core::Ty::Bool) => {
                    Val::C(Cond::Cmp(COp::Ne, NExpr::param(p), NExpr::Lit(0)))
                }
                Some(crate::core::Ty::Float) => Val::N(self.fresh()),
            },
            Operand::Const(Const::Int(i)) => Val::N(NExpr::Lit(*i)),
            Operand::Const(Const::Bool(b)) => Val::C(Cond::Bool(*b)),
            Operand::Const(Const::Float(_)) => Val::N(self.fresh()),
            Operand::Tid(d) => Val::N(NExpr::Atom(Atom::Tid(*d))),
        }
    }

    fn num(&mut self, o: &Operand) -> NExpr {
        match self.opd(o) {
            Val::N(n) => n,
            Val::C(_) => self.fresh(),
        }
    }

    fn cond(&mut self, o: &Operand) -> Cond {
        match self.opd(o) {
            Val::C(c) => c,
            Val::N(n) => Cond::Cmp(COp::Ne, n, NExpr::Lit(0)),
        }
    }

    fn is_float(&self, o: &Operand) -> bool {
        match o {
            Operand::Var(x) => self.prog.local_ty(x) == Some(crate::core::Ty::Float),
            Operand::Param(p) => self.prog.param_ty(p) == Some(crate::core::Ty::Float),
            Operand::Const(Const::Float(_)) => true,
            _ => false,
        }
    }

    fn access(&mut self, array: &str, idx: &Operand, mode: Mode, line: u32) -> Proto {
        let index = self.num(idx);
        let (space, elem_bytes) = match self.prog.array(array) {
            Some(a) => (a.space, a.elem_bytes),
            None => (crate::core::Space::Global, 4),
        };
        let id = self.id();
        Proto::Acc(Access {
            array: array.to_string(),
            index,
            space,
            elem_bytes,
            mode,
            line,
            id,
        })
    }

    /// The value of `e` and the accesses its evaluation performs.
    fn expr(&mut self, e: &Expr, line: u32) -> (Val, Proto) {
        match e {
            Expr::Opd(o) => (self.opd(o), Proto::Skip),
            Expr::Read(a, o) => {
                let p = self.access(a, o, Mode::Read, line);
                (Val::N(self.fresh()), p)
            }
            Expr::Un(op, o) => {
                let v = match op {
                    UnOp::Neg => {
                        let n = self.num(o);
                        Val::N(NExpr::bin(NOp::Sub, NExpr::Lit(0), n))
                    }
                    UnOp::Not => Val::C(Cond::negate(self.cond(o))),
                    UnOp::ToBool => Val::C(self.cond(o)),
                    UnOp::ToInt if !self.is_float(o) => match self.opd(o) {
                        Val::N(n) => Val::N(n),
                        Val::C(_) => Val::N(self.fresh()),
                    },
                    _ => Val::N(self.fresh()),
                };
                (v, Proto::Skip)
            }
            Expr::Bin(op, a, b) => {
                if self.is_float(a) || self.is_float(b) {
                    return (Val::N(self.fresh()), Proto::Skip);
                }
                let v = match op {
                    BinOp::And | BinOp::Or => {
                        let (x, y) = (self.cond(a), self.cond(b));
                        Val::C(if *op == BinOp::And {
                            Cond::and(x, y)
                        } else {
                            Cond::or(x, y)
                        })
                    }
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                        let c = match op {
                            BinOp::Lt => COp::Lt,
                            BinOp::Le => COp::Le,
                            BinOp::Gt => COp::Gt,
                            BinOp::Ge => COp::Ge,
                            BinOp::Eq => COp::Eq,
                            _ => COp::Ne,
                        };
                        match (self.opd(a), self.opd(b)) {
                            (Val::N(x), Val::N(y)) => Val::C(Cond::cmp(c, x, y)),
                            (Val::C(x), Val::C(y)) if matches!(c, COp::Eq | COp::Ne) => {
                                let eq = Cond::or(
                                    Cond::and(x.clone(), y.clone()),
                                    Cond::and(Cond::negate(x), Cond::negate(y)),
                                );
                                Val::C(if c == COp::Eq { eq } else { Cond::negate(eq) })
                            }
                            _ => Val::C(Cond::Cmp(COp::Ne, self.fresh(), NExpr::Lit(0))),
                        }
                    }
                    _ => {
                        let nop = match op {
                            BinOp::Add => NOp::Add,
                            BinOp::Sub => NOp::Sub,
                            BinOp::Mul => NOp::Mul,
                            BinOp::Div => NOp::Div,
                            BinOp::Rem => NOp::Mod,
                            BinOp::Shl => NOp::Shl,
                            BinOp::Shr => NOp::Shr,
                            BinOp::BitAnd => NOp::BitAnd,
                            BinOp::BitOr => NOp::BitOr,
                            BinOp::BitXor => NOp::BitXor,
                            BinOp::Min => NOp::Min,
                            _ => NOp::Max,
                        };
                        let (x, y) = (self.num(a), self.num(b));
                        Val::N(NExpr::bin(nop, x, y))
                    }
                };
                (v, Proto::Skip)
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Proto {
        match s {
            Stmt::Skip | Stmt::Sync(_) => Proto::Skip,
            // a warp operation reads no memory; its result is an unknown of the relational state
            Stmt::Warp(x, _, _) => {
                let v = Val::N(self.fresh());
                self.env.insert(x.clone(), v);
                Proto::Skip
            }
            Stmt::Seq(..) => {
                // A chain `s₁; (s₂; (s₃; …))` is walked as a list, not recursively: lowered
                // programs (cooperative-group partitions) chain thousands of statements.
                let mut ps = Vec::new();
                let mut cur = s;
                while let Stmt::Seq(a, b) = cur {
                    ps.push(self.stmt(a));
                    cur = b;
                }
                ps.push(self.stmt(cur));
                Proto::Seq(ps)
            }
            Stmt::Assign(x, e, loc) => {
                let (v, p) = self.expr(e, loc.line);
                let v = if self.prog.local_ty(x) == Some(crate::core::Ty::Float) {
                    Val::N(self.fresh())
                } else {
                    v
                };
                self.env.insert(x.clone(), v);
                p
            }
            Stmt::Write(a, o, e, loc) => {
                let (_, p) = self.expr(e, loc.line);
                let w = self.access(a, o, Mode::Write, loc.line);
                Proto::Seq(vec![p, w])
            }
            Stmt::If(e, s1, s2, loc) => {
                let (v, p0) = self.expr(e, loc.line);
                let c = match v {
                    Val::C(c) => c,
                    Val::N(n) => Cond::Cmp(COp::Ne, n, NExpr::Lit(0)),
                };
                let before = self.env.clone();
                let p1 = self.stmt(s1);
                let after1 = std::mem::replace(&mut self.env, before);
                let p2 = self.stmt(s2);
                let after2 = std::mem::take(&mut self.env);
                // Merge: equal values stay; booleans become `(c ∧ v₁) ∨ (¬c ∧ v₂)`;
                // differing numbers become unknowns.
                let mut merged = BTreeMap::new();
                for (x, v1) in after1 {
                    let v2 = after2.get(&x).cloned();
                    let v = match (v1, v2) {
                        (a, Some(b)) if a == b => a,
                        (Val::C(a), Some(Val::C(b))) => Val::C(Cond::or(
                            Cond::and(c.clone(), a),
                            Cond::and(Cond::negate(c.clone()), b),
                        )),
                        _ => Val::N(self.fresh()),
                    };
                    merged.insert(x, v);
                }
                self.env = merged;
                let i1 = self.id();
                let i2 = self.id();
                let mut out = vec![p0];
                if p1 != Proto::Skip && flatten(p1.clone()) != Proto::Skip {
                    out.push(Proto::If(i1, c.clone(), Box::new(p1)));
                }
                if flatten(p2.clone()) != Proto::Skip {
                    out.push(Proto::If(i2, Cond::negate(c), Box::new(p2)));
                }
                Proto::Seq(out)
            }
            Stmt::While(e, body, loc) => self.while_loop(e, body, loc.line),
        }
    }

    /// `while (x ◇ b) { …; x ← x ⊕ k; … }` with `b`, `k` invariant → `for x ∈ lo..hi`.
    fn while_loop(&mut self, e: &Expr, body: &Stmt, line: u32) -> Proto {
        let written = body.writes();
        let head = self.env.clone();
        let shape = self.loop_shape(e, body, &written);
        let id = self.id();
        let proto = match shape {
            Some(LoopShape {
                x,
                range,
                secondary,
            }) => {
                for y in &written {
                    if *y != x {
                        let u = self.fresh();
                        self.env.insert(y.clone(), Val::N(u));
                    }
                }
                let counter = match &range.step {
                    Step::Add(NExpr::Lit(k)) => *k > 0 && !secondary.is_empty(),
                    _ => false,
                };
                if !counter {
                    self.env.insert(x.clone(), Val::N(NExpr::var(&x)));
                    let p = self.stmt(body);
                    Proto::For(id, x, range, Box::new(p))
                } else {
                    // Secondary induction variables `y ← y ± k`: the loop is normalized to an
                    // iteration counter n ∈ 0..⌊(hi − lo + k_x)/k_x⌋ − 1 with x = lo + k_x·n
                    // and y = y₀ ± k_y·n (Pico §6.3's loop normalization).
                    let Step::Add(kx) = range.step.clone() else {
                        unreachable!()
                    };
                    let n = format!("{x}#n");
                    let nv = NExpr::var(&n);
                    let span = NExpr::bin(
                        NOp::Add,
                        NExpr::bin(NOp::Sub, range.hi.clone(), range.lo.clone()),
                        kx.clone(),
                    );
                    let hi = NExpr::bin(
                        NOp::Sub,
                        NExpr::bin(NOp::Div, span, kx.clone()),
                        NExpr::Lit(1),
                    );
                    self.env.insert(
                        x.clone(),
                        Val::N(NExpr::bin(
                            NOp::Add,
                            range.lo.clone(),
                            NExpr::bin(NOp::Mul, kx, nv.clone()),
                        )),
                    );
                    for (y, op, y0, ky) in secondary {
                        self.env.insert(
                            y,
                            Val::N(NExpr::bin(op, y0, NExpr::bin(NOp::Mul, ky, nv.clone()))),
                        );
                    }
                    let p = self.stmt(body);
                    Proto::For(id, n, Range::upto(NExpr::Lit(0), hi), Box::new(p))
                }
            }
            None => {
                self.unsupported.push((
                    line,
                    "loop not of the shape `for (x = init; x ◇ bound; x ⊕= step)` with \
                     invariant bound and step"
                        .into(),
                ));
                for y in &written {
                    let u = self.fresh();
                    self.env.insert(y.clone(), Val::N(u));
                }
                let p = self.stmt(body);
                // Keep the accesses visible for the exactness count, under an unknown range.
                let u = self.fresh();
                Proto::For(id, "?".into(), Range::upto(NExpr::Lit(0), u), Box::new(p))
            }
        };
        // After the loop: every local the body writes is unknown.
        self.env = head;
        for y in &written {
            let u = self.fresh();
            self.env.insert(y.clone(), Val::N(u));
        }
        proto
    }

    /// Recognizes the loop by executing the body once symbolically from placeholders
    /// `y@head` for the locals it writes: the loop variable ends as `x@head ⊕ k` with `k`
    /// free of placeholders and of unknowns made in the body; the bound has the same value
    /// at the head and after the body.
    fn loop_shape(&mut self, e: &Expr, body: &Stmt, written: &[String]) -> Option<LoopShape> {
        let Expr::Bin(op, a, b) = e else { return None };
        let cop = match op {
            BinOp::Lt => COp::Lt,
            BinOp::Le => COp::Le,
            BinOp::Gt => COp::Gt,
            BinOp::Ge => COp::Ge,
            BinOp::Ne => COp::Ne,
            _ => return None,
        };
        // Head values.
        let head_a = self.opd(a);
        let head_b = self.opd(b);
        // Scratch pass.
        let saved = (
            self.env.clone(),
            self.next_unknown,
            self.next_id,
            self.unsupported.len(),
        );
        let mark = self.next_unknown;
        for y in written {
            self.env
                .insert(y.clone(), Val::N(NExpr::var(&format!("{y}@head"))));
        }
        let _ = self.stmt(body);
        let end = self.env.clone();
        let end_a = self.opd(a);
        let end_b = self.opd(b);
        self.env = saved.0;
        self.next_unknown = saved.1;
        self.next_id = saved.2;
        self.unsupported.truncate(saved.3);

        let clean = |n: &NExpr| {
            let mut atoms = Vec::new();
            n.atoms(&mut atoms);
            atoms.iter().all(|t| match t {
                Atom::Var(v) => !v.ends_with("@head"),
                Atom::Unknown(k) => *k <= mark,
                _ => true,
            })
        };
        // x@head ⊕ k
        let step_of = |y: &str| -> Option<(NOp, NExpr)> {
            let Some(Val::N(NExpr::Bin(op, l, r))) = end.get(y) else {
                return None;
            };
            let me = NExpr::var(&format!("{y}@head"));
            if **l == me && clean(r) {
                return Some((*op, (**r).clone()));
            }
            if **r == me && matches!(op, NOp::Add | NOp::Mul) && clean(l) {
                return Some((*op, (**l).clone()));
            }
            None
        };
        let (x, bound, cop) = match (a, b) {
            (Operand::Var(x), _) if written.contains(x) && head_b == end_b => {
                (x.clone(), head_b.clone(), cop)
            }
            (_, Operand::Var(x)) if written.contains(x) && head_a == end_a => {
                let flipped = match cop {
                    COp::Lt => COp::Gt,
                    COp::Le => COp::Ge,
                    COp::Gt => COp::Lt,
                    COp::Ge => COp::Le,
                    c => c,
                };
                (x.clone(), head_a.clone(), flipped)
            }
            _ => return None,
        };
        let Val::N(bound) = bound else { return None };
        if !clean(&bound) {
            return None;
        }
        let init = match self.env.get(&x)? {
            Val::N(n) => n.clone(),
            Val::C(_) => return None,
        };
        let (sop, k) = step_of(&x)?;
        let step = match sop {
            NOp::Add => Step::Add(k),
            NOp::Sub => Step::Sub(k),
            NOp::Mul => Step::Mul(k),
            NOp::Div => Step::Div(k),
            NOp::Shr => Step::Div(NExpr::bin(NOp::Shl, NExpr::Lit(1), k)),
            NOp::Shl => Step::Mul(NExpr::bin(NOp::Shl, NExpr::Lit(1), k)),
            _ => return None,
        };
        let one = NExpr::Lit(1);
        let hi = match (cop, step.decreasing()) {
            (COp::Lt, false) => NExpr::bin(NOp::Sub, bound, one),
            (COp::Le, false) => bound,
            (COp::Ne, false) if matches!(step, Step::Add(NExpr::Lit(1))) => {
                NExpr::bin(NOp::Sub, bound, one)
            }
            (COp::Gt, true) => NExpr::bin(NOp::Add, bound, one),
            (COp::Ge, true) => bound,
            _ => return None,
        };
        let mut secondary = Vec::new();
        for y in written {
            if *y == x {
                continue;
            }
            if let (Some((op @ (NOp::Add | NOp::Sub), k)), Some(Val::N(y0))) =
                (step_of(y), self.env.get(y).cloned())
            {
                secondary.push((y.clone(), op, y0, k));
            }
        }
        Some(LoopShape {
            x,
            range: Range { lo: init, hi, step },
            secondary,
        })
    }
}

struct LoopShape {
    x: String,
    range: Range,
    /// `(y, ±, y₀, k_y)`
    secondary: Vec<(String, NOp, NExpr, NExpr)>,
}
