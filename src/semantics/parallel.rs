//! The parallel work/span cost semantics of a block (RaCUDA §5, Figs. 10–12).
//!
//! A block runs segment by segment between `sync`s on the set `𝒯` of *all* its threads.
//! Costs are collections indexed by warps: a charge `C ⊕_𝒯 M^rc` goes once to every warp
//! with an active thread, `M^div` only to warps with threads on both sides of a branch
//! (SC:IFFULL/SC:WHILEFULL), and at each `sync` the spans of all warps are replaced by their
//! maximum (SF:PARTIAL). Work and span of a collection: `W(C) = Σ_i fst C_i`,
//! `S(C) = max_i snd C_i`.
//!
//! Implementation: the rules of Figs. 10–11 are the lock-step rules of Fig. 5 applied to the
//! whole block's thread set, with the charges split per warp; they are executed by the
//! lock-step interpreter in *block mode* ([`Warp::block_mode`]), so each rule exists once.
//! The store of a segment does not depend on where the segment ends, so the per-warp usage
//! of every segment is recorded and the span computed afterwards:
//! `S = Σ_segments max_w cost(segment usage of w)` — exactly the value SF:PARTIAL's
//! "replace every span by the maximum" produces. A `sync` reached by only part of the block
//! has no derivation in Figs. 10–12 and is reported as [`SemError::BarrierDivergence`].
//!
//! Deviation, stated: `MemReads`/`Conflicts` are computed per warp over that warp's active
//! threads (the figures write `M^gread(MemReads(R))` with `R` over all of `𝒯`; both agree
//! when `𝒯` lies in one warp, the case of Lemma 6).

use super::derivation::{CostModel, Usage};
use super::lockstep::Warp;
use super::races::RaceLog;
use super::run::{check_hw, lanes, resolve_params, Params, RunOptions};
use super::store::{Inputs, Memory};
use super::SemError;
use crate::core::metric::{q, Affine, Q};
use crate::core::{Hardware, Launch, Metric, Program};
use num_traits::{One, Zero};

/// The rules of the parallel semantics beyond the lock-step rules (`spec/semantics.md` §9).
pub const PARALLEL_RULES: &[&str] = &["SC:IFFULL", "SC:WHILEFULL", "SF:FULL", "SF:PARTIAL"];

/// The result of running one block under the parallel semantics.
#[derive(Clone, Debug)]
pub struct ParallelRun {
    /// Number of warps of the block.
    pub warps: u64,
    /// `W(C)` under each metric of the run (same order).
    pub work: Vec<Q>,
    /// `S(C)` under each metric of the run (same order).
    pub span: Vec<Q>,
    /// The usage of each warp (its whole run).
    pub per_warp: Vec<Usage>,
    /// Per segment (barrier interval), the usage of each warp.
    pub segments: Vec<Vec<Usage>>,
    /// Rule applications used.
    pub rule_applications: u64,
    /// Final arrays.
    pub memory: Memory,
}

/// Theorem 2 / Corollary 1 (RaCUDA §5): a greedy schedule on `p` warp slots executes a
/// block with work `work` and span `span` in at most `W/P + S` steps. `p = 0` is treated
/// as 1.
pub fn time_bound(work: &Q, span: &Q, p: u64) -> Q {
    work / q(p.max(1) as i64) + span
}

/// The paired metric `WS(M)` of RaCUDA §6 for a latency metric `lat` (integer latencies,
/// accesses `mul·n + add`): the work metric charges 1 per resource constant (every
/// operation has work 1), the span metric `1 + M^rc` (one step of processing plus the
/// latency; the note's resolution of the open point in §7.8). `sync` has span 1 (Lemma 7).
/// The returned metrics keep `lat.name`.
pub fn ws_metrics(lat: &Metric) -> (Metric, Metric) {
    let one = Q::one;
    let unit = || Affine {
        mul: Q::zero(),
        add: one(),
    };
    let plus1 = |a: &Affine| Affine {
        mul: a.mul.clone(),
        add: &a.add + one(),
    };
    let work = Metric {
        name: lat.name,
        var: one(),
        konst: one(),
        param: one(),
        op: one(),
        gread: unit(),
        sread: unit(),
        if_: one(),
        div: one(),
        vwrite: one(),
        gwrite: unit(),
        swrite: unit(),
        sync: one(),
    };
    let span = Metric {
        name: lat.name,
        var: &lat.var + one(),
        konst: &lat.konst + one(),
        param: &lat.param + one(),
        op: &lat.op + one(),
        gread: plus1(&lat.gread),
        sread: plus1(&lat.sread),
        if_: &lat.if_ + one(),
        div: &lat.div + one(),
        vwrite: &lat.vwrite + one(),
        gwrite: plus1(&lat.gwrite),
        swrite: plus1(&lat.swrite),
        sync: one(),
    };
    (work, span)
}

/// The lanes of a whole block and the warp of each lane.
fn block_lanes(hw: &Hardware, launch: &Launch) -> (Vec<(u32, [i64; 3])>, Vec<u32>) {
    let mut all = Vec::new();
    let mut warp_of = Vec::new();
    for w in 0..launch.warps_per_block(hw) {
        for l in lanes(hw, launch, w) {
            all.push(l);
            warp_of.push(w as u32);
        }
    }
    (all, warp_of)
}

