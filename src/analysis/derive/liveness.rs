//! Liveness of locals (upward-exposed reads): invariants and branch pres keep only the `D`
//! entries and constraints of the locals some later statement reads.

use crate::analysis::derive::loops::loop_key;
use crate::core::assertion::linear::DepMap;
use crate::core::{Expr, Operand, Stmt};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// A set of names (locals, parameters, `threadIdx.d`) borrowed from the program.
pub(super) type Names<'s> = BTreeSet<&'s str>;

/// The names of `threadIdx.x/y/z` in linear forms ([`tid_name`]).
pub(super) const TID_NAMES: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];

/// The locals, parameters and `threadIdx.d` an operand reads.
pub(super) fn operand_reads<'s>(o: &'s Operand, out: &mut Names<'s>) {
    match o {
        Operand::Var(x) | Operand::Param(x) => {
            out.insert(x);
        }
        Operand::Tid(d) => {
            out.insert(TID_NAMES[d.index()]);
        }
        Operand::Const(_) => {}
    }
}

pub(super) fn expr_reads<'s>(e: &'s Expr, out: &mut Names<'s>) {
    match e {
        Expr::Opd(o) | Expr::Un(_, o) | Expr::Read(_, o) => operand_reads(o, out),
        Expr::Bin(_, a, b) => {
            operand_reads(a, out);
            operand_reads(b, out);
        }
    }
}

/// [`upward_exposed`], recording for every loop of `s` the locals live at its head and for
/// every `if` those live at the start of its else branch.
/// and for every item of a sequence chain (keyed by its address) those live after it.
/// Sequence chains are walked iteratively (no recursion per item).
pub(super) fn live_in<'s>(
    s: &'s Stmt,
    after: &Names<'s>,
    loops: &mut BTreeMap<usize, Names<'s>>,
    elses: &mut BTreeMap<usize, Names<'s>>,
    seqs: &mut HashMap<usize, Names<'s>>,
) -> Names<'s> {
    match s {
        Stmt::Seq(..) => {
            let mut cur = after.clone();
            for it in s.seq_items().into_iter().rev() {
                let next = live_in(it, &cur, loops, elses, seqs);
                seqs.insert(it as *const Stmt as usize, cur);
                cur = next;
            }
            cur
        }
        Stmt::If(c, a, b, _) => {
            let mut out = live_in(a, after, loops, elses, seqs);
            let lb = live_in(b, after, loops, elses, seqs);
            out.extend(lb.iter().copied());
            elses.insert(&**b as *const Stmt as usize, lb);
            expr_reads(c, &mut out);
            out
        }
        Stmt::While(_, body, _) => {
            let l = upward_exposed(s, after);
            live_in(body, &l, loops, elses, seqs);
            loops.insert(loop_key(body), l.clone());
            l
        }
        _ => upward_exposed(s, after),
    }
}

pub(super) fn restrict_deps(d: &DepMap, live: &Names<'_>) -> DepMap {
    d.iter()
        .filter(|(x, _)| live.contains(x.as_str()))
        .map(|(x, e)| (x.clone(), *e))
        .collect()
}

/// The locals that some execution of `s` followed by a continuation reading `after` may
/// read before writing them (upward-exposed uses, a backward may-analysis).
pub(super) fn upward_exposed<'s>(s: &'s Stmt, after: &Names<'s>) -> Names<'s> {
    match s {
        Stmt::Skip | Stmt::Sync(_) => after.clone(),
        Stmt::Assign(x, e, _) => {
            let mut out = after.clone();
            out.remove(x.as_str());
            expr_reads(e, &mut out);
            out
        }
        Stmt::Write(_, o, e, _) => {
            let mut out = after.clone();
            operand_reads(o, &mut out);
            expr_reads(e, &mut out);
            out
        }
        Stmt::Warp(x, op, _) => {
            let mut out = after.clone();
            out.remove(x.as_str());
            for o in op.operands() {
                operand_reads(o, &mut out);
            }
            out
        }
        Stmt::Seq(..) => {
            let mut cur = after.clone();
            for it in s.seq_items().into_iter().rev() {
                cur = upward_exposed(it, &cur);
            }
            cur
        }
        Stmt::If(c, a, b, _) => {
            let mut out = upward_exposed(a, after);
            out.extend(upward_exposed(b, after));
            expr_reads(c, &mut out);
            out
        }
        Stmt::While(c, body, _) => {
            // L = reads(c) ∪ after ∪ exposed(body, L), the least fixpoint
            let mut l = after.clone();
            expr_reads(c, &mut l);
            loop {
                let mut next = upward_exposed(body, &l);
                next.extend(l.iter().copied());
                if next == l {
                    return l;
                }
                l = next;
            }
        }
    }
}
