//! Exact arithmetic: linear forms, constraints, normalized polynomials over `max0` and
//! floor atoms ([`Atom`], spec/logic.md §1 "Floor atoms"), substitution, Farkas checking,
//! Chvátal–Gomory cuts ([`check_cut`]) and atom rewrites (spec/certificate.md "Linear forms …",
//! "Derivation nodes"; RaCUDA §5's potential functions), and the thread-dependence entries
//! of spec/logic.md §2.
//!
//! Canonical atoms: the linear form `L` of an atom `max0(L)` is scaled to integer
//! coefficients (constant included) with gcd 1, the positive factor `f` being moved into the
//! term coefficient (`max0(f·L') = f·max0(L')`); an atom with a constant form is evaluated.
//! A floor atom `⌊L/d⌋⁺` is multiplied through to an integer form and divisor with gcd 1
//! ([`Atom::canonical`]). Potentials are then compared as maps from sorted atom multisets to
//! coefficients.

use crate::sorted::SortedMap;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::fmt;

pub use crate::rat::Rat;

/// Integer `n` as a rational.
pub fn rat(n: i64) -> Rat {
    Rat::from(n)
}

/// `a + b`.
pub fn add(a: &Rat, b: &Rat) -> Rat {
    a + b
}

/// `a · b`.
pub fn mul(a: &Rat, b: &Rat) -> Rat {
    a * b
}

/// `Some(x)` unless `x` is zero (the coefficients kept in a [`Lin`] or [`Poly`]).
fn non_zero(x: Rat) -> Option<Rat> {
    (!x.is_zero()).then_some(x)
}

/// A linear form `c + Σ a_v·v`, normalized: no zero coefficients, terms sorted by name.
/// Ordered by constant, then terms (the order of printed bounds, spec/certificate.md).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lin {
    /// The constant `c`.
    pub c: Rat,
    /// Terms `v ↦ a_v`, all `a_v ≠ 0`.
    pub terms: SortedMap<String, Rat>,
}

impl Lin {
    /// The constant form `c`.
    pub fn constant(c: Rat) -> Lin {
        Lin { terms: SortedMap::new(), c }
    }
    /// The form `v` (coefficient 1).
    pub fn var(v: &str) -> Lin {
        let mut l = Lin::constant(Rat::zero());
        l.add_term(v, &Rat::one());
        l
    }
    /// Adds `a·v`, keeping the form normalized.
    pub fn add_term(&mut self, v: &str, a: &Rat) {
        match self.terms.get_mut(v) {
            Some(e) => {
                *e = add(e, a);
                if e.is_zero() {
                    self.terms.remove(v);
                }
            }
            None if !a.is_zero() => {
                self.terms.insert(v.to_string(), a.clone());
            }
            None => {}
        }
    }
    /// `self + k·other`: the terms of both merged in one pass (the result of
    /// [`Lin::add_term`]`(v, a·k)` for each term `a·v` of `other`: sums, zero sums dropped).
    pub fn add_scaled(&self, other: &Lin, k: &Rat) -> Lin {
        Lin {
            c: add(&self.c, &mul(&other.c, k)),
            terms: self.terms.merged(&other.terms, |a, b| non_zero(add(a, &mul(b, k))), |b| non_zero(mul(b, k))),
        }
    }
    /// `self ← self + k·other`.
    pub fn add_scaled_mut(&mut self, other: &Lin, k: &Rat) {
        *self = self.add_scaled(other, k);
    }
    /// `k·self`.
    pub fn scale(&self, k: &Rat) -> Lin {
        Lin::constant(Rat::zero()).add_scaled(self, k)
    }
    /// Whether `v` occurs.
    pub fn mentions(&self, v: &str) -> bool {
        self.terms.contains_key(v)
    }
    /// `self[v ← e]`.
    pub fn subst(&self, v: &str, e: &Lin) -> Lin {
        match self.terms.get(v) {
            None => self.clone(),
            Some(a) => {
                let mut r = self.clone();
                r.terms.remove(v);
                r.add_scaled(e, a)
            }
        }
    }
    /// The constant value if no variable occurs.
    pub fn as_const(&self) -> Option<&Rat> {
        self.terms.is_empty().then_some(&self.c)
    }
    /// Canonical atom form: `Err(max(0, c))` for a constant form, else `Ok((f, L'))` with
    /// `self = f·L'`, `f > 0`, `L'` integer with coprime coefficients.
    pub fn canonical(&self) -> Result<(Rat, Lin), Rat> {
        if self.terms.is_empty() {
            return Err(if self.c.is_positive() { self.c.clone() } else { Rat::zero() });
        }
        let all = || std::iter::once(&self.c).chain(self.terms.values());
        // (lcm with 1 and gcd with 1 are skipped: they do not change the accumulator)
        let den = all().fold(BigInt::one(), |acc, a| if a.denom().is_one() { acc } else { acc.lcm(&a.denom()) });
        let num = all().fold(BigInt::zero(), |acc, a| {
            if acc.is_one() {
                acc
            } else if den.is_one() {
                acc.gcd(&a.numer())
            } else {
                acc.gcd(&(a * Rat::from_integer(den.clone())).to_integer())
            }
        });
        // num > 0 because some term is non-zero.
        if num.is_one() && den.is_one() {
            return Ok((Rat::one(), self.clone()));
        }
        let f = Rat::new(num, den);
        let inv = Rat::one() / &f;
        Ok((f, self.scale(&inv)))
    }
}

fn fmt_rat(r: &Rat) -> String {
    if r.is_integer() {
        r.numer().to_string()
    } else {
        format!("{}/{}", r.numer(), r.denom())
    }
}

impl fmt::Display for Lin {
    /// Human grammar (spec/certificate.md, "printed bound"): positive terms by name, then
    /// negative terms by name, then a non-zero constant: `n - i + 1`, `2*h`, `1/2*x`, `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = self.terms.iter().filter(|t| t.1.is_positive());
        let neg = self.terms.iter().filter(|t| t.1.is_negative());
        let mut items: Vec<(&Rat, Option<&String>)> = pos.chain(neg).map(|(v, a)| (a, Some(v))).collect();
        if !self.c.is_zero() || items.is_empty() {
            items.push((&self.c, None));
        }
        for (i, (a, v)) in items.into_iter().enumerate() {
            let mag = a.abs();
            match (i, a.is_negative()) {
                (0, true) => f.write_str("-")?,
                (0, false) => {}
                (_, true) => f.write_str(" - ")?,
                (_, false) => f.write_str(" + ")?,
            }
            match v {
                None => f.write_str(&fmt_rat(&mag))?,
                Some(v) if mag.is_one() => f.write_str(v)?,
                Some(v) => write!(f, "{}*{v}", fmt_rat(&mag))?,
            }
        }
        Ok(())
    }
}

