//! Lower-bound witnesses (`spec/relational.md` §8): a concrete launch and input whose replay
//! under the lock-step cost semantics gives a stated per-warp cost, written in the text
//! format the kernel's `witness::check_witness` replays with its own interpreter.

use crate::core::metric::Q;
use crate::core::print::sexp_program;
use crate::core::{Hardware, Launch, Metric, MetricName, Program, Ty};
use crate::semantics::{run_warp, Inputs, Params, RunOptions, SemError, Value};
use std::fmt::Write;

/// A witness: parameter values, block 0, the costliest warp of that block, zero inputs.
#[derive(Clone, Debug)]
pub struct Witness {
    /// Scalar parameter values (not `blockIdx.*`/`gridDim.*`).
    pub params: Vec<(String, i64)>,
    /// Warp index within block 0.
    pub warp: u64,
    /// The cost of that warp under the semantics.
    pub cost: Q,
    /// The witness text (version 1).
    pub text: String,
}

/// Why no witness was computed.
#[derive(Clone, Debug, PartialEq)]
pub enum WitnessError {
    /// Running block 0 needs more than this many rule applications (the budget given to
    /// [`witness_within`]); the witness was not computed.
    OverBudget(u64),
    /// A run error of the semantics, or a metric other than `sectors`/`conflicts`.
    Failed(String),
}

impl std::fmt::Display for WitnessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WitnessError::OverBudget(b) => write!(
                f,
                "skipped: the replay needs more than {b} rule applications (the budget)"
            ),
            WitnessError::Failed(e) => f.write_str(e),
        }
    }
}

/// Runs every warp of block 0 of a one-block grid with every scalar parameter set to
/// `value` (booleans `true`) and zero inputs, and returns the costliest warp as a witness.
/// Each warp has the default fuel ([`RunOptions::default`]).
/// Errors: a run error of the semantics (including running out of fuel), or a metric other
/// than `sectors`/`conflicts`.
pub fn witness(
    prog: &Program,
    metric: MetricName,
    hw: &Hardware,
    launch: &Launch,
    value: i64,
) -> Result<Witness, String> {
    witness_within(prog, metric, hw, launch, value, u64::MAX).map_err(|e| e.to_string())
}

/// As [`witness`], stopping once the warps of block 0 together have applied more than
/// `budget` rules of the semantics: a point whose replay would exceed the budget is
/// [`WitnessError::OverBudget`] (reported as skipped), not run until the fuel ends.
pub fn witness_within(
    prog: &Program,
    metric: MetricName,
    hw: &Hardware,
    launch: &Launch,
    value: i64,
    budget: u64,
) -> Result<Witness, WitnessError> {
    if !matches!(metric, MetricName::Sectors | MetricName::Conflicts) {
        return Err(WitnessError::Failed(
            "witnesses are for sectors and conflicts".into(),
        ));
    }
    let m = Metric::standard(metric);
    let launch = Launch {
        block: launch.block,
        grid: Some([1, 1, 1]),
    };
    let mut params = Params::new();
    let mut shown = Vec::new();
    for p in &prog.params {
        if p.name.starts_with("blockIdx.") || p.name.starts_with("gridDim.") {
            continue;
        }
        let val = match p.ty {
            Ty::Int => Value::Int(value),
            Ty::Bool => Value::Bool(true),
            Ty::Float => Value::Float(value as f64),
        };
        params.insert(p.name.clone(), val);
        shown.push((p.name.clone(), if p.ty == Ty::Bool { 1 } else { value }));
    }
    let mut best: Option<(u64, Q)> = None;
    let mut left = budget;
    let default_fuel = RunOptions::default().fuel;
    for w in 0..launch.warps_per_block(hw) {
        let opts = RunOptions {
            fuel: left.min(default_fuel),
            ..RunOptions::default()
        };
        let run = run_warp(
            prog,
            std::slice::from_ref(&m),
            hw,
            &launch,
            [0, 0, 0],
            w,
            &params,
            &Inputs::zero(),
            &opts,
        )
        .map_err(|e| match e.root() {
            SemError::OutOfFuel(_) if left < default_fuel => WitnessError::OverBudget(budget),
            _ => WitnessError::Failed(e.to_string()),
        })?;
        left = left.saturating_sub(run.rule_applications);
        let c = run.costs[0].clone();
        if best.as_ref().is_none_or(|(_, b)| c > *b) {
            best = Some((w, c));
        }
    }
    let (warp, cost) = best.ok_or_else(|| WitnessError::Failed("the block has no warps".into()))?;
    let text = write(prog, metric, hw, &launch, &shown, warp, &cost);
    Ok(Witness {
        params: shown,
        warp,
        cost,
        text,
    })
}

