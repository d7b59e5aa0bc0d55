//! `warpcert derive`: the big-step lock-step derivation (RaCUDA Fig. 5) of one warp, printed
//! as a tree in the style of the paper's Figs. 6 and 7 — one judgment per line, premises
//! indented below their conclusion, with the rule, the active threads `𝒯` and the cost.

use super::options::load;
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::core::Metric;
use crate::semantics::store::Inputs;
use crate::semantics::{run_warp, Params, RunOptions};
use clap::Args;

/// Arguments of `warpcert derive`.
#[derive(Debug, Args)]
pub struct DeriveArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// Which warp of the block (index).
    #[arg(long, default_value_t = 0)]
    warp: u64,
    /// Contents of the input arrays: `zero` or a seed for pseudo-random contents.
    #[arg(long, default_value = "zero")]
    input: String,
    /// Refuse derivations with more nodes than this (a derivation is for a small launch).
    #[arg(long, default_value_t = 5000)]
    max_nodes: usize,
}

/// Runs `warpcert derive`; returns the exit code.
pub fn run(args: &DeriveArgs) -> i32 {
    let input = match args.input.as_str() {
        "zero" => Inputs::zero(),
        s => match s.parse::<u64>() {
            Ok(seed) => Inputs::random(seed),
            Err(_) => {
                eprintln!("error: --input expects zero or a seed, got `{s}`");
                return EXIT_BAD_INPUT;
            }
        },
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
    let opts = RunOptions {
        fuel: 10_000_000,
        derivation: true,
    };
    let r = match run_warp(
        &l.program,
        &metrics,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        args.warp,
        &Params::new(),
        &input,
        &opts,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: the run failed: {e}");
            return EXIT_FAILED;
        }
    };
    let Some(d) = r.derivation else {
        eprintln!("error: no derivation was built");
        return EXIT_FAILED;
    };
    if d.size() > args.max_nodes {
        eprintln!(
            "error: the derivation has {} nodes (more than --max-nodes {}); use a smaller launch (--block) or raise the limit",
            d.size(),
            args.max_nodes
        );
        return EXIT_FAILED;
    }
    print!(
        "{}",
        crate::report::semantics::derivation_header(args.warp, &l.program.name, d.size())
    );
    print!("{}", d.render_with_metrics(&metrics));
    0
}
