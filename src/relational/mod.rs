//! Pico's relational cost analysis (Blike et al., POPL'26; notes in
//! `../shared/notes/blike-2026-pico-warp-level-cost.md`): exact (`=`) and upper (`≤`) per-warp
//! costs for uncoalesced accesses (`ua`, warpcert's `sectors`) and bank conflicts (`bc`,
//! warpcert's `conflicts`), also under thread divergence. Normative description:
//! `spec/relational.md`.
//!
//! Pipeline: [`translate`] (core program → protocol `p`) → [`analysis`] (per warp:
//! `∅; t ⊢ p ∼ s`, metric and loop analyses, exactness) → [`cost`] (closed form of `s`) →
//! [`RelResult`] (maximum over the block's warps).
//!
//! * [`calculus`]: the Pico calculus as executable code (vector expressions, protocols,
//!   Resource Calculus, their semantics, `M_E`, `ua`, `bc`).
//! * [`poly`]: polynomials over ℚ and Faulhaber sums.

pub mod analysis;
pub mod calculus;
pub mod cost;
pub mod poly;
pub mod translate;
pub mod witness;

use crate::core::metric::Q;
use crate::core::{Hardware, Launch, MetricName, Program};
use analysis::{analyze_warp_in_block, totals, Exactness, Kind};
use calculus::{Atom, Lanes, NExpr, PicoMetric, Proto, SStmt};
use num_traits::Zero;
use poly::Poly;
use std::collections::BTreeMap;

/// The relation a result satisfies between the true per-warp maximum cost and the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// The bound equals the largest per-warp cost for every parameter value satisfying the
    /// assumptions.
    Exact,
    /// The bound is at least the largest per-warp cost.
    Upper,
    /// The bound is at most the largest per-warp cost.
    Lower,
}

impl Relation {
    /// `exact`, `upper` or `lower`.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Exact => "exact",
            Relation::Upper => "upper",
            Relation::Lower => "lower",
        }
    }
}

/// The Pico metric for a warpcert metric name: `sectors` ↦ `ua` (sectors of
/// `hw.sector_bytes` bytes), `conflicts` ↦ `bc` (`hw.banks` banks of `hw.bank_bytes` bytes).
/// Other metrics are not relational (`None`).
pub fn pico_metric(m: MetricName, hw: &Hardware) -> Option<PicoMetric> {
    match m {
        MetricName::Sectors => Some(PicoMetric::Ua {
            sector_bytes: hw.sector_bytes,
        }),
        MetricName::Conflicts => Some(PicoMetric::Bc {
            banks: hw.banks,
            bank_bytes: hw.bank_bytes,
        }),
        _ => None,
    }
}

/// One warp's result.
#[derive(Clone, Debug)]
pub struct WarpResult {
    /// Warp index within the block.
    pub warp: u64,
    /// The sequential program.
    pub stmt: SStmt,
    /// Its closed form.
    pub cost: Poly,
    /// Whether `cost` equals the warp's cost (relational step and closed form exact).
    pub exact: bool,
}

/// The relational analysis of one kernel under one metric.
#[derive(Clone, Debug)]
pub struct RelResult {
    /// The protocol of the kernel.
    pub proto: Proto,
    /// Per warp of the block (warps with the same closed form are all listed).
    pub warps: Vec<WarpResult>,
    /// Distinct closed forms over the warps; the bound is their maximum.
    pub forms: Vec<Poly>,
    /// `exact` if every warp is exact, else `upper`.
    pub relation: Relation,
    /// Exactness per construct (exact iff exact in every warp).
    pub exactness: Exactness,
    /// The same by Pico's criterion (see [`analysis::WarpAnalysis::pico_exactness`]).
    pub pico_exactness: Exactness,
    /// Rule applications summed over warps.
    pub rules: BTreeMap<&'static str, usize>,
    /// Side conditions of the closed forms.
    pub assumptions: Vec<String>,
    /// Why there is no bound (untranslatable or unrelatable loops); empty when there is one.
    pub failures: Vec<String>,
}

