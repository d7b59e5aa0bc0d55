//! Comparing assertions (spec/logic.md §2): equality of `P`, `D`, `Q`, covering of dependence
//! maps, Farkas entailment lists, and potential domination by rewrites (shifts, floor and log
//! rewrites, Chvátal–Gomory cuts).

use super::*;

impl Ctx<'_> {
    /// Compares two assertions component by component (P as lists, D as maps, Q normalized).
    pub fn same(&self, a: &Assn, b: &Assn, left: &'static str, right: &'static str) -> Result<(), Rejection> {
        self.same_p(&a.p, &b.p, left, right)?;
        self.same_d(&a.d, &b.d, left, right)?;
        self.same_q(&a.q, &b.q, left, right)
    }

    /// `P` list equality.
    pub fn same_p(&self, a: &[Cstr], b: &[Cstr], left: &'static str, right: &'static str) -> Result<(), Rejection> {
        if std::ptr::eq(a, b) || a == b {
            return Ok(());
        }
        let show = |p: &[Cstr]| p.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        Err(self.rej(Reason::Differs { left, right, component: "P", left_val: show(a), right_val: show(b) }))
    }

    /// `D` set equality.
    pub fn same_d(&self, a: &DepMap, b: &DepMap, left: &'static str, right: &'static str) -> Result<(), Rejection> {
        if std::ptr::eq(a, b) || a == b {
            return Ok(());
        }
        let show = |d: &DepMap| d.iter().map(|(x, e)| format!("{x}:{e}")).collect::<Vec<_>>().join(", ");
        Err(self.rej(Reason::Differs { left, right, component: "D", left_val: show(a), right_val: show(b) }))
    }

    /// Potential equality after normalization.
    pub fn same_q(&self, a: &Poly, b: &Poly, left: &'static str, right: &'static str) -> Result<(), Rejection> {
        if std::ptr::eq(a, b) || a == b {
            return Ok(());
        }
        Err(self.rej(Reason::Differs {
            left,
            right,
            component: "Q",
            left_val: a.to_string(),
            right_val: b.to_string(),
        }))
    }

    /// `a ≥ b` pointwise, by coefficients alone: `a − b` (normalized) has no negative
    /// coefficient. No rewrites, so it holds on every state, whatever `P` says.
    pub fn ge_pointwise(&self, a: &Poly, b: &Poly, left: &'static str, right: &'static str) -> Result<(), Rejection> {
        match a.add_scaled(b, &-Rat::one()).negative_term() {
            Some(term) => Err(self.rej(Reason::NotPointwiseBelow { left, right, term })),
            None => Ok(()),
        }
    }

    /// `D1 ⊒ D2`: every entry of `d2` is implied by `d1`'s entry for the same local.
    pub fn covers(&self, d1: &DepMap, d2: &DepMap) -> Result<(), Rejection> {
        for (x, want) in d2 {
            match d1.get(x) {
                Some(have) if have.implies(want) => {}
                have => {
                    return Err(self.rej(Reason::DepNotImplied {
                        var: x.clone(),
                        have: have.map_or("absent".to_string(), ToString::to_string),
                        want: want.to_string(),
                    }))
                }
            }
        }
        Ok(())
    }

    /// Checks the witness list `(entail NAME …)`: one valid Farkas witness per target,
    /// each from `source` (an absent list counts as empty).
    pub fn entail<T: std::borrow::Borrow<Cstr>>(
        &self,
        n: &Node,
        name: &str,
        source: &[Cstr],
        targets: &[T],
    ) -> Result<(), Rejection> {
        let empty = syntax::Witnesses::default();
        let ws = n.entails.get(name).unwrap_or(&empty);
        if ws.len() != targets.len() {
            return Err(self.rej(Reason::WitnessCount {
                list: name.to_string(),
                expected: targets.len(),
                found: ws.len(),
            }));
        }
        for (i, (w, t)) in ws.iter().zip(targets).enumerate() {
            let t: &Cstr = t.borrow();
            let checked = match w {
                syntax::Witness::Farkas(f) => check_farkas(source, t, f),
                // an `(ids …)` run's `(farkas (K 1))`: `check_farkas`'s own first case
                // (source K equals the target: the same constraint, as when a frame
                // constraint of a shared `P` is its own target, or an equal one), else the
                // pair built and checked
                syntax::Witness::Id(k) if source.get(k).is_some_and(|s| std::ptr::eq(s, t) || s == t) => Ok(()),
                syntax::Witness::Id(k) => check_farkas(source, t, &[(k, Rat::one())]),
            };
            checked.map_err(|problem| {
                self.rej(Reason::Farkas { list: format!("entail {name}"), item: i, target: t.to_string(), problem })
            })?;
        }
        Ok(())
    }

    /// `(rewrite NAME …)` justifies `q1 ≥ q2` under `p` (spec/certificate.md): each rewrite's
    /// Farkas witness is checked, the rewrites are applied to `q1` in order, and
    /// `q1' − q2` must have only non-negative coefficients.
    pub fn dominates(&self, n: &Node, name: &'static str, p: &[Cstr], q1: &Poly, q2: &Poly) -> Result<(), Rejection> {
        let q = self.rewritten(n, name, p, q1, false)?;
        match q.add_scaled(q2, &-Rat::one()).negative_term() {
            Some(term) => Err(self.rej(Reason::NotDominated { list: name, term })),
            None => Ok(()),
        }
    }

    /// `q1` after the rewrites of `(rewrite NAME …)` under `p`, each witness checked
    /// (spec/certificate.md); with `equalities_only` (L:WEAK, spec/logic.md §4b) a `mono`
    /// or `imono` rewrite is rejected ([`Reason::InequalityRewrite`]).
    pub fn rewritten(
        &self,
        n: &Node,
        name: &'static str,
        p: &[Cstr],
        q1: &Poly,
        equalities_only: bool,
    ) -> Result<Poly, Rejection> {
        let mut q = q1.clone();
        for (i, r) in n.rewrites.get(name).map(Vec::as_slice).unwrap_or(&[]).iter().enumerate() {
            if equalities_only && matches!(r, Rw::Mono(..) | Rw::IMono(..)) {
                return Err(self.rej(Reason::InequalityRewrite(name)));
            }
            if matches!(r, Rw::Mono(..) | Rw::IMono(..)) {
                // Only on a polynomial without negative coefficients (then replacing an atom
                // by a smaller one decreases it).
                if let Some(term) = q.negative_term() {
                    return Err(self.rej(Reason::NotDominated { list: name, term }));
                }
            }
            let farkas_rej = |target: String, problem| {
                self.rej(Reason::Farkas { list: format!("rewrite {name}"), item: i, target, problem })
            };
            let (atom, by) = match r {
                Rw::IShift(a, d, w) => self.int_rewrite(p, a, None, Some(d), w, farkas_rej)?,
                Rw::IZero(a, w) => self.int_rewrite(p, a, None, None, w, farkas_rej)?,
                Rw::IMono(a1, a2, w) => self.int_rewrite(p, a1, Some(a2), None, w, farkas_rej)?,
                Rw::LHalve(l, w) => lhalve(p, l, w).map_err(|(t, e)| farkas_rej(t, e))?,
                Rw::LDouble(l, m, w1, w2) => ldouble(p, l, m, w1, w2).map_err(|(t, e)| farkas_rej(t, e))?,
                Rw::Mono(l1, l2, w) => {
                    // P ⇒ LIN1 ≥ LIN2, i.e. LIN2 − LIN1 ≤ 0
                    let target = Cstr::le(l2.add_scaled(l1, &-Rat::one()));
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    let mut by = Poly::zero();
                    by.add_term(Rat::one(), vec![l2.clone()]);
                    (Atom::Max0(l1.clone()), by)
                }
                Rw::Shift(l, d, w) => {
                    if d.is_negative() {
                        return Err(self.rej(Reason::Negative { what: "shift", value: d.to_string() }));
                    }
                    // P ⇒ LIN ≥ D, i.e. D − LIN ≤ 0.
                    let target = Cstr::le(Lin::constant(d.clone()).add_scaled(l, &-Rat::one()));
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    let mut by = Poly::constant(d.clone());
                    by.add_term(Rat::one(), vec![l.add_scaled(&Lin::constant(d.clone()), &-Rat::one())]);
                    (Atom::Max0(l.clone()), by)
                }
                Rw::Zero(l, w) => {
                    let target = Cstr::le(l.clone());
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    (Atom::Max0(l.clone()), Poly::zero())
                }
                Rw::Split(l, d, w0, w) => {
                    // P ⇒ D ≥ 0, i.e. −D ≤ 0, and P ⇒ LIN ≥ D, i.e. D − LIN ≤ 0.
                    let t0 = Cstr::le(d.scale(&-Rat::one()));
                    check_farkas(p, &t0, w0).map_err(|e| farkas_rej(t0.to_string(), e))?;
                    let target = Cstr::le(d.add_scaled(l, &-Rat::one()));
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    let mut by = Poly::zero();
                    by.add_term(Rat::one(), vec![l.add_scaled(d, &-Rat::one())]);
                    by.add_term(Rat::one(), vec![d.clone()]);
                    (Atom::Max0(l.clone()), by)
                }
            };
            // A = f·A' (canonical), so A' = (1/f)·by.
            if let Ok((f, canon)) = atom.canonical() {
                q = q.replace_atom(&canon, &Poly::zero().add_scaled(&by, &(Rat::one() / f)));
            }
        }
        Ok(q)
    }

    /// An integer rewrite (spec/certificate.md "Integer rewrites"): `(ishift A D CG)`
    /// (`shift = Some(D)`), `(izero A CG)`, or `(imono A A2 CG)` (`a2 = Some(A2)`). The source
    /// is `p`, then the defining facts of `A`'s and `A2`'s arguments ([`atom_arg`], fresh
    /// integer variables `(q0)`, `(q1)`: parentheses never occur in a certificate's names),
    /// then each Chvátal–Gomory cut in order ([`check_cut`]); the final Farkas witness proves
    /// `D·U − arg(A) ≤ 0`, `arg(A) − (U − 1) ≤ 0`, resp. `arg(A2) − arg(A) ≤ 0` from it, `U`
    /// the unit of `A` ([`atom_unit`]: 1, or the divisor of a symbolic floor atom, whose
    /// argument is its form and which has no defining facts, spec/logic.md §1 "Symbolic
    /// divisors"); `imono` needs the same unit for both atoms
    /// ([`FarkasProblem::MixedDivisor`]). Returns `A` and the polynomial that replaces it
    /// (`D + A↓D`, `0`, resp. `A2`).
    fn int_rewrite(
        &self,
        p: &[Cstr],
        a: &Atom,
        a2: Option<&Atom>,
        shift: Option<&Rat>,
        cg: &Cg,
        rej: impl Fn(String, FarkasProblem) -> Rejection,
    ) -> Result<(Atom, Poly), Rejection> {
        let mut source = p.to_vec();
        let (arg1, facts1) = atom_arg(a, "(q0)").map_err(|e| rej(a.to_string(), e))?;
        source.extend(facts1);
        let unit = atom_unit(a);
        let arg2 = match a2 {
            Some(x) if atom_unit(x) != unit => {
                return Err(rej(a.to_string(), FarkasProblem::MixedDivisor(a.to_string(), x.to_string())))
            }
            Some(x) => {
                let (arg, facts) = atom_arg(x, "(q1)").map_err(|e| rej(x.to_string(), e))?;
                source.extend(facts);
                Some(arg)
            }
            None => None,
        };
        for (j, cut) in cg.cuts.iter().enumerate() {
            let c = check_cut(&source, cut).map_err(|e| rej(format!("cut {j}"), e))?;
            source.push(c);
        }
        let (target, by) = match (a2.zip(arg2), shift) {
            (Some((a2, arg2)), _) => {
                let mut by = Poly::zero();
                by.add_term(Rat::one(), vec![a2.clone()]);
                (arg2.add_scaled(&arg1, &-Rat::one()), by)
            }
            (None, Some(d)) => {
                if d.is_negative() {
                    return Err(self.rej(Reason::Negative { what: "shift", value: d.to_string() }));
                }
                let mut by = Poly::constant(d.clone());
                by.add_term(Rat::one(), vec![a.shifted(d).map_err(|e| rej(a.to_string(), e))?]);
                (unit.scale(d).add_scaled(&arg1, &-Rat::one()), by)
            }
            (None, None) => {
                (arg1.add_scaled(&unit, &-Rat::one()).add_scaled(&Lin::constant(Rat::one()), &Rat::one()), Poly::zero())
            }
        };
        let target = Cstr::le(target);
        check_farkas(&source, &target, &cg.farkas).map_err(|e| rej(target.to_string(), e))?;
        Ok((a.clone(), by))
    }
}

