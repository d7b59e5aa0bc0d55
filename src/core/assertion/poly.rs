//! Potentials: polynomials over `max0(linear)` atoms (`spec/logic.md` §1, `Q`; RaCUDA §7,
//! note §8.4 base functions `⟦x, y⟧ = max(0, y − x)` and their products).
//!
//! Canonical atoms: the linear form of an atom is scaled by a positive rational so that all
//! its coefficients, the constant included, are coprime integers; the positive factor moves
//! into the term coefficient (`max0(2h + 2) = 2·max0(h + 1)`). Constant atoms evaluate to
//! numbers. A monomial is the sorted list of its canonical atoms (repetitions = powers).
//! Coefficients are generic ([`Coef`]): exact rationals ([`Poly`]) or linear expressions
//! over LP variables (`crate::analysis::tpoly::TPoly`, templates of the inference).

use super::linear::{fmt_q, q_add, q_mul, Lin};
use crate::core::metric::Q;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::btree_map::Entry;
use std::collections::BTreeMap;

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

/// The value of `max0(L)`: a non-negative constant or a positive multiple of a canonical atom.
#[derive(Clone, Debug, PartialEq)]
pub enum AtomVal {
    /// `L` is constant: `max(0, c)`.
    Const(Q),
    /// `factor · max0(atom)` with `atom` canonical and `factor > 0`.
    Scaled(Q, Lin),
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
pub type Mono = Vec<Lin>;

/// A polynomial `Σ c_m · Π_{a ∈ m} max0(a)` with coefficients of type `C`, normalized
/// (canonical atoms, sorted monomials, no zero coefficients).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PolyT<C> {
    /// Coefficient of each monomial.
    pub terms: BTreeMap<Mono, C>,
}

/// Potentials with rational coefficients (certificates, bounds).
pub type Poly = PolyT<Q>;

impl<C: Coef> PolyT<C> {
    /// The zero polynomial.
    pub fn zero() -> Self {
        PolyT {
            terms: BTreeMap::new(),
        }
    }
    /// The constant `k`.
    pub fn constant(k: &Q) -> Self {
        let mut p = Self::zero();
        p.add_term(Vec::new(), C::from_q(k));
        p
    }
    /// Adds `c · Π max0(a)` for arbitrary (not necessarily canonical) atoms `atoms`.
    pub fn add_raw_term(&mut self, atoms: &[Lin], c: C) {
        let mut factor = Q::one();
        let mut mono = Vec::new();
        for a in atoms {
            match canon_atom(a) {
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
        match self.terms.entry(m) {
            Entry::Occupied(mut e) => {
                e.get_mut().add_assign_c(&c);
                if e.get().is_zero_c() {
                    e.remove();
                }
            }
            Entry::Vacant(e) => {
                let mut z = C::czero();
                z.add_assign_c(&c);
                if !z.is_zero_c() {
                    e.insert(z);
                }
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
        let mut out = Self::zero();
        for (m, c) in &self.terms {
            let atoms: Vec<Lin> = m.iter().map(|a| a.subst(v, e)).collect();
            out.add_raw_term(&atoms, c.clone());
        }
        out
    }
    /// Whether some atom mentions `v`.
    pub fn mentions(&self, v: &str) -> bool {
        self.terms.keys().any(|m| m.iter().any(|a| a.mentions(v)))
    }
    /// Replaces every occurrence of the canonical atom `atom` by `Σ (k_i · b_i)` where each
    /// `b_i` is `None` (the constant 1) or an arbitrary atom, expanding products.
    pub fn replace_atom(&self, atom: &Lin, by: &[(Q, Option<Lin>)]) -> Self {
        let mut out = Self::zero();
        for (m, c) in &self.terms {
            // partial products: (coefficient factor, raw atoms)
            let mut parts: Vec<(Q, Vec<Lin>)> = vec![(Q::one(), Vec::new())];
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
    /// The shift rewrite `max0(L) = max0(L − d) + d` (valid when `L ≥ d ≥ 0`).
    pub fn shift(&self, atom: &Lin, d: &Q) -> Self {
        self.replace_atom(
            atom,
            &[
                (Q::one(), Some(atom.plus_const(&-d.clone()))),
                (d.clone(), None),
            ],
        )
    }
    /// The monotone rewrite `max0(L) ≥ max0(L2)` (valid when `L2 ≤ L`): every occurrence of
    /// the canonical atom of `L` is replaced by the matching multiple of `max0(L2)`
    /// (`L`, `L2` arbitrary forms). Lowers a potential with non-negative coefficients.
    pub fn mono(&self, l: &Lin, l2: &Lin) -> Self {
        match canon_atom(l) {
            AtomVal::Scaled(f, atom) => {
                self.replace_atom(&atom, &[(Q::one() / f, Some(l2.clone()))])
            }
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
                self.replace_atom(&atom, &[(k.clone(), Some(l.sub(d))), (k, Some(d.clone()))])
            }
            AtomVal::Const(_) => self.clone(),
        }
    }
    /// The zero rewrite `max0(L) = 0` (valid when `L ≤ 0`).
    pub fn zero_atom(&self, atom: &Lin) -> Self {
        self.replace_atom(atom, &[])
    }
    /// Degree (largest monomial length; 0 for constants and the zero polynomial).
    pub fn degree(&self) -> usize {
        self.terms.keys().map(|m| m.len()).max().unwrap_or(0)
    }
}

impl Poly {
    /// Value at `env` (variables missing from `env` count as 0): `Σ c · Π max(0, L(env))`.
    pub fn eval(&self, env: &BTreeMap<String, i64>) -> Q {
        let mut s = Q::zero();
        for (m, c) in &self.terms {
            let mut t = c.clone();
            for a in m {
                let v = a.eval(env);
                t *= if v.is_positive() { v } else { Q::zero() };
            }
            s += t;
        }
        s
    }
    /// The bound in the grammar `integers, p/q, identifiers, + - *, parentheses, max(a, b)`:
    /// constant first, then monomials in canonical order, e.g. `4 + 10*max(0, h + 1)`.
    /// The zero polynomial prints as `0`.
    pub fn to_bound_string(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (m, c) in &self.terms {
            let atoms: Vec<String> = m.iter().map(|a| format!("max(0, {a})")).collect();
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
