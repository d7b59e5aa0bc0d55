//! The search for a counterexample to a claimed bound (issue 19): parameter values, array
//! contents and a warp of block 0 whose run under the lock-step semantics
//! ([`crate::semantics::run_warp`]) costs more than the claim at those values (less, for a
//! claimed lower bound).
//!
//! **Parameters.** Each scalar `int` parameter ranges over values `≥ 0` (the claim's
//! domain, [`super::expr`]): small values, row lengths around multiples of the warp size
//! and the sector (`32k − 1, 32k, 32k + 1, 32k + 4`: misaligned rows are where a bound
//! assuming alignment fails), and powers of two. With warpcert's own bound `B` (the
//! analysis's tightest formula) the points are tried in increasing order of
//! `claim(p) / B(p)` — where the claim leaves the least room above what the analysis
//! says a warp may cost — then pseudo-random points (a fixed seed) as a fallback.
//! Non-`int` parameters are 1 (`true`).
//!
//! **Inputs.** The all-zero input, then adversarial contents for data-dependent branches
//! and indices, each stated cell by cell in the witness: alternating `0`/`2` (splits
//! `x < 1`-style branches), spread indices `8·i` (one sector per lane), a bank-conflict
//! pattern `32·(i mod 8)` replicated in every byte, and two pseudo-random fillings.
//! **Warps.** The warps of block 0 of a one-block grid are run (all of them in blocks of
//! up to 8 warps, else a sample: the first four, the middle, the last two and the previous
//! point's extreme warp); the costliest (cheapest, for a lower bound) is the candidate.

use super::expr::ClaimExpr;
use super::Relation;
use crate::core::assertion::Poly;
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, Metric, MetricName, Program, Ty};
use crate::semantics::store::random_value;
use crate::semantics::{run_warp, ArrayInit, Inputs, Params, RunOptions, Value};
use num_traits::{Signed, Zero};
use std::collections::BTreeMap;

/// Limits of the search.
#[derive(Clone, Debug)]
pub struct SearchLimits {
    /// Most parameter points tried.
    pub points: usize,
    /// Most rule applications of the semantics over the whole search.
    pub budget: u64,
    /// Cells stated per array for explicit contents (cells beyond read the default `0`).
    pub cells: usize,
    /// How many of the first points are also tried on the adversarial inputs.
    pub adversarial_points: usize,
}

impl Default for SearchLimits {
    /// 100 points (24 of them on the adversarial inputs), 5·10⁷ rule applications, 4096
    /// cells.
    fn default() -> Self {
        SearchLimits {
            points: 100,
            budget: 50_000_000,
            cells: 4096,
            adversarial_points: 24,
        }
    }
}

/// A counterexample found by the semantics (not yet replayed by the kernel).
#[derive(Clone, Debug)]
pub struct Counterexample {
    /// Values of the program's scalar parameters (non-`int` ones as 1).
    pub params: Vec<(String, i64)>,
    /// Warp index in block 0.
    pub warp: u64,
    /// Its cost.
    pub cost: Q,
    /// The claim at `params`.
    pub claimed: Q,
    /// The array contents (explicit; empty map = all-zero input).
    pub inputs: Inputs,
    /// The name of the input family (`zero`, `alternating`, …).
    pub input_name: String,
}

/// What the search did, for the report.
#[derive(Clone, Debug, Default)]
pub struct SearchLog {
    /// Parameter points tried.
    pub points: usize,
    /// Warp runs.
    pub runs: usize,
    /// Runs that failed (run-time errors, out of fuel), with the first error.
    pub failed: usize,
    /// The first run-time error.
    pub first_error: Option<String>,
    /// Whether the budget ran out.
    pub out_of_budget: bool,
    /// The best ratio cost / claim seen (upper) or claim / cost (lower), with its point.
    pub closest: Option<(f64, String)>,
}

/// The scalar parameters the search sets (not `blockIdx.*`/`gridDim.*`, which the launch
/// fixes), with their types.
fn scalar_params(prog: &Program) -> Vec<(String, Ty)> {
    prog.params
        .iter()
        .filter(|p| !p.name.starts_with("blockIdx.") && !p.name.starts_with("gridDim."))
        .map(|p| (p.name.clone(), p.ty))
        .collect()
}

