//! The entry: choice of the kernel (or `__device__` function), its template arguments,
//! its parameters (kernel parameters, launch-time constants, arrays) and the launch
//! built-ins `blockIdx`/`gridDim` (`spec/lowering.md`).

use crate::core::{
    ArrayDecl, Const, Expr, Hardware, Launch, Operand, ParamDecl, Program, Space, Stmt, Ty,
};
use crate::frontend::ast::{self, BaseTy, CType, FnKind};
use crate::frontend::diag::{Pos, SourceMap, Warning};
use crate::frontend::lower::call::{instantiate, type_from_name};
use crate::frontend::lower::pointer::moved_pointers;
use crate::frontend::lower::stmt::assigned_names;
use crate::frontend::lower::{int, loc, seq, Binding, FnCtx, Lw, R};
use crate::frontend::Parsed;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Lowers `kernel` of `parsed`; see [`crate::frontend::lower()`].
pub fn lower_kernel(
    parsed: &Parsed,
    kernel: Option<&str>,
    launch: &Launch,
    hw: &Hardware,
    pv: &BTreeMap<String, i64>,
) -> R<(Program, Vec<Warning>)> {
    let sm = &parsed.sources;
    let (kf, targs_text) = select_entry(parsed, kernel)?;
    let body = match &kf.body {
        Ok(b) => b,
        Err(d) => return Err(d.clone()),
    };
    let mut entry_warnings = Vec::new();
    let display_name = match targs_text {
        Some(t) => {
            let parts: Vec<&str> = t.split(',').map(|x| x.trim()).collect();
            format!("{}<{}>", kf.name, parts.join(", "))
        }
        None => kf.name.clone(),
    };
    let tsubst = entry_tsubst(sm, kf, targs_text, &display_name)?;
    if kf.kind == FnKind::Device {
        entry_warnings.push(sm.warning(
            kf.pos,
            format!(
                "entry `{display_name}` is a `__device__` function, analysed as if it were a kernel: its scalar parameters become kernel parameters, i.e. the same value in every thread of a warp (bounds hold for calls with warp-uniform arguments); its result is discarded"
            ),
        ));
    }
    let mut lw = Lw {
        unit: &parsed.unit,
        sm,
        reserved: &parsed.identifiers,
        launch: *launch,
        hw: *hw,
        used: HashSet::new(),
        next_fresh: HashMap::new(),
        locals: Vec::new(),
        arrays: Vec::new(),
        shared_by_pos: HashMap::new(),
        builtins: BTreeSet::new(),
        warnings: Vec::new(),
        globals: HashMap::new(),
        constants: BTreeSet::new(),
        scopes: vec![HashMap::new()],
        call_stack: vec![kf.name.clone()],
        f: FnCtx::default(),
        tsubst,
        warned_atomics: HashSet::new(),
    };
    lw.warnings.extend(entry_warnings);
    if let (Some(rt), FnKind::Global) = (&kf.ret, kf.kind) {
        if rt.base != BaseTy::Void || rt.ptr > 0 {
            lw.warnings.push(sm.warning(
                kf.pos,
                format!(
                    "kernel `{}` is declared to return `{}` (RaCUDA dialect, not valid CUDA); the value is ignored",
                    kf.name,
                    rt.describe()
                ),
            ));
        }
    }
    for name in [
        "blockIdx.x",
        "blockIdx.y",
        "blockIdx.z",
        "gridDim.x",
        "gridDim.y",
        "gridDim.z",
    ] {
        lw.used.insert(name.to_string());
    }
    let (mut params, entry) = lw.entry_params(kf, body, pv)?;
    lw.f.moved = moved_pointers(body);
    // file-scope `__device__` variables, then file-scope shared arrays
    for d in &parsed.unit.device_vars {
        let b = lw.device_var_decl(d)?;
        lw.globals.insert(d.name.clone(), b);
    }
    for d in &parsed.unit.shared {
        let b = lw.shared_decl(d)?;
        lw.globals.insert(d.name.clone(), b);
    }
    let mut out = entry;
    lw.block(body, &mut out, true)?;
    for (kind, d) in lw.builtins.iter() {
        let name = format!(
            "{}.{}",
            if *kind == 0 { "blockIdx" } else { "gridDim" },
            ["x", "y", "z"][*d]
        );
        params.push(ParamDecl { name, ty: Ty::Int });
    }
    let program = Program {
        name: display_name,
        params,
        arrays: lw.arrays,
        locals: lw.locals,
        body: seq(out),
    };
    let mut warnings = parsed.warnings.clone();
    warnings.extend(lw.warnings);
    Ok((program, warnings))
}

