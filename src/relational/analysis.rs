//! The static relational-cost analysis `Γ; Φ ⊢ p ∼ s` of Pico §4 (Fig. 4) for one warp,
//! with the loop analysis (§5.2, §6.2) and the metric analyses (§6.4), and the exactness
//! accounting of §6.5. Normative description: `spec/relational.md` §4–§5.
//!
//! The analysis runs once per warp of the block: `threadIdx` components that are constant
//! over the warp's lanes are replaced by their value first (so `threadIdx.y` is uniform in a
//! 32×32 block), the remaining thread-index components are the lane vector `I_ℕ`. Per
//! access, the metric analysis returns a concrete tick (a natural number), obtained by
//! simulating the warp's lanes on the lane-varying part of the index under the active mask
//! (`act(Γ) ∧ Φ`, with inexact conjuncts dropped), or the worst case.

use super::calculus::{
    eval_c, eval_n, Access, Atom, COp, Cond, Lanes, NExpr, NOp, PicoMetric, Proto, Range, SStmt,
    Step, VEnv,
};
use super::poly::Poly;
use crate::core::metric::{q, Q};
use num_integer::Integer;
use num_traits::ToPrimitive;
use std::collections::BTreeMap;

/// Uniformity types `τ ::= U | D` (Fig. 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// Uniform: the same value in every lane.
    U,
    /// Divergent.
    D,
}

/// What kind of construct an exactness entry counts (Pico §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A conditional (weighted by its number of comparisons).
    Conditional,
    /// A loop.
    Loop,
    /// An array index (access).
    Index,
}

/// Exactness of each construct: `(kind, id) ↦ (weight, exact)`.
pub type Exactness = BTreeMap<(Kind, u32), (usize, bool)>;

/// The result of analysing one warp.
#[derive(Clone, Debug)]
pub struct WarpAnalysis {
    /// The sequential program `s` with `p ∼ s`.
    pub stmt: SStmt,
    /// Whether the relational step is exact (`=`); otherwise `≤`.
    pub exact: bool,
    /// Per-construct exactness.
    pub exactness: Exactness,
    /// Per-construct exactness by Pico's own criterion (§6.5): a conditional is exact unless
    /// it mentions a divergent variable (a `D` loop variable or an unknown; `threadIdx` and
    /// parameters are allowed), a loop iff its binding is `U`; indices as in `exactness`.
    pub pico_exactness: Exactness,
    /// Rule applications, in order (`SKIP`, `ACC`, `SEQ`, `IF-U`, `IF-D`, `FOR`), for reports.
    pub rules: BTreeMap<&'static str, usize>,
    /// Loops the loop analysis could not relate (their bodies were still visited for the
    /// exactness count). Non-empty: `stmt` is not a bound.
    pub failures: Vec<String>,
}

/// Why the analysis gives no bound.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RelError {
    /// A loop range the loop analysis cannot relate to a scalar range.
    #[error("loop `{0}`: range {1} is thread-divergent and not of a supported shape")]
    Loop(String, String),
    /// Too many unrolled iterations.
    #[error("more than {0} loop iterations to simulate")]
    Fuel(u64),
    /// An evaluation error during simulation.
    #[error("simulation: {0}")]
    Eval(String),
}

/// Maximal number of loop iterations simulated (unrolled) per warp.
pub const UNROLL_FUEL: u64 = 20_000;

/// Uniform loops with literal bounds and more iterations than this are analysed
/// symbolically (rule FOR with `x: U`) instead of being unrolled.
pub const UNROLL_MAX_ITERATIONS: i64 = 1024;

struct Ctx<'a> {
    lanes: &'a Lanes,
    /// All lanes of the block (for the argmax of divergent loop ranges), if known.
    block: Option<&'a Lanes>,
    metric: PicoMetric,
    /// Γ: types of the bound variables in scope.
    gamma: BTreeMap<String, Ty>,
    /// Φ: divergent conditions.
    phi: Vec<Cond>,
    /// Lane values of bound variables known concretely (simulated divergent loops).
    known: BTreeMap<String, Vec<i64>>,
    /// Exact masks from simulated divergent loops (`act(Γ)` for those bindings).
    masks: Vec<Vec<bool>>,
    /// Opaque sub-terms of polynomials: name ↦ expression.
    opaque: BTreeMap<String, NExpr>,
    exactness: Exactness,
    pico: Exactness,
    rules: BTreeMap<&'static str, usize>,
    fuel: u64,
    failures: Vec<String>,
}

