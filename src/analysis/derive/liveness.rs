//! Liveness of locals (upward-exposed reads): invariants and branch pres keep only the `D`
//! entries and constraints of the names some later statement reads.
//!
//! Only locals are ever written, so a parameter or `threadIdx.d` ("fixed" names) is live at
//! a point iff some statement after it reads it. The backward walk therefore carries sets
//! of locals only, and the fixed names read after a point as a chain of frames ([`Fixed`])
//! that grow in place along a sequence: the sets of every sequence item ([`live_in`]'s
//! `seqs`) are about locals, and only loops and `else` branches get the full set. Before
//! (issue 13), every item's set held every parameter read later: a kernel reading each of
//! `n` parameters once cloned and kept `O(n)` names per statement, `O(n²)` in all.

use crate::analysis::derive::candidates::loop_key;
use crate::core::assertion::linear::DepMap;
use crate::core::{Expr, Operand, Stmt};
use rustc_hash::FxHashMap as HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// A set of names (locals, parameters, `threadIdx.d`) borrowed from the program.
pub(super) type Names<'s> = BTreeSet<&'s str>;

/// The names of `threadIdx.x/y/z` in linear forms ([`tid_name`]).
pub(super) const TID_NAMES: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];

/// The local an operand reads, if any (the names [`upward_exposed`] tracks).
pub(super) fn operand_reads<'s>(o: &'s Operand, out: &mut Names<'s>) {
    if let Operand::Var(x) = o {
        out.insert(x);
    }
}

/// The locals an expression reads.
pub(super) fn expr_reads<'s>(e: &'s Expr, out: &mut Names<'s>) {
    for o in expr_operands(e).into_iter().flatten() {
        operand_reads(o, out);
    }
}

/// The operands of an expression.
fn expr_operands(e: &Expr) -> [Option<&Operand>; 2] {
    match e {
        Expr::Opd(o) | Expr::Un(_, o) | Expr::Read(_, o) => [Some(o), None],
        Expr::Bin(_, a, b) => [Some(a), Some(b)],
    }
}

/// The parameter or `threadIdx.d` an operand reads, if any (a fixed name).
fn operand_fixed<'s>(o: &'s Operand, out: &mut Names<'s>) {
    match o {
        Operand::Param(x) => {
            out.insert(x);
        }
        Operand::Tid(d) => {
            out.insert(TID_NAMES[d.index()]);
        }
        Operand::Var(_) | Operand::Const(_) => {}
    }
}

/// The fixed names (parameters, `threadIdx.d`) an expression reads.
fn expr_fixed<'s>(e: &'s Expr, out: &mut Names<'s>) {
    for o in expr_operands(e).into_iter().flatten() {
        operand_fixed(o, out);
    }
}

/// The fixed names read anywhere in `s` (iterative).
fn fixed_reads<'s>(s: &'s Stmt, out: &mut Names<'s>) {
    let mut todo = vec![s];
    while let Some(s) = todo.pop() {
        match s {
            Stmt::Skip | Stmt::Sync(_) => {}
            Stmt::Seq(a, b) => todo.extend([&**a, &**b]),
            Stmt::Assign(_, e, _) => expr_fixed(e, out),
            Stmt::Write(_, o, e, _) => {
                operand_fixed(o, out);
                expr_fixed(e, out);
            }
            Stmt::Warp(_, op, _) => {
                for o in op.operands() {
                    operand_fixed(o, out);
                }
            }
            Stmt::If(c, a, b, _) => {
                expr_fixed(c, out);
                todo.extend([&**a, &**b]);
            }
            Stmt::While(c, b, _) => {
                expr_fixed(c, out);
                todo.push(b);
            }
        }
    }
}

/// The fixed names read after a point: the union of `names` and of the enclosing frames'
/// (a frame per sequence, whose set grows as the walk moves back, and one per loop).
#[derive(Clone, Copy)]
pub(super) struct Fixed<'c, 's> {
    names: &'c Names<'s>,
    up: Option<&'c Fixed<'c, 's>>,
}

impl<'c, 's> Fixed<'c, 's> {
    /// The frame of the program's end: `names` (empty: nothing is read after the body).
    pub(super) fn end(names: &'c Names<'s>) -> Self {
        Fixed { names, up: None }
    }

    /// `locals` with every fixed name of the chain added.
    fn full(&self, mut locals: Names<'s>) -> Names<'s> {
        let mut f = Some(self);
        while let Some(fr) = f {
            locals.extend(fr.names.iter().copied());
            f = fr.up;
        }
        locals
    }
}

/// [`upward_exposed`] (locals only), recording for every loop of `s` the names live at its
/// head and for every `if` those live at the start of its else branch (locals, parameters
/// and `threadIdx.d`: `fixed` holds the fixed names read after `s`), and for every item of
/// a sequence chain (keyed by its address) the locals live after it. Sequence chains are
/// walked iteratively (no recursion per item).
pub(super) fn live_in<'s>(
    s: &'s Stmt,
    after: &Names<'s>,
    fixed: Fixed<'_, 's>,
    loops: &mut BTreeMap<usize, Names<'s>>,
    elses: &mut BTreeMap<usize, Names<'s>>,
    seqs: &mut HashMap<usize, Names<'s>>,
) -> Names<'s> {
    live_in_with(s, after, fixed, loops, elses, seqs, false)
}