/// The entry of the analysis: the kernel named by `kernel` (`name` or `name<T1, …>`, a
/// `__device__` function too), else the file's only `__global__` kernel; with the text of
/// its explicit template arguments.
fn select_entry<'p>(
    parsed: &'p Parsed,
    kernel: Option<&'p str>,
) -> R<(&'p ast::Function, Option<&'p str>)> {
    let sm = &parsed.sources;
    let first = Pos {
        file: 0,
        line: 1,
        col: 1,
    };
    let kernels: Vec<&ast::Function> = parsed
        .unit
        .functions
        .iter()
        .filter(|f| f.kind == FnKind::Global)
        .collect();
    let devices: Vec<&ast::Function> = parsed
        .unit
        .functions
        .iter()
        .filter(|f| f.kind == FnKind::Device && f.body.is_ok())
        .collect();
    let device_list = || -> String {
        let names: Vec<String> = devices
            .iter()
            .map(|f| {
                if f.template {
                    format!("{}<…>", f.name)
                } else {
                    f.name.clone()
                }
            })
            .collect();
        names.join(", ")
    };
    // `name` or `name<T1, …>` (explicit template arguments of a template entry)
    let (kname, targs_text) = match kernel {
        Some(k) => match k.split_once('<') {
            Some((n, rest)) => (Some(n.trim()), Some(rest.trim_end().trim_end_matches('>'))),
            None => (Some(k.trim()), None),
        },
        None => (None, None),
    };
    let kf = match kname {
        Some(k) => match kernels.iter().find(|f| f.name == k) {
            Some(f) => *f,
            None => match devices.iter().find(|f| f.name == k) {
                Some(f) => *f,
                None => {
                    let names: Vec<&str> = kernels.iter().map(|f| f.name.as_str()).collect();
                    return Err(sm.error(
                        first,
                        format!(
                            "no `__global__` kernel or `__device__` function named `{k}`; kernels in this file: {}; device functions: {}",
                            if names.is_empty() { "none".to_string() } else { names.join(", ") },
                            device_list()
                        ),
                    ));
                }
            },
        },
        None => match kernels.as_slice() {
            [one] => *one,
            [] if devices.is_empty() => {
                return Err(sm.error(first, "no `__global__` kernel found in this file"))
            }
            [] => {
                return Err(sm.error(
                    first,
                    format!(
                        "no `__global__` kernel found in this file; a `__device__` function can be analysed as the entry with --kernel NAME (templates as NAME<float>): {}",
                        device_list()
                    ),
                ))
            }
            many => {
                let names: Vec<&str> = many.iter().map(|f| f.name.as_str()).collect();
                return Err(sm.error(
                    first,
                    format!(
                        "several `__global__` kernels ({}); choose one with --kernel",
                        names.join(", ")
                    ),
                ));
            }
        },
    };
    Ok((kf, targs_text))
}

