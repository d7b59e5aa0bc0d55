//! Linear forms, linear constraints and the thread-dependence map (`spec/logic.md` §1–§2;
//! RaCUDA §7, note §8.2: the domain `(𝒫, 𝒱)` with `𝒱_tid`/`𝒱_const` made checkable).
//!
//! Variables of linear forms are `int` locals, `int` parameters and `threadIdx.x/y/z`.
//! All arithmetic is exact (`Q`); dependence entries use `i64` with checked arithmetic and
//! fall back to "no information" (`None`, the spec's `⊤`) on overflow.

use crate::core::metric::{q, Q};
use crate::core::{BinOp, Const, Dim, Expr, Operand, Program, Ty, UnOp};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::BTreeMap;
use std::fmt;

/// The name used in linear forms for `threadIdx.d`.
pub fn tid_name(d: Dim) -> String {
    format!("threadIdx.{}", d.letter())
}

/// `(numerator, denominator)` of `x` when both fit in `i64`.
fn small(x: &Q) -> Option<(i128, i128)> {
    Some((
        i128::from(x.numer().to_i64()?),
        i128::from(x.denom().to_i64()?),
    ))
}

/// The normalized rational `n/d` for `d > 0`.
fn from_small(n: i128, d: i128) -> Q {
    let (mut a, mut b) = (n.unsigned_abs(), d.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let g = a as i128; // gcd ≥ 1 as d > 0
    Q::new_raw((n / g).into(), (d / g).into())
}

/// `a + b`, computed in `i128` when numerators and denominators fit in `i64` (no overflow:
/// `|n_a·d_b + n_b·d_a| < 2^127`); same value and normalized representation as `a + b`.
pub fn q_add(a: &Q, b: &Q) -> Q {
    match (small(a), small(b)) {
        (Some((an, 1)), Some((bn, 1))) => Q::from_integer((an + bn).into()),
        (Some((an, ad)), Some((bn, bd))) => from_small(an * bd + bn * ad, ad * bd),
        _ => a + b,
    }
}

/// `a · b`, like [`q_add`].
pub fn q_mul(a: &Q, b: &Q) -> Q {
    match (small(a), small(b)) {
        (Some((an, 1)), Some((bn, 1))) => Q::from_integer((an * bn).into()),
        (Some((an, ad)), Some((bn, bd))) => from_small(an * bn, ad * bd),
        _ => a * b,
    }
}

/// A linear form `c + Σ a_v·v` with exact rational coefficients. Invariant: no zero
/// coefficient is stored, so structural equality is equality after normalization.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Lin {
    /// Constant part.
    pub c: Q,
    /// Coefficients by variable name (sorted by name).
    pub terms: BTreeMap<String, Q>,
}

impl Lin {
    /// The constant form `c`.
    pub fn constant(c: Q) -> Lin {
        Lin {
            c,
            terms: BTreeMap::new(),
        }
    }
    /// The form `v`.
    pub fn var(v: &str) -> Lin {
        let mut terms = BTreeMap::new();
        terms.insert(v.to_string(), Q::one());
        Lin {
            c: Q::zero(),
            terms,
        }
    }
    /// Coefficient of `v` (0 if absent).
    pub fn coef(&self, v: &str) -> Q {
        self.terms.get(v).cloned().unwrap_or_else(Q::zero)
    }
    /// Whether the form has no variables.
    pub fn is_const(&self) -> bool {
        self.terms.is_empty()
    }
    /// Whether `v` occurs with a non-zero coefficient.
    pub fn mentions(&self, v: &str) -> bool {
        self.terms.contains_key(v)
    }
    /// `self + k·other`.
    pub fn add_scaled(&self, other: &Lin, k: &Q) -> Lin {
        let mut out = self.clone();
        out.c = q_add(&out.c, &q_mul(&other.c, k));
        for (v, a) in &other.terms {
            let ak = q_mul(a, k);
            match out.terms.get_mut(v) {
                Some(e) => *e = q_add(e, &ak),
                None => {
                    out.terms.insert(v.clone(), ak);
                }
            }
        }
        out.terms.retain(|_, a| !a.is_zero());
        out
    }
    /// `self + other`.
    pub fn add(&self, other: &Lin) -> Lin {
        self.add_scaled(other, &Q::one())
    }
    /// `self − other`.
    pub fn sub(&self, other: &Lin) -> Lin {
        self.add_scaled(other, &-Q::one())
    }
    /// `k·self`.
    pub fn scale(&self, k: &Q) -> Lin {
        if k.is_one() {
            let mut out = self.clone();
            out.terms.retain(|_, a| !a.is_zero());
            return out;
        }
        Lin::default().add_scaled(self, k)
    }
    /// `self + k` for a constant `k`.
    pub fn plus_const(&self, k: &Q) -> Lin {
        let mut out = self.clone();
        out.c = q_add(&out.c, k);
        out
    }
    /// `self[v ← e]`: replaces `v` by the linear form `e`.
    pub fn subst(&self, v: &str, e: &Lin) -> Lin {
        match self.terms.get(v) {
            None => self.clone(),
            Some(a) => {
                let mut rest = self.clone();
                rest.terms.remove(v);
                rest.add_scaled(e, &a.clone())
            }
        }
    }
    /// Value under `env` (missing variables count as 0).
    pub fn eval(&self, env: &BTreeMap<String, i64>) -> Q {
        let mut s = self.c.clone();
        for (v, a) in &self.terms {
            s += a * q(env.get(v).copied().unwrap_or(0));
        }
        s
    }
    /// The variables, sorted.
    pub fn vars(&self) -> impl Iterator<Item = &String> {
        self.terms.keys()
    }
}