/// [`live_in`]; with `thread_else` the then branch of every `if` also keeps the locals
/// live at the start of its else branch (Q:IF4 threads the then branch's post `D` into
/// the else branch's pre: a lower derivation's L:IFSPLIT needs the else branch's entries,
/// spec/logic.md §4b "Lane subsets"; [`super::Ctx::with_strides`]).
pub(super) fn live_in_with<'s>(
    s: &'s Stmt,
    after: &Names<'s>,
    fixed: Fixed<'_, 's>,
    loops: &mut BTreeMap<usize, Names<'s>>,
    elses: &mut BTreeMap<usize, Names<'s>>,
    seqs: &mut HashMap<usize, Names<'s>>,
    thread_else: bool,
) -> Names<'s> {
    match s {
        Stmt::Seq(..) => {
            let mut cur = after.clone();
            // the fixed names read by the items after the current one
            let mut later = Names::new();
            for it in s.seq_items().into_iter().rev() {
                let here = Fixed {
                    names: &later,
                    up: Some(&fixed),
                };
                let next = live_in_with(it, &cur, here, loops, elses, seqs, thread_else);
                fixed_reads(it, &mut later);
                seqs.insert(it as *const Stmt as usize, cur);
                cur = next;
            }
            cur
        }
        Stmt::If(c, a, b, _) => {
            let lb = live_in_with(b, after, fixed, loops, elses, seqs, thread_else);
            let mut out = if thread_else {
                let mut both = after.clone();
                both.extend(lb.iter().copied());
                live_in_with(a, &both, fixed, loops, elses, seqs, thread_else)
            } else {
                live_in_with(a, after, fixed, loops, elses, seqs, thread_else)
            };
            out.extend(lb.iter().copied());
            let mut own = Names::new();
            fixed_reads(b, &mut own);
            let full = Fixed {
                names: &own,
                up: Some(&fixed),
            }
            .full(lb);
            elses.insert(&**b as *const Stmt as usize, full);
            expr_reads(c, &mut out);
            out
        }
        Stmt::While(c, body, _) => {
            let l = upward_exposed(s, after);
            // every fixed name the loop reads is live at its head and throughout its body
            let mut own = Names::new();
            expr_fixed(c, &mut own);
            fixed_reads(body, &mut own);
            let inner = Fixed {
                names: &own,
                up: Some(&fixed),
            };
            live_in_with(body, &l, inner, loops, elses, seqs, thread_else);
            loops.insert(loop_key(body), inner.full(l.clone()));
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

/// The locals that some execution of `s` followed by a continuation reading the locals
/// `after` may read before writing them (upward-exposed uses, a backward may-analysis).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{BinOp, Dim, Loc};

    fn var(x: &str) -> Operand {
        Operand::Var(x.into())
    }

    fn prm(x: &str) -> Operand {
        Operand::Param(x.into())
    }

    fn set<'s>(v: &[&'s str]) -> Names<'s> {
        v.iter().copied().collect()
    }

    /// `x ← p; if (x < q) { y ← threadIdx.x } else { skip }; while (i < m) { i ← i + k };
    /// z ← y + r`, liveness by hand: `x` is read only by the test, `y` on the else path
    /// and after the loop, `i` is never initialized (live from the start). Sequence items
    /// and the root get locals only; the loop head and the else branch also get the
    /// parameters and thread indices read after them (`q` and `threadIdx.x` are not: they
    /// are read before the else branch / only in the then branch).
    #[test]
    fn locals_per_item_full_sets_at_loops_and_elses() {
        let l = Loc::default();
        let body = Stmt::Assign("i".into(), Expr::Bin(BinOp::Add, var("i"), prm("k")), l);
        let prog = Stmt::seq(vec![
            Stmt::Assign("x".into(), Expr::Opd(prm("p")), l),
            Stmt::If(
                Expr::Bin(BinOp::Lt, var("x"), prm("q")),
                Box::new(Stmt::Assign("y".into(), Expr::Opd(Operand::Tid(Dim::X)), l)),
                Box::new(Stmt::Skip),
                l,
            ),
            Stmt::While(Expr::Bin(BinOp::Lt, var("i"), prm("m")), Box::new(body), l),
            Stmt::Assign("z".into(), Expr::Bin(BinOp::Add, var("y"), prm("r")), l),
        ]);
        let (mut loops, mut elses, mut seqs) = Default::default();
        let end = Names::new();
        let root = live_in(
            &prog,
            &Names::new(),
            Fixed::end(&end),
            &mut loops,
            &mut elses,
            &mut seqs,
        );
        assert_eq!(root, set(&["i", "y"]));
        let items = prog.seq_items();
        let after = |k: usize| seqs.get(&(items[k] as *const Stmt as usize)).cloned();
        assert_eq!(after(0), Some(set(&["i", "x", "y"])));
        assert_eq!(after(1), Some(set(&["i", "y"])));
        assert_eq!(after(2), Some(set(&["y"])));
        assert_eq!(after(3), Some(set(&[])));
        let (Stmt::If(_, _, els, _), Stmt::While(_, lb, _)) = (items[1], items[2]) else {
            panic!("shape");
        };
        assert_eq!(
            elses.get(&(&**els as *const Stmt as usize)),
            Some(&set(&["i", "y", "m", "k", "r"]))
        );
        assert_eq!(
            loops.get(&loop_key(lb)),
            Some(&set(&["i", "y", "m", "k", "r"]))
        );
    }
}
