//! Q:WHILELAST (spec/logic.md §4, issue 15): a loop whose test splits the warp at most once
//! is charged `M^div` once, not every round; the kernel rejects the rule where its side
//! conditions fail.

use std::collections::BTreeMap;
use std::path::Path;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;
use warpcert::semantics::{run_kernel, Inputs, Params, Value};

/// The divwarps certificate and bound of `file` for a block of `bx` threads, symbolic grid.
fn divwarps(file: &str, bx: u32) -> (String, warpcert::core::assertion::poly::Poly) {
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
        &AnalysisOptions::default(),
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
    let hw = Hardware::default();
    let launch = Launch {
        block: [32, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let src = frontend::parse_file(Path::new(file)).unwrap();
    let (prog, _) = frontend::lower(&src, None, &launch, &hw, &BTreeMap::new()).unwrap();
    let params = Params::from([("n".to_string(), Value::Int(40))]);
    let m = [Metric::standard(MetricName::Divwarps)];
    let run = run_kernel(&prog, &m, &hw, &launch, &params, &Inputs::zero()).unwrap();
    let two = Q::from_integer(2.into());
    assert_eq!(run.metrics[0].max_per_warp, two);
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
