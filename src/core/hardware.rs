//! Hardware parameters, launch configurations, and the hardware functions `MemReads` and
//! `Conflicts` (RaCUDA §3, generalized as in §7; see `spec/metrics.md`).

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Hardware parameters. Defaults follow current NVIDIA GPUs; every result states the values used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Hardware {
    /// Threads per warp (32).
    pub warp_size: u32,
    /// Number of shared-memory banks (32).
    pub banks: u32,
    /// Width of one bank in bytes (4).
    pub bank_bytes: u32,
    /// Size of one global-memory sector in bytes (32).
    pub sector_bytes: u32,
}

impl Default for Hardware {
    fn default() -> Self {
        Hardware {
            warp_size: 32,
            banks: 32,
            bank_bytes: 4,
            sector_bytes: 32,
        }
    }
}

/// A launch configuration: block dimensions and, optionally, grid dimensions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Launch {
    /// `blockDim.{x,y,z}`.
    pub block: [u32; 3],
    /// `gridDim.{x,y,z}`; `None` leaves the grid symbolic (`gridDim.x` ... stay parameters).
    pub grid: Option<[u32; 3]>,
}

impl Launch {
    /// Threads per block.
    pub fn block_threads(&self) -> u64 {
        self.block.iter().map(|&d| d as u64).product()
    }
    /// Warps per block: `ceil(block_threads / warp_size)`.
    pub fn warps_per_block(&self, hw: &Hardware) -> u64 {
        self.block_threads().div_ceil(hw.warp_size as u64)
    }
    /// The thread index `(x, y, z)` of linear thread id `t` (x fastest, as CUDA numbers threads).
    pub fn thread_index(&self, t: u64) -> [i64; 3] {
        let bx = self.block[0] as u64;
        let by = self.block[1] as u64;
        [
            (t % bx) as i64,
            ((t / bx) % by) as i64,
            (t / (bx * by)) as i64,
        ]
    }
    /// The linear thread ids of warp `w` of a block: `w·warp_size ..` up to the block's end.
    pub fn warp_lanes(&self, hw: &Hardware, w: u64) -> std::ops::Range<u64> {
        let start = w * hw.warp_size as u64;
        let end = (start + hw.warp_size as u64).min(self.block_threads());
        start..end
    }
}

/// `MemReads(R)`: the number of distinct global-memory sectors touched by the element indices
/// in `indices` (one per active thread; duplicates are one access), for elements of
/// `elem_bytes` bytes and sectors of `hw.sector_bytes` bytes:
/// `|{ ⌊i·elem_bytes / sector_bytes⌋ : i ∈ Cod(R) }|`. Zero for an empty family.
pub fn mem_reads(indices: &[i64], elem_bytes: u32, hw: &Hardware) -> u64 {
    let unit = |i: i64| (i as i128 * elem_bytes as i128).div_euclid(hw.sector_bytes as i128) as i64;
    if ascending(indices) {
        // Fast path (coalesced accesses): units are ascending too; count the changes.
        return count_runs(
            indices
                .iter()
                .map(|&i| unit_of(i, elem_bytes, hw.sector_bytes)),
        );
    }
    let sectors: BTreeSet<i64> = indices.iter().map(|&i| unit(i)).collect();
    sectors.len() as u64
}

/// Whether `xs` is non-decreasing.
fn ascending(xs: &[i64]) -> bool {
    xs.windows(2).all(|w| w[0] <= w[1])
}

/// `⌊i·bytes / unit⌋` as `mem_reads` computes it (in `i128`, cast to `i64`), without the
/// `i128` division when the product fits in `i64`.
fn unit_of(i: i64, bytes: u32, unit: u32) -> i64 {
    match i.checked_mul(bytes as i64) {
        Some(b) => b.div_euclid(unit as i64),
        None => (i as i128 * bytes as i128).div_euclid(unit as i128) as i64,
    }
}

/// The number of distinct values of a non-decreasing sequence.
fn count_runs(xs: impl Iterator<Item = i64>) -> u64 {
    let mut n = 0;
    let mut last = None;
    for x in xs {
        if last != Some(x) {
            n += 1;
            last = Some(x);
        }
    }
    n
}

/// `Conflicts(R)`: the largest number of distinct element indices that fall into one
/// shared-memory bank, where element `i` lies in bank `⌊i·elem_bytes / bank_bytes⌋ mod banks`.
/// Zero for an empty family, 1 for a conflict-free (or broadcast) access.
pub fn conflicts(indices: &[i64], elem_bytes: u32, hw: &Hardware) -> u64 {
    let bank = |i: i64| {
        let word = (i as i128 * elem_bytes as i128).div_euclid(hw.bank_bytes as i128);
        word.rem_euclid(hw.banks as i128) as i64
    };
    if ascending(indices) && hw.banks <= 64 {
        // Fast path: distinct indices are the changes of the sorted family.
        let mut per_bank = [0u64; 64];
        let mut last = None;
        for &i in indices {
            if last != Some(i) {
                last = Some(i);
                let b = match i.checked_mul(elem_bytes as i64) {
                    Some(x) => x
                        .div_euclid(hw.bank_bytes as i64)
                        .rem_euclid(hw.banks as i64),
                    None => bank(i),
                };
                per_bank[b as usize] += 1;
            }
        }
        return per_bank.iter().copied().max().unwrap_or(0);
    }
    let distinct: BTreeSet<i64> = indices.iter().copied().collect();
    let mut per_bank: BTreeMap<i64, u64> = BTreeMap::new();
    for i in distinct {
        *per_bank.entry(bank(i)).or_insert(0) += 1;
    }
    per_bank.values().copied().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RaCUDA §3 Example 1 uses 128-byte segments and 4-byte ints: indices {0,4,…,60} touch
    /// two segments, indices 16..31 one.
    #[test]
    fn racuda_example1_segments() {
        let hw = Hardware {
            sector_bytes: 128,
            ..Hardware::default()
        };
        let strided: Vec<i64> = (0..16).map(|x| 4 * x).collect();
        assert_eq!(mem_reads(&strided, 4, &hw), 2);
        let upper: Vec<i64> = (16..32).collect();
        assert_eq!(mem_reads(&upper, 4, &hw), 1);
    }

    /// 32 consecutive aligned ints in 32-byte sectors: 4 sectors; shifted by one: 5 (RaCUDA §4, Fig. 9).
    #[test]
    fn sectors_aligned_and_unaligned() {
        let hw = Hardware::default();
        let aligned: Vec<i64> = (0..32).collect();
        assert_eq!(mem_reads(&aligned, 4, &hw), 4);
        let shifted: Vec<i64> = (1..33).collect();
        assert_eq!(mem_reads(&shifted, 4, &hw), 5);
    }

    /// Stride 1 is conflict-free, stride 2 is a 2-way conflict, a broadcast is one address.
    #[test]
    fn bank_conflicts_by_stride() {
        let hw = Hardware::default();
        let s1: Vec<i64> = (0..32).collect();
        assert_eq!(conflicts(&s1, 4, &hw), 1);
        let s2: Vec<i64> = (0..32).map(|x| 2 * x).collect();
        assert_eq!(conflicts(&s2, 4, &hw), 2);
        assert_eq!(conflicts(&[7; 32], 4, &hw), 1);
        let s32: Vec<i64> = (0..32).map(|x| 32 * x).collect();
        assert_eq!(conflicts(&s32, 4, &hw), 32);
    }
}
