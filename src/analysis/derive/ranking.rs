//! Ranking atoms of loops (RaCUDA §7 `⟦x, U⟧`): the raw ranking form of a loop test and
//! its counter, symbolic and doubling steps, floor ranks with their Chvátal–Gomory cut, and
//! the relaxed ranking atom of an inner loop.

use crate::analysis::derive::candidates::{
    count_assigns, defining_lin, flatten, halved_operand, loop_key, product_floor, step_lower_bound,
};
use crate::analysis::derive::loops_geo::GeoAtom;
use crate::analysis::derive::{with, Ctx};
use crate::analysis::entail::entails;
use crate::analysis::linear::{cond, lin_expr, lin_fixed};
use crate::certificate::{Cg, Farkas};
use crate::core::assertion::linear::{tid_name, CKind, Cstr, DepMap, Lin};
use crate::core::assertion::poly::{canon_atom, launch_divisor, Atom, AtomVal};
use crate::core::metric::{q, Q};
use crate::core::{Expr, Loc, Operand, Stmt, Ty};
use num_traits::{One, Zero};

/// The loop's ranking atom: canonical `max0(atom)`, shift amount, witness for the shift.
#[derive(Clone, Debug)]
pub(super) struct LoopAtom {
    pub(super) atom: Lin,
    pub(super) shift: Q,
    pub(super) witness: Farkas,
    /// The counter's step is symbolic and `shift` only its lower bound (a `mono` rewrite
    /// may be needed after the shift).
    pub(super) symbolic: bool,
    /// The geometric atom of a counter multiplied each round (`loops_geo.rs`).
    pub(super) geo: Option<GeoAtom>,
    /// A constant step `c > 1` (`i += 32`): the floor atom `⌊R/c⌋⁺` of the raw ranking
    /// form `R` (one per round) and the integer witness of its `ishift` by 1
    /// (spec/logic.md §1 "Floor atoms"; [`floor_rank`]).
    pub(super) floor: Option<FloorRank>,
    /// A halving counter whose ranking form is `R = k·x` (`while (s > 0) … s >>= 1`): the
    /// form `2R` of the log atom `⌊log2 2R⌋⁺` (`⌊log2 R⌋ + 1` rounds for `R ≥ 1`) and the
    /// witness of `P ∧ e ⇒ 2R ≥ 2` for its `(lhalve …)` rewrite (spec/logic.md §1 "Log
    /// atoms"; [`log_form`]).
    pub(super) log: Option<(Lin, Farkas)>,
    /// A doubling counter (`i *= 2`, `i <<= 1`, `i = i + i` under `i < U`): the forms
    /// `(L, M) = (2U, i)` of the quotient log atom `⌊log2 (2U/i)⌋⁺` (the rounds left) and
    /// the witnesses of `P ∧ e ⇒ M ≥ 1` and `P ∧ e ⇒ 2M ≤ L` for its `(ldouble …)` rewrite
    /// (spec/logic.md §1 "Quotient log atoms"; [`Ctx::doubling_forms`]).
    pub(super) dlog: Option<(Lin, Lin, Farkas, Farkas)>,
    /// An inner loop of a nest whose range has the outer counter `x`: its relaxed ranking
    /// atom `max0(a + c·(x₀ − x))` (derive/nest.rs), which the round decreases too when
    /// `P` gives `x ≥ x₀`, with its shift, witness and floor form; its form at the loop's
    /// entry is the range with `x` at its entry value `x₀`, loop-invariant in the outer
    /// loop.
    pub(super) relaxed: Option<Relaxed>,
}

/// The relaxed ranking atom of an inner loop ([`LoopAtom::relaxed`]).
#[derive(Clone, Debug)]
pub(super) struct Relaxed {
    pub(super) atom: Lin,
    pub(super) shift: Q,
    pub(super) witness: Farkas,
    pub(super) floor: Option<FloorRank>,
}