/// Prints a rational as `n` or `p/q`.
pub fn fmt_q(x: &Q) -> String {
    if x.is_integer() {
        x.numer().to_string()
    } else {
        format!("{}/{}", x.numer(), x.denom())
    }
}

impl fmt::Display for Lin {
    /// Human form `h - j + 1` (variables by name, positive ones first, then the constant).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut items: Vec<(Q, Option<&str>)> = Vec::new();
        for (v, a) in &self.terms {
            if a.is_positive() {
                items.push((a.clone(), Some(v)));
            }
        }
        for (v, a) in &self.terms {
            if a.is_negative() {
                items.push((a.clone(), Some(v)));
            }
        }
        if !self.c.is_zero() || items.is_empty() {
            items.push((self.c.clone(), None));
        }
        for (i, (a, v)) in items.iter().enumerate() {
            let neg = a.is_negative();
            let mag = a.abs();
            if i == 0 {
                if neg {
                    f.write_str("-")?;
                }
            } else {
                f.write_str(if neg { " - " } else { " + " })?;
            }
            match v {
                None => f.write_str(&fmt_q(&mag))?,
                Some(v) => {
                    if mag.is_one() {
                        f.write_str(v)?
                    } else {
                        write!(f, "{}*{}", fmt_q(&mag), v)?
                    }
                }
            }
        }
        Ok(())
    }
}

/// Kind of a constraint.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CKind {
    /// `L ≤ 0`
    Le,
    /// `L = 0`
    Eq,
    /// The lane constraint `L mod m ∈ rs` (`L` over `threadIdx.*` with integer
    /// coefficients, `m ≥ 1`, `rs` strictly increasing in `[0, m)`; spec/logic.md §1).
    Mod(i64, Vec<i64>),
}

/// A constraint `L ≤ 0`, `L = 0` or `L mod m ∈ rs` (`spec/certificate.md`, `CSTR`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cstr {
    /// `le` or `eq`.
    pub kind: CKind,
    /// The form compared with 0.
    pub lin: Lin,
}

impl Cstr {
    /// `lin ≤ 0`.
    pub fn le(lin: Lin) -> Cstr {
        Cstr {
            kind: CKind::Le,
            lin,
        }
    }
    /// `lin = 0`.
    pub fn eq(lin: Lin) -> Cstr {
        Cstr {
            kind: CKind::Eq,
            lin,
        }
    }
    /// Whether the constraint mentions `v`.
    pub fn mentions(&self, v: &str) -> bool {
        self.lin.mentions(v)
    }
    /// Whether every variable is a `threadIdx.*` component (vacuously true for constants).
    pub fn only_tid(&self) -> bool {
        self.lin.vars().all(|v| v.starts_with("threadIdx."))
    }
    /// Whether this is a lane constraint.
    pub fn is_lane(&self) -> bool {
        matches!(self.kind, CKind::Mod(..))
    }
    /// Whether thread `tid` satisfies this constraint, which mentions only `threadIdx.*`.
    pub fn holds_at(&self, tid: [i64; 3]) -> bool {
        let mut v: Q = self.lin.c.clone();
        for (name, a) in &self.lin.terms {
            let i = match name.as_str() {
                "threadIdx.x" => 0,
                "threadIdx.y" => 1,
                _ => 2,
            };
            v += a * q(tid[i]);
        }
        match &self.kind {
            CKind::Le => !v.is_positive(),
            CKind::Eq => v.is_zero(),
            CKind::Mod(m, rs) => {
                v.is_integer()
                    && v.to_integer()
                        .mod_floor(&(*m).into())
                        .to_i64()
                        .is_some_and(|r| rs.contains(&r))
            }
        }
    }
}