/// A constraint `lin ≤ 0` (`eq = false`) or `lin = 0` (`eq = true`), or, when `lane` is
/// present, the lane constraint `lin mod m ∈ rs` (spec/logic.md §1; `eq` is then `false`
/// and unused).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cstr {
    /// Equality?
    pub eq: bool,
    /// The linear form.
    pub lin: Lin,
    /// `Some` for a lane constraint `(mod LIN M R …)`; boxed (issue 13: few constraints are
    /// lane constraints, and a certificate's table holds hundreds of thousands of `Cstr`s).
    pub lane: Option<Box<Lane>>,
}

/// The residue part of a lane constraint: modulus `m ≥ 1` and residues `rs`, strictly
/// increasing in `[0, m)` (checked by the parser).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lane {
    /// The modulus.
    pub m: BigInt,
    /// The admitted residues.
    pub rs: Vec<BigInt>,
}

impl Cstr {
    /// `lin ≤ 0`.
    pub fn le(lin: Lin) -> Cstr {
        Cstr { eq: false, lin, lane: None }
    }
    /// `lin = 0`.
    pub fn equal(lin: Lin) -> Cstr {
        Cstr { eq: true, lin, lane: None }
    }
}

impl fmt::Display for Cstr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.lane {
            Some(l) => {
                let rs: Vec<String> = l.rs.iter().map(ToString::to_string).collect();
                write!(f, "{} mod {} in {{{}}}", self.lin, l.m, rs.join(", "))
            }
            None => write!(f, "{} {} 0", self.lin, if self.eq { "=" } else { "<=" }),
        }
    }
}

/// Why a Farkas witness fails (spec/certificate.md: a witness for `(le L)` needs `λ ≥ 0` on
/// `le` sources and `L − Σλ·L_I = μ ≤ 0`; for `(eq L)` only `eq` sources and residual 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FarkasProblem {
    /// The index is not below the source list's length.
    IndexOutOfRange(usize),
    /// A negative multiplier on an inequality.
    NegativeMultiplier(usize),
    /// An inequality used for an equality target.
    InequalityForEquality(usize),
    /// The residual still mentions variables.
    NotConstant(String),
    /// The residual is a constant that is too large (`> 0`, or `≠ 0` for `eq`).
    BadConstant(String),
    /// A lane constraint used as a source for a linear target.
    LaneSource(usize),
    /// A lane target needs exactly `(farkas (I 1))` with source `I` a lane constraint on
    /// the same form and modulus whose residues are among the target's.
    BadLaneWitness,
    /// A cut's combination (or an integer rewrite's floor form or shift) has a non-integer
    /// coefficient where the integer rounding needs an integer.
    NotIntegral(String),
    /// A log atom named by an integer rewrite (`ishift`, `izero`, `imono`), which has no
    /// defining facts (spec/certificate.md "Integer rewrites").
    LogAtom(String),
    /// An `imono` of two atoms with different units ([`atom_unit`]): a symbolic floor atom
    /// is compared only with a symbolic floor atom of the same divisor (spec/certificate.md
    /// "Integer rewrites").
    MixedDivisor(String, String),
}

impl fmt::Display for FarkasProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FarkasProblem::IndexOutOfRange(i) => write!(f, "index {i} out of range"),
            FarkasProblem::NegativeMultiplier(i) => {
                write!(f, "negative multiplier on inequality {i}")
            }
            FarkasProblem::InequalityForEquality(i) => {
                write!(f, "inequality {i} used for an equality")
            }
            FarkasProblem::NotConstant(r) => write!(f, "residual `{r}` is not constant"),
            FarkasProblem::BadConstant(r) => write!(f, "residual constant {r} is too large"),
            FarkasProblem::LaneSource(i) => write!(f, "constraint {i} is a lane constraint, not linear"),
            FarkasProblem::BadLaneWitness => {
                write!(f, "a lane target needs (farkas (I 1)) naming a lane constraint on the same form and modulus with fewer residues")
            }
            FarkasProblem::NotIntegral(r) => write!(f, "`{r}` has a non-integer coefficient"),
            FarkasProblem::LogAtom(a) => write!(f, "the log atom `{a}` has no integer rewrite"),
            FarkasProblem::MixedDivisor(a, b) => {
                write!(f, "imono of `{a}` and `{b}`: a symbolic floor atom needs another with the same divisor")
            }
        }
    }
}

/// Checks one Farkas witness that `source ⇒ target` (spec/certificate.md: linear targets
/// from linear sources only; a lane target from one lane source with the same form and
/// modulus and a subset of its residues).
pub fn check_farkas(source: &[Cstr], target: &Cstr, w: &[(usize, Rat)]) -> Result<(), FarkasProblem> {
    // An identity witness `(farkas (I 1))` whose source constraint equals the target (same
    // kind, form and lane set): every check below passes for it (λ = 1 ≥ 0, an equality
    // target from an equality, `L − 1·L = 0`; a lane target from the same lane constraint),
    // so it is accepted without building the combination.
    if let [(i, l)] = w {
        if l.is_one() && source.get(*i) == Some(target) {
            return Ok(());
        }
    }
    if let Some(tl) = &target.lane {
        let [(i, l)] = w else { return Err(FarkasProblem::BadLaneWitness) };
        let c = source.get(*i).ok_or(FarkasProblem::IndexOutOfRange(*i))?;
        return match &c.lane {
            Some(sl)
                if l.is_one() && c.lin == target.lin && sl.m == tl.m && sl.rs.iter().all(|r| tl.rs.contains(r)) =>
            {
                Ok(())
            }
            _ => Err(FarkasProblem::BadLaneWitness),
        };
    }
    let mut res = target.lin.clone();
    res.add_scaled_mut(&combination(source, w, target.eq)?, &-Rat::one());
    let mu = res.as_const().ok_or_else(|| FarkasProblem::NotConstant(res.to_string()))?;
    if (target.eq && !mu.is_zero()) || mu.is_positive() {
        return Err(FarkasProblem::BadConstant(fmt_rat(mu)));
    }
    Ok(())
}

