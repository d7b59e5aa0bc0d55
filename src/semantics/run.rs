//! Running a warp or a whole kernel under the lock-step semantics (RaCUDA §3).
//!
//! RaCUDA's cost semantics is *per warp*: a warp executes the kernel body in lock-step on
//! its active threads (Fig. 5), and the analysis bounds the cost of any one warp. A kernel
//! run here executes every warp of every block under that semantics: blocks in linear order
//! (x fastest), and within a block the warps one after another in index order, all warps of
//! a block sharing the block's shared arrays and all blocks sharing the global arrays. No
//! interleaving between warps is modelled (this is not the parallel semantics of §5; a
//! `__syncthreads()` only costs `M^sync`), so results of kernels whose warps communicate
//! through memory within one barrier interval may differ from a GPU; the costs are those
//! of RaCUDA §3 for the stores each warp sees.

use super::derivation::{CostModel, Derivation, Usage};
use super::grid::Grid;
use super::lockstep::Warp;
use super::store::{Inputs, Memory, NameMap};
use super::value::Value;
use super::SemError;
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, Metric, MetricName, Program};
use num_traits::Zero;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Parameter values by name: scalar kernel arguments and, when symbolic, `gridDim.x` ….
/// `blockIdx.*` are set by the runner; `blockDim.*`, `gridDim.*` (concrete grid) and
/// `warpSize` are set from the launch and hardware when the program declares them, overriding
/// any value given here.
pub type Params = BTreeMap<String, Value>;

/// The parameter values of one block as the rules read them (`OC:PARAM`), built-ins
/// included ([`resolve_params`]).
pub type ParamValues = NameMap<String, Value>;

/// Options of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOptions {
    /// Maximum number of rule applications per warp; exceeding it is
    /// [`SemError::OutOfFuel`].
    pub fuel: u64,
    /// Build the derivation tree ([`run_warp`] only; kernel runs never build one).
    pub derivation: bool,
}

impl Default for RunOptions {
    /// Fuel 50 000 000 per warp, no derivation.
    fn default() -> Self {
        RunOptions {
            fuel: 50_000_000,
            derivation: false,
        }
    }
}

/// The result of running one warp.
#[derive(Clone, Debug)]
pub struct WarpRun {
    /// Cost under each metric of the run (same order as the `metrics` argument).
    pub costs: Vec<Q>,
    /// Resource constants charged.
    pub usage: Usage,
    /// Rule applications used (the fuel consumed).
    pub rule_applications: u64,
    /// The derivation, when requested.
    pub derivation: Option<Derivation>,
    /// The warp's threads (block-linear ids, ascending).
    pub threads: Vec<u32>,
    /// Final locals: for each local (program order) its value in each lane.
    pub locals: Vec<(String, Vec<Value>)>,
    /// Final arrays.
    pub memory: Memory,
}

impl WarpRun {
    /// Final value of local `x` in the thread with block-linear id `thread`.
    pub fn local(&self, x: &str, thread: u32) -> Option<Value> {
        let lane = self.threads.iter().position(|&t| t == thread)?;
        let (_, vs) = self.locals.iter().find(|(n, _)| n == x)?;
        vs.get(lane).copied()
    }
}

/// Per-metric result of a kernel run.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricRun {
    /// The metric.
    pub metric: MetricName,
    /// The largest cost of one warp (0 when there are no warps).
    pub max_per_warp: Q,
    /// Sum of the costs of all warps.
    pub total: Q,
    /// A warp reaching the maximum: (block index, warp index in the block).
    pub worst_warp: Option<([u32; 3], u64)>,
}

/// The result of a kernel run.
#[derive(Clone, Debug)]
pub struct KernelRun {
    /// Number of warps run.
    pub warps: u64,
    /// Number of blocks run.
    pub blocks: u64,
    /// One entry per metric of the run, same order.
    pub metrics: Vec<MetricRun>,
    /// Resource constants charged, summed over all warps.
    pub usage: Usage,
    /// Final global arrays (shared arrays hold the last block's contents).
    pub memory: Memory,
}

impl KernelRun {
    /// The result for metric `name`, if it was part of the run.
    pub fn metric(&self, name: MetricName) -> Option<&MetricRun> {
        self.metrics.iter().find(|m| m.metric == name)
    }
}

