//! What the file says about its kernels outside device code: every `__global__` function
//! and template instantiation of the main file, and the launch configurations of the
//! `k<<<grid, block>>>(…)` launches in its host functions when their sizes are constants
//! (literals, `#define`s, `const` or never-reassigned locals, `dim3(…)`).

use super::convert::{const_int, first, kids, strip};
use super::json::Node;
use std::collections::{HashMap, HashSet};

/// A kernel of the file: the function declaration's id, its name as the user writes it
/// (`k`, `k<float, 128>`), or the reason it cannot be analysed.
#[derive(Clone, Debug)]
pub struct Found {
    /// Id of the `FunctionDecl` with the body (`None`: a template never instantiated).
    pub id: Option<String>,
    /// `k` or `k<float, 128>`.
    pub display: String,
    /// The declaration (for positions).
    pub node_id: String,
}

fn template_args(f: &Node) -> Vec<String> {
    f.inner
        .iter()
        .filter(|a| a.kind == "TemplateArgument")
        .map(|a| match (&a.ty, &a.value) {
            (Some(t), _) => t.canonical().to_string(),
            (None, Some(v)) => match v {
                serde_json::Value::String(s) => s.clone(),
                v => v.to_string(),
            },
            _ => "?".to_string(),
        })
        .collect()
}

fn has_body(f: &Node) -> bool {
    f.inner.iter().any(|c| c.kind == "CompoundStmt")
}

fn is_global(f: &Node) -> bool {
    f.inner.iter().any(|c| c.kind == "CUDAGlobalAttr")
}

/// The kernels defined in `main` (a file name as clang prints it), in source order.
pub fn kernels(root: &Node, in_main: &dyn Fn(&Node) -> bool) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    let mut seen = HashSet::new();
    fn walk(
        n: &Node,
        in_main: &dyn Fn(&Node) -> bool,
        out: &mut Vec<Found>,
        seen: &mut HashSet<String>,
    ) {
        for c in &n.inner {
            match c.kind.as_str() {
                "NamespaceDecl" | "LinkageSpecDecl" => walk(c, in_main, out, seen),
                "FunctionDecl" if is_global(c) && has_body(c) && in_main(c) => {
                    let name = c.name.clone().unwrap_or_default();
                    if seen.insert(name.clone()) {
                        out.push(Found {
                            id: Some(c.id.clone()),
                            display: name,
                            node_id: c.id.clone(),
                        });
                    }
                }
                "FunctionTemplateDecl" => {
                    let Some(pat) = c.inner.iter().find(|x| x.kind == "FunctionDecl") else {
                        continue;
                    };
                    if !is_global(pat) || !in_main(c) {
                        continue;
                    }
                    let name = c.name.clone().unwrap_or_default();
                    let mut any = false;
                    for s in c
                        .inner
                        .iter()
                        .filter(|x| x.kind == "FunctionDecl" && has_body(x))
                    {
                        let args = template_args(s);
                        if args.is_empty() {
                            continue;
                        }
                        any = true;
                        let display = format!("{name}<{}>", args.join(", "));
                        if seen.insert(display.clone()) {
                            out.push(Found {
                                id: Some(s.id.clone()),
                                display,
                                node_id: s.id.clone(),
                            });
                        }
                    }
                    if !any && has_body(pat) && seen.insert(format!("{name}<>")) {
                        out.push(Found {
                            id: None,
                            display: name,
                            node_id: pat.id.clone(),
                        });
                    }
                }
                _ => {}
            }
        }
    }
    walk(root, in_main, &mut out, &mut seen);
    out
}

/// A launch found in host code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLaunch {
    /// Grid size, when constant.
    pub grid: Option<[u32; 3]>,
    /// Block size, when constant.
    pub block: Option<[u32; 3]>,
    /// The `CUDAKernelCallExpr` node (for its position).
    pub at: (String, u32),
}

/// Launches in the host functions, by the launched declaration's id.
pub fn launches(root: &Node, decls: &HashMap<&str, &Node>) -> HashMap<String, Vec<HostLaunch>> {
    let mut out: HashMap<String, Vec<HostLaunch>> = HashMap::new();
    fn funcs<'b>(n: &'b Node, out: &mut Vec<&'b Node>) {
        for c in &n.inner {
            match c.kind.as_str() {
                "NamespaceDecl" | "LinkageSpecDecl" | "FunctionTemplateDecl" => funcs(c, out),
                "FunctionDecl" | "CXXMethodDecl" if has_body(c) => out.push(c),
                _ => {}
            }
        }
    }
    let mut fs = Vec::new();
    funcs(root, &mut fs);
    for f in fs {
        let assigned = assigned_ids(f);
        let mut calls = Vec::new();
        find_kernel_calls(f, &mut calls);
        for call in calls {
            let Some(callee) = first(call).map(strip) else {
                continue;
            };
            let Some(r) = callee.referenced_decl.as_deref() else {
                continue;
            };
            let Some(cfg) = call.inner.get(1) else {
                continue;
            };
            let args: Vec<&Node> = kids(cfg).skip(1).collect();
            let ev = Eval {
                decls,
                assigned: &assigned,
            };
            let grid = args.first().and_then(|a| ev.dim3(a));
            let block = args.get(1).and_then(|a| ev.dim3(a));
            let (f, l, _) = call.range.begin.user();
            out.entry(r.id.clone()).or_default().push(HostLaunch {
                grid,
                block,
                at: (f.to_string(), l),
            });
        }
    }
    out
}