/// `Σ λ_I·L_I` over the witness `w` of non-lane `source` constraints: `λ ≥ 0` on
/// inequalities (any sign on equalities); with `eq_only`, inequalities are refused (an
/// equality target follows from equalities only). Shared by Farkas and cut witnesses.
fn combination(source: &[Cstr], w: &[(usize, Rat)], eq_only: bool) -> Result<Lin, FarkasProblem> {
    let mut s = Lin::constant(Rat::zero());
    for (i, l) in w {
        let c = source.get(*i).ok_or(FarkasProblem::IndexOutOfRange(*i))?;
        if c.lane.is_some() {
            return Err(FarkasProblem::LaneSource(*i));
        }
        if !c.eq && l.is_negative() {
            return Err(FarkasProblem::NegativeMultiplier(*i));
        }
        if eq_only && !c.eq {
            return Err(FarkasProblem::InequalityForEquality(*i));
        }
        s.add_scaled_mut(&c.lin, l);
    }
    Ok(s)
}

/// Checks one Chvátal–Gomory cut (spec/certificate.md "Integer rewrites") and returns the
/// constraint it derives: `S = Σ λ_I·L_I` over `source` (`λ ≥ 0` on inequalities, any sign
/// on equalities, no lane constraint) satisfies `S ≤ 0`; its variable coefficients must be
/// integers, so, every variable being an integer, `S − b ≤ −b` rounds to
/// `S − b + ⌈b⌉ ≤ 0` (`b` the constant of `S`).
pub fn check_cut(source: &[Cstr], w: &[(usize, Rat)]) -> Result<Cstr, FarkasProblem> {
    let mut s = combination(source, w, false)?;
    if !s.terms.values().all(Rat::is_integer) {
        return Err(FarkasProblem::NotIntegral(s.to_string()));
    }
    s.c = s.c.ceil();
    Ok(Cstr::le(s))
}

/// The integer argument of an atom in an integer rewrite (spec/certificate.md "Integer
/// rewrites"): `max0(L)` ↦ `L`, no facts; `⌊L/d⌋⁺` (`L` with integer coefficients and
/// constant, `d ≥ 1`) ↦ the fresh integer variable `q` (named `name`) with its defining
/// facts `d·q − L ≤ 0` and `L − d·q − (d − 1) ≤ 0`, i.e. `q = ⌊L/d⌋`. The atom's value is
/// `max(0, arg)`. A symbolic floor atom `⌊L/D⌋⁺` (spec/logic.md §1 "Symbolic divisors")
/// ↦ `L`, no facts; its rewrites' targets are scaled by `D` ([`atom_unit`]). `Err` names a
/// non-integral floor form.
pub fn atom_arg(a: &Atom, name: &str) -> Result<(Lin, Vec<Cstr>), FarkasProblem> {
    match a {
        Atom::Max0(l) => Ok((l.clone(), Vec::new())),
        Atom::FloorSym(l, _) => {
            if !l.c.is_integer() || !l.terms.values().all(Rat::is_integer) {
                return Err(FarkasProblem::NotIntegral(a.to_string()));
            }
            Ok((l.clone(), Vec::new()))
        }
        Atom::Log(_) | Atom::LogQ(..) | Atom::Res(..) | Atom::Win(..) => Err(FarkasProblem::LogAtom(a.to_string())),
        Atom::Floor(l, d) => {
            if !l.c.is_integer() || !l.terms.values().all(Rat::is_integer) || !d.is_positive() {
                return Err(FarkasProblem::NotIntegral(a.to_string()));
            }
            let dq = Lin::var(name).scale(&Rat::from_integer(d.clone()));
            let lower = dq.add_scaled(l, &-Rat::one());
            let mut upper = l.add_scaled(&dq, &-Rat::one());
            upper.c = add(&upper.c, &-Rat::from_integer(d - BigInt::one()));
            Ok((Lin::var(name), vec![Cstr::le(lower), Cstr::le(upper)]))
        }
    }
}

/// The unit `U` of an atom's argument in the integer rewrites (spec/certificate.md "Integer
/// rewrites"): the divisor `D` of a symbolic floor atom (its argument `L` counts in
/// multiples of `D`), else the constant 1. The targets are `K·U − arg` (`ishift` by `K`),
/// `arg − (U − 1)` (`izero`) and, for two atoms with the same unit, `arg2 − arg1` (`imono`).
pub fn atom_unit(a: &Atom) -> Lin {
    match a {
        Atom::FloorSym(_, d) => d.clone(),
        _ => Lin::constant(Rat::one()),
    }
}

/// An atom of a potential (spec/logic.md §1, "Floor atoms"): `max0(L)`, or the floor atom
/// `⌊L/d⌋⁺ = max(0, ⌊L/d⌋)` for a positive integer `d` (value `max(0, ⌊L/d⌋)` over the
/// integers; `max(0, ⌊L/d⌋) = ⌊max(0, L)/d⌋`). Ordered `Max0` before `Floor`, then by form.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    /// `max0(L)`.
    Max0(Lin),
    /// `max(0, ⌊L/d⌋)`, `d ≥ 1`; canonical: `L` integer, `gcd(L's coefficients, d) = 1`,
    /// `d ≥ 2`.
    Floor(Lin, BigInt),
    /// The log atom `⌊log2 L⌋⁺ = ⌊log2 max(1, ⌊L⌋)⌋` (spec/logic.md §1 "Log atoms"; `L` may
    /// have rational coefficients; non-negative and monotone in `L`).
    Log(Lin),
    /// The quotient log atom `⌊log2 (L/M)⌋⁺ = ⌊log2 max(1, ⌊⌊L⌋ / max(1, ⌊M⌋)⌋)⌋`
    /// (spec/logic.md §1 "Quotient log atoms", certificate syntax `(log2q L M)`): the rounds
    /// of a doubling loop. Non-negative, monotone in `L`, antitone in `M`; with a constant
    /// `M` it is the log atom of `L / max(1, ⌊M⌋)` ([`Atom::canonical`]).
    LogQ(Lin, Lin),
    /// The residue atom `[m ∤ L]` (spec/logic.md §1 "Residue atoms", certificate syntax
    /// `(ndvd L m)`, issue 15): 0 when `m` divides the integer `L`, else 1. Non-negative,
    /// at most 1, not monotone in `L`; canonical: `L` not constant, `m ≥ 2`.
    Res(Lin, BigInt),
    /// The window atom `[L mod m < w]` (spec/logic.md §1 "Window atoms", certificate syntax
    /// `(inwin L m w)`, issue 15): 1 when the integer `L` lies in `[0, w)` modulo `m`, else
    /// 0. Non-negative, at most 1, not monotone in `L`; canonical: `L` not constant,
    /// `1 ≤ w < m`.
    Win(Lin, BigInt, BigInt),
    /// The symbolic floor atom `max(0, ⌊L/D⌋)` (spec/logic.md §1 "Symbolic divisors",
    /// certificate syntax `(floors L D)`, issue 14): `D` a launch form over `gridDim.x|y|z`
    /// with positive integer coefficients and an integer constant `≥ 0` ([`floors_wf`]), so
    /// `D ≥ 1` on every launch. Non-negative, monotone in `L`; canonical: the gcd of all
    /// coefficients and constants of `L` and `D` together is 1.
    FloorSym(Lin, Lin),
}

