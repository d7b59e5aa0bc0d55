//! Linear forms, linear constraints and thread-dependence entries: the `P` and `D` parts of
//! an assertion (`spec/logic.md` §1; RaCUDA §7, note §8.2: the domain `(𝒫, 𝒱)` with
//! `𝒱_tid`/`𝒱_const` made checkable). How the analysis computes them from programs is in
//! `crate::analysis::linear`.
//!
//! Variables of linear forms are `int` locals, `int` parameters and `threadIdx.x/y/z`.
//! All arithmetic is exact (`Q`); dependence entries use `i64` with checked arithmetic and
//! fall back to "no information" (`None`, the spec's `⊤`) on overflow.

use super::sorted::SortedMap;
use crate::core::metric::{q, Q};
use crate::core::Dim;
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
    pub terms: SortedMap<String, Q>,
}

impl Lin {
    /// The constant form `c`.
    pub fn constant(c: Q) -> Lin {
        Lin {
            c,
            terms: SortedMap::new(),
        }
    }
    /// The form `v`.
    pub fn var(v: &str) -> Lin {
        let mut terms = SortedMap::new();
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
    ///
    /// One merge of the two sorted term maps into a new one (issue 13: copying `self`'s
    /// shared terms and then changing them entry by entry copied the map on the first write
    /// and moved entries on each insertion). A zero coefficient is left out, as is one of
    /// `self`'s should it hold any.
    pub fn add_scaled(&self, other: &Lin, k: &Q) -> Lin {
        let non_zero = |a: Q| (!a.is_zero()).then_some(a);
        let mut terms = self.terms.merged(
            &other.terms,
            |e, a| non_zero(q_add(e, &q_mul(a, k))),
            |a| non_zero(q_mul(a, k)),
        );
        if terms.values().any(Zero::is_zero) {
            terms.retain(|_, a| !a.is_zero());
        }
        Lin {
            c: q_add(&self.c, &q_mul(&other.c, k)),
            terms,
        }
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
            // `self + a·e` in one merge, then `v`'s coefficient set to `a·e_v` (the terms
            // of `self` without `v`, plus `a·e`; issue 13: no copy of `self` to remove `v`)
            Some(a) => {
                let mut out = self.add_scaled(e, a);
                match e.terms.get(v).map(|ev| q_mul(ev, a)) {
                    Some(m) if !m.is_zero() => match out.terms.get_mut(v) {
                        Some(slot) => *slot = m,
                        None => {
                            out.terms.insert(v.to_string(), m);
                        }
                    },
                    _ => {
                        out.terms.remove(v);
                    }
                }
                out
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

/// The kind of a dependence entry (`spec/logic.md` §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// `(dep x k r g)`: the value is `k·threadIdx + c` with `c ≡ r (mod g)` (`g = 0`: `c = r`).
    Linear,
    /// `(rem x k r m)`, `m = g ≥ 1`: the value is `≡ k·threadIdx + r (mod m)` and in `(−m, m)`.
    Rem,
    /// `(rng x w)`, `w = g ≥ 0` (`k = 0`, `r = 0`): the values lie in `[c, c + w]` for one `c`.
    Rng,
    /// `(wrap x k m)`, `m = g ≥ 1` (`r = 0`): the value is `(k·threadIdx + c) rem m` (C's
    /// truncating remainder) for one `c` shared by the active threads (issue 15).
    Wrap,
    /// `(dep x kx ? kz r g)`: the dimensions `d` with `u[d]` have an unknown coefficient
    /// `u_d` (printed `?`, stored `k_d = 0`) shared by the active threads; otherwise as a
    /// linear entry. At least one `u[d]` holds (`spec/logic.md` §1, scaled entries).
    Scaled([bool; 3]),
}

/// A thread-dependence entry (`spec/logic.md` §1). The arithmetic (`scale`, `combine`, …)
/// is for linear entries; `crate::analysis::linear::dep_operand` reads the other kinds as `⊤`.
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
    /// The row multiplier of a scaled entry with one `?` dimension (`spec/logic.md` §1 "Row
    /// multipliers"); `None` for every other entry.
    pub mul: Option<RowMul>,
}

/// A row multiplier `A·P + B` of a scaled entry's one `?` dimension (`spec/logic.md` §1
/// "Row multipliers", issue 15): `P` a parameter, named by [`param_sym`] so that `Dep`
/// stays `Copy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RowMul {
    /// The parameter's symbol ([`param_sym`], [`param_name`]).
    pub param: u32,
    /// The coefficient `A`.
    pub a: i64,
    /// The constant `B`.
    pub b: i64,
}

/// The interned parameter names of row multipliers (one table per process).
static PARAM_SYMS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// The symbol of parameter name `p` in [`RowMul::param`] (interned; the same name always
/// gives the same symbol within a process).
pub fn param_sym(p: &str) -> u32 {
    let mut t = PARAM_SYMS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match t.iter().position(|x| x == p) {
        Some(i) => i as u32,
        None => {
            t.push(p.to_string());
            (t.len() - 1) as u32
        }
    }
}

/// The parameter name of symbol `s` ([`param_sym`]); empty for an unknown symbol.
pub fn param_name(s: u32) -> String {
    let t = PARAM_SYMS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    t.get(s as usize).cloned().unwrap_or_default()
}

/// `gcd(|a|, |b|)` (`gcd(0, x) = |x|`); `None` if it does not fit in `i64`.
pub fn gcd(a: i64, b: i64) -> Option<i64> {
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
            mul: None,
        })
    }
    /// The remainder entry `(rem k (r mod m) m)` for `m ≥ 1`.
    pub fn remainder(k: [i64; 3], r: i64, m: i64) -> Dep {
        Dep {
            k,
            r: r.rem_euclid(m),
            g: m,
            kind: EntryKind::Rem,
            mul: None,
        }
    }
    /// The wrapped entry `(wrap k m)` for `m ≥ 1`.
    pub fn wrap(k: [i64; 3], m: i64) -> Dep {
        Dep {
            k,
            r: 0,
            g: m,
            kind: EntryKind::Wrap,
            mul: None,
        }
    }
    /// The range entry `(rng w)` for `w ≥ 0`.
    pub fn range(w: i64) -> Dep {
        Dep {
            k: [0; 3],
            r: 0,
            g: w,
            kind: EntryKind::Rng,
            mul: None,
        }
    }
    /// The width of the window a range entry (`w`), a wrapped or a remainder entry (`2m − 2`:
    /// their values lie in `[1 − m, m − 1]`) confines its local's values to (the kernel's
    /// `Dep::window`); `None` for other entries or on overflow.
    pub fn window(&self) -> Option<i64> {
        match self.kind {
            EntryKind::Rng => Some(self.g),
            EntryKind::Wrap | EntryKind::Rem => self.g.checked_mul(2)?.checked_sub(2),
            _ => None,
        }
    }
    /// Whether this is a linear entry.
    pub fn is_linear(&self) -> bool {
        self.kind == EntryKind::Linear
    }
    /// The `?` dimensions of a scaled entry (none for any other kind).
    pub fn unknown_dims(&self) -> [bool; 3] {
        match self.kind {
            EntryKind::Scaled(u) => u,
            _ => [false; 3],
        }
    }
    /// The entry `(k, r, g)` (normalized) with the dimensions of `u` made `?` (their `k_d`
    /// set to 0): scaled when some `u[d]` holds, else linear. `None` on overflow.
    pub fn with_unknown(k: [i64; 3], u: [bool; 3], r: i64, g: i64) -> Option<Dep> {
        let k = [0, 1, 2].map(|i| if u[i] { 0 } else { k[i] });
        let mut d = Dep::new(k, r, g)?;
        if u.iter().any(|b| *b) {
            d.kind = EntryKind::Scaled(u);
        }
        Some(d)
    }
    /// The exact constant `n`: `(0, n, 0)`.
    pub fn exact(n: i64) -> Dep {
        Dep {
            k: [0; 3],
            r: n,
            g: 0,
            kind: EntryKind::Linear,
            mul: None,
        }
    }
    /// Uniform without information: `(0, 0, 1)`.
    pub fn unknown_uniform() -> Dep {
        Dep {
            k: [0; 3],
            r: 0,
            g: 1,
            kind: EntryKind::Linear,
            mul: None,
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
    /// "`self` implies `o`" (spec §2): same kind (same `?` dimensions) and `k`, `o.g | self.g`,
    /// residues agree mod `o.g`.
    pub fn implies(&self, o: &Dep) -> bool {
        if self.k != o.k || self.kind != o.kind {
            return false;
        }
        match self.kind {
            EntryKind::Rem | EntryKind::Wrap => return self == o,
            EntryKind::Rng => return self.g <= o.g,
            EntryKind::Linear | EntryKind::Scaled(_) => {}
        }
        if o.mul.is_some() && self.mul != o.mul {
            return false;
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
        let congruent = matches!(self.kind, EntryKind::Linear | EntryKind::Scaled(_));
        if self.k != o.k || self.kind != o.kind || !congruent {
            return (self == o).then_some(*self);
        }
        let diff = self.r.checked_sub(o.r)?.checked_abs()?;
        let g = gcd(gcd(self.g, o.g)?, diff)?;
        let mut j = Dep::with_unknown(self.k, self.unknown_dims(), self.r, g)?;
        j.mul = if self.mul == o.mul { self.mul } else { None };
        Some(j)
    }
}

/// The thread-dependence map `D` (at most one entry per local), ordered by name: a
/// [`SortedMap`](super::sorted::SortedMap) (issue 13: a map of a few entries, copied at
/// each assignment that changes it, in a vector of its entries rather than a `BTreeMap`'s
/// eleven-entry node).
pub type DepMap = super::sorted::SortedMap<String, Dep>;
