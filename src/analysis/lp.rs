//! Linear programs with exact constraints, solved in floating point by `microlp` (through
//! `good_lp`) and then rationalized and re-verified exactly (RaCUDA §7, note §8.5: the
//! constraints on template coefficients are linear; warpcert never trusts the float solution).
//! When no rounding of the float solution satisfies every constraint exactly (large constants
//! of a concrete grid), the LP is solved again exactly by [`super::lp_exact`].

use super::tpoly::LinExpr;
use crate::core::assertion::poly::Coef;
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

/// The description of a constraint's origin ([`Lp::cons`]).
pub type Why = std::sync::Arc<str>;

/// An LP under construction: variables are indices `0..n`; `nonneg[i]` says whether
/// variable `i` is constrained to be ≥ 0.
#[derive(Clone, Debug, Default)]
pub struct Lp {
    /// Per variable: `true` if `≥ 0`, `false` if free.
    pub nonneg: Vec<bool>,
    /// Constraints `e ⋈ 0` with a short description of their origin (shared with the
    /// constraint before when it is the same text: issue 13, a long program's LP has
    /// hundreds of thousands of constraints and few descriptions).
    pub cons: Vec<(LinExpr, Rel, Why)>,
    /// Values of the variables fixed by [`Lp::solve_tail`] (by index; `None`: still free
    /// for the LP). Empty until a tail is solved.
    pub fixed: Vec<Option<Q>>,
    /// The constraints of solved tails (no longer in `cons`; checked again by
    /// [`Lp::check`] with the final solution).
    pub solved: Vec<(LinExpr, Rel, Why)>,
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
        let why = match self.cons.last() {
            Some((_, _, w)) if **w == *why => Why::clone(w),
            _ => Why::from(why),
        };
        self.cons.push((e, rel, why));
        Ok(())
    }

    /// Solves `minimize objective` and returns an exact solution that satisfies every
    /// constraint (checked with rationals). Variables fixed by [`Lp::solve_tail`] keep their
    /// values (the objective's terms on them are left out). Errors: infeasible/unbounded
    /// LP, or a float solution that could not be rationalized into an exact one.
    pub fn solve(&self, objective: &LinExpr) -> Result<Vec<Q>, String> {
        if self.fixed.iter().all(Option::is_none) {
            return self.solve_all(objective);
        }
        // the free variables renumbered 0..k, the fixed ones substituted
        let mut map = vec![None; self.nonneg.len()];
        let mut sub = Lp::default();
        for (i, nn) in self.nonneg.iter().enumerate() {
            if self.fixed.get(i).is_none_or(Option::is_none) {
                map[i] = Some(sub.fresh(*nn));
            }
        }
        let rebase = |e: &LinExpr| -> LinExpr {
            let mut out = LinExpr::from_q(&e.c);
            for (i, a) in &e.v {
                match (map.get(*i).copied().flatten(), self.fixed.get(*i)) {
                    (Some(j), _) => out.add_assign_c(&LinExpr::var(j).scaled(a)),
                    (None, Some(Some(x))) => out.c += a * x,
                    _ => {}
                }
            }
            out
        };
        for (e, rel, why) in &self.cons {
            sub.add(rebase(e), *rel, why)?;
        }
        let mut obj = rebase(objective);
        obj.c = Q::zero();
        let part = sub.solve_all(&obj)?;
        let sol: Vec<Q> = (0..self.nonneg.len())
            .map(|i| match (map[i], self.fixed.get(i)) {
                (Some(j), _) => part[j].clone(),
                (None, Some(Some(x))) => x.clone(),
                _ => Q::zero(),
            })
            .collect();
        self.check(&sol)?;
        Ok(sol)
    }

    /// Solves the constraints `cons[from..]`, which must mention only variables
    /// `var_from..` (none fixed yet), for `minimize objective` (over those variables), and
    /// fixes those variables to the solution: the constraints move to `solved`. A long
    /// sequence's LP is solved this way tail by tail (`derive/seq.rs`), each part of a size
    /// that the simplex handles in time linear in the program. Errors as [`Lp::solve`] and
    /// when a constraint mentions another variable; the LP is unchanged then.
    pub fn solve_tail(
        &mut self,
        from: usize,
        var_from: usize,
        objective: &LinExpr,
    ) -> Result<(), String> {
        let n = self.nonneg.len();
        let mut sub = Lp {
            nonneg: self.nonneg[var_from..].to_vec(),
            ..Lp::default()
        };
        let shift = |e: &LinExpr| -> Option<LinExpr> {
            let mut out = LinExpr::from_q(&e.c);
            for (i, a) in &e.v {
                if *i < var_from || *i >= n {
                    return None;
                }
                out.v.insert(i - var_from, a.clone());
            }
            Some(out)
        };
        for (e, rel, why) in &self.cons[from..] {
            let e = shift(e).ok_or("a constraint of the tail mentions an earlier variable")?;
            sub.cons.push((e, *rel, why.clone()));
        }
        let obj = shift(objective).ok_or("the objective mentions an earlier variable")?;
        let part = sub.solve_all(&obj)?;
        if self.fixed.len() < n {
            self.fixed.resize(n, None);
        }
        for (k, x) in part.into_iter().enumerate() {
            self.fixed[var_from + k] = Some(x);
        }
        self.solved.extend(self.cons.drain(from..));
        Ok(())
    }

    /// [`Lp::solve`] of the whole LP, fixed variables ignored.
    fn solve_all(&self, objective: &LinExpr) -> Result<Vec<Q>, String> {
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
        // The float solution rounded to denominators up to `max_den` (a negative value of a
        // non-negative variable becomes 0).
        let round_at = |max_den: i64| -> Vec<Q> {
            floats
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
                .collect()
        };
        // First the smallest denominators that reproduce the float solution (a loose
        // rounding such as 0.3125 ↦ 1/3 can also pass the check but loosens the bound),
        // then any rounding that passes.
        for max_den in [1i64, 2, 4, 8, 16, 32, 64, 128, 1000, 1024, 100000] {
            let cand = round_at(max_den);
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
            let cand = round_at(max_den);
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
        for (e, rel, why) in self.cons.iter().chain(&self.solved) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn lin(c: i64, v: &[(usize, i64)]) -> LinExpr {
        let mut e = LinExpr::from_q(&q(c));
        for (i, a) in v {
            e.v.insert(*i, q(*a));
        }
        e
    }

    /// A chain `x0 ≥ 2` (tail), `x1 ≥ x0 + 1` (head), minimise `x1 + x0/1000`: by hand the
    /// optimum is `x0 = 2`, `x1 = 3`, whole or tail first (the tail's least `x0` is 2).
    #[test]
    fn tail_then_head_is_the_whole_optimum() {
        let mut lp = Lp::default();
        let (x0, x1) = (lp.fresh(true), lp.fresh(true));
        lp.add(lin(-2, &[(x0, 1)]), Rel::Ge, "tail").unwrap();
        let whole_obj = LinExpr {
            c: q(0),
            v: [(x0, q(1) / q(1000)), (x1, q(1))].into_iter().collect(),
        };
        // the tail: constraint 0 over variables 0.. (x0 only, x1 is created later)
        let mut parts = lp.clone();
        parts.nonneg.truncate(1);
        parts.solve_tail(0, 0, &lin(0, &[(x0, 1)])).unwrap();
        assert_eq!(parts.fixed, vec![Some(q(2))]);
        let x1b = parts.fresh(true);
        parts
            .add(lin(-1, &[(x1b, 1), (x0, -1)]), Rel::Ge, "head")
            .unwrap();
        lp.add(lin(-1, &[(x1, 1), (x0, -1)]), Rel::Ge, "head")
            .unwrap();
        assert_eq!(lp.solve(&whole_obj).unwrap(), vec![q(2), q(3)]);
        assert_eq!(parts.solve(&whole_obj).unwrap(), vec![q(2), q(3)]);
        // the solved tail's constraint is still checked
        assert!(parts.check(&[q(1), q(3)]).is_err());
    }

    /// A tail whose constraint names a variable before `var_from` is refused and the LP
    /// is left as it was.
    #[test]
    fn tail_naming_an_earlier_variable_is_refused() {
        let mut lp = Lp::default();
        let (x0, x1) = (lp.fresh(true), lp.fresh(true));
        lp.add(lin(-1, &[(x1, 1), (x0, -1)]), Rel::Ge, "mixed")
            .unwrap();
        assert!(lp.solve_tail(0, 1, &lin(0, &[(x1, 1)])).is_err());
        assert_eq!(lp.cons.len(), 1);
        assert!(lp.fixed.iter().all(Option::is_none));
    }
}
