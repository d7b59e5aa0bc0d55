//! Loops: ranking atoms (RaCUDA §7 `⟦x, U⟧`), the candidate atoms of each loop's invariant
//! template, and the Houdini search for loop invariants `(P, D)` (Q:WHILE1/2).

use crate::analysis::derive::liveness::restrict_deps;
use crate::analysis::derive::loops_geo::GeoAtom;
use crate::analysis::derive::{err, minus_writes, with, Abs, Ctx, AK};
use crate::analysis::derive::{LastRound, WhileAn};
use crate::analysis::entail::{entails, entails_all};
use crate::analysis::linear::{
    align_charge, cond, expr_uniform, join_deps, lane_spread, lin_expr, lin_fixed, lin_operand,
    never_splits,
};
use crate::analysis::AnalysisError;
use crate::certificate::{Cg, Farkas};
use crate::core::assertion::linear::{tid_name, CKind, Cstr, DepMap, Lin};
use crate::core::assertion::poly::{canon_atom, Atom, AtomVal};
use crate::core::metric::{q, Q};
use crate::core::{Expr, Loc, Operand, Program, Stmt, Ty};
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
}

impl FloorRank {
    /// The `(cg …)` witness of `(ishift ATOM 1 CG)` for a node whose `P` has `n`
    /// constraints (`P ∧ e` first): sources `n`, `n + 1` are the atom's defining facts,
    /// `n + 2` the cut.
    pub(super) fn cg(&self, n: usize) -> Cg {
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
fn floor_divisor(s: &Q, _symbolic: bool, proportional: bool) -> Option<i64> {
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
    Some(FloorRank { atom, cut, inv_c })
}

impl Ctx<'_> {
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
    /// bound and whether the step mentions the counter (or halves it), or why there is no
    /// atom.
    pub(super) fn loop_atom_raw(
        &self,
        e: &Expr,
        body: &Stmt,
        pinv: Option<&[Cstr]>,
    ) -> Result<(Lin, Q, String, bool, bool), String> {
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
    fn without_thread_terms(&self, l: &Lin, k: &[Q; 3]) -> Lin {
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

    pub(super) fn collect_atoms(&mut self, s: &Stmt, stack: &mut Vec<(usize, Vec<Lin>)>) {
        let mut top = Vec::new();
        flatten(s, &mut top);
        let writers = Writers::of(&top);
        for (i, st) in top.iter().enumerate() {
            match st {
                Stmt::While(e, body, _) => {
                    let key = loop_key(body);
                    let mut own: Vec<Lin> = Vec::new();
                    // seeds: the loop's own ranking atom, else (spec/logic.md §4a) atoms from
                    // the conditions of its body; each seed is also expressed before the
                    // loop, through the assignments that precede it in this list
                    let mut cands: Vec<Lin> = Vec::new();
                    let mut seeds: Vec<Lin> = Vec::new();
                    let mut tail: Vec<Lin> = Vec::new();
                    let mut geo_seed: Option<Lin> = None;
                    // a constant step c > 1: the seed's forms as floor atoms ⌊·/c⌋⁺ too
                    let mut floor_div: Option<i64> = None;
                    let mut own_floors: Vec<Atom> = Vec::new();
                    let mut log_x: Option<String> = None;
                    // a doubling counter: the quotient log atom's forms (and before the loop)
                    let mut dbl: Option<(Lin, Lin)> = None;
                    // the counter's form before the loop (its entry value, nest.rs)
                    let mut x0: Option<Lin> = None;
                    match self.loop_atom_raw(e, body, None) {
                        Ok((raw, sh, x, symbolic, proportional)) => {
                            dbl = self.doubling_forms(body, &raw, &sh, &x, None);
                            own_floors.extend(
                                dbl.iter()
                                    .map(|(l, m)| Atom::LogQ(l.clone().into(), m.clone().into())),
                            );
                            floor_div =
                                floor_divisor(&sh, symbolic, proportional).filter(|_| self.floor);
                            if let Some(c) = floor_div {
                                self.nests.div.insert(key, c);
                            }
                            x0 = Some(Lin::var(&x));
                            if let Some(c) = floor_div {
                                own_floors.push(Atom::floor(raw.clone(), c));
                                own_floors.push(Atom::floor(raw.plus_const(&-sh.clone()), c));
                            }
                            // a halving counter: the log atom ⌊log2 2R⌋⁺ (and its forms before
                            // the loop, below)
                            let log_seed =
                                log_form(&raw, &x, symbolic, proportional).filter(|_| self.floor);
                            own_floors.extend(log_seed.iter().map(|l| Atom::Log(l.clone().into())));
                            log_x = log_seed.map(|_| x.clone());
                            self.nests.note_counter(key, &x, &raw, &sh);
                            seeds.push(raw.clone());
                            cands.push(raw.clone());
                            cands.push(raw.plus_const(&-sh));
                            // a counter multiplied each round: its geometric atom
                            // (loops_geo.rs; the step's atom comes from the split rewrite)
                            if let Some(geo) = self.geo_atom(e, body, None, None) {
                                cands.push(geo.g.clone());
                                geo_seed = Some(geo.g);
                            }
                        }
                        Err(_) => {
                            let (hs, shifted) = self.exit_atoms(e, body);
                            if !hs.is_empty() {
                                self.exit_candidates.insert(key);
                                let direct: Vec<Lin> = hs
                                    .iter()
                                    .chain(shifted.iter())
                                    .filter_map(|c| match canon_atom(c) {
                                        AtomVal::Scaled(_, a) => Some(a),
                                        AtomVal::Const(_) => None,
                                    })
                                    .collect();
                                self.exit_own.insert(key, direct);
                            }
                            cands.extend(hs.iter().cloned());
                            seeds = hs;
                            tail = shifted;
                        }
                    }
                    // the ranges are the seeds' forms before the loop; the geometric
                    // atom's is a candidate only
                    let ranges = seeds.len();
                    seeds.extend(geo_seed);
                    for (si, raw) in seeds.into_iter().enumerate() {
                        let mut cur = raw;
                        // the statements before the loop that write a variable of `cur`,
                        // nearest first (the others leave it as it is)
                        let mut at = i;
                        while let Some(j) = writers.last_before(&cur, at) {
                            at = j;
                            match top[j] {
                                Stmt::Assign(x, ex, _) => {
                                    if cur.mentions(x) {
                                        match lin_expr(&*self, ex) {
                                            Some(le) => {
                                                cur = cur.subst(x, &le);
                                                if let Some(v) = x0.as_mut().filter(|_| si == 0) {
                                                    *v = v.subst(x, &le);
                                                }
                                                cands.push(cur.clone());
                                                if let Some((l, m)) =
                                                    dbl.as_mut().filter(|_| si == 0)
                                                {
                                                    *l = l.subst(x, &le);
                                                    *m = m.subst(x, &le);
                                                    own_floors.push(Atom::LogQ(
                                                        l.clone().into(),
                                                        m.clone().into(),
                                                    ));
                                                }
                                                if let Some(lx) = log_x.as_ref().filter(|_| si == 0)
                                                {
                                                    if cur.vars().all(|v| v != lx) {
                                                        own_floors.push(Atom::Log(
                                                            cur.scale(&q(2)).into(),
                                                        ));
                                                    }
                                                }
                                                if let Some(c) = floor_div.filter(|_| si == 0) {
                                                    own_floors.push(Atom::floor(cur.clone(), c));
                                                    if let Some(u) = self.tid_free(&cur) {
                                                        own_floors.push(Atom::floor(u, c));
                                                    }
                                                }
                                                // a counter started at `threadIdx.*` (a
                                                // block-stride loop inside another loop):
                                                // the uniform form its ranking atom takes
                                                // at the entry (`uniformize`)
                                                if let Some(u) = self.tid_free(&cur) {
                                                    cands.push(u);
                                                }
                                            }
                                            None => break,
                                        }
                                    }
                                }
                                Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => {}
                                other => {
                                    if other.writes().iter().any(|w| cur.mentions(w)) {
                                        break;
                                    }
                                }
                            }
                        }
                        if si < ranges {
                            self.nests.note_range(key, &cur);
                        }
                        if let Some(v) = x0.take().filter(|_| si == 0) {
                            self.nests.note_entry(key, &v);
                        }
                    }
                    cands.extend(tail);
                    for c in cands {
                        if let AtomVal::Scaled(_, a) = canon_atom(&c) {
                            if !own.contains(&a) {
                                own.push(a);
                            }
                        }
                    }
                    let mut own_f: Vec<Atom> = Vec::new();
                    for a in own_floors {
                        if let AtomVal::Scaled(_, a) = a.canonical() {
                            if !own_f.contains(&a) {
                                own_f.push(a);
                            }
                        }
                    }
                    // floor atoms are scoped like the others: this loop and its ancestors
                    for (k, _) in stack.iter() {
                        self.floors
                            .entry(*k)
                            .or_default()
                            .extend(own_f.iter().cloned());
                    }
                    let inherited: Vec<Atom> = stack
                        .last()
                        .and_then(|(k, _)| self.floors.get(k))
                        .cloned()
                        .unwrap_or_default();
                    let mine = self.floors.entry(key).or_default();
                    mine.extend(own_f);
                    mine.extend(inherited);
                    self.nests
                        .note_loop(key, stack.last().map(|(k, _)| *k), &own);
                    // a nest's loop: the definitions before it, to express its inner loops'
                    // relaxed ranges before it (nest.rs)
                    if has_loop(body) {
                        let defs = top[..i]
                            .iter()
                            .rev()
                            .flat_map(|st| match st {
                                Stmt::Assign(y, ex, _) => vec![(y.clone(), lin_expr(&*self, ex))],
                                Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => vec![],
                                other => other.writes().into_iter().map(|w| (w, None)).collect(),
                            })
                            .collect();
                        self.nests.note_defs(key, defs);
                    }
                    // this loop sees its own atoms and its ancestors'; ancestors see this one's
                    let mut scope = own.clone();
                    for (k, anc) in stack.iter() {
                        scope.extend(anc.iter().cloned());
                        let e = self.atoms.entry(*k).or_default();
                        e.extend(own.iter().cloned());
                        if let Some(x) = self.exit_own.get_mut(k) {
                            x.extend(own.iter().cloned());
                        }
                    }
                    self.atoms.entry(key).or_default().extend(scope);
                    stack.push((key, own));
                    self.collect_atoms(body, stack);
                    stack.pop();
                }
                Stmt::If(_, a, b, _) => {
                    if let Some((k, _)) = stack.last() {
                        self.if_loop.insert(loop_key(a), *k);
                    }
                    self.collect_atoms(a, stack);
                    self.collect_atoms(b, stack);
                }
                _ => {}
            }
        }
    }

    pub(super) fn fwd_while(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        let (ce, cne, _, _) = cond(&*self, e);
        let mut p = houdini_candidates(&pre.p);
        // entries of locals dead at the loop are dropped (the Q:WEAK around the loop)
        let mut d = match self.live_loop.get(&loop_key(body)) {
            Some(live) => restrict_deps(&pre.d, live),
            None => (*pre.d).clone(),
        };
        let mut rounds = 0;
        let (body_an, p, d) = loop {
            rounds += 1;
            if rounds > 40 {
                return Err(err(Some(loc), "the loop-invariant search did not converge"));
            }
            let b = self.fwd(
                body,
                &Abs {
                    p: with(&p, &self.with_lanes(&d, e, &ce, false)).into(),
                    d: d.clone().into(),
                },
            )?;
            let np: Vec<Cstr> = p
                .iter()
                .filter(|c| entails(&b.post.p, c).is_some())
                .cloned()
                .collect();
            let nd = join_deps(&d, &b.post.d);
            if np == p && nd == d {
                break (b, p, d);
            }
            p = np;
            d = nd;
        };
        let uniform = expr_uniform(&d, e);
        let writes = body.writes();
        let w_pre = entails_all(&pre.p, &p).ok_or_else(|| {
            err(
                Some(loc),
                "internal: invariant not entailed by the loop entry",
            )
        })?;
        let w_body_post = entails_all(&body_an.post.p, &p)
            .ok_or_else(|| err(Some(loc), "internal: invariant not re-established"))?;
        let (atom, atom_err) = self.ranking_atom(e, body, loc, &p, &d);
        // Q:WHILEWARP and Q:WHILELAST only pay off when a divergent test costs something
        let nosplit = !uniform && !self.metric.div.is_zero() && self.never_splits(e, &d);
        let last = if uniform || nosplit || self.metric.div.is_zero() {
            None
        } else {
            self.last_round(e, body, &p, &d)?
        };
        if let Some((form, _, m)) = last.as_ref().and_then(|l| l.align.as_ref()) {
            self.add_residue_to_ancestors(loop_key(body), form, m);
        }
        let (en, cost) = self.expr_node(
            e,
            &Abs {
                p: p.clone().into(),
                d: d.clone().into(),
            },
            loc,
        )?;
        let post = Abs {
            p: with(&p, &self.with_lanes(&d, e, &cne, true)).into(),
            d: (if uniform {
                d.clone()
            } else {
                minus_writes(&d, &writes)
            })
            .into(),
        };
        Ok((
            AK::While(Box::new(WhileAn {
                e: en,
                cost,
                uniform,
                inv: Abs {
                    p: p.into(),
                    d: d.into(),
                },
                body: Box::new(body_an),
                w_pre,
                w_body_post,
                atom,
                atom_err,
                last,
                nosplit,
                writes,
                loc,
                key: loop_key(body),
            })),
            post,
        ))
    }

    /// Whether Q:WHILEWARP applies to `while (e) …` under `d` (spec/logic.md §4): `cond(e)`
    /// is one inequality `L ≤ 0`, `cond(¬e)` is non-empty, and `L` never splits a warp.
    fn never_splits(&self, e: &Expr, d: &DepMap) -> bool {
        let (ce, cne, _, _) = cond(self, e);
        match ce.as_slice() {
            [c] if c.kind == CKind::Le && !cne.is_empty() => {
                never_splits(self, d, &c.lin, self.launch, self.hw.warp_size)
            }
            _ => false,
        }
    }

    /// Q:WHILELAST's last-round body (spec/logic.md §4): when `cond(e) = [L ≤ 0]` (and
    /// `cond(¬e)` is non-empty) and every local of `L` has a linear entry in `d`, the body
    /// analysed from `P ∧ e ∧ −L + 1 − w ≤ 0` (`w` the lane spread of `L`): the lanes still
    /// running after a test that split the warp. `None` when the rule does not apply: the
    /// condition has another shape, or this body does not end with every lane failing `e`
    /// under `P` (the loop is then charged `M^div` every round, Q:WHILE2).
    fn last_round(
        &mut self,
        e: &Expr,
        body: &Stmt,
        p: &[Cstr],
        d: &DepMap,
    ) -> Result<Option<LastRound>, AnalysisError> {
        let (ce, cne, _, _) = cond(&*self, e);
        let l = match ce.as_slice() {
            [c] if c.kind == CKind::Le && !cne.is_empty() => c.lin.clone(),
            _ => return Ok(None),
        };
        let Some(w) = lane_spread(&*self, d, &l, self.launch, self.hw.warp_size) else {
            return Ok(None);
        };
        let window = Cstr::le(l.scale(&-Q::one()).plus_const(&(Q::one() - w)));
        let mut pre_p = with(p, &self.with_lanes(d, e, &ce, false));
        pre_p.push(window);
        let pre = Abs {
            p: pre_p.into(),
            d: d.clone().into(),
        };
        let b = match self.fwd(body, &pre) {
            Ok(b) => b,
            Err(_) => return Ok(None),
        };
        let exit = with(p, &cne);
        let covered = d
            .iter()
            .all(|(x, want)| b.post.d.get(x).is_some_and(|h| h.implies(want)));
        // Q:WHILELASTALIGN: the one split charged off the test's residue class, when the
        // body leaves X (the uniform part of the test) alone (spec/logic.md §4)
        let align = if self.align {
            align_charge(&*self, d, &l, self.launch, self.hw.warp_size).filter(|(form, _, _)| {
                let writes = body.writes();
                !form.vars().any(|v| writes.contains(v))
            })
        } else {
            None
        };
        match entails_all(&b.post.p, &exit) {
            Some(w_post) if covered => Ok(Some(LastRound {
                body: Box::new(b),
                w_post,
                exit,
                align,
            })),
            _ => Ok(None),
        }
    }

    /// Adds the ranking atom `a` of loop `key` and `a − shift` to its candidate atoms, and
    /// the floor atom of `floor` and its shift by one to its candidate floor atoms.
    fn note_own_atoms(&mut self, key: usize, a: &Lin, shift: &Q, floor: Option<&FloorRank>) {
        if let Some(FloorRank { atom: fa, .. }) = floor {
            for extra in [fa.clone(), fa.shifted(&Q::one())] {
                self.add_candidate_floor(key, extra);
            }
        }
        for extra in [a.clone(), a.plus_const(&-shift.clone())] {
            self.add_candidate_atom(key, &extra);
        }
    }

    /// Adds the canonical atom of `form` (when it is not a constant) to loop `key`'s
    /// candidate atoms, once.
    pub(super) fn add_candidate_atom(&mut self, key: usize, form: &Lin) {
        if let AtomVal::Scaled(_, c) = canon_atom(form) {
            let own = self.atoms.entry(key).or_default();
            if !own.contains(&c) {
                own.push(c);
            }
        }
    }

    /// Adds the canonical form of the floor atom `atom` (when it is not a constant) to loop
    /// `key`'s candidate floor atoms, once.
    pub(super) fn add_candidate_floor(&mut self, key: usize, atom: Atom) {
        if let AtomVal::Scaled(_, c) = atom.canonical() {
            let own = self.floors.entry(key).or_default();
            if !own.contains(&c) {
                own.push(c);
            }
        }
    }

    /// The relaxed ranking atom of the inner loop `key` ([`LoopAtom::relaxed`],
    /// derive/nest.rs) from its raw ranking form `raw`, made uniform under `d`, with the
    /// witness of `P ∧ e ⇒ a' ≥ shift` from `pe` and, with a floor divisor, its floor rank;
    /// its forms join the loop's candidate atoms (`step`: the raw form's decrease per round).
    /// `None` when the relaxation is off or `pe` does not give the decrease (the caller
    /// skips symbolic steps).
    fn relaxed_atom(
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
    fn ranking_atom(
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
            Ok((raw, s, x, symbolic, proportional)) => {
                let div = floor_divisor(&s, symbolic, proportional).filter(|_| self.floor);
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
                                    let floor = div
                                        .filter(|_| a == a0)
                                        .and_then(|c| floor_rank(&raw, c, &f, &a, &shift, &w, &pe));
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

/// Houdini's candidate invariant constraints for a loop entered with `p`: its constraints,
/// each equality split into two inequalities (so that one side can survive alone); lane
/// facts are about `threadIdx` alone and hold in every round.
pub(super) fn houdini_candidates(p: &[Cstr]) -> Vec<Cstr> {
    let mut out: Vec<Cstr> = Vec::new();
    for c in p {
        match c.kind {
            CKind::Le | CKind::Mod(..) => out.push(c.clone()),
            CKind::Eq => {
                out.push(Cstr::le(c.lin.clone()));
                out.push(Cstr::le(c.lin.scale(&-Q::one())));
            }
        }
    }
    out.dedup();
    out
}

pub(super) fn has_loop(s: &Stmt) -> bool {
    match s {
        Stmt::While(..) => true,
        Stmt::Seq(..) => s.seq_items().into_iter().any(has_loop),
        Stmt::If(_, a, b, _) => has_loop(a) || has_loop(b),
        _ => false,
    }
}

/// A linear definition `y = lin` from a pair `L ≤ 0`, `−L ≤ 0` (or `L = 0`) of `p`, with
/// `coef_y(L) ≠ 0` and no other variable of `L` in `writes`.
pub(super) fn defining_lin(p: &[Cstr], y: &str, writes: &[String]) -> Option<Lin> {
    for c in p {
        let a = c.lin.coef(y);
        if a.is_zero() || c.lin.vars().any(|v| v != y && writes.contains(v)) {
            continue;
        }
        let both = c.kind == CKind::Eq || p.contains(&Cstr::le(c.lin.scale(&-Q::one())));
        if both {
            let mut rest = c.lin.clone();
            rest.terms.remove(y);
            return Some(rest.scale(&(-Q::one() / a)));
        }
    }
    None
}

/// A positive lower bound of the non-constant form `step` under `p`: its constant plus, for
/// each variable, its coefficient times the variable's lower (positive coefficient) or
/// upper (negative) bound from the linear constraints of `p` over that variable alone.
pub(super) fn step_lower_bound(p: &[Cstr], step: &Lin) -> Option<Q> {
    let mut total = step.c.clone();
    for (v, a) in &step.terms {
        let mut best: Option<Q> = None;
        for c in p {
            let b = c.lin.coef(v);
            if b.is_zero() || c.lin.vars().count() != 1 || c.is_lane() {
                continue;
            }
            // b·v + c0 ≤ 0 (or = 0): v ≤ −c0/b when b > 0, v ≥ −c0/b when b < 0
            let bound = -c.lin.c.clone() / &b;
            let usable = c.kind == CKind::Eq || ((b < Q::zero()) == (*a > Q::zero()));
            if usable {
                let val = a * &bound;
                best = Some(best.map_or(val.clone(), |x: Q| x.max(val)));
            }
        }
        total += best?;
    }
    (total > Q::zero()).then_some(total)
}

/// `y − c = 0` for each `int` local whose only assignment in `prog` is `y ← c`.
pub(super) fn const_facts(prog: &Program) -> Vec<Cstr> {
    // one walk over the program (a walk per local would be quadratic in long programs)
    let mut all = Vec::new();
    all_assigns(&prog.body, &mut all);
    let mut by_local: std::collections::HashMap<&str, Vec<&Expr>> = Default::default();
    for (z, e) in all {
        by_local.entry(z.as_str()).or_default().push(e);
    }
    let mut out = Vec::new();
    for (y, t) in &prog.locals {
        if *t != Ty::Int {
            continue;
        }
        if let Some([Expr::Opd(Operand::Const(crate::core::Const::Int(c)))]) =
            by_local.get(y.as_str()).map(Vec::as_slice)
        {
            out.push(Cstr::eq(Lin::var(y).plus_const(&-q(*c))));
        }
    }
    out
}

pub(super) fn all_assigns<'s>(s: &'s Stmt, out: &mut Vec<(&'s String, &'s Expr)>) {
    match s {
        Stmt::Assign(y, e, _) => out.push((y, e)),
        Stmt::Seq(..) => {
            for x in s.seq_items() {
                all_assigns(x, out);
            }
        }
        Stmt::If(_, a, b, _) => {
            all_assigns(a, out);
            all_assigns(b, out);
        }
        Stmt::While(_, b, _) => all_assigns(b, out),
        _ => {}
    }
}

/// Identity of a loop: the address of its body (stable while the program is borrowed).
pub(super) fn loop_key(body: &Stmt) -> usize {
    body as *const Stmt as usize
}

/// For each local, the positions of the statements of a flattened list that may write it
/// (in order): an assignment writes its variable, a compound statement what
/// [`Stmt::writes`] lists; writes, skips and syncs write no local.
struct Writers(std::collections::HashMap<String, Vec<usize>>);

impl Writers {
    fn of(top: &[&Stmt]) -> Writers {
        let mut by: std::collections::HashMap<String, Vec<usize>> = Default::default();
        for (j, st) in top.iter().enumerate() {
            match st {
                Stmt::Assign(x, _, _) => by.entry(x.clone()).or_default().push(j),
                Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => {}
                other => {
                    for w in other.writes() {
                        by.entry(w).or_default().push(j);
                    }
                }
            }
        }
        Writers(by)
    }

    /// The last position before `at` of a statement that may write a variable of `l`.
    fn last_before(&self, l: &Lin, at: usize) -> Option<usize> {
        l.vars()
            .filter_map(|v| {
                let ps = self.0.get(v)?;
                let k = ps.partition_point(|&p| p < at);
                k.checked_sub(1).map(|k| ps[k])
            })
            .max()
    }
}

pub(super) fn flatten<'s>(s: &'s Stmt, out: &mut Vec<&'s Stmt>) {
    match s {
        Stmt::Seq(..) => {
            for x in s.seq_items() {
                flatten(x, out);
            }
        }
        other => out.push(other),
    }
}

pub(super) fn count_assigns(s: &Stmt, x: &str, n: &mut usize) {
    match s {
        Stmt::Assign(y, _, _) | Stmt::Warp(y, _, _) if y == x => *n += 1,
        Stmt::Seq(..) => {
            for it in s.seq_items() {
                count_assigns(it, x, n);
            }
        }
        Stmt::If(_, a, b, _) => {
            count_assigns(a, x, n);
            count_assigns(b, x, n);
        }
        Stmt::While(_, b, _) => count_assigns(b, x, n),
        _ => {}
    }
}

/// The halved operand `a` of `x ← a >> c` (`1 ≤ c < 64`) or `x ← a / c` (`c ≥ 2`), the
/// expressions of the bounding substitution of Q:VWRITE1 (spec/logic.md §4, "Halving"):
/// under `a ≥ 1` the new value lies in `[0, a − 1]`.
pub(super) fn halved_operand(e: &Expr) -> Option<&Operand> {
    use crate::core::{BinOp, Const};
    match e {
        Expr::Bin(BinOp::Shr, a, Operand::Const(Const::Int(c))) if (1..64).contains(c) => Some(a),
        Expr::Bin(BinOp::Div, a, Operand::Const(Const::Int(c))) if *c >= 2 => Some(a),
        _ => None,
    }
}

/// The divisor `d` of a halving update ([`halved_operand`]): `2^c` for `a >> c`, `c` for
/// `a / c`; the new value is at most `a/d` under `a ≥ 1` (the log atoms' bounding
/// substitution, spec/logic.md §4 "Halving").
pub(super) fn halved_divisor(e: &Expr) -> Option<Q> {
    use crate::core::{BinOp, Const};
    match e {
        Expr::Bin(BinOp::Shr, _, Operand::Const(Const::Int(c))) if (1..64).contains(c) => {
            Some(Q::from_integer(num_bigint::BigInt::one() << *c))
        }
        Expr::Bin(BinOp::Div, _, Operand::Const(Const::Int(c))) if *c >= 2 => Some(q(*c)),
        _ => None,
    }
}

/// `lin(a) + lin(b) − 1` for `a * b` with int operands: the product's lower bound when
/// `a, b ≥ 1` (`(a − 1)(b − 1) ≥ 0`; spec/logic.md §4 "Products").
fn product_floor<T: crate::analysis::linear::Types + ?Sized>(prog: &T, e: &Expr) -> Option<Lin> {
    match e {
        Expr::Bin(crate::core::BinOp::Mul, a, b) => Some(
            lin_operand(prog, a)?
                .add(&lin_operand(prog, b)?)
                .plus_const(&-Q::one()),
        ),
        _ => None,
    }
}
