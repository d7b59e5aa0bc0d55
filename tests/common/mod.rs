//! Helpers shared by the integration tests: locating `../shared/corpus`, loading a kernel
//! through the front end, and the RaCUDA launch configurations of the benchmark.

#![allow(dead_code)]

pub mod answer;
pub mod clang;
pub mod coq;
pub mod lower_guard;
pub mod mutants;
pub mod relational_kernels;
pub mod rng;
pub mod warp32;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use warpcert::analysis::{analyze, Analysis, AnalysisOptions};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
use warpcert::frontend;
use warpcert::semantics::{run_warp, Inputs, Params, RunOptions, Value};

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpus/FOLDER`, or `None` (test `test` prints that it skips) when the shared
/// directory is absent, as in a user's fresh clone.
pub fn corpus_dir(folder: &str, test: &str) -> Option<PathBuf> {
    let dir = root().join("../shared/corpus").join(folder);
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("{test}: skipped, ../shared/corpus/{folder} is absent (corpus tests need ../shared beside the project)");
        None
    }
}

/// `../shared/corpus/racuda` ([`corpus_dir`]).
pub fn racuda_corpus(test: &str) -> Option<PathBuf> {
    corpus_dir("racuda", test)
}

/// The only kernel of `../shared/corpus/racuda/FILE` lowered for a block of `bx` threads
/// and a symbolic grid, with that launch; `None` as [`racuda_corpus`] without the corpus.
pub fn racuda_kernel(test: &str, file: &str, bx: u32) -> Option<(Program, Launch)> {
    let dir = racuda_corpus(test)?;
    let launch = launch(bx, None);
    Some((load_for(&dir.join(file), &launch), launch))
}

/// `../shared/corpus/cuda-samples-dev`, NVIDIA's samples as users write them today
/// ([`corpus_dir`]).
pub fn samples_dev_corpus(test: &str) -> Option<PathBuf> {
    corpus_dir("cuda-samples-dev", test)
}

/// RTX-class hardware of RaCUDA §8: warp 32, 32 banks of 4 bytes, 32-byte sectors.
pub fn hw() -> Hardware {
    Hardware {
        warp_size: 32,
        banks: 32,
        bank_bytes: 4,
        sector_bytes: 32,
    }
}

/// The five kernels of the foundation issue with the block sizes of RaCUDA's parameter
/// files (MANIFEST.md: `addsub-0` blockDim 1024, `vectoradd-0` blockDim 256), as
/// (corpus file, certificate stem, block x).
pub const FOUNDATION: &[(&str, &str, u32)] = &[
    ("addSub0.cu", "addSub0", 1024),
    ("addSub1.cu", "addSub1", 1024),
    ("addSub2.cu", "addSub2", 1024),
    ("addSub3.cu", "addSub3", 1024),
    ("vectorAdd.cu", "vectorAdd", 256),
];

/// Reads and lowers `path` for a block of `bx` threads and a symbolic grid.
pub fn load(path: &Path, bx: u32) -> Program {
    load_for(path, &launch(bx, None))
}

/// Reads and lowers the only kernel of `path` for `launch`.
pub fn load_for(path: &Path, launch: &Launch) -> Program {
    let parsed = frontend::parse_file(path).unwrap_or_else(|d| panic!("{d}"));
    let (prog, _) = frontend::lower(&parsed, None, launch, &hw(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}"));
    prog
}

/// Parses `src` (named `name` in diagnostics) and lowers its only kernel for `launch` on
/// the default hardware; panics with the diagnostic and the source.
pub fn lower_str(name: &str, src: &str, launch: &Launch) -> Program {
    let ast = frontend::parse_str(name, src).unwrap_or_else(|d| panic!("{d}\n{src}"));
    frontend::lower(&ast, None, launch, &Hardware::default(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}\n{src}"))
        .0
}

/// [`lower_str`] for a 1-D block of `block` threads and a symbolic grid; the program and
/// its launch.
pub fn lower_1d(name: &str, src: &str, block: u32) -> (Program, Launch) {
    let launch = launch(block, None);
    (lower_str(name, src, &launch), launch)
}

/// The analysis of `prog` for `m` at the default options, its certificate accepted by the
/// kernel (panics with the metric otherwise).
pub fn certified(prog: &Program, launch: &Launch, m: MetricName) -> Analysis {
    let a = analyze(
        prog,
        &Metric::standard(m),
        &Hardware::default(),
        launch,
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{m}: {e}"));
    if let Err(r) = warpcert_kernel::check(&a.certificate) {
        panic!("{m}: certificate rejected: {r:?}");
    }
    a
}

/// The cost under the standard `metric` of warp `warp` of block `block` of `prog` with the
/// `int` parameters `params` (name, value): the lock-step semantics (`run_warp`) on the
/// default hardware (warp 32, 32-byte sectors), zero inputs, default fuel — the oracle of
/// the bounds. Panics with the metric, block, warp and parameters when the run fails.
pub fn warp_cost(
    prog: &Program,
    metric: MetricName,
    launch: &Launch,
    block: [u32; 3],
    warp: u64,
    params: &[(&str, i64)],
) -> Q {
    let values: Params = params
        .iter()
        .map(|(k, v)| (k.to_string(), Value::Int(*v)))
        .collect();
    run_warp(
        prog,
        &[Metric::standard(metric)],
        &Hardware::default(),
        launch,
        block,
        warp,
        &values,
        &Inputs::zero(),
        &RunOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{metric} block {block:?} warp {warp} {params:?}: {e}"))
    .costs[0]
        .clone()
}

/// A 1-D launch.
pub fn launch(bx: u32, gx: Option<u32>) -> Launch {
    Launch {
        block: [bx, 1, 1],
        grid: gx.map(|g| [g, 1, 1]),
    }
}

/// Analyses `prog` for `metric` at degree 2 on a symbolic grid, in the polynomial form
/// (`--form polynomial`): the committed certificates stay free of floor atoms, which the Coq
/// export does not take yet (issue 14 item 5), and the RaCUDA comparisons keep RaCUDA's
/// form; the floor form is tested in tests/floor_atoms.rs and tests/analysis.rs.
pub fn bound(prog: &Program, metric: MetricName, bx: u32) -> Analysis {
    analyze(
        prog,
        &Metric::standard(metric),
        &hw(),
        &launch(bx, None),
        &AnalysisOptions {
            degree: 2,
            floor: false,
            align: false,
        },
    )
    .unwrap_or_else(|e| panic!("{} {metric}: {e}", prog.name))
}

/// `../shared/corpus/cuda-samples-subset` (NVIDIA's samples, read in place;
/// [`corpus_dir`]).
pub fn samples_corpus(test: &str) -> Option<PathBuf> {
    corpus_dir("cuda-samples-subset", test)
}

/// The byte offset just past the bracket that closes `s`'s first `open` bracket (brackets
/// `open`/`close` nest; other characters are skipped), or `None` when it is unbalanced.
pub fn balanced_end(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (j, ch) in s.char_indices() {
        if ch == open {
            depth += 1;
        } else if ch == close && depth > 0 {
            depth -= 1;
            if depth == 0 {
                return Some(j + ch.len_utf8());
            }
        }
    }
    None
}

/// Runs the `warpcert` binary with `args` from the project root: whether it exited
/// successfully, and its stdout followed by its stderr.
pub fn warpcert_output(args: &[&str]) -> (bool, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("warpcert runs");
    let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&o.stderr));
    (o.status.success(), text)
}

/// Runs the `warpcert` binary with `args` from the project root and returns its stdout;
/// panics with the exit status and stderr when it fails.
pub fn warpcert_stdout(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("warpcert runs");
    assert!(
        out.status.success(),
        "warpcert {args:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// `tests/precision/NAME.cu` analysed for `metric` in the default (floor) form on one block
/// of 32 threads, grid 1 (the log-atom tests: `tests/log_atoms.rs`, `tests/doubling_log.rs`).
pub fn precision_one_block(name: &str, metric: MetricName) -> Analysis {
    let launch = launch(32, Some(1));
    let prog = load_for(&root().join(format!("tests/precision/{name}.cu")), &launch);
    analyze(
        &prog,
        &Metric::standard(metric),
        &hw(),
        &launch,
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}
