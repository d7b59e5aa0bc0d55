//! The GPUVerify test suite (`../shared/corpus/gpuverify-testsuite/`, read in place) under
//! the checked lock-step semantics (Collingbourne et al.'s lock-step, block-wide, with the
//! race log) and the interleaving semantics (three sampled schedules): the agreement table of
//! issue 6. Kernels marked `//pass` must show no race and no barrier divergence; kernels whose
//! expected error is a race or a barrier divergence must show it. Files the front end cannot
//! read are listed as such. Run with `--nocapture` to see the table.
//!
//! Launches: the header's `--blockDim`/`--gridDim`; when the launch has more threads than
//! [`MAX_THREADS`] in all, the largest grid dimension is halved until it fits (or the grid is
//! one block), stated as "capped" in the table; blocks of more than 1024 threads are not run. Scalar kernel
//! parameters get the value 16 (ints), 1.0 (floats), true (booleans), except where a file
//! states the value its verdict needs (see [`OVERRIDES`]); arrays read pseudo-random inputs
//! (seed 1).
//!
//! Verdicts: `agree` (pass: nothing found by either semantics; expected race/divergence:
//! found), `DISAGREE` (pass but a race/divergence found), `not found` (expected race or
//! divergence not found), `n/a` (the expected outcome is outside what the semantics model:
//! `--warp-sync` files assume warp-synchronous execution; files with atomics, which the front
//! end lowers to a plain read and write so that the race detectors cannot see their
//! atomicity; and errors that are assertion or
//! invariant failures), `not run`, `unreadable` (the front end rejects the file; its reason
//! is listed), `agree (rejected)` (the front end rejects a file whose expected outcome is
//! `CLANG_ERROR`, a compile error).

mod common;

use common::root;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;
use warpcert::core::{Hardware, Launch, Program, Ty};
use warpcert::frontend;
use warpcert::semantics::interleaving::{run_interleaving, InterleavingOptions, Scheduler};
use warpcert::semantics::parallel::run_grid_checked;
use warpcert::semantics::store::Inputs;
use warpcert::semantics::{Params, RunOptions, SemError, Value};

/// The verdict when the front end rejects a file: agreement when GPUVerify expects a
/// compile error (`xfail:CLANG_ERROR`), else `unreadable`.
fn rejected(expected: &str) -> &'static str {
    if expected.contains("CLANG_ERROR") {
        "agree (rejected)"
    } else {
        "unreadable"
    }
}

/// One row of the table.
pub struct Row {
    file: String,
    expected: String,
    launch: String,
    lockstep: String,
    interleaving: String,
    verdict: &'static str,
    ms: u128,
}

/// Thread cap of a launch: 512 in release builds, 128 in debug builds (the interleaving
/// interpreter is about ten times slower unoptimized; CI runs the tests in debug mode).
const MAX_THREADS: u64 = if cfg!(debug_assertions) { 128 } else { 512 };

fn kind(e: &SemError) -> String {
    match e.root() {
        SemError::DataRace { .. } => "race".into(),
        SemError::BarrierDivergence { .. } => "barrier-divergence".into(),
        SemError::OutOfFuel(_) => "step-limit".into(),
        other => format!("error: {}", short(&other.to_string())),
    }
}

fn short(s: &str) -> String {
    let s = s.lines().next().unwrap_or("").replace('|', "/");
    if s.chars().count() > 70 {
        format!("{}…", s.chars().take(70).collect::<String>())
    } else {
        s
    }
}

/// Parameter values a file's own text asks for: (file, parameter, value, where it says so).
const OVERRIDES: &[(&str, &str, i64, &str)] = &[
    (
        "reduced_strength_with_requires.cu",
        "sz",
        1024,
        "`__requires(sz == blockDim.x)`",
    ),
    (
        "param_values__value_causing_race.cu",
        "x",
        185,
        "header comment `//x = 185`",
    ),
];

