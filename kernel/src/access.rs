//! `N*(o)`: the access bound the kernel recomputes for `MemReads` / `Conflicts`
//! (spec/logic.md §2 "Access bounds"; RaCUDA §7's use of the thread-dependence
//! information), by enumeration over the warps of the block and the admissible residues.

use crate::arith::{Cstr, Dep, Rat};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};
use std::collections::{BTreeMap, BTreeSet};

/// Which hardware function to bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `MemReads`: distinct sectors (global memory).
    MemReads,
    /// `Conflicts`: distinct addresses in the fullest bank (shared memory).
    Conflicts,
}

/// Enumeration work limit (lanes × residues); beyond it the bound is not computed.
pub const WORK_LIMIT: u64 = 4_000_000;

/// The number of threads of a block, `None` when it does not fit in `u64`.
pub fn block_threads(block: [u32; 3]) -> Option<u64> {
    block.iter().try_fold(1u64, |acc, &b| acc.checked_mul(u64::from(b)))
}

/// The thread index `[x, y, z]` of linear thread id `t` in a block (x fastest). Block
/// dimensions are at least 1 (the reader requires it; 0 is read as 1 here).
pub fn thread_index(block: [u32; 3], t: u64) -> [i64; 3] {
    let [bx, by, _] = block.map(|b| u64::from(b.max(1)));
    // x and y are below 2^32; z is at most t (callers pass t below the block size)
    let z = t / (bx * by);
    [(t % bx) as i64, ((t / bx) % by) as i64, i64::try_from(z).unwrap_or(i64::MAX)]
}

/// Whether lane `tid` satisfies every constraint of `p` over `threadIdx.*` alone, lane
/// constraints `(mod L m S)` included (spec/logic.md §2 "Access bounds").
fn lane_ok(p: &[Cstr], tid: [i64; 3]) -> bool {
    const NAMES: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];
    p.iter().filter(|c| c.lin.terms.keys().all(|v| NAMES.contains(&v.as_str()))).all(|c| {
        let mut v = c.lin.c.clone();
        for (name, a) in &c.lin.terms {
            let t = NAMES.iter().zip(tid).find(|(n, _)| *n == name).map_or(0, |(_, t)| t);
            v += a * Rat::from_integer(BigInt::from(t));
        }
        match &c.lane {
            // `v` is an integer: the form of a lane constraint has integer coefficients
            // (well-formedness); `mod_floor` of a non-integer rational would be meaningless.
            Some(l) => v.is_integer() && l.rs.contains(&v.to_integer().mod_floor(&l.m)),
            None if c.eq => v.is_zero(),
            None => !v.is_positive(),
        }
    })
}

/// Whether a lane with thread index `tid` is kept by the thread constraints of `p` (those
/// over `threadIdx.d` only): by integer evaluation ([`IntCstr`]) when they all fit, else by
/// the exact [`lane_ok`]. Shared by [`n_star`] and [`row_table`].
fn lane_keeper(p: &[Cstr]) -> impl Fn([i64; 3]) -> bool + '_ {
    const NAMES: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];
    let ints: Option<Vec<IntCstr>> =
        p.iter().filter(|c| c.lin.terms.keys().all(|v| NAMES.contains(&v.as_str()))).map(IntCstr::of).collect();
    move |tid| match &ints {
        Some(cs) => cs.iter().all(|c| c.holds_at(tid)),
        None => lane_ok(p, tid),
    }
}

/// A thread constraint in machine integers, for speed only: a linear form scaled by the
/// positive lcm of its denominators (same sign, same zero), a lane constraint as it is
/// (integral by well-formedness); built only when every number fits in `i64`, so that
/// `c + Σ k_d·tid_d` (thread indices below `2^32`) is exact in `i128`.
struct IntCstr {
    k: [i128; 3],
    c: i128,
    eq: bool,
    lane: Option<(i128, Vec<i128>)>,
}

