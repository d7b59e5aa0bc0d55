//! Access bounds `N*` (`spec/logic.md` §2 "Access bounds"; RaCUDA §7 Theorems 7–8, computed
//! here exactly by enumeration over the warps of the block, the residues the dependence
//! entry allows and the lanes that satisfy the thread constraints of `P`).

use crate::core::assertion::linear::{CKind, Cstr, Dep};
use crate::core::metric::Q;
use crate::core::{Hardware, Launch};
use num_integer::Integer;
use num_traits::Zero;
use num_traits::{One, ToPrimitive};
use std::collections::{BTreeMap, BTreeSet};

/// Which hardware function is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// `MemReads` (global arrays).
    MemReads,
    /// `Conflicts` (shared arrays).
    Conflicts,
}

/// A thread constraint with integer coefficients (a linear one scaled by the positive lcm
/// of its denominators; a lane constraint as it is): `k·tid + c` compared with 0, or taken
/// modulo `m`.
struct IntCstr {
    k: [i128; 3],
    c: i128,
    kind: CKind,
}

impl IntCstr {
    fn of(c: &Cstr) -> Option<IntCstr> {
        let mut den = c.lin.c.denom().clone();
        for a in c.lin.terms.values() {
            den = den.lcm(a.denom());
        }
        if c.is_lane() && !den.is_one() {
            return None;
        }
        let int = |x: &Q| {
            (x * Q::from_integer(den.clone()))
                .to_integer()
                .to_i64()
                .map(i128::from)
        };
        let mut k = [0i128; 3];
        for (v, a) in &c.lin.terms {
            let i = match v.as_str() {
                "threadIdx.x" => 0,
                "threadIdx.y" => 1,
                _ => 2,
            };
            k[i] = int(a)?;
        }
        Some(IntCstr {
            k,
            c: int(&c.lin.c)?,
            kind: c.kind.clone(),
        })
    }
    fn holds_at(&self, tid: [i64; 3]) -> bool {
        let v = self.c + (0..3).map(|i| self.k[i] * tid[i] as i128).sum::<i128>();
        match &self.kind {
            CKind::Le => v <= 0,
            CKind::Eq => v == 0,
            CKind::Mod(m, rs) => rs.contains(&(v.rem_euclid(*m as i128) as i64)),
        }
    }
}

/// Whether a lane satisfies the thread constraints of `p` (lane constraints included):
/// integer arithmetic when every constraint fits, exact rationals otherwise.
fn lane_filter(p: &[Cstr]) -> impl Fn(&[i64; 3]) -> bool + '_ {
    let tid: Vec<&Cstr> = p.iter().filter(|c| c.only_tid()).collect();
    let ints: Option<Vec<IntCstr>> = tid.iter().map(|c| IntCstr::of(c)).collect();
    move |t: &[i64; 3]| match &ints {
        Some(cs) => cs.iter().all(|c| c.holds_at(*t)),
        None => tid.iter().all(|c| c.holds_at(*t)),
    }
}

/// `N*(o)` for an index with dependence `dep` (`None` = `⊤`) into an array of `es`-byte
/// elements, under the thread constraints of `p`: the maximum over warps and admissible
/// byte offsets `β` of the number of sectors (`MemReads`) or of the fullest bank
/// (`Conflicts`). For a scaled entry, the lanes of a warp are grouped by their `?`
/// dimensions and the groups' maxima over every `β ≡ 0 (mod gcd(es, M))` are added
/// (spec/logic.md §2 "Access bounds"). 0 when no lane is kept. Never panics (i128
/// arithmetic).
pub fn n_star(
    p: &[Cstr],
    dep: Option<Dep>,
    es: u32,
    kind: AccessKind,
    hw: &Hardware,
    launch: &Launch,
) -> u64 {
    let warps = launch.warps_per_block(hw);
    let m = modulus(kind, hw);
    let es = es as i128;
    let mut best = 0u64;
    let lane_ok = lane_filter(p);
    for w in 0..warps {
        let lanes: Vec<[i64; 3]> = launch
            .warp_lanes(hw, w)
            .map(|t| launch.thread_index(t))
            .filter(|t| lane_ok(t))
            .collect();
        if lanes.is_empty() {
            continue;
        }
        let Some(d) = dep else {
            best = best.max(lanes.len() as u64);
            continue;
        };
        // a scaled entry's groups have unknown bases: (r, g) = (0, 1)
        let (r, g) = if d.is_linear() { (d.r, d.g) } else { (0, 1) };
        let step = (g as i128 * es).gcd(&m);
        let base = (r as i128 * es).rem_euclid(step.max(1));
        let u = d.unknown_dims();
        let mut groups: BTreeMap<[i64; 3], Vec<i128>> = BTreeMap::new();
        for t in &lanes {
            let off = (0..3).map(|i| d.k[i] as i128 * t[i] as i128).sum();
            groups
                .entry([0, 1, 2].map(|i| if u[i] { t[i] } else { 0 }))
                .or_default()
                .push(off);
        }
        let n: u64 = groups
            .values()
            .map(|offs| group_count(offs, es, base, step, m, kind, hw))
            .sum();
        best = best.max(n);
    }
    best
}