/// `lin(o)` of `spec/logic.md` §2: defined for `int` locals, `int` parameters, integer
/// constants and `threadIdx.d`.
pub fn lin_operand(prog: &Program, o: &Operand) -> Option<Lin> {
    match o {
        Operand::Var(x) if prog.local_ty(x) == Some(Ty::Int) => Some(Lin::var(x)),
        Operand::Param(p) if prog.param_ty(p) == Some(Ty::Int) => Some(Lin::var(p)),
        Operand::Const(Const::Int(n)) => Some(Lin::constant(q(*n))),
        Operand::Tid(d) => Some(Lin::var(&tid_name(*d))),
        _ => None,
    }
}

/// `lin(e)` of `spec/logic.md` §2: operands, `+`, `−`, `*` by an integer constant, `neg`.
pub fn lin_expr(prog: &Program, e: &Expr) -> Option<Lin> {
    match e {
        Expr::Opd(o) => lin_operand(prog, o),
        Expr::Bin(BinOp::Add, a, b) => Some(lin_operand(prog, a)?.add(&lin_operand(prog, b)?)),
        Expr::Bin(BinOp::Sub, a, b) => Some(lin_operand(prog, a)?.sub(&lin_operand(prog, b)?)),
        Expr::Bin(BinOp::Mul, a, b) => match (a, b) {
            (Operand::Const(Const::Int(n)), o) | (o, Operand::Const(Const::Int(n))) => {
                Some(lin_operand(prog, o)?.scale(&q(*n)))
            }
            _ => None,
        },
        Expr::Un(UnOp::Neg, a) => Some(lin_operand(prog, a)?.scale(&-Q::one())),
        _ => None,
    }
}

/// `(cond(e), cond(¬e))` of `spec/logic.md` §2 (strict inequalities tightened over the
/// integers); both empty when `e` is not a comparison of linear operands. The first flag
/// says whether `P ⇒ e` may be claimed (Q:IF2), the second whether `P ⇒ ¬e` may (Q:IF3).
pub fn cond(prog: &Program, e: &Expr) -> (Vec<Cstr>, Vec<Cstr>, bool, bool) {
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

/// The kind of a dependence entry (`spec/logic.md` §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// `(dep x k r g)`: the value is `k·threadIdx + c` with `c ≡ r (mod g)` (`g = 0`: `c = r`).
    Linear,
    /// `(rem x k r m)`, `m = g ≥ 1`: the value is `≡ k·threadIdx + r (mod m)` and in `(−m, m)`.
    Rem,
    /// `(rng x w)`, `w = g ≥ 0` (`k = 0`, `r = 0`): the values lie in `[c, c + w]` for one `c`.
    Rng,
}

/// A thread-dependence entry (`spec/logic.md` §1). The arithmetic (`scale`, `combine`, …)
/// is for linear entries; [`dep_operand`] reads the other kinds as `⊤`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dep {
    /// Coefficients of `threadIdx.x/y/z`.
    pub k: [i64; 3],
    /// Residue (normalized: `0 ≤ r < g` when `g > 0`).
    pub r: i64,
    /// Modulus (`≥ 0`); the modulus `m ≥ 1` of a remainder entry; the width of a range entry.
    pub g: i64,
    /// The kind.
    pub kind: EntryKind,
}

/// `gcd(|a|, |b|)` (`gcd(0, x) = |x|`); `None` if it does not fit in `i64`.
fn gcd(a: i64, b: i64) -> Option<i64> {
    i64::try_from((a as i128).gcd(&(b as i128))).ok()
}

