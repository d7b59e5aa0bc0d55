//! Runtime values of miniCUDA and the operators on them (RaCUDA §3: `int`, `bool` and the
//! abstract base type `B`, here `f64`). Used by rules `EC:OP` and `EC:UOP`.
//!
//! Integers are mathematical integers restricted to `i64`: an operation whose exact result
//! does not fit is an error ([`SemError::Overflow`]), never a wrap-around. Integer `/` and
//! `%` truncate toward zero as in C. Floats follow IEEE-754 (`f64`), so `1.0 / 0.0` is `inf`.

use super::SemError;
use crate::core::{BinOp, Const, Ty, UnOp};
use std::fmt;

/// A value held by a local, a parameter, an array cell or a result family entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer (`int`).
    Int(i64),
    /// A boolean (`bool`).
    Bool(bool),
    /// A value of the abstract base type `B` (`float`, `double`).
    Float(f64),
}

impl Value {
    /// The type of the value.
    pub fn ty(self) -> Ty {
        match self {
            Value::Int(_) => Ty::Int,
            Value::Bool(_) => Ty::Bool,
            Value::Float(_) => Ty::Float,
        }
    }

    /// The default value of a type: `0`, `false`, `0.0` (initial value of every local,
    /// and the content of unwritten cells under `Input::Zero`).
    pub fn default_of(ty: Ty) -> Value {
        match ty {
            Ty::Int => Value::Int(0),
            Ty::Bool => Value::Bool(false),
            Ty::Float => Value::Float(0.0),
        }
    }

    /// The value of a constant `c` (rule `OC:CONST`).
    pub fn of_const(c: &Const) -> Value {
        match *c {
            Const::Int(n) => Value::Int(n),
            Const::Bool(b) => Value::Bool(b),
            Const::Float(x) => Value::Float(x),
        }
    }

    /// Identity used by the race check: integers and booleans by value, floats by bit
    /// pattern (so `0.0` and `-0.0` differ and a NaN equals the same NaN).
    pub fn same_bits(self, other: Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Float(x) => write!(f, "{x:?}"),
        }
    }
}

fn type_err(op: &str, a: Value, b: Option<Value>) -> SemError {
    let operands = match b {
        Some(b) => format!("{} and {}", a.ty().keyword(), b.ty().keyword()),
        None => a.ty().keyword().to_string(),
    };
    SemError::Type(format!("operator `{op}` cannot be applied to {operands}"))
}

fn overflow(op: BinOp, a: i64, b: i64) -> SemError {
    SemError::Overflow(format!("{a} {} {b}", op.symbol()))
}

/// `a op b` for one thread (the per-thread part of rule `EC:OP`).
///
/// Errors: [`SemError::Overflow`] when an integer result does not fit in `i64`
/// (including `i64::MIN / -1` and left shifts that lose bits), [`SemError::DivByZero`] for
/// integer `/` or `%` by zero, [`SemError::BadShift`] for a shift amount outside `0..64`,
/// [`SemError::Type`] for operand types the operator does not accept (int/float mixing,
/// arithmetic on booleans, bitwise operators on floats).
pub fn apply_bin(op: BinOp, a: Value, b: Value) -> Result<Value, SemError> {
    use BinOp::*;
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => {
            let v = match op {
                Add => Int(x.checked_add(y).ok_or_else(|| overflow(op, x, y))?),
                Sub => Int(x.checked_sub(y).ok_or_else(|| overflow(op, x, y))?),
                Mul => Int(x.checked_mul(y).ok_or_else(|| overflow(op, x, y))?),
                Div | Rem => {
                    if y == 0 {
                        return Err(SemError::DivByZero(format!("{x} {} 0", op.symbol())));
                    }
                    let r = if op == Div {
                        x.checked_div(y)
                    } else {
                        x.checked_rem(y)
                    };
                    Int(r.ok_or_else(|| overflow(op, x, y))?)
                }
                Shl | Shr => {
                    if !(0..64).contains(&y) {
                        return Err(SemError::BadShift(y));
                    }
                    if op == Shl {
                        let wide = (x as i128) << y;
                        Int(i64::try_from(wide).map_err(|_| overflow(op, x, y))?)
                    } else {
                        // Arithmetic shift (what every CUDA compiler does for signed values).
                        Int(x >> y)
                    }
                }
                BitAnd => Int(x & y),
                BitOr => Int(x | y),
                BitXor => Int(x ^ y),
                Lt => Bool(x < y),
                Le => Bool(x <= y),
                Gt => Bool(x > y),
                Ge => Bool(x >= y),
                Eq => Bool(x == y),
                Ne => Bool(x != y),
                Min => Int(x.min(y)),
                Max => Int(x.max(y)),
                And | Or => return Err(type_err(op.symbol(), a, Some(b))),
            };
            Ok(v)
        }
        (Float(x), Float(y)) => {
            let v = match op {
                Add => Float(x + y),
                Sub => Float(x - y),
                Mul => Float(x * y),
                Div => Float(x / y),
                Rem => Float(x % y),
                Lt => Bool(x < y),
                Le => Bool(x <= y),
                Gt => Bool(x > y),
                Ge => Bool(x >= y),
                Eq => Bool(x == y),
                Ne => Bool(x != y),
                // fminf/fmaxf: a NaN operand yields the other operand.
                Min => Float(x.min(y)),
                Max => Float(x.max(y)),
                Shl | Shr | BitAnd | BitOr | BitXor | And | Or => {
                    return Err(type_err(op.symbol(), a, Some(b)))
                }
            };
            Ok(v)
        }
        (Bool(x), Bool(y)) => {
            let v = match op {
                And | BitAnd | Min => x && y,
                Or | BitOr | Max => x || y,
                BitXor | Ne => x != y,
                Eq => x == y,
                Lt => !x & y,
                Le => x <= y,
                Gt => x & !y,
                Ge => x >= y,
                Add | Sub | Mul | Div | Rem | Shl | Shr => {
                    return Err(type_err(op.symbol(), a, Some(b)))
                }
            };
            Ok(Bool(v))
        }
        _ => Err(type_err(op.symbol(), a, Some(b))),
    }
}

