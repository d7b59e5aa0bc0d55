//! Potentials: polynomials over `max0(linear)` atoms and floor atoms `⌊L/d⌋⁺`
//! (`spec/logic.md` §1, `Q` and "Floor atoms"; RaCUDA §7, note §8.4 base functions
//! `⟦x, y⟧ = max(0, y − x)` and their products).
//!
//! Canonical atoms (the kernel's, `kernel/src/arith.rs` `Atom::canonical`): the linear form
//! of a `max0` atom is scaled by a positive rational so that all its coefficients, the
//! constant included, are coprime integers; the positive factor moves into the term
//! coefficient (`max0(2h + 2) = 2·max0(h + 1)`). A floor atom `⌊L/d⌋⁺` is multiplied through
//! (`⌊kL/kd⌋ = ⌊L/d⌋`, `k > 0`) to an integer form and divisor with gcd 1; divisor 1 leaves
//! `max0(L)`. Constant atoms evaluate to numbers. A monomial is the sorted list of its
//! canonical atoms (repetitions = powers; `max0` atoms before floor atoms).
//! Coefficients are generic ([`Coef`]): exact rationals ([`Poly`]) or linear expressions
//! over LP variables (`crate::analysis::tpoly::TPoly`, templates of the inference).

use super::linear::{fmt_q, q_add, q_mul, Lin};
use super::sorted::{SharedMap, SortedMap};
use crate::core::metric::Q;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Coefficients of potentials: rationals or LP-variable expressions.
pub trait Coef: Clone + std::fmt::Debug + PartialEq {
    /// Additive unit.
    fn czero() -> Self;
    /// Structural zero (dropped by normalization).
    fn is_zero_c(&self) -> bool;
    /// `self += o`.
    fn add_assign_c(&mut self, o: &Self);
    /// `k·self`.
    fn scaled(&self, k: &Q) -> Self;
    /// The constant `k`.
    fn from_q(k: &Q) -> Self;
}

impl Coef for Q {
    fn czero() -> Self {
        <Q as Zero>::zero()
    }
    fn is_zero_c(&self) -> bool {
        Zero::is_zero(self)
    }
    fn add_assign_c(&mut self, o: &Self) {
        *self = q_add(self, o);
    }
    fn scaled(&self, k: &Q) -> Self {
        q_mul(self, k)
    }
    fn from_q(k: &Q) -> Self {
        k.clone()
    }
}

/// The value of an atom: a non-negative constant or a positive multiple of a canonical atom
/// (`A = Lin` for `max0(L)`'s form, `A = Atom` for any atom).
#[derive(Clone, Debug, PartialEq)]
pub enum AtomVal<A = Lin> {
    /// The atom is constant: `max(0, c)`, resp. `max(0, ⌊c/d⌋)`.
    Const(Q),
    /// `factor · atom` with `atom` canonical and `factor > 0`.
    Scaled(Q, A),
}

/// An atom of a potential (spec/logic.md §1, "Floor atoms"): `max0(L)`, or the floor atom
/// `⌊L/d⌋⁺ = max(0, ⌊L/d⌋)` for an integer `d ≥ 1` (certificate syntax `(floor L d)`).
/// Ordered `Max0` before `Floor`, then by form, as the kernel orders them. The form is
/// shared (`Arc`): potentials are copied into every derivation node, and a copy of an atom
/// is a reference count (issue 13).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// `max0(L)`.
    Max0(Arc<Lin>),
    /// `max(0, ⌊L/d⌋)`, `d ≥ 1`; canonical: `L` integer, `gcd(L's coefficients, d) = 1`,
    /// `d ≥ 2`.
    Floor(Arc<Lin>, BigInt),
    /// The log atom `⌊log2 L⌋⁺ = ⌊log2 max(1, ⌊L⌋)⌋` (spec/logic.md §1 "Log atoms",
    /// certificate syntax `(log2 L)`); canonical as it is (a constant form is its value).
    Log(Arc<Lin>),
    /// The quotient log atom `⌊log2 (L/M)⌋⁺ = ⌊log2 max(1, ⌊⌊L⌋ / max(1, ⌊M⌋)⌋)⌋` of a
    /// doubling loop (spec/logic.md §1 "Quotient log atoms", certificate syntax
    /// `(log2q L M)`); with a constant `M` canonically the log atom of `L / max(1, ⌊M⌋)`.
    LogQ(Arc<Lin>, Arc<Lin>),
    /// The residue atom `[m ∤ L]` (spec/logic.md §1 "Residue atoms", certificate syntax
    /// `(ndvd L m)`, issue 15): 0 when `m` divides the integer `L`, else 1; not monotone.
    /// Canonical as the kernel's: `L` not constant, `m ≥ 2`.
    Res(Arc<Lin>, BigInt),
    /// The window atom `[L mod m < w]` (spec/logic.md §1 "Window atoms", certificate syntax
    /// `(inwin L m w)`, issue 15): 1 when the integer `L` lies in `[0, w)` modulo `m`, else
    /// 0; not monotone. Canonical as the kernel's: `L` not constant, `1 ≤ w < m`.
    Win(Arc<Lin>, BigInt, BigInt),
    /// The symbolic floor atom `max(0, ⌊L/D⌋)` (spec/logic.md §1 "Symbolic divisors",
    /// certificate syntax `(floors L D)`, issue 14): `D` a launch form over `gridDim.x|y|z`
    /// with positive integer coefficients and an integer constant `≥ 0` ([`launch_divisor`]).
    /// Canonical as the kernel's: the gcd of all coefficients and constants of `L` and `D`
    /// together is 1.
    FloorSym(Arc<Lin>, Arc<Lin>),
}

