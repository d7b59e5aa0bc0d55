//! The four standard metrics (spec/metrics.md; RaCUDA §3, Table 1, with `M^sync` and the
//! `steps` deviation for shared accesses documented there). The kernel's own copy.

use crate::arith::{rat, Rat};

/// A resource metric: one rational per resource constant; the four access costs are
/// affine in the access count `n`, stored as `(mul, add)` meaning `mul·n + add`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metric {
    /// `M^var` (locals and `threadIdx.d`).
    pub var: Rat,
    /// `M^const`.
    pub konst: Rat,
    /// `M^param`.
    pub param: Rat,
    /// `M^op` (binary and unary operators).
    pub op: Rat,
    /// `M^gread(n)` as `(mul, add)`.
    pub gread: (Rat, Rat),
    /// `M^sread(n)`.
    pub sread: (Rat, Rat),
    /// `M^if`.
    pub if_: Rat,
    /// `M^div`.
    pub div: Rat,
    /// `M^vwrite`.
    pub vwrite: Rat,
    /// `M^gwrite(n)`.
    pub gwrite: (Rat, Rat),
    /// `M^swrite(n)`.
    pub swrite: (Rat, Rat),
    /// `M^sync`.
    pub sync: Rat,
}

/// Evaluates an affine access cost `mul·n + add` at the access count `n`.
pub fn at(f: &(Rat, Rat), n: &Rat) -> Rat {
    &f.0 * n + &f.1
}

/// The standard metric named `name` (`sectors`, `conflicts`, `divwarps`, `steps`), or
/// `None` for any other name.
pub fn standard(name: &str) -> Option<Metric> {
    // Columns of spec/metrics.md: var const param op gread sread if div vwrite gwrite swrite sync.
    let (steps, n, n1, z) = ((rat(1), rat(0)), (rat(1), rat(0)), (rat(1), rat(-1)), (rat(0), rat(0)));
    let row = |u: i64, g: (Rat, Rat), s: (Rat, Rat), div: i64| Metric {
        var: rat(u),
        konst: rat(u),
        param: rat(u),
        op: rat(u),
        gread: g.clone(),
        sread: s.clone(),
        if_: rat(u),
        div: rat(div),
        vwrite: rat(u),
        gwrite: g,
        swrite: s,
        sync: rat(u),
    };
    match name {
        "sectors" => Some(row(0, n, z, 0)),
        "conflicts" => Some(row(0, z.clone(), n1, 0)),
        "divwarps" => Some(row(0, z.clone(), z, 1)),
        "steps" => Some(row(1, steps.clone(), steps, 1)),
        _ => None,
    }
}