/// Analyses `p` for the warp `lanes` under `metric`: `∅; t ⊢ p ∼ s`.
pub fn analyze_warp_in_block(
    p: &Proto,
    lanes: &Lanes,
    block: Option<&Lanes>,
    metric: PicoMetric,
) -> Result<WarpAnalysis, RelError> {
    let mut ex = Exactness::new();
    register(p, metric, &mut ex);
    let mut cx = Ctx {
        lanes,
        block,
        metric,
        gamma: BTreeMap::new(),
        phi: Vec::new(),
        known: BTreeMap::new(),
        masks: Vec::new(),
        opaque: BTreeMap::new(),
        pico: ex.clone(),
        exactness: ex,
        rules: BTreeMap::new(),
        fuel: UNROLL_FUEL,
        failures: Vec::new(),
    };
    let (stmt, exact) = cx.rel(p)?;
    Ok(WarpAnalysis {
        stmt,
        exact,
        exactness: cx.exactness,
        pico_exactness: cx.pico,
        rules: cx.rules,
        failures: cx.failures,
    })
}

/// Analyses `p` for the warp `lanes` under `metric`: `∅; t ⊢ p ∼ s` (Pico's single warp).
pub fn analyze_warp(
    p: &Proto,
    lanes: &Lanes,
    metric: PicoMetric,
) -> Result<WarpAnalysis, RelError> {
    analyze_warp_in_block(p, lanes, None, metric)
}

/// Registers every construct of `p` as exact (constructs the analysis never reaches are
/// dead code for this warp).
pub fn register(p: &Proto, m: PicoMetric, ex: &mut Exactness) {
    match p {
        Proto::Skip => {}
        Proto::Acc(a) => {
            if m.counts(a.space) {
                ex.insert((Kind::Index, a.id), (1, true));
            }
        }
        Proto::Seq(ps) => ps.iter().for_each(|q| register(q, m, ex)),
        Proto::If(id, c, q) => {
            ex.insert((Kind::Conditional, *id), (c.size(), true));
            register(q, m, ex)
        }
        Proto::For(id, _, _, q) => {
            ex.insert((Kind::Loop, *id), (1, true));
            register(q, m, ex)
        }
    }
}

/// Replaces a bound variable by an expression everywhere in a protocol.
pub fn subst_proto(p: &Proto, a: &Atom, by: &NExpr) -> Proto {
    match p {
        Proto::Skip => Proto::Skip,
        Proto::Acc(acc) => Proto::Acc(Access {
            index: acc.index.subst(a, by),
            ..acc.clone()
        }),
        Proto::Seq(ps) => Proto::Seq(ps.iter().map(|q| subst_proto(q, a, by)).collect()),
        Proto::If(id, c, q) => Proto::If(*id, c.subst(a, by), Box::new(subst_proto(q, a, by))),
        Proto::For(id, x, r, q) => {
            let r2 = Range {
                lo: r.lo.subst(a, by),
                hi: r.hi.subst(a, by),
                step: match &r.step {
                    Step::Add(k) => Step::Add(k.subst(a, by)),
                    Step::Mul(k) => Step::Mul(k.subst(a, by)),
                    Step::Sub(k) => Step::Sub(k.subst(a, by)),
                    Step::Div(k) => Step::Div(k.subst(a, by)),
                },
            };
            if matches!(a, Atom::Var(v) if v == x) {
                Proto::For(*id, x.clone(), r2, q.clone())
            } else {
                Proto::For(*id, x.clone(), r2, Box::new(subst_proto(q, a, by)))
            }
        }
    }
}

fn lit_q(c: &Q) -> Option<i64> {
    if c.is_integer() {
        c.to_integer().to_i64()
    } else {
        None
    }
}