fn params(prog: &Program, file: &str) -> Params {
    let mut p = Params::new();
    for (f, name, v, _) in OVERRIDES {
        if *f == file {
            p.insert(name.to_string(), Value::Int(*v));
        }
    }
    for d in &prog.params {
        if d.name.contains('.') || d.name == "warpSize" {
            continue;
        }
        if p.contains_key(&d.name) {
            continue;
        }
        let v = match d.ty {
            Ty::Int => Value::Int(16),
            Ty::Float => Value::Float(1.0),
            Ty::Bool => Value::Bool(true),
        };
        p.insert(d.name.clone(), v);
    }
    p
}

fn row(path: &Path) -> Row {
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let expected = text
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("//")
        .to_string();
    let mut r = Row {
        file,
        expected: expected.clone(),
        launch: String::new(),
        lockstep: String::new(),
        interleaving: String::new(),
        verdict: "",
        ms: 0,
    };
    let start = Instant::now();
    let hw = Hardware::default();
    let parsed = match frontend::parse_file(path) {
        Ok(p) => p,
        Err(d) => {
            r.lockstep = format!("front end: {}", short(&d.message));
            r.verdict = rejected(&r.expected);
            return r;
        }
    };
    let block = parsed.header.block.unwrap_or([64, 1, 1]);
    let mut grid = parsed.header.grid.unwrap_or([1, 1, 1]);
    let threads = |g: [u32; 3]| {
        block
            .iter()
            .chain(g.iter())
            .map(|&d| d as u64)
            .product::<u64>()
    };
    let mut capped = false;
    if block.iter().map(|&d| d as u64).product::<u64>() > 1024 {
        r.launch = format!("{}x{}x{}", block[0], block[1], block[2]);
        r.lockstep = "not run: more than 1024 threads per block (CUDA's limit)".into();
        r.verdict = "not run";
        return r;
    }
    while threads(grid) > MAX_THREADS && grid.iter().any(|&g| g > 1) {
        // Halve the largest grid dimension until at most MAX_THREADS threads run.
        let k = (0..3).max_by_key(|&k| grid[k]).unwrap_or(0);
        grid[k] = grid[k].div_ceil(2);
        capped = true;
    }
    let launch = Launch {
        block,
        grid: Some(grid),
    };
    r.launch = format!(
        "{}x{}x{} / {}x{}x{}{}",
        block[0],
        block[1],
        block[2],
        grid[0],
        grid[1],
        grid[2],
        if capped { " (capped)" } else { "" }
    );
    let (prog, uses_atomics) = match frontend::lower(&parsed, None, &launch, &hw, &BTreeMap::new())
    {
        // The front end lowers atomics to a plain read and write (spec/lowering.md §6), so
        // the race detectors see two atomics on one cell as a race: such files are n/a.
        Ok((p, ws)) => (p, ws.iter().any(|w| w.to_string().contains("atomic"))),
        Err(d) => {
            r.lockstep = format!("front end: {}", short(&d.message));
            r.verdict = rejected(&r.expected);
            return r;
        }
    };
    let ps = params(&prog, &r.file);
    // GPUVerify treats equal-value write-write conflicts as benign under
    // `--equality-abstraction` only.
    let eq_abs = text
        .lines()
        .take_while(|l| l.starts_with("//"))
        .any(|l| l.contains("--equality-abstraction"));
    let input = Inputs::random(1);
    let opts = RunOptions {
        fuel: 2_000_000,
        derivation: false,
    };
    r.lockstep = match run_grid_checked(&prog, &hw, &launch, &ps, &input, &opts, eq_abs) {
        Ok(_) => "ok".into(),
        Err(e) => kind(&e),
    };
    let mut found = Vec::new();
    for s in [
        Scheduler::RoundRobin,
        Scheduler::Random(1),
        Scheduler::Random(2),
    ] {
        let iopts = InterleavingOptions {
            scheduler: s,
            max_steps: 10_000_000,
            detect_races: true,
            benign_equal_writes: eq_abs,
            trace: false,
        };
        let k = match run_interleaving(&prog, &hw, &launch, &ps, &input, &iopts) {
            Ok(run) => match run.outcome {
                warpcert::semantics::interleaving::Outcome::Terminated => "ok".to_string(),
                warpcert::semantics::interleaving::Outcome::Error(e) => kind(&e),
                o => o.kind().to_string(),
            },
            Err(e) => kind(&e),
        };
        if !found.contains(&k) {
            found.push(k);
        }
    }
    r.interleaving = found.join(", ");
    r.ms = start.elapsed().as_millis();
    let err = |s: &str| s.contains("race") || s.contains("barrier-divergence");
    let any_err = err(&r.lockstep) || err(&r.interleaving);
    let both_ok = r.lockstep == "ok" && r.interleaving == "ok";
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with("//")).collect();
    let warp_sync = header.iter().any(|l| l.contains("--warp-sync"));
    let verification_only = header.iter().skip(2).any(|l| {
        let l = l.to_lowercase();
        l.contains("assert") || l.contains("invariant") || l.contains("postcondition")
    }) || text.contains("__assert(") && !text.contains("FORCE_FAIL");
    r.verdict = if warp_sync {
        "n/a (--warp-sync)"
    } else if uses_atomics {
        "n/a (atomics)"
    } else if expected.contains("NOT_ALL_VERIFIED") && verification_only {
        "n/a (assertion)"
    } else if expected.starts_with("pass") {
        if both_ok {
            "agree"
        } else if any_err {
            "DISAGREE"
        } else {
            "not run"
        }
    } else if expected.contains("NOT_ALL_VERIFIED") {
        if any_err {
            "agree"
        } else if both_ok {
            "not found"
        } else {
            "not run"
        }
    } else {
        "n/a"
    };
    r
}