/// The candidate values of one `int` parameter (module documentation).
fn axis(warp: i64) -> Vec<i64> {
    let mut v: Vec<i64> = (0..=9).collect();
    for k in [1, 2, 3, 4, 8] {
        let w = warp * k;
        v.extend([w - 1, w, w + 1, w + 4]);
    }
    v.extend([16, 100, 127, 255, 256, 257, 1000, 1024, 1025]);
    v.sort();
    v.dedup();
    v.retain(|x| *x >= 0);
    v
}

/// A small deterministic generator (SplitMix64) for the fallback points.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The parameter points, in the order they are tried.
fn points(
    ints: &[String],
    claim: &ClaimExpr,
    ours: Option<&Poly>,
    warp: i64,
    limit: usize,
) -> Vec<BTreeMap<String, i64>> {
    let ax = axis(warp);
    let mut grid: Vec<BTreeMap<String, i64>> = vec![BTreeMap::new()];
    // full products for up to two parameters; the diagonal and pairs with small values
    // beyond
    for (k, x) in ints.iter().enumerate() {
        let vals: Vec<i64> = if k < 2 {
            ax.clone()
        } else {
            vec![0, 1, 7, 32, 33, 100]
        };
        let mut next = Vec::new();
        for p in &grid {
            for v in &vals {
                let mut q = p.clone();
                q.insert(x.clone(), *v);
                next.push(q);
            }
        }
        grid = next;
        if grid.len() > 20_000 {
            break;
        }
    }
    grid.retain(|p| p.len() == ints.len());
    // order by claim / ours (smallest room first); without our bound, by size
    let key = |p: &BTreeMap<String, i64>| -> f64 {
        let c = claim
            .eval(p)
            .ok()
            .and_then(|c| num_traits::ToPrimitive::to_f64(&c))
            .unwrap_or(f64::INFINITY);
        match ours.map(|b| num_traits::ToPrimitive::to_f64(&b.eval(p)).unwrap_or(0.0)) {
            Some(b) if b > 0.0 => c / b,
            Some(_) => f64::INFINITY,
            None => p.values().map(|v| *v as f64).sum(),
        }
    };
    let mut keyed: Vec<(f64, usize, BTreeMap<String, i64>)> = grid
        .into_iter()
        .enumerate()
        .map(|(i, p)| (key(&p), i, p))
        .collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<BTreeMap<String, i64>> = keyed.into_iter().map(|(_, _, p)| p).collect();
    out.truncate(limit.saturating_mul(3) / 4);
    let mut seed = 0x5eed_u64;
    while out.len() < limit && !ints.is_empty() {
        let p: BTreeMap<String, i64> = ints
            .iter()
            .map(|x| (x.clone(), (splitmix(&mut seed) % 2049) as i64))
            .collect();
        out.push(p);
    }
    if ints.is_empty() {
        out.truncate(1);
    }
    out
}

/// The input families (module documentation), explicit except the zero input.
fn input_families(prog: &Program, cells: usize) -> Vec<(String, Inputs)> {
    let fill = |f: &dyn Fn(&str, usize, Ty) -> Value| {
        let mut inp = Inputs::zero();
        for a in &prog.arrays {
            let vs: Vec<Value> = (0..cells).map(|i| f(&a.name, i, a.elem)).collect();
            inp.arrays.insert(a.name.clone(), ArrayInit::Values(vs));
        }
        inp
    };
    let num = |ty: Ty, x: i64| match ty {
        Ty::Int => Value::Int(x),
        Ty::Float => Value::Float(x as f64),
        Ty::Bool => Value::Bool(x != 0),
    };
    let mut out = vec![("zero".to_string(), Inputs::zero())];
    if prog.arrays.is_empty() {
        return out;
    }
    out.push((
        "alternating".into(),
        fill(&|_, i, ty| num(ty, 2 * (i % 2) as i64)),
    ));
    out.push(("spread".into(), fill(&|_, i, ty| num(ty, 8 * i as i64))));
    out.push((
        "bank-pattern".into(),
        fill(&|_, i, ty| num(ty, ((i % 8) * 32) as i64 * 0x0101_0101)),
    ));
    for seed in [1u64, 2] {
        out.push((
            format!("random({seed})"),
            fill(&|a, i, ty| random_value(seed, a, i as i64, ty)),
        ));
    }
    out
}

