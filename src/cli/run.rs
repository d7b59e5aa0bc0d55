//! `warpcert run`: the kernel under the lock-step cost semantics (RaCUDA §3) for concrete
//! parameters and inputs — the oracle the bounds are tested against — or, with
//! `--semantics`, under the parallel work/span semantics (§5), the small-step bounded
//! implementation (§6), the interleaving semantics (Collingbourne et al.) or the SIMT machine
//! (Habermaier), optionally with a step-by-step `--trace`.

use super::options::load;
use super::KernelArgs;
use crate::core::Metric;
use crate::report::error::{ErrorKind, ErrorReport, FORMAT_VERSION};
use crate::report::{self, bound, Format, RunReport};
use crate::semantics::run::{run_kernel_observed, Params, RunOptions};
use crate::semantics::store::Inputs;
use crate::semantics::SemError;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[path = "run_other.rs"]
mod other;

/// Arguments of `warpcert run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// Contents of the input arrays: `zero`, `random` (seed 0) or a seed (integer) for
    /// reproducible pseudo-random contents.
    #[arg(long, default_value = "zero")]
    input: String,
    /// Which semantics: lockstep (RaCUDA §3, every warp), parallel (§5 work/span of block
    /// 0), smallstep (§6 bounded implementation of block 0), interleaving (Collingbourne et
    /// al., whole grid, race and barrier-divergence checks), simt (Habermaier, warp 0 of
    /// block 0).
    #[arg(long, value_enum, default_value = "lockstep")]
    semantics: SemanticsKind,
    /// Print one line per step (rule, active threads, cost or steps so far); for lockstep,
    /// the derivation of warp 0 of block 0.
    #[arg(long)]
    trace: bool,
    /// At most this many trace lines.
    #[arg(long, default_value_t = 200)]
    trace_lines: usize,
    /// Warp slots `P` (parallel: for `W/P + S`; smallstep: the greedy scheduler's width).
    #[arg(long, default_value_t = 4)]
    slots: u64,
    /// Interleaving scheduler: round-robin, lowest, or a seed for random choices.
    #[arg(long, default_value = "round-robin")]
    schedule: String,
    /// Step limit (smallstep, interleaving, simt) or fuel per warp (lockstep with or
    /// without --trace, parallel): rule applications before the run stops as "out of fuel".
    #[arg(long, default_value_t = 10_000_000)]
    steps: u64,
    /// Interleaving: do not check for data races.
    #[arg(long)]
    no_race_check: bool,
}

/// The semantics `warpcert run` can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SemanticsKind {
    /// RaCUDA §3, Fig. 5: every warp of every block in lock-step.
    Lockstep,
    /// RaCUDA §5: work and span of block 0.
    Parallel,
    /// RaCUDA §6: the bounded implementation of block 0 with latencies.
    Smallstep,
    /// Collingbourne et al.: per-thread steps under a scheduler oracle.
    Interleaving,
    /// Habermaier: warp 0 of block 0 on a SIMT machine with a reconvergence stack.
    Simt,
}

/// Parses `--input`.
fn parse_input(s: &str) -> Result<Inputs, String> {
    match s {
        "zero" => Ok(Inputs::zero()),
        "random" => Ok(Inputs::random(0)),
        _ => s
            .parse::<u64>()
            .map(Inputs::random)
            .map_err(|_| format!("--input expects zero, random or a seed, got `{s}`")),
    }
}

impl RunArgs {
    /// The `--format` option.
    pub fn format(&self) -> Format {
        self.kernel.format
    }
}

/// The error of a failed run: bad parameters or launch are bad input (exit 2), anything else
/// a failed run (exit 1).
pub(super) fn run_error(e: &SemError) -> ErrorReport {
    match e {
        SemError::MissingParams(names) => ErrorReport::new(
            ErrorKind::Usage,
            format!(
                "`run` needs a value for every scalar parameter; missing: {} (give --param NAME=VALUE)",
                names.join(", ")
            ),
        ),
        SemError::BadLaunch(_) | SemError::BadInput(_) | SemError::SymbolicGrid => {
            ErrorReport::new(ErrorKind::Usage, e.to_string())
        }
        _ => ErrorReport::new(
            ErrorKind::Run,
            format!("the run failed: {e} (--steps sets the fuel per warp)"),
        ),
    }
}

/// A progress bar on stderr for a lock-step run of `total` warps, drawn when the run takes
/// more than a second and stderr is a terminal; `done` is updated by the run.
fn with_progress<T: Send>(total: u64, done: &AtomicU64, f: impl FnOnce() -> T + Send) -> T {
    if !std::io::stderr().is_terminal() {
        return f();
    }
    let finished = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            let mut bar: Option<ProgressBar> = None;
            while !finished.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if bar.is_none() && start.elapsed() >= Duration::from_secs(1) {
                    let b = ProgressBar::new(total);
                    if let Ok(st) = ProgressStyle::with_template(
                        "{elapsed_precise} [{bar:40}] {pos}/{len} warps (eta {eta})",
                    ) {
                        b.set_style(st.progress_chars("=> "));
                    }
                    bar = Some(b);
                }
                if let Some(b) = &bar {
                    b.set_position(done.load(Ordering::Relaxed));
                }
            }
            if let Some(b) = bar {
                b.finish_and_clear();
            }
        });
        let r = f();
        finished.store(true, Ordering::Relaxed);
        r
    })
}

/// Runs `warpcert run`; returns the exit code.
pub fn run(args: &RunArgs) -> i32 {
    let format = args.kernel.format;
    let input = match parse_input(&args.input) {
        Ok(i) => i,
        Err(e) => return ErrorReport::new(ErrorKind::Usage, e).emit(format),
    };
    let l = match load(&args.kernel, Some([1, 1, 1])) {
        Ok(l) => l,
        Err(e) => return e.emit(format),
    };
    for w in &l.warnings {
        eprintln!("{w}");
    }
    let metrics: Vec<Metric> = l.metrics.iter().map(|&m| Metric::standard(m)).collect();
    // Scalar parameters given with --param are constants of the lowered program already.
    let params = Params::new();
    if args.semantics != SemanticsKind::Lockstep || args.trace {
        return other::run(args, &l, &metrics, &params, &input);
    }
    let opts = RunOptions {
        fuel: args.steps,
        derivation: false,
    };
    let done = AtomicU64::new(0);
    let total = super::options::total_warps(&l.launch, &l.hw).unwrap_or(0);
    let total = u64::try_from(total).unwrap_or(u64::MAX);
    let (prog, hw, launch) = (&l.program, &l.hw, &l.launch);
    let result = with_progress(total, &done, || {
        run_kernel_observed(prog, &metrics, hw, launch, &params, &input, &opts, &done)
    });
    let run = match result {
        Ok(r) => r,
        Err(e) => return run_error(&e).emit(format),
    };
    let reports: Vec<RunReport> = run
        .metrics
        .iter()
        .map(|m| RunReport {
            format_version: FORMAT_VERSION,
            kernel: l.program.name.clone(),
            metric: m.metric.to_string(),
            max_per_warp: bound::rational(&m.max_per_warp),
            total: bound::rational(&m.total),
            warps: run.warps.to_string(),
        })
        .collect();
    match report::render(format, &reports, |v| report::run_text(v)) {
        Ok(s) => print!("{s}"),
        Err(e) => return ErrorReport::new(ErrorKind::Resource, e).emit(format),
    }
    0
}
