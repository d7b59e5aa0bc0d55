//! Declarations (`spec/lowering.md` §9.3): scalar and pointer locals, record locals (one
//! local per leaf), the block's cooperative group, `__shared__` arrays (of records: of
//! their scalar view), `SharedMemory<T>`-style helpers and file-scope `__device__` and
//! `__shared__` variables.

use super::convert::{callee_decl, first, ident, int, kids, stmt, strip, Conv, Local};
use super::json::Node;
use super::types::Ty;
use super::unsupported::Missing;
use crate::frontend::ast::{BaseTy, CType, Decl, Expr, ExprKind, Stmt, StmtKind};
use crate::frontend::diag::Diagnostic;

type R<T> = Result<T, Diagnostic>;

impl Conv<'_> {
    pub(super) fn decl(&mut self, d: &Node, out: &mut Vec<Stmt>) -> R<()> {
        match d.kind.as_str() {
            "VarDecl" => {}
            "TypedefDecl" | "TypeAliasDecl" | "CXXRecordDecl" | "RecordDecl" | "EnumDecl"
            | "StaticAssertDecl" | "UsingDecl" | "UsingDirectiveDecl" | "NamespaceAliasDecl" => {
                return Ok(())
            }
            k => return self.err(d, format!("declaration `{k}` is not supported here")),
        }
        let pos = self.pos(d);
        let name = d.name.clone().unwrap_or_default();
        self.identifiers.insert(name.clone());
        let t = self.records.of(d);
        let shared = d.inner.iter().any(|c| c.kind == "CUDASharedAttr");
        let is_extern = d.storage_class.as_deref() == Some("extern");
        if d.inner.iter().any(|c| c.kind == "CUDAConstantAttr") {
            return self.missing(d, Missing::ConstantMemory, &name);
        }
        let init_node = if d.init.is_some() { first(d) } else { None };
        if let Some(lam) = init_node
            .map(super::warp::unwrap)
            .filter(|x| x.kind == "LambdaExpr")
        {
            return self.lambda_decl(d, lam, out);
        }
        if d.ty
            .as_ref()
            .is_some_and(|q| super::lambda::is_lambda_type(&q.qual))
        {
            return self.err(d, format!("lambda `{name}` initialized other than by a lambda expression (a copy of another lambda) is not supported by warpcert"));
        }
        if shared {
            let decl = self.array_decl(d, &name, &t, true, is_extern)?;
            out.push(stmt(StmtKind::Decl(vec![decl]), pos));
            return Ok(());
        }
        match &t {
            // a thread-local array: lowered as a `local` array (spec/lowering.md §5)
            Ty::Array(..) if init_node.is_none() => {
                let decl = self.array_decl(d, &name, &t, false, false)?;
                out.push(stmt(StmtKind::Decl(vec![decl]), pos));
                return Ok(());
            }
            Ty::Array(elem, Some(len))
                if matches!(**elem, Ty::Scalar(..))
                    && init_node.is_some_and(|i| strip(i).kind == "InitListExpr") =>
            {
                // `T r[N] = {a, b};`: the array, then one assignment per element (the
                // elements not given are value-initialized: zero), spec/lowering.md §5
                let decl = self.array_decl_uninit(d, &name, &t)?;
                out.push(stmt(StmtKind::Decl(vec![decl]), pos));
                let list = strip(init_node.unwrap_or(d));
                let (filler, given): (Option<&Node>, Vec<&Node>) =
                    match list.array_filler.split_first() {
                        Some((f, rest)) => (Some(f), rest.iter().chain(kids(list)).collect()),
                        None => (None, kids(list).collect()),
                    };
                for k in 0..*len {
                    let v = match given.get(k as usize) {
                        Some(x) => *x,
                        None => match filler {
                            Some(f) => f,
                            None => return self.missing(d, Missing::LocalArray, &name),
                        },
                    };
                    let x = self.expr(v)?;
                    out.append(&mut self.pending);
                    let cell = Expr {
                        kind: ExprKind::Index(
                            Box::new(ident(&name, pos)),
                            Box::new(int(k as i64, pos)),
                        ),
                        pos,
                    };
                    let a = ExprKind::Assign(None, Box::new(cell), Box::new(x));
                    out.push(stmt(StmtKind::Expr(Expr { kind: a, pos }), pos));
                }
                return Ok(());
            }
            Ty::Array(..) => return self.missing(d, Missing::LocalArray, &name),
            Ty::Record(r) if self.is_cg(r) => {
                if super::coalesced::is_coalesced_record(r) {
                    return self.coalesced_decl(d, init_node);
                }
                if let Some(res) = self.tile_decl(d, r, init_node) {
                    return res;
                }
                if super::grid::is_grid_record(r) {
                    return self.grid_decl(d, init_node);
                }
                let ok = r.ends_with("thread_block") || r.ends_with("thread_group");
                if !ok {
                    let what = Missing::of_group(r);
                    return self.missing(d, what, r);
                }
                if let Some(i) = init_node {
                    let s = strip(i);
                    let okinit = s.kind == "CallExpr" && self.calls_named(s, "this_thread_block")
                        || s.kind == "DeclRefExpr";
                    if !okinit {
                        return self.err(i, format!("cooperative group `{name}` must be initialized with `this_thread_block()`"));
                    }
                    if s.kind == "CallExpr" {
                        // fine
                    } else if let Some(r) = s.referenced_decl.as_deref() {
                        if !matches!(self.lookup(&r.id), Some(Local::Block)) {
                            return self.err(i, "unsupported cooperative group initializer");
                        }
                    }
                }
                if let Some(m) = self.locals.last_mut() {
                    m.insert(d.id.clone(), Local::Block);
                }
                return Ok(());
            }
            Ty::Record(r) => {
                let Some(leaves) = self.records.leaves(&t) else {
                    return self.err(d, format!("local of record type `{r}` without a layout warpcert can read (pointer fields, base classes)"));
                };
                let vals = match init_node {
                    Some(i) => Some(self.record_val(i)?),
                    None => None,
                };
                let mut map = Vec::new();
                let mut decls = Vec::new();
                for l in leaves.iter() {
                    let ln = self.fresh(&format!("{name}_{}", l.path.join("_")));
                    let init = match &vals {
                        Some(v) => v.iter().find(|(p, _)| *p == l.path).map(|(_, x)| x.clone()),
                        None => None,
                    };
                    decls.push(Decl {
                        name: ln.clone(),
                        ty: l.ty.ctype().unwrap_or(CType::base(BaseTy::Int)),
                        dims: Vec::new(),
                        init,
                        shared: false,
                        is_extern: false,
                        pos,
                    });
                    map.push((l.path.clone(), ln));
                }
                if let Some(m) = self.locals.last_mut() {
                    m.insert(d.id.clone(), Local::Record(map));
                }
                out.push(stmt(StmtKind::Decl(decls), pos));
                return Ok(());
            }
            _ => {}
        }
        let ty = self.ctype_of(&t, d)?;
        let init = match init_node {
            Some(i) => {
                if let Some(x) = self.shared_memory_helper(i, &name, &t, out)? {
                    Some(x)
                } else {
                    Some(self.expr(i)?)
                }
            }
            None => None,
        };
        out.push(stmt(
            StmtKind::Decl(vec![Decl {
                name,
                ty,
                dims: Vec::new(),
                init,
                shared: false,
                is_extern: false,
                pos,
            }]),
            pos,
        ));
        Ok(())
    }

    /// `T *p = SharedMemory<T>();` (a conversion operator or call whose body declares an
    /// `extern __shared__` array and returns it cast to `T *`): a fresh `extern __shared__
    /// T name_smem[]` and `p` bound to it.
    pub(super) fn shared_memory_helper(
        &mut self,
        init: &Node,
        name: &str,
        t: &Ty,
        out: &mut Vec<Stmt>,
    ) -> R<Option<Expr>> {
        let Ty::Ptr(elem) = t else { return Ok(None) };
        let s = strip(init);
        let call = match s.kind.as_str() {
            "CXXMemberCallExpr" | "CallExpr" => s,
            "CStyleCastExpr" | "ImplicitCastExpr" | "CXXStaticCastExpr" => {
                match first(s).map(strip) {
                    Some(c) if c.kind == "CXXMemberCallExpr" || c.kind == "CallExpr" => c,
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let target = match call.kind.as_str() {
            "CXXMemberCallExpr" => {
                let m = first(call).map(strip);
                m.and_then(|m| m.referenced_member_decl.clone())
            }
            _ => callee_decl(call).map(|d| d.id.clone()),
        };
        let Some(fd) = target.and_then(|id| self.decls.get(id.as_str()).copied()) else {
            return Ok(None);
        };
        let Some(body) = fd.inner.iter().find(|c| c.kind == "CompoundStmt") else {
            return Ok(None);
        };
        let has_extern_shared = body.inner.iter().any(|st| {
            st.kind == "DeclStmt"
                && st.inner.iter().any(|v| {
                    v.storage_class.as_deref() == Some("extern")
                        && v.inner.iter().any(|a| a.kind == "CUDASharedAttr")
                })
        });
        if !has_extern_shared {
            return Ok(None);
        }
        let pos = self.pos(init);
        let arr = self.fresh(&format!("{name}_smem"));
        let elem_c = match self.view_of(elem) {
            Some((v, _)) => v.ctype().unwrap_or(CType::base(BaseTy::Int)),
            None => {
                return self.err(
                    init,
                    format!(
                        "dynamic shared memory of record type `{}` is not supported",
                        elem.describe()
                    ),
                )
            }
        };
        out.push(stmt(
            StmtKind::Decl(vec![Decl {
                name: arr.clone(),
                ty: elem_c,
                dims: vec![None],
                init: None,
                shared: true,
                is_extern: true,
                pos,
            }]),
            pos,
        ));
        Ok(Some(ident(&arr, pos)))
    }

    /// A thread-local array declared with an initializer list the caller assigns.
    fn array_decl_uninit(&mut self, d: &Node, name: &str, t: &Ty) -> R<Decl> {
        let mut bare = d.clone();
        bare.init = None;
        bare.inner.retain(|c| c.kind.ends_with("Attr"));
        self.array_decl(&bare, name, t, false, false)
    }

    pub(super) fn array_decl(
        &mut self,
        d: &Node,
        name: &str,
        t: &Ty,
        shared: bool,
        is_extern: bool,
    ) -> R<Decl> {
        let pos = self.pos(d);
        let mut dims = Vec::new();
        let mut cur = t;
        while let Ty::Array(inner, n) = cur {
            dims.push(n.map(|v| int(v as i64, pos)));
            cur = inner;
        }
        let (elem, stride) = match cur {
            Ty::Scalar(..) => (cur.ctype().unwrap_or(CType::base(BaseTy::Int)), 1),
            Ty::Record(_) => match self.view_of(cur) {
                Some((v, s)) => (v.ctype().unwrap_or(CType::base(BaseTy::Int)), s),
                None => return self.err(d, format!("shared array of record type `{}` whose fields are not all of one scalar type is not supported yet", cur.describe())),
            },
            _ => return self.err(d, format!("array of `{}` is not supported", cur.describe())),
        };
        if stride != 1 {
            // an array of records is an array of its scalar view, `stride` times longer
            match dims.last_mut() {
                Some(Some(x)) => {
                    if let ExprKind::Int(v) = x.kind {
                        x.kind = ExprKind::Int(v * stride);
                    }
                }
                Some(None) => {}
                None => dims.push(Some(int(stride, pos))),
            }
        }
        // clang's implicit default construction of an array of plain records runs no code
        let implicit = d.init.as_deref() == Some("call")
            && first(d).is_some_and(|c| c.kind == "CXXConstructExpr" && kids(c).next().is_none())
            && self.records.trivially_constructed(cur);
        let init = if d.init.is_some() && !implicit {
            return self.err(d, format!("initializer of array `{name}` is not supported"));
        } else {
            None
        };
        Ok(Decl {
            name: name.to_string(),
            ty: elem,
            dims,
            init,
            shared,
            is_extern,
            pos,
        })
    }

    /// A file-scope variable referenced from device code: registered once.
    pub(super) fn global_var(&mut self, d: &Node) -> R<()> {
        let name = d.name.clone().unwrap_or_default();
        if !self.global_seen.insert(d.id.clone()) {
            return Ok(());
        }
        self.identifiers.insert(name.clone());
        let t = self.records.of(d);
        let shared = d.inner.iter().any(|c| c.kind == "CUDASharedAttr");
        // `__constant__`: a read-only global array (spec/lowering.md §5)
        let device = d
            .inner
            .iter()
            .any(|c| matches!(c.kind.as_str(), "CUDADeviceAttr" | "CUDAConstantAttr"));
        let is_extern = d.storage_class.as_deref() == Some("extern");
        let decl = match &t {
            Ty::Array(..) => self.array_decl(d, &name, &t, shared, is_extern)?,
            Ty::Scalar(..) => {
                let pos = self.pos(d);
                Decl {
                    name: name.clone(),
                    ty: t.ctype().unwrap_or(CType::base(BaseTy::Int)),
                    dims: Vec::new(),
                    init: None,
                    shared,
                    is_extern,
                    pos,
                }
            }
            _ => {
                return self.err(
                    d,
                    format!(
                        "file-scope variable `{name}` of type `{}` is not supported",
                        t.describe()
                    ),
                )
            }
        };
        if shared {
            self.shared.push(decl);
        } else if device {
            if d.inner.iter().any(|c| c.kind == "CUDAConstantAttr") {
                self.constant_vars.push(decl.name.clone());
            }
            self.device_vars.push(decl);
        } else {
            return self.err(
                d,
                format!("file-scope host variable `{name}` used in device code"),
            );
        }
        Ok(())
    }
}