/// The form `2R` of a halving loop's log atom `⌊log2 2R⌋⁺` (spec/logic.md §1 "Log
/// atoms"): `R` the raw ranking form of a halving counter `x` (`proportional` with a
/// constant step), only `k·x` (`k > 0`, no constant, no other variable: the bounding
/// substitution `x ← x/2` then maps `2R` to `R` exactly). Only in the floor form
/// (`AnalysisOptions::floor`): the polynomial form keeps RaCUDA's atoms.
pub(super) fn log_form(raw: &Lin, x: &str, symbolic: bool, proportional: bool) -> Option<Lin> {
    let k = raw.coef(x);
    (proportional && !symbolic && raw.c.is_zero() && raw.terms.len() == 1 && k > Q::zero())
        .then(|| raw.scale(&q(2)))
}

/// The floor ranking atom of a loop with a constant step and its integer witness
/// ([`floor_rank`]).
#[derive(Clone, Debug)]
pub(super) struct FloorRank {
    /// The canonical floor atom `⌊L/C⌋⁺`.
    pub(super) atom: Atom,
    /// The cut's multipliers on the constraints of `P ∧ e` (a prefix of the body's `P`).
    cut: Vec<(usize, Q)>,
    /// `1/C`, the cut's multiplier on the upper defining fact.
    inv_c: Q,
    /// A symbolic floor atom `⌊L/D⌋⁺` ([`sym_floor_rank`]): the plain Farkas witness of its
    /// `ishift` by 1 (target `D − L ≤ 0`, no defining facts, no cut); `cut`, `inv_c` unused.
    sym: Option<Farkas>,
}

impl FloorRank {
    /// The `(cg …)` witness of `(ishift ATOM 1 CG)` for a node whose `P` has `n`
    /// constraints (`P ∧ e` first): sources `n`, `n + 1` are the atom's defining facts,
    /// `n + 2` the cut.
    pub(super) fn cg(&self, n: usize) -> Cg {
        if let Some(w) = &self.sym {
            return Cg {
                cuts: Vec::new(),
                farkas: w.clone(),
            };
        }
        let mut cut = self.cut.clone();
        cut.push((n + 1, self.inv_c.clone()));
        Cg {
            cuts: vec![Farkas::Comb(Box::new(cut))],
            farkas: Farkas::Id(n + 2),
        }
    }
}

/// The integer step `c > 1` of a ranking form whose shift is `s`: the divisor of its floor
/// atom. For a symbolic step (`i += 256·gridDim.x`) `s` is the step's lower bound, and the
/// floor atom's `ishift` by one round is followed by an `imono` to the atom the step leaves
/// (`⌊(R − c)/c⌋⁺ ≥ ⌊(R − step)/c⌋⁺`, [`floor_mono_cg`]; issue 15, `gridstride`).
pub(super) fn floor_divisor(s: &Q, _symbolic: bool, proportional: bool) -> Option<i64> {
    use num_traits::ToPrimitive;
    let c = (s.is_integer() && !proportional).then(|| s.to_integer().to_i64())??;
    (c > 1).then_some(c)
}

/// The `CG` of `(imono ⌊L1/C⌋⁺ ⌊L2/C⌋⁺ CG)` (spec/certificate.md "Integer rewrites") for
/// a node whose `P` is `p`: sources `n = |p|`, `n + 1` are `q1 = ⌊L1/C⌋`'s defining facts,
/// `n + 2`, `n + 3` are `q2`'s; the cut `(1/C)·[(C·q2 − L2) + (L1 − C·q1 − (C − 1)) + w]`,
/// `w` the proof of `L2 − L1 ≤ 0` from `p` (residual `μ ≤ 0`), is `q2 − q1 − (C − 1 + μ)/C
/// ≤ 0`, rounded to `q2 − q1 + ⌈…⌉ ≤ 0` with `⌈…⌉ ≥ 0`: `(farkas (n+4 1))` proves
/// `q2 − q1 ≤ 0`. `None` when `p` does not entail `L2 ≤ L1`.
pub(super) fn floor_mono_cg(p: &[Cstr], l1: &Lin, l2: &Lin, c: &num_bigint::BigInt) -> Option<Cg> {
    let w = entails(p, &Cstr::le(l2.sub(l1)))?;
    let n = p.len();
    let ci = Q::new(1.into(), c.clone());
    let mut cut: Vec<(usize, Q)> = w.terms().map(|(i, k)| (i, k * &ci)).collect();
    cut.push((n + 1, ci.clone()));
    cut.push((n + 2, ci));
    Some(Cg {
        cuts: vec![Farkas::Comb(Box::new(cut))],
        farkas: Farkas::Id(n + 4),
    })
}