impl Ctx<'_> {
    fn mark(&mut self, kind: Kind, id: u32, exact: bool) {
        if let Some(e) = self.exactness.get_mut(&(kind, id)) {
            e.1 &= exact;
        }
        if kind == Kind::Index {
            self.mark_pico(kind, id, exact);
        }
    }
    fn mark_pico(&mut self, kind: Kind, id: u32, exact: bool) {
        if let Some(e) = self.pico.get_mut(&(kind, id)) {
            e.1 &= exact;
        }
    }
    fn rule(&mut self, r: &'static str) {
        *self.rules.entry(r).or_insert(0) += 1;
    }

    // ---------------------------------------------------------------- normal forms

    /// The polynomial of `e`, simplifying `a % k` and `a / k` (literal `k > 0`) by dropping
    /// the monomials of `a` whose coefficients are multiples of `k`, when all coefficients of
    /// `a` are non-negative (atoms are non-negative: `spec/relational.md` assumption A1).
    /// Other operators become opaque atoms.
    fn poly(&mut self, e: &NExpr) -> Poly {
        match e {
            NExpr::Lit(i) => Poly::int(*i),
            NExpr::Atom(a) => Poly::atom(&a.name()),
            NExpr::Bin(NOp::Add, a, b) => self.poly(a).add(&self.poly(b)),
            NExpr::Bin(NOp::Sub, a, b) => self.poly(a).sub(&self.poly(b)),
            NExpr::Bin(NOp::Mul, a, b) => self.poly(a).mul(&self.poly(b)),
            NExpr::Bin(NOp::Shl, a, b) if matches!(**b, NExpr::Lit(0..=40)) => {
                let NExpr::Lit(k) = **b else { unreachable!() };
                self.poly(a).scale(&q(1i64 << k))
            }
            NExpr::Bin(op @ (NOp::Mod | NOp::Div | NOp::Shr), a, b) if matches!(**b, NExpr::Lit(k) if k > 0) =>
            {
                let NExpr::Lit(mut k) = **b else {
                    unreachable!()
                };
                let mut op = *op;
                if op == NOp::Shr {
                    if k > 40 {
                        return self.opaque_atom(e);
                    }
                    k = 1i64 << k;
                    op = NOp::Div;
                }
                let pa = self.poly(a);
                if !pa.nonneg_coeffs() {
                    return self.opaque_atom(e);
                }
                let mut keep = Poly::zero();
                let mut drop = Poly::zero();
                for (m, c) in &pa.terms {
                    let t = Poly {
                        terms: [(m.clone(), c.clone())].into_iter().collect(),
                    };
                    if !m.is_empty() && lit_q(c).is_some_and(|c| c % k == 0) {
                        drop = drop.add(&t);
                    } else {
                        keep = keep.add(&t);
                    }
                }
                if let Some(v) = keep.as_int() {
                    // ⌊v / k⌋ or v mod k for a literal remainder.
                    let r = if op == NOp::Mod { v % k } else { v / k };
                    return if op == NOp::Mod {
                        Poly::int(r)
                    } else {
                        drop.scale(&(Q::from_integer(1.into()) / q(k)))
                            .add(&Poly::int(r))
                    };
                }
                let inner = self.to_expr(&keep);
                let opaque = self.opaque_atom(&NExpr::bin(op, inner, NExpr::Lit(k)));
                if op == NOp::Mod {
                    opaque
                } else {
                    drop.scale(&(Q::from_integer(1.into()) / q(k))).add(&opaque)
                }
            }
            _ => self.opaque_atom(e),
        }
    }

    fn opaque_atom(&mut self, e: &NExpr) -> Poly {
        let name = format!("⟨{e}⟩");
        self.opaque.insert(name.clone(), e.clone());
        Poly::atom(&name)
    }

    /// A polynomial back to an expression (integer coefficients; others become a division).
    fn to_expr(&self, p: &Poly) -> NExpr {
        let mut acc: Option<NExpr> = None;
        for (m, c) in &p.terms {
            let mut t: Option<NExpr> = None;
            for (a, e) in m {
                let base = self.atom_expr(a);
                for _ in 0..*e {
                    t = Some(match t {
                        None => base.clone(),
                        Some(x) => NExpr::bin(NOp::Mul, x, base.clone()),
                    });
                }
            }
            let (Some(num), Some(den)) = (c.numer().to_i64(), c.denom().to_i64()) else {
                // A coefficient outside i64: an unknown (divergent, never closed), so every
                // use of the expression falls back to the worst case — sound.
                return NExpr::Atom(Atom::Unknown(u32::MAX - 1));
            };
            let mut term = match t {
                None => NExpr::Lit(num),
                Some(x) if num == 1 => x,
                Some(x) => NExpr::bin(NOp::Mul, NExpr::Lit(num), x),
            };
            if den != 1 {
                term = NExpr::bin(NOp::Div, term, NExpr::Lit(den));
            }
            acc = Some(match acc {
                None => term,
                Some(x) => NExpr::bin(NOp::Add, x, term),
            });
        }
        acc.unwrap_or(NExpr::Lit(0))
    }

    fn atom_expr(&self, name: &str) -> NExpr {
        if let Some(e) = self.opaque.get(name) {
            return e.clone();
        }
        if let Some(d) = name.strip_prefix("threadIdx.") {
            let dim = match d {
                "x" => crate::core::Dim::X,
                "y" => crate::core::Dim::Y,
                _ => crate::core::Dim::Z,
            };
            return NExpr::Atom(Atom::Tid(dim));
        }
        if let Some(k) = name.strip_prefix('$') {
            return NExpr::Atom(Atom::Unknown(k.parse().unwrap_or(0)));
        }
        if self.gamma.contains_key(name) || self.known.contains_key(name) {
            return NExpr::var(name);
        }
        NExpr::param(name)
    }

    /// Whether atom `name` varies over the lanes (type `D`).
    fn varying(&self, name: &str) -> bool {
        if let Some(e) = self.opaque.get(name) {
            let e = e.clone();
            let mut atoms = Vec::new();
            e.atoms(&mut atoms);
            return atoms.iter().any(|a| self.varying(&a.name()));
        }
        name.starts_with("threadIdx.")
            || name.starts_with('$')
            || self.known.contains_key(name)
            || self.gamma.get(name) == Some(&Ty::D)
    }

    /// Whether atom `name` has a value in every lane (tid, simulated bound variables,
    /// opaque terms over those).
    fn closed(&self, name: &str) -> bool {
        if let Some(e) = self.opaque.get(name) {
            let mut atoms = Vec::new();
            e.atoms(&mut atoms);
            return atoms.iter().all(|a| self.closed(&a.name()));
        }
        name.starts_with("threadIdx.") || self.known.contains_key(name)
    }

    fn venv(&self) -> VEnv {
        VEnv {
            vars: self.known.clone(),
            params: BTreeMap::new(),
        }
    }

    fn eval_poly(&self, p: &Poly) -> Result<Vec<i64>, RelError> {
        let e = self.to_expr(p);
        eval_n(&e, self.lanes, &self.venv()).map_err(|e| RelError::Eval(e.to_string()))
    }

    /// Normalizes a condition's comparisons through polynomials.
    fn norm_cond(&mut self, c: &Cond) -> Cond {
        match c {
            Cond::Bool(b) => Cond::Bool(*b),
            Cond::Cmp(op, a, b) => {
                let d = self.poly(a).sub(&self.poly(b));
                if let Some(v) = d.as_int() {
                    return Cond::Bool(op.apply(v, 0));
                }
                let pa = self.poly(a);
                let pb = self.poly(b);
                Cond::cmp(*op, self.to_expr(&pa), self.to_expr(&pb))
            }
            Cond::And(a, b) => {
                let (x, y) = (self.norm_cond(a), self.norm_cond(b));
                Cond::and(x, y)
            }
            Cond::Or(a, b) => {
                let (x, y) = (self.norm_cond(a), self.norm_cond(b));
                Cond::or(x, y)
            }
            Cond::Not(a) => {
                let x = self.norm_cond(a);
                Cond::negate(x)
            }
        }
    }

    fn cond_atoms(&mut self, c: &Cond) -> Vec<String> {
        let mut atoms = Vec::new();
        c.atoms(&mut atoms);
        let mut names = Vec::new();
        for a in atoms {
            names.push(a.name());
        }
        // Atoms inside opaque sub-terms are seen through `varying`/`closed`.
        names
    }

    fn cond_ty(&mut self, c: &Cond) -> Ty {
        let names = self.cond_atoms(c);
        if names.iter().any(|n| self.varying(n)) {
            Ty::D
        } else {
            Ty::U
        }
    }

    fn cond_closed(&mut self, c: &Cond) -> bool {
        let names = self.cond_atoms(c);
        names.iter().all(|n| self.closed(n))
    }

    /// The active mask `act(Γ) ∧ Φ` and whether it is exact (no conjunct dropped).
    fn mask(&mut self) -> Result<(Vec<bool>, bool), RelError> {
        let w = self.lanes.len();
        let mut m = vec![true; w];
        let mut exact = true;
        for k in &self.masks {
            for (a, b) in m.iter_mut().zip(k) {
                *a &= *b;
            }
        }
        for c in self.phi.clone() {
            if self.cond_closed(&c) {
                let v = eval_c(&c, self.lanes, &self.venv())
                    .map_err(|e| RelError::Eval(e.to_string()))?;
                for (a, b) in m.iter_mut().zip(&v) {
                    *a &= *b;
                }
            } else {
                exact = false;
            }
        }
        Ok((m, exact))
    }

    // ---------------------------------------------------------------- metric analysis

    /// `Γ; Φ ⊢ M(n) ∼ m` (§6.4): the tick `m` and whether it is exact.
    fn metric_acc(&mut self, a: &Access) -> Result<(u64, bool), RelError> {
        if !self.metric.counts(a.space) {
            return Ok((0, true));
        }
        let (mask, mask_exact) = self.mask()?;
        let active = mask.iter().filter(|b| **b).count() as u64;
        if self.metric == PicoMetric::ActiveThreads {
            return Ok((active, mask_exact));
        }
        let p = self.poly(&a.index);
        let mut vary = Poly::zero();
        let mut unif = Poly::zero();
        for (m, c) in &p.terms {
            let t = Poly {
                terms: [(m.clone(), c.clone())].into_iter().collect(),
            };
            if m.is_empty() || m.keys().any(|x| self.varying(x)) {
                vary = vary.add(&t);
            } else {
                unif = unif.add(&t);
            }
        }
        if vary.as_const().is_some() {
            // Case 1 (τ = U): one address for the whole warp — one sector, no conflict.
            let c = match self.metric {
                PicoMetric::Ua { .. } => u64::from(active > 0),
                _ => 0,
            };
            return Ok((c, mask_exact));
        }
        let closed = vary.atoms().iter().all(|x| self.closed(x));
        let worst = match self.metric {
            PicoMetric::Bc { .. } => active.saturating_sub(1),
            _ => active,
        };
        if !closed {
            // Cases 4/5 of ua, case 4 of bc: every active lane may be on its own
            // sector / conflict (`i_W`, `i_W − 1`).
            return Ok((worst, false));
        }
        let idx = self.eval_poly(&vary)?;
        let eb = a.elem_bytes as i64;
        // Byte offsets the uniform part can take, modulo the period of the metric.
        let period = match self.metric {
            PicoMetric::Ua { sector_bytes } => sector_bytes as i64,
            PicoMetric::Bc { banks, bank_bytes } => (banks * bank_bytes) as i64,
            PicoMetric::ActiveThreads => 1,
        };
        let mut g: i64 = period;
        let mut integral = true;
        for c in unif.terms.values() {
            match lit_q(c) {
                Some(c) => g = g.gcd(&(c * eb).rem_euclid(period)),
                None => integral = false,
            }
        }
        if !integral {
            g = 1;
        }
        let bytes: Vec<i64> = idx.iter().map(|i| i * eb).collect();
        let cost_at = |off: i64| -> u64 {
            let sh: Vec<i64> = bytes.iter().map(|b| b + off).collect();
            match self.metric {
                PicoMetric::Ua { sector_bytes } => super::calculus::ua(&mask, &sh, 1, sector_bytes),
                PicoMetric::Bc { banks, bank_bytes } => {
                    // Distinct *element* indices per bank: shifting bytes uniformly keeps
                    // distinctness, so byte addresses stand for indices.
                    super::calculus::bc(&mask, &sh, 1, banks, bank_bytes)
                }
                PicoMetric::ActiveThreads => active,
            }
        };
        // bc under a superset of the active lanes bounds bc under the true mask (bc is
        // monotone in the mask); a 0 there is exact whatever the dropped conjuncts say.
        let superset_zero = |c: u64| matches!(self.metric, PicoMetric::Bc { .. }) && c == 0;
        let relabel_exact = match self.metric {
            // A uniform shift by whole banks permutes the banks (notes, Appendix A item 12).
            PicoMetric::Bc { bank_bytes, .. } => g % bank_bytes as i64 == 0,
            _ => g % period == 0,
        };
        if unif.is_zero() || relabel_exact {
            let c = cost_at(0);
            return Ok((c, mask_exact || superset_zero(c)));
        }
        // A uniform offset of unknown alignment: the worst misalignment (min(·+1, i_W) in
        // Pico's case 4, computed exactly over the possible residues).
        let mut best = 0;
        let mut off = 0;
        while off < period {
            best = best.max(cost_at(off));
            off += g.max(1);
        }
        Ok((best, false))
    }

    // ---------------------------------------------------------------- the rules

    fn rel(&mut self, p: &Proto) -> Result<(SStmt, bool), RelError> {
        match p {
            Proto::Skip => {
                self.rule("SKIP");
                Ok((SStmt::Tick(NExpr::Lit(0)), true))
            }
            Proto::Acc(a) => {
                self.rule("ACC");
                let (m, exact) = self.metric_acc(a)?;
                if self.metric.counts(a.space) {
                    self.mark(Kind::Index, a.id, exact);
                }
                Ok((SStmt::Tick(NExpr::Lit(m as i64)), exact))
            }
            Proto::Seq(ps) => {
                self.rule("SEQ");
                let mut out = Vec::new();
                let mut exact = true;
                for q in ps {
                    let (s, e) = self.rel(q)?;
                    exact &= e;
                    if s != SStmt::Tick(NExpr::Lit(0)) {
                        out.push(s);
                    }
                }
                Ok((seq(out), exact))
            }
            Proto::If(id, c, q) => {
                let c = self.norm_cond(c);
                if let Cond::Bool(b) = c {
                    // A literal condition (after constant folding): IF-U with a known value.
                    self.rule("IF-U");
                    return if b {
                        self.rel(q)
                    } else {
                        Ok((SStmt::Tick(NExpr::Lit(0)), true))
                    };
                }
                match self.cond_ty(&c) {
                    Ty::U => {
                        self.rule("IF-U");
                        let (s, e) = self.rel(q)?;
                        Ok((SStmt::If(c, Box::new(s)), e))
                    }
                    Ty::D => {
                        self.rule("IF-D");
                        let exact = self.cond_closed(&c);
                        self.mark(Kind::Conditional, *id, exact);
                        let names = self.cond_atoms(&c);
                        let pico = !names.iter().any(|n| {
                            n.starts_with('$')
                                || self.known.contains_key(n)
                                || self.gamma.get(n) == Some(&Ty::D)
                        });
                        self.mark_pico(Kind::Conditional, *id, pico);
                        self.phi.push(c);
                        let r = self.rel(q);
                        self.phi.pop();
                        // Dropped conjuncts only matter to the accesses that consult the
                        // mask; their metric analyses report it.
                        let (s, e) = r?;
                        Ok((s, e))
                    }
                }
            }
            Proto::For(id, x, r, q) => {
                self.rule("FOR");
                let r = Range {
                    lo: {
                        let p = self.poly(&r.lo);
                        self.to_expr(&p)
                    },
                    hi: {
                        let p = self.poly(&r.hi);
                        self.to_expr(&p)
                    },
                    step: r.step.clone(),
                };
                match self.rel_for(*id, x, &r, q) {
                    Err(RelError::Loop(v, why)) => {
                        // No relation for this loop: record it, and visit the body with `x`
                        // divergent and unknown so that its constructs are still counted.
                        self.failures.push(format!("loop `{v}`: {why}"));
                        self.mark(Kind::Loop, *id, false);
                        self.mark_pico(Kind::Loop, *id, false);
                        self.gamma.insert(x.clone(), Ty::D);
                        let res = self.rel(q);
                        self.gamma.remove(x);
                        res?;
                        Ok((SStmt::Tick(NExpr::Lit(0)), false))
                    }
                    other => other,
                }
            }
        }
    }

    fn expr_ty(&mut self, e: &NExpr) -> Ty {
        let p = self.poly(e);
        if p.atoms().iter().any(|a| self.varying(a)) {
            Ty::D
        } else {
            Ty::U
        }
    }

    fn step_expr(s: &Step) -> &NExpr {
        match s {
            Step::Add(k) | Step::Mul(k) | Step::Sub(k) | Step::Div(k) => k,
        }
    }

    fn rel_for(
        &mut self,
        id: u32,
        x: &str,
        r: &Range,
        q: &Proto,
    ) -> Result<(SStmt, bool), RelError> {
        let k = Self::step_expr(&r.step).clone();
        let ty = match (self.expr_ty(&r.lo), self.expr_ty(&r.hi), self.expr_ty(&k)) {
            (Ty::U, Ty::U, Ty::U) => Ty::U,
            _ => Ty::D,
        };
        let plo = self.poly(&r.lo);
        let phi = self.poly(&r.hi);
        let pk = self.poly(&k);
        let xa = Atom::Var(x.to_string());
        match ty {
            Ty::U => {
                let small = match (&r.step, plo.as_int(), phi.as_int(), pk.as_int()) {
                    (Step::Add(_), Some(lo), Some(hi), Some(k)) if k > 0 => {
                        (hi - lo) / k < UNROLL_MAX_ITERATIONS
                    }
                    (Step::Sub(_), Some(lo), Some(hi), Some(k)) if k > 0 => {
                        (lo - hi) / k < UNROLL_MAX_ITERATIONS
                    }
                    _ => true,
                };
                if let (true, Some(lo), Some(hi), Some(kv)) =
                    (small, plo.as_int(), phi.as_int(), pk.as_int())
                {
                    // Uniform loop with literal bounds: FOR with `≈` and the loop unrolled
                    // (Pico's optimization pass; each iteration's tick is computed).
                    let mut v = lo;
                    let mut out = Vec::new();
                    let mut exact = true;
                    let conc = Range {
                        lo: NExpr::Lit(lo),
                        hi: NExpr::Lit(hi),
                        step: r.step.clone(),
                    };
                    loop {
                        let ne = if conc.step.decreasing() {
                            v >= hi
                        } else {
                            v <= hi
                        };
                        if !ne {
                            break;
                        }
                        if self.fuel == 0 {
                            return Err(RelError::Fuel(UNROLL_FUEL));
                        }
                        self.fuel -= 1;
                        let body = subst_proto(q, &xa, &NExpr::Lit(v));
                        let (s, e) = self.rel(&body)?;
                        exact &= e;
                        if s != SStmt::Tick(NExpr::Lit(0)) {
                            out.push(s);
                        }
                        let nv = match &conc.step {
                            Step::Add(_) => v.checked_add(kv),
                            Step::Mul(_) => v.checked_mul(kv),
                            Step::Sub(_) => v.checked_sub(kv),
                            Step::Div(_) => v.checked_div(kv),
                        };
                        match nv {
                            Some(n) if n != v => v = n,
                            _ => return Err(RelError::Loop(x.into(), conc.to_string())),
                        }
                    }
                    self.mark(Kind::Loop, id, true);
                    return Ok((seq(out), exact));
                }
                // Lemma 5.6: a uniform range is related to itself (`≈`), x: U.
                self.gamma.insert(x.to_string(), Ty::U);
                let res = self.rel(q);
                self.gamma.remove(x);
                let (s, e) = res?;
                self.mark(Kind::Loop, id, true);
                Ok((SStmt::For(x.to_string(), r.clone(), Box::new(s)), e))
            }
            Ty::D => {
                let names: Vec<String> = plo
                    .atoms()
                    .into_iter()
                    .chain(phi.atoms())
                    .chain(pk.atoms())
                    .collect();
                if names.iter().all(|n| self.closed(n)) {
                    return self.rel_for_closed(id, x, r, q);
                }
                self.rel_for_divergent(id, x, r, q, &plo, &phi, &pk)
            }
        }
    }

    /// A divergent loop whose range is known in every lane (Lemma 5.5 generalized): the
    /// scalar range counts the warp's iterations `0..N−1` with `N` the largest lane count;
    /// each iteration's body is analysed with the lanes' values of `x` and the mask of the
    /// lanes whose range is still nonempty (`act(Γ)`). Exact.
    fn rel_for_closed(
        &mut self,
        id: u32,
        x: &str,
        r: &Range,
        q: &Proto,
    ) -> Result<(SStmt, bool), RelError> {
        let env = self.venv();
        let ev = |e: &NExpr| eval_n(e, self.lanes, &env).map_err(|e| RelError::Eval(e.to_string()));
        let mut vals = ev(&r.lo)?;
        let hi = ev(&r.hi)?;
        let k = ev(Self::step_expr(&r.step))?;
        let dec = r.step.decreasing();
        let mut ticks: Vec<SStmt> = Vec::new();
        let mut exact = true;
        let saved_known = self.known.get(x).cloned();
        loop {
            let ne: Vec<bool> = vals
                .iter()
                .zip(&hi)
                .map(|(v, h)| if dec { v >= h } else { v <= h })
                .collect();
            if ne.iter().all(|b| !b) {
                break;
            }
            if self.fuel == 0 {
                return Err(RelError::Fuel(UNROLL_FUEL));
            }
            self.fuel -= 1;
            self.known.insert(x.to_string(), vals.clone());
            self.masks.push(ne);
            let res = self.rel(q);
            self.masks.pop();
            let (s, e) = res?;
            exact &= e;
            ticks.push(s);
            let next: Option<Vec<i64>> = vals
                .iter()
                .zip(&k)
                .map(|(v, k)| match &r.step {
                    Step::Add(_) => v.checked_add(*k),
                    Step::Mul(_) => v.checked_mul(*k),
                    Step::Sub(_) => v.checked_sub(*k),
                    Step::Div(_) => v.checked_div(*k),
                })
                .collect();
            match next {
                Some(n) if n != vals => vals = n,
                _ => return Err(RelError::Loop(x.into(), r.to_string())),
            }
        }
        match saved_known {
            Some(v) => self.known.insert(x.to_string(), v),
            None => self.known.remove(x),
        };
        self.mark(Kind::Loop, id, true);
        self.mark_pico(Kind::Loop, id, false);
        Ok((fit_ticks(x, ticks), exact))
    }

    /// A divergent loop `x ∈ lo..hi step +k` with a uniform `hi` and step and a `lo` whose
    /// lane-varying part is known per lane (grid-stride loops): Pico's loop analysis
    /// substitutes the lane maximizing the iteration count (`argmin lo`); the scalar range
    /// is `lo(l*)..hi`, `x` is `x' + (lo − lo(l*))` in the body, and `x ≤ hi` joins `Φ`.
    /// The binding is `D` (inexact by Pico's exactness check).
    #[allow(clippy::too_many_arguments)]
    fn rel_for_divergent(
        &mut self,
        id: u32,
        x: &str,
        r: &Range,
        q: &Proto,
        plo: &Poly,
        phi: &Poly,
        pk: &Poly,
    ) -> Result<(SStmt, bool), RelError> {
        let fail = || RelError::Loop(x.into(), r.to_string());
        let Step::Add(_) = r.step else {
            self.mark(Kind::Loop, id, false);
            return Err(fail());
        };
        if phi.atoms().iter().any(|a| self.varying(a)) || pk.atoms().iter().any(|a| self.varying(a))
        {
            self.mark(Kind::Loop, id, false);
            return Err(fail());
        }
        let mut vary = Poly::zero();
        let mut unif = Poly::zero();
        for (m, c) in &plo.terms {
            let t = Poly {
                terms: [(m.clone(), c.clone())].into_iter().collect(),
            };
            if !m.is_empty() && m.keys().any(|a| self.varying(a)) {
                vary = vary.add(&t);
            } else {
                unif = unif.add(&t);
            }
        }
        if !vary.atoms().iter().all(|a| self.closed(a)) {
            self.mark(Kind::Loop, id, false);
            return Err(fail());
        }
        let lv = self.eval_poly(&vary)?;
        let (mask, _) = self.mask()?;
        let mut min = lv
            .iter()
            .zip(&mask)
            .filter(|(_, b)| **b)
            .map(|(v, _)| *v)
            .min()
            .unwrap_or(0);
        // With the block's lanes known and `v` over thread indices only, take the minimum
        // over the whole block: every warp then gets the same scalar range (still `≤`:
        // the scalar loop has at least as many iterations as any lane).
        if let Some(block) = self.block {
            if vary.atoms().iter().all(|a| a.starts_with("threadIdx.")) {
                let e = self.to_expr(&vary);
                if let Ok(bv) = eval_n(&e, block, &VEnv::default()) {
                    min = min.min(bv.into_iter().min().unwrap_or(min));
                }
            }
        }
        let xs = format!("{x}'");
        // The largest iteration count over the blocks: `blockIdx` occurring in `lo` only,
        // with non-negative coefficients, is set to 0 (more iterations: `≤`).
        for a in unif.atoms() {
            if a.starts_with("blockIdx.")
                && !phi.mentions(&a)
                && !pk.mentions(&a)
                && unif.nonneg_coeffs()
            {
                unif = unif.subst(&a, &Poly::zero());
            }
        }
        let scalar_lo = unif.add(&Poly::int(min));
        let delta = vary.sub(&Poly::int(min));
        let xv = Poly::atom(&xs).add(&delta);
        let xv_e = {
            self.gamma.insert(xs.clone(), Ty::U);
            self.to_expr(&xv)
        };
        let body = subst_proto(q, &Atom::Var(x.to_string()), &xv_e);
        let bound = Cond::Cmp(COp::Le, xv_e.clone(), r.hi.clone());
        self.phi.push(bound);
        let res = self.rel(&body);
        self.phi.pop();
        self.gamma.remove(&xs);
        let (s, body_exact) = res?;
        self.mark(Kind::Loop, id, false);
        self.mark_pico(Kind::Loop, id, false);
        if body_exact && zero_cost(&s) {
            // 0 = 0 whatever the iteration count.
            return Ok((SStmt::Tick(NExpr::Lit(0)), true));
        }
        let range = Range {
            lo: self.to_expr(&scalar_lo),
            hi: r.hi.clone(),
            step: r.step.clone(),
        };
        Ok((SStmt::For(xs, range, Box::new(s)), false))
    }
}

