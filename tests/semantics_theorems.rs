//! The theorems connecting the semantics, as property tests (quickcheck) over random small
//! miniCUDA core programs generated here (not parsed): assignments, reads and writes of a
//! global and a shared array, `if`, bounded counter loops and `sync` at random places.
//!
//! * RaCUDA Lemma 6/7 and Theorem 6: a completed small-step run of a block takes
//!   `n ≤ W/P + S` parallel steps, with `W`, `S` from the parallel semantics under `WS(M)`;
//!   each warp takes exactly as many steps as it has charges in the parallel semantics; the
//!   final stores agree.
//! * Collingbourne et al. Theorem 5.2: on kernels the lock-step semantics finds race free and
//!   terminating, the interleaving semantics (sampled schedules) ends with the same arrays;
//!   a race or barrier divergence found by one is found by the other.
//! * Habermaier: one warp on the SIMT machine and under the lock-step semantics end in the
//!   same state with the same number of divergent branches (the same usage altogether).

mod common;

use common::rng::Rng;
use quickcheck::{QuickCheck, TestResult};
use warpcert::core::metric::{q, Affine, Q};
use warpcert::core::{
    ArrayDecl, BinOp, Const, Dim, Expr, Hardware, Launch, Loc, Metric, MetricName, Operand,
    Program, Space, Stmt, Ty,
};
use warpcert::semantics::interleaving::{
    run_interleaving, InterleavingOptions, Outcome, Scheduler,
};
use warpcert::semantics::parallel::{run_block, run_block_lockstep, run_grid_checked, ws_metrics};
use warpcert::semantics::simt::{run_simt, SimtOutcome};
use warpcert::semantics::smallstep::{run_smallstep, SmallOutcome};
use warpcert::semantics::store::{Inputs, Memory};
use warpcert::semantics::{run_warp, Params, RunOptions, SemError};

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Counters of the cases the properties met (printed, so that a vacuous pass shows).
static T6_COMPARED: AtomicU64 = AtomicU64::new(0);
static T6_DIVERGENT: AtomicU64 = AtomicU64::new(0);
static T6_DISCARDED: AtomicU64 = AtomicU64::new(0);
static C_CLEAN: AtomicU64 = AtomicU64::new(0);
static C_SAME_KIND: AtomicU64 = AtomicU64::new(0);
static C_OTHER_KIND: AtomicU64 = AtomicU64::new(0);
static S_DIVERGENT: AtomicU64 = AtomicU64::new(0);

/// Small hardware so that a block of 8–12 threads has 2–3 warps.
fn hw() -> Hardware {
    Hardware {
        warp_size: 4,
        banks: 4,
        bank_bytes: 4,
        sector_bytes: 16,
    }
}

const VARS: [&str; 3] = ["x", "y", "z"];

fn loc(rng: &mut Rng) -> Loc {
    Loc {
        line: 1 + rng.below(99) as u32,
        col: 1,
    }
}

fn operand(rng: &mut Rng) -> Operand {
    match rng.below(4) {
        0 => Operand::Const(Const::Int(rng.below(8) as i64)),
        1 => Operand::Tid(Dim::X),
        _ => Operand::Var(VARS[rng.below(3) as usize].into()),
    }
}

fn array(rng: &mut Rng) -> String {
    if rng.below(2) == 0 { "G" } else { "S" }.into()
}

fn expr(rng: &mut Rng) -> Expr {
    const OPS: [BinOp; 6] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::BitAnd,
        BinOp::BitXor,
        BinOp::Min,
        BinOp::Max,
    ];
    match rng.below(4) {
        0 => Expr::Opd(operand(rng)),
        1 => Expr::Read(array(rng), operand(rng)),
        _ => Expr::Bin(OPS[rng.below(6) as usize], operand(rng), operand(rng)),
    }
}

fn cond(rng: &mut Rng) -> Expr {
    const CMP: [BinOp; 4] = [BinOp::Lt, BinOp::Eq, BinOp::Ne, BinOp::Ge];
    Expr::Bin(CMP[rng.below(4) as usize], operand(rng), operand(rng))
}

