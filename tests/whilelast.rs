//! Q:WHILELAST (spec/logic.md §4, issue 15): a loop whose test splits the warp at most once
//! is charged `M^div` once, not every round; Q:WHILELASTALIGN charges that once only off the
//! test's residue class (`M^div·[m ∤ s − X]`); the kernel rejects both rules where their
//! side conditions fail.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;
use warpcert::semantics::{run_kernel, Inputs, Params, Value};

/// The divwarps certificate and bound of `file` for a block of `bx` threads, symbolic grid,
/// without Q:IFALIGN / Q:WHILELASTALIGN (`analyze --no-align`): Q:WHILELAST's own tests.
fn divwarps(file: &str, bx: u32) -> (String, warpcert::core::assertion::poly::Poly) {
    divwarps_with(file, bx, false)
}

/// The divwarps certificate and bound of `file` for a block of `bx` threads, symbolic grid,
/// with `align` as `AnalysisOptions::align` (on by default).
fn divwarps_with(
    file: &str,
    bx: u32,
    align: bool,
) -> (String, warpcert::core::assertion::poly::Poly) {
    let hw = Hardware::default();
    let src = frontend::parse_file(Path::new(file)).unwrap();
    let launch = Launch {
        block: [bx, 1, 1],
        grid: None,
    };
    let (prog, _) = frontend::lower(&src, None, &launch, &hw, &BTreeMap::new()).unwrap();
    let r = analyze(
        &prog,
        &Metric::standard(MetricName::Divwarps),
        &hw,
        &launch,
        &AnalysisOptions {
            align,
            ..AnalysisOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{file}: {e}"));
    (r.certificate, r.bound)
}

fn at(n: i64) -> BTreeMap<String, i64> {
    BTreeMap::from([("n".to_string(), n), ("gridDim.x".to_string(), 1)])
}

/// tests/precision/last_round.cu: the hand derivation in the file gives at most one divergent
/// test per warp (1 when `n mod 32 ≠ 0`); the certified bound is that 1 at every `n`, by
/// Q:WHILELAST, and the kernel accepts it.
#[test]
fn last_round_divergence_is_charged_once() {
    let (cert, bound) = divwarps("tests/precision/last_round.cu", 32);
    assert!(cert.contains("(Q:WHILELAST"), "Q:WHILELAST not used");
    warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("rejected: {r:?}"));
    for n in [0, 1, 31, 32, 33, 1000, 100_000] {
        assert_eq!(bound.eval(&at(n)), Q::from_integer(1.into()), "n = {n}");
    }
}

/// A step (16) below the lane spread (31): the last round's body does not end with every lane
/// failing `i < n`, so Q:WHILELAST is not used and the bound covers the 2 divergent tests at
/// `n = 40` (hand derivation in tests/data/whilelast/step16.cu).
#[test]
fn a_step_below_the_lane_spread_is_charged_every_round() {
    let file = "tests/data/whilelast/step16.cu";
    let (cert, bound) = divwarps(file, 32);
    assert!(!cert.contains("(Q:WHILELAST"));
    warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("rejected: {r:?}"));
    // the lock-step semantics agrees with the hand derivation: 2 divergent tests at n = 40
    let two = Q::from_integer(2.into());
    assert_eq!(truth(file, 40), two);
    assert!(bound.eval(&at(40)) >= two);
}

/// Mutants of the last_round certificate that the kernel must reject: the rule renamed to
/// Q:WHILE2 (three children), the lane spread of the last-round window lowered (31 → 30 in
/// its constant, `n − i − 31 ≤ 0` claimed as `n − i − 30 ≤ 0`), and the program's step
/// lowered to 16 (the claim `1` would be unsound: 2 divergent tests at `n = 40`).
#[test]
fn kernel_rejects_whilelast_mutants() {
    let (cert, _) = divwarps("tests/precision/last_round.cu", 32);
    let mutants = [
        ("as Q:WHILE2", cert.replacen("(Q:WHILELAST", "(Q:WHILE2", 1)),
        (
            "spread 30",
            cert.replacen("(lin -31 (-1 i) (1 n))", "(lin -30 (-1 i) (1 n))", 1),
        ),
        (
            "step 16",
            cert.replacen("(bin + (var i) (int 32))", "(bin + (var i) (int 16))", 1),
        ),
    ];
    for (what, m) in mutants {
        assert_ne!(m, cert, "{what}: the mutation did not apply");
        assert!(warpcert_kernel::check(&m).is_err(), "{what}: accepted");
    }
}

