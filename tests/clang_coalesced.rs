//! Coalesced groups and the core operators `popc`/`ffs` (`tests/data/clang/coalesced.cu`,
//! `spec/lowering.md` §9.5, `spec/semantics.md` §5). Each kernel is run under the lock-step
//! semantics on one block of 64 threads (two warps) and its values are compared with
//! expected values computed here from CUDA's definitions of the groups (a group is the set
//! of lanes of one warp; a member's rank is the number of members on lower lanes; the
//! size is the member count; `shfl(v, 0)` reads the lowest member; `cg::reduce` combines
//! the members' values): an independent model of the same definitions, not the program's
//! output. The bit intrinsics' values are derived by hand. Each kernel's bounds for every
//! metric are certificates accepted by the kernel. Skips, saying so, when clang is not
//! installed.

use std::collections::BTreeMap;
mod common;

use common::clang::have_clang;
use common::warpcert_output;
use warpcert::core::{Expr, Hardware, Launch, Metric, MetricName, Program, Stmt, UnOp};
use warpcert::frontend::clang::{self, ClangParsed};
use warpcert::semantics::run::{run_kernel, KernelRun, Params};
use warpcert::semantics::store::{ArrayInit, Inputs};
use warpcert::semantics::value::Value;

const FILE: &str = "tests/data/clang/coalesced.cu";

/// coalesced.cu read by clang.
fn read() -> ClangParsed {
    common::clang::read("coalesced.cu")
}
const N: i64 = 64;

/// One block of 64 threads: two warps.
fn launch() -> Launch {
    Launch {
        block: [N as u32, 1, 1],
        grid: Some([1, 1, 1]),
    }
}

fn lower(kernel: &str) -> Result<Program, String> {
    let cp = read();
    let inst = cp
        .instances
        .iter()
        .find(|i| i.display == kernel)
        .unwrap_or_else(|| panic!("no instance {kernel}"));
    clang::lower(&cp, inst, &launch(), &Hardware::default(), &BTreeMap::new())
        .map(|x| x.0)
        .map_err(|d| d.to_string())
}

fn run(p: &Program, inputs: Inputs, params: &Params) -> KernelRun {
    let metrics = [Metric::standard(MetricName::Steps)];
    run_kernel(
        p,
        &metrics,
        &Hardware::default(),
        &launch(),
        params,
        &inputs,
    )
    .expect("runs")
}

fn ints(name: &str, f: impl Fn(i64) -> i64) -> (String, ArrayInit) {
    (
        name.to_string(),
        ArrayInit::Values((0..N).map(|t| Value::Int(f(t))).collect()),
    )
}

fn inputs(arrays: Vec<(String, ArrayInit)>) -> Inputs {
    arrays
        .into_iter()
        .fold(Inputs::zero(), |i, (n, a)| i.with_array(&n, a))
}

fn int(r: &KernelRun, a: &str, i: i64) -> i64 {
    match r.memory.read(a, i) {
        Some(Value::Int(x)) => x,
        other => panic!("{a}[{i}] not an int: {other:?}"),
    }
}

/// The members of `t`'s group: the threads `u` of `t`'s warp with `member(u)`.
fn group(t: i64, member: impl Fn(i64) -> bool) -> Vec<i64> {
    let w = t / 32;
    (32 * w..32 * w + 32).filter(|&u| member(u)).collect()
}

fn count_unops(s: &Stmt, op: UnOp) -> usize {
    match s {
        Stmt::Assign(_, Expr::Un(o, _), _) if *o == op => 1,
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => count_unops(a, op) + count_unops(b, op),
        Stmt::While(_, b, _) => count_unops(b, op),
        _ => 0,
    }
}