#[test]
fn gpuverify_agreement_table() {
    let dir = root().join("../shared/corpus/gpuverify-testsuite");
    if !dir.is_dir() {
        eprintln!(
            "gpuverify_agreement_table: skipped, ../shared/corpus/gpuverify-testsuite is absent"
        );
        return;
    }
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    files.sort();
    let rows: Vec<Row> = files
        .iter()
        .map(|p| {
            let r = row(p);
            eprintln!(
                "{}: {} / {} ({} ms)",
                r.file, r.lockstep, r.interleaving, r.ms
            );
            r
        })
        .collect();
    println!("| file | expected | launch (block / grid) | lock-step | interleaving (3 schedules) | verdict | ms |");
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.file, r.expected, r.launch, r.lockstep, r.interleaving, r.verdict, r.ms
        );
    }
    let count = |v: &str| rows.iter().filter(|r| r.verdict.starts_with(v)).count();
    println!(
        "\n{} files: {} agree, {} DISAGREE, {} not found, {} not run, {} unreadable, {} n/a",
        rows.len(),
        count("agree"),
        count("DISAGREE"),
        count("not found"),
        count("not run"),
        count("unreadable"),
        count("n/a")
    );
    // Theorem 5.2 on the suite: both semantics find an error (race or divergence) or neither.
    for r in &rows {
        let e = |s: &str| s.contains("race") || s.contains("barrier-divergence");
        if r.lockstep == "ok" || e(&r.lockstep) {
            assert_eq!(
                e(&r.lockstep),
                e(&r.interleaving),
                "{}: lock-step and interleaving disagree",
                r.file
            );
        }
    }
    let bad: Vec<&str> = rows
        .iter()
        .filter(|r| r.verdict == "DISAGREE" || r.verdict == "not found")
        .map(|r| r.file.as_str())
        .collect();
    assert!(
        bad.is_empty(),
        "verdicts differ from GPUVerify's on {bad:?}"
    );
}