/// A version-2 witness (spec/relational.md §8): as [`write`], with stated array contents
/// and, optionally, the claimed bound it refutes (issue 19).
#[derive(Clone, Copy, Debug)]
pub struct WitnessV2<'a> {
    /// The program.
    pub prog: &'a Program,
    /// `sectors` or `conflicts`.
    pub metric: MetricName,
    /// Hardware.
    pub hw: &'a Hardware,
    /// Block dimensions (the grid is one block).
    pub block: [u32; 3],
    /// Scalar parameter values (`bool`: 0/1).
    pub params: &'a [(String, i64)],
    /// Warp of block 0.
    pub warp: u64,
    /// Its cost.
    pub cost: &'a Q,
    /// Array contents: explicit cells or one value per array (the default input must be
    /// zero: cells not stated read 0).
    pub inputs: &'a Inputs,
    /// `(upper|lower, CLAIM)`: the claim in the kernel's grammar (`kernel/src/witness.rs`).
    pub claim: Option<(&'a str, &'a str)>,
}

/// A cell value in the witness grammar: integers, `true`/`false`, a float as the exact
/// rational of its binary64 value. Errors: a non-finite float.
fn cell(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::Int(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Float(x) => {
            let r = num_rational::BigRational::from_float(*x)
                .ok_or_else(|| format!("the float {x} has no exact rational"))?;
            crate::core::assertion::linear::fmt_q(&r)
        }
    })
}

/// The version-2 witness text. Errors: pseudo-random default input (cells must be stated),
/// a non-finite float cell.
pub fn write_v2(w: &WitnessV2) -> Result<String, String> {
    if w.inputs.default != crate::semantics::Input::Zero {
        return Err("a witness states its array contents: the default input must be zero".into());
    }
    let launch = Launch {
        block: w.block,
        grid: Some([1, 1, 1]),
    };
    let v1 = write(w.prog, w.metric, w.hw, &launch, w.params, w.warp, w.cost);
    let mut s = v1.replacen("warpcert-witness 1", "warpcert-witness 2", 1);
    let mut arrays = String::new();
    for (name, init) in &w.inputs.arrays {
        match init {
            crate::semantics::ArrayInit::Fill(v) => {
                let _ = write!(arrays, " ({name} (fill {}))", cell(v)?);
            }
            crate::semantics::ArrayInit::Values(vs) => {
                let cells: Vec<String> = vs.iter().map(cell).collect::<Result<_, _>>()?;
                let _ = write!(arrays, " ({name} (cells {}))", cells.join(" "));
            }
        }
    }
    if !arrays.is_empty() {
        let _ = writeln!(s, "(arrays{arrays})");
    }
    if let Some((rel, claim)) = w.claim {
        let _ = writeln!(s, "(claim {rel} {claim})");
    }
    Ok(s)
}

/// The witness text (spec/relational.md §8).
pub fn write(
    prog: &Program,
    metric: MetricName,
    hw: &Hardware,
    launch: &Launch,
    params: &[(String, i64)],
    warp: u64,
    cost: &Q,
) -> String {
    let mut s = String::from("warpcert-witness 1\n");
    let _ = writeln!(s, "(metric {metric})");
    let _ = writeln!(
        s,
        "(hardware {} {} {} {})",
        hw.warp_size, hw.banks, hw.bank_bytes, hw.sector_bytes
    );
    let _ = writeln!(
        s,
        "(launch {} {} {})",
        launch.block[0], launch.block[1], launch.block[2]
    );
    let g = launch.grid.unwrap_or([1, 1, 1]);
    let _ = writeln!(s, "(grid {} {} {})", g[0], g[1], g[2]);
    s.push_str("(block 0 0 0)\n");
    let _ = writeln!(s, "(warp {warp})");
    s.push_str("(params");
    for (n, v) in params {
        let _ = write!(s, " ({n} {v})");
    }
    s.push_str(")\n");
    sexp_program(prog, &mut s);
    let _ = writeln!(s, "(cost {})", crate::core::assertion::linear::fmt_q(cost));
    s
}
