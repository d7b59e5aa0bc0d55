//! `warpcert export-coq`: a certificate the kernel accepted, printed as a Coq file whose
//! bound theorem is proved by reflection against the theories in `coq-export/theories/`.
//!
//! The file defines the context `G` (metric, hardware, launch, signature), the program
//! `body`, the derivation `tree` (one `dtree` node per rule application, assertions
//! shared as `Definition a<N>`) and the `bound`, proves `root_ok : check_root G body
//! tree bound = true` by `vm_compute`, and concludes (`warp_bound`) by applying
//! `Check.bound_sound`, itself a consequence of `Soundness.soundness` (RaCUDA
//! Theorem 1 for warpcert's representations). See `coq-export/README.md`.
//!
//! Representations (coq-export/README.md "What the export prints"): names become
//! indices in declaration order (printed in comments); every constraint `L ≤ 0` / `L = 0`
//! is scaled by the least positive integer making it integral, and every Farkas witness
//! `(i λ)…` becomes `(m, [(i, λ')…])` with integers `m > 0`, `λ'`, for the scaled forms;
//! dependence maps become their uniform sets `X(D)` (entries `(dep x 0 0 0 _ _)`).
//!
//! Errors ([`ExportError`]): the kernel rejects the certificate; the derivation uses a
//! rule the Coq theories do not formalize (`Q:IF1`–`Q:IF3`, `Q:WHILE2`, `Q:SYNC` is
//! supported); a potential term is a product of atoms; a rewrite shifts by a
//! non-integer. Nothing is printed in those cases.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use warpcert_kernel::arith::{Cstr, Lin, Poly, Rat};
use warpcert_kernel::syntax::{self, Assn, Certificate, Expr, Node, Opd, Rw, Space, Stmt, Ty};

/// Why a certificate could not be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The independent kernel rejected the certificate (its reason).
    #[error("the kernel rejected the certificate: {0}")]
    Rejected(String),
    /// A rule of the derivation is not formalized in the Coq theories.
    #[error("rule {0} is not formalized in the Coq theories (coq-export/README.md lists the supported rules)")]
    UnsupportedRule(String),
    /// A potential has a term with two or more atoms (the Coq potentials are linear).
    #[error("potential term with {0} atoms: the Coq theories support linear potentials only")]
    NonLinearPotential(usize),
    /// Anything else the Coq representation cannot express, with an explanation.
    #[error("cannot export: {0}")]
    Unsupported(String),
}

/// Exports certificate text as a Coq file (see the module documentation).
///
/// Errors: [`ExportError`]; the kernel's rejection comes first.
pub fn export(text: &str) -> Result<String, ExportError> {
    warpcert_kernel::check(text).map_err(|r| ExportError::Rejected(r.to_string()))?;
    let top =
        warpcert_kernel::sexp::parse_all(text).map_err(|r| ExportError::Rejected(r.to_string()))?;
    let cert = syntax::certificate(&top).map_err(|r| ExportError::Rejected(r.to_string()))?;
    Exporter::new(&cert).file()
}

struct Exporter<'c> {
    cert: &'c Certificate,
    locals: BTreeMap<&'c str, usize>,
    params: BTreeMap<&'c str, usize>,
    arrays: BTreeMap<&'c str, usize>,
    assns: HashMap<String, usize>,
    defs: String,
}

fn lcm(a: &BigInt, b: &BigInt) -> BigInt {
    a.lcm(b)
}

/// The least positive integer `s` with `s·L` integral.
fn scale_of(l: &Lin) -> BigInt {
    let mut s = l.c.denom().clone();
    for a in l.terms.values() {
        s = lcm(&s, a.denom());
    }
    s
}

fn z(n: &BigInt) -> String {
    if n.is_negative() {
        format!("({n})%Z")
    } else {
        format!("{n}%Z")
    }
}

