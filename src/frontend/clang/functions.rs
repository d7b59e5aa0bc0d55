//! Function definitions (one per instantiation, converted on first use) and their
//! parameters: record parameters leaf by leaf, the block's cooperative group dropped
//! (`spec/lowering.md` §9.3, §9.4).

use super::convert::{pos_err, Conv, Local};
use super::json::Node;
use super::types::{self, Ty};
use super::unsupported::Missing;
use crate::frontend::ast::{BaseTy, CType, FnKind, Function, Param};
use crate::frontend::diag::Diagnostic;
use std::collections::HashMap;

type R<T> = Result<T, Diagnostic>;

/// What a lambda's captures add to its `operator()` converted as a function: trailing
/// parameters (before a record result's) and locals (record leaves, groups) by id.
#[derive(Default)]
pub(super) struct Captures {
    pub params: Vec<Param>,
    pub locals: HashMap<String, Local>,
}

/// The return type in a function type's spelling: `T` of `T (args)`, or of a trailing
/// return type `auto (args) const -> T` (lambdas).
fn return_type_text(fn_ty: &str) -> Option<&str> {
    if let Some(rest) = fn_ty.strip_prefix("auto (") {
        if let Some(i) = rest.rfind(") -> ").or_else(|| rest.rfind(" -> ")) {
            let t = &rest[i..];
            return t.split_once("-> ").map(|(_, r)| r.trim());
        }
    }
    fn_ty.split_once('(').map(|(r, _)| r.trim())
}

/// The names of the variables and parameters declared in `n` (lambdas' included), counted.
fn declared_names(n: &Node, out: &mut HashMap<String, usize>) {
    for c in &n.inner {
        if n.kind == "LambdaExpr" && c.kind == "CompoundStmt" {
            continue; // the body again (clang prints it under `operator()` too)
        }
        if matches!(c.kind.as_str(), "VarDecl" | "ParmVarDecl") {
            if let Some(name) = &c.name {
                *out.entry(name.clone()).or_insert(0) += 1;
            }
        }
        declared_names(c, out);
    }
}

