//! `warpcert bench --interp` (issue 13, item 5): the speed of the executable semantics on
//! `examples/vector_add.cu`, one row per semantics and configuration: simulated steps, CPU
//! seconds of this process, steps per CPU second, wall seconds and the number of worker
//! threads (rayon) the run may use.
//!
//! A *lane-step* is one rule application on one lane of a lock-step warp: rule applications
//! of a warp × its lanes (vector_add at `len` = threads never diverges, and every warp runs
//! the same rules, so warp 0's rule applications × lanes × warps is exact). A
//! *thread-step* is one step of the interleaving semantics (a thread step or a barrier).
//! CPU time is read from `/proc/self/stat` (Linux, 1/100 s ticks; 0 elsewhere), so each row
//! repeats its run until it has used at least [`MIN_CPU_S`] CPU seconds (or [`MAX_REPS`]
//! runs), and reports the totals. On a shared machine wall time includes waiting for a core;
//! steps per CPU second do not.

use super::scaling::own_cpu_s;
use crate::core::{Hardware, Launch, Metric, MetricName, Program};
use crate::frontend;
use crate::report::interp::{render, InterpRow};
use crate::semantics::interleaving::{run_interleaving, InterleavingOptions, Scheduler};
use crate::semantics::{run_kernel, run_warp, Inputs, Params, RunOptions};
use std::collections::BTreeMap;
use std::time::Instant;

/// Each row runs until it has used this much CPU time.
const MIN_CPU_S: f64 = 1.0;
/// … or this many runs.
const MAX_REPS: u32 = 50;

/// vector_add lowered for `threads` threads in blocks of 256 (`len` = `threads`).
fn vector_add(hw: &Hardware, threads: u32) -> Result<(Program, Launch), String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vector_add.cu");
    let parsed = frontend::parse_file(&path).map_err(|d| d.to_string())?;
    let launch = Launch {
        block: [256, 1, 1],
        grid: Some([threads.div_ceil(256), 1, 1]),
    };
    let pv = BTreeMap::from([("len".to_string(), threads as i64)]);
    let (prog, _) = frontend::lower(&parsed, None, &launch, hw, &pv).map_err(|d| d.to_string())?;
    Ok((prog, launch))
}

/// Repeats `run` (returning its steps) until [`MIN_CPU_S`] CPU seconds or [`MAX_REPS`]
/// runs; the summed steps, CPU and wall seconds.
fn repeat(mut run: impl FnMut() -> Result<u64, String>) -> Result<(u64, f64, f64), String> {
    let (c0, t0) = (own_cpu_s(), Instant::now());
    let mut steps = 0u64;
    for _ in 0..MAX_REPS {
        steps += run()?;
        if own_cpu_s() - c0 >= MIN_CPU_S {
            break;
        }
    }
    Ok((steps, own_cpu_s() - c0, t0.elapsed().as_secs_f64()))
}

/// The lock-step rows: vector_add at 2²⁰ threads, all four metrics, on `cores` rayon
/// threads.
fn lockstep_row(hw: &Hardware, cores: usize) -> Result<InterpRow, String> {
    let threads = 1u32 << 20;
    let (prog, launch) = vector_add(hw, threads)?;
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let (params, input) = (Params::new(), Inputs::random(1));
    let w0 = run_warp(
        &prog,
        &metrics,
        hw,
        &launch,
        [0, 0, 0],
        0,
        &params,
        &input,
        &RunOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    let per_warp = w0.rule_applications * w0.threads.len() as u64;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cores)
        .build()
        .map_err(|e| e.to_string())?;
    let (steps, cpu, wall) = pool.install(|| {
        repeat(|| {
            let k = run_kernel(&prog, &metrics, hw, &launch, &params, &input)
                .map_err(|e| e.to_string())?;
            Ok(per_warp * k.warps)
        })
    })?;
    Ok(InterpRow {
        semantics: "lock-step (4 metrics)".into(),
        kernel: "vector_add".into(),
        threads: threads as u64,
        unit: "lane-steps",
        steps,
        cpu_s: cpu,
        wall_s: wall,
        cores,
    })
}

/// The interleaving rows: vector_add at 2¹⁶ threads, random schedule, with or without
/// race checking (the run is sequential: one core).
fn interleaving_row(hw: &Hardware, races: bool) -> Result<InterpRow, String> {
    let threads = 1u32 << 16;
    let (prog, launch) = vector_add(hw, threads)?;
    let opts = InterleavingOptions {
        scheduler: Scheduler::Random(1),
        max_steps: u64::MAX,
        detect_races: races,
        benign_equal_writes: false,
        trace: false,
    };
    let (params, input) = (Params::new(), Inputs::random(1));
    let (steps, cpu, wall) = repeat(|| {
        let r = run_interleaving(&prog, hw, &launch, &params, &input, &opts)
            .map_err(|e| e.to_string())?;
        Ok(r.steps)
    })?;
    let check = if races { "on" } else { "off" };
    Ok(InterpRow {
        semantics: format!("interleaving (random schedule, race check {check})"),
        kernel: "vector_add".into(),
        threads: threads as u64,
        unit: "thread-steps",
        steps,
        cpu_s: cpu,
        wall_s: wall,
        cores: 1,
    })
}

/// Runs `warpcert bench --interp`: prints the table (Markdown, or one JSON object with a
/// `rows` array). Rows: lock-step on one core, on every core (when there are several),
/// interleaving without and with race checking. Exit 0, or 1 when a run fails (the error
/// reported as [`crate::report::error::ErrorKind::Run`]).
pub fn run(format: crate::report::Format) -> i32 {
    let hw = Hardware::default();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rows = Vec::new();
    for job in 0..4 {
        let r = match job {
            0 => lockstep_row(&hw, 1),
            1 if cores > 1 => lockstep_row(&hw, cores),
            1 => continue,
            2 => interleaving_row(&hw, false),
            _ => interleaving_row(&hw, true),
        };
        match r {
            Ok(r) => rows.push(r),
            Err(e) => {
                let kind = crate::report::error::ErrorKind::Run;
                let msg = format!("bench --interp: {e}");
                return crate::report::error::ErrorReport::new(kind, msg).emit(format);
            }
        }
    }
    print!("{}", render(&rows, format));
    0
}
