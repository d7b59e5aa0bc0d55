//! `warpcert run --semantics parallel|smallstep|interleaving|simt` and `--trace`.

use super::{RunArgs, SemanticsKind};
use crate::cli::options::Loaded;
use crate::cli::{EXIT_BAD_INPUT, EXIT_FAILED};
use crate::core::metric::q;
use crate::core::{Metric, MetricName};
use crate::report::semantics::{parallel_text, summary_text, trace_text, warp_costs_text};
use crate::semantics::interleaving::{run_interleaving, InterleavingOptions, Outcome, Scheduler};
use crate::semantics::parallel::{run_block, time_bound, ws_metrics, ParallelRun};
use crate::semantics::simt::run_simt;
use crate::semantics::smallstep::run_smallstep;
use crate::semantics::store::Inputs;
use crate::semantics::{run_warp, Params, RunOptions, SemError};

fn fail(e: &SemError) -> i32 {
    match e {
        SemError::MissingParams(names) => {
            eprintln!(
                "error: `run` needs a value for every scalar parameter; missing: {} (give --param NAME=VALUE)",
                names.join(", ")
            );
            EXIT_BAD_INPUT
        }
        SemError::BadLaunch(_) | SemError::BadInput(_) | SemError::SymbolicGrid => {
            eprintln!("error: {e}");
            EXIT_BAD_INPUT
        }
        _ => {
            eprintln!("error: the run failed: {e}");
            EXIT_FAILED
        }
    }
}

/// What the lock-step, parallel and small-step runs read: the arguments, the loaded kernel,
/// the metrics, parameter values and inputs.
#[derive(Clone, Copy)]
struct RunCtx<'a> {
    args: &'a RunArgs,
    l: &'a Loaded,
    metrics: &'a [Metric],
    params: &'a Params,
    input: &'a Inputs,
}

impl RunCtx<'_> {
    /// Block 0 under the parallel semantics (RaCUDA §5) for `metrics`.
    fn block0(&self, metrics: &[Metric], opts: &RunOptions) -> Result<ParallelRun, SemError> {
        let l = self.l;
        run_block(
            &l.program,
            metrics,
            &l.hw,
            &l.launch,
            [0, 0, 0],
            self.params,
            self.input,
            opts,
        )
    }
}

/// Runs the non-default semantics; returns the exit code (0 ok, 1 the run failed or did not
/// terminate, 2 bad input).
pub fn run(args: &RunArgs, l: &Loaded, metrics: &[Metric], params: &Params, input: &Inputs) -> i32 {
    let opts = RunOptions {
        fuel: args.steps,
        derivation: args.trace,
    };
    let c = RunCtx {
        args,
        l,
        metrics,
        params,
        input,
    };
    match args.semantics {
        SemanticsKind::Lockstep => lockstep_trace(&c, &opts),
        SemanticsKind::Parallel => parallel(&c, &opts),
        SemanticsKind::Smallstep => smallstep(&c),
        SemanticsKind::Interleaving => interleaving(args, l, params, input),
        SemanticsKind::Simt => simt(args, l, params, input),
    }
}

