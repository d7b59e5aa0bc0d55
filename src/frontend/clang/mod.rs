//! clang 14 as the front end for CUDA C++ (`spec/lowering.md` §9).
//!
//! clang (Debian's `clang`, CUDA device mode without a CUDA installation) preprocesses,
//! resolves names and overloads, inserts implicit conversions and instantiates templates;
//! warpcert reads its typed JSON AST (`json`), converts the device functions the kernels
//! reach to the front end's AST (`convert` with `functions`, `stmts`, `decls`, `exprs`,
//! `records`, `calls`, `names`, `lambda` for local lambdas, `switch`) and lowers them with the
//! lowering the builtin front end uses (`frontend::lower`). `host` finds the kernels and
//! template instances of the file and the launch sizes of its host code; `run` holds the
//! command line, the prelude and the stub toolkit headers; `unsupported` the constructs
//! that are read but not modelled yet.
//!
//! Errors: a header clang cannot find names the header and the `-I` to give; clang's
//! errors inside a kernel or a device function it calls make that kernel fail with
//! clang's message; errors in host code are ignored with a warning (host code is not
//! analysed).

mod calls;
mod coalesced;
pub mod convert;
mod decls;
mod exprs;
mod functions;
mod grid;
pub mod host;
pub mod json;
mod lambda;
mod names;
mod opaque;
mod records;
pub mod run;
mod stmts;
mod switch;
pub mod types;
pub mod unsupported;
mod warp;

use super::ast;
use super::diag::{Diagnostic, Pos, Warning};
use super::Parsed;
use crate::core::{Hardware, Launch, Program};
use convert::{Conv, Origin};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use run::available;

/// Options of the clang front end (`warpcert analyze -I DIR -D NAME[=VAL] --std …
/// --extra-arg ARG`).
#[derive(Clone, Debug, Default)]
pub struct ClangOptions {
    /// `-I` directories.
    pub includes: Vec<PathBuf>,
    /// `-D` definitions (`NAME` or `NAME=VALUE`).
    pub defines: Vec<String>,
    /// `--std` (default `c++17`).
    pub std: Option<String>,
    /// A `compile_commands.json`: the include directories and definitions of the file's
    /// entry are added.
    pub compile_commands: Option<PathBuf>,
    /// Further clang arguments, passed as given after warpcert's own (`--extra-arg`).
    pub extra_args: Vec<String>,
}

/// A kernel (or template instance) of the file.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Name of the function in `ClangParsed::parsed` (what `frontend::lower` is given).
    pub internal: Option<String>,
    /// The name the user writes (`k`, `k<float, 128>`), the program's name.
    pub display: String,
    /// The launch of the host code, when all its launches of this kernel have the same
    /// constant sizes.
    pub launch: Option<HostLaunchInfo>,
    /// Why the kernel cannot be lowered before trying (an uninstantiated template).
    pub error: Option<Diagnostic>,
}

/// A launch configuration read from host code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLaunchInfo {
    /// `<<<grid, …>>>` when constant.
    pub grid: Option<[u32; 3]>,
    /// `<<<…, block>>>` when constant.
    pub block: Option<[u32; 3]>,
    /// Where: `file:line`.
    pub at: String,
}

/// A file read by clang.
#[derive(Clone, Debug)]
pub struct ClangParsed {
    /// The converted translation unit, in the form the lowering reads.
    pub parsed: Parsed,
    /// The kernels of the file, in source order.
    pub instances: Vec<Instance>,
    /// Wall time of the clang process, milliseconds.
    pub clang_ms: f64,
}

/// An error about `file` without a position (unreadable file, compile_commands.json, the
/// temporary directory of the support headers): [`DiagKind::Io`](super::diag::DiagKind::Io).
/// The deepest JSON AST clang may return: several JSON levels per AST node (`inner`
/// arrays, implicit casts) times the front end's nesting limit; deeper input is a limit
/// error before anything recursive reads it.
const JSON_DEPTH_LIMIT: usize = 16 * super::diag::MAX_NESTING;

fn plain_error(file: &str, message: String) -> Diagnostic {
    Diagnostic {
        kind: super::diag::DiagKind::Io,
        file: file.to_string(),
        line: 0,
        col: 0,
        message,
        source_line: String::new(),
    }
}

