//! Tests of the parallel, interleaving, SIMT and small-step semantics (issue 6), and the
//! theorems connecting them with the lock-step semantics, as property tests over random
//! small core programs.
//!
//! Expected values are derived by hand in the comments (from the papers' definitions) or
//! come from another executable semantics (the theorems); none is copied from the output of
//! the function under test.

mod common;

use common::root;
use num_traits::Zero;
use std::collections::BTreeMap;
use warpcert::core::metric::{q, Affine, Q};
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
use warpcert::frontend;
use warpcert::semantics::interleaving::{
    run_interleaving, InterleavingOptions, Outcome, Scheduler,
};
use warpcert::semantics::parallel::{run_block, time_bound};
use warpcert::semantics::simt::{run_simt, SimtOutcome};
use warpcert::semantics::store::Inputs;
use warpcert::semantics::{run_warp, Params, RunOptions, SemError, Value};

fn load_example(file: &str, block: u32) -> Program {
    let parsed = frontend::parse_file(&root().join("examples").join(file)).expect("parses");
    let launch = Launch {
        block: [block, 1, 1],
        grid: Some([1, 1, 1]),
    };
    frontend::lower(
        &parsed,
        None,
        &launch,
        &Hardware::default(),
        &BTreeMap::new(),
    )
    .expect("lowers")
    .0
}

/// A metric charging `c` for every global write and nothing else.
fn gwrite_only(c: i64) -> Metric {
    let mut m = Metric::standard(MetricName::Sectors);
    m.gread = Affine {
        mul: Q::zero(),
        add: Q::zero(),
    };
    m.gwrite = Affine {
        mul: Q::zero(),
        add: q(c),
    };
    m
}