/// `coalesced_threads()` in a divergent branch (`in[t] > 0`, `in[t] = 7t mod 5` in warp 0
/// and `7t mod 9` in warp 1): rank, size, the rank-0 shuffle of `t + 100` and the votes
/// `2·any(in > 5) + all(in > 1)` over the group; -1 outside the branch. The lowering uses
/// the core `popc` and `ffs`.
#[test]
fn ranks_sizes_and_leader_under_divergence() {
    if !have_clang("ranks_sizes_and_leader_under_divergence") {
        return;
    }
    let p = lower("ranks").expect("lowers");
    assert!(count_unops(&p.body, UnOp::Popc) >= 2, "{p}");
    assert!(count_unops(&p.body, UnOp::Ffs) >= 1, "{p}");
    let val = |t: i64| if t < 32 { 7 * t % 5 } else { 7 * t % 9 };
    let r = run(&p, inputs(vec![ints("in", val)]), &Params::new());
    for t in 0..N {
        let (rank, size, lead, vote) = if val(t) > 0 {
            let g = group(t, |u| val(u) > 0);
            let any = g.iter().any(|&u| val(u) > 5);
            let all = g.iter().all(|&u| val(u) > 1);
            (
                g.iter().filter(|&&u| u < t).count() as i64,
                g.len() as i64,
                g[0] + 100,
                2 * i64::from(any) + i64::from(all),
            )
        } else {
            (-1, -1, -1, -1)
        };
        assert_eq!(int(&r, "rank", t), rank, "rank[{t}]");
        assert_eq!(int(&r, "size", t), size, "size[{t}]");
        assert_eq!(int(&r, "lead", t), lead, "lead[{t}]");
        assert_eq!(int(&r, "vote", t), vote, "vote[{t}]");
    }
}

/// The warp-aggregated slot claim (one `atomicAdd` per warp by the group's rank 0, its old
/// value shuffled from rank 0, plus the lane's rank): with `n = 60` and `in[t] = t − 40`
/// except 0 for `t` divisible by 3, the positive values are those of `t` in `41..60` not
/// divisible by 3; `next[0]` is their count and `kept[0..count]` holds each exactly once
/// (the order of the warps' atomics is the semantics' choice).
#[test]
fn aggregated_slots_are_a_permutation() {
    if !have_clang("aggregated_slots_are_a_permutation") {
        return;
    }
    let p = lower("keep_positive").expect("lowers");
    let val = |t: i64| if t % 3 == 0 { 0 } else { t - 40 };
    let mut params = Params::new();
    params.insert("n".into(), Value::Int(60));
    let r = run(&p, inputs(vec![ints("in", val)]), &params);
    let mut want: Vec<i64> = (0..60).map(val).filter(|&x| x > 0).collect();
    let count = want.len() as i64;
    assert_eq!(int(&r, "next", 0), count);
    let mut got: Vec<i64> = (0..count).map(|i| int(&r, "kept", i)).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(int(&r, "kept", count), 0, "nothing past the claimed slots");
}

/// `binary_partition(warp, v odd)` with `in[t] = (t² + 3) mod 11`: each lane's class sum
/// (`cg::reduce` with `cg::plus`), class size and rank in the class.
#[test]
fn binary_partition_classes() {
    if !have_clang("binary_partition_classes") {
        return;
    }
    let p = lower("parity").expect("lowers");
    let val = |t: i64| (t * t + 3) % 11;
    let r = run(&p, inputs(vec![ints("in", val)]), &Params::new());
    for t in 0..N {
        let g = group(t, |u| val(u) % 2 == val(t) % 2);
        assert_eq!(
            int(&r, "sum", t),
            g.iter().map(|&u| val(u)).sum::<i64>(),
            "sum[{t}]"
        );
        assert_eq!(int(&r, "count", t), g.len() as i64, "count[{t}]");
        let rank = g.iter().filter(|&&u| u < t).count() as i64;
        assert_eq!(int(&r, "rank", t), rank, "rank[{t}]");
    }
}

/// `labeled_partition` of the lanes with `t mod 4 ≠ 1` by `key[t] = 5t mod 3`: the maximum
/// and minimum (`cg::greater`, `cg::less`) of `in[t] = (13t mod 17) − 8` over each group,
/// and its size; -1 outside the branch.
#[test]
fn labeled_partition_reductions() {
    if !have_clang("labeled_partition_reductions") {
        return;
    }
    let p = lower("by_key").expect("lowers");
    let key = |t: i64| 5 * t % 3;
    let val = |t: i64| 13 * t % 17 - 8;
    let r = run(
        &p,
        inputs(vec![ints("in", val), ints("key", key)]),
        &Params::new(),
    );
    for t in 0..N {
        let (hi, lo, count) = if t % 4 != 1 {
            let g = group(t, |u| u % 4 != 1 && key(u) == key(t));
            let vals: Vec<i64> = g.iter().map(|&u| val(u)).collect();
            (
                *vals.iter().max().expect("t is a member"),
                *vals.iter().min().expect("t is a member"),
                g.len() as i64,
            )
        } else {
            (-1, -1, -1)
        };
        assert_eq!(int(&r, "hi", t), hi, "hi[{t}]");
        assert_eq!(int(&r, "lo", t), lo, "lo[{t}]");
        assert_eq!(int(&r, "count", t), count, "count[{t}]");
    }
}

