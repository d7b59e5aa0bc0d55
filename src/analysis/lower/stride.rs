//! Strided global accesses in lower-bound certificates (spec/logic.md §4b "Strided
//! accesses", L:GARRAYSTRIDE / L:GWRITESTRIDE): an index with a scaled entry whose one `?`
//! dimension has a row multiplier `u = A·P + B` touches one sector per distinct `tid_d` of
//! the warp once `s·u ≥ ⌈M/es⌉` (`B[2·j·w + i]` under `w ≥ 4`). [`Lx::stride`] makes the
//! claim and its Farkas witness; [`stride_hypotheses`] the L:HYP facts under which the
//! program's strided accesses qualify. Heuristic and untrusted: the kernel checks.

use super::Lx;
use crate::analysis::linear::scaled_operand;
use crate::certificate::{Assn, Farkas, Node};
use crate::core::assertion::linear::{Cstr, Dep, EntryKind, Lin};
use crate::core::assertion::param_name;
use crate::core::ir::{Expr, Operand, Program, Space, Stmt};
use crate::core::metric::q;
use crate::core::Hardware;

/// The fact `S − s·(A·P + B) ≤ 0` (`S = ⌈M/es⌉`, `s` the sign of `A`, else of `B`) that
/// makes neighbouring lanes of the scaled entry `dep` (one `?` dimension, a multiplier)
/// touch distinct sectors; `None` for any other entry or a zero multiplier.
fn stride_fact(dep: &Dep, es: u32, hw: &Hardware) -> Option<Cstr> {
    let EntryKind::Scaled(u) = dep.kind else {
        return None;
    };
    if u.iter().filter(|b| **b).count() != 1 {
        return None;
    }
    let m = dep.mul?;
    let sign = if m.a != 0 { m.a.signum() } else { m.b.signum() };
    if sign == 0 || es == 0 {
        return None;
    }
    let s_min = i64::from(hw.sector_bytes.div_ceil(es));
    let form = Lin::var(&param_name(m.param))
        .scale(&q(m.a))
        .plus_const(&q(m.b));
    Some(Cstr::le(
        Lin::constant(q(s_min)).add_scaled(&form, &-q(sign)),
    ))
}

/// The region of [`stride_fact`] as a reader states it: for `A ≠ 0` the integer bound
/// `P ≥ ⌈(S − s·B)/|A|⌉` (`addSub1`: `w ≥ 4` rather than `2·w ≥ 8`), which entails the
/// fact (`|A|` times it); else the fact itself.
fn region_fact(dep: &Dep, es: u32, hw: &Hardware) -> Option<Cstr> {
    let fact = stride_fact(dep, es, hw)?;
    let m = dep.mul?;
    if m.a == 0 {
        return Some(fact);
    }
    let s_min = i64::from(hw.sector_bytes.div_ceil(es));
    let rhs = s_min.checked_sub(m.a.signum().checked_mul(m.b)?)?;
    let abs = m.a.checked_abs()?;
    let c = rhs.div_euclid(abs) + i64::from(rhs.rem_euclid(abs) != 0);
    let p = Lin::var(&param_name(m.param)).scale(&q(m.a.signum()));
    Some(Cstr::le(Lin::constant(q(c)).add_scaled(&p, &-q(1))))
}

impl Lx<'_> {
    /// The stride claim of the global access `a[o]` under `pre` (L:GARRAYSTRIDE /
    /// L:GWRITESTRIDE): the number of distinct `tid_d` over the named warp's lanes and the
    /// witness of `P ⇒ S − s·u ≤ 0`. `None` where the rules do not apply, the non-`?` part
    /// varies on the warp, or `P` does not entail the fact.
    pub(super) fn stride(&self, a: &str, o: &Operand, pre: &Assn) -> Option<(u64, Farkas)> {
        let arr = self.prog.array(a)?;
        if arr.space != Space::Global {
            return None;
        }
        let dep = scaled_operand(&pre.d, o)?;
        let fact = stride_fact(&dep, arr.elem_bytes, self.hw)?;
        let dim = dep.unknown_dims().iter().position(|b| *b)?;
        // the judgment's lanes (all of the warp, or a branch's subset under L:IFSPLIT)
        let lanes: Vec<[i64; 3]> = self
            .threads
            .iter()
            .map(|t| self.launch.thread_index(*t))
            .collect();
        let rest = |t: &[i64; 3]| -> i128 {
            (0..3)
                .filter(|e| *e != dim)
                .map(|e| i128::from(dep.k[e]) * i128::from(t[e]))
                .sum()
        };
        let r0 = rest(lanes.first()?);
        if lanes.iter().any(|t| rest(t) != r0) {
            return None;
        }
        let mut ts: Vec<i64> = lanes.iter().map(|t| t[dim]).collect();
        ts.sort_unstable();
        ts.dedup();
        let w = crate::analysis::entail::entails(&pre.p, &fact)?;
        Some((ts.len() as u64, w))
    }
}

/// The L:HYP facts `S − s·(A·P + B) ≤ 0` of the strided global accesses of `prog` (spec/logic.md
/// §4b "Strided accesses"): for every local used as the index of a global read or write
/// that has, in some pre of `deriv` (a derivation with `derive::Ctx::with_strides`), a
/// scaled entry with a row multiplier. Deduplicated, in order of appearance.
pub fn stride_hypotheses(prog: &Program, hw: &Hardware, deriv: &Node) -> Vec<Cstr> {
    // the global accesses' index locals and element sizes
    let mut idx: Vec<(String, u32)> = Vec::new();
    let mut todo = vec![&prog.body];
    let global = |a: &str| {
        prog.array(a)
            .filter(|d| d.space == Space::Global)
            .map(|d| d.elem_bytes)
    };
    let note = |a: &str, o: &Operand, idx: &mut Vec<(String, u32)>| {
        if let (Operand::Var(x), Some(es)) = (o, global(a)) {
            if !idx.iter().any(|(y, e)| y == x && *e == es) {
                idx.push((x.clone(), es));
            }
        }
    };
    while let Some(s) = todo.pop() {
        match s {
            Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => todo.extend([&**a, &**b]),
            Stmt::While(_, b, _) => todo.push(b),
            Stmt::Write(a, o, e, _) => {
                note(a, o, &mut idx);
                if let Expr::Read(b, p) = e {
                    note(b, p, &mut idx);
                }
            }
            Stmt::Assign(_, Expr::Read(a, o), _) => note(a, o, &mut idx),
            _ => {}
        }
    }
    let mut out: Vec<Cstr> = Vec::new();
    let mut nodes = vec![deriv];
    while let Some(n) = nodes.pop() {
        nodes.extend(n.children.iter());
        let Some(pre) = n.pre() else { continue };
        for (x, es) in &idx {
            let fact = pre.d.get(x).and_then(|d| region_fact(d, *es, hw));
            if let Some(f) = fact.filter(|f| !out.contains(f)) {
                out.push(f);
            }
        }
    }
    out
}
