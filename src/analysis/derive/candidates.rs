//! The candidate atoms of each loop's invariant template: the ranking atoms of a loop and
//! of the loops it encloses, their shifts, and the floor atoms of floor ranks; with the
//! syntactic helpers the loop passes share (loop keys, flattened bodies, assignments).

use crate::analysis::derive::exits::exit_floor_atoms;
use crate::analysis::derive::ranking::{floor_divisor, log_form, FloorRank};
use crate::analysis::derive::Ctx;
use crate::analysis::linear::{lin_expr, lin_operand};
use crate::core::assertion::linear::{CKind, Cstr, Lin};
use crate::core::assertion::poly::{canon_atom, Atom, AtomVal};
use crate::core::metric::{q, Q};
use crate::core::{Expr, Operand, Program, Stmt, Ty};
use num_traits::{One, Zero};

impl Ctx<'_> {
    pub(super) fn collect_atoms(&mut self, s: &Stmt, stack: &mut Vec<(usize, Vec<Lin>)>) {
        let mut top = Vec::new();
        flatten(s, &mut top);
        let writers = Writers::of(&top);
        for (i, st) in top.iter().enumerate() {
            match st {
                Stmt::While(e, body, _) => {
                    let key = loop_key(body);
                    let mut own: Vec<Lin> = Vec::new();
                    // seeds: the loop's own ranking atom, else (spec/logic.md §4a) atoms from
                    // the conditions of its body; each seed is also expressed before the
                    // loop, through the assignments that precede it in this list
                    let mut cands: Vec<Lin> = Vec::new();
                    let mut seeds: Vec<Lin> = Vec::new();
                    let mut tail: Vec<Lin> = Vec::new();
                    let mut geo_seed: Option<Lin> = None;
                    // a constant step c > 1: the seed's forms as floor atoms ⌊·/c⌋⁺ too
                    let mut floor_div: Option<i64> = None;
                    // a launch-form symbolic step under Ctx::symbolic_divisors: the seed's
                    // forms as symbolic floor atoms ⌊(· − s + δ)/δ⌋⁺ instead (δ, s)
                    let mut sym_div: Option<(Lin, Q)> = None;
                    let mut own_floors: Vec<Atom> = Vec::new();
                    let mut log_x: Option<String> = None;
                    // an exit loop's seeds' floor divisors (exits.rs `exit_atoms`)
                    let mut seed_divs: Vec<Option<i64>> = Vec::new();
                    // a doubling counter: the quotient log atom's forms (and before the loop)
                    let mut dbl: Option<(Lin, Lin)> = None;
                    // the counter's form before the loop (its entry value, nest.rs)
                    let mut x0: Option<Lin> = None;
                    match self.loop_atom_raw(e, body, None) {
                        Ok((raw, sh, x, symbolic, proportional, step)) => {
                            dbl = self.doubling_forms(body, &raw, &sh, &x, None);
                            own_floors.extend(
                                dbl.iter()
                                    .map(|(l, m)| Atom::LogQ(l.clone().into(), m.clone().into())),
                            );
                            floor_div =
                                floor_divisor(&sh, symbolic, proportional).filter(|_| self.floor);
                            if self.floor
                                && symbolic
                                && !proportional
                                && crate::core::assertion::poly::launch_divisor(&step)
                            {
                                self.sym_steps += 1;
                            }
                            if let Some(dv) = self.sym_divisor(symbolic, proportional, &step) {
                                floor_div = None;
                                let l = raw.plus_const(&-sh.clone()).add_scaled(&dv, &Q::one());
                                own_floors.push(Atom::FloorSym(l.into(), dv.clone().into()));
                                own_floors.push(Atom::FloorSym(
                                    raw.plus_const(&-sh.clone()).into(),
                                    dv.clone().into(),
                                ));
                                sym_div = Some((dv, sh.clone()));
                            }
                            if let Some(c) = floor_div {
                                self.nests.div.insert(key, c);
                            }
                            x0 = Some(Lin::var(&x));
                            if let Some(c) = floor_div {
                                own_floors.push(Atom::floor(raw.clone(), c));
                                own_floors.push(Atom::floor(raw.plus_const(&-sh.clone()), c));
                            }
                            // a halving counter: the log atom ⌊log2 2R⌋⁺ (and its forms before
                            // the loop, below)
                            let log_seed =
                                log_form(&raw, &x, symbolic, proportional).filter(|_| self.floor);
                            own_floors.extend(log_seed.iter().map(|l| Atom::Log(l.clone().into())));
                            log_x = log_seed.map(|_| x.clone());
                            self.nests.note_counter(key, &x, &raw, &sh);
                            seeds.push(raw.clone());
                            cands.push(raw.clone());
                            cands.push(raw.plus_const(&-sh));
                            // a counter multiplied each round: its geometric atom
                            // (loops_geo.rs; the step's atom comes from the split rewrite)
                            if let Some(geo) = self.geo_atom(e, body, None, None) {
                                cands.push(geo.g.clone());
                                geo_seed = Some(geo.g);
                            }
                        }
                        Err(_) => {
                            let (hs, shifted, divs) = self.exit_atoms(e, body);
                            if !hs.is_empty() {
                                self.exit_candidates.insert(key);
                                let direct: Vec<Lin> = hs
                                    .iter()
                                    .chain(shifted.iter())
                                    .filter_map(|c| match canon_atom(c) {
                                        AtomVal::Scaled(_, a) => Some(a),
                                        AtomVal::Const(_) => None,
                                    })
                                    .collect();
                                self.exit_own.insert(key, direct);
                                // a constant step c ≥ 2: the atoms' floor forms (exits.rs)
                                let mut fl: Vec<Atom> = Vec::new();
                                for (h, c) in hs.iter().zip(&divs) {
                                    for a in c.iter().flat_map(|c| exit_floor_atoms(h, *c)) {
                                        push_canonical(&mut fl, a);
                                    }
                                }
                                own_floors.extend(fl.iter().cloned());
                                self.exit_floors.insert(key, fl);
                            }
                            cands.extend(hs.iter().cloned());
                            seeds = hs;
                            seed_divs = divs;
                            tail = shifted;
                        }
                    }
                    // the ranges are the seeds' forms before the loop; the geometric
                    // atom's is a candidate only
                    let ranges = seeds.len();
                    seeds.extend(geo_seed);
                    for (si, raw) in seeds.into_iter().enumerate() {
                        let mut cur = raw;
                        // the statements before the loop that write a variable of `cur`,
                        // nearest first (the others leave it as it is)
                        let mut at = i;
                        while let Some(j) = writers.last_before(&cur, at) {
                            at = j;
                            match top[j] {
                                Stmt::Assign(x, ex, _) => {
                                    if cur.mentions(x) {
                                        match lin_expr(&*self, ex) {
                                            Some(le) => {
                                                cur = cur.subst(x, &le);
                                                if let Some(v) = x0.as_mut().filter(|_| si == 0) {
                                                    *v = v.subst(x, &le);
                                                }
                                                cands.push(cur.clone());
                                                if let Some((l, m)) =
                                                    dbl.as_mut().filter(|_| si == 0)
                                                {
                                                    *l = l.subst(x, &le);
                                                    *m = m.subst(x, &le);
                                                    own_floors.push(Atom::LogQ(
                                                        l.clone().into(),
                                                        m.clone().into(),
                                                    ));
                                                }
                                                if let Some(lx) = log_x.as_ref().filter(|_| si == 0)
                                                {
                                                    if cur.vars().all(|v| v != lx) {
                                                        own_floors.push(Atom::Log(
                                                            cur.scale(&q(2)).into(),
                                                        ));
                                                    }
                                                }
                                                if let Some(c) = floor_div.filter(|_| si == 0) {
                                                    own_floors.push(Atom::floor(cur.clone(), c));
                                                    if let Some(u) = self.tid_free(&cur) {
                                                        own_floors.push(Atom::floor(u, c));
                                                    }
                                                }
                                                // an exit atom's floor forms before the loop
                                                if let Some(Some(c)) = seed_divs.get(si) {
                                                    own_floors.extend(exit_floor_atoms(&cur, *c));
                                                }
                                                if let Some((dv, sh)) =
                                                    sym_div.as_ref().filter(|_| si == 0)
                                                {
                                                    let sym = |l: &Lin| {
                                                        Atom::FloorSym(
                                                            l.plus_const(&-sh.clone())
                                                                .add_scaled(dv, &Q::one())
                                                                .into(),
                                                            dv.clone().into(),
                                                        )
                                                    };
                                                    own_floors.push(sym(&cur));
                                                    if let Some(u) = self.tid_free(&cur) {
                                                        own_floors.push(sym(&u));
                                                    }
                                                }
                                                // a counter started at `threadIdx.*` (a
                                                // block-stride loop inside another loop):
                                                // the uniform form its ranking atom takes
                                                // at the entry (`uniformize`)
                                                if let Some(u) = self.tid_free(&cur) {
                                                    cands.push(u);
                                                }
                                            }
                                            None => break,
                                        }
                                    }
                                }
                                Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => {}
                                other => {
                                    if other.writes().iter().any(|w| cur.mentions(w)) {
                                        break;
                                    }
                                }
                            }
                        }
                        if si < ranges {
                            self.nests.note_range(key, &cur);
                        }
                        if let Some(v) = x0.take().filter(|_| si == 0) {
                            self.nests.note_entry(key, &v);
                        }
                    }
                    cands.extend(tail);
                    for c in cands {
                        if let AtomVal::Scaled(_, a) = canon_atom(&c) {
                            if !own.contains(&a) {
                                own.push(a);
                            }
                        }
                    }
                    let mut own_f: Vec<Atom> = Vec::new();
                    for a in own_floors {
                        if let AtomVal::Scaled(_, a) = a.canonical() {
                            if !own_f.contains(&a) {
                                own_f.push(a);
                            }
                        }
                    }
                    // floor atoms are scoped like the others: this loop and its ancestors
                    for (k, _) in stack.iter() {
                        self.floors
                            .entry(*k)
                            .or_default()
                            .extend(own_f.iter().cloned());
                        // an enclosing exit loop's template sees them too (as `exit_own`)
                        if let Some(x) = self.exit_floors.get_mut(k) {
                            for a in own_f.iter() {
                                push_canonical(x, a.clone());
                            }
                        }
                    }
                    let inherited: Vec<Atom> = stack
                        .last()
                        .and_then(|(k, _)| self.floors.get(k))
                        .cloned()
                        .unwrap_or_default();
                    let mine = self.floors.entry(key).or_default();
                    mine.extend(own_f);
                    mine.extend(inherited);
                    self.nests
                        .note_loop(key, stack.last().map(|(k, _)| *k), &own);
                    // a nest's loop: the definitions before it, to express its inner loops'
                    // relaxed ranges before it (nest.rs)
                    if has_loop(body) {
                        let defs = top[..i]
                            .iter()
                            .rev()
                            .flat_map(|st| match st {
                                Stmt::Assign(y, ex, _) => vec![(y.clone(), lin_expr(&*self, ex))],
                                Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => vec![],
                                other => other.writes().into_iter().map(|w| (w, None)).collect(),
                            })
                            .collect();
                        self.nests.note_defs(key, defs);
                    }
                    // this loop sees its own atoms and its ancestors'; ancestors see this one's
                    let mut scope = own.clone();
                    for (k, anc) in stack.iter() {
                        scope.extend(anc.iter().cloned());
                        let e = self.atoms.entry(*k).or_default();
                        e.extend(own.iter().cloned());
                        if let Some(x) = self.exit_own.get_mut(k) {
                            x.extend(own.iter().cloned());
                        }
                    }
                    self.atoms.entry(key).or_default().extend(scope);
                    stack.push((key, own));
                    self.collect_atoms(body, stack);
                    stack.pop();
                }
                Stmt::If(_, a, b, _) => {
                    if let Some((k, _)) = stack.last() {
                        self.if_loop.insert(loop_key(a), *k);
                    }
                    self.collect_atoms(a, stack);
                    self.collect_atoms(b, stack);
                }
                _ => {}
            }
        }
    }

    /// Adds the ranking atom `a` of loop `key` and `a − shift` to its candidate atoms, and
    /// the floor atom of `floor` and its shift by one to its candidate floor atoms.
    pub(super) fn note_own_atoms(
        &mut self,
        key: usize,
        a: &Lin,
        shift: &Q,
        floor: Option<&FloorRank>,
    ) {
        if let Some(FloorRank { atom: fa, .. }) = floor {
            for extra in [fa.clone(), fa.shifted(&Q::one())] {
                self.add_candidate_floor(key, extra);
            }
        }
        for extra in [a.clone(), a.plus_const(&-shift.clone())] {
            self.add_candidate_atom(key, &extra);
        }
    }

    /// Adds the canonical atom of `form` (when it is not a constant) to loop `key`'s
    /// candidate atoms, once.
    pub(super) fn add_candidate_atom(&mut self, key: usize, form: &Lin) {
        if let AtomVal::Scaled(_, c) = canon_atom(form) {
            let own = self.atoms.entry(key).or_default();
            if !own.contains(&c) {
                own.push(c);
            }
        }
    }

    /// Adds the canonical form of the floor atom `atom` (when it is not a constant) to loop
    /// `key`'s candidate floor atoms, once.
    pub(super) fn add_candidate_floor(&mut self, key: usize, atom: Atom) {
        if let AtomVal::Scaled(_, c) = atom.canonical() {
            let own = self.floors.entry(key).or_default();
            if !own.contains(&c) {
                own.push(c);
            }
        }
    }
}

