//! Cooperative-groups coalesced groups (`spec/lowering.md` §9.5): a `coalesced_group` is
//! its **lane mask**, one `int` local per group whose bit `j` is set when lane `j` of the
//! warp is a member, the same on every member lane (`lane = thread_rank mod 32`, the
//! lane of `spec/semantics.md` §3).
//!
//! * `coalesced_threads()`: the active lanes, `__activemask()` (the vote `ballot true`);
//! * `binary_partition(parent, p)`: with `b = __ballot_sync(·, p)` and `x = (b >> lane) & 1`
//!   (the reader's own `p`), `parent & (b ^ (x - 1))` (`b` when `p` holds, `~b` otherwise);
//! * `labeled_partition(parent, l)`: the lanes `j` of `parent` (restricted to the active
//!   lanes) whose label equals the reader's, one shuffle per lane:
//!   `r |= ((int)(__shfl_sync(·, l, j) == l) & (m >> j) & 1) << j` for `j = 0 … 31`;
//! * a warp tile parent `thread_block_tile<N>` is the active lanes of the reader's tile;
//! * `g.thread_rank()` = `__popc(m & ((1 << lane) - 1))`, `g.size()` = `__popc(m)`,
//!   `g.shfl(v, 0)` = `__shfl_sync(·, v, __ffs(m) - 1)` (rank 0 is the lowest member lane;
//!   another source rank is a located error), `g.any(p)` = `(__ballot_sync(·, p) & m) != 0`,
//!   `g.all(p)` = `(__ballot_sync(·, p) & m) == m`, `g.sync()` = `__syncwarp()`;
//! * `cg::reduce(g, v, op)` on an integer `v` with `op` one of `cg::plus`, `cg::less`,
//!   `cg::greater`: over the 32 lanes, `t = __shfl_sync(·, v, j)`, `b = (m >> j) & 1`, then
//!   `r += b * t` (plus, `r` from 0) or `r = op(r, b * t + (1 - b) * v)` (min/max, `r` from
//!   `v`): every member gets the reduction over its group's values.
//!
//! `__popc`/`__ffs` lower to the core operators `popc`/`ffs` (exact values), shuffles and
//! votes to the core warp statements (rules `SC:SHFL`, `SC:VOTE`).

use super::calls::thread_rank;
use super::convert::{bin, callee_decl, e, ident, int, kids, strip, Conv, Local};
use super::json::Node;
use super::types::Ty;
use super::unsupported::Missing;
use crate::frontend::ast::{BaseTy, BinaryOp, CType, Decl, Expr, ExprKind, Stmt, StmtKind};
use crate::frontend::diag::{Diagnostic, Pos};

type R<T> = Result<T, Diagnostic>;

/// The lanes of a warp (CUDA's warp size; warp tiles assume it too, `clang/warp.rs`).
const WARP: i64 = 32;

/// Whether record `rec` is the coalesced group type.
pub(super) fn is_coalesced_record(rec: &str) -> bool {
    rec.ends_with("coalesced_group")
}

fn call(f: &str, args: Vec<Expr>, p: Pos) -> Expr {
    e(ExprKind::Call(Box::new(ident(f, p)), args), p)
}

/// `thread_rank mod 32`: the reader's lane in its warp.
fn lane(p: Pos) -> Expr {
    bin(BinaryOp::Rem, thread_rank(p), int(WARP, p))
}

/// `(m >> j) & 1`.
fn bit(m: Expr, j: Expr) -> Expr {
    let p = m.pos;
    bin(BinaryOp::BitAnd, bin(BinaryOp::Shr, m, j), int(1, p))
}

fn full(p: Pos) -> Expr {
    int(0xffff_ffff, p)
}

fn assign(x: &str, v: Expr, p: Pos) -> Stmt {
    let a = e(
        ExprKind::Assign(None, Box::new(ident(x, p)), Box::new(v)),
        p,
    );
    Stmt {
        kind: StmtKind::Expr(a),
        pos: p,
    }
}

