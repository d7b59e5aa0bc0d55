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

use super::calls::{block_size, thread_rank};
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
            ("meta_group_rank" | "meta_group_size", 0) => {
                // the tile's index among the block's tiles, their number: only for a tile
                // partitioned from the block (a tile of a tile has the parent tile's)
                if !self.tile_of_block(n) {
                    return self.missing(n, Missing::WarpTile, &format!("thread_block_tile<{size}>::{method} of a tile not partitioned from the block"));
                }
                let sz = int(i64::from(size), p);
                Some(if method == "meta_group_rank" {
                    bin(BinaryOp::Div, thread_rank(p), sz)
                } else {
                    let up = bin(BinaryOp::Add, block_size(p), int(i64::from(size) - 1, p));
                    bin(BinaryOp::Div, up, sz)
                })
            }
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
    /// Whether the object of member call `n` is a local tile initialized with
    /// `tiled_partition<N>(block)` of the block.
    fn tile_of_block(&self, n: &Node) -> bool {
        let obj = first(n).map(strip).and_then(first).map(unwrap);
        let Some(r) = obj
            .filter(|o| o.kind == "DeclRefExpr")
            .and_then(|o| o.referenced_decl.as_deref())
        else {
            return false;
        };
        let Some(d) = self.decls.get(r.id.as_str()) else {
            return false;
        };
        let call = first(d).map(unwrap).filter(|c| {
            c.kind == "CallExpr"
                && callee_decl(c).and_then(|x| x.name.as_deref()) == Some("tiled_partition")
        });
        call.and_then(|c| kids(c).nth(1))
            .is_some_and(|parent| self.is_block_expr(parent))
    }

    /// `tile.shfl*(v, k)` of a record `v` whose leaves are all 4-byte scalars: one shuffle
    /// per leaf, from the same lane (CUDA shuffles a value of a larger type in 4-byte
    /// words, `spec/lowering.md` §9.5); `None` when `n` is not a shuffle on a warp tile.
    pub(super) fn tile_record_shuffle(&mut self, n: &Node) -> Option<R<super::records::Leaves>> {
        let m = first(n).map(strip)?;
        let method = m.name.clone().unwrap_or_default();
        let f = match method.as_str() {
            "shfl" => "__shfl_sync",
            "shfl_up" => "__shfl_up_sync",
            "shfl_down" => "__shfl_down_sync",
            "shfl_xor" => "__shfl_xor_sync",
            _ => return None,
        };
        let size = self.tile_expr(first(m)?)?;
        Some(self.record_shuffle(n, f, size))
    }

    fn record_shuffle(&mut self, n: &Node, f: &str, size: u32) -> R<super::records::Leaves> {
        let p = self.pos(n);
        let args: Vec<&Node> = kids(n)
            .skip(1)
            .filter(|a| strip(a).kind != "CXXDefaultArgExpr")
            .collect();
        let [v, k] = args.as_slice() else {
            return self.err(n, "a shuffle of a record expects two arguments");
        };
        let t = self.records.of(n);
        let four = self.records.leaves(t.unref()).is_some_and(|ls| {
            ls.iter().all(|l| {
                matches!(l.ty, Ty::Scalar(..))
                    && self.records.size_align(&l.ty).map(|x| x.0) == Some(4)
            })
        });
        if !four {
            return self.err(n, format!("shuffle of `{}`: only records whose fields are all 4-byte scalars are modelled (one shuffle per field)", t.describe()));
        }
        let mut kx = self.expr(k)?;
        if !matches!(kx.kind, ExprKind::Int(_)) {
            // evaluated once, before the record's fields are shuffled
            let tmp = self.fresh("shfl_lane");
            let ty = self
                .records
                .of(k)
                .ctype()
                .unwrap_or(CType::base(BaseTy::Int));
            self.pending.push(Stmt {
                kind: StmtKind::Decl(vec![Decl {
                    name: tmp.clone(),
                    ty,
                    dims: Vec::new(),
                    init: Some(kx),
                    shared: false,
                    is_extern: false,
                    pos: p,
                }]),
                pos: p,
            });
            kx = ident(&tmp, p);
        }
        let leaves = self.record_val(v)?;
        Ok(leaves
            .into_iter()
            .map(|(path, x)| {
                let a = vec![int(0xffff_ffff, p), x, kx.clone(), int(i64::from(size), p)];
                (path, e(ExprKind::Call(Box::new(ident(f, p)), a), p))
            })
            .collect())
    }

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
