//! Wrapped dependence entries (issue 15, spec/logic.md §2 "Wrapped entries"): `x ← a % m`
//! with a linear dividend keeps `a`'s lane stride for `Conflicts` when `m·es` is a multiple
//! of `bank_bytes·banks`, and only then; otherwise (and for remainder entries) the index is
//! bounded by its window `[1 − m, m − 1]`.

mod common;

use common::coq::{accepted_and_mutants_refuted, coqc_available};
use std::collections::BTreeMap;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::cli::precision::{measure, suite_dir, Case, Point};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;
use warpcert_kernel::{Reason, Rejection};

/// The `conflicts` certificate of `tests/precision/NAME.cu` (block 32, symbolic grid) and
/// the bound the kernel accepted.
fn certificate(name: &str) -> (String, String) {
    let hw = Hardware::default();
    let launch = Launch {
        block: [32, 1, 1],
        grid: None,
    };
    let src = frontend::parse_file(&suite_dir().join(format!("{name}.cu"))).unwrap();
    let (prog, _) = frontend::lower(&src, None, &launch, &hw, &BTreeMap::new()).unwrap();
    let m = Metric::standard(MetricName::Conflicts);
    let a = analyze(&prog, &m, &hw, &launch, &AnalysisOptions::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let v = warpcert_kernel::check(&a.certificate).unwrap_or_else(|r| panic!("{name}: {r:?}"));
    (a.certificate, v.bound)
}

fn reason(r: Rejection) -> Reason {
    r.reason
}

/// modloop.cu (`s[(threadIdx.x + k) % 32]`, 4-byte floats: `32·4 = 128 = bank_bytes·banks`):
/// the index has the wrapped entry `(wrap t1 1 0 0 32)` and every access is 1-way, so the
/// certified bound is the hand-derived 0 (the file's comment; it was `max(0, n)` with the
/// window `[−31, 31]` alone). A certificate whose entry claims the stride 2 instead is
/// rejected at the assignment (Q:VWRITE: not implied by `ent_P,D(e)`, the window
/// `(rng 62)`, nor by `wrap_D(e)`, `(wrap 1 0 0 32)`).
#[test]
fn a_modulus_of_the_bank_period_keeps_the_lane_stride() {
    let (cert, bound) = certificate("modloop");
    assert_eq!(bound, "0");
    assert!(
        cert.contains("(wrap t1 1 0 0 32)"),
        "no wrapped entry:\n{cert}"
    );
    let bad = cert.replace("(wrap t1 1 0 0 32)", "(wrap t1 2 0 0 32)");
    let r = warpcert_kernel::check(&bad).expect_err("a wrong stride was accepted");
    assert_eq!(
        reason(r),
        Reason::DepNotImplied {
            var: "t1".to_string(),
            have: "(rng 62)".to_string(),
            want: "(wrap 2 0 0 32)".to_string()
        }
    );
}

/// The precision case of mod48.cu (not in the table), hand derivation in the file.
fn mod48_case() -> Case {
    Case {
        name: "mod48",
        file: "mod48.cu",
        pattern: "% 48 (not a multiple of the banks)",
        block: [32, 1, 1],
        concrete_grid: None,
        metric: MetricName::Conflicts,
        points: [0i64, 1, 2, 5, 17]
            .iter()
            .map(|&n| Point::from([("n".to_string(), n), ("G".to_string(), 1)]))
            .collect(),
        hand: |pt| pt["n"].max(0),
        extra_inputs: Vec::new,
    }
}

/// mod48.cu: `(threadIdx.x + 32) % 48` is 2-way (hand derivation in the file: banks 0…15
/// hold two words each), although its dividend `threadIdx.x + 32` is 1-way: counting the
/// wrap as the lane stride would give 0, below the truth. `48·4 = 192` is not a multiple of
/// 128, so the kernel bounds the access by the window `[−47, 47]` of the remainder entry
/// (95 consecutive words, at most 3 in a bank: 2 conflicts per round, bound `2·max(0, n)`),
/// which is at least the lock-step semantics' cost at every point; a claim of 1 (the
/// lane stride's count) for that access is rejected with the window's count 3.
#[test]
fn a_modulus_off_the_bank_period_is_bounded_by_its_window() {
    let (cert, bound) = certificate("mod48");
    assert_eq!(bound, "2*max(0, n)");
    let m = measure(&mod48_case(), &Hardware::default()).unwrap();
    for (pt, worst) in &m.sims {
        assert_eq!(
            worst[1],
            Q::from_integer(pt["n"].max(0).into()),
            "hand derivation at {pt:?}"
        );
    }
    let cell = m
        .cells
        .iter()
        .find(|c| c.metric == MetricName::Conflicts)
        .unwrap();
    assert!(cell.accepted);
    for p in &cell.points {
        assert!(
            p.sound(),
            "unsound at {:?}: {:?} < {}",
            p.at,
            p.bound,
            p.truth
        );
    }
    let claim = "(EQ:SARRAY (n 3) _)";
    assert!(cert.contains(claim), "no window claim:\n{cert}");
    let bad = cert.replace(claim, "(EQ:SARRAY (n 1) _)");
    let r = warpcert_kernel::check(&bad).expect_err("the lane stride's count was accepted");
    assert_eq!(
        reason(r),
        Reason::AccessBound {
            claimed: "1".to_string(),
            required: 3
        }
    );
}

/// The Coq export of modloop's certificate (`DWrap`, `Logic.wrap_dep`,
/// `Soundness.conf_wrap_le`) is accepted by coqc; mutants whose wrapped entry claims the
/// modulus 16 (`16·4 = 64`: not counted as the stride; the window `[−15, 15]` still gives 1
/// per bank, but the entry is not `wrap_D(e)`) or the stride 2 are refuted by the reflective
/// check.
#[test]
fn wrapped_entries_check_in_coq() {
    if !coqc_available() {
        eprintln!("skipped: coqc not installed");
        return;
    }
    let (cert, _) = certificate("modloop");
    let e = warpcert::export::coq::export(&cert).unwrap();
    let entry = "(1%Z, 0%Z, 0%Z) 32%Z";
    let at = e
        .find(entry)
        .unwrap_or_else(|| panic!("no DWrap entry in the export"));
    let head = &e[e[..at].rfind("DWrap ").unwrap()..at];
    let full = format!("{head}{entry}");
    let m16 = e.replace(&full, &full.replace("32%Z", "16%Z"));
    let k2 = e.replace(&full, &full.replace("(1%Z, 0%Z, 0%Z)", "(2%Z, 0%Z, 0%Z)"));
    accepted_and_mutants_refuted(
        "wrap",
        &[("modloop", e.as_str())],
        &[("mutant_m16", m16.as_str()), ("mutant_k2", k2.as_str())],
    );
}
