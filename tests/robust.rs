//! Issue 18, "Robust on any input": one test per row of the table. Each input ends
//! under a 2 GB address-space limit (`ulimit -v` in the child's shell) with exit 0, 1 or 2,
//! no panic and no signal, and no bound is printed beside a rejected certificate. A child
//! that has not ended after [`HANG_GUARD`] is killed and fails its test as a hang; how fast
//! an input ends is measured by the benchmarks (`warpcert bench`, README "Performance"), not
//! here.
//! Big inputs are generated here, not committed. The expected outcomes come from CUDA's
//! documented limits (CUDA C Programming Guide, compute capabilities table), C11 §6.10.3.4
//! (macro rescanning) and the README's exit codes and limits.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The hang guard: a child still running after this long is taken to hang, killed, and
/// fails its test. It is not a speed test (the project measures speed in benchmarks, not in
/// timed tests): it is ten times the 60 s limit it replaces, which a merely slow child once
/// hit under load on the 2-core CI. A real hang still fails here; a crash, a panic, a signal
/// (an abort at the address-space limit among them) or an exit code other than 0, 1 or 2
/// fails at once in [`run_kib`], whatever the time.
const HANG_GUARD: Duration = Duration::from_secs(600);
const TWO_GB_KIB: u64 = 2 * 1024 * 1024;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example(name: &str) -> PathBuf {
    root().join("examples").join(name)
}

/// A scratch directory for generated inputs.
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpcert-robust-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write input");
    p
}

/// `__global__ void k(int *a, int n) { BODY }` with an optional header line.
fn kernel(header: &str, body: &str) -> String {
    format!("{header}__global__ void k(int *a, int n) {{\n{body}\n}}\n")
}

/// The warpcert binary run through `sh` with `ulimit -v KIB`.
fn limited(kib: u64, args: &[&str]) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_warpcert"))
        .args(args);
    c
}

/// Reads a child's pipe on a thread (a full pipe would block the child).
fn drain(r: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut r) = r {
            let _ = r.read_to_end(&mut buf);
        }
        buf
    })
}

