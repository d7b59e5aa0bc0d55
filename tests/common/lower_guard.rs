//! A guarded kernel whose lower bound needs a parameter hypothesis (rule L:HYP, spec/logic.md
//! §4b), shared by `tests/lower.rs` (the kernel's checks) and `tests/coq_lower_export.rs`
//! (its Coq export), and the helper that lowers a CUDA source for a 1-D launch.

use std::collections::BTreeMap;
use warpcert::analysis::AnalysisOptions;
use warpcert::core::metric::{Metric, MetricName};
use warpcert::core::{Hardware, Launch, Program};
use warpcert::frontend;

/// The program of CUDA source `src` for block `(block, 1, 1)` and grid `(grid, 1, 1)`.
pub fn lower_src(src: &str, block: u32, grid: u32) -> (Program, Launch) {
    let launch = Launch {
        block: [block, 1, 1],
        grid: Some([grid, 1, 1]),
    };
    let ast = frontend::parse_str("k.cu", src).unwrap_or_else(|d| panic!("{d}"));
    let (prog, _) = frontend::lower(&ast, None, &launch, &Hardware::default(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}"));
    (prog, launch)
}

/// Hand derivation: `i = 64·blockIdx.x + threadIdx.x`; when `n ≥ 64·(blockIdx.x + 1)`
/// every lane of the block passes `i < n` (the largest `i` is `64·blockIdx.x + 63`) and the
/// warp reads and writes 128 aligned bytes three times: 12 sectors, the upper bound. For
/// smaller `n` some lanes fail the guard (at `n ≤ 64·blockIdx.x` all do: 0 sectors), so
/// the lower bound 12 needs the hypothesis (spec/logic.md §4b, L:HYP).
pub const GUARD: &str = "__global__ void k(float *A, float *B, float *C, int n) { int i = blockDim.x * blockIdx.x + threadIdx.x; if (i < n) { C[i] = A[i] + B[i]; } }";

/// The lower certificate of GUARD for `warp` under the hypotheses the producer finds.
pub fn guard_lower(warp: u32) -> (Program, Launch, String, String) {
    use warpcert::analysis::lower::{
        guard_hypotheses, lower_certificate, witness_point, Hypotheses, LowerOptions,
    };
    let hw = Hardware::default();
    let (prog, launch) = lower_src(GUARD, 64, 3);
    let metric = Metric::standard(MetricName::Sectors);
    let facts = guard_hypotheses(&prog, &launch);
    let launch_p = warpcert::analysis::derive::launch_facts(&prog, &launch);
    let witness = witness_point(&launch_p, &facts).expect("a witness point");
    let h = Hypotheses { facts, witness };
    let under = warpcert::analysis::DerivationOptions {
        hyps: &h.facts,
        ..Default::default()
    };
    let d = warpcert::analysis::derivation(
        &prog,
        &metric,
        &hw,
        &launch,
        &AnalysisOptions::default(),
        &under,
    )
    .unwrap();
    let with = LowerOptions {
        hyp: Some(&h),
        ..Default::default()
    };
    let (text, _) = lower_certificate(&prog, &metric, &hw, &launch, &d, warp, &with).unwrap();
    (prog, launch, text, h.text())
}
