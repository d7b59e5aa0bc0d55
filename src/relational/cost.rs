//! Sequential cost analysis (Pico §6.3; `spec/relational.md` §6): a Resource Calculus
//! statement to a closed-form polynomial. `tick(n) ↦ n`, `s₁; s₂ ↦ +`, `for ↦ Σ` (Faulhaber,
//! exact rationals), additive steps `k > 1` normalized to `x = lo + k·y` with
//! `y ∈ 0..⌊(hi − lo)/k⌋`; `if (c) {s}` with a symbolic uniform `c` is bounded by the cost of
//! `s` (upper) — the only approximation of this step.

use super::calculus::{NExpr, NOp, Range, SStmt, Step};
use super::poly::{sum, Poly};
use crate::core::metric::q;

/// A closed form with its status.
#[derive(Clone, Debug, PartialEq)]
pub struct ClosedForm {
    /// The cost.
    pub poly: Poly,
    /// Whether it equals the statement's cost (else it is an upper bound).
    pub exact: bool,
    /// Side conditions on the parameters under which it holds (each loop's `hi ≥ lo − 1`).
    pub assumptions: Vec<String>,
}

/// The polynomial of a scalar expression; other operators become opaque atoms named by the
/// expression (`⌊e⌋` for divisions).
pub fn expr_poly(e: &NExpr) -> Poly {
    match e {
        NExpr::Lit(i) => Poly::int(*i),
        NExpr::Atom(a) => Poly::atom(&a.name()),
        NExpr::Bin(NOp::Add, a, b) => expr_poly(a).add(&expr_poly(b)),
        NExpr::Bin(NOp::Sub, a, b) => expr_poly(a).sub(&expr_poly(b)),
        NExpr::Bin(NOp::Mul, a, b) => expr_poly(a).mul(&expr_poly(b)),
        NExpr::Bin(NOp::Div, a, b) => Poly::atom(&format!("⌊{a}/{b}⌋")),
        _ => Poly::atom(&format!("({e})")),
    }
}

/// The closed form of `s`. Errors name a loop whose iteration count has no closed form here
/// (symbolic multiplicative or dividing steps with a body depending on the variable, or a
/// non-literal additive step).
pub fn closed_form(s: &SStmt) -> Result<ClosedForm, String> {
    let mut assumptions = Vec::new();
    let (poly, exact) = go(s, &mut assumptions)?;
    assumptions.sort();
    assumptions.dedup();
    Ok(ClosedForm {
        poly,
        exact,
        assumptions,
    })
}

fn go(s: &SStmt, asm: &mut Vec<String>) -> Result<(Poly, bool), String> {
    match s {
        SStmt::Tick(n) => Ok((expr_poly(n), true)),
        SStmt::Seq(ss) => {
            let mut p = Poly::zero();
            let mut e = true;
            for t in ss {
                let (a, b) = go(t, asm)?;
                p = p.add(&a);
                e &= b;
            }
            Ok((p, e))
        }
        SStmt::If(_, b) => {
            let (p, _) = go(b, asm)?;
            Ok((p, false))
        }
        SStmt::For(x, r, b) => {
            let (body, exact) = go(b, asm)?;
            Ok((sum_range(x, r, &body, asm)?, exact))
        }
    }
}

