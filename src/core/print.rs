//! Printing miniCUDA: the s-expression form used in certificates (`spec/certificate.md`,
//! section "Program") and a readable form for humans (`Display`).

use super::ir::*;
use std::fmt::{self, Write};

/// The certificate s-expression of a constant: `(int 5)`, `(bool true)`, `(float 1.5)`.
pub fn sexp_const(c: &Const) -> String {
    let mut out = String::new();
    sexp_const_in(c, &mut out);
    out
}

/// [`sexp_const`], appended to `out`.
fn sexp_const_in(c: &Const, out: &mut String) {
    let _ = match c {
        Const::Int(n) => write!(out, "(int {n})"),
        Const::Bool(b) => write!(out, "(bool {b})"),
        Const::Float(x) => write!(out, "(float {x:?})"),
    };
}

/// The certificate s-expression of an operand: `(var x)`, `(param w)`, `(tid x)`, a constant.
pub fn sexp_operand(o: &Operand) -> String {
    let mut out = String::new();
    sexp_operand_in(o, &mut out);
    out
}

/// [`sexp_operand`], appended to `out` (issue 13: the program section of every
/// certificate is printed without a string per operand).
fn sexp_operand_in(o: &Operand, out: &mut String) {
    match o {
        Operand::Var(x) => {
            out.push_str("(var ");
            out.push_str(x);
            out.push(')');
        }
        Operand::Param(p) => {
            out.push_str("(param ");
            out.push_str(p);
            out.push(')');
        }
        Operand::Const(c) => sexp_const_in(c, out),
        Operand::Tid(d) => {
            out.push_str("(tid ");
            out.push(d.letter());
            out.push(')');
        }
    }
}

/// The certificate s-expression of an expression: an operand, `(bin OP O O)`, `(un OP O)`,
/// `(read A O)`.
pub fn sexp_expr(e: &Expr) -> String {
    let mut out = String::new();
    sexp_expr_in(e, &mut out);
    out
}

/// [`sexp_expr`], appended to `out`.
fn sexp_expr_in(e: &Expr, out: &mut String) {
    match e {
        Expr::Opd(o) => sexp_operand_in(o, out),
        Expr::Bin(op, a, b) => {
            out.push_str("(bin ");
            out.push_str(op.symbol());
            out.push(' ');
            sexp_operand_in(a, out);
            out.push(' ');
            sexp_operand_in(b, out);
            out.push(')');
        }
        Expr::Un(op, a) => {
            out.push_str("(un ");
            out.push_str(op.name());
            out.push(' ');
            sexp_operand_in(a, out);
            out.push(')');
        }
        Expr::Read(arr, o) => {
            out.push_str("(read ");
            out.push_str(arr);
            out.push(' ');
            sexp_operand_in(o, out);
            out.push(')');
        }
    }
}

/// The certificate s-expression of a warp statement: `(shfl X KIND WIDTH V L)` or
/// `(vote X KIND P)`.
pub fn sexp_warp(x: &str, op: &WarpOp) -> String {
    match op {
        WarpOp::Shfl {
            kind,
            width,
            value,
            lane,
        } => format!(
            "(shfl {x} {} {width} {} {})",
            kind.name(),
            sexp_operand(value),
            sexp_operand(lane)
        ),
        WarpOp::Vote { kind, pred } => {
            format!("(vote {x} {} {})", kind.name(), sexp_operand(pred))
        }
    }
}

/// The certificate s-expression of a program (`spec/certificate.md`, "Program"):
/// `(program NAME (params …) (arrays …) (locals …) (body …))` over several lines, each
/// line indented by two spaces per level, ending with a newline.
pub fn sexp_program(prog: &Program, out: &mut String) {
    sexp_program_in(prog, out, false)
}

/// [`sexp_program`] with flat sequences when `flat` (certificate format 3).
pub fn sexp_program_in(prog: &Program, out: &mut String, flat: bool) {
    let _ = writeln!(out, "(program {}", prog.name);
    out.push_str("  (params");
    for p in &prog.params {
        let _ = write!(out, " ({} {})", p.ty.keyword(), p.name);
    }
    out.push_str(")\n  (arrays");
    for a in &prog.arrays {
        let _ = write!(
            out,
            " ({} {} {} {})",
            a.name,
            a.space.keyword(),
            a.elem.keyword(),
            a.elem_bytes
        );
    }
    out.push_str(")\n  (locals");
    for (x, t) in &prog.locals {
        let _ = write!(out, " ({} {x})", t.keyword());
    }
    out.push_str(")\n  (body\n");
    sexp_stmt_in(&prog.body, 4, out, flat);
    out.push_str("  ))\n");
}

/// The certificate s-expression of a statement, one node per line, indented by `indent`
/// (at most 32 columns: deeply nested bodies would otherwise be mostly spaces).
pub fn sexp_stmt(s: &Stmt, indent: usize, out: &mut String) {
    sexp_stmt_in(s, indent, out, false)
}

