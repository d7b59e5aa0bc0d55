//! Local lambdas, `switch`, thread-local array initializers, `memcpy` into records and
//! record shuffles on warp tiles in the clang front end (`spec/lowering.md` §9.8), on the
//! kernels of `tests/data/clang/lambdas.cu` and `lambda_errors.cu`. Expected values are
//! derived by hand in the kernels' comments and compared with the lock-step semantics;
//! the located errors name the construct and its line. Every test skips, saying so, when
//! clang is not installed.

use num_rational::BigRational;
use std::collections::BTreeMap;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
use warpcert::frontend::clang::{self, ClangOptions, ClangParsed};
use warpcert::semantics::run::{run_kernel, KernelRun, Params};
use warpcert::semantics::store::{ArrayInit, Inputs};
use warpcert::semantics::value::Value;

mod common;

use common::clang::{data, have_clang, read};

fn launch(bx: u32) -> Launch {
    Launch {
        block: [bx, 1, 1],
        grid: Some([1, 1, 1]),
    }
}

fn lower(cp: &ClangParsed, kernel: &str, l: &Launch) -> Program {
    let inst = cp
        .instances
        .iter()
        .find(|i| i.display == kernel)
        .unwrap_or_else(|| panic!("no kernel {kernel}"));
    clang::lower(cp, inst, l, &Hardware::default(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}"))
        .0
}

fn run(p: &Program, bx: u32, inputs: &Inputs) -> KernelRun {
    let metrics: Vec<Metric> = [
        MetricName::Sectors,
        MetricName::Conflicts,
        MetricName::Divwarps,
        MetricName::Steps,
    ]
    .into_iter()
    .map(Metric::standard)
    .collect();
    run_kernel(
        p,
        &metrics,
        &Hardware::default(),
        &launch(bx),
        &Params::new(),
        inputs,
    )
    .expect("runs")
}

fn ints(run: &KernelRun, array: &str, n: i64) -> Vec<i64> {
    (0..n)
        .map(|k| match run.memory.read(array, k) {
            Some(Value::Int(v)) => v,
            other => panic!("{array}[{k}] = {other:?}"),
        })
        .collect()
}

fn per_warp(run: &KernelRun, m: MetricName) -> BigRational {
    run.metric(m).expect("metric").max_per_warp.clone()
}

/// Captures by reference, by value (copied at the declaration) and `mutable` by value:
/// the values of the kernels' comments for each of 32 lanes. Sectors by hand: each kernel
/// stores one `int` per lane to consecutive addresses, 128 bytes = 4 sectors, and reads
/// nothing from global memory.
#[test]
fn captures_by_reference_and_by_value() {
    if !have_clang("captures_by_reference_and_by_value") {
        return;
    }
    let cp = read("lambdas.cu");
    type Expected = fn(i64) -> i64;
    let want: [(&str, Expected); 3] = [
        ("lam_ref", |t| 3 * t),
        ("lam_value", |t| 10 * t + 1 + 1000),
        ("lam_mutable", |t| 102 * t + 102),
    ];
    for (kernel, f) in want {
        let p = lower(&cp, kernel, &launch(32));
        let r = run(&p, 32, &Inputs::zero());
        let got = ints(&r, "out", 32);
        let expect: Vec<i64> = (0..32).map(f).collect();
        assert_eq!(got, expect, "{kernel}");
        assert_eq!(
            per_warp(&r, MetricName::Sectors),
            BigRational::from_integer(4.into()),
            "{kernel}"
        );
    }
}

/// A lambda in a device function (pointer captured by value, default argument, an
/// uncaptured constant), `[&]` over a thread-local array, the block and a tile, and a
/// lambda declared in a loop: `out[t] = 6t + 38` with `a[k] = k` (by hand, in the kernel's
/// comment).
#[test]
fn lambdas_in_functions_loops_and_over_groups() {
    if !have_clang("lambdas_in_functions_loops_and_over_groups") {
        return;
    }
    let cp = read("lambdas.cu");
    let p = lower(&cp, "nested", &launch(32));
    let a: Vec<Value> = (0..32).map(Value::Int).collect();
    let r = run(
        &p,
        32,
        &Inputs::zero().with_array("a", ArrayInit::Values(a)),
    );
    let want: Vec<i64> = (0..32).map(|t| 6 * t + 38).collect();
    assert_eq!(ints(&r, "out", 32), want);
}

/// A record-valued lambda with a `switch` and `return {}`: with the int view `in[k] = k`
/// lane `t` stores the field values of the kernel's comment (zero when no case matches).
#[test]
fn record_lambda_with_switch_and_zero_return() {
    if !have_clang("record_lambda_with_switch_and_zero_return") {
        return;
    }
    let cp = read("lambdas.cu");
    let p = lower(&cp, "pick", &launch(32));
    let input: Vec<Value> = (0..256).map(Value::Int).collect();
    let r = run(
        &p,
        32,
        &Inputs::zero().with_array("in", ArrayInit::Values(input)),
    );
    let got = ints(&r, "out", 128);
    for t in 0..32i64 {
        let base = match t % 4 {
            0 => Some(4 * t),
            1 | 2 => Some(4 * t + 128),
            _ => None,
        };
        for j in 0..4 {
            let want = base.map_or(0, |b| b + j);
            assert_eq!(got[(4 * t + j) as usize], want, "out[{t}] field {j}");
        }
    }
}

/// Fall-through between cases, `break`, and a `default` in the middle of the chain: the
/// values of the kernel's comment (11, 10, 1100, 1000 by `t % 4`). Divergent branches by
/// hand: every lane class takes a different path through the chain of §9.8 (`t%4 == 0`,
/// `== 1`, `== 2`, else), so the warp diverges at the first two tests of the chain
/// (`t%4 == 0` holds for some lanes only, `== 1` for some of the rest) and at the third
/// (`== 2`); the semantics counts these 3 divergent branches.
#[test]
fn switch_fall_through() {
    if !have_clang("switch_fall_through") {
        return;
    }
    let cp = read("lambdas.cu");
    let p = lower(&cp, "fall", &launch(32));
    let r = run(&p, 32, &Inputs::zero());
    let want: Vec<i64> = (0..32)
        .map(|t| [11, 10, 1100, 1000][(t % 4) as usize])
        .collect();
    assert_eq!(ints(&r, "a", 32), want);
    assert_eq!(
        per_warp(&r, MetricName::Divwarps),
        BigRational::from_integer(3.into())
    );
}

/// An initialized thread-local array, `memcpy` into `uint4`s, a tile shuffle of a `uint4`
/// and `meta_group_rank()` on a block of 64: `out[t] = (t ^ 1, 7, 5 + t / 32, 0)` (by hand, in
/// the kernel's comment).
#[test]
fn array_initializer_memcpy_and_record_shuffle() {
    if !have_clang("array_initializer_memcpy_and_record_shuffle") {
        return;
    }
    let cp = read("lambdas.cu");
    let p = lower(&cp, "packed", &launch(64));
    let r = run(&p, 64, &Inputs::zero());
    let got = ints(&r, "out", 256);
    for t in 0..64i64 {
        assert_eq!(
            &got[(4 * t) as usize..(4 * t + 4) as usize],
            &[t ^ 1, 7, 5 + t / 32, 0],
            "out[{t}]"
        );
    }
}

/// A `__shared__` array the lambda names without capturing it: the values and conflicts of
/// the kernel's comment on a block of 64 (two warps).
#[test]
fn lambda_names_a_shared_array() {
    if !have_clang("lambda_names_a_shared_array") {
        return;
    }
    let cp = read("lambdas.cu");
    let p = lower(&cp, "lam_shared", &launch(64));
    let r = run(&p, 64, &Inputs::zero());
    let want: Vec<i64> = (0..64).map(|t| 2 * (t ^ 1) + 1).collect();
    assert_eq!(ints(&r, "out", 64), want);
    assert_eq!(
        per_warp(&r, MetricName::Conflicts),
        BigRational::from_integer(0.into())
    );
}

/// `lam_ref`'s checked sectors bound is the hand count 4 (one coalesced 128-byte store),
/// and `analyze` on the whole file succeeds with every kernel's certificates accepted.
#[test]
fn lambda_kernels_get_checked_bounds() {
    if !have_clang("lambda_kernels_get_checked_bounds") {
        return;
    }
    let f = data("lambdas.cu");
    let f = f.to_str().expect("utf-8 path");
    let out = common::warpcert_stdout(&[
        "analyze",
        f,
        "--kernel",
        "lam_ref",
        "--metric",
        "sectors",
        "--block",
        "32",
        "--grid",
        "1",
        "--frontend",
        "clang",
    ]);
    assert!(out.contains("accepted by the kernel (bound 4)"), "{out}");
    let (ok, text) = common::warpcert_output(&[
        "analyze",
        f,
        "--block",
        "32",
        "--grid",
        "1",
        "--frontend",
        "clang",
    ]);
    assert!(ok, "{text}");
    assert!(!text.contains("error"), "{text}");
    assert_eq!(
        // one upper certificate per kernel and metric (a lower-bound certificate line says
        // "lower-bound certificate (warp W): accepted …")
        text.matches("certificate: accepted by the kernel").count(),
        8 * 4,
        "{text}"
    );
}

/// Unsupported forms are located errors naming the construct (`lambda_errors.cu`).
#[test]
fn unsupported_lambda_and_switch_forms_are_located_errors() {
    if !have_clang("unsupported_lambda_and_switch_forms_are_located_errors") {
        return;
    }
    let cp = read("lambda_errors.cu");
    let cases = [
        ("generic", 7, "generic lambda `id`"),
        ("escapes", 14, "a lambda copied or passed to a function"),
        ("init_capture", 19, "init-capture of lambda `f`"),
        (
            "mid_break",
            28,
            "`break` inside a `switch` other than as the last statement",
        ),
        (
            "shadowed",
            39,
            "captures `s` by reference, and the function declares more than one variable named `s`",
        ),
    ];
    for (kernel, line, msg) in cases {
        let inst = cp
            .instances
            .iter()
            .find(|i| i.display == kernel)
            .unwrap_or_else(|| panic!("no kernel {kernel}"));
        let e = clang::lower(
            &cp,
            inst,
            &launch(32),
            &Hardware::default(),
            &BTreeMap::new(),
        )
        .expect_err(kernel);
        assert!(e.message.contains(msg), "{kernel}: {e}");
        assert_eq!(e.line, line, "{kernel}: {e}");
    }
}

/// `--extra-arg ARG` reaches clang: a `-D` given through it changes the lowered program
/// (`extra_arg.cu`: 4 sectors per warp by default, 12 with `-DREPS=3`, by hand), in both
/// spellings `--extra-arg=ARG` and `--extra-arg ARG`, and `--help` documents it.
#[test]
fn extra_arg_reaches_clang() {
    if !have_clang("extra_arg_reaches_clang") {
        return;
    }
    let f = data("extra_arg.cu");
    let f = f.to_str().expect("utf-8 path");
    let base = [
        "analyze",
        f,
        "--metric",
        "sectors",
        "--block",
        "32",
        "--grid",
        "1",
        "--frontend",
        "clang",
    ];
    let plain = common::warpcert_stdout(&base);
    assert!(
        plain.contains("accepted by the kernel (bound 4)"),
        "{plain}"
    );
    for extra in [
        &["--extra-arg=-DREPS=3"][..],
        &["--extra-arg", "-DREPS=3"][..],
    ] {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let out = common::warpcert_stdout(&args);
        assert!(
            out.contains("accepted by the kernel (bound 12)"),
            "{extra:?}: {out}"
        );
    }
    let opts = ClangOptions {
        extra_args: vec!["-DREPS=3".into()],
        ..Default::default()
    };
    let cp =
        clang::parse_file(&data("extra_arg.cu"), &opts, None).unwrap_or_else(|d| panic!("{d}"));
    let p = lower(&cp, "stores", &launch(32));
    let r = run(&p, 32, &Inputs::zero());
    assert_eq!(
        per_warp(&r, MetricName::Sectors),
        BigRational::from_integer(12.into())
    );
    let help = common::warpcert_stdout(&["analyze", "--help"]);
    assert!(help.contains("--extra-arg <ARG>"), "{help}");
}

/// For every kernel of `lambdas.cu`, each metric's checked per-warp bound (`analyze
/// --format json` on one block) is at least the cost the lock-step semantics gives the
/// block's costliest warp on the inputs of the tests above (soundness on these runs).
#[test]
fn checked_bounds_cover_the_semantics() {
    if !have_clang("checked_bounds_cover_the_semantics") {
        return;
    }
    let f = data("lambdas.cu");
    let f = f.to_str().expect("utf-8 path");
    let cp = read("lambdas.cu");
    let ramp: Vec<Value> = (0..256).map(Value::Int).collect();
    let kernels = [
        ("lam_ref", 32),
        ("lam_value", 32),
        ("lam_mutable", 32),
        ("pick", 32),
        ("fall", 32),
        ("packed", 64),
        ("nested", 32),
    ];
    for (kernel, bx) in kernels {
        let p = lower(&cp, kernel, &launch(bx));
        let inputs = if kernel == "pick" {
            Inputs::zero().with_array("in", ArrayInit::Values(ramp.clone()))
        } else if kernel == "nested" {
            Inputs::zero().with_array("a", ArrayInit::Values(ramp.clone()))
        } else {
            Inputs::zero()
        };
        let r = run(&p, bx, &inputs);
        let block = bx.to_string();
        let out = common::warpcert_stdout(&[
            "analyze",
            f,
            "--kernel",
            kernel,
            "--block",
            &block,
            "--grid",
            "1",
            "--format",
            "json",
            "--frontend",
            "clang",
        ]);
        let rows: serde_json::Value = serde_json::from_str(&out).expect("json");
        let rows = rows.as_array().expect("one row per metric");
        assert_eq!(rows.len(), 4, "{kernel}: {out}");
        for row in rows {
            let metric = row["metric"].as_str().expect("metric");
            let name = match metric {
                "sectors" => MetricName::Sectors,
                "conflicts" => MetricName::Conflicts,
                "divwarps" => MetricName::Divwarps,
                _ => MetricName::Steps,
            };
            let bound: BigRational = row["per_warp"]
                .as_str()
                .and_then(|b| b.parse().ok())
                .unwrap_or_else(|| panic!("{kernel} {metric}: per_warp {}", row["per_warp"]));
            let cost = per_warp(&r, name);
            assert!(
                bound >= cost,
                "{kernel} {metric}: bound {bound} < cost {cost}"
            );
        }
    }
}