/// The log rewrite `(lhalve LIN FARKAS)` (spec/certificate.md "Log rewrites"): the witness
/// proves `P ⇒ LIN ≥ 2` (target `2 − LIN ≤ 0`); returns the atom `⌊log2 LIN⌋⁺` and the
/// polynomial `1 + ⌊log2 (LIN/2)⌋⁺` that replaces it (`⌊LIN⌋ ≥ 2` and
/// `⌊LIN/2⌋ = ⌊⌊LIN⌋/2⌋`, so `log2` drops by exactly 1). `Err` names the failed target.
fn lhalve(p: &[Cstr], l: &Lin, w: &syntax::Farkas) -> Result<(Atom, Poly), (String, FarkasProblem)> {
    let target = Cstr::le(Lin::constant(Rat::from_integer(BigInt::from(2))).add_scaled(l, &-Rat::one()));
    check_farkas(p, &target, w).map_err(|e| (target.to_string(), e))?;
    let mut by = Poly::constant(Rat::one());
    by.add_term(Rat::one(), vec![Atom::Log(l.scale(&Rat::new(BigInt::one(), BigInt::from(2))))]);
    Ok((Atom::Log(l.clone()), by))
}

/// The log rewrite `(ldouble LIN1 LIN2 FARKAS1 FARKAS2)` (spec/certificate.md "Log
/// rewrites"): `M = LIN2` must have integer coefficients (so `⌊2M⌋ = 2⌊M⌋` on integer
/// states; else [`FarkasProblem::NotIntegral`] with target `M`); the witnesses prove
/// `P ⇒ M ≥ 1` (target `1 − M ≤ 0`) and `P ⇒ 2M ≤ L` (target `2M − L ≤ 0`). Returns the
/// atom `⌊log2 (L/M)⌋⁺` and the polynomial `1 + ⌊log2 (L/2M)⌋⁺` that replaces it
/// (`m = ⌊M⌋ ≥ 1`, `⌊L⌋ ≥ 2m`: `⌊⌊L⌋/2m⌋ = ⌊⌊⌊L⌋/m⌋/2⌋` with `⌊⌊L⌋/m⌋ ≥ 2`, so `log2`
/// drops by exactly 1; Coq `Log.ldouble_sound`). `Err` names the failed target.
fn ldouble(
    p: &[Cstr],
    l: &Lin,
    m: &Lin,
    w1: &syntax::Farkas,
    w2: &syntax::Farkas,
) -> Result<(Atom, Poly), (String, FarkasProblem)> {
    if !m.c.is_integer() || !m.terms.values().all(Rat::is_integer) {
        return Err((m.to_string(), FarkasProblem::NotIntegral(m.to_string())));
    }
    let one = Cstr::le(Lin::constant(Rat::one()).add_scaled(m, &-Rat::one()));
    check_farkas(p, &one, w1).map_err(|e| (one.to_string(), e))?;
    let two = Rat::from_integer(BigInt::from(2));
    let twice = Cstr::le(m.scale(&two).add_scaled(l, &-Rat::one()));
    check_farkas(p, &twice, w2).map_err(|e| (twice.to_string(), e))?;
    let mut by = Poly::constant(Rat::one());
    by.add_term(Rat::one(), vec![Atom::LogQ(l.clone(), m.scale(&two))]);
    Ok((Atom::LogQ(l.clone(), m.clone()), by))
}
