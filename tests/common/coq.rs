//! Running `coqc` from the integration tests: whether it is installed, compiling the
//! theories of `coq-export/theories` (the order of `coq-export/build.sh`), and checking
//! generated files with a pool of workers.

use super::root;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// The theories in dependency order, as `coq-export/build.sh` and `_CoqProject` list them.
pub const THEORIES: [&str; 24] = [
    "Metric",
    "Syntax",
    "Semantics",
    "Exec",
    "Float64",
    "Lin",
    "Shift",
    "Floor",
    "Log",
    "Guard",
    "Logic",
    "IntRw",
    "Soundness",
    "Stride",
    "Rows",
    "Check",
    "Refute",
    "Lower",
    // before LowerCheck, which uses its L:IFSPLIT lemmas (lowersplit19)
    "Split",
    "LowerCheck",
    "Cap",
    "CapSound",
    // Q:WHILEEXITCAP2 at the level of meanings (capsound2_20)
    "CapSound2",
    "CapCheck",
];

/// Whether `coqc` runs here (the Coq parts of the tests skip, saying so, when it does not).
pub fn coqc_available() -> bool {
    Command::new("coqc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `coq-export/`.
pub fn coq_dir() -> PathBuf {
    root().join("coq-export")
}

/// Runs `coqc` on `file` (relative to `coq-export/` or absolute) with the theories mapped
/// to `WarpCert`; (success, stdout and stderr).
pub fn coqc(file: &Path) -> (bool, String) {
    let out = match Command::new("coqc")
        .current_dir(coq_dir())
        .args(["-Q", "theories", "WarpCert"])
        .arg(file)
        .output()
    {
        Ok(out) => out,
        Err(e) => return (false, format!("coqc could not run: {e}")),
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// One `coqc` run of [`coqc_all`]: success, output, seconds.
pub struct Run {
    pub ok: bool,
    pub out: String,
    pub secs: f64,
}

/// What `Print Assumptions` prints when a theorem depends on no axiom or parameter.
pub const CLOSED: &str = "Closed under the global context";

/// What `coqc` prints when the reflective check (`vm_compute; reflexivity` of the checker
/// on the exported derivation) computes `false`.
pub const REFUTED: &str = "Unable to unify \"true\" with \"false\"";

/// Asserts that `coqc` accepted the export `name` and that its theorem is closed under the
/// global context (no assumption).
pub fn assert_accepted(name: impl std::fmt::Display, run: &Run) {
    assert!(run.ok, "coqc rejected {name}:\n{}", run.out);
    assert!(
        run.out.contains(CLOSED),
        "{name}: Print Assumptions lists assumptions:\n{}",
        run.out
    );
}

/// Asserts that `coqc` refused the mutant `name` at the reflective check: a parse or type
/// error would fail too, but would show nothing about the checker.
pub fn assert_refuted(name: impl std::fmt::Display, run: &Run) {
    assert!(!run.ok, "coqc accepted {name}:\n{}", run.out);
    assert!(
        run.out.contains(REFUTED),
        "{name}: coqc failed elsewhere than the reflective check:\n{}",
        run.out
    );
}

/// Writes the exports `accepted` and the mutants `muts` (`(file stem, Coq text)`) to a fresh
/// temporary directory named after `tag`, runs [`coqc_all`] on them, and asserts that every
/// export is accepted ([`assert_accepted`]) and every mutant refuted at the reflective check
/// ([`assert_refuted`]), printing each run's seconds to stderr. Builds the theories first;
/// the caller skips when coqc is absent.
pub fn accepted_and_mutants_refuted<T: AsRef<str>>(
    tag: &str,
    accepted: &[(&str, T)],
    muts: &[(&str, T)],
) {
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let tmp = std::env::temp_dir().join(format!("warpcert-coq-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut files = Vec::new();
    for (name, text) in accepted.iter().chain(muts) {
        let f = tmp.join(format!("{name}.v"));
        std::fs::write(&f, text.as_ref()).unwrap();
        files.push(f);
    }
    let runs = coqc_all(&files, 2);
    for (f, r) in files.iter().zip(&runs) {
        eprintln!("coqc {}: {:.2} s", f.display(), r.secs);
    }
    let n = accepted.len();
    for (f, r) in files.iter().zip(&runs).take(n) {
        assert_accepted(f.display(), r);
    }
    for (f, r) in files.iter().zip(&runs).skip(n) {
        assert_refuted(f.display(), r);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// Replaces the first `from` after the first `anchor` in `text` (which must occur).
pub fn mutate_after(text: &str, anchor: &str, from: &str, to: &str) -> String {
    let at = text
        .find(anchor)
        .unwrap_or_else(|| panic!("`{anchor}` not in the export"));
    let (head, tail) = text.split_at(at);
    assert!(tail.contains(from), "`{from}` not after `{anchor}`");
    format!("{head}{}", tail.replacen(from, to, 1))
}

/// Runs [`coqc`] on every file with `jobs` workers; the runs in input order.
pub fn coqc_all(files: &[PathBuf], jobs: usize) -> Vec<Run> {
    let next = AtomicUsize::new(0);
    let mut runs: Vec<(usize, Run)> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..jobs.max(1))
            .map(|_| {
                sc.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(file) = files.get(i) else { break };
                        let t = Instant::now();
                        let (ok, out) = coqc(file);
                        done.push((
                            i,
                            Run {
                                ok,
                                out,
                                secs: t.elapsed().as_secs_f64(),
                            },
                        ));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("coqc worker"))
            .collect()
    });
    runs.sort_by_key(|(i, _)| *i);
    runs.into_iter().map(|(_, r)| r).collect()
}

/// Compiles [`THEORIES`] once per test process, skipping those already compiled: a theory
/// is fresh when its `.vo` is newer than its `.v` and than the `.vo` of every theory before
/// it (another test binary may have recompiled `Syntax` alone, which makes every later
/// `.vo` inconsistent with it). Errors: coqc's output for the first theory it rejects.
pub fn build_theories() -> Result<(), String> {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = coq_dir();
            let mut latest: Option<std::time::SystemTime> = None;
            let modified = |p: PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
            for f in THEORIES {
                let vo = dir.join(format!("theories/{f}.vo"));
                let fresh = match (
                    modified(vo.clone()),
                    modified(dir.join(format!("theories/{f}.v"))),
                ) {
                    (Some(b), Some(a)) => b >= a && latest.is_none_or(|l| b >= l),
                    _ => false,
                };
                if !fresh {
                    let t = Instant::now();
                    let (ok, out) = coqc(Path::new(&format!("theories/{f}.v")));
                    if !ok {
                        return Err(format!("coqc rejected theories/{f}.v:\n{out}"));
                    }
                    eprintln!("coqc theories/{f}.v: {:.2} s", t.elapsed().as_secs_f64());
                }
                latest = latest.max(modified(vo));
            }
            Ok(())
        })
        .clone()
}
