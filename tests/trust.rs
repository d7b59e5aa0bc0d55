//! The trust contract as the user sees it (issue 17): `analyze` prints the bound, relation
//! and total of the kernel's verdict and no bound when the kernel rejects; `check --source`
//! ties a certificate to its CUDA source; `analyze` warns about a data race the
//! interleaving semantics finds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use warpcert::cli::analyze::{analyze_metric, outcome_from_verdict};
use warpcert::cli::options::load;
use warpcert::cli::KernelArgs;
use warpcert::core::MetricName;
use warpcert::report::{self, AnalyzeOutcome, Format};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpcert"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpcert-trust-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn args(file: PathBuf, metric: &str) -> KernelArgs {
    KernelArgs {
        file,
        kernel: None,
        metric: metric.into(),
        block: None,
        grid: None,
        params: Vec::new(),
        format: Format::Json,
        warp_size: 32,
        banks: 32,
        bank_bytes: 4,
        sector_bytes: 32,
        front: warpcert::cli::kernels::FrontendArgs::default(),
    }
}

/// For every example and metric, the printed per-warp bound is the verdict's bound on the
/// written certificate, the relation is the kernel's (`<=`, "upper"), and for a constant
/// bound the total is warps × bound (checked here with exact rationals).
#[test]
fn analyze_prints_the_kernels_verdict() {
    for file in ["vector_add.cu", "add_sub.cu"] {
        let dir = tmp(file);
        let o = bin()
            .args(["analyze", "--format", "json", "--cert"])
            .arg(&dir)
            .arg(root().join("examples").join(file))
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let rows = v.as_array().unwrap();
        assert_eq!(rows.len(), 4);
        for row in rows {
            let path = row["certificate"]["path"].as_str().unwrap();
            let text = std::fs::read_to_string(path).unwrap();
            let verdict = warpcert_kernel::check(&text).unwrap();
            // the printed bound is the kernel's: its short form reads back as the
            // certificate's bound, which the certificates list carries as the kernel prints it
            let printed = row["per_warp"].as_str().unwrap();
            assert_eq!(
                warpcert_kernel::printed::check_printed(printed, &verdict.bound_poly),
                Ok(()),
                "{file}"
            );
            assert_eq!(
                row["certificates"][0]["bound"],
                verdict.bound.as_str(),
                "{file}"
            );
            assert_eq!(row["certificates"][0]["role"], "upper", "{file}");
            // `exact` only with a lower-bound certificate the kernel accepts with the same
            // bound (spec/logic.md §4b; vector_add's guard under its hypotheses, L:HYP)
            match row["relation"].as_str() {
                Some("upper") => assert!(row.get("lower").is_none(), "{row}"),
                Some("exact") => {
                    let lp = row["lower"]["path"].as_str().unwrap();
                    let lv = warpcert_kernel::check(&std::fs::read_to_string(lp).unwrap()).unwrap();
                    assert_eq!(lv.role.name(), "lower");
                    assert_eq!(lv.bound, verdict.bound, "{file}");
                    assert_eq!(row["certificates"][1]["role"], "lower", "{file}");
                    assert_eq!(row["certificates"][1]["bound"], lv.bound.as_str(), "{file}");
                }
                r => panic!("{file}: relation {r:?}"),
            }
            assert_eq!(warpcert_kernel::Verdict::RELATION, "<=");
            let warps: i64 = row["warps"].as_str().unwrap().parse().unwrap();
            if let Ok(b) = verdict.bound.parse::<i64>() {
                assert_eq!(row["total"], (warps * b).to_string().as_str(), "{file}");
            }
        }
    }
}