/// The `CG` of `(imono ⌊L1/D⌋⁺ ⌊L2/D⌋⁺ CG)` for two symbolic floor atoms of the same
/// divisor (spec/certificate.md "Integer rewrites"; no defining facts, no cuts): the Farkas
/// witness of `L2 − L1 ≤ 0` from `p`. `None` when `p` does not entail it.
pub(super) fn sym_mono_cg(p: &[Cstr], l1: &Lin, l2: &Lin) -> Option<Cg> {
    let w = entails(p, &Cstr::le(l2.sub(l1)))?;
    Some(Cg {
        cuts: Vec::new(),
        farkas: w,
    })
}

/// The floor atom `F = ⌊R/c⌋⁺` (canonical `⌊L/C⌋⁺`, `L/C = R/c`) of the raw ranking form
/// `R = f·a` (`a` canonical, `f > 0`), and the integer witness that `F` decreases by 1 in a
/// round: `w` proves `P ∧ e ⇒ c/f − a ≤ 0` with residual `μ ≤ 0` (`c/f − a − Σλ·L_I = μ`).
/// Sources (spec/certificate.md "Integer rewrites"): `P ∧ e` (`n` constraints), `n` and
/// `n + 1` the defining facts of `q = ⌊L/C⌋`. The cut `Σ (f·λ_I/c)·L_I + (1/C)·(L − C·q −
/// (C − 1))` is `1 − R/c − f·μ/c + L/C − q − 1 + 1/C = −q + (1/C − f·μ/c)`: integral on
/// `q`, rounded to `−q + ⌈1/C − f·μ/c⌉ ≤ 0` with `⌈…⌉ ≥ 1` (`μ ≤ 0`); the final witness
/// `(farkas (n+2 1))` proves `1 − q ≤ 0` ([`FloorRank::cg`]). `None` when `F` is not a
/// floor atom after canonicalization.
pub(super) fn floor_rank(
    raw: &Lin,
    c: i64,
    f: &Q,
    a: &Lin,
    s_over_f: &Q,
    w: &Farkas,
    pe: &[Cstr],
) -> Option<FloorRank> {
    let AtomVal::Scaled(_, atom) = Atom::floor(raw.clone(), c).canonical() else {
        return None;
    };
    let Atom::Floor(_, big_c) = &atom else {
        return None;
    };
    // the residual μ of w
    let mut res = Lin::constant(s_over_f.clone()).sub(a);
    for (i, l) in w.terms() {
        res = res.add_scaled(&pe.get(i)?.lin, &-l.clone());
    }
    if !res.is_const() || res.c > Q::zero() {
        return None;
    }
    let k = f / q(c);
    let cut: Vec<(usize, Q)> = w.terms().map(|(i, l)| (i, l * &k)).collect();
    let inv_c = Q::new(1.into(), big_c.clone());
    Some(FloorRank {
        atom,
        cut,
        inv_c,
        sym: None,
    })
}

