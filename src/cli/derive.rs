//! `warpcert derive`: the big-step lock-step derivation (RaCUDA Fig. 5) of one warp, printed
//! as a tree in the style of the paper's Figs. 6 and 7 — one judgment per line, premises
//! indented below their conclusion, with the rule, the active threads `𝒯` and the cost.

use super::options::load;
use super::KernelArgs;
use crate::core::Metric;
use crate::report::error::{ErrorKind, ErrorReport};
use crate::report::Format;
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
    /// Fuel: rule applications before the run stops as "out of fuel".
    #[arg(long, default_value_t = 10_000_000)]
    steps: u64,
}

impl DeriveArgs {
    /// The `--format` option.
    pub fn format(&self) -> Format {
        self.kernel.format
    }
}

/// Runs `warpcert derive`; returns the exit code.
pub fn run(args: &DeriveArgs) -> i32 {
    let format = args.kernel.format;
    let input = match args.input.as_str() {
        "zero" => Inputs::zero(),
        s => match s.parse::<u64>() {
            Ok(seed) => Inputs::random(seed),
            Err(_) => {
                let msg = format!("--input expects zero or a seed, got `{s}`");
                return ErrorReport::new(ErrorKind::Usage, msg).emit(format);
            }
        },
    };
    let l = match load(&args.kernel, Some([1, 1, 1])) {
        Ok(l) => l,
        Err(e) => return e.emit(format),
    };
    for w in &l.warnings {
        eprintln!("{w}");
    }
    let metrics: Vec<Metric> = l.metrics.iter().map(|&m| Metric::standard(m)).collect();
    let opts = RunOptions {
        fuel: args.steps,
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
        Err(e) => return super::run::run_error(&e).emit(format),
    };
    let Some(d) = r.derivation else {
        return ErrorReport::new(ErrorKind::Run, "no derivation was built").emit(format);
    };
    if d.size() > args.max_nodes {
        let msg = format!(
            "the derivation has {} nodes (more than --max-nodes {}); use a smaller launch (--block) or raise the limit",
            d.size(),
            args.max_nodes
        );
        return ErrorReport::new(ErrorKind::Limit, msg).emit(format);
    }
    if format.is_json() {
        println!(
            "{}",
            crate::report::semantics::derivation_json(&d, &metrics, &l.program.name, args.warp)
        );
        return 0;
    }
    print!(
        "{}",
        crate::report::semantics::derivation_header(args.warp, &l.program.name, d.size())
    );
    print!("{}", d.render_with_metrics(&metrics));
    0
}
