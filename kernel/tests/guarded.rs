//! Q:GWRITEGUARD / Q:VWRITEGUARD's table (spec/logic.md §4 "Guarded accesses", issue 15):
//! for each lane value `T = K·tid`, the sectors of a warp's lanes with `K·tid ≤ T`, against
//! hand counts (4-byte elements, 32-byte sectors: lanes `8s … 8s + 7` of an aligned warp
//! share sector `s`).

use num_bigint::BigInt;
use std::collections::BTreeMap;
use warpcert_kernel::access::{guard_table, Kind};
use warpcert_kernel::arith::Dep;

const HW: [u32; 4] = [32, 32, 4, 32];

/// `i = threadIdx.x + c` with `c ≡ 0 (mod g)`: the linear entry `(1 0 0 0 g)`.
fn index(g: i64) -> Dep {
    Dep::norm([1, 0, 0].map(BigInt::from), BigInt::from(0), BigInt::from(g))
}

#[test]
fn prefix_sectors_of_an_aligned_block() {
    // hand (block 64, guard `i < n`, K = 1): warp w has T = 32w + m, m = 0 … 31, and its
    // lanes 32w … T meet ⌊m/8⌋ + 1 sectors
    let t = guard_table([64, 1, 1], HW, &[], &index(32), [1, 0, 0], 4, Kind::MemReads).unwrap();
    let want: BTreeMap<i128, u64> = (0..64).map(|t| (t, (t % 32) as u64 / 8 + 1)).collect();
    assert_eq!(t, want);
}

#[test]
fn a_reversed_guard_counts_from_the_top() {
    // hand (block 32, a guard `c − threadIdx.x ≤ 0`, K = −1): lane m has T = −m, and the
    // lanes with −tid ≤ −m are tid ≥ m: sectors ⌊m/8⌋ … 3, that is 4 − ⌊m/8⌋
    let t = guard_table([32, 1, 1], HW, &[], &index(32), [-1, 0, 0], 4, Kind::MemReads).unwrap();
    let want: BTreeMap<i128, u64> = (0..32).map(|m| (-m, 4 - (m as u64) / 8)).collect();
    assert_eq!(t, want);
}

#[test]
fn an_unknown_base_takes_the_worst_alignment() {
    // hand (block 32, g = 1: any base β ∈ {0, 4, …, 28}): the lanes 0 … m are m + 1
    // consecutive floats from byte β, meeting ⌊(β + 4m)/32⌋ + 1 sectors, most at β = 28:
    // ⌊(m + 7)/8⌋ + 1 (1 for one lane, 5 for the whole warp)
    let t = guard_table([32, 1, 1], HW, &[], &index(1), [1, 0, 0], 4, Kind::MemReads).unwrap();
    let want: BTreeMap<i128, u64> = (0..32).map(|m| (m, (m as u64).div_ceil(8) + 1)).collect();
    assert_eq!(t, want);
}
