//! Linear forms and thread-dependence entries of program expressions (`spec/logic.md` §2:
//! `lin(e)`, `dep_D(e)`, conditions as constraints, lane constraints), over the assertion
//! types of `crate::core::assertion`.
//!
//! Dependence entries use `i64` with checked arithmetic and fall back to "no information"
//! (`None`, the spec's `⊤`) on overflow.

use crate::core::assertion::linear::{
    gcd, param_sym, tid_name, CKind, Cstr, Dep, DepMap, EntryKind, Lin, RowMul,
};
use crate::core::metric::{q, Q};
use crate::core::{BinOp, Const, Dim, Expr, Operand, Program, Ty, UnOp, WarpOp};
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

/// The types of a kernel's locals and parameters, as [`Program::local_ty`] and
/// [`Program::param_ty`] give them. `Program` scans its lists; the analysis context
/// implements this with a map built once (issue 13: kernels with thousands of locals made
/// every lookup, and so the analysis, quadratic).
pub trait Types {
    /// The type of local `x`, as [`Program::local_ty`].
    fn local_ty(&self, x: &str) -> Option<Ty>;
    /// The type of parameter `p`, as [`Program::param_ty`].
    fn param_ty(&self, p: &str) -> Option<Ty>;
}

impl Types for Program {
    fn local_ty(&self, x: &str) -> Option<Ty> {
        Program::local_ty(self, x)
    }
    fn param_ty(&self, p: &str) -> Option<Ty> {
        Program::param_ty(self, p)
    }
}

/// `lin(o)` of `spec/logic.md` §2: defined for `int` locals, `int` parameters, integer
/// constants and `threadIdx.d`.
pub fn lin_operand<T: Types + ?Sized>(prog: &T, o: &Operand) -> Option<Lin> {
    match o {
        Operand::Var(x) if prog.local_ty(x) == Some(Ty::Int) => Some(Lin::var(x)),
        Operand::Param(p) if prog.param_ty(p) == Some(Ty::Int) => Some(Lin::var(p)),
        Operand::Const(Const::Int(n)) => Some(Lin::constant(q(*n))),
        Operand::Tid(d) => Some(Lin::var(&tid_name(*d))),
        _ => None,
    }
}

/// `lin(e)` of `spec/logic.md` §2: operands, `+`, `−`, `*` by an integer constant, `neg`,
/// `<<` by a constant in `0..64`.
pub fn lin_expr<T: Types + ?Sized>(prog: &T, e: &Expr) -> Option<Lin> {
    match e {
        Expr::Opd(o) => lin_operand(prog, o),
        Expr::Bin(op, a, b) => lin_bin(prog, *op, a, b),
        Expr::Un(op, a) => lin_un(prog, *op, a),
        Expr::Read(..) => None,
    }
}

/// [`lin_expr`] of `a op b`, from the operands by reference (issue 13: `lin_fixed` need
/// not copy them into a new expression).
fn lin_bin<T: Types + ?Sized>(prog: &T, op: BinOp, a: &Operand, b: &Operand) -> Option<Lin> {
    match (op, a, b) {
        (BinOp::Add, a, b) => Some(lin_operand(prog, a)?.add(&lin_operand(prog, b)?)),
        (BinOp::Sub, a, b) => Some(lin_operand(prog, a)?.sub(&lin_operand(prog, b)?)),
        (BinOp::Mul, Operand::Const(Const::Int(n)), o)
        | (BinOp::Mul, o, Operand::Const(Const::Int(n))) => {
            Some(lin_operand(prog, o)?.scale(&q(*n)))
        }
        // `a << c` = `2^c·a` for `0 ≤ c < 64` (EC:OP: exact; an overflow errs)
        (BinOp::Shl, a, Operand::Const(Const::Int(c))) if (0..64).contains(c) => {
            Some(lin_operand(prog, a)?.scale(&q_pow2(*c as u32)))
        }
        _ => None,
    }
}

/// [`lin_expr`] of `op a`.
fn lin_un<T: Types + ?Sized>(prog: &T, op: UnOp, a: &Operand) -> Option<Lin> {
    match op {
        UnOp::Neg => Some(lin_operand(prog, a)?.scale(&-Q::one())),
        _ => None,
    }
}

/// `2^c` as a rational (`c < 64`).
fn q_pow2(c: u32) -> Q {
    Q::from_integer(num_bigint::BigInt::from(2u8).pow(c))
}

/// `(cond(e), cond(¬e))` of `spec/logic.md` §2 (strict inequalities tightened over the
/// integers); both empty when `e` is not a comparison of linear operands. The first flag
/// says whether `P ⇒ e` may be claimed (Q:IF2), the second whether `P ⇒ ¬e` may (Q:IF3).
pub fn cond<T: Types + ?Sized>(prog: &T, e: &Expr) -> (Vec<Cstr>, Vec<Cstr>, bool, bool) {
    let none = (Vec::new(), Vec::new(), false, false);
    let Expr::Bin(op, a, b) = e else {
        return none;
    };
    let (Some(a), Some(b)) = (lin_operand(prog, a), lin_operand(prog, b)) else {
        return none;
    };
    let one = Q::one();
    let amb = a.sub(&b);
    let bma = b.sub(&a);
    match op {
        BinOp::Lt => (
            vec![Cstr::le(amb.plus_const(&one))],
            vec![Cstr::le(bma)],
            true,
            true,
        ),
        BinOp::Le => (
            vec![Cstr::le(amb)],
            vec![Cstr::le(bma.plus_const(&one))],
            true,
            true,
        ),
        BinOp::Gt => (
            vec![Cstr::le(bma.plus_const(&one))],
            vec![Cstr::le(amb)],
            true,
            true,
        ),
        BinOp::Ge => (
            vec![Cstr::le(bma)],
            vec![Cstr::le(amb.plus_const(&one))],
            true,
            true,
        ),
        BinOp::Eq => (vec![Cstr::eq(amb)], vec![], true, false),
        BinOp::Ne => (vec![], vec![Cstr::eq(amb)], false, true),
        _ => none,
    }
}

