//! Floor atoms of exit loops (spec/logic.md §4a, "Floor atoms of exit loops"; issue 15,
//! mandel20): a loop left by jumps whose counter steps by a constant `c ≥ 2` has the floor
//! atoms `⌊(h − 1)/c⌋⁺`, `⌊(h − 1 + c)/c⌋⁺` of its exit atom `h` in its invariant template,
//! and the `ishift` rewrite between them where the body's else branch knows `h ≥ 1`. The
//! kernel checks the rewrite as any other (no new rule).

mod common;

use common::rng::Rng;
use common::warp32::launch;
use std::collections::BTreeMap;
use warpcert::analysis::{analyze, Analysis, AnalysisOptions};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Metric, MetricName, Program};
use warpcert::semantics::{run_kernel, ArrayInit, Inputs, Params, Value};

/// tests/data/exitstep/exit_step4.cu (hand worst and bound in its comment).
fn program(grid: Option<[u32; 3]>) -> Program {
    common::load_for(
        &common::root().join("tests/data/exitstep/exit_step4.cu"),
        &launch(grid),
    )
}

fn analysis(m: MetricName) -> Analysis {
    let l = launch(None);
    analyze(
        &program(None),
        &Metric::standard(m),
        &Hardware::default(),
        &l,
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn q(v: i64) -> Q {
    Q::from_integer(v.into())
}

/// Rounds of the loop at `n` (the body runs at least once): `⌈n/4⌉`, 1 for `n ≤ 4`.
fn rounds(n: i64) -> i64 {
    ((n + 3) / 4).max(1)
}

/// The lock-step `divwarps` of one warp (block 32, grid 1) at `n` when lane `t` with
/// `leave(t) = Some((r, e))` reads a negative cell at exit `e` of round `r` (`in[96·r + 32·e
/// + t]`), the other cells 1.
fn run(prog: &Program, n: i64, leave: impl Fn(usize) -> Option<(usize, usize)>) -> Q {
    let hw = Hardware::default();
    let mut cells = vec![Value::Float(1.0); 96 * 12];
    for t in 0..32 {
        if let Some((r, e)) = leave(t) {
            cells[96 * r + 32 * e + t] = Value::Float(-1.0);
        }
    }
    let inputs = Inputs::zero().with_array("in", ArrayInit::Values(cells));
    let params: Params = BTreeMap::from([("n".to_string(), Value::Int(n))]);
    let m = Metric::standard(MetricName::Divwarps);
    let r = run_kernel(prog, &[m], &hw, &launch(Some([1, 1, 1])), &params, &inputs).unwrap();
    r.metrics[0].max_per_warp.clone()
}

/// The bound A (Q:WHILEEXIT2) is the floor form of the kernel's comment, `5 + 4·⌊(n −
/// 1)/4⌋⁺ = 4R + 1` (hand, from the rule), accepted by the kernel, with the `ishift` of the
/// exit loop's floor atom; the hand worst `4R − 1` (3R exit splits, R − 1 test splits) is
/// reached by the lock-step semantics (lane `3r + e` leaves alone at exit `e` of round `r`),
/// the bound is within 1.25× of it for 3 ≤ R ≤ 10 (it was `5 + max(0, n)`, 1.55× at
/// `n = 12`), and no input of a seeded random search exceeds it.
#[test]
fn exit_loop_floor_atom_bound_covers_the_lock_step_worst() {
    let a = analysis(MetricName::Divwarps);
    let v = warpcert_kernel::check(&a.certificate).unwrap_or_else(|e| panic!("A rejected: {e}"));
    assert!(
        a.certificate.contains("(Q:WHILEEXIT2 "),
        "Q:WHILEEXIT2 not used"
    );
    assert!(
        a.certificate
            .contains("(ishift (floor (lin 3 (1 i)) 4) 1 (cg "),
        "no ishift of the exit loop's floor atom"
    );
    assert_eq!(v.bound, "5 + 4*max(0, ⌊(n - 1)/4⌋)");
    assert_eq!(a.bound.to_bound_string(), "5 + 4*max(0, ⌊(n - 1)/4⌋)");
    let prog = program(Some([1, 1, 1]));
    let at = |n: i64| BTreeMap::from([("n".to_string(), n)]);
    for n in [-3i64, 0, 1, 4, 5, 8, 9, 12, 13, 20, 33, 40] {
        let r = rounds(n) as usize;
        let bound = a.bound.eval(&at(n));
        assert_eq!(bound, q(4 * r as i64 + 1), "A at n = {n}");
        // the hand worst (3R ≤ 31)
        let worst = run(&prog, n, |t| (t < 3 * r).then_some((t / 3, t % 3)));
        assert_eq!(worst, q(4 * r as i64 - 1), "hand worst at n = {n}");
        if r >= 3 {
            assert!(
                bound.clone() * q(4) <= worst.clone() * q(5),
                "n = {n}: {bound} > 1.25 × {worst}"
            );
        }
        // no lane leaves at a data exit: every lane returns at `i <= 0` together
        assert_eq!(run(&prog, n, |_| None), q(0), "n = {n}, no data exit");
        let mut rng = Rng::new(n.unsigned_abs() + 17);
        for case in 0..40 {
            let plan: Vec<Option<(usize, usize)>> = (0..32)
                .map(|_| {
                    (rng.below(4) != 0)
                        .then(|| (rng.below(r as u64) as usize, rng.below(3) as usize))
                })
                .collect();
            let c = run(&prog, n, |t| plan[t]);
            assert!(
                c <= bound,
                "n = {n}, case {case}: lock-step {c} > A = {bound}"
            );
            assert!(
                c <= q(4 * r as i64 - 1),
                "n = {n}, case {case}: {c} above the hand worst"
            );
        }
    }
}

/// Kernel mutants of A's `ishift` of `⌊(i + 3)/4⌋⁺` (the else branch of `i <= 0`, whose `P`
/// has `i ≥ 1` as its constraint 3), pinned by message: (1) the cut without that constraint
/// (`⌊(i + 3)/4⌋ ≥ 1` does not follow from the atom's defining facts alone: the cut
/// `1/4·i − q0` is not integral); (2) the shift by 2 rounds instead of 1 (the cut proves
/// `q0 ≥ 1`, not `q0 ≥ 2`).
#[test]
fn kernel_refuses_mutated_exit_floor_certificates() {
    let a = analysis(MetricName::Divwarps);
    let cert = &a.certificate;
    let rw = "(ishift (floor (lin 3 (1 i)) 4) 1 (cg (cut (3 1/4) (5 1/4)) (farkas (6 1))))";
    assert_eq!(
        cert.matches(rw).count(),
        1,
        "the ishift of the else branch of `i <= 0`"
    );
    let check = |from: &str, to: &str| {
        let m = cert.replacen(from, to, 1);
        assert_ne!(&m, cert);
        warpcert_kernel::check(&m)
            .expect_err("mutant accepted")
            .to_string()
    };
    let e = check(rw, &rw.replace("(cut (3 1/4) (5 1/4))", "(cut (5 1/4))"));
    assert!(
        e.contains(
            "rewrite pre witness 1 for `cut 0`: `1/4*i - (q0)` has a non-integer coefficient"
        ),
        "{e}"
    );
    let e = check(rw, &rw.replace(" 4) 1 (cg", " 4) 2 (cg"));
    assert!(
        e.contains("rewrite pre witness 1 for `-(q0) + 2 <= 0`: residual constant 1 is too large"),
        "{e}"
    );
}