/// Pushes the canonical form of the floor atom `a` (when it is not a constant) onto
/// `out`, once.
fn push_canonical(out: &mut Vec<Atom>, a: Atom) {
    if let AtomVal::Scaled(_, a) = a.canonical() {
        if !out.contains(&a) {
            out.push(a);
        }
    }
}

pub(super) fn has_loop(s: &Stmt) -> bool {
    match s {
        Stmt::While(..) => true,
        Stmt::Seq(..) => s.seq_items().into_iter().any(has_loop),
        Stmt::If(_, a, b, _) => has_loop(a) || has_loop(b),
        _ => false,
    }
}

/// A linear definition `y = lin` from a pair `L ≤ 0`, `−L ≤ 0` (or `L = 0`) of `p`, with
/// `coef_y(L) ≠ 0` and no other variable of `L` in `writes`.
pub(super) fn defining_lin(p: &[Cstr], y: &str, writes: &[String]) -> Option<Lin> {
    for c in p {
        let a = c.lin.coef(y);
        if a.is_zero() || c.lin.vars().any(|v| v != y && writes.contains(v)) {
            continue;
        }
        let both = c.kind == CKind::Eq || p.contains(&Cstr::le(c.lin.scale(&-Q::one())));
        if both {
            let mut rest = c.lin.clone();
            rest.terms.remove(y);
            return Some(rest.scale(&(-Q::one() / a)));
        }
    }
    None
}