impl Dep {
    /// Normalized entry, `None` on overflow.
    pub fn new(k: [i64; 3], r: i64, g: i64) -> Option<Dep> {
        let g = g.checked_abs()?;
        let r = if g > 0 { r.rem_euclid(g) } else { r };
        Some(Dep {
            k,
            r,
            g,
            kind: EntryKind::Linear,
        })
    }
    /// The remainder entry `(rem k (r mod m) m)` for `m ≥ 1`.
    pub fn remainder(k: [i64; 3], r: i64, m: i64) -> Dep {
        Dep {
            k,
            r: r.rem_euclid(m),
            g: m,
            kind: EntryKind::Rem,
        }
    }
    /// The range entry `(rng w)` for `w ≥ 0`.
    pub fn range(w: i64) -> Dep {
        Dep {
            k: [0; 3],
            r: 0,
            g: w,
            kind: EntryKind::Rng,
        }
    }
    /// Whether this is a linear entry.
    pub fn is_linear(&self) -> bool {
        self.kind == EntryKind::Linear
    }
    /// The exact constant `n`: `(0, n, 0)`.
    pub fn exact(n: i64) -> Dep {
        Dep {
            k: [0; 3],
            r: n,
            g: 0,
            kind: EntryKind::Linear,
        }
    }
    /// Uniform without information: `(0, 0, 1)`.
    pub fn unknown_uniform() -> Dep {
        Dep {
            k: [0; 3],
            r: 0,
            g: 1,
            kind: EntryKind::Linear,
        }
    }
    /// Whether this is a linear entry with `k = 0` (the value is warp-uniform).
    pub fn is_uniform(&self) -> bool {
        self.is_linear() && self.k == [0; 3]
    }
    /// `Some(c)` when this is the exact constant `(0, c, 0)`.
    pub fn as_exact(&self) -> Option<i64> {
        (self.is_uniform() && self.g == 0).then_some(self.r)
    }
    /// Scaling by `c` (spec §2, `*` by an exact side).
    pub fn scale(&self, c: i64) -> Option<Dep> {
        let k = [
            self.k[0].checked_mul(c)?,
            self.k[1].checked_mul(c)?,
            self.k[2].checked_mul(c)?,
        ];
        Dep::new(k, self.r.checked_mul(c)?, self.g.checked_mul(c)?)
    }
    /// Componentwise sum (`sign = 1`) or difference (`sign = −1`).
    pub fn combine(&self, o: &Dep, sign: i64) -> Option<Dep> {
        let mut k = [0i64; 3];
        for (i, ki) in k.iter_mut().enumerate() {
            *ki = self.k[i].checked_add(o.k[i].checked_mul(sign)?)?;
        }
        Dep::new(
            k,
            self.r.checked_add(o.r.checked_mul(sign)?)?,
            gcd(self.g, o.g)?,
        )
    }
    /// "`self` implies `o`" (spec §2): same `k`, `o.g | self.g`, residues agree mod `o.g`.
    pub fn implies(&self, o: &Dep) -> bool {
        if self.k != o.k || self.kind != o.kind {
            return false;
        }
        match self.kind {
            EntryKind::Rem => return self == o,
            EntryKind::Rng => return self.g <= o.g,
            EntryKind::Linear => {}
        }
        if o.g == 0 {
            return self.g == 0 && self.r == o.r;
        }
        self.g % o.g == 0 && (self.r as i128 - o.r as i128).rem_euclid(o.g as i128) == 0
    }
    /// The strongest entry implied by both (`None` if the `k` differ): the join of the
    /// dependence domain used at control-flow merges and loop heads.
    pub fn join(&self, o: &Dep) -> Option<Dep> {
        if self.kind == EntryKind::Rng && o.kind == EntryKind::Rng {
            return Some(Dep::range(self.g.max(o.g)));
        }
        if self.k != o.k || !self.is_linear() || !o.is_linear() {
            return (self == o).then_some(*self);
        }
        let diff = self.r.checked_sub(o.r)?.checked_abs()?;
        let g = gcd(gcd(self.g, o.g)?, diff)?;
        Dep::new(self.k, self.r, g)
    }
}

/// The thread-dependence map `D` (at most one entry per local), ordered by name.
pub type DepMap = BTreeMap<String, Dep>;

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
            })
        }
        Operand::Var(x) => d.get(x).copied().filter(|e| e.is_linear()),
    }
}

/// `ent_P,D(e)` of spec §2 "Assigned entry" without the fixed-constant case (the caller
/// handles `lin_P(e)` constant): a copy of a remainder entry; the remainder entry of
/// `a % m` when `dep_D(a % m) = ⊤`, `dep_D(m) = (0, m, 0)`, `m ≥ 1`, `dep_D(a) = (k, r, g)`
/// with `m | g`; else `dep_D(e)`; else the range entry of `width_D(e)`.
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
    rem.or(linear).or_else(|| width_expr(d, e).map(Dep::range))
}

/// `width_D(o)` (spec §2 "Widths"): 0 for a uniform value, `w` for a range local.
fn width_operand(d: &DepMap, o: &Operand) -> Option<i64> {
    match (dep_operand(d, o), o) {
        (Some(x), _) if x.is_uniform() => Some(0),
        (_, Operand::Var(x)) => d.get(x).filter(|e| e.kind == EntryKind::Rng).map(|e| e.g),
        _ => None,
    }
}

