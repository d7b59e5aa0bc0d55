//! Coq terms of the program and of the logic's values: integers, rationals, types,
//! operators, and the [`Names`] printer of operands, expressions, statements, linear forms,
//! atoms and potentials.

use super::*;

pub(super) fn lcm(a: &BigInt, b: &BigInt) -> BigInt {
    a.lcm(b)
}

/// The least positive integer `s` with `s·L` integral.
pub(super) fn scale_of(l: &Lin) -> BigInt {
    let mut s = l.c.denom();
    for a in l.terms.values() {
        s = lcm(&s, &a.denom());
    }
    s
}

/// The `?` dimensions of a scaled entry as `Logic.ubits`.
pub(super) fn ubits(u: [bool; 3]) -> String {
    format!("({}, {}, {})", u[0], u[1], u[2])
}

pub(super) fn z(n: &BigInt) -> String {
    if n.is_negative() {
        format!("({n})%Z")
    } else {
        format!("{n}%Z")
    }
}

pub(super) fn q(r: &Rat) -> String {
    if r.denom().is_one() {
        format!("({} # 1)", r.numer())
    } else {
        format!("({} # {})", r.numer(), r.denom())
    }
}

/// The Coq `Syntax.ty` of a type.
pub(crate) fn ty(t: Ty) -> &'static str {
    match t {
        Ty::Int => "TInt",
        Ty::Bool => "TBool",
        Ty::Float => "TFloat",
    }
}

pub(super) fn binop(op: &str) -> Result<&'static str, ExportError> {
    Ok(match op {
        "+" => "OAdd",
        "-" => "OSub",
        "*" => "OMul",
        "/" => "ODiv",
        "%" => "OMod",
        "<<" => "OShl",
        ">>" => "OShr",
        "&" => "OAnd",
        "|" => "OOr",
        "^" => "OXor",
        "<" => "OLt",
        "<=" => "OLe",
        ">" => "OGt",
        ">=" => "OGe",
        "==" => "OEq",
        "!=" => "ONe",
        "&&" => "OLand",
        "||" => "OLor",
        "min" => "OMin",
        "max" => "OMax",
        _ => return Err(ExportError::Unsupported(format!("binary operator {op}"))),
    })
}

pub(super) fn unop(op: &str) -> Result<&'static str, ExportError> {
    Ok(match op {
        "neg" => "UNeg",
        "not" => "UNot",
        "bitnot" => "UBitnot",
        "tofloat" => "UToFloat",
        "toint" => "UToInt",
        "tobool" => "UToBool",
        "popc" => "UPopc",
        "ffs" => "UFfs",
        _ => return Err(ExportError::Unsupported(format!("unary operator {op}"))),
    })
}

