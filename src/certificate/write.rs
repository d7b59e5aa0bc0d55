//! The certificate writer (`spec/certificate.md`, version 4: shared assertions, flat
//! sequences, runs of identity witnesses). Deterministic: every map is
//! ordered (`BTreeMap`) and nodes are written in tree order.

use super::{Assn, Cg, Farkas, Field, Judgment, Node, Rewrite};
use crate::core::assertion::linear::{fmt_q, CKind, Cstr, Dep, DepMap, EntryKind, Lin};
use crate::core::assertion::poly::{Atom, Poly};
use crate::core::metric::Q;
use crate::core::print::sexp_program_in;
use crate::core::{Hardware, Launch, Metric, Program, Space};
use num_traits::{One, ToPrimitive};
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
            out.push(' ');
            write_atom(out, a);
        }
        out.push(')');
    }
    out.push(')');
}

/// `(cg (cut (I λ) …) … FARKAS)`.
fn write_cg(out: &mut String, cg: &Cg) {
    out.push_str("(cg");
    for c in &cg.cuts {
        out.push_str(" (cut");
        for (i, l) in &c.0 {
            let _ = write!(out, " ({i} ");
            write_q(out, l);
            out.push(')');
        }
        out.push(')');
    }
    out.push(' ');
    write_farkas(out, &cg.farkas);
    out.push(')');
}

/// `(max0 LIN)` or `(floor LIN C)` (spec/certificate.md, "Floor atoms").
fn write_atom(out: &mut String, a: &Atom) {
    match a {
        Atom::Max0(l) => {
            out.push_str("(max0 ");
            write_lin(out, l);
        }
        Atom::Floor(l, d) => {
            out.push_str("(floor ");
            write_lin(out, l);
            let _ = write!(out, " {d}");
        }
    }
    out.push(')');
}

/// The `(assertions …)` table of format 3 (spec/certificate.md "Shared assertions"): each
/// `P` list and `D` map (by the address of the shared value: nodes share them) and each
/// assertion is defined once, a `P`/`D` preferably as a change of the one defined before it.
#[derive(Default)]
struct Table {
    /// The table's text (its entries, one per line).
    text: String,
    p: HashMap<usize, usize>,
    d: HashMap<usize, usize>,
    /// Assertions by their `p{P} d{D} (poly …)` text.
    a: HashMap<String, usize>,
    /// Scratch buffer for that text (no allocation when the assertion is known).
    key: String,
    /// The last `P` and `D` defined, with their numbers (bases of the next changes).
    last_p: Option<(usize, Arc<Vec<Cstr>>)>,
    last_d: Option<(usize, Arc<DepMap>)>,
    /// Numbers of the `P` and `D` entries written so far.
    np: usize,
    nd: usize,
}

fn write_dep(s: &mut String, x: &str, d: &Dep) {
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
        EntryKind::Scaled(u) => {
            let k = [0, 1, 2].map(|i| {
                if u[i] {
                    "?".to_string()
                } else {
                    d.k[i].to_string()
                }
            });
            write!(s, " (dep {x} {} {} {} {} {})", k[0], k[1], k[2], d.r, d.g)
        }
    };
}

/// `new` as `old` with the positions `drop` removed and `add` appended, when that is
/// shorter than `new` itself.
fn p_change<'n>(old: &[Cstr], new: &'n [Cstr]) -> Option<(Vec<usize>, &'n [Cstr])> {
    let (mut drop, mut j) = (Vec::new(), 0);
    for (i, c) in old.iter().enumerate() {
        if new.get(j) == Some(c) {
            j += 1;
        } else {
            drop.push(i);
        }
    }
    let add = new.get(j..).unwrap_or(&[]);
    (drop.len() + add.len() < new.len()).then_some((drop, add))
}

impl Table {
    fn p_name(&mut self, p: &Arc<Vec<Cstr>>) -> usize {
        let key = Arc::as_ptr(p) as usize;
        if let Some(&k) = self.p.get(&key) {
            return k;
        }
        if let Some((b, old)) = &self.last_p {
            if **old == **p {
                // an equal list under another address: the same name
                let b = *b;
                self.p.insert(key, b);
                return b;
            }
        }
        let k = self.np;
        self.np += 1;
        let t = &mut self.text;
        let _ = write!(t, "  (p p{k}");
        let change = self
            .last_p
            .as_ref()
            .and_then(|(b, old)| Some((*b, p_change(old, p)?)));
        let add = match change {
            Some((b, (drop, add))) => {
                let _ = write!(t, " (base p{b})");
                if !drop.is_empty() {
                    t.push_str(" (drop");
                    for i in drop {
                        let _ = write!(t, " {i}");
                    }
                    t.push(')');
                }
                add
            }
            None => &p[..],
        };
        for c in add {
            t.push(' ');
            cstr_s(c, t);
        }
        t.push_str(")\n");
        self.p.insert(key, k);
        self.last_p = Some((k, Arc::clone(p)));
        k
    }

