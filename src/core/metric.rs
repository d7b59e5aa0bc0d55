//! Resource metrics (RaCUDA §3, Table 1): a rational cost for each resource constant.
//! The four standard metrics are `sectors`, `conflicts`, `divwarps` and `steps`
//! (`spec/metrics.md` gives the table and the one deviation from the journal's Table 1).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// Exact rationals used for every cost.
pub type Q = BigRational;

/// `a + b`, without the rational addition's gcd when one of them is zero or both are
/// integers (issue 13: expression costs are summed at every node of a derivation).
pub fn q_sum(a: &Q, b: &Q) -> Q {
    if a.is_zero() {
        b.clone()
    } else if b.is_zero() {
        a.clone()
    } else if a.is_integer() && b.is_integer() {
        Q::from_integer(a.numer() + b.numer())
    } else {
        a + b
    }
}

/// Integer `n` as a rational.
pub fn q(n: i64) -> Q {
    BigRational::from_integer(BigInt::from(n))
}

/// The names of the standard metrics of RaCUDA Table 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MetricName {
    /// Global-memory sectors read and written (uncoalesced accesses count several).
    Sectors,
    /// Shared-memory bank conflicts (`Conflicts(R) − 1` per access).
    Conflicts,
    /// Divergent warps: one per divergent `if` and per loop iteration that splits the warp.
    Divwarps,
    /// Evaluation steps (one per operand, operator, assignment, branch ...; `n` per memory
    /// access that needs `n` sectors or has `n`-way conflicts).
    Steps,
}

impl MetricName {
    /// All four, in the order of Table 1.
    pub const ALL: [MetricName; 4] = [
        MetricName::Sectors,
        MetricName::Conflicts,
        MetricName::Divwarps,
        MetricName::Steps,
    ];
    /// The lowercase name used on the command line, in certificates and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MetricName::Sectors => "sectors",
            MetricName::Conflicts => "conflicts",
            MetricName::Divwarps => "divwarps",
            MetricName::Steps => "steps",
        }
    }
}

impl fmt::Display for MetricName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MetricName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "sectors" => Ok(MetricName::Sectors),
            "conflicts" => Ok(MetricName::Conflicts),
            "divwarps" => Ok(MetricName::Divwarps),
            "steps" => Ok(MetricName::Steps),
            _ => Err(format!(
                "unknown metric `{s}` (expected sectors, conflicts, divwarps or steps)"
            )),
        }
    }
}

/// A cost depending on an access count `n` (number of sectors or of conflicting addresses):
/// `mul·n + add`. Monotone because `mul ≥ 0` in every standard metric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Affine {
    /// Coefficient of `n`.
    pub mul: Q,
    /// Constant part.
    pub add: Q,
}

impl Affine {
    /// `mul·n + add`.
    pub fn at(&self, n: u64) -> Q {
        // integer coefficients (every standard metric's): no rational gcd (issue 13)
        if self.mul.is_integer() && self.add.is_integer() {
            return Q::from_integer(self.mul.numer() * BigInt::from(n as i64) + self.add.numer());
        }
        &self.mul * q(n as i64) + &self.add
    }
    fn zero() -> Affine {
        Affine {
            mul: Q::zero(),
            add: Q::zero(),
        }
    }
    fn n() -> Affine {
        Affine {
            mul: Q::one(),
            add: Q::zero(),
        }
    }
    fn n_minus_1() -> Affine {
        Affine {
            mul: Q::one(),
            add: -Q::one(),
        }
    }
}

/// A resource metric `M`: one cost per resource constant of RaCUDA Table 1, plus `M^sync`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metric {
    /// Which standard metric this is.
    pub name: MetricName,
    /// `M^var` (also charged for `threadIdx.d`, rule OC:TID).
    pub var: Q,
    /// `M^const`
    pub konst: Q,
    /// `M^param`
    pub param: Q,
    /// `M^op` (binary and unary operators).
    pub op: Q,
    /// `M^gread(n)`, `n` = MemReads.
    pub gread: Affine,
    /// `M^sread(n)`, `n` = Conflicts.
    pub sread: Affine,
    /// `M^if` (each evaluation of a branch or loop condition).
    pub if_: Q,
    /// `M^div` (each divergence).
    pub div: Q,
    /// `M^vwrite`
    pub vwrite: Q,
    /// `M^gwrite(n)`, `n` = MemReads.
    pub gwrite: Affine,
    /// `M^swrite(n)`, `n` = Conflicts.
    pub swrite: Affine,
    /// `M^sync` (each `__syncthreads()`).
    pub sync: Q,
}

impl Metric {
    /// The metric `name` that charges nothing (the base of the standard ones).
    fn free(name: MetricName) -> Metric {
        Metric {
            name,
            var: Q::zero(),
            konst: Q::zero(),
            param: Q::zero(),
            op: Q::zero(),
            gread: Affine::zero(),
            sread: Affine::zero(),
            if_: Q::zero(),
            div: Q::zero(),
            vwrite: Q::zero(),
            gwrite: Affine::zero(),
            swrite: Affine::zero(),
            sync: Q::zero(),
        }
    }

    /// The standard metric `name` (Table 1; `steps` charges `n` for shared accesses, see spec).
    pub fn standard(name: MetricName) -> Metric {
        let one = Q::one;
        match name {
            MetricName::Sectors => Metric {
                gread: Affine::n(),
                gwrite: Affine::n(),
                ..Metric::free(name)
            },
            MetricName::Conflicts => Metric {
                sread: Affine::n_minus_1(),
                swrite: Affine::n_minus_1(),
                ..Metric::free(name)
            },
            MetricName::Divwarps => Metric {
                div: one(),
                ..Metric::free(name)
            },
            MetricName::Steps => Metric {
                name,
                var: one(),
                konst: one(),
                param: one(),
                op: one(),
                gread: Affine::n(),
                sread: Affine::n(),
                if_: one(),
                div: one(),
                vwrite: one(),
                gwrite: Affine::n(),
                swrite: Affine::n(),
                sync: one(),
            },
        }
    }
}