/// `--semantics lockstep --trace`: the derivation of warp 0 of block 0, one line per rule
/// application.
fn lockstep_trace(c: &RunCtx<'_>, opts: &RunOptions) -> i32 {
    let (args, metrics) = (c.args, c.metrics);
    let l = &c.l;
    match run_warp(
        &l.program,
        metrics,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        0,
        c.params,
        c.input,
        opts,
    ) {
        Ok(r) => {
            let lines: Vec<String> = r
                .derivation
                .map(|d| {
                    d.render_with_metrics(metrics)
                        .lines()
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
            print!("{}", trace_text(&lines, args.trace_lines));
            print!("{}", warp_costs_text(&l.program.name, metrics, &r.costs));
            0
        }
        Err(e) => fail(&e),
    }
}

/// `--semantics parallel`: work and span of block 0 (RaCUDA §5).
fn parallel(c: &RunCtx<'_>, opts: &RunOptions) -> i32 {
    let (args, metrics, name) = (c.args, c.metrics, &c.l.program.name);
    match c.block0(metrics, opts) {
        Ok(r) => {
            let rows: Vec<_> = metrics
                .iter()
                .zip(r.work.iter().zip(&r.span))
                .map(|(m, (w, s))| (m.name, w.clone(), s.clone(), time_bound(w, s, args.slots)))
                .collect();
            print!(
                "{}",
                parallel_text(name, r.warps, r.segments.len(), args.slots.max(1), &rows)
            );
            0
        }
        Err(e) => fail(&e),
    }
}

/// `--semantics smallstep`: the bounded implementation of block 0 with `P` slots (RaCUDA §6).
fn smallstep(c: &RunCtx<'_>) -> i32 {
    let RunCtx {
        args,
        l,
        metrics,
        params,
        input,
    } = *c;
    let name = &l.program.name;
    // Latencies: the `steps` metric unless one metric with non-negative integer
    // constants is selected.
    let lat = match metrics {
        [m] => m.clone(),
        _ => Metric::standard(MetricName::Steps),
    };
    let r = match run_smallstep(
        &l.program,
        &lat,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        params,
        input,
        args.slots.max(1) as usize,
        args.steps,
        args.trace,
    ) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if args.trace {
        print!("{}", trace_text(&r.trace, args.trace_lines));
    }
    let (wm, sm) = ws_metrics(&lat);
    let mut fields = vec![
        ("latencies", lat.name.as_str().to_string()),
        ("outcome", format!("{:?}", r.outcome)),
        ("parallel steps n", r.steps.to_string()),
        ("steps per warp", format!("{:?}", r.warp_steps)),
    ];
    if let Ok(p) = c.block0(
        &[wm, sm],
        &RunOptions {
            fuel: args.steps,
            derivation: false,
        },
    ) {
        fields.push(("work W (WS(M))", p.work[0].to_string()));
        fields.push(("span S (WS(M))", p.span[1].to_string()));
        fields.push((
            "W/P + S (Theorem 6)",
            (&p.work[0] / q(args.slots.max(1) as i64) + &p.span[1]).to_string(),
        ));
    }
    print!(
        "{}",
        summary_text(
            &format!(
                "kernel {name}  block (0, 0, 0), P = {} (RaCUDA §6 bounded implementation)",
                args.slots.max(1)
            ),
            &fields
        )
    );
    i32::from(r.outcome != crate::semantics::smallstep::SmallOutcome::Completed)
}

/// `--semantics interleaving`: one schedule of block 0 with the race check (Collingbourne et al.).
fn interleaving(args: &RunArgs, l: &Loaded, params: &Params, input: &Inputs) -> i32 {
    let name = &l.program.name;
    let scheduler = match args.schedule.as_str() {
        "round-robin" => Scheduler::RoundRobin,
        "lowest" => Scheduler::Lowest,
        s => match s.parse::<u64>() {
            Ok(seed) => Scheduler::Random(seed),
            Err(_) => {
                eprintln!("error: --schedule expects round-robin, lowest or a seed, got `{s}`");
                return EXIT_BAD_INPUT;
            }
        },
    };
    let iopts = InterleavingOptions {
        scheduler,
        max_steps: args.steps,
        detect_races: !args.no_race_check,
        benign_equal_writes: false,
        trace: args.trace,
    };
    let r = match run_interleaving(&l.program, &l.hw, &l.launch, params, input, &iopts) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if args.trace {
        print!("{}", trace_text(&r.trace, args.trace_lines));
    }
    let detail = match &r.outcome {
        Outcome::Terminated => "terminated".to_string(),
        Outcome::StepLimit(n) => format!("no termination within {n} steps (raise --steps)"),
        Outcome::Race(e) | Outcome::BarrierDivergence(e) | Outcome::Error(e) => e.to_string(),
    };
    print!(
        "{}",
        summary_text(
            &format!(
                "kernel {name}  (interleaving semantics, schedule {})",
                args.schedule
            ),
            &[
                ("outcome", r.outcome.kind().to_string()),
                ("detail", detail),
                ("steps", r.steps.to_string()),
            ]
        )
    );
    i32::from(r.outcome != Outcome::Terminated)
}

/// `--semantics simt`: warp 0 of block 0 on the SIMT machine with a reconvergence stack.
fn simt(args: &RunArgs, l: &Loaded, params: &Params, input: &Inputs) -> i32 {
    let name = &l.program.name;
    let r = match run_simt(
        &l.program,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        0,
        params,
        input,
        args.steps,
        args.trace,
    ) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if args.trace {
        print!("{}", trace_text(&r.trace, args.trace_lines));
    }
    let detail = match &r.outcome {
        crate::semantics::simt::SimtOutcome::Terminated => "terminated".to_string(),
        crate::semantics::simt::SimtOutcome::StepLimit(n) => {
            format!("no termination within {n} steps (raise --steps)")
        }
        crate::semantics::simt::SimtOutcome::Error(e) => e.to_string(),
    };
    print!(
        "{}",
        summary_text(
            &format!(
                "kernel {name}  warp 0 of block (0, 0, 0) (SIMT machine with reconvergence stack)"
            ),
            &[
                ("outcome", detail),
                ("steps", r.steps.to_string()),
                ("divergent branches", r.usage.div.to_string()),
                ("max stack depth", r.max_depth.to_string()),
            ]
        )
    );
    i32::from(r.outcome != crate::semantics::simt::SimtOutcome::Terminated)
}