/// RaCUDA §5, Fig. 13 (`tricky`, 64 threads = 2 warps). Hand derivation: warp 0 performs one
/// global write in the first segment, warp 1 one in the second. With a metric charging 100
/// per global write: W = 100 + 100 = 200; S = max(100, 0) + max(0, 100) = 200 (a per-warp
/// analysis sees only 100). Each write covers 32 consecutive ints = 128 bytes = 4 sectors:
/// W = S = 8 under `sectors`. No warp has threads on both sides of either branch, so no
/// `M^div` is charged (SC:IFFULL charges only warps that split): W = 0 under `divwarps`.
#[test]
fn tricky_fig13_work_and_span() {
    let prog = load_example("tricky.cu", 64);
    let hw = Hardware::default();
    let launch = Launch {
        block: [64, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let metrics = [
        gwrite_only(100),
        Metric::standard(MetricName::Sectors),
        Metric::standard(MetricName::Divwarps),
    ];
    let r = run_block(
        &prog,
        &metrics,
        &hw,
        &launch,
        [0, 0, 0],
        &Params::new(),
        &Inputs::zero(),
        &RunOptions::default(),
    )
    .expect("runs");
    assert_eq!(r.warps, 2);
    assert_eq!(r.segments.len(), 2);
    assert_eq!(r.work, vec![q(200), q(8), q(0)]);
    assert_eq!(r.span, vec![q(200), q(8), q(0)]);
    // The per-warp lock-step cost of each warp is 100: the span is not a per-warp quantity.
    for w in 0..2 {
        let wr = run_warp(
            &prog,
            &metrics[..1],
            &hw,
            &launch,
            [0, 0, 0],
            w,
            &Params::new(),
            &Inputs::zero(),
            &RunOptions::default(),
        )
        .expect("warp runs");
        assert_eq!(wr.costs, vec![q(100)]);
    }
    // Theorem 2: W/P + S with P = 2 slots: 200/2 + 200 = 300.
    assert_eq!(time_bound(&r.work[0], &r.span[0], 2), q(300));
    // Every thread wrote 42 (final store).
    for i in 0..64 {
        assert_eq!(r.memory.read("A", i), Some(Value::Int(42)));
    }
}

/// A `__syncthreads()` under a branch taken by only part of the block has no derivation in
/// RaCUDA's parallel semantics (and is barrier divergence for Collingbourne et al.).
#[test]
fn sync_in_divergent_branch_is_barrier_divergence() {
    let src = "__global__ void k(int *A) { if (threadIdx.x < 40) { __syncthreads(); } A[threadIdx.x] = 1; }";
    let parsed = frontend::parse_str("k.cu", src).expect("parses");
    let launch = Launch {
        block: [64, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let hw = Hardware::default();
    let prog = frontend::lower(&parsed, None, &launch, &hw, &BTreeMap::new())
        .expect("lowers")
        .0;
    let e = run_block(
        &prog,
        &[Metric::standard(MetricName::Steps)],
        &hw,
        &launch,
        [0, 0, 0],
        &Params::new(),
        &Inputs::zero(),
        &RunOptions::default(),
    )
    .expect_err("diverges");
    match e.root() {
        SemError::BarrierDivergence {
            reached, waiting, ..
        } => {
            assert_eq!(reached.len(), 40);
            assert_eq!(waiting.len(), 24);
        }
        other => panic!("expected barrier divergence, got {other}"),
    }
    let r = run_interleaving(
        &prog,
        &hw,
        &launch,
        &Params::new(),
        &Inputs::zero(),
        &InterleavingOptions::default(),
    )
    .expect("runs");
    assert_eq!(r.outcome.kind(), "barrier-divergence");
}

/// Habermaier's liveness counterexample as a spin lock between 4 lanes of one warp
/// (`examples/spinlock.cu`). Lock-step and SIMT never finish (lane 0 waits for lanes 1–3 to
/// leave the loop; they wait for lane 0's write); a fair interleaving terminates with the turn
/// counter at 4 (hand: lanes 0, 1, 2, 3 each write their id + 1 in turn).
#[test]
fn habermaier_spin_lock() {
    let prog = load_example("spinlock.cu", 4);
    let hw = Hardware::default();
    let launch = Launch {
        block: [4, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let params = Params::new();
    let input = Inputs::zero();
    let e = run_warp(
        &prog,
        &[],
        &hw,
        &launch,
        [0, 0, 0],
        0,
        &params,
        &input,
        &RunOptions {
            fuel: 100_000,
            derivation: false,
        },
    )
    .expect_err("lock-step does not terminate");
    assert!(matches!(e.root(), SemError::OutOfFuel(100_000)), "{e}");
    let s = run_simt(
        &prog,
        &hw,
        &launch,
        [0, 0, 0],
        0,
        &params,
        &input,
        100_000,
        false,
    )
    .expect("runs");
    assert_eq!(s.outcome, SimtOutcome::StepLimit(100_000));
    for sched in [
        Scheduler::RoundRobin,
        Scheduler::Random(1),
        Scheduler::Random(7),
    ] {
        let opts = InterleavingOptions {
            scheduler: sched.clone(),
            max_steps: 100_000,
            detect_races: false,
            benign_equal_writes: false,
            trace: false,
        };
        let r = run_interleaving(&prog, &hw, &launch, &params, &input, &opts).expect("runs");
        assert_eq!(r.outcome, Outcome::Terminated, "{sched:?}");
        assert_eq!(r.memory.read("G", 0), Some(Value::Int(4)));
    }
    // With race detection on, the spin lock is (correctly) reported as racy.
    let r = run_interleaving(
        &prog,
        &hw,
        &launch,
        &params,
        &input,
        &InterleavingOptions::default(),
    )
    .expect("runs");
    assert_eq!(r.outcome.kind(), "race");
}

/// The rule-name lines of `spec/semantics.md` §§9–12 equal the constants of the code, and
/// every listed rule is described (mentioned at least twice).
#[test]
fn new_rule_lines_match_spec() {
    use warpcert::semantics::{interleaving, parallel, simt, smallstep};
    let text = std::fs::read_to_string(root().join("spec/semantics.md")).unwrap();
    for (prefix, rules) in [
        ("parallel-rules:", parallel::PARALLEL_RULES),
        ("smallstep-rules:", smallstep::SMALLSTEP_RULES),
        ("interleaving-rules:", interleaving::INTERLEAVING_RULES),
        ("simt-rules:", simt::SIMT_RULES),
    ] {
        let line: Vec<&str> = text
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line"))
            .split_whitespace()
            .collect();
        assert_eq!(line, rules, "{prefix}");
        for r in rules {
            assert!(
                text.matches(r).count() >= 2,
                "{r} is listed but not described"
            );
        }
    }
}

// ---------------------------------------------------------------- command line

fn warpcert(args: &[&str]) -> (i32, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The data race of `tests/data/sem/race.cu` is reported with both threads, their accesses
/// and the source location (line 5, where `A[0] = threadIdx.x` is written).
#[test]
fn cli_interleaving_reports_race_with_threads_and_locations() {
    let (code, out) = warpcert(&[
        "run",
        "tests/data/sem/race.cu",
        "--semantics",
        "interleaving",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("outcome                race"), "{out}");
    assert!(out.contains("data race on A[0]"), "{out}");
    assert!(out.contains("writes at 5:"), "{out}");
    let (code, out) = warpcert(&[
        "run",
        "tests/data/sem/race.cu",
        "--semantics",
        "interleaving",
        "--schedule",
        "3",
        "--trace",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("SC:GWRITE  T={"), "{out}");
}

/// Habermaier's spin lock from the command line: SIMT reports non-termination (exit 1),
/// the fair interleaving terminates (exit 0).
#[test]
fn cli_spin_lock() {
    let (code, out) = warpcert(&[
        "run",
        "examples/spinlock.cu",
        "--semantics",
        "simt",
        "--steps",
        "5000",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no termination within 5000 steps"), "{out}");
    let (code, out) = warpcert(&[
        "run",
        "examples/spinlock.cu",
        "--semantics",
        "interleaving",
        "--no-race-check",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("terminated"), "{out}");
}

/// `tricky` from the command line: W = S = 8 sectors (hand derivation in
/// `tricky_fig13_work_and_span`), the small-step run completes within `W/P + S`, and
/// `derive` prints a derivation with the rules of Fig. 5.
#[test]
fn cli_parallel_smallstep_derive() {
    let (code, out) = warpcert(&[
        "run",
        "examples/tricky.cu",
        "--semantics",
        "parallel",
        "--metric",
        "sectors",
        "--slots",
        "2",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 warps, 2 segments"), "{out}");
    assert!(
        out.contains("work W            8   span S            8"),
        "{out}"
    );
    let (code, out) = warpcert(&[
        "run",
        "examples/tricky.cu",
        "--semantics",
        "smallstep",
        "--trace",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("BL:SYNC") && out.contains("Completed"),
        "{out}"
    );
    let (code, out) = warpcert(&[
        "derive",
        "examples/tricky.cu",
        "--block",
        "4",
        "--metric",
        "steps",
    ]);
    assert_eq!(code, 0, "{out}");
    for rule in [
        "SC:SEQ",
        "SC:IFT",
        "SC:IFF",
        "SC:GWRITE",
        "SC:SYNC",
        "OC:TID",
    ] {
        assert!(out.contains(rule), "{rule} missing: {out}");
    }
    let (code, out) = warpcert(&["run", "examples/tricky.cu", "--trace", "--block", "4"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("SC:SYNC"), "{out}");
}

/// RaCUDA Theorem 3 with the existing logic, for the standard metrics (where the work and
/// span metrics are the metric itself): analysing the kernel with the *whole block* as the
/// thread set (hardware with a "warp" of all the block's threads) gives a certified bound `Q`
/// on the lock-step cost over `𝒯` = the block; by Lemma 5 (property-tested in
/// `semantics_theorems`), the parallel semantics on the real hardware then has
/// `W ≤ Q · |warps|` and `S ≤ Q`. Checked on `tricky` (64 threads) and `vector_add`
/// (256 threads, `len` = 200 so that the last warps are partly idle).
#[test]
fn theorem3_block_analysis_bounds_work_and_span() {
    use warpcert::analysis::{analyze, AnalysisOptions};
    for (file, bx, len) in [
        ("tricky.cu", 64u32, None),
        ("vector_add.cu", 256, Some(200)),
    ] {
        let parsed = frontend::parse_file(&root().join("examples").join(file)).expect("parses");
        let launch = Launch {
            block: [bx, 1, 1],
            grid: Some([1, 1, 1]),
        };
        let hw = Hardware::default();
        let mut pv = BTreeMap::new();
        if let Some(n) = len {
            pv.insert("len".to_string(), n);
        }
        let prog = frontend::lower(&parsed, None, &launch, &hw, &pv)
            .expect("lowers")
            .0;
        let block_hw = Hardware {
            warp_size: bx,
            ..hw
        };
        let metrics: Vec<Metric> = MetricName::ALL
            .iter()
            .map(|&m| Metric::standard(m))
            .collect();
        let par = run_block(
            &prog,
            &metrics,
            &hw,
            &launch,
            [0, 0, 0],
            &Params::new(),
            &Inputs::random(3),
            &RunOptions::default(),
        )
        .expect("runs");
        let env: BTreeMap<String, i64> = prog.params.iter().map(|p| (p.name.clone(), 0)).collect();
        for (i, m) in metrics.iter().enumerate() {
            let a = analyze(
                &prog,
                m,
                &block_hw,
                &launch,
                &AnalysisOptions {
                    degree: 2,
                    floor: true,
                    align: false,
                },
            )
            .unwrap_or_else(|e| panic!("{file} {}: {e}", m.name));
            assert!(
                warpcert_kernel::check(&a.certificate).is_ok(),
                "{file} {}: certificate rejected",
                m.name
            );
            let qb = a.bound.eval(&env);
            let warps = q(par.warps as i64);
            eprintln!(
                "{file} {}: W = {}, S = {}, block bound Q = {qb}, warps = {}",
                m.name, par.work[i], par.span[i], par.warps
            );
            assert!(
                par.work[i] <= &qb * &warps && par.span[i] <= qb,
                "{file} {}: W = {}, S = {}, block bound {} on {} warps",
                m.name,
                par.work[i],
                par.span[i],
                qb,
                par.warps
            );
        }
    }
}
