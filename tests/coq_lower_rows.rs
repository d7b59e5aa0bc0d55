//! Every `exact` row of `warpcert bench` (issue 14, Done-when: "every row of the benchmark
//! table whose relational formula is exact today has an `exact` answer with both
//! certificates accepted by the kernel and by `coqc`"; item 5: `export-coq` exports both
//! certificates of an exact answer and `coqc` accepts both).
//!
//! For each row of [`EXACT`] (the kernel, block and metric of `src/cli/bench.rs`, grid
//! symbolic, default analysis options, as `bench` decides the relation), `warpcert analyze
//! … --cert` is run and must answer `exact`; its upper certificate must be accepted by the
//! kernel (role upper) and its lower-bound certificate must be byte for byte the committed
//! `certificates/KERNEL.METRIC.lower.cert` (`UPDATE_CERTS=1` rewrites them), accepted by the
//! kernel with role lower and **the same bound as the upper certificate** (the kernel's
//! verdicts are the expected values: the kernel is the checker). Both certificates are then
//! exported to Coq and every export must be accepted by `coqc` with a closed theorem.
//! No export may be refused: every lower rule the rows use (L:IFSPLIT for addSub0, L:IFLANES
//! for reduce1 `conflicts` included) has a LowerCheck.v case.
//!
//! Cost (2 workers): the 44 analyses of the debug binary (about a CPU minute) and 88 `coqc`
//! runs of 1.7–3.9 CPU seconds each (sampled), about 2–3 minutes on two idle cores. Skips when `../shared/corpus` is absent, the Coq part when `coqc` is.

mod common;

use common::coq::{assert_accepted, build_theories, coqc_all, coqc_available};
use common::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use warpcert::export::coq::export;

const ALL: &[&str] = &["sectors", "conflicts", "divwarps", "steps"];

