//! Derivation trees of the quantitative logic (`spec/logic.md`, RaCUDA §4 Fig. 8) in the
//! shape of `spec/certificate.md`, and the certificate writer ([`write()`]).
//!
//! A [`Node`] does not name its statement: as in the certificate format, the statement is
//! determined by walking the program together with the derivation.

pub mod provenance;
mod write;

pub use write::{cstr_sexp, poly_sexp, program_sexp, write};

use crate::core::assertion::poly::Atom;
use crate::core::assertion::{Cstr, DepMap, Lin, Poly};
use crate::core::metric::Q;

/// A Farkas witness `(farkas (I λ) ...)`: multipliers `λ` for constraints `I` (0-based
/// indices into the source `P` list). Valid for target `(le L)` when `L − Σ λ_I·L_I` is a
/// constant `≤ 0` and `λ ≥ 0` on `le` sources; for `(eq L)` when it is `0` and only `eq`
/// sources are used.
///
/// The identity witness `(farkas (I 1))` (a constraint entailed by itself, the most common
/// one: frames, subset weakenings) is [`Farkas::Id`], which allocates nothing (issue 13:
/// the vector and the big rational `1` were ~350 k allocations per 1 000 statements).
/// Equality is by the terms ([`Farkas::terms`]): `Id(i)` equals `Comb(vec![(i, 1)])`.
/// The terms of a combination are boxed, so that a witness is 16 bytes, not 24 (issue 13:
/// a long program's derivation holds millions of witnesses, nearly all identities).
#[derive(Clone, Debug)]
pub enum Farkas {
    /// `(farkas (I 1))`.
    Id(usize),
    /// `(farkas (I λ) ...)`, any terms (possibly none).
    Comb(Box<Vec<(usize, Q)>>),
}

impl Default for Farkas {
    /// The empty combination `(farkas)`.
    fn default() -> Self {
        Farkas::Comb(Box::default())
    }
}

/// The rational `1` of identity witnesses, shared (built once).
fn q_one() -> &'static Q {
    static ONE: std::sync::OnceLock<Q> = std::sync::OnceLock::new();
    ONE.get_or_init(num_traits::One::one)
}

impl Farkas {
    /// The terms `(I, λ)` in order (`(I, 1)` for [`Farkas::Id`]).
    pub fn terms(&self) -> impl Iterator<Item = (usize, &Q)> + '_ {
        let (id, comb) = match self {
            Farkas::Id(i) => (Some((*i, q_one())), &[][..]),
            Farkas::Comb(v) => (None, v.as_slice()),
        };
        id.into_iter().chain(comb.iter().map(|(i, l)| (*i, l)))
    }

    /// `Some(I)` when the witness is `(farkas (I 1))`, in either representation.
    pub fn identity(&self) -> Option<usize> {
        match self {
            Farkas::Id(i) => Some(*i),
            Farkas::Comb(v) => match v.as_slice() {
                [(i, l)] if num_traits::One::is_one(l) => Some(*i),
                _ => None,
            },
        }
    }
}

impl PartialEq for Farkas {
    fn eq(&self, other: &Self) -> bool {
        self.terms().eq(other.terms())
    }
}

impl Eq for Farkas {}

/// An integer witness `(cg (cut (I λ) ...) ... FARKAS)` (spec/certificate.md "Integer
/// rewrites"): Chvátal–Gomory cuts, each a combination over the source list built so far
/// (the node's `P`, the defining facts of the floor atoms named, the earlier cuts) whose
/// derived constraint is appended, then the final Farkas witness over the whole list.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Cg {
    /// The cuts, in order.
    pub cuts: Vec<Farkas>,
    /// The final witness.
    pub farkas: Farkas,
}

/// One atom rewrite of a `(rewrite NAME ...)` field (`spec/certificate.md`).
#[derive(Clone, Debug, PartialEq)]
pub enum Rewrite {
    /// `(shift LIN D FARKAS)`: `P ⇒ LIN ≥ D` (witness for the target `(le D − LIN)`),
    /// `D ≥ 0`; `max0(LIN) = max0(LIN − D) + D`.
    Shift(Lin, Q, Farkas),
    /// `(split LIN D FARKAS1 FARKAS2)`: `P ⇒ D ≥ 0` (witness for `(le −D)`) and
    /// `P ⇒ LIN ≥ D` (witness for `(le D − LIN)`), `D` a linear form;
    /// `max0(LIN) = max0(LIN − D) + max0(D)`.
    Split(Lin, Lin, Farkas, Farkas),
    /// `(zero LIN FARKAS)`: `P ⇒ LIN ≤ 0` (witness for `(le LIN)`); `max0(LIN) = 0`.
    Zero(Lin, Farkas),
    /// `(mono LIN1 LIN2 FARKAS)`: `P ⇒ LIN1 ≥ LIN2` (witness for `(le LIN2 − LIN1)`);
    /// `max0(LIN1) ≥ max0(LIN2)`.
    Mono(Lin, Lin, Farkas),
    /// `(ishift ATOM D CG)` (spec/certificate.md "Integer rewrites"): `P` (with the atom's
    /// defining facts and the cuts of `CG`) proves `arg(ATOM) ≥ D`, `D ≥ 0` (an integer for
    /// a floor atom); `ATOM = D + ATOM↓D`.
    IShift(Atom, Q, Cg),
    /// `(izero ATOM CG)`: `P` (with the atom's defining facts and the cuts) proves
    /// `arg(ATOM) ≤ 0`; `ATOM = 0` (the lower-bound producer's loop exits, spec/logic.md §4b).
    IZero(Atom, Cg),
    /// `(imono ATOM1 ATOM2 CG)`: `P` (with both atoms' defining facts and the cuts) proves
    /// `arg(ATOM1) ≥ arg(ATOM2)`; `ATOM1 ≥ ATOM2`.
    IMono(Atom, Atom, Cg),
    /// `(lhalve LIN FARKAS)` (spec/certificate.md "Log rewrites"): `P ⇒ LIN ≥ 2` (witness
    /// for `(le 2 − LIN)`); `⌊log2 LIN⌋⁺ = 1 + ⌊log2 (LIN/2)⌋⁺`.
    LHalve(Lin, Farkas),
    /// `(ldouble LIN1 LIN2 FARKAS1 FARKAS2)` (spec/certificate.md "Log rewrites"):
    /// `P ⇒ LIN2 ≥ 1` (witness for `(le 1 − LIN2)`), `P ⇒ 2·LIN2 ≤ LIN1` (witness for
    /// `(le 2·LIN2 − LIN1)`), `LIN2` integral; `⌊log2 (L/M)⌋⁺ = 1 + ⌊log2 (L/2M)⌋⁺`.
    LDouble(Lin, Lin, Farkas, Farkas),
}

