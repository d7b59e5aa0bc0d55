//! Cooperative-groups warp tiles (`spec/lowering.md` §9.5): `thread_block_tile<N>`
//! variables initialized by `tiled_partition<N>(block)` are read as the constant `N`, and
//! their member calls become the warp intrinsics the builtin lowering turns into the core
//! statements `x ← shfl …`/`x ← vote …` (`tile.shfl_down(v, d)` is
//! `__shfl_down_sync(0xffffffff, v, d, N)`; `tile.any(p)` is `__any_sync(0xffffffff, p)`
//! for `N` = 32, `tile.thread_rank()` is the block's thread rank mod `N`, `tile.size()` is
//! `N`, `tile.sync()` is `__syncwarp()`). `cg::reduce(tile, v, op)` with `op` one of
//! `cg::plus<T>`, `cg::less<T>`, `cg::greater<T>` is the butterfly
//! `r = v; r = op(r, __shfl_xor_sync(0xffffffff, r, k, N))` for `k = N/2, …, 1`: every
//! lane of the tile gets the reduction of the tile's values, as `cg::reduce` specifies
//! (for floating-point values in one fixed association order; CUDA leaves it open).

use super::calls::thread_rank;
use super::convert::{bin, callee_decl, e, first, ident, int, kids, strip, Conv};
use super::json::Node;
use super::types::Ty;
use super::unsupported::Missing;
use crate::frontend::ast::{BaseTy, BinaryOp, CType, Decl, Expr, ExprKind, Stmt, StmtKind};
use crate::frontend::diag::{Diagnostic, Pos};

type R<T> = Result<T, Diagnostic>;

/// The `N` of a record type named `…thread_block_tile<N…>`, when it is a power of two
/// in `1..=32` (a tile inside one warp).
pub(super) fn tile_size(rec: &str) -> Option<u32> {
    let rest = &rec[rec.find("thread_block_tile<")? + "thread_block_tile<".len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: u32 = digits.parse().ok()?;
    ((1..=32).contains(&n) && n.is_power_of_two()).then_some(n)
}

/// The node under single-child wrappers (temporaries, constructions, cleanups).
pub(super) fn unwrap(n: &Node) -> &Node {
    let mut s = strip(n);
    while matches!(
        s.kind.as_str(),
        "CXXConstructExpr"
            | "MaterializeTemporaryExpr"
            | "ExprWithCleanups"
            | "CXXBindTemporaryExpr"
            | "CXXFunctionalCastExpr"
    ) && kids(s).count() == 1
    {
        match first(s) {
            Some(c) => s = strip(c),
            None => break,
        }
    }
    s
}

impl Conv<'_> {
    /// A declaration `thread_block_tile<N> t = tiled_partition<N>(block);` (or a copy of
    /// another tile): `Some(Ok(()))`, no code (the tile is its type's `N`); `None` when
    /// `rec` is not a warp tile type.
    pub(super) fn tile_decl(&mut self, d: &Node, rec: &str, init: Option<&Node>) -> Option<R<()>> {
        if !rec.contains("thread_block_tile<") {
            return None;
        }
        if tile_size(rec).is_none() {
            return Some(self.err(
                d,
                format!("tile type `{rec}`: the tile size must be a power of two dividing the warp size 32"),
            ));
        }
        let ok = init.map(unwrap).is_some_and(|i| {
            let named = i.kind == "CallExpr"
                && callee_decl(i).and_then(|c| c.name.as_deref()) == Some("tiled_partition");
            named || i.kind == "DeclRefExpr"
        });
        Some(if ok {
            Ok(())
        } else {
            self.err(
                d,
                format!("warp tile of type `{rec}` must be initialized with `tiled_partition<N>(block)` or another tile"),
            )
        })
    }

    /// A member call `method(args)` on a warp tile of `size` lanes (the statement form
    /// `tile.sync();` included), as an expression; `None` for `sync` (no value).
    pub(super) fn tile_call(
        &mut self,
        n: &Node,
        size: u32,
        method: &str,
        p: Pos,
    ) -> R<Option<Expr>> {
        let args: Vec<&Node> = kids(n).skip(1).collect();
        let mask = || int(0xffff_ffff, p);
        let call = |f: &str, a: Vec<Expr>| e(ExprKind::Call(Box::new(ident(f, p)), a), p);
        let mut conv = Vec::new();
        for a in &args {
            if strip(a).kind != "CXXDefaultArgExpr" {
                conv.push(self.expr(a)?);
            }
        }
        let shfl = |f: &str, conv: Vec<Expr>| -> Option<Expr> {
            let mut a = vec![mask()];
            a.extend(conv);
            a.push(int(i64::from(size), p));
            Some(call(f, a))
        };
        Ok(match (method, conv.len()) {
            ("sync", 0) => Some(call("__syncwarp", Vec::new())),
            ("thread_rank", 0) => Some(bin(BinaryOp::Rem, thread_rank(p), int(i64::from(size), p))),
            ("size" | "num_threads", 0) => Some(int(i64::from(size), p)),
            ("shfl", 2) => shfl("__shfl_sync", conv),
            ("shfl_up", 2) => shfl("__shfl_up_sync", conv),
            ("shfl_down", 2) => shfl("__shfl_down_sync", conv),
            ("shfl_xor", 2) => shfl("__shfl_xor_sync", conv),
            ("any" | "all" | "ballot", 1) if size == 32 => {
                let f = format!("__{method}_sync");
                let mut a = vec![mask()];
                a.extend(conv);
                Some(call(&f, a))
            }
            ("any" | "all" | "ballot", 1) => {
                return self.missing(
                    n,
                    Missing::WarpTile,
                    &format!(
                        "thread_block_tile<{size}>::{method} (a vote over fewer lanes than a warp)"
                    ),
                )
            }
            _ => {
                return self.missing(
                    n,
                    Missing::WarpTile,
                    &format!("thread_block_tile<{size}>::{method}"),
                )
            }
        })
    }
}

