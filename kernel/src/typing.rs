//! Well-typedness of the certificate's program (spec/minicuda.md §1–§2, RaCUDA Fig. 3–4):
//! declared names pairwise distinct, every operand declared, every operator applied to
//! operands of one of its signatures, assignments and writes of the target's type, `bool`
//! conditions, `int` indices and integer literals within `i64`. A program that is not
//! well-typed makes no claim (its runs stop at a type error), so the kernel rejects it.

use crate::syntax::{Expr, Opd, Program, Stmt, Ty, WarpOp};
use crate::{Reason, Rejection};
use num_traits::ToPrimitive;

/// `int`, `bool`, `float`.
pub fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::Int => "int",
        Ty::Bool => "bool",
        Ty::Float => "float",
    }
}

fn prog_err(reason: Reason) -> Rejection {
    Rejection { rule: "program".to_string(), node_path: String::new(), reason }
}

/// `Σ(bop)` applied to `(a, b)` (spec/minicuda.md §2's table), `None` when no signature fits.
pub fn bin_type(op: &str, a: Ty, b: Ty) -> Option<Ty> {
    use Ty::{Bool, Float, Int};
    match (op, a, b) {
        ("+" | "-" | "*" | "/" | "min" | "max", Int, Int) => Some(Int),
        ("+" | "-" | "*" | "/" | "min" | "max", Float, Float) => Some(Float),
        ("%" | "<<" | ">>" | "&" | "|" | "^", Int, Int) => Some(Int),
        ("<" | "<=" | ">" | ">=", Int, Int) | ("<" | "<=" | ">" | ">=", Float, Float) => Some(Bool),
        ("==" | "!=", x, y) if x == y => Some(Bool),
        ("&&" | "||", Bool, Bool) => Some(Bool),
        _ => None,
    }
}

/// `Σ(uop)` applied to `a`, `None` when no signature fits.
pub fn un_type(op: &str, a: Ty) -> Option<Ty> {
    use Ty::{Bool, Float, Int};
    match (op, a) {
        ("neg", Int) => Some(Int),
        ("neg", Float) => Some(Float),
        ("not", Bool) => Some(Bool),
        ("bitnot" | "popc" | "ffs", Int) => Some(Int),
        ("tofloat", _) => Some(Float),
        ("toint", _) => Some(Int),
        ("tobool", _) => Some(Bool),
        _ => None,
    }
}

struct Typer<'a> {
    p: &'a Program,
}

impl Typer<'_> {
    /// OS:VAR, OS:CONST, OS:PARAM, OS:TID.
    fn opd(&self, o: &Opd) -> Result<Ty, Rejection> {
        let und = |kind, name: &String| prog_err(Reason::Undeclared { kind, name: name.clone() });
        match o {
            Opd::Var(x) => self.p.local(x).ok_or_else(|| und("local", x)),
            Opd::Param(x) => self.p.param(x).ok_or_else(|| und("parameter", x)),
            Opd::Int(n) if n.to_i64().is_none() => Err(prog_err(Reason::LiteralRange(n.to_string()))),
            Opd::Int(_) | Opd::Tid(_) => Ok(Ty::Int),
            Opd::Bool(_) => Ok(Ty::Bool),
            Opd::Float(_) => Ok(Ty::Float),
        }
    }

    /// The element type of array `a` indexed by `o` (ES:ARRAY's premises).
    fn index(&self, a: &str, o: &Opd) -> Result<Ty, Rejection> {
        let arr = self.p.array(a).ok_or_else(|| prog_err(Reason::Undeclared { kind: "array", name: a.to_string() }))?;
        if self.opd(o)? != Ty::Int {
            return Err(prog_err(Reason::IllTyped { what: o.to_string(), expected: "an int index" }));
        }
        Ok(arr.ty)
    }

    /// ES:OP, ES:UOP, ES:ARRAY.
    fn expr(&self, e: &Expr) -> Result<Ty, Rejection> {
        let none = |op: &str, tys: &[Ty]| {
            let operands = tys.iter().map(|t| ty_name(*t)).collect::<Vec<_>>().join(" × ");
            prog_err(Reason::NoSignature { op: op.to_string(), operands })
        };
        match e {
            Expr::Opd(o) => self.opd(o),
            Expr::Bin(op, a, b) => {
                let (ta, tb) = (self.opd(a)?, self.opd(b)?);
                bin_type(op, ta, tb).ok_or_else(|| none(op, &[ta, tb]))
            }
            Expr::Un(op, a) => {
                let ta = self.opd(a)?;
                un_type(op, ta).ok_or_else(|| none(op, &[ta]))
            }
            Expr::Read(a, o) => self.index(a, o),
        }
    }

    fn expect(&self, e: &Expr, want: Ty, what: impl Fn() -> String) -> Result<(), Rejection> {
        let found = self.expr(e)?;
        if found != want {
            return Err(prog_err(Reason::TypeMismatch {
                what: what(),
                expected: ty_name(want),
                found: ty_name(found),
            }));
        }
        Ok(())
    }
}

