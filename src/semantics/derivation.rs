//! Resource usage counters and derivation trees of the lock-step semantics (RaCUDA Fig. 5).
//!
//! The interpreter does not add rationals at every rule: it counts how often each resource
//! constant of Table 1 is charged ([`Usage`]), and for the four constants with an argument
//! `n` (`M^gread`, `M^sread`, `M^gwrite`, `M^swrite`) it also sums the arguments. Since
//! every metric charges an affine `M^rc(n) = mul·n + add`, the cost of a run under `M` is
//! exactly `Σ_rc M^rc · count_rc + Σ_acc (mul·Σn + add·count)` ([`Usage::cost`]), so one
//! run gives the costs under all metrics at once.

use crate::core::metric::{q, Q};
use crate::core::Metric;
use std::fmt::{self, Write};

/// Count and summed arguments of one access constant (`M^gread(n)` etc.).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Number of accesses charged.
    pub count: u64,
    /// Sum of their arguments `n` (sectors or conflicting addresses).
    pub n_sum: u64,
}

impl Access {
    #[inline]
    fn add(&mut self, n: u64) {
        self.count = self.count.saturating_add(1);
        self.n_sum = self.n_sum.saturating_add(n);
    }
    fn minus(self, o: Access) -> Access {
        Access {
            count: self.count.saturating_sub(o.count),
            n_sum: self.n_sum.saturating_sub(o.n_sum),
        }
    }
    fn plus(self, o: Access) -> Access {
        Access {
            count: self.count.saturating_add(o.count),
            n_sum: self.n_sum.saturating_add(o.n_sum),
        }
    }
}

/// How often each resource constant of RaCUDA Table 1 (plus `M^sync`) was charged.
/// Counters saturate at `u64::MAX`, which a run within any realistic fuel cannot reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Usage {
    pub var: u64,
    pub konst: u64,
    pub param: u64,
    pub op: u64,
    pub gread: Access,
    pub sread: Access,
    pub if_: u64,
    pub div: u64,
    pub vwrite: u64,
    pub gwrite: Access,
    pub swrite: Access,
    pub sync: u64,
}

/// The resource constants without argument, for [`Usage::charge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Res {
    Var,
    Const,
    Param,
    Op,
    If,
    Div,
    VWrite,
    Sync,
}

/// The resource constants with an access-count argument, for [`Usage::charge_access`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum AccRes {
    GRead,
    SRead,
    GWrite,
    SWrite,
}

impl Usage {
    /// Charges constant `r` once.
    #[inline]
    pub fn charge(&mut self, r: Res) {
        let c = match r {
            Res::Var => &mut self.var,
            Res::Const => &mut self.konst,
            Res::Param => &mut self.param,
            Res::Op => &mut self.op,
            Res::If => &mut self.if_,
            Res::Div => &mut self.div,
            Res::VWrite => &mut self.vwrite,
            Res::Sync => &mut self.sync,
        };
        *c = c.saturating_add(1);
    }

    /// Charges `M^r(n)` once.
    #[inline]
    pub fn charge_access(&mut self, r: AccRes, n: u64) {
        match r {
            AccRes::GRead => self.gread.add(n),
            AccRes::SRead => self.sread.add(n),
            AccRes::GWrite => self.gwrite.add(n),
            AccRes::SWrite => self.swrite.add(n),
        }
    }

