//! Calls: user device functions (converted on first use; default arguments filled in from
//! the declaration, record arguments passed leaf by leaf, cooperative-group arguments
//! dropped), prelude functions by name (`spec/lowering.md` §9.4), and the member functions
//! of a block's cooperative group.

use super::convert::{
    bin, callee_decl, e, first, ident, is_opaque_math, kids, strip, Conv, Local, Origin,
};
use super::json::Node;
use super::names::{is_clock, is_half_intrinsic};
use super::types::Ty;
use super::unsupported::Missing;
use crate::frontend::ast::{BaseTy, BinaryOp, CType, Expr, ExprKind};
use crate::frontend::diag::{Diagnostic, Pos};

type R<T> = Result<T, Diagnostic>;

pub(super) fn dim(what: &str, f: &str, p: Pos) -> Expr {
    e(ExprKind::Member(Box::new(ident(what, p)), f.to_string()), p)
}

/// `idx.x + dim.x * (idx.y + dim.y * idx.z)`: the linear rank of a 3-D index within its
/// extent (`threadIdx`/`blockDim`: a block's `thread_rank()`; `blockIdx`/`gridDim`: a
/// grid's `block_rank()`).
pub(super) fn linear_rank(idx: &str, extent: &str, p: Pos) -> Expr {
    let inner = bin(
        BinaryOp::Add,
        dim(idx, "y", p),
        bin(BinaryOp::Mul, dim(extent, "y", p), dim(idx, "z", p)),
    );
    bin(
        BinaryOp::Add,
        dim(idx, "x", p),
        bin(BinaryOp::Mul, dim(extent, "x", p), inner),
    )
}

/// `extent.x * extent.y * extent.z` (`blockDim`: a block's `size()`; `gridDim`: a grid's
/// `num_blocks()`).
pub(super) fn extent_size(extent: &str, p: Pos) -> Expr {
    bin(
        BinaryOp::Mul,
        bin(BinaryOp::Mul, dim(extent, "x", p), dim(extent, "y", p)),
        dim(extent, "z", p),
    )
}

/// A block's `thread_rank()`.
pub(super) fn thread_rank(p: Pos) -> Expr {
    linear_rank("threadIdx", "blockDim", p)
}

/// A block's `size()`.
pub(super) fn block_size(p: Pos) -> Expr {
    extent_size("blockDim", p)
}

