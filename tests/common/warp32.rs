//! One warp of 32 threads (block 32×1×1): analysing a kernel source with a symbolic grid,
//! and its lock-step per-warp cost on one block with an input array `in` (the loops of
//! `tests/guard.rs`, `tests/whileguard.rs` and `tests/whilecap.rs` break on a negative
//! cell).

use std::collections::BTreeMap;
use warpcert::analysis::{analyze, Analysis, AnalysisOptions};
use warpcert::core::assertion::poly::Poly;
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
use warpcert::frontend;
use warpcert::semantics::{run_kernel, ArrayInit, Inputs, Params, Value};

/// Block 32×1×1 with grid `grid` (`None`: symbolic).
pub fn launch(grid: Option<[u32; 3]>) -> Launch {
    Launch {
        block: [32, 1, 1],
        grid,
    }
}

/// The only kernel of `src` lowered for `l` (default hardware).
pub fn lowered(src: &str, l: &Launch) -> Program {
    let file = frontend::parse_str("k.cu", src).unwrap();
    let (prog, _) =
        frontend::lower(&file, None, l, &Hardware::default(), &BTreeMap::new()).unwrap();
    prog
}

/// The analysis of `src` for `m` (block 32, symbolic grid, default options), with its
/// capped bounds; unchecked.
pub fn analysis(src: &str, m: MetricName) -> Analysis {
    analyze(
        &lowered(src, &launch(None)),
        &Metric::standard(m),
        &Hardware::default(),
        &launch(None),
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The certificate and bound of `src` for `m` (block 32, symbolic grid), unchecked.
pub fn analyse(src: &str, m: MetricName) -> (String, Poly) {
    let r = analysis(src, m);
    (r.certificate, r.bound)
}

/// The lock-step per-warp cost of `src` under `m` at `n` on one block, with the input array
/// `in` holding `cells`.
pub fn lock_step(src: &str, m: MetricName, n: i64, cells: Vec<Value>) -> Q {
    let l = launch(Some([1, 1, 1]));
    let prog = lowered(src, &l);
    let inputs = Inputs::zero().with_array("in", ArrayInit::Values(cells));
    let params: Params = BTreeMap::from([("n".to_string(), Value::Int(n))]);
    let ms = [Metric::standard(m)];
    let run = run_kernel(&prog, &ms, &Hardware::default(), &l, &params, &inputs).unwrap();
    run.metrics[0].max_per_warp.clone()
}

/// The lock-step per-warp cost of `src` under `m` at `n` on one block, with an input array
/// `in` of `cells` floats, `in[b] = −1` and the others 1.
pub fn simulated(src: &str, m: MetricName, n: i64, b: Option<usize>, cells: usize) -> Q {
    let cells = (0..cells)
        .map(|i| Value::Float(if Some(i) == b { -1.0 } else { 1.0 }))
        .collect();
    lock_step(src, m, n, cells)
}

/// The lock-step per-warp cost of `src` under `m` at `n` on one block, with an input array
/// `in` of `cells` floats, `in[33·k] = −1` for every `k < lanes` and the others 1 (the
/// staircase: lane `k` reads a negative value in round `k`, `in[32·i + threadIdx.x]` at
/// `i = k`, `threadIdx.x = k`, and leaves there).
pub fn staircase(src: &str, m: MetricName, n: i64, lanes: usize, cells: usize) -> Q {
    let cells = (0..cells)
        .map(|i| {
            Value::Float(if i % 33 == 0 && i / 33 < lanes {
                -1.0
            } else {
                1.0
            })
        })
        .collect();
    lock_step(src, m, n, cells)
}
