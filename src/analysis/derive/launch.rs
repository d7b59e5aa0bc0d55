//! Launch facts (`spec/logic.md` §5) and the root Q:WEAK that drops negative `blockIdx`
//! terms from the bound's atoms.

use crate::analysis::derive::backward::{TChild, TNode};
use crate::analysis::derive::identity_witnesses;
use crate::analysis::entail::entails;
use crate::analysis::tpoly::TPoly;
use crate::certificate::{Cg, Field, Rewrite};
use crate::core::assertion::linear::{tid_name, Cstr, Lin};
use crate::core::assertion::poly::{canon_atom, Atom, AtomVal};
use crate::core::metric::{q, Q};
use crate::core::{Launch, Program, Ty};
use num_traits::{One, Zero};
use std::collections::{BTreeMap, BTreeSet};

/// The launch facts of `spec/logic.md` §5, in order: thread-index bounds, `blockIdx.d ≥ 0`,
/// `gridDim.d ≥ 1`, `blockIdx.d ≤ gridDim.d − 1`.
pub fn launch_facts(prog: &Program, launch: &Launch) -> Vec<Cstr> {
    let mut p = Vec::new();
    for dim in crate::core::Dim::ALL {
        let t = Lin::var(&tid_name(dim));
        p.push(Cstr::le(t.scale(&-Q::one())));
        p.push(Cstr::le(
            t.plus_const(&-q(launch.block[dim.index()] as i64 - 1)),
        ));
    }
    for prm in &prog.params {
        if prm.name.starts_with("blockIdx.") {
            p.push(Cstr::le(Lin::var(&prm.name).scale(&-Q::one())));
        }
    }
    for prm in &prog.params {
        if prm.name.starts_with("gridDim.") {
            p.push(Cstr::le(
                Lin::var(&prm.name).scale(&-Q::one()).plus_const(&Q::one()),
            ));
        }
    }
    for dim in crate::core::Dim::ALL {
        let (b, g) = (
            format!("blockIdx.{}", dim.letter()),
            format!("gridDim.{}", dim.letter()),
        );
        if prog.param_ty(&b).is_some() && prog.param_ty(&g).is_some() {
            p.push(Cstr::le(
                Lin::var(&b).sub(&Lin::var(&g)).plus_const(&Q::one()),
            ));
        }
    }
    p
}

/// The floor atom `A = ⌊L/C⌋⁺` of the root potential with its negative `blockIdx.d` terms
/// dropped, `A' = ⌊L'/C⌋⁺` (canonical with the same divisor), and the witness of
/// `(imono A' A CG)`: sources `n`, `n + 1` are `A'`'s defining facts (`q1`), `n + 2`,
/// `n + 3` are `A`'s (`q2`); the cut `(1/C)·[(C·q2 − L) + (L' − C·q1 − (C − 1)) + w]`, `w`
/// the launch facts' proof of `L − L' ≤ 0` (residual `μ ≤ 0`), is `q2 − q1 − (C − 1 + μ)/C
/// ≤ 0`, rounded to `q2 − q1 + ⌈…⌉ ≤ 0` with `⌈…⌉ ≥ 0`: `(farkas (n+4 1))` proves
/// `q2 − q1 ≤ 0`. `None` when no term is dropped or the image is not of that shape.
fn floor_image(prog: &Program, p: &[Cstr], a: &Atom) -> Option<(Atom, Atom, Cg)> {
    if let Atom::FloorSym(l, d) = a {
        return sym_floor_image(prog, p, a, l, d);
    }
    let Atom::Floor(l, c) = a else { return None };
    let mut img: Lin = (**l).clone();
    for (v, k) in &l.terms {
        if v.starts_with("blockIdx.") && prog.param_ty(v) == Some(Ty::Int) && *k < Q::zero() {
            img.terms.remove(v);
        }
    }
    if img == **l {
        return None;
    }
    let AtomVal::Scaled(_, ia) = Atom::Floor(img.into(), c.clone()).canonical() else {
        return None;
    };
    let Atom::Floor(il, ic) = &ia else {
        return None;
    };
    if ic != c {
        return None;
    }
    let cg = crate::analysis::derive::ranking::floor_mono_cg(p, il, l, c)?;
    Some((ia.clone(), a.clone(), cg))
}

