//! The interleaving semantics of Collingbourne, Donaldson, Ketema and Qadeer (2013, Fig. 4)
//! for miniCUDA: every thread steps on its own, a scheduler oracle picks the thread of each
//! step, barriers are joint steps of the whole block, and data races and barrier divergence
//! are detected.
//!
//! * A thread is a continuation (a stack of statements and loop frames). One *thread step*
//!   executes one atomic statement (`x ← e`, `A[o] ← e`, `skip`) or one branch/loop test
//!   (`if`, `while`), by applying the lock-step rule of Fig. 5 to the active set `{t}`
//!   (each rule exists once, in `lockstep`). `s1; s2` is structural and takes no step.
//! * `sync` (rules BARRIER_S / BARRIER_F): a thread reaching `sync` waits. When every thread
//!   of the block waits or has finished, the barrier is passed if all threads wait at the
//!   same barrier with the same loop-iteration vector `β` (one step), and otherwise the run
//!   ends in barrier divergence (threads at different barriers, different iterations, or
//!   some finished while others wait — the stuck state the note flags is reported as
//!   divergence).
//! * Races (Def. 3.1): all array accesses go through a [`RaceLog`]; a passed barrier starts
//!   a new epoch. Checking can be turned off (to run deliberately racy kernels such as a
//!   spin lock).
//! * Blocks run one after another on one memory (a valid schedule; races between blocks on
//!   global arrays are still detected because blocks never synchronize).
//! * Termination: a step limit; exceeding it is reported as [`Outcome::StepLimit`].

use super::derivation::{render_threads, CostModel, Usage};
use super::lockstep::Warp;
use super::races::RaceLog;
use super::run::{check_hw, lanes, resolve_params, Params};
use super::store::{Inputs, Memory};
use super::SemError;
use crate::core::{Hardware, Launch, Loc, Program, Stmt};

/// The rules of the interleaving semantics (Collingbourne et al. Fig. 4c/d), in the order
/// of `spec/semantics.md` §11; thread steps apply the lock-step rules to `{t}`.
pub const INTERLEAVING_RULES: &[&str] = &[
    "THREAD_B",
    "THREAD_T",
    "BARRIER_S",
    "BARRIER_F",
    "TERMINATION",
];

/// The scheduler oracle: which runnable thread steps next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheduler {
    /// Fair round robin: the runnable threads in turn, one step each.
    RoundRobin,
    /// A seeded pseudo-random choice at every step (fair with probability 1).
    Random(u64),
    /// Run the lowest-numbered runnable thread until it waits or finishes (unfair; the
    /// canonical schedule for race-free kernels).
    Lowest,
}

impl Scheduler {
    fn pick(&mut self, runnable: &[usize], rr: &mut usize, rng: &mut u64) -> usize {
        match self {
            Scheduler::Lowest => 0,
            Scheduler::RoundRobin => {
                // The first runnable thread after the one stepped last (`runnable` ascends).
                let mut i = runnable.partition_point(|&t| t <= *rr);
                if i == runnable.len() {
                    i = 0;
                }
                *rr = runnable[i];
                i
            }
            Scheduler::Random(_) => {
                *rng ^= *rng << 13;
                *rng ^= *rng >> 7;
                *rng ^= *rng << 17;
                (*rng % runnable.len() as u64) as usize
            }
        }
    }
}

/// Options of an interleaving run.
#[derive(Clone, Debug)]
pub struct InterleavingOptions {
    /// The scheduler oracle.
    pub scheduler: Scheduler,
    /// Maximum number of steps (thread steps plus barrier steps) of the whole run.
    pub max_steps: u64,
    /// Whether accesses are checked for data races.
    pub detect_races: bool,
    /// Write-write conflicts of equal values are benign ([`RaceLog::benign_equal_writes`]).
    pub benign_equal_writes: bool,
    /// Record one trace line per step.
    pub trace: bool,
}