impl IntCstr {
    fn of(c: &Cstr) -> Option<IntCstr> {
        const NAMES: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];
        let den = c.lin.terms.values().fold(c.lin.c.denom(), |d, a| d.lcm(&a.denom()));
        if c.lane.is_some() && den != BigInt::from(1) {
            return None;
        }
        let int = |x: &Rat| (x * Rat::from_integer(den.clone())).to_integer().to_i64().map(i128::from);
        let mut k = [0i128; 3];
        for (v, a) in &c.lin.terms {
            *k.get_mut(NAMES.iter().position(|n| n == v)?)? = int(a)?;
        }
        let lane = match &c.lane {
            Some(l) => Some((
                i128::from(l.m.to_i64()?),
                l.rs.iter().map(|r| r.to_i64().map(i128::from)).collect::<Option<Vec<_>>>()?,
            )),
            None => None,
        };
        Some(IntCstr { k, c: int(&c.lin.c)?, eq: c.eq, lane })
    }
    fn holds_at(&self, tid: [i64; 3]) -> bool {
        let v = self.c + self.k.iter().zip(tid).map(|(k, t)| k * i128::from(t)).sum::<i128>();
        match &self.lane {
            Some((m, rs)) => rs.contains(&v.rem_euclid(*m)),
            None if self.eq => v == 0,
            None => v <= 0,
        }
    }
}

/// `N*`: the maximum over warps (and, for a known dependence, over admissible base
/// addresses `β`) of the access count, given the block dimensions, hardware
/// `[warp, banks, bank_bytes, sector_bytes]`, the pre-constraints `p`, the index's
/// dependence `dep` (`None` = ⊤) and the element size `es` in bytes. For a scaled entry
/// `dep` (`?` dimensions `u`), the lanes of a warp are grouped by their `threadIdx.d`,
/// `u[d]`; `N*` of the warp is the sum over the groups of each group's maximum over all
/// `β ≡ 0 (mod gcd(es, M))` (spec/logic.md §2 "Access bounds").
///
/// Errors: `Err(work)` when the enumeration would exceed [`WORK_LIMIT`].
pub fn n_star(block: [u32; 3], hw: [u32; 4], p: &[Cstr], dep: Option<&Dep>, es: u32, kind: Kind) -> Result<u64, u64> {
    let [warp, banks, bank_bytes, sector_bytes] = hw.map(u64::from);
    let total = block_threads(block).filter(|&t| t <= WORK_LIMIT).ok_or(u64::MAX)?;
    let m = match kind {
        Kind::MemReads => sector_bytes,
        Kind::Conflicts => bank_bytes * banks,
    };
    let es_i = BigInt::from(es);
    let m_i = BigInt::from(m);
    let (base, step) = match dep {
        None => (0, m),
        Some(d) => {
            // a scaled entry's groups have unknown bases: (r, g) = (0, 1)
            let (r, g) = if d.linear() { (d.r.clone(), d.g.clone()) } else { (BigInt::zero(), BigInt::from(1)) };
            let step = (&g * &es_i).gcd(&m_i);
            let base = (&r * &es_i).mod_floor(&step);
            (base.to_u64().unwrap_or(0), step.to_u64().unwrap_or(m).max(1))
        }
    };
    let work = total.saturating_mul((m - base.min(m)).div_ceil(step));
    if work > WORK_LIMIT {
        return Err(work);
    }
    let betas: Vec<u64> = (base..m).step_by(usize::try_from(step).unwrap_or(usize::MAX)).collect();
    let mut best = 0u64;
    let mut start = 0u64;
    let keep = lane_keeper(p);
    let hw = [banks, bank_bytes, sector_bytes];
    while start < total {
        let end = start.saturating_add(warp).min(total);
        let lanes: Vec<[i64; 3]> = (start..end).map(|t| thread_index(block, t)).filter(|&tid| keep(tid)).collect();
        start = end;
        let Some(d) = dep else {
            best = best.max(lanes.len() as u64);
            continue;
        };
        let u = d.unknown_dims();
        let mut groups: BTreeMap<[i64; 3], Vec<[i64; 3]>> = BTreeMap::new();
        for t in lanes {
            let mut key = [0i64; 3];
            for ((kd, ud), td) in key.iter_mut().zip(u).zip(t) {
                if ud {
                    *kd = td;
                }
            }
            groups.entry(key).or_default().push(t);
        }
        best = best.max(groups.values().map(|g| warp_count(g, d, es, &betas, hw, kind)).sum());
    }
    Ok(best)
}