/// Whether `d` is a launch form a symbolic floor atom may divide by (the kernel's
/// `floors_wf` on the divisor, spec/logic.md §1 "Symbolic divisors"): at least one
/// variable, each `gridDim.x|y|z` with a positive integer coefficient, and an integer
/// constant `≥ 0`.
pub fn launch_divisor(d: &Lin) -> bool {
    !d.terms.is_empty()
        && d.terms.iter().all(|(v, a)| {
            ["gridDim.x", "gridDim.y", "gridDim.z"].contains(&v.as_str())
                && a.is_integer()
                && a.is_positive()
        })
        && d.c.is_integer()
        && !d.c.is_negative()
}

/// `[⌊v⌋ mod m < w]`, the value of a window atom whose form has the value `v`.
pub fn win_value(v: &Q, m: &BigInt, w: &BigInt) -> Q {
    if &v.floor().to_integer().mod_floor(m) < w {
        Q::one()
    } else {
        Q::zero()
    }
}

/// The canonical window atom `[l mod m < w]` (the kernel's `win_canonical`): `w ≤ 0` is 0,
/// `w ≥ m` is 1, a constant form its value, else the atom as it is.
fn win_canonical(l: &Arc<Lin>, m: &BigInt, w: &BigInt) -> AtomVal<Atom> {
    if !w.is_positive() {
        AtomVal::Const(Q::zero())
    } else if w >= m {
        AtomVal::Const(Q::one())
    } else if l.is_const() {
        AtomVal::Const(win_value(&l.c, m, w))
    } else {
        AtomVal::Scaled(Q::one(), Atom::Win(l.clone(), m.clone(), w.clone()))
    }
}

/// `[m ∤ v]`, the value of a residue atom whose form has the value `v` (a non-integer `v`
/// is not divisible).
pub fn res_value(v: &Q, m: &BigInt) -> Q {
    if v.is_integer() && v.to_integer().mod_floor(m).is_zero() {
        Q::zero()
    } else {
        Q::one()
    }
}

/// The canonical residue atom `[m ∤ l]` (the kernel's `res_canonical`): `m = 1` is 0, a
/// constant form its value, else the atom as it is.
fn res_canonical(l: &Arc<Lin>, m: &BigInt) -> AtomVal<Atom> {
    if m.is_one() {
        AtomVal::Const(Q::zero())
    } else if l.is_const() {
        AtomVal::Const(res_value(&l.c, m))
    } else {
        AtomVal::Scaled(Q::one(), Atom::Res(l.clone(), m.clone()))
    }
}

/// `⌊log2 max(1, ⌊v⌋)⌋`, the value of a log atom whose form has the value `v`.
pub fn log2_floor(v: &Q) -> Q {
    let z = v.floor().to_integer();
    if z <= BigInt::one() {
        Q::zero()
    } else {
        Q::from_integer(BigInt::from(z.bits() - 1))
    }
}

