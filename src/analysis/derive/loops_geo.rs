//! Geometric loops (issue 12, issue 15 item 2): the `split` atom of a loop whose counter
//! grows by a multiple of itself (`for (s = 1; s < n; s <<= 1)`, `i = 3·i + 1`), so that
//! a nest whose inner loop runs a number of rounds proportional to the counter
//! (`for (t = s; t > 0; t >>= 1)`, `for (t = s / 2; …)`) gets a linear bound.
//!
//! For `while (e) body` with `cond(e) = [L ≤ 0]`, `L = k·x + R` (`k > 0`, `R` free of the
//! body's writes) and the counter's only update `x ← a·x + c` at the top level of the body
//! (`a ≥ 2` an integer, so the step is `δ = (a − 1)·x + c`), the *geometric atom* is
//! `G = a·(−L) + k·δ = −k·x − a·R + k·c`. After the update `G` becomes `a·(−L)` (evaluated
//! before it), which is `G − k·δ`; in the body `−L ≥ 0`, so `G ≥ k·δ`, and where the
//! invariant gives `δ ≥ 0` the `split` rewrite (spec/certificate.md `RW`)
//! `max0(G) = max0(G − k·δ) + max0(k·δ)` turns the invariant's `max0(G)` into the same
//! atom after the round plus `max0(k·δ)`, a potential proportional to the counter that pays
//! an inner loop over it. The rounds' sizes are a geometric series: `G` at the entry is
//! at most `a` times the largest counter value, where the sum of the steps is.

use crate::analysis::derive::candidates::{count_assigns, flatten};
use crate::analysis::derive::Ctx;
use crate::analysis::entail::entails;
use crate::analysis::linear::{cond, lin_fixed, uniform_form};
use crate::certificate::{Farkas, Rewrite};
use crate::core::assertion::linear::{CKind, Cstr, DepMap, Lin};
use crate::core::metric::Q;
use crate::core::{Expr, Stmt};
use num_traits::{One, Zero};

/// The geometric atom `G` of a loop and its step `D = k·δ` (raw forms, uniform).
#[derive(Clone, Debug)]
pub(super) struct GeoAtom {
    pub(super) g: Lin,
    pub(super) d: Lin,
}

impl Ctx<'_> {
    /// The geometric atom of `while (e) body` (module doc), with `pinv` the loop invariant
    /// when known (its fixed operands used in the update, as for the ranking atom); `None`
    /// when the loop has not that shape. Under `d` both forms must be uniform.
    pub(super) fn geo_atom(
        &self,
        e: &Expr,
        body: &Stmt,
        pinv: Option<&[Cstr]>,
        d: Option<&DepMap>,
    ) -> Option<GeoAtom> {
        let (ce, _, _, _) = cond(self, e);
        let l = match ce.as_slice() {
            [c] if c.kind == CKind::Le => c.lin.clone(),
            _ => return None,
        };
        let writes = body.writes();
        let mut written = l.vars().filter(|v| writes.contains(v));
        let x = written.next()?.clone();
        if written.next().is_some() {
            return None;
        }
        let k = l.coef(&x);
        if k <= Q::zero() {
            return None;
        }
        let mut n = 0;
        count_assigns(body, &x, &mut n);
        if n != 1 {
            return None;
        }
        let mut top = Vec::new();
        flatten(body, &mut top);
        let le = top.iter().find_map(|st| match st {
            Stmt::Assign(y, ex, _) if *y == x => {
                lin_fixed(&*self, pinv.unwrap_or(&self.const_facts), ex)
            }
            _ => None,
        })?;
        // x ← a·x + c with an integer a ≥ 2 and c free of the body's writes
        let a = le.coef(&x);
        if !a.is_integer() || a < Q::from_integer(2.into()) {
            return None;
        }
        if le.vars().any(|v| *v != x && writes.contains(v)) {
            return None;
        }
        let delta = le.sub(&Lin::var(&x));
        let step = delta.scale(&k);
        let g = l.scale(&-a).add(&step);
        if let Some(d) = d {
            if !uniform_form(self, d, &g) || !uniform_form(self, d, &step) {
                return None;
            }
        }
        Some(GeoAtom { g, d: step })
    }

    /// The `split` rewrite of the geometric atom `geo` under the body's pre `p` (`P ∧ e`):
    /// `max0(G) = max0(G − D) + max0(D)` with the witnesses of `P ⇒ D ≥ 0` and
    /// `P ⇒ G ≥ D`; `None` when `p` does not entail them.
    pub(super) fn geo_split(&self, geo: &GeoAtom, p: &[Cstr]) -> Option<Rewrite> {
        let w0: Farkas = entails(p, &Cstr::le(geo.d.scale(&-Q::one())))?;
        let w: Farkas = entails(p, &Cstr::le(geo.d.sub(&geo.g)))?;
        Some(Rewrite::Split(geo.g.clone(), geo.d.clone(), w0, w))
    }
}
