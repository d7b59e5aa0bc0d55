//! Expression rules `P ⊢_M e : C` (spec/logic.md §3; RaCUDA Fig. 8, rules OQ:* and EQ:*).
//!
//! Every rule has the signature of [`crate::registry::Rule`]: it receives the context, the
//! node, the operand/expression the node is about and the enclosing statement's pre
//! `(P, D, _)`, checks its children, and returns the recomputed cost `C` (which
//! [`Ctx::check_node`] compares with the node's `(cost C)`).

use super::{Ctx, Subject};
use crate::arith::Rat;
use crate::metric::at;
use crate::syntax::{Assn, Expr, Node, Opd, Space};
use crate::{Reason, Rejection};

fn operand<'a>(cx: &Ctx, s: Subject<'a>, what: &'static str) -> Result<&'a Opd, Rejection> {
    match s {
        Subject::Opd(o) | Subject::Expr(Expr::Opd(o)) => Ok(o),
        _ => Err(cx.rej(Reason::WrongSubject { expected: what, found: s.describe() })),
    }
}

fn leaf(cx: &Ctx, n: &Node, s: Subject<'_>, what: &'static str, ok: fn(&Opd) -> bool) -> Result<(), Rejection> {
    let o = operand(cx, s, what)?;
    if !ok(o) {
        return Err(cx.rej(Reason::WrongSubject { expected: what, found: s.describe() }));
    }
    cx.shape::<0>(n, &[])?;
    Ok(())
}

/// OQ:VAR — `(var x)` costs `M^var`.
pub fn oq_var(cx: &Ctx, n: &Node, s: Subject<'_>, _env: &Assn) -> Result<Rat, Rejection> {
    leaf(cx, n, s, "a local operand", |o| matches!(o, Opd::Var(_)))?;
    Ok(cx.m.var.clone())
}

/// OQ:TID — `(tid d)` costs `M^var`.
pub fn oq_tid(cx: &Ctx, n: &Node, s: Subject<'_>, _env: &Assn) -> Result<Rat, Rejection> {
    leaf(cx, n, s, "a threadIdx operand", |o| matches!(o, Opd::Tid(_)))?;
    Ok(cx.m.var.clone())
}

/// OQ:CONST — `(int …)`, `(bool …)`, `(float …)` cost `M^const`.
pub fn oq_const(cx: &Ctx, n: &Node, s: Subject<'_>, _env: &Assn) -> Result<Rat, Rejection> {
    leaf(cx, n, s, "a constant operand", |o| matches!(o, Opd::Int(_) | Opd::Bool(_) | Opd::Float(_)))?;
    Ok(cx.m.konst.clone())
}

/// OQ:PARAM — `(param p)` costs `M^param` (Fig. 8 prints `M^const`: erratum, spec/logic.md §3).
pub fn oq_param(cx: &Ctx, n: &Node, s: Subject<'_>, _env: &Assn) -> Result<Rat, Rejection> {
    leaf(cx, n, s, "a parameter operand", |o| matches!(o, Opd::Param(_)))?;
    Ok(cx.m.param.clone())
}

/// EQ:OP — `(bin op a b)` costs `C_a + C_b + M^op`; children about `a`, `b`.
pub fn eq_op(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    let Subject::Expr(Expr::Bin(_, a, b)) = s else {
        return Err(cx.rej(Reason::WrongSubject { expected: "a binary expression", found: s.describe() }));
    };
    let c = cx.shape::<2>(n, &[])?;
    let ca = cx.check_node(&c[0], Subject::Opd(a), env, 0)?;
    let cb = cx.check_node(&c[1], Subject::Opd(b), env, 1)?;
    Ok(ca + cb + &cx.m.op)
}

/// EQ:UOP — `(un op a)` costs `C_a + M^op`; child about `a`.
pub fn eq_uop(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    let Subject::Expr(Expr::Un(_, a)) = s else {
        return Err(cx.rej(Reason::WrongSubject { expected: "a unary expression", found: s.describe() }));
    };
    let c = cx.shape::<1>(n, &[])?;
    Ok(cx.check_node(&c[0], Subject::Opd(a), env, 0)? + &cx.m.op)
}

pub(super) fn read(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn, space: Space) -> Result<Rat, Rejection> {
    let Subject::Expr(Expr::Read(arr, o)) = s else {
        return Err(cx.rej(Reason::WrongSubject { expected: "an array read", found: s.describe() }));
    };
    let c = cx.shape::<1>(n, &["n"])?;
    let count = cx.count(n, env, arr, o, space)?;
    let co = cx.check_node(&c[0], Subject::Opd(o), env, 0)?;
    let f = if space == Space::Global { &cx.m.gread } else { &cx.m.sread };
    Ok(co + at(f, &count))
}

/// EQ:LARRAY — `(read A o)`, `A` thread-local: no field; costs `C_o + M^var`; child about
/// `o` (spec/logic.md §3).
pub fn eq_larray(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    let Subject::Expr(Expr::Read(arr, o)) = s else {
        return Err(cx.rej(Reason::WrongSubject { expected: "an array read", found: s.describe() }));
    };
    local_array(cx, arr)?;
    let c = cx.shape::<1>(n, &[])?;
    Ok(cx.check_node(&c[0], Subject::Opd(o), env, 0)? + &cx.m.var)
}

/// Checks that `arr` is a declared thread-local array (EQ:LARRAY, Q:LWRITE).
pub(crate) fn local_array(cx: &Ctx, arr: &str) -> Result<(), Rejection> {
    match cx.prog.array(arr) {
        Some(a) if a.space == Space::Local => Ok(()),
        Some(_) => {
            Err(cx.rej(Reason::WrongSubject { expected: "a thread-local array", found: format!("array `{arr}`") }))
        }
        None => Err(cx.rej(Reason::Undeclared { kind: "array", name: arr.to_string() })),
    }
}

/// EQ:GARRAY — `(read A o)`, `A` global: field `(n N)` with `N ≥ N*_MemReads(o)`; costs
/// `C_o + M^gread(N)`; child about `o`.
pub fn eq_garray(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    read(cx, n, s, env, Space::Global)
}

/// EQ:SARRAY — `(read A o)`, `A` shared: field `(n N)` with `N ≥ N*_Conflicts(o)`; costs
/// `C_o + M^sread(N)`; child about `o`.
pub fn eq_sarray(cx: &Ctx, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
    read(cx, n, s, env, Space::Shared)
}