impl From<Lin> for Atom {
    fn from(l: Lin) -> Atom {
        Atom::Max0(Arc::new(l))
    }
}

impl From<&Lin> for Atom {
    fn from(l: &Lin) -> Atom {
        Atom::Max0(Arc::new(l.clone()))
    }
}

impl From<&Atom> for Atom {
    fn from(a: &Atom) -> Atom {
        a.clone()
    }
}

/// `⌊log2 max(1, ⌊⌊l⌋ / max(1, ⌊m⌋)⌋)⌋`, the value of a quotient log atom whose forms
/// have the values `l`, `m`.
pub fn log2q_floor(l: &Q, m: &Q) -> Q {
    let d = m.floor().to_integer().max(BigInt::one());
    log2_floor(&Q::from_integer(l.floor().to_integer().div_floor(&d)))
}

impl Atom {
    /// The floor atom `⌊l/d⌋⁺` (not canonicalized; `d ≥ 1`).
    pub fn floor(l: Lin, d: i64) -> Atom {
        Atom::Floor(Arc::new(l), BigInt::from(d))
    }
    /// The atom's (first) linear form `L`; a quotient log atom also has its divisor form
    /// ([`Atom::forms`]).
    pub fn lin(&self) -> &Lin {
        match self {
            Atom::Max0(l)
            | Atom::Floor(l, _)
            | Atom::Log(l)
            | Atom::LogQ(l, _)
            | Atom::Res(l, _)
            | Atom::Win(l, _, _)
            | Atom::FloorSym(l, _) => l,
        }
    }
    /// All the atom's linear forms: `[L]`, `[L, M]` for a quotient log atom, `[L, D]` for a
    /// symbolic floor atom.
    pub fn forms(&self) -> Vec<&Lin> {
        match self {
            Atom::LogQ(l, m) | Atom::FloorSym(l, m) => vec![l, m],
            _ => vec![self.lin()],
        }
    }
    /// The form of a `max0` atom, `None` for a floor atom.
    pub fn as_max0(&self) -> Option<&Lin> {
        match self {
            Atom::Max0(l) => Some(l.as_ref()),
            Atom::Floor(..)
            | Atom::Log(_)
            | Atom::LogQ(..)
            | Atom::Res(..)
            | Atom::Win(..)
            | Atom::FloorSym(..) => None,
        }
    }
    /// The divisor `d` (1 for `max0`; 1 for a symbolic floor atom too, whose divisor is a
    /// form, [`Atom::FloorSym`]).
    pub fn divisor(&self) -> BigInt {
        match self {
            Atom::Max0(_)
            | Atom::Log(_)
            | Atom::LogQ(..)
            | Atom::Res(..)
            | Atom::Win(..)
            | Atom::FloorSym(..) => BigInt::one(),
            Atom::Floor(_, d) => d.clone(),
        }
    }
    /// The atom with `f` applied to each of its forms (a floor atom keeps its divisor).
    pub fn map_lin(&self, f: impl Fn(&Lin) -> Lin) -> Atom {
        match self {
            Atom::Max0(l) => Atom::Max0(Arc::new(f(l))),
            Atom::Floor(l, d) => Atom::Floor(Arc::new(f(l)), d.clone()),
            Atom::Log(l) => Atom::Log(Arc::new(f(l))),
            Atom::LogQ(l, m) => Atom::LogQ(Arc::new(f(l)), Arc::new(f(m))),
            Atom::Res(l, m) => Atom::Res(Arc::new(f(l)), m.clone()),
            Atom::Win(l, m, w) => Atom::Win(Arc::new(f(l)), m.clone(), w.clone()),
            // the divisor mentions grid dimensions only, never assigned
            Atom::FloorSym(l, d) => Atom::FloorSym(Arc::new(f(l)), d.clone()),
        }
    }
    /// Whether `v` occurs in a form.
    pub fn mentions(&self, v: &str) -> bool {
        // the forms of `forms`, without collecting them (a hot test of the backward pass)
        match self {
            Atom::LogQ(l, m) | Atom::FloorSym(l, m) => l.mentions(v) || m.mentions(v),
            _ => self.lin().mentions(v),
        }
    }
    /// `A[v ← e]`: substitution in the form (exact for a floor atom: `⌊L/d⌋` is a function
    /// of `L`'s value; spec/logic.md §1).
    pub fn subst(&self, v: &str, e: &Lin) -> Atom {
        self.map_lin(|l| l.subst(v, e))
    }
    /// `A↓D` of the shift rewrites (spec/certificate.md "Integer rewrites"): `max0(L − D)`,
    /// resp. `⌊(L − d·D)/d⌋⁺` (`⌊L/d⌋ − D = ⌊(L − d·D)/d⌋` for an integer `D`).
    pub fn shifted(&self, sft: &Q) -> Atom {
        match self {
            Atom::Max0(l) => Atom::Max0(Arc::new(l.plus_const(&-sft.clone()))),
            Atom::Floor(l, d) => Atom::Floor(
                Arc::new(l.plus_const(&-(sft * Q::from_integer(d.clone())))),
                d.clone(),
            ),
            // ⌊L/D⌋ − K = ⌊(L − K·D)/D⌋ (spec/logic.md §1 "Symbolic divisors")
            Atom::FloorSym(l, d) => {
                Atom::FloorSym(Arc::new(l.add_scaled(d, &-sft.clone())), d.clone())
            }
            // not used on log atoms (no shift rewrite applies to them)
            Atom::Log(_) | Atom::LogQ(..) | Atom::Res(..) | Atom::Win(..) => self.clone(),
        }
    }
    /// The atom's value at `env` (variables missing from `env` count as 0, except the grid
    /// dimensions of a symbolic divisor, which count as 1 in `L` and `D` alike): `max(0, L(env))`, resp.
    /// `max(0, ⌊L(env)/d⌋)`.
    pub fn eval(&self, env: &BTreeMap<String, i64>) -> Q {
        let v = match self {
            Atom::Max0(l) => l.eval(env),
            Atom::Floor(l, d) => (l.eval(env) / Q::from_integer(d.clone())).floor(),
            Atom::Log(l) => log2_floor(&l.eval(env)),
            Atom::LogQ(l, m) => log2q_floor(&l.eval(env), &m.eval(env)),
            Atom::Res(l, m) => res_value(&l.eval(env), m),
            Atom::Win(l, m, w) => win_value(&l.eval(env), m, w),
            // D ≥ 1 on every launch: a grid dimension missing from `env` counts as 1 (the
            // smallest grid, where the atom is largest), and D as at least 1
            // in `L` too, so that the atom is the one of that grid
            Atom::FloorSym(l, d) => {
                let mut at = env.clone();
                for v in d.terms.keys() {
                    at.entry(v.clone()).or_insert(1);
                }
                (l.eval(&at) / d.eval(&at).max(Q::one())).floor()
            }
        };
        if v.is_positive() {
            v
        } else {
            Q::zero()
        }
    }
    /// Canonical form (the kernel's `Atom::canonical`): `Const(v)` when the atom is the
    /// constant `v`, else `Scaled(f, A')` with `self = f·A'` on every integer state.
    pub fn canonical(&self) -> AtomVal<Atom> {
        let (l, d) = match self {
            Atom::Max0(l) => {
                return match canon_atom(l) {
                    AtomVal::Const(v) => AtomVal::Const(v),
                    // an atom already canonical keeps its shared form
                    AtomVal::Scaled(f, a) if f.is_one() && a == **l => {
                        AtomVal::Scaled(f, self.clone())
                    }
                    AtomVal::Scaled(f, a) => AtomVal::Scaled(f, Atom::Max0(Arc::new(a))),
                };
            }
            Atom::Floor(l, d) => (l, d),
            Atom::Log(l) if l.is_const() => return AtomVal::Const(log2_floor(&l.c)),
            Atom::Log(_) => return AtomVal::Scaled(Q::one(), self.clone()),
            // a constant divisor form: the log atom of L / max(1, ⌊M⌋) (the kernel's)
            Atom::LogQ(l, m) if m.is_const() => {
                let d = m.c.floor().to_integer().max(BigInt::one());
                return Atom::Log(Arc::new(l.scale(&Q::new(BigInt::one(), d)))).canonical();
            }
            Atom::LogQ(..) => return AtomVal::Scaled(Q::one(), self.clone()),
            Atom::Res(l, m) => return res_canonical(l, m),
            Atom::Win(l, m, w) => return win_canonical(l, m, w),
            Atom::FloorSym(l, d) => return floors_canonical(self, l, d),
        };
        let all = || std::iter::once(&l.c).chain(l.terms.values());
        let den = all().fold(BigInt::one(), |acc, a| acc.lcm(a.denom()));
        let scaled = l.scale(&Q::from_integer(den.clone()));
        let dd = d * &den;
        let g = std::iter::once(&scaled.c)
            .chain(scaled.terms.values())
            .fold(dd.clone(), |acc, a| acc.gcd(a.numer()));
        let (l2, d2) = (scaled.scale(&Q::new(BigInt::one(), g.clone())), &dd / &g);
        if l2.is_const() {
            let v = l2.c.numer().div_floor(&d2);
            return AtomVal::Const(if v.is_positive() {
                Q::from_integer(v)
            } else {
                Q::zero()
            });
        }
        if d2.is_one() {
            return Atom::Max0(Arc::new(l2)).canonical();
        }
        if l2 == **l && d2 == *d {
            return AtomVal::Scaled(Q::one(), self.clone());
        }
        AtomVal::Scaled(Q::one(), Atom::Floor(Arc::new(l2), d2))
    }
}

