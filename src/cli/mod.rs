//! The command line: `warpcert analyze | run | check | bench` (clap). Parses options,
//! calls the pipeline stages, hands results to `crate::report`, and maps outcomes to exit
//! codes: 0 success, 1 no bound / certificate rejected, 2 bad input.

pub mod analyze;
mod analyze_batch;
mod audit;
mod batch;
mod bench;
mod bench_interp;
mod check;
pub mod claim;
mod coverage;
mod derive;
mod export;
pub mod guard;
pub mod kernels;
pub mod options;
pub mod precision;
mod published;
mod relation;
mod run;
mod scaling;

use crate::report::error::{ErrorKind, ErrorReport};
use crate::report::Format;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Exit code for bad input: unreadable file, parse error, unknown kernel or metric.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code when no bound was found or a certificate was rejected.
pub const EXIT_FAILED: i32 = 1;

/// warpcert computes certified per-warp cost bounds for CUDA kernels.
///
/// For a kernel and a launch configuration it bounds, as formulas in the kernel's
/// parameters, the global-memory sectors (uncoalesced accesses), shared-memory bank
/// conflicts, divergent warps and evaluation steps of every warp (RaCUDA's quantitative
/// logic). Each bound comes with a certificate — a derivation tree — that an independent
/// kernel re-checks before the bound is printed.
#[derive(Debug, Parser)]
#[command(name = "warpcert", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Stop after this many seconds with a timeout error (exit 1); every command takes it.
    #[arg(long, global = true, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Stop with a resource failure (exit 1) when warpcert holds more than this many MiB of
    /// memory (default: only the system's limits, e.g. `ulimit -v`).
    #[arg(long, global = true, value_name = "MIB")]
    max_memory: Option<u64>,
}

impl Command {
    /// The `--format` of the command (text for commands without one).
    fn format(&self) -> Format {
        match self {
            Command::Analyze(a) => a.format(),
            Command::Run(a) => a.format(),
            Command::Derive(a) => a.format(),
            Command::Check(a) => a.format(),
            Command::Claim(a) => a.format(),
            Command::Bench(a) => a.format(),
            Command::ExportCoq(a) => a.format(),
            Command::ScalingPoint(_) => Format::Text,
            Command::Coverage(a) => a.format,
            Command::Audit(a) => a.error_format(),
        }
    }
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Bound the cost of every warp of a kernel, with a checked certificate per metric.
    ///
    /// Example: warpcert analyze examples/vector_add.cu --metric all --cert out/
    Analyze(analyze::AnalyzeArgs),
    /// Run a kernel under the lock-step cost semantics for concrete parameters and inputs.
    ///
    /// Prints the largest per-warp cost and the whole-kernel cost (the oracle the bounds
    /// are tested against). Example: warpcert run examples/vector_add.cu --param len=5000
    Run(run::RunArgs),
    /// Check a certificate with the independent kernel: exit 0 accepted, 1 rejected.
    Check(check::CheckArgs),
    /// Audit another analyzer's bound: certified (a checked certificate, exit 0), refuted
    /// (a counterexample witness the kernel replays, exit 1) or unknown (exit 3).
    ///
    /// Example: warpcert claim matrixMul.cu --block 32,32 --metric sectors
    /// --bound '4 + 0.312496*max(0, 31 + wA)'; warpcert claim --table claims.csv
    Claim(claim::ClaimArgs),
    /// The benchmark table: every benchmark kernel × metric with its bound, the published
    /// bounds' verdicts, tightness, times and relation.
    ///
    /// `--precision`, `--scaling` and `--interp` print other tables instead (README,
    /// "Performance"). Example: warpcert bench --no-sim --runs 1
    Bench(bench::BenchArgs),
    /// Print the big-step lock-step derivation tree of one warp (RaCUDA Figs. 6/7 style).
    ///
    /// Example: warpcert derive examples/tricky.cu --block 4 --metric steps
    Derive(derive::DeriveArgs),
    /// Export a certificate the kernel accepts as a Coq file proving its bound.
    ///
    /// Check the result with coqc against coq-export/theories (README, "Checking a bound
    /// in Coq"). Example: warpcert export-coq certificates/vectorAdd.steps.cert -o va.v
    ExportCoq(export::ExportCoqArgs),
    /// Read, lower and bound every kernel of the `.cu`/`.cuh` files of directories: one row
    /// per kernel (read, lowered, metrics with a checked certificate, first error), a
    /// summary, the errors by construct and clang's time per file.
    ///
    /// Example: warpcert coverage ../shared/corpus/cuda-samples-dev -I ../shared/corpus/cuda-samples-dev
    Coverage(coverage::CoverageArgs),
    /// Per-access findings with certified counts (uncoalesced global accesses, bank
    /// conflicts, divergent branches), block-size independence and cache-reuse advice for
    /// every kernel of files and directories; text, JSON, JSON Lines, SARIF, HTML.
    ///
    /// Example: warpcert audit ../shared/corpus/racuda --format sarif --html audit.html > audit.sarif
    Audit(audit::AuditArgs),
    /// One point of `bench --scaling`, run in a child process (internal).
    #[command(hide = true)]
    ScalingPoint(scaling::PointArgs),
}

