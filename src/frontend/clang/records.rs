//! Records and vector types (`spec/lowering.md` §9.3): a record value is the list of its
//! scalar leaves. A record local is one scalar local per leaf; an array (or pointer) of
//! records is an array of the records' common scalar type — its *view* — in which the
//! leaf at byte offset `o` of element `i` is element `i·(size/v) + o/v` (`v` the view's
//! size), so every access is at its real address and sectors are counted on it.

use super::convert::{add, bin, e, first, ident, int, kids, scale, strip, Conv, Local};
use super::json::Node;
use super::types::Ty;
use crate::frontend::ast::{BinaryOp, Decl, Expr, ExprKind, Stmt, StmtKind};
use crate::frontend::diag::Diagnostic;

type R<T> = Result<T, Diagnostic>;

/// Leaves of a record value: (field path, scalar expression).
pub type Leaves = Vec<(Vec<String>, Expr)>;

fn has_effects(n: &Node) -> bool {
    let own = match n.kind.as_str() {
        "CompoundAssignOperator" | "CallExpr" | "CXXMemberCallExpr" | "CXXOperatorCallExpr" => true,
        "UnaryOperator" => matches!(n.opcode.as_deref(), Some("++") | Some("--")),
        "BinaryOperator" => n.opcode.as_deref() == Some("="),
        _ => false,
    };
    own || n.inner.iter().any(has_effects)
}