impl<'p> Names<'p> {
    /// The indices of `p`'s names.
    pub(crate) fn new(p: &'p Program) -> Names<'p> {
        let index =
            |names: Vec<&'p str>| names.into_iter().enumerate().map(|(i, n)| (n, i)).collect();
        Names {
            locals: index(p.locals.iter().map(|l| l.1.as_str()).collect()),
            params: index(p.params.iter().map(|l| l.1.as_str()).collect()),
            arrays: index(p.arrays.iter().map(|a| a.name.as_str()).collect()),
        }
    }

    pub(super) fn var(&self, v: &str) -> Result<String, ExportError> {
        if let Some(d) = ["threadIdx.x", "threadIdx.y", "threadIdx.z"]
            .iter()
            .position(|t| *t == v)
        {
            return Ok(format!("VT {d}"));
        }
        if let Some(i) = self.locals.get(v) {
            return Ok(format!("VL {i}"));
        }
        if let Some(i) = self.params.get(v) {
            return Ok(format!("VP {i}"));
        }
        Err(ExportError::Unsupported(format!("unknown variable {v}")))
    }

    /// `s·L` as a Coq `lin` (`s·L` must be integral).
    pub(super) fn lin(&self, l: &Lin, s: &BigInt) -> Result<String, ExportError> {
        let sr = Rat::from_integer(s.clone());
        let int = |r: &Rat| -> Result<BigInt, ExportError> {
            let v = r * &sr;
            if v.denom().is_one() {
                Ok(v.numer().clone())
            } else {
                Err(ExportError::Unsupported(format!(
                    "non-integral linear form {l}"
                )))
            }
        };
        let mut terms = Vec::new();
        for (v, a) in &l.terms {
            terms.push(format!("({}, {})", z(&int(a)?), self.var(v)?));
        }
        Ok(format!("mkLin {} [{}]", z(&int(&l.c)?), terms.join("; ")))
    }

    /// A parameter hypothesis `L ≤ 0` / `L = 0` (L:HYP, spec/logic.md §4b) as a Coq
    /// proposition over the parameter values `ps` (a function name): `s·L` (`s` its scale)
    /// with each parameter `p` as `int_of (ps i)`, e.g. `(256 + 256 * int_of (ps 1) -
    /// int_of (ps 0) <= 0)%Z`.
    ///
    /// Errors: [`ExportError::Unsupported`] for a variable that is not a parameter or a
    /// lane constraint (L:HYP admits neither).
    pub(crate) fn param_prop(&self, c: &Cstr, ps: &str) -> Result<String, ExportError> {
        // a congruence hypothesis `(mod p m (r))` over one parameter (spec/logic.md §4b
        // "Warp-exact products"): `(int_of (ps p) mod m = r)%Z`
        if let Some(l) = &c.lane {
            let one = c.lin.c.is_zero() && c.lin.terms.len() == 1;
            let (v, a) = c.lin.terms.iter().next().filter(|_| one).ok_or_else(|| {
                ExportError::Unsupported(format!("lane constraint {c} as a hypothesis"))
            })?;
            let i = self
                .params
                .get(v.as_str())
                .filter(|_| a.is_one())
                .ok_or_else(|| {
                    ExportError::Unsupported(format!(
                        "hypothesis {c}: not a congruence of a parameter"
                    ))
                })?;
            let [r] = l.rs.as_slice() else {
                return Err(ExportError::Unsupported(format!(
                    "hypothesis {c}: several residues"
                )));
            };
            return Ok(format!("(int_of ({ps} {i}%nat) mod {} = {})%Z", l.m, r));
        }
        let s = Rat::from_integer(scale_of(&c.lin));
        let mut out = (&c.lin.c * &s).numer().to_string();
        for (v, a) in &c.lin.terms {
            let i = self.params.get(v.as_str()).ok_or_else(|| {
                ExportError::Unsupported(format!("hypothesis on {v}, not a parameter"))
            })?;
            let k = (a * &s).numer().clone();
            let sign = if k.is_negative() { "-" } else { "+" };
            let _ = match k.abs() {
                m if m.is_one() => write!(out, " {sign} int_of ({ps} {i}%nat)"),
                m => write!(out, " {sign} {m} * int_of ({ps} {i}%nat)"),
            };
        }
        Ok(format!("({out} {} 0)%Z", if c.eq { "=" } else { "<=" }))
    }

    /// The witness point `(witness (NAME INT)…)` of L:HYP as a Coq `nat -> val` (every
    /// other parameter `VInt 0`).
    ///
    /// Errors: [`ExportError::Unsupported`] for a name that is not a parameter.
    pub(crate) fn witness(&self, w: &[(String, BigInt)]) -> Result<String, ExportError> {
        let mut arms = String::new();
        for (n, v) in w {
            let i = self.params.get(n.as_str()).ok_or_else(|| bad(n))?;
            let _ = write!(arms, "| {i} => VInt {} ", z(v));
        }
        Ok(format!("fun p => match p with {arms}| _ => VInt 0%Z end"))
    }

    /// A potential atom as a Coq `Lin.atm`: `max0(L)` as `am (s·L)` (`s` the scale of `L`,
    /// returned so that the caller divides it out of the coefficient); the floor atom
    /// `⌊L/d⌋⁺` as `mkAtm (s·L) (s·d)` (`⌊sL/sd⌋ = ⌊L/d⌋`: scale 1 for the coefficient);
    /// the log atom `⌊log2 L⌋⁺` as `mkAtmK (s·L) s KLog` and the quotient log atom
    /// `⌊log2 (L/M)⌋⁺` as `mkAtmK (s·L) s (KLogQ M)` (spec/logic.md §1 "Log atoms",
    /// "Quotient log atoms"; scale 1); the residue atom `[m ∤ L]` as
    /// `mkAtmK (mkLin 0 []) 1 (KRes L m)` (spec/logic.md §1 "Residue atoms"; scale 1); the
    /// window atom `[L mod m < w]` as `mkAtmK (mkLin 0 []) 1 (KWin L m w)` (spec/logic.md §1
    /// "Window atoms"; scale 1).
    ///
    /// Errors: [`ExportError::Unsupported`] for a floor divisor below 1 or a quotient log
    /// atom whose divisor form `M` is not integral (`Lin.akind`'s `KLogQ` takes an integral
    /// `M`; the kernel's `ldouble` needs one too).
    pub(crate) fn atom(&self, a: &Atom) -> Result<(String, BigInt), ExportError> {
        match a {
            Atom::Max0(l) => {
                let s = scale_of(l);
                Ok((format!("am ({})", self.lin(l, &s)?), s))
            }
            Atom::Floor(l, d) => {
                let s = scale_of(l);
                let sd = &s * d;
                if !sd.is_positive() {
                    return Err(ExportError::Unsupported(format!(
                        "floor atom {a} with divisor {d} < 1"
                    )));
                }
                Ok((format!("mkAtm ({}) {sd}", self.lin(l, &s)?), BigInt::one()))
            }
            // `⌊L/D⌋⁺` with a launch divisor as `mkAtmK L 1 (KFloorS D)` (Logic.satm): the
            // kernel's canonical form has integral `L` and `D` with gcd 1, printed as is
            Atom::FloorSym(l, d) => {
                if !scale_of(l).is_one() || !scale_of(d).is_one() {
                    return Err(ExportError::UnsupportedAtom(a.to_string()));
                }
                let one = BigInt::one();
                Ok((
                    format!(
                        "mkAtmK ({}) 1 (KFloorS ({}))",
                        self.lin(l, &one)?,
                        self.lin(d, &one)?
                    ),
                    one,
                ))
            }
            Atom::Log(l) => {
                let s = scale_of(l);
                Ok((
                    format!("mkAtmK ({}) {s}%positive KLog", self.lin(l, &s)?),
                    BigInt::one(),
                ))
            }
            Atom::LogQ(l, m) => {
                let s = scale_of(l);
                Ok((
                    format!(
                        "mkAtmK ({}) {s}%positive (KLogQ ({}))",
                        self.lin(l, &s)?,
                        self.int_divisor(a, m)?
                    ),
                    BigInt::one(),
                ))
            }
            // `[m ∤ L]` as `mkAtmK (mkLin 0 []) 1 (KRes L m)` (spec/logic.md §1 "Residue
            // atoms"; the kernel requires an integral L)
            Atom::Res(l, m) => Ok((
                format!(
                    "mkAtmK (mkLin 0 []) 1 (KRes ({}) {m}%positive)",
                    self.int_divisor(a, l)?
                ),
                BigInt::one(),
            )),
            // `[L mod m < w]` as `mkAtmK (mkLin 0 []) 1 (KWin L m w)` (spec/logic.md §1
            // "Window atoms"; the kernel requires an integral L and m ≥ 1)
            Atom::Win(l, m, w) => {
                if !m.is_positive() {
                    return Err(ExportError::Unsupported(format!(
                        "window atom {a} with modulus {m} < 1"
                    )));
                }
                Ok((
                    format!(
                        "mkAtmK (mkLin 0 []) 1 (KWin ({}) {m}%positive ({w})%Z)",
                        self.int_divisor(a, l)?
                    ),
                    BigInt::one(),
                ))
            }
        }
    }

    /// The divisor form `M` of a quotient log atom `a` as a Coq `lin`: it must be integral.
    pub(super) fn int_divisor(&self, a: &Atom, m: &Lin) -> Result<String, ExportError> {
        if !scale_of(m).is_one() {
            return Err(ExportError::Unsupported(format!(
                "quotient log atom {a} with the rational divisor form {m}"
            )));
        }
        self.lin(m, &BigInt::one())
    }

    /// A potential as `mkPot c [(coef, [atom; …]); …]`: each atom as [`Names::atom`], the
    /// scale of a `max0` atom divided out of the coefficient.
    pub(crate) fn pot(&self, p: &Poly) -> Result<String, ExportError> {
        let mut c0 = Rat::zero();
        let mut terms = Vec::new();
        for (atoms, c) in &p.terms {
            if atoms.is_empty() {
                c0 += c;
                continue;
            }
            let mut coef = c.clone();
            let mut printed = Vec::new();
            for a in atoms {
                let (text, s) = self.atom(a)?;
                coef /= Rat::from_integer(s);
                printed.push(text);
            }
            terms.push(format!("({}, [{}])", q(&coef), printed.join("; ")));
        }
        Ok(format!("mkPot {} [{}]", q(&c0), terms.join("; ")))
    }

    pub(crate) fn opd(&self, o: &Opd) -> Result<String, ExportError> {
        Ok(match o {
            Opd::Var(x) => format!(
                "OVar {}",
                self.locals.get(x.as_str()).ok_or_else(|| bad(x))?
            ),
            Opd::Param(p) => format!(
                "OParam {}",
                self.params.get(p.as_str()).ok_or_else(|| bad(p))?
            ),
            Opd::Tid(d) => format!("OTid {d}"),
            Opd::Int(n) => format!("OConst (VInt {})", z(n)),
            Opd::Bool(b) => format!("OConst (VBool {b})"),
            Opd::Float(f) => {
                let v: f64 = f.parse().map_err(|_| bad(f))?;
                format!("OConst (VFloat {})", z(&BigInt::from(v.to_bits() as i64)))
            }
        })
    }

    pub(crate) fn expr(&self, e: &Expr) -> Result<String, ExportError> {
        Ok(match e {
            Expr::Opd(o) => format!("EOpd ({})", self.opd(o)?),
            Expr::Bin(op, a, b) => {
                format!("EBin {} ({}) ({})", binop(op)?, self.opd(a)?, self.opd(b)?)
            }
            Expr::Un(op, a) => format!("EUn {} ({})", unop(op)?, self.opd(a)?),
            Expr::Read(a, o) => {
                format!(
                    "ERead {} ({})",
                    self.arrays.get(a.as_str()).ok_or_else(|| bad(a))?,
                    self.opd(o)?
                )
            }
        })
    }

    /// The Coq term of statement `s`, indented by `ind` columns after the first line.
    pub(crate) fn stmt(&self, s: &Stmt, out: &mut String, ind: usize) -> Result<(), ExportError> {
        let pad = " ".repeat(ind);
        match s {
            Stmt::Skip => out.push_str("SSkip"),
            Stmt::Sync => out.push_str("SSync"),
            Stmt::Seq(a, b) => {
                out.push_str("SSeq\n");
                out.push_str(&pad);
                out.push_str("  (");
                self.stmt(a, out, ind + 2)?;
                out.push_str(")\n");
                out.push_str(&pad);
                out.push_str("  (");
                self.stmt(b, out, ind + 2)?;
                out.push(')');
            }
            Stmt::Assign(x, e) => {
                let i = self.locals.get(x.as_str()).ok_or_else(|| bad(x))?;
                let _ = write!(out, "SAssign {i} ({})", self.expr(e)?);
            }
            Stmt::Write(a, o, e) => {
                let i = self.arrays.get(a.as_str()).ok_or_else(|| bad(a))?;
                let _ = write!(out, "SWrite {i} ({}) ({})", self.opd(o)?, self.expr(e)?);
            }
            Stmt::If(e, a, b) => {
                let _ = write!(out, "SIf ({})\n{pad}  (", self.expr(e)?);
                self.stmt(a, out, ind + 2)?;
                let _ = write!(out, ")\n{pad}  (");
                self.stmt(b, out, ind + 2)?;
                out.push(')');
            }
            Stmt::While(e, b) => {
                let _ = write!(out, "SWhile ({})\n{pad}  (", self.expr(e)?);
                self.stmt(b, out, ind + 2)?;
                out.push(')');
            }
            Stmt::Warp(x, op) => {
                let i = self.locals.get(x.as_str()).ok_or_else(|| bad(x))?;
                let op = match op {
                    WarpOp::Shfl(k, w, v, l) => {
                        let k = match k.as_str() {
                            "idx" => "KIdx",
                            "up" => "KUp",
                            "down" => "KDown",
                            "xor" => "KXor",
                            _ => return Err(bad(k)),
                        };
                        format!("WShfl {k} {w} ({}) ({})", self.opd(v)?, self.opd(l)?)
                    }
                    WarpOp::Vote(k, p) => {
                        let k = match k.as_str() {
                            "ballot" => "KBallot",
                            "any" => "KAny",
                            "all" => "KAll",
                            _ => return Err(bad(k)),
                        };
                        format!("WVote {k} ({})", self.opd(p)?)
                    }
                };
                let _ = write!(out, "SWarp {i} ({op})");
            }
        }
        Ok(())
    }
}