/// Well-typedness of `p` (the rules SS:* of spec/minicuda.md §2 over ES:*/OS:*), plus
/// distinct declared names, none of them `threadIdx.*`. Iterative over statements.
///
/// Errors (rule `program`): [`Reason::DuplicateName`], [`Reason::Undeclared`],
/// [`Reason::IllTyped`] (a non-`int` index, a `threadIdx.*` declaration),
/// [`Reason::NoSignature`], [`Reason::TypeMismatch`], [`Reason::LiteralRange`].
pub fn check_program(p: &Program) -> Result<(), Rejection> {
    let mut names: Vec<&String> = p
        .params
        .iter()
        .map(|x| &x.1)
        .chain(p.locals.iter().map(|x| &x.1))
        .chain(p.arrays.iter().map(|a| &a.name))
        .collect();
    names.sort();
    if let Some(w) = names.windows(2).find(|w| w.first() == w.get(1)) {
        let dup = w.first().map_or_else(String::new, |n| n.to_string());
        return Err(prog_err(Reason::DuplicateName(dup)));
    }
    // `threadIdx.*` are the thread-index variables of constraints, not declarable names.
    if let Some(n) = names.iter().find(|n| n.starts_with("threadIdx.")) {
        return Err(prog_err(Reason::IllTyped { what: n.to_string(), expected: "a name other than threadIdx.*" }));
    }
    let t = Typer { p };
    let mut todo = vec![&p.body];
    while let Some(s) = todo.pop() {
        match s {
            Stmt::Skip | Stmt::Sync => {}
            Stmt::Seq(a, b) => todo.extend([&**a, &**b]),
            Stmt::Assign(x, e) => {
                let tx = p.local(x).ok_or_else(|| prog_err(Reason::Undeclared { kind: "local", name: x.clone() }))?;
                t.expect(e, tx, || format!("the assignment to `{x}`"))?;
            }
            Stmt::Write(a, o, e) => {
                let ta = t.index(a, o)?;
                t.expect(e, ta, || format!("the value written to `{a}`"))?;
            }
            Stmt::If(e, a, b) => {
                t.expect(e, Ty::Bool, || format!("the condition `{e}`"))?;
                todo.extend([&**a, &**b]);
            }
            Stmt::While(e, b) => {
                t.expect(e, Ty::Bool, || format!("the loop condition `{e}`"))?;
                todo.push(b);
            }
            // SS:SHFL: Σ(x) = τ, Σ ⊢ v : τ, Σ ⊢ l : int; SS:VOTE: Σ(x) = int, Σ ⊢ p : bool.
            Stmt::Warp(x, op) => {
                let tx = p.local(x).ok_or_else(|| prog_err(Reason::Undeclared { kind: "local", name: x.clone() }))?;
                let (v, want, l) = match op {
                    WarpOp::Shfl(_, _, v, l) => (v, tx, Some(l)),
                    WarpOp::Vote(_, pr) => (pr, Ty::Bool, None),
                };
                if matches!(op, WarpOp::Vote(..)) && tx != Ty::Int {
                    return Err(prog_err(Reason::TypeMismatch {
                        what: format!("the vote assigned to `{x}`"),
                        expected: ty_name(Ty::Int),
                        found: ty_name(tx),
                    }));
                }
                t.expect(&Expr::Opd(v.clone()), want, || format!("the operand `{v}` of the warp operation"))?;
                if let Some(l) = l {
                    t.expect(&Expr::Opd(l.clone()), Ty::Int, || format!("the lane operand `{l}`"))?;
                }
            }
        }
    }
    Ok(())
}