/// `width_D(e)` (spec §2): a range local; `a & n` for an exact `n ≥ 0`; sums and
/// differences of operands with widths; `neg`.
fn width_expr(d: &DepMap, e: &Expr) -> Option<i64> {
    let nonneg = |o: &Operand| {
        dep_operand(d, o)
            .and_then(|x| x.as_exact())
            .filter(|n| *n >= 0)
    };
    match e {
        Expr::Opd(o @ Operand::Var(_)) if dep_operand(d, o).is_none() => width_operand(d, o),
        Expr::Bin(BinOp::BitAnd, a, b) => nonneg(b).or_else(|| nonneg(a)),
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
pub fn uniform_form(prog: &Program, d: &DepMap, l: &Lin) -> bool {
    // the common case: parameters and uniform locals only
    let plain = |v: &String| {
        prog.param_ty(v) == Some(Ty::Int)
            || (prog.local_ty(v) == Some(Ty::Int) && d.get(v).is_some_and(|e| e.is_uniform()))
    };
    if l.terms.keys().all(plain) {
        return true;
    }
    let mut k = [Q::zero(), Q::zero(), Q::zero()];
    for (v, a) in &l.terms {
        if let Some(dim) = Dim::ALL.iter().find(|dim| tid_name(**dim) == *v) {
            k[dim.index()] += a;
        } else if prog.param_ty(v) == Some(Ty::Int) {
        } else if prog.local_ty(v) == Some(Ty::Int) {
            match d.get(v) {
                Some(e) if e.is_linear() => {
                    for (i, ki) in k.iter_mut().enumerate() {
                        *ki += a * q(e.k[i]);
                    }
                }
                _ => return false,
            }
        } else {
            return false;
        }
    }
    k.iter().all(|x| x.is_zero())
}

/// Collapse of spec §2: an entry whose thread dependence is only on warp-uniform
/// dimensions (`udims`) becomes uniform, `(0, r, gcd(g, k_x, k_y, k_z))`.
pub fn collapse(x: Dep, udims: [bool; 3]) -> Dep {
    if x.is_uniform() || (0..3).any(|i| x.k[i] != 0 && !udims[i]) {
        return x;
    }
    let g = x.k.iter().try_fold(x.g, |g, &k| gcd(g, k));
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
    let udims = cx.udims;
    let col = |x: Option<Dep>| x.map(|x| collapse(x, udims));
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
                    let (x, y) = (collapse(da?, udims), collapse(db?, udims));
                    if x.is_uniform() && y.is_uniform() {
                        let g1 = x.g.checked_mul(y.g)?;
                        let g2 = x.r.checked_mul(y.g)?;
                        let g3 = y.r.checked_mul(x.g)?;
                        Dep::new([0; 3], x.r.checked_mul(y.r)?, gcd(gcd(g1, g2)?, g3)?)
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
                            && !collapse(x, udims).is_uniform()
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
        let a = c.lin.coef(y);
        if a.is_zero() || c.lin.vars().count() != 1 || c.is_lane() {
            continue;
        }
        let v = -c.lin.c.clone() / &a;
        if c.kind == CKind::Eq || a > Q::zero() {
            hi = Some(hi.map_or(v.clone(), |h: Q| h.min(v.clone())));
        }
        if c.kind == CKind::Eq || a < Q::zero() {
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
pub fn lin_fixed(prog: &Program, p: &[Cstr], e: &Expr) -> Option<Lin> {
    let fix = |o: &Operand| match o {
        Operand::Var(y) if prog.local_ty(y) == Some(Ty::Int) => {
            fixed(p, y).map_or_else(|| o.clone(), |c| Operand::Const(Const::Int(c)))
        }
        _ => o.clone(),
    };
    match e {
        Expr::Opd(o) => lin_operand(prog, &fix(o)),
        Expr::Bin(op, a, b) => match (fix(a), fix(b)) {
            (Operand::Const(Const::Int(x)), Operand::Const(Const::Int(y)))
                if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) =>
            {
                use crate::semantics::value::apply_bin;
                use crate::semantics::Value;
                match apply_bin(*op, Value::Int(x), Value::Int(y)) {
                    Ok(Value::Int(v)) => Some(Lin::constant(q(v))),
                    _ => None,
                }
            }
            (a, b) => lin_expr(prog, &Expr::Bin(*op, a, b)),
        },
        Expr::Un(op, a) => lin_expr(prog, &Expr::Un(*op, fix(a))),
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
