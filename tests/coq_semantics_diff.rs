//! The Rust and Coq lock-step semantics agree (issue 17 item 5).
//!
//! Each case runs one or two warps of a small program under warpcert's executable
//! semantics (`semantics::run_warp`, all four metrics) and under the Coq interpreter
//! `Exec.run` of `coq-export/theories/Exec.v` (sound for the relation `Semantics.seval`:
//! `Exec.run_sound`), computed by `coqc` with `vm_compute` in a file written by
//! `export::coq_run::costs_file`, with the same parameters, array contents and warp, and
//! requires equal costs for every metric. The expected values are therefore the Coq
//! semantics' own, computed independently of the Rust code (only the program text and the
//! inputs are shared). Cases where the Rust run fails with an error the relation also
//! excludes (a write-write race, a division by zero) require the Coq run to fail too.
//!
//! Programs: the kernels of `tests/data/coqdiff/` (negative indices, nested and divergent
//! branches and loops, shared and global accesses, barriers, bank conflicts, float-dependent
//! control flow, data-dependent indices, `popc`/`ffs` values, 1/2/8-byte elements, 2-D and partial blocks,
//! `blockIdx`, jumps, device functions) and, when `../shared` is present, RaCUDA corpus
//! kernels at small sizes. Array contents are pseudo-random (a fixed LCG), negative values
//! included.
//!
//! Also checked: `Print Assumptions` of the interpreter's soundness theorems is closed, and
//! the claim theorems of `coq_run::claim_file` (issue 19 item 3: "the run costs exactly /
//! more than c") are accepted for true claims and rejected for a false one.
//!
//! Skips, saying so, when `coqc` is missing. `coqc` runs on two files at a time.

mod common;

use common::coq::{build_theories, coqc, coqc_available};
use common::rng::Rng;
use common::*;
use num_bigint::BigInt;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use warpcert::core::metric::Q;
use warpcert::core::{Launch, Metric, MetricName, Program, Ty};
use warpcert::export::coq_run::{
    claim_file, costs_file, parse_costs, refutation_file, CostClaim, WarpRunSpec,
};
use warpcert::frontend;
use warpcert::semantics::{run_warp, ArrayInit, Inputs, Params, RunOptions, Value};
use warpcert_kernel::arith::{Lin, Poly};

/// `coqc` on every file, two at a time (CI has two cores); (success, output) in input order.
fn coqc_pairs(files: &[PathBuf]) -> Vec<(bool, String)> {
    common::coq::coqc_all(files, 2)
        .into_iter()
        .map(|r| (r.ok, r.out))
        .collect()
}

/// Where a case's kernel comes from.
enum Src {
    /// `tests/data/coqdiff/NAME`.
    Own(&'static str),
    /// `../shared/corpus/racuda/NAME`.
    Corpus(&'static str),
}

/// One differential case.
struct Case {
    src: Src,
    block: [u32; 3],
    /// Block index (sets `blockIdx.*`); the grid is `block_idx + 1` in each dimension.
    block_idx: [u32; 3],
    params: &'static [(&'static str, i64)],
    warps: &'static [u64],
    /// Integer array contents are drawn from `lo..hi`.
    ints: (i64, i64),
    /// The Rust run fails (and so must the Coq run).
    fails: bool,
}

