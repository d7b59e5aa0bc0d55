//! Witness replay (spec/relational.md §8). Expected costs are hand-derived from the
//! definitions of MemReads/Conflicts in spec/metrics.md.

use warpcert_kernel::witness::check_witness;

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
    for (m, n, c) in [("sectors", 3, "27"), ("sectors", 3, "29"), ("conflicts", 3, "0"), ("sectors", 2, "28")] {
        let r = check_witness(&text(m, n, c));
        assert!(r.is_err(), "{m} n={n} cost {c} accepted");
    }
}

#[test]
fn malformed_witnesses_are_rejected() {
    let good = text("sectors", 1, "12");
    assert!(check_witness(&good).is_ok());
    assert!(check_witness(&good.replace("warpcert-witness 1", "warpcert-witness 2")).is_err());
    assert!(check_witness(&good.replace("(metric sectors)", "(metric steps)")).is_err());
    assert!(check_witness(&good.replace("(warp 0)", "(warp 1)")).is_err());
    assert!(check_witness(&good.replace("(params (n 1))", "(params (m 1))")).is_err());
    assert!(check_witness(&good.replace("(block 0 0 0)", "(block 1 0 0)")).is_err());
}