/// [`floor_image`] of a symbolic floor atom `A = ⌊L/D⌋⁺` (spec/logic.md §1 "Symbolic
/// divisors"): `A' = ⌊L'/D⌋⁺` without the negative `blockIdx.d` terms of `L` (canonical with
/// the same divisor), and the plain Farkas witness of `L − L' ≤ 0` from the launch facts
/// for `(imono A' A CG)` (no defining facts, no cut).
fn sym_floor_image(
    prog: &Program,
    p: &[Cstr],
    a: &Atom,
    l: &Lin,
    d: &Lin,
) -> Option<(Atom, Atom, Cg)> {
    let mut img: Lin = l.clone();
    for (v, k) in &l.terms {
        if v.starts_with("blockIdx.") && prog.param_ty(v) == Some(Ty::Int) && *k < Q::zero() {
            img.terms.remove(v);
        }
    }
    if img == *l {
        return None;
    }
    let AtomVal::Scaled(_, ia) = Atom::FloorSym(img.into(), d.clone().into()).canonical() else {
        return None;
    };
    let Atom::FloorSym(il, id) = &ia else {
        return None;
    };
    if **id != *d {
        return None;
    }
    let cg = crate::analysis::derive::ranking::sym_mono_cg(p, il, l)?;
    Some((ia.clone(), a.clone(), cg))
}

/// The per-warp bound is for every block: an atom of the root potential with negative
/// `blockIdx.d` terms is replaced by the atom without them (larger, as `blockIdx.d ≥ 0` is a
/// launch fact), through a root Q:WEAK with `(mono …)` rewrites (spec/certificate.md).
/// Atoms whose image would coincide with another atom are kept. Returns the root node and
/// its potential (unchanged when no atom mentions a block index negatively).
pub(super) fn drop_block_indices(prog: &Program, tn: TNode, qroot: &TPoly) -> (TNode, TPoly) {
    let atoms: BTreeSet<Lin> = qroot.max0_atoms().cloned().collect();
    let mut images: BTreeMap<Lin, (Lin, Lin)> = BTreeMap::new(); // atom ↦ (image, canonical image)
    for a in &atoms {
        let mut img = a.clone();
        for (v, c) in &a.terms {
            if v.starts_with("blockIdx.") && prog.param_ty(v) == Some(Ty::Int) && *c < Q::zero() {
                img.terms.remove(v);
            }
        }
        if img == *a {
            continue;
        }
        if let AtomVal::Scaled(_, canon) = canon_atom(&img) {
            images.insert(a.clone(), (img, canon));
        }
    }
    // keep only injective images that are not atoms already
    let mut count: BTreeMap<&Lin, usize> = BTreeMap::new();
    for (_, c) in images.values() {
        *count.entry(c).or_default() += 1;
    }
    let keep: Vec<(Lin, Lin, Lin)> = images
        .iter()
        .filter(|(_, (_, c))| count[c] == 1 && !atoms.contains(c))
        .map(|(a, (img, c))| (a.clone(), img.clone(), c.clone()))
        .collect();
    let p = tn.pre.0.p.clone();
    let floors: BTreeSet<&Atom> = qroot
        .terms
        .keys()
        .flatten()
        .filter(|a| matches!(a, Atom::Floor(..) | Atom::FloorSym(..)))
        .collect();
    let floors: Vec<(Atom, Atom, Cg)> = floors
        .into_iter()
        .filter_map(|a| floor_image(prog, &p, a))
        .collect();
    if keep.is_empty() && floors.is_empty() {
        return (tn, qroot.clone());
    }
    let mut outer_q = qroot.clone();
    let mut rws = Vec::new();
    for (img, a, cg) in floors {
        if outer_q.terms.keys().flatten().any(|b| *b == img) {
            continue; // the image is an atom already: kept apart, as for max0 atoms
        }
        outer_q = outer_q.replace_atom(&a, &[(Q::one(), Some(img.clone()))]);
        rws.push(Rewrite::IMono(img, a, cg));
    }
    for (a, img, _) in &keep {
        outer_q = outer_q.replace_atom(&a.into(), &[(Q::one(), Some(img.into()))]);
        // P ⇒ img ≥ a: img − a = Σ |c|·blockIdx.d, from the launch facts −blockIdx.d ≤ 0
        match entails(&p, &Cstr::le(a.sub(img))) {
            Some(w) => rws.push(Rewrite::Mono(img.clone(), a.clone(), w)),
            None => return (tn, qroot.clone()),
        }
    }
    let node = TNode {
        rule: "Q:WEAK",
        pre: (tn.pre.0.clone(), outer_q.clone()),
        post: tn.post.clone(),
        fields: vec![
            Field::Entail("pre", identity_witnesses(&p)),
            Field::Rewrite("pre", rws),
            Field::Entail("post", identity_witnesses(&tn.post.0.p)),
        ],
        children: vec![TChild::Stmt(tn)],
    };
    (node, outer_q)
}
