//! Multivariate polynomials with exact rational coefficients, and closed forms of sums
//! (Faulhaber). Used for index normal forms (`spec/relational.md` §4) and for the
//! sequential cost analysis (§6): `Σ_{x=lo}^{hi} f(x)` for polynomial `f`, `lo`, `hi`.
//!
//! Atoms are named symbols (`w`, `threadIdx.x`, a loop variable, or an opaque sub-term such
//! as `⌊(h + -1)/2⌋`); a monomial maps atoms to positive exponents.

use crate::core::metric::{q, Q};
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::BTreeMap;
use std::fmt;

/// A monomial: atom ↦ exponent (≥ 1). The empty monomial is the constant 1.
pub type Monomial = BTreeMap<String, u32>;

/// A polynomial `Σ c_m · m` with non-zero rational coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Poly {
    /// Monomial ↦ coefficient (never zero).
    pub terms: BTreeMap<Monomial, Q>,
}

impl Poly {
    /// The zero polynomial.
    pub fn zero() -> Poly {
        Poly::default()
    }
    /// The constant `c`.
    pub fn constant(c: Q) -> Poly {
        let mut p = Poly::zero();
        if !c.is_zero() {
            p.terms.insert(Monomial::new(), c);
        }
        p
    }
    /// The integer constant `n`.
    pub fn int(n: i64) -> Poly {
        Poly::constant(q(n))
    }
    /// The atom `name`.
    pub fn atom(name: &str) -> Poly {
        let mut m = Monomial::new();
        m.insert(name.to_string(), 1);
        let mut p = Poly::zero();
        p.terms.insert(m, Q::one());
        p
    }
    /// Whether this is the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }
    /// The value if the polynomial is constant.
    pub fn as_const(&self) -> Option<Q> {
        match self.terms.len() {
            0 => Some(Q::zero()),
            1 => self
                .terms
                .get(&Monomial::new())
                .cloned()
                .filter(|_| self.terms.len() == 1),
            _ => None,
        }
    }
    /// The value if the polynomial is an integer constant.
    pub fn as_int(&self) -> Option<i64> {
        self.as_const()
            .filter(|c| c.is_integer())
            .and_then(|c| c.to_integer().to_i64())
    }
    /// Atoms occurring in the polynomial.
    pub fn atoms(&self) -> Vec<String> {
        let mut v: Vec<String> = self.terms.keys().flat_map(|m| m.keys().cloned()).collect();
        v.sort();
        v.dedup();
        v
    }
    /// Whether atom `a` occurs.
    pub fn mentions(&self, a: &str) -> bool {
        self.terms.keys().any(|m| m.contains_key(a))
    }
    /// Whether the variable `x` occurs inside an opaque atom (`⌊(-i + m - 1)/(s2)⌋` mentions
    /// `i`), where substitution and summation cannot reach it.
    pub fn mentions_inside(&self, x: &str) -> bool {
        let ident = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '#');
        self.terms
            .keys()
            .flat_map(|m| m.keys())
            .filter(|a| a.as_str() != x)
            .any(|a| a.split(|c: char| !ident(c)).any(|t| t == x))
    }
    fn add_term(&mut self, m: Monomial, c: Q) {
        if c.is_zero() {
            return;
        }
        let e = self.terms.entry(m.clone()).or_insert_with(Q::zero);
        *e += c;
        if e.is_zero() {
            self.terms.remove(&m);
        }
    }
    /// `self + o`.
    pub fn add(&self, o: &Poly) -> Poly {
        let mut r = self.clone();
        for (m, c) in &o.terms {
            r.add_term(m.clone(), c.clone());
        }
        r
    }
    /// `self − o`.
    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.scale(&-Q::one()))
    }
    /// `c · self`.
    pub fn scale(&self, c: &Q) -> Poly {
        let mut r = Poly::zero();
        for (m, d) in &self.terms {
            r.add_term(m.clone(), d * c);
        }
        r
    }
    /// `self · o`.
    pub fn mul(&self, o: &Poly) -> Poly {
        let mut r = Poly::zero();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &o.terms {
                let mut m = m1.clone();
                for (a, e) in m2 {
                    *m.entry(a.clone()).or_insert(0) += e;
                }
                r.add_term(m, c1 * c2);
            }
        }
        r
    }
    /// `self^k`.
    pub fn pow(&self, k: u32) -> Poly {
        let mut r = Poly::int(1);
        for _ in 0..k {
            r = r.mul(self);
        }
        r
    }
    /// Replaces atom `a` by `by`.
    pub fn subst(&self, a: &str, by: &Poly) -> Poly {
        let mut r = Poly::zero();
        for (m, c) in &self.terms {
            let mut rest = m.clone();
            let e = rest.remove(a).unwrap_or(0);
            let mut t = Poly::zero();
            t.add_term(rest, c.clone());
            r = r.add(&t.mul(&by.pow(e)));
        }
        r
    }
    /// Evaluates with `val` for atoms; `None` if an atom has no value.
    pub fn eval(&self, val: &dyn Fn(&str) -> Option<Q>) -> Option<Q> {
        let mut s = Q::zero();
        for (m, c) in &self.terms {
            let mut t = c.clone();
            for (a, e) in m {
                let v = val(a)?;
                for _ in 0..*e {
                    t *= &v;
                }
            }
            s += t;
        }
        Some(s)
    }
    /// Coefficients by power of atom `x`: `self = Σ_k c_k · x^k` with `c_k` free of `x`.
    pub fn by_power(&self, x: &str) -> BTreeMap<u32, Poly> {
        let mut out: BTreeMap<u32, Poly> = BTreeMap::new();
        for (m, c) in &self.terms {
            let mut rest = m.clone();
            let e = rest.remove(x).unwrap_or(0);
            out.entry(e).or_default().add_term(rest, c.clone());
        }
        out
    }
    /// Whether every coefficient is non-negative.
    pub fn nonneg_coeffs(&self) -> bool {
        self.terms.values().all(|c| !c.is_negative())
    }
}

