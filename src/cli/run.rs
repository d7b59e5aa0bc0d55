//! `warpcert run`: the kernel under the lock-step cost semantics (RaCUDA §3) for concrete
//! parameters and inputs — the oracle the bounds are tested against — or, with
//! `--semantics`, under the parallel work/span semantics (§5), the small-step bounded
//! implementation (§6), the interleaving semantics (Collingbourne et al.) or the SIMT machine
//! (Habermaier), optionally with a step-by-step `--trace`.

use super::options::load;
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::core::Metric;
use crate::report::{self, bound, Format, RunReport};
use crate::semantics::run::{run_kernel, Params};
use crate::semantics::store::Inputs;
use crate::semantics::SemError;
use clap::Args;

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
    /// Step limit (smallstep, interleaving, simt) or fuel per warp (lockstep, parallel).
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

/// Runs `warpcert run`; returns the exit code.
pub fn run(args: &RunArgs) -> i32 {
    let input = match parse_input(&args.input) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let l = match load(&args.kernel, Some([1, 1, 1])) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("{e}");
            return EXIT_BAD_INPUT;
        }
    };
    for w in &l.warnings {
        eprintln!("{w}");
    }
    let metrics: Vec<Metric> = l.metrics.iter().map(|&m| Metric::standard(m)).collect();
    // Scalar parameters given with --param are constants of the lowered program already.
    let params = Params::new();
    if args.semantics != SemanticsKind::Lockstep || args.trace {
        if args.kernel.format == Format::Json {
            eprintln!(
                "error: --format json is only available for --semantics lockstep without --trace"
            );
            return EXIT_BAD_INPUT;
        }
        return other::run(args, &l, &metrics, &params, &input);
    }
    let run = match run_kernel(&l.program, &metrics, &l.hw, &l.launch, &params, &input) {
        Ok(r) => r,
        Err(SemError::MissingParams(names)) => {
            eprintln!(
                "error: `run` needs a value for every scalar parameter; missing: {} (give --param NAME=VALUE)",
                names.join(", ")
            );
            return EXIT_BAD_INPUT;
        }
        Err(e) => {
            eprintln!("error: the run failed: {e}");
            return EXIT_FAILED;
        }
    };
    let reports: Vec<RunReport> = run
        .metrics
        .iter()
        .map(|m| RunReport {
            kernel: l.program.name.clone(),
            metric: m.metric.to_string(),
            max_per_warp: bound::rational(&m.max_per_warp),
            total: bound::rational(&m.total),
            warps: run.warps,
        })
        .collect();
    match report::render(args.kernel.format, &reports, |v| report::run_text(v)) {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    }
    0
}