/// The grid dimensions a symbolic divisor may mention (spec/logic.md §1 "Symbolic
/// divisors").
pub const GRID_DIMS: [&str; 3] = ["gridDim.x", "gridDim.y", "gridDim.z"];

/// Well-formedness of a symbolic floor atom `⌊L/D⌋⁺` (spec/logic.md §1 "Symbolic
/// divisors"): `L` has integer coefficients and constant; `D` has at least one variable,
/// each a grid dimension ([`GRID_DIMS`]) with a positive integer coefficient, and an
/// integer constant `≥ 0`. `Err` says what was expected.
pub fn floors_wf(l: &Lin, d: &Lin) -> Result<(), &'static str> {
    if !l.c.is_integer() || !l.terms.values().all(Rat::is_integer) {
        return Err("a symbolic floor atom's form LIN with integer coefficients and constant");
    }
    if d.terms.is_empty() {
        return Err("a symbolic divisor DLIN that mentions a grid dimension (a constant divisor is (floor LIN C))");
    }
    if !d.terms.keys().all(|v| GRID_DIMS.contains(&v.as_str())) {
        return Err("a symbolic divisor DLIN over gridDim.x, gridDim.y and gridDim.z only");
    }
    if !d.terms.values().all(|a| a.is_integer() && a.is_positive()) {
        return Err("a symbolic divisor DLIN with positive integer coefficients");
    }
    if !d.c.is_integer() || d.c.is_negative() {
        return Err("a symbolic divisor DLIN with an integer constant ≥ 0");
    }
    Ok(())
}

/// The canonical form `(L', D')` of the symbolic floor atom `⌊L/D⌋⁺`: both multiplied by
/// the least common denominator of their coefficients and constants, then divided by the
/// gcd of all of them (`⌊kL/kD⌋ = ⌊L/D⌋` for `k > 0`).
pub fn floors_canonical(l: &Lin, d: &Lin) -> (Lin, Lin) {
    let all = || std::iter::once(&l.c).chain(l.terms.values()).chain(std::iter::once(&d.c)).chain(d.terms.values());
    let den = all().fold(BigInt::one(), |acc, a| acc.lcm(&a.denom()));
    let g = all().fold(BigInt::zero(), |acc, a| acc.gcd(&(a * Rat::from_integer(den.clone())).to_integer()));
    if den.is_one() && g.is_one() || g.is_zero() {
        return (l.clone(), d.clone());
    }
    let k = Rat::new(den, g);
    (l.scale(&k), d.scale(&k))
}

/// The value `[v mod m < w]` of a window atom whose form has the value `v` (`⌊v⌋` for a
/// non-integer `v`; `m ≥ 1`).
pub fn win_value(v: &Rat, m: &BigInt, w: &BigInt) -> BigInt {
    if &v.floor().to_integer().mod_floor(m) < w {
        BigInt::one()
    } else {
        BigInt::zero()
    }
}

/// The canonical form of the window atom `[l mod m < w]` (spec/logic.md §1 "Window
/// atoms"): `Err(v)` for a constant atom (`w ≤ 0`: 0; `w ≥ m`: 1; a constant form: its
/// value), else the atom as it is.
fn win_canonical(l: &Lin, m: &BigInt, w: &BigInt) -> Result<Atom, Rat> {
    if !w.is_positive() {
        return Err(Rat::zero());
    }
    if w >= m {
        return Err(Rat::one());
    }
    match l.as_const() {
        Some(c) => Err(Rat::from_integer(win_value(c, m, w))),
        None => Ok(Atom::Win(l.clone(), m.clone(), w.clone())),
    }
}

/// The value `[m ∤ v]` of a residue atom whose form has the value `v` (a non-integer `v`
/// is not divisible).
pub fn res_value(v: &Rat, m: &BigInt) -> BigInt {
    if v.is_integer() && v.to_integer().mod_floor(m).is_zero() {
        BigInt::zero()
    } else {
        BigInt::one()
    }
}

/// The canonical form of the residue atom `[m ∤ l]` (spec/logic.md §1 "Residue atoms"):
/// `Err(v)` for a constant atom (`m = 1`: 0; a constant form: its value), else the atom as
/// it is (its form is a normalized [`Lin`]).
fn res_canonical(l: &Lin, m: &BigInt) -> Result<Atom, Rat> {
    if m.is_one() {
        return Err(Rat::zero());
    }
    match l.as_const() {
        Some(c) => Err(Rat::from_integer(res_value(c, m))),
        None => Ok(Atom::Res(l.clone(), m.clone())),
    }
}

/// The value `⌊log2 max(1, ⌊⌊l⌋ / max(1, ⌊m⌋)⌋)⌋` of a quotient log atom whose forms have
/// the values `l`, `m`.
pub fn log2q_floor(l: &Rat, m: &Rat) -> BigInt {
    let d = m.floor().to_integer().max(BigInt::one());
    log2_floor(&Rat::from_integer(l.floor().to_integer().div_floor(&d)))
}

/// The value `⌊log2 max(1, ⌊v⌋)⌋` of a log atom whose form has the value `v`.
pub fn log2_floor(v: &Rat) -> BigInt {
    let z = v.floor().to_integer();
    if z <= BigInt::one() {
        BigInt::zero()
    } else {
        BigInt::from(z.bits() - 1)
    }
}

impl From<Lin> for Atom {
    fn from(l: Lin) -> Atom {
        Atom::Max0(l)
    }
}