/// A positive lower bound of the non-constant form `step` under `p`: its constant plus, for
/// each variable, its coefficient times the variable's lower (positive coefficient) or
/// upper (negative) bound from the linear constraints of `p` over that variable alone.
pub(super) fn step_lower_bound(p: &[Cstr], step: &Lin) -> Option<Q> {
    let mut total = step.c.clone();
    for (v, a) in &step.terms {
        let mut best: Option<Q> = None;
        for c in p {
            let b = c.lin.coef(v);
            if b.is_zero() || c.lin.vars().count() != 1 || c.is_lane() {
                continue;
            }
            // b·v + c0 ≤ 0 (or = 0): v ≤ −c0/b when b > 0, v ≥ −c0/b when b < 0
            let bound = -c.lin.c.clone() / &b;
            let usable = c.kind == CKind::Eq || ((b < Q::zero()) == (*a > Q::zero()));
            if usable {
                let val = a * &bound;
                best = Some(best.map_or(val.clone(), |x: Q| x.max(val)));
            }
        }
        total += best?;
    }
    (total > Q::zero()).then_some(total)
}

/// `y − c = 0` for each `int` local whose only assignment in `prog` is `y ← c`.
pub(super) fn const_facts(prog: &Program) -> Vec<Cstr> {
    // one walk over the program (a walk per local would be quadratic in long programs)
    let mut all = Vec::new();
    all_assigns(&prog.body, &mut all);
    let mut by_local: std::collections::HashMap<&str, Vec<&Expr>> = Default::default();
    for (z, e) in all {
        by_local.entry(z.as_str()).or_default().push(e);
    }
    let mut out = Vec::new();
    for (y, t) in &prog.locals {
        if *t != Ty::Int {
            continue;
        }
        if let Some([Expr::Opd(Operand::Const(crate::core::Const::Int(c)))]) =
            by_local.get(y.as_str()).map(Vec::as_slice)
        {
            out.push(Cstr::eq(Lin::var(y).plus_const(&-q(*c))));
        }
    }
    out
}