/// The warps run at one point: all of a block of at most 8 warps; else warps 0–3, the
/// middle one, the last two and `hint` (the extreme warp of the previous point).
fn warp_sample(n: u64, hint: Option<u64>) -> Vec<u64> {
    if n <= 8 {
        return (0..n).collect();
    }
    let mut v = vec![0, 1, 2, 3, n / 2, n - 2, n - 1];
    v.extend(hint.filter(|h| *h < n));
    v.sort();
    v.dedup();
    v
}

/// What every run of the search shares: the program, metric, hardware and one-block launch.
struct Runner<'a> {
    prog: &'a Program,
    m: Metric,
    hw: &'a Hardware,
    launch: Launch,
}

/// Runs the warps of block 0 ([`warp_sample`]) at `params` on `inputs`: the costliest
/// warp (cheapest for `Lower`) and its cost, and the rule applications used. Errors: the
/// first run error.
fn extreme_warp(
    r: &Runner,
    params: &Params,
    inputs: &Inputs,
    relation: Relation,
    fuel: u64,
    hint: Option<u64>,
) -> Result<(u64, Q, u64), String> {
    let (prog, metric, hw, launch) = (r.prog, &r.m, r.hw, &r.launch);
    let mut best: Option<(u64, Q)> = None;
    let mut used = 0u64;
    for w in warp_sample(launch.warps_per_block(hw), hint) {
        let opts = RunOptions {
            fuel: fuel.saturating_sub(used).max(1),
            derivation: false,
        };
        let run = run_warp(
            prog,
            std::slice::from_ref(metric),
            hw,
            launch,
            [0, 0, 0],
            w,
            params,
            inputs,
            &opts,
        )
        .map_err(|e| e.to_string())?;
        used += run.rule_applications;
        let c = run.costs.first().cloned().unwrap_or_else(Q::zero);
        let better = match (&best, relation) {
            (None, _) => true,
            (Some((_, b)), Relation::Upper) => c > *b,
            (Some((_, b)), Relation::Lower) => c < *b,
        };
        if better {
            best = Some((w, c));
        }
    }
    let (w, c) = best.ok_or("the block has no warps")?;
    Ok((w, c, used))
}

/// What the search is about: the kernel, metric, block and the claim.
#[derive(Clone, Copy, Debug)]
pub struct Problem<'a> {
    /// The lowered kernel.
    pub prog: &'a Program,
    /// The metric.
    pub metric: MetricName,
    /// Hardware.
    pub hw: &'a Hardware,
    /// Block dimensions (the grid is one block).
    pub block: [u32; 3],
    /// The claim.
    pub claim: &'a ClaimExpr,
    /// Upper or lower.
    pub relation: Relation,
    /// warpcert's bound for the metric, when the analysis found one (orders the points).
    pub ours: Option<&'a Poly>,
}