/// Options shared by `analyze` and `run`: the kernel file, launch and hardware.
#[derive(Clone, Debug, Args)]
pub struct KernelArgs {
    /// The CUDA source file (`.cu`).
    pub file: PathBuf,
    /// Which `__global__` function to use, or a template instance `k<float, 128>`
    /// (default: `analyze` bounds every kernel of the file; `run`, `derive` and `claim` need
    /// it when the file has several).
    #[arg(long)]
    pub kernel: Option<String>,
    /// Metric: sectors, conflicts, divwarps, steps, or all (`claim`: one metric).
    #[arg(long, default_value = "all")]
    pub metric: String,
    /// Block dimensions X[,Y[,Z]] (default: the file's `//--blockDim=` header, else the host
    /// code's `<<<…>>>`, else 256).
    #[arg(long)]
    pub block: Option<String>,
    /// Grid dimensions X[,Y[,Z]], or `symbolic` to ignore the header and the host code
    /// (default: the file's `//--gridDim=` header, else the host code's `<<<…>>>`; without
    /// either, `analyze` leaves `gridDim` symbolic and `run` uses 1).
    #[arg(long)]
    pub grid: Option<String>,
    /// Fix a scalar kernel parameter: NAME=VALUE (integer). Repeatable. The constant replaces
    /// the parameter in the lowered program (spec/lowering.md), for `analyze` and `run`
    /// alike: `steps` then counts that program, so a run with `--param` may differ from a
    /// `steps` bound proved for the symbolic parameter (compare it with `analyze --param`).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Threads per warp.
    #[arg(long, default_value_t = 32)]
    pub warp_size: u32,
    /// Number of shared-memory banks.
    #[arg(long, default_value_t = 32)]
    pub banks: u32,
    /// Width of a shared-memory bank in bytes.
    #[arg(long, default_value_t = 4)]
    pub bank_bytes: u32,
    /// Size of a global-memory sector in bytes.
    #[arg(long, default_value_t = 32)]
    pub sector_bytes: u32,
    /// Front end and its options.
    #[command(flatten)]
    pub front: kernels::FrontendArgs,
}

/// Whether the raw command line asks for JSON (used for errors clap reports before the
/// options are parsed).
fn json_requested() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .any(|w| w[0] == "--format" && w[1] == "json")
        || args.iter().any(|a| a == "--format=json")
}

/// Parses the command line and runs it; returns the process exit code. Errors (also clap's
/// usage errors) are printed as text on stderr, or under `--format json` as one JSON object
/// on stdout (`report::error`); the exit code is the same.
pub fn main() -> i32 {
    guard::quiet_on_closed_stdout();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) if e.use_stderr() && json_requested() => {
            let msg = e
                .kind()
                .as_str()
                .unwrap_or("invalid command line")
                .to_string();
            let detail = e.to_string();
            let first = detail.lines().next().unwrap_or(&msg);
            let first = first.strip_prefix("error: ").unwrap_or(first);
            return ErrorReport::new(ErrorKind::Usage, first).emit(Format::Json);
        }
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_BAD_INPUT } else { 0 };
        }
    };
    let format = cli.command.format();
    guard::set_format(format);
    guard::set_memory_budget(cli.max_memory);
    if let Some(t) = cli.timeout {
        if let Err(e) = guard::start_timeout(t, format) {
            return e.emit(format);
        }
    }
    match cli.command {
        Command::Analyze(a) => analyze::run(&a),
        Command::Run(a) => run::run(&a),
        Command::Check(a) => check::run(&a),
        Command::Claim(a) => claim::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Derive(a) => derive::run(&a),
        Command::ExportCoq(a) => export::run(&a),
        Command::ScalingPoint(a) => scaling::run_point(&a),
        Command::Coverage(a) => coverage::run(&a),
        Command::Audit(a) => audit::run(&a),
    }
}