pub(super) fn all_assigns<'s>(s: &'s Stmt, out: &mut Vec<(&'s String, &'s Expr)>) {
    match s {
        Stmt::Assign(y, e, _) => out.push((y, e)),
        Stmt::Seq(..) => {
            for x in s.seq_items() {
                all_assigns(x, out);
            }
        }
        Stmt::If(_, a, b, _) => {
            all_assigns(a, out);
            all_assigns(b, out);
        }
        Stmt::While(_, b, _) => all_assigns(b, out),
        _ => {}
    }
}

/// Identity of a loop: the address of its body (stable while the program is borrowed).
pub(super) fn loop_key(body: &Stmt) -> usize {
    body as *const Stmt as usize
}

/// For each local, the positions of the statements of a flattened list that may write it
/// (in order): an assignment writes its variable, a compound statement what
/// [`Stmt::writes`] lists; writes, skips and syncs write no local.
struct Writers(std::collections::HashMap<String, Vec<usize>>);

impl Writers {
    fn of(top: &[&Stmt]) -> Writers {
        let mut by: std::collections::HashMap<String, Vec<usize>> = Default::default();
        for (j, st) in top.iter().enumerate() {
            match st {
                Stmt::Assign(x, _, _) => by.entry(x.clone()).or_default().push(j),
                Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => {}
                other => {
                    for w in other.writes() {
                        by.entry(w).or_default().push(j);
                    }
                }
            }
        }
        Writers(by)
    }