/// `a op b` for the common operator and type combinations that cannot fail (comparisons,
/// float arithmetic) or whose only failure is an overflow (`+`, `-`, `*` on ints); `None`
/// for every other case, which [`apply_bin`] decides. Where it is `Some`, it is exactly
/// what [`apply_bin`] returns (the same expressions; `tests/semantics_differential.rs`
/// compares [`apply_bin_lanes`] with [`apply_bin`] on every operator and edge values).
#[inline]
fn fast_bin(op: BinOp, a: Value, b: Value) -> Option<Value> {
    use BinOp::*;
    use Value::*;
    match (a, b) {
        (Int(x), Int(y)) => match op {
            Add => x.checked_add(y).map(Int),
            Sub => x.checked_sub(y).map(Int),
            Mul => x.checked_mul(y).map(Int),
            Lt => Some(Bool(x < y)),
            Le => Some(Bool(x <= y)),
            Gt => Some(Bool(x > y)),
            Ge => Some(Bool(x >= y)),
            Eq => Some(Bool(x == y)),
            Ne => Some(Bool(x != y)),
            _ => None,
        },
        (Float(x), Float(y)) => match op {
            Add => Some(Float(x + y)),
            Sub => Some(Float(x - y)),
            Mul => Some(Float(x * y)),
            Div => Some(Float(x / y)),
            Lt => Some(Bool(x < y)),
            Le => Some(Bool(x <= y)),
            Gt => Some(Bool(x > y)),
            Ge => Some(Bool(x >= y)),
            _ => None,
        },
        _ => None,
    }
}

/// `a op b` for one lane: exactly what [`apply_bin_lanes`] computes for a family of one
/// value (the thread steps of the interleaving semantics).
#[inline]
pub fn apply_bin_one(op: BinOp, a: Value, b: Value) -> Result<Value, SemError> {
    match fast_bin(op, a, b) {
        Some(v) => Ok(v),
        None => apply_bin(op, a, b),
    }
}

/// `xs[k] ← xs[k] op ys[k]` for every lane `k` in order (rule `EC:OP` over a family), with
/// [`apply_bin`]'s results and its first error (lanes before the failing one are updated).
pub fn apply_bin_lanes(op: BinOp, xs: &mut [Value], ys: &[Value]) -> Result<(), SemError> {
    for (x, y) in xs.iter_mut().zip(ys) {
        *x = apply_bin_one(op, *x, *y)?;
    }
    Ok(())
}

/// `op a` for one thread (the per-thread part of rule `EC:UOP`).
///
/// `neg`: int (checked) or float; `not`: bool; `bitnot`: int; `tofloat`: any value
/// (`true` ↦ 1.0); `toint`: truncation toward zero of a float (error when NaN or out of the
/// `i64` range), identity on ints, `true` ↦ 1; `tobool`: `v != 0`; `popc`: the 1 bits of the
/// int mod 2^64 (its 64-bit two's complement); `ffs`: 1 + the index of its lowest 1 bit, 0
/// for 0.
/// Errors: [`SemError::Overflow`], [`SemError::Type`].
pub fn apply_un(op: UnOp, a: Value) -> Result<Value, SemError> {
    use Value::*;
    Ok(match (op, a) {
        (UnOp::Neg, Int(x)) => Int(x
            .checked_neg()
            .ok_or_else(|| SemError::Overflow(format!("-({x})")))?),
        (UnOp::Neg, Float(x)) => Float(-x),
        (UnOp::Not, Bool(b)) => Bool(!b),
        (UnOp::BitNot, Int(x)) => Int(!x),
        (UnOp::Popc, Int(x)) => Int(i64::from(x.count_ones())),
        (UnOp::Ffs, Int(x)) => Int(if x == 0 {
            0
        } else {
            i64::from(x.trailing_zeros()) + 1
        }),
        (UnOp::ToFloat, Int(x)) => Float(x as f64),
        (UnOp::ToFloat, Float(x)) => Float(x),
        (UnOp::ToFloat, Bool(b)) => Float(if b { 1.0 } else { 0.0 }),
        (UnOp::ToInt, Int(x)) => Int(x),
        (UnOp::ToInt, Bool(b)) => Int(b as i64),
        (UnOp::ToInt, Float(x)) => {
            let t = x.trunc();
            // 2^63 is exactly representable; the valid range is [-2^63, 2^63).
            // NaN is in no range.
            if !(-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&t) {
                return Err(SemError::Overflow(format!("(int) {x:?}")));
            }
            Int(t as i64)
        }
        (UnOp::ToBool, Int(x)) => Bool(x != 0),
        (UnOp::ToBool, Float(x)) => Bool(x != 0.0),
        (UnOp::ToBool, Bool(b)) => Bool(b),
        _ => return Err(type_err(op.name(), a, None)),
    })
}
