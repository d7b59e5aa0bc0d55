//! Command-line contract: exit codes, one-screen errors with locations, JSON keys.
//! Bad input (garbage, empty file, no kernel, unsupported construct, syntax error, unknown
//! metric or kernel, unreadable file) exits with code 2 and never panics.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpcert"))
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_bad_input(o: &Output, must_mention: &[&str]) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "exit code for bad input; stderr:\n{err}"
    );
    assert!(!err.contains("panicked"), "panic on bad input:\n{err}");
    assert!(
        err.lines().count() <= 25,
        "error longer than one screen:\n{err}"
    );
    for m in must_mention {
        assert!(err.contains(m), "error should mention `{m}`:\n{err}");
    }
}

#[test]
fn garbage_input_is_a_located_error() {
    let o = bin()
        .arg("analyze")
        .arg(data("err/garbage.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["garbage.cu:1:"]);
}

#[test]
fn empty_file_is_an_error() {
    let o = bin()
        .arg("analyze")
        .arg(data("err/empty.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["empty.cu"]);
}

#[test]
fn file_without_kernel_is_an_error() {
    let o = bin()
        .arg("analyze")
        .arg(data("err/no_kernel.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["no_kernel.cu", "__global__"]);
}

#[test]
fn unsupported_construct_is_named_with_location() {
    let o = bin()
        .arg("analyze")
        .arg(data("err/atomic.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["atomicInc", "atomic.cu:4:"]);
}

#[test]
fn syntax_error_is_located() {
    let o = bin()
        .arg("analyze")
        .arg(data("err/syntax.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["syntax.cu:"]);
}

#[test]
fn unreadable_file_unknown_metric_and_kernel() {
    let o = bin()
        .arg("analyze")
        .arg(data("err/does-not-exist.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["does-not-exist.cu"]);
    let o = bin()
        .args(["analyze", "--metric", "latency"])
        .arg(example("vector_add.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["latency"]);
    let o = bin()
        .args(["analyze", "--kernel", "nosuchkernel"])
        .arg(example("vector_add.cu"))
        .output()
        .unwrap();
    assert_bad_input(&o, &["nosuchkernel"]);
}

#[test]
fn analyze_json_has_the_contract_keys() {
    let o = bin()
        .args(["analyze", "--format", "json", "--metric", "sectors"])
        .arg(example("vector_add.cu"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "stderr:\n{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let first = &v[0];
    for key in [
        "kernel",
        "metric",
        "relation",
        "per_warp",
        "warps",
        "total",
        "certificate",
        "time_ms",
    ] {
        assert!(first.get(key).is_some(), "missing key {key} in {first}");
    }
    // the guard `gid < len` passes on every lane when `len ≥ 256·(blockIdx.x + 1)`: a
    // lower-bound certificate under that hypothesis makes the answer exact (12 sectors: three
    // 128-byte aligned warp accesses; spec/logic.md §4b, L:HYP), and says where it holds
    assert_eq!(first["relation"], "exact");
    assert_eq!(first["lower"]["when"], "len - 256*blockIdx.x >= 256");
    assert_eq!(first["certificate"]["checked"], true);
    assert!(first["certificate"].get("path").is_some());
}

#[test]
fn check_exit_codes() {
    let dir = std::env::temp_dir().join(format!("warpcert-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cert = dir.join("va.cert");
    let o = bin()
        .args(["analyze", "--metric", "sectors", "--cert"])
        .arg(&cert)
        .arg(example("vector_add.cu"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "stderr:\n{}", stderr(&o));
    let o = bin().arg("check").arg(&cert).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    // A certificate whose bound line is changed is rejected (exit 1), naming why.
    let text = std::fs::read_to_string(&cert).unwrap();
    let bad = dir.join("bad.cert");
    let mutated = text.replacen("warpcert-certificate 6", "warpcert-certificate 9", 1);
    std::fs::write(&bad, mutated).unwrap();
    let o = bin().arg("check").arg(&bad).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("unsupported certificate version 9 (supported: 1..=6)"),
        "{out}"
    );
    let o = bin()
        .arg("check")
        .arg(dir.join("missing.cert"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_explains_the_commands() {
    let o = bin().arg("--help").output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    for cmd in ["analyze", "run", "check", "bench"] {
        assert!(out.contains(cmd), "--help should list {cmd}:\n{out}");
    }
    assert_eq!(o.status.code(), Some(0));
}

/// `--cert DIR` with one metric: an existing directory, or a path ending with `/` (created),
/// holds `KERNEL.METRIC.cert` (and, for an exact answer, `KERNEL.METRIC.lower.cert`);
/// another path is the certificate file itself.
#[test]
fn cert_accepts_a_directory_for_one_metric() {
    let tmp = std::env::temp_dir().join(format!("warpcert-cli-certdir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let new_dir = format!("{}/", tmp.join("new").display());
    let file = tmp.join("one.cert");
    for (out, expect) in [
        (
            tmp.display().to_string(),
            tmp.join("vector_add.sectors.cert"),
        ),
        (new_dir.clone(), tmp.join("new/vector_add.sectors.cert")),
        (file.display().to_string(), file.clone()),
    ] {
        let o = bin()
            .args(["analyze", "--metric", "sectors", "--cert", &out])
            .arg(example("vector_add.cu"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let text = std::fs::read_to_string(&expect)
            .unwrap_or_else(|e| panic!("--cert {out}: {} not written: {e}", expect.display()));
        assert!(text.contains("(metric sectors)"), "{}", expect.display());
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The clang front end's scratch directory (`warpcert-clang-PID`: the prelude and the
/// header stubs) is deleted when the command ends, after a successful analysis and after a
/// failed one, so runs leave nothing in the temporary directory. A directory left by a
/// process that has ended (a test binary using the library never removes its own) is
/// collected by the next run; one of a running process is kept.
#[test]
fn clang_scratch_directory_is_removed() {
    if !warpcert::frontend::clang::available() {
        eprintln!("SKIPPED: clang is not installed (apt-get install -y clang); the builtin front end writes no scratch directory");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("warpcert-cli-scratch-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    // PID 4 000 000 000 exceeds Linux's largest pid_max (2^22), so no process has it; this
    // test's own PID is alive while it runs.
    let stale = tmp.join("warpcert-clang-4000000000");
    let live = tmp.join(format!("warpcert-clang-{}", std::process::id()));
    // Liveness is read from /proc; without it nothing is collected (and nothing planted).
    if std::path::Path::new("/proc/self").exists() {
        for d in [&stale, &live] {
            std::fs::create_dir_all(d.join("include")).unwrap();
        }
    }
    let runs: [&[&str]; 2] = [
        &["analyze", "--metric", "sectors"],
        &["analyze", "--metric", "nope"],
    ];
    for args in runs {
        let o = bin()
            .args(args)
            .arg(example("vector_add.cu"))
            .env("TMPDIR", &tmp)
            .output()
            .unwrap();
        let left: Vec<String> = std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("warpcert-clang-"))
            .filter(|n| *n != live.file_name().unwrap().to_string_lossy())
            .collect();
        assert!(
            left.is_empty(),
            "{args:?} (exit {:?}) left {left:?}",
            o.status.code()
        );
    }
    if std::path::Path::new("/proc/self").exists() {
        assert!(
            live.exists(),
            "the directory of a running process was deleted"
        );
    }
    std::fs::remove_dir_all(&tmp).unwrap();
}
