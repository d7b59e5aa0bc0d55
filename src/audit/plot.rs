//! The data of the report's plot: a certified per-warp bound against the simulated
//! per-warp cost (lock-step semantics, the oracle) over one parameter.

use crate::core::{Hardware, Launch, Metric, MetricName, Program, Ty};
use crate::semantics::{run_kernel_with, Inputs, RunOptions, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use warpcert_kernel::arith::Poly;

/// Bound and simulated cost at several values of one parameter.
#[derive(Clone, Debug, Serialize)]
pub struct Series {
    /// The metric.
    pub metric: MetricName,
    /// The parameter varied (every scalar `int` parameter takes this value).
    pub param: String,
    /// `(value, certified bound, simulated largest per-warp cost)`; the simulation is
    /// `None` when the run failed (fuel, run-time error).
    pub points: Vec<(i64, f64, Option<f64>)>,
}

/// The parameter values of the plot.
pub const VALUES: [i64; 6] = [16, 32, 64, 128, 256, 512];

/// The series of `poly` (the kernel's accepted bound under `metric`) over [`VALUES`]: every
/// scalar `int` parameter set to the value, the grid one block when symbolic
/// (`blockIdx = 0`, `gridDim = 1`), random inputs (seed 1). `None` when the kernel has no
/// scalar `int` parameter.
pub fn series(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    metric: MetricName,
    poly: &Poly,
) -> Option<Series> {
    use num_traits::ToPrimitive;
    let scalars: Vec<&str> = prog
        .params
        .iter()
        .filter(|p| p.ty == Ty::Int && !p.name.contains('.'))
        .map(|p| p.name.as_str())
        .collect();
    let first = *scalars.first()?;
    let run_launch = Launch {
        block: launch.block,
        grid: Some(launch.grid.unwrap_or([1, 1, 1])),
    };
    let m = Metric::standard(metric);
    let opts = RunOptions {
        fuel: 5_000_000,
        derivation: false,
    };
    let points = VALUES
        .iter()
        .map(|&v| {
            let mut at: BTreeMap<String, i64> =
                scalars.iter().map(|s| (s.to_string(), v)).collect();
            at.insert("gridDim.x".into(), 1);
            at.insert("gridDim.y".into(), 1);
            at.insert("gridDim.z".into(), 1);
            let bound = super::certify::eval(poly, &at);
            let mut params: crate::semantics::Params = BTreeMap::new();
            for p in &prog.params {
                let val = match p.ty {
                    Ty::Int => Value::Int(at.get(&p.name).copied().unwrap_or(0)),
                    Ty::Float => Value::Float(1.0),
                    Ty::Bool => Value::Bool(true),
                };
                params.insert(p.name.clone(), val);
            }
            let sim = run_kernel_with(
                prog,
                std::slice::from_ref(&m),
                hw,
                &run_launch,
                &params,
                &Inputs::random(1),
                &opts,
            )
            .ok()
            .and_then(|r| r.metrics.first().and_then(|x| x.max_per_warp.to_f64()));
            (v, bound, sim)
        })
        .collect();
    Some(Series {
        metric,
        param: first.to_string(),
        points,
    })
}
