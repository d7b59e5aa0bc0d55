//! Warp shuffles and votes (`spec/lowering.md` §9.5): `__shfl*_sync`, `__ballot_sync`,
//! `__any_sync`, `__all_sync`, `__activemask`, their pre-CUDA-9 forms, and `__syncwarp`,
//! lowered to the core statement `x ← shfl …` / `x ← vote …` (rules `SC:SHFL`, `SC:VOTE`).

use crate::core::{Const, Operand, ShflKind, Stmt, Ty, VoteKind, WarpOp};
use crate::frontend::ast;
use crate::frontend::diag::Pos;
use crate::frontend::lower::{loc, var, Lw, R};

/// The shape of a warp intrinsic: shuffle mode or vote, and whether it takes a member mask
/// first (the `_sync` forms of CUDA 9; the pre-CUDA-9 forms have none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Shfl(ShflKind),
    Vote(VoteKind),
    ActiveMask,
    SyncWarp,
}

/// The warp intrinsic `name` stands for, with whether it has a mask argument.
fn kind_of(name: &str) -> Option<(Kind, bool)> {
    let (stem, sync) = match name.strip_suffix("_sync") {
        Some(s) => (s, true),
        None => (name, false),
    };
    let k = match stem {
        "__shfl" => Kind::Shfl(ShflKind::Idx),
        "__shfl_up" => Kind::Shfl(ShflKind::Up),
        "__shfl_down" => Kind::Shfl(ShflKind::Down),
        "__shfl_xor" => Kind::Shfl(ShflKind::Xor),
        "__ballot" => Kind::Vote(VoteKind::Ballot),
        "__any" => Kind::Vote(VoteKind::Any),
        "__all" => Kind::Vote(VoteKind::All),
        "__activemask" if !sync => Kind::ActiveMask,
        "__syncwarp" if !sync => Kind::SyncWarp,
        _ => return None,
    };
    Some((k, sync))
}

/// Whether `name` is a warp intrinsic this module lowers.
pub(super) fn is_warp_intrinsic(name: &str) -> bool {
    kind_of(name).is_some()
}

impl Lw<'_> {
    /// Lowers the warp intrinsic call `name(args)`: the mask (when present) is lowered for
    /// its effects and cost and then not used (the lanes that take part are the active
    /// ones, spec/semantics.md §3); `__syncwarp` emits nothing (the lanes of a warp run in
    /// lock-step, so they are synchronized at every statement); a shuffle's width must be
    /// a constant power of two dividing the warp size. Returns the result operand and type
    /// (`None` for `__syncwarp`).
    ///
    /// Errors: wrong argument count, a non-constant or invalid width.
    pub(super) fn warp_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        p: Pos,
        out: &mut Vec<Stmt>,
    ) -> R<Option<(Operand, Ty)>> {
        let Some((kind, sync)) = kind_of(name) else {
            return self.err(p, format!("`{name}` is not a warp intrinsic"));
        };
        let (min, max) = match kind {
            Kind::Shfl(_) => (2, 3),
            Kind::Vote(_) => (1, 1),
            Kind::ActiveMask => (0, 0),
            Kind::SyncWarp => (0, 1),
        };
        let skip = usize::from(sync);
        let n = args.len().saturating_sub(skip);
        if args.len() < skip || n < min || n > max {
            let want = if min == max {
                format!("{}", min + skip)
            } else {
                format!("{} to {}", min + skip, max + skip)
            };
            return self.err(
                p,
                format!("`{name}` expects {want} arguments, found {}", args.len()),
            );
        }
        if sync || kind == Kind::SyncWarp {
            // the member mask: evaluated (its statements and cost kept), not modelled
            if let Some(m) = args.first() {
                self.opd(m, out)?;
            }
        }
        let args = &args[skip..];
        let x_op = match kind {
            Kind::SyncWarp => return Ok(None),
            Kind::ActiveMask => WarpOp::Vote {
                kind: VoteKind::Ballot,
                pred: Operand::Const(Const::Bool(true)),
            },
            Kind::Vote(k) => {
                let (o, t) = self.opd(&args[0], out)?;
                let pred = self.convert(o, t, Ty::Bool, p, out);
                WarpOp::Vote { kind: k, pred }
            }
            Kind::Shfl(k) => {
                let (value, t) = self.opd(&args[0], out)?;
                let lane = self.int_opd(&args[1], out)?;
                let width = match args.get(2) {
                    None => self.hw.warp_size,
                    Some(w) => self.shfl_width(name, w, p, out)?,
                };
                let tx = self.temp(t);
                out.push(Stmt::Warp(
                    tx.clone(),
                    WarpOp::Shfl {
                        kind: k,
                        width,
                        value,
                        lane,
                    },
                    loc(p),
                ));
                return Ok(Some((var(&tx), t)));
            }
        };
        let tx = self.temp(Ty::Int);
        out.push(Stmt::Warp(tx.clone(), x_op, loc(p)));
        Ok(Some((var(&tx), Ty::Int)))
    }

    /// The width argument of a shuffle: a constant power of two in `1..=warp size`.
    fn shfl_width(&mut self, name: &str, w: &ast::Expr, p: Pos, out: &mut Vec<Stmt>) -> R<u32> {
        let (o, _) = self.opd(w, out)?;
        match o {
            Operand::Const(Const::Int(n))
                if n >= 1
                    && n <= i64::from(self.hw.warp_size)
                    && (n as u64).is_power_of_two() =>
            {
                Ok(n as u32)
            }
            Operand::Const(Const::Int(n)) => self.err(
                p,
                format!(
                    "the width {n} of `{name}` is not a power of two between 1 and the warp size {}",
                    self.hw.warp_size
                ),
            ),
            _ => self.err(
                p,
                format!("the width of `{name}` must be a constant (it selects the lanes read)"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            kind_of("__shfl_down_sync"),
            Some((Kind::Shfl(ShflKind::Down), true))
        );
        assert_eq!(
            kind_of("__shfl_xor"),
            Some((Kind::Shfl(ShflKind::Xor), false))
        );
        assert_eq!(
            kind_of("__ballot_sync"),
            Some((Kind::Vote(VoteKind::Ballot), true))
        );
        assert_eq!(kind_of("__activemask"), Some((Kind::ActiveMask, false)));
        assert_eq!(kind_of("__activemask_sync"), None);
        assert_eq!(kind_of("__match_any_sync"), None);
    }
}
