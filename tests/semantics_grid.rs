//! Whole-grid lock-step runs spread over cores (issue 13, item 5): `run_kernel` must give
//! the results of the sequential semantics (blocks in linear order on one memory) whatever
//! the number of threads, also when blocks communicate through global memory, and report
//! the first error in block order.
//!
//! Expected values are derived by hand in the comments, or are the semantics' own single-warp
//! runs (`run_warp`, the oracle of Fig. 5) where warps are independent.

use std::collections::BTreeMap;
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
use warpcert::frontend;
use warpcert::semantics::{
    run_kernel, run_warp, Inputs, KernelRun, Params, RunOptions, SemError, Value,
};

fn lower(src: &str, block: u32, grid: u32) -> (Program, Launch) {
    let parsed = frontend::parse_str("t.cu", src).unwrap_or_else(|d| panic!("{d}"));
    let launch = Launch {
        block: [block, 1, 1],
        grid: Some([grid, 1, 1]),
    };
    let (prog, _) = frontend::lower(
        &parsed,
        None,
        &launch,
        &Hardware::default(),
        &BTreeMap::new(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    (prog, launch)
}

fn metrics() -> Vec<Metric> {
    MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect()
}

/// Runs the kernel in a rayon pool of `threads` threads.
fn run_with(threads: usize, prog: &Program, launch: &Launch, params: &Params) -> KernelRun {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    pool.install(|| {
        run_kernel(
            prog,
            &metrics(),
            &Hardware::default(),
            launch,
            params,
            &Inputs::random(7),
        )
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

fn cells(k: &KernelRun) -> Vec<(String, Vec<(i64, Value)>)> {
    k.memory
        .arrays
        .iter()
        .map(|a| (a.name.clone(), a.written()))
        .collect()
}

/// Block `b` (thread 0) reads `a[b]` and writes `a[b + 1] = a[b] + 1`: in the sequential
/// semantics every block sees its predecessor's write, so with `a[0] = 0` (written by
/// block 0 first) `a[k] = k` for `k = 0 .. grid`. A parallel run that did not notice the
/// dependence would leave `a[k] = input(k − 1) + 1`.
#[test]
fn blocks_communicating_through_global_memory_run_in_order() {
    let src = r#"
__global__ void chain(int *a) {
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0) { a[0] = 0; }
        a[blockIdx.x + 1] = a[blockIdx.x] + 1;
    }
}"#;
    let grid = 300;
    let (prog, launch) = lower(src, 64, grid);
    for threads in [1, 2, 4] {
        let k = run_with(threads, &prog, &launch, &Params::new());
        let a = k.memory.array("a").expect("array a");
        for i in 0..=grid as i64 {
            assert_eq!(a.get(i), Value::Int(i), "a[{i}] with {threads} threads");
        }
    }
}

/// Independent blocks: every warp of vector_add is independent, so the per-warp maximum is
/// the largest `run_warp` cost and the total their sum; the final memory and all results
/// are the same for 1, 2 and 3 threads.
#[test]
fn independent_blocks_match_single_warp_runs_for_any_thread_count() {
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vector_add.cu"),
    )
    .expect("example");
    let (prog, launch) = lower(&src, 96, 37);
    let mut params = Params::new();
    // Not a multiple of the block: the last block diverges.
    params.insert("len".into(), Value::Int(96 * 36 + 50));
    let hw = Hardware::default();
    let ms = metrics();
    let mut max = vec![Q::from_integer(0.into()); ms.len()];
    let mut total = max.clone();
    for b in 0..37 {
        for w in 0..launch.warps_per_block(&hw) {
            let r = run_warp(
                &prog,
                &ms,
                &hw,
                &launch,
                [b, 0, 0],
                w,
                &params,
                &Inputs::random(7),
                &RunOptions::default(),
            )
            .expect("warp runs");
            for (i, c) in r.costs.into_iter().enumerate() {
                if c > max[i] {
                    max[i] = c.clone();
                }
                total[i] += c;
            }
        }
    }
    let one = run_with(1, &prog, &launch, &params);
    for (m, r) in one.metrics.iter().enumerate() {
        assert_eq!(r.max_per_warp, max[m], "{}", r.metric);
        assert_eq!(r.total, total[m], "{}", r.metric);
    }
    for threads in [2, 3] {
        let k = run_with(threads, &prog, &launch, &params);
        assert_eq!(k.metrics, one.metrics);
        assert_eq!(k.usage, one.usage);
        assert_eq!((k.warps, k.blocks), (one.warps, one.blocks));
        assert_eq!(cells(&k), cells(&one));
    }
}

/// Blocks 5 and 9 divide by zero; the sequential run stops at block 5, so must every run.
#[test]
fn the_first_error_in_block_order_is_reported() {
    let src = r#"
__global__ void boom(int *a) {
    int d = 1;
    if (blockIdx.x == 5 || blockIdx.x == 9) { d = 0; }
    a[blockIdx.x * blockDim.x + threadIdx.x] = 10 / d;
}"#;
    let (prog, launch) = lower(src, 32, 200);
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        let e = pool
            .install(|| {
                run_kernel(
                    &prog,
                    &metrics(),
                    &Hardware::default(),
                    &launch,
                    &Params::new(),
                    &Inputs::zero(),
                )
            })
            .expect_err("division by zero");
        match e {
            SemError::InWarp { block, warp, error } => {
                assert_eq!((block, warp), ([5, 0, 0], 0), "{threads} threads");
                assert!(matches!(error.root(), SemError::DivByZero(_)), "{error}");
            }
            other => panic!("unexpected error {other}"),
        }
    }
}