impl Conv<'_> {
    /// The AST name of function declaration `id` (converted on first use); `None` for a
    /// declaration without body.
    pub fn function(&mut self, id: &str) -> Option<String> {
        self.function_for_groups(id, &[])
    }

    /// The converted function of declaration `id` specialized for the groups passed to its
    /// cooperative-group parameters (`groups`, in order; `None` the block, `Some(N)` a warp
    /// tile of `N` lanes; empty or all `None`: the plain function): the name it is called
    /// by, converting it on first use; `None` when it has no body.
    pub(super) fn function_for_groups(
        &mut self,
        id: &str,
        groups: &[Option<u32>],
    ) -> Option<String> {
        let tiles = groups.iter().any(Option::is_some);
        let key = if tiles {
            format!("{id}@{groups:?}")
        } else {
            id.to_string()
        };
        if let Some(n) = self.fn_names.get(&key) {
            return Some(n.clone());
        }
        let d = *self.decls.get(id)?;
        let body = d.inner.iter().find(|c| c.kind == "CompoundStmt")?;
        let base = d.name.clone().unwrap_or_else(|| "f".into());
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = if tiles {
            let sizes: Vec<String> = groups
                .iter()
                .map(|g| g.map_or("block".to_string(), |n| format!("tile{n}")))
                .collect();
            format!("{base}__{}", sizes.join("_"))
        } else {
            base
        };
        let name = if self.functions.iter().any(|f| f.name == base)
            || self.fn_names.values().any(|v| *v == base)
        {
            self.fresh(&format!("{base}__{}", self.functions.len()))
        } else {
            base
        };
        self.fn_names.insert(key, name.clone());
        let saved = std::mem::replace(&mut self.group_args, groups.to_vec());
        // a function a lambda calls is not inside the lambda
        let saved_scope = self.lambda_scope.take();
        let f = self.convert_function(d, body, &name, Captures::default());
        self.lambda_scope = saved_scope;
        self.group_args = saved;
        self.functions.push(f);
        Some(name)
    }

    /// Function (or lambda `operator()`) `d` with body `body` as the AST function `name`;
    /// `caps`: the parameters and locals a lambda's captures add (`clang/lambda.rs`).
    pub(super) fn convert_function(
        &mut self,
        d: &Node,
        body: &Node,
        name: &str,
        caps: Captures,
    ) -> Function {
        let pos = self.pos(d);
        let saved_here = self.here;
        self.here = pos;
        let mut names = HashMap::new();
        declared_names(d, &mut names);
        let saved_names = std::mem::replace(&mut self.declared_names, names);
        let global = d.inner.iter().any(|c| c.kind == "CUDAGlobalAttr");
        let ret_text =
            d.ty.as_ref()
                .map(|q| q.canonical().to_string())
                .unwrap_or_default();
        let ret = return_type_text(&ret_text).map(|r| self.records.resolve(&types::parse(r)));
        let saved = std::mem::take(&mut self.locals);
        self.locals.push(HashMap::new());
        let mut params = Vec::new();
        let mut perr = None;
        for p in d.inner.iter().filter(|c| c.kind == "ParmVarDecl") {
            match self.param(p) {
                Ok(ps) => params.extend(ps),
                Err(e) => {
                    perr.get_or_insert(e);
                }
            }
        }
        params.extend(caps.params);
        if let Some(m) = self.locals.last_mut() {
            m.extend(caps.locals);
        }
        let saved_ret = self.ret_leaves.take();
        let saved_pending = std::mem::take(&mut self.pending);
        let ret_c = match &ret {
            Some(Ty::Scalar(..)) | Some(Ty::Ptr(_)) => ret.as_ref().and_then(|t| t.ctype()),
            Some(t @ Ty::Record(r)) if !self.is_cg(r) => match self.records.leaves(t) {
                Some(leaves) => {
                    // one reference parameter per leaf of the result (§9.3)
                    let mut map = Vec::new();
                    let mut shape = Vec::new();
                    for l in leaves {
                        let pn = self.fresh(&format!("{name}_ret_{}", l.path.join("_")));
                        let mut c = l.ty.ctype().unwrap_or(CType::base(BaseTy::Int));
                        shape.push((l.path.clone(), c.clone()));
                        c.is_ref = true;
                        params.push(Param {
                            name: pn.clone(),
                            ty: c,
                            pos,
                        });
                        map.push((l.path, pn));
                    }
                    self.record_fns.insert(name.to_string(), shape);
                    self.ret_leaves = Some(map);
                    Some(CType::base(BaseTy::Void))
                }
                None => {
                    perr.get_or_insert(pos_err(&self.sm, pos, format!("device function `{name}` returns a record `{r}` without a layout warpcert can read")));
                    None
                }
            },
            Some(Ty::Record(r)) => {
                perr.get_or_insert(pos_err(
                    &self.sm,
                    pos,
                    format!("device function `{name}` returns a cooperative group `{r}`"),
                ));
                None
            }
            _ => Some(CType::base(BaseTy::Void)),
        };
        let body = match perr {
            Some(e) => Err(e),
            None => self.block_stmts(body),
        };
        self.ret_leaves = saved_ret;
        self.pending = saved_pending;
        self.locals = saved;
        self.here = saved_here;
        self.declared_names = saved_names;
        Function {
            name: name.to_string(),
            kind: if global {
                FnKind::Global
            } else {
                FnKind::Device
            },
            ret: ret_c,
            params,
            body,
            template: false,
            tparams: Vec::new(),
            pos,
        }
    }

    pub(super) fn param(&mut self, p: &Node) -> R<Vec<Param>> {
        let pos = self.pos(p);
        let name = p.name.clone().unwrap_or_default();
        self.identifiers.insert(name.clone());
        let t = self.records.of(p);
        match t.unref() {
            Ty::Record(r) if !self.is_cg(r) => {
                let by_ref = matches!(t, Ty::Ref(_));
                let Some(leaves) = self.records.leaves(t.unref()) else {
                    return self.err(p, format!("parameter `{name}` of record type `{r}` without a layout warpcert can read"));
                };
                let mut out = Vec::new();
                let mut map = Vec::new();
                for l in leaves {
                    let ln = self.fresh(&format!("{name}_{}", l.path.join("_")));
                    let mut c = l.ty.ctype().unwrap_or(CType::base(BaseTy::Int));
                    c.is_ref = by_ref;
                    out.push(Param {
                        name: ln.clone(),
                        ty: c,
                        pos,
                    });
                    map.push((l.path, ln));
                }
                if let Some(m) = self.locals.last_mut() {
                    m.insert(p.id.clone(), Local::Record(map));
                }
                Ok(out)
            }
            Ty::Record(r) if r.ends_with("thread_block") || r.ends_with("thread_group") => {
                // the group the call passes (checked at the call): the block or a warp tile
                let group = if self.group_args.is_empty() {
                    None
                } else {
                    self.group_args.remove(0)
                };
                if let Some(m) = self.locals.last_mut() {
                    m.insert(p.id.clone(), group.map_or(Local::Block, Local::Tile));
                }
                Ok(Vec::new())
            }
            Ty::Record(r) if super::grid::is_grid_record(r) => {
                // the grid (checked at the call): no value, no group argument
                if let Some(m) = self.locals.last_mut() {
                    m.insert(p.id.clone(), Local::Grid);
                }
                Ok(Vec::new())
            }
            Ty::Record(r) => {
                let what = Missing::of_group(r);
                self.missing(p, what, r)
            }
            _ => {
                let c = self.ctype_of(&t, p)?;
                Ok(vec![Param { name, ty: c, pos }])
            }
        }
    }

    /// Whether record `rec` is a cooperative group: in namespace `cooperative_groups`, or
    /// named as one under any qualifier (clang spells a parameter type written through a
    /// namespace alias, `const cg::thread_block &`, without desugaring it).
    pub(super) fn is_cg(&self, rec: &str) -> bool {
        let last = rec.rsplit("::").next().unwrap_or(rec);
        rec.starts_with("cooperative_groups::")
            || matches!(
                last,
                "thread_block" | "thread_group" | "grid_group" | "coalesced_group"
            )
            || last.starts_with("thread_block_tile")
    }
}
