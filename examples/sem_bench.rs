//! Speed of the executable semantics (issue 6): simulated thread-steps per second of the
//! lock-step semantics on `examples/vector_add.cu` with 2^20 threads, and of the
//! interleaving semantics (with and without race checking) and the small-step machine.
//!
//! Run: `cargo run --release --example sem_bench`. A *thread-step* is one rule application
//! on one thread: for the lock-step semantics, rule applications × active lanes (vectorAdd
//! with len = 2^20 never diverges, so every warp's 32 lanes are active throughout); for the
//! interleaving semantics, one scheduler step.

use std::collections::BTreeMap;
use std::time::Instant;
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;
use warpcert::semantics::interleaving::{run_interleaving, InterleavingOptions, Scheduler};
use warpcert::semantics::smallstep::run_smallstep;
use warpcert::semantics::store::Inputs;
use warpcert::semantics::{run_kernel, run_warp, Params, RunOptions};

fn main() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/vector_add.cu");
    let parsed = frontend::parse_file(&path).expect("parses");
    let hw = Hardware::default();
    let n: u32 = 1 << 20;
    let launch = Launch {
        block: [256, 1, 1],
        grid: Some([n / 256, 1, 1]),
    };
    let mut pv = BTreeMap::new();
    pv.insert("len".to_string(), n as i64);
    let (prog, _) = frontend::lower(&parsed, None, &launch, &hw, &pv).expect("lowers");
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let params = Params::new();
    let input = Inputs::random(1);

    let one = run_warp(
        &prog,
        &metrics,
        &hw,
        &launch,
        [0, 0, 0],
        0,
        &params,
        &input,
        &RunOptions::default(),
    )
    .expect("warp runs");
    let t = Instant::now();
    let k = run_kernel(&prog, &metrics, &hw, &launch, &params, &input).expect("kernel runs");
    let secs = t.elapsed().as_secs_f64();
    let steps = one.rule_applications * k.warps * hw.warp_size as u64;
    println!(
        "| lock-step (4 metrics) | vectorAdd | {} threads | {:.3} s | {} thread-steps | {:.2e} thread-steps/s |",
        n,
        secs,
        steps,
        steps as f64 / secs
    );

    for (threads, races) in [(1u32 << 16, true), (1u32 << 16, false)] {
        let launch = Launch {
            block: [256, 1, 1],
            grid: Some([threads / 256, 1, 1]),
        };
        let mut pv = BTreeMap::new();
        pv.insert("len".to_string(), threads as i64);
        let (prog, _) = frontend::lower(&parsed, None, &launch, &hw, &pv).expect("lowers");
        let opts = InterleavingOptions {
            scheduler: Scheduler::Random(1),
            max_steps: u64::MAX,
            detect_races: races,
            benign_equal_writes: false,
            trace: false,
        };
        let t = Instant::now();
        let r = run_interleaving(&prog, &hw, &launch, &params, &input, &opts).expect("runs");
        let secs = t.elapsed().as_secs_f64();
        println!(
            "| interleaving (random schedule, race check {}) | vectorAdd | {} threads | {:.3} s | {} thread-steps | {:.2e} thread-steps/s |",
            if races { "on" } else { "off" },
            threads,
            secs,
            r.steps,
            r.steps as f64 / secs
        );
    }

    let launch = Launch {
        block: [1024, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let mut pv = BTreeMap::new();
    pv.insert("len".to_string(), 1024);
    let (prog, _) = frontend::lower(&parsed, None, &launch, &hw, &pv).expect("lowers");
    let t = Instant::now();
    let r = run_smallstep(
        &prog,
        &Metric::standard(MetricName::Steps),
        &hw,
        &launch,
        [0, 0, 0],
        &params,
        &input,
        4,
        u64::MAX,
        false,
    )
    .expect("runs");
    let secs = t.elapsed().as_secs_f64();
    let warp_steps: u64 = r.warp_steps.iter().sum();
    println!(
        "| small-step (P = 4, steps latencies) | vectorAdd | 1024 threads (1 block) | {:.4} s | {} warp steps × 32 lanes | {:.2e} thread-steps/s |",
        secs,
        warp_steps,
        (warp_steps * 32) as f64 / secs
    );
}