/// A statement of nesting depth at most `depth`; `loops` counts enclosing loops (their
/// counters `c0`, `c1` are never assigned by the body); `sync_p` is the chance (in 1/16) of a
/// `sync` statement.
fn stmt(rng: &mut Rng, depth: u32, loops: usize, sync_p: u64) -> Stmt {
    let k = rng.below(16);
    if k < sync_p {
        return Stmt::Sync(loc(rng));
    }
    match (k % 8, depth) {
        (0 | 1, d) if d > 0 => Stmt::If(
            cond(rng),
            Box::new(block(rng, d - 1, loops, sync_p)),
            Box::new(block(rng, d - 1, loops, sync_p)),
            loc(rng),
        ),
        (2, d) if d > 0 && loops < 2 => {
            // c ← 0; while (c < bound) { body; c ← c + 1 }
            let c = format!("c{loops}");
            let bound = if rng.below(2) == 0 {
                Operand::Const(Const::Int(rng.below(4) as i64))
            } else {
                Operand::Tid(Dim::X)
            };
            let body = Stmt::seq(vec![
                block(rng, d - 1, loops + 1, sync_p),
                Stmt::Assign(
                    c.clone(),
                    Expr::Bin(
                        BinOp::Add,
                        Operand::Var(c.clone()),
                        Operand::Const(Const::Int(1)),
                    ),
                    loc(rng),
                ),
            ]);
            Stmt::seq(vec![
                Stmt::Assign(
                    c.clone(),
                    Expr::Opd(Operand::Const(Const::Int(0))),
                    loc(rng),
                ),
                Stmt::While(
                    Expr::Bin(BinOp::Lt, Operand::Var(c), bound),
                    Box::new(body),
                    loc(rng),
                ),
            ])
        }
        (3 | 4, _) => Stmt::Write(array(rng), operand(rng), Expr::Opd(operand(rng)), loc(rng)),
        _ => Stmt::Assign(VARS[rng.below(3) as usize].into(), expr(rng), loc(rng)),
    }
}

fn block(rng: &mut Rng, depth: u32, loops: usize, sync_p: u64) -> Stmt {
    let n = 1 + rng.below(3);
    Stmt::seq((0..n).map(|_| stmt(rng, depth, loops, sync_p)).collect())
}

/// A random kernel from `seed`: 2–6 top-level statements of depth ≤ 2.
fn kernel(seed: u64, sync_p: u64) -> Program {
    let mut rng = Rng::new(seed);
    let n = 2 + rng.below(5);
    let body = Stmt::seq((0..n).map(|_| stmt(&mut rng, 2, 0, sync_p)).collect());
    let arr = |name: &str, space| ArrayDecl {
        name: name.into(),
        space,
        elem: Ty::Int,
        elem_bytes: 4,
        len: None,
    };
    Program {
        name: format!("random{seed}"),
        params: Vec::new(),
        arrays: vec![arr("G", Space::Global), arr("S", Space::Shared)],
        locals: ["x", "y", "z", "c0", "c1"]
            .iter()
            .map(|v| (v.to_string(), Ty::Int))
            .collect(),
        body,
    }
}

fn launch(seed: u64, blocks: u32) -> Launch {
    Launch {
        block: [8 + 2 * (seed % 3) as u32, 1, 1],
        grid: Some([blocks, 1, 1]),
    }
}

/// Written cells of every array (global and shared), for comparing final stores.
fn cells(m: &Memory) -> Vec<(String, Vec<(i64, String)>)> {
    m.arrays
        .iter()
        .map(|a| {
            (
                a.name.clone(),
                a.written()
                    .into_iter()
                    .map(|(i, v)| (i, v.to_string()))
                    .collect(),
            )
        })
        .collect()
}

/// Latencies: global accesses 3 + 1 per sector, shared 1 per conflicting address,
/// operators 1, everything else 0.
fn latency() -> Metric {
    let mut m = Metric::standard(MetricName::Steps);
    for c in [
        &mut m.var,
        &mut m.konst,
        &mut m.param,
        &mut m.if_,
        &mut m.vwrite,
    ] {
        *c = Q::from_integer(0.into());
    }
    m.div = q(2);
    m.gread = Affine {
        mul: q(1),
        add: q(3),
    };
    m.gwrite = m.gread.clone();
    m.sread = Affine {
        mul: q(1),
        add: q(0),
    };
    m.swrite = m.sread.clone();
    m
}