impl std::fmt::Display for Atom {
    /// `max(0, L)`, resp. `max(0, ⌊(L)/d⌋)` (spec/certificate.md "Printed bound with floor
    /// atoms").
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Atom::Max0(l) => write!(f, "max(0, {l})"),
            Atom::Floor(l, d) => write!(f, "max(0, ⌊({l})/{d}⌋)"),
            Atom::Log(l) => write!(f, "⌊log2(max(1, {l}))⌋"),
            Atom::LogQ(l, m) => write!(f, "⌊log2(max(1, {l})/max(1, {m}))⌋"),
            Atom::Res(l, m) => write!(f, "[{m} ∤ {l}]"),
            Atom::Win(l, m, w) => write!(f, "[({l}) mod {m} < {w}]"),
            Atom::FloorSym(l, d) => write!(f, "max(0, ⌊({l})/({d})⌋)"),
        }
    }
}

/// The canonical symbolic floor atom `a = ⌊l/d⌋⁺` (the kernel's `floors_canonical`): both
/// forms multiplied by the lcm of their denominators and divided by the gcd of all their
/// coefficients and constants.
fn floors_canonical(a: &Atom, l: &Arc<Lin>, d: &Arc<Lin>) -> AtomVal<Atom> {
    let all = || {
        std::iter::once(&l.c)
            .chain(l.terms.values())
            .chain(std::iter::once(&d.c))
            .chain(d.terms.values())
    };
    let den = all().fold(BigInt::one(), |acc, x| acc.lcm(x.denom()));
    let g = all().fold(BigInt::zero(), |acc, x| {
        acc.gcd(&(x * Q::from_integer(den.clone())).to_integer())
    });
    if g.is_zero() || (den.is_one() && g.is_one()) {
        return AtomVal::Scaled(Q::one(), a.clone());
    }
    let k = Q::new(den, g);
    AtomVal::Scaled(
        Q::one(),
        Atom::FloorSym(Arc::new(l.scale(&k)), Arc::new(d.scale(&k))),
    )
}