/// Whether every tick of `s` is the literal 0.
fn zero_cost(s: &SStmt) -> bool {
    match s {
        SStmt::Tick(n) => *n == NExpr::Lit(0),
        SStmt::Seq(v) => v.iter().all(zero_cost),
        SStmt::If(_, b) | SStmt::For(_, _, b) => zero_cost(b),
    }
}

fn seq(mut v: Vec<SStmt>) -> SStmt {
    match v.len() {
        0 => SStmt::Tick(NExpr::Lit(0)),
        1 => v.pop().unwrap_or(SStmt::Tick(NExpr::Lit(0))),
        _ => SStmt::Seq(v),
    }
}

/// Presents the per-iteration statements of a simulated divergent loop: when every
/// iteration is a literal tick `c_j` and `c_j` is affine in `j`, as
/// `for x ∈ 0..N−1 {tick(c₀ + d·x)}` (Example 4.1's `tick(W − x)`); otherwise as the
/// sequence. Both have the same cost.
fn fit_ticks(x: &str, ticks: Vec<SStmt>) -> SStmt {
    let lits: Option<Vec<i64>> = ticks
        .iter()
        .map(|s| match s {
            SStmt::Tick(NExpr::Lit(c)) => Some(*c),
            _ => None,
        })
        .collect();
    if let Some(c) = lits {
        if c.len() >= 2 {
            let d = c[1] - c[0];
            if c.windows(2).all(|w| w[1] - w[0] == d) {
                let xe = NExpr::var(x);
                let body = match d.cmp(&0) {
                    std::cmp::Ordering::Equal => NExpr::Lit(c[0]),
                    std::cmp::Ordering::Greater => NExpr::bin(
                        NOp::Add,
                        NExpr::Lit(c[0]),
                        NExpr::bin(NOp::Mul, NExpr::Lit(d), xe),
                    ),
                    std::cmp::Ordering::Less => NExpr::bin(
                        NOp::Sub,
                        NExpr::Lit(c[0]),
                        if d == -1 {
                            xe
                        } else {
                            NExpr::bin(NOp::Mul, NExpr::Lit(-d), xe)
                        },
                    ),
                };
                return SStmt::For(
                    x.to_string(),
                    Range::upto(NExpr::Lit(0), NExpr::Lit(c.len() as i64 - 1)),
                    Box::new(SStmt::Tick(body)),
                );
            }
        }
    }
    seq(ticks)
}

/// Totals of an exactness map: `(exact, total)` per kind, weights included.
pub fn totals(ex: &Exactness) -> BTreeMap<Kind, (usize, usize)> {
    let mut out: BTreeMap<Kind, (usize, usize)> = BTreeMap::new();
    for k in [Kind::Conditional, Kind::Loop, Kind::Index] {
        out.insert(k, (0, 0));
    }
    for ((k, _), (w, e)) in ex {
        let t = out.entry(*k).or_insert((0, 0));
        t.1 += w;
        if *e {
            t.0 += w;
        }
    }
    out
}