/// `dep_D(o)` of spec §2 (`None` = `⊤`).
pub fn dep_operand(d: &DepMap, o: &Operand) -> Option<Dep> {
    match o {
        Operand::Const(Const::Int(n)) => Some(Dep::exact(*n)),
        Operand::Const(_) | Operand::Param(_) => Some(Dep::unknown_uniform()),
        Operand::Tid(dim) => {
            let mut k = [0; 3];
            k[dim.index()] = 1;
            Some(Dep {
                k,
                r: 0,
                g: 0,
                kind: EntryKind::Linear,
                mul: None,
            })
        }
        Operand::Var(x) => d.get(x).copied().filter(|e| e.is_linear()),
    }
}

/// The entry `x ← op` may give `x` (rules Q:SHFL/Q:VOTE of spec/logic.md §4): a vote is
/// uniform with an unknown value `(0, 0, 1)`; a shuffle of a value whose `dep_D` is
/// warp-uniform (`k = 0`) keeps that entry (every lane reads a lane holding the same
/// value, or keeps its own), for a `bool`/`float` local as "uniform"; anything else has no
/// entry (the lanes read different values).
pub fn warp_entry(d: &DepMap, op: &WarpOp, xty: Ty) -> Option<Dep> {
    match op {
        WarpOp::Vote { .. } => Some(Dep::unknown_uniform()),
        WarpOp::Shfl { value, .. } => {
            let dv = dep_operand(d, value).filter(|e| e.is_uniform())?;
            Some(if xty == Ty::Int {
                dv
            } else {
                Dep::unknown_uniform()
            })
        }
    }
}

/// `ent_P,D(e)` of spec §2 "Assigned entry" without the fixed-constant case (the caller
/// handles `lin_P(e)` constant): a copy of a remainder entry; the remainder entry of
/// `a % m` when `dep_D(a % m) = ⊤`, `dep_D(m) = (0, m, 0)`, `m ≥ 1`, `dep_D(a) = (k, r, g)`
/// with `m | g`; else `dep_D(e)`; else `scaled_D(e)` when it has a `?` dimension and a
/// dimension that varies within a warp without `?`; else the range entry of `width_D(e)`.
pub fn entry_expr(d: &DepMap, e: &Expr, cx: &DepCx) -> Option<Dep> {
    let linear = dep_expr(d, e, cx);
    let rem = match e {
        Expr::Opd(Operand::Var(y)) => d.get(y).copied().filter(|x| x.kind == EntryKind::Rem),
        Expr::Bin(BinOp::Rem, a, b) if linear.is_none() => {
            let m = dep_operand(d, b)
                .and_then(|x| x.as_exact())
                .filter(|m| *m >= 1);
            match (m, dep_operand(d, a)) {
                (Some(m), Some(da)) if da.g % m == 0 => Some(Dep::remainder(da.k, da.r, m)),
                _ => None,
            }
        }
        _ => None,
    };
    // A scaled entry only where it can group lanes: some dimension that varies within a
    // warp keeps a known coefficient (else every lane is its own group, as for no entry).
    let groups = |x: &Dep| (0..3).any(|i| !x.unknown_dims()[i] && !cx.udims[i]);
    rem.or(linear)
        .or_else(|| scaled_expr(d, e, cx).filter(|x| !x.is_linear() && groups(x)))
        .or_else(|| wrap_expr(d, e))
        .or_else(|| width_expr(d, e).map(Dep::range))
}

/// `wrap_D(e)` of spec §2 "Wrapped entries": `(wrap k m)` for `a % m` with an exact
/// `m ≥ 1` and `dep_D(a) = (k, r, g)`; a copy of a local's wrapped entry.
pub fn wrap_expr(d: &DepMap, e: &Expr) -> Option<Dep> {
    match e {
        Expr::Opd(Operand::Var(y)) => d.get(y).copied().filter(|x| x.kind == EntryKind::Wrap),
        Expr::Bin(BinOp::Rem, a, b) => {
            let m = dep_operand(d, b)?.as_exact().filter(|m| *m >= 1)?;
            Some(Dep::wrap(dep_operand(d, a)?.k, m))
        }
        _ => None,
    }
}

/// What `N*` reads of an index `o` (spec §2 "Access bounds"; the kernel's
/// `Ctx::index_entry`): `dep_D(o)`, else a scaled entry; for a wrapped entry `(wrap k m)`
/// the linear `(k, 0, 1)` when `period` (`bank_bytes·banks` for `Conflicts`, `None` for
/// `MemReads`) divides `m·es`, else the window width `2m − 2`; a range entry's width; a
/// remainder entry's window `2m − 2`.
pub fn index_entry(
    d: &DepMap,
    o: &Operand,
    es: u32,
    period: Option<i64>,
) -> (Option<Dep>, Option<i64>) {
    let dep = dep_operand(d, o).or_else(|| scaled_operand(d, o));
    let entry = match (o, dep) {
        (Operand::Var(x), None) => d.get(x).copied(),
        _ => None,
    };
    match entry {
        Some(e) => {
            let divides =
                period.is_some_and(|p| (i128::from(e.g) * i128::from(es)) % i128::from(p) == 0);
            if e.kind == EntryKind::Wrap && divides {
                (Dep::new(e.k, 0, 1), None)
            } else {
                (None, e.window())
            }
        }
        None => (dep, None),
    }
}

/// `scaled_D(o)` of spec §2 "Scaled entries": a local's scaled entry, else `dep_D(o)`.
pub fn scaled_operand(d: &DepMap, o: &Operand) -> Option<Dep> {
    match o {
        Operand::Var(x) => d
            .get(x)
            .copied()
            .filter(|e| matches!(e.kind, EntryKind::Scaled(_)))
            .or_else(|| dep_operand(d, o)),
        _ => dep_operand(d, o),
    }
}

