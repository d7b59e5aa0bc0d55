//! Witness replay (spec/relational.md §8). Expected costs are hand-derived from the
//! definitions of MemReads/Conflicts in spec/metrics.md.

use warpcert_kernel::arith::Rat;
use warpcert_kernel::witness::{check_witness, ClaimRelation, RunError, WitnessError};
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
    assert_eq!(v.cost, Rat::from_integer(28.into()));
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
    assert_eq!(rej("warpcert-witness 1", "warpcert-witness 3"), WitnessError::Header);
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

/// A version-2 witness: `t ← B[tid]; A[t] ← 1` on one warp of 32 lanes, with the contents
/// of `B` and a claim. Hand counts (spec/metrics.md, 32-byte sectors, 4-byte ints): the read
/// of `B[0..32]` touches 4 sectors; the write touches one sector per distinct `⌊4t/32⌋`.
/// With `B[k] = 8k` the 32 lanes write 32 distinct sectors: 4 + 32 = 36. With `B` all 0
/// (zero input or `(fill 0)`) all lanes write `A[0]`: 4 + 1 = 5.
fn v2(arrays: &str, claim: &str) -> String {
    format!(
        "warpcert-witness 2
(metric sectors)
(hardware 32 32 4 32)
(launch 32 1 1)
(grid 1 1 1)
(block 0 0 0)
(warp 0)
(params (n 1))
{arrays}
(program k
  (params (int n))
  (arrays (A global int 4) (B global int 4) (F global float 4))
  (locals (int t))
  (body (seq (assign t (read B (tid x))) (write A (var t) (int 1)))))
(cost {})
{claim}
",
        if arrays.contains("cells 0 8") { 36 } else { 5 }
    )
}

fn spread() -> String {
    let cells: Vec<String> = (0..32).map(|k| (8 * k).to_string()).collect();
    format!("(arrays (B (cells {})))", cells.join(" "))
}

fn r(n: i64) -> Rat {
    Rat::from_integer(n.into())
}

#[test]
fn array_contents_are_replayed() {
    assert_eq!(check_witness(&v2(&spread(), "")).unwrap().cost, r(36));
    assert_eq!(check_witness(&v2("(arrays (B (fill 0)))", "")).unwrap().cost, r(5));
    assert_eq!(check_witness(&v2("", "")).unwrap().cost, r(5));
    // the stated cost must still be the replayed one
    let wrong = v2(&spread(), "").replace("(cost 36)", "(cost 5)");
    assert_eq!(check_witness(&wrong).unwrap_err(), WitnessError::CostDiffers { replayed: r(36), stated: r(5) });
}

#[test]
fn claims_are_refuted_only_by_a_cost_on_the_wrong_side() {
    // upper: 36 > 4 + n = 5 refutes; 36 does not; ⌊71/2⌋ = 35 does, ⌈71/2⌉ = 36 does not
    let v = check_witness(&v2(&spread(), "(claim upper (+ 4 (param n)))")).unwrap();
    assert_eq!(v.refutes, Some((ClaimRelation::Upper, r(5))));
    assert_eq!(
        check_witness(&v2(&spread(), "(claim upper 36)")).unwrap_err(),
        WitnessError::NotRefuted { relation: ClaimRelation::Upper, cost: r(36), claimed: r(36) }
    );
    assert!(check_witness(&v2(&spread(), "(claim upper (floor (/ 71 2)))")).is_ok());
    assert!(matches!(
        check_witness(&v2(&spread(), "(claim upper (ceil (/ 71 2)))")),
        Err(WitnessError::NotRefuted { .. })
    ));
    // 4 + 0.312496·(31 + n) at n = 1 is 4 + 9.999872 = 13.999872 < 36, exactly (decimal
    // rationals; RaCUDA's matrixMul bound shape)
    let v = check_witness(&v2(&spread(), "(claim upper (+ 4 (* 312496/1000000 (max 0 (+ 31 (param n))))))")).unwrap();
    assert_eq!(v.refutes, Some((ClaimRelation::Upper, Rat::new(13_999_872.into(), 1_000_000.into()))));
    // lower: 5 < 6 refutes; 5 < 5 does not
    assert!(check_witness(&v2("", "(claim lower (max 6 (min (param n) 0)))")).is_ok());
    assert!(matches!(
        check_witness(&v2("", "(claim lower (- 6 (param n)))")),
        Err(WitnessError::NotRefuted { relation: ClaimRelation::Lower, .. })
    ));
}

#[test]
fn malformed_v2_sections_are_rejected() {
    let rej = |arrays: &str, claim: &str| check_witness(&v2(arrays, claim)).unwrap_err();
    assert_eq!(rej("", "(claim upper (param m))"), WitnessError::ClaimEval("no int value for `m`".into()));
    assert_eq!(rej("", "(claim upper (/ 1 0))"), WitnessError::ClaimEval("division by zero".into()));
    assert!(matches!(rej("", "(claim upper (sqrt 2))"), WitnessError::ClaimEval(_)));
    assert!(matches!(rej("", "(claim upper (+ 1))"), WitnessError::ClaimEval(_)));
    assert!(matches!(rej("", "(claim exact 3)"), WitnessError::Malformed { section: "claim", .. }));
    assert_eq!(rej("", "(claim upper 1) (claim upper 2)"), WitnessError::Section("claim"));
    assert_eq!(rej("(arrays (C (fill 0)))", ""), WitnessError::NotAnArray("C".into()));
    assert_eq!(rej("(arrays (B (fill 0)) (B (fill 1)))", ""), WitnessError::NotAnArray("B".into()));
    assert_eq!(rej("(arrays (B (cells true)))", ""), WitnessError::CellType("B".into()));
    assert_eq!(rej("(arrays (F (cells 1/2 x)))", ""), WitnessError::CellType("F".into()));
    assert!(matches!(rej("(arrays (B (range 0)))", ""), WitnessError::Malformed { section: "arrays", .. }));
    let deep = format!("(claim upper {}1{})", "(floor ".repeat(1200), ")".repeat(1200));
    assert_eq!(rej("", &deep), WitnessError::ClaimEval("nested deeper than 200 operators".into()));
    // version 1 has neither section
    let v1 = v2("(arrays (B (fill 0)))", "").replace("warpcert-witness 2", "warpcert-witness 1");
    assert_eq!(check_witness(&v1).unwrap_err(), WitnessError::Version2Section("arrays"));
    let v1 = v2("", "(claim upper 1)").replace("warpcert-witness 2", "warpcert-witness 1");
    assert_eq!(check_witness(&v1).unwrap_err(), WitnessError::Version2Section("claim"));
}