pub(crate) fn check_hw(hw: &Hardware, launch: &Launch) -> Result<u64, SemError> {
    if hw.warp_size == 0 || hw.banks == 0 || hw.bank_bytes == 0 || hw.sector_bytes == 0 {
        return Err(SemError::BadLaunch(
            "warp size, banks, bank width and sector size must be positive".into(),
        ));
    }
    let threads = launch
        .block
        .iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d as u64))
        .filter(|&t| t <= u32::MAX as u64)
        .ok_or_else(|| SemError::BadLaunch("too many threads per block".into()))?;
    Ok(threads)
}

fn dim_of(suffix: &str) -> Option<usize> {
    match suffix {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    }
}

/// The parameter values of block `block`: user values plus the built-ins, checked against
/// the program's declarations.
pub(crate) fn resolve_params(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    block: [u32; 3],
    params: &Params,
) -> Result<ParamValues, SemError> {
    let mut out = ParamValues::default();
    let mut missing = Vec::new();
    for p in &prog.params {
        let builtin = match p.name.split_once('.') {
            Some(("blockIdx", d)) => dim_of(d).map(|k| block[k] as i64),
            Some(("blockDim", d)) => dim_of(d).map(|k| launch.block[k] as i64),
            Some(("gridDim", d)) => match (dim_of(d), launch.grid) {
                (Some(k), Some(g)) => Some(g[k] as i64),
                _ => None,
            },
            _ if p.name == "warpSize" => Some(hw.warp_size as i64),
            _ => None,
        };
        let v = match builtin {
            Some(n) => Value::Int(n),
            None => match params.get(&p.name) {
                Some(v) => *v,
                None => {
                    missing.push(p.name.clone());
                    continue;
                }
            },
        };
        if v.ty() != p.ty {
            return Err(SemError::ParamType {
                name: p.name.clone(),
                expected: p.ty,
                found: v.ty(),
            });
        }
        out.insert(p.name.clone(), v);
    }
    if !missing.is_empty() {
        return Err(SemError::MissingParams(missing));
    }
    Ok(out)
}

/// The lanes of warp `warp`: (block-linear thread id, `threadIdx`).
pub(crate) fn lanes(hw: &Hardware, launch: &Launch, warp: u64) -> Vec<(u32, [i64; 3])> {
    launch
        .warp_lanes(hw, warp)
        .map(|t| (t as u32, launch.thread_index(t)))
        .collect()
}

/// Runs warp `warp` of block `block` on a fresh memory built from `input`:
/// `σ; body ⇓^𝒯_M σ'; C` with `𝒯` the warp's threads (linear ids
/// `[warp·W, warp·W + W) ∩ [0, block threads)`) and every local at its default value.
///
/// Returns the cost under each of `metrics` (one pass), the usage, the final store and, if
/// `opts.derivation`, the derivation tree.
/// Errors: [`SemError::MissingParams`] / [`SemError::ParamType`] for parameters;
/// [`SemError::BadLaunch`] for a warp index outside the block, a block index outside a
/// concrete grid, or non-positive hardware parameters; [`SemError::BadInput`]; any error of
/// the run itself (races, overflow, fuel, …).
#[allow(clippy::too_many_arguments)]
pub fn run_warp(
    prog: &Program,
    metrics: &[Metric],
    hw: &Hardware,
    launch: &Launch,
    block: [u32; 3],
    warp: u64,
    params: &Params,
    input: &Inputs,
    opts: &RunOptions,
) -> Result<WarpRun, SemError> {
    check_hw(hw, launch)?;
    if warp >= launch.warps_per_block(hw) {
        return Err(SemError::BadLaunch(format!(
            "warp {warp} does not exist (the block has {} warps)",
            launch.warps_per_block(hw)
        )));
    }
    if let Some(g) = launch.grid {
        if block.iter().zip(g.iter()).any(|(b, g)| b >= g) {
            return Err(SemError::BadLaunch(format!(
                "block ({}, {}, {}) is outside the grid",
                block[0], block[1], block[2]
            )));
        }
    }
    let pv = resolve_params(prog, hw, launch, block, params)?;
    let mut mem = Memory::new(prog, input)?;
    let lanes = lanes(hw, launch, warp);
    let model = CostModel::new(metrics);
    let mut w = Warp::new(prog, hw, &model, &pv, &lanes, opts.fuel, opts.derivation);
    let derivation = w.run(&prog.body, &mut mem)?;
    let locals = prog
        .locals
        .iter()
        .map(|(x, _)| {
            let vs = (0..w.lanes()).filter_map(|l| w.local(x, l)).collect();
            (x.clone(), vs)
        })
        .collect();
    Ok(WarpRun {
        costs: model.costs(&w.usage),
        usage: w.usage,
        rule_applications: w.steps_used(),
        derivation,
        threads: w.lane_ids().to_vec(),
        locals,
        memory: mem,
    })
}