/// Waits for `child` at most [`HANG_GUARD`], reading its output meanwhile; after that kills
/// it and fails the test as a hang.
fn finish(mut child: Child, what: &str) -> Output {
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > HANG_GUARD => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "{what}: hangs (still running after the {} s hang guard)",
                    HANG_GUARD.as_secs()
                );
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("{what}: {e}"),
        }
    }
    Output {
        status: child.wait().expect("status"),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// Runs warpcert under the 2 GB limit and checks the contract of every row: it ends (before
/// the [`HANG_GUARD`]) with exit 0, 1 or 2, by itself (no signal), without a panic, and
/// prints no bound beside a rejected certificate. Returns (exit code, stdout, stderr).
fn run_kib(kib: u64, args: &[&str]) -> (i32, String, String) {
    let what = args.join(" ");
    let child = limited(kib, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    let o = finish(child, &what);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let code = o.status.code();
    assert!(
        matches!(code, Some(0..=2)),
        "{what}: ended with {:?} (signal or unexpected code)\nstderr:\n{}",
        o.status,
        tail(&err)
    );
    assert!(!err.contains("panicked"), "{what}: panic\n{}", tail(&err));
    assert!(
        !(out.contains("REJECTED") && out.contains("per warp  ≤")),
        "{what}: a bound beside a rejection\n{out}"
    );
    (code.unwrap_or(-1), out, err)
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_kib(TWO_GB_KIB, args)
}

fn tail(s: &str) -> &str {
    let n = s.len();
    s.get(n.saturating_sub(2000)..).unwrap_or(s)
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

#[test]
fn largest_cuda_launch_counts_warps_exactly() {
    let dir = scratch("launch");
    // 1024 threads = 32 warps per block, (2³¹−1)·65535² blocks: more than u64 holds.
    let warps = 32u128 * 2147483647 * 65535 * 65535;
    let va = example("vector_add.cu");
    let flags = [
        "analyze",
        p(&va),
        "--metric",
        "sectors",
        "--block",
        "1024",
        "--grid",
        "2147483647,65535,65535",
    ];
    let header = kernel(
        "//--blockDim=[1024] --gridDim=[2147483647,65535,65535]\n",
        "a[threadIdx.x] = 1;",
    );
    let h = write(&dir, "large_header.cu", &header);
    for args in [&flags[..], &["analyze", p(&h), "--metric", "sectors"][..]] {
        let (code, out, err) = run(args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("warps     = {warps}")), "{out}");
    }
}

#[test]
fn deep_and_exponential_expressions_are_located_limit_errors() {
    let dir = scratch("deep");
    let sum = kernel("", &format!("a[0] = {};", vec!["1"; 128_000].join("+")));
    let mut doubling = String::from("#define A0 1\n");
    for k in 1..=20 {
        doubling.push_str(&format!("#define A{k} A{}+A{}\n", k - 1, k - 1));
    }
    let doubling = doubling + &kernel("", "a[0] = A20;");
    let nested = format!(
        "#define A(x) (x+x)\n{}",
        kernel(
            "",
            &format!("a[0] = {}1{};", "A(".repeat(24), ")".repeat(24))
        )
    );
    for (name, text, says) in [
        ("sum.cu", sum, "limit of 1000 levels"),
        ("doubling.cu", doubling, "macro `A20`"),
        ("nested.cu", nested, "macro `A`"),
    ] {
        let f = write(&dir, name, &text);
        let (code, _, err) = run(&["analyze", p(&f), "--metric", "steps"]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}:")),
            "{name}: not located: {err}"
        );
    }
}

#[test]
fn sum_of_400_reads_ends_with_a_bound_or_a_resource_failure() {
    let dir = scratch("reads");
    let reads: Vec<String> = (1..=400).map(|i| format!("a[{i}]")).collect();
    let f = write(
        &dir,
        "reads.cu",
        &kernel("", &format!("a[0] = {};", reads.join("+"))),
    );
    let (code, out, err) = run(&["analyze", p(&f), "--metric", "sectors"]);
    // The analysis' memory grows with temporaries × nodes (issue 18 report); under 2 GB it
    // either finds the bound (401 sectors: 400 reads and one write, one sector each) or
    // reports a resource failure, never an abort or a rejection.
    match code {
        // straight-line: the lower-bound certificate (spec/logic.md §4b) makes it exact
        0 => assert!(out.contains("per warp  = 401"), "{out}"),
        1 => assert!(
            err.contains("resource failure") || out.contains("resource failure"),
            "{out}\n{err}"
        ),
        _ => panic!("exit {code}: {err}"),
    }
}

/// A sequence of 2 500 statements (7 500 lowered ones, beyond the 1 000-level nesting
/// limit) is not nesting (issue 13: every stage walks sequences as lists), so it is
/// analysed; the bound must be the cost the executable semantics (the oracle) measures for
/// the warp: the statements are straight-line, so the bound is exact. (10 000 statements
/// are measured by `warpcert bench --scaling`; a debug build would be slow here.)
#[test]
fn long_sequences_get_a_checked_bound_equal_to_the_semantics() {
    let dir = scratch("stmts");
    let body: Vec<String> = (0..2_500)
        .map(|i| format!("a[threadIdx.x] = a[{i}] + {i};"))
        .collect();
    let f = write(&dir, "stmts.cu", &kernel("", &body.join("\n")));
    let (code, out, err) = run(&["analyze", p(&f), "--metric", "steps"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("accepted by the kernel"), "{out}");
    let (code, ran, err) = run(&["run", p(&f), "--metric", "steps", "--param", "n=1"]);
    assert_eq!(code, 0, "{err}");
    let max = ran
        .split_whitespace()
        .skip_while(|w| *w != "warp")
        .nth(1)
        .unwrap_or_else(|| panic!("no per-warp maximum in {ran}"));
    // exact both ways: a lower-bound certificate (spec/logic.md §4b) backs the `=`
    assert!(
        out.contains(&format!("per warp  = {max}\n")),
        "{out}\n{ran}"
    );
}

#[test]
fn blocks_beyond_cuda_limits_are_bad_input() {
    let va = example("vector_add.cu");
    for (block, says) in [
        (
            "2147483648",
            "blockDim.x = 2147483648 exceeds CUDA's limit of 1024",
        ),
        ("4294967295", "blockDim.x = 4294967295"),
        (
            "1024,1024,64",
            "67108864 threads exceeds CUDA's limit of 1024",
        ),
        ("0", "must be positive"),
    ] {
        let (code, _, err) = run(&["analyze", p(&va), "--block", block]);
        assert_eq!(code, 2, "--block {block}: {err}");
        assert!(err.contains(says), "--block {block}: {err}");
    }
    let (code, _, err) = run(&["analyze", p(&va), "--grid", "2147483648"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("gridDim.x"), "{err}");
}

#[test]
fn long_runs_stop_at_the_timeout_and_steps_are_honoured() {
    let va = example("vector_add.cu");
    let (code, _, err) = run(&[
        "run",
        p(&va),
        "--grid",
        "1000000",
        "--param",
        "len=5000",
        "--timeout",
        "5",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("timed out after 5 s"), "{err}");
    // lock-step, with and without --trace: 3 rule applications are not enough for one warp
    for trace in [false, true] {
        let mut args = vec!["run", p(&va), "--param", "len=5000", "--steps", "3"];
        if trace {
            args.push("--trace");
        }
        let (code, _, err) = run(&args);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("out of fuel after 3 rule applications"),
            "{err}"
        );
    }
}

/// Spawns warpcert with a stdout whose reader has gone (`| head -1` after the first line).
fn closed_stdout(args: &[&str], read_first_line: bool) -> Output {
    let mut child = limited(TWO_GB_KIB, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let out = child.stdout.take();
    if read_first_line {
        if let Some(o) = out {
            let mut line = String::new();
            let _ = BufReader::new(o).read_line(&mut line);
        }
    } else {
        drop(out);
    }
    finish(child, &args.join(" "))
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let dir = scratch("pipe");
    // a long trace: 2000 iterations of a loop
    let f = write(
        &dir,
        "loop.cu",
        &kernel("", "for (int i = 0; i < 2000; i++) { a[threadIdx.x] = i; }"),
    );
    let cases: [&[&str]; 3] = [
        &[
            "run",
            p(&f),
            "--trace",
            "--trace-lines",
            "100000",
            "--block",
            "32",
        ],
        &["bench", "--runs", "1", "--no-sim"],
        &["analyze", p(&f), "--metric", "all"],
    ];
    for args in cases {
        for first_line in [false, true] {
            let o = closed_stdout(args, first_line);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(
                matches!(o.status.code(), Some(0..=2)),
                "{args:?}: {:?} {err}",
                o.status
            );
        }
    }
}

#[test]
fn a_chain_of_65_object_like_macros_expands() {
    let dir = scratch("chain");
    let mut text = String::from("#define A0 1\n");
    for k in 1..=65 {
        text.push_str(&format!("#define A{k} A{}\n", k - 1));
    }
    let f = write(
        &dir,
        "chain.cu",
        &(text + &kernel("", "a[threadIdx.x] = A65;")),
    );
    let args = [
        "run",
        p(&f),
        "--block",
        "32",
        "--metric",
        "steps",
        "--param",
        "n=1",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    // `A65` became `1` (C11 §6.10.3.4 rescans to the end of the chain); an unexpanded
    // identifier would be exit 2
    assert!(out.contains("kernel k"), "{out}");
}

#[test]
fn malformed_launch_headers_are_bad_input_naming_the_header() {
    let dir = scratch("header");
    for (i, (h, says)) in [
        ("//--gridDim=[abc]\n", "`abc` is not a positive integer"),
        ("//--gridDim=[-3]\n", "`-3` is not a positive integer"),
        ("//--gridDim=[99999999999999999999]\n", "too large"),
        ("//--gridDim=[0]\n", "is 0"),
        ("//--blockDim=[0]\n", "is 0"),
        ("//--blockDim=[2048]\n", "2048 exceeds CUDA's limit of 1024"),
    ]
    .into_iter()
    .enumerate()
    {
        let f = write(&dir, &format!("h{i}.cu"), &kernel(h, "a[threadIdx.x] = 1;"));
        let (code, _, err) = run(&["analyze", p(&f), "--metric", "steps"]);
        assert_eq!(code, 2, "{h}: {err}");
        assert!(err.contains(says), "{h}: {err}");
        assert!(
            err.contains(&format!("h{i}.cu:1:3")),
            "{h}: not located: {err}"
        );
    }
    // --grid 0 on the command line, too
    let va = example("vector_add.cu");
    let (code, _, err) = run(&["analyze", p(&va), "--grid", "0"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn low_memory_is_a_resource_failure_not_a_rejection() {
    let va = example("vector_add.cu");
    for kib in [1024 * 1024, 512 * 1024] {
        let (code, out, err) = run_kib(kib, &["analyze", p(&va), "--metric", "sectors"]);
        assert!(!out.contains("REJECTED"), "{out}");
        if code != 0 {
            assert_eq!(code, 1, "{err}");
            let all = format!("{out}{err}");
            assert!(all.contains("resource failure"), "{all}");
        }
    }
}

#[test]
fn derive_honours_format_json() {
    let va = example("vector_add.cu");
    let (code, out, err) = run(&[
        "derive",
        p(&va),
        "--block",
        "32",
        "--metric",
        "steps",
        "--param",
        "len=4",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("derive JSON");
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["nodes"][0]["depth"], 0);
    assert!(v["nodes"].as_array().is_some_and(|n| n.len() > 1), "{out}");
}

#[test]
fn errors_under_format_json_are_objects_on_stdout_with_the_same_exit_code() {
    let dir = scratch("json");
    let bad = write(&dir, "bad.cu", &kernel("", "a[0] = ;"));
    let va = example("vector_add.cu");
    let cases: [Vec<&str>; 5] = [
        vec!["analyze", p(&bad)],
        vec!["analyze", "missing-file.cu"],
        vec!["run", p(&va), "--block", "4096"],
        vec!["derive", p(&bad)],
        vec!["check", "missing.cert"],
    ];
    for args in cases {
        let (text_code, _, text_err) = run(&args);
        let mut json_args = args.clone();
        json_args.extend(["--format", "json"]);
        let (code, out, _) = run(&json_args);
        assert_eq!(code, text_code, "{args:?}: {text_err}");
        assert_eq!(code, 2, "{args:?}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON error");
        for key in ["error", "file", "line", "column", "kind", "format_version"] {
            assert!(v.get(key).is_some(), "{args:?}: no `{key}` in {v}");
        }
    }
    // a syntax error is located: line 2 of the generated file, at `;`
    let (_, out, _) = run(&["analyze", p(&bad), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
    assert_eq!(
        (v["line"].as_u64(), v["kind"].as_str()),
        (Some(2), Some("syntax"))
    );
}

#[test]
fn analyze_and_run_use_the_same_types_for_the_same_fields() {
    let va = example("vector_add.cu");
    let common = ["--metric", "sectors", "--grid", "2", "--format", "json"];
    let mut a = vec!["analyze", p(&va)];
    a.extend(common);
    let mut r = vec!["run", p(&va), "--param", "len=100"];
    r.extend(common);
    let (ca, oa, _) = run(&a);
    let (cr, or, _) = run(&r);
    assert_eq!((ca, cr), (0, 0));
    let va: serde_json::Value = serde_json::from_str(&oa).expect("analyze JSON");
    let vr: serde_json::Value = serde_json::from_str(&or).expect("run JSON");
    for v in [&va[0], &vr[0]] {
        assert!(v["warps"].is_string(), "{v}");
        assert_eq!(v["warps"], "16"); // 256 threads = 8 warps per block, 2 blocks
        assert_eq!(v["format_version"], 1);
        assert!(v["kernel"].is_string() && v["metric"].is_string());
    }
}

/// Every input that ever crashed warpcert (found by `tests/fuzz.rs` or by hand) stays
/// under `tests/data/robust/`; each must end within the contract.
#[test]
fn regression_inputs_end_within_the_contract() {
    let dir = root().join("tests/data/robust");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).expect("tests/data/robust") {
        let path = e.expect("entry").path();
        let args: Vec<&str> = match path.extension().and_then(|x| x.to_str()) {
            Some("cu") => vec!["analyze", p(&path), "--metric", "all", "--timeout", "50"],
            Some("cert") => vec!["check", p(&path), "--timeout", "50"],
            _ => continue,
        };
        run(&args);
        n += 1;
    }
    assert!(n > 0, "no regression inputs in {}", dir.display());
    let _ = std::io::stderr().write_all(format!("{n} regression inputs\n").as_bytes());
}
