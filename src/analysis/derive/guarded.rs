//! Guarded access charges (Q:GWRITEGUARD / Q:VWRITEGUARD, spec/logic.md §4 "Guarded
//! accesses", issue 15): a global access inside a loop whose divergent test `L ≤ 0` is in
//! the access's `P` is charged `N₀ + Σ_j C_j·[t_j ≤ −L_u]`, with each indicator written as
//! `A⁺_j − A⁻_j`, `A⁺_j = ⌊(S − L_u − t_j)/S⌋⁺`, `A⁻_j = ⌊(−L_u − t_j)/S⌋⁺` (`S` the loop's
//! step's lower bound). The loop's invariant template gets the atoms `A⁺_j`: the step maps
//! each to the `A⁻_j` the access leaves (exactly for a constant step `S`, through `imono`
//! for a symbolic step `δ ≥ S`), so the partial last round is charged its own sectors.

use super::candidates::loop_key;
use super::Ctx;
use crate::analysis::access::{fit_guard, guard_table, AccessKind};
use crate::analysis::derive::Abs;
use crate::analysis::linear::cond;
use crate::core::assertion::linear::{CKind, Lin};
use crate::core::assertion::poly::{Atom, AtomVal};
use crate::core::metric::{q, Q};
use crate::core::{Expr, Operand, Space, Stmt};

/// A guarded charge (spec/logic.md §4 "Guarded accesses"): the index of the guard
/// constraint in the access's `P`, the divisor `S`, `N₀`, the terms `(C_j, t_j)` and the
/// guard's uniform part `L_u = L − K·tid`.
#[derive(Clone, Debug)]
pub(crate) struct GuardCharge {
    pub index: usize,
    pub div: i64,
    pub n0: u64,
    pub terms: Vec<(u64, i64)>,
    pub lu: Lin,
}

impl GuardCharge {
    /// `A⁺ = ⌊(S − L_u − t)/S⌋⁺` (`up`) or `A⁻ = ⌊(−L_u − t)/S⌋⁺`, canonical.
    pub fn atom(&self, t: i64, up: bool) -> Option<Atom> {
        let shift = if up { self.div - t } else { -t };
        let l = self.lu.scale(&q(-1)).plus_const(&q(shift));
        match Atom::floor(l, self.div).canonical() {
            AtomVal::Scaled(f, a) if f == Q::from_integer(1.into()) => Some(a),
            _ => None,
        }
    }
}

impl Ctx<'_> {
    /// The guard of the loop `while (e) body` for the accesses of its body: its test's form
    /// `L` (`cond(e) = [L ≤ 0]`), the constant step `S` of its floor ranking atom and its
    /// key; `None` without floor and residue atoms (`--no-align`), for a proportional step
    /// or another test. A symbolic step `δ ≥ S` is bridged at the access by `imono`
    /// (backward/branch.rs `guard_tpoly`).
    pub(super) fn guard_loop(&self, e: &Expr, body: &Stmt) -> Option<(Lin, i64, usize)> {
        if !self.align || !self.floor || !self.guards {
            return None;
        }
        let Ok((_, _, _, _, false, _)) = self.loop_atom_raw(e, body, None) else {
            return None;
        };
        let div = *self.nests.div.get(&loop_key(body))?;
        let (ce, cne, _, _) = cond(self, e);
        match (ce.as_slice(), cne.is_empty()) {
            ([c], false) if c.kind == CKind::Le => Some((c.lin.clone(), div, loop_key(body))),
            _ => None,
        }
    }

    /// The guarded charge of the global access `arr[o]` under `pre` inside the innermost
    /// enclosing loop, when that loop has a guard ([`Ctx::guard_loop`]), its test is in
    /// `pre`'s `P` with integer coefficients and linear entries for its locals, the index has
    /// a linear entry, the metric charges per sector (`mul > 0`) and the fitted charge has
    /// at least one term and stays within `n`. Adds the atoms `A⁺_j` to the loop's template.
    pub(super) fn guard_charge(
        &mut self,
        arr: &str,
        o: &Operand,
        pre: &Abs,
        n: u64,
        mul: &Q,
    ) -> Option<GuardCharge> {
        if mul <= &Q::from_integer(0.into()) {
            return None;
        }
        let (lin, div, key) = self.guard_loops.last()?.clone()?;
        let decl = self.prog.array(arr)?;
        if decl.space != Space::Global {
            return None;
        }
        let dep = crate::analysis::linear::dep_operand(&pre.d, o).filter(|d| d.is_linear())?;
        let index = pre
            .p
            .iter()
            .rposition(|c| c.kind == CKind::Le && c.lin == lin)?;
        if !lin.c.is_integer() {
            return None;
        }
        let tids = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];
        let mut k = [0i64; 3];
        for (v, a) in &lin.terms {
            if !a.is_integer() {
                return None;
            }
            let a = i64::try_from(a.to_integer()).ok()?;
            if let Some(i) = tids.iter().position(|t| t == v) {
                k[i] = k[i].checked_add(a)?;
            } else if self.param_tys.contains_key(v.as_str()) {
                continue;
            } else {
                let e = pre.d.get(v).filter(|e| e.is_linear())?;
                for (ki, ke) in k.iter_mut().zip(e.k) {
                    *ki = ki.checked_add(a.checked_mul(ke)?)?;
                }
            }
        }
        let table = guard_table(
            &pre.p,
            dep,
            k,
            decl.elem_bytes,
            AccessKind::MemReads,
            self.hw,
            self.launch,
        )?;
        let (n0, terms) = fit_guard(&table)?;
        if terms.is_empty() || n0 + terms.iter().map(|t| t.0).sum::<u64>() > n {
            return None;
        }
        let mut lu = lin.clone();
        for (t, kd) in tids.iter().zip(k) {
            lu = lu.add_scaled(&Lin::var(t), &q(-kd));
        }
        let g = GuardCharge {
            index,
            div,
            n0,
            terms,
            lu,
        };
        let plus: Vec<Atom> = g
            .terms
            .iter()
            .map(|(_, t)| g.atom(*t, true))
            .collect::<Option<_>>()?;
        g.terms
            .iter()
            .try_for_each(|(_, t)| g.atom(*t, false).map(|_| ()))?;
        let floors = self.floors.entry(key).or_default();
        for a in plus {
            if !floors.contains(&a) {
                floors.push(a);
            }
        }
        self.guards_used = true;
        Some(g)
    }
}
