//! The front end: CUDA text → tokens (`lexer`) → preprocessed tokens (`preprocess`) → AST
//! (`parser`, `ast`) → miniCUDA core (`lower`, scheme in `spec/lowering.md`; the target
//! language is RaCUDA's miniCUDA, §3 Fig. 2, as extended in `spec/minicuda.md`).
//!
//! Errors are values: every failure is a [`Diagnostic`] naming file, line, column and the
//! construct; accepted deviations (RaCUDA's benchmark dialect, ignored GPUVerify annotations,
//! missing local headers, skipped SDK headers and built-in stand-ins, the approximations of
//! atomics, a `__device__` function analysed as the entry) are [`Warning`]s. No input makes the front end panic; parsing and
//! lowering run on a worker thread with a large stack, and nesting deeper than 256 levels is
//! an error.
//!
//! Typical use (what the CLI does):
//! ```no_run
//! # use std::collections::BTreeMap;
//! # use warpcert::core::{Hardware, Launch};
//! let parsed = warpcert::frontend::parse_file(std::path::Path::new("examples/vector_add.cu"))?;
//! let launch = Launch { block: [256, 1, 1], grid: None };
//! let (program, warnings) =
//!     warpcert::frontend::lower(&parsed, None, &launch, &Hardware::default(), &BTreeMap::new())?;
//! # Ok::<(), warpcert::frontend::Diagnostic>(())
//! ```

pub mod ast;
pub mod clang;
pub mod diag;
pub mod header;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod preprocess;
pub mod sdk;

pub use diag::{DiagKind, Diagnostic, Pos, SourceMap, Warning, MAX_MACRO_OUTPUT, MAX_NESTING};
pub use header::{header_defines, LaunchHeader};

use crate::core::{Hardware, Launch, Program};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A parsed translation unit.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The AST (device functions and file-scope `__shared__` arrays).
    pub unit: ast::Unit,
    /// Names of the `__global__` functions, in source order.
    pub kernels: Vec<String>,
    /// The launch configuration from the header comment, if any.
    pub header: LaunchHeader,
    /// Warnings from preprocessing and parsing (e.g. RaCUDA-dialect deviations).
    pub warnings: Vec<Warning>,
    /// The source files (for diagnostics during lowering).
    pub sources: SourceMap,
    /// Every identifier spelled in the token stream (lowering temporaries avoid them).
    pub identifiers: BTreeSet<String>,
}

/// Reads, preprocesses and parses the file at `path` (`#include "…"` resolved relative to
/// the including file). Errors: unreadable file, lexical/preprocessor errors, junk at top
/// level, or neither a `__global__` function that could be parsed nor a `__device__`
/// function (each with file:line:col). A file with only `__device__` functions parses; one
/// of them is then the entry given to [`lower`].
pub fn parse_file(path: &Path) -> Result<Parsed, Diagnostic> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| Diagnostic {
        file: name.clone(),
        line: 0,
        col: 0,
        message: format!("cannot read `{name}`: {e}"),
        source_line: String::new(),
        kind: diag::DiagKind::Io,
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    parse_impl(&name, text, Some(path))
}

/// Like [`parse_file`] for in-memory text named `name`; `#include "…"` is not followed (a
/// warning says so).
pub fn parse_str(name: &str, text: &str) -> Result<Parsed, Diagnostic> {
    parse_impl(name, text.to_string(), None)
}

// The recursive-descent parser and the lowering recurse along the nesting depth of the
// input (bounded by the parser's limit): they run on a thread with a large stack.
use crate::core::stack::with_big_stack;

fn parse_impl(name: &str, text: String, path: Option<&Path>) -> Result<Parsed, Diagnostic> {
    with_big_stack(move || parse_inner(name, text, path))
}

