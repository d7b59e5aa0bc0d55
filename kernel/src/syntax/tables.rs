//! The shared-assertion table of formats 3–6 (spec/certificate.md "Shared assertions") and
//! inline assertions.

use super::*;

/// The `(assertions …)` table of format 3 (spec/certificate.md "Shared assertions"): `P`
/// lists, `D` maps and assertions by name, each read once. A node's `(pre NAME)` denotes
/// the full assertion defined here, which every rule then checks as an inline one.
#[derive(Clone, Debug, Default)]
pub struct Table {
    p: HashMap<String, Rc<Vec<Cstr>>>,
    d: HashMap<String, Rc<DepMap>>,
    pub(super) a: HashMap<String, Rc<Assn>>,
}

/// A defined name: an atom not defined before in `defined`.
pub(super) fn new_name<V>(s: &Sexp, defined: &HashMap<String, V>) -> Result<String, Rejection> {
    let n = atom(s, "a name")?;
    if defined.contains_key(n) {
        return Err(err(s, "a name not defined before"));
    }
    Ok(n.to_string())
}

/// A `p`/`d` entry's base value, its drop items and its remaining items.
pub(super) type BaseDrop<'s, 'a, V> = (Option<V>, &'s [Sexp<'a>], &'s [Sexp<'a>]);

/// The optional `(base NAME)` (format 6, `bare`: also `NAME`) and `(drop …)` items at the
/// start of a `p`/`d` entry's body: the base (already defined), the drop list and the
/// remaining items.
pub(super) fn base_drop<'s, 'a, V: Clone>(
    v: &'s [Sexp<'a>],
    defined: &HashMap<String, V>,
    bare: bool,
) -> Result<BaseDrop<'s, 'a, V>, Rejection> {
    let (base, rest) = match v.first() {
        Some(b) if b.head() == Some("base") => {
            let [n] = exactly(items(b, "base", "(base NAME)")?, b, "(base NAME)")?;
            let k = atom(n, "a name")?;
            let val = defined.get(k).cloned().ok_or_else(|| err(n, "a name defined before"))?;
            (Some(val), tail(v))
        }
        // format 6: a bare base `NAME` (an atom where a constraint or entry is a list)
        Some(n) if bare && n.atom().is_some() => {
            let k = atom(n, "a name")?;
            let val = defined.get(k).cloned().ok_or_else(|| err(n, "a name defined before"))?;
            (Some(val), tail(v))
        }
        _ => (None, v),
    };
    match rest.first() {
        Some(d) if d.head() == Some("drop") => {
            if base.is_none() {
                return Err(err(d, "(base NAME) before (drop …)"));
            }
            Ok((base, items(d, "drop", "(drop …)")?, tail(rest)))
        }
        _ => Ok((base, &[], rest)),
    }
}

/// `(p NAME [(base P0)] [(drop I …)] CSTR …)`: the list `P0` without its 0-based positions
/// `I` (strictly increasing, in range), followed by the `CSTR`s; without a base, the `CSTR`s.
pub(super) fn p_entry(e: &Sexp, t: &mut Table, bare: bool) -> Result<(), Rejection> {
    let v = items(e, "p", "(p NAME …)")?;
    let name = new_name(v.first().ok_or_else(|| err(e, "(p NAME …)"))?, &t.p)?;
    let (base, drop, add) = base_drop(tail(v), &t.p, bare)?;
    let mut out: Vec<Cstr> = Vec::with_capacity(base.as_ref().map_or(0, |b| b.len()) + add.len());
    if let Some(b) = base {
        let mut drops = Vec::new();
        for i in drop {
            let k = atom(i, "an index")?.parse::<usize>().map_err(|_| err(i, "an index"))?;
            if k >= b.len() || drops.last().is_some_and(|&l| l >= k) {
                return Err(err(i, "indices strictly increasing, below the base's length"));
            }
            drops.push(k);
        }
        let mut di = drops.iter().peekable();
        for (k, c) in b.iter().enumerate() {
            if di.peek() == Some(&&k) {
                di.next();
            } else {
                out.push(c.clone());
            }
        }
    }
    for c in add {
        out.push(cstr(c)?);
    }
    t.p.insert(name, Rc::new(out));
    Ok(())
}