fn lcm_big(a: &BigInt, b: &BigInt) -> BigInt {
    a.lcm(b)
}

/// Canonicalizes `max0(l)` (see the module docs).
pub fn canon_atom(l: &Lin) -> AtomVal {
    if l.is_const() {
        return AtomVal::Const(if l.c.is_positive() {
            l.c.clone()
        } else {
            Q::zero()
        });
    }
    let coefs: Vec<&Q> = std::iter::once(&l.c).chain(l.terms.values()).collect();
    let mut den = BigInt::one();
    for c in &coefs {
        if !c.denom().is_one() {
            den = lcm_big(&den, c.denom());
        }
    }
    let mut g = BigInt::zero();
    for c in &coefs {
        if g.is_one() {
            break; // gcd(1, n) = 1
        }
        let n = c.numer() * (&den / c.denom());
        g = g.gcd(&n);
    }
    if g.is_zero() {
        return AtomVal::Const(Q::zero());
    }
    if g.is_one() && den.is_one() {
        // already canonical: scaling by 1 would only copy it
        return AtomVal::Scaled(Q::one(), l.scale(&Q::one()));
    }
    let factor = Q::new(g, den);
    let atom = l.scale(&(Q::one() / &factor));
    AtomVal::Scaled(factor, atom)
}

