//! The precision suite of issue 15 (`tests/precision/*.cu`, `warpcert bench --precision`):
//! every hand-derived worst per-warp cost (the comment at the top of each kernel file) is
//! the lock-step semantics' maximum at every tested point, and every certified bound is at
//! least the simulated maximum at every point (a bound below it is unsound).

use warpcert::cli::precision::{measure, suite};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, MetricName};

/// The hand derivations agree with the semantics, and no bound is below a simulated cost.
#[test]
fn hand_truths_match_the_semantics_and_every_bound_is_sound() {
    let hw = Hardware::default();
    let mut failures = Vec::new();
    for case in suite() {
        let m = measure(&case, &hw).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let i = MetricName::ALL
            .iter()
            .position(|&x| x == case.metric)
            .unwrap();
        for (pt, worst) in &m.sims {
            let hand = Q::from_integer((case.hand)(pt).into());
            if worst[i] != hand {
                failures.push(format!(
                    "{} {} at {pt:?}: hand {hand}, simulated {}",
                    case.name, case.metric, worst[i]
                ));
            }
        }
        for c in &m.cells {
            if c.bound.is_some() && !c.accepted {
                failures.push(format!("{} {}: certificate rejected", c.kernel, c.metric));
            }
            for p in &c.points {
                if !p.sound() {
                    failures.push(format!(
                        "{} {} UNSOUND at {:?}: bound {:?} < simulated {}",
                        c.kernel, c.metric, p.at, p.bound, p.truth
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The soundness check fails on an unsound bound: a cell whose bound is one less than the
/// simulated maximum at one point is reported (the check above can fail).
#[test]
fn a_bound_below_the_simulated_cost_is_unsound() {
    use warpcert::report::precision::PointRatio;
    let p = PointRatio {
        at: Default::default(),
        bound: Some(Q::from_integer(11.into())),
        truth: Q::from_integer(12.into()),
    };
    assert!(!p.sound());
    let ok = PointRatio {
        bound: Some(Q::from_integer(12.into())),
        ..p
    };
    assert!(ok.sound());
    assert_eq!(ok.ratio(), Some(1.0));
}