/// The symbolic floor rank of a loop whose step `δ` is a launch form (spec/logic.md §1
/// "Symbolic divisors"): `raw = R` its (uniform) raw ranking form with the step's lower
/// bound `s` (`R = −L + s` for the test `L ≤ 0`), the atom `⌊(R − s + δ)/δ⌋⁺ =
/// ⌊(−L + δ)/δ⌋⁺` (canonical `⌊L'/D'⌋⁺`) and the witness of its `ishift` by one round from
/// `P ∧ e` (`pe`): target `D' − L' ≤ 0`, i.e. `L ≤ 0` scaled. `None` when the atom is not
/// symbolic after canonicalization or `pe` does not give the target.
pub(super) fn sym_floor_rank(raw: &Lin, s: &Q, step: &Lin, pe: &[Cstr]) -> Option<FloorRank> {
    let l = raw.plus_const(&-s.clone()).add_scaled(step, &Q::one());
    let AtomVal::Scaled(_, atom) = Atom::FloorSym(l.into(), step.clone().into()).canonical() else {
        return None;
    };
    let Atom::FloorSym(l2, d2) = &atom else {
        return None;
    };
    let w = entails(pe, &Cstr::le(d2.sub(l2)))?;
    Some(FloorRank {
        atom,
        cut: Vec::new(),
        inv_c: Q::zero(),
        sym: Some(w),
    })
}