/// A monomial: sorted canonical atoms (empty = the constant monomial).
pub type Mono = Vec<Atom>;

/// A polynomial `Σ c_m · Π_{a ∈ m} a` over atoms ([`Atom`]) with coefficients of type `C`, normalized
/// (canonical atoms, sorted monomials, no zero coefficients).
///
/// The terms are shared ([`SharedMap`], copied on the first write, [`PolyT::terms_mut`]): the
/// derivation's nodes hold the potentials before and after each statement, mostly the same
/// ones as their neighbours, so a copy of a potential is not a copy of its terms (issue 13).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PolyT<C> {
    /// Coefficient of each monomial.
    pub terms: SharedMap<Mono, C>,
}

/// Potentials with rational coefficients (certificates, bounds).
pub type Poly = PolyT<Q>;

impl<C: Coef> PolyT<C> {
    /// The zero polynomial.
    pub fn zero() -> Self {
        PolyT {
            terms: SharedMap::default(),
        }
    }
    /// The terms, to change them: copied first when another potential shares them.
    pub fn terms_mut(&mut self) -> &mut SortedMap<Mono, C> {
        self.terms.make_mut()
    }
    /// The constant `k`.
    pub fn constant(k: &Q) -> Self {
        let mut p = Self::zero();
        p.add_term(Vec::new(), C::from_q(k));
        p
    }
    /// The linear forms `L` of the `max0(L)` atoms of the monomials, each once per
    /// occurrence (floor atoms left out); collect into a set for distinct atoms.
    pub fn max0_atoms(&self) -> impl Iterator<Item = &Lin> {
        self.terms.keys().flatten().filter_map(Atom::as_max0)
    }
    /// Adds `c · Π a` for arbitrary (not necessarily canonical) atoms `atoms` (a [`Lin`]
    /// is the atom `max0(L)`).
    pub fn add_raw_term<A>(&mut self, atoms: &[A], c: C)
    where
        for<'a> &'a A: Into<Atom>,
    {
        let mut factor = Q::one();
        let mut mono = Vec::new();
        for a in atoms {
            match a.into().canonical() {
                AtomVal::Const(v) => factor *= v,
                AtomVal::Scaled(f, at) => {
                    factor *= f;
                    mono.push(at);
                }
            }
        }
        if factor.is_zero() {
            return;
        }
        mono.sort();
        self.add_term(mono, c.scaled(&factor));
    }
    /// Adds `c · m` for a canonical sorted monomial `m`.
    pub fn add_term(&mut self, m: Mono, c: C) {
        let terms = self.terms_mut();
        if let Some(e) = terms.get_mut(&m) {
            e.add_assign_c(&c);
            if e.is_zero_c() {
                terms.remove(&m);
            }
        } else {
            let mut z = C::czero();
            z.add_assign_c(&c);
            if !z.is_zero_c() {
                terms.insert(m, z);
            }
        }
    }
    /// `self + o`.
    pub fn plus(&self, o: &Self) -> Self {
        let mut out = self.clone();
        for (m, c) in &o.terms {
            out.add_term(m.clone(), c.clone());
        }
        out
    }
    /// `self + k` for a constant `k`.
    pub fn plus_const(&self, k: &Q) -> Self {
        let mut out = self.clone();
        out.add_term(Vec::new(), C::from_q(k));
        out
    }
    /// `k·self`.
    pub fn scaled(&self, k: &Q) -> Self {
        let mut out = Self::zero();
        for (m, c) in &self.terms {
            out.add_term(m.clone(), c.scaled(k));
        }
        out
    }
    /// `Q[v ← e]` (spec §2 "Substitution"): `e` replaces `v` in every atom; renormalized.
    pub fn subst(&self, v: &str, e: &Lin) -> Self {
        // a potential without `v` is its own substitution (its terms shared, issue 13)
        if !self.mentions(v) {
            return self.clone();
        }
        let mut out = Self::zero();
        for (m, c) in &self.terms {
            if !m.iter().any(|a| a.mentions(v)) {
                // canonical atoms stay as they are
                out.add_term(m.clone(), c.clone());
                continue;
            }
            let atoms: Vec<Atom> = m.iter().map(|a| a.subst(v, e)).collect();
            out.add_raw_term(&atoms, c.clone());
        }
        out
    }
    /// The variables of the atoms, sorted, without repetitions.
    pub fn vars(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .terms
            .keys()
            .flatten()
            .flat_map(|a| a.forms().into_iter().flat_map(|l| l.terms.keys().cloned()))
            .collect();
        out.sort();
        out.dedup();
        out
    }
    /// Whether some atom mentions `v`.
    pub fn mentions(&self, v: &str) -> bool {
        self.terms.keys().any(|m| m.iter().any(|a| a.mentions(v)))
    }
    /// Replaces every occurrence of the canonical atom `atom` by `Σ (k_i · b_i)` where each
    /// `b_i` is `None` (the constant 1) or an arbitrary atom, expanding products.
    pub fn replace_atom(&self, atom: &Atom, by: &[(Q, Option<Atom>)]) -> Self {
        let mut out = Self::zero();
        for (m, c) in &self.terms {
            if !m.contains(atom) {
                // a monomial without the atom is already canonical
                out.add_term(m.clone(), c.clone());
                continue;
            }
            // partial products: (coefficient factor, raw atoms)
            let mut parts: Vec<(Q, Vec<Atom>)> = vec![(Q::one(), Vec::new())];
            for a in m {
                if a == atom {
                    let mut next = Vec::new();
                    for (f, atoms) in &parts {
                        for (k, b) in by {
                            let mut at = atoms.clone();
                            if let Some(b) = b {
                                at.push(b.clone());
                            }
                            next.push((f * k, at));
                        }
                    }
                    parts = next;
                } else {
                    for (_, atoms) in parts.iter_mut() {
                        atoms.push(a.clone());
                    }
                }
            }
            for (f, atoms) in parts {
                if !f.is_zero() {
                    out.add_raw_term(&atoms, c.scaled(&f));
                }
            }
        }
        out
    }
    /// The shift rewrite `A = A↓d + d` of the canonical atom `atom`: `max0(L) = max0(L − d)
    /// + d` (valid when `L ≥ d ≥ 0`), resp. `⌊L/c⌋⁺ = ⌊(L − c·d)/c⌋⁺ + d` (valid when
    /// `⌊L/c⌋ ≥ d ≥ 0`, `d` an integer: `ishift`).
    pub fn shift<A>(&self, atom: &A, d: &Q) -> Self
    where
        for<'a> &'a A: Into<Atom>,
    {
        let atom: Atom = atom.into();
        self.replace_atom(
            &atom,
            &[(Q::one(), Some(atom.shifted(d))), (d.clone(), None)],
        )
    }
    /// The monotone rewrite `max0(L) ≥ max0(L2)` (valid when `L2 ≤ L`): every occurrence of
    /// the canonical atom of `L` is replaced by the matching multiple of `max0(L2)`
    /// (`L`, `L2` arbitrary forms). Lowers a potential with non-negative coefficients.
    pub fn mono(&self, l: &Lin, l2: &Lin) -> Self {
        match canon_atom(l) {
            AtomVal::Scaled(f, atom) => self.replace_atom(
                &Atom::Max0(Arc::new(atom)),
                &[(Q::one() / f, Some(l2.into()))],
            ),
            AtomVal::Const(_) => self.clone(),
        }
    }
    /// The split rewrite `max0(L) = max0(L − D) + max0(D)` (valid when `L ≥ D ≥ 0`): every
    /// occurrence of the canonical atom of `L` is replaced by the matching multiple of the
    /// sum (`L`, `D` arbitrary forms).
    pub fn split(&self, l: &Lin, d: &Lin) -> Self {
        match canon_atom(l) {
            AtomVal::Scaled(f, atom) => {
                let k = Q::one() / f;
                self.replace_atom(
                    &Atom::Max0(Arc::new(atom)),
                    &[(k.clone(), Some(l.sub(d).into())), (k, Some(d.into()))],
                )
            }
            AtomVal::Const(_) => self.clone(),
        }
    }
    /// The log rewrite `lhalve`: `⌊log2 L⌋⁺ = 1 + ⌊log2 (L/2)⌋⁺` (valid when `L ≥ 2`;
    /// spec/certificate.md "Log rewrites").
    pub fn lhalve(&self, l: &Lin) -> Self {
        let half = l.scale(&Q::new(BigInt::one(), BigInt::from(2)));
        self.replace_atom(
            &Atom::Log(Arc::new(l.clone())),
            &[
                (Q::one(), Some(Atom::Log(Arc::new(half)))),
                (Q::one(), None),
            ],
        )
    }
    /// The log rewrite `ldouble`: `⌊log2 (L/M)⌋⁺ = 1 + ⌊log2 (L/2M)⌋⁺` (valid when `M ≥ 1`
    /// is integral and `2M ≤ L`; spec/certificate.md "Log rewrites").
    pub fn ldouble(&self, l: &Lin, m: &Lin) -> Self {
        let twice = m.scale(&Q::from_integer(BigInt::from(2)));
        self.replace_atom(
            &Atom::LogQ(Arc::new(l.clone()), Arc::new(m.clone())),
            &[
                (
                    Q::one(),
                    Some(Atom::LogQ(Arc::new(l.clone()), Arc::new(twice))),
                ),
                (Q::one(), None),
            ],
        )
    }
    /// The zero rewrite `A = 0` of a canonical atom (valid when `L ≤ 0`, resp. `⌊L/d⌋ ≤ 0`).
    pub fn zero_atom(&self, atom: &Atom) -> Self {
        self.replace_atom(atom, &[])
    }
    /// Degree (largest monomial length; 0 for constants and the zero polynomial).
    pub fn degree(&self) -> usize {
        self.terms.keys().map(|m| m.len()).max().unwrap_or(0)
    }
}