impl Default for InterleavingOptions {
    /// Round robin, 10 000 000 steps, race detection on, no trace.
    fn default() -> Self {
        InterleavingOptions {
            scheduler: Scheduler::RoundRobin,
            max_steps: 10_000_000,
            detect_races: true,
            benign_equal_writes: false,
            trace: false,
        }
    }
}

/// How an interleaving run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every thread of every block finished (√).
    Terminated,
    /// A data race was found (ℰ); [`SemError::DataRace`] carries the threads and locations.
    Race(SemError),
    /// Barrier divergence (ℰ, BARRIER_F or a stuck block).
    BarrierDivergence(SemError),
    /// The step limit was reached: the kernel may not terminate under this schedule.
    StepLimit(u64),
    /// Another run-time error (overflow, type error, ...).
    Error(SemError),
}

/// The result of an interleaving run.
#[derive(Clone, Debug)]
pub struct InterleavingRun {
    /// How it ended.
    pub outcome: Outcome,
    /// Steps taken (thread steps and barrier steps).
    pub steps: u64,
    /// Usage: the lock-step charges of every thread step, summed.
    pub usage: Usage,
    /// Arrays at the end (or when the run stopped).
    pub memory: Memory,
    /// One line per step when tracing: `step  rule  T={t}  cost-so-far(steps)`.
    pub trace: Vec<String>,
}

#[derive(Clone, Debug)]
enum Frame<'p> {
    Stmt(&'p Stmt),
    /// Re-test of a loop (the loop's iteration counter is the top of `iters`).
    Loop(&'p Stmt),
}

#[derive(Clone, Debug)]
struct Thread<'p> {
    todo: Vec<Frame<'p>>,
    iters: Vec<u64>,
    /// `Some((barrier statement, loc))` while waiting at a barrier.
    at_barrier: Option<(*const Stmt, Loc)>,
}

/// Runs every block of the grid under the interleaving semantics (see the module
/// documentation). Blocks run in linear order; within a block `opts.scheduler` picks the
/// thread of each step. Errors of the run are reported in [`Outcome`]; the `Err` case is
/// for bad launches, parameters and inputs only.
pub fn run_interleaving(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    params: &Params,
    input: &Inputs,
    opts: &InterleavingOptions,
) -> Result<InterleavingRun, SemError> {
    let grid = launch.grid.ok_or(SemError::SymbolicGrid)?;
    check_hw(hw, launch)?;
    resolve_params(prog, hw, launch, [0, 0, 0], params)?;
    let mut mem = Memory::new(prog, input)?;
    let all: Vec<(u32, [i64; 3])> = (0..launch.warps_per_block(hw))
        .flat_map(|w| lanes(hw, launch, w))
        .collect();
    let model = CostModel::new(&[]);
    let mut run = InterleavingRun {
        outcome: Outcome::Terminated,
        steps: 0,
        usage: Usage::default(),
        // (replaced by the run's memory at the end)
        memory: Memory { arrays: Vec::new() },
        trace: Vec::new(),
    };
    let mut log = if opts.detect_races {
        Some(RaceLog::with_benign_equal_writes(opts.benign_equal_writes))
    } else {
        None
    };
    let mut sched = opts.scheduler.clone();
    let mut rng = match opts.scheduler {
        Scheduler::Random(s) => s.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        _ => 1,
    };
    let mut blocks = 0u64;
    // Thread continuations and the runnable list, reused by every block.
    let mut threads: Vec<Thread<'_>> = Vec::new();
    let mut runnable: Vec<usize> = Vec::new();
    // One thread state for every block: parameters and lanes are reset per block.
    let mut w = Warp::new(prog, hw, &model, &Default::default(), &all, u64::MAX, false);
    'grid: for bz in 0..grid[2] {
        for by in 0..grid[1] {
            for bx in 0..grid[0] {
                w.set_params(&resolve_params(prog, hw, launch, [bx, by, bz], params)?);
                w.reset(&all);
                mem.new_block();
                if let Some(mut l) = log.take() {
                    l.set_block(blocks);
                    w.races = Some(l);
                }
                let mut st = BlockState {
                    threads: &mut threads,
                    runnable: &mut runnable,
                    sched: &mut sched,
                    rng: &mut rng,
                };
                let outcome = run_block(&mut w, prog, &mut mem, &mut run, opts, &mut st);
                log = w.races.take();
                run.usage = run.usage.plus(&w.usage);
                blocks += 1;
                if outcome != Outcome::Terminated {
                    run.outcome = outcome;
                    break 'grid;
                }
            }
        }
    }
    run.memory = mem;
    Ok(run)
}