/// `scaled_D(e)` of spec §2 "Scaled entries" (`None` on overflow or when undefined): sums
/// and differences (`?` on the union of the operands' `?` dimensions), `neg`, products
/// with an exact side or with a side uniform after collapse (the other side's thread
/// dimensions become `?`: `threadIdx.y * W` is `(0 ? 0 0 0)`).
pub fn scaled_expr(d: &DepMap, e: &Expr, cx: &DepCx) -> Option<Dep> {
    let or = |a: [bool; 3], b: [bool; 3]| [0, 1, 2].map(|i| a[i] || b[i]);
    let times = |x: &Dep, c: i64| -> Option<Dep> {
        let k = [
            x.k[0].checked_mul(c)?,
            x.k[1].checked_mul(c)?,
            x.k[2].checked_mul(c)?,
        ];
        let mut d = Dep::with_unknown(
            k,
            x.unknown_dims(),
            x.r.checked_mul(c)?,
            x.g.checked_mul(c)?,
        )?;
        d.mul = match x.mul {
            Some(m) => Some(RowMul {
                param: m.param,
                a: m.a.checked_mul(c)?,
                b: m.b.checked_mul(c)?,
            }),
            None => None,
        };
        Some(d)
    };
    let prod = |x: &Dep, y: &Dep| -> Option<Dep> {
        match y.as_exact() {
            Some(0) => Some(Dep::exact(0)),
            Some(c) => times(x, c),
            None if y.is_linear() && collapse(*y, cx).is_uniform() => {
                let y = collapse(*y, cx);
                let c = uniform_product(x.r, x.g, y.r, y.g)?;
                let u = or(x.unknown_dims(), [0, 1, 2].map(|i| x.k[i] != 0));
                Dep::with_unknown([0; 3], u, c.0, c.1)
            }
            None => None,
        }
    };
    match e {
        Expr::Opd(o) => scaled_operand(d, o),
        Expr::Un(UnOp::Neg, a) => times(&scaled_operand(d, a)?, -1),
        Expr::Bin(op, a, b) => {
            let (x, y) = (scaled_operand(d, a)?, scaled_operand(d, b)?);
            let s = match op {
                BinOp::Add => 1,
                BinOp::Sub => -1,
                BinOp::Mul => {
                    let mut r = prod(&x, &y).or_else(|| prod(&y, &x))?;
                    r.mul = row_mul(&r, a, &y).or_else(|| row_mul(&r, b, &x));
                    return Some(r);
                }
                _ => return None,
            };
            let mut k = [0i64; 3];
            for (i, ki) in k.iter_mut().enumerate() {
                *ki = x.k[i].checked_add(y.k[i].checked_mul(s)?)?;
            }
            let r = x.r.checked_add(y.r.checked_mul(s)?)?;
            let mut out =
                Dep::with_unknown(k, or(x.unknown_dims(), y.unknown_dims()), r, gcd(x.g, y.g)?)?;
            out.mul = sum_mul(&out, &x, &y, s);
            Some(out)
        }
        _ => None,
    }
}

/// The one `?` dimension of a scaled entry (`None` for any other entry).
fn one_unknown(r: &Dep) -> Option<usize> {
    let u = r.unknown_dims();
    (u.iter().filter(|b| **b).count() == 1)
        .then(|| u.iter().position(|b| *b))
        .flatten()
}

/// The row multiplier of the scaled product `r = a·b` (spec §1 "Row multipliers", the
/// kernel's `row_mul`): `a` the parameter `P`, `b` linear with `k_d ≠ 0` on the one `?`
/// dimension `d` of `r` only: `u_d = k_d·P`.
fn row_mul(r: &Dep, a: &Operand, y: &Dep) -> Option<RowMul> {
    let d = one_unknown(r)?;
    let Operand::Param(p) = a else { return None };
    let only_d = (0..3).all(|i| (i == d) != (y.k[i] == 0));
    (y.is_linear() && only_d).then(|| RowMul {
        param: param_sym(p),
        a: y.k[d],
        b: 0,
    })
}

/// The row multiplier of the scaled sum `r = x + s·y` (the kernel's `sum_mul`): each side
/// contributes its multiplier when `?` on `r`'s one `?` dimension `d` (required), else `k_d`.
fn sum_mul(r: &Dep, x: &Dep, y: &Dep, s: i64) -> Option<RowMul> {
    let d = one_unknown(r)?;
    let part = |e: &Dep| -> Option<(Option<u32>, i64, i64)> {
        if e.unknown_dims()[d] {
            let m = e.mul?;
            Some((Some(m.param), m.a, m.b))
        } else {
            Some((None, 0, e.k[d]))
        }
    };
    let ((px, ax, bx), (py, ay, by)) = (part(x)?, part(y)?);
    let param = match (px, py) {
        (Some(p), Some(q)) if p == q => p,
        (Some(p), None) | (None, Some(p)) => p,
        _ => return None,
    };
    Some(RowMul {
        param,
        a: ax.checked_add(s.checked_mul(ay)?)?,
        b: bx.checked_add(s.checked_mul(by)?)?,
    })
}

/// The congruence `(r1·r2, gcd(g1·g2, r1·g2, r2·g1))` of a product of two uniform values
/// `c1 ≡ r1 (mod g1)`, `c2 ≡ r2 (mod g2)` (spec §2, `*` of uniforms); `None` on overflow.
pub(crate) fn uniform_product(r1: i64, g1: i64, r2: i64, g2: i64) -> Option<(i64, i64)> {
    let g = gcd(
        gcd(g1.checked_mul(g2)?, r1.checked_mul(g2)?)?,
        r2.checked_mul(g1)?,
    )?;
    Some((r1.checked_mul(r2)?, g))
}

/// `width_D(o)` (spec §2 "Widths"): 0 for a uniform value, `w` for a range local.
fn width_operand(d: &DepMap, o: &Operand) -> Option<i64> {
    match (dep_operand(d, o), o) {
        (Some(x), _) if x.is_uniform() => Some(0),
        // a range or wrapped entry's window (a remainder entry gives lane facts instead)
        (_, Operand::Var(x)) => d
            .get(x)
            .filter(|e| e.kind != EntryKind::Rem)
            .and_then(Dep::window),
        _ => None,
    }
}

