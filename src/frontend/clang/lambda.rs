//! Local lambdas (`spec/lowering.md` §9.8): `auto f = [captures](params) { … };` called
//! as `f(args)` in the function that declares it. The lambda's `operator()` becomes a
//! device function of its own, inlined at each call like any other (`lower/call.rs`);
//! each capture is one more trailing parameter:
//!
//! * by reference (`[&x]`, `[&]`): a reference parameter named as the variable, the call
//!   passes the variable itself, so the body reads and writes it (a record: one reference
//!   parameter per leaf, passed the record's leaf locals; a thread-local array: a pointer
//!   to it);
//! * by value (`[x]`, `[=]`): a copy made where the lambda is declared (C++ copies into
//!   the closure there, not at the call), passed by reference so a `mutable` lambda's
//!   changes persist from call to call as in the closure object;
//! * the block's cooperative group and warp tiles carry no value: the body sees them as
//!   the enclosing function does.
//!
//! Located errors name what is not modelled: generic lambdas, init-captures, `this`,
//! lambdas used other than by a direct call (copied, stored, passed to a function,
//! immediately invoked), captures of coalesced groups, arrays captured by value, pointers
//! the lambda assigns, and captured variables whose name the function declares more than
//! once (a capture by reference is passed by name).

use super::convert::{first, ident, kids, strip, Conv, Local};
use super::functions::Captures;
use super::json::Node;
use super::types::Ty;
use crate::frontend::ast::{BaseTy, CType, Decl, Expr, ExprKind, Param, Stmt, StmtKind};
use crate::frontend::diag::Diagnostic;
use std::collections::BTreeSet;

type R<T> = Result<T, Diagnostic>;

/// Whether clang's spelling of a type names a closure type (`(lambda at f.cu:7:17)`).
pub(super) fn is_lambda_type(t: &str) -> bool {
    t.contains("(lambda at ")
}

/// The variables `n` declares (its parameters and locals, nested lambdas' included).
fn declared_ids(n: &Node, out: &mut BTreeSet<String>) {
    for c in &n.inner {
        if matches!(c.kind.as_str(), "VarDecl" | "ParmVarDecl") && !c.id.is_empty() {
            out.insert(c.id.clone());
        }
        declared_ids(c, out);
    }
}

/// The references in `n` to variables whose ids are not in `scope`, in source order.
fn outer_refs<'n>(n: &'n Node, scope: &BTreeSet<String>, out: &mut Vec<&'n Node>) {
    for c in &n.inner {
        if c.kind == "DeclRefExpr"
            && c.referenced_decl
                .as_deref()
                .is_some_and(|r| r.kind == "VarDecl" && !scope.contains(&r.id))
        {
            out.push(c);
        }
        outer_refs(c, scope, out);
    }
}

/// Whether `body` assigns (or increments) the variable with id `id`.
fn assigns(body: &Node, id: &str) -> bool {
    let target = |x: Option<&Node>| {
        x.map(strip).is_some_and(|t| {
            t.kind == "DeclRefExpr" && t.referenced_decl.as_deref().is_some_and(|r| r.id == id)
        })
    };
    let own = match body.kind.as_str() {
        "CompoundAssignOperator" => target(first(body)),
        "BinaryOperator" => body.opcode.as_deref() == Some("=") && target(first(body)),
        "UnaryOperator" => {
            matches!(body.opcode.as_deref(), Some("++" | "--" | "&")) && target(first(body))
        }
        _ => false,
    };
    own || body.inner.iter().any(|c| assigns(c, id))
}

