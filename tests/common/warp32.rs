//! One warp of 32 threads (block 32×1×1): analysing a kernel source with a symbolic grid,
//! and its lock-step per-warp cost on one block with `in[b] = −1` (the loops of
//! `tests/guard.rs` and `tests/whileguard.rs` break on a negative cell).

use std::collections::BTreeMap;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::assertion::poly::Poly;
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;
use warpcert::semantics::{run_kernel, ArrayInit, Inputs, Params, Value};

/// Block 32×1×1 with grid `grid` (`None`: symbolic).
pub fn launch(grid: Option<[u32; 3]>) -> Launch {
    Launch {
        block: [32, 1, 1],
        grid,
    }
}

/// The certificate and bound of `src` for `m` (block 32, symbolic grid), unchecked.
pub fn analyse(src: &str, m: MetricName) -> (String, Poly) {
    let hw = Hardware::default();
    let file = frontend::parse_str("k.cu", src).unwrap();
    let (prog, _) = frontend::lower(&file, None, &launch(None), &hw, &BTreeMap::new()).unwrap();
    let r = analyze(
        &prog,
        &Metric::standard(m),
        &hw,
        &launch(None),
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (r.certificate, r.bound)
}

/// The lock-step per-warp cost of `src` under `m` at `n` on one block, with an input array
/// `in` of `cells` floats, `in[b] = −1` and the others 1.
pub fn simulated(src: &str, m: MetricName, n: i64, b: Option<usize>, cells: usize) -> Q {
    let hw = Hardware::default();
    let file = frontend::parse_str("k.cu", src).unwrap();
    let l = launch(Some([1, 1, 1]));
    let (prog, _) = frontend::lower(&file, None, &l, &hw, &BTreeMap::new()).unwrap();
    let cells = (0..cells)
        .map(|i| Value::Float(if Some(i) == b { -1.0 } else { 1.0 }))
        .collect();
    let inputs = Inputs::zero().with_array("in", ArrayInit::Values(cells));
    let params: Params = BTreeMap::from([("n".to_string(), Value::Int(n))]);
    let ms = [Metric::standard(m)];
    let run = run_kernel(&prog, &ms, &hw, &l, &params, &inputs).unwrap();
    run.metrics[0].max_per_warp.clone()
}