/// `N_W(o)` of spec/logic.md §4b: the **smallest** access count of warp `warp` (all its
/// lanes, none dropped) over the base addresses `β ≡ r·es (mod gcd(g·es, M))` of a linear
/// entry `dep = (k, r, g)`; 1 for any other entry or none (a warp touches at least one
/// sector, its fullest bank holds at least one address). Hardware and units as [`n_star`].
///
/// Errors: `Err(work)` when the enumeration would exceed [`WORK_LIMIT`] (or the warp is
/// empty: `Err(0)`).
pub fn n_warp(block: [u32; 3], hw: [u32; 4], warp: u32, dep: Option<&Dep>, es: u32, kind: Kind) -> Result<u64, u64> {
    let wsz = u64::from(hw[0]);
    let total = block_threads(block).ok_or(u64::MAX)?;
    let start = u64::from(warp).checked_mul(wsz).filter(|&s| s < total).ok_or(0u64)?;
    let threads: Vec<u64> = (start..start.saturating_add(wsz).min(total)).collect();
    n_lanes(block, hw, &threads, dep, es, kind)
}

/// [`n_warp`] over the thread ids `threads` (a non-empty lane subset `T` of the named warp,
/// spec/logic.md §4b L:IFSPLIT: the lanes a branch runs on): the smallest count of those
/// lanes' addresses over the admissible base addresses; 1 without a linear entry.
///
/// Errors: `Err(work)` above [`WORK_LIMIT`], `Err(0)` for an empty `threads`.
pub fn n_lanes(
    block: [u32; 3],
    hw: [u32; 4],
    threads: &[u64],
    dep: Option<&Dep>,
    es: u32,
    kind: Kind,
) -> Result<u64, u64> {
    let [_, banks, bank_bytes, sector_bytes] = hw.map(u64::from);
    if threads.is_empty() {
        return Err(0);
    }
    let Some(d) = dep.filter(|d| d.linear()) else {
        return Ok(1);
    };
    let m = if kind == Kind::MemReads { sector_bytes } else { bank_bytes * banks };
    let step = (&d.g * BigInt::from(es)).gcd(&BigInt::from(m)).to_u64().unwrap_or(m).max(1);
    let base = (&d.r * BigInt::from(es)).mod_floor(&BigInt::from(step)).to_u64().unwrap_or(0);
    let lanes: Vec<[i64; 3]> = threads.iter().map(|&t| thread_index(block, t)).collect();
    if (lanes.len() as u64).saturating_mul(m.div_ceil(step)) > WORK_LIMIT {
        return Err(WORK_LIMIT);
    }
    let counts = (base..m).step_by(usize::try_from(step).unwrap_or(usize::MAX));
    Ok(counts.map(|b| warp_count(&lanes, d, es, &[b], [banks, bank_bytes, sector_bytes], kind)).min().unwrap_or(1))
}