    /// `self − earlier` componentwise (the usage of a sub-run; `earlier` must be a snapshot
    /// taken before `self`, otherwise components saturate at 0).
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            var: self.var.saturating_sub(earlier.var),
            konst: self.konst.saturating_sub(earlier.konst),
            param: self.param.saturating_sub(earlier.param),
            op: self.op.saturating_sub(earlier.op),
            gread: self.gread.minus(earlier.gread),
            sread: self.sread.minus(earlier.sread),
            if_: self.if_.saturating_sub(earlier.if_),
            div: self.div.saturating_sub(earlier.div),
            vwrite: self.vwrite.saturating_sub(earlier.vwrite),
            gwrite: self.gwrite.minus(earlier.gwrite),
            swrite: self.swrite.minus(earlier.swrite),
            sync: self.sync.saturating_sub(earlier.sync),
        }
    }

    /// Componentwise sum.
    pub fn plus(&self, o: &Usage) -> Usage {
        Usage {
            var: self.var.saturating_add(o.var),
            konst: self.konst.saturating_add(o.konst),
            param: self.param.saturating_add(o.param),
            op: self.op.saturating_add(o.op),
            gread: self.gread.plus(o.gread),
            sread: self.sread.plus(o.sread),
            if_: self.if_.saturating_add(o.if_),
            div: self.div.saturating_add(o.div),
            vwrite: self.vwrite.saturating_add(o.vwrite),
            gwrite: self.gwrite.plus(o.gwrite),
            swrite: self.swrite.plus(o.swrite),
            sync: self.sync.saturating_add(o.sync),
        }
    }

    /// The exact cost of this usage under metric `m`:
    /// `Σ M^rc·count_rc + Σ_acc (M^acc.mul·Σn + M^acc.add·count)`.
    pub fn cost(&self, m: &Metric) -> Q {
        let n = |x: u64| q(i64::try_from(x).unwrap_or(i64::MAX));
        let acc = |a: &Access, aff: &crate::core::metric::Affine| {
            &aff.mul * n(a.n_sum) + &aff.add * n(a.count)
        };
        &m.var * n(self.var)
            + &m.konst * n(self.konst)
            + &m.param * n(self.param)
            + &m.op * n(self.op)
            + acc(&self.gread, &m.gread)
            + acc(&self.sread, &m.sread)
            + &m.if_ * n(self.if_)
            + &m.div * n(self.div)
            + &m.vwrite * n(self.vwrite)
            + acc(&self.gwrite, &m.gwrite)
            + acc(&self.swrite, &m.swrite)
            + &m.sync * n(self.sync)
    }

    /// The cost vector under `metrics` (same order).
    pub fn costs(&self, metrics: &[Metric]) -> Vec<Q> {
        metrics.iter().map(|m| self.cost(m)).collect()
    }
}

/// Metrics prepared for fast cost evaluation: when every constant of a metric is an integer
/// (true of the four standard metrics), costs are computed in `i128` and converted to `Q`
/// once; otherwise (or on `i128` overflow) with exact rational arithmetic. Both give the
/// same exact value ([`Usage::cost`]).
#[derive(Clone, Debug)]
pub struct CostModel {
    metrics: Vec<Metric>,
    ints: Vec<Option<[i128; 16]>>,
}

fn int_of(x: &Q) -> Option<i128> {
    use num_traits::ToPrimitive;
    if x.is_integer() {
        x.to_integer().to_i128()
    } else {
        None
    }
}

impl CostModel {
    /// Prepares `metrics` (same order in every result).
    pub fn new(metrics: &[Metric]) -> CostModel {
        let ints = metrics
            .iter()
            .map(|m| {
                let cs = [
                    &m.var,
                    &m.konst,
                    &m.param,
                    &m.op,
                    &m.gread.mul,
                    &m.gread.add,
                    &m.sread.mul,
                    &m.sread.add,
                    &m.if_,
                    &m.div,
                    &m.vwrite,
                    &m.gwrite.mul,
                    &m.gwrite.add,
                    &m.swrite.mul,
                    &m.swrite.add,
                    &m.sync,
                ];
                let mut out = [0i128; 16];
                for (o, c) in out.iter_mut().zip(cs) {
                    *o = int_of(c)?;
                }
                Some(out)
            })
            .collect();
        CostModel {
            metrics: metrics.to_vec(),
            ints,
        }
    }

    /// The metrics, in order.
    pub fn metrics(&self) -> &[Metric] {
        &self.metrics
    }

    /// The cost of `u` under each metric (exact; same values as [`Usage::costs`]).
    pub fn costs(&self, u: &Usage) -> Vec<Q> {
        let counts = [
            u.var,
            u.konst,
            u.param,
            u.op,
            u.gread.n_sum,
            u.gread.count,
            u.sread.n_sum,
            u.sread.count,
            u.if_,
            u.div,
            u.vwrite,
            u.gwrite.n_sum,
            u.gwrite.count,
            u.swrite.n_sum,
            u.swrite.count,
            u.sync,
        ];
        self.metrics
            .iter()
            .zip(&self.ints)
            .map(|(m, ints)| {
                let fast = ints.as_ref().and_then(|cs| {
                    cs.iter().zip(counts).try_fold(0i128, |acc, (c, n)| {
                        acc.checked_add(c.checked_mul(n as i128)?)
                    })
                });
                match fast {
                    Some(v) => Q::from_integer(num_bigint::BigInt::from(v)),
                    None => u.cost(m),
                }
            })
            .collect()
    }
}