impl Ctx<'_> {
    /// The step `δ` of a loop as the divisor of its symbolic floor atom
    /// ([`Ctx::symbolic_divisors`]): a symbolic (not proportional) step that is a launch form
    /// (`launch_divisor`), in the floor form only.
    pub(super) fn sym_divisor(
        &self,
        symbolic: bool,
        proportional: bool,
        step: &Lin,
    ) -> Option<Lin> {
        (self.symdiv && self.floor && symbolic && !proportional && launch_divisor(step))
            .then(|| step.clone())
    }

    /// The raw ranking atom `−L + s` of `while (e) body` (RaCUDA §7 `⟦x, U⟧`; note §8.4):
    /// `cond(e) = [L ≤ 0]`, the counter `x` is updated once, by `x ← x + δ` at the top level
    /// of the body, and `s = coef_x(L)·δ > 0`. Other variables of `L` written in the body are
    /// replaced by their linear definition in the loop invariant `pinv` when it has one.
    /// A symbolic step `δ` (`pos += 192·gridDim.x`: body-local operands are replaced by
    /// their top-level linear definitions before the update) is replaced by its lower bound
    /// `s_min > 0` under `pinv` (or the launch facts), read off single-variable bounds; the
    /// step may mention `x` itself (`i *= 2`, `x ← a·x + c`: `δ = (a − 1)·x + c`, at least
    /// `(a − 1)·i₀ + c` under an invariant `x ≥ i₀`), a linear upper bound on the rounds
    /// of a doubling loop (issue 15).
    /// A halving counter (`x ← x >> c`, `x ← x / c`) has the step `−1`: Q:VWRITE1's bounding
    /// substitution (spec/logic.md §4, "Halving") lowers it by at least 1 while `x ≥ 1`.
    /// Returns the atom `−L + s`, `s`, the counter's name, whether `s` is such a lower
    /// bound, whether the step mentions the counter (or halves it) and the step
    /// `coef_x(L)·δ` itself (a form; the constant `s` when it is constant), or why there is
    /// no atom.
    pub(super) fn loop_atom_raw(
        &self,
        e: &Expr,
        body: &Stmt,
        pinv: Option<&[Cstr]>,
    ) -> Result<(Lin, Q, String, bool, bool, Lin), String> {
        let (ce, _, _, _) = cond(self, e);
        let l = match ce.as_slice() {
            [c] if c.kind == CKind::Le => c.lin.clone(),
            _ => return Err("the condition is not an inequality between linear operands".into()),
        };
        let writes = body.writes();
        let written: Vec<String> = l.vars().filter(|v| writes.contains(v)).cloned().collect();
        if written.is_empty() {
            return Err("no variable of the condition is written in the body".into());
        }
        let mut top = Vec::new();
        flatten(body, &mut top);
        let mut found: Vec<(String, Lin)> = Vec::new();
        let mut halving = false;
        for x in &written {
            let mut count = 0;
            count_assigns(body, x, &mut count);
            if count != 1 {
                continue;
            }
            for (j, st) in top.iter().enumerate() {
                if let Stmt::Assign(y, ex, _) = st {
                    if y == x {
                        let le = match pinv {
                            Some(p) => lin_fixed(self, p, ex),
                            None => lin_fixed(self, &self.const_facts, ex),
                        };
                        if le.is_none()
                            && matches!(halved_operand(ex), Some(Operand::Var(a)) if a == x)
                        {
                            // `x ← x >> c`, `x ← x / c`: Q:VWRITE1's bounding
                            // substitution lowers `x` by at least 1 while `x ≥ 1`
                            found.push((x.clone(), Lin::constant(-Q::one())));
                            halving = true;
                        }
                        if let Some(le) = le {
                            // `x ← a·x + δ`: the step `(a − 1)·x + δ` may mention the
                            // counter itself (`i *= 2`: step `i`), whose value at the
                            // update is its value at the loop head (its only assignment)
                            let d = le.sub(&Lin::var(x));
                            if let Some(d) = self.resolve_step(&d, x, &top[..j], &writes) {
                                found.push((x.clone(), d));
                            }
                        }
                    }
                }
            }
        }
        // a counter with a constant step first (the RaCUDA case), else a symbolic one
        let constant: Vec<(String, Lin)> =
            found.iter().filter(|f| f.1.is_const()).cloned().collect();
        if constant.len() == 1 {
            found = constant;
        }
        let (x, delta) = match found.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(match written.as_slice() {
                    [x] => format!(
                        "the counter `{x}` is not updated by `{x} ← a·{x} + c` (a linear update) exactly once, at the top level of the body"
                    ),
                    _ => "no variable of the condition is updated by `x ← a·x + c` (a linear update) exactly once, at the top level of the body".into(),
                })
            }
            _ => return Err("several variables of the condition are counters of the body".into()),
        };
        let mut l = l;
        for y in written.iter().filter(|y| **y != x) {
            let def = match pinv {
                Some(p) => defining_lin(p, y, &writes),
                // candidate atoms only (validated later against the invariant): the
                // top-level linear assignment of `y` in the body, if any
                None => top.iter().find_map(|st| match st {
                    Stmt::Assign(z, ex, _) if z == y => {
                        lin_expr(&*self, ex).filter(|le| le.vars().all(|v| !writes.contains(v)))
                    }
                    _ => None,
                }),
            };
            match def {
                Some(def) => l = l.subst(y, &def),
                None => {
                    return Err(format!(
                        "`{y}` in the loop condition is written in the body and the loop invariant gives no linear definition of it"
                    ))
                }
            }
        }
        let step = delta.scale(&l.coef(&x));
        let (s, symbolic) = if step.is_const() {
            (step.c.clone(), false)
        } else {
            let facts = pinv.unwrap_or(&self.launch_p);
            match step_lower_bound(facts, &step) {
                Some(m) => (m, true),
                // candidate atoms only (no invariant yet): a step proportional to the
                // counter (`i *= 2`) is guessed to be at least 1; the invariant's check
                // (`pinv` given) decides
                None if pinv.is_none() && step.mentions(&x) => (Q::one(), true),
                None => {
                    return Err(format!(
                        "the step of `{x}` is symbolic and has no positive lower bound from single-variable bounds"
                    ))
                }
            }
        };
        if s <= Q::zero() {
            return Err(format!(
                "the update of `{x}` does not move it towards the bound"
            ));
        }
        // atom = −L + s
        // a halving counter's trip count is logarithmic too: unrolled first when P decides it
        let proportional = step.mentions(&x) || halving;
        Ok((
            l.scale(&-Q::one()).plus_const(&s),
            s,
            x,
            symbolic,
            proportional,
            step,
        ))
    }

    /// The forms `(L, M) = (2U, x)` of a doubling loop's quotient log atom
    /// `⌊log2 (L/M)⌋⁺` (spec/logic.md §1 "Quotient log atoms"): `raw = −k·x − R + s` the
    /// raw ranking form of [`Ctx::loop_atom_raw`] for the condition `k·x + R ≤ 0`
    /// (`k > 0`), so the loop runs while `x ≤ U = −R/k = (raw − s)/k + x`, and the
    /// counter's only update at the top level of the body is `x ← 2·x` (its linear value
    /// under `pinv`, else the launch facts: `x * 2`, `x << 1`, `x + x`). From `x ≥ 1` the
    /// loop runs `⌊log2 (2U/x)⌋⁺` more rounds (Coq `Log.doubling_rounds`). Only in the floor
    /// form (as the log atoms of halving loops).
    pub(super) fn doubling_forms(
        &self,
        body: &Stmt,
        raw: &Lin,
        s: &Q,
        x: &str,
        pinv: Option<&[Cstr]>,
    ) -> Option<(Lin, Lin)> {
        let k = -raw.coef(x);
        if !self.floor || k <= Q::zero() {
            return None;
        }
        let mut top = Vec::new();
        flatten(body, &mut top);
        let facts = pinv.unwrap_or(&self.const_facts);
        let doubled = Lin::var(x).scale(&q(2));
        let mut updates = top.iter().filter_map(|st| match st {
            Stmt::Assign(y, ex, _) if y == x => Some(lin_fixed(self, facts, ex)),
            _ => None,
        });
        match (updates.next(), updates.next()) {
            (Some(Some(le)), None) if le == doubled => {}
            _ => return None,
        }
        let u = raw
            .plus_const(&-s.clone())
            .scale(&(Q::one() / &k))
            .add(&Lin::var(x));
        (!u.mentions(x)).then(|| (u.scale(&q(2)), Lin::var(x)))
    }

    /// The raw ranking form made uniform under `d` (spec/logic.md §1): with `k` its thread
    /// coefficients (locals through their linear entries), `raw − Σ k_d·threadIdx.d`, plus
    /// `k_d·(B_d − 1)` for each `k_d > 0` so that the form does not decrease (threads have
    /// `0 ≤ threadIdx.d ≤ B_d − 1`); `None` if a local has no linear entry.
    pub(super) fn uniformize(&self, raw: &Lin, d: &DepMap) -> Option<Lin> {
        let mut k = [Q::zero(), Q::zero(), Q::zero()];
        for (v, a) in &raw.terms {
            if let Some(dim) = crate::core::Dim::ALL
                .iter()
                .find(|dim| tid_name(**dim) == *v)
            {
                k[dim.index()] += a;
            } else if crate::analysis::linear::Types::param_ty(self, v) == Some(Ty::Int) {
            } else {
                let e = d
                    .get(v)
                    .filter(|e| e.is_linear() && self.local_ty(v) == Some(Ty::Int))?;
                for (i, ki) in k.iter_mut().enumerate() {
                    *ki += a * q(e.k[i]);
                }
            }
        }
        Some(self.without_thread_terms(raw, &k))
    }

    /// `l − K·tid` plus `K·(blockDim − 1)` over the positive entries of `K`: `l` with the
    /// thread part `K·tid` replaced by its largest value over the block.
    pub(super) fn without_thread_terms(&self, l: &Lin, k: &[Q; 3]) -> Lin {
        let mut out = l.clone();
        for dim in crate::core::Dim::ALL {
            let kd = &k[dim.index()];
            if kd.is_zero() {
                continue;
            }
            out = out.add_scaled(&Lin::var(&tid_name(dim)), &-kd.clone());
            if *kd > Q::zero() {
                out = out.plus_const(&(kd * q(self.launch.block[dim.index()] as i64 - 1)));
            }
        }
        out
    }

    /// `l` with its `threadIdx.*` terms `k_d·threadIdx.d` replaced by their largest value
    /// over the block (`0` for `k_d < 0`, `k_d·(blockDim.d − 1)` for `k_d > 0`): the form
    /// [`Self::uniformize`] gives when `l`'s locals are uniform; `None` when `l` has no
    /// `threadIdx.*` term. A template candidate only (the kernel checks every use).
    pub(super) fn tid_free(&self, l: &Lin) -> Option<Lin> {
        let k = crate::core::Dim::ALL
            .map(|dim| l.terms.get(&tid_name(dim)).cloned().unwrap_or_else(Q::zero));
        (!k.iter().all(Q::is_zero)).then(|| self.without_thread_terms(l, &k))
    }

    /// The step `d` of an update of the counter `x` with its body-local operands replaced by
    /// their top-level linear definitions in `before` (the statements preceding the update,
    /// last first), a product `y ← a * b` with a positive coefficient by its lower bound
    /// `a + b − 1` (the step is then a lower bound); `None` if an operand written in the
    /// body other than `x` remains (`x`, assigned only by the update, has there its value at
    /// the loop head).
    pub(super) fn resolve_step(
        &self,
        d: &Lin,
        x: &str,
        before: &[&Stmt],
        writes: &[String],
    ) -> Option<Lin> {
        let mut cur = d.clone();
        for st in before.iter().rev() {
            match st {
                Stmt::Assign(y, ex, _) if cur.mentions(y) => {
                    let def = match lin_expr(self, ex) {
                        Some(l) => l,
                        // a product `y ← a * b` rising the step: its lower bound `a + b − 1`
                        // (under `a, b ≥ 1`, which the forward pass establishes and the
                        // kernel checks: spec/logic.md §4 "Products")
                        None if cur.coef(y) > Q::zero() => {
                            product_floor(self, ex).filter(|f| !f.mentions(x))?
                        }
                        None => return None,
                    };
                    cur = cur.subst(y, &def);
                }
                Stmt::Assign(..) | Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => {}
                other => {
                    if other.writes().iter().any(|w| cur.mentions(w)) {
                        return None;
                    }
                }
            }
        }
        let closed = cur.vars().all(|v| v == x || !writes.contains(v));
        closed.then_some(cur)
    }

    /// The relaxed ranking atom of the inner loop `key` ([`LoopAtom::relaxed`],
    /// derive/nest.rs) from its raw ranking form `raw`, made uniform under `d`, with the
    /// witness of `P ∧ e ⇒ a' ≥ shift` from `pe` and, with a floor divisor, its floor rank;
    /// its forms join the loop's candidate atoms (`step`: the raw form's decrease per round).
    /// `None` when the relaxation is off or `pe` does not give the decrease (the caller
    /// skips symbolic steps).
    pub(super) fn relaxed_atom(
        &mut self,
        key: usize,
        raw: &Lin,
        step: &Q,
        div: Option<i64>,
        pe: &[Cstr],
        d: &DepMap,
    ) -> Option<Relaxed> {
        let raw1 = self.uniformize(&self.relaxed_raw(key, raw)?, d)?;
        let AtomVal::Scaled(f, a) = canon_atom(&raw1) else {
            return None;
        };
        let s = step / &f;
        let w = entails(pe, &Cstr::le(Lin::constant(s.clone()).sub(&a)))?;
        let floor = div.and_then(|c| floor_rank(&raw1, c, &f, &a, &s, &w, pe));
        self.note_own_atoms(key, &a, &s, floor.as_ref());
        Some(Relaxed {
            atom: a,
            shift: s,
            witness: w,
            floor,
        })
    }

    /// The ranking atom of `while (e) body` under the invariant `(p, d)` (Q:WHILE1/2): the
    /// raw atom made uniform and canonical, with the witness that `P ∧ e` decreases it by the
    /// shift; or why there is none (also recorded in `no_atom` for the error message).
    pub(super) fn ranking_atom(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        p: &[Cstr],
        d: &DepMap,
    ) -> (Option<LoopAtom>, Option<String>) {
        let ce = cond(&*self, e).0;
        let mut atom_err = None;
        let pe = with(p, &self.with_lanes(d, e, &ce, false));
        let atom = match self.loop_atom_raw(e, body, Some(p)) {
            Ok((raw, s, x, symbolic, proportional, step)) => {
                let div = floor_divisor(&s, symbolic, proportional).filter(|_| self.floor);
                // a launch-form step under Ctx::symbolic_divisors: the symbolic floor atom
                let sym_div = self.sym_divisor(symbolic, proportional, &step);
                // P ∧ e ⇒ 2R ≥ 2, i.e. 2 − 2R ≤ 0 (the lhalve rewrite's witness)
                let log = log_form(&raw, &x, symbolic, proportional)
                    .filter(|_| self.floor)
                    .and_then(|l| {
                        let w = entails(&pe, &Cstr::le(Lin::constant(q(2)).sub(&l)))?;
                        Some((l, w))
                    });
                // P ∧ e ⇒ M ≥ 1 and P ∧ e ⇒ 2M ≤ L (the ldouble rewrite's witnesses)
                let dlog = self
                    .doubling_forms(body, &raw, &s, &x, Some(p))
                    .and_then(|(l, m)| {
                        let w1 = entails(&pe, &Cstr::le(Lin::constant(q(1)).sub(&m)))?;
                        let w2 = entails(&pe, &Cstr::le(m.scale(&q(2)).sub(&l)))?;
                        Some((l, m, w1, w2))
                    });
                let (raw_orig, s_orig) = (raw.clone(), s.clone());
                match self.uniformize(&raw, d) {
                    None => {
                        atom_err = Some(format!(
                            "the counter `{x}` or the bound has no linear thread dependence (no warp-uniform ranking form)"
                        ));
                        None
                    }
                    Some(raw) => match canon_atom(&raw) {
                        AtomVal::Scaled(f, a0) => {
                            let shift = s / &f;
                            // triangular nests (derive/nest.rs): max0(a + shift)
                            let a =
                                self.overshift_atom(loop_key(body), a0.clone(), &shift, symbolic);
                            // P ∧ e ⇒ a ≥ shift, i.e. shift − a ≤ 0
                            let target = Cstr::le(Lin::constant(shift.clone()).sub(&a));
                            match entails(&pe, &target) {
                                Some(w) => {
                                    let floor = match &sym_div {
                                        Some(dv) => (a == a0)
                                            .then(|| sym_floor_rank(&raw, &s_orig, dv, &pe))
                                            .flatten(),
                                        None => div.filter(|_| a == a0).and_then(|c| {
                                            floor_rank(&raw, c, &f, &a, &shift, &w, &pe)
                                        }),
                                    };
                                    self.note_own_atoms(loop_key(body), &a, &shift, floor.as_ref());
                                    let relaxed = (!symbolic)
                                        .then(|| {
                                            self.relaxed_atom(
                                                loop_key(body),
                                                &raw_orig,
                                                &s_orig,
                                                div,
                                                &pe,
                                                d,
                                            )
                                        })
                                        .flatten();
                                    Some(LoopAtom {
                                        relaxed,
                                        atom: a,
                                        shift,
                                        witness: w,
                                        symbolic,
                                        geo: self.geo_atom(e, body, Some(p), Some(d)),
                                        floor,
                                        log,
                                        dlog,
                                    })
                                }
                                None => {
                                    atom_err = Some(
                                        "the loop invariant does not entail that the ranking atom decreases"
                                            .to_string(),
                                    );
                                    None
                                }
                            }
                        }
                        AtomVal::Const(_) => None,
                    },
                }
            }
            Err(why) => {
                atom_err = Some(why);
                None
            }
        };
        if let Some(why) = &atom_err {
            if !self.no_atom.iter().any(|(l, w)| *l == loc && w == why) {
                self.no_atom.push((loc, why.clone()));
            }
        }
        (atom, atom_err)
    }
}