impl Conv<'_> {
    /// `cg::reduce(group, v, op)` (`n` the call, `args` its arguments): the butterfly of
    /// the module documentation, its statements pending before the current statement;
    /// the value is the result local. A located error for another group or operator.
    pub(super) fn group_reduce(&mut self, n: &Node, args: &[&Node], p: Pos) -> R<Expr> {
        let [g, v, op] = args else {
            return self.missing(n, Missing::GroupCollective, "reduce");
        };
        let opname = match self.records.of(unwrap(op)).unref() {
            Ty::Record(r) => r.clone(),
            t => t.describe(),
        };
        let stem = opname.rsplit("::").next().unwrap_or("");
        if self.is_coalesced_expr(g) {
            return self.coalesced_reduce(n, g, v, stem, p);
        }
        let Some(size) = self.tile_expr(g) else {
            return self.missing(
                n,
                Missing::GroupCollective,
                "reduce over a group other than a warp tile `tiled_partition<N>(block)` or a coalesced group",
            );
        };
        let combine: fn(Expr, Expr, Pos) -> Expr = if stem.starts_with("plus<") {
            |a, b, _| bin(BinaryOp::Add, a, b)
        } else if stem.starts_with("less<") {
            |a, b, p| e(ExprKind::Call(Box::new(ident("min", p)), vec![a, b]), p)
        } else if stem.starts_with("greater<") {
            |a, b, p| e(ExprKind::Call(Box::new(ident("max", p)), vec![a, b]), p)
        } else {
            return self.missing(
                n,
                Missing::GroupCollective,
                &format!("reduce with operator `{opname}` (only cg::plus, cg::less, cg::greater)"),
            );
        };
        let ct = self
            .records
            .of(n)
            .unref()
            .ctype()
            .unwrap_or(CType::base(BaseTy::Int));
        let x = self.expr(v)?;
        let r = self.fresh("reduce_r");
        self.pending.push(Stmt {
            kind: StmtKind::Decl(vec![Decl {
                name: r.clone(),
                ty: ct,
                dims: Vec::new(),
                init: Some(x),
                shared: false,
                is_extern: false,
                pos: p,
            }]),
            pos: p,
        });
        let mut k = size / 2;
        while k >= 1 {
            let shfl = e(
                ExprKind::Call(
                    Box::new(ident("__shfl_xor_sync", p)),
                    vec![
                        int(0xffff_ffff, p),
                        ident(&r, p),
                        int(i64::from(k), p),
                        int(i64::from(size), p),
                    ],
                ),
                p,
            );
            let val = combine(ident(&r, p), shfl, p);
            let assign = e(
                ExprKind::Assign(None, Box::new(ident(&r, p)), Box::new(val)),
                p,
            );
            self.pending.push(Stmt {
                kind: StmtKind::Expr(assign),
                pos: p,
            });
            k /= 2;
        }
        Ok(ident(&r, p))
    }
}

#[cfg(test)]
mod tests {
    use super::tile_size;

    #[test]
    fn tile_sizes() {
        assert_eq!(
            tile_size("cooperative_groups::thread_block_tile<32>"),
            Some(32)
        );
        assert_eq!(tile_size("thread_block_tile<16U>"), Some(16));
        assert_eq!(tile_size("thread_block_tile<12>"), None);
        assert_eq!(tile_size("thread_block_tile<64>"), None);
        assert_eq!(tile_size("thread_block"), None);
    }
}
