//! Loop nests (issue 13 item 3, issue 15): the shape of each nest of loops, from which the
//! templates of deep nests get the monomials a nest can produce, and the over-shifted
//! ranking atoms of triangular nests.
//!
//! * **Chain monomials.** In a nest of depth `d` whose loops run `m₁, …, m_d` times, the
//!   invariant of the loop at level `k` is `Σ_{l ≤ k} max0(counter form of l) · Π_{l < l' ≤ j}
//!   max0(range of l')` for the levels `j` whose bodies have a cost: one atom of a loop times
//!   the product of the ranges (entry forms of the ranking atoms) of a chain of loops nested
//!   below it. Those are the monomials added to a loop's template when its nest is deeper
//!   than the degree of the options: `O(d²)` monomials per loop per atom, where all products
//!   of `d` atoms would be exponentially many. The degree is the nest's depth, chosen per
//!   nest (no `--degree d` needed for a degree-`d` bound on a `d`-deep nest).
//! * **Deferred shifts.** A shift rewrite replaces every occurrence of its atom, so the
//!   shift of the outer ranking atom `max0(n − i)` at the outer body's entry also turns the
//!   inner loop's entry `max0(n − j) = max0(n − i)` into `1 + max0(n − i − 1)`, which the
//!   inner invariant cannot take coefficientwise (the ordinary run's LP is infeasible).
//!   After `j ← i`, though, the inner loop's atom `max0(n − j)` and the outer atom
//!   `max0(n − i)` are distinct: on a second run the outer loop's shift is left out of its
//!   body's entry and applied by a Q:WEAK right before the inner loop (`P` there still has
//!   `i < n`), which shifts the outer terms and leaves the inner ones. The invariant
//!   `21.5·max0(n − i) + 7.5·max0(n − i)²` of `steps` then pays `15·max0(n − i)` to the
//!   inner loop and, shifted, `14 + 21.5·max0(n − i − 1) + 7.5·max0(n − i − 1)²` for the
//!   rest of the round and the next invariant: the exact `14 + 21.5·n + 7.5·n²` (before:
//!   the over-shift's `21.5 + 21.5·n + 7.5·n²`). Existing rules only (Q:WEAK's `shift`).
//!   Only for a constant-step ranking atom without floor, log, geometric or relaxed forms,
//!   an inner loop that is an item of the outer body's sequence, and a loop that is not
//!   Q:WHILELAST; when its LP fails too, the over-shift is tried.
//! * **Unrolled outer loops.** In `for (i = 0; i < 64; i++) for (j = i; j < n; j++)` the
//!   cost `Σ_{i<64} max(0, n − i)` is quadratic up to `n = 64` and linear above: no
//!   polynomial over the loop's atoms is within 1.25 of it everywhere (the relaxed bound
//!   `64·max0(n)` is 18.9 times the truth at `n = 2`). Its outer trip count is a launch
//!   constant that `P` decides at every round, so on a third run (when the deferred shift
//!   fails) a triangular loop whose range mentions only thread indices is unrolled
//!   (Q:UNROLL, at most `UNROLL_LIMIT` rounds, as loops without a ranking atom are): each
//!   copy of the inner loop enters with its own `max0(n − k)` and the bound is the exact
//!   `4 + Σ_{k<64} max0(n − k)`. Existing rules only; the run counts only when some
//!   triangular loop was unrolled.
//! * **Over-shifted ranking atoms.** In `for (i = 0; i < n; i++) for (j = i; j < n; j++)` the
//!   inner loop enters with `max0(n − j) = max0(n − i)`, the atom the outer shift turns into
//!   `1 + max0(n − i − 1)`: the body's potential keeps `max0(n − i)` and the shifted invariant
//!   cannot pay it coefficientwise. Ranking the outer loop by `max0(n − i + 1)` (with the same
//!   shift; `P ∧ e ⇒ n − i + 1 ≥ 1`) makes its shift produce `1 + max0(n − i)`, the atom the
//!   inner loop's entry needs: the invariant `½·max0(n − i + 1)²` pays `max0(n − i)` per
//!   round. Used only when the analysis without it, with deferred shifts and with unrolled
//!   outer loops finds no bound (it is looser by about `n/2` where the ordinary ranking
//!   works).
//! * **Relaxed inner atoms.** In `for (i = 0; i < 64; i++) for (j = i; j < n; j++)` the
//!   inner loop's range `max0(n − i)` differs from the outer atom `max0(64 − i)`: neither the
//!   ordinary nor the over-shifted ranking pays it, and a `mono` to it from `max0(n)` would
//!   also shrink the product `max0(63 − i)·max0(n)` the invariant keeps. The inner loop is
//!   then also ranked by `max0(R + c·(x₀ − x))` (`R` its raw ranking form, `c < 0` the
//!   coefficient of the outer counter `x` in its range, `x₀` the counter's entry value): it
//!   decreases with `R` (the inner body does not write `x`) and is `≥ R` where `P` gives
//!   `x ≥ x₀` (the kernel checks its shift's witness); at the inner entry it is the range
//!   with `x` at `x₀`, `max0(n)`, loop-invariant in the outer loop, so the outer invariant
//!   `max0(64 − i)·max0(n)` pays it per round by the outer shift alone (existing rules; no
//!   `mono`). The relaxed range, expressed before each ancestor loop through the linear
//!   assignments before it (scalarProdGPU's `end − base` becomes `elementN`), joins the
//!   candidate atoms of the inner loop and its ancestors. Used only on a third run, when the
//!   over-shift finds no bound either (where that works it is tighter: the relaxed bound of
//!   a triangular nest is `max0(n)²`, not `½·max0(n + 1)²`).
//! * **Residue atoms of inner splits.** A Q:WHILELASTALIGN loop charges its one split as
//!   `M^div·[m ∤ s − X]` at its entry (spec/logic.md §4); an enclosing loop pays that per
//!   round only with the product of its atoms and the residue atom, which therefore joins the
//!   candidate atoms of every loop holding it (before, the outer LP was infeasible and the
//!   analysis fell back to Q:WHILELAST's constant `M^div`). Existing rules only.