fn find_kernel_calls<'b>(n: &'b Node, out: &mut Vec<&'b Node>) {
    for c in &n.inner {
        if c.kind == "CUDAKernelCallExpr" {
            out.push(c);
        }
        find_kernel_calls(c, out);
    }
}

/// Ids of the variables assigned (`=`, `op=`, `++`, `--`, a field of them) in `f`.
fn assigned_ids(f: &Node) -> HashSet<String> {
    let mut out = HashSet::new();
    fn root_id(n: &Node) -> Option<String> {
        let n = strip(n);
        match n.kind.as_str() {
            "DeclRefExpr" => n.referenced_decl.as_ref().map(|r| r.id.clone()),
            "MemberExpr" => first(n).and_then(root_id),
            _ => None,
        }
    }
    fn go(n: &Node, out: &mut HashSet<String>) {
        let target = match n.kind.as_str() {
            "BinaryOperator" if n.opcode.as_deref() == Some("=") => first(n),
            "CompoundAssignOperator" => first(n),
            "UnaryOperator"
                if matches!(n.opcode.as_deref(), Some("++") | Some("--") | Some("&")) =>
            {
                first(n)
            }
            "CXXOperatorCallExpr" => n.inner.get(1),
            _ => None,
        };
        if let Some(id) = target.and_then(root_id) {
            out.insert(id);
        }
        for c in &n.inner {
            go(c, out);
        }
    }
    go(f, &mut out);
    out
}

struct Eval<'a, 'b> {
    decls: &'a HashMap<&'b str, &'b Node>,
    assigned: &'a HashSet<String>,
}

impl Eval<'_, '_> {
    fn var_init(&self, n: &Node) -> Option<&Node> {
        let r = n.referenced_decl.as_deref()?;
        if self.assigned.contains(&r.id) {
            return None;
        }
        let d = self.decls.get(r.id.as_str())?;
        if d.kind != "VarDecl" || d.init.is_none() {
            return None;
        }
        kids(d).next()
    }

    fn int(&self, n: &Node) -> Option<i64> {
        if let Some(v) = const_int(n, self.decls) {
            return Some(v);
        }
        let s = strip(n);
        match s.kind.as_str() {
            "DeclRefExpr" => self.int(self.var_init(s)?),
            "ImplicitCastExpr"
            | "CStyleCastExpr"
            | "CXXStaticCastExpr"
            | "CXXFunctionalCastExpr"
            | "ParenExpr" => self.int(first(s)?),
            "BinaryOperator" => {
                let mut it = kids(s);
                let a = self.int(it.next()?)?;
                let b = self.int(it.next()?)?;
                match s.opcode.as_deref()? {
                    "+" => a.checked_add(b),
                    "-" => a.checked_sub(b),
                    "*" => a.checked_mul(b),
                    "/" => a.checked_div(b),
                    "%" => a.checked_rem(b),
                    "<<" => a.checked_shl(u32::try_from(b).ok()?),
                    ">>" => a.checked_shr(u32::try_from(b).ok()?),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn dim3(&self, n: &Node) -> Option<[u32; 3]> {
        let s = strip(n);
        let pos = |v: i64| u32::try_from(v).ok().filter(|&x| x > 0);
        match s.kind.as_str() {
            "CXXConstructExpr" | "CXXTemporaryObjectExpr" => {
                let args: Vec<&Node> = kids(s).collect();
                match args.as_slice() {
                    [one] => self.dim3(one),
                    many if many.len() == 3 => {
                        let mut d = [1u32; 3];
                        for (k, a) in many.iter().enumerate() {
                            if strip(a).kind != "CXXDefaultArgExpr" {
                                d[k] = pos(self.int(a)?)?;
                            }
                        }
                        Some(d)
                    }
                    _ => None,
                }
            }
            "ImplicitCastExpr" | "CXXFunctionalCastExpr" => self.dim3(first(s)?),
            "DeclRefExpr" => {
                let t =
                    s.ty.as_ref()
                        .map(|q| q.canonical().to_string())
                        .unwrap_or_default();
                if t.contains("dim3") {
                    self.dim3(self.var_init(s)?)
                } else {
                    Some([pos(self.int(s)?)?, 1, 1])
                }
            }
            _ => Some([pos(self.int(s)?)?, 1, 1]),
        }
    }
}