/// A certificate the kernel rejects (its bound lowered by one after the analysis) gives a
/// failure naming the rejection, and the report shows no bound.
#[test]
fn a_rejected_certificate_shows_no_bound() {
    let l = load(
        &args(root().join("examples/vector_add.cu"), "sectors"),
        None,
    )
    .unwrap();
    let AnalyzeOutcome::Bound(good) = analyze_metric(
        &l,
        MetricName::Sectors,
        &warpcert::analysis::AnalysisOptions::default(),
        None,
        None,
    )
    .unwrap() else {
        panic!("vector_add sectors has a bound");
    };
    let cert = warpcert::analysis::analyze(
        &l.program,
        &warpcert::core::Metric::standard(MetricName::Sectors),
        &l.hw,
        &l.launch,
        &warpcert::analysis::AnalysisOptions {
            degree: 2,
            floor: true,
            align: false,
        },
    )
    .unwrap()
    .certificate;
    let b = &good.per_warp;
    let lowered = cert.replacen(
        &format!("(bound (poly ({b}))"),
        &format!("(bound (poly ({}))", b.parse::<i64>().unwrap() - 1),
        1,
    );
    assert_ne!(lowered, cert, "the bound line is `(bound (poly ({b})))`");
    let out = outcome_from_verdict(&l, MetricName::Sectors, &lowered, None, 0.0);
    let AnalyzeOutcome::Failure(f) = &out else {
        panic!("a rejected certificate reported a bound")
    };
    let want = format!(
        "REJECTED by the kernel, no bound: rule Q:SEQ at node 0: bound `{}` differs",
        b.parse::<i64>().unwrap() - 1
    );
    assert!(f.error.contains(&want), "{}", f.error);
    let text = report::analyze_text(std::slice::from_ref(&out));
    assert!(!text.contains("per warp"), "{text}");
    let json = serde_json::to_value(&out).unwrap();
    assert!(
        json.get("per_warp").is_none() && json.get("total").is_none(),
        "{json}"
    );
}

/// `check --source` accepts the source the certificate was made from, and rejects (exit 1)
/// another program, and a certificate without provenance.
#[test]
fn check_source_ties_a_certificate_to_its_source() {
    let dir = tmp("source");
    let cert = dir.join("va.cert");
    let src = root().join("examples/vector_add.cu");
    let o = bin()
        .args(["analyze", "--metric", "sectors", "--cert"])
        .arg(&cert)
        .arg(&src)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let (code, out) = check_source(&cert, &src);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("same lowered program"));
    // The verdict prints the assumptions.
    assert!(
        out.contains("race-free: the launch has no data race"),
        "{out}"
    );
    // Another program: x[gid] * y[gid] instead of +.
    let other = dir.join("other.cu");
    let text = std::fs::read_to_string(&src).unwrap();
    std::fs::write(&other, text.replace("x[gid] + y[gid]", "x[gid] * y[gid]")).unwrap();
    let (code, out) = check_source(&cert, &other);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("REJECTED: --source does not match"), "{out}");
    // Same source hash claimed for the other file (a forged provenance): the lowered program differs.
    let forged = dir.join("forged.cert");
    let cert_text = std::fs::read_to_string(&cert).unwrap();
    let old = warpcert::certificate::provenance::sha256_hex(text.as_bytes());
    let new =
        warpcert::certificate::provenance::sha256_hex(std::fs::read(&other).unwrap().as_slice());
    std::fs::write(&forged, cert_text.replace(&old, &new)).unwrap();
    let (code, out) = check_source(&forged, &other);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("gives a program with SHA-256"), "{out}");
    // A committed certificate has no provenance section.
    let (code, out) = check_source(&root().join("certificates/vector_add.sectors.cert"), &src);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("no provenance section"), "{out}");
}

/// `warpcert check CERT --source SRC`: (exit code, stdout).
fn check_source(cert: &Path, src: &Path) -> (Option<i32>, String) {
    let o = bin()
        .arg("check")
        .arg(cert)
        .arg("--source")
        .arg(src)
        .output()
        .unwrap();
    (o.status.code(), stdout(&o))
}

/// A kernel where every lane writes one cell: `analyze` warns beside the bound (exact: one
/// sector, which the lower-bound certificate of spec/logic.md §4b proves too, so `=`); the
/// race-free vector add gets no warning.
#[test]
fn analyze_warns_about_a_race() {
    let o = bin()
        .args(["analyze", "--metric", "sectors"])
        .arg(root().join("tests/data/trust/same_cell.cu"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.contains("per warp  = 1"), "{out}");
    assert!(
        out.contains("warning: data race on a small launch"),
        "{out}"
    );
    let o = bin()
        .args(["analyze", "--metric", "sectors"])
        .arg(root().join("examples/vector_add.cu"))
        .output()
        .unwrap();
    assert!(!stdout(&o).contains("data race"), "{}", stdout(&o));
}