fn classify(e: SemError) -> Outcome {
    match e.root() {
        SemError::DataRace { .. } => Outcome::Race(e),
        SemError::BarrierDivergence { .. } => Outcome::BarrierDivergence(e),
        _ => Outcome::Error(e),
    }
}

/// What a block's run borrows from the whole run: storage for the threads and the
/// runnable list (reused from block to block), and the scheduler with its random state.
struct BlockState<'s, 'p> {
    threads: &'s mut Vec<Thread<'p>>,
    runnable: &'s mut Vec<usize>,
    sched: &'s mut Scheduler,
    rng: &'s mut u64,
}

/// One block: threads step under the scheduler until all finish, an error, or the limit.
fn run_block<'w, 'p: 'w>(
    w: &mut Warp<'w>,
    prog: &'p Program,
    mem: &mut Memory,
    run: &mut InterleavingRun,
    opts: &InterleavingOptions,
    st: &mut BlockState<'_, 'p>,
) -> Outcome {
    let n = w.lanes();
    let (sched, rng) = (&mut *st.sched, &mut *st.rng);
    let threads = &mut *st.threads;
    threads.truncate(n);
    for th in threads.iter_mut() {
        th.todo.clear();
        th.todo.push(Frame::Stmt(&prog.body));
        th.iters.clear();
        th.at_barrier = None;
    }
    while threads.len() < n {
        threads.push(Thread {
            todo: vec![Frame::Stmt(&prog.body)],
            iters: Vec::new(),
            at_barrier: None,
        });
    }
    let mut rr = usize::MAX;
    // The runnable threads (not waiting, not finished), ascending; kept up to date.
    let runnable = &mut *st.runnable;
    runnable.clear();
    runnable.extend(0..n);
    loop {
        if run.steps >= opts.max_steps {
            return Outcome::StepLimit(opts.max_steps);
        }
        if runnable.is_empty() {
            // Every thread waits or has finished: BARRIER_S, BARRIER_F, or termination.
            let waiting: Vec<usize> = (0..n)
                .filter(|&t| threads[t].at_barrier.is_some())
                .collect();
            if waiting.is_empty() {
                return Outcome::Terminated;
            }
            let first = &threads[waiting[0]];
            let (bar, loc) = first
                .at_barrier
                .unwrap_or((std::ptr::null(), Loc::default()));
            let iters = first.iters.clone();
            let same: Vec<usize> = waiting
                .iter()
                .copied()
                .filter(|&t| {
                    threads[t].at_barrier.map(|b| b.0) == Some(bar) && threads[t].iters == iters
                })
                .collect();
            if same.len() != n {
                let ids = w.lane_ids().to_vec();
                return Outcome::BarrierDivergence(SemError::BarrierDivergence {
                    loc,
                    reached: same.iter().map(|&t| ids[t]).collect(),
                    waiting: (0..n)
                        .filter(|t| !same.contains(t))
                        .map(|t| ids[t])
                        .collect(),
                });
            }
            if let Err(e) = w.charge_sync(&(0..n).collect::<Vec<_>>()) {
                return classify(e);
            }
            if let Some(l) = w.races.as_mut() {
                l.barrier();
            }
            for t in threads.iter_mut() {
                t.at_barrier = None;
            }
            runnable.extend((0..n).filter(|&t| !threads[t].todo.is_empty()));
            run.steps += 1;
            if opts.trace {
                run.trace.push(format!(
                    "{:>6}  BARRIER_S  T={}  rules={}",
                    run.steps,
                    render_threads(w.lane_ids()),
                    w.steps_used()
                ));
            }
            continue;
        }
        let i = sched.pick(runnable, &mut rr, rng);
        let t = runnable[i];
        // Structural steps (sequences) are taken for free; then one real step.
        let rule = match thread_step(w, &mut threads[t], t, mem) {
            Ok(r) => r,
            Err(e) => return classify(e),
        };
        if threads[t].todo.is_empty() || threads[t].at_barrier.is_some() {
            runnable.remove(i);
        }
        if let Some(rule) = rule {
            run.steps += 1;
            if opts.trace {
                run.trace.push(format!(
                    "{:>6}  {rule}  T={{{}}}  rules={}",
                    run.steps,
                    w.lane_ids()[t],
                    w.steps_used()
                ));
            }
        }
    }
}