impl Atom {
    /// The atom's (first) linear form `L`; a quotient log atom has a second one
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
    /// The atom with `f` applied to each of its forms (the divisor kept).
    pub fn map_lin(&self, f: impl Fn(&Lin) -> Lin) -> Atom {
        match self {
            Atom::Max0(l) => Atom::Max0(f(l)),
            Atom::Floor(l, d) => Atom::Floor(f(l), d.clone()),
            Atom::Log(l) => Atom::Log(f(l)),
            Atom::LogQ(l, m) => Atom::LogQ(f(l), f(m)),
            Atom::Res(l, m) => Atom::Res(f(l), m.clone()),
            Atom::Win(l, m, w) => Atom::Win(f(l), m.clone(), w.clone()),
            // the divisor D mentions grid dimensions only, never assigned
            Atom::FloorSym(l, d) => Atom::FloorSym(f(l), d.clone()),
        }
    }
    /// Canonical form: `Err(v)` when the atom is the constant `v`, else `Ok((f, A'))` with
    /// `self = f·A'` on every integer state, `f > 0`, `A'` canonical. A floor atom
    /// `⌊L/d⌋⁺` is multiplied through (`⌊kL/kd⌋ = ⌊L/d⌋` for `k > 0`) to an integer form
    /// and divisor with gcd 1 (`f = 1`); with divisor 1 it is `max0(L)` (`L` integer).
    pub fn canonical(&self) -> Result<(Rat, Atom), Rat> {
        let (l, d) = match self {
            Atom::Max0(l) => return l.canonical().map(|(f, l)| (f, Atom::Max0(l))),
            Atom::Floor(l, d) => (l, d),
            // a log atom keeps its form; a constant one is its value
            Atom::Log(l) => {
                return match l.as_const() {
                    Some(c) => Err(Rat::from_integer(log2_floor(c))),
                    None => Ok((Rat::one(), self.clone())),
                }
            }
            // a constant divisor form M: the log atom of L / max(1, ⌊M⌋)
            // (⌊⌊L⌋/m⌋ = ⌊L/m⌋ for an integer m ≥ 1)
            Atom::LogQ(l, m) => {
                return match m.as_const() {
                    Some(c) => {
                        let d = c.floor().to_integer().max(BigInt::one());
                        Atom::Log(l.scale(&Rat::new(BigInt::one(), d))).canonical()
                    }
                    None => Ok((Rat::one(), self.clone())),
                }
            }
            Atom::Res(l, m) => return res_canonical(l, m).map(|a| (Rat::one(), a)),
            Atom::Win(l, m, w) => return win_canonical(l, m, w).map(|a| (Rat::one(), a)),
            Atom::FloorSym(l, d) => {
                let (l, d) = floors_canonical(l, d);
                return Ok((Rat::one(), Atom::FloorSym(l, d)));
            }
        };
        let all = || std::iter::once(&l.c).chain(l.terms.values());
        let den = all().fold(BigInt::one(), |acc, a| acc.lcm(&a.denom()));
        let scaled = l.scale(&Rat::from_integer(den.clone()));
        let dd = d * &den;
        let g = std::iter::once(&scaled.c).chain(scaled.terms.values()).fold(dd.clone(), |acc, a| acc.gcd(&a.numer()));
        let (l2, d2) = (scaled.scale(&Rat::new(BigInt::one(), g.clone())), &dd / &g);
        if let Some(c) = l2.as_const() {
            let v = c.numer().div_floor(&d2);
            return Err(if v.is_positive() { Rat::from_integer(v) } else { Rat::zero() });
        }
        if d2.is_one() {
            return l2.canonical().map(|(f, l)| (f, Atom::Max0(l)));
        }
        Ok((Rat::one(), Atom::Floor(l2, d2)))
    }
    /// Whether `v` occurs in a form.
    pub fn mentions(&self, v: &str) -> bool {
        self.forms().iter().any(|l| l.mentions(v))
    }
    /// `A↓D` of `(ishift A D CG)` (spec/certificate.md "Integer rewrites"): `max0(L − D)`,
    /// resp. `⌊(L − d·D)/d⌋⁺` for a floor atom (`⌊L/d⌋ − D = ⌊(L − d·D)/d⌋` needs an
    /// integer `D`: `Err` otherwise), resp. `⌊(L − D·U)/U⌋⁺` for a symbolic floor atom with
    /// divisor `U` (integer `D` too).
    pub fn shifted(&self, d: &Rat) -> Result<Atom, FarkasProblem> {
        match self {
            Atom::Max0(l) => Ok(Atom::Max0(l.add_scaled(&Lin::constant(d.clone()), &-Rat::one()))),
            Atom::Floor(l, dv) if d.is_integer() => {
                let k = mul(d, &Rat::from_integer(dv.clone()));
                Ok(Atom::Floor(l.add_scaled(&Lin::constant(k), &-Rat::one()), dv.clone()))
            }
            Atom::FloorSym(l, u) if d.is_integer() => Ok(Atom::FloorSym(l.add_scaled(u, &-d.clone()), u.clone())),
            Atom::Floor(..) | Atom::FloorSym(..) => Err(FarkasProblem::NotIntegral(d.to_string())),
            Atom::Log(_) | Atom::LogQ(..) | Atom::Res(..) | Atom::Win(..) => {
                Err(FarkasProblem::LogAtom(self.to_string()))
            }
        }
    }
}

impl fmt::Display for Atom {
    /// `max(0, L)`, resp. `max(0, ⌊(L)/d⌋)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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

/// A polynomial `Σ c·Π A` over canonical atoms `A` ([`Atom`]): sorted atom multiset ↦
/// non-zero coefficient. The empty multiset is the constant term.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Poly {
    /// Terms.
    pub terms: SortedMap<Vec<Atom>, Rat>,
}

