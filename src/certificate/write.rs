//! The certificate writer (`spec/certificate.md`, version 1). Deterministic: every map is
//! ordered (`BTreeMap`) and nodes are written in tree order.

use super::{Assn, Farkas, Field, Judgment, Node, Rewrite};
use crate::analysis::linear::{fmt_q, CKind, Cstr, EntryKind, Lin};
use crate::analysis::poly::Poly;
use crate::core::print::sexp_stmt;
use crate::core::{Hardware, Launch, Metric, Program};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

fn lin_s(l: &Lin) -> String {
    let mut s = format!("(lin {}", fmt_q(&l.c));
    for (v, a) in &l.terms {
        let _ = write!(s, " ({} {v})", fmt_q(a));
    }
    s.push(')');
    s
}

fn cstr_s(c: &Cstr) -> String {
    match &c.kind {
        CKind::Le => format!("(le {})", lin_s(&c.lin)),
        CKind::Eq => format!("(eq {})", lin_s(&c.lin)),
        CKind::Mod(m, rs) => {
            let mut s = format!("(mod {} {m}", lin_s(&c.lin));
            for r in rs {
                let _ = write!(s, " {r}");
            }
            s.push(')');
            s
        }
    }
}

/// `(poly TERM ...)` with terms `(C ATOM ...)` in canonical order.
pub fn poly_s(p: &Poly) -> String {
    let mut s = String::from("(poly");
    for (m, c) in &p.terms {
        let _ = write!(s, " ({}", fmt_q(c));
        for a in m {
            let _ = write!(s, " (max0 {})", lin_s(a));
        }
        s.push(')');
    }
    s.push(')');
    s
}

/// The printed `(P …)` and `(D …)` parts, by the address of the shared list/map (nodes
/// share them: a sequence's pre is its first statement's): each is printed once.
#[derive(Default)]
struct Memo {
    p: HashMap<usize, String>,
    d: HashMap<usize, String>,
}

fn assn_s(a: &Assn, memo: &mut Memo) -> String {
    let ps = memo
        .p
        .entry(Arc::as_ptr(&a.p) as usize)
        .or_insert_with(|| {
            let mut s = String::from("(P");
            for c in a.p.iter() {
                s.push(' ');
                s.push_str(&cstr_s(c));
            }
            s.push(')');
            s
        })
        .clone();
    let ds = memo
        .d
        .entry(Arc::as_ptr(&a.d) as usize)
        .or_insert_with(|| {
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
        })
        .clone();
    format!("(assn {ps} {ds} (Q {}))", poly_s(&a.q))
}

fn farkas_s(f: &Farkas) -> String {
    let mut s = String::from("(farkas");
    for (i, l) in &f.0 {
        let _ = write!(s, " ({i} {})", fmt_q(l));
    }
    s.push(')');
    s
}

fn field_s(f: &Field) -> String {
    match f {
        Field::N(n) => format!("(n {n})"),
        Field::Frame(c) => format!("(frame {})", fmt_q(c)),
        Field::Entail(name, ws) => {
            let mut s = format!("(entail {name}");
            for w in ws {
                s.push(' ');
                s.push_str(&farkas_s(w));
            }
            s.push(')');
            s
        }
        Field::Rewrite(name, rws) => {
            let mut s = format!("(rewrite {name}");
            for rw in rws {
                match rw {
                    Rewrite::Shift(l, d, w) => {
                        let _ = write!(s, " (shift {} {} {})", lin_s(l), fmt_q(d), farkas_s(w));
                    }
                    Rewrite::Zero(l, w) => {
                        let _ = write!(s, " (zero {} {})", lin_s(l), farkas_s(w));
                    }
                    Rewrite::Mono(l1, l2, w) => {
                        let _ = write!(s, " (mono {} {} {})", lin_s(l1), lin_s(l2), farkas_s(w));
                    }
                }
            }
            s.push(')');
            s
        }
    }
}

/// Largest indentation of a derivation line (the format is line-insensitive).
const MAX_INDENT: usize = 32;

fn node_s(n: &Node, indent: usize, out: &mut String, memo: &mut Memo) {
    // indentation is capped (deeply nested derivations would otherwise be mostly spaces)
    let pad = " ".repeat(indent.min(MAX_INDENT));
    let _ = write!(out, "{pad}({}", n.rule);
    match &n.judgment {
        Judgment::Stmt { pre, post } => {
            let _ = write!(out, "\n{pad}  (pre {})", assn_s(pre, memo));
            let _ = write!(out, "\n{pad}  (post {})", assn_s(post, memo));
        }
        Judgment::Expr { cost } => {
            let _ = write!(out, " (cost {})", fmt_q(cost));
        }
    }
    for f in &n.fields {
        let _ = write!(out, "\n{pad}  {}", field_s(f));
    }
    for c in &n.children {
        out.push('\n');
        node_s(c, indent + 2, out, memo);
    }
    out.push(')');
}

/// Writes the certificate text for the claim "per warp, the cost of `prog` under `metric`
/// with hardware `hw` and block `launch.block` is at most the root potential", with the
/// derivation `root` (whose `pre` potential is the bound). The output is version 1 of
/// `spec/certificate.md`; the function is total and deterministic.
pub fn write(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    root: &Node,
) -> String {
    let mut s = String::from("warpcert-certificate 1\n");
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
    let _ = writeln!(s, "(program {}", prog.name);
    s.push_str("  (params");
    for p in &prog.params {
        let _ = write!(s, " ({} {})", p.ty.keyword(), p.name);
    }
    s.push_str(")\n  (arrays");
    for a in &prog.arrays {
        let _ = write!(
            s,
            " ({} {} {} {})",
            a.name,
            a.space.keyword(),
            a.elem.keyword(),
            a.elem_bytes
        );
    }
    s.push_str(")\n  (locals");
    for (x, t) in &prog.locals {
        let _ = write!(s, " ({} {x})", t.keyword());
    }
    s.push_str(")\n  (body\n");
    sexp_stmt(&prog.body, 4, &mut s);
    s.push_str("  ))\n");
    let bound = root.pre().map(|a| a.q.clone()).unwrap_or_else(Poly::zero);
    let _ = writeln!(s, "(bound {})", poly_s(&bound));
    s.push_str("(derivation\n");
    node_s(root, 2, &mut s, &mut Memo::default());
    s.push_str(")\n");
    s
}
