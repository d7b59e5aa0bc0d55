//! An exact two-phase simplex over rationals (dense tableau, Bland's rule), the fallback of
//! [`super::lp::Lp::solve`] when no rounding of the floating-point solution satisfies every
//! constraint exactly (issue 15 item 3: a concrete grid of 240 or 65 535 blocks makes
//! strides of 61 440 or 16 776 960 and degree weights up to `V³`, beyond what `f64`
//! tolerances separate). The result is still re-checked by [`super::lp::Lp::check`].
//!
//! Standard form: a free variable `x` is `x⁺ − x⁻`; a row `e ≥ 0` gets a surplus `s ≥ 0`
//! (`e − s = 0`); every row gets an artificial variable for phase 1 (minimise their sum),
//! phase 2 minimises the objective over the other columns. Bland's rule (smallest
//! improving column, smallest basic index among tied ratios) cannot cycle.

use super::lp::Rel;
use super::tpoly::LinExpr;
use crate::core::metric::Q;
use num_traits::{One, Signed, Zero};

/// Largest tableau (rows × columns) the exact simplex builds.
pub const MAX_CELLS: usize = 400_000;
/// Largest number of pivots per phase.
pub const MAX_PIVOTS: usize = 20_000;

/// A dense simplex tableau: `rows[i]` holds the coefficients of row `i` and, last, its
/// right-hand side (`≥ 0`); `basis[i]` is the column basic in row `i`.
struct Tableau {
    rows: Vec<Vec<Q>>,
    basis: Vec<usize>,
    ncols: usize,
}

impl Tableau {
    fn pivot(&mut self, r: usize, j: usize) {
        let inv = Q::one() / &self.rows[r][j];
        for x in self.rows[r].iter_mut() {
            if !x.is_zero() {
                *x = &*x * &inv;
            }
        }
        let prow = self.rows[r].clone();
        let nz: Vec<usize> = (0..prow.len()).filter(|&k| !prow[k].is_zero()).collect();
        for (i, row) in self.rows.iter_mut().enumerate() {
            if i == r || row[j].is_zero() {
                continue;
            }
            let f = row[j].clone();
            for &k in &nz {
                row[k] = &row[k] - &f * &prow[k];
            }
        }
        self.basis[r] = j;
    }

    /// Minimises `cost · x` over the columns `allowed` may enter. Err on unboundedness or
    /// when [`MAX_PIVOTS`] pivots were not enough.
    fn minimise(&mut self, cost: &[Q], allowed: &[bool]) -> Result<(), String> {
        for _ in 0..MAX_PIVOTS {
            let mut basic = vec![false; self.ncols];
            for &b in &self.basis {
                basic[b] = true;
            }
            let entering = (0..self.ncols).find(|&j| {
                if basic[j] || !allowed[j] {
                    return false;
                }
                let mut d = cost[j].clone();
                for (i, row) in self.rows.iter().enumerate() {
                    let c = &cost[self.basis[i]];
                    if !c.is_zero() && !row[j].is_zero() {
                        d -= c * &row[j];
                    }
                }
                d.is_negative()
            });
            let Some(j) = entering else {
                return Ok(());
            };
            let mut leave: Option<(usize, Q)> = None;
            for (i, row) in self.rows.iter().enumerate() {
                if !row[j].is_positive() {
                    continue;
                }
                let ratio = &row[self.ncols] / &row[j];
                let better = match &leave {
                    None => true,
                    Some((l, best)) => {
                        ratio < *best || (ratio == *best && self.basis[i] < self.basis[*l])
                    }
                };
                if better {
                    leave = Some((i, ratio));
                }
            }
            let Some((r, _)) = leave else {
                return Err("the LP is unbounded (exact simplex)".to_string());
            };
            self.pivot(r, j);
        }
        Err(format!(
            "the exact simplex needed more than {MAX_PIVOTS} pivots"
        ))
    }
}