/// One node of a lock-step derivation: the rule of Fig. 5 applied, the active threads `𝒯`
/// (block-linear thread ids, ascending), the cost `C` of the node's conclusion (one entry
/// per metric of the run, same order), the phrase judged (readable), and the premises'
/// derivations in the order the rule lists them.
///
/// Dropping and rendering are iterative, so deep trees (long loops, long sequences) do not
/// overflow the stack; `Clone`/`PartialEq` are recursive.
#[derive(Clone, Debug, PartialEq)]
pub struct Derivation {
    /// Rule name (one of [`super::RULES`]).
    pub rule: &'static str,
    /// The active threads, block-linear ids, ascending.
    pub threads: Vec<u32>,
    /// Cost of the conclusion, one entry per metric of the run.
    pub cost: Vec<Q>,
    /// The operand, expression or statement head judged (e.g. `x ← a + b`, `while (c)`).
    pub phrase: String,
    /// Derivations of the premises.
    pub children: Vec<Derivation>,
}

impl Drop for Derivation {
    fn drop(&mut self) {
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut d) = stack.pop() {
            stack.append(&mut d.children);
        }
    }
}

/// Depth up to which [`Derivation::render`] indents.
pub const MAX_INDENT: usize = 40;

/// `{0-15,20,22-23}`: a thread set with runs compressed.
pub fn render_threads(ts: &[u32]) -> String {
    let mut out = String::from("{");
    let mut i = 0;
    while i < ts.len() {
        let start = ts[i];
        let mut j = i;
        while j + 1 < ts.len() && ts[j + 1] == ts[j].wrapping_add(1) {
            j += 1;
        }
        if i > 0 {
            out.push(',');
        }
        if j > i {
            let _ = write!(out, "{}-{}", start, ts[j]);
        } else {
            let _ = write!(out, "{start}");
        }
        i = j + 1;
    }
    out.push('}');
    out
}

impl Derivation {
    /// The rule names in pre-order (root first, premises left to right).
    pub fn rules_preorder(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(d) = stack.pop() {
            out.push(d.rule);
            stack.extend(d.children.iter().rev());
        }
        out
    }

    /// Number of nodes.
    pub fn size(&self) -> usize {
        let mut n = 0;
        let mut stack = vec![self];
        while let Some(d) = stack.pop() {
            n += 1;
            stack.extend(d.children.iter());
        }
        n
    }

    /// Readable text: one node per line, indented two spaces per depth,
    /// `RULE  T={…}  cost=c1,c2,…  phrase`. Beyond depth [`MAX_INDENT`] the indentation
    /// stops growing and the line starts with `[depth N] ` (keeps the text linear in size).
    pub fn render(&self) -> String {
        self.render_impl(None)
    }

    /// As [`Derivation::render`], with the costs labelled by the run's metrics
    /// (`cost=sectors:3,steps:16`); `metrics` must be the run's metrics, in order.
    pub fn render_with_metrics(&self, metrics: &[Metric]) -> String {
        self.render_impl(Some(metrics))
    }

    fn render_impl(&self, metrics: Option<&[Metric]>) -> String {
        let mut out = String::new();
        let mut stack = vec![(self, 0usize)];
        while let Some((d, depth)) = stack.pop() {
            let costs: Vec<String> = d
                .cost
                .iter()
                .enumerate()
                .map(|(i, c)| match metrics.and_then(|ms| ms.get(i)) {
                    Some(m) => format!("{}:{c}", m.name),
                    None => c.to_string(),
                })
                .collect();
            let _ = write!(out, "{:indent$}", "", indent = 2 * depth.min(MAX_INDENT));
            if depth > MAX_INDENT {
                let _ = write!(out, "[depth {depth}] ");
            }
            let _ = writeln!(
                out,
                "{}  T={}  cost={}  {}",
                d.rule,
                render_threads(&d.threads),
                costs.join(","),
                d.phrase,
            );
            for c in d.children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        out
    }
}

impl fmt::Display for Derivation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}