impl Conv<'_> {
    /// A fresh local `stem…` of type `ty` initialized with `init`, declared before the
    /// current statement (pending).
    fn pending_local(&mut self, stem: &str, ty: CType, init: Expr, p: Pos) -> String {
        let name = self.fresh(stem);
        self.pending.push(Stmt {
            kind: StmtKind::Decl(vec![Decl {
                name: name.clone(),
                ty,
                dims: Vec::new(),
                init: Some(init),
                shared: false,
                is_extern: false,
                pos: p,
            }]),
            pos: p,
        });
        name
    }

    fn mask_local(&mut self, stem: &str, init: Expr, p: Pos) -> String {
        self.pending_local(stem, CType::base(BaseTy::Int), init, p)
    }

    /// Whether `n` is a coalesced-group expression (its type is `coalesced_group`).
    pub(super) fn is_coalesced_expr(&self, n: &Node) -> bool {
        let s = super::warp::unwrap(n);
        matches!(self.records.of(s).unref(), Ty::Record(r) if is_coalesced_record(r))
    }

    /// `coalesced_group g = init;`: the mask local of `g` (its computation pending before
    /// the declaration). Errors: no initializer, an initializer that is not a group.
    pub(super) fn coalesced_decl(&mut self, d: &Node, init: Option<&Node>) -> R<()> {
        let name = d.name.clone().unwrap_or_default();
        let Some(i) = init else {
            return self.err(d, format!("coalesced group `{name}` must be initialized (with `coalesced_threads()`, a partition or another coalesced group)"));
        };
        let p = self.pos(d);
        let m = self.group_mask(i)?;
        let local = self.mask_local(&format!("{name}_mask"), m, p);
        if let Some(scope) = self.locals.last_mut() {
            scope.insert(d.id.clone(), Local::Coalesced(local));
        }
        Ok(())
    }

    /// The lane mask of a group expression `n`: a coalesced-group local,
    /// `coalesced_threads()`, `binary_partition`/`labeled_partition` of a group (their
    /// statements pending), or a warp tile. Errors: any other expression.
    pub(super) fn group_mask(&mut self, n: &Node) -> R<Expr> {
        let s = super::warp::unwrap(n);
        let p = self.pos(s);
        if s.kind == "DeclRefExpr" {
            if let Some(r) = s.referenced_decl.as_deref() {
                if let Some(Local::Coalesced(m)) = self.lookup(&r.id) {
                    return Ok(ident(m, p));
                }
            }
        }
        if s.kind == "CallExpr" {
            let name = callee_decl(s)
                .and_then(|c| c.name.clone())
                .unwrap_or_default();
            let args: Vec<&Node> = kids(s).skip(1).collect();
            match (name.as_str(), args.as_slice()) {
                ("coalesced_threads", []) => return Ok(call("__activemask", Vec::new(), p)),
                ("binary_partition", [g, c]) => return self.binary_partition(g, c, p),
                ("labeled_partition", [g, l]) => return self.labeled_partition(g, l, p),
                _ => {}
            }
        }
        if let Some(size) = self.tile_expr(s) {
            // the active lanes of the reader's tile of `size` lanes
            let size = i64::from(size);
            let am = call("__activemask", Vec::new(), p);
            if size == WARP {
                return Ok(am);
            }
            let l = lane(p);
            let first = bin(
                BinaryOp::Sub,
                l.clone(),
                bin(BinaryOp::Rem, l, int(size, p)),
            );
            let ones = int((1 << size) - 1, p);
            return Ok(bin(BinaryOp::BitAnd, am, bin(BinaryOp::Shl, ones, first)));
        }
        self.missing(
            n,
            Missing::CoalescedGroup,
            "group other than `coalesced_threads()`, a partition, a coalesced group variable or a warp tile",
        )
    }

    /// `binary_partition(g, c)`: `parent & (b ^ (((b >> lane) & 1) - 1))`, `b` the ballot of
    /// `c`.
    fn binary_partition(&mut self, g: &Node, c: &Node, p: Pos) -> R<Expr> {
        let parent = self.group_mask(g)?;
        let parent = self.mask_local("bpart_parent", parent, p);
        let pred = self.expr(c)?;
        let b = self.mask_local(
            "bpart_ballot",
            call("__ballot_sync", vec![full(p), pred], p),
            p,
        );
        let own = bit(ident(&b, p), lane(p));
        let flip = bin(BinaryOp::Sub, own, int(1, p));
        let sel = bin(BinaryOp::BitXor, ident(&b, p), flip);
        Ok(bin(BinaryOp::BitAnd, ident(&parent, p), sel))
    }

    /// `labeled_partition(g, l)`: the module documentation's 32 shuffles.
    fn labeled_partition(&mut self, g: &Node, l: &Node, p: Pos) -> R<Expr> {
        let parent = self.group_mask(g)?;
        let active = bin(
            BinaryOp::BitAnd,
            parent,
            call("__activemask", Vec::new(), p),
        );
        let parent = self.mask_local("lpart_parent", active, p);
        let label = self.expr(l)?;
        let label = self.pending_local("lpart_label", CType::base(BaseTy::Long), label, p);
        let r = self.mask_local("lpart_mask", int(0, p), p);
        for j in 0..WARP {
            let t = call(
                "__shfl_sync",
                vec![full(p), ident(&label, p), int(j, p), int(WARP, p)],
                p,
            );
            let eq = bin(BinaryOp::Eq, t, ident(&label, p));
            let eq = e(ExprKind::Cast(CType::base(BaseTy::Int), Box::new(eq)), p);
            let member = bin(BinaryOp::BitAnd, eq, bit(ident(&parent, p), int(j, p)));
            let v = bin(
                BinaryOp::BitOr,
                ident(&r, p),
                bin(BinaryOp::Shl, member, int(j, p)),
            );
            self.pending.push(assign(&r, v, p));
        }
        Ok(ident(&r, p))
    }

    /// A member call `method(args)` (`n` the call) on the coalesced group `obj`, as an
    /// expression (the module documentation). Errors: other members, `shfl` from a source
    /// rank other than the constant 0.
    pub(super) fn coalesced_call(&mut self, n: &Node, obj: &Node, method: &str, p: Pos) -> R<Expr> {
        let args: Vec<&Node> = kids(n)
            .skip(1)
            .filter(|a| strip(a).kind != "CXXDefaultArgExpr")
            .collect();
        let m = self.group_mask(obj)?;
        Ok(match (method, args.as_slice()) {
            ("sync", []) => call("__syncwarp", Vec::new(), p),
            ("thread_rank", []) => {
                let below = bin(
                    BinaryOp::Sub,
                    bin(BinaryOp::Shl, int(1, p), lane(p)),
                    int(1, p),
                );
                call("__popc", vec![bin(BinaryOp::BitAnd, m, below)], p)
            }
            ("size" | "num_threads", []) => call("__popc", vec![m], p),
            ("shfl", [v, src]) => {
                let src_e = self.expr(src)?;
                if !matches!(src_e.kind, ExprKind::Int(0)) {
                    return self.missing(
                        src,
                        Missing::CoalescedGroup,
                        "coalesced_group::shfl from a source rank other than the constant 0",
                    );
                }
                let v = self.expr(v)?;
                let m = self.mask_local("shfl_group", m, p);
                let leader = bin(
                    BinaryOp::Sub,
                    call("__ffs", vec![ident(&m, p)], p),
                    int(1, p),
                );
                call("__shfl_sync", vec![full(p), v, leader, int(WARP, p)], p)
            }
            ("any" | "all", [c]) => {
                let pred = self.expr(c)?;
                let m = self.mask_local("vote_group", m, p);
                let b = call("__ballot_sync", vec![full(p), pred], p);
                let hits = bin(BinaryOp::BitAnd, b, ident(&m, p));
                if method == "any" {
                    bin(BinaryOp::Ne, hits, int(0, p))
                } else {
                    bin(BinaryOp::Eq, hits, ident(&m, p))
                }
            }
            _ => {
                return self.missing(
                    n,
                    Missing::CoalescedGroup,
                    &format!("coalesced_group::{method}"),
                )
            }
        })
    }

    /// `cg::reduce(g, v, op)` on a coalesced group `g` (`n` the call, `stem` the operator's
    /// record name without namespace): the module documentation's 32 guarded shuffles, the
    /// value the result local. Errors: a non-integer value, another operator.
    pub(super) fn coalesced_reduce(
        &mut self,
        n: &Node,
        g: &Node,
        v: &Node,
        stem: &str,
        p: Pos,
    ) -> R<Expr> {
        let ct = self.records.of(n).unref().ctype();
        let int_like = ct.as_ref().is_some_and(|c| {
            c.ptr == 0
                && matches!(
                    c.base,
                    BaseTy::Char | BaseTy::Short | BaseTy::Int | BaseTy::Long
                )
        });
        let (Some(ct), true) = (ct, int_like) else {
            return self.missing(
                n,
                Missing::GroupCollective,
                "reduce over a coalesced group of a non-integer value",
            );
        };
        let plus = stem.starts_with("plus<");
        let combine = if stem.starts_with("less<") {
            "min"
        } else if stem.starts_with("greater<") {
            "max"
        } else if plus {
            ""
        } else {
            return self.missing(
                n,
                Missing::GroupCollective,
                &format!("reduce with operator `{stem}` (only cg::plus, cg::less, cg::greater)"),
            );
        };
        let m = self.group_mask(g)?;
        let m = self.mask_local("reduce_group", m, p);
        let x = self.expr(v)?;
        let x = self.pending_local("reduce_v", ct.clone(), x, p);
        let init = if plus { int(0, p) } else { ident(&x, p) };
        let r = self.pending_local("reduce_r", ct, init, p);
        for j in 0..WARP {
            let t = call(
                "__shfl_sync",
                vec![full(p), ident(&x, p), int(j, p), int(WARP, p)],
                p,
            );
            let b = bit(ident(&m, p), int(j, p));
            let val = if plus {
                bin(BinaryOp::Add, ident(&r, p), bin(BinaryOp::Mul, b, t))
            } else {
                let keep = bin(BinaryOp::Sub, int(1, p), b.clone());
                let sel = bin(
                    BinaryOp::Add,
                    bin(BinaryOp::Mul, b, t),
                    bin(BinaryOp::Mul, keep, ident(&x, p)),
                );
                call(combine, vec![ident(&r, p), sel], p)
            };
            self.pending.push(assign(&r, val, p));
        }
        Ok(ident(&r, p))
    }
}
