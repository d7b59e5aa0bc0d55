//! Potential templates: the monomials over a loop's candidate atoms up to the degree, each
//! with a fresh LP coefficient (RaCUDA §7).

use crate::analysis::derive::backward::Back;
use crate::analysis::linear::uniform_form;
use crate::analysis::tpoly::{LinExpr, TPoly};
use crate::core::assertion::linear::{DepMap, Lin};
use crate::core::assertion::poly::{Atom, Mono};
use std::collections::BTreeSet;

impl Back<'_, '_> {
    pub(super) fn template(&mut self, monos: &BTreeSet<Mono>) -> TPoly {
        let mut t = TPoly::zero();
        for m in monos {
            let v = self.lp.fresh(true);
            t.add_term(m.clone(), LinExpr::var(v));
        }
        t
    }

    /// The monomials of loop `key`'s invariant template: the products of at most the
    /// degree of its candidate atoms, and in a nest deeper than the degree its chain
    /// monomials (`derive/nest.rs`), both over atoms uniform under `d` that mention no
    /// variable of `exclude`; its candidate floor atoms are atoms too.
    pub(super) fn monomials(&self, key: usize, d: &DepMap, exclude: &[String]) -> BTreeSet<Mono> {
        let floors = self.ctx.floors.get(&key);
        let mut out = self.monomials_over(
            self.ctx.atoms.get(&key),
            floors,
            d,
            exclude,
            self.ctx.degree,
        );
        self.add_chains(key, d, exclude, &mut out);
        out
    }

    /// Adds to `out` the chain monomials of loop `key` whose atoms are uniform under `d` and
    /// mention no variable of `exclude`.
    pub(super) fn add_chains(
        &self,
        key: usize,
        d: &DepMap,
        exclude: &[String],
        out: &mut BTreeSet<Mono>,
    ) {
        for m in self.ctx.nests.chains(key) {
            let ok = m.iter().all(|a| {
                a.forms()
                    .into_iter()
                    .all(|l| uniform_form(self.ctx, d, l) && l.vars().all(|v| !exclude.contains(v)))
            });
            if ok {
                out.insert(m.clone());
            }
        }
    }

    /// The monomials of at most `degree` atoms of `atoms` and `floors` uniform under `d`
    /// that mention no variable of `exclude` (an exit loop's invariant template).
    pub(super) fn monomials_deg(
        &self,
        atoms: Option<&Vec<Lin>>,
        floors: Option<&Vec<Atom>>,
        d: &DepMap,
        exclude: &[String],
        degree: usize,
    ) -> BTreeSet<Mono> {
        self.monomials_over(atoms, floors, d, exclude, degree)
    }

    fn monomials_over(
        &self,
        atoms: Option<&Vec<Lin>>,
        floors: Option<&Vec<Atom>>,
        d: &DepMap,
        exclude: &[String],
        degree: usize,
    ) -> BTreeSet<Mono> {
        let mut scope: Vec<Atom> = Vec::new();
        let all = atoms
            .into_iter()
            .flatten()
            .map(Atom::from)
            .chain(floors.into_iter().flatten().cloned());
        for a in all {
            if !scope.contains(&a) {
                scope.push(a);
            }
        }
        let atoms: Vec<Atom> = scope
            .into_iter()
            .filter(|a| {
                a.forms()
                    .into_iter()
                    .all(|l| uniform_form(self.ctx, d, l) && l.vars().all(|v| !exclude.contains(v)))
            })
            .collect();
        let mut out: BTreeSet<Mono> = BTreeSet::new();
        out.insert(Vec::new());
        let mut frontier: Vec<Mono> = vec![Vec::new()];
        for _ in 0..degree {
            let mut next = Vec::new();
            for m in &frontier {
                for a in &atoms {
                    if m.last().is_some_and(|l| l > a) {
                        continue;
                    }
                    let mut nm = m.clone();
                    nm.push(a.clone());
                    if out.insert(nm.clone()) {
                        next.push(nm);
                    }
                }
            }
            frontier = next;
        }
        out
    }
}