use crate::analysis::derive::candidates::loop_key;
use crate::analysis::derive::ranking::LoopAtom;
use crate::analysis::derive::Ctx;
use crate::analysis::entail::entails;
use crate::certificate::Farkas;
use crate::core::assertion::linear::{Cstr, Lin};
use crate::core::assertion::poly::{canon_atom, Atom, AtomVal, Mono};
use crate::core::metric::Q;
use crate::core::Stmt;
use num_bigint::BigInt;
use num_traits::{One, Zero};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The nest structure gathered while collecting candidate atoms (keys: `candidates::loop_key`).
#[derive(Default, Debug)]
pub(super) struct Nests {
    /// The enclosing loop of each loop (`None` at the top).
    parent: BTreeMap<usize, Option<usize>>,
    /// Each loop's own candidate atoms (canonical).
    own: BTreeMap<usize, Vec<Lin>>,
    /// The range of each loop: its raw ranking atom expressed before the loop (through the
    /// assignments that precede it in its sequence), canonical.
    range: BTreeMap<usize, Lin>,
    /// Each loop's counter and raw ranking atom with its shift (when it has one).
    counter: BTreeMap<usize, (String, Lin, Q)>,
    /// Chain monomials of each loop of a nest deeper than the options' degree.
    chains: BTreeMap<usize, BTreeSet<Mono>>,
    /// Loops some directly nested loop of which enters with a range over their counter.
    triangular: BTreeSet<usize>,
    /// Whether triangular loops rank by the over-shifted atom.
    pub(super) overshift: bool,
    /// The entry value `x₀` of each loop's counter (its form before the loop).
    entry: BTreeMap<usize, Lin>,
    /// The range of each loop before canonicalization (the raw ranking form before it).
    raw_range: BTreeMap<usize, Lin>,
    /// Relaxed inner loops: `c·(x₀ − x)` for a loop whose range `r` has the coefficient
    /// `c < 0` on its parent's counter `x` (entry value `x₀`): `r + c·(x₀ − x) = r[x := x₀]`.
    relax: BTreeMap<usize, Lin>,
    /// Whether relaxed inner loops also rank by their relaxed atom.
    pub(super) relaxed: bool,
    /// Whether triangular loops defer the shift of their ranking atom to the entry of
    /// their triangular inner loop (see the module docs, "Deferred shifts").
    pub(super) deferred: bool,
    /// Whether triangular loops whose trip count `P` decides are unrolled (Q:UNROLL; see
    /// the module docs, "Unrolled outer loops").
    pub(super) unroll: bool,
    /// How many triangular loops the forward pass unrolled in that mode.
    pub(super) unrolled: usize,
    /// The floor divisor of each loop with a constant step `c > 1` (floor atoms on).
    pub(super) div: BTreeMap<usize, i64>,
    /// The writes before each loop that has inner loops, nearest first, with the linear
    /// value each assignment gives (`None`: not linear, or not an assignment).
    defs: BTreeMap<usize, Vec<(String, Option<Lin>)>>,
}

