//! The rules of Fig. 5 on an active set of exactly one lane, without result families: the
//! thread steps of the interleaving semantics (Collingbourne et al. Fig. 4, THREAD_B/T).
//!
//! Each function here is the one-lane instance of the family rule of the same name in
//! `lockstep.rs` and must agree with it exactly: the same rule applications (fuel) in the
//! same order, the same charges, the same race-log accesses, the same values and store
//! updates, the same errors with the same locations. It only skips what a family of one
//! value does not need (the pool of families, the lock-step write-write check between
//! lanes, derivations: thread steps never build one). `tests/semantics_scalar.rs` compares
//! the two paths on generated programs and inputs. Errors travel boxed inside this file
//! (a result of one value then fits in registers) and are unboxed at its two entry points.

use super::{access_charge, as_bool, as_index, at, Warp};
use crate::core::{Expr, Loc, Operand, Space, Stmt};
use crate::semantics::derivation::Res;
use crate::semantics::store::Memory;
use crate::semantics::value::{apply_bin_one, apply_un, Value};
use crate::semantics::*;

impl<'a> Warp<'a> {
    /// [`Warp::exec_on`] on the active set `{l}` for an atomic statement (`skip`, `x ← e`,
    /// `A[o] ← e`); the rule of the conclusion. Errors: as the family rules; a compound
    /// statement (sequence, branch, loop, barrier, warp operation) is a
    /// [`SemError::Unsupported`] (the thread-level semantics take those apart themselves).
    pub(crate) fn exec_one(
        &mut self,
        s: &'a Stmt,
        l: usize,
        mem: &mut Memory,
    ) -> Result<&'static str, SemError> {
        let rule = match s {
            Stmt::Skip => {
                self.tick()?;
                SC_SKIP
            }
            Stmt::Assign(x, e, loc) => {
                self.cur_loc = *loc;
                self.assign_one(x, e, l, mem).map_err(|y| at(*loc, *y))?
            }
            Stmt::Write(a, o, e, loc) => {
                self.cur_loc = *loc;
                self.write_one(a, o, e, l, mem).map_err(|y| at(*loc, *y))?
            }
            _ => {
                return Err(SemError::Unsupported(
                    "a compound statement as one thread step".into(),
                ))
            }
        };
        self.last_rule = rule;
        Ok(rule)
    }

    /// [`Warp::branch`] on the active set `{l}`: the condition's value (`M^if` charged).
    pub(crate) fn branch_one(
        &mut self,
        e: &'a Expr,
        l: usize,
        mem: &mut Memory,
        loc: Loc,
    ) -> Result<bool, SemError> {
        self.cur_loc = loc;
        let r = (|| -> Result<bool, Box<SemError>> {
            self.tick()?;
            let v = self.expr_one(e, l, mem)?;
            self.charge_one(l, Res::If);
            Ok(as_bool(v)?)
        })();
        r.map_err(|x| at(loc, *x))
    }

    /// SC:VWRITE on `{l}`.
    fn assign_one(
        &mut self,
        x: &'a str,
        e: &'a Expr,
        l: usize,
        mem: &mut Memory,
    ) -> Result<&'static str, Box<SemError>> {
        self.tick()?;
        let (slot, ty) = self.var_slot_ty(x)?;
        let v = self.expr_one(e, l, mem)?;
        if v.ty() != ty {
            return Err(Box::new(SemError::Type(format!(
                "assigning a {} value to `{x}` of type {}",
                v.ty().keyword(),
                ty.keyword()
            ))));
        }
        let n = self.lanes();
        if let Some(cell) = self.locals.get_mut(slot * n + l) {
            *cell = v;
        }
        self.charge_one(l, Res::VWrite);
        Ok(SC_VWRITE)
    }

    /// SC:GWRITE / SC:SWRITE / SC:LWRITE on `{l}` (one lane cannot race with itself).
    fn write_one(
        &mut self,
        a: &'a str,
        o: &'a Operand,
        e: &'a Expr,
        l: usize,
        mem: &mut Memory,
    ) -> Result<&'static str, Box<SemError>> {
        self.tick()?;
        let slot = self.array_slot(a)?;
        let i = self.opd_one(o, l)?;
        let v = self.expr_one(e, l, mem)?;
        let i = as_index(i, a)?;
        let cells = mem
            .arrays
            .get_mut(slot)
            .ok_or_else(|| SemError::Undeclared {
                kind: "array",
                name: a.to_string(),
            })?;
        if v.ty() != cells.elem {
            return Err(Box::new(SemError::Type(format!(
                "writing a {} value into `{a}` of element type {}",
                v.ty().keyword(),
                cells.elem.keyword()
            ))));
        }
        if let Some(log) = self.races.as_mut() {
            log.access(
                slot,
                cells.space,
                i,
                self.lane_ids[l],
                Some(v),
                self.cur_loc,
                a,
            )?;
        }
        cells.set(i, v);
        let space = cells.space;
        Ok(self.charge_space_one(l, space, true))
    }

    /// OC:VAR, OC:CONST, OC:PARAM, OC:TID on `{l}`.
    #[inline(always)]
    fn opd_one(&mut self, o: &'a Operand, l: usize) -> Result<Value, Box<SemError>> {
        self.tick()?;
        Ok(match o {
            Operand::Var(x) => {
                let n = self.lanes();
                let base = self.var_slot(x)? * n;
                let v = match self.locals.get(base..base + n) {
                    Some(col) => col[l],
                    None => {
                        let e = SemError::Type(format!("local `{x}` has no storage"));
                        return Err(Box::new(e));
                    }
                };
                self.charge_one(l, Res::Var);
                v
            }
            Operand::Const(c) => {
                self.charge_one(l, Res::Const);
                Value::of_const(c)
            }
            Operand::Param(p) => {
                let v = self.param(p)?;
                self.charge_one(l, Res::Param);
                v
            }
            Operand::Tid(d) => {
                let v = Value::Int(self.tids[l][d.index()]);
                self.charge_one(l, Res::Var);
                v
            }
        })
    }

    /// EC:OP, EC:UOP, EC:GARR, EC:SARR, EC:LARR (and the operand rules) on `{l}`.
    fn expr_one(
        &mut self,
        e: &'a Expr,
        l: usize,
        mem: &mut Memory,
    ) -> Result<Value, Box<SemError>> {
        let a = match e {
            Expr::Opd(o) => return self.opd_one(o, l),
            Expr::Bin(_, a, _) | Expr::Un(_, a) | Expr::Read(_, a) => a,
        };
        self.tick()?;
        let va = self.opd_one(a, l)?;
        match e {
            Expr::Bin(op, _, b) => {
                let vb = self.opd_one(b, l)?;
                let r = apply_bin_one(*op, va, vb)?;
                self.charge_one(l, Res::Op);
                Ok(r)
            }
            Expr::Un(op, _) => {
                let r = apply_un(*op, va)?;
                self.charge_one(l, Res::Op);
                Ok(r)
            }
            Expr::Read(arr, _) => {
                let slot = self.array_slot(arr)?;
                let i = as_index(va, arr)?;
                let cells = mem
                    .arrays
                    .get_mut(slot)
                    .ok_or_else(|| SemError::Undeclared {
                        kind: "array",
                        name: arr.clone(),
                    })?;
                let v = cells.read(i);
                let space = cells.space;
                if let Some(log) = self.races.as_mut() {
                    log.access(slot, space, i, self.lane_ids[l], None, self.cur_loc, arr)?;
                }
                self.charge_space_one(l, space, false);
                Ok(v)
            }
            Expr::Opd(_) => Err(Box::new(SemError::Type("unreachable operand case".into()))),
        }
    }

    /// [`Warp::charge`] on the active set `{l}`: `r` once (and once to the segment of
    /// `l`'s warp in block mode).
    #[inline(always)]
    fn charge_one(&mut self, l: usize, r: Res) {
        if self.lane_warp.is_empty() {
            self.usage.charge(r);
        } else {
            self.charge(std::slice::from_ref(&l), r);
        }
    }

    /// [`Warp::charge_space`] on the active set `{l}` (one index): the access argument is 1
    /// for global and shared accesses alike, since one index lies in exactly one sector
    /// (`MemReads` of a one-element family, `|{⌊i·b/s⌋}| = 1`) and one bank holds exactly
    /// one distinct address (`Conflicts` = 1); thread-local accesses charge `M^var` /
    /// `M^vwrite`. Returns the rule, as `charge_space` does.
    #[inline(always)]
    fn charge_space_one(&mut self, l: usize, space: Space, write: bool) -> &'static str {
        let (acc, rule) = match access_charge(space, write) {
            Ok(a) => a,
            Err((r, rule)) => {
                self.charge_one(l, r);
                return rule;
            }
        };
        if self.lane_warp.is_empty() {
            self.usage.charge_access(acc, 1);
        } else {
            let w = self.lane_warp[l] as usize;
            self.usage.charge_access(acc, 1);
            self.seg[w].charge_access(acc, 1);
        }
        rule
    }
}
