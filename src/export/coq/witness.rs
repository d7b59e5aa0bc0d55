//! Assertions and witnesses as Coq terms: constraints, dependence entries, shared
//! assertion definitions, Farkas combinations (scaled to integers), rewrites and cuts.

use super::*;

impl Exporter<'_> {
    /// A constraint: `CLe`/`CEq` of the scaled form, or `CMod L m [r…]` for a lane
    /// constraint (its form is integral: scale 1).
    pub(super) fn cstr(&self, c: &Cstr) -> Result<String, ExportError> {
        if let Some(l) = &c.lane {
            let rs: Vec<String> = l.rs.iter().map(z).collect();
            return Ok(format!(
                "CMod ({}) {} [{}]",
                self.names.lin(&c.lin, &BigInt::one())?,
                z(&l.m),
                rs.join("; ")
            ));
        }
        let k = if c.eq { "CEq" } else { "CLe" };
        Ok(format!(
            "{k} ({})",
            self.names.lin(&c.lin, &scale_of(&c.lin))?
        ))
    }

    /// A dependence entry (`Logic.dent`).
    pub(super) fn dent(&self, x: &str, d: &Dep) -> Result<String, ExportError> {
        let i = self.names.locals.get(x).ok_or_else(|| bad(x))?;
        let k = format!("({}, {}, {})", z(&d.k[0]), z(&d.k[1]), z(&d.k[2]));
        Ok(match d.kind {
            EntryKind::Linear => format!("DLin {i} {k} {} {}", z(&d.r), z(&d.g)),
            EntryKind::Rem => format!("DRem {i} {k} {} {}", z(&d.r), z(&d.g)),
            EntryKind::Rng => format!("DRng {i} {}", z(&d.g)),
            EntryKind::Wrap => format!("DWrap {i} {k} {}", z(&d.g)),
            // the row multiplier `(? P A B)` as `Some (P, A, B)` (spec/logic.md §1 "Row
            // multipliers"), `P` the parameter's index
            EntryKind::Scaled(u) => {
                let mul = match &d.mul {
                    None => "None".to_string(),
                    Some(m) => {
                        let p = self
                            .names
                            .params
                            .get(m.param.as_str())
                            .ok_or_else(|| bad(&m.param))?;
                        format!("(Some ({p}%nat, {}, {}))", z(&m.a), z(&m.b))
                    }
                };
                format!("DScl {i} {} {k} {} {} {mul}", ubits(u), z(&d.r), z(&d.g))
            }
        })
    }

    /// The name of a (shared) definition of assertion `a`.
    pub(super) fn assn(&mut self, a: &Assn) -> Result<String, ExportError> {
        let p: Result<Vec<String>, ExportError> = a.p.iter().map(|c| self.cstr(c)).collect();
        let d: Result<Vec<String>, ExportError> =
            a.d.iter().map(|(x, e)| self.dent(x, e)).collect();
        let body = format!(
            "mkAssn [{}] [{}] ({})",
            p?.join("; "),
            d?.join("; "),
            self.names.pot(&a.q)?
        );
        let n = self.assns.len();
        let id = *self.assns.entry(body.clone()).or_insert(n);
        if id == n {
            let _ = writeln!(self.defs, "Definition a{id} : assn := {body}.");
        }
        Ok(format!("a{id}"))
    }

    /// Scales of a source list: the constraints' own scales (cond constraints are
    /// integral: scale 1).
    pub(super) fn scales(ps: &[Cstr], extra: usize) -> Vec<BigInt> {
        let mut v: Vec<BigInt> = ps.iter().map(|c| scale_of(&c.lin)).collect();
        v.extend(std::iter::repeat_n(BigInt::one(), extra));
        v
    }

    /// One Farkas witness for a target of scale `st` from sources of scales `ss`.
    pub(super) fn farkas(
        w: &[(usize, Rat)],
        st: &BigInt,
        ss: &[BigInt],
    ) -> Result<String, ExportError> {
        let mut k = st.clone();
        let mut parts = Vec::new();
        for (i, l) in w {
            let si = ss
                .get(*i)
                .ok_or_else(|| ExportError::Unsupported(format!("witness index {i}")))?;
            let r = l / Rat::from_integer(si.clone());
            k = lcm(&k, &r.denom());
            parts.push((*i, r));
        }
        let m = &k / st;
        let kr = Rat::from_integer(k);
        let ws: Vec<String> = parts
            .iter()
            .map(|(i, r)| {
                let v = r * &kr;
                format!("({i}, {})", z(&v.numer()))
            })
            .collect();
        Ok(format!("({}, [{}])", z(&m), ws.join("; ")))
    }

    pub(super) fn witnesses(
        n: &Node,
        name: &str,
        targets: &[BigInt],
        ss: &[BigInt],
    ) -> Result<String, ExportError> {
        let ws = n
            .entails
            .get(name)
            .map(Witnesses::expanded)
            .unwrap_or_default();
        if ws.len() != targets.len() {
            return Err(ExportError::Unsupported(format!(
                "entail {name}: witness count"
            )));
        }
        let v: Result<Vec<String>, ExportError> = ws
            .iter()
            .zip(targets)
            .map(|(w, st)| Self::farkas(w, st, ss))
            .collect();
        Ok(format!("[{}]", v?.join("; ")))
    }

    pub(super) fn rewrites(
        &self,
        n: &Node,
        name: &str,
        under: &[Cstr],
    ) -> Result<String, ExportError> {
        self.rewrites_ss(n, name, &Self::scales(under, 0))
    }

    /// [`Self::rewrites`] under sources of scales `ss`.
    pub(super) fn rewrites_ss(
        &self,
        n: &Node,
        name: &str,
        ss: &[BigInt],
    ) -> Result<String, ExportError> {
        let ss = ss.to_vec();
        let one = BigInt::one();
        let mut out = Vec::new();
        for r in n.rewrites.get(name).cloned().unwrap_or_default() {
            match r {
                // `Logic.RLHalve (s·L) s w`: the target `2 − L ≤ 0` is `2s − s·L ≤ 0` (scale s)
                Rw::LHalve(l, w) => {
                    let s = scale_of(&l);
                    out.push(format!(
                        "RLHalve ({}) {s}%positive {}",
                        self.names.lin(&l, &s)?,
                        Self::farkas(&w, &s, &ss)?
                    ));
                }
                // `Logic.RLDouble (s·L) s M w1 w2`: targets `1 − M ≤ 0` (scale 1) and
                // `2M − L ≤ 0` as `2s·M − s·L ≤ 0` (scale s)
                Rw::LDouble(l, m, w1, w2) => {
                    let s = scale_of(&l);
                    let atom = Atom::LogQ(l.clone(), m.clone());
                    out.push(format!(
                        "RLDouble ({}) {s}%positive ({}) {} {}",
                        self.names.lin(&l, &s)?,
                        self.names.int_divisor(&atom, &m)?,
                        Self::farkas(&w1, &one, &ss)?,
                        Self::farkas(&w2, &s, &ss)?
                    ));
                }
                Rw::Shift(l, d, w) => {
                    if !scale_of(&l).is_one() || !d.denom().is_one() {
                        return Err(ExportError::Unsupported(
                            "rewrite with rational form or shift".into(),
                        ));
                    }
                    out.push(format!(
                        "RShift ({}) {} {}",
                        self.names.lin(&l, &one)?,
                        z(&d.numer()),
                        Self::farkas(&w, &one, &ss)?
                    ));
                }
                Rw::Mono(l1, l2, w) => {
                    if !scale_of(&l1).is_one() || !scale_of(&l2).is_one() {
                        return Err(ExportError::Unsupported(
                            "mono rewrite with rational forms".into(),
                        ));
                    }
                    out.push(format!(
                        "RMono ({}) ({}) {}",
                        self.names.lin(&l1, &one)?,
                        self.names.lin(&l2, &one)?,
                        Self::farkas(&w, &one, &ss)?
                    ));
                }
                Rw::Split(l, d, w0, w) => {
                    if !scale_of(&l).is_one() || !scale_of(&d).is_one() {
                        return Err(ExportError::Unsupported(
                            "split rewrite with rational forms".into(),
                        ));
                    }
                    out.push(format!(
                        "RSplit ({}) ({}) {} {}",
                        self.names.lin(&l, &one)?,
                        self.names.lin(&d, &one)?,
                        Self::farkas(&w0, &one, &ss)?,
                        Self::farkas(&w, &one, &ss)?
                    ));
                }
                Rw::Zero(l, w) => {
                    if !scale_of(&l).is_one() {
                        return Err(ExportError::Unsupported(
                            "rewrite with rational form".into(),
                        ));
                    }
                    out.push(format!(
                        "RZero ({}) {}",
                        self.names.lin(&l, &one)?,
                        Self::farkas(&w, &one, &ss)?
                    ));
                }
                Rw::IShift(Atom::FloorSym(l, dv), k, cg) => {
                    if !k.denom().is_one() {
                        return Err(ExportError::Unsupported(format!(
                            "ishift of a symbolic floor atom by the rational {k}"
                        )));
                    }
                    out.push(format!(
                        "RSShift ({}) ({}) {} {}",
                        self.names.lin(&l, &one)?,
                        self.names.lin(&dv, &one)?,
                        z(&k.numer()),
                        Self::cg(&cg, &ss, 0)?
                    ));
                }
                Rw::IZero(Atom::FloorSym(l, dv), cg) => {
                    out.push(format!(
                        "RSZero ({}) ({}) {}",
                        self.names.lin(&l, &one)?,
                        self.names.lin(&dv, &one)?,
                        Self::cg(&cg, &ss, 0)?
                    ));
                }
                Rw::IMono(Atom::FloorSym(l1, d1), Atom::FloorSym(l2, d2), cg) if d1 == d2 => {
                    out.push(format!(
                        "RSMono ({}) ({}) ({}) {}",
                        self.names.lin(&l1, &one)?,
                        self.names.lin(&l2, &one)?,
                        self.names.lin(&d1, &one)?,
                        Self::cg(&cg, &ss, 0)?
                    ));
                }
                Rw::IShift(a, d, cg) => {
                    if !d.denom().is_one() {
                        return Err(ExportError::Unsupported(format!(
                            "ishift of {a} by the rational {d}"
                        )));
                    }
                    out.push(format!(
                        "RIShift {} ({}) {} {}",
                        self.names.locals.len(),
                        self.rw_atom(&a)?,
                        z(&d.numer()),
                        Self::cg(&cg, &ss, 2 * usize::from(matches!(a, Atom::Floor(..))))?
                    ));
                }
                Rw::IZero(a, cg) => {
                    out.push(format!(
                        "RIZero {} ({}) {}",
                        self.names.locals.len(),
                        self.rw_atom(&a)?,
                        Self::cg(&cg, &ss, 2 * usize::from(matches!(a, Atom::Floor(..))))?
                    ));
                }
                Rw::IMono(a1, a2, cg) => {
                    let facts = [&a1, &a2]
                        .iter()
                        .filter(|a| matches!(a, Atom::Floor(..)))
                        .count();
                    out.push(format!(
                        "RIMono {} ({}) ({}) {}",
                        self.names.locals.len(),
                        self.rw_atom(&a1)?,
                        self.rw_atom(&a2)?,
                        Self::cg(&cg, &ss, 2 * facts)?
                    ));
                }
            }
        }
        Ok(format!("[{}]", out.join("; ")))
    }

    /// The atom of an integer rewrite (spec/certificate.md "Integer rewrites"): its form
    /// must be integral (as the kernel requires of a floor atom there) and a floor atom's
    /// divisor at least 2 (`(floor L 1)` would add defining facts that `Logic.aarg` of the
    /// divisor-1 atom `am L` does not, shifting the witnesses' indices).
    pub(super) fn rw_atom(&self, a: &Atom) -> Result<String, ExportError> {
        if !scale_of(a.lin()).is_one() {
            return Err(ExportError::Unsupported(format!(
                "integer rewrite of {a} with a rational form"
            )));
        }
        if let Atom::FloorSym(..) = a {
            // RSShift / RSZero / RSMono above; a symbolic atom here is a mixed imono, which
            // the kernel refuses (`MixedDivisor`)
            return Err(ExportError::UnsupportedAtom(format!(
                "integer rewrite of the symbolic floor atom {a} beside a constant-divisor one"
            )));
        }
        if let Atom::Floor(_, d) = a {
            if *d < BigInt::from(2) {
                return Err(ExportError::Unsupported(format!(
                    "integer rewrite of the floor atom {a} with divisor {d} < 2"
                )));
            }
        }
        Ok(self.names.atom(a)?.0)
    }

    /// A Chvátal–Gomory witness `(cuts, farkas)` as `Logic.cgw`. The source list is `P`
    /// (scales `ss`), then `facts` defining facts and the derived cuts, all integral (scale
    /// 1). A cut with multipliers `λ` becomes `(m, [(i, m·λᵢ/sᵢ)…])`, `m` the least common
    /// denominator, so that `S_m = m·S` and `Logic.cut_of` derives the kernel's
    /// `S − b + ⌈b⌉ ≤ 0` exactly; the final witness is a Farkas witness for a target of
    /// scale 1 (the target `D − arg`, `arg`, resp. `arg2 − arg1` is integral).
    pub(super) fn cg(cg: &Cg, ss: &[BigInt], facts: usize) -> Result<String, ExportError> {
        let mut scales = ss.to_vec();
        scales.extend(std::iter::repeat_n(BigInt::one(), facts));
        let one = BigInt::one();
        let mut cuts = Vec::new();
        for cut in &cg.cuts {
            cuts.push(Self::farkas(cut, &one, &scales)?);
            scales.push(BigInt::one());
        }
        Ok(format!(
            "([{}], {})",
            cuts.join("; "),
            Self::farkas(&cg.farkas, &one, &scales)?
        ))
    }
}
