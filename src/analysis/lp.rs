//! Linear programs with exact constraints, solved in floating point by `microlp` (through
//! `good_lp`) and then rationalized and re-verified exactly (RaCUDA §7, note §8.5: the
//! constraints on template coefficients are linear; warpcert never trusts the float solution).
//! When no rounding of the float solution satisfies every constraint exactly (large constants
//! of a concrete grid), the LP is solved again exactly by [`super::lp_exact`].

use super::tpoly::LinExpr;
use crate::core::metric::{q, Q};
use good_lp::{microlp, variable, variables, Expression, ResolutionError, Solution, SolverModel};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};

/// Relation of a constraint `e ⋈ 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    /// `e = 0`
    Eq,
    /// `e ≥ 0`
    Ge,
}

/// An LP under construction: variables are indices `0..n`; `nonneg[i]` says whether
/// variable `i` is constrained to be ≥ 0.
#[derive(Clone, Debug, Default)]
pub struct Lp {
    /// Per variable: `true` if `≥ 0`, `false` if free.
    pub nonneg: Vec<bool>,
    /// Constraints `e ⋈ 0` with a short description of their origin.
    pub cons: Vec<(LinExpr, Rel, String)>,
}

impl Lp {
    /// A fresh variable (`≥ 0` when `nonneg`), returned as an index.
    pub fn fresh(&mut self, nonneg: bool) -> usize {
        self.nonneg.push(nonneg);
        self.nonneg.len() - 1
    }
    /// Adds `e ⋈ 0`. Constant constraints are checked at once: a false one is returned as Err.
    pub fn add(&mut self, e: LinExpr, rel: Rel, why: &str) -> Result<(), String> {
        if e.v.is_empty() {
            let ok = match rel {
                Rel::Eq => e.c.is_zero(),
                Rel::Ge => !e.c.is_negative(),
            };
            return if ok {
                Ok(())
            } else {
                Err(format!("constraint is violated by constants ({why})"))
            };
        }
        self.cons.push((e, rel, why.to_string()));
        Ok(())
    }

    /// Solves `minimize objective` and returns an exact solution that satisfies every
    /// constraint (checked with rationals). Errors: infeasible/unbounded LP, or a float
    /// solution that could not be rationalized into an exact one.
    pub fn solve(&self, objective: &LinExpr) -> Result<Vec<Q>, String> {
        let mut vars = variables!();
        let xs: Vec<_> = self
            .nonneg
            .iter()
            .map(|&nn| {
                if nn {
                    vars.add(variable().min(0.0))
                } else {
                    vars.add(variable())
                }
            })
            .collect();
        let to_expr = |e: &LinExpr| -> Expression {
            let mut ex = Expression::from(e.c.to_f64().unwrap_or(0.0));
            for (i, a) in &e.v {
                if let Some(x) = xs.get(*i) {
                    ex += a.to_f64().unwrap_or(0.0) * *x;
                }
            }
            ex
        };
        let mut model = vars.minimise(to_expr(objective)).using(microlp);
        for (e, rel, _) in &self.cons {
            let ex = to_expr(e);
            match rel {
                Rel::Eq => model.add_constraint(ex.eq(0.0)),
                Rel::Ge => model.add_constraint(ex.geq(0.0)),
            };
        }
        let sol = model.solve().map_err(|e| match e {
            ResolutionError::Infeasible => "the LP is infeasible".to_string(),
            ResolutionError::Unbounded => "the LP is unbounded".to_string(),
            other => format!("LP solver error: {other}"),
        })?;
        let floats: Vec<f64> = xs.iter().map(|x| sol.value(*x)).collect();
        // First the smallest denominators that reproduce the float solution (a loose
        // rounding such as 0.3125 ↦ 1/3 can also pass the check but loosens the bound),
        // then any rounding that passes.
        for max_den in [1i64, 2, 4, 8, 16, 32, 64, 128, 1000, 1024, 100000] {
            let cand: Vec<Q> = floats
                .iter()
                .zip(&self.nonneg)
                .map(|(&f, &nn)| {
                    let r = rationalize(f, max_den);
                    if nn && r.is_negative() {
                        Q::zero()
                    } else {
                        r
                    }
                })
                .collect();
            let close = cand.iter().zip(&floats).all(|(r, &f)| {
                (r.to_f64().unwrap_or(f64::MAX) - f).abs() <= 1e-7 * f.abs().max(1.0)
            });
            if close && self.check(&cand).is_ok() {
                return Ok(cand);
            }
        }
        for max_den in [
            1i64, 2, 4, 6, 8, 12, 16, 24, 32, 64, 100, 128, 1000, 1024, 100000,
        ] {
            let cand: Vec<Q> = floats
                .iter()
                .zip(&self.nonneg)
                .map(|(&f, &nn)| {
                    let r = rationalize(f, max_den);
                    if nn && r.is_negative() {
                        Q::zero()
                    } else {
                        r
                    }
                })
                .collect();
            if self.check(&cand).is_ok() {
                return Ok(cand);
            }
        }
        let cand: Vec<Q> = floats.iter().map(|&f| rationalize(f, 100000)).collect();
        let why = match self.check(&cand) {
            Ok(()) => return Ok(cand),
            Err(why) => why,
        };
        // Roundings fail when the LP has large constants (a concrete grid of 240 blocks
        // makes a stride of 61 440, degree weights up to V³): solve again exactly.
        let exact = super::lp_exact::solve(&self.nonneg, &self.cons, objective).map_err(|e| {
            format!("the LP solution does not survive exact re-verification ({why}); {e}")
        })?;
        self.check(&exact)
            .map_err(|e| format!("the exact LP solution does not satisfy the constraints ({e})"))?;
        Ok(exact)
    }

    /// Checks an exact assignment against every constraint.
    pub fn check(&self, sol: &[Q]) -> Result<(), String> {
        for (i, nn) in self.nonneg.iter().enumerate() {
            if *nn && sol.get(i).is_some_and(|x| x.is_negative()) {
                return Err(format!("variable {i} is negative"));
            }
        }
        for (e, rel, why) in &self.cons {
            let v = e.eval(sol);
            let ok = match rel {
                Rel::Eq => v.is_zero(),
                Rel::Ge => !v.is_negative(),
            };
            if !ok {
                return Err(format!("violated: {why}"));
            }
        }
        Ok(())
    }
}

/// The best rational approximation of `f` with denominator ≤ `max_den` (continued
/// fractions); non-finite inputs give 0.
pub fn rationalize(f: f64, max_den: i64) -> Q {
    if !f.is_finite() {
        return Q::zero();
    }
    let neg = f < 0.0;
    let x = f.abs();
    // convergents h/k
    let (mut h0, mut h1): (i128, i128) = (0, 1);
    let (mut k0, mut k1): (i128, i128) = (1, 0);
    let mut r = x;
    for _ in 0..64 {
        let a = r.floor();
        if a > 1e15 {
            break;
        }
        let a = a as i128;
        let h2 = a * h1 + h0;
        let k2 = a * k1 + k0;
        if k2 > max_den as i128 {
            break;
        }
        h0 = h1;
        h1 = h2;
        k0 = k1;
        k1 = k2;
        let frac = r - r.floor();
        if frac < 1e-9 {
            break;
        }
        r = 1.0 / frac;
    }
    if k1 == 0 {
        return q(x.round() as i64);
    }
    let v = Q::new(BigInt::from(h1), BigInt::from(k1));
    if neg {
        -v
    } else {
        v
    }
}
