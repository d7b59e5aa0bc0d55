//! Q:WHILEWARP (spec/logic.md §4, issue 15): a loop whose test cannot split a warp (the
//! window check on the offset class of the test's form) is charged no `M^div`; the kernel
//! rejects the rule where the window check or its other premises fail.

use std::collections::BTreeMap;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;
use warpcert::semantics::{run_kernel, Inputs, Params};

const BINS: &str = "tests/data/whilewarp/bins.cu";

fn launch(grid: Option<[u32; 3]>) -> Launch {
    Launch {
        block: [192, 1, 1],
        grid,
    }
}

/// The divwarps certificate and bound of `src` (block 192, symbolic grid).
fn divwarps(src: &str) -> (String, warpcert::core::assertion::poly::Poly) {
    let hw = Hardware::default();
    let file = frontend::parse_str(BINS, src).unwrap();
    let (prog, _) = frontend::lower(&file, None, &launch(None), &hw, &BTreeMap::new()).unwrap();
    let r = analyze(
        &prog,
        &Metric::standard(MetricName::Divwarps),
        &hw,
        &launch(None),
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (r.certificate, r.bound)
}

/// The largest simulated per-warp divwarps of `src` (one block of 192, zero inputs).
fn simulated(src: &str) -> Q {
    let hw = Hardware::default();
    let file = frontend::parse_str(BINS, src).unwrap();
    let l = launch(Some([1, 1, 1]));
    let (prog, _) = frontend::lower(&file, None, &l, &hw, &BTreeMap::new()).unwrap();
    let m = [Metric::standard(MetricName::Divwarps)];
    let run = run_kernel(&prog, &m, &hw, &l, &Params::new(), &Inputs::zero()).unwrap();
    run.metrics[0].max_per_warp.clone()
}

/// tests/data/whilewarp/bins.cu: the hand derivation in the file gives 0 divergent tests
/// (every round's bound is a multiple of 32), the semantics agrees, and the certified bound is
/// that 0, by Q:WHILEWARP, accepted by the kernel.
#[test]
fn a_loop_that_never_splits_a_warp_is_not_charged() {
    let src = std::fs::read_to_string(BINS).unwrap();
    let (cert, bound) = divwarps(&src);
    assert!(cert.contains("(Q:WHILEWARP"), "Q:WHILEWARP not used");
    warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("rejected: {r:?}"));
    let zero = Q::from_integer(0.into());
    assert_eq!(simulated(&src), zero);
    assert_eq!(bound.eval(&BTreeMap::new()), zero);
}

/// With the bound 250 (not a multiple of 32) the test splits warp 1 in round 1 (b = 224 …
/// 255: lanes with b < 250 stay): the semantics shows 1 divergent test, the analysis does
/// not use Q:WHILEWARP and its bound covers it.
#[test]
fn a_loop_that_splits_a_warp_is_charged() {
    let src = std::fs::read_to_string(BINS)
        .unwrap()
        .replace("b < 256", "b < 250");
    let (cert, bound) = divwarps(&src);
    assert!(!cert.contains("(Q:WHILEWARP"));
    warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("rejected: {r:?}"));
    let one = Q::from_integer(1.into());
    assert_eq!(simulated(&src), one);
    assert!(bound.eval(&BTreeMap::new()) >= one);
}

/// Mutants of the bins certificate that the kernel must reject: the rule renamed to Q:WHILE1
/// (the test `b < 256` is not uniform), the program's bound changed to 250 (the window check
/// fails: the claim 0 would be unsound, 1 divergent test above), the stride changed to 190
/// (the entry `(dep b 1 0 0 0 192)` of the invariant no longer holds after the body), and the
/// rule renamed to Q:WHILE2 (whose pre must include `M^div`, which this node's does not).
#[test]
fn kernel_rejects_whilewarp_mutants() {
    let src = std::fs::read_to_string(BINS).unwrap();
    let (cert, _) = divwarps(&src);
    let mutants = [
        ("as Q:WHILE1", cert.replacen("(Q:WHILEWARP", "(Q:WHILE1", 1)),
        ("as Q:WHILE2", cert.replacen("(Q:WHILEWARP", "(Q:WHILE2", 1)),
        ("bound 250", cert.replace("(int 256)", "(int 250)")),
        ("stride 190", cert.replace("(int 192)", "(int 190)")),
    ];
    for (what, m) in mutants {
        assert_ne!(m, cert, "{what}: the mutation did not apply");
        assert!(warpcert_kernel::check(&m).is_err(), "{what}: accepted");
    }
}