/// An assertion `(assn (P ...) (D ...) (Q POLY))` (spec/logic.md §1).
#[derive(Clone, Debug, PartialEq)]
pub struct Assn {
    /// Ordered list of linear constraints (shared with the analysis' abstract states).
    pub p: std::sync::Arc<Vec<Cstr>>,
    /// Thread-dependence map (shared likewise).
    pub d: std::sync::Arc<DepMap>,
    /// Potential (coefficients ≥ 0).
    pub q: Poly,
}

/// A field of a node (each kind at most once per node).
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// `(n N)`: the claimed `MemReads`/`Conflicts` bound.
    N(u64),
    /// `(frame C)` of Q:WEAK.
    Frame(Q),
    /// `(entail NAME FARKAS ...)`: one witness per constraint of the target list.
    Entail(&'static str, Vec<Farkas>),
    /// `(rewrite NAME RW ...)`.
    Rewrite(&'static str, Vec<Rewrite>),
    /// `(lanes L1 L2)`: L:IFDIV's lanes of the named warp where the test is true, false
    /// (spec/logic.md §4b).
    Lanes(u32, u32),
    /// `(lanes L)`: L:IFDT's lane of the named warp where the test is true (spec/logic.md
    /// §4b).
    Lane(u32),
    /// `(class S M)`: the residue class `(s, m)` of Q:IFALIGN and Q:WHILELASTALIGN (spec/logic.md §4), which the
    /// kernel checks (`m ≥ 1`, `m | G`, the window check) instead of searching for it.
    Class(num_bigint::BigInt, num_bigint::BigInt),
    /// `(rows (C M)…)`: the charge terms `C·[M ∤ X]` of Q:GWRITEROWS and Q:VWRITEROWS
    /// (spec/logic.md §4 "Rows"), which the kernel checks against the warp's rows.
    Rows(Vec<(u64, u64)>),
    /// `(guard I S (C t)…)`: Q:GWRITEGUARD and Q:VWRITEGUARD's guard constraint (index `I`
    /// of the pre's `P`), floor divisor `S` and charge terms `C·[t ≤ −L_u]`
    /// (spec/logic.md §4 "Guarded accesses").
    Guard(usize, i64, Vec<(u64, i64)>),
}

/// What a node proves: a statement triple or an expression cost.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgment {
    /// `⊢_M {pre} s {post}`.
    Stmt {
        /// Precondition.
        pre: Assn,
        /// Postcondition.
        post: Assn,
    },
    /// `P ⊢_M e : cost`.
    Expr {
        /// The cost `C`.
        cost: Q,
    },
}

/// A derivation node: rule name (spec/logic.md names, e.g. `Q:WHILE1`), judgment, fields,
/// children in the order spec/logic.md gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Rule name.
    pub rule: &'static str,
    /// Judgment.
    pub judgment: Judgment,
    /// Fields, written before the children.
    pub fields: Vec<Field>,
    /// Sub-derivations.
    pub children: Vec<Node>,
}

impl Node {
    /// Counts the rule instances of the tree by name.
    pub fn count_rules(&self, out: &mut std::collections::BTreeMap<&'static str, usize>) {
        // counted in a hash map first (issue 13: a `BTreeMap` entry per node compared the
        // rule names along its path, a percent of a long program's analysis)
        fn count(n: &Node, out: &mut rustc_hash::FxHashMap<&'static str, usize>) {
            *out.entry(n.rule).or_insert(0) += 1;
            for c in &n.children {
                count(c, out);
            }
        }
        let mut by = rustc_hash::FxHashMap::default();
        count(self, &mut by);
        for (r, k) in by {
            *out.entry(r).or_insert(0) += k;
        }
    }
    /// The precondition of a statement node.
    pub fn pre(&self) -> Option<&Assn> {
        match &self.judgment {
            Judgment::Stmt { pre, .. } => Some(pre),
            Judgment::Expr { .. } => None,
        }
    }
}