const fn own(name: &'static str, bx: u32, params: &'static [(&'static str, i64)]) -> Case {
    Case {
        src: Src::Own(name),
        block: [bx, 1, 1],
        block_idx: [0, 0, 0],
        params,
        warps: &[0],
        ints: (-4, 12),
        fails: false,
    }
}

fn cases() -> Vec<Case> {
    let mut v = vec![
        Case {
            warps: &[0, 1],
            ..own("neg_index.cu", 64, &[("s", 3)])
        },
        own("neg_index.cu", 32, &[("s", -5)]),
        Case {
            warps: &[0, 1],
            ..own("diverge_if.cu", 64, &[("n", 7)])
        },
        own("diverge_if.cu", 32, &[("n", 2)]),
        own("nested_loops.cu", 32, &[("n", 4)]),
        own("shared_conflicts.cu", 32, &[("stride", 1)]),
        own("shared_conflicts.cu", 32, &[("stride", 2)]),
        own("shared_conflicts.cu", 32, &[("stride", 16)]),
        Case {
            warps: &[0, 1],
            ..own("shared_conflicts.cu", 64, &[("stride", 33)])
        },
        own("sync_loop.cu", 32, &[("n", 3)]),
        own("while_some.cu", 32, &[]),
        Case {
            ints: (0, 1),
            ..own("float_branch.cu", 32, &[])
        },
        Case {
            ints: (-5, 20),
            ..own("data_index.cu", 32, &[])
        },
        own("shifts_bits.cu", 32, &[("m", -6)]),
        own("bit_counts.cu", 32, &[("m", 37)]),
        Case {
            ints: (-3000, 3000),
            ..own("bit_counts.cu", 32, &[("m", -1_000_003)])
        },
        own("div_mod_neg.cu", 32, &[("q", 4)]),
        own("div_mod_neg.cu", 32, &[("q", -3)]),
        Case {
            warps: &[0, 1],
            ..own("early_return.cu", 64, &[("n", 40)])
        },
        Case {
            ints: (0, 9),
            ..own("break_continue.cu", 32, &[("n", 9)])
        },
        own("bool_locals.cu", 32, &[("n", 20)]),
        Case {
            block: [8, 8, 1],
            warps: &[0, 1],
            ..own("two_d_block.cu", 0, &[("w", 8)])
        },
        Case {
            warps: &[0, 1],
            ..own("partial_warp.cu", 40, &[])
        },
        own("min_max.cu", 32, &[("n", 12)]),
        own("elem_sizes.cu", 32, &[]),
        Case {
            block_idx: [2, 0, 0],
            ..own("blockidx.cu", 32, &[])
        },
        own("device_fn.cu", 32, &[]),
        own("param_loop.cu", 32, &[("n", 100), ("step", 32)]),
        own("param_loop.cu", 32, &[("n", 50), ("step", 7)]),
        Case {
            block: [16, 16, 1],
            warps: &[0, 3],
            ..own("transpose_tile.cu", 0, &[("w", 16)])
        },
        own("float_to_int.cu", 32, &[]),
        Case {
            warps: &[0, 1],
            ..own("tree_reduce.cu", 64, &[])
        },
        own("do_while.cu", 32, &[("n", 20)]),
        own("ternary_ops.cu", 32, &[("n", 10)]),
        Case {
            fails: true,
            ..own("race.cu", 32, &[])
        },
        Case {
            fails: true,
            ..own("div_zero.cu", 32, &[("q", 0)])
        },
        own("div_zero.cu", 32, &[("q", -2)]),
        // warp shuffles and votes (SC:SHFL, SC:VOTE), lane operand a parameter
        own("warp_ops.cu", 32, &[("n", 7)]),
        Case {
            warps: &[0, 1],
            ..own("warp_ops.cu", 64, &[("n", -2)])
        },
        // a thread-local array (EC:LARR, SC:LWRITE)
        Case {
            ints: (-3, 9),
            ..own("local_array.cu", 32, &[])
        },
    ];
    let corpus = |name, bx, params, warps| Case {
        src: Src::Corpus(name),
        warps,
        ints: (0, 100),
        ..own("", bx, params)
    };
    v.extend([
        corpus("vectorAdd.cu", 64, &[("numElements", 50)], &[0, 1]),
        corpus("addSub0.cu", 64, &[("w", 3), ("h", 2)], &[1]),
        corpus("addSub3.cu", 64, &[("w", 4), ("h", 3)], &[0]),
        corpus("reduce1.cu", 64, &[("n", 64)], &[0, 1]),
        corpus("reduce3.cu", 64, &[("n", 128)], &[0]),
        corpus("syn-brdis.cu", 32, &[("N", 3), ("M", 4), ("val", 1)], &[0]),
        Case {
            block: [32, 32, 1],
            ..corpus("matrixMul.cu", 0, &[("wA", 32), ("wB", 32)], &[0, 5])
        },
    ]);
    v
}

/// Pseudo-random contents for cells 0..256 of every array: ints in `ints`, floats
/// `k/1000` for `k` in `0..1000`, booleans either way.
fn contents(prog: &Program, seed: u64, ints: (i64, i64)) -> Inputs {
    let mut g = Rng::new(seed);
    let mut inputs = Inputs::zero();
    for a in &prog.arrays {
        let vs = (0..256)
            .map(|_| match a.elem {
                Ty::Int => Value::Int(g.range(ints.0, ints.1 - 1)),
                Ty::Bool => Value::Bool(g.below(2) == 1),
                Ty::Float => Value::Float(g.range(0, 999) as f64 / 1000.0),
            })
            .collect();
        inputs = inputs.with_array(&a.name, ArrayInit::Values(vs));
    }
    inputs
}

/// A loaded case: program, launch, parameter values, inputs.
struct Loaded {
    name: String,
    prog: Program,
    launch: Launch,
    params: Params,
    inputs: Inputs,
}

fn load_case(c: &Case, corpus: Option<&Path>) -> Option<Loaded> {
    let path = match c.src {
        Src::Own(n) => root().join("tests/data/coqdiff").join(n),
        Src::Corpus(n) => corpus?.join(n),
    };
    let grid = [c.block_idx[0] + 1, c.block_idx[1] + 1, c.block_idx[2] + 1];
    let launch = Launch {
        block: c.block,
        grid: Some(grid),
    };
    let parsed = frontend::parse_file(&path).unwrap_or_else(|d| panic!("{d}"));
    let (prog, _) = frontend::lower(&parsed, None, &launch, &hw(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{}: {d}", path.display()));
    let params: Params = c
        .params
        .iter()
        .map(|(n, v)| (n.to_string(), Value::Int(*v)))
        .collect();
    let pv: Vec<String> = c.params.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let name = format!(
        "{} block {:?} [{}]",
        path.file_name()?.to_string_lossy(),
        c.block,
        pv.join(" ")
    );
    let seed = name
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let inputs = contents(&prog, seed, c.ints);
    Some(Loaded {
        name,
        prog,
        launch,
        params,
        inputs,
    })
}

/// A Coq module name for file number `i`.
fn file_for(dir: &Path, i: usize) -> PathBuf {
    dir.join(format!("diff_{i}.v"))
}

/// One warp's comparison: description, Rust costs (or its error), Coq file.
struct Job {
    what: String,
    rust: Result<Vec<Q>, String>,
    file: PathBuf,
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcert_{test}_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn metrics() -> Vec<Metric> {
    MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect()
}

#[test]
fn rust_and_coq_costs_agree() {
    if !coqc_available() {
        eprintln!("rust_and_coq_costs_agree: skipped, coqc is not installed");
        return;
    }
    let start = Instant::now();
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let corpus = racuda_corpus("rust_and_coq_costs_agree (corpus cases)");
    let dir = scratch("coqdiff");
    let mut jobs = Vec::new();
    let mut early = Vec::new();
    for c in cases() {
        let Some(l) = load_case(&c, corpus.as_deref()) else {
            continue;
        };
        for &w in c.warps {
            let opts = RunOptions::default();
            let block = c.block_idx;
            let r = run_warp(
                &l.prog,
                &metrics(),
                &hw(),
                &l.launch,
                block,
                w,
                &l.params,
                &l.inputs,
                &opts,
            );
            let (rust, fuel) = match r {
                Ok(run) => (Ok(run.costs), run.rule_applications + 10),
                Err(e) => (Err(e.to_string()), 10_000),
            };
            if rust.is_err() != c.fails {
                let expect = if c.fails { "to fail" } else { "to succeed" };
                early.push(format!(
                    "{} warp {w}: expected the Rust run {expect}: {rust:?}",
                    l.name
                ));
                continue;
            }
            let spec = WarpRunSpec {
                prog: &l.prog,
                hw: &hw(),
                launch: &l.launch,
                block,
                warp: w,
                params: &l.params,
                inputs: &l.inputs,
                fuel,
            };
            let text = costs_file(&spec, &MetricName::ALL).unwrap_or_else(|e| panic!("{e}"));
            let file = file_for(&dir, jobs.len());
            std::fs::write(&file, text).unwrap();
            jobs.push(Job {
                what: format!("{} warp {w}", l.name),
                rust,
                file,
            });
        }
    }
    assert!(early.is_empty(), "{}", early.join("\n"));
    let outs = coqc_pairs(&jobs.iter().map(|j| j.file.clone()).collect::<Vec<_>>());
    let mut failures = Vec::new();
    for (j, (ok, out)) in jobs.iter().zip(&outs) {
        assert!(
            ok,
            "{}: coqc failed on {}:\n{out}",
            j.what,
            j.file.display()
        );
        let coq = parse_costs(out, MetricName::ALL.len()).unwrap_or_else(|e| panic!("{e}"));
        let rust: Vec<Option<Q>> = match &j.rust {
            Ok(cs) => cs.iter().cloned().map(Some).collect(),
            Err(_) => vec![None; MetricName::ALL.len()],
        };
        let row: Vec<String> = MetricName::ALL
            .iter()
            .zip(rust.iter().zip(&coq))
            .map(|(m, (r, c))| format!("{m} {} / {}", show(r), show(c)))
            .collect();
        eprintln!("{}: {} (Rust / Coq)", j.what, row.join(", "));
        if rust != coq {
            failures.push(format!(
                "{}: {} ({})",
                j.what,
                row.join(", "),
                j.file.display()
            ));
        }
    }
    eprintln!(
        "{} warps compared, {} coqc runs, {:.1} s",
        jobs.len(),
        outs.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "Rust and Coq costs differ:\n{}",
        failures.join("\n")
    );
    assert!(jobs.len() >= 30, "only {} warps compared", jobs.len());
    let _ = std::fs::remove_dir_all(&dir);
}

fn show(c: &Option<Q>) -> String {
    c.as_ref().map_or("error".into(), |q| q.to_string())
}

/// `Print Assumptions` of the interpreter's soundness theorems: no axiom.
#[test]
fn interpreter_soundness_is_closed() {
    if !coqc_available() {
        eprintln!("interpreter_soundness_is_closed: skipped, coqc is not installed");
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let dir = scratch("coqdiff_assumptions");
    let file = dir.join("exec_assumptions.v");
    let thms = [
        "exec_sound",
        "run_sound",
        "run_cost_eq",
        "run_cost_gt",
        "run_cost_ge",
    ];
    let mut text = String::from("From WarpCert Require Import Exec Float64.\n");
    for t in thms {
        text.push_str(&format!("Print Assumptions {t}.\nPrint Assumptions f64.\n"));
    }
    std::fs::write(&file, text).unwrap();
    let (ok, out) = coqc(&file);
    assert!(ok, "{out}");
    let closed = out.matches("Closed under the global context").count();
    assert_eq!(closed, 2 * thms.len(), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 19 item 3's theorem form: "the run costs exactly c" and "more than c - 1" are
/// proved by `vm_compute` (closed), "more than c" is rejected; the claimed bound
/// `c - 2 + max(0, s - 1)/2` (`c - 1` at `s = 3`) is refuted (`Refute.refute_sound`: the
/// negation of the bound theorem a certificate would state), `c - 1 + max(0, s - 1)/2` is
/// not; `c` is the cost the Rust run computes — the sectors of warp 1 of `neg_index.cu` at `s = 3`, which the
/// differential test above shows equal to the Coq run's.
#[test]
fn claim_theorems_check() {
    if !coqc_available() {
        eprintln!("claim_theorems_check: skipped, coqc is not installed");
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let c = Case {
        warps: &[1],
        ..own("neg_index.cu", 64, &[("s", 3)])
    };
    let l = load_case(&c, None).unwrap();
    let metric = MetricName::Sectors;
    let run = run_warp(
        &l.prog,
        &[Metric::standard(metric)],
        &hw(),
        &l.launch,
        c.block_idx,
        1,
        &l.params,
        &l.inputs,
        &RunOptions::default(),
    )
    .unwrap();
    let cost = run.costs[0].clone();
    assert!(cost > Q::from_integer(BigInt::from(1)), "cost {cost}");
    let spec = WarpRunSpec {
        prog: &l.prog,
        hw: &hw(),
        launch: &l.launch,
        block: c.block_idx,
        warp: 1,
        params: &l.params,
        inputs: &l.inputs,
        fuel: run.rule_applications + 10,
    };
    let one = Q::from_integer(BigInt::from(1));
    let claims = [
        (CostClaim::Exactly(cost.clone()), true),
        (CostClaim::MoreThan(&cost - &one), true),
        (CostClaim::AtLeast(cost.clone()), true),
        (CostClaim::MoreThan(cost.clone()), false),
        (CostClaim::Exactly(&cost + &one), false),
    ];
    // Claimed bounds `k + max(0, s - 1)/2` (2/2 = 1 at s = 3): refuted for k = cost - 2
    // (1 below the cost), not for k = cost - 1 (equal to it).
    let half_s = |k: Q| {
        let mut atom = Lin::constant(Q::from_integer(BigInt::from(-1)).into());
        atom.terms
            .insert("s".into(), Q::from_integer(BigInt::from(1)).into());
        let mut p = Poly::constant(k.into());
        p.add_term(Q::new(BigInt::from(1), BigInt::from(2)).into(), vec![atom]);
        p
    };
    let two = Q::from_integer(BigInt::from(2));
    let bounds = [(half_s(&cost - &two), true), (half_s(&cost - &one), false)];
    let dir = scratch("coqdiff_claims");
    let mut files = Vec::new();
    for (i, (cl, _)) in claims.iter().enumerate() {
        let f = dir.join(format!("claim_{i}.v"));
        std::fs::write(&f, claim_file(&spec, metric, cl).unwrap()).unwrap();
        files.push(f);
    }
    for (i, (b, _)) in bounds.iter().enumerate() {
        let f = dir.join(format!("refute_{i}.v"));
        std::fs::write(&f, refutation_file(&spec, metric, b).unwrap()).unwrap();
        files.push(f);
    }
    let expected = claims
        .iter()
        .map(|(c, h)| (format!("claim {c:?}"), *h))
        .chain(
            bounds
                .iter()
                .map(|(b, h)| (format!("refutation of {b:?}"), *h)),
        );
    for ((what, holds), (ok, out)) in expected.zip(coqc_pairs(&files)) {
        assert_eq!(ok, holds, "{what} (cost {cost}):\n{out}");
        if holds {
            assert!(out.contains("Closed under the global context"), "{out}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
