//! The provenance section of a certificate (spec/certificate.md "Provenance"): the SHA-256
//! of the CUDA source file and of the certificate's program text, the warpcert version and
//! the lowering options (grid, fixed parameters), so that `warpcert check CERT --source
//! FILE.cu` can re-run the front end and require the same program. The kernel reads and
//! reports this section; only this module computes hashes.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write;
use warpcert_kernel::sexp::{parse_all, Sexp};

/// What the provenance section records besides the certificate itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The CUDA source file's bytes.
    pub bytes: Vec<u8>,
    /// The grid the program was lowered for (`None`: symbolic).
    pub grid: Option<[u32; 3]>,
    /// Scalar parameters fixed at lowering (`--param NAME=VALUE`).
    pub fixed: BTreeMap<String, i64>,
}

/// SHA-256 of `bytes` in lowercase hexadecimal (64 digits).
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(64);
    for b in Sha256::digest(bytes) {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The text of the `(program …)` section of certificate text `cert`, from its `(` to its
/// `)`, as the kernel's reader delimits it; `None` when there is no such section.
pub fn program_text(cert: &str) -> Option<&str> {
    let top = parse_all(cert).ok()?;
    top.iter()
        .find(|s| s.head() == Some("program"))
        .map(|s| s.text())
}

/// Whether the s-expression texts `a` and `b` are the same tree: the same atoms in the same
/// lists, whatever the whitespace, line breaks and comments between them. `check --source`
/// compares a re-lowered program with the certificate's program section this way, so a
/// certificate written with another layout of the program section (the writer's layout
/// changed in format version 6) still matches its source. `false` when either text does
/// not parse.
pub fn same_tree(a: &str, b: &str) -> bool {
    fn same(x: &Sexp<'_>, y: &Sexp<'_>) -> bool {
        match (x, y) {
            (Sexp::Atom(p, _), Sexp::Atom(q, _)) => p == q,
            (Sexp::List(p, ..), Sexp::List(q, ..)) => {
                p.len() == q.len() && p.iter().zip(q).all(|(x, y)| same(x, y))
            }
            _ => false,
        }
    }
    match (parse_all(a), parse_all(b)) {
        (Ok(x), Ok(y)) => x.len() == y.len() && x.iter().zip(&y).all(|(x, y)| same(x, y)),
        _ => false,
    }
}

/// `cert` with a `(provenance …)` section for `src` inserted after its `(launch …)` line.
///
/// Errors: the certificate has no `(program …)` section or no `(launch …)` line.
pub fn add(cert: &str, src: &Source) -> Result<String, String> {
    let prog = program_text(cert).ok_or("the certificate has no (program …) section")?;
    let grid = match src.grid {
        Some([x, y, z]) => format!("{x} {y} {z}"),
        None => "symbolic".into(),
    };
    let fixed: String = src
        .fixed
        .iter()
        .map(|(n, v)| format!(" ({n} {v})"))
        .collect();
    let section = format!(
        "(provenance (source-sha256 {}) (program-sha256 {}) (warpcert {}) (grid {grid}) (fixed{fixed}))\n",
        sha256_hex(&src.bytes),
        sha256_hex(prog.as_bytes()),
        env!("CARGO_PKG_VERSION")
    );
    let at = cert
        .find("\n(launch ")
        .ok_or("the certificate has no (launch …) line")?;
    let end = cert[at + 1..]
        .find('\n')
        .map(|e| at + 1 + e + 1)
        .ok_or("the certificate ends after (launch …)")?;
    let mut out = String::with_capacity(cert.len() + section.len());
    out.push_str(&cert[..end]);
    out.push_str(&section);
    out.push_str(&cert[end..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::same_tree;

    /// Layout and comments do not matter; an atom or a list's shape does.
    #[test]
    fn same_tree_ignores_layout_only() {
        let flat = "(program (seq (assign x 1) (skip)))";
        let indented = "(program\n  (seq\n    (assign x 1) ; a comment\n    (skip)))";
        assert!(same_tree(flat, indented));
        assert!(!same_tree(flat, "(program (seq (assign x 2) (skip)))"));
        assert!(!same_tree(flat, "(program (seq (assign x 1)))"));
        assert!(!same_tree(flat, "(program (seq (assign x 1) skip))"));
        assert!(!same_tree(flat, "(program"));
    }
}