fn parse_inner(name: &str, text: String, path: Option<&Path>) -> Result<Parsed, Diagnostic> {
    let mut sources = SourceMap::default();
    let main = sources.add(name, text);
    let header = header::parse_header(&sources, main)?;
    // device code is read as the device pass of nvcc reads it: `__CUDA_ARCH__` is defined
    // (the value the clang prelude gives), so `#if __CUDA_ARCH__ >= 700` keeps its body
    // instead of an empty kernel the host pass would see
    let mut defines = vec![("__CUDA_ARCH__".to_string(), "800".to_string())];
    defines.extend(header_defines(
        sources.files.first().map(|f| f.1.as_str()).unwrap_or(""),
    ));
    let pp = preprocess::preprocess(&mut sources, main, path, &defines)?;
    let identifiers: BTreeSet<String> = pp
        .tokens
        .iter()
        .filter_map(|t| t.ident().map(|s| s.to_string()))
        .collect();
    let (unit, pwarn) = {
        let mut p = parser::Parser::new(&pp.tokens, &sources);
        let u = p.unit()?;
        (u, p.warnings)
    };
    let kernels: Vec<String> = unit
        .functions
        .iter()
        .filter(|f| f.kind == ast::FnKind::Global)
        .map(|f| f.name.clone())
        .collect();
    let start = Pos {
        file: main,
        line: 1,
        col: 1,
    };
    // a file without `__global__` functions is still read when it defines `__device__`
    // functions (e.g. a sample's `.cuh`): one of them can be the entry (`lower`)
    let has_device = unit
        .functions
        .iter()
        .any(|f| f.kind == ast::FnKind::Device && f.body.is_ok());
    if kernels.is_empty() && !has_device {
        return Err(sources.error(start, "no `__global__` kernel found in this file"));
    }
    let kernel_fns: Vec<&ast::Function> = unit
        .functions
        .iter()
        .filter(|f| f.kind == ast::FnKind::Global)
        .collect();
    if kernel_fns.iter().all(|f| f.body.is_err()) {
        if let Some(Err(d)) = kernel_fns.first().map(|f| &f.body) {
            return Err(d.clone());
        }
    }
    let mut warnings = pp.warnings;
    warnings.extend(pwarn);
    Ok(Parsed {
        unit,
        kernels,
        header,
        warnings,
        sources,
        identifiers,
    })
}

/// Lowers kernel `kernel` (or the only `__global__` function) of `parsed` to miniCUDA for
/// `launch` and `hw`. `kernel` may also name a `__device__` function, analysed as if it were
/// a kernel (a warning says so; template functions as `name<float>`, `spec/lowering.md` §8).
/// Scalar parameters named in `param_values` are replaced by constants.
/// The scheme is `spec/lowering.md`. Errors name the construct that cannot be modelled and
/// its location; warnings report accepted deviations (RaCUDA dialect) and include the
/// warnings of [`parse_file`]/[`parse_str`] (`Parsed::warnings`), so a caller prints only these.
pub fn lower(
    parsed: &Parsed,
    kernel: Option<&str>,
    launch: &Launch,
    hw: &Hardware,
    param_values: &BTreeMap<String, i64>,
) -> Result<(Program, Vec<Warning>), Diagnostic> {
    // checked (and, when too deep, dropped) on the big stack
    with_big_stack(|| {
        let (program, warnings) = lower::lower_kernel(parsed, kernel, launch, hw, param_values)?;
        check_program_depth(parsed, &program.body)?;
        Ok((program, warnings))
    })
}

/// Checks that the lowered program nests at most [`diag::MAX_NESTING`] levels, so that the
/// analysis, the certificate writer and the kernel, which recurse along the nesting, never
/// see deeper input. Statements inside statements (branches, loop bodies, a sequence as the
/// first statement of another) count a level each; the statements of one sequence chain do
/// not (every stage walks a chain as a list: issue 13). Iterative. The error points at the
/// first statement below the limit.
fn check_program_depth(parsed: &Parsed, body: &crate::core::Stmt) -> Result<(), Diagnostic> {
    use crate::core::Stmt as S;
    let mut stack: Vec<(&S, usize)> = vec![(body, 1)];
    while let Some((s, d)) = stack.pop() {
        let loc = match s {
            S::Skip => None,
            S::Seq(a, b) => {
                // the rest of the chain is at the chain's level; a sequence in first
                // position is a nested one
                stack.push((b, d));
                stack.push((a, if matches!(**a, S::Seq(..)) { d + 1 } else { d }));
                None
            }
            S::If(_, a, b, l) => {
                stack.push((b, d + 1));
                stack.push((a, d + 1));
                Some(l)
            }
            S::While(_, a, l) => {
                stack.push((a, d + 1));
                Some(l)
            }
            S::Assign(_, _, l) | S::Write(_, _, _, l) | S::Sync(l) | S::Warp(_, _, l) => Some(l),
        };
        if let Some(l) = loc.filter(|_| d > diag::MAX_NESTING) {
            let pos = Pos {
                file: 0,
                line: l.line,
                col: l.col,
            };
            return Err(parsed.sources.limit(
                pos,
                format!(
                    "the lowered program nests deeper than warpcert's limit of {} levels here (statements inside statements; split the kernel)",
                    diag::MAX_NESTING
                ),
            ));
        }
    }
    Ok(())
}