/// The largest divwarps of a warp by the lock-step semantics: `file` on one block of 32
/// threads with `n` as given.
fn truth(file: &str, n: i64) -> Q {
    let hw = Hardware::default();
    let launch = Launch {
        block: [32, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let src = frontend::parse_file(Path::new(file)).unwrap();
    let (prog, _) = frontend::lower(&src, None, &launch, &hw, &BTreeMap::new()).unwrap();
    let params = Params::from([("n".to_string(), Value::Int(n))]);
    let m = [Metric::standard(MetricName::Divwarps)];
    let run = run_kernel(&prog, &m, &hw, &launch, &params, &Inputs::zero()).unwrap();
    run.metrics[0].max_per_warp.clone()
}

/// tests/precision/last_round.cu with Q:WHILELASTALIGN (the default): the loop test
/// `i < n` has `L = i − n + 1`, `D(i) = (dep i 1 0 0 0 32)`, the local class `(1, 32)` and
/// `X = 1 − n`; the one warp's window `[−30, 0]` misses exactly the integers `≡ 1 (mod 32)`,
/// so the class is `(1, 32)` and the bound is `[32 ∤ n]` (spec/logic.md §4, hand
/// derivation). The file's hand derivation gives `1` if `n > 0` and `32 ∤ n`, else `0`:
/// equal to `[32 ∤ n]` for every `n ≥ 0`, which the lock-step runs confirm point by point.
#[test]
fn last_round_is_charged_only_off_the_residue_class() {
    let file = "tests/precision/last_round.cu";
    let (cert, bound) = divwarps_with(file, 32, true);
    assert!(
        cert.contains("(Q:WHILELASTALIGN"),
        "Q:WHILELASTALIGN not used"
    );
    assert!(cert.contains("(class 1 32)"), "class (1, 32) expected");
    warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("rejected: {r}"));
    for n in [0i64, 1, 31, 32, 33, 63, 64, 65, 96, 1000, 1024] {
        let hand = Q::from_integer(i64::from(n % 32 != 0).into());
        assert_eq!(bound.eval(&at(n)), hand, "bound at n = {n}");
        assert_eq!(truth(file, n), hand, "lock-step run at n = {n}");
    }
}

/// The uniform part `X` of the test must not be written by the body
/// (tests/data/whilelast/moving_bound.cu: `i < m` with `m = m + 1` in the body). The
/// analysis falls back to Q:WHILELAST (bound 1), which the lock-step run needs: 1 divergent
/// test at `n = 32` (hand derivation in the file), where `[32 ∤ n]` would be 0. The same
/// loop node renamed to Q:WHILELASTALIGN with the class `(1, 32)` is rejected, naming `m`.
#[test]
fn a_written_uniform_part_keeps_the_one_time_charge() {
    let file = "tests/data/whilelast/moving_bound.cu";
    let (cert, bound) = divwarps_with(file, 32, true);
    assert!(cert.contains("(Q:WHILELAST "), "Q:WHILELAST expected");
    assert!(!cert.contains("(Q:WHILELASTALIGN"));
    warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("rejected: {r}"));
    let one = Q::from_integer(1.into());
    assert_eq!(truth(file, 32), one);
    assert_eq!(bound.eval(&at(32)), one);
    let mutant = cert.replacen(
        "(Q:WHILELAST (pre 4) (post 1) (entail last (ids 0 8))",
        "(Q:WHILELASTALIGN (pre 4) (post 1) (entail last (ids 0 8)) (class 1 32)",
        1,
    );
    assert_ne!(mutant, cert, "the mutation did not apply");
    let msg = warpcert_kernel::check(&mutant)
        .expect_err("accepted")
        .to_string();
    assert!(
        msg.contains("rule Q:WHILELASTALIGN at node")
            && msg.contains("`m` of the uniform part X of the loop test `(bin < (var i) (var m))` is written by the loop body"),
        "{msg}"
    );
}

/// Mutants of the aligned last_round certificate, each rejected with its own message: a
/// class whose window check fails (`(2, 32)`: the window `[−30, 0]` holds 2 − 32 = −30), a
/// modulus that does not divide the local class's `G = 32` (`(1, 64)`), no class at all, and
/// a wrong charge (`[32 ∤ n + 1]` in place of `[32 ∤ n]` in every potential, so only the loop
/// node's pre equation can fail).
#[test]
fn kernel_rejects_whilelastalign_mutants() {
    let (cert, _) = divwarps_with("tests/precision/last_round.cu", 32, true);
    let mutants = [
        (
            "window",
            cert.replacen("(class 1 32)", "(class 2 32)", 1),
            "the residue class (class 2 32) is not one of the test `(bin < (var i) (param n))`: a warp's window meets the class",
        ),
        (
            "modulus",
            cert.replacen("(class 1 32)", "(class 1 64)", 1),
            "the residue class (class 1 64) is not one of the test `(bin < (var i) (param n))`: M does not divide the local class's modulus G",
        ),
        ("no class", cert.replacen(" (class 1 32)", "", 1), "missing field (class …)"),
        (
            "charge",
            cert.replace("(ndvd (lin 0 (1 n)) 32)", "(ndvd (lin 1 (1 n)) 32)"),
            "body pre + M^if + C + M^div·[m ∤ s − X]",
        ),
    ];
    for (what, m, want) in mutants {
        assert_ne!(m, cert, "{what}: the mutation did not apply");
        let msg = warpcert_kernel::check(&m).expect_err(what).to_string();
        assert!(
            msg.contains("rule Q:WHILELASTALIGN at node") && msg.contains(want),
            "{what}: {msg}"
        );
    }
}

/// The aligned last_round certificate exported to Coq is accepted by `coqc`
/// (Soundness.sound_Q_WHILELASTALIGN, Check.v's DWhileLastAlign case), and a mutant whose
/// class claims the modulus 16 is refused by the reflective check: the one warp's window
/// `[−30, 0]` holds 31 consecutive offsets, which meet every class mod 16 (`nosplit_ok`
/// fails). Skipped without `coqc`.
#[test]
fn coq_accepts_whilelastalign_and_refutes_a_wrong_modulus() {
    if !common::coq::coqc_available() {
        eprintln!("coqc not installed: skipped");
        return;
    }
    let (cert, _) = divwarps_with("tests/precision/last_round.cu", 32, true);
    let v = warpcert::export::coq::export(&cert).expect("export");
    let class = "(1)%Z 32%positive";
    assert!(v.contains("DWhileLastAlign") && v.contains(class), "{v}");
    let mutant = v.replacen(class, "(1)%Z 16%positive", 1);
    common::coq::accepted_and_mutants_refuted(
        "whilelastalign",
        &[("whilelastalign_last_round", v.as_str())],
        &[("whilelastalign_last_round_m16", mutant.as_str())],
    );
}
