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