/// The substitution of a template entry's type parameters by the arguments `targs_text`
/// (an error when they are missing, not scalar types, or given to a non-template).
fn entry_tsubst(
    sm: &SourceMap,
    kf: &ast::Function,
    targs_text: Option<&str>,
    display_name: &str,
) -> R<HashMap<String, CType>> {
    let tsubst = if kf.template {
        let Some(text) = targs_text else {
            return Err(sm.error(
                kf.pos,
                format!(
                    "`{}` is a template: give its type arguments, e.g. --kernel '{}<float>'",
                    kf.name, kf.name
                ),
            ));
        };
        let mut targs = Vec::new();
        for part in text.split(',') {
            match type_from_name(part.trim()) {
                Some(t) => targs.push(t),
                None => {
                    return Err(sm.error(
                        kf.pos,
                        format!(
                            "template argument `{}` of `{}`: only scalar types (float, double, int, unsigned, bool, char, short, long) are supported",
                            part.trim(),
                            kf.name
                        ),
                    ))
                }
            }
        }
        let m = instantiate(sm, kf, &targs, kf.pos)?;
        if let Some(tp) = kf.tparams.iter().find(|t| !m.contains_key(&t.name)) {
            return Err(sm.error(
                kf.pos,
                format!(
                    "template parameter `{}` of `{}` has no argument in `{display_name}`",
                    tp.name, kf.name
                ),
            ));
        }
        m
    } else {
        if targs_text.is_some() {
            return Err(sm.error(
                kf.pos,
                format!("`{}` is not a template; drop the `<…>`", kf.name),
            ));
        }
        HashMap::new()
    };
    Ok(tsubst)
}

impl Lw<'_> {
    /// The entry's parameters: pointers become global arrays, scalars kernel parameters
    /// (or the constants of `pv`); a scalar the body assigns is copied into a local first.
    /// Returns the kernel parameters and the copying statements.
    fn entry_params(
        &mut self,
        kf: &ast::Function,
        body: &[ast::Stmt],
        pv: &BTreeMap<String, i64>,
    ) -> R<(Vec<ParamDecl>, Vec<Stmt>)> {
        let sm = self.sm;
        // parameters
        let assigned = assigned_names(body);
        let moved = moved_pointers(body);
        let mut params = Vec::new();
        let mut entry = Vec::new();
        for p in &kf.params {
            if p.name.is_empty() {
                continue;
            }
            self.used.insert(p.name.clone());
        }
        for p in &kf.params {
            if p.name.is_empty() {
                continue;
            }
            if p.ty.is_ref {
                return Err(sm.error(
                    p.pos,
                    format!(
                        "reference parameter `{}` of entry `{}` is not supported by warpcert (references are supported as parameters of inlined `__device__` calls, bound to local variables)",
                        p.name, kf.name
                    ),
                ));
            }
            if p.ty.ptr > 0 {
                if p.ty.ptr > 1 {
                    return Err(sm.error(
                        p.pos,
                        format!(
                            "pointer-to-pointer parameter `{}` cannot be modelled as an array",
                            p.name
                        ),
                    ));
                }
                let (elem, bytes) = self.elem_of(&p.ty, p.pos)?;
                self.arrays.push(ArrayDecl {
                    name: p.name.clone(),
                    space: Space::Global,
                    elem,
                    elem_bytes: bytes,
                    len: None,
                });
                let b = self.bind_ptr(
                    &p.name,
                    moved.contains(&p.name),
                    p.name.clone(),
                    int(0),
                    elem,
                    p.pos,
                    &mut entry,
                );
                self.scopes[0].insert(p.name.clone(), b);
                continue;
            }
            let ty = self.scalar_ty(&p.ty, p.pos)?;
            let value = match pv.get(&p.name) {
                Some(v) => Operand::Const(match ty {
                    Ty::Float => Const::Float(*v as f64),
                    Ty::Bool => Const::Bool(*v != 0),
                    Ty::Int => Const::Int(*v),
                }),
                None => {
                    params.push(ParamDecl {
                        name: p.name.clone(),
                        ty,
                    });
                    Operand::Param(p.name.clone())
                }
            };
            if assigned.contains(&p.name) {
                let core = self.new_local(&p.name, ty);
                entry.push(Stmt::Assign(core.clone(), Expr::Opd(value), loc(p.pos)));
                self.scopes[0].insert(p.name.clone(), Binding::Local(core, ty));
            } else {
                self.scopes[0].insert(p.name.clone(), Binding::Value(value, ty));
            }
        }
        for k in pv.keys() {
            if !kf.params.iter().any(|p| &p.name == k && p.ty.ptr == 0) {
                self.warnings.push(sm.warning(
                    kf.pos,
                    format!("value given for `{k}`, which is not a scalar parameter of kernel `{}`; ignored", kf.name),
                ));
            }
        }
        Ok((params, entry))
    }
}