fn theorem6(seed: u64, p: u8) -> TestResult {
    let prog = kernel(seed, 2);
    let launch = launch(seed, 1);
    let input = Inputs::random(seed);
    let params = Params::new();
    let p = 1 + (p % 3) as usize;
    let (wm, sm) = ws_metrics(&latency());
    let opts = RunOptions {
        fuel: 1_000_000,
        derivation: false,
    };
    // Race freedom (Collingbourne lock-step with race log) is needed for equal stores:
    // warps interleave differently in the two semantics.
    let checked = run_grid_checked(&prog, &hw(), &launch, &params, &input, &opts, false);
    let par = run_block(
        &prog,
        &[wm, sm],
        &hw(),
        &launch,
        [0, 0, 0],
        &params,
        &input,
        &opts,
    );
    let small = run_smallstep(
        &prog,
        &latency(),
        &hw(),
        &launch,
        [0, 0, 0],
        &params,
        &input,
        p,
        1_000_000,
        false,
    )
    .expect("runs");
    match (&checked, &par) {
        (Ok(_), Ok(par)) => {
            if small.outcome != SmallOutcome::Completed {
                return TestResult::error(format!("small-step {:?}", small.outcome));
            }
            // Theorem 6.
            let n = q(small.steps as i64);
            // Work under the work metric (index 0), span under the span metric (index 1).
            let bound = &par.work[0] / q(p as i64) + &par.span[1];
            if n > bound {
                return TestResult::error(format!("n = {n} > W/P + S = {bound}"));
            }
            // Lemma 6: each warp's steps = its charges in the parallel semantics (work 1 each).
            for (w, u) in par.per_warp.iter().enumerate() {
                let wk = u.cost(&ws_metrics(&latency()).0);
                if q(small.warp_steps[w] as i64) != wk {
                    return TestResult::error(format!(
                        "warp {w}: {} small steps, work {wk}",
                        small.warp_steps[w]
                    ));
                }
                if small.per_warp[w] != *u {
                    return TestResult::error(format!("warp {w}: usages differ"));
                }
            }
            if cells(&small.memory) != cells(&par.memory) {
                return TestResult::error("final stores differ");
            }
            T6_COMPARED.fetch_add(1, Relaxed);
            TestResult::passed()
        }
        (_, Err(e)) if matches!(e.root(), SemError::BarrierDivergence { .. }) => {
            // No derivation in the parallel semantics, so Theorem 6 says nothing. The
            // small-step machine gets stuck at a sync (or meets a race between warps first),
            // except when every warp waits at *some* sync: BL:SYNC (Fig. 17) does not ask
            // for the same one, so it completes.
            match small.outcome {
                SmallOutcome::Stuck(_) | SmallOutcome::Completed => {
                    T6_DIVERGENT.fetch_add(1, Relaxed);
                    TestResult::passed()
                }
                ref o => TestResult::error(format!("parallel: {e}; small-step: {o:?}")),
            }
        }
        _ => {
            T6_DISCARDED.fetch_add(1, Relaxed);
            TestResult::discard()
        }
    }
}

#[test]
fn racuda_theorem6_and_lemma6() {
    QuickCheck::new()
        .tests(300)
        .max_tests(3000)
        .quickcheck(theorem6 as fn(u64, u8) -> TestResult);
    let (c, d, x) = (
        T6_COMPARED.load(Relaxed),
        T6_DIVERGENT.load(Relaxed),
        T6_DISCARDED.load(Relaxed),
    );
    eprintln!("theorem 6: {c} completed runs compared, {d} barrier-divergent kernels stuck, {x} racy kernels discarded");
    assert!(c >= 100, "too few race-free kernels ({c})");
    assert!(d >= 10, "too few barrier-divergent kernels ({d})");
}

fn verdict(e: &SemError) -> &'static str {
    match e.root() {
        SemError::DataRace { .. } => "race",
        SemError::BarrierDivergence { .. } => "barrier-divergence",
        _ => "error",
    }
}

fn collingbourne(seed: u64, sched: u64) -> TestResult {
    let prog = kernel(seed, 2);
    let launch = launch(seed, 1 + (seed % 2) as u32);
    let input = Inputs::random(seed);
    let params = Params::new();
    let opts = RunOptions {
        fuel: 1_000_000,
        derivation: false,
    };
    let lock = run_grid_checked(&prog, &hw(), &launch, &params, &input, &opts, false);
    let schedulers = [
        Scheduler::RoundRobin,
        Scheduler::Lowest,
        Scheduler::Random(sched),
        Scheduler::Random(sched ^ 0xABCD),
    ];
    for s in schedulers {
        let iopts = InterleavingOptions {
            scheduler: s.clone(),
            max_steps: 1_000_000,
            detect_races: true,
            benign_equal_writes: false,
            trace: false,
        };
        let il = run_interleaving(&prog, &hw(), &launch, &params, &input, &iopts).expect("runs");
        match (&lock, &il.outcome) {
            (Ok(l), Outcome::Terminated) => {
                if cells(&l.memory) != cells(&il.memory) {
                    return TestResult::error(format!("{s:?}: final arrays differ"));
                }
                C_CLEAN.fetch_add(1, Relaxed);
            }
            // Theorem 5.2 relates "race free and terminating" (no ℰ: neither races nor
            // barrier divergence): when both semantics find an error they may meet a
            // different one first (each run stops at its first error).
            (Err(e), o @ (Outcome::Race(_) | Outcome::BarrierDivergence(_)))
                if verdict(e) != "error" =>
            {
                if verdict(e) == o.kind() {
                    C_SAME_KIND.fetch_add(1, Relaxed);
                } else {
                    C_OTHER_KIND.fetch_add(1, Relaxed);
                }
            }
            (l, o) => {
                return TestResult::error(format!(
                    "{s:?}: lock-step {:?}, interleaving {:?}",
                    l.as_ref().map(|_| "ok").map_err(|e| e.to_string()),
                    o
                ))
            }
        }
    }
    TestResult::passed()
}