impl Conv<'_> {
    /// The lane count of a warp-tile expression: a `thread_block_tile<N>` value (also
    /// converted to a `thread_group`) or a `thread_group` parameter bound to a tile.
    pub(super) fn tile_expr(&self, n: &Node) -> Option<u32> {
        let s = super::warp::unwrap(n);
        if let Ty::Record(r) = self.records.of(s).unref() {
            if let Some(size) = super::warp::tile_size(r) {
                return Some(size);
            }
        }
        let r = s
            .referenced_decl
            .as_deref()
            .filter(|_| s.kind == "DeclRefExpr")?;
        match self.lookup(&r.id) {
            Some(Local::Tile(size)) => Some(*size),
            _ => None,
        }
    }

    pub(super) fn is_block_expr(&self, n: &Node) -> bool {
        let s = strip(n);
        match s.kind.as_str() {
            "DeclRefExpr" => s
                .referenced_decl
                .as_deref()
                .is_some_and(|r| matches!(self.lookup(&r.id), Some(Local::Block))),
            "CallExpr" => self.calls_named(s, "this_thread_block"),
            "CXXConstructExpr" => {
                kids(s).count() == 1 && kids(s).next().is_some_and(|a| self.is_block_expr(a))
            }
            _ => false,
        }
    }

    /// A `CallExpr`.
    pub(super) fn call(&mut self, n: &Node) -> R<Expr> {
        if self.is_lambda_call(n) {
            return self.lambda_call(n);
        }
        let p = self.pos(n);
        let Some(d) = callee_decl(n).cloned() else {
            return self.err(
                n,
                "call through a function pointer or of a member is not supported",
            );
        };
        let name = d.name.clone().unwrap_or_default();
        let args: Vec<&Node> = kids(n).skip(1).collect();
        let decl = self.decls.get(d.id.as_str()).copied();
        let origin = decl.map(|x| self.origin_of(x)).unwrap_or(Origin::Prelude);
        if origin != Origin::User {
            return self.builtin_call(n, &name, &args, p);
        }
        let Some(decl) = decl else {
            return self.err(n, format!("function `{name}` without declaration"));
        };
        let (out, groups) = self.user_args(decl, &args)?;
        let Some(fname) = self.function_for_groups(&d.id, &groups) else {
            return self.err(
                n,
                format!(
                    "function `{name}` is only declared: its body is not in the translation unit"
                ),
            );
        };
        Ok(e(ExprKind::Call(Box::new(ident(&fname, p)), out), p))
    }

    /// The arguments `args` of a call of user function `decl`: default arguments filled in
    /// from the declaration, records leaf by leaf, cooperative groups dropped (returned in
    /// order: `None` the block, `Some(N)` a warp tile of `N` lanes).
    pub(super) fn user_args<'n>(
        &mut self,
        decl: &'n Node,
        args: &[&'n Node],
    ) -> R<(Vec<Expr>, Vec<Option<u32>>)> {
        let parms: Vec<&Node> = decl
            .inner
            .iter()
            .filter(|c| c.kind == "ParmVarDecl")
            .collect();
        let mut out = Vec::new();
        let mut groups = Vec::new();
        for (k, a) in args.iter().enumerate() {
            let pt = parms
                .get(k)
                .map(|x| self.records.of(x))
                .unwrap_or(Ty::Other(String::new()));
            let a = if strip(a).kind == "CXXDefaultArgExpr" {
                match parms.get(k).and_then(|x| first(x)) {
                    Some(def) => def,
                    None => return self.err(a, "default argument without a value"),
                }
            } else {
                a
            };
            match pt.unref() {
                Ty::Record(r) if super::grid::is_grid_record(r) => {
                    // the grid is one group: the parameter is bound to it (functions.rs)
                    if !self.is_grid_expr(a) {
                        return self.err(
                            a,
                            "grid group argument must be `this_grid()` or a grid group",
                        );
                    }
                }
                Ty::Record(r) if self.is_cg(r) => {
                    if self.is_block_expr(a) {
                        groups.push(None);
                    } else if let Some(size) = self.tile_expr(a) {
                        groups.push(Some(size));
                    } else {
                        return self.err(a, format!("cooperative group argument of type `{r}` must be the block (`this_thread_block()`) or a warp tile (`tiled_partition<N>(block)`)"));
                    }
                }
                Ty::Record(_) => {
                    for (_, x) in self.record_val(a)? {
                        out.push(x);
                    }
                }
                _ => out.push(self.expr(a)?),
            }
        }
        Ok((out, groups))
    }

    fn builtin_call(&mut self, n: &Node, name: &str, args: &[&Node], p: Pos) -> R<Expr> {
        if name == "reduce" {
            return self.group_reduce(n, args, p);
        }
        if let Some(m) = Missing::of_call(name) {
            return self.missing(n, m, name);
        }
        let scalar_args = |c: &mut Self| -> R<Vec<Expr>> {
            let mut v = Vec::new();
            for a in args {
                if strip(a).kind == "CXXDefaultArgExpr" {
                    continue;
                }
                v.push(c.expr(a)?);
            }
            Ok(v)
        };
        match name {
            "__ldg" | "__ldcg" | "__ldca" | "__ldcs" => {
                let [a] = args else {
                    return self.err(n, format!("`{name}` expects one argument"));
                };
                let x = self.expr(a)?;
                Ok(e(ExprKind::Unary(crate::frontend::ast::UnaryOp::Deref, Box::new(x)), p))
            }
            "sync" | "synchronize" => {
                if args.len() == 1 && self.is_block_expr(args[0]) {
                    Ok(e(ExprKind::Call(Box::new(ident("__syncthreads", p)), Vec::new()), p))
                } else if args.len() == 1 && self.is_grid_expr(args[0]) {
                    Ok(self.grid_sync(p))
                } else if args.len() == 1
                    && (self.tile_expr(args[0]).is_some() || self.is_coalesced_expr(args[0]))
                {
                    // a warp tile or a coalesced group: `__syncwarp()` (spec/lowering.md §9.5)
                    Ok(e(ExprKind::Call(Box::new(ident("__syncwarp", p)), Vec::new()), p))
                } else {
                    self.missing(n, Missing::WarpTile, name)
                }
            }
            "printf" => self.err(n, "the value of `printf` is used"),
            "this_thread_block" => self.err(n, "`this_thread_block()` is only supported as the initializer of a `thread_block` or as a call's object"),
            "this_grid" => self.err(n, "`this_grid()` is only supported as the initializer of a `grid_group`, a call's object or argument"),
            _ if name.starts_with("make_") => self.err(n, format!("`{name}` used as a scalar")),
            _ if is_half_intrinsic(name) || is_clock(name) => self.opaque_scalar_call(n, name, p),
            _ if is_opaque_math(name) => {
                let v = scalar_args(self)?;
                let rt = self.records.of(n);
                let ct = rt.ctype().unwrap_or(CType::base(BaseTy::Float));
                if !self.warned_opaque.contains(name) {
                    self.warned_opaque.insert(name.to_string());
                    self.warnings.push(self.sm.warning(p, format!("`{name}` is modelled as one operation on its arguments (steps), its value is not modelled: the analysis treats it as unknown, `warpcert run` computes a stand-in value (spec/lowering.md §9.4)")));
                }
                Ok(e(ExprKind::Opaque(name.to_string(), v, ct), p))
            }
            _ => {
                let v = scalar_args(self)?;
                Ok(e(ExprKind::Call(Box::new(ident(name, p)), v), p))
            }
        }
    }

    /// A member call on a cooperative group: `Some(Some(e))` its value, `Some(None)` when
    /// it has no effect, `None` when `n` is not a group call.
    pub(super) fn cg_call(&mut self, n: &Node) -> R<Option<Option<Expr>>> {
        let Some(m) = first(n).map(strip) else {
            return Ok(None);
        };
        if m.kind != "MemberExpr" {
            return Ok(None);
        }
        let Some(obj) = first(m) else {
            return Ok(None);
        };
        let ot = self.records.of(strip(obj));
        let ot = if m.is_arrow {
            ot.inner().cloned().unwrap_or(ot)
        } else {
            ot
        };
        let Ty::Record(rec) = ot.unref().clone() else {
            return Ok(None);
        };
        if !self.is_cg(&rec) {
            return Ok(None);
        }
        let method = m.name.clone().unwrap_or_default();
        let p = self.pos(n);
        let block = rec.ends_with("thread_block")
            || (rec.ends_with("thread_group") && self.is_block_expr(obj));
        if super::grid::is_grid_record(&rec) {
            return self.grid_call(n, &method, p).map(|x| Some(Some(x)));
        }
        if let Some(size) = super::warp::tile_size(&rec).or_else(|| self.tile_expr(obj)) {
            return self.tile_call(n, size, &method, p).map(Some);
        }
        if super::coalesced::is_coalesced_record(&rec) {
            return self
                .coalesced_call(n, obj, &method, p)
                .map(|x| Some(Some(x)));
        }
        if !block {
            let what = Missing::of_group(&rec);
            return self.missing(n, what, &format!("{rec}::{method}"));
        }
        Ok(Some(Some(match method.as_str() {
            "sync" => e(
                ExprKind::Call(Box::new(ident("__syncthreads", p)), Vec::new()),
                p,
            ),
            "thread_rank" => thread_rank(p),
            "size" | "num_threads" => block_size(p),
            _ => {
                return self.err(
                    n,
                    format!("`{method}()` of a thread block is not supported here"),
                )
            }
        })))
    }
}