impl RelResult {
    /// Whether a bound was found.
    pub fn has_bound(&self) -> bool {
        self.failures.is_empty()
    }
    /// The bound as text: the closed form, or `max(f₁, f₂, …)` over the warps' forms.
    pub fn bound_string(&self) -> String {
        match self.forms.len() {
            0 => "0".into(),
            1 => self.forms[0].to_string(),
            _ => format!(
                "max({})",
                self.forms
                    .iter()
                    .map(|f| f.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    /// The bound at parameter values `params` (atoms not given are an error: `None`).
    /// Opaque atoms `⌊(e)/k⌋` are evaluated by [`eval_atom`].
    pub fn eval(&self, params: &BTreeMap<String, i64>) -> Option<Q> {
        let mut best: Option<Q> = None;
        for f in &self.forms {
            let v = f.eval(&|a| eval_atom(a, params))?;
            best = Some(match best {
                Some(b) if b >= v => b,
                _ => v,
            });
        }
        Some(best.unwrap_or_else(Q::zero))
    }
    /// `(exact, total)` per kind.
    pub fn totals(&self) -> BTreeMap<Kind, (usize, usize)> {
        totals(&self.exactness)
    }
    /// `(exact, total)` per kind by Pico's criterion.
    pub fn pico_totals(&self) -> BTreeMap<Kind, (usize, usize)> {
        totals(&self.pico_exactness)
    }
}

/// Value of an atom of a closed form: a parameter, or `⌊(p)/k⌋` with `p` a polynomial over
/// parameters printed by [`Poly`]'s `Display` (evaluated by a small parser).
pub fn eval_atom(a: &str, params: &BTreeMap<String, i64>) -> Option<Q> {
    if let Some(v) = params.get(a) {
        return Some(crate::core::metric::q(*v));
    }
    let look = |x: &str| params.get(x).map(|v| crate::core::metric::q(*v));
    if let Some((lo, hi, op, k)) = iterations_parts(a) {
        let int = |t: &str| {
            let v = fold_poly_text(t, &look)?;
            v.is_integer()
                .then(|| num_traits::ToPrimitive::to_i64(&v.to_integer()))
                .flatten()
        };
        return iterations(int(lo)?, int(hi)?, op, int(k)?).map(crate::core::metric::q);
    }
    let (num, k) = floor_parts(a)?;
    let k = match k.strip_prefix('(').and_then(|k| k.strip_suffix(')')) {
        Some(kp) => fold_poly_text(kp, &look)?,
        None => crate::core::metric::q(k.parse().ok()?),
    };
    let v = fold_poly_text(num, &look)?;
    if k.is_zero() || !k.is_integer() || !v.is_integer() {
        return None;
    }
    Some(Q::from_integer(num_integer::Integer::div_floor(
        &v.to_integer(),
        &k.to_integer(),
    )))
}

/// `#iterations(lo..hi step ⊙k)` ↦ `(lo, hi, ⊙, k)` (`⊙ ∈ {*, /, -}`; `lo`, `hi`, `k`
/// polynomial texts), the atom `cost::closed_form` gives a multiplicative, dividing or
/// decreasing loop.
fn iterations_parts(a: &str) -> Option<(&str, &str, char, &str)> {
    let inner = a.strip_prefix("#iterations(")?.strip_suffix(')')?;
    let (range, step) = inner.split_once(" step ")?;
    let (lo, hi) = range.split_once("..")?;
    let mut cs = step.chars();
    let op = cs.next().filter(|c| matches!(c, '*' | '/' | '-'))?;
    Some((lo, hi, op, cs.as_str()))
}

/// Rounds of `for x ∈ lo..hi step ⊙k` (spec/relational.md §2: `x ← x ⊙ k` while `lo ≤ hi`
/// for `*`, `lo ≥ hi` for the decreasing `/` and `-`; `/` truncates). `None` when the loop
/// does not end within 2²⁰ rounds or overflows.
fn iterations(lo: i64, hi: i64, op: char, k: i64) -> Option<i64> {
    let mut x = lo;
    let mut n = 0i64;
    while if op == '*' { x <= hi } else { x >= hi } {
        n += 1;
        if n > 1 << 20 {
            return None;
        }
        x = match op {
            '*' => x.checked_mul(k)?,
            '/' => x.checked_div(k)?,
            _ => x.checked_sub(k)?,
        };
    }
    Some(n)
}

/// `⌊(num)/k⌋` ↦ `(num, k)` (`k` a literal or `(poly)`).
fn floor_parts(a: &str) -> Option<(&str, &str)> {
    a.strip_prefix("⌊(")?.strip_suffix('⌋')?.rsplit_once(")/")
}

/// The names an atom of a closed form reads, when it is one of the forms [`eval_atom`]
/// evaluates (a name, or `⌊(p)/k⌋` with `p`, `k` polynomials over names); `None` for any other
/// atom (an opaque term, a nested floor), which no parameter value evaluates. `#iterations(…)`
/// atoms read the names of their bounds and step.
pub fn atom_names(a: &str) -> Option<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || matches!(c, '_' | '.' | '#' | '$');
    if !a.is_empty() && a.chars().all(ident) {
        return Some(vec![a.to_string()]);
    }
    let names = std::cell::RefCell::new(Vec::new());
    let record = |x: &str| {
        names.borrow_mut().push(x.to_string());
        Some(Q::zero())
    };
    let k = if let Some((lo, hi, _, k)) = iterations_parts(a) {
        fold_poly_text(lo, &record)?;
        fold_poly_text(hi, &record)?;
        format!("({k})")
    } else {
        let (num, k) = floor_parts(a)?;
        fold_poly_text(num, &record)?;
        k.to_string()
    };
    let k = k.as_str();
    match k.strip_prefix('(').and_then(|k| k.strip_suffix(')')) {
        Some(kp) => {
            fold_poly_text(kp, &record)?;
        }
        None => {
            k.parse::<i64>().ok()?;
        }
    }
    let mut names = names.into_inner();
    if names.iter().any(|n| !n.chars().all(ident)) {
        return None;
    }
    names.sort();
    names.dedup();
    Some(names)
}

/// Evaluates the `Display` form of a [`Poly`] (`c*a^e*b + …`), reading names with `look`.
fn fold_poly_text(s: &str, look: &dyn Fn(&str) -> Option<Q>) -> Option<Q> {
    let s = s.replace(" - ", " + -");
    let mut total = Q::zero();
    for term in s.split(" + ") {
        let (neg, term) = match term.strip_prefix('-') {
            Some(t) => (true, t),
            None => (false, term),
        };
        let mut v = crate::core::metric::q(1);
        for f in term.split('*') {
            let (base, e) = match f.split_once('^') {
                Some((b, e)) => (b, e.parse::<u32>().ok()?),
                None => (f, 1),
            };
            let bv = if let Some((n, d)) = base.split_once('/') {
                Q::new(n.parse::<i64>().ok()?.into(), d.parse::<i64>().ok()?.into())
            } else if let Ok(n) = base.parse::<i64>() {
                crate::core::metric::q(n)
            } else {
                look(base)?
            };
            for _ in 0..e {
                v *= &bv;
            }
        }
        total += if neg { -v } else { v };
    }
    Some(total)
}

/// Whether an assumption of a closed form (`P >= c`, [`cost::ClosedForm::assumptions`])
/// holds at `params`; `None` when it is not of that shape or reads an atom without a value.
pub fn assumption_holds(a: &str, params: &BTreeMap<String, i64>) -> Option<bool> {
    let (lhs, rhs) = a.split_once(" >= ")?;
    let look = |x: &str| eval_atom(x, params);
    let l = fold_poly_text(lhs, &look)?;
    let r = fold_poly_text(rhs, &look)?;
    Some(l >= r)
}

/// The first atom of `forms` that is not a formula over `params` (see [`atom_names`]), with
/// the name it reads that is not a parameter (`None`: the atom is not evaluable at all).
/// A bound with such an atom is no answer (issue 14: a free loop counter `i` was printed).
pub fn non_parameter_atom(
    forms: &[Poly],
    params: &std::collections::BTreeSet<String>,
) -> Option<(String, Option<String>)> {
    for f in forms {
        for a in f.atoms() {
            match atom_names(&a) {
                None => return Some((a, None)),
                Some(ns) => {
                    if let Some(n) = ns.into_iter().find(|n| !params.contains(n)) {
                        return Some((a, Some(n)));
                    }
                }
            }
        }
    }
    None
}

/// The lanes of warp `w` of a block of `launch`.
pub fn warp_lanes(launch: &Launch, hw: &Hardware, w: u64) -> Lanes {
    Lanes {
        tid: launch
            .warp_lanes(hw, w)
            .map(|t| launch.thread_index(t))
            .collect(),
    }
}

/// Replaces `threadIdx.d` by its value when it is the same in every lane of `lanes`.
pub fn specialize(p: &Proto, lanes: &Lanes) -> Proto {
    let mut out = p.clone();
    for d in crate::core::Dim::ALL {
        let vals: Vec<i64> = lanes.tid.iter().map(|t| t[d.index()]).collect();
        if let Some(v) = vals.first() {
            if vals.iter().all(|x| x == v) {
                out = analysis::subst_proto(&out, &Atom::Tid(d), &NExpr::Lit(*v));
            }
        }
    }
    out
}

/// Analyses `prog` for `metric` (`sectors` or `conflicts`) under `launch` and `hw`: the
/// per-warp bound (maximum over the block's warps and all blocks, since `blockIdx` stays
/// symbolic), its relation, and the exactness accounting.
///
/// Errors: a metric that is not relational; a simulation error (arithmetic error while
/// simulating lanes, or more than [`analysis::UNROLL_FUEL`] simulated iterations).
pub fn analyze(
    prog: &Program,
    metric: MetricName,
    hw: &Hardware,
    launch: &Launch,
) -> Result<RelResult, String> {
    let m = pico_metric(metric, hw).ok_or_else(|| {
        format!("metric `{metric}` has no relational analysis (use sectors or conflicts)")
    })?;
    // The translation and the analysis recurse along the program's nesting.
    let mut r = crate::core::stack::with_big_stack(|| {
        let tr = translate::translate(prog);
        analyze_proto(&tr.proto, m, hw, launch, &tr.unsupported)
    })?;
    // A formula is an answer only over the kernel's (non-float) parameters.
    let params: std::collections::BTreeSet<String> = prog
        .params
        .iter()
        .filter(|p| p.ty != crate::core::Ty::Float)
        .map(|p| p.name.clone())
        .collect();
    if let Some((atom, name)) = non_parameter_atom(&r.forms, &params) {
        r.failures.push(match name {
            Some(n) => format!(
                "the closed form contains `{atom}`, which reads `{n}`, not a kernel parameter"
            ),
            None => format!(
                "the closed form contains `{atom}`, not a formula over the kernel's parameters"
            ),
        });
        r.relation = Relation::Upper;
    }
    Ok(r)
}

/// [`analyze`] on a protocol; `unsupported` lists constructs the translation could not
/// represent (they become failures).
pub fn analyze_proto(
    proto: &Proto,
    m: PicoMetric,
    hw: &Hardware,
    launch: &Launch,
    unsupported: &[(u32, String)],
) -> Result<RelResult, String> {
    let mut warps = Vec::new();
    let mut exactness: Exactness = BTreeMap::new();
    let mut pico_exactness: Exactness = BTreeMap::new();
    let mut rules: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut failures: Vec<String> = unsupported
        .iter()
        .map(|(l, w)| format!("line {l}: {w}"))
        .collect();
    let mut assumptions = Vec::new();
    let mut all_exact = true;
    let block = Lanes {
        tid: (0..launch.block_threads())
            .map(|t| launch.thread_index(t))
            .collect(),
    };
    for w in 0..launch.warps_per_block(hw) {
        let lanes = warp_lanes(launch, hw, w);
        let p = specialize(proto, &lanes);
        let wa = analyze_warp_in_block(&p, &lanes, Some(&block), m).map_err(|e| e.to_string())?;
        for (k, (wt, e)) in wa.exactness {
            let ent = exactness.entry(k).or_insert((wt, true));
            ent.1 &= e;
        }
        for (k, (wt, e)) in wa.pico_exactness {
            let ent = pico_exactness.entry(k).or_insert((wt, true));
            ent.1 &= e;
        }
        for (r, n) in wa.rules {
            *rules.entry(r).or_insert(0) += n;
        }
        for f in wa.failures {
            if !failures.contains(&f) {
                failures.push(f);
            }
        }
        let cf = match cost::closed_form(&wa.stmt) {
            Ok(c) => c,
            Err(e) => {
                // Every warp of a block usually fails the same way: say it once.
                if !failures.contains(&e) {
                    failures.push(e);
                }
                continue;
            }
        };
        assumptions.extend(cf.assumptions.iter().cloned());
        let exact = wa.exact && cf.exact;
        all_exact &= exact;
        warps.push(WarpResult {
            warp: w,
            stmt: wa.stmt,
            cost: cf.poly,
            exact,
        });
    }
    assumptions.sort();
    assumptions.dedup();
    let mut forms: Vec<Poly> = Vec::new();
    for w in &warps {
        if !forms.contains(&w.cost) {
            forms.push(w.cost.clone());
        }
    }
    // Drop a form dominated by another: `f − g` with non-negative coefficients means
    // `f ≥ g`, since atoms are non-negative (assumption A1 and the closed forms' assumptions).
    let all = forms.clone();
    forms.retain(|g| !all.iter().any(|f| f != g && f.sub(g).nonneg_coeffs()));
    forms.sort();
    if forms
        .iter()
        .any(|f| f.atoms().iter().any(|a| a.contains("blockIdx.")))
    {
        failures.push(
            "the closed form depends on blockIdx (a per-block cost; the maximum over blocks \
             is not computed)"
                .into(),
        );
    }
    Ok(RelResult {
        proto: proto.clone(),
        warps,
        forms,
        relation: if all_exact && failures.is_empty() {
            Relation::Exact
        } else {
            Relation::Upper
        },
        exactness,
        pico_exactness,
        rules,
        assumptions,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::metric::q;

    fn env(kv: &[(&str, i64)]) -> BTreeMap<String, i64> {
        kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    /// `for (i = 1; i < n; i *= 2)` runs ⌈log₂ n⌉ rounds (1, 2, 4, 8 at n = 9) and
    /// `for (s = n; s > 0; s >>= 1)` ⌊log₂ n⌋ + 1 (9, 4, 2, 1): hand counts
    /// (tests/precision/doubling.cu, halving.cu).
    #[test]
    fn iteration_counts_evaluate() {
        let e = env(&[("n", 9)]);
        let up = "#iterations(1..n - 1 step *2)";
        let down = "#iterations(n..1 step /2)";
        assert_eq!(eval_atom(up, &e), Some(q(4)));
        assert_eq!(eval_atom(down, &e), Some(q(4)));
        assert_eq!(eval_atom(up, &env(&[("n", 1)])), Some(q(0)));
        assert_eq!(eval_atom(down, &env(&[("n", 0)])), Some(q(0)));
        // `x *= 1` from 1 never ends: no value rather than a wrong one.
        assert_eq!(eval_atom("#iterations(1..n step *1)", &e), None);
        assert_eq!(atom_names(up), Some(vec!["n".to_string()]));
    }

    /// A closed form reading a loop counter `i` (issue 14's triangular nest), an unknown
    /// `$3` or an opaque term is not an answer; one over parameters is.
    #[test]
    fn only_formulas_over_parameters_are_answers() {
        let params: std::collections::BTreeSet<String> =
            ["m", "n", "s2"].iter().map(|s| s.to_string()).collect();
        let ok = Poly::atom("⌊(m - 1)/(s2)⌋").add(&Poly::atom("n"));
        assert_eq!(non_parameter_atom(&[ok], &params), None);
        let free = Poly::atom("⌊(-i + m - 1)/(s2)⌋").mul(&Poly::atom("n"));
        assert_eq!(
            non_parameter_atom(&[free], &params),
            Some(("⌊(-i + m - 1)/(s2)⌋".to_string(), Some("i".to_string())))
        );
        let unknown = Poly::atom("$3");
        assert_eq!(
            non_parameter_atom(&[unknown], &params),
            Some(("$3".to_string(), Some("$3".to_string())))
        );
        let opaque = Poly::atom("(n % 4)");
        assert_eq!(
            non_parameter_atom(&[opaque], &params),
            Some(("(n % 4)".to_string(), None))
        );
    }

    /// Assumptions `P >= c` are evaluated; other shapes have no value.
    #[test]
    fn assumptions_evaluate() {
        let e = env(&[("n", 3), ("m", 1)]);
        assert_eq!(assumption_holds("-m + n >= 0", &e), Some(true));
        assert_eq!(assumption_holds("m - n >= 0", &e), Some(false));
        assert_eq!(assumption_holds("m - n", &e), None);
    }
}