/// [`sexp_stmt`], with a sequence chain written as one flat `(seq S1 … Sn)` list when
/// `flat` (certificate format 3, `spec/certificate.md` "Program").
pub fn sexp_stmt_in(s: &Stmt, indent: usize, out: &mut String, flat: bool) {
    const SPACES: &str = "                                ";
    let pad = &SPACES[..indent.min(32)];
    match s {
        Stmt::Skip => {
            let _ = writeln!(out, "{pad}(skip)");
        }
        Stmt::Sync(_) => {
            let _ = writeln!(out, "{pad}(sync)");
        }
        Stmt::Assign(x, e, _) => {
            out.push_str(pad);
            out.push_str("(assign ");
            out.push_str(x);
            out.push(' ');
            sexp_expr_in(e, out);
            out.push_str(")\n");
        }
        Stmt::Write(a, o, e, _) => {
            out.push_str(pad);
            out.push_str("(write ");
            out.push_str(a);
            out.push(' ');
            sexp_operand_in(o, out);
            out.push(' ');
            sexp_expr_in(e, out);
            out.push_str(")\n");
        }
        Stmt::Warp(x, op, _) => {
            let _ = writeln!(out, "{pad}{}", sexp_warp(x, op));
        }
        Stmt::Seq(..) if flat => {
            // a right-nested chain as one list (certificate format 3): the nesting of the
            // text follows the program's real nesting, not the sequence's length
            let _ = writeln!(out, "{pad}(seq");
            for x in s.seq_items() {
                sexp_stmt_in(x, indent + 2, out, flat);
            }
            let _ = writeln!(out, "{pad})");
        }
        Stmt::Seq(a, b) => {
            let _ = writeln!(out, "{pad}(seq");
            sexp_stmt_in(a, indent + 2, out, flat);
            sexp_stmt_in(b, indent + 2, out, flat);
            let _ = writeln!(out, "{pad})");
        }
        Stmt::If(e, a, b, _) => {
            let _ = writeln!(out, "{pad}(if {}", sexp_expr(e));
            sexp_stmt_in(a, indent + 2, out, flat);
            sexp_stmt_in(b, indent + 2, out, flat);
            let _ = writeln!(out, "{pad})");
        }
        Stmt::While(e, b, _) => {
            let _ = writeln!(out, "{pad}(while {}", sexp_expr(e));
            sexp_stmt_in(b, indent + 2, out, flat);
            let _ = writeln!(out, "{pad})");
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Var(x) | Operand::Param(x) => f.write_str(x),
            Operand::Const(Const::Int(n)) => write!(f, "{n}"),
            Operand::Const(Const::Bool(b)) => write!(f, "{b}"),
            Operand::Const(Const::Float(x)) => write!(f, "{x:?}"),
            Operand::Tid(d) => write!(f, "threadIdx.{}", d.letter()),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Opd(o) => write!(f, "{o}"),
            Expr::Bin(op @ (BinOp::Min | BinOp::Max), a, b) => {
                write!(f, "{}({a}, {b})", op.symbol())
            }
            Expr::Bin(op, a, b) => write!(f, "{a} {} {b}", op.symbol()),
            Expr::Un(op, a) => write!(f, "{}({a})", op.name()),
            Expr::Read(arr, o) => write!(f, "{arr}[{o}]"),
        }
    }
}

impl fmt::Display for WarpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WarpOp::Shfl {
                kind,
                width,
                value,
                lane,
            } => write!(f, "shfl_{}<{width}>({value}, {lane})", kind.name()),
            WarpOp::Vote { kind, pred } => write!(f, "vote_{}({pred})", kind.name()),
        }
    }
}

fn fmt_stmt(s: &Stmt, indent: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let pad = " ".repeat(indent);
    match s {
        Stmt::Skip => writeln!(f, "{pad}skip"),
        Stmt::Sync(_) => writeln!(f, "{pad}sync"),
        Stmt::Assign(x, e, _) => writeln!(f, "{pad}{x} ← {e}"),
        Stmt::Write(a, o, e, _) => writeln!(f, "{pad}{a}[{o}] ← {e}"),
        Stmt::Warp(x, op, _) => writeln!(f, "{pad}{x} ← {op}"),
        Stmt::Seq(a, b) => {
            fmt_stmt(a, indent, f)?;
            fmt_stmt(b, indent, f)
        }
        Stmt::If(e, a, b, _) => {
            writeln!(f, "{pad}if {e} then")?;
            fmt_stmt(a, indent + 2, f)?;
            if **b != Stmt::Skip {
                writeln!(f, "{pad}else")?;
                fmt_stmt(b, indent + 2, f)?;
            }
            Ok(())
        }
        Stmt::While(e, b, _) => {
            writeln!(f, "{pad}while ({e})")?;
            fmt_stmt(b, indent + 2, f)
        }
    }
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_stmt(self, 0, f)
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "kernel {}", self.name)?;
        for p in &self.params {
            writeln!(f, "  param {} {}", p.ty.keyword(), p.name)?;
        }
        for a in &self.arrays {
            writeln!(
                f,
                "  array {} {} {}[{}] ({} bytes/elem)",
                a.space.keyword(),
                a.elem.keyword(),
                a.name,
                a.len.map(|n| n.to_string()).unwrap_or_default(),
                a.elem_bytes
            )?;
        }
        for (x, t) in &self.locals {
            writeln!(f, "  local {} {x}", t.keyword())?;
        }
        fmt_stmt(&self.body, 2, f)
    }
}