/// `(d NAME [(base D0)] [(drop X …)] DEP …)`: the map `D0` without the locals `X` (each an
/// entry of `D0`), then the `DEP`s (at most one per local) added or replacing `D0`'s.
pub(super) fn d_entry(e: &Sexp, t: &mut Table, bare: bool) -> Result<(), Rejection> {
    let v = items(e, "d", "(d NAME …)")?;
    let name = new_name(v.first().ok_or_else(|| err(e, "(d NAME …)"))?, &t.d)?;
    let (base, drop, add) = base_drop(tail(v), &t.d, bare)?;
    let mut out: DepMap = base.map(|b| (*b).clone()).unwrap_or_default();
    for x in drop {
        if out.remove(atom(x, "a local")?).is_none() {
            return Err(err(x, "a local with an entry in the base"));
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for a in add {
        let (x, entry) = dep_checked(a)?;
        if seen.contains(&x) {
            return Err(err(a, "at most one dep entry per local"));
        }
        seen.push(x.clone());
        out.insert(x, entry);
    }
    // without the spare capacity of the inserts (issue 13: the table lives through the check)
    out.shrink_to_fit();
    t.d.insert(name, Rc::new(out));
    Ok(())
}

/// `(assertions ENTRY …)`, entries in order, each name defined once and used only after
/// its definition: `(p …)` ([`p_entry`]), `(d …)` ([`d_entry`]), `(a NAME P D POLY)`;
/// `bare` (format 6): a `p`/`d` base may be written as its name alone, and an assertion as
/// `(a NAME P D A0 TERM …)`, the potential of `A0` plus the terms.
pub fn table(s: &Sexp, bare: bool) -> Result<Table, Rejection> {
    let mut t = Table::default();
    for e in items(s, "assertions", "(assertions …)")? {
        match e.head() {
            Some("p") => p_entry(e, &mut t, bare)?,
            Some("d") => d_entry(e, &mut t, bare)?,
            Some("a") => {
                let f = "(a NAME P D POLY)";
                let v = items(e, "a", f)?;
                let (Some(n), Some(pn), Some(dn), Some(q)) = (v.first(), v.get(1), v.get(2), v.get(3)) else {
                    return Err(err(e, f));
                };
                let name = new_name(n, &t.a)?;
                let p = t.p.get(atom(pn, "a P name")?).ok_or_else(|| err(pn, "a P name defined before"))?;
                let d = t.d.get(atom(dn, "a D name")?).ok_or_else(|| err(dn, "a D name defined before"))?;
                let q = match q.atom() {
                    // format 6: `(a NAME P D A0 TERM …)`, the potential of A0 plus the terms
                    Some(b) if bare => {
                        let base = t.a.get(b).ok_or_else(|| err(q, "an assertion name defined before"))?;
                        let mut sum = base.q.clone();
                        for x in v.get(4..).unwrap_or(&[]) {
                            term(x, &mut sum)?;
                        }
                        sum
                    }
                    _ => {
                        exactly::<4>(v, e, f)?;
                        poly(q)?
                    }
                };
                let a = Assn { p: Rc::clone(p), d: Rc::clone(d), q };
                t.a.insert(name, Rc::new(a));
            }
            _ => return Err(err(e, "(p …), (d …) or (a …)")),
        }
    }
    Ok(t)
}

/// `(assn (P …) (D …) (Q POLY))`. Residues must satisfy `0 ≤ r < g` when `g > 0`
/// (spec/logic.md §1, well-formedness); a second entry for the same local is an error.
pub fn assn(s: &Sexp) -> Result<Assn, Rejection> {
    let [ps, ds, qs] = exactly(items(s, "assn", "(assn (P …) (D …) (Q POLY))")?, s, "(assn (P …) (D …) (Q POLY))")?;
    let p = items(ps, "P", "(P CSTR …)")?.iter().map(cstr).collect::<Result<Vec<_>, _>>()?;
    let mut d = DepMap::new();
    for e in items(ds, "D", "(D DEP …)")? {
        let (x, entry) = dep_checked(e)?;
        if d.insert(x, entry).is_some() {
            return Err(err(e, "at most one dep entry per local"));
        }
    }
    let [q] = exactly(items(qs, "Q", "(Q POLY)")?, qs, "(Q POLY)")?;
    Ok(Assn { p: Rc::new(p), d: Rc::new(d), q: poly(q)? })
}
