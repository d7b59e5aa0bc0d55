//! `warpcert run --semantics parallel|smallstep|interleaving|simt` and `--trace`.
//!
//! Every machine produces a [`Summary`] (title, fields, trace lines, exit code) that is
//! printed as text or, under `--format json`, as one JSON object (`report::semantics`).
//! `--steps` is the step limit (smallstep, interleaving, simt) or the fuel per warp
//! (lockstep `--trace`, parallel).

use super::{run_error, RunArgs, SemanticsKind};
use crate::cli::options::Loaded;
use crate::core::metric::q;
use crate::core::{Metric, MetricName};
use crate::report::error::{ErrorKind, ErrorReport};
use crate::report::semantics::{parallel_text, summary_json, summary_text, trace_text};
use crate::report::Format;
use crate::semantics::interleaving::{run_interleaving, InterleavingOptions, Outcome, Scheduler};
use crate::semantics::parallel::{run_block, time_bound, ws_metrics};
use crate::semantics::simt::{run_simt, SimtOutcome};
use crate::semantics::smallstep::{run_smallstep, SmallOutcome};
use crate::semantics::store::Inputs;
use crate::semantics::{run_warp, Params, RunOptions};

/// What one machine reports.
struct Summary {
    title: String,
    fields: Vec<(&'static str, String)>,
    trace: Vec<String>,
    /// The text form when it is not the generic `title` + fields (parallel's table).
    text: Option<String>,
    /// 0: the run terminated normally; 1: it did not (step limit, race, error).
    code: i32,
}

impl Summary {
    fn new(title: String, fields: Vec<(&'static str, String)>, trace: Vec<String>) -> Summary {
        Summary {
            title,
            fields,
            trace,
            text: None,
            code: 0,
        }
    }
}

/// Runs the non-default semantics; returns the exit code (0 ok, 1 the run failed or did not
/// terminate, 2 bad input).
pub fn run(args: &RunArgs, l: &Loaded, metrics: &[Metric], params: &Params, input: &Inputs) -> i32 {
    let format = args.kernel.format;
    let summary = match args.semantics {
        SemanticsKind::Lockstep => lockstep_trace(args, l, metrics, params, input),
        SemanticsKind::Parallel => parallel(args, l, metrics, params, input),
        SemanticsKind::Smallstep => smallstep(args, l, metrics, params, input),
        SemanticsKind::Interleaving => interleaving(args, l, params, input),
        SemanticsKind::Simt => simt(args, l, params, input),
    };
    let s = match summary {
        Ok(s) => s,
        Err(e) => return e.emit(format),
    };
    match format {
        Format::Text => {
            print!("{}", trace_text(&s.trace, args.trace_lines));
            match &s.text {
                Some(t) => print!("{t}"),
                None => print!("{}", summary_text(&s.title, &s.fields)),
            }
        }
        Format::Json | Format::Jsonl => {
            let name = format!("{:?}", args.semantics).to_lowercase();
            println!(
                "{}",
                summary_json(&name, &s.title, &s.fields, &s.trace, args.trace_lines)
            );
        }
    }
    s.code
}

fn opts(args: &RunArgs) -> RunOptions {
    RunOptions {
        fuel: args.steps,
        derivation: args.trace,
    }
}

/// `--trace` under lock-step: the derivation of warp 0 of block 0, one line per rule.
fn lockstep_trace(
    args: &RunArgs,
    l: &Loaded,
    metrics: &[Metric],
    params: &Params,
    input: &Inputs,
) -> Result<Summary, ErrorReport> {
    let r = run_warp(
        &l.program,
        metrics,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        0,
        params,
        input,
        &opts(args),
    )
    .map_err(|e| run_error(&e))?;
    let lines: Vec<String> = r
        .derivation
        .map(|d| {
            d.render_with_metrics(metrics)
                .lines()
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    let costs: Vec<String> = metrics
        .iter()
        .zip(&r.costs)
        .map(|(m, c)| format!("{}={c}", m.name))
        .collect();
    let mut s = Summary::new(
        format!("kernel {}  warp 0 of block (0, 0, 0)", l.program.name),
        vec![("costs", costs.join("  "))],
        lines,
    );
    s.text = Some(format!("{}: {}\n", s.title, costs.join("  ")));
    Ok(s)
}

/// RaCUDA §5: work and span of block 0.
fn parallel(
    args: &RunArgs,
    l: &Loaded,
    metrics: &[Metric],
    params: &Params,
    input: &Inputs,
) -> Result<Summary, ErrorReport> {
    let r = run_block(
        &l.program,
        metrics,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        params,
        input,
        &opts(args),
    )
    .map_err(|e| run_error(&e))?;
    let p = args.slots.max(1);
    let rows: Vec<_> = metrics
        .iter()
        .zip(r.work.iter().zip(&r.span))
        .map(|(m, (w, s))| (m.name, w.clone(), s.clone(), time_bound(w, s, p)))
        .collect();
    let mut fields = vec![
        ("warps", r.warps.to_string()),
        ("segments", r.segments.len().to_string()),
        ("slots P", p.to_string()),
    ];
    for (m, w, s, t) in &rows {
        fields.push((m.as_str(), format!("W={w} S={s} W/P+S={t}")));
    }
    let name = &l.program.name;
    let mut s = Summary::new(
        format!("kernel {name}  block (0, 0, 0)"),
        fields,
        Vec::new(),
    );
    s.text = Some(parallel_text(name, r.warps, r.segments.len(), p, &rows));
    Ok(s)
}

/// RaCUDA §6: the bounded implementation of block 0, beside `W/P + S`.
fn smallstep(
    args: &RunArgs,
    l: &Loaded,
    metrics: &[Metric],
    params: &Params,
    input: &Inputs,
) -> Result<Summary, ErrorReport> {
    // Latencies: the `steps` metric unless one metric is selected.
    let lat = match metrics {
        [m] => m.clone(),
        _ => Metric::standard(MetricName::Steps),
    };
    let p = args.slots.max(1);
    let r = run_smallstep(
        &l.program,
        &lat,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        params,
        input,
        usize::try_from(p).unwrap_or(usize::MAX),
        args.steps,
        args.trace,
    )
    .map_err(|e| run_error(&e))?;
    let (wm, sm) = ws_metrics(&lat);
    let mut fields = vec![
        ("latencies", lat.name.as_str().to_string()),
        ("outcome", format!("{:?}", r.outcome)),
        ("parallel steps n", r.steps.to_string()),
        ("steps per warp", format!("{:?}", r.warp_steps)),
    ];
    let block_opts = RunOptions {
        fuel: args.steps,
        derivation: false,
    };
    let (prog, hw, launch) = (&l.program, &l.hw, &l.launch);
    if let Ok(b) = run_block(
        prog,
        &[wm, sm],
        hw,
        launch,
        [0, 0, 0],
        params,
        input,
        &block_opts,
    ) {
        let (w, s) = (&b.work[0], &b.span[1]);
        let ps = i64::try_from(p).unwrap_or(i64::MAX);
        fields.push(("work W (WS(M))", w.to_string()));
        fields.push(("span S (WS(M))", s.to_string()));
        fields.push(("W/P + S (Theorem 6)", (w / q(ps) + s).to_string()));
    }
    let title = format!(
        "kernel {}  block (0, 0, 0), P = {p} (RaCUDA §6 bounded implementation)",
        l.program.name
    );
    let mut s = Summary::new(title, fields, r.trace);
    s.code = i32::from(r.outcome != SmallOutcome::Completed);
    Ok(s)
}

/// Collingbourne et al.: per-thread steps under a scheduler oracle, whole grid.
fn interleaving(
    args: &RunArgs,
    l: &Loaded,
    params: &Params,
    input: &Inputs,
) -> Result<Summary, ErrorReport> {
    let scheduler = match args.schedule.as_str() {
        "round-robin" => Scheduler::RoundRobin,
        "lowest" => Scheduler::Lowest,
        s => Scheduler::Random(s.parse::<u64>().map_err(|_| {
            ErrorReport::new(
                ErrorKind::Usage,
                format!("--schedule expects round-robin, lowest or a seed, got `{s}`"),
            )
        })?),
    };
    let iopts = InterleavingOptions {
        scheduler,
        max_steps: args.steps,
        detect_races: !args.no_race_check,
        benign_equal_writes: false,
        trace: args.trace,
    };
    let r = run_interleaving(&l.program, &l.hw, &l.launch, params, input, &iopts)
        .map_err(|e| run_error(&e))?;
    let detail = match &r.outcome {
        Outcome::Terminated => "terminated".to_string(),
        Outcome::StepLimit(n) => format!("no termination within {n} steps (raise --steps)"),
        Outcome::Race(e) | Outcome::BarrierDivergence(e) | Outcome::Error(e) => e.to_string(),
    };
    let title = format!(
        "kernel {}  (interleaving semantics, schedule {})",
        l.program.name, args.schedule
    );
    let fields = vec![
        ("outcome", r.outcome.kind().to_string()),
        ("detail", detail),
        ("steps", r.steps.to_string()),
    ];
    let mut s = Summary::new(title, fields, r.trace);
    s.code = i32::from(r.outcome != Outcome::Terminated);
    Ok(s)
}

/// Habermaier: warp 0 of block 0 on a SIMT machine with a reconvergence stack.
fn simt(
    args: &RunArgs,
    l: &Loaded,
    params: &Params,
    input: &Inputs,
) -> Result<Summary, ErrorReport> {
    let r = run_simt(
        &l.program,
        &l.hw,
        &l.launch,
        [0, 0, 0],
        0,
        params,
        input,
        args.steps,
        args.trace,
    )
    .map_err(|e| run_error(&e))?;
    let detail = match &r.outcome {
        SimtOutcome::Terminated => "terminated".to_string(),
        SimtOutcome::StepLimit(n) => format!("no termination within {n} steps (raise --steps)"),
        SimtOutcome::Error(e) => e.to_string(),
    };
    let title = format!(
        "kernel {}  warp 0 of block (0, 0, 0) (SIMT machine with reconvergence stack)",
        l.program.name
    );
    let fields = vec![
        ("outcome", detail),
        ("steps", r.steps.to_string()),
        ("divergent branches", r.usage.div.to_string()),
        ("max stack depth", r.max_depth.to_string()),
    ];
    let mut s = Summary::new(title, fields, r.trace);
    s.code = i32::from(r.outcome != SimtOutcome::Terminated);
    Ok(s)
}
