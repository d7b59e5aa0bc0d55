//! Q:GWRITEROWS / Q:VWRITEROWS's count `f(ρ)` (spec/logic.md §4 "Rows", issue 15) on the
//! precision kernels rows8 and rows16, against the hand derivations in their comments
//! (tests/precision/rows8.cu, rows16.cu): per access and warp, 4 floats per sector row
//! runs of 8 (rows8) or 16 (rows16) floats starting at byte `4·y·W`.

use num_bigint::BigInt;
use warpcert_kernel::access::{row_table, Kind};
use warpcert_kernel::arith::{Dep, EntryKind};

const HW: [u32; 4] = [32, 32, 4, 32];

/// `threadIdx.y·W + threadIdx.x`: the scaled entry `(1 ? 0 0 0)`.
fn row_index() -> Dep {
    let mut d = Dep::norm([1, 0, 0].map(BigInt::from), BigInt::from(0), BigInt::from(0));
    d.kind = EntryKind::Scaled([false, true, false]);
    d
}

#[test]
fn rows8_counts_per_residue_of_the_row_length() {
    // hand: W ≡ 0 (mod 8): 4 aligned runs; W ≡ 4: odd rows misaligned, 6; W ≡ 2 (mod 4): rows
    // y ≢ 0 (mod 4) misaligned, 7; W odd: warp 1 (rows 4…7) all misaligned, 8
    let (p, f) = row_table([8, 32, 1], HW, &[], &row_index(), 1, 4, Kind::MemReads).unwrap();
    assert_eq!(p, 8);
    assert_eq!(f, vec![4, 8, 7, 8, 6, 8, 7, 8]);
}

#[test]
fn rows16_counts_per_residue_of_the_row_length() {
    // hand: W ≡ 0 (mod 8): 2 + 2; W ≡ 4: 2 + 3; otherwise warp 1 (rows 2, 3) 3 + 3
    let (p, f) = row_table([16, 16, 1], HW, &[], &row_index(), 1, 4, Kind::MemReads).unwrap();
    assert_eq!(p, 8);
    assert_eq!(f, vec![4, 6, 6, 6, 5, 6, 6, 6]);
}

#[test]
fn an_unknown_offset_takes_the_worst_common_base() {
    // `y·W + x + c` with `c` any integer (g = 1): the base of row 0 is free, so even W ≡ 0
    // (mod 8) can misalign every row: rows16 2 × 3 = 6 (hand), and never more than 6
    let mut d = row_index();
    d.g = BigInt::from(1);
    let (_, f) = row_table([16, 16, 1], HW, &[], &d, 1, 4, Kind::MemReads).unwrap();
    assert_eq!(f, vec![6; 8]);
}