fn q(r: &Rat) -> String {
    if r.denom().is_one() {
        format!("({} # 1)", r.numer())
    } else {
        format!("({} # {})", r.numer(), r.denom())
    }
}

fn ty(t: Ty) -> &'static str {
    match t {
        Ty::Int => "TInt",
        Ty::Bool => "TBool",
        Ty::Float => "TFloat",
    }
}

fn binop(op: &str) -> Result<&'static str, ExportError> {
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

fn unop(op: &str) -> Result<&'static str, ExportError> {
    Ok(match op {
        "neg" => "UNeg",
        "not" => "UNot",
        "bitnot" => "UBitnot",
        "tofloat" => "UToFloat",
        "toint" => "UToInt",
        "tobool" => "UToBool",
        _ => return Err(ExportError::Unsupported(format!("unary operator {op}"))),
    })
}

impl<'c> Exporter<'c> {
    fn new(cert: &'c Certificate) -> Exporter<'c> {
        let p = &cert.program;
        let index =
            |names: Vec<&'c str>| names.into_iter().enumerate().map(|(i, n)| (n, i)).collect();
        Exporter {
            cert,
            locals: index(p.locals.iter().map(|l| l.1.as_str()).collect()),
            params: index(p.params.iter().map(|l| l.1.as_str()).collect()),
            arrays: index(p.arrays.iter().map(|a| a.name.as_str()).collect()),
            assns: HashMap::new(),
            defs: String::new(),
        }
    }

    fn var(&self, v: &str) -> Result<String, ExportError> {
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
    fn lin(&self, l: &Lin, s: &BigInt) -> Result<String, ExportError> {
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

    fn cstr(&self, c: &Cstr) -> Result<String, ExportError> {
        let k = if c.eq { "CEq" } else { "CLe" };
        Ok(format!("{k} ({})", self.lin(&c.lin, &scale_of(&c.lin))?))
    }

    fn pot(&self, p: &Poly) -> Result<String, ExportError> {
        let mut c0 = Rat::zero();
        let mut terms = Vec::new();
        for (atoms, c) in &p.terms {
            match atoms.as_slice() {
                [] => c0 += c,
                [l] => {
                    let s = scale_of(l);
                    let coef = c / Rat::from_integer(s.clone());
                    terms.push(format!("({}, {})", q(&coef), self.lin(l, &s)?));
                }
                more => return Err(ExportError::NonLinearPotential(more.len())),
            }
        }
        Ok(format!("mkPot {} [{}]", q(&c0), terms.join("; ")))
    }

    /// The name of a (shared) definition of assertion `a`.
    fn assn(&mut self, a: &Assn) -> Result<String, ExportError> {
        let p: Result<Vec<String>, ExportError> = a.p.iter().map(|c| self.cstr(c)).collect();
        let x: Vec<String> =
            a.d.iter()
                .filter(|(_, d)| d.k.iter().all(Zero::is_zero))
                .filter_map(|(v, _)| self.locals.get(v.as_str()).map(|i| i.to_string()))
                .collect();
        let body = format!(
            "mkAssn [{}] [{}] ({})",
            p?.join("; "),
            x.join("; "),
            self.pot(&a.q)?
        );
        let n = self.assns.len();
        let id = *self.assns.entry(body.clone()).or_insert(n);
        if id == n {
            let _ = writeln!(self.defs, "Definition a{id} : assn := {body}.");
        }
        Ok(format!("a{id}"))
    }

    fn opd(&self, o: &Opd) -> Result<String, ExportError> {
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
                format!("OConst (VFloat {}%Z)", v.to_bits() as i64)
            }
        })
    }

    fn expr(&self, e: &Expr) -> Result<String, ExportError> {
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

    fn stmt(&self, s: &Stmt, out: &mut String, ind: usize) -> Result<(), ExportError> {
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
        }
        Ok(())
    }