impl Poly {
    /// Value at `env` (variables missing from `env` count as 0): `Σ c · Π A(env)`
    /// ([`Atom::eval`]).
    pub fn eval(&self, env: &BTreeMap<String, i64>) -> Q {
        let mut s = Q::zero();
        for (m, c) in &self.terms {
            let mut t = c.clone();
            for a in m {
                t *= a.eval(env);
            }
            s += t;
        }
        s
    }
    /// The bound in the grammar `integers, p/q, identifiers, + - *, parentheses, max(a, b)`:
    /// constant first, then monomials in canonical order, e.g. `4 + 10*max(0, h + 1)`; a
    /// floor atom prints `max(0, ⌊(n + 31)/32⌋)`. The zero polynomial prints as `0`.
    pub fn to_bound_string(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (m, c) in &self.terms {
            let atoms: Vec<String> = m.iter().map(ToString::to_string).collect();
            let s = if m.is_empty() {
                fmt_q(c)
            } else if c.is_one() {
                atoms.join("*")
            } else {
                format!("{}*{}", fmt_q(c), atoms.join("*"))
            };
            parts.push(s);
        }
        if parts.is_empty() {
            "0".to_string()
        } else {
            parts.join(" + ")
        }
    }
    /// Whether every coefficient is ≥ 0.
    pub fn nonneg(&self) -> bool {
        self.terms.values().all(|c| !c.is_negative())
    }
}