/// Runs block `block` under the parallel semantics of RaCUDA §5 (`σ; ∅; s ⇓^𝒯_M σ'; C`
/// with `𝒯` = all threads of the block) on a fresh memory built from `input`, and returns
/// `W(C)` and `S(C)` under each of `metrics`.
///
/// Errors: [`SemError::BarrierDivergence`] for a `sync` not reached by the whole block;
/// parameter, input and launch errors as in [`super::run_warp`]; run errors (overflow,
/// [`SemError::Race`] within one statement, [`SemError::OutOfFuel`] with `opts.fuel` rule
/// applications for the whole block).
#[allow(clippy::too_many_arguments)]
pub fn run_block(
    prog: &Program,
    metrics: &[Metric],
    hw: &Hardware,
    launch: &Launch,
    block: [u32; 3],
    params: &Params,
    input: &Inputs,
    opts: &RunOptions,
) -> Result<ParallelRun, SemError> {
    check_hw(hw, launch)?;
    let pv = resolve_params(prog, hw, launch, block, params)?;
    let mut mem = Memory::new(prog, input)?;
    let (all, warp_of) = block_lanes(hw, launch);
    let model = CostModel::new(metrics);
    let mut w = Warp::new(prog, hw, &model, &pv, &all, opts.fuel, false);
    w.block_mode(warp_of);
    w.run(&prog.body, &mut mem)?;
    let segments = w.segments();
    let nw = launch.warps_per_block(hw) as usize;
    let mut per_warp = vec![Usage::default(); nw];
    for seg in &segments {
        for (acc, u) in per_warp.iter_mut().zip(seg) {
            *acc = acc.plus(u);
        }
    }
    let mut work = vec![Q::zero(); metrics.len()];
    for u in &per_warp {
        for (acc, c) in work.iter_mut().zip(model.costs(u)) {
            *acc += c;
        }
    }
    let mut span = vec![Q::zero(); metrics.len()];
    for seg in &segments {
        let mut mx = vec![Q::zero(); metrics.len()];
        for u in seg {
            for (m, c) in mx.iter_mut().zip(model.costs(u)) {
                if c > *m {
                    *m = c;
                }
            }
        }
        for (s, m) in span.iter_mut().zip(mx) {
            *s += m;
        }
    }
    Ok(ParallelRun {
        warps: nw as u64,
        work,
        span,
        per_warp,
        segments,
        rule_applications: w.steps_used(),
        memory: mem,
    })
}

/// The result of a checked block-wide lock-step run of a whole grid.
#[derive(Clone, Debug)]
pub struct CheckedRun {
    /// Final arrays (shared arrays hold the last block's contents).
    pub memory: Memory,
    /// Usage summed over all warps of all blocks.
    pub usage: Usage,
    /// Blocks run.
    pub blocks: u64,
}

/// Collingbourne et al.'s lock-step semantics with race and barrier-divergence checks: every
/// block runs in lock-step on all its threads (block mode), blocks one after another on one
/// memory, with every access logged in a [`RaceLog`] (a barrier passed by the whole block
/// starts a new epoch). With `benign_equal_writes`, write-write conflicts of equal values
/// are not races ([`RaceLog::benign_equal_writes`]).
///
/// Errors: [`SemError::DataRace`] (first race found), [`SemError::BarrierDivergence`], and
/// the errors of [`run_block`], wrapped in [`SemError::InWarp`] naming the block (warp 0).
pub fn run_grid_checked(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    params: &Params,
    input: &Inputs,
    opts: &RunOptions,
    benign_equal_writes: bool,
) -> Result<CheckedRun, SemError> {
    let grid = launch.grid.ok_or(SemError::SymbolicGrid)?;
    check_hw(hw, launch)?;
    resolve_params(prog, hw, launch, [0, 0, 0], params)?;
    let mut mem = Memory::new(prog, input)?;
    let (all, warp_of) = block_lanes(hw, launch);
    let model = CostModel::new(&[]);
    let mut log = Some(RaceLog::with_benign_equal_writes(benign_equal_writes));
    let mut usage = Usage::default();
    let mut blocks = 0u64;
    for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                let block = [bx, by, bz];
                let pv = resolve_params(prog, hw, launch, block, params)?;
                mem.new_block();
                let mut w = Warp::new(prog, hw, &model, &pv, &all, opts.fuel, false);
                w.block_mode(warp_of.clone());
                let mut l = log.take().unwrap_or_default();
                l.set_block(blocks);
                w.races = Some(l);
                let r = w.run(&prog.body, &mut mem);
                log = w.races.take();
                r.map_err(|e| SemError::InWarp {
                    block,
                    warp: 0,
                    error: Box::new(e),
                })?;
                usage = usage.plus(&w.usage);
                blocks += 1;
            }
        }
    }
    Ok(CheckedRun {
        memory: mem,
        usage,
        blocks,
    })
}

/// The lock-step semantics of Fig. 5 applied to the whole block as one thread set
/// (`σ; s ⇓^𝒯_M σ'; C` with `𝒯` = all threads of block `block`, `sync` a no-op costing
/// `M^sync`): the right-hand side of RaCUDA's Lemma 5, which bounds the parallel semantics
/// (`W(C) ≤ C_w · |warps|`, `S(C) ≤ C_s`). Returns the cost under each of `metrics` and the
/// final arrays.
///
/// Errors: as [`run_block`], except that there is no barrier divergence.
#[allow(clippy::too_many_arguments)]
pub fn run_block_lockstep(
    prog: &Program,
    metrics: &[Metric],
    hw: &Hardware,
    launch: &Launch,
    block: [u32; 3],
    params: &Params,
    input: &Inputs,
    opts: &RunOptions,
) -> Result<(Vec<Q>, Memory), SemError> {
    check_hw(hw, launch)?;
    let pv = resolve_params(prog, hw, launch, block, params)?;
    let mut mem = Memory::new(prog, input)?;
    let (all, _) = block_lanes(hw, launch);
    let model = CostModel::new(metrics);
    let mut w = Warp::new(prog, hw, &model, &pv, &all, opts.fuel, false);
    w.run(&prog.body, &mut mem)?;
    Ok((model.costs(&w.usage), mem))
}
