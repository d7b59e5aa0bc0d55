//! Speed of the executable semantics (issue 6): simulated thread-steps per second of the
//! lock-step semantics on `examples/vector_add.cu` with 2^20 threads, and of the
//! interleaving semantics (with and without race checking) and the small-step machine.
//!
//! Run: `cargo run --release --example sem_bench [lockstep|interleaving|interleaving-norace|smallstep]` (all
//! three by default; `RAYON_NUM_THREADS=1` for the lock-step run on one core). Times are
//! wall-clock and process CPU time (`/proc/self/stat`, Linux). A *thread-step* is one rule application
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

/// CPU time (user + system) of this process so far, in seconds (0 where `/proc` is absent).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which ends at the last ')'): utime is field 14, stime 15.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // `rest` starts at field 3 (state); utime = field 14 → index 11.
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let want = |s: &str| which == "all" || which == s;
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

    if want("lockstep") {
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
        let (t, c) = (Instant::now(), cpu_seconds());
        let k = run_kernel(&prog, &metrics, &hw, &launch, &params, &input).expect("kernel runs");
        let (secs, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
        let steps = one.rule_applications * k.warps * hw.warp_size as u64;
        println!(
        "| lock-step (4 metrics, {} rayon threads) | vectorAdd | {} threads | {:.3} s wall, {:.2} s CPU | {} lane-steps | {:.2e} lane-steps/s |",
        rayon::current_num_threads(),
        n,
        secs,
        cpu,
        steps,
        steps as f64 / secs
    );
    }

    for (threads, races) in [(1u32 << 16, true), (1u32 << 16, false)] {
        let selected = want("interleaving") || (which == "interleaving-norace" && !races);
        if !selected {
            continue;
        }
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
        let (t, c) = (Instant::now(), cpu_seconds());
        let r = run_interleaving(&prog, &hw, &launch, &params, &input, &opts).expect("runs");
        let (secs, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - c);
        println!(
            "| interleaving (random schedule, race check {}) | vectorAdd | {} threads | {:.3} s wall, {:.2} s CPU | {} thread-steps | {:.2e} thread-steps/s |",
            if races { "on" } else { "off" },
            threads,
            secs,
            cpu,
            r.steps,
            r.steps as f64 / secs
        );
    }

    if !want("smallstep") {
        return;
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
