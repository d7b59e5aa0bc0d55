//! Cache reuse across loop iterations and the block size that keeps it in the L1 cache
//! (Singhania 2019, Ch. 6: Def. 6.1, the simple and derived increment analyses of
//! Sects. 6.2.2–6.2.3, the working set and block-size choice of Sect. 6.3), as advice.
//!
//! A global access in loop `L` (directly, not in a sub-loop) is *loop-reusable* when its index
//! moves by a known `Δ` elements per iteration with `|Δ|·elem_bytes < η` (η = 128 bytes,
//! the cache line): the next iteration touches the same line. Increments: a local not
//! assigned in `L` moves by 0; a local whose only assignment in `L` is `x ← x ± c` moves by
//! `±c`; a local assigned once in `L` from `a ± b` or `c·a` moves by the combination
//! (derived increments); anything else is unknown. The working set of `L` is the number of
//! distinct (array, index) signatures of its loop-reusable *uncoalesced* accesses times η;
//! the kernel's is the largest over its loops; the recommended block is the largest power
//! of two of threads with `threads · working set ≤ L1` (1-D blocks).

use super::sites::{Site, SiteKind};
use crate::core::{BinOp, Const, Expr, Loc, Operand, Program, Space, Stmt};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Cache line size η in bytes (GPUDrano's transaction size).
pub const LINE_BYTES: u64 = 128;
/// L1 cache size assumed for the recommendation (48 KB, the dissertation's).
pub const L1_BYTES: u64 = 48 * 1024;

/// One loop's reusable accesses.
#[derive(Clone, Debug, Serialize)]
pub struct LoopReuse {
    /// Line of the loop.
    pub line: u32,
    /// The loop-reusable accesses: `A[o]` with their increment per iteration (elements)
    /// and whether the access was found uncoalesced.
    pub accesses: Vec<(String, i64, bool)>,
    /// Working set in bytes per thread (uncoalesced reusable signatures × η).
    pub working_set: u64,
}

/// The advice for one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct Reuse {
    /// Loops with at least one loop-reusable access.
    pub loops: Vec<LoopReuse>,
    /// The kernel's working set (bytes per thread).
    pub working_set: u64,
    /// Recommended threads per block (`None`: no uncoalesced loop-reusable access).
    pub recommended_block: Option<u64>,
    /// Human-readable advice.
    pub advice: String,
}

fn assigns<'a>(s: &'a Stmt, out: &mut Vec<(&'a String, &'a Expr)>, nested: bool) {
    match s {
        Stmt::Assign(x, e, _) => out.push((x, e)),
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => {
            assigns(a, out, nested);
            assigns(b, out, nested);
        }
        Stmt::While(_, b, _) if nested => assigns(b, out, nested),
        _ => {}
    }
}