impl Conv<'_> {
    /// The declaration `auto f = <lambda>;` (`d` the variable, `lam` the `LambdaExpr`): the
    /// lambda's function is converted now, the copies of its by-value captures go to
    /// `out`, and `f` is bound to both.
    pub(super) fn lambda_decl(&mut self, d: &Node, lam: &Node, out: &mut Vec<Stmt>) -> R<()> {
        let var = d.name.clone().unwrap_or_default();
        let pos = self.pos(lam);
        let Some(closure) = lam.inner.iter().find(|c| c.kind == "CXXRecordDecl") else {
            return self.err(lam, "malformed lambda in clang's AST");
        };
        if closure
            .inner
            .iter()
            .any(|c| c.kind == "FunctionTemplateDecl")
        {
            return self.err(
                lam,
                format!("generic lambda `{var}` (`auto` parameters) is not supported by warpcert"),
            );
        }
        let Some(method) = closure
            .inner
            .iter()
            .find(|c| c.kind == "CXXMethodDecl" && c.name.as_deref() == Some("operator()"))
        else {
            return self.err(
                lam,
                format!("lambda `{var}` without a call operator in clang's AST"),
            );
        };
        let Some(body) = method.inner.iter().find(|c| c.kind == "CompoundStmt") else {
            return self.err(lam, format!("lambda `{var}` without a body in clang's AST"));
        };
        let fields: Vec<&Node> = closure
            .inner
            .iter()
            .filter(|c| c.kind == "FieldDecl")
            .collect();
        let n = lam.inner.len();
        let inits: Vec<&Node> = if n >= 2 {
            lam.inner[1..n - 1]
                .iter()
                .filter(|c| !c.kind.ends_with("Attr"))
                .collect()
        } else {
            Vec::new()
        };
        let fname = self.fresh(&format!("__lambda_{var}"));
        let mut caps = Captures::default();
        let mut args = Vec::new();
        let mut scope = BTreeSet::new();
        declared_ids(method, &mut scope);
        for (k, init) in inits.iter().enumerate() {
            let by_ref = fields
                .get(k)
                .and_then(|f| f.ty.as_ref())
                .is_some_and(|t| t.qual.trim_end().ends_with('&') || t.qual.contains("(&)"));
            let v = super::warp::unwrap(init);
            if v.kind == "CXXThisExpr" {
                return self.err(init, format!("lambda `{var}` captures `this`: member functions of records are not supported by warpcert"));
            }
            let r = match v.referenced_decl.as_deref() {
                Some(r) if v.kind == "DeclRefExpr" && matches!(r.kind.as_str(), "VarDecl" | "ParmVarDecl") => r,
                _ => {
                    return self.err(init, format!("init-capture of lambda `{var}` (`[y = expr]`) is not supported by warpcert"))
                }
            };
            scope.insert(r.id.clone());
            self.capture(&var, init, v, r, by_ref, body, &mut caps, &mut args, out)?;
        }
        // `__shared__` locals the body names without a capture (they have static storage,
        // so C++ does not capture them): passed by reference like `[&s]`
        let mut refs = Vec::new();
        outer_refs(body, &scope, &mut refs);
        for v in refs {
            let Some(r) = v.referenced_decl.as_deref() else {
                continue;
            };
            let shared = self.decls.get(r.id.as_str()).is_some_and(|d| {
                !self.is_file_scope(d) && d.inner.iter().any(|c| c.kind == "CUDASharedAttr")
            });
            if shared && scope.insert(r.id.clone()) {
                self.capture(&var, v, v, r, true, body, &mut caps, &mut args, out)?;
            }
        }
        let saved_scope = self.lambda_scope.replace(scope);
        let saved_pending = std::mem::take(&mut self.pending);
        let mut f = self.convert_function(method, body, &fname, caps);
        self.pending = saved_pending;
        self.lambda_scope = saved_scope;
        f.pos = pos;
        self.functions.push(f);
        if let Some(m) = self.locals.last_mut() {
            m.insert(
                d.id.clone(),
                Local::Lambda {
                    func: fname,
                    captures: args,
                },
            );
        }
        Ok(())
    }

    /// One capture of lambda `var`: the variable `r` (as named by `v`, the capture's
    /// initializer `init`), by reference or by value; adds its parameters (and locals) to
    /// `caps`, the arguments every call passes to `args`, and a by-value copy to `out`.
    #[allow(clippy::too_many_arguments)]
    fn capture(
        &mut self,
        var: &str,
        init: &Node,
        v: &Node,
        r: &Node,
        by_ref: bool,
        body: &Node,
        caps: &mut Captures,
        args: &mut Vec<Expr>,
        out: &mut Vec<Stmt>,
    ) -> R<()> {
        let name = r.name.clone().unwrap_or_default();
        let pos = self.pos(init);
        let t = self.records.of(v);
        match self.lookup(&r.id).cloned() {
            Some(Local::Lambda { .. }) => {
                return self.err(init, format!("lambda `{var}` captures the lambda `{name}`: a lambda used other than by a direct call is not supported by warpcert"))
            }
            Some(Local::Coalesced(_)) => {
                return self.err(init, format!("lambda `{var}` captures the coalesced group `{name}`: not supported by warpcert"))
            }
            Some(l @ (Local::Block | Local::Tile(_) | Local::Grid)) => {
                caps.locals.insert(r.id.clone(), l);
                return Ok(());
            }
            Some(Local::Record(map)) => {
                let map = if by_ref {
                    map
                } else {
                    // the closure's copy, made here
                    let mut copy = Vec::new();
                    let mut decls = Vec::new();
                    for (path, ln) in &map {
                        let c = self.fresh(&format!("__{ln}_{var}"));
                        let ty = self.leaf_type(&t, path);
                        decls.push(Decl {
                            name: c.clone(),
                            ty,
                            dims: Vec::new(),
                            init: Some(ident(ln, pos)),
                            shared: false,
                            is_extern: false,
                            pos,
                        });
                        copy.push((path.clone(), c));
                    }
                    out.push(Stmt {
                        kind: StmtKind::Decl(decls),
                        pos,
                    });
                    copy
                };
                for (path, ln) in &map {
                    let mut ty = self.leaf_type(&t, path);
                    ty.is_ref = true;
                    caps.params.push(Param {
                        name: ln.clone(),
                        ty,
                        pos,
                    });
                    args.push(ident(ln, pos));
                }
                caps.locals.insert(r.id.clone(), Local::Record(map));
                return Ok(());
            }
            None => {}
        }
        if let Ty::Record(rec) = t.unref() {
            if self.is_cg(rec) && !super::coalesced::is_coalesced_record(rec) {
                // a warp tile: known by its type where the body uses it
                return Ok(());
            }
            return self.err(init, format!("lambda `{var}` captures `{name}` of type `{rec}`, which is not a local record warpcert has scalarized"));
        }
        if by_ref && self.declared_names.get(&name).copied().unwrap_or(0) > 1 {
            return self.err(init, format!("lambda `{var}` captures `{name}` by reference, and the function declares more than one variable named `{name}`: rename one (warpcert passes a capture by reference by name)"));
        }
        let ty = match t.unref() {
            Ty::Array(elem, Some(_)) if by_ref && matches!(**elem, Ty::Scalar(..)) => {
                let mut c = elem.ctype().unwrap_or(CType::base(BaseTy::Int));
                c.ptr = 1;
                c
            }
            Ty::Array(..) => {
                return self.err(init, format!("lambda `{var}` captures the array `{name}` by value (or a multi-dimensional array): not supported by warpcert"))
            }
            other => self.ctype_of(other, init)?,
        };
        if ty.ptr > 0 && assigns(body, &r.id) {
            return self.err(init, format!("lambda `{var}` assigns the captured pointer `{name}`: not supported by warpcert"));
        }
        // by reference: the variable itself; by value: a copy made at the declaration
        let arg = if by_ref {
            ident(&name, pos)
        } else {
            let c = self.fresh(&format!("__{name}_{var}"));
            out.push(self.copy_decl(&c, &ty, &name, pos));
            ident(&c, pos)
        };
        args.push(arg);
        if ty.ptr > 0 {
            // a pointer is passed by value (the lambda may not assign it)
            caps.params.push(Param { name, ty, pos });
            return Ok(());
        }
        let mut pty = ty;
        pty.is_ref = true;
        caps.params.push(Param { name, ty: pty, pos });
        Ok(())
    }

    fn copy_decl(&self, c: &str, ty: &CType, from: &str, pos: crate::frontend::diag::Pos) -> Stmt {
        Stmt {
            kind: StmtKind::Decl(vec![Decl {
                name: c.to_string(),
                ty: ty.clone(),
                dims: Vec::new(),
                init: Some(ident(from, pos)),
                shared: false,
                is_extern: false,
                pos,
            }]),
            pos,
        }
    }

    /// The scalar type of the leaf at `path` of record type `t`.
    fn leaf_type(&self, t: &Ty, path: &[String]) -> CType {
        self.records
            .leaves(t.unref())
            .and_then(|ls| ls.into_iter().find(|l| l.path == path))
            .and_then(|l| l.ty.ctype())
            .unwrap_or(CType::base(BaseTy::Int))
    }

    /// Whether `n` is a call `f(args)` of a lambda (a `CXXOperatorCallExpr` of
    /// `operator()` on an object of closure type).
    pub(super) fn is_lambda_call(&self, n: &Node) -> bool {
        n.kind == "CXXOperatorCallExpr"
            && kids(n).nth(1).is_some_and(|o| {
                strip(o)
                    .ty
                    .as_ref()
                    .is_some_and(|t| is_lambda_type(&t.qual))
            })
    }

    /// A call of a lambda bound to a local: the call of its function with the arguments,
    /// then the captures' arguments.
    pub(super) fn lambda_call(&mut self, n: &Node) -> R<Expr> {
        let p = self.pos(n);
        let obj = kids(n).nth(1).map(super::warp::unwrap);
        let local = obj
            .filter(|o| o.kind == "DeclRefExpr")
            .and_then(|o| o.referenced_decl.as_deref())
            .and_then(|r| self.lookup(&r.id).cloned());
        let Some(Local::Lambda { func, captures }) = local else {
            return self.err(n, "call of a lambda that is not a local variable initialized with the lambda expression (an immediately invoked lambda, a lambda parameter or a copy) is not supported by warpcert");
        };
        let Some(decl) =
            super::convert::callee_decl(n).and_then(|d| self.decls.get(d.id.as_str()).copied())
        else {
            return self.err(n, "lambda call without its `operator()` in clang's AST");
        };
        let args: Vec<&Node> = kids(n).skip(2).collect();
        let (mut out, groups) = self.user_args(decl, &args)?;
        if !groups.is_empty() {
            return self.err(
                n,
                "a lambda with cooperative-group parameters is not supported by warpcert",
            );
        }
        out.extend(captures);
        Ok(Expr {
            kind: ExprKind::Call(Box::new(ident(&func, p)), out),
            pos: p,
        })
    }
}