/// `width_D(e)` (spec §2): a range local; `a & n` for an exact `n ≥ 0`; `a % m` for an
/// exact `m ≥ 1` (`2m − 2`); sums and differences of operands with widths; `neg`.
fn width_expr(d: &DepMap, e: &Expr) -> Option<i64> {
    let nonneg = |o: &Operand| {
        dep_operand(d, o)
            .and_then(|x| x.as_exact())
            .filter(|n| *n >= 0)
    };
    match e {
        Expr::Opd(o @ Operand::Var(_)) if dep_operand(d, o).is_none() => width_operand(d, o),
        Expr::Bin(BinOp::BitAnd, a, b) => nonneg(b).or_else(|| nonneg(a)),
        // C's truncating `a % m`, `m ≥ 1`: `−m < a % m < m`, one window of width `2m − 2`
        Expr::Bin(BinOp::Rem, _, b) => nonneg(b)
            .filter(|m| *m >= 1)
            .and_then(|m| m.checked_mul(2))
            .map(|w| w - 2),
        Expr::Bin(BinOp::Add | BinOp::Sub, a, b) => {
            width_operand(d, a)?.checked_add(width_operand(d, b)?)
        }
        Expr::Un(UnOp::Neg, a) => width_operand(d, a),
        _ => None,
    }
}

