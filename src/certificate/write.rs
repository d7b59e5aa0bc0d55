//! The certificate writer (`spec/certificate.md`, version 2). Deterministic: every map is
//! ordered (`BTreeMap`) and nodes are written in tree order.

use super::{Assn, Farkas, Field, Judgment, Node, Rewrite};
use crate::core::assertion::linear::{fmt_q, CKind, Cstr, EntryKind, Lin};
use crate::core::assertion::poly::Poly;
use crate::core::metric::Q;
use crate::core::print::sexp_program;
use crate::core::{Hardware, Launch, Metric, Program, Space};
use num_traits::ToPrimitive;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

/// Writes a rational as `n` or `p/q` (the text of [`fmt_q`], without its allocations for
/// numbers that fit in `i64`).
fn write_q(out: &mut String, x: &Q) {
    match (x.numer().to_i64(), x.denom().to_i64()) {
        (Some(n), Some(1)) => {
            let _ = write!(out, "{n}");
        }
        (Some(n), Some(d)) => {
            let _ = write!(out, "{n}/{d}");
        }
        _ => out.push_str(&fmt_q(x)),
    }
}

fn write_lin(out: &mut String, l: &Lin) {
    out.push_str("(lin ");
    write_q(out, &l.c);
    for (v, a) in &l.terms {
        out.push_str(" (");
        write_q(out, a);
        out.push(' ');
        out.push_str(v);
        out.push(')');
    }
    out.push(')');
}

fn cstr_s(c: &Cstr, out: &mut String) {
    match &c.kind {
        CKind::Le => {
            out.push_str("(le ");
            write_lin(out, &c.lin);
            out.push(')');
        }
        CKind::Eq => {
            out.push_str("(eq ");
            write_lin(out, &c.lin);
            out.push(')');
        }
        CKind::Mod(m, rs) => {
            out.push_str("(mod ");
            write_lin(out, &c.lin);
            let _ = write!(out, " {m}");
            for r in rs {
                let _ = write!(out, " {r}");
            }
            out.push(')');
        }
    }
}

/// A potential as the certificate's `(poly …)` s-expression (issue 19: a claimed bound
/// stated to the kernel's reader and the Coq export).
pub fn poly_sexp(p: &Poly) -> String {
    let mut s = String::new();
    write_poly(&mut s, p);
    s
}

/// `(poly TERM ...)` with terms `(C ATOM ...)` in canonical order.
fn write_poly(out: &mut String, p: &Poly) {
    out.push_str("(poly");
    for (m, c) in &p.terms {
        out.push_str(" (");
        write_q(out, c);
        for a in m {
            out.push_str(" (max0 ");
            write_lin(out, a);
            out.push(')');
        }
        out.push(')');
    }
    out.push(')');
}

/// The printed `(P …)` and `(D …)` parts, by the address of the shared list/map (nodes
/// share them: a sequence's pre is its first statement's): each is printed once.
#[derive(Default)]
struct Memo {
    p: HashMap<usize, String>,
    d: HashMap<usize, String>,
}

fn write_assn(out: &mut String, a: &Assn, memo: &mut Memo) {
    let ps = memo.p.entry(Arc::as_ptr(&a.p) as usize).or_insert_with(|| {
        let mut s = String::from("(P");
        for c in a.p.iter() {
            s.push(' ');
            cstr_s(c, &mut s);
        }
        s.push(')');
        s
    });
    out.push_str("(assn ");
    out.push_str(ps);
    let ds = memo.d.entry(Arc::as_ptr(&a.d) as usize).or_insert_with(|| {
        let mut s = String::from("(D");
        for (x, d) in a.d.iter() {
            let _ = match d.kind {
                EntryKind::Rng => write!(s, " (rng {x} {})", d.g),
                EntryKind::Rem => write!(
                    s,
                    " (rem {x} {} {} {} {} {})",
                    d.k[0], d.k[1], d.k[2], d.r, d.g
                ),
                EntryKind::Linear => write!(
                    s,
                    " (dep {x} {} {} {} {} {})",
                    d.k[0], d.k[1], d.k[2], d.r, d.g
                ),
            };
        }
        s.push(')');
        s
    });
    out.push(' ');
    out.push_str(ds);
    out.push_str(" (Q ");
    write_poly(out, &a.q);
    out.push_str("))");
}

fn write_farkas(out: &mut String, f: &Farkas) {
    out.push_str("(farkas");
    for (i, l) in &f.0 {
        let _ = write!(out, " ({i} ");
        write_q(out, l);
        out.push(')');
    }
    out.push(')');
}

