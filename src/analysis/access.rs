//! Access bounds `N*` (`spec/logic.md` §2 "Access bounds"; RaCUDA §7 Theorems 7–8, computed
//! here exactly by enumeration over the warps of the block, the residues the dependence
//! entry allows and the lanes that satisfy the thread constraints of `P`).

use super::linear::{Cstr, Dep};
use crate::core::{Hardware, Launch};
use num_integer::Integer;
use num_traits::Zero;
use std::collections::{BTreeMap, BTreeSet};

/// Which hardware function is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// `MemReads` (global arrays).
    MemReads,
    /// `Conflicts` (shared arrays).
    Conflicts,
}

/// Whether lane `tid` satisfies the thread constraints of `p` (lane constraints included).
fn lane_ok(p: &[Cstr], tid: [i64; 3]) -> bool {
    p.iter().filter(|c| c.only_tid()).all(|c| c.holds_at(tid))
}

/// `N*(o)` for an index with dependence `dep` (`None` = `⊤`) into an array of `es`-byte
/// elements, under the thread constraints of `p`: the maximum over warps and admissible
/// byte offsets `β` of the number of sectors (`MemReads`) or of the fullest bank
/// (`Conflicts`). 0 when no lane is kept. Never panics (i128 arithmetic).
pub fn n_star(
    p: &[Cstr],
    dep: Option<Dep>,
    es: u32,
    kind: AccessKind,
    hw: &Hardware,
    launch: &Launch,
) -> u64 {
    let warps = launch.warps_per_block(hw);
    let m: i128 = match kind {
        AccessKind::MemReads => hw.sector_bytes as i128,
        AccessKind::Conflicts => hw.bank_bytes as i128 * hw.banks as i128,
    }
    .max(1);
    let es = es as i128;
    let mut best = 0u64;
    for w in 0..warps {
        let lanes: Vec<[i64; 3]> = launch
            .warp_lanes(hw, w)
            .map(|t| launch.thread_index(t))
            .filter(|t| lane_ok(p, *t))
            .collect();
        if lanes.is_empty() {
            continue;
        }
        let Some(d) = dep else {
            best = best.max(lanes.len() as u64);
            continue;
        };
        let step = (d.g as i128 * es).gcd(&m);
        let base = (d.r as i128 * es).rem_euclid(step.max(1));
        let offs: Vec<i128> = lanes
            .iter()
            .map(|t| (0..3).map(|i| d.k[i] as i128 * t[i] as i128).sum())
            .collect();
        let mut beta = base;
        while beta < m {
            let n = match kind {
                AccessKind::MemReads => offs
                    .iter()
                    .map(|o| (o * es + beta).div_euclid(hw.sector_bytes.max(1) as i128))
                    .collect::<BTreeSet<_>>()
                    .len() as u64,
                AccessKind::Conflicts => {
                    let mut per: BTreeMap<i128, BTreeSet<i128>> = BTreeMap::new();
                    for o in &offs {
                        let bank = (o * es + beta)
                            .div_euclid(hw.bank_bytes.max(1) as i128)
                            .rem_euclid(hw.banks.max(1) as i128);
                        per.entry(bank).or_default().insert(*o);
                    }
                    per.values().map(|s| s.len() as u64).max().unwrap_or(0)
                }
            };
            best = best.max(n);
            if step.is_zero() {
                break;
            }
            beta += step;
        }
    }
    best
}

/// The range bound `R` of spec/logic.md §2 "Access bounds" for an index whose values lie in
/// one window of width `w`: the maximum over `c ∈ [0, M)` of the distinct sectors
/// (`MemReads`) or the fullest bank's count (`Conflicts`) of the element indices
/// `c + v`, `v ∈ [0, w]`. `None` when `(w + 1)·M` exceeds 4 000 000 (the kernel's limit).
pub fn range_bound(w: i64, es: u32, kind: AccessKind, hw: &Hardware) -> Option<u64> {
    let m = match kind {
        AccessKind::MemReads => u64::from(hw.sector_bytes),
        AccessKind::Conflicts => u64::from(hw.bank_bytes) * u64::from(hw.banks),
    };
    let n = u64::try_from(w).ok()?.checked_add(1)?;
    if n.checked_mul(m)? > 4_000_000 {
        return None;
    }
    let es = u64::from(es);
    let (sb, bb, nb) = (
        u64::from(hw.sector_bytes),
        u64::from(hw.bank_bytes),
        u64::from(hw.banks),
    );
    let mut best = 0u64;
    for c in 0..m {
        let count = match kind {
            AccessKind::MemReads => (0..n)
                .map(|v| (c + v) * es / sb)
                .collect::<BTreeSet<_>>()
                .len() as u64,
            AccessKind::Conflicts => {
                let mut per: BTreeMap<u64, u64> = BTreeMap::new();
                for v in 0..n {
                    *per.entry((c + v) * es / bb % nb).or_default() += 1;
                }
                per.values().copied().max().unwrap_or(0)
            }
        };
        best = best.max(count);
    }
    Some(best)
}