/// Searches for a counterexample to the claim (module documentation).
pub fn search(pb: &Problem, limits: &SearchLimits) -> (Option<Counterexample>, SearchLog) {
    let Problem {
        prog,
        metric,
        hw,
        block,
        claim,
        relation,
        ours,
    } = *pb;
    let mut log = SearchLog::default();
    let runner = Runner {
        prog,
        m: Metric::standard(metric),
        hw,
        launch: Launch {
            block,
            grid: Some([1, 1, 1]),
        },
    };
    let scalars = scalar_params(prog);
    let ints: Vec<String> = scalars
        .iter()
        .filter(|(_, t)| *t == Ty::Int)
        .map(|(n, _)| n.clone())
        .collect();
    let families = input_families(prog, limits.cells);
    let pts = points(&ints, claim, ours, i64::from(hw.warp_size), limits.points);
    let mut left = limits.budget;
    let mut hint = None;
    // phase 1: every point on the zero input; phase 2: the first points on the
    // adversarial inputs
    let (zero, adversarial) = families.split_at(1.min(families.len()));
    let phases = [(zero, pts.len()), (adversarial, limits.adversarial_points)];
    for (fams, n) in phases {
        for p in pts.iter().take(n) {
            let Ok(claimed) = claim.eval(p) else { continue };
            log.points += 1;
            let (params, shown) = param_values(&scalars, p);
            for (name, inputs) in fams {
                if left == 0 {
                    log.out_of_budget = true;
                    return (None, log);
                }
                log.runs += 1;
                let run = extreme_warp(&runner, &params, inputs, relation, left, hint);
                let (warp, cost, used) = match run {
                    Ok(r) => r,
                    Err(e) => {
                        log.failed += 1;
                        log.first_error.get_or_insert(e);
                        // a run error (e.g. out of fuel) stops this point
                        left = left.saturating_sub(left / 16 + 1);
                        break;
                    }
                };
                left = left.saturating_sub(used);
                hint = Some(warp);
                let refutes = match relation {
                    Relation::Upper => cost > claimed,
                    Relation::Lower => cost < claimed,
                };
                note_closest(&mut log, &cost, &claimed, relation, p);
                if refutes {
                    let inputs = shrink(&runner, &params, inputs, warp, &cost);
                    let cx = Counterexample {
                        params: shown,
                        warp,
                        cost,
                        claimed,
                        inputs,
                        input_name: name.clone(),
                    };
                    return (Some(cx), log);
                }
            }
        }
    }
    (None, log)
}

/// The semantics' parameter values at a point (non-`int` parameters 1 / `true`), and the
/// values as the witness states them.
fn param_values(
    scalars: &[(String, Ty)],
    p: &BTreeMap<String, i64>,
) -> (Params, Vec<(String, i64)>) {
    let mut params = Params::new();
    let mut shown = Vec::new();
    for (n, t) in scalars {
        let v = p.get(n).copied().unwrap_or(1);
        let val = match t {
            Ty::Int => Value::Int(v),
            Ty::Float => Value::Float(v as f64),
            Ty::Bool => Value::Bool(v != 0),
        };
        params.insert(n.clone(), val);
        shown.push((n.clone(), v));
    }
    (params, shown)
}

fn note_closest(
    log: &mut SearchLog,
    cost: &Q,
    claimed: &Q,
    relation: Relation,
    p: &BTreeMap<String, i64>,
) {
    let f = |x: &Q| num_traits::ToPrimitive::to_f64(x).unwrap_or(f64::NAN);
    let r = match relation {
        Relation::Upper if claimed.is_positive() => f(cost) / f(claimed),
        Relation::Lower if cost.is_positive() => f(claimed) / f(cost),
        _ => return,
    };
    if log.closest.as_ref().is_none_or(|(b, _)| r > *b) {
        let at: Vec<String> = p.iter().map(|(k, v)| format!("{k}={v}")).collect();
        log.closest = Some((r, at.join(" ")));
    }
}

/// The explicit contents cut to the shortest prefix (halving from [`SearchLimits::cells`])
/// under which the warp still costs `cost` (a smaller witness; cells beyond read 0).
fn shrink(r: &Runner, params: &Params, inputs: &Inputs, warp: u64, cost: &Q) -> Inputs {
    let (prog, m, hw, launch) = (r.prog, &r.m, r.hw, &r.launch);
    let mut best = inputs.clone();
    let len = inputs
        .arrays
        .values()
        .map(|a| match a {
            ArrayInit::Values(v) => v.len(),
            ArrayInit::Fill(_) => 0,
        })
        .max()
        .unwrap_or(0);
    let mut n = len / 2;
    while n >= 1 {
        let mut cut = best.clone();
        for a in cut.arrays.values_mut() {
            if let ArrayInit::Values(v) = a {
                v.truncate(n);
            }
        }
        let same = run_warp(
            prog,
            std::slice::from_ref(m),
            hw,
            launch,
            [0, 0, 0],
            warp,
            params,
            &cut,
            &RunOptions::default(),
        )
        .is_ok_and(|r| r.costs.first() == Some(cost));
        if !same {
            break;
        }
        best = cut;
        n /= 2;
    }
    best
}