impl Conv<'_> {
    /// The leaves of record-typed expression `n` (lvalues where `n` is one).
    pub(super) fn record_val(&mut self, n0: &Node) -> R<Leaves> {
        let n = strip(n0);
        let t = self.records.of(n);
        let p = self.pos(n);
        let Some(shape) = self.records.leaves(t.unref()) else {
            return self.err(
                n,
                format!(
                    "record type `{}` without a layout warpcert can read",
                    t.describe()
                ),
            );
        };
        match n.kind.as_str() {
            "CXXConstructExpr" => {
                let args: Vec<&Node> = kids(n).collect();
                let rec = match t.unref() {
                    Ty::Record(r) => r.clone(),
                    _ => String::new(),
                };
                let copy = args.len() == 1 && self.records.of(strip(args[0])).unref() == t.unref();
                if super::opaque::is_half_record(&rec) && !args.is_empty() && !copy {
                    return self.opaque_record_call(n, &rec, &args);
                }
                if rec == "dim3" && args.len() == 3 {
                    let mut out = Vec::new();
                    for (k, f) in ["x", "y", "z"].iter().enumerate() {
                        let a = strip(args[k]);
                        let x = if a.kind == "CXXDefaultArgExpr" {
                            int(1, p)
                        } else {
                            self.expr(args[k])?
                        };
                        out.push((vec![f.to_string()], x));
                    }
                    return Ok(out);
                }
                match args.as_slice() {
                    [] => Ok(Vec::new()),
                    [one] if self.records.of(strip(one)).unref() == t.unref() || matches!(strip(one).kind.as_str(), "DeclRefExpr" | "ArraySubscriptExpr" | "MemberExpr" | "UnaryOperator" | "CallExpr" | "InitListExpr" | "CXXMemberCallExpr") => self.record_val(one),
                    _ => self.err(n, format!("constructor of `{rec}` is not supported (records are plain data in warpcert)")),
                }
            }
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr" => match first(n) {
                Some(i) => {
                    let v = self.record_val(i)?;
                    Ok(v)
                }
                None => self.err(n, "empty cast"),
            },
            "DeclRefExpr" => {
                let Some(r) = n.referenced_decl.as_deref() else {
                    return self.err(n, "reference without declaration");
                };
                let name = r.name.clone().unwrap_or_default();
                if let Some(Local::Record(map)) = self.lookup(&r.id) {
                    let map = map.clone();
                    return Ok(map
                        .into_iter()
                        .map(|(path, ln)| (path, ident(&ln, p)))
                        .collect());
                }
                if matches!(
                    name.as_str(),
                    "threadIdx" | "blockIdx" | "blockDim" | "gridDim"
                ) {
                    return Ok(["x", "y", "z"]
                        .iter()
                        .map(|f| {
                            (
                                vec![f.to_string()],
                                e(
                                    ExprKind::Member(Box::new(ident(&name, p)), f.to_string()),
                                    p,
                                ),
                            )
                        })
                        .collect());
                }
                self.err(n, format!("record variable `{name}` is not supported here (file-scope records are not modelled)"))
            }
            "ArraySubscriptExpr" | "UnaryOperator" => {
                let (base, idx) = if n.kind == "UnaryOperator" {
                    if n.opcode.as_deref() != Some("*") {
                        return self.err(n, "operator on a record");
                    }
                    (first(n), None)
                } else {
                    let mut it = kids(n);
                    (it.next(), it.next())
                };
                let Some(base) = base else {
                    return self.err(n, "malformed access");
                };
                if let Some(i) = idx {
                    if has_effects(i) {
                        return self.err(i, "an index with side effects into an array of records (it would be evaluated once per field)");
                    }
                }
                let Some((_, stride)) = self.view_of(t.unref()) else {
                    return self.err(n, format!("array of record `{}` whose fields are not all of one scalar type is not supported yet", t.describe()));
                };
                let vsize = self.view_elem_bytes(t.unref());
                let b = self.expr(base)?;
                let i = match idx {
                    Some(i) => scale(self.expr(i)?, stride),
                    None => int(0, p),
                };
                let mut out = Vec::new();
                for l in shape {
                    let off = (l.offset / vsize) as i64;
                    let at = add(i.clone(), int(off, p));
                    out.push((
                        l.path,
                        e(ExprKind::Index(Box::new(b.clone()), Box::new(at)), p),
                    ));
                }
                Ok(out)
            }
            "MemberExpr" => {
                let name = n.name.clone().unwrap_or_default();
                let parent = self.member_parent(n)?;
                let sub: Leaves = parent
                    .into_iter()
                    .filter(|(path, _)| path.first() == Some(&name))
                    .map(|(path, x)| (path[1..].to_vec(), x))
                    .collect();
                if sub.is_empty() {
                    return self.err(n, format!("field `{name}` not found"));
                }
                Ok(sub)
            }
            "CallExpr" | "CXXOperatorCallExpr" if self.user_callee(n) || self.is_lambda_call(n) => {
                self.record_call(n)
            }
            "CallExpr" => {
                let fname = super::convert::callee_decl(n)
                    .and_then(|d| d.name.clone())
                    .unwrap_or_default();
                let args: Vec<&Node> = kids(n).skip(1).collect();
                if let Some(m) = super::unsupported::Missing::of_call(&fname) {
                    return self.missing(n, m, &fname);
                }
                if super::names::is_half_intrinsic(&fname) {
                    return self.opaque_record_call(n, &fname, &args);
                }
                if fname.starts_with("make_") {
                    if args.len() != shape.len() {
                        return self.err(n, format!("`{fname}` with {} arguments", args.len()));
                    }
                    let mut out = Vec::new();
                    for (l, a) in shape.into_iter().zip(args) {
                        out.push((l.path, self.expr(a)?));
                    }
                    return Ok(out);
                }
                if matches!(fname.as_str(), "__ldg" | "__ldcg" | "__ldca" | "__ldcs")
                    && args.len() == 1
                {
                    let b = self.expr(args[0])?;
                    let Some((_, _)) = self.view_of(t.unref()) else {
                        return self.err(n, "`__ldg` of a record with mixed field types");
                    };
                    let vsize = self.view_elem_bytes(t.unref());
                    return Ok(shape
                        .into_iter()
                        .map(|l| {
                            let off = (l.offset / vsize) as i64;
                            (
                                l.path,
                                e(
                                    ExprKind::Index(Box::new(b.clone()), Box::new(int(off, p))),
                                    p,
                                ),
                            )
                        })
                        .collect());
                }
                self.err(
                    n,
                    format!("call of `{fname}` returning a record is not supported yet"),
                )
            }
            "InitListExpr" => {
                let mut flat = Vec::new();
                fn flatten<'b>(n: &'b Node, out: &mut Vec<&'b Node>) {
                    for c in kids(n) {
                        if strip(c).kind == "InitListExpr" {
                            flatten(strip(c), out);
                        } else {
                            out.push(c);
                        }
                    }
                }
                flatten(n, &mut flat);
                if flat.len() != shape.len() {
                    return self.err(n, "initializer list that does not give every field");
                }
                let mut out = Vec::new();
                for (l, a) in shape.into_iter().zip(flat) {
                    out.push((l.path, self.expr(a)?));
                }
                Ok(out)
            }
            "CXXMemberCallExpr" => {
                if let Some(r) = self.tile_record_shuffle(n) {
                    return r;
                }
                let m = first(n).map(strip);
                let method = m.and_then(|m| m.name.clone()).unwrap_or_default();
                let what = match method.as_str() {
                    "group_index" => "blockIdx",
                    "thread_index" => "threadIdx",
                    "group_dim" | "dim_threads" => "blockDim",
                    _ => {
                        return self.err(
                            n,
                            format!(
                                "member call `{method}` returning a record is not supported yet"
                            ),
                        )
                    }
                };
                Ok(["x", "y", "z"]
                    .iter()
                    .map(|f| {
                        (
                            vec![f.to_string()],
                            e(ExprKind::Member(Box::new(ident(what, p)), f.to_string()), p),
                        )
                    })
                    .collect())
            }
            "CXXOperatorCallExpr" => {
                // `a = b` whose value is used (`x = a = f()`): the assignment goes first
                // (pending), the value is `a`'s leaves after it
                if let (Some(assign), Some(lhs)) = (self.record_assign(n)?, kids(n).nth(1)) {
                    self.pending.push(Stmt {
                        kind: StmtKind::Expr(assign),
                        pos: p,
                    });
                    return self.record_val(lhs);
                }
                // an operator of the prelude's half types (`a * b + c` on `half2`)
                if let Ty::Record(r) = t.unref() {
                    if super::opaque::is_half_record(r) {
                        let op = super::convert::callee_decl(n)
                            .and_then(|d| d.name.clone())
                            .unwrap_or_default();
                        let args: Vec<&Node> = kids(n).skip(1).collect();
                        return self.opaque_record_call(n, &format!("__half {op}"), &args);
                    }
                }
                self.err(n, "overloaded operator on records without a definition in the translation unit is not supported")
            }
            "ConditionalOperator" => {
                self.err(n, "`?:` choosing between records is not supported yet")
            }
            k => self.err(n, format!("record-valued `{k}` is not supported yet")),
        }
    }

    /// `n` calls a function of the user's files (not the prelude): converted by body.
    pub(super) fn user_callee(&self, n: &Node) -> bool {
        super::convert::callee_decl(n)
            .and_then(|d| self.decls.get(d.id.as_str()))
            .is_some_and(|d| self.origin_of(d) == super::convert::Origin::User)
    }

    /// A call of a record-valued user function or operator (§9.3): fresh locals `f_r_x`,
    /// … for the result's leaves and the call with them as trailing reference arguments
    /// go before the current statement (`pending`); the value is the locals.
    fn record_call(&mut self, n: &Node) -> R<Leaves> {
        let p = self.pos(n);
        let call = self.call(n)?;
        let ExprKind::Call(f, mut args) = call.kind else {
            return self.err(n, "record-valued call not understood");
        };
        let fname = match &f.kind {
            ExprKind::Ident(x) => x.clone(),
            _ => String::new(),
        };
        let Some(shape) = self.record_fns.get(&fname).cloned() else {
            return self.err(
                n,
                format!("`{fname}` does not return a record warpcert can read"),
            );
        };
        let mut decls = Vec::new();
        let mut out = Vec::new();
        for (path, ty) in shape {
            let ln = self.fresh(&format!("{fname}_r_{}", path.join("_")));
            decls.push(Decl {
                name: ln.clone(),
                ty,
                dims: Vec::new(),
                init: None,
                shared: false,
                is_extern: false,
                pos: p,
            });
            args.push(ident(&ln, p));
            out.push((path, ident(&ln, p)));
        }
        self.pending.push(Stmt {
            kind: StmtKind::Decl(decls),
            pos: p,
        });
        let c = e(ExprKind::Call(f, args), p);
        self.pending.push(Stmt {
            kind: StmtKind::Expr(c),
            pos: p,
        });
        Ok(out)
    }

    /// The leaves of the record a `MemberExpr` selects from (`b.f`: `b`; `p->f`: `*p`).
    fn member_parent(&mut self, n: &Node) -> R<Leaves> {
        let Some(base) = first(n) else {
            return self.err(n, "malformed member access");
        };
        if n.is_arrow {
            let b = strip(base);
            let bt = self.records.of(b);
            let Some(inner) = bt.inner().cloned() else {
                return self.err(n, "`->` on a non-pointer");
            };
            let Some((v, _)) = self.view_of(&inner) else {
                return self.err(
                    n,
                    format!(
                        "`->` into `{}` whose fields are not all of one scalar type",
                        inner.describe()
                    ),
                );
            };
            let vsize = self.records.size_align(&v).map(|x| x.0).unwrap_or(1).max(1);
            let Some(shape) = self.records.leaves(&inner) else {
                return self.err(n, "record without layout");
            };
            let p = self.pos(n);
            let bx = self.expr(base)?;
            return Ok(shape
                .into_iter()
                .map(|l| {
                    (
                        l.path,
                        e(
                            ExprKind::Index(
                                Box::new(bx.clone()),
                                Box::new(int((l.offset / vsize) as i64, p)),
                            ),
                            p,
                        ),
                    )
                })
                .collect());
        }
        self.record_val(base)
    }

    /// `n` as a scalar field of a record (`q.x`, `v[i].y`, `p->z`, `s.a.b`), or `None` when
    /// `n` is not a field access.
    pub(super) fn record_field_lvalue(&mut self, n: &Node) -> R<Option<Expr>> {
        if n.kind != "MemberExpr" {
            return Ok(None);
        }
        let name = n.name.clone().unwrap_or_default();
        let parent = self.member_parent(n)?;
        let hit: Vec<Expr> = parent
            .into_iter()
            .filter(|(path, _)| path.len() == 1 && path[0] == name)
            .map(|(_, x)| x)
            .collect();
        match hit.as_slice() {
            [one] => Ok(Some(one.clone())),
            _ => self.err(n, format!("field `{name}` is not a scalar field")),
        }
    }

    /// `lhs = rhs` on records: one assignment per leaf, as a comma expression; `None` when
    /// `n` is not a record assignment.
    pub(super) fn record_assign(&mut self, n: &Node) -> R<Option<Expr>> {
        let parts: Vec<&Node> = kids(n).collect();
        let (l, r) = match (n.kind.as_str(), parts.as_slice()) {
            ("BinaryOperator", [l, r]) => (*l, *r),
            ("CXXOperatorCallExpr", [f, l, r]) => {
                let op = strip(f)
                    .referenced_decl
                    .as_deref()
                    .and_then(|d| d.name.clone())
                    .unwrap_or_default();
                if op != "operator=" {
                    return Ok(None);
                }
                (*l, *r)
            }
            _ => return Ok(None),
        };
        let lt = self.records.of(strip(l));
        let Ty::Record(rec) = lt.unref() else {
            return Ok(None);
        };
        if self.is_cg(rec) {
            return Ok(None);
        }
        let lv = self.record_val(l)?;
        let rv = self.record_val(r)?;
        let p = self.pos(n);
        let mut acc: Option<Expr> = None;
        for (path, x) in lv {
            let Some((_, y)) = rv.iter().find(|(q, _)| *q == path) else {
                continue;
            };
            let a = e(ExprKind::Assign(None, Box::new(x), Box::new(y.clone())), p);
            acc = Some(match acc {
                None => a,
                Some(prev) => bin(BinaryOp::Comma, prev, a),
            });
        }
        Ok(acc.or(Some(int(0, p))))
    }

    /// `memcpy(dst, src, n);` between a record and an array (or another record) whose
    /// element is the record's scalar view, `n` the record's size: one assignment per leaf
    /// (the leaf at byte offset `o` is cell `o / v` of the array, `v` the view's size), as
    /// a comma expression. Other copies are located errors.
    pub(super) fn memcpy_stmt(&mut self, n: &Node) -> R<Expr> {
        let args: Vec<&Node> = kids(n).skip(1).collect();
        let [dst, src, size] = args.as_slice() else {
            return self.err(n, "`memcpy` expects 3 arguments");
        };
        let p = self.pos(n);
        let (dst, src) = (unbit(dst), unbit(src));
        let record_of = |c: &Self, x: &Node| -> Option<Ty> {
            let s = strip(x);
            if s.kind == "UnaryOperator" && s.opcode.as_deref() == Some("&") {
                let t = c.records.of(strip(first(s)?));
                matches!(t.unref(), Ty::Record(_)).then(|| t.unref().clone())
            } else {
                None
            }
        };
        let (rec_side, arr_side, to_record) = match (record_of(self, dst), record_of(self, src)) {
            (Some(t), None) => (t, src, true),
            (None, Some(t)) => (t, dst, false),
            (Some(a), Some(b)) if a == b => {
                let lv = self.record_val(first(strip(dst)).unwrap_or(dst))?;
                let rv = self.record_val(first(strip(src)).unwrap_or(src))?;
                return Ok(assign_leaves(lv, rv, p));
            }
            _ => return self.err(n, "`memcpy` other than between a record and an array of its field type (or two records of one type) is not supported by warpcert"),
        };
        let rec_size = self.records.size_align(&rec_side).map(|x| x.0);
        let given = match self.expr(size)?.kind {
            ExprKind::Int(v) => Some(v as u64),
            _ => None,
        };
        if rec_size.is_none() || given != rec_size {
            return self.err(
                size,
                format!(
                    "`memcpy` of a size other than `sizeof({})` is not supported by warpcert",
                    rec_side.describe()
                ),
            );
        }
        let view = self.view_of(&rec_side);
        let arr_elem = match self.records.of(strip(arr_side)) {
            Ty::Ptr(e) | Ty::Array(e, _) => Some(*e),
            _ => None,
        };
        let same = matches!((&view, &arr_elem), (Some((v, _)), Some(e)) if super::convert::types_same_view(v, e.unref()));
        if !same {
            return self.err(n, format!("`memcpy` between `{}` and an array whose element is not its fields' common type is not supported by warpcert", rec_side.describe()));
        }
        let vsize = self.view_elem_bytes(&rec_side);
        let rec_node = first(strip(if to_record { dst } else { src })).unwrap_or(n);
        let leaves = self.record_val(rec_node)?;
        let shape = self.records.leaves(&rec_side).unwrap_or_default();
        let base = self.expr(arr_side)?;
        let cells: Leaves = shape
            .into_iter()
            .map(|l| {
                let at = int((l.offset / vsize) as i64, p);
                (
                    l.path,
                    e(ExprKind::Index(Box::new(base.clone()), Box::new(at)), p),
                )
            })
            .collect();
        Ok(if to_record {
            assign_leaves(leaves, cells, p)
        } else {
            assign_leaves(cells, leaves, p)
        })
    }
}

/// `x` under its implicit `BitCast`s (to `void *`).
fn unbit(mut x: &Node) -> &Node {
    while x.kind == "ImplicitCastExpr" && x.cast_kind.as_deref() == Some("BitCast") {
        match first(x) {
            Some(c) => x = c,
            None => break,
        }
    }
    x
}

/// `l.f = r.f` for every leaf path of `l`, as one comma expression (`0` when empty).
fn assign_leaves(l: Leaves, r: Leaves, p: crate::frontend::diag::Pos) -> Expr {
    let mut acc: Option<Expr> = None;
    for (path, x) in l {
        let Some((_, y)) = r.iter().find(|(q, _)| *q == path) else {
            continue;
        };
        let a = e(ExprKind::Assign(None, Box::new(x), Box::new(y.clone())), p);
        acc = Some(match acc {
            None => a,
            Some(prev) => bin(BinaryOp::Comma, prev, a),
        });
    }
    acc.unwrap_or(int(0, p))
}