/// What `dep_D` needs of the launch: the warp-uniform dimensions (collapse) and the block
/// and warp size (the `>>` rule's enumeration).
#[derive(Clone, Copy, Debug)]
pub struct DepCx {
    /// Warp-uniform thread dimensions ([`warp_uniform_dims`]).
    pub udims: [bool; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Warp size.
    pub warp: u32,
}

/// Enumeration limit of the `>>` rule (the kernel's `access::WORK_LIMIT`).
const SHIFT_WORK_LIMIT: u64 = 4_000_000;

/// The `>>` rule of spec §2: for every warp and every `ρ ∈ [0, 2^c)` with
/// `ρ ≡ r (mod gcd(g, 2^c))`, `⌊(k·tid(l) + ρ)/2^c⌋` is the same on all lanes.
fn shift_uniform(x: &Dep, c: u32, cx: &DepCx) -> bool {
    let p: i128 = 1 << c;
    let step: i128 = if x.g == 0 { p } else { (x.g as i128).gcd(&p) };
    let count = (p / step) as u64;
    let total: u64 = cx.block.iter().map(|&b| u64::from(b)).product();
    if count.saturating_mul(total) > SHIFT_WORK_LIMIT {
        return false;
    }
    let launch = crate::core::Launch {
        block: cx.block,
        grid: None,
    };
    let warp = u64::from(cx.warp.max(1));
    let mut start = 0;
    while start < total {
        let end = (start + warp).min(total);
        let offs: Vec<i128> = (start..end)
            .map(|t| {
                let ti = launch.thread_index(t);
                (0..3).map(|i| x.k[i] as i128 * ti[i] as i128).sum()
            })
            .collect();
        let mut rho = (x.r as i128).rem_euclid(step);
        while rho < p {
            let q0 = (offs[0] + rho).div_euclid(p);
            if offs.iter().any(|o| (o + rho).div_euclid(p) != q0) {
                return false;
            }
            rho += step;
        }
        start = end;
    }
    true
}

/// `lane_D(e)` (`neg = false`) or `lane_D(¬e)` (`neg = true`) of spec §2 "Lane facts";
/// the list of residues `1 … m−1` only for `m ≤` [`LANE_MODULUS_LIMIT`].
pub fn lane_cond(d: &DepMap, e: &Expr, neg: bool) -> Vec<Cstr> {
    let Expr::Bin(op, a, b) = e else {
        return Vec::new();
    };
    let equal = match (op, neg) {
        (BinOp::Eq, false) | (BinOp::Ne, true) => true,
        (BinOp::Ne, false) | (BinOp::Eq, true) => false,
        _ => return Vec::new(),
    };
    let rem_of = |o: &Operand| match o {
        Operand::Var(x) => d.get(x).copied().filter(|e| e.kind == EntryKind::Rem),
        _ => None,
    };
    let exact = |o: &Operand| dep_operand(d, o).and_then(|x| x.as_exact());
    let (ent, c) = match (rem_of(a), rem_of(b)) {
        (Some(ent), _) if exact(b).is_some() => (ent, exact(b)),
        (_, Some(ent)) => (ent, exact(a)),
        _ => return Vec::new(),
    };
    let Some(c) = c else {
        return Vec::new();
    };
    let m = ent.g;
    let rs: Vec<i64> = if equal {
        vec![c.rem_euclid(m)]
    } else if c == 0 && m <= LANE_MODULUS_LIMIT {
        (1..m).collect()
    } else {
        return Vec::new();
    };
    let mut lin = Lin::constant(q(ent.r));
    for dim in Dim::ALL {
        lin = lin.add_scaled(&Lin::var(&tid_name(dim)), &q(ent.k[dim.index()]));
    }
    vec![Cstr {
        kind: CKind::Mod(m, rs),
        lin,
    }]
}

/// Largest modulus for which `lane_D(x != 0)` lists the residues `1 … m−1` (spec §2; the
/// kernel's `LANE_MODULUS_LIMIT`).
pub const LANE_MODULUS_LIMIT: i64 = 4096;

/// Whether the form `l` is uniform under `d` (spec §1): its variables are `int` parameters,
/// `threadIdx.*` or `int` locals with linear entries, and the thread coefficients cancel.
pub fn uniform_form<T: Types + ?Sized>(prog: &T, d: &DepMap, l: &Lin) -> bool {
    // the common case: parameters and uniform locals only
    let plain = |v: &String| {
        prog.param_ty(v) == Some(Ty::Int)
            || (d.get(v).is_some_and(|e| e.is_uniform()) && prog.local_ty(v) == Some(Ty::Int))
    };
    if l.terms.keys().all(plain) {
        return true;
    }
    thread_coefficients(prog, d, l).is_some_and(|k| k.iter().all(|x| x.is_zero()))
}

/// The thread coefficients `K = (k_x, k_y, k_z)` of the form `l` under `d`: its
/// `threadIdx.*` coefficients plus `a_v·k_v` for each `int` local `v` (coefficient `a_v`)
/// with a linear entry `(k_v, r, g)`; `int` parameters are uniform. `None` when a variable
/// is neither (a local without a linear entry, a non-`int` variable).
fn thread_coefficients<T: Types + ?Sized>(prog: &T, d: &DepMap, l: &Lin) -> Option<[Q; 3]> {
    let mut k = [Q::zero(), Q::zero(), Q::zero()];
    for (v, a) in &l.terms {
        if let Some(dim) = Dim::ALL.iter().find(|dim| tid_name(**dim) == *v) {
            k[dim.index()] += a;
        } else if prog.param_ty(v) == Some(Ty::Int) {
        } else if prog.local_ty(v) == Some(Ty::Int) {
            let e = d.get(v).filter(|e| e.is_linear())?;
            for (i, ki) in k.iter_mut().enumerate() {
                *ki += a * q(e.k[i]);
            }
        } else {
            return None;
        }
    }
    Some(k)
}

/// Collapse of spec §2: an entry whose thread dependence is only on warp-uniform
/// dimensions (`cx.udims`) becomes uniform, `(0, r, gcd(g, k_d …))` with the gcd over the
/// dimensions of extent `B_d ≠ 1` (`threadIdx.d = 0` when `B_d = 1`).
pub fn collapse(x: Dep, cx: &DepCx) -> Dep {
    if x.is_uniform() || (0..3).any(|i| x.k[i] != 0 && !cx.udims[i]) {
        return x;
    }
    let g = (0..3)
        .filter(|&i| cx.block[i] != 1)
        .try_fold(x.g, |g, i| gcd(g, x.k[i]));
    match g.and_then(|g| Dep::new([0; 3], x.r, g)) {
        Some(d) => d,
        None => Dep::unknown_uniform(),
    }
}

/// The warp-uniform thread dimensions of spec §2: `d` such that every warp of the block
/// (`warp` lanes, x fastest) has one value of `threadIdx.d`.
pub fn warp_uniform_dims(launch: &crate::core::Launch, warp: u32) -> [bool; 3] {
    let total = launch.block_threads();
    let warp = u64::from(warp.max(1));
    let mut out = [true; 3];
    let mut start = 0;
    while start < total {
        let end = (start + warp).min(total);
        let first = launch.thread_index(start);
        for t in start..end {
            let ti = launch.thread_index(t);
            for d in 0..3 {
                out[d] &= ti[d] == first[d];
            }
        }
        start = end;
    }
    out
}

/// `dep_D(e)` of spec §2 (`None` = `⊤`), with operands of `*` and opaque operators
/// collapsed on the warp-uniform dimensions `cx.udims`.
pub fn dep_expr(d: &DepMap, e: &Expr, cx: &DepCx) -> Option<Dep> {
    let col = |x: Option<Dep>| x.map(|x| collapse(x, cx));
    let other = |ds: &[Option<Dep>]| -> Option<Dep> {
        if ds.iter().all(|x| matches!(x, Some(dd) if dd.is_uniform())) {
            Some(Dep::unknown_uniform())
        } else {
            None
        }
    };
    match e {
        Expr::Opd(o) => dep_operand(d, o),
        Expr::Read(_, o) => other(&[col(dep_operand(d, o))]),
        Expr::Un(UnOp::Neg, a) => dep_operand(d, a)?.scale(-1),
        Expr::Un(_, a) => other(&[col(dep_operand(d, a))]),
        Expr::Bin(op, a, b) => {
            let da = dep_operand(d, a);
            let db = dep_operand(d, b);
            match op {
                BinOp::Add => da?.combine(&db?, 1),
                BinOp::Sub => da?.combine(&db?, -1),
                BinOp::Mul => {
                    if let Some(c) = db.and_then(|x| x.as_exact()) {
                        return da?.scale(c);
                    }
                    if let Some(c) = da.and_then(|x| x.as_exact()) {
                        return db?.scale(c);
                    }
                    let (x, y) = (collapse(da?, cx), collapse(db?, cx));
                    if x.is_uniform() && y.is_uniform() {
                        let (r, g) = uniform_product(x.r, x.g, y.r, y.g)?;
                        Dep::new([0; 3], r, g)
                    } else {
                        None
                    }
                }
                BinOp::Shl => match db.and_then(|x| x.as_exact()) {
                    Some(c) if (0..62).contains(&c) => da?.scale(1i64 << c),
                    _ => other(&[col(da), col(db)]),
                },
                BinOp::Shr => match (da, db.and_then(|x| x.as_exact())) {
                    (Some(x), Some(c))
                        if (0..62).contains(&c)
                            && !collapse(x, cx).is_uniform()
                            && shift_uniform(&x, c as u32, cx) =>
                    {
                        Some(Dep::unknown_uniform())
                    }
                    _ => other(&[col(da), col(db)]),
                },
                _ => other(&[col(da), col(db)]),
            }
        }
    }
}

/// `fix_P(y)` of spec §2: the integer `c` pinned by the constraints of `p` over `y` alone.
pub fn fixed(p: &[Cstr], y: &str) -> Option<i64> {
    let (mut lo, mut hi): (Option<Q>, Option<Q>) = (None, None);
    for c in p {
        // (the coefficient by reference: no zero built for the constraints without `y`)
        let Some(a) = c.lin.terms.get(y) else {
            continue;
        };
        if a.is_zero() || c.lin.terms.len() != 1 || c.is_lane() {
            continue;
        }
        let v = -c.lin.c.clone() / a;
        if c.kind == CKind::Eq || a.is_positive() {
            hi = Some(hi.map_or(v.clone(), |h: Q| h.min(v.clone())));
        }
        if c.kind == CKind::Eq || a.is_negative() {
            lo = Some(lo.map_or(v.clone(), |l: Q| l.max(v)));
        }
    }
    match (lo, hi) {
        (Some(l), Some(h)) if l == h && l.is_integer() => l.to_integer().try_into().ok(),
        _ => None,
    }
}

/// `lin_P(e)` of spec §2: `lin` after replacing operands fixed by `p` with their values
/// and evaluating a non-linear integer operator on two constants as the semantics does.
pub fn lin_fixed<'e, T: Types + ?Sized>(prog: &T, p: &[Cstr], e: &'e Expr) -> Option<Lin> {
    // the operand, or the constant `p` fixes it to (borrowed: no copy, issue 13)
    let fix = |o: &'e Operand| -> std::borrow::Cow<'e, Operand> {
        match o {
            Operand::Var(y) if prog.local_ty(y) == Some(Ty::Int) => match fixed(p, y) {
                Some(c) => std::borrow::Cow::Owned(Operand::Const(Const::Int(c))),
                None => std::borrow::Cow::Borrowed(o),
            },
            _ => std::borrow::Cow::Borrowed(o),
        }
    };
    match e {
        Expr::Opd(o) => lin_operand(prog, &fix(o)),
        Expr::Bin(op, a, b) => {
            let (a, b) = (fix(a), fix(b));
            match (&*a, &*b) {
                (Operand::Const(Const::Int(x)), Operand::Const(Const::Int(y)))
                    if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) =>
                {
                    use crate::semantics::value::apply_bin;
                    use crate::semantics::Value;
                    match apply_bin(*op, Value::Int(*x), Value::Int(*y)) {
                        Ok(Value::Int(v)) => Some(Lin::constant(q(v))),
                        _ => None,
                    }
                }
                (a, b) => lin_bin(prog, *op, a, b),
            }
        }
        Expr::Un(op, a) => lin_un(prog, *op, &fix(a)),
        Expr::Read(..) => None,
    }
}