/// Include directories and definitions of `file`'s entry in a `compile_commands.json`.
fn from_compile_commands(cc: &Path, file: &Path) -> Result<(Vec<PathBuf>, Vec<String>), String> {
    let text =
        std::fs::read_to_string(cc).map_err(|e| format!("cannot read {}: {e}", cc.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", cc.display()))?;
    let want = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut inc = Vec::new();
    let mut defs = Vec::new();
    for entry in v.as_array().into_iter().flatten() {
        let dir = PathBuf::from(
            entry
                .get("directory")
                .and_then(|d| d.as_str())
                .unwrap_or("."),
        );
        let f = entry.get("file").and_then(|f| f.as_str()).unwrap_or("");
        let fp = dir.join(f);
        let fp = std::fs::canonicalize(&fp).unwrap_or(fp);
        if fp != want {
            continue;
        }
        let args: Vec<String> = match entry.get("arguments").and_then(|a| a.as_array()) {
            Some(a) => a
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect(),
            None => entry
                .get("command")
                .and_then(|c| c.as_str())
                .unwrap_or("")
                .split_whitespace()
                .map(String::from)
                .collect(),
        };
        let mut it = args.iter().peekable();
        while let Some(a) = it.next() {
            let take = |x: &str,
                        it: &mut std::iter::Peekable<std::slice::Iter<String>>|
             -> Option<String> {
                if x.is_empty() {
                    it.next().cloned()
                } else {
                    Some(x.to_string())
                }
            };
            if let Some(x) = a.strip_prefix("-I").or_else(|| a.strip_prefix("-isystem")) {
                if let Some(d) = take(x, &mut it) {
                    inc.push(dir.join(d));
                }
            } else if let Some(x) = a.strip_prefix("-D") {
                if let Some(d) = take(x, &mut it) {
                    defs.push(d);
                }
            }
        }
        return Ok((inc, defs));
    }
    Err(format!(
        "{} has no entry for {}",
        cc.display(),
        file.display()
    ))
}

/// Reads `path` with clang. `instantiate`: a template instance `k<float, 128>` to add to
/// the file's own (a wrapper translation unit includes the file and names the instance).
/// Errors: clang missing or failing before an AST, a missing header (named, with the `-I`
/// to give), a file without kernels.
///
/// Runs on a thread with a large stack (`core::stack::with_big_stack`): reading and
/// converting the AST recurse along its nesting, which is checked against the limit first.
pub fn parse_file(
    path: &Path,
    opts: &ClangOptions,
    instantiate: Option<&str>,
) -> Result<ClangParsed, Diagnostic> {
    crate::core::stack::with_big_stack(|| parse_file_inner(path, opts, instantiate))
}

fn parse_file_inner(
    path: &Path,
    opts: &ClangOptions,
    instantiate: Option<&str>,
) -> Result<ClangParsed, Diagnostic> {
    let name = path.display().to_string();
    let abs = std::fs::canonicalize(path)
        .map_err(|e| plain_error(&name, format!("cannot read `{name}`: {e}")))?;
    let text = std::fs::read(&abs)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| plain_error(&name, format!("cannot read `{name}`: {e}")))?;
    let mut includes = opts.includes.clone();
    let mut defines = opts.defines.clone();
    if let Some(cc) = &opts.compile_commands {
        let (i, d) = from_compile_commands(cc, path).map_err(|m| plain_error(&name, m))?;
        includes.extend(i);
        defines.extend(d);
    }
    // the GPUVerify launch header, parsed strictly (a malformed one is a located error)
    let header = {
        let mut hsm = super::SourceMap::default();
        let hf = hsm.add(&name, text.clone());
        super::header::parse_header(&hsm, hf)?
    };
    for (n, v) in super::header_defines(&text) {
        defines.push(format!("{n}={v}"));
    }
    // the wrapper translation unit for an instance the file does not contain
    let wrapper;
    let input = match instantiate {
        Some(inst) => {
            let dir = run::support_dir().map_err(|m| plain_error(&name, m))?;
            wrapper = dir.join(format!(
                "inst-{}.cu",
                std::process::id()
                    ^ (inst.len() as u32)
                    ^ (Instant::now().elapsed().subsec_nanos())
            ));
            let body = format!(
                "#include \"{}\"\nstatic void __warpcert_instantiate() {{ (void)&{inst}; }}\n",
                abs.display()
            );
            std::fs::write(&wrapper, body).map_err(|e| {
                plain_error(&name, format!("cannot write {}: {e}", wrapper.display()))
            })?;
            wrapper.clone()
        }
        None => abs.clone(),
    };
    let mut cmd = run::command(
        &input,
        &includes,
        &defines,
        opts.std.as_deref(),
        &opts.extra_args,
    )
    .map_err(|m| plain_error(&name, m))?;
    let start = Instant::now();
    let out = cmd.output().map_err(|e| plain_error(&name, format!("cannot run clang (`{}`): {e}; install it (`apt-get install clang`) or use --frontend builtin", run::clang_program())))?;
    let clang_ms = start.elapsed().as_secs_f64() * 1e3;
    if instantiate.is_some() {
        let _ = std::fs::remove_file(&input);
    }
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let diags = run::diagnostics(&stderr);
    let main_str = abs.display().to_string();
    if let Some(f) = diags.iter().find(|d| d.fatal) {
        let msg = if f.message.contains("file not found") {
            let header = f
                .message
                .split('\'')
                .nth(1)
                .unwrap_or(&f.message)
                .to_string();
            format!("header `{header}` not found (included here): give the directory that holds it with -I DIR")
        } else {
            format!("clang: {}", f.message)
        };
        let mut sm = super::SourceMap::default();
        let fi = sm.add(
            &f.file,
            std::fs::read_to_string(&f.file).unwrap_or_default(),
        );
        return Err(sm.error(
            Pos {
                file: fi,
                line: f.line,
                col: f.col,
            },
            msg,
        ));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() && stdout.trim().is_empty() {
        return Err(plain_error(
            &name,
            format!(
                "clang failed ({}) without an AST{}",
                out.status,
                stderr
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            ),
        ));
    }
    if json::depth_exceeds(&stdout, JSON_DEPTH_LIMIT) {
        return Err(Diagnostic {
            kind: super::diag::DiagKind::Limit,
            ..plain_error(
                &name,
                format!(
                    "clang's AST nests more than {JSON_DEPTH_LIMIT} levels: the program exceeds the nesting limit of {} levels (README, \"Exit codes, limits and JSON\")",
                    super::diag::MAX_NESTING
                ),
            )
        });
    }
    let root = json::parse(&stdout).map_err(|m| plain_error(&name, m))?;
    let support = run::support_dir()
        .map_err(|m| plain_error(&name, m))?
        .display()
        .to_string();
    let origin = move |f: &str| -> Origin {
        if f.starts_with(&support) || f.is_empty() {
            Origin::Prelude
        } else if f.starts_with("/usr/") {
            Origin::System
        } else {
            Origin::User
        }
    };
    let mut conv = Conv::new(&root, &origin);
    conv.file(&main_str);
    let in_main = |n: &json::Node| n.loc.user().0 == main_str;
    let found = host::kernels(&root, &in_main);
    let launches = host::launches(&root, &conv.decls);
    let mut instances = Vec::new();
    for f in &found {
        let launch =
            f.id.as_ref()
                .and_then(|id| launches.get(id))
                .and_then(|ls| {
                    let first = ls.first()?;
                    let same = ls
                        .iter()
                        .all(|l| l.grid == first.grid && l.block == first.block);
                    same.then(|| HostLaunchInfo {
                        grid: first.grid,
                        block: first.block,
                        at: format!("{}:{}", first.at.0, first.at.1),
                    })
                });
        match &f.id {
            Some(id) => {
                let internal = conv.function(id);
                instances.push(Instance {
                    internal,
                    display: f.display.clone(),
                    launch,
                    error: None,
                });
            }
            None => {
                let d = conv.decls.get(f.node_id.as_str()).copied();
                let p = d.map(|d| conv.pos(d)).unwrap_or_default();
                instances.push(Instance {
                    internal: None,
                    display: f.display.clone(),
                    launch: None,
                    error: Some(conv.sm.error(p, format!("`{}` is a template kernel and the file has no instantiation of it (no explicit instantiation, no launch): give one with --kernel '{}<float>'", f.display, f.display))),
                });
            }
        }
    }
    // clang's errors inside converted device code make those functions fail
    let mut warnings: Vec<Warning> = Vec::new();
    let errors: Vec<&run::ClangDiag> = diags.iter().filter(|d| !d.fatal).collect();
    let mut host_errors = 0;
    for d in &errors {
        let hit = conv.functions.iter_mut().find(|f| {
            let fname = conv.sm.name(f.pos.file).to_string();
            fname == d.file && function_range_contains(&root, f, d)
        });
        match hit {
            // the first clang error of a function is its error, unless the conversion
            // already named a construct warpcert excludes (a texture fetch in a fragment
            // whose declarations are in a header the file does not include)
            Some(f)
                if f.body.as_ref().err().is_some_and(|e| {
                    e.message.starts_with("clang: ") || e.message.contains("is not supported yet (")
                }) => {}
            Some(f) => {
                let mut sm = super::SourceMap::default();
                let fi = sm.add(
                    &d.file,
                    std::fs::read_to_string(&d.file).unwrap_or_default(),
                );
                f.body = Err(sm.error(
                    Pos {
                        file: fi,
                        line: d.line,
                        col: d.col,
                    },
                    format!("clang: {}", d.message),
                ));
            }
            None => host_errors += 1,
        }
    }
    if host_errors > 0 {
        warnings.push(conv.sm.warning(
            Pos { file: 0, line: 1, col: 1 },
            format!("clang reported {host_errors} error(s) outside the kernels and the device functions they call (host code, unused templates): ignored, host code is not analysed"),
        ));
    }
    if instances.is_empty() {
        return Err(conv.sm.error(
            Pos {
                file: 0,
                line: 1,
                col: 1,
            },
            "no `__global__` kernel found in this file",
        ));
    }
    let mut identifiers = std::mem::take(&mut conv.identifiers);
    collect_names(&root, &mut identifiers);
    warnings.append(&mut conv.warnings);
    let kernels: Vec<String> = instances
        .iter()
        .filter_map(|i| i.internal.clone())
        .collect();
    let unit = ast::Unit {
        functions: std::mem::take(&mut conv.functions),
        shared: std::mem::take(&mut conv.shared),
        device_vars: std::mem::take(&mut conv.device_vars),
        constant_vars: std::mem::take(&mut conv.constant_vars),
        unsupported_globals: Vec::new(),
        prototypes: Vec::new(),
    };
    let parsed = Parsed {
        unit,
        kernels,
        header,
        warnings,
        sources: conv.sm,
        identifiers,
    };
    Ok(ClangParsed {
        parsed,
        instances,
        clang_ms,
    })
}

/// Whether clang's error `d` lies in the body of converted function `f` (by line range of
/// the `FunctionDecl` at `f.pos`).
fn function_range_contains(root: &json::Node, f: &ast::Function, d: &run::ClangDiag) -> bool {
    fn find<'b>(n: &'b json::Node, line: u32, col: u32, out: &mut Option<&'b json::Node>) {
        for c in &n.inner {
            if matches!(c.kind.as_str(), "FunctionDecl" | "CXXMethodDecl") {
                let (_, l, cl) = c.loc.user();
                if l == line && cl == col {
                    *out = Some(c);
                    return;
                }
            }
            if out.is_none() && (c.kind.ends_with("Decl")) {
                find(c, line, col, out);
            }
        }
    }
    let mut hit = None;
    find(root, f.pos.line, f.pos.col, &mut hit);
    match hit {
        Some(n) => {
            let b = n.range.begin.user().1;
            let e = n.range.end.user().1;
            b <= d.line && d.line <= e
        }
        None => false,
    }
}

fn collect_names(n: &json::Node, out: &mut BTreeSet<String>) {
    if let Some(s) = &n.name {
        if !s.is_empty() {
            out.insert(s.clone());
        }
    }
    for c in &n.inner {
        collect_names(c, out);
    }
}

/// Lowers instance `inst` of `cp` (its program is named by the instance's display name).
pub fn lower(
    cp: &ClangParsed,
    inst: &Instance,
    launch: &Launch,
    hw: &Hardware,
    param_values: &BTreeMap<String, i64>,
) -> Result<(Program, Vec<Warning>), Diagnostic> {
    if let Some(e) = &inst.error {
        return Err(e.clone());
    }
    let Some(internal) = &inst.internal else {
        return Err(plain_error(
            "",
            format!("kernel `{}` has no body", inst.display),
        ));
    };
    let (mut p, w) = super::lower(&cp.parsed, Some(internal), launch, hw, param_values)?;
    p.name = program_name(&inst.display);
    Ok((p, w))
}

/// The program name of an instance: its display name without spaces (`k<float,128>`,
/// `k<unsigned_int,4>`), as certificates need one token.
pub fn program_name(display: &str) -> String {
    display.replace(", ", ",").replace(' ', "_")
}

/// Whether a `--kernel` text names instance `display`: spaces ignored (`k<float,128>` is
/// `k<float, 128>`), or its [`program_name`] as printed in results (`k<unsigned_int,4>` is
/// `k<unsigned int, 4>`).
pub fn same_name(given: &str, display: &str) -> bool {
    let c = |s: &str| -> String { s.chars().filter(|c| !c.is_whitespace()).collect() };
    c(given) == c(display) || given.trim() == program_name(display)
}

#[cfg(test)]
mod tests {
    use super::same_name;

    #[test]
    fn kernel_names_match_with_or_without_spaces_and_as_printed() {
        assert!(same_name("k<float,128>", "k<float, 128>"));
        assert!(same_name("k<unsigned int, 4>", "k<unsigned int, 4>"));
        assert!(same_name("k<unsigned_int,4>", "k<unsigned int, 4>"));
        assert!(!same_name("k<unsignedint,4>", "k<unsigned short, 4>"));
        assert!(!same_name("k<int,4>", "k<unsigned int, 4>"));
    }
}