impl Poly {
    /// The zero polynomial.
    pub fn zero() -> Poly {
        Poly::default()
    }
    /// The constant `c`.
    pub fn constant(c: Rat) -> Poly {
        let mut p = Poly::zero();
        p.add_term(c, Vec::<Atom>::new());
        p
    }
    /// Adds `c·Π atoms` (a [`Lin`] is the atom `max0(L)`), canonicalizing each atom.
    pub fn add_term<A: Into<Atom>>(&mut self, mut c: Rat, atoms: Vec<A>) {
        let mut canon = Vec::with_capacity(atoms.len());
        for a in atoms {
            match a.into().canonical() {
                Ok((f, l)) => {
                    c = mul(&c, &f);
                    canon.push(l);
                }
                Err(v) => c = mul(&c, &v),
            }
        }
        if c.is_zero() {
            return;
        }
        canon.sort();
        match self.terms.get_mut(&canon) {
            Some(e) => {
                let sum = add(e, &c);
                if sum.is_zero() {
                    self.terms.remove(&canon);
                } else {
                    *e = sum;
                }
            }
            None => {
                self.terms.insert(canon, c);
            }
        }
    }
    /// `self + k·other`: the terms of both merged in one pass. The keys of a polynomial
    /// are sorted multisets of canonical atoms (every polynomial is built by
    /// [`Poly::add_term`] or is a subset of one), which [`Poly::add_term`] leaves as they
    /// are (factor 1): the result is that of `add_term(c·k, atoms)` for each term of
    /// `other` (coefficients summed, zero sums dropped), without re-canonicalizing.
    pub fn add_scaled(&self, other: &Poly, k: &Rat) -> Poly {
        Poly { terms: self.terms.merged(&other.terms, |a, b| non_zero(add(a, &mul(b, k))), |b| non_zero(mul(b, k))) }
    }
    /// `self + c`.
    pub fn plus_const(&self, c: &Rat) -> Poly {
        self.add_scaled(&Poly::constant(c.clone()), &Rat::one())
    }
    /// `self · other`.
    pub fn mul(&self, other: &Poly) -> Poly {
        let mut r = Poly::zero();
        for (a1, c1) in &self.terms {
            for (a2, c2) in &other.terms {
                r.add_term(c1 * c2, a1.iter().chain(a2).cloned().collect());
            }
        }
        r
    }
    /// Applies `f` to every atom's linear form (a floor atom keeps its divisor) and
    /// re-normalizes.
    pub fn map_atoms(&self, f: impl Fn(&Lin) -> Lin) -> Poly {
        let mut r = Poly::zero();
        for (atoms, c) in &self.terms {
            r.add_term(c.clone(), atoms.iter().map(|a| a.map_lin(&f)).collect());
        }
        r
    }
    /// Applies `f` to every atom and re-normalizes.
    pub fn map_atom_kinds(&self, f: impl Fn(&Atom) -> Atom) -> Poly {
        let mut r = Poly::zero();
        for (atoms, c) in &self.terms {
            r.add_term(c.clone(), atoms.iter().map(&f).collect());
        }
        r
    }
    /// Variables mentioned by some atom.
    pub fn vars(&self) -> Vec<&String> {
        let mut v: Vec<&String> =
            self.terms.keys().flatten().flat_map(|a| a.forms().into_iter().flat_map(|l| l.terms.keys())).collect();
        v.sort();
        v.dedup();
        v
    }
    /// The terms none of whose atoms mentions a name of `vs` (`Q'↾W` of spec/logic.md §4).
    pub fn without_vars(&self, vs: &[String]) -> Poly {
        let mut r = self.clone();
        r.terms.retain(|atoms, _| !atoms.iter().any(|a| vs.iter().any(|v| a.mentions(v))));
        r
    }
    /// Whether `v` occurs in some atom.
    pub fn mentions(&self, v: &str) -> bool {
        self.terms.keys().flatten().any(|a| a.mentions(v))
    }
    /// Whether no atom's form has a positive coefficient of `v` (each atom falls or stays
    /// as `v` rises); a quotient log atom's divisor form `M` must not mention `v`.
    pub fn atoms_nonrising(&self, v: &str) -> bool {
        self.terms.keys().flatten().all(|a| {
            a.lin().terms.get(v).is_none_or(|k| !k.is_positive())
                && !matches!(a, Atom::LogQ(_, m) | Atom::FloorSym(_, m) if m.mentions(v))
                && !matches!(a, Atom::Res(..) | Atom::Win(..) if a.mentions(v))
        })
    }
    /// The first term with a negative coefficient, printed, if any.
    pub fn negative_term(&self) -> Option<String> {
        self.terms.iter().find(|(_, c)| c.is_negative()).map(|(a, c)| fmt_term(c, a))
    }
    /// Replaces every occurrence of the canonical atom `atom` by the polynomial `by`.
    /// The terms' contributions are summed per atom multiset at the end (zero sums
    /// dropped), not by one [`Poly::add_scaled`] per term (quadratic in the terms).
    pub fn replace_atom(&self, atom: &Atom, by: &Poly) -> Poly {
        let mut parts: Vec<(Vec<Atom>, Rat)> = Vec::with_capacity(self.terms.len());
        for (atoms, c) in &self.terms {
            let rest: Vec<Atom> = atoms.iter().filter(|a| *a != atom).cloned().collect();
            if rest.len() == atoms.len() {
                // the term itself (`add_term` leaves a canonical key as it is)
                parts.push((rest, c.clone()));
                continue;
            }
            let mut t = Poly::zero();
            t.add_term(c.clone(), rest.clone());
            for _ in rest.len()..atoms.len() {
                t = t.mul(by);
            }
            parts.extend(t.terms);
        }
        Poly { terms: SortedMap::combined(parts, add, |c| !c.is_zero()) }
    }
}

fn fmt_term(c: &Rat, atoms: &[Atom]) -> String {
    let mut s = String::new();
    let one = c.is_one() && !atoms.is_empty();
    if !one {
        s.push_str(&fmt_rat(c));
    }
    for (i, a) in atoms.iter().enumerate() {
        if !one || i > 0 {
            s.push('*');
        }
        s.push_str(&a.to_string());
    }
    s
}

impl fmt::Display for Poly {
    /// Human grammar: `3 + 14*max(0, h + 1)`; the zero polynomial prints `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        for (i, (atoms, c)) in self.terms.iter().enumerate() {
            if i > 0 {
                if c.is_negative() {
                    f.write_str(" - ")?;
                    f.write_str(&fmt_term(&-c.clone(), atoms))?;
                    continue;
                }
                f.write_str(" + ")?;
            }
            f.write_str(&fmt_term(c, atoms))?;
        }
        Ok(())
    }
}

/// The kind of a dependence entry (spec/logic.md §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    /// `(dep x k r g)`: `σ(x, t) = k·tid(t) + c` with `c ≡ r (mod g)`.
    Linear,
    /// `(rem x k r m)` (`m` stored in `g ≥ 1`): `σ(x, t) ≡ k·tid(t) + r (mod m)`, `|σ(x, t)| < m`.
    Rem,
    /// `(rng x w)` (`w` stored in `g ≥ 0`, `k = 0`, `r = 0`): `c ≤ σ(x, t) ≤ c + w` for one `c`.
    Rng,
    /// `(wrap x k m)` (`m` stored in `g ≥ 1`, `r = 0`), a *wrapped* entry (issue 15):
    /// `σ(x, t) = (k·tid(t) + c) rem m` (C's truncating remainder) for one integer `c`
    /// shared by the active threads.
    Wrap,
    /// `(dep x kx ? kz r g)`, a *scaled* entry: the dimensions `d` with `u(d)` have an
    /// unknown coefficient (printed `?`, stored `k_d = 0`): `σ(x, t) = Σ_{¬u(d)} k_d·tid_d(t)
    /// + Σ_{u(d)} u_d·tid_d(t) + c` with integers `u_d` and `c ≡ r (mod g)` shared by the
    /// active threads. At least one `u(d)` holds.
    Scaled([bool; 3]),
}