/// Whether `e` is uniform under `D` (`P ⇒ e unif`, spec §2): every operand is a constant, a
/// parameter or a local in `X(D)`; no `threadIdx`.
pub fn expr_uniform(d: &DepMap, e: &Expr) -> bool {
    let opd = |o: &Operand| match o {
        Operand::Const(_) | Operand::Param(_) => true,
        Operand::Tid(_) => false,
        Operand::Var(x) => d.get(x).is_some_and(|e| e.is_uniform()),
    };
    match e {
        Expr::Opd(o) | Expr::Un(_, o) | Expr::Read(_, o) => opd(o),
        Expr::Bin(_, a, b) => opd(a) && opd(b),
    }
}

/// The initial map of spec §5: `int` locals `(0,0,0)`, other locals `(0,0,1)`.
pub fn initial_deps(prog: &Program) -> DepMap {
    prog.locals
        .iter()
        .map(|(x, t)| {
            let dep = if *t == Ty::Int {
                Dep::exact(0)
            } else {
                Dep::unknown_uniform()
            };
            (x.clone(), dep)
        })
        .collect()
}

/// Join of two maps: for each local present in both, the join of the entries if defined.
pub fn join_deps(a: &DepMap, b: &DepMap) -> DepMap {
    a.iter()
        .filter_map(|(x, da)| {
            let db = b.get(x)?;
            Some((x.clone(), da.join(db)?))
        })
        .collect()
}

/// `D1 ⊒ D2`: every entry of `d2` is implied by `d1`'s entry for the same local.
pub fn deps_imply(d1: &DepMap, d2: &DepMap) -> bool {
    d2.iter()
        .all(|(x, e2)| d1.get(x).is_some_and(|e1| e1.implies(e2)))
}

/// The lane spread of the form `l` under `d` (spec/logic.md §4, Q:WHILELAST; the kernel's
/// `lane_spread`): with `K` the thread coefficients of `l` after replacing each local by its
/// linear entry, the largest `max K·tid − min K·tid` over the lanes of one warp of the
/// block. `None` when a local of `l` has no linear entry (or is not an `int` local).
pub fn lane_spread<T: Types + ?Sized>(
    prog: &T,
    d: &DepMap,
    l: &Lin,
    launch: &crate::core::Launch,
    warp: u32,
) -> Option<Q> {
    let k = thread_coefficients(prog, d, l)?;
    let total = launch.block_threads();
    let warp = u64::from(warp.max(1));
    let (mut w, mut start) = (Q::zero(), 0);
    while start < total {
        let end = (start + warp).min(total);
        let vals: Vec<Q> = (start..end)
            .map(|t| {
                let ti = launch.thread_index(t);
                (0..3).fold(Q::zero(), |acc, i| acc + &k[i] * q(ti[i]))
            })
            .collect();
        if let (Some(lo), Some(hi)) = (vals.iter().min(), vals.iter().max()) {
            w = w.max(hi - lo);
        }
        start = end;
    }
    Some(w)
}

/// The thread coefficients `K` of `l` as integers, its local class `(ρ, G)` and its uniform
/// part `X` (spec/logic.md §4, Q:IFALIGN; the kernel's `thread_k` and `local_class`): from
/// `(c_L, 0)`, a local term `a·v` with the linear entry `(k_v, r_v, g_v)`, `k_v ≠ 0`,
/// gives `ρ ← ρ + a·r_v`, `G ← gcd(G, a·g_v)`; parameter terms and uniform locals' terms go
/// to `X = ρ + Σ a_u·u`. Every
/// active thread has `L(t) = K·tid(t) + c` with one `c ≡ X (mod G)`. `None` when `L` has a
/// non-integer coefficient or constant, a local without a linear entry, or an overflow.
fn local_class<T: Types + ?Sized>(prog: &T, d: &DepMap, l: &Lin) -> Option<([i128; 3], Lin, i128)> {
    let k = thread_coefficients(prog, d, l)?;
    let int = |x: &Q| {
        x.is_integer()
            .then(|| x.to_integer())
            .and_then(|v| i128::try_from(v).ok())
    };
    let mut rho = int(&l.c)?;
    let mut x = Lin::constant(Q::zero());
    let mut g: i128 = 0;
    for (v, a) in &l.terms {
        let a = int(a)?;
        if Dim::ALL.iter().any(|dim| tid_name(*dim) == *v) {
            continue;
        }
        // a parameter, or a local uniform under `d` (one value on every active thread)
        if prog.param_ty(v).is_some() || d.get(v).is_some_and(Dep::is_uniform) {
            x = x.add(&Lin::var(v).scale(&Q::from_integer(a.into())));
        } else {
            let e = d.get(v).filter(|e| e.is_linear())?;
            rho = rho.checked_add(a.checked_mul(e.r.into())?)?;
            g = g.gcd(&a.checked_mul(e.g.into())?);
        }
    }
    let k = [int(&k[0])?, int(&k[1])?, int(&k[2])?];
    Some((k, x.plus_const(&Q::from_integer(rho.into())), g))
}