    fn d_name(&mut self, d: &Arc<DepMap>) -> usize {
        let key = Arc::as_ptr(d) as usize;
        if let Some(&k) = self.d.get(&key) {
            return k;
        }
        if let Some((b, old)) = &self.last_d {
            if **old == **d {
                let b = *b;
                self.d.insert(key, b);
                return b;
            }
        }
        let k = self.nd;
        self.nd += 1;
        let t = &mut self.text;
        let _ = write!(t, "  (d d{k}");
        let changed: Vec<(&String, &Dep)> = match &self.last_d {
            Some((_, old)) => d.iter().filter(|(x, e)| old.get(*x) != Some(*e)).collect(),
            None => d.iter().collect(),
        };
        let dropped: Vec<&String> = match &self.last_d {
            Some((_, old)) => old.keys().filter(|x| !d.contains_key(*x)).collect(),
            None => Vec::new(),
        };
        let delta = self
            .last_d
            .as_ref()
            .map(|(b, _)| *b)
            .filter(|_| changed.len() + dropped.len() < d.len());
        if let Some(b) = delta {
            let _ = write!(t, " (base d{b})");
            if !dropped.is_empty() {
                t.push_str(" (drop");
                for x in dropped {
                    let _ = write!(t, " {x}");
                }
                t.push(')');
            }
            for (x, e) in changed {
                write_dep(t, x, e);
            }
        } else {
            for (x, e) in d.iter() {
                write_dep(t, x, e);
            }
        }
        t.push_str(")\n");
        self.d.insert(key, k);
        self.last_d = Some((k, Arc::clone(d)));
        k
    }

    /// The name of the assertion `a`, defining it (and its parts) on first use.
    fn a_name(&mut self, a: &Assn) -> usize {
        let (pk, dk) = (self.p_name(&a.p), self.d_name(&a.d));
        let mut key = std::mem::take(&mut self.key);
        key.clear();
        let _ = write!(key, "p{pk} d{dk} ");
        write_poly(&mut key, &a.q);
        let k = match self.a.get(key.as_str()) {
            Some(&k) => k,
            None => {
                let k = self.a.len();
                let _ = writeln!(self.text, "  (a a{k} {key})");
                self.a.insert(key.clone(), k);
                k
            }
        };
        self.key = key;
        k
    }
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

/// `Some(i)` when `w` is the identity witness `(farkas (i 1))`.
fn identity(w: &Farkas) -> Option<usize> {
    match w.0.as_slice() {
        [(i, l)] if l.is_one() => Some(*i),
        _ => None,
    }
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
            let mut k = 0;
            while let Some(w) = ws.get(k) {
                out.push(' ');
                match identity(w) {
                    // a run of identity witnesses `(farkas (i 1)) (farkas (i+1 1)) …` is
                    // written `(ids i j)` (format 4, spec/certificate.md "Identity runs")
                    Some(i) => {
                        let mut j = i;
                        while ws.get(k + 1).and_then(identity) == Some(j + 1) {
                            j += 1;
                            k += 1;
                        }
                        let _ = write!(out, "(ids {i} {j})");
                    }
                    None => write_farkas(out, w),
                }
                k += 1;
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
                    Rewrite::Split(l, d, w0, w) => {
                        out.push_str(" (split ");
                        write_lin(out, l);
                        out.push(' ');
                        write_lin(out, d);
                        out.push(' ');
                        write_farkas(out, w0);
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
                    Rewrite::IShift(a, d, cg) => {
                        out.push_str(" (ishift ");
                        write_atom(out, a);
                        out.push(' ');
                        write_q(out, d);
                        out.push(' ');
                        write_cg(out, cg);
                        out.push(')');
                    }
                    Rewrite::IMono(a1, a2, cg) => {
                        out.push_str(" (imono ");
                        write_atom(out, a1);
                        out.push(' ');
                        write_atom(out, a2);
                        out.push(' ');
                        write_cg(out, cg);
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

fn node_s(n: &Node, indent: usize, out: &mut String, table: &mut Table) {
    // indentation is capped (deeply nested derivations would otherwise be mostly spaces)
    let pad = &SPACES[..indent.min(MAX_INDENT)];
    out.push_str(pad);
    out.push('(');
    out.push_str(n.rule);
    match &n.judgment {
        Judgment::Stmt { pre, post } => {
            out.push(' ');
            let (a, b) = (table.a_name(pre), table.a_name(post));
            let _ = write!(out, "  (pre a{a}) (post a{b})");
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
        node_s(c, indent + 2, out, table);
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
/// derivation `root` (whose `pre` potential is the bound). The output is version 4 of
/// `spec/certificate.md` without a provenance section ([`super::provenance`] adds it);
/// the function is total and deterministic.
pub fn write(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    root: &Node,
) -> String {
    let mut s = String::from("warpcert-certificate 4\n");
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
    let mut table = Table::default();
    let mut deriv = String::from("(derivation\n");
    node_s(root, 2, &mut deriv, &mut table);
    deriv.push_str(")\n");
    s.push_str("(assertions\n");
    s.push_str(&table.text);
    s.push_str(")\n");
    s.push_str(&deriv);
    s
}

/// The `(program …)` section of a certificate for `prog` (spec/certificate.md "Program"),
/// without a final newline: the text whose SHA-256 the provenance section records.
pub fn program_sexp(prog: &Program) -> String {
    let mut s = String::new();
    sexp_program_in(prog, &mut s, true);
    s.pop(); // the final newline
    s
}