/// `__popc`, `__ffs` (32-bit argument), `__popcll`, `__ffsll` (64-bit), values by hand:
/// `-1` has 32 ones as an `unsigned` and 64 as a `long long`; `INT_MIN` is bit 31 (33 ones
/// when sign-extended to 64 bits); `0x10000` is bit 16 (`ffs` = 17); `ffs(0) = 0`.
#[test]
fn bit_intrinsics_have_exact_values() {
    if !have_clang("bit_intrinsics_have_exact_values") {
        return;
    }
    let p = lower("bits").expect("lowers");
    // (input, popc, ffs, popcll, ffsll)
    let rows: [(i64, i64, i64, i64, i64); 8] = [
        (0, 0, 0, 0, 0),
        (1, 1, 1, 1, 1),
        (8, 1, 4, 1, 4),
        (6, 2, 2, 2, 2),
        (-1, 32, 1, 64, 1),
        (-2_147_483_648, 1, 32, 33, 32),
        (0x7fff_ffff, 31, 1, 31, 1),
        (0x10000, 1, 17, 1, 17),
    ];
    let r = run(
        &p,
        inputs(vec![ints("in", |t| {
            rows.get(t as usize).map_or(0, |x| x.0)
        })]),
        &Params::new(),
    );
    for (t, (x, pc, ff, pcl, ffl)) in rows.iter().enumerate() {
        let t = t as i64;
        assert_eq!(int(&r, "pc", t), *pc, "__popc({x})");
        assert_eq!(int(&r, "ff", t), *ff, "__ffs({x})");
        assert_eq!(int(&r, "pcl", t), *pcl, "__popcll({x})");
        assert_eq!(int(&r, "ffl", t), *ffl, "__ffsll({x})");
    }
}

/// Every metric of every kernel of the file has a bound whose certificate the kernel
/// accepts; for `by_key` the `steps` bound is at least the lock-step cost of the run above.
#[test]
fn coalesced_kernels_are_certified() {
    if !have_clang("coalesced_kernels_are_certified") {
        return;
    }
    for k in ["ranks", "keep_positive", "parity", "by_key", "bits"] {
        let (ok, text) = warpcert_output(&[
            "analyze",
            FILE,
            "--kernel",
            k,
            "--block",
            "64",
            "--grid",
            "1",
            "--metric",
            "all",
            "--frontend",
            "clang",
        ]);
        // one upper certificate per metric (a lower-bound certificate, printed when the
        // answer is exact, says "lower-bound certificate (warp W): accepted …")
        let accepted = text.matches("certificate: accepted by the kernel").count();
        assert!(ok && accepted == 4, "{k}: {accepted} certificates\n{text}");
        if k == "by_key" {
            let per_warp: i64 = text
                .lines()
                .skip_while(|l| !l.starts_with("steps:"))
                .find(|l| l.trim_start().starts_with("per warp"))
                .and_then(|l| l.split(['≤', '=']).nth(1))
                .and_then(|x| x.trim().parse().ok())
                .expect("a constant per-warp steps bound");
            let p = lower(k).expect("lowers");
            let r = run(
                &p,
                inputs(vec![
                    ints("in", |t| 13 * t % 17 - 8),
                    ints("key", |t| 5 * t % 3),
                ]),
                &Params::new(),
            );
            let cost: i64 = r.metrics[0]
                .max_per_warp
                .to_string()
                .parse()
                .expect("an integer cost");
            assert!(
                cost > 0 && per_warp >= cost,
                "bound {per_warp} < lock-step {cost}"
            );
        }
    }
}

/// A shuffle from a source rank other than the constant 0 is a located error naming it.
#[test]
fn other_source_rank_is_a_located_error() {
    if !have_clang("other_source_rank_is_a_located_error") {
        return;
    }
    let e = lower("other_rank").expect_err("rejected");
    assert!(
        e.contains("coalesced_group::shfl from a source rank other than the constant 0"),
        "{e}"
    );
    assert!(e.contains("coalesced.cu:83:"), "{e}");
}