impl Nests {
    /// Records loop `key`, nested in `parent`, with its own candidate atoms.
    pub(super) fn note_loop(&mut self, key: usize, parent: Option<usize>, own: &[Lin]) {
        self.parent.insert(key, parent);
        self.own.insert(key, own.to_vec());
    }

    /// Records the counter `x` of loop `key`, its raw ranking atom `raw` and shift `s`.
    pub(super) fn note_counter(&mut self, key: usize, x: &str, raw: &Lin, s: &Q) {
        self.counter
            .insert(key, (x.to_string(), raw.clone(), s.clone()));
    }

    /// Records the writes before loop `key` (nearest first, see [`Nests::defs`]).
    pub(super) fn note_defs(&mut self, key: usize, defs: Vec<(String, Option<Lin>)>) {
        self.defs.insert(key, defs);
    }

    /// `form`, a form at the entry of loop `key`, expressed before the writes that precede
    /// the loop; `None` when one of them is not a linear assignment.
    fn before(&self, key: usize, form: &Lin) -> Option<Lin> {
        let mut cur = form.clone();
        for (y, def) in self.defs.get(&key)? {
            if cur.mentions(y) {
                cur = cur.subst(y, def.as_ref()?);
            }
        }
        Some(cur)
    }

    /// Records the entry value `x0` of loop `key`'s counter (its form before the loop).
    pub(super) fn note_entry(&mut self, key: usize, x0: &Lin) {
        self.entry.insert(key, x0.clone());
    }

    /// Records the range of loop `key`: its ranking atom before the loop (the last form
    /// recorded wins: the one through every preceding assignment).
    pub(super) fn note_range(&mut self, key: usize, form: &Lin) {
        self.raw_range.insert(key, form.clone());
        if let AtomVal::Scaled(_, a) = canon_atom(form) {
            self.range.insert(key, a);
        }
    }

    fn children(&self) -> BTreeMap<usize, Vec<usize>> {
        let mut out: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (k, p) in &self.parent {
            if let Some(p) = p {
                out.entry(*p).or_default().push(*k);
            }
        }
        out
    }

    /// Loops on the path from `key` to the top, `key` first.
    fn ancestors_or_self(&self, key: usize) -> Vec<usize> {
        let mut out = vec![key];
        let mut cur = key;
        while let Some(Some(p)) = self.parent.get(&cur) {
            out.push(*p);
            cur = *p;
        }
        out
    }

    /// Depth of the subtree of loops rooted at `key` (1 for a loop without inner loops).
    fn height(&self, key: usize, kids: &BTreeMap<usize, Vec<usize>>) -> usize {
        1 + kids
            .get(&key)
            .map(|ks| ks.iter().map(|k| self.height(*k, kids)).max().unwrap_or(0))
            .unwrap_or(0)
    }

    /// The products of the ranges along every downward chain of loops strictly below `key`
    /// (each chain's prefixes: `r₁`, `r₁·r₂`, …).
    fn range_products(&self, key: usize, kids: &BTreeMap<usize, Vec<usize>>) -> Vec<Mono> {
        let mut out = Vec::new();
        for k in kids.get(&key).into_iter().flatten() {
            let Some(r) = self.range.get(k) else { continue };
            out.push(vec![r.into()]);
            for mut m in self.range_products(*k, kids) {
                m.push(r.into());
                out.push(m);
            }
        }
        out
    }

    /// Computes the chain monomials of every loop of a nest deeper than `degree` and the
    /// triangular loops (once every loop is recorded).
    pub(super) fn finish(&mut self, degree: usize) {
        let kids = self.children();
        for (k, p) in &self.parent {
            let Some(p) = p else { continue };
            if let (Some((x, _, _)), Some(r)) = (self.counter.get(p), self.range.get(k)) {
                if r.mentions(x) {
                    self.triangular.insert(*p);
                }
            }
            // the relaxation `c·(x₀ − x)` of loop `k`'s range over its parent's counter
            let (Some((x, _, _)), Some(x0), Some(rr)) = (
                self.counter.get(p),
                self.entry.get(p),
                self.raw_range.get(k),
            ) else {
                continue;
            };
            let c = rr.coef(x);
            if c < Q::zero() && !x0.mentions(x) {
                let delta = x0.sub(&Lin::var(x)).scale(&c);
                self.relax.insert(*k, delta);
            }
        }
        let keys: Vec<usize> = self.parent.keys().copied().collect();
        for key in keys {
            let path = self.ancestors_or_self(key);
            let root = *path.last().unwrap_or(&key);
            if self.height(root, &kids) <= degree {
                continue;
            }
            let mut set = BTreeSet::new();
            for l in &path {
                let prods = self.range_products(*l, &kids);
                let own = self.own.get(l).cloned().unwrap_or_default();
                for p in &prods {
                    let mut bare = p.clone();
                    bare.sort();
                    set.insert(bare);
                    for a in &own {
                        let mut m = p.clone();
                        m.push(a.into());
                        m.sort();
                        set.insert(m);
                    }
                }
            }
            self.chains.insert(key, set);
        }
    }

