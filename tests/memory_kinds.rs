//! Thread-local arrays (`local` space, rules EC:LARR/SC:LWRITE, EQ:LARRAY/Q:LWRITE),
//! `__constant__` variables (read-only global arrays) and cooperative-groups warp tiles
//! (spec/lowering.md §5, §9.5; spec/metrics.md). Expected costs are hand-derived (warp 32,
//! sector 32 bytes, 4-byte elements) and checked against the lock-step semantics; every
//! bound is accepted by the kernel and is at least the semantics' largest per-warp cost.

mod common;

use common::*;
use std::collections::BTreeMap;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program, Space};
use warpcert::frontend::clang::{self, ClangOptions};
use warpcert::semantics::run::run_kernel;
use warpcert::semantics::{Inputs, Params};

fn data(name: &str) -> std::path::PathBuf {
    root().join("tests/data/memory").join(name)
}

/// The bound (kernel-accepted) and the semantics' largest per-warp cost of `p` for `m`,
/// one block of `bx` threads (the kernels have no scalar parameters).
fn bound_and_run(p: &Program, m: MetricName, bx: u32) -> (i64, i64) {
    let a = bound(p, m, bx);
    warpcert_kernel::check(&a.certificate).unwrap_or_else(|r| panic!("{m}: {r}"));
    let b = a.bound.eval(&BTreeMap::new());
    let l = Launch {
        block: [bx, 1, 1],
        grid: Some([2, 1, 1]),
    };
    let r = run_kernel(
        p,
        &[Metric::standard(m)],
        &Hardware::default(),
        &l,
        &Params::new(),
        &Inputs::random(3),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let got = r.metrics[0].max_per_warp.clone();
    assert!(got <= b, "{m}: semantics {got} > bound {b}");
    (
        b.to_integer().try_into().unwrap(),
        got.to_integer().try_into().unwrap(),
    )
}

/// `float r[4]`: 4 strided loads of `in` (16 sectors each: lanes 2m, 2m+1 share a sector)
/// and the write of `out` (4 sectors) are the only sector costs: 68; the local array costs
/// nothing under `sectors` and `conflicts`.
#[test]
fn thread_local_array_costs_no_sectors() {
    let p = load(&data("local_array.cu"), 64);
    let local: Vec<_> = p
        .arrays
        .iter()
        .filter(|a| a.space == Space::Local)
        .collect();
    assert_eq!(local.len(), 1, "{:?}", p.arrays);
    assert_eq!(local[0].len, Some(4 * 64));
    let (b, got) = bound_and_run(&p, MetricName::Sectors, 64);
    assert_eq!(got, 68);
    assert!(b >= 68);
    let (_, got) = bound_and_run(&p, MetricName::Conflicts, 64);
    assert_eq!(got, 0);
    bound_and_run(&p, MetricName::Steps, 64);
    let a = bound(&p, MetricName::Steps, 64);
    // the derivation's rules (format 6 writes EQ:LARRAY as the implicit `_`, which the
    // kernel rebuilds from the program: spec/certificate.md, version 6)
    for r in ["EQ:LARRAY", "Q:LWRITE"] {
        assert!(a.rules_used.get(r).is_some_and(|&k| k > 0), "no {r}");
    }
    assert!(a.certificate.contains("(Q:LWRITE"));
}

/// Each thread's cells are its own: the sum of `r` is the sum of the thread's 4 inputs.
#[test]
fn thread_local_arrays_do_not_alias_between_threads() {
    let p = load(&data("local_array.cu"), 64);
    let l = Launch {
        block: [64, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let inputs = Inputs::random(11);
    let r = run_kernel(
        &p,
        &[Metric::standard(MetricName::Steps)],
        &Hardware::default(),
        &l,
        &Params::new(),
        &inputs,
    )
    .unwrap();
    let inp = p
        .arrays
        .iter()
        .find(|a| a.space == Space::Global && a.name.contains("in"))
        .unwrap();
    let out = p.arrays.iter().find(|a| a.name.contains("out")).unwrap();
    for t in [0i64, 5, 33, 63] {
        let mut want = 0.0f64;
        for j in 0..4 {
            let v = warpcert::semantics::store::random_value(11, &inp.name, 4 * t + j, inp.elem);
            if let warpcert::semantics::Value::Float(x) = v {
                want += x;
            }
        }
        let got = r.memory.read(&out.name, t).unwrap();
        match got {
            warpcert::semantics::Value::Float(x) => {
                assert!(
                    (x - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "t={t}: {x} vs {want}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
}

/// `coef[3]` is one address (a broadcast: 1 sector), `coef[threadIdx.x]` 4 sectors, the
/// write of `out` 4: 9 per warp, and the bound is exact.
#[test]
fn constant_memory_is_a_read_only_global_array() {
    let p = load(&data("constant.cu"), 64);
    assert!(p
        .arrays
        .iter()
        .any(|a| a.name.contains("coef") && a.space == Space::Global));
    let (b, got) = bound_and_run(&p, MetricName::Sectors, 64);
    assert_eq!((b, got), (9, 9));
    if clang::available() {
        let cp = clang::parse_file(&data("constant.cu"), &ClangOptions::default(), None)
            .unwrap_or_else(|d| panic!("{d}"));
        let l = launch(64, None);
        let (q, _) = clang::lower(&cp, &cp.instances[0], &l, &hw(), &BTreeMap::new())
            .unwrap_or_else(|d| panic!("{d}"));
        let (b, got) = bound_and_run(&q, MetricName::Sectors, 64);
        assert_eq!((b, got), (9, 9));
    } else {
        eprintln!("constant_memory_is_a_read_only_global_array: clang part skipped, clang is not installed");
    }
}

/// `thread_block_tile<16>`: the in read is 4 sectors, the two tile leaders of a warp write
/// two adjacent ints (1 sector): 5 per warp; the certificate uses Q:SHFL.
#[test]
fn warp_tiles_lower_to_shuffles() {
    if !clang::available() {
        eprintln!(
            "warp_tiles_lower_to_shuffles: skipped, clang is not installed (apt-get install clang)"
        );
        return;
    }
    let cp = clang::parse_file(&data("tile.cu"), &ClangOptions::default(), None)
        .unwrap_or_else(|d| panic!("{d}"));
    let l = launch(128, None);
    let (p, _) = clang::lower(&cp, &cp.instances[0], &l, &hw(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}"));
    assert!(p.body.to_string().contains("shfl_down<16>"), "{}", p.body);
    let (b, got) = bound_and_run(&p, MetricName::Sectors, 128);
    assert_eq!(got, 5);
    assert!(b >= 5);
    assert!(bound(&p, MetricName::Steps, 128)
        .certificate
        .contains("(Q:SHFL"));
}
