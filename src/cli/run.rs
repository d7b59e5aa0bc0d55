//! `warpcert run`: the kernel under the lock-step cost semantics (RaCUDA §3) for concrete
//! parameters and inputs — the oracle the bounds are tested against.

use super::options::load;
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::core::Metric;
use crate::report::{self, bound, Format, RunReport};
use crate::semantics::run::{run_kernel, Params};
use crate::semantics::store::Inputs;
use crate::semantics::SemError;
use clap::Args;

/// Arguments of `warpcert run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// Contents of the input arrays: `zero`, `random` (seed 0) or a seed (integer) for
    /// reproducible pseudo-random contents.
    #[arg(long, default_value = "zero")]
    input: String,
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
    match args.kernel.format {
        Format::Text => print!("{}", report::run_text(&reports)),
        Format::Json => match serde_json::to_string_pretty(&reports) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_FAILED;
            }
        },
    }
    0
}