/// The largest access count of the element offsets `offs` over the byte offsets
/// `β = base, base + step, … < m` (as in [`n_star`]).
fn group_count(
    offs: &[i128],
    es: i128,
    base: i128,
    step: i128,
    m: i128,
    kind: AccessKind,
    hw: &Hardware,
) -> u64 {
    let mut best = 0u64;
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
                for o in offs {
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

/// `f(ρ)` of Q:GWRITEROWS / Q:VWRITEROWS (spec/logic.md §4 "Rows"; the kernel's
/// `access::row_table`): for the scaled entry `dep` with one `?` dimension `dim`, for every
/// residue `ρ ∈ [0, P)`, `P = M / gcd(es, M)`, of the row multiplier, the largest over warps
/// and admissible bases `β₀ ≡ r·es (mod gcd(g·es, M))` of the sum over the warp's rows
/// `y` of the row's count at base `β₀ + es·ρ·y (mod M)`. `None` when the work exceeds
/// 4 000 000 lane-counts.
pub fn row_table(
    p: &[Cstr],
    dep: Dep,
    dim: usize,
    es: u32,
    kind: AccessKind,
    hw: &Hardware,
    launch: &Launch,
) -> Option<Vec<u64>> {
    let warps = launch.warps_per_block(hw);
    let m = modulus(kind, hw);
    let es = es as i128;
    let period = m / es.gcd(&m).max(1);
    let step = (dep.g as i128 * es).gcd(&m).max(1);
    let base = (dep.r as i128 * es).rem_euclid(step);
    let betas: Vec<i128> = (0..)
        .map(|i| base + i * step)
        .take_while(|b| *b < m)
        .collect();
    let threads: u64 = launch.block.iter().map(|&b| u64::from(b)).product();
    if threads
        .saturating_mul(period as u64)
        .saturating_mul(betas.len() as u64)
        > 4_000_000
    {
        return None;
    }
    let lane_ok = lane_filter(p);
    let mut f = vec![0u64; period as usize];
    for w in 0..warps {
        let mut rows: BTreeMap<i64, Vec<i128>> = BTreeMap::new();
        for t in launch
            .warp_lanes(hw, w)
            .map(|t| launch.thread_index(t))
            .filter(|t| lane_ok(t))
        {
            let off = (0..3).map(|i| dep.k[i] as i128 * t[i] as i128).sum();
            rows.entry(t[dim]).or_default().push(off);
        }
        for (rho, fr) in f.iter_mut().enumerate() {
            for &b0 in &betas {
                let sum: u64 = rows
                    .iter()
                    .map(|(y, offs)| {
                        let beta = (b0 + es * rho as i128 * *y as i128).rem_euclid(m);
                        group_count(offs, es, beta, 0, m, kind, hw)
                    })
                    .sum();
                *fr = (*fr).max(sum);
            }
        }
    }
    Some(f)
}

/// The charge `N₀ + Σ C_j·[M_j ∤ X]` proposed for the counts `f` of [`row_table`]
/// (spec/logic.md §4 "Rows"): for a power-of-two period `P = f.len()` the divisors form a
/// chain, `[m ∤ ρ]` for `m | P` depends on `gcd(ρ, P)` only, and the charge at
/// `gcd(ρ, P) = g` is `N₀ + Σ_{m > g} C_m`; `N₀` is the count at `ρ = 0` and each `C_m`
/// (`m = 2g`) raises the charge to the largest count of the residues with gcd `g` (exact
/// when `f` depends on `gcd(ρ, P)` only, else sound: the kernel re-checks every `ρ`).
/// `None` for another period. Terms with `C = 0` are left out; returns `(N₀, [(C, M)…])`.
pub fn fit_rows(f: &[u64]) -> Option<(u64, Vec<(u64, u64)>)> {
    let p = f.len() as u64;
    if p == 0 || !p.is_power_of_two() {
        return None;
    }
    let worst_with_gcd = |g: u64| {
        (0..p)
            .filter(|r| r.gcd(&p) == g)
            .map(|r| f[r as usize].max(1))
            .max()
            .unwrap_or(1)
    };
    let n0 = f[0].max(1);
    let (mut charge, mut terms) = (n0, Vec::new());
    let mut g = p / 2;
    while g >= 1 {
        let need = worst_with_gcd(g);
        if need > charge {
            terms.push((need - charge, 2 * g));
            charge = need;
        }
        g /= 2;
    }
    Some((n0, terms))
}

/// The bytes an access's address is reduced modulo: a sector (`MemReads`) or a row of all
/// banks (`Conflicts`), at least 1.
fn modulus(kind: AccessKind, hw: &Hardware) -> i128 {
    match kind {
        AccessKind::MemReads => hw.sector_bytes as i128,
        AccessKind::Conflicts => hw.bank_bytes as i128 * hw.banks as i128,
    }
    .max(1)
}

/// The table of Q:GWRITEGUARD / Q:VWRITEGUARD (spec/logic.md §4 "Guarded accesses"; the
/// kernel's `access::guard_table`): for every value `T = K·tid` of a kept lane of some warp,
/// the largest over those warps and the admissible bases `β ≡ r·es (mod gcd(g·es, M))` of
/// the linear entry `dep` of the count of the warp's kept lanes with `K·tid ≤ T`. `None`
/// for an entry that is not linear or when the work exceeds 4 000 000 lane-counts.
pub fn guard_table(
    p: &[Cstr],
    dep: Dep,
    guard_k: [i64; 3],
    es: u32,
    kind: AccessKind,
    hw: &Hardware,
    launch: &Launch,
) -> Option<BTreeMap<i64, u64>> {
    if !dep.is_linear() {
        return None;
    }
    let warps = launch.warps_per_block(hw);
    let m = modulus(kind, hw);
    let es = es as i128;
    let step = (dep.g as i128 * es).gcd(&m).max(1);
    let base = (dep.r as i128 * es).rem_euclid(step);
    let betas: Vec<i128> = (0..)
        .map(|i| base + i * step)
        .take_while(|b| *b < m)
        .collect();
    let threads: u64 = launch.block.iter().map(|&b| u64::from(b)).product();
    if threads
        .saturating_mul(betas.len() as u64)
        .saturating_mul(u64::from(hw.warp_size))
        > 4_000_000
    {
        return None;
    }
    let lane_ok = lane_filter(p);
    let mut table: BTreeMap<i64, u64> = BTreeMap::new();
    for w in 0..warps {
        let mut lanes: Vec<(i64, i128)> = launch
            .warp_lanes(hw, w)
            .map(|t| launch.thread_index(t))
            .filter(|t| lane_ok(t))
            .map(|t| {
                let kt = (0..3).map(|i| guard_k[i] * t[i]).sum::<i64>();
                let off = (0..3).map(|i| dep.k[i] as i128 * t[i] as i128).sum();
                (kt, off)
            })
            .collect();
        lanes.sort_unstable();
        for &beta in &betas {
            let mut j = 0;
            while j < lanes.len() {
                let t_val = lanes[j].0;
                while j < lanes.len() && lanes[j].0 == t_val {
                    j += 1;
                }
                let offs: Vec<i128> = lanes[..j].iter().map(|l| l.1).collect();
                let c = group_count(&offs, es, beta, 0, m, kind, hw);
                let e = table.entry(t_val).or_insert(0);
                *e = (*e).max(c);
            }
        }
    }
    Some(table)
}

/// The guarded charge `N₀ + Σ_j C_j·[t_j ≤ T]` fitted to a [`guard_table`]: the least
/// non-decreasing step function above it. `N₀` is the count at the least `T` (an access
/// runs with at least one active lane, whose `T` is at least that), and each later rise
/// of the running maximum is a term `(C, t)`. `None` for an empty table.
pub fn fit_guard(table: &BTreeMap<i64, u64>) -> Option<(u64, Vec<(u64, i64)>)> {
    let mut it = table.iter();
    let (_, &n0) = it.next()?;
    let (mut top, mut terms) = (n0, Vec::new());
    for (&t, &need) in it {
        if need > top {
            terms.push((need - top, t));
            top = need;
        }
    }
    Some((n0, terms))
}