/// Increment per iteration of each local of a loop body (`None`: unknown).
fn increments(body: &Stmt) -> BTreeMap<String, Option<i64>> {
    let mut all = Vec::new();
    assigns(body, &mut all, true);
    let mut count: BTreeMap<&String, usize> = BTreeMap::new();
    for (x, _) in &all {
        *count.entry(x).or_insert(0) += 1;
    }
    let mut inc: BTreeMap<String, Option<i64>> = BTreeMap::new();
    // temporaries `t ← x ± c` followed by `x ← t` (the lowering of `x += c`)
    let defs: BTreeMap<&String, &Expr> = all
        .iter()
        .filter(|(x, _)| count[x] == 1)
        .map(|(x, e)| (*x, *e))
        .collect();
    let step = |x: &str, e: &Expr| -> Option<i64> {
        let e = match e {
            Expr::Opd(Operand::Var(t)) => defs.get(t).copied()?,
            e => e,
        };
        match e {
            Expr::Bin(BinOp::Add, Operand::Var(y), Operand::Const(Const::Int(c)))
            | Expr::Bin(BinOp::Add, Operand::Const(Const::Int(c)), Operand::Var(y))
                if y == x =>
            {
                Some(*c)
            }
            Expr::Bin(BinOp::Sub, Operand::Var(y), Operand::Const(Const::Int(c))) if y == x => {
                Some(-c)
            }
            _ => None,
        }
    };
    for (x, e) in &all {
        if count[x] == 1 {
            if let Some(c) = step(x, e) {
                inc.insert((*x).clone(), Some(c));
            }
        }
    }
    // derived increments, to a fixpoint
    for _ in 0..8 {
        let mut changed = false;
        for (x, e) in &all {
            if count[x] != 1 || inc.contains_key(*x) {
                continue;
            }
            let d = |o: &Operand, inc: &BTreeMap<String, Option<i64>>| -> Option<Option<i64>> {
                match o {
                    Operand::Var(y) if count.contains_key(y) => inc.get(y).cloned(),
                    _ => Some(Some(0)),
                }
            };
            let konst = |o: &Operand| match o {
                Operand::Const(Const::Int(c)) => Some(*c),
                _ => None,
            };
            let v = match e {
                Expr::Opd(o) => d(o, &inc),
                Expr::Bin(BinOp::Add, a, b) => match (d(a, &inc), d(b, &inc)) {
                    (Some(Some(p)), Some(Some(q))) => Some(p.checked_add(q)),
                    (Some(None), _) | (_, Some(None)) => Some(None),
                    _ => None,
                },
                Expr::Bin(BinOp::Sub, a, b) => match (d(a, &inc), d(b, &inc)) {
                    (Some(Some(p)), Some(Some(q))) => Some(p.checked_sub(q)),
                    (Some(None), _) | (_, Some(None)) => Some(None),
                    _ => None,
                },
                Expr::Bin(BinOp::Mul, a, b) => match (konst(a), konst(b), d(a, &inc), d(b, &inc)) {
                    (Some(c), _, _, Some(Some(q))) => Some(c.checked_mul(q)),
                    (_, Some(c), Some(Some(p)), _) => Some(p.checked_mul(c)),
                    (_, _, Some(Some(0)), Some(Some(0))) => Some(Some(0)),
                    (_, _, Some(_), Some(_)) => Some(None),
                    _ => None,
                },
                _ => match e {
                    Expr::Bin(_, a, b) => match (d(a, &inc), d(b, &inc)) {
                        (Some(Some(0)), Some(Some(0))) => Some(Some(0)),
                        (Some(_), Some(_)) => Some(None),
                        _ => None,
                    },
                    Expr::Un(_, a) | Expr::Read(_, a) => match d(a, &inc) {
                        Some(Some(0)) if !matches!(e, Expr::Read(..)) => Some(Some(0)),
                        Some(_) => Some(None),
                        None => None,
                    },
                    _ => Some(None),
                },
            };
            if let Some(v) = v {
                inc.insert((*x).clone(), v);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (x, _) in &all {
        inc.entry((*x).clone()).or_insert(None);
    }
    inc
}

fn loops<'a>(s: &'a Stmt, out: &mut Vec<(&'a Stmt, Loc)>) {
    match s {
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => {
            loops(a, out);
            loops(b, out);
        }
        Stmt::While(_, b, l) => {
            out.push((b, *l));
            loops(b, out);
        }
        _ => {}
    }
}

/// The advice for `prog`: `sites` from [`super::sites::sites`], `uncoalesced` the ids of
/// the sites found uncoalesced, `block` the current block.
pub fn analyze(
    prog: &Program,
    sites: &[Site],
    uncoalesced: &BTreeSet<usize>,
    block: [u32; 3],
) -> Reuse {
    let mut ls = Vec::new();
    loops(&prog.body, &mut ls);
    let mut out = Vec::new();
    for (body, loc) in ls {
        let inc = increments(body);
        let mut accesses = Vec::new();
        let mut sigs = BTreeSet::new();
        for s in sites.iter().filter(|s| {
            // Def. 6.1 is about global memory accesses: shared and local ones are not cached
            matches!(s.kind, SiteKind::Read | SiteKind::Write)
                && matches!(s.space, Some(Space::Global))
                && s.loops.last() == Some(&loc)
        }) {
            let delta = match &s.index {
                Some(Operand::Var(x)) => inc.get(x).cloned().unwrap_or(Some(0)),
                Some(_) => Some(0),
                None => None,
            };
            let Some(d) = delta else { continue };
            if d.unsigned_abs().saturating_mul(u64::from(s.elem_bytes)) >= LINE_BYTES {
                continue;
            }
            let uc = uncoalesced.contains(&s.id);
            let name = format!(
                "{}[{}]",
                s.array.clone().unwrap_or_default(),
                s.index.as_ref().map(|o| o.to_string()).unwrap_or_default()
            );
            if uc {
                sigs.insert(name.clone());
            }
            accesses.push((name, d, uc));
        }
        if !accesses.is_empty() {
            out.push(LoopReuse {
                line: loc.line,
                accesses,
                working_set: sigs.len() as u64 * LINE_BYTES,
            });
        }
    }
    let ws = out.iter().map(|l| l.working_set).max().unwrap_or(0);
    let threads = u64::from(block[0]) * u64::from(block[1]) * u64::from(block[2]);
    let rec = (ws > 0).then(|| {
        let max = L1_BYTES / ws;
        let mut p = 1u64;
        while p * 2 <= max.min(1024) {
            p *= 2;
        }
        p
    });
    let advice = match rec {
        None if out.is_empty() => "no loop-reusable access".to_string(),
        None => "loop-reusable accesses are coalesced: no block-size change suggested".to_string(),
        Some(p) => format!(
            "{} uncoalesced loop-reusable access(es); working set {ws} B per thread; with a {} KB L1, blocks of at most {p} threads keep it resident (current block {threads} threads){}",
            out.iter().map(|l| l.accesses.iter().filter(|a| a.2).count()).sum::<usize>(),
            L1_BYTES / 1024,
            if p < threads { ": consider the smaller block (safe only if the kernel is block-size independent)" } else { "" }
        ),
    };
    Reuse {
        loops: out,
        working_set: ws,
        recommended_block: rec,
        advice,
    }
}
