//! `warpcert claim` (issue 19): published bounds refuted with witnesses the kernel (and
//! coqc) accept, warpcert's own bounds certified, exit codes, and a property over the test
//! corpus: a claim below the simulated maximum is never certified, a claim at or above
//! warpcert's certified bound is never refuted.
//!
//! Tests that read `../shared/corpus` skip, saying so, when it is absent.

mod common;

use common::coq::{build_theories, coqc, coqc_available};
use common::root;
use num_rational::BigRational;
use quickcheck::{QuickCheck, TestResult};
use std::path::{Path, PathBuf};
use std::process::Command;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::claim::expr::ClaimExpr;
use warpcert::claim::refute::SearchLimits;
use warpcert::claim::{audit, Claim, Relation, Target, Verdict};
use warpcert::cli::kernels::FrontendArgs;
use warpcert::cli::options::{load, Loaded};
use warpcert::cli::KernelArgs;
use warpcert::core::metric::Q;
use warpcert::core::{Launch, Metric, MetricName};
use warpcert::report::Format;
use warpcert::semantics::{run_warp, Inputs, Params, RunOptions, Value};

fn corpus() -> Option<PathBuf> {
    let c = root().join("../shared/corpus/racuda");
    if c.is_dir() {
        Some(c)
    } else {
        eprintln!("skipped: ../shared/corpus/racuda is absent");
        None
    }
}