    /// The last position before `at` of a statement that may write a variable of `l`.
    fn last_before(&self, l: &Lin, at: usize) -> Option<usize> {
        l.vars()
            .filter_map(|v| {
                let ps = self.0.get(v)?;
                let k = ps.partition_point(|&p| p < at);
                k.checked_sub(1).map(|k| ps[k])
            })
            .max()
    }
}

pub(super) fn flatten<'s>(s: &'s Stmt, out: &mut Vec<&'s Stmt>) {
    match s {
        Stmt::Seq(..) => {
            for x in s.seq_items() {
                flatten(x, out);
            }
        }
        other => out.push(other),
    }
}

pub(super) fn count_assigns(s: &Stmt, x: &str, n: &mut usize) {
    match s {
        Stmt::Assign(y, _, _) | Stmt::Warp(y, _, _) if y == x => *n += 1,
        Stmt::Seq(..) => {
            for it in s.seq_items() {
                count_assigns(it, x, n);
            }
        }
        Stmt::If(_, a, b, _) => {
            count_assigns(a, x, n);
            count_assigns(b, x, n);
        }
        Stmt::While(_, b, _) => count_assigns(b, x, n),
        _ => {}
    }
}

/// The halved operand `a` of `x ← a >> c` (`1 ≤ c < 64`) or `x ← a / c` (`c ≥ 2`), the
/// expressions of the bounding substitution of Q:VWRITE1 (spec/logic.md §4, "Halving"):
/// under `a ≥ 1` the new value lies in `[0, a − 1]`.
pub(super) fn halved_operand(e: &Expr) -> Option<&Operand> {
    use crate::core::{BinOp, Const};
    match e {
        Expr::Bin(BinOp::Shr, a, Operand::Const(Const::Int(c))) if (1..64).contains(c) => Some(a),
        Expr::Bin(BinOp::Div, a, Operand::Const(Const::Int(c))) if *c >= 2 => Some(a),
        _ => None,
    }
}

/// The divisor `d` of a halving update ([`halved_operand`]): `2^c` for `a >> c`, `c` for
/// `a / c`; the new value is at most `a/d` under `a ≥ 1` (the log atoms' bounding
/// substitution, spec/logic.md §4 "Halving").
pub(super) fn halved_divisor(e: &Expr) -> Option<Q> {
    use crate::core::{BinOp, Const};
    match e {
        Expr::Bin(BinOp::Shr, _, Operand::Const(Const::Int(c))) if (1..64).contains(c) => {
            Some(Q::from_integer(num_bigint::BigInt::one() << *c))
        }
        Expr::Bin(BinOp::Div, _, Operand::Const(Const::Int(c))) if *c >= 2 => Some(q(*c)),
        _ => None,
    }
}

/// `lin(a) + lin(b) − 1` for `a * b` with int operands: the product's lower bound when
/// `a, b ≥ 1` (`(a − 1)(b − 1) ≥ 0`; spec/logic.md §4 "Products").
pub(super) fn product_floor<T: crate::analysis::linear::Types + ?Sized>(
    prog: &T,
    e: &Expr,
) -> Option<Lin> {
    match e {
        Expr::Bin(crate::core::BinOp::Mul, a, b) => Some(
            lin_operand(prog, a)?
                .add(&lin_operand(prog, b)?)
                .plus_const(&-Q::one()),
        ),
        _ => None,
    }
}
