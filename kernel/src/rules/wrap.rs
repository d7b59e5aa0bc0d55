//! Wrapped entries (issue 15, spec/logic.md §2 "Wrapped entries"): the entry
//! `(wrap x k m)` an assignment `x ← a % m` may claim when `a` has a linear entry, and
//! what the access bound `N*` reads of an index with such an entry.

use super::Ctx;
use crate::access::Kind;
use crate::arith::{Dep, DepMap, EntryKind};
use crate::syntax::{Assn, Expr, Opd};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::Signed;

impl Ctx<'_> {
    /// `wrap_D(e)`: for `e = (bin % a b)` with `dep_D(b) = (0, m, 0)`, `m ≥ 1`, and
    /// `dep_D(a) = (k, r, g)` a linear entry, the wrapped entry `(wrap k m)`; for `e = (var
    /// y)` with a wrapped entry, that entry; else `None`.
    /// Sound: every active thread has `a = k·tid + c` for one integer `c`, and the
    /// semantics' `%` is C's truncating remainder `rem` (spec/semantics.md, EC:OP).
    pub fn wrap_assigned(&self, d: &DepMap, e: &Expr) -> Option<Dep> {
        let (a, b) = match e {
            // a copy keeps the entry
            Expr::Opd(Opd::Var(y)) => return d.get(y).filter(|x| x.kind == EntryKind::Wrap).cloned(),
            Expr::Bin(op, a, b) if op == "%" => (a, b),
            _ => return None,
        };
        let m = Self::dep_opd(d, b)?.as_exact().filter(|m| m.is_positive())?.clone();
        Some(Dep::wrap(Self::dep_opd(d, a)?.k, m))
    }

    /// The candidates `x ← e` may claim an entry implied by (spec/logic.md §2 "Assigned
    /// entry"): `ent_P,D(e)` ([`Ctx::dep_assigned`]), then `wrap_D(e)`, then in a lower
    /// certificate the warp-exact product `went_W(e)` ([`super::lower::went_w`], §4b).
    pub fn assigned_candidates(&self, pre: &Assn, e: &Expr) -> Vec<Dep> {
        self.dep_assigned(pre, e)
            .into_iter()
            .chain(self.wrap_assigned(&pre.d, e))
            .chain(super::lower::went_w(self, &pre.d, e))
            .collect()
    }

    /// What `N*` reads of index `o` (spec/logic.md §2 "Access bounds"), for an array of
    /// `es`-byte elements and the hardware function `kind`: the dependence (`dep_D(o)`,
    /// else a scaled entry's; for a wrapped entry `(wrap k m)` of `o`, the linear entry
    /// `(k, 0, 1)` when `kind` is `Conflicts` and `m·es` is a multiple of
    /// `bank_bytes·banks`) and, when there is no dependence, a window width (a range entry's
    /// `w`, a wrapped or remainder entry's `2m − 2`).
    pub fn index_entry(&self, d: &DepMap, o: &Opd, es: u32, kind: Kind) -> (Option<Dep>, Option<BigInt>) {
        let dep = Self::dep_opd(d, o).or_else(|| Self::scaled_opd(d, o));
        let entry = match (o, &dep) {
            (Opd::Var(x), None) => d.get(x),
            _ => None,
        };
        match entry {
            Some(e) => match wrap_conflicts(e, es, kind, self.hw) {
                Some(lin) => (Some(lin), None),
                None => (None, e.window()),
            },
            None => (dep, None),
        }
    }
}

/// For a wrapped entry `e = (wrap k m)` of an index into an array of `es`-byte elements:
/// the linear entry `(k, 0, 1)` that `N*` counts `Conflicts` with when `m·es` is a
/// multiple of `bank_bytes·banks` (hardware `hw = [warp, banks, bank_bytes, sector_bytes]`);
/// `None` for any other entry, for `MemReads`, or when the period does not divide `m·es`
/// (spec/logic.md §2 "Wrapped entries"). Sound: per lane `(a rem m) = a − m·q` for an integer
/// `q`, so its bank is `a`'s, and lanes with equal `a` have equal `a rem m`.
pub fn wrap_conflicts(e: &Dep, es: u32, kind: Kind, hw: [u32; 4]) -> Option<Dep> {
    let period = BigInt::from(u64::from(hw[1]) * u64::from(hw[2]));
    let divides = (&e.g * BigInt::from(es)).is_multiple_of(&period);
    (e.kind == EntryKind::Wrap && kind == Kind::Conflicts && divides)
        .then(|| Dep::norm(e.k.clone(), BigInt::from(0), BigInt::from(1)))
}