/// The largest access count over the base addresses `betas` of the lanes `lanes` whose
/// element offsets are `k·tid` (`k` of `d`), as in [`n_star`].
fn warp_count(lanes: &[[i64; 3]], d: &Dep, es: u32, betas: &[u64], hw: [u64; 3], kind: Kind) -> u64 {
    let [banks, bank_bytes, sector_bytes] = hw;
    let es_i = BigInt::from(es);
    // Offsets in machine integers when `k` fits in i64 (|k·tid| < 2^95: exact in i128).
    let k_small: Option<Vec<i128>> = d.k.iter().map(|k| k.to_i64().map(i128::from)).collect();
    let small: Option<Vec<i128>> =
        k_small.map(|k| lanes.iter().map(|t| k.iter().zip(t).map(|(k, t)| k * i128::from(*t)).sum()).collect());
    let mut best = 0u64;
    for &beta in betas {
        if let Some(c) = small.as_ref().and_then(|os| count_small(os, es, beta, hw, kind)) {
            best = best.max(c);
            continue;
        }
        let offs: Vec<BigInt> =
            lanes.iter().map(|t| d.k.iter().zip(t).map(|(k, t)| k * BigInt::from(*t)).sum()).collect();
        let addr = |o: &BigInt| o * &es_i + BigInt::from(beta);
        let count = match kind {
            Kind::MemReads => {
                let s: BTreeSet<BigInt> = offs.iter().map(|o| addr(o).div_floor(&BigInt::from(sector_bytes))).collect();
                s.len() as u64
            }
            Kind::Conflicts => {
                let mut per: BTreeMap<BigInt, BTreeSet<&BigInt>> = BTreeMap::new();
                for o in &offs {
                    let bank = addr(o).div_floor(&BigInt::from(bank_bytes)).mod_floor(&BigInt::from(banks));
                    per.entry(bank).or_default().insert(o);
                }
                per.values().map(|s| s.len() as u64).max().unwrap_or(0)
            }
        };
        best = best.max(count);
    }
    best
}

/// The access count of one warp and base address `beta` as in [`n_star`], in machine
/// integers (speed only): the lanes' offsets `o = k·tid`, addresses `o·es + beta` computed
/// exactly in `i128` (`None` if one would overflow; the caller then counts with `BigInt`).
/// Floor division and remainder by a positive divisor are `div_euclid` and `rem_euclid`.
fn count_small(
    offs: &[i128],
    es: u32,
    beta: u64,
    [banks, bank_bytes, sector_bytes]: [u64; 3],
    kind: Kind,
) -> Option<u64> {
    let addrs: Vec<i128> =
        offs.iter().map(|o| o.checked_mul(i128::from(es))?.checked_add(i128::from(beta))).collect::<Option<_>>()?;
    match kind {
        Kind::MemReads => {
            let mut s: Vec<i128> = addrs.iter().map(|a| a.div_euclid(i128::from(sector_bytes))).collect();
            s.sort_unstable();
            s.dedup();
            Some(s.len() as u64)
        }
        Kind::Conflicts => {
            // distinct offsets per bank; the largest group
            let mut per: Vec<(i128, i128)> = addrs
                .iter()
                .zip(offs)
                .map(|(a, o)| (a.div_euclid(i128::from(bank_bytes)).rem_euclid(i128::from(banks)), *o))
                .collect();
            per.sort_unstable();
            per.dedup();
            let mut best = 0u64;
            let mut run = 0u64;
            let mut last: Option<i128> = None;
            for (bank, _) in &per {
                run = if last == Some(*bank) { run + 1 } else { 1 };
                last = Some(*bank);
                best = best.max(run);
            }
            Some(best)
        }
    }
}

/// The range bound `R` of spec/logic.md §2 "Access bounds": for element indices in one
/// window `[c', c' + w]`, the maximum over `c ∈ [0, M)` of the number of distinct sectors
/// (`MemReads`, `M = sector_bytes`) or of the largest number of `v ∈ [0, w]` in one bank
/// (`Conflicts`, `M = bank_bytes·banks`) of the indices `c + v`. `None` when
/// `(w + 1)·M` exceeds [`WORK_LIMIT`].
pub fn range_bound(hw: [u32; 4], w: &BigInt, es: u32, kind: Kind) -> Option<u64> {
    let [_, banks, bank_bytes, sector_bytes] = hw.map(u64::from);
    let m = match kind {
        Kind::MemReads => sector_bytes,
        Kind::Conflicts => bank_bytes * banks,
    };
    let n = w.to_u64()?.checked_add(1)?;
    if n.checked_mul(m)? > WORK_LIMIT {
        return None;
    }
    let es = u64::from(es);
    let mut best = 0u64;
    for c in 0..m {
        let count = match kind {
            Kind::MemReads => (0..n).map(|v| (c + v) * es / sector_bytes).collect::<BTreeSet<_>>().len() as u64,
            Kind::Conflicts => {
                let mut per: BTreeMap<u64, u64> = BTreeMap::new();
                for v in 0..n {
                    *per.entry((c + v) * es / bank_bytes % banks).or_default() += 1;
                }
                per.values().copied().max().unwrap_or(0)
            }
        };
        best = best.max(count);
    }
    Some(best)
}