    /// The chain monomials of loop `key` (empty unless its nest is deeper than the degree).
    pub(super) fn chains(&self, key: usize) -> impl Iterator<Item = &Mono> {
        self.chains.get(&key).into_iter().flatten()
    }

    /// Whether some loop of the program is triangular (the over-shift could apply).
    pub(super) fn has_triangular(&self) -> bool {
        !self.triangular.is_empty()
    }

    /// Whether some triangular loop's range (its ranking form before it) mentions only
    /// thread indices: its trip count may be a launch constant `P` decides, so the unroll
    /// mode could apply.
    pub(super) fn has_constant_triangular(&self) -> bool {
        self.triangular.iter().any(|k| {
            self.raw_range
                .get(k)
                .is_some_and(|r| r.vars().all(|v| v.starts_with("threadIdx")))
        })
    }

    /// With the unroll mode on: whether loop `key` is triangular (to be unrolled when `P`
    /// decides its trip count).
    pub(super) fn unroll_triangular(&self, key: usize) -> bool {
        self.unroll && self.triangular.contains(&key)
    }

    /// With deferred shifts on: the directly nested loops of the triangular loop `key`
    /// whose range mentions `key`'s counter (empty otherwise).
    pub(super) fn deferred_inner(&self, key: usize) -> BTreeSet<usize> {
        if !self.deferred || !self.triangular.contains(&key) {
            return BTreeSet::new();
        }
        let Some((x, _, _)) = self.counter.get(&key) else {
            return BTreeSet::new();
        };
        self.parent
            .iter()
            .filter(|(k, p)| **p == Some(key) && self.range.get(k).is_some_and(|r| r.mentions(x)))
            .map(|(k, _)| *k)
            .collect()
    }

    /// The over-shifted atoms `max0(A + s)` of the triangular loops (to add to the
    /// candidate atoms of every template that has `A`).
    fn overshifted(&self) -> Vec<(Lin, Lin)> {
        let mut out = Vec::new();
        for k in &self.triangular {
            if let Some((_, raw, s)) = self.counter.get(k) {
                if let (AtomVal::Scaled(_, a), AtomVal::Scaled(_, y)) =
                    (canon_atom(raw), canon_atom(&raw.plus_const(s)))
                {
                    out.push((a, y));
                }
            }
        }
        out
    }
}

