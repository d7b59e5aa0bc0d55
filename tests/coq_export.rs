//! Coq export (issue 5): the theories compile with `coqc` and contain no `Admitted`,
//! `admit.` or `Axiom`; every committed certificate is exported and checked by `coqc`
//! (`Print Assumptions` of each bound theorem: closed under the global context); a
//! mutated exported bound and a mutated certificate are rejected.
//!
//! Skips with a message when `coqc` is not installed (CI installs Debian's `coq`).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use warpcert::export::coq::{bound_line, export, ExportError};

fn coqc_available() -> bool {
    Command::new("coqc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn coq_dir() -> PathBuf {
    root().join("coq-export")
}

/// Runs coqc on `file` with the theories mapped to `WarpCert`; (success, output).
fn coqc(file: &Path) -> (bool, String) {
    let out = Command::new("coqc")
        .current_dir(coq_dir())
        .args(["-Q", "theories", "WarpCert"])
        .arg(file)
        .output()
        .expect("coqc runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

fn build_theories() {
    for f in [
        "Metric",
        "Syntax",
        "Semantics",
        "Lin",
        "Logic",
        "Soundness",
        "Check",
    ] {
        let t = Instant::now();
        let (ok, out) = coqc(Path::new(&format!("theories/{f}.v")));
        assert!(ok, "coqc rejected theories/{f}.v:\n{out}");
        eprintln!("coqc theories/{f}.v: {:.2} s", t.elapsed().as_secs_f64());
    }
}

#[test]
fn theories_have_no_admitted_or_axioms() {
    for e in std::fs::read_dir(coq_dir().join("theories")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "v") {
            let text = std::fs::read_to_string(&p).unwrap();
            for bad in ["Admitted", "admit.", "Axiom", "Parameter", "Conjecture"] {
                assert!(!text.contains(bad), "{} contains {bad}", p.display());
            }
        }
    }
}

#[test]
fn committed_certificates_check_in_coq_and_mutants_fail() {
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    build_theories();
    let tmp = std::env::temp_dir().join(format!("warpcert-coq-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut certs: Vec<PathBuf> = std::fs::read_dir(root().join("certificates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cert"))
        .collect();
    certs.sort();
    assert_eq!(certs.len(), 28);
    // Certificates that use the precision constructs of issues 3/4 (the lane facts of
    // addSub0's `j % 2 == 0`, spec/logic.md §6) are not formalized in Coq yet: their export
    // must fail naming the construct.
    const NOT_IN_COQ: &[&str] = &[
        "addSub0.sectors",
        "addSub0.steps",
        "add_sub.sectors",
        "add_sub.steps",
    ];
    let mut accepted = Vec::new();
    let mut rejected = Vec::new();
    let mut unsupported = Vec::new();
    for c in &certs {
        let stem = c.file_stem().unwrap().to_str().unwrap().to_string();
        let v = match export(&std::fs::read_to_string(c).unwrap()) {
            Ok(v) => v,
            Err(ExportError::Unsupported(why)) if NOT_IN_COQ.contains(&stem.as_str()) => {
                assert!(why.contains("not formalized in Coq"), "{stem}: {why}");
                unsupported.push(stem);
                continue;
            }
            Err(e) => panic!("{stem}: {e}"),
        };
        let file = tmp.join(format!("{}.v", stem.replace('.', "_")));
        std::fs::write(&file, &v).unwrap();
        let t = Instant::now();
        let (ok, out) = coqc(&file);
        eprintln!(
            "coqc {stem}: {:.2} s, {}",
            t.elapsed().as_secs_f64(),
            if ok { "accepted" } else { "rejected" }
        );
        if ok {
            assert!(
                out.contains("Closed under the global context"),
                "{stem}: Print Assumptions lists assumptions:\n{out}"
            );
            accepted.push(stem);
        } else {
            // The reflective check `root_ok` (vm_compute; reflexivity) computes `false`.
            assert!(
                out.contains("Unable to unify \"true\" with \"false\""),
                "{stem}: coqc failed elsewhere than the reflective check:\n{out}"
            );
            rejected.push(stem);
        }
    }
    assert!(
        rejected.is_empty(),
        "coqc rejected the exports of {rejected:?} (accepted: {accepted:?})"
    );
    assert_eq!(unsupported, NOT_IN_COQ);

    // A mutated bound (vectorAdd divwarps: 1 → 0) must make coqc reject the file.
    let text =
        std::fs::read_to_string(root().join("certificates/vectorAdd.divwarps.cert")).unwrap();
    let v = export(&text).unwrap();
    let line = bound_line(&v).expect("bound line");
    let mutated = v.replace(line, "Definition bound : pot := mkPot (0 # 1) [].");
    let file = tmp.join("vectorAdd_divwarps_mutated.v");
    std::fs::write(&file, mutated).unwrap();
    let (ok, out) = coqc(&file);
    assert!(!ok, "coqc accepted a lowered bound:\n{out}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn mutated_certificate_fails_to_export_with_a_clear_error() {
    let text =
        std::fs::read_to_string(root().join("certificates/vectorAdd.divwarps.cert")).unwrap();
    let mutated = text.replace("(bound (poly (1)))", "(bound (poly))");
    assert_ne!(mutated, text);
    match export(&mutated) {
        Err(ExportError::Rejected(r)) => assert!(!r.is_empty()),
        other => panic!("expected a kernel rejection, got {other:?}"),
    }
}

#[test]
fn cli_export_coq_and_analyze_coq_write_coq_files() {
    let tmp = std::env::temp_dir().join(format!("warpcert-coq-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let out = tmp.join("vectorAdd_steps.v");
    let st = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .arg("export-coq")
        .arg(root().join("certificates/vectorAdd.steps.cert"))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let v = std::fs::read_to_string(&out).unwrap();
    assert!(v.contains("Theorem warp_bound") && v.contains("bound_sound"));
    // A certificate the kernel rejects: exit 1 and a message naming the kernel.
    let bad = tmp.join("bad.cert");
    let text = std::fs::read_to_string(root().join("certificates/vectorAdd.steps.cert")).unwrap();
    std::fs::write(
        &bad,
        text.replace("(bound (poly (33)))", "(bound (poly (32)))"),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .arg("export-coq")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the kernel rejected the certificate"));
    // analyze --coq: one Coq file per metric in a directory.
    let dir = tmp.join("coq");
    let st = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .arg("analyze")
        .arg(root().join("examples/vector_add.cu"))
        .arg("--coq")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    for m in ["sectors", "conflicts", "divwarps", "steps"] {
        let f = dir.join(format!("vector_add_{m}.v"));
        assert!(
            std::fs::read_to_string(&f)
                .unwrap()
                .contains("Theorem warp_bound"),
            "{}",
            f.display()
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