/// A dependence map `D` (spec/logic.md §1): one [`Dep`] per local, sorted by name. A
/// sorted vector, not a `BTreeMap`: a certificate's table defines one `D` per statement,
/// each of a few entries, and a `BTreeMap` allocates a node of eleven (issue 13).
pub type DepMap = crate::sorted::SortedMap<String, Dep>;

/// A thread-dependence entry (spec/logic.md §1), normalized: for a linear entry `g ≥ 0`
/// and `0 ≤ r < g` when `g > 0`. The arithmetic below (`add`, `scale`, `mul_uniform`) is
/// for linear entries only; callers never pass another kind
/// ([`crate::rules::Ctx::dep_opd`] reads them as `⊤`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dep {
    /// Coefficients of `threadIdx.x/y/z`.
    pub k: [BigInt; 3],
    /// Residue.
    pub r: BigInt,
    /// Modulus (0: exact); the modulus `m` of a remainder entry; the width of a range entry.
    pub g: BigInt,
    /// The kind.
    pub kind: EntryKind,
    /// The multiplier `(? P A B)` of a scaled entry with exactly one `?` dimension `d`
    /// (spec/logic.md §1 "Row multipliers", issue 15): `u_d = A·P + B` for the parameter
    /// `P`; `None` for every other entry, and for a scaled entry that forgot it.
    pub mul: Option<Mul>,
}

/// A row multiplier `A·P + B` (parameter `P`, integers `A`, `B`) of a scaled entry's one
/// `?` dimension (spec/logic.md §1 "Row multipliers").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mul {
    /// The parameter `P`.
    pub param: String,
    /// The coefficient `A` of `P`.
    pub a: BigInt,
    /// The constant `B`.
    pub b: BigInt,
}

impl Mul {
    /// The linear form `A·P + B` over the parameter.
    pub fn lin(&self) -> Lin {
        let mut l = Lin::constant(Rat::from_integer(self.b.clone()));
        l.add_term(&self.param, &Rat::from_integer(self.a.clone()));
        l
    }
}

impl Dep {
    /// The linear entry `(k, r, g)`, normalized: `g` to `|g|` and `r` to `r mod g`.
    pub fn norm(k: [BigInt; 3], r: BigInt, g: BigInt) -> Dep {
        let g = g.abs();
        let r = if g.is_zero() { r } else { r.mod_floor(&g) };
        Dep { k, r, g, kind: EntryKind::Linear, mul: None }
    }
    /// The remainder entry `(rem k (r mod m) m)`, `m ≥ 1`.
    pub fn remainder(k: [BigInt; 3], r: &BigInt, m: BigInt) -> Dep {
        Dep { k, r: r.mod_floor(&m), g: m, kind: EntryKind::Rem, mul: None }
    }
    /// The wrapped entry `(wrap k m)`, `m ≥ 1` (issue 15: `(k·tid + c) % m`).
    pub fn wrap(k: [BigInt; 3], m: BigInt) -> Dep {
        Dep { k, r: BigInt::zero(), g: m, kind: EntryKind::Wrap, mul: None }
    }
    /// The range entry `(rng w)`, `w ≥ 0`.
    pub fn range(w: BigInt) -> Dep {
        Dep { k: Default::default(), r: BigInt::zero(), g: w, kind: EntryKind::Rng, mul: None }
    }
    /// The width of the window a range entry (`w`), a wrapped or a remainder entry (`2m − 2`:
    /// their values lie in `[1 − m, m − 1]`) confines its local's values to.
    pub fn window(&self) -> Option<BigInt> {
        match self.kind {
            EntryKind::Rng => Some(self.g.clone()),
            EntryKind::Wrap | EntryKind::Rem => Some(&self.g * 2 - 2),
            _ => None,
        }
    }
    /// Whether this is a linear entry.
    pub fn linear(&self) -> bool {
        self.kind == EntryKind::Linear
    }
    /// The `?` dimensions of a scaled entry (none for any other kind).
    pub fn unknown_dims(&self) -> [bool; 3] {
        match self.kind {
            EntryKind::Scaled(u) => u,
            _ => [false; 3],
        }
    }
    /// The linear entry `(k, r, g)` (normalized) with the dimensions of `u` made `?`
    /// (their `k_d` set to 0): a scaled entry when some `u[d]` holds, else linear.
    pub fn with_unknown(k: [BigInt; 3], u: [bool; 3], r: BigInt, g: BigInt) -> Dep {
        let mut k = k;
        for (kd, ud) in k.iter_mut().zip(u) {
            if ud {
                *kd = BigInt::zero();
            }
        }
        let mut d = Dep::norm(k, r, g);
        if u.iter().any(|b| *b) {
            d.kind = EntryKind::Scaled(u);
        }
        d
    }
    /// The exact constant `(0, c, 0)`.
    pub fn exact(c: BigInt) -> Dep {
        Dep::norm(Default::default(), c, BigInt::zero())
    }
    /// Uniform with no information: `(0, 0, 1)`.
    pub fn unknown_uniform() -> Dep {
        Dep::norm(Default::default(), BigInt::zero(), BigInt::one())
    }
    /// A linear entry with `k = 0` (a remainder or range entry is never uniform).
    pub fn uniform(&self) -> bool {
        self.linear() && self.k.iter().all(Zero::is_zero)
    }
    /// `Some(c)` if this is `(0, c, 0)`.
    pub fn as_exact(&self) -> Option<&BigInt> {
        (self.uniform() && self.g.is_zero()).then_some(&self.r)
    }
    /// Componentwise `self + s·other` (congruences added).
    pub fn add(&self, other: &Dep, s: i64) -> Dep {
        let s = BigInt::from(s);
        let [a0, a1, a2] = &self.k;
        let [b0, b1, b2] = &other.k;
        let k = [a0 + &s * b0, a1 + &s * b1, a2 + &s * b2];
        Dep::norm(k, &self.r + &s * &other.r, self.g.gcd(&other.g))
    }
    /// Scaled by the integer `c`.
    pub fn scale(&self, c: &BigInt) -> Dep {
        Dep::norm(self.k.clone().map(|k| k * c), &self.r * c, &self.g * c)
    }
    /// Product of two uniform entries: `(0, r1·r2, gcd(g1·g2, r1·g2, r2·g1))`.
    pub fn mul_uniform(&self, o: &Dep) -> Dep {
        let g = (&self.g * &o.g).gcd(&(&self.r * &o.g)).gcd(&(&o.r * &self.g));
        Dep::norm(Default::default(), &self.r * &o.r, g)
    }
    /// `self` implies `other` (same kind and `k`; linear and scaled (same `?` dimensions):
    /// `g2 | g1` and `r1 ≡ r2 (mod g2)`, `g2 = 0`: equal; remainder and wrapped: equal; range: `w1 ≤ w2`).
    pub fn implies(&self, other: &Dep) -> bool {
        if self.k != other.k || self.kind != other.kind {
            return false;
        }
        match self.kind {
            EntryKind::Rem | EntryKind::Wrap => return self == other,
            EntryKind::Rng => return self.g <= other.g,
            EntryKind::Linear | EntryKind::Scaled(_) => {}
        }
        // a multiplier is information: kept or forgotten, never invented or changed
        if other.mul.is_some() && self.mul != other.mul {
            return false;
        }
        if other.g.is_zero() {
            return self.g.is_zero() && self.r == other.r;
        }
        self.g.is_multiple_of(&other.g) && (&self.r - &other.r).is_multiple_of(&other.g)
    }
}

