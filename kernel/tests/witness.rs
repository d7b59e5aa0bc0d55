//! Witness replay (spec/relational.md §8). Expected costs are hand-derived from the
//! definitions of MemReads/Conflicts in spec/metrics.md.

use num_rational::BigRational as Rat;
use warpcert_kernel::witness::{check_witness, RunError, WitnessError};
use warpcert_kernel::Reason;

/// One warp of 32 threads: `A[tid] ← 0` (32 consecutive ints = 128 bytes = 4 sectors of
/// 32 bytes), then `n` times `A[2·tid] ← 1` (bytes 0..248 = 8 sectors each), and the shared
/// write `S[2·tid] ← 1` (banks of 4 bytes, 32 banks: indices 2t and 2t+32 share a bank,
/// 2 distinct per bank, Conflicts = 2, conflicts cost 1).
fn text(metric: &str, n: i64, cost: &str) -> String {
    format!(
        "warpcert-witness 1
(metric {metric})
(hardware 32 32 4 32)
(launch 32 1 1)
(grid 1 1 1)
(block 0 0 0)
(warp 0)
(params (n {n}))
(program k
  (params (int n))
  (arrays (A global int 4) (S shared int 4))
  (locals (int i) (int t))
  (body
    (seq
      (write A (tid x) (int 0))
      (seq
        (assign t (bin * (tid x) (int 2)))
        (seq
          (while (bin < (var i) (param n))
            (seq
              (write A (var t) (int 1))
              (assign i (bin + (var i) (int 1)))))
          (write S (var t) (int 1)))))))
(cost {cost})
"
    )
}

#[test]
fn sectors_witness_replays() {
    // 4 + 3·8 = 28 (hand count).
    let v = check_witness(&text("sectors", 3, "28")).unwrap();
    assert_eq!(v.cost, num_rational::BigRational::from_integer(28.into()));
    assert!(check_witness(&text("sectors", 0, "4")).is_ok());
}

#[test]
fn conflicts_witness_replays() {
    assert!(check_witness(&text("conflicts", 3, "1")).is_ok());
}

#[test]
fn wrong_costs_are_rejected() {
    // Replayed costs (hand counts above): sectors n=3: 28; conflicts n=3: 1; sectors n=2: 20.
    for (m, n, c, replayed) in
        [("sectors", 3, "27", 28), ("sectors", 3, "29", 28), ("conflicts", 3, "0", 1), ("sectors", 2, "28", 20)]
    {
        let r = check_witness(&text(m, n, c)).unwrap_err();
        let stated: i64 = c.parse().unwrap();
        assert_eq!(
            r,
            WitnessError::CostDiffers {
                replayed: Rat::from_integer(replayed.into()),
                stated: Rat::from_integer(stated.into())
            },
            "{m} n={n} cost {c}"
        );
    }
}

#[test]
fn malformed_witnesses_are_rejected() {
    let good = text("sectors", 1, "12");
    assert!(check_witness(&good).is_ok());
    let rej = |from: &str, to: &str| check_witness(&good.replace(from, to)).unwrap_err();
    assert_eq!(rej("warpcert-witness 1", "warpcert-witness 2"), WitnessError::Header);
    assert_eq!(rej("(metric sectors)", "(metric steps)"), WitnessError::Metric("steps".into()));
    assert_eq!(rej("(warp 0)", "(warp 1)"), WitnessError::WarpOutside(1));
    assert_eq!(rej("(params (n 1))", "(params (m 1))"), WitnessError::NotAParameter("m".into()));
    assert_eq!(rej("(block 0 0 0)", "(block 1 0 0)"), WitnessError::Launch);
    assert_eq!(rej("(grid 1 1 1)", ""), WitnessError::Section("grid"));
    assert_eq!(
        rej("(launch 32 1 1)", "(launch 32 1)"),
        WitnessError::Malformed { section: "launch", expected: "non-negative 32-bit numbers" }
    );
    // An ill-typed program (an int written into the int array is fine; a bool is not).
    let r = rej("(write A (tid x) (int 0))", "(write A (tid x) (bool true))");
    assert!(
        matches!(&r, WitnessError::Read(rj) if matches!(rj.reason, Reason::TypeMismatch { expected: "int", found: "bool", .. })),
        "{r}"
    );
}

#[test]
fn run_time_errors_are_typed() {
    let good = text("sectors", 1, "12");
    let rej = |from: &str, to: &str| check_witness(&good.replace(from, to)).unwrap_err();
    // t ← threadIdx.x / 0 divides by zero on every lane.
    let r = rej("(assign t (bin * (tid x) (int 2)))", "(assign t (bin / (tid x) (int 0)))");
    assert_eq!(r, WitnessError::Run(RunError::DivisionByZero("/".into())));
    // Lanes write different values (threadIdx.x) to A[0].
    let r = rej("(write A (tid x) (int 0))", "(write A (int 0) (tid x))");
    assert_eq!(r, WitnessError::Run(RunError::WriteRace { array: "A".into(), index: 0 }));
    // A shift amount of 64 is outside 0..64.
    let r = rej("(assign t (bin * (tid x) (int 2)))", "(assign t (bin << (tid x) (int 64)))");
    assert_eq!(r, WitnessError::Run(RunError::Overflow("<<".into())));
}