/// One kernel of [`EXACT`]: (table name, file, `--block`, `--kernel`, exact metrics).
type ExactKernel = (
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static [&'static str],
);

/// The rows of `warpcert bench --no-sim --runs 1` whose relation is `exact` (42 of 72 at
/// e44cd60; 44 since reduce1 `conflicts` (L:IFLANES, tests/lower_iflanes.rs) and
/// matrixMulBad `sectors` (counted loops unrolled, tests/matmul_bad_unroll.rs)): (table name, file — under `../shared/corpus` unless it starts with `tests/` —,
/// `--block`, `--kernel`, metrics).
const EXACT: &[ExactKernel] = &[
    ("addSub0", "racuda/addSub0.cu", "1024", None, ALL),
    ("addSub1", "racuda/addSub1.cu", "1024", None, ALL),
    (
        "addSub2",
        "racuda/addSub2.cu",
        "1024",
        None,
        &["conflicts", "divwarps"],
    ),
    (
        "addSub3",
        "racuda/addSub3.cu",
        "1024",
        None,
        &["conflicts", "divwarps"],
    ),
    (
        "vectorAdd",
        "racuda/vectorAdd.cu",
        "256",
        None,
        &["sectors", "conflicts", "divwarps"],
    ),
    ("matrixMul", "racuda/matrixMul.cu", "32,32", None, ALL),
    (
        "matrixMulBad",
        "racuda/matrixMulBad.cu",
        "32,32",
        None,
        &["sectors", "conflicts"],
    ),
    (
        "matrixMulTranspose",
        "racuda/matrixMulTranspose.cu",
        "32,32",
        None,
        ALL,
    ),
    (
        "reduce0",
        "racuda/reduce0.cu",
        "256",
        None,
        &["sectors", "conflicts"],
    ),
    (
        "reduce1",
        "racuda/reduce1.cu",
        "256",
        None,
        &["sectors", "conflicts"],
    ),
    (
        "reduce2",
        "racuda/reduce2.cu",
        "256",
        None,
        &["sectors", "conflicts"],
    ),
    (
        "reduce2a",
        "racuda/reduce2a.cu",
        "256",
        None,
        &["sectors", "conflicts"],
    ),
    (
        "reduce3",
        "racuda/reduce3.cu",
        "256",
        None,
        &["sectors", "conflicts"],
    ),
    (
        "reduce3a",
        "racuda/reduce3a.cu",
        "256",
        None,
        &["sectors", "conflicts"],
    ),
    (
        "syn-brdis",
        "racuda/syn-brdis.cu",
        "32",
        None,
        &["sectors", "conflicts", "divwarps"],
    ),
    (
        "syn-brdis-opt",
        "racuda/syn-brdis-opt.cu",
        "32",
        None,
        &["sectors", "conflicts", "divwarps"],
    ),
    (
        "mandelbrot",
        "tests/data/frontend/mandelbrot_wrapper.cu",
        "32",
        None,
        &["conflicts"],
    ),
];

/// One exact row after the analysis: name, upper and lower certificate texts, or a problem.
type Row = Result<(String, String, String), String>;

/// Runs `warpcert analyze` for one row into `tmp` and checks both certificates with the
/// kernel and the lower one against the committed file (module documentation).
fn analysed(corpus: &Path, tmp: &Path, row: (&str, &str, &str, Option<&str>, &str)) -> Row {
    let (stem, file, block, kernel, metric) = row;
    let name = format!("{stem}.{metric}");
    let path = if file.starts_with("tests/") {
        root().join(file)
    } else {
        corpus.join(file)
    };
    let out_path = tmp.join(&name);
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_warpcert"));
    cmd.arg("analyze")
        .arg(&path)
        .args([
            "--metric", metric, "--block", block, "--grid", "symbolic", "--cert",
        ])
        .arg(&out_path);
    if let Some(k) = kernel {
        cmd.args(["--kernel", k]);
    }
    let out = cmd.output().map_err(|e| format!("{name}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let exact = text.contains("lower-bound certificate (warp ") && text.contains(": exact");
    if !(out.status.success() && exact) {
        return Err(format!("{name}: no exact answer:\n{text}"));
    }
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{name}: {e}"));
    let upper = read(&out_path)?;
    let lower = read(Path::new(&format!("{}.lower.cert", out_path.display())))?;
    let u = warpcert_kernel::check(&upper).map_err(|r| format!("{name} upper: {r}"))?;
    let l = warpcert_kernel::check(&lower).map_err(|r| format!("{name} lower: {r}"))?;
    if u.role != warpcert_kernel::Role::Upper || !matches!(l.role, warpcert_kernel::Role::Lower(_))
    {
        return Err(format!("{name}: roles {:?} / {:?}", u.role, l.role));
    }
    if u.bound != l.bound {
        return Err(format!(
            "{name}: upper bound {} ≠ lower bound {}",
            u.bound, l.bound
        ));
    }
    let committed = root().join(format!("certificates/{name}.lower.cert"));
    if std::env::var_os("UPDATE_CERTS").is_some() {
        std::fs::write(&committed, &lower).map_err(|e| format!("{name}: {e}"))?;
    } else if std::fs::read_to_string(&committed).ok().as_deref() != Some(lower.as_str()) {
        return Err(format!(
            "{}: differs from the analysis (run with UPDATE_CERTS=1 after an intended change)",
            committed.display()
        ));
    }
    Ok((name, upper, lower))
}

#[test]
fn exact_rows_have_both_certificates_accepted_by_the_kernel_and_coqc() {
    let test = "exact_rows_have_both_certificates_accepted_by_the_kernel_and_coqc";
    let Some(racuda) = racuda_corpus(test) else {
        return;
    };
    let corpus = racuda.parent().unwrap().to_path_buf();
    // the committed lower certificates are exactly those of the rows
    let mut expected: Vec<String> = EXACT
        .iter()
        .flat_map(|(s, _, _, _, ms)| ms.iter().map(move |m| format!("{s}.{m}.lower.cert")))
        .collect();
    expected.sort();
    assert_eq!(expected.len(), 44);
    let mut committed: Vec<String> = std::fs::read_dir(root().join("certificates"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".lower.cert"))
        .collect();
    committed.sort();
    assert_eq!(committed, expected);

    let tmp = std::env::temp_dir().join(format!("warpcert-coq-rows-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let rows: Vec<_> = EXACT
        .iter()
        .flat_map(|&(s, f, b, k, ms)| ms.iter().map(move |&m| (s, f, b, k, m)))
        .collect();
    // the analyses, 2 at a time
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, Row)> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                sc.spawn(|| {
                    let mut v = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&r) = rows.get(i) else { break };
                        v.push((i, analysed(&corpus, &tmp, r)));
                    }
                    v
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    let problems: Vec<&String> = done.iter().filter_map(|(_, r)| r.as_ref().err()).collect();
    assert!(problems.is_empty(), "{problems:#?}");
    if !coqc_available() {
        eprintln!("{test}: Coq part SKIPPED, coqc is not installed");
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let mut files: Vec<PathBuf> = Vec::new();
    for (_, r) in &done {
        let (name, upper, lower) = r.as_ref().unwrap();
        let coq_name = name.replace(['-', '.'], "_");
        for (role, text) in [("upper", upper), ("lower", lower)] {
            match export(text) {
                Ok(v) => {
                    let f = tmp.join(format!("{coq_name}_{role}.v"));
                    std::fs::write(&f, v).unwrap();
                    files.push(f);
                }
                Err(e) => panic!("{name} {role}: export refused: {e}"),
            }
        }
    }
    let t = std::time::Instant::now();
    let runs = coqc_all(&files, 2);
    let cpu: f64 = runs.iter().map(|r| r.secs).sum();
    for (f, r) in files.iter().zip(&runs) {
        assert_accepted(f.display(), r);
    }
    eprintln!(
        "{test}: coqc accepted {} exports in {:.1} s ({cpu:.1} s of coqc runs, 2 workers)",
        files.len(),
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