/// Minimises `objective` subject to `cons` (`e ⋈ 0`) and `x_i ≥ 0` where `nonneg[i]`, in
/// exact rationals. Returns an optimal vertex (one value per variable). Errors: infeasible,
/// unbounded, or larger than [`MAX_CELLS`] / [`MAX_PIVOTS`].
pub fn solve(
    nonneg: &[bool],
    cons: &[(LinExpr, Rel, super::lp::Why)],
    objective: &LinExpr,
) -> Result<Vec<Q>, String> {
    let n = nonneg.len();
    // columns: x⁺ per variable, x⁻ per free variable, a surplus per `≥` row, an
    // artificial per row
    let mut neg_col = vec![None; n];
    let mut ncols = n;
    for (i, nn) in nonneg.iter().enumerate() {
        if !nn {
            neg_col[i] = Some(ncols);
            ncols += 1;
        }
    }
    let first_surplus = ncols;
    ncols += cons.iter().filter(|(_, r, _)| *r == Rel::Ge).count();
    let first_art = ncols;
    ncols += cons.len();
    if cons.len().saturating_mul(ncols + 1) > MAX_CELLS {
        return Err(format!(
            "the LP is too large for the exact simplex ({} rows, {ncols} columns)",
            cons.len()
        ));
    }
    let mut rows = Vec::with_capacity(cons.len());
    let mut surplus = first_surplus;
    for (k, (e, rel, _)) in cons.iter().enumerate() {
        let mut row = vec![Q::zero(); ncols + 1];
        for (i, a) in &e.v {
            if *i >= n {
                return Err(format!("the LP names variable {i} of {n}"));
            }
            row[*i] = a.clone();
            if let Some(c) = neg_col[*i] {
                row[c] = -a.clone();
            }
        }
        if *rel == Rel::Ge {
            row[surplus] = -Q::one();
            surplus += 1;
        }
        row[ncols] = -e.c.clone();
        if row[ncols].is_negative() {
            for x in row.iter_mut() {
                *x = -x.clone();
            }
        }
        row[first_art + k] = Q::one();
        rows.push(row);
    }
    let mut t = Tableau {
        rows,
        basis: (first_art..first_art + cons.len()).collect(),
        ncols,
    };
    // phase 1: minimise the sum of the artificials
    let mut cost1 = vec![Q::zero(); ncols];
    for c in cost1.iter_mut().skip(first_art) {
        *c = Q::one();
    }
    t.minimise(&cost1, &vec![true; ncols])?;
    let infeasible = t
        .rows
        .iter()
        .zip(&t.basis)
        .any(|(row, &b)| b >= first_art && !row[ncols].is_zero());
    if infeasible {
        return Err("the LP is infeasible (exact simplex)".to_string());
    }
    // drive the artificials left in the basis (at 0) out where a real column can replace them
    for r in 0..t.rows.len() {
        if t.basis[r] >= first_art {
            if let Some(j) = (0..first_art).find(|&j| !t.rows[r][j].is_zero()) {
                t.pivot(r, j);
            }
        }
    }
    // phase 2
    let mut cost2 = vec![Q::zero(); ncols];
    for (i, a) in &objective.v {
        if *i < n {
            cost2[*i] = a.clone();
            if let Some(c) = neg_col[*i] {
                cost2[c] = -a.clone();
            }
        }
    }
    let allowed: Vec<bool> = (0..ncols).map(|j| j < first_art).collect();
    t.minimise(&cost2, &allowed)?;
    let mut val = vec![Q::zero(); ncols];
    for (row, &b) in t.rows.iter().zip(&t.basis) {
        val[b] = row[ncols].clone();
    }
    Ok((0..n)
        .map(|i| match neg_col[i] {
            Some(c) => &val[i] - &val[c],
            None => val[i].clone(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::lp::Why;
    use crate::core::metric::q;

    fn lin(c: i64, v: &[(usize, Q)]) -> LinExpr {
        LinExpr {
            c: q(c),
            v: v.iter().cloned().collect(),
        }
    }

    /// minimise x + y s.t. x + 2y ≥ 4, 3x + y ≥ 6, x, y ≥ 0: optimum at the intersection
    /// x = 8/5, y = 6/5 (hand: x + 2y = 4 and 3x + y = 6), objective 14/5.
    #[test]
    fn two_constraint_optimum_is_exact() {
        let cons = vec![
            (lin(-4, &[(0, q(1)), (1, q(2))]), Rel::Ge, Why::from("a")),
            (lin(-6, &[(0, q(3)), (1, q(1))]), Rel::Ge, Why::from("b")),
        ];
        let x = solve(&[true, true], &cons, &lin(0, &[(0, q(1)), (1, q(1))])).unwrap();
        assert_eq!(x, vec![q(8) / q(5), q(6) / q(5)]);
    }

    /// A free variable with an equality: minimise y s.t. x = −7, y − x ≥ 0 … y ≥ −7 with
    /// y free gives y = −7 (hand), with tiny and huge coefficients such as a concrete grid
    /// makes (1/16 776 960).
    #[test]
    fn free_variables_and_large_constants() {
        let big = q(16_776_960);
        let cons = vec![
            (lin(7, &[(0, q(1))]), Rel::Eq, Why::from("x")),
            (
                lin(0, &[(1, q(1) / &big), (0, -q(1) / &big)]),
                Rel::Ge,
                Why::from("y"),
            ),
        ];
        let x = solve(&[false, false], &cons, &lin(0, &[(1, q(1))])).unwrap();
        assert_eq!(x, vec![q(-7), q(-7)]);
    }

    /// Infeasible (x ≥ 1 and x ≤ 0 with x ≥ 0) and unbounded (minimise −x) LPs are errors.
    #[test]
    fn infeasible_and_unbounded_are_errors() {
        let cons = vec![(lin(-1, &[(0, q(1))]), Rel::Ge, Why::from("a"))];
        let neg = vec![(lin(0, &[(0, q(-1))]), Rel::Ge, Why::from("b"))];
        let both: Vec<_> = cons.iter().chain(&neg).cloned().collect();
        assert!(solve(&[true], &both, &lin(0, &[(0, q(1))]))
            .unwrap_err()
            .contains("infeasible"));
        assert!(solve(&[true], &cons, &lin(0, &[(0, q(-1))]))
            .unwrap_err()
            .contains("unbounded"));
    }
}