/// `f(ρ)` of Q:GWRITEROWS / Q:VWRITEROWS (spec/logic.md §4, issue 15), for every residue
/// `ρ ∈ [0, P)` of the row multiplier `X` modulo `P = M / gcd(es, M)`: the largest, over the
/// warps of the block (lanes kept by the thread constraints of `p`, as in [`n_star`]) and the
/// admissible bases `β₀ ≡ r·es (mod gcd(g·es, M))` of the scaled entry `dep = (k, r, g)` whose
/// one `?` dimension is `dim`, of `Σ_y count(lanes with tid_dim = y, base β₀ + es·ρ·y mod M)`
/// — each row's sectors (`MemReads`) or fullest bank (`Conflicts`) counted at the row's own
/// base, which `X ≡ ρ (mod P)` fixes modulo `M`. Returns `(P, f)`.
///
/// Errors: `Err(work)` when the enumeration would exceed [`WORK_LIMIT`] or a number does not
/// fit in machine integers.
pub fn row_table(
    block: [u32; 3],
    hw: [u32; 4],
    p: &[Cstr],
    dep: &Dep,
    dim: usize,
    es: u32,
    kind: Kind,
) -> Result<(u64, Vec<u64>), u64> {
    let [warp, banks, bank_bytes, sector_bytes] = hw.map(u64::from);
    let total = block_threads(block).filter(|&t| t <= WORK_LIMIT).ok_or(u64::MAX)?;
    let m = match kind {
        Kind::MemReads => sector_bytes,
        Kind::Conflicts => bank_bytes * banks,
    }
    .max(1);
    let es64 = u64::from(es);
    let period = m / es64.gcd(&m).max(1);
    let step = (&dep.g * BigInt::from(es)).gcd(&BigInt::from(m)).to_u64().unwrap_or(m).max(1);
    let base = (&dep.r * BigInt::from(es)).mod_floor(&BigInt::from(step)).to_u64().unwrap_or(0);
    let betas: Vec<u64> = (base..m).step_by(usize::try_from(step).unwrap_or(usize::MAX)).collect();
    let work = total.saturating_mul(period).saturating_mul(betas.len() as u64);
    if work > WORK_LIMIT {
        return Err(work);
    }
    let k: Vec<i128> = dep.k.iter().map(|k| k.to_i64().map(i128::from)).collect::<Option<_>>().ok_or(u64::MAX)?;
    let keep = lane_keeper(p);
    let mut f = vec![0u64; usize::try_from(period).map_err(|_| u64::MAX)?];
    let mut start = 0u64;
    while start < total {
        let end = start.saturating_add(warp).min(total);
        // rows of the warp: (y, offsets k·tid of its lanes)
        let mut rows: BTreeMap<i64, Vec<i128>> = BTreeMap::new();
        for t in (start..end).map(|t| thread_index(block, t)).filter(|&tid| keep(tid)) {
            let y = t.get(dim).copied().unwrap_or(0);
            rows.entry(y).or_default().push(k.iter().zip(t).map(|(k, t)| k * i128::from(t)).sum());
        }
        start = end;
        for (rho, fr) in (0..period).zip(f.iter_mut()) {
            for &b0 in &betas {
                let mut sum = 0u64;
                for (y, offs) in &rows {
                    let shift =
                        i128::from(es64).checked_mul(i128::from(rho)).and_then(|s| s.checked_mul(i128::from(*y)));
                    let beta = shift
                        .and_then(|s| s.checked_add(i128::from(b0)))
                        .map(|b| b.rem_euclid(i128::from(m)))
                        .and_then(|b| u64::try_from(b).ok())
                        .ok_or(u64::MAX)?;
                    sum += count_small(offs, es, beta, [banks, bank_bytes, sector_bytes], kind).ok_or(u64::MAX)?;
                }
                *fr = (*fr).max(sum);
            }
        }
    }
    Ok((period, f))
}