/// Runs every warp of every block of a concrete grid with [`RunOptions::default`];
/// see [`run_kernel_with`].
pub fn run_kernel(
    prog: &Program,
    metrics: &[Metric],
    hw: &Hardware,
    launch: &Launch,
    params: &Params,
    input: &Inputs,
) -> Result<KernelRun, SemError> {
    run_kernel_with(
        prog,
        metrics,
        hw,
        launch,
        params,
        input,
        &RunOptions::default(),
    )
}

/// Runs every warp of every block (blocks in linear order, x fastest; warps of a block one
/// after another sharing its shared arrays — the per-warp lock-step semantics of RaCUDA §3,
/// see the module documentation), in one pass for all `metrics`, and reports per metric the
/// largest and the summed per-warp cost. `opts.fuel` applies to each warp; no derivation is
/// built.
///
/// Errors: [`SemError::SymbolicGrid`] if `launch.grid` is `None`; [`SemError::BadLaunch`]
/// for non-positive hardware parameters or too many threads; parameter and input errors as
/// in [`run_warp`]; a run error wrapped in [`SemError::InWarp`] naming the block and warp.
pub fn run_kernel_with(
    prog: &Program,
    metrics: &[Metric],
    hw: &Hardware,
    launch: &Launch,
    params: &Params,
    input: &Inputs,
    opts: &RunOptions,
) -> Result<KernelRun, SemError> {
    let done = AtomicU64::new(0);
    run_kernel_observed(prog, metrics, hw, launch, params, input, opts, &done)
}

/// [`run_kernel_with`] that also counts the warps run so far in `done` (for a progress
/// display on another thread; blocks are counted as their chunk completes).
#[allow(clippy::too_many_arguments)]
pub fn run_kernel_observed(
    prog: &Program,
    metrics: &[Metric],
    hw: &Hardware,
    launch: &Launch,
    params: &Params,
    input: &Inputs,
    opts: &RunOptions,
    done: &AtomicU64,
) -> Result<KernelRun, SemError> {
    let grid = launch.grid.ok_or(SemError::SymbolicGrid)?;
    check_hw(hw, launch)?;
    // Parameters are checked once up front so that a missing value is reported even for an
    // empty grid.
    resolve_params(prog, hw, launch, [0, 0, 0], params)?;
    let mem = Memory::new(prog, input)?;
    let model = CostModel::new(metrics);
    let wpb = launch.warps_per_block(hw);
    let all_lanes: Vec<Vec<(u32, [i64; 3])>> = (0..wpb).map(|w| lanes(hw, launch, w)).collect();
    let mut results: Vec<MetricRun> = metrics
        .iter()
        .map(|m| MetricRun {
            metric: m.name,
            max_per_warp: Q::zero(),
            total: Q::zero(),
            worst_warp: None,
        })
        .collect();
    let mut usage = Usage::default();
    let mut warps = 0u64;
    let mut blocks = 0u64;
    let g = Grid {
        prog,
        hw,
        launch,
        params,
        model: &model,
        lanes: &all_lanes,
        fuel: opts.fuel,
    };
    let mem = g.run(grid, mem, |b| {
        blocks += 1;
        warps += b.warps;
        done.store(warps, Ordering::Relaxed);
        usage = usage.plus(&b.usage);
        for ((c, w), r) in b.best.into_iter().zip(results.iter_mut()) {
            if r.worst_warp.is_none() || c > r.max_per_warp {
                r.max_per_warp = c;
                r.worst_warp = Some((b.block, w));
            }
        }
    })?;
    // Costs are linear in the usage: the total of the warps' costs is the cost of their
    // summed usage (exactly).
    for (r, c) in results.iter_mut().zip(model.costs(&usage)) {
        r.total = c;
    }
    Ok(KernelRun {
        warps,
        blocks,
        metrics: results,
        usage,
        memory: mem,
    })
}
