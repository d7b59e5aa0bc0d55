//! The clang front end (`src/frontend/clang/`, `spec/lowering.md` §9) on the kernels of
//! `tests/data/clang/`. Every test skips, saying so, when clang is not installed; the
//! no-clang path of the CLI is checked by running the binary with `WARPCERT_CLANG` pointing
//! nowhere.

mod common;

use common::clang::{data, have_clang, read};
use std::collections::BTreeMap;
use std::process::Command;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program, Stmt};
use warpcert::frontend::clang::{self, ClangOptions, ClangParsed};
use warpcert::semantics::run::{run_kernel, Params};
use warpcert::semantics::store::{ArrayInit, Inputs};
use warpcert::semantics::value::Value;

fn launch32() -> Launch {
    Launch {
        block: [32, 1, 1],
        grid: Some([1, 1, 1]),
    }
}

fn lower(cp: &ClangParsed, display: &str, l: &Launch) -> Program {
    let inst = cp
        .instances
        .iter()
        .find(|i| i.display == display)
        .unwrap_or_else(|| panic!("no instance {display}"));
    clang::lower(cp, inst, l, &Hardware::default(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}"))
        .0
}

fn contains_sync(s: &Stmt) -> bool {
    match s {
        Stmt::Sync(_) => true,
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => contains_sync(a) || contains_sync(b),
        Stmt::While(_, b, _) => contains_sync(b),
        _ => false,
    }
}

/// Instances: the explicit instantiation, the launched one and the plain kernel, in source
/// order; the launch sizes are the file's `#define`s (64 threads, 8 blocks).
#[test]
fn instances_and_host_launch() {
    if !have_clang("instances_and_host_launch") {
        return;
    }
    let cp = read("templates.cu");
    let names: Vec<&str> = cp.instances.iter().map(|i| i.display.as_str()).collect();
    assert_eq!(names, ["scale<float, 128>", "scale<int, 64>", "plain"]);
    let launched = &cp.instances[1];
    let hl = launched.launch.as_ref().expect("launch from host code");
    assert_eq!(hl.block, Some([64, 1, 1]));
    assert_eq!(hl.grid, Some([8, 1, 1]));
    assert!(
        cp.instances[0].launch.is_none(),
        "no launch of the explicit instance"
    );
    // the non-type argument is a constant of the lowered program: the index is
    // blockIdx.x * 128 + threadIdx.x, and the array holds floats of 4 bytes
    let p = lower(&cp, "scale<float, 128>", &launch32());
    assert_eq!(p.name, "scale<float,128>");
    assert_eq!(p.array("a").map(|a| a.elem_bytes), Some(4));
    assert!(format!("{p}").contains("128"), "{p}");
}

/// `--kernel 'scale<double, 32>'`: an instance the file does not contain is instantiated by
/// a wrapper translation unit; doubles are 8-byte elements.
#[test]
fn instantiate_on_request() {
    if !have_clang("instantiate_on_request") {
        return;
    }
    let cp = clang::parse_file(
        &data("templates.cu"),
        &ClangOptions::default(),
        Some("scale<double, 32>"),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let inst = cp
        .instances
        .iter()
        .find(|i| clang::same_name("scale<double,32>", &i.display))
        .expect("instantiated");
    let (p, _) = clang::lower(
        &cp,
        inst,
        &launch32(),
        &Hardware::default(),
        &BTreeMap::new(),
    )
    .expect("lowers");
    assert_eq!(p.array("a").map(|a| a.elem_bytes), Some(8));
}

/// `float4` fields are element offsets of the float view at their real byte addresses.
/// Hand derivation for one warp of 32 lanes, `i = threadIdx.x`: the record copy
/// `q = __ldg(&v[i])` reads the four fields, lane `i` at bytes `16i + 4k`, sectors
/// `⌊i/2⌋`: 16 sectors each (64); `v[i].w` another 16; `out[i]` writes 32 floats: 4
/// sectors. Total 84 (each field is its own 4-byte access: spec/lowering.md §9.3).
#[test]
fn float4_fields_at_real_addresses() {
    if !have_clang("float4_fields_at_real_addresses") {
        return;
    }
    let cp = read("float4.cu");
    let p = lower(&cp, "fields", &launch32());
    assert_eq!(p.array("v").map(|a| a.elem_bytes), Some(4));
    let metrics = [Metric::standard(MetricName::Sectors)];
    let run = run_kernel(
        &p,
        &metrics,
        &Hardware::default(),
        &launch32(),
        &Params::new(),
        &Inputs::random(7),
    )
    .expect("runs");
    let m = run.metric(MetricName::Sectors).expect("sectors");
    assert_eq!(
        m.max_per_warp,
        num_rational::BigRational::from_integer(84.into())
    );
}

/// A record local copied from and to an array of records: after the kernel, pair `i` is
/// `(b, 2a)` of its input `(a, b)` (the C code, transcribed by hand).
#[test]
fn record_locals_are_scalarized() {
    if !have_clang("record_locals_are_scalarized") {
        return;
    }
    let cp = read("records.cu");
    let p = lower(&cp, "swap_pairs", &launch32());
    let input: Vec<i64> = (0..64).map(|k| 3 * k + 1).collect();
    let inputs = Inputs::zero().with_array(
        "p",
        ArrayInit::Values(input.iter().map(|&x| Value::Int(x)).collect()),
    );
    let metrics = [Metric::standard(MetricName::Steps)];
    let run = run_kernel(
        &p,
        &metrics,
        &Hardware::default(),
        &launch32(),
        &Params::new(),
        &inputs,
    )
    .expect("runs");
    for i in 0..32i64 {
        let (a, b) = (input[2 * i as usize], input[2 * i as usize + 1]);
        assert_eq!(
            run.memory.read("p", 2 * i),
            Some(Value::Int(b)),
            "pair {i}.a"
        );
        assert_eq!(
            run.memory.read("p", 2 * i + 1),
            Some(Value::Int(2 * a)),
            "pair {i}.b"
        );
    }
}

/// A block's cooperative group: `sync()` is a barrier, `thread_rank()` the linear thread
/// index, `size()` the block size; `SharedMemory<float>()` is a dynamic shared array.
/// With `a[k] = k`, thread 0 stores `s[0] + s[31] = 31`.
#[test]
fn cooperative_groups_of_a_block() {
    if !have_clang("cooperative_groups_of_a_block") {
        return;
    }
    let cp = read("groups.cu");
    let p = lower(&cp, "sum", &launch32());
    assert!(contains_sync(&p.body), "{p}");
    let inputs = Inputs::zero().with_array(
        "a",
        ArrayInit::Values((0..32).map(|k| Value::Float(k as f64)).collect()),
    );
    let metrics = [Metric::standard(MetricName::Steps)];
    let run = run_kernel(
        &p,
        &metrics,
        &Hardware::default(),
        &launch32(),
        &Params::new(),
        &inputs,
    )
    .expect("runs");
    assert_eq!(run.memory.read("a", 0), Some(Value::Float(31.0)));
}

/// A `thread_group` parameter bound to the block in one call and to a warp tile of 8 lanes
/// in another (spec/lowering.md §9.5): two specializations of the function, and the
/// lock-step run of one warp computes as by hand: the block's sum of ranks 0..31 is 496
/// (out[0]); tile `k` (ranks 8k..8k+7) sums to 64k + 28 (out[1 + k]).
#[test]
fn thread_group_parameters_take_the_block_or_a_warp_tile() {
    if !have_clang("thread_group_parameters_take_the_block_or_a_warp_tile") {
        return;
    }
    let cp = read("group_params.cu");
    let launch = launch32();
    let p = lower(&cp, "sums", &launch);
    assert!(
        p.body.to_string().contains("% 8"),
        "the tile's thread_rank is the rank mod 8: {p}"
    );
    let run = run_kernel(
        &p,
        &[Metric::standard(MetricName::Steps)],
        &Hardware::default(),
        &launch,
        &Params::new(),
        &Inputs::zero(),
    )
    .expect("runs");
    assert_eq!(run.memory.read("out", 0), Some(Value::Int(496)));
    for k in 0..4 {
        assert_eq!(
            run.memory.read("out", 1 + k),
            Some(Value::Int(64 * k + 28)),
            "tile {k}"
        );
    }
}

/// A shuffle lowers to the core's warp statement (spec/lowering.md §9.5), with the
/// location of the call.
#[test]
fn shuffle_lowers_to_a_warp_statement() {
    if !have_clang("shuffle_lowers_to_a_warp_statement") {
        return;
    }
    let cp = read("shuffle.cu");
    let inst = &cp.instances[0];
    let (p, _) = clang::lower(
        &cp,
        inst,
        &launch32(),
        &Hardware::default(),
        &BTreeMap::new(),
    )
    .unwrap_or_else(|d| panic!("{d}"));
    let (op, loc) = p.body.first_warp_op().expect("a warp statement");
    assert!(p.body.to_string().contains("shfl_down<32>"), "{}", p.body);
    assert!(op.operands().len() == 2, "{op:?}");
    assert_eq!(loc.line, 5);
}

/// A missing header: the error names it and says which option to give.
#[test]
fn missing_header_is_named() {
    if !have_clang("missing_header_is_named") {
        return;
    }
    let e = clang::parse_file(&data("missing_header.cu"), &ClangOptions::default(), None)
        .expect_err("missing");
    assert!(
        e.message.contains("`not_a_header_anyone_has.h` not found"),
        "{e}"
    );
    assert!(e.message.contains("-I DIR"), "{e}");
    assert_eq!(e.line, 1);
}

fn warpcert(args: &[&str], clang_env: Option<&str>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_warpcert"));
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
    if let Some(v) = clang_env {
        c.env("WARPCERT_CLANG", v);
    }
    c.output().expect("runs")
}

/// `warpcert analyze FILE --kernel K --metric M` on one warp (`--block 32 --grid 1`) with
/// the clang front end; its standard output, after asserting that it succeeded.
fn analyze_one_warp(file: &str, kernel: &str, metric: &str) -> String {
    let args = [
        "analyze",
        file,
        "--kernel",
        kernel,
        "--metric",
        metric,
        "--block",
        "32",
        "--grid",
        "1",
        "--frontend",
        "clang",
    ];
    let o = warpcert(&args, None);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{text}");
    text
}

/// Without clang, `--frontend auto` reads with the builtin front end and `--frontend clang`
/// says how to get clang (exit 2). Runs whether or not clang is installed.
#[test]
fn no_clang_path() {
    let nowhere = "/nonexistent/warpcert-no-clang";
    let o = warpcert(
        &[
            "analyze",
            "examples/vector_add.cu",
            "--metric",
            "steps",
            "--frontend",
            "auto",
        ],
        Some(nowhere),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = warpcert(
        &[
            "analyze",
            "examples/vector_add.cu",
            "--metric",
            "steps",
            "--frontend",
            "clang",
        ],
        Some(nowhere),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cannot run clang"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `analyze` without `--kernel` bounds every kernel of the file: one result per instance
/// in the JSON output.
#[test]
fn analyze_every_kernel() {
    if !have_clang("analyze_every_kernel") {
        return;
    }
    let o = warpcert(
        &[
            "analyze",
            "tests/data/clang/templates.cu",
            "--metric",
            "steps",
            "--frontend",
            "clang",
            "--format",
            "json",
        ],
        None,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let kernels: Vec<&str> = v
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|r| r.get("kernel").and_then(|k| k.as_str()))
        .collect();
    assert_eq!(kernels, ["scale<float,128>", "scale<int,64>", "plain"]);
}

/// Runs `p` on one warp of 32 threads with `inputs`, returning the run.
fn run32(p: &Program, metric: MetricName, inputs: &Inputs) -> warpcert::semantics::run::KernelRun {
    run_kernel(
        p,
        &[Metric::standard(metric)],
        &Hardware::default(),
        &launch32(),
        &Params::new(),
        inputs,
    )
    .expect("runs")
}

fn ramp(name: &str, n: i64, float: bool) -> Inputs {
    let v = (0..n)
        .map(|k| {
            if float {
                Value::Float(k as f64)
            } else {
                Value::Int(k)
            }
        })
        .collect();
    Inputs::zero().with_array(name, ArrayInit::Values(v))
}

/// `p += 32` in a loop (`pointers.cu`): with `a[k] = k` lane `t` sums `a[t + 32j]`,
/// `j < 4`, = `4t + 192` (the C code by hand); sectors per warp 4·4 reads + 4 for the
/// write = 20 (each access 32 consecutive aligned floats = 4 sectors of 32 bytes), both by
/// the semantics and as the checked bound.
#[test]
fn pointer_moved_in_a_loop() {
    if !have_clang("pointer_moved_in_a_loop") {
        return;
    }
    let cp = read("pointers.cu");
    let p = lower(&cp, "strided_walk", &launch32());
    let run = run32(&p, MetricName::Sectors, &ramp("a", 128, true));
    for t in 0..32i64 {
        assert_eq!(
            run.memory.read("out", t),
            Some(Value::Float((4 * t + 192) as f64)),
            "lane {t}"
        );
    }
    let m = run.metric(MetricName::Sectors).expect("sectors");
    assert_eq!(
        m.max_per_warp,
        num_rational::BigRational::from_integer(20.into())
    );
    let text = analyze_one_warp("tests/data/clang/pointers.cu", "strided_walk", "sectors");
    assert!(text.contains("accepted by the kernel (bound 20)"), "{text}");
}

/// A moved parameter, `*q++` as a value, a pointer comparison and a difference: with
/// `src[k] = k` lane `t` stores `2t + (2t + 1) + 2 = 4t + 3` at `dst[t]` (by hand).
#[test]
fn pointer_post_increment_compare_difference() {
    if !have_clang("pointer_post_increment_compare_difference") {
        return;
    }
    let cp = read("pointers.cu");
    let p = lower(&cp, "post_increment", &launch32());
    let run = run32(&p, MetricName::Steps, &ramp("src", 64, false));
    for t in 0..32i64 {
        assert_eq!(
            run.memory.read("dst", t),
            Some(Value::Int(4 * t + 3)),
            "lane {t}"
        );
    }
}

/// A pointer whose array depends on a branch is a located error naming both arrays.
#[test]
fn pointer_array_depending_on_control_flow_is_an_error() {
    if !have_clang("pointer_array_depending_on_control_flow_is_an_error") {
        return;
    }
    let cp = read("pointers.cu");
    let inst = cp
        .instances
        .iter()
        .find(|i| i.display == "which_array")
        .expect("kernel");
    let e = clang::lower(
        &cp,
        inst,
        &launch32(),
        &Hardware::default(),
        &BTreeMap::new(),
    )
    .expect_err("not expressible");
    assert!(e.message.contains("points into `a`"), "{e}");
    assert!(e.message.contains("pointer into `b`"), "{e}");
    assert_eq!(e.line, 38, "{e}");
}

/// An atomic whose value is used, on distinct cells (`atomics.cu`): with `a[k] = k` lane
/// `t` gets the old value `t` and leaves `a[t] = t + 5` (CUDA's result: no two lanes share
/// a cell, so every order of the lanes gives it).
#[test]
fn atomic_value_on_distinct_cells() {
    if !have_clang("atomic_value_on_distinct_cells") {
        return;
    }
    let cp = read("atomics.cu");
    let p = lower(&cp, "fetch_add", &launch32());
    let run = run32(&p, MetricName::Steps, &ramp("a", 32, false));
    for t in 0..32i64 {
        assert_eq!(
            run.memory.read("out", t),
            Some(Value::Int(t)),
            "old of lane {t}"
        );
        assert_eq!(run.memory.read("a", t), Some(Value::Int(t + 5)), "a[{t}]");
    }
}

/// One counter for the warp: on the hardware the lanes receive 0…31, so `old < 4` splits
/// the warp. The lock-step run gives every lane the same old value (no divergence), but the
/// checked `divwarps` bound is 1 per warp: the bound holds for every order of the lanes.
#[test]
fn atomic_value_bound_holds_for_every_lane_order() {
    if !have_clang("atomic_value_bound_holds_for_every_lane_order") {
        return;
    }
    let text = analyze_one_warp("tests/data/clang/atomics.cu", "ticket", "divwarps");
    assert!(text.contains("accepted by the kernel (bound 1)"), "{text}");
}

/// Record-valued functions and operators are scalarized (`record_calls.cu`): with the float
/// view `v[j] = j`, `out[i] = (8i + 128, 8i + 132)` (derived by hand in the file); sectors
/// per warp: six field reads and two field writes of 32 lanes at a stride of 8 bytes, 8
/// sectors each = 64, by the semantics.
#[test]
fn record_valued_functions_and_operators() {
    if !have_clang("record_valued_functions_and_operators") {
        return;
    }
    let cp = read("record_calls.cu");
    let p = lower(&cp, "combine", &launch32());
    let run = run32(&p, MetricName::Sectors, &ramp("v", 128, true));
    for i in 0..32i64 {
        assert_eq!(
            run.memory.read("out", 2 * i),
            Some(Value::Float((8 * i + 128) as f64)),
            "out[{i}].x"
        );
        assert_eq!(
            run.memory.read("out", 2 * i + 1),
            Some(Value::Float((8 * i + 132) as f64)),
            "out[{i}].y"
        );
    }
    let m = run.metric(MetricName::Sectors).expect("sectors");
    assert_eq!(
        m.max_per_warp,
        num_rational::BigRational::from_integer(64.into())
    );
    let inst = cp
        .instances
        .iter()
        .find(|i| i.display == "in_condition")
        .expect("kernel");
    let e = clang::lower(
        &cp,
        inst,
        &launch32(),
        &Hardware::default(),
        &BTreeMap::new(),
    )
    .expect_err("a record-valued call in a loop condition");
    assert!(
        e.message
            .contains("record-valued call in a loop's condition"),
        "{e}"
    );
    assert_eq!(e.line, 29, "{e}");
}

/// Reference parameters bound to array cells (`pointers.cu`, `sort_pairs`): with
/// `v[k] = 63 - k` every pair is swapped, so `v[k] = 62 - k` (even `k`), `64 - k` (odd `k`),
/// derived by hand in the file.
#[test]
fn references_to_array_cells() {
    if !have_clang("references_to_array_cells") {
        return;
    }
    let cp = read("pointers.cu");
    let p = lower(&cp, "sort_pairs", &launch32());
    let v = (0..64).map(|k| Value::Int(63 - k)).collect();
    let run = run32(
        &p,
        MetricName::Steps,
        &Inputs::zero().with_array("v", ArrayInit::Values(v)),
    );
    for k in 0..64i64 {
        let want = if k % 2 == 0 { 62 - k } else { 64 - k };
        assert_eq!(run.memory.read("v", k), Some(Value::Int(want)), "v[{k}]");
    }
}

/// Half-precision intrinsics, constructors, operators and `clock()` are opaque operations
/// (spec/lowering.md §9.4): the kernels lower and their sector bounds are the hand-derived
/// counts of the comments in `half_clock.cu` (36 and 5 sectors per warp), which the
/// executable semantics also gives (`warpcert run`).
#[test]
fn half_precision_and_clock_are_opaque() {
    if !have_clang("half_precision_and_clock_are_opaque") {
        return;
    }
    let f = data("half_clock.cu");
    let f = f.to_str().expect("utf-8 path");
    for (kernel, want) in [("halves", 36), ("timed", 5)] {
        let out = analyze_one_warp(f, kernel, "sectors");
        assert!(
            out.contains(&format!("per warp  ≤ {want}\n"))
                || out.contains(&format!("per warp  = {want}\n")),
            "{kernel}: {out}"
        );
        assert!(out.contains("accepted by the kernel"), "{kernel}: {out}");
    }
}
