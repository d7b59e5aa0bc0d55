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
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod preprocess;
pub mod sdk;

pub use diag::{Diagnostic, Pos, SourceMap, Warning};

use crate::core::{Hardware, Launch, Program};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A default launch configuration read from a GPUVerify-style header comment
/// (`//--blockDim=[32,32] --gridDim=4`, also `--blockDim=64` and `[a,b,c]`); missing
/// components are 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchHeader {
    /// `--blockDim=`
    pub block: Option<[u32; 3]>,
    /// `--gridDim=`
    pub grid: Option<[u32; 3]>,
}

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
    let header = parse_header(&text);
    let mut sources = SourceMap::default();
    let main = sources.add(name, text);
    let defines = header_defines(sources.files.first().map(|f| f.1.as_str()).unwrap_or(""));
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

/// Reads `--blockDim=` / `--gridDim=` from the leading `//` comment lines of `text`.
pub fn parse_header(text: &str) -> LaunchHeader {
    let mut h = LaunchHeader::default();
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        let Some(c) = l.strip_prefix("//") else { break };
        for word in c.split_whitespace() {
            if let Some(v) = word.strip_prefix("--blockDim=") {
                h.block = parse_dims(v);
            } else if let Some(v) = word.strip_prefix("--gridDim=") {
                h.grid = parse_dims(v);
            }
        }
    }
    h
}

/// The `-DNAME=VALUE` / `-DNAME` flags (value `1`) of the leading `//` comment lines of
/// `text` (GPUVerify test headers such as `//--blockDim=64 -DWIDTH=256`); the parser applies
/// them as macro definitions before the file.
pub fn header_defines(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        if l.is_empty() {
            continue;
        }
        let Some(c) = l.strip_prefix("//") else { break };
        for word in c.split_whitespace() {
            if let Some(d) = word.strip_prefix("-D") {
                let (n, v) = d.split_once('=').unwrap_or((d, "1"));
                let ok = !n.is_empty()
                    && n.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                    && !n.starts_with(|ch: char| ch.is_ascii_digit());
                if ok {
                    out.push((n.to_string(), v.to_string()));
                }
            }
        }
    }
    out
}

fn parse_dims(v: &str) -> Option<[u32; 3]> {
    let inner = v.trim().trim_start_matches('[').trim_end_matches(']');
    let parts: Vec<&str> = inner.split(',').map(|s| s.trim()).collect();
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let mut d = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        d[k] = p.parse().ok()?;
    }
    Some(d)
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
    with_big_stack(|| lower::lower_kernel(parsed, kernel, launch, hw, param_values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_forms() {
        let h = parse_header("//pass\n//--blockDim=[32,32] --gridDim=4\n__global__ void f(){}");
        assert_eq!(h.block, Some([32, 32, 1]));
        assert_eq!(h.grid, Some([4, 1, 1]));
        let h = parse_header("//--blockDim=64 --gridDim=[2,3,4]\n");
        assert_eq!(h.block, Some([64, 1, 1]));
        assert_eq!(h.grid, Some([2, 3, 4]));
        assert_eq!(
            parse_header("int x; //--blockDim=8"),
            LaunchHeader::default()
        );
    }
}