fn sum_range(x: &str, r: &Range, body: &Poly, asm: &mut Vec<String>) -> Result<Poly, String> {
    if body.mentions_inside(x) {
        // e.g. an inner loop `for j ∈ i..m step s2` counts ⌊(m − 1 − i)/s2⌋ + 1 rounds: the
        // sum over `i` of a floor of `i` has no closed form here, and treating the atom as
        // a constant would leave `i` free in the result (issue 14).
        return Err(format!(
            "loop {x} ∈ {r}: no closed form for a body whose cost depends on {x} inside ⌊·⌋ \
             (a nest whose inner range starts at {x} with a symbolic step)"
        ));
    }
    let lo = expr_poly(&r.lo);
    let hi = expr_poly(&r.hi);
    let diff = hi.sub(&lo);
    match &r.step {
        Step::Add(k) if expr_poly(k).as_int().is_none() => {
            // A symbolic step k (assumed ≥ 1): x = lo + k·y, y ∈ 0..⌊(hi − lo)/k⌋.
            let kp = expr_poly(k);
            asm.push(format!("{kp} >= 1"));
            asm.push(format!("{} >= 0", diff.add(&kp)));
            let last = Poly::atom(&format!("⌊({diff})/({kp})⌋"));
            let y = format!("{x}#");
            let sub = lo.add(&Poly::atom(&y).mul(&kp));
            Ok(sum(&body.subst(x, &sub), &y, &Poly::zero(), &last))
        }
        Step::Add(k) => {
            let k = expr_poly(k)
                .as_int()
                .filter(|k| *k > 0)
                .ok_or_else(|| format!("loop {x} ∈ {r}: step is not a positive literal"))?;
            if diff.as_int().is_none() {
                // The closed form counts hi − lo + 1 ≥ 0 iterations (÷ k).
                asm.push(format!("{} >= 0", diff.add(&Poly::int(1))));
            }
            if k == 1 {
                return Ok(sum(body, x, &lo, &hi));
            }
            // x = lo + k·y, y ∈ 0..⌊(hi − lo)/k⌋.
            let last = match diff.as_int() {
                Some(d) => Poly::int(d.div_euclid(k)),
                None => Poly::atom(&format!("⌊({diff})/{k}⌋")),
            };
            let y = format!("{x}#");
            let sub = lo.add(&Poly::atom(&y).scale(&q(k)));
            Ok(sum(&body.subst(x, &sub), &y, &Poly::zero(), &last))
        }
        Step::Mul(k) | Step::Sub(k) | Step::Div(k) => {
            if body.mentions(x) {
                return Err(format!(
                    "loop {x} ∈ {r}: no closed form for a body depending on a \
                     multiplicative/dividing loop variable"
                ));
            }
            let op = match &r.step {
                Step::Mul(_) => '*',
                Step::Div(_) => '/',
                _ => '-',
            };
            // Bounds and step as polynomials, so that `relational::eval_atom` counts the
            // rounds at given parameter values.
            let k = expr_poly(k);
            Ok(body.mul(&Poly::atom(&format!(
                "#iterations({lo}..{hi} step {op}{k})"
            ))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Example 3.2 / 4.1 at W = 32: Σ_{x=0}^{31} (32 − x) = 528; and symbolically in W.
    #[test]
    fn example_4_1_sum() {
        let s = SStmt::For(
            "x".into(),
            Range::upto(NExpr::Lit(0), NExpr::Lit(31)),
            Box::new(SStmt::Tick(NExpr::bin(
                NOp::Sub,
                NExpr::Lit(32),
                NExpr::var("x"),
            ))),
        );
        let c = closed_form(&s).unwrap();
        assert_eq!(c.poly, Poly::int(528));
        assert!(c.exact);
        let sym = SStmt::For(
            "x".into(),
            Range::upto(
                NExpr::Lit(0),
                NExpr::bin(NOp::Sub, NExpr::param("W"), NExpr::Lit(1)),
            ),
            Box::new(SStmt::Tick(NExpr::bin(
                NOp::Sub,
                NExpr::param("W"),
                NExpr::var("x"),
            ))),
        );
        assert_eq!(
            closed_form(&sym).unwrap().poly.to_string(),
            "1/2*W^2 + 1/2*W"
        );
    }

    /// `for i ∈ 0..n−1 {for j ∈ i..m−1 step s {tick(1)}}`: the inner count ⌊(m − 1 − i)/s⌋ + 1
    /// depends on `i` inside a floor; summing it as a constant left `i` free and gave 25
    /// where the run costs 15 at n = m = 5, s = 1 (issue 14). It is now refused.
    #[test]
    fn floor_of_an_outer_variable_is_refused() {
        let inner = SStmt::For(
            "j".into(),
            Range {
                lo: NExpr::var("i"),
                hi: NExpr::bin(NOp::Sub, NExpr::param("m"), NExpr::Lit(1)),
                step: Step::Add(NExpr::param("s")),
            },
            Box::new(SStmt::Tick(NExpr::Lit(1))),
        );
        let nest = SStmt::For(
            "i".into(),
            Range::upto(
                NExpr::Lit(0),
                NExpr::bin(NOp::Sub, NExpr::param("n"), NExpr::Lit(1)),
            ),
            Box::new(inner),
        );
        let e = closed_form(&nest).unwrap_err();
        assert!(e.contains("depends on i inside"), "{e}");
    }

    /// `for j ∈ 0..h−1 step +2 {tick(28)}` has ⌈h/2⌉ = ⌊(h−1)/2⌋ + 1 iterations (hand count).
    #[test]
    fn additive_step() {
        let s = SStmt::For(
            "j".into(),
            Range {
                lo: NExpr::Lit(0),
                hi: NExpr::bin(NOp::Sub, NExpr::param("h"), NExpr::Lit(1)),
                step: Step::Add(NExpr::Lit(2)),
            },
            Box::new(SStmt::Tick(NExpr::Lit(28))),
        );
        let c = closed_form(&s).unwrap();
        for h in 0..9i64 {
            let v = c
                .poly
                .eval(&|a| Some(q(if a == "h" { h } else { (h - 1).div_euclid(2) })))
                .unwrap();
            assert_eq!(v, q(28 * ((h + 1) / 2)), "h = {h}");
        }
    }
}