#[cfg(test)]
mod tests {
    use super::{Atom, Lin, Q};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    /// A symbolic floor atom at a point without its grid dimension is the atom of the grid
    /// of one block, in `L` as in `D`: `⌊(g + n − 1)/g⌋⁺` at `n = 5` is 5 both with `g = 1`
    /// given and with `g` missing (by hand: `⌊5/1⌋`), not `⌊4/1⌋` (`g` read as 0 in `L`).
    #[test]
    fn symbolic_floor_atom_reads_a_missing_grid_dimension_as_one() {
        let g = Lin::var("gridDim.x");
        let l = g.add_scaled(&Lin::var("n"), &Q::from_integer(1.into()));
        let l = l.add_scaled(
            &Lin::constant(Q::from_integer(1.into())),
            &Q::from_integer((-1).into()),
        );
        let a = Atom::FloorSym(Arc::new(l), Arc::new(g));
        let n5 = BTreeMap::from([("n".to_string(), 5)]);
        let mut n5g1 = n5.clone();
        n5g1.insert("gridDim.x".to_string(), 1);
        let mut n5g2 = n5.clone();
        n5g2.insert("gridDim.x".to_string(), 2);
        assert_eq!(a.eval(&n5), Q::from_integer(5.into()));
        assert_eq!(a.eval(&n5g1), Q::from_integer(5.into()));
        // ⌊(2 + 5 − 1)/2⌋ = 3 rounds of a stride-2 loop over 5 items
        assert_eq!(a.eval(&n5g2), Q::from_integer(3.into()));
    }
}