#[test]
fn collingbourne_theorem_5_2() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(collingbourne as fn(u64, u64) -> TestResult);
    let (c, k, o) = (
        C_CLEAN.load(Relaxed),
        C_SAME_KIND.load(Relaxed),
        C_OTHER_KIND.load(Relaxed),
    );
    eprintln!("theorem 5.2: {c} (kernel, schedule) pairs race free with equal arrays; errors in both: {k} of the same kind, {o} of different kinds");
    assert!(c >= 100, "too few race-free runs ({c})");
}

fn simt_agrees(seed: u64) -> TestResult {
    // No sync (a barrier is a no-op for one warp in both), one warp of 4 lanes... or of 8
    // lanes when the warp size is 8.
    let prog = kernel(seed, 0);
    let hw = Hardware {
        warp_size: 8,
        ..hw()
    };
    let launch = Launch {
        block: [8, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let input = Inputs::random(seed);
    let params = Params::new();
    let ls = run_warp(
        &prog,
        &[Metric::standard(MetricName::Divwarps)],
        &hw,
        &launch,
        [0, 0, 0],
        0,
        &params,
        &input,
        &RunOptions {
            fuel: 1_000_000,
            derivation: false,
        },
    );
    let Ok(ls) = ls else {
        return TestResult::discard();
    };
    let s = run_simt(
        &prog,
        &hw,
        &launch,
        [0, 0, 0],
        0,
        &params,
        &input,
        1_000_000,
        false,
    )
    .expect("runs");
    if s.outcome != SimtOutcome::Terminated {
        return TestResult::error(format!("SIMT: {:?}", s.outcome));
    }
    if s.usage.div != ls.usage.div || s.usage != ls.usage {
        return TestResult::error(format!("usage {:?} vs {:?}", s.usage, ls.usage));
    }
    if cells(&s.memory) != cells(&ls.memory) || s.locals != ls.locals {
        return TestResult::error("final state differs");
    }
    if ls.usage.div > 0 {
        S_DIVERGENT.fetch_add(1, Relaxed);
    }
    TestResult::passed()
}

#[test]
fn habermaier_simt_agrees_with_lockstep() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(simt_agrees as fn(u64) -> TestResult);
    let d = S_DIVERGENT.load(Relaxed);
    eprintln!("SIMT: {d} of the compared runs had divergent branches");
    assert!(d >= 50, "too few divergent runs ({d})");
}

/// RaCUDA Lemmas 4/5 (the lock-step semantics on the whole block bounds the parallel
/// semantics): when the parallel semantics has a derivation, the lock-step run on `𝒯` = all
/// threads of the block ends in the same store with costs `C` such that `W ≤ C · |warps|`
/// and `S ≤ C`, under each standard metric.
fn lemma5(seed: u64) -> TestResult {
    let prog = kernel(seed, 2);
    let launch = launch(seed, 1);
    let input = Inputs::random(seed);
    let params = Params::new();
    let opts = RunOptions {
        fuel: 1_000_000,
        derivation: false,
    };
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let Ok(par) = run_block(
        &prog,
        &metrics,
        &hw(),
        &launch,
        [0, 0, 0],
        &params,
        &input,
        &opts,
    ) else {
        return TestResult::discard();
    };
    let (c, mem) = run_block_lockstep(
        &prog,
        &metrics,
        &hw(),
        &launch,
        [0, 0, 0],
        &params,
        &input,
        &opts,
    )
    .expect("the lock-step run exists when the parallel one does");
    if cells(&mem) != cells(&par.memory) {
        return TestResult::error("final stores differ");
    }
    let warps = q(par.warps as i64);
    for (i, m) in metrics.iter().enumerate() {
        if par.work[i] > &c[i] * &warps || par.span[i] > c[i] {
            return TestResult::error(format!(
                "{}: W = {}, S = {}, lock-step C = {} on {} warps",
                m.name, par.work[i], par.span[i], c[i], par.warps
            ));
        }
    }
    TestResult::passed()
}

#[test]
fn racuda_lemma5_lockstep_bounds_parallel() {
    QuickCheck::new()
        .tests(300)
        .quickcheck(lemma5 as fn(u64) -> TestResult);
}