fn fmt_q(c: &Q) -> String {
    if c.is_integer() {
        c.to_integer().to_string()
    } else {
        format!("{}/{}", c.numer(), c.denom())
    }
}

impl fmt::Display for Poly {
    /// Highest total degree first, e.g. `1/2*W^2 + 1/2*W`, `66*w`, `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        let mut ts: Vec<(&Monomial, &Q)> = self.terms.iter().collect();
        ts.sort_by(|a, b| {
            let da: u32 = a.0.values().sum();
            let db: u32 = b.0.values().sum();
            db.cmp(&da).then(a.0.cmp(b.0))
        });
        for (i, (m, c)) in ts.iter().enumerate() {
            let neg = c.is_negative();
            let a = c.abs();
            if i > 0 {
                f.write_str(if neg { " - " } else { " + " })?;
            } else if neg {
                f.write_str("-")?;
            }
            let mut parts: Vec<String> = Vec::new();
            if !a.is_one() || m.is_empty() {
                parts.push(fmt_q(&a));
            }
            for (x, e) in m.iter() {
                if *e == 1 {
                    parts.push(x.clone());
                } else {
                    parts.push(format!("{x}^{e}"));
                }
            }
            f.write_str(&parts.join("*"))?;
        }
        Ok(())
    }
}

/// `F_k(n) = Σ_{x=0}^{n} x^k` as a polynomial in the atom `n` (Faulhaber's formula; computed
/// exactly by Lagrange interpolation through the `k + 2` points `n = 0 … k + 1`).
pub fn faulhaber(k: u32, n: &str) -> Poly {
    let pts: Vec<(i64, Q)> = (0..=(k as i64 + 1))
        .map(|m| {
            let s: Q = (0..=m)
                .map(|x| q(x).pow(k as i32))
                .fold(Q::zero(), |a, b| a + b);
            (m, s)
        })
        .collect();
    let mut out = Poly::zero();
    for (i, (xi, yi)) in pts.iter().enumerate() {
        let mut basis = Poly::constant(yi.clone());
        for (j, (xj, _)) in pts.iter().enumerate() {
            if i != j {
                let lin = Poly::atom(n).sub(&Poly::int(*xj));
                basis = basis.mul(&lin).scale(&(Q::one() / q(xi - xj)));
            }
        }
        out = out.add(&basis);
    }
    out
}

/// `Σ_{x=lo}^{hi} body` in closed form, valid whenever `hi ≥ lo − 1` (an empty range gives 0
/// exactly at `hi = lo − 1`); `x` must not occur in `lo` or `hi`.
pub fn sum(body: &Poly, x: &str, lo: &Poly, hi: &Poly) -> Poly {
    let mut out = Poly::zero();
    for (k, c) in body.by_power(x) {
        let f = faulhaber(k, "§n");
        let upper = f.subst("§n", hi);
        let lower = f.subst("§n", &lo.sub(&Poly::int(1)));
        out = out.add(&c.mul(&upper.sub(&lower)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Faulhaber: Σ_{0}^{n} x = n(n+1)/2, Σ x² = n(n+1)(2n+1)/6 (textbook identities).
    #[test]
    fn faulhaber_low_degrees() {
        let n = Poly::atom("n");
        let f1 = n.mul(&n.add(&Poly::int(1))).scale(&(Q::one() / q(2)));
        assert_eq!(faulhaber(1, "n"), f1);
        let f2 = n
            .mul(&n.add(&Poly::int(1)))
            .mul(&n.scale(&q(2)).add(&Poly::int(1)))
            .scale(&(Q::one() / q(6)));
        assert_eq!(faulhaber(2, "n"), f2);
        assert_eq!(faulhaber(0, "n"), n.add(&Poly::int(1)));
    }

    /// Pico Example 2.1: Σ_{x=0}^{W−1} (W − x) = (W² + W)/2.
    #[test]
    fn example_2_1_closed_form() {
        let w = Poly::atom("W");
        let body = w.sub(&Poly::atom("x"));
        let s = sum(&body, "x", &Poly::zero(), &w.sub(&Poly::int(1)));
        let expect = w.mul(&w).add(&w).scale(&(Q::one() / q(2)));
        assert_eq!(s, expect);
        assert_eq!(s.to_string(), "1/2*W^2 + 1/2*W");
    }
}