fn warpcert(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .current_dir(root())
        .args(args)
        .output()
        .expect("warpcert runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn rat(s: &str) -> BigRational {
    s.parse().expect("a rational")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpcert-claim-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The three matrixMul-family global-memory bounds of RaCUDA Table 4 (tag M in Pico
/// Table 1: they assume aligned rows) are refuted: each row's witness is replayed by the
/// kernel (cost above the claim at the witness's parameters) and its Coq refutation is
/// accepted by coqc (`Refute.refute_sound` by `vm_compute`). The rows are those of the
/// shipped table `tests/data/claims/published.csv`.
#[test]
fn racuda_matrixmul_global_bounds_are_refuted_with_checked_witnesses() {
    let Some(_) = corpus() else { return };
    let table = std::fs::read_to_string(root().join("tests/data/claims/published.csv")).unwrap();
    let mut sub: Vec<&str> = table.lines().filter(|l| l.starts_with("file,")).collect();
    sub.extend(
        table
            .lines()
            .filter(|l| l.contains("matrixMul") && l.contains(",sectors,") && l.contains("RaCUDA")),
    );
    assert_eq!(sub.len(), 4, "header and three rows");
    let dir = tmp("mm3");
    let csv = dir.join("mm3.csv");
    std::fs::write(&csv, sub.join("\n")).unwrap();
    let out = dir.join("ev");
    let (code, stdout, stderr) = warpcert(&[
        "claim",
        "--table",
        csv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    let mut coq_files = Vec::new();
    for r in rows {
        assert_eq!(r["verdict"], "refuted", "{r}");
        let w = &r["witness"];
        assert_eq!(w["checked"], true);
        let (cost, claimed) = (
            rat(w["cost"].as_str().unwrap()),
            rat(w["claimed"].as_str().unwrap()),
        );
        assert!(cost > claimed, "{r}");
        // the claim at the witness's parameters, recomputed here from the row's text
        let params = w["params"].as_object().unwrap();
        let env = params
            .iter()
            .map(|(k, x)| (k.clone(), x.as_i64().unwrap()))
            .collect();
        let e = ClaimExpr::parse(r["claim"].as_str().unwrap()).unwrap();
        assert_eq!(e.eval(&env).unwrap(), claimed);
        let text = std::fs::read_to_string(w["path"].as_str().unwrap()).unwrap();
        let verdict = warpcert_kernel::witness::check_witness(&text).unwrap();
        assert_eq!(verdict.cost.big(), cost);
        assert!(verdict.refutes.is_some());
        // a witness stating a claim one above the cost is rejected by the kernel
        let c_line = text.lines().find(|l| l.starts_with("(claim")).unwrap();
        let raised = text.replace(
            c_line,
            &format!(
                "(claim upper {})",
                cost.clone() + BigRational::from_integer(1.into())
            ),
        );
        assert!(matches!(
            warpcert_kernel::witness::check_witness(&raised),
            Err(warpcert_kernel::witness::WitnessError::NotRefuted { .. })
        ));
        coq_files.push(PathBuf::from(w["coq"].as_str().unwrap()));
    }
    if !coqc_available() {
        eprintln!("skipped the coqc part: coqc is absent");
        return;
    }
    build_theories().unwrap();
    for f in &coq_files {
        let (ok, log) = coqc(f);
        assert!(ok, "{}: {log}", f.display());
        assert!(log.contains("Closed under the global context"), "{log}");
    }
}

/// The example: RaCUDA's matrixMul bound is refuted on the command line (exit 1)
/// with parameters, warp and cost; warpcert's own bound for the same kernel is certified
/// (exit 0) with a certificate the kernel accepts whose bound is the claim.
#[test]
fn matrixmul_cli_refutes_racuda_and_certifies_its_own_bound() {
    let Some(c) = corpus() else { return };
    let file = c.join("matrixMul.cu");
    let f = file.to_str().unwrap();
    let base = [
        "claim", f, "--block", "32,32", "--metric", "sectors", "--bound",
    ];
    let mut args = base.to_vec();
    args.push("4 + 0.312496*max(0, 31 + wA)");
    let (code, stdout, _) = warpcert(&args);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("sectors: refuted"), "{stdout}");
    assert!(
        stdout.contains("wA=") && stdout.contains("warp ") && stdout.contains("cost "),
        "{stdout}"
    );
    // warpcert's own bound, from the library
    let ka = kernel_args(&file, "32,32", "sectors");
    let l = load(&ka, None).unwrap();
    // the polynomial form: `warpcert claim` compares claims over max(0, ·) atoms
    let ours = analyze(
        &l.program,
        &Metric::standard(MetricName::Sectors),
        &l.hw,
        &l.launch,
        &AnalysisOptions {
            degree: 2,
            floor: false,
            align: false,
        },
    )
    .unwrap()
    .bound
    .to_bound_string();
    let dir = tmp("own");
    let stem = dir.join("own");
    let mut args = base.to_vec();
    args.extend([ours.as_str(), "--out", stem.to_str().unwrap()]);
    let (code, stdout, _) = warpcert(&args);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("sectors: certified"), "{stdout}");
    let cert = std::fs::read_to_string(dir.join("own.cert")).unwrap();
    let v = warpcert_kernel::check(&cert).unwrap();
    assert_eq!(
        ClaimExpr::parse(&v.bound_poly.to_string())
            .unwrap()
            .to_poly()
            .unwrap(),
        ClaimExpr::parse(&ours).unwrap().to_poly().unwrap()
    );
    // a looser claim in Pico's notation is certified through the root Q:WEAK too
    let mut args = base.to_vec();
    args.push("6 + 0.3125 (wA + 31)");
    let (code, stdout, _) = warpcert(&args);
    assert_eq!(code, 0, "{stdout}");
}

/// Exit codes: 2 for an unreadable claim or a name that is not an int parameter, 3 for a
/// claim neither certified nor refuted (a true bound the rewrites cannot compare, with a
/// search too small to matter).
#[test]
fn exit_codes() {
    let file = root().join("examples/vector_add.cu");
    let f = file.to_str().unwrap();
    let run = |bound: &str, extra: &[&str]| {
        let mut a = vec!["claim", f, "--metric", "sectors", "--bound", bound];
        a.extend(extra);
        warpcert(&a)
    };
    assert_eq!(run("2 +", &[]).0, 2);
    assert_eq!(run("nosuch + 1", &[]).0, 2);
    assert_eq!(warpcert(&["claim", f, "--metric", "sectors"]).0, 2);
    assert_eq!(
        warpcert(&["claim", f, "--metric", "all", "--bound", "1"]).0,
        2
    );
    // min(·, ·) has no potential form: not certified; the search finds no counterexample
    // to a claim far above the cost
    let (code, stdout, _) = run(
        "min(1000000, 2000000)",
        &["--points", "2", "--budget", "100000"],
    );
    assert_eq!(code, 3, "{stdout}");
    assert!(
        stdout.contains("unknown") && stdout.contains("tried:"),
        "{stdout}"
    );
    // a constant claim of 0 sectors is refuted by any warp that touches memory
    let (code, stdout, _) = run("0", &["--format", "json"]);
    assert_eq!(code, 1, "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["verdict"], "refuted");
    assert_eq!(v["witness"]["claimed"], "0");
}

/// Claims in warpcert's own printed atoms. The precision kernel `last_round` (its header
/// derives the truth by hand: `divwarps` is 1 when `n > 0` and `32 ∤ n`, else 0):
/// `[32 ∤ n]` is a true bound and is certified; a `sectors` claim `4·[32 ∤ n + 1]` is
/// refuted, with a witness whose claim (written `⌈a/32⌉ − ⌊a/32⌋`) the kernel evaluates. On matrixMul (corpus) warpcert's default
/// floor-form bound, pasted in as printed, is certified.
#[test]
fn residue_and_floor_claims_read_as_printed() {
    let file = root().join("tests/precision/last_round.cu");
    let f = file.to_str().unwrap();
    let run = |bound: &str| {
        warpcert(&[
            "claim", f, "--block", "32", "--metric", "divwarps", "--bound", bound,
        ])
    };
    let (code, stdout, stderr) = run("[32 ∤ n]");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("divwarps: certified"), "{stdout}");
    // the kernel replays witnesses of sectors and conflicts: at n = 31 lanes 0 … 30 store
    // 31 consecutive floats from out[0], 4 sectors, above 4·[32 ∤ 32] = 0
    let (code, stdout, stderr) = warpcert(&[
        "claim",
        f,
        "--block",
        "32",
        "--metric",
        "sectors",
        "--bound",
        "4*[32 ∤ n + 1]",
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("sectors: refuted"), "{stdout}");
    let Some(c) = corpus() else { return };
    let file = c.join("matrixMul.cu");
    let f = file.to_str().unwrap();
    let (code, json, _) = warpcert(&[
        "analyze", f, "--block", "32,32", "--metric", "sectors", "--format", "json",
    ]);
    assert_eq!(code, 0, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let printed = v[0]["per_warp"].as_str().unwrap().to_string();
    assert!(printed.contains('⌊'), "{printed}");
    let (code, stdout, stderr) = warpcert(&[
        "claim", f, "--block", "32,32", "--metric", "sectors", "--bound", &printed,
    ]);
    assert_eq!(code, 0, "{printed}: {stdout}{stderr}");
    assert!(stdout.contains("sectors: certified"), "{stdout}");
}

fn kernel_args(file: &Path, block: &str, metric: &str) -> KernelArgs {
    KernelArgs {
        file: file.to_path_buf(),
        kernel: None,
        metric: metric.into(),
        block: Some(block.into()),
        grid: None,
        params: Vec::new(),
        format: Format::Text,
        warp_size: 32,
        banks: 32,
        bank_bytes: 4,
        sector_bytes: 32,
        front: FrontendArgs::default(),
    }
}

/// Kernels of the test corpus (written for warpcert's tests and examples) with a block.
const CORPUS: &[(&str, &str)] = &[
    ("examples/vector_add.cu", "64"),
    ("examples/tricky.cu", "64"),
    ("tests/data/coqdiff/param_loop.cu", "32"),
    ("tests/data/coqdiff/diverge_if.cu", "64"),
    ("tests/data/coqdiff/shared_conflicts.cu", "32"),
    ("tests/data/coqdiff/data_index.cu", "32"),
    ("tests/data/coqdiff/two_d_block.cu", "8,8"),
];

/// The largest per-warp cost of block 0 (one-block grid, zero input) at `params`, by the
/// executable semantics (the oracle).
fn simulated_max(l: &Loaded, m: MetricName, params: &Params) -> Option<Q> {
    let launch = Launch {
        block: l.launch.block,
        grid: Some([1, 1, 1]),
    };
    let metric = Metric::standard(m);
    let mut best: Option<Q> = None;
    for w in 0..launch.warps_per_block(&l.hw) {
        let r = run_warp(
            &l.program,
            std::slice::from_ref(&metric),
            &l.hw,
            &launch,
            [0, 0, 0],
            w,
            params,
            &Inputs::zero(),
            &RunOptions::default(),
        )
        .ok()?;
        let c = r.costs[0].clone();
        if best.as_ref().is_none_or(|b| c > *b) {
            best = Some(c);
        }
    }
    best
}

/// The property of issue 19: for a random kernel of the corpus, metric and parameter
/// point, a constant claim below the simulated maximum at that point is never
/// `certified`; a claim at or above warpcert's certified bound (the bound plus a
/// non-negative constant, or scaled by a factor ≥ 1) is never `refuted`.
#[test]
fn claims_below_the_simulation_are_never_certified_and_above_our_bound_never_refuted() {
    let prop = |k: u8, m: u8, val: u8, below: u8, extra: u8, scale: bool| -> TestResult {
        let limits = SearchLimits {
            points: 6,
            budget: 2_000_000,
            cells: 64,
            adversarial_points: 2,
        };
        let (file, block) = CORPUS[k as usize % CORPUS.len()];
        let metric = MetricName::ALL[m as usize % 4];
        let ka = kernel_args(&root().join(file), block, metric.as_str());
        let Ok(l) = load(&ka, None) else {
            return TestResult::discard();
        };
        let t = Target {
            prog: &l.program,
            hw: &l.hw,
            block: l.launch.block,
        };
        // Without Q:IFALIGN: claims are written in ClaimExpr's syntax, which has no residue
        // atom `[m ∤ L]` (the bound is pasted into a claim below); `warpcert claim` analyses
        // with the same options (src/cli/claim.rs).
        let opts = AnalysisOptions {
            align: false,
            ..AnalysisOptions::default()
        };
        // (1) a constant claim below the simulated maximum at a point
        let v = i64::from(val % 40);
        let params: Params = l
            .program
            .params
            .iter()
            .filter(|p| !p.name.starts_with("blockIdx.") && !p.name.starts_with("gridDim."))
            .map(|p| {
                (
                    p.name.clone(),
                    match p.ty {
                        warpcert::core::Ty::Int => Value::Int(v),
                        warpcert::core::Ty::Float => Value::Float(v as f64),
                        warpcert::core::Ty::Bool => Value::Bool(v != 0),
                    },
                )
            })
            .collect();
        let Some(sim) = simulated_max(&l, metric, &params) else {
            return TestResult::discard();
        };
        if sim > Q::from_integer(0.into()) {
            // c = sim · below/256 < sim
            let c = sim.clone() * Q::new(i64::from(below).into(), 256.into());
            let text = warpcert::core::assertion::linear::fmt_q(&c);
            let claim = Claim {
                text: text.clone(),
                expr: ClaimExpr::parse(&text).unwrap(),
                metric,
                relation: Relation::Upper,
            };
            let a = audit(&t, &claim, &opts, &limits);
            if matches!(a.verdict, Verdict::Certified(_)) {
                return TestResult::error(format!(
                    "{file} {metric}: {text} < simulated {sim} certified"
                ));
            }
        }
        // (2) at or above warpcert's own bound
        let Ok(ours) = analyze(
            &l.program,
            &Metric::standard(metric),
            &l.hw,
            &l.launch,
            &opts,
        ) else {
            return TestResult::discard();
        };
        let b = ours.bound.to_bound_string();
        let text = if scale {
            format!("{} * ({b})", 1 + u32::from(extra % 3))
        } else {
            format!("{b} + {}", extra % 5)
        };
        let claim = Claim {
            text: text.clone(),
            expr: ClaimExpr::parse(&text).unwrap(),
            metric,
            relation: Relation::Upper,
        };
        let a = audit(&t, &claim, &opts, &limits);
        if let Verdict::Refuted(w) = &a.verdict {
            return TestResult::error(format!("{file} {metric}: {text} refuted at {:?}", w.params));
        }
        TestResult::passed()
    };
    QuickCheck::new()
        .tests(16)
        .max_tests(64)
        .quickcheck(prop as fn(u8, u8, u8, u8, u8, bool) -> TestResult);
}