fn write_field(out: &mut String, f: &Field) {
    match f {
        Field::N(n) => {
            let _ = write!(out, "(n {n})");
        }
        Field::Frame(c) => {
            out.push_str("(frame ");
            write_q(out, c);
            out.push(')');
        }
        Field::Entail(name, ws) => {
            let _ = write!(out, "(entail {name}");
            for w in ws {
                out.push(' ');
                write_farkas(out, w);
            }
            out.push(')');
        }
        Field::Rewrite(name, rws) => {
            let _ = write!(out, "(rewrite {name}");
            for rw in rws {
                match rw {
                    Rewrite::Shift(l, d, w) => {
                        out.push_str(" (shift ");
                        write_lin(out, l);
                        out.push(' ');
                        write_q(out, d);
                        out.push(' ');
                        write_farkas(out, w);
                        out.push(')');
                    }
                    Rewrite::Zero(l, w) => {
                        out.push_str(" (zero ");
                        write_lin(out, l);
                        out.push(' ');
                        write_farkas(out, w);
                        out.push(')');
                    }
                    Rewrite::Mono(l1, l2, w) => {
                        out.push_str(" (mono ");
                        write_lin(out, l1);
                        out.push(' ');
                        write_lin(out, l2);
                        out.push(' ');
                        write_farkas(out, w);
                        out.push(')');
                    }
                }
            }
            out.push(')');
        }
    }
}

/// Largest indentation of a derivation line (the format is line-insensitive).
const MAX_INDENT: usize = 32;
const SPACES: &str = "                                ";

fn node_s(n: &Node, indent: usize, out: &mut String, memo: &mut Memo) {
    // indentation is capped (deeply nested derivations would otherwise be mostly spaces)
    let pad = &SPACES[..indent.min(MAX_INDENT)];
    out.push_str(pad);
    out.push('(');
    out.push_str(n.rule);
    match &n.judgment {
        Judgment::Stmt { pre, post } => {
            out.push('\n');
            out.push_str(pad);
            out.push_str("  (pre ");
            write_assn(out, pre, memo);
            out.push_str(")\n");
            out.push_str(pad);
            out.push_str("  (post ");
            write_assn(out, post, memo);
            out.push(')');
        }
        Judgment::Expr { cost } => {
            out.push_str(" (cost ");
            write_q(out, cost);
            out.push(')');
        }
    }
    for f in &n.fields {
        out.push('\n');
        out.push_str(pad);
        out.push_str("  ");
        write_field(out, f);
    }
    for c in &n.children {
        out.push('\n');
        node_s(c, indent + 2, out, memo);
    }
    out.push(')');
}

/// The `(assumptions …)` section of format version 2 (spec/certificate.md "Assumptions"):
/// the eight assumptions of every claim, `aligned` listing every array and `no-alias` every
/// global array of `prog`, in declaration order.
fn write_assumptions(s: &mut String, prog: &Program) {
    let names = |global_only: bool| {
        prog.arrays
            .iter()
            .filter(|a| !global_only || a.space == Space::Global)
            .map(|a| format!(" {}", a.name))
            .collect::<String>()
    };
    let _ = writeln!(
        s,
        "(assumptions (terminates) (no-runtime-error) (no-overflow) (aligned{}) (no-alias{}) (race-free) (atomics-unserialized) (warp-alone))",
        names(false),
        names(true)
    );
}

/// Writes the certificate text for the claim "per warp, the cost of `prog` under `metric`
/// with hardware `hw` and block `launch.block` is at most the root potential", with the
/// derivation `root` (whose `pre` potential is the bound). The output is version 2 of
/// `spec/certificate.md` without a provenance section ([`super::provenance`] adds it);
/// the function is total and deterministic.
pub fn write(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    root: &Node,
) -> String {
    let mut s = String::from("warpcert-certificate 2\n");
    let _ = writeln!(s, "(metric {})", metric.name.as_str());
    let _ = writeln!(
        s,
        "(hardware {} {} {} {})",
        hw.warp_size, hw.banks, hw.bank_bytes, hw.sector_bytes
    );
    let _ = writeln!(
        s,
        "(launch {} {} {})",
        launch.block[0], launch.block[1], launch.block[2]
    );
    write_assumptions(&mut s, prog);
    s.push_str(&program_sexp(prog));
    s.push('\n');
    let bound = root.pre().map(|a| a.q.clone()).unwrap_or_else(Poly::zero);
    s.push_str("(bound ");
    write_poly(&mut s, &bound);
    s.push_str(")\n");
    s.push_str("(derivation\n");
    node_s(root, 2, &mut s, &mut Memo::default());
    s.push_str(")\n");
    s
}

/// The `(program …)` section of a certificate for `prog` (spec/certificate.md "Program"),
/// without a final newline: the text whose SHA-256 the provenance section records.
pub fn program_sexp(prog: &Program) -> String {
    let mut s = String::new();
    sexp_program(prog, &mut s);
    s.pop(); // the final newline
    s
}