impl fmt::Display for Dep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            EntryKind::Rng => write!(f, "(rng {})", self.g),
            EntryKind::Rem => write!(f, "(rem {} {} {} {} {})", self.k[0], self.k[1], self.k[2], self.r, self.g),
            EntryKind::Wrap => write!(f, "(wrap {} {} {} {})", self.k[0], self.k[1], self.k[2], self.g),
            EntryKind::Linear => write!(f, "({} {} {} {} {})", self.k[0], self.k[1], self.k[2], self.r, self.g),
            EntryKind::Scaled(u) => {
                let q = match &self.mul {
                    Some(m) => format!("(? {} {} {})", m.param, m.a, m.b),
                    None => "?".to_string(),
                };
                let k: Vec<String> =
                    self.k.iter().zip(u).map(|(k, u)| if u { q.clone() } else { k.to_string() }).collect();
                write!(f, "({} {} {})", k.join(" "), self.r, self.g)
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use quickcheck::{Gen, QuickCheck};

    /// The former `Lin::add_scaled`: one [`Lin::add_term`] per term of `other`.
    fn lin_add_scaled_ref(a: &Lin, b: &Lin, k: &Rat) -> Lin {
        let mut r = a.clone();
        r.c = add(&r.c, &mul(&b.c, k));
        for (v, x) in &b.terms {
            r.add_term(v, &mul(x, k));
        }
        r
    }

    /// The former `Poly::add_scaled`: one [`Poly::add_term`] per term of `other`.
    fn poly_add_scaled_ref(a: &Poly, b: &Poly, k: &Rat) -> Poly {
        let mut r = a.clone();
        for (atoms, c) in &b.terms {
            r.add_term(mul(c, k), atoms.clone());
        }
        r
    }

    /// The former `Poly::replace_atom`: one `add_scaled` per term.
    fn replace_atom_ref(p: &Poly, atom: &Atom, by: &Poly) -> Poly {
        let mut r = Poly::zero();
        for (atoms, c) in &p.terms {
            let rest: Vec<Atom> = atoms.iter().filter(|a| *a != atom).cloned().collect();
            let mut t = Poly::zero();
            t.add_term(c.clone(), rest.clone());
            for _ in rest.len()..atoms.len() {
                t = t.mul(by);
            }
            r = poly_add_scaled_ref(&r, &t, &Rat::one());
        }
        r
    }

    fn small(g: &mut Gen) -> i64 {
        i64::from(<i8 as quickcheck::Arbitrary>::arbitrary(g) % 4)
    }

    /// A form over `x`, `y`, `z` with small (possibly zero, possibly halved) coefficients.
    fn lin(g: &mut Gen) -> Lin {
        let mut l = Lin::constant(Rat::new(small(g).into(), (1 + small(g).abs() % 2).into()));
        for v in ["x", "y", "z"] {
            l.add_term(v, &rat(small(g)));
        }
        l
    }

    /// An atom of each kind, over [`lin`].
    fn atom(g: &mut Gen) -> Atom {
        match small(g).rem_euclid(5) {
            0 => Atom::Max0(lin(g)),
            1 => Atom::Floor(lin(g), BigInt::from(1 + small(g).abs())),
            2 => Atom::Log(lin(g)),
            3 => Atom::LogQ(lin(g), lin(g)),
            _ => Atom::Res(lin(g), BigInt::from(1 + small(g).abs())),
        }
    }

    /// A polynomial of up to four terms of degree up to two, built by `add_term`.
    fn poly(g: &mut Gen) -> Poly {
        let mut p = Poly::zero();
        for _ in 0..small(g).abs() + 1 {
            let atoms: Vec<Atom> = (0..small(g).abs() % 3).map(|_| atom(g)).collect();
            p.add_term(rat(small(g)), atoms);
        }
        p
    }

    /// The one-pass `add_scaled` of forms and polynomials and the summed `replace_atom`
    /// give exactly the values of the former term-by-term versions (the reference).
    #[test]
    fn merges_agree_with_term_by_term() {
        fn prop(seed: u64) -> bool {
            let mut g = Gen::new(seed as usize % 30 + 4);
            let k = Rat::new(small(&mut g).into(), (1 + small(&mut g).abs()).into());
            let (l1, l2) = (lin(&mut g), lin(&mut g));
            let (p1, p2) = (poly(&mut g), poly(&mut g));
            let same_lin = l1.add_scaled(&l2, &k) == lin_add_scaled_ref(&l1, &l2, &k);
            let same_poly = p1.add_scaled(&p2, &k) == poly_add_scaled_ref(&p1, &p2, &k)
                && p1.add_scaled(&p1, &-Rat::one()) == Poly::zero();
            // an atom of p1 (when it has one) replaced by p2
            let first = p1.terms.keys().flatten().next().cloned();
            let same_replace = first.is_none_or(|a| p1.replace_atom(&a, &p2) == replace_atom_ref(&p1, &a, &p2));
            same_lin && same_poly && same_replace
        }
        QuickCheck::new().tests(500).quickcheck(prop as fn(u64) -> bool);
    }
}
