//! The certificate writer (`spec/certificate.md`, version 6: shared assertions, flat
//! sequences, runs of identity witnesses, implicit Q:SEQ pres and expression costs,
//! implicit expression derivations `_`, default `Q:VWRITE` post witnesses, bare bases,
//! base-36 names, no indentation). Deterministic: every map is ordered (`BTreeMap`) and
//! nodes are written in tree order.

use super::{Assn, Cg, Farkas, Field, Judgment, Node, Rewrite};
use crate::core::assertion::linear::{fmt_q, CKind, Cstr, Dep, DepMap, EntryKind, Lin};
use crate::core::assertion::poly::{Atom, Poly};
use crate::core::metric::Q;
use crate::core::print::sexp_program_in;
use crate::core::{Hardware, Launch, Metric, Program, Space};
use num_traits::ToPrimitive;
use rustc_hash::{FxHashMap as HashMap, FxHasher};
use std::fmt::Write;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Writes `n` in decimal, as its `Display` does (issue 13: without the formatting
/// machinery, which was a tenth of the writer's time).
fn push_int(out: &mut String, n: i64) {
    if (0..10).contains(&n) {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut k = n.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (k % 10) as u8;
        k /= 10;
        if k == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    for &b in &buf[i..] {
        out.push(char::from(b));
    }
}

/// ` N` for each integer `N` of `ns`.
fn push_ints(out: &mut String, ns: &[i64]) {
    for &n in ns {
        out.push(' ');
        push_int(out, n);
    }
}

/// Writes a rational as `n` or `p/q` (the text of [`fmt_q`], without its allocations for
/// numbers that fit in `i64`).
fn write_q(out: &mut String, x: &Q) {
    match (x.numer().to_i64(), x.denom().to_i64()) {
        (Some(n), Some(1)) => push_int(out, n),
        (Some(n), Some(d)) => {
            push_int(out, n);
            out.push('/');
            push_int(out, d);
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

/// A linear constraint as the certificate's `(le LIN)`/`(eq LIN)`/`(mod …)` s-expression
/// (a lower certificate's `(hyp …)`, spec/certificate.md).
pub fn cstr_sexp(c: &Cstr) -> String {
    let mut out = String::new();
    cstr_s(c, &mut out);
    out
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
    write_terms(out, p, usize::MAX);
    out.push(')');
}

/// The terms ` (C ATOM ...)` of `p` in canonical order; the writing stops before a term
/// once `out` is longer than `limit` bytes (the text is then only known to be longer).
fn write_terms(out: &mut String, p: &Poly, limit: usize) {
    for (m, c) in &p.terms {
        if out.len() > limit {
            break;
        }
        out.push_str(" (");
        write_q(out, c);
        for a in m {
            out.push(' ');
            write_atom(out, a);
        }
        out.push(')');
    }
}

/// `(cg (cut (I λ) …) … FARKAS)`.
fn write_cg(out: &mut String, cg: &Cg) {
    out.push_str("(cg");
    for c in &cg.cuts {
        out.push_str(" (cut");
        for (i, l) in c.terms() {
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

/// `(max0 LIN)`, `(floor LIN C)` or `(log2 LIN)` (spec/certificate.md, "Floor atoms",
/// "Log atoms").
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
        Atom::Log(l) => {
            out.push_str("(log2 ");
            write_lin(out, l);
        }
        // spec/certificate.md `(floors LIN DLIN)`
        Atom::FloorSym(l, d) => {
            out.push_str("(floors ");
            write_lin(out, l);
            out.push(' ');
            write_lin(out, d);
        }
        Atom::LogQ(l, m) => {
            out.push_str("(log2q ");
            write_lin(out, l);
            out.push(' ');
            write_lin(out, m);
        }
        Atom::Res(l, m) => {
            out.push_str("(ndvd ");
            write_lin(out, l);
            let _ = write!(out, " {m}");
        }
        Atom::Win(l, m, w) => {
            out.push_str("(inwin ");
            write_lin(out, l);
            let _ = write!(out, " {m} {w}");
        }
    }
    out.push(')');
}

/// The name of the `k`-th table entry of a kind: `k` in base 36 (`0`–`9`, `a`–`z`; format
/// 6 writes names without a kind prefix, spec/certificate.md "Implicit expressions, default
/// witnesses": each kind has its own names).
struct Name(usize);

impl Name {
    /// Appends the name to `out` (without the formatting machinery, issue 13).
    fn push(&self, out: &mut String) {
        const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
        let (mut k, mut buf, mut i) = (self.0, [0u8; 16], 16);
        loop {
            i -= 1;
            buf[i] = DIGITS[k % 36];
            k /= 36;
            if k == 0 {
                break;
            }
        }
        for &b in &buf[i..] {
            out.push(char::from(b));
        }
    }
}

/// How many of the latest `P` (and `D`) entries are tried as the base of a new one.
const BASES: usize = 8;

/// The `(assertions …)` table of format 3 (spec/certificate.md "Shared assertions"): each
/// `P` list and `D` map (by the address of the shared value: nodes share them, and by its
/// content: an equal list or map built elsewhere gets the same name) and each assertion is
/// defined once, a `P`/`D` preferably as a change of one of the [`BASES`] defined last
/// (the one whose change has the fewest parts). Contents are looked up by a hash and
/// compared in full on a hit (never by their text: formatting every new value's full text
/// was a fifth of the writer's time, issue 13).
/// Values with the number of their table entry, under one hash.
type Numbered<T> = Vec<(usize, T)>;

#[derive(Default)]
struct Table<'n> {
    /// The table's text (its entries, one per line).
    text: String,
    p: HashMap<usize, usize>,
    d: HashMap<usize, usize>,
    /// `P` lists and `D` maps by the hash of their content: (number, value) for each.
    p_hash: HashMap<u64, Numbered<Arc<Vec<Cstr>>>>,
    d_hash: HashMap<u64, Numbered<Arc<DepMap>>>,
    /// Assertions by `(P number, D number, hash of Q)`: (number, Q) for each.
    a: HashMap<(usize, usize, u64), Numbered<&'n Poly>>,
    /// Number of assertions defined.
    na: usize,
    /// Distinct potentials by their hash: (number of the first assertion with it, potential).
    q: HashMap<u64, Numbered<&'n Poly>>,
    /// The potentials of the latest assertions defined (at most [`BASES`]), with their
    /// numbers: the candidate bases of the next one's (format 6), newest last.
    last_a: Vec<(usize, &'n Poly)>,
    /// The latest `P` and `D` defined (at most [`BASES`]), with their numbers (and, for a
    /// `P`, the hash of each constraint): the candidate bases of the next changes, newest
    /// last.
    last_p: Vec<(usize, Arc<Vec<Cstr>>, Vec<u64>)>,
    last_d: Vec<(usize, Arc<DepMap>)>,
    /// Numbers of the `P` and `D` entries written so far.
    np: usize,
    nd: usize,
    /// The hash of each potential by the address of its shared terms (potentials along a
    /// derivation share them: hashed once; the derivation outlives the table, so an
    /// address names one map throughout).
    qh: HashMap<usize, u64>,
}

/// The hash of `x` (FxHash: deterministic, and cheaper than SipHash, issue 13).
fn hash_of<T: Hash + ?Sized>(x: &T) -> u64 {
    let mut h = FxHasher::default();
    x.hash(&mut h);
    h.finish()
}

/// Hashes a rational by its numerator and denominator (`num_rational`'s own `Hash` expands
/// the value into a continued fraction, one big-integer division per step: a tenth of
/// the writer's time, issue 13). Equal normalized rationals hash equally; a miss on an
/// unnormalized one only loses a sharing (lookups compare in full).
fn hash_q<H: Hasher>(q: &Q, h: &mut H) {
    q.numer().hash(h);
    q.denom().hash(h);
}

fn hash_lin<H: Hasher>(l: &Lin, h: &mut H) {
    hash_q(&l.c, h);
    for (v, a) in l.terms.iter() {
        v.hash(h);
        hash_q(a, h);
    }
}

/// The hash of a constraint (as [`hash_of`], coefficients by [`hash_q`]). A `P` list is
/// hashed as the list of its constraints' hashes, which also compare it with the candidate
/// bases of a change ([`p_change`]) without reading the constraints again (issue 13: the
/// writer's time was mostly in reading the fresh lists of the analysis).
fn hash_cstr(c: &Cstr) -> u64 {
    let mut h = FxHasher::default();
    c.kind.hash(&mut h);
    hash_lin(&c.lin, &mut h);
    h.finish()
}

/// The hash of a potential (as [`hash_of`], coefficients by [`hash_q`]).
fn hash_poly(q: &Poly) -> u64 {
    let mut h = FxHasher::default();
    for (m, c) in q.terms.iter() {
        m.len().hash(&mut h);
        for a in m {
            match a {
                Atom::Max0(l) => {
                    0u8.hash(&mut h);
                    hash_lin(l, &mut h);
                }
                Atom::Floor(l, d) => {
                    1u8.hash(&mut h);
                    hash_lin(l, &mut h);
                    d.hash(&mut h);
                }
                Atom::Log(l) => {
                    2u8.hash(&mut h);
                    hash_lin(l, &mut h);
                }
                Atom::LogQ(l, m) => {
                    3u8.hash(&mut h);
                    hash_lin(l, &mut h);
                    hash_lin(m, &mut h);
                }
                Atom::Res(l, m) => {
                    4u8.hash(&mut h);
                    hash_lin(l, &mut h);
                    m.hash(&mut h);
                }
                Atom::Win(l, m, w) => {
                    5u8.hash(&mut h);
                    hash_lin(l, &mut h);
                    m.hash(&mut h);
                    w.hash(&mut h);
                }
                Atom::FloorSym(l, d) => {
                    6u8.hash(&mut h);
                    hash_lin(l, &mut h);
                    hash_lin(d, &mut h);
                }
            }
        }
        hash_q(c, &mut h);
    }
    h.finish()
}

fn write_dep(s: &mut String, x: &str, d: &Dep) {
    let head = match d.kind {
        EntryKind::Rng => " (rng ",
        EntryKind::Wrap => " (wrap ",
        EntryKind::Rem => " (rem ",
        EntryKind::Linear | EntryKind::Scaled(_) => " (dep ",
    };
    s.push_str(head);
    s.push_str(x);
    match d.kind {
        EntryKind::Rng => push_ints(s, &[d.g]),
        EntryKind::Wrap => push_ints(s, &[d.k[0], d.k[1], d.k[2], d.g]),
        EntryKind::Rem | EntryKind::Linear => {
            push_ints(s, &[d.k[0], d.k[1], d.k[2], d.r, d.g]);
        }
        EntryKind::Scaled(u) => {
            for (&unknown, &k) in u.iter().zip(&d.k) {
                if unknown {
                    match d.mul {
                        Some(m) => s.push_str(&format!(
                            " (? {} {} {})",
                            crate::core::assertion::param_name(m.param),
                            m.a,
                            m.b
                        )),
                        None => s.push_str(" ?"),
                    }
                } else {
                    push_ints(s, &[k]);
                }
            }
            push_ints(s, &[d.r, d.g]);
        }
    }
    s.push(')');
}

/// `new` as `old` with the positions `drop` removed and the items from `j` on appended
/// (`(drop, j)`), when that has fewer parts than `new` itself. Items are compared with `eq`
/// (constraints, or their hashes: a match by hash is confirmed on the constraints before
/// it is written, [`Table::p_name`]).
fn p_change<T>(old: &[T], new: &[T], eq: impl Fn(&T, &T) -> bool) -> Option<(Vec<usize>, usize)> {
    let (mut drop, mut j) = (Vec::new(), 0);
    for (i, c) in old.iter().enumerate() {
        if new.get(j).is_some_and(|x| eq(x, c)) {
            j += 1;
        } else {
            drop.push(i);
        }
    }
    (drop.len() + new.len() - j < new.len()).then_some((drop, j))
}

/// The text of a `p` entry's body after its name: ` B (drop I …) CSTR …` for a change of
/// base `B` (a bare base, format 6), or ` CSTR …`; the writing stops after the first constraint that
/// takes the text past `limit` bytes (the text is then only known to be longer).
fn p_body(base: Option<(usize, &[usize])>, add: &[Cstr], limit: usize) -> String {
    let mut t = String::with_capacity(64);
    if let Some((b, drop)) = base {
        t.push(' ');
        Name(b).push(&mut t);
        if !drop.is_empty() {
            t.push_str(" (drop");
            for &i in drop {
                t.push(' ');
                push_int(&mut t, i as i64);
            }
            t.push(')');
        }
    }
    for c in add {
        if t.len() > limit {
            break;
        }
        t.push(' ');
        cstr_s(c, &mut t);
    }
    t
}

/// The text of a `d` entry's body after its name: ` B (drop X …) DEP …` for the
/// change of `d` from the base `(B, old)`, or ` DEP …`; without a base, the writing stops
/// after the first entry that takes the text past `limit` bytes.
fn d_body(base: Option<(usize, &DepMap)>, d: &DepMap, limit: usize) -> String {
    let mut t = String::with_capacity(64);
    match base {
        Some((b, old)) => {
            t.push(' ');
            Name(b).push(&mut t);
            // one merge of the two sorted maps (issue 13: a lookup per entry in each
            // direction): the keys of `old` that `d` lacks, and the entries of `d` absent
            // from `old` or with another value there, each in key order
            let mut dropped: Vec<&String> = Vec::new();
            let mut changed: Vec<(&String, &Dep)> = Vec::new();
            let (mut a, mut n) = (old.iter().peekable(), d.iter().peekable());
            loop {
                let ord = match (a.peek(), n.peek()) {
                    (None, None) => break,
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (Some((x, _)), Some((y, _))) => x.cmp(y),
                };
                match ord {
                    std::cmp::Ordering::Less => dropped.extend(a.next().map(|(x, _)| x)),
                    std::cmp::Ordering::Greater => changed.extend(n.next()),
                    std::cmp::Ordering::Equal => {
                        if let (Some((_, e)), Some((y, f))) = (a.next(), n.next()) {
                            if e != f {
                                changed.push((y, f));
                            }
                        }
                    }
                }
            }
            if !dropped.is_empty() {
                t.push_str(" (drop");
                for x in dropped {
                    t.push(' ');
                    t.push_str(x);
                }
                t.push(')');
            }
            for (x, e) in changed {
                write_dep(&mut t, x, e);
            }
        }
        None => {
            for (x, e) in d.iter() {
                if t.len() > limit {
                    break;
                }
                write_dep(&mut t, x, e);
            }
        }
    }
    t
}

/// The weight of the change from the sorted map `old` to `new`: `weight(k)` summed over
/// the keys `k` of `old` that `new` lacks (`dropped`) and the keys of `new` absent from
/// `old` or with another value there. One merge of the two sorted maps (issue 13: a lookup
/// per entry in each direction was a tenth of the writer's time). The merge stops once the
/// weight reaches `limit` (the result is then some weight `≥ limit`: the change is known
/// to be no better than one of weight `limit`).
fn diff_weight<'a, K: Ord + 'a, V: PartialEq + 'a>(
    old: impl Iterator<Item = (&'a K, &'a V)>,
    new: impl Iterator<Item = (&'a K, &'a V)>,
    dropped: impl Fn(&K) -> usize,
    changed: impl Fn(&K) -> usize,
    limit: usize,
) -> usize {
    let (mut a, mut b) = (old.peekable(), new.peekable());
    let mut w = 0;
    while w < limit {
        match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some((x, _)), None) => {
                w += dropped(x);
                a.next();
            }
            (None, Some((y, _))) => {
                w += changed(y);
                b.next();
            }
            (Some((x, e)), Some((y, f))) => match x.cmp(y) {
                std::cmp::Ordering::Less => {
                    w += dropped(x);
                    a.next();
                }
                std::cmp::Ordering::Greater => {
                    w += changed(y);
                    b.next();
                }
                std::cmp::Ordering::Equal => {
                    if e != f {
                        w += changed(y);
                    }
                    a.next();
                    b.next();
                }
            },
        }
    }
    w
}

/// The weight of the change from `old` to `d`: the entries of `old` dropped, plus four
/// for each entry of `d` added or changed (a changed entry weighs as about four dropped
/// names); as [`diff_weight`], a weight `≥ limit` once it reaches `limit`.
fn d_change_weight(old: &DepMap, d: &DepMap, limit: usize) -> usize {
    diff_weight(old.iter(), d.iter(), |_| 1, |_| 4, limit)
}

/// The weight of the change from the potential `old` to `q` (the terms of the difference
/// a format 6 `a` entry writes): a constant term weighs 1, a term with atoms 1 + 8 per
/// atom (about the bytes of its text over ten); as [`diff_weight`], a weight `≥ limit` once
/// it reaches `limit`.
fn q_change_weight(old: &Poly, q: &Poly, limit: usize) -> usize {
    let w = |m: &Vec<Atom>| 1 + 8 * m.len();
    diff_weight(old.terms.iter(), q.terms.iter(), w, w, limit)
}

/// Keeps the latest [`BASES`] entries of `v`, newest last.
fn remember<T>(v: &mut Vec<T>, x: T) {
    if v.len() == BASES {
        v.remove(0);
    }
    v.push(x);
}

impl<'n> Table<'n> {
    fn p_name(&mut self, p: &Arc<Vec<Cstr>>) -> usize {
        let key = Arc::as_ptr(p) as usize;
        if let Some(&k) = self.p.get(&key) {
            return k;
        }
        let hs: Vec<u64> = p.iter().map(hash_cstr).collect();
        let h = hash_of(&hs);
        let same = self
            .p_hash
            .get(&h)
            .and_then(|v| v.iter().find(|(_, q)| q == p));
        if let Some(&(k, _)) = same {
            // an equal list under another address: the same name
            self.p.insert(key, k);
            return k;
        }
        let k = self.np;
        self.np += 1;
        // the change from the latest entries with the fewest dropped positions and added
        // constraints (an added constraint weighs as about ten positions; newest first on
        // ties), found on the constraints' hashes, confirmed on the constraints, and
        // written only if its text is shorter than the full list's
        let best = self
            .last_p
            .iter()
            .rev()
            .filter_map(|(b, old, old_h)| Some((*b, old, p_change(old_h, &hs, |x, y| x == y)?)))
            .min_by_key(|(_, _, (drop, j))| drop.len() + 10 * (p.len() - j))
            .and_then(|(b, old, _)| Some((b, p_change(old, p, |x, y| x == y)?)));
        let body = match best {
            Some((b, (drop, j))) => {
                let delta = p_body(Some((b, &drop)), &p[j..], usize::MAX);
                let full = p_body(None, p, delta.len());
                if delta.len() < full.len() {
                    delta
                } else {
                    full
                }
            }
            None => p_body(None, p, usize::MAX),
        };
        self.text.push_str("(p ");
        Name(k).push(&mut self.text);
        self.text.push_str(&body);
        self.text.push_str(")\n");
        self.p.insert(key, k);
        self.p_hash.entry(h).or_default().push((k, Arc::clone(p)));
        remember(&mut self.last_p, (k, Arc::clone(p), hs));
        k
    }

    fn d_name(&mut self, d: &Arc<DepMap>) -> usize {
        let key = Arc::as_ptr(d) as usize;
        if let Some(&k) = self.d.get(&key) {
            return k;
        }
        let h = hash_of(&**d);
        let same = self
            .d_hash
            .get(&h)
            .and_then(|v| v.iter().find(|(_, e)| e == d));
        if let Some(&(k, _)) = same {
            self.d.insert(key, k);
            return k;
        }
        let k = self.nd;
        self.nd += 1;
        // the change from the latest entries with the fewest dropped and changed entries
        // (a changed entry weighs as about four dropped names; newest first on ties),
        // written only if its text is shorter than the full map's
        // (a base's weight is computed only as far as it could still be the best)
        let mut best: Option<(usize, &(usize, Arc<DepMap>))> = None;
        for e in self.last_d.iter().rev() {
            let w = d_change_weight(&e.1, d, best.map_or(usize::MAX, |(bw, _)| bw));
            if best.is_none_or(|(bw, _)| w < bw) {
                best = Some((w, e));
            }
        }
        let best = best.map(|(_, e)| e);
        let body = match best {
            Some((b, old)) => {
                let delta = d_body(Some((*b, old)), d, usize::MAX);
                let full = d_body(None, d, delta.len());
                if delta.len() < full.len() {
                    delta
                } else {
                    full
                }
            }
            None => d_body(None, d, usize::MAX),
        };
        self.text.push_str("(d ");
        Name(k).push(&mut self.text);
        self.text.push_str(&body);
        self.text.push_str(")\n");
        self.d.insert(key, k);
        self.d_hash.entry(h).or_default().push((k, Arc::clone(d)));
        remember(&mut self.last_d, (k, Arc::clone(d)));
        k
    }

    /// The name of the assertion `a`, defining it (and its parts) on first use.
    fn a_name(&mut self, a: &'n Assn) -> usize {
        let (pk, dk) = (self.p_name(&a.p), self.d_name(&a.d));
        let hq = *self
            .qh
            .entry(a.q.terms.addr())
            .or_insert_with(|| hash_poly(&a.q));
        let key = (pk, dk, hq);
        let same = self
            .a
            .get(&key)
            .and_then(|v| v.iter().find(|(_, q)| **q == a.q));
        if let Some(&(k, _)) = same {
            return k;
        }
        let k = self.na;
        self.na += 1;
        self.text.push_str("(a ");
        Name(k).push(&mut self.text);
        self.text.push(' ');
        Name(pk).push(&mut self.text);
        self.text.push(' ');
        Name(dk).push(&mut self.text);
        // the potential, or (format 6) its change from an earlier one's when that is
        // shorter: an equal potential's (no terms), else the one of the latest [`BASES`]
        // whose difference has the fewest and shortest terms (newest first on ties)
        let equal = self
            .q
            .get(&key.2)
            .and_then(|v| v.iter().find(|(_, q)| **q == a.q))
            .map(|&(b, _)| b);
        let delta = match equal {
            Some(b) => {
                let mut t = String::from(" ");
                Name(b).push(&mut t);
                Some(t)
            }
            None => {
                // newest first; a change of the constant alone (weight 1) is not bettered
                let mut best: Option<(usize, usize, &Poly)> = None;
                for &(b, old) in self.last_a.iter().rev() {
                    let w = q_change_weight(old, &a.q, best.map_or(usize::MAX, |(bw, _, _)| bw));
                    if best.is_none_or(|(bw, _, _)| w < bw) {
                        best = Some((w, b, old));
                    }
                    if w <= 1 {
                        break;
                    }
                }
                best.map(|(_, b, old)| {
                    let mut t = String::from(" ");
                    Name(b).push(&mut t);
                    write_terms(
                        &mut t,
                        &a.q.plus(&old.scaled(&-<Q as num_traits::One>::one())),
                        usize::MAX,
                    );
                    t
                })
            }
        };
        // the full potential, written only as far as needed to know it is longer
        let mut full = String::from(" (poly");
        write_terms(
            &mut full,
            &a.q,
            delta.as_ref().map_or(usize::MAX, String::len),
        );
        full.push(')');
        match delta {
            Some(t) if t.len() < full.len() => self.text.push_str(&t),
            _ => self.text.push_str(&full),
        }
        self.text.push_str(")\n");
        if equal.is_none() {
            self.q.entry(key.2).or_default().push((k, &a.q));
        }
        remember(&mut self.last_a, (k, &a.q));
        self.a.entry(key).or_default().push((k, &a.q));
        k
    }
}

fn write_farkas(out: &mut String, f: &Farkas) {
    out.push_str("(farkas");
    for (i, l) in f.terms() {
        out.push_str(" (");
        push_int(out, i as i64);
        out.push(' ');
        write_q(out, l);
        out.push(')');
    }
    out.push(')');
}

/// `Some(i)` when `w` is the identity witness `(farkas (i 1))`.
fn identity(w: &Farkas) -> Option<usize> {
    w.identity()
}

fn write_field(out: &mut String, f: &Field) {
    match f {
        Field::N(n) => {
            let _ = write!(out, "(n {n})");
        }
        Field::Lanes(a, b) => {
            let _ = write!(out, "(lanes {a} {b})");
        }
        Field::Lane(a) => {
            let _ = write!(out, "(lanes {a})");
        }
        Field::Class(s, m) => {
            let _ = write!(out, "(class {s} {m})");
        }
        Field::Rows(ts) => {
            out.push_str("(rows");
            for (c, m) in ts {
                let _ = write!(out, " ({c} {m})");
            }
            out.push(')');
        }
        Field::Guard(i, div, ts) => {
            let _ = write!(out, "(guard {i} {div}");
            for (c, t) in ts {
                let _ = write!(out, " ({c} {t})");
            }
            out.push(')');
        }
        Field::Frame(c) => {
            out.push_str("(frame ");
            write_q(out, c);
            out.push(')');
        }
        Field::Entail(name, ws) => {
            out.push_str("(entail ");
            out.push_str(name);
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
                        out.push_str("(ids");
                        push_ints(out, &[i as i64, j as i64]);
                        out.push(')');
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
                    Rewrite::IZero(a, cg) => {
                        out.push_str(" (izero ");
                        write_atom(out, a);
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
                    Rewrite::LHalve(l, w) => {
                        out.push_str(" (lhalve ");
                        write_lin(out, l);
                        out.push(' ');
                        write_farkas(out, w);
                        out.push(')');
                    }
                    Rewrite::LDouble(l, m, w1, w2) => {
                        out.push_str(" (ldouble ");
                        write_lin(out, l);
                        out.push(' ');
                        write_lin(out, m);
                        out.push(' ');
                        write_farkas(out, w1);
                        out.push(' ');
                        write_farkas(out, w2);
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

/// Whether the expression node `n` is the canonical derivation of its expression, which
/// format 6 writes `_` (spec/certificate.md "Implicit expressions, default witnesses"): an
/// `OQ:*` leaf, or `EQ:OP`/`EQ:UOP`/`EQ:LARRAY` without fields over canonical children.
/// (The kernel picks the rule by the expression's syntax; a node it would not pick is
/// rejected there, as when written.)
fn canonical(n: &Node) -> bool {
    let leaf = matches!(n.rule, "OQ:VAR" | "OQ:TID" | "OQ:CONST" | "OQ:PARAM");
    let inner = matches!(n.rule, "EQ:OP" | "EQ:UOP" | "EQ:LARRAY");
    matches!(n.judgment, Judgment::Expr { .. })
        && n.fields.is_empty()
        && (leaf && n.children.is_empty() || inner && n.children.iter().all(canonical))
}

/// Whether `f` is the `(entail post …)` list format 6 leaves out of a `Q:VWRITE1/2`,
/// `L:VWRITE1/2` node with pre `pre` and post `post`: the `|P'|` witnesses `(farkas (i 1))`
/// for `i < min(|P|, |P'|)`, then `(farkas)` (spec/certificate.md "Implicit expressions,
/// default witnesses"), which the kernel's reader fills in.
fn default_post(rule: &str, f: &Field, pre: &Assn, post: &Assn) -> bool {
    let vwrite = matches!(rule, "Q:VWRITE1" | "Q:VWRITE2" | "L:VWRITE1" | "L:VWRITE2");
    let Field::Entail("post", ws) = f else {
        return false;
    };
    let k = pre.p.len().min(post.p.len());
    vwrite
        && ws.len() == post.p.len()
        && ws.iter().enumerate().all(|(i, w)| {
            if i < k {
                identity(w) == Some(i)
            } else {
                w.terms().next().is_none()
            }
        })
}

/// Writes the derivation node `n`: a statement node starts a line, its fields and
/// expression children follow on the same line, its statement children on the next lines;
/// an expression node and its subtree are one line's tail. (The format is
/// line-insensitive: the layout only keeps the text small and readable, one line per
/// statement node, without indentation.) Format 5 leaves out what the kernel fills in:
/// the pre of a `Q:SEQ` child (`in_seq`: the parent's pre or the previous child's post,
/// which Q:SEQ requires it to be) and every expression node's cost (the kernel recomputes
/// it); format 6 also a canonical expression derivation ([`canonical`], written `_`) and a
/// default `(entail post …)` list ([`default_post`]).
fn node_s<'n>(n: &'n Node, in_seq: bool, out: &mut String, table: &mut Table<'n>) {
    if canonical(n) {
        out.push('_');
        return;
    }
    out.push('(');
    out.push_str(n.rule);
    let mut prepost = None;
    if let Judgment::Stmt { pre, post } = &n.judgment {
        // the pre of a sequence item is not written and is already named (the parent's
        // pre or the previous item's post, equal to it in a valid derivation): it is not
        // looked up again (issue 13: half of the lookups, each hashing the assertion)
        if !in_seq {
            let a = table.a_name(pre);
            out.push_str(" (pre ");
            Name(a).push(out);
            out.push(')');
        }
        let b = table.a_name(post);
        out.push_str(" (post ");
        Name(b).push(out);
        out.push(')');
        prepost = Some((pre, post));
    }
    for f in &n.fields {
        if prepost.is_some_and(|(pre, post)| default_post(n.rule, f, pre, post)) {
            continue;
        }
        out.push(' ');
        write_field(out, f);
    }
    for c in &n.children {
        out.push(if matches!(c.judgment, Judgment::Stmt { .. }) {
            '\n'
        } else {
            ' '
        });
        node_s(c, matches!(n.rule, "Q:SEQ" | "L:SEQ"), out, table);
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
/// derivation `root` (whose `pre` potential is the bound). The output is version 6 of
/// `spec/certificate.md` without a provenance section ([`super::provenance`] adds it);
/// the function is total and deterministic.
pub fn write(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    root: &Node,
) -> String {
    let mut s = String::from("warpcert-certificate 6\n");
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
    node_s(root, false, &mut deriv, &mut table);
    deriv.push_str(")\n");
    s.push_str("(assertions\n");
    s.push_str(&table.text);
    s.push_str(")\n");
    s.push_str(&deriv);
    s
}

/// The `(program …)` section of a certificate for `prog` (spec/certificate.md "Program"),
/// without a final newline: the text whose SHA-256 the provenance section records. One
/// statement per line without indentation, a line of closing parentheses joined to the
/// line before (the format is line-insensitive; the indentation of
/// [`sexp_program_in`] was a quarter of the section, issue 13).
pub fn program_sexp(prog: &Program) -> String {
    let mut text = String::new();
    sexp_program_in(prog, &mut text, true);
    let mut s = String::with_capacity(text.len());
    for line in text.lines().map(str::trim_start) {
        if !s.is_empty() && !line.bytes().all(|b| b == b')') {
            s.push('\n');
        }
        s.push_str(line);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64) -> Q {
        Q::from_integer(n.into())
    }

    /// `c0 + c1·max0(n)`.
    fn pot(c0: i64, c1: i64) -> Poly {
        let mut p = Poly::constant(&q(c0));
        p.add_raw_term(&[Lin::var("n")], q(c1));
        p
    }

    /// The table's `a` entries name their potential's base as format 6 allows: an equal
    /// earlier potential by its name alone, a close one by the terms of the difference.
    /// Expected lines written by hand from spec/certificate.md ("Implicit expressions,
    /// default witnesses": `(a NAME PNAME DNAME A0 TERM …)`).
    #[test]
    fn assertion_bases() {
        let (p, d) = (Arc::new(Vec::new()), Arc::new(DepMap::new()));
        let assn = |q| Assn {
            p: Arc::clone(&p),
            d: Arc::clone(&d),
            q,
        };
        let (a0, a1, a2) = (assn(pot(4, 3)), assn(pot(7, 5)), assn(pot(9, 3)));
        let mut nodes = vec![(a0, Some(0)), (a1, Some(1)), (a2, Some(2))];
        // the same potential under another P: named as the base alone
        let p1 = Arc::new(vec![Cstr {
            kind: CKind::Le,
            lin: Lin::var("n"),
        }]);
        nodes.push((
            Assn {
                p: Arc::clone(&p1),
                d: Arc::clone(&d),
                q: pot(4, 3),
            },
            Some(3),
        ));
        let mut t = Table::default();
        for (a, k) in &nodes {
            assert_eq!(Some(t.a_name(a)), *k);
        }
        let lines: Vec<&str> = t.text.lines().filter(|l| l.starts_with("(a ")).collect();
        assert_eq!(
            lines,
            [
                "(a 0 0 0 (poly (4) (3 (max0 (lin 0 (1 n))))))",
                // 7 + 5·max0(n) − (4 + 3·max0(n)) = 3 + 2·max0(n), shorter than the
                // full `(poly (7) (5 (max0 …)))` by the name against `(poly`
                "(a 1 0 0 0 (3) (2 (max0 (lin 0 (1 n)))))",
                // 9 + 3·max0(n) is entry 0's potential plus the constant 5
                "(a 2 0 0 0 (5))",
                "(a 3 1 0 0)",
            ]
        );
    }

    /// The program section: one statement per line, no indentation, closing parentheses
    /// on the line of the last statement, no final newline; the kernel's reader reads the
    /// same s-expression as from the indented text.
    #[test]
    fn program_section_layout() {
        use crate::core::{BinOp, Const, Dim, Expr, Loc, Operand, Program, Stmt, Ty};
        // `int x = 1; if (threadIdx.x < 2) x = 2;`, built directly (certificate/ may use
        // core only, not the front end: ARCHITECTURE.md "Layering")
        let one = |n| Expr::Opd(Operand::Const(Const::Int(n)));
        let test = Expr::Bin(
            BinOp::Lt,
            Operand::Tid(Dim::X),
            Operand::Const(Const::Int(2)),
        );
        let prog = Program {
            name: "k".into(),
            params: vec![],
            arrays: vec![],
            locals: vec![("x".into(), Ty::Int)],
            body: Stmt::Seq(
                Box::new(Stmt::Assign("x".into(), one(1), Loc::default())),
                Box::new(Stmt::If(
                    test,
                    Box::new(Stmt::Assign("x".into(), one(2), Loc::default())),
                    Box::new(Stmt::Skip),
                    Loc::default(),
                )),
            ),
        };
        let text = program_sexp(&prog);
        assert!(text.lines().all(|l| !l.starts_with(' ')), "{text}");
        assert!(!text.ends_with('\n'));
        assert!(
            text.lines().all(|l| !l.trim().chars().all(|c| c == ')')),
            "{text}"
        );
        // the same s-expression as the indented text of the program printer
        let mut indented = String::new();
        sexp_program_in(&prog, &mut indented, true);
        assert_ne!(indented.trim_end(), text);
        // (atoms and nesting only: the reader also keeps each list's source text)
        fn shape(s: &warpcert_kernel::sexp::Sexp) -> String {
            match s {
                warpcert_kernel::sexp::Sexp::Atom(a, _) => format!("{a} "),
                warpcert_kernel::sexp::Sexp::List(v, _, _) => {
                    format!("({})", v.iter().map(shape).collect::<String>())
                }
            }
        }
        let read = |t: &str| -> Vec<String> {
            let v = warpcert_kernel::sexp::parse_all(t).expect("parses");
            v.iter().map(shape).collect()
        };
        assert_eq!(read(&text), read(&indented));
    }
}