/// Whether no warp of the block has an integer `c ≡ ρ (mod G)` in `[1 − hi, −lo]` (`lo`,
/// `hi` the least and largest `K·tid` over its lanes): Q:WHILEWARP's window check (the
/// kernel's `never_splits`). `false` when the block is larger than the kernel enumerates
/// or on overflow.
fn class_misses_windows(
    k: &[i128; 3],
    rho: i128,
    g: i128,
    launch: &crate::core::Launch,
    warp: u32,
) -> bool {
    let total = launch.block_threads();
    if total > 4_000_000 {
        return false;
    }
    let warp = u64::from(warp.max(1));
    let mut start = 0;
    while start < total {
        let end = (start + warp).min(total);
        let mut vals = (start..end).map(|t| {
            let ti = launch.thread_index(t);
            (0..3).try_fold(0i128, |acc, i| {
                k[i].checked_mul(i128::from(ti[i]))
                    .and_then(|x| acc.checked_add(x))
            })
        });
        let Some((lo, hi)) = vals.try_fold((i128::MAX, i128::MIN), |(lo, hi), v| {
            v.map(|v| (lo.min(v), hi.max(v)))
        }) else {
            return false;
        };
        let (Some(from), Some(to)) = (1i128.checked_sub(hi), 0i128.checked_sub(lo)) else {
            return false;
        };
        let meets = from <= to
            && if g == 0 {
                from <= rho && rho <= to
            } else {
                match rho.checked_sub(from) {
                    Some(x) => from
                        .checked_add(x.mod_floor(&g.abs()))
                        .is_none_or(|c| c <= to),
                    None => true,
                }
            };
        if meets {
            return false;
        }
        start = end;
    }
    true
}

/// Whether the test `L ≤ 0` can never split a warp under `d` (spec/logic.md §4, Q:WHILEWARP;
/// the kernel's `never_splits`): with `K` the thread coefficients of `L` and `(ρ, G)` its
/// offset class (`L(t) = K·tid(t) + c` with one integer `c ≡ ρ (mod G)`: the local class
/// with the parameters' coefficients folded into `G`), no warp of the block has an integer
/// of the class in `[1 − hi, −lo]` (`lo`, `hi` the least and largest `K·tid` over its
/// lanes). `false` when `L` has a non-integer coefficient or constant, a local without a
/// linear entry, or the block is larger than the kernel enumerates.
pub fn never_splits<T: Types + ?Sized>(
    prog: &T,
    d: &DepMap,
    l: &Lin,
    launch: &crate::core::Launch,
    warp: u32,
) -> bool {
    let Some((k, x, g)) = local_class(prog, d, l) else {
        return false;
    };
    let int = |v: &Q| i128::try_from(v.to_integer()).ok();
    let Some(rho) = int(&x.c) else {
        return false;
    };
    // a parameter's term leaves only its coefficient's multiples; a uniform local's term
    // its entry's class (the kernel's `offset_class`)
    let fold = x.terms.iter().try_fold((rho, g), |(rho, g), (v, a)| {
        let a = int(a)?;
        match d.get(v).filter(|_| prog.param_ty(v).is_none()) {
            Some(e) => Some((
                rho.checked_add(a.checked_mul(e.r.into())?)?,
                g.gcd(&a.checked_mul(e.g.into())?),
            )),
            None => Some((rho, g.gcd(&a))),
        }
    });
    let Some((rho, g)) = fold else {
        return false;
    };
    class_misses_windows(&k, rho, g, launch, warp)
}

/// Largest modulus the residue class search of Q:IFALIGN tries (the class is written in
/// the certificate, `(class S M)`; the kernel checks it whatever its size).
pub const RESIDUE_MODULUS_LIMIT: i128 = 4096;

/// The windows `[1 − hi, −lo]` of Q:WHILEWARP's window check, one per warp of the block
/// whose `K·tid` is not constant (`lo < hi`, the least and largest `K·tid` over its
/// lanes), as `(1 − hi, hi − lo)`: first integer and number of integers. `None` when the
/// block is larger than the kernel enumerates or on overflow.
fn split_windows(
    k: &[i128; 3],
    launch: &crate::core::Launch,
    warp: u32,
) -> Option<Vec<(i128, i128)>> {
    let total = launch.block_threads();
    if total > 4_000_000 {
        return None;
    }
    let warp = u64::from(warp.max(1));
    let mut out = Vec::new();
    let mut start = 0;
    while start < total {
        let end = (start + warp).min(total);
        let (lo, hi) = (start..end).try_fold((i128::MAX, i128::MIN), |(lo, hi), t| {
            let ti = launch.thread_index(t);
            let v = (0..3).try_fold(0i128, |acc, i| {
                k[i].checked_mul(i128::from(ti[i]))?.checked_add(acc)
            })?;
            Some((lo.min(v), hi.max(v)))
        })?;
        if lo < hi {
            out.push((1i128.checked_sub(hi)?, hi.checked_sub(lo)?));
        }
        start = end;
    }
    Some(out)
}

/// The least residue `s ∈ [0, m)` outside every window of `windows` (`(first, count)`,
/// `count < m`) taken mod `m`: the windows become arcs of the circle `ℤ/m`, cut at 0 into
/// intervals, which a sweep from 0 in order of their starts covers up to the first gap.
fn least_free_residue(windows: &[(i128, i128)], m: i128) -> Option<i128> {
    let mut arcs: Vec<(i128, i128)> = Vec::with_capacity(windows.len() + 1);
    for &(first, count) in windows {
        let a = first.rem_euclid(m);
        let b = a + count; // exclusive end, may pass m
        if b <= m {
            arcs.push((a, b));
        } else {
            arcs.push((a, m));
            arcs.push((0, b - m));
        }
    }
    arcs.sort_unstable();
    let mut free = 0;
    for (a, b) in arcs {
        if a > free {
            break;
        }
        free = free.max(b);
    }
    (free < m).then_some(free)
}