/// The table of Q:GWRITEGUARD / Q:VWRITEGUARD (spec/logic.md §4 "Guarded accesses",
/// issue 15): for every value `T = K·tid(l)` of a kept lane `l` (lanes kept by the thread
/// constraints of `p`, as in [`n_star`]) of some warp of the block, the largest, over the
/// warps in which `T` occurs and the admissible bases `β ≡ r·es (mod gcd(g·es, M))` of the
/// linear entry `dep = (k, r, g)`, of the access count (sectors for `MemReads`, fullest
/// bank for `Conflicts`, as [`n_star`]) of the warp's kept lanes `l'` with
/// `K·tid(l') ≤ T` — the lanes that can be active when the guard `K·tid + c ≤ 0` holds on
/// every active lane and the active lane with the largest `K·tid` has `K·tid = T`.
///
/// Errors: `Err(work)` when the enumeration would exceed [`WORK_LIMIT`], the entry is not
/// linear, or a number does not fit in machine integers.
pub fn guard_table(
    block: [u32; 3],
    hw: [u32; 4],
    p: &[Cstr],
    dep: &Dep,
    guard_k: [i128; 3],
    es: u32,
    kind: Kind,
) -> Result<BTreeMap<i128, u64>, u64> {
    let [warp, banks, bank_bytes, sector_bytes] = hw.map(u64::from);
    if !dep.linear() {
        return Err(u64::MAX);
    }
    let total = block_threads(block).filter(|&t| t <= WORK_LIMIT).ok_or(u64::MAX)?;
    let m = match kind {
        Kind::MemReads => sector_bytes,
        Kind::Conflicts => bank_bytes * banks,
    }
    .max(1);
    let step = (&dep.g * BigInt::from(es)).gcd(&BigInt::from(m)).to_u64().unwrap_or(m).max(1);
    let base = (&dep.r * BigInt::from(es)).mod_floor(&BigInt::from(step)).to_u64().unwrap_or(0);
    let betas: Vec<u64> = (base..m).step_by(usize::try_from(step).unwrap_or(usize::MAX)).collect();
    let work = total.saturating_mul(betas.len() as u64).saturating_mul(warp.max(1));
    if work > WORK_LIMIT {
        return Err(work);
    }
    let k: Vec<i128> = dep.k.iter().map(|k| k.to_i64().map(i128::from)).collect::<Option<_>>().ok_or(u64::MAX)?;
    let dot = |c: &[i128], t: [i64; 3]| -> Option<i128> {
        c.iter().zip(t).try_fold(0i128, |acc, (c, t)| acc.checked_add(c.checked_mul(i128::from(t))?))
    };
    let keep = lane_keeper(p);
    let mut table: BTreeMap<i128, u64> = BTreeMap::new();
    let mut start = 0u64;
    while start < total {
        let end = start.saturating_add(warp).min(total);
        // the warp's kept lanes as (K·tid, k·tid), by K·tid
        let mut lanes: Vec<(i128, i128)> = Vec::new();
        for t in (start..end).map(|t| thread_index(block, t)).filter(|&tid| keep(tid)) {
            lanes.push((dot(&guard_k, t).ok_or(u64::MAX)?, dot(&k, t).ok_or(u64::MAX)?));
        }
        start = end;
        lanes.sort_unstable();
        for &beta in &betas {
            let mut i = 0;
            while i < lanes.len() {
                let t_val = lanes.get(i).map_or(0, |l| l.0);
                // the prefix of lanes with K·tid ≤ T
                let mut j = i;
                while lanes.get(j).is_some_and(|l| l.0 == t_val) {
                    j += 1;
                }
                let offs: Vec<i128> = lanes.get(..j).unwrap_or(&[]).iter().map(|l| l.1).collect();
                let c = count_small(&offs, es, beta, [banks, bank_bytes, sector_bytes], kind).ok_or(u64::MAX)?;
                let e = table.entry(t_val).or_insert(0);
                *e = (*e).max(c);
                i = j;
            }
        }
    }
    Ok(table)
}