/// One step of thread `t` (lane `t` of `w`). Returns the rule name of the step, or `None`
/// when the thread only reached a barrier or finished.
fn thread_step<'w, 'p: 'w>(
    w: &mut Warp<'w>,
    th: &mut Thread<'p>,
    t: usize,
    mem: &mut Memory,
) -> Result<Option<&'static str>, SemError> {
    use super::*;
    // The frame being taken apart: `s1; s2` continues with `s1` directly (no push and pop).
    let mut next = th.todo.pop();
    while let Some(f) = next.take() {
        match f {
            Frame::Stmt(s) => match s {
                Stmt::Seq(a, b) => {
                    th.todo.push(Frame::Stmt(b));
                    next = Some(Frame::Stmt(a));
                    continue;
                }
                Stmt::Sync(loc) => {
                    th.at_barrier = Some((s as *const Stmt, *loc));
                    return Ok(None);
                }
                Stmt::Skip | Stmt::Assign(..) | Stmt::Write(..) => {
                    return w.exec_one(s, t, mem).map(Some);
                }
                Stmt::Warp(_, op, loc) => {
                    return Err(SemError::At {
                        loc: *loc,
                        error: Box::new(SemError::Unsupported(format!(
                            "warp operation `{op}`: the interleaving semantics steps one \
                             thread at a time, so no lanes exchange values (use the \
                             lock-step or SIMT semantics)"
                        ))),
                    });
                }
                Stmt::If(e, s1, s2, loc) => {
                    let taken = w.branch_one(e, t, mem, *loc)?;
                    th.todo.push(Frame::Stmt(if taken { s1 } else { s2 }));
                    return Ok(Some(if taken { SC_IFT } else { SC_IFF }));
                }
                Stmt::While(..) => {
                    th.iters.push(0);
                    next = Some(Frame::Loop(s));
                    continue;
                }
            },
            Frame::Loop(s) => {
                if let Stmt::While(e, body, loc) = s {
                    if w.branch_one(e, t, mem, *loc)? {
                        if let Some(k) = th.iters.last_mut() {
                            *k += 1;
                        }
                        th.todo.push(Frame::Loop(s));
                        th.todo.push(Frame::Stmt(body));
                        return Ok(Some(SC_WHILEALL));
                    }
                    th.iters.pop();
                    return Ok(Some(SC_WHILENONE));
                }
            }
        }
        next = th.todo.pop();
    }
    Ok(None)
}

impl Outcome {
    /// `terminated`, `race`, `barrier-divergence`, `step-limit` or `error`.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Terminated => "terminated",
            Outcome::Race(_) => "race",
            Outcome::BarrierDivergence(_) => "barrier-divergence",
            Outcome::StepLimit(_) => "step-limit",
            Outcome::Error(_) => "error",
        }
    }
}