/// Q:IFALIGN's residue class for the test `L ≤ 0` under `d` (spec/logic.md §4; checked by
/// the kernel's `align_charge`): `(s − X, s, m)`, the charge form and the class written in
/// `(class S M)`. The class is the least `m ≤ 4096` with `m | G` (any `m` when `G = 0`)
/// for which some `s ∈ [0, m)` passes the window check with the class `(s, m)`, and the
/// least such `s`, found without trying every class: a window of `n` consecutive integers
/// meets every class mod `m ≤ n`, so `m` starts above the widest window `n_max`, and for
/// each candidate `m` the least `s` is the first residue no window covers mod `m`
/// ([`least_free_residue`]); no window at all gives `(0, 1)`. Work: `O(W·log W)` per
/// candidate `m` for `W` warps, instead of one window check per `(s, m)`. `None` when the
/// rule does not apply.
pub fn align_charge<T: Types + ?Sized>(
    prog: &T,
    d: &DepMap,
    l: &Lin,
    launch: &crate::core::Launch,
    warp: u32,
) -> Option<(Lin, num_bigint::BigInt, num_bigint::BigInt)> {
    let (k, x, g) = local_class(prog, d, l)?;
    let (s, m) = residue_class(&k, g, launch, warp)?;
    let form = Lin::constant(Q::from_integer(s.into())).sub(&x);
    Some((
        form,
        num_bigint::BigInt::from(s),
        num_bigint::BigInt::from(m),
    ))
}

/// Q:WHILELASTWINDOW's charge for the loop test `L ≤ 0` under `d` (spec/logic.md §4; checked
/// by the kernel's `q_whilelastwindow`): `(X, m, a, b)`, the uniform part `X`, the modulus
/// `m = G` (the local class modulus) and the hull `[a, b]` of the warps' split windows; the
/// charge is the window atom `M^div·[(b − X) mod m < b − a + 1]`. Only when `G > 0` and
/// the hull has fewer than `m` integers (else the atom is the constant 1; it is then at
/// most the residue charge of [`align_charge`]). `None` otherwise, or when no warp can
/// split.
pub fn window_charge<T: Types + ?Sized>(
    prog: &T,
    d: &DepMap,
    l: &Lin,
    launch: &crate::core::Launch,
    warp: u32,
) -> Option<(Lin, num_bigint::BigInt, i128, i128)> {
    let (k, x, g) = local_class(prog, d, l)?;
    if g <= 0 {
        return None;
    }
    let windows = split_windows(&k, launch, warp)?;
    let a = windows.iter().map(|w| w.0).min()?;
    let b = windows.iter().map(|w| w.0 + w.1 - 1).max()?;
    if b - a + 1 >= g {
        return None;
    }
    Some((x, num_bigint::BigInt::from(g), a, b))
}

/// The least class `(s, m)` of [`align_charge`] for the thread coefficients `k` and the
/// local class modulus `g`: `m` from above the widest window, each `m` by one sweep.
fn residue_class(
    k: &[i128; 3],
    g: i128,
    launch: &crate::core::Launch,
    warp: u32,
) -> Option<(i128, i128)> {
    let windows = split_windows(k, launch, warp)?;
    let widest = windows.iter().map(|w| w.1).max().unwrap_or(0);
    ((widest + 1).max(1)..=RESIDUE_MODULUS_LIMIT)
        .filter(|m| g == 0 || g % m == 0)
        .find_map(|m| least_free_residue(&windows, m).map(|s| (s, m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search the kernel used to run (one window check per `(s, m)`, least `m`, least
    /// `s`): the reference the fast [`residue_class`] must agree with.
    fn brute(
        k: &[i128; 3],
        g: i128,
        launch: &crate::core::Launch,
        warp: u32,
        limit: i128,
    ) -> Option<(i128, i128)> {
        (1..=limit).filter(|m| g == 0 || g % m == 0).find_map(|m| {
            (0..m)
                .find(|&s| class_misses_windows(k, s, m, launch, warp))
                .map(|s| (s, m))
        })
    }

    /// Blocks narrower and wider than a warp, 2-D blocks, strides 1, 2, 3, −1, 0 and
    /// `threadIdx.y` terms, with `G` = 0 and with moduli that 32 does and does not divide:
    /// the fast search finds the same class as the brute force (below 100, where the brute
    /// force stays fast; the fast search stops at 4096, so a `None` of the brute force
    /// only requires a class above 100).
    #[test]
    fn fast_residue_class_is_the_least_class() {
        let blocks = [
            [256, 1, 1],
            [240, 1, 1],
            [16, 16, 1],
            [8, 32, 1],
            [48, 1, 1],
            [1, 64, 1],
        ];
        let ks = [
            [1, 0, 0],
            [2, 0, 0],
            [3, 0, 0],
            [-1, 0, 0],
            [0, 0, 0],
            [0, 1, 0],
            [1, 16, 0],
            [0, 5, 0],
        ];
        for block in blocks {
            let launch = crate::core::Launch { block, grid: None };
            for k in &ks {
                for g in [0, 256, 240, 96, 64, 7] {
                    let fast = residue_class(k, g, &launch, 32);
                    match brute(k, g, &launch, 32, 100) {
                        Some(c) => assert_eq!(fast, Some(c), "block {block:?} k {k:?} g {g}"),
                        None => assert!(
                            fast.is_none_or(|(_, m)| m > 100),
                            "block {block:?} k {k:?} g {g}"
                        ),
                    }
                }
            }
        }
    }

    /// Hand-derived (spec/logic.md §4's example): block 256, `K = 1`, `G = 256`; warp `w`'s
    /// window `[−32w − 30, −32w]` misses exactly `≡ 1 (mod 32)` and no `m < 32` can miss
    /// 31 consecutive integers: `(1, 32)`. A warp-constant `K·tid` (`K = (0, 1, 0)` with
    /// 32-wide rows) has no window: `(0, 1)`.
    #[test]
    fn residue_class_of_the_guard_example() {
        let launch = crate::core::Launch {
            block: [256, 1, 1],
            grid: None,
        };
        assert_eq!(residue_class(&[1, 0, 0], 256, &launch, 32), Some((1, 32)));
        let rows = crate::core::Launch {
            block: [32, 8, 1],
            grid: None,
        };
        assert_eq!(residue_class(&[0, 1, 0], 0, &rows, 32), Some((0, 1)));
    }
}