    /// Scales of a source list: the constraints' own scales (cond constraints are
    /// integral: scale 1).
    fn scales(ps: &[Cstr], extra: usize) -> Vec<BigInt> {
        let mut v: Vec<BigInt> = ps.iter().map(|c| scale_of(&c.lin)).collect();
        v.extend(std::iter::repeat_n(BigInt::one(), extra));
        v
    }

    /// One Farkas witness for a target of scale `st` from sources of scales `ss`.
    fn farkas(w: &[(usize, Rat)], st: &BigInt, ss: &[BigInt]) -> Result<String, ExportError> {
        let mut k = st.clone();
        let mut parts = Vec::new();
        for (i, l) in w {
            let si = ss
                .get(*i)
                .ok_or_else(|| ExportError::Unsupported(format!("witness index {i}")))?;
            let r = l / Rat::from_integer(si.clone());
            k = lcm(&k, r.denom());
            parts.push((*i, r));
        }
        let m = &k / st;
        let kr = Rat::from_integer(k);
        let ws: Vec<String> = parts
            .iter()
            .map(|(i, r)| {
                let v = r * &kr;
                format!("({i}, {})", z(v.numer()))
            })
            .collect();
        Ok(format!("({}, [{}])", z(&m), ws.join("; ")))
    }

    fn witnesses(
        n: &Node,
        name: &str,
        targets: &[BigInt],
        ss: &[BigInt],
    ) -> Result<String, ExportError> {
        let ws = n.entails.get(name).cloned().unwrap_or_default();
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

    fn rewrites(&self, n: &Node, name: &str, under: &[Cstr]) -> Result<String, ExportError> {
        let ss = Self::scales(under, 0);
        let one = BigInt::one();
        let mut out = Vec::new();
        for r in n.rewrites.get(name).cloned().unwrap_or_default() {
            match r {
                Rw::Shift(l, d, w) => {
                    if !scale_of(&l).is_one() || !d.denom().is_one() {
                        return Err(ExportError::Unsupported(
                            "rewrite with rational form or shift".into(),
                        ));
                    }
                    out.push(format!(
                        "RShift ({}) {} {}",
                        self.lin(&l, &one)?,
                        z(d.numer()),
                        Self::farkas(&w, &one, &ss)?
                    ));
                }
                Rw::Mono(..) => {
                    return Err(ExportError::Unsupported("monotone (mono) rewrite".into()));
                }
                Rw::Zero(l, w) => {
                    if !scale_of(&l).is_one() {
                        return Err(ExportError::Unsupported(
                            "rewrite with rational form".into(),
                        ));
                    }
                    out.push(format!(
                        "RZero ({}) {}",
                        self.lin(&l, &one)?,
                        Self::farkas(&w, &one, &ss)?
                    ));
                }
            }
        }
        Ok(format!("[{}]", out.join("; ")))
    }

    /// The access witness `(n, dep)` of an expression node under `pre` (`Check.accw`):
    /// the claimed `n` of a read (else 0) and, for a global read, a dependence witness.
    fn expr_acc(&self, e: &Node, ex: &Expr, pre: &Assn) -> String {
        let n = e.n.clone().unwrap_or_default();
        match ex {
            Expr::Read(_, o) => self.acc(&n, o, pre),
            _ => format!("({}, None)", z(&n)),
        }
    }

    fn acc(&self, n: &BigInt, o: &Opd, pre: &Assn) -> String {
        match self.dep_witness(o, pre) {
            Some(w) => format!("({}, Some {w})", z(n)),
            None => format!("({}, None)", z(n)),
        }
    }

    /// A witness `((kx, ky, kz), U, farkas)` for `x = k·threadIdx + U` from the equalities
    /// of `pre.P` (`Logic.dep_ok`), found by eliminating locals; `None` when the index is
    /// not a local or some non-uniform local cannot be eliminated.
    fn dep_witness(&self, o: &Opd, pre: &Assn) -> Option<String> {
        self.dep_witness_with(o, pre, false)
            .or_else(|| self.dep_witness_with(o, pre, true))
    }

    /// [`Exporter::dep_witness`] eliminating uniform locals too (`keep_uniform` false:
    /// finer congruences, e.g. `t0 = 256·blockIdx.x`) or keeping them at once.
    fn dep_witness_with(&self, o: &Opd, pre: &Assn, keep_uniform: bool) -> Option<String> {
        if let Opd::Tid(_) = o {
            // `Logic.dep_ok` reads `threadIdx.d` directly; the witness is not used.
            return Some("((0%Z, 0%Z, 0%Z), mkLin 0%Z [], (1%Z, []), (1%Z, []))".to_string());
        }
        let Opd::Var(x) = o else { return None };
        if self.cert.program.local(x) != Some(Ty::Int) {
            return None;
        }
        let uniform: Vec<&String> = pre
            .d
            .iter()
            .filter(|(_, d)| d.k.iter().all(Zero::is_zero))
            .map(|(v, _)| v)
            .collect();
        let mut e: BTreeMap<String, Rat> = BTreeMap::new();
        e.insert(x.clone(), Rat::one());
        let mut c = Rat::zero();
        // Rows usable as equalities: `eq` constraints, and `le` constraints whose
        // negation is also in P (row i with partner j: L_j = −L_i).
        let neg = |l: &Lin| Lin {
            c: -l.c.clone(),
            terms: l.terms.iter().map(|(v, a)| (v.clone(), -a)).collect(),
        };
        let partner: Vec<Option<usize>> = (0..pre.p.len())
            .map(|i| {
                if pre.p[i].eq {
                    return Some(i);
                }
                let ni = neg(&pre.p[i].lin);
                (0..pre.p.len()).find(|&j| j != i && !pre.p[j].eq && pre.p[j].lin == ni)
            })
            .collect();
        let mut lam: Vec<Rat> = vec![Rat::zero(); pre.p.len()];
        let mut used = vec![false; pre.p.len()];
        let mut kept: Vec<String> = Vec::new();
        loop {
            let y = e
                .keys()
                .find(|v| self.locals.contains_key(v.as_str()) && !kept.contains(v))
                .cloned();
            let Some(y) = y else { break };
            if keep_uniform && uniform.contains(&&y) {
                kept.push(y);
                continue;
            }
            let found = (0..pre.p.len()).find(|&i| {
                !used[i]
                    && partner[i].is_some_and(|j| !used[j])
                    && pre.p[i].lin.terms.contains_key(&y)
            });
            match found {
                Some(i) => {
                    let l = &pre.p[i].lin;
                    let mu = e[&y].clone() / l.terms[&y].clone();
                    for (v, a) in &l.terms {
                        let ent = e.entry(v.clone()).or_insert_with(Rat::zero);
                        *ent -= &mu * a;
                        if ent.is_zero() {
                            e.remove(v);
                        }
                    }
                    c -= &mu * &l.c;
                    lam[i] += &mu;
                    used[i] = true;
                    if let Some(j) = partner[i] {
                        used[j] = true;
                    }
                }
                None if uniform.contains(&&y) => kept.push(y),
                None => return None,
            }
        }
        let int = |r: &Rat| {
            if r.denom().is_one() {
                Some(r.numer().clone())
            } else {
                None
            }
        };
        let mut k = Vec::new();
        for d in ["threadIdx.x", "threadIdx.y", "threadIdx.z"] {
            k.push(int(&e.remove(d).unwrap_or_else(Rat::zero))?);
        }
        let mut terms = Vec::new();
        for (v, a) in &e {
            terms.push(format!("({}, {})", z(&int(a)?), self.var(v).ok()?));
        }
        let u = format!("mkLin {} [{}]", z(&int(&c)?), terms.join("; "));
        // T = x − e = Σ lam_i·L_i; witnesses for T ≤ 0 and −T ≤ 0 (le rows by sign).
        let mut w1 = Vec::new();
        let mut w2 = Vec::new();
        for (i, l) in lam.iter().enumerate() {
            if l.is_zero() {
                continue;
            }
            let j = partner[i].unwrap_or(i);
            let negl = -l.clone();
            if pre.p[i].eq {
                w1.push((i, l.clone()));
                w2.push((i, negl));
            } else if l.is_positive() {
                w1.push((i, l.clone()));
                w2.push((j, l.clone()));
            } else {
                w1.push((j, negl.clone()));
                w2.push((i, negl));
            }
        }
        let ss = Self::scales(&pre.p, 0);
        let f1 = Self::farkas(&w1, &BigInt::one(), &ss).ok()?;
        let f2 = Self::farkas(&w2, &BigInt::one(), &ss).ok()?;
        let f = format!("{f1}, {f2}");
        Some(format!(
            "(({}, {}, {}), {u}, {f})",
            z(&k[0]),
            z(&k[1]),
            z(&k[2])
        ))
    }

    fn node(&mut self, n: &Node, s: &Stmt, ind: usize) -> Result<String, ExportError> {
        let pad = " ".repeat(ind);
        let (pre, post) = match (&n.pre, &n.post) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return Err(ExportError::Unsupported(format!(
                    "statement node {} without pre/post",
                    n.rule
                )))
            }
        };
        let a = self.assn(pre)?;
        let b = self.assn(post)?;
        let ch = &n.children;
        let child = |i: usize| {
            ch.get(i)
                .ok_or_else(|| ExportError::Unsupported(format!("{}: children", n.rule)))
        };
        let post_scales: Vec<BigInt> = Self::scales(&post.p, 0);
        Ok(match (n.rule.as_str(), s) {
            ("Q:SKIP", _) => format!("DSkip {a}"),
            ("Q:SYNC", _) => format!("DSync {a} {b}"),
            ("Q:SEQ", Stmt::Seq(s1, s2)) => {
                let d1 = self.node(child(0)?, s1, ind + 2)?;
                let d2 = self.node(child(1)?, s2, ind + 2)?;
                format!("DSeq {a} {b}\n{pad}  ({d1})\n{pad}  ({d2})")
            }
            ("Q:VWRITE1" | "Q:VWRITE2", _) => {
                let k = if n.rule == "Q:VWRITE1" {
                    "DVwrite1"
                } else {
                    "DVwrite2"
                };
                let ws = Self::witnesses(n, "post", &post_scales, &Self::scales(&pre.p, 0))?;
                let Stmt::Assign(_, ex) = s else {
                    return Err(ExportError::Unsupported(format!(
                        "{} about a {}",
                        n.rule,
                        s.kind()
                    )));
                };
                format!("{k} {a} {b} {} {ws}", self.expr_acc(child(0)?, ex, pre))
            }
            ("Q:GWRITE" | "Q:SWRITE", Stmt::Write(_, o, ex)) => {
                let nn = n.n.clone().unwrap_or_default();
                let acc = self.acc(&nn, o, pre);
                format!("DWrite {a} {b} {acc} {}", self.expr_acc(child(1)?, ex, pre))
            }
            ("Q:IF4", Stmt::If(e, s1, s2)) => {
                let (t, f) = (child(1)?, child(2)?);
                let (tpost, fpre, fpost) = match (&t.post, &f.pre, &f.post) {
                    (Some(x), Some(y), Some(z)) => (x, y, z),
                    _ => {
                        return Err(ExportError::Unsupported(
                            "Q:IF4 children without pre/post".into(),
                        ))
                    }
                };
                let ncond = self.cond_len(e, true);
                let fs = Self::scales(&fpre.p, 0);
                let wec = Self::witnesses(n, "else-cond", &fs, &Self::scales(&pre.p, ncond))?;
                let wet = Self::witnesses(n, "else-then", &fs, &Self::scales(&tpost.p, 0))?;
                let wjt =
                    Self::witnesses(n, "join-then", &post_scales, &Self::scales(&tpost.p, 0))?;
                let wje =
                    Self::witnesses(n, "join-else", &post_scales, &Self::scales(&fpost.p, 0))?;
                let dt = self.node(t, s1, ind + 2)?;
                let df = self.node(f, s2, ind + 2)?;
                format!(
                    "DIf4 {a} {b} {} {wec} {wet} {wjt} {wje}\n{pad}  ({dt})\n{pad}  ({df})",
                    self.expr_acc(child(0)?, e, pre)
                )
            }
            ("Q:WHILE1", Stmt::While(e, body)) => {
                let db = self.node(child(1)?, body, ind + 2)?;
                format!(
                    "DWhile1 {a} {b} {}\n{pad}  ({db})",
                    self.expr_acc(child(0)?, e, pre)
                )
            }
            ("Q:WEAK", _) => {
                let c = child(0)?;
                let (np, nq) = match (&c.pre, &c.post) {
                    (Some(x), Some(y)) => (x, y),
                    _ => {
                        return Err(ExportError::Unsupported(
                            "Q:WEAK child without pre/post".into(),
                        ))
                    }
                };
                let k = q(&n.frame.clone().unwrap_or_else(Rat::zero));
                let wpre =
                    Self::witnesses(n, "pre", &Self::scales(&np.p, 0), &Self::scales(&pre.p, 0))?;
                let rpre = self.rewrites(n, "pre", &pre.p)?;
                let wpost = Self::witnesses(n, "post", &post_scales, &Self::scales(&nq.p, 0))?;
                let rpost = self.rewrites(n, "post", &nq.p)?;
                let d = self.node(c, s, ind + 2)?;
                format!("DWeak {a} {b} {k} {wpre} {rpre} {wpost} {rpost}\n{pad}  ({d})")
            }
            (r @ ("Q:SEQ" | "Q:IF4" | "Q:WHILE1" | "Q:GWRITE" | "Q:SWRITE"), _) => {
                return Err(ExportError::Unsupported(format!(
                    "{r} about a {}",
                    s.kind()
                )))
            }
            (r, _) => return Err(ExportError::UnsupportedRule(r.to_string())),
        })
    }

    /// The number of constraints of `cond(¬e)` (neg) or `cond(e)` (spec/logic.md §2).
    fn cond_len(&self, e: &Expr, neg: bool) -> usize {
        let p = &self.cert.program;
        let linear = |o: &Opd| match o {
            Opd::Var(x) => p.local(x) == Some(Ty::Int),
            Opd::Param(x) => p.param(x) == Some(Ty::Int),
            Opd::Tid(_) | Opd::Int(_) => true,
            _ => false,
        };
        match e {
            Expr::Bin(op, a, b) if linear(a) && linear(b) => match (op.as_str(), neg) {
                ("<" | "<=" | ">" | ">=", _) | ("==", false) | ("!=", true) => 1,
                _ => 0,
            },
            _ => 0,
        }
    }

    fn file(mut self) -> Result<String, ExportError> {
        let c = self.cert;
        let p = &c.program;
        let metric = match c.metric.as_str() {
            m @ ("sectors" | "conflicts" | "divwarps" | "steps") => m,
            m => return Err(ExportError::Unsupported(format!("metric {m}"))),
        };
        let mut body = String::new();
        self.stmt(&p.body, &mut body, 2)?;
        let tree = self.node(&c.root, &p.body, 2)?;
        let bound = self.pot(&c.bound)?;
        let [w, banks, bank_bytes, sector_bytes] = c.hardware;
        let [bx, by, bz] = c.block;
        let lty: Vec<String> = p
            .locals
            .iter()
            .map(|l| format!("Some {}", ty(l.0)))
            .collect();
        let pty: Vec<String> = p
            .params
            .iter()
            .map(|l| format!("Some {}", ty(l.0)))
            .collect();
        let arr: Vec<String> = p
            .arrays
            .iter()
            .map(|a| {
                let sp = if a.space == Space::Global {
                    "Global"
                } else {
                    "Shared"
                };
                format!("Some ({sp}, {}%Z)", a.bytes)
            })
            .collect();
        let bidx: Vec<String> = p
            .params
            .iter()
            .enumerate()
            .filter(|(_, l)| l.1.starts_with("blockIdx."))
            .map(|(i, _)| i.to_string())
            .collect();
        let names = |v: Vec<&str>| -> String {
            v.iter()
                .enumerate()
                .map(|(i, n)| format!("{i} = {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "(* Exported by `warpcert export-coq` from a certificate the kernel accepted.\n   \
             Kernel `{}`, metric `{metric}`. Check with coqc against coq-export/theories\n   \
             (see coq-export/README.md). Do not edit. *)",
            p.name
        );
        out.push_str(
            "From Coq Require Import ZArith QArith List.\n\
             From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Check.\n\
             Import ListNotations.\nOpen Scope Q_scope.\nOpen Scope nat_scope.\n\n",
        );
        let _ = writeln!(
            out,
            "(* locals: {} *)",
            names(p.locals.iter().map(|l| l.1.as_str()).collect())
        );
        let _ = writeln!(
            out,
            "(* parameters: {} *)",
            names(p.params.iter().map(|l| l.1.as_str()).collect())
        );
        let _ = writeln!(
            out,
            "(* arrays: {} *)",
            names(p.arrays.iter().map(|a| a.name.as_str()).collect())
        );
        let _ = writeln!(
            out,
            "Definition G : ctx := {{|\n  c_metric := {metric}; c_warp := {w}; c_banks := {banks}%Z;\n  \
             c_bank_bytes := {bank_bytes}%Z; c_sector_bytes := {sector_bytes}%Z;\n  \
             c_bx := {bx}; c_by := {by}; c_bz := {bz};\n  \
             c_lty := fun x => nth x [{}] None;\n  c_pty := fun p => nth p [{}] None;\n  \
             c_arr := fun a => nth a [{}] None;\n  c_blockidx := [{}] |}}.\n",
            lty.join("; "),
            pty.join("; "),
            arr.join("; "),
            bidx.join("; ")
        );
        let _ = writeln!(out, "Definition body : stmt :=\n  {body}.\n");
        out.push_str(&self.defs);
        let _ = writeln!(out, "\nDefinition tree : dtree :=\n  {tree}.\n");
        let _ = writeln!(out, "Definition bound : pot := {bound}.\n");
        out.push_str(
            "Lemma root_ok : check_root G body tree bound = true.\n\
             Proof. vm_compute. reflexivity. Qed.\n\n\
             (** For every float model, parameter values of the declared types with\n    \
             [blockIdx] >= 0, array contents and non-empty warp [w] of the block: the cost\n    \
             of running [body] on the warp is at most [bound]. *)\n\
             Theorem warp_bound : forall (F : fmodel) (ps : nat -> val) (arrays : nat -> Z -> val)\n  \
             (w : nat) (s' : store) (C : Q),\n  \
             pok G ps -> (forall p, In p (c_blockidx G) -> (0 <= int_of (ps p))%Z) ->\n  \
             lanes G w <> [] -> seval G F ps (init_store G arrays) body (lanes G w) s' C ->\n  \
             (C <= pval (rho_params ps) bound)%Q.\n\
             Proof. exact (bound_sound G body tree bound root_ok). Qed.\n\n\
             Print Assumptions warp_bound.\n",
        );
        Ok(out)
    }
}

fn bad(x: &str) -> ExportError {
    ExportError::Unsupported(format!("unknown name {x}"))
}

/// The bound of an exported file as a Coq term (for tests that mutate it).
pub fn bound_line(file: &str) -> Option<&str> {
    file.lines()
        .find(|l| l.starts_with("Definition bound : pot :="))
}
