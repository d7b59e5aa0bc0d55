//! Grid-wide cooperative groups (`spec/lowering.md` §9.6): `grid_group g = this_grid();`
//! is no value (like the block's group), and its member calls are arithmetic over the
//! launch built-ins or a barrier:
//!
//! * `g.block_rank()` is `blockIdx.x + gridDim.x·(blockIdx.y + gridDim.y·blockIdx.z)`,
//!   `g.num_blocks()` is `gridDim.x·gridDim.y·gridDim.z`;
//! * `g.thread_rank()` is `g.block_rank()·(blockDim.x·blockDim.y·blockDim.z)` plus the
//!   block's `thread_rank()`; `g.size()`/`g.num_threads()` is
//!   `g.num_blocks()·(blockDim.x·blockDim.y·blockDim.z)` (CUDA's definitions);
//! * `g.sync()` and `cg::sync(g)` are the core `sync` (`__syncthreads()`): warpcert's model
//!   is one block, in which a grid-wide barrier has the state effect of a block barrier
//!   (every warp of the block waits for every other) and is charged what `__syncthreads()`
//!   is charged. What the other blocks wrote before the barrier is not modelled: global
//!   memory read after it is an unknown input, as every global read already is for the
//!   analysis (its values are never tracked). A warning at each grid barrier says so, and
//!   that the interleaving semantics (blocks one after another, never synchronizing)
//!   reports every conflicting access pair of two blocks, including pairs the grid barrier
//!   orders. The converter emits a call of [`GRID_SYNC`]; the lowering (`lower/call.rs`)
//!   makes it the core `sync` and gives the warning, for the kernels that reach it.
//!
//! `is_valid()` (whether the launch was cooperative) and other members stay a located
//! error; a `grid_group` parameter of a device function is read as the grid.

use super::calls::{block_size, extent_size, linear_rank, thread_rank};
use super::convert::{bin, e, ident, kids, strip, Conv, Local};
use super::json::Node;
use super::unsupported::Missing;
use crate::frontend::ast::{BinaryOp, Expr, ExprKind};
use crate::frontend::diag::{Diagnostic, Pos};
use crate::frontend::lower::GRID_SYNC;

type R<T> = Result<T, Diagnostic>;

/// Whether record name `rec` is the grid-wide group.
pub(super) fn is_grid_record(rec: &str) -> bool {
    rec.ends_with("grid_group") && !rec.ends_with("multi_grid_group")
}

/// A grid's `block_rank()`.
fn block_rank(p: Pos) -> Expr {
    linear_rank("blockIdx", "gridDim", p)
}

/// A grid's `num_blocks()`.
fn num_blocks(p: Pos) -> Expr {
    extent_size("gridDim", p)
}

impl Conv<'_> {
    /// Whether `n` denotes the grid group: a local or parameter bound to it, or a
    /// `this_grid()` call.
    pub(super) fn is_grid_expr(&self, n: &Node) -> bool {
        let s = super::warp::unwrap(n);
        match s.kind.as_str() {
            "DeclRefExpr" => s
                .referenced_decl
                .as_deref()
                .is_some_and(|r| matches!(self.lookup(&r.id), Some(Local::Grid))),
            "CallExpr" => self.calls_named(s, "this_grid"),
            _ => false,
        }
    }

    /// A declaration `grid_group g = this_grid();` (or a copy of another grid group).
    pub(super) fn grid_decl(&mut self, d: &Node, init: Option<&Node>) -> R<()> {
        let name = d.name.clone().unwrap_or_default();
        match init {
            Some(i) if self.is_grid_expr(i) => {}
            _ => {
                return self.err(
                    d,
                    format!("grid group `{name}` must be initialized with `this_grid()`"),
                )
            }
        }
        if let Some(m) = self.locals.last_mut() {
            m.insert(d.id.clone(), Local::Grid);
        }
        Ok(())
    }

    /// The grid barrier `g.sync()` / `cg::sync(g)` at `p`: a call of
    /// [`GRID_SYNC`], which the lowering makes the core `sync` with the warning of the
    /// module documentation (per kernel, `lower/call.rs`).
    pub(super) fn grid_sync(&mut self, p: Pos) -> Expr {
        e(ExprKind::Call(Box::new(ident(GRID_SYNC, p)), Vec::new()), p)
    }

    /// The member call `g.method()` on the grid group (`n` the call).
    pub(super) fn grid_call(&mut self, n: &Node, method: &str, p: Pos) -> R<Expr> {
        if kids(n)
            .skip(1)
            .any(|a| strip(a).kind != "CXXDefaultArgExpr")
        {
            return self.missing(n, Missing::GridGroup, &format!("grid_group::{method}"));
        }
        Ok(match method {
            "sync" => self.grid_sync(p),
            "thread_rank" => bin(
                BinaryOp::Add,
                bin(BinaryOp::Mul, block_rank(p), block_size(p)),
                thread_rank(p),
            ),
            "size" | "num_threads" => bin(BinaryOp::Mul, num_blocks(p), block_size(p)),
            "block_rank" => block_rank(p),
            "num_blocks" => num_blocks(p),
            _ => return self.missing(n, Missing::GridGroup, &format!("grid_group::{method}")),
        })
    }
}
