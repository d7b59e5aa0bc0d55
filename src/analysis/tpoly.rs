//! Template potentials (RaCUDA §7): polynomials over `max0` atoms whose coefficients are
//! linear expressions over the variables of the LP ([`super::lp::Lp`]), and their
//! instantiation with an LP solution.

use crate::core::assertion::linear::{q_add, q_mul};
use crate::core::assertion::poly::{Coef, Poly, PolyT};
use crate::core::assertion::sorted::SortedMap;
use crate::core::metric::Q;
use num_traits::{One, Zero};
use std::cmp::Ordering;

/// A linear expression over LP variables: `c + Σ a_i·v_i` (`v_i` indices into an [`super::lp::Lp`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LinExpr {
    /// Constant part.
    pub c: Q,
    /// Coefficients by LP-variable index (no zeros stored).
    pub v: SortedMap<usize, Q>,
}

impl LinExpr {
    /// The single variable `v_i`.
    pub fn var(i: usize) -> LinExpr {
        let mut v = SortedMap::new();
        v.insert(i, Q::one());
        LinExpr { c: Q::zero(), v }
    }
    /// `self − o`.
    pub fn minus(&self, o: &LinExpr) -> LinExpr {
        let mut out = self.clone();
        out.add_assign_c(&o.scaled(&-Q::one()));
        out
    }
    /// Value under an assignment of the LP variables (missing ones count as 0).
    pub fn eval(&self, sol: &[Q]) -> Q {
        let mut s = self.c.clone();
        for (i, a) in &self.v {
            match sol.get(*i) {
                Some(x) if !x.is_zero() => s = q_add(&s, &q_mul(a, x)),
                _ => {}
            }
        }
        s
    }
}

impl Coef for LinExpr {
    fn czero() -> Self {
        LinExpr::default()
    }
    fn is_zero_c(&self) -> bool {
        self.c.is_zero() && self.v.is_empty()
    }
    fn add_assign_c(&mut self, o: &Self) {
        self.c = q_add(&self.c, &o.c);
        if o.v.len() <= 8 {
            for (i, a) in &o.v {
                match self.v.get_mut(i) {
                    Some(e) => *e = q_add(e, a),
                    None => {
                        self.v.insert(*i, a.clone());
                    }
                }
            }
            self.v.retain(|_, a| !a.is_zero());
            return;
        }
        // a large sum (the LP objective): one merge of the two sorted maps
        let mut out = Vec::with_capacity(self.v.len() + o.v.len());
        let (mut x, mut y) = (self.v.iter().peekable(), o.v.iter().peekable());
        loop {
            let next = match (x.peek(), y.peek()) {
                (Some((i, _)), Some((j, _))) => i.cmp(j),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => break,
            };
            let Some((i, a)) = (match next {
                Ordering::Less => x.next().map(|(i, a)| (*i, a.clone())),
                Ordering::Greater => y.next().map(|(j, b)| (*j, b.clone())),
                Ordering::Equal => x
                    .next()
                    .zip(y.next())
                    .map(|((i, a), (_, b))| (*i, q_add(a, b))),
            }) else {
                break;
            };
            if !a.is_zero() {
                out.push((i, a));
            }
        }
        drop((x, y));
        self.v = out.into_iter().collect();
    }
    fn scaled(&self, k: &Q) -> Self {
        if k.is_zero() {
            return LinExpr::default();
        }
        LinExpr {
            c: q_mul(&self.c, k),
            v: self.v.iter().map(|(i, a)| (*i, q_mul(a, k))).collect(),
        }
    }
    fn from_q(k: &Q) -> Self {
        LinExpr {
            c: k.clone(),
            v: SortedMap::new(),
        }
    }
}

/// Template potentials whose coefficients are LP expressions.
pub type TPoly = PolyT<LinExpr>;

impl TPoly {
    /// Instantiates the LP variables with `sol`.
    pub fn instantiate(&self, sol: &[Q]) -> Poly {
        let mut p = Poly::zero();
        let terms = p.terms_mut();
        for (m, c) in &self.terms {
            let v = c.eval(sol);
            if !v.is_zero() {
                terms.insert(m.clone(), v);
            }
        }
        p
    }
}