impl Ctx<'_> {
    /// With the over-shift on: `a` for the canonical ranking atom `a` of the triangular
    /// loop `key` becomes `max0(a + shift)` when that is canonical with factor 1 (constant
    /// steps only); otherwise `a` unchanged.
    pub(super) fn overshift_atom(&self, key: usize, a: Lin, shift: &Q, symbolic: bool) -> Lin {
        if !self.nests.overshift || symbolic || !self.nests.triangular.contains(&key) {
            return a;
        }
        match canon_atom(&a.plus_const(shift)) {
            AtomVal::Scaled(f, y) if f.is_one() => y,
            _ => a,
        }
    }

    /// For the over-shifted ranking atom `max0(A + s)` of the triangular loop `key`: the
    /// ordinary atom `A` and the witness that `p` (the body's pre, `P ∧ e`) gives `A ≥ s`.
    /// Q:WHILE's body rewrites shift `A` first (`max0(A) = s + max0(A − s)`), then the
    /// over-shifted atom (`max0(A + s) = s + max0(A)`): the invariant keeps terms over `A`,
    /// whose shift pays constants per round at `A`'s size, beside those over `A + s`, which
    /// pay the inner loop's entry `max0(A)`. `None` for other loops.
    pub(super) fn ordinary_first(
        &self,
        key: usize,
        la: &LoopAtom,
        p: &[Cstr],
    ) -> Option<(Lin, Farkas)> {
        if !self.nests.overshift || la.symbolic || !self.nests.triangular.contains(&key) {
            return None;
        }
        let AtomVal::Scaled(f, a) = canon_atom(&la.atom.plus_const(&-la.shift.clone())) else {
            return None;
        };
        if !f.is_one() {
            return None;
        }
        let w = entails(p, &Cstr::le(Lin::constant(la.shift.clone()).sub(&a)))?;
        Some((a, w))
    }

    /// With the relaxation on: the relaxed raw ranking form `raw + c·(x₀ − x)` of the inner
    /// loop `key` (`None` for other loops and when it is off).
    pub(super) fn relaxed_raw(&self, key: usize, raw: &Lin) -> Option<Lin> {
        let delta = self.nests.relax.get(&key).filter(|_| self.nests.relaxed)?;
        Some(raw.add(delta))
    }

    /// Adds the relaxed ranges `r[x := x₀]` of the relaxed inner loops (their uniform
    /// forms when they have thread terms; floor forms when the loop has floor atoms) to the
    /// candidate atoms of each such loop and of its ancestors.
    fn add_relaxed_ranges(&mut self) {
        let relax: Vec<(usize, Lin)> = self
            .nests
            .relax
            .iter()
            .filter_map(|(k, d)| Some((*k, self.nests.raw_range.get(k)?.add(d))))
            .collect();
        for (k, r1) in relax {
            let mut forms = vec![r1.clone()];
            forms.extend(self.tid_free(&r1));
            let div = self.nests.div.get(&k).copied();
            let path = self.nests.ancestors_or_self(k);
            // the form at the entry of the parent, then before each ancestor in turn
            let mut at = r1;
            for (n, &l) in path.iter().enumerate() {
                if n >= 2 {
                    let Some(b) = self.nests.before(path[n - 1], &at) else {
                        break;
                    };
                    at = b;
                    forms = vec![at.clone()];
                    forms.extend(self.tid_free(&at));
                }
                for f in &forms {
                    self.add_candidate_atom(l, f);
                    if let Some(c) = div {
                        self.add_candidate_floor(l, Atom::floor(f.clone(), c));
                    }
                }
            }
        }
    }

    /// Adds the residue atom `[m ∤ form]` of the one-time split charge of the
    /// Q:WHILELASTALIGN loop `key` (paid at its entry, spec/logic.md §4) to the candidate
    /// atoms of every loop that holds it: the invariant of an outer loop pays the charge per
    /// round only through a product of its own atoms with the residue atom (the test's
    /// uniform part `X` of `form = s − X` is filtered out of a template that writes it).
    pub(super) fn add_residue_to_ancestors(&mut self, key: usize, form: &Lin, m: &BigInt) {
        let loops = self.nests.ancestors_or_self(key).into_iter().skip(1);
        self.add_residue_to(loops, form, m);
    }

    /// The same for the charge `[m ∤ form]` of a Q:IFALIGN `if` whose then branch is `then`:
    /// it joins the candidate atoms of the innermost loop holding the `if` and of that
    /// loop's ancestors (nothing outside loops).
    pub(super) fn add_if_residue_to_loops(&mut self, then: &Stmt, form: &Lin, m: &BigInt) {
        let Some(&key) = self.if_loop.get(&loop_key(then)) else {
            return;
        };
        let loops = self.nests.ancestors_or_self(key);
        self.add_residue_to(loops, form, m);
    }

    /// The residue atom `[m ∤ form]` as a candidate atom of each loop of `loops`.
    fn add_residue_to(&mut self, loops: impl IntoIterator<Item = usize>, form: &Lin, m: &BigInt) {
        let atom = Atom::Res(Arc::new(form.clone()), m.clone());
        for l in loops {
            self.add_candidate_floor(l, atom.clone());
        }
    }

    /// The context with relaxed inner loops (derive/nest.rs): run after the over-shift.
    pub(super) fn finish_relaxed(&mut self) {
        self.nests.relaxed = true;
        self.add_relaxed_ranges();
    }

    /// Completes the nest data after `collect_atoms`: chain monomials, triangular loops, and
    /// (over-shift on) the over-shifted atoms in every candidate list that has the atom.
    pub(super) fn finish_nests(&mut self, overshift: bool) {
        self.nests.overshift = overshift;
        self.nests.finish(self.degree);
        if !overshift {
            return;
        }
        for (a, y) in self.nests.overshifted() {
            for list in self.atoms.values_mut() {
                if list.contains(&a) && !list.contains(&y) {
                    list.push(y.clone());
                }
            }
        }
    }
}
