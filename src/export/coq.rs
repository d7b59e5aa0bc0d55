//! `warpcert export-coq`: a certificate the kernel accepted, printed as a Coq file whose
//! bound theorem is proved by reflection against the theories in `coq-export/theories/`.
//!
//! The file defines the context `G` (metric, hardware, launch, signature, warp-uniform
//! dimensions), the program `body`, the derivation `tree` (one `dtree` node per rule
//! application, assertions shared as `Definition a<N>`), the `bound` and the access-bound
//! table `tab`, proves `root_ok : check_root G tab body tree bound = true` by
//! `vm_compute`, and concludes (`warp_bound`) by applying
//! `Check.bound_sound`, itself a consequence of `Soundness.soundness` (RaCUDA
//! Theorem 1 for warpcert's representations). See `coq-export/README.md`.
//!
//! Representations (coq-export/README.md "What the export prints"): names become
//! indices in declaration order (printed in comments); every linear constraint `L ≤ 0` /
//! `L = 0` and every potential atom is scaled by the least positive integer making it
//! integral, and every Farkas witness `(i λ)…` becomes `(m, [(i, λ')…])` with integers
//! `m > 0`, `λ'`, for the scaled forms; lane constraints `(mod L m r…)` (integral) become
//! `CMod L m [r…]`; dependence maps become lists of entries `DLin`/`DRem`/`DRng`/`DScl`; the
//! access bounds the derivation claims are collected into a table `tab` of `(key, n)`
//! (one entry per distinct `N*` key, `n` the smallest claim) that `coqc` checks once each.
//!
//! A lower-bound certificate (section `(lower W)`, spec/logic.md §4b) prints the same tree
//! with the `L:` rules as their `Q:` constructors and proves `warp_lower_bound` from
//! `LowerCheck.lower_bound_sound` instead ([`super::coq_lower`]).
//!
//! Errors ([`ExportError`]): the kernel rejects the certificate; the derivation uses a
//! rule the Coq theories do not formalize (every rule of spec/logic.md §3–§4b is, the
//! filtered judgments of §4a included; a rule added later fails with its name); a rewrite
//! over a non-integral form or shift; a Q:IFEXIT1/4 outside a Q:WHILEEXIT1/2 body. Nothing
//! is printed in those cases.

use super::coq_context::{ctx_def, names_comment, theorem_comment};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use warpcert_kernel::access::Kind;
use warpcert_kernel::arith::{Atom, Cstr, Dep, EntryKind, Lin, Poly, Rat};
use warpcert_kernel::assume::Assumption;
use warpcert_kernel::rules::wrap::wrap_conflicts;
use warpcert_kernel::syntax::{
    self, Assn, Certificate, Cg, Expr, Node, Opd, Program, Rw, Space, Stmt, Ty, WarpOp, Witnesses,
};

/// Why a certificate could not be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The independent kernel rejected the certificate (its reason).
    #[error("the kernel rejected the certificate: {0}")]
    Rejected(String),
    /// A rule of the derivation is not formalized in the Coq theories.
    #[error("rule {0} is not formalized in the Coq theories (coq-export/README.md lists the supported rules)")]
    UnsupportedRule(String),
    /// Anything else the Coq representation cannot express, with an explanation.
    #[error("cannot export: {0}")]
    Unsupported(String),
}

/// Exports certificate text as a Coq file (see the module documentation).
///
/// Errors: [`ExportError`]; the kernel's rejection comes first.
pub fn export(text: &str) -> Result<String, ExportError> {
    let verdict = warpcert_kernel::check(text).map_err(|r| ExportError::Rejected(r.to_string()))?;
    // Reading the derivation and exporting it recurse along its nesting.
    crate::core::stack::with_big_stack(|| {
        let top = warpcert_kernel::sexp::parse_all(text)
            .map_err(|r| ExportError::Rejected(r.to_string()))?;
        let cert = syntax::certificate(&top).map_err(|r| ExportError::Rejected(r.to_string()))?;
        Exporter::new(&cert).file(&verdict.assumptions)
    })
}

/// The indices of a program's locals, parameters and arrays (declaration order) and the
/// Coq terms of its operands, expressions and statements (`Syntax.opd`, `expr`, `stmt`).
/// Shared by the certificate export and `coq_run` (programs run under `Exec.exec`).
pub(crate) struct Names<'p> {
    locals: BTreeMap<&'p str, usize>,
    params: BTreeMap<&'p str, usize>,
    arrays: BTreeMap<&'p str, usize>,
}

struct Exporter<'c> {
    cert: &'c Certificate,
    names: Names<'c>,
    assns: HashMap<String, usize>,
    defs: String,
    /// Access-bound claims: printed key ↦ smallest claimed `n` (`Check.ntab`).
    tab: BTreeMap<String, BigInt>,
    /// The condition of the innermost Q:WHILEEXIT1/2 loop whose body is being exported
    /// (the filter of spec/logic.md §4a; its `cond(¬e)` is the target of `entail exit`).
    filter: Option<Expr>,
    /// `Some(W)`: a lower-bound certificate about warp `W` (`crate::export::coq_lower`).
    lower: Option<u32>,
}

/// A statement node being exported: the node, its pre, the Coq names of its pre and post
/// assertions, the scales of the post's constraints, and the indentation.
struct At<'n> {
    n: &'n Node,
    pre: &'n Assn,
    a: String,
    b: String,
    post_scales: Vec<BigInt>,
    pad: String,
    ind: usize,
}

impl<'n> At<'n> {
    /// Child `i` of the node, or an error naming the rule.
    fn child(&self, i: usize) -> Result<&'n Node, ExportError> {
        self.n
            .children
            .get(i)
            .ok_or_else(|| ExportError::Unsupported(format!("{}: children", self.n.rule)))
    }
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

/// The `?` dimensions of a scaled entry as `Logic.ubits`.
fn ubits(u: [bool; 3]) -> String {
    format!("({}, {}, {})", u[0], u[1], u[2])
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

/// The Coq `Syntax.ty` of a type.
pub(crate) fn ty(t: Ty) -> &'static str {
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

    /// A parameter hypothesis `L ≤ 0` / `L = 0` (L:HYP, spec/logic.md §4b) as a Coq
    /// proposition over the parameter values `ps` (a function name): `s·L` (`s` its scale)
    /// with each parameter `p` as `int_of (ps i)`, e.g. `(256 + 256 * int_of (ps 1) -
    /// int_of (ps 0) <= 0)%Z`.
    ///
    /// Errors: [`ExportError::Unsupported`] for a variable that is not a parameter or a
    /// lane constraint (L:HYP admits neither).
    pub(crate) fn param_prop(&self, c: &Cstr, ps: &str) -> Result<String, ExportError> {
        if c.lane.is_some() {
            return Err(ExportError::Unsupported(format!(
                "lane constraint {c} as a hypothesis"
            )));
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
    /// "Quotient log atoms"; scale 1).
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
        }
    }

    /// The divisor form `M` of a quotient log atom `a` as a Coq `lin`: it must be integral.
    fn int_divisor(&self, a: &Atom, m: &Lin) -> Result<String, ExportError> {
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

impl<'c> Exporter<'c> {
    fn new(cert: &'c Certificate) -> Exporter<'c> {
        Exporter {
            cert,
            names: Names::new(&cert.program),
            assns: HashMap::new(),
            defs: String::new(),
            tab: BTreeMap::new(),
            filter: None,
            lower: cert.lower,
        }
    }

    /// A constraint: `CLe`/`CEq` of the scaled form, or `CMod L m [r…]` for a lane
    /// constraint (its form is integral: scale 1).
    fn cstr(&self, c: &Cstr) -> Result<String, ExportError> {
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
    fn dent(&self, x: &str, d: &Dep) -> Result<String, ExportError> {
        let i = self.names.locals.get(x).ok_or_else(|| bad(x))?;
        let k = format!("({}, {}, {})", z(&d.k[0]), z(&d.k[1]), z(&d.k[2]));
        Ok(match d.kind {
            EntryKind::Linear => format!("DLin {i} {k} {} {}", z(&d.r), z(&d.g)),
            EntryKind::Rem => format!("DRem {i} {k} {} {}", z(&d.r), z(&d.g)),
            EntryKind::Rng => format!("DRng {i} {}", z(&d.g)),
            EntryKind::Wrap => format!("DWrap {i} {k} {}", z(&d.g)),
            EntryKind::Scaled(u) => format!("DScl {i} {} {k} {} {}", ubits(u), z(&d.r), z(&d.g)),
        })
    }

    /// The name of a (shared) definition of assertion `a`.
    fn assn(&mut self, a: &Assn) -> Result<String, ExportError> {
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

    fn rewrites(&self, n: &Node, name: &str, under: &[Cstr]) -> Result<String, ExportError> {
        self.rewrites_ss(n, name, &Self::scales(under, 0))
    }

    /// [`Self::rewrites`] under sources of scales `ss`.
    fn rewrites_ss(&self, n: &Node, name: &str, ss: &[BigInt]) -> Result<String, ExportError> {
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
                        z(d.numer()),
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
                        z(d.numer()),
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
    fn rw_atom(&self, a: &Atom) -> Result<String, ExportError> {
        if !scale_of(a.lin()).is_one() {
            return Err(ExportError::Unsupported(format!(
                "integer rewrite of {a} with a rational form"
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
    fn cg(cg: &Cg, ss: &[BigInt], facts: usize) -> Result<String, ExportError> {
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

    /// The access claim of an expression node under `pre` (`Check.accw`): the claimed
    /// `n` of a read (recorded in the `N*` table), else 0.
    fn expr_acc(&mut self, e: &Node, ex: &Expr, pre: &Assn) -> String {
        let n = e.n.clone().unwrap_or_default();
        match ex {
            Expr::Read(a, _) if self.is_local(a) => z(&n),
            Expr::Read(a, o) => self.acc(&n, a, o, pre),
            _ => z(&n),
        }
    }

    /// Whether `a` is a thread-local array (EQ:LARRAY, Q:LWRITE: no access claim).
    fn is_local(&self, a: &str) -> bool {
        self.cert.program.array(a).map(|x| x.space) == Some(Space::Local)
    }

    /// `Logic.idep_opd`: the dependence `(k, r, g)` of an integer operand under `d`.
    fn idep_opd(
        &self,
        d: &BTreeMap<String, Dep>,
        o: &Opd,
    ) -> Option<([BigInt; 3], BigInt, BigInt)> {
        let p = &self.cert.program;
        match o {
            Opd::Int(n) => Some((Default::default(), n.clone(), BigInt::zero())),
            Opd::Param(x) if p.param(x) == Some(Ty::Int) => {
                Some((Default::default(), BigInt::zero(), BigInt::one()))
            }
            Opd::Tid(i) => {
                let mut k: [BigInt; 3] = Default::default();
                k[(*i).min(2)] = BigInt::one();
                Some((k, BigInt::zero(), BigInt::zero()))
            }
            Opd::Var(x) if p.local(x) == Some(Ty::Int) => d
                .get(x)
                .filter(|e| e.linear())
                .map(|e| (e.k.clone(), e.r.clone(), e.g.clone())),
            _ => None,
        }
    }

    /// The claim `n` of an access to `arr` at index `o`; records it in the `N*` table under
    /// its key `(shared?, tc, dep, range, es, scaled)` (`Logic.akey`).
    fn acc(&mut self, n: &BigInt, arr: &str, o: &Opd, pre: &Assn) -> String {
        if self.lower.is_some() {
            // a lower claim `N ≤ N_W` is checked per access by LowerCheck.nw_ok, no table
            return z(n);
        }
        if let Some(a) = self.cert.program.arrays.iter().find(|a| a.name == arr) {
            let tc: Vec<String> = pre
                .p
                .iter()
                .filter(|c| c.lin.terms.keys().all(|v| v.starts_with("threadIdx.")))
                .filter_map(|c| self.cstr(c).ok())
                .collect();
            // `Logic.wrap_dep`: a wrapped entry counted as its linear entry (Conflicts)
            let wrap = |x: &String| {
                let kind = if a.space == Space::Shared {
                    Kind::Conflicts
                } else {
                    Kind::MemReads
                };
                let w = pre
                    .d
                    .get(x)
                    .and_then(|e| wrap_conflicts(e, a.bytes, kind, self.cert.hardware))?;
                Some((w.k, w.r, w.g))
            };
            let dep = self.idep_opd(&pre.d, o).or_else(|| match o {
                Opd::Var(x) => wrap(x),
                _ => None,
            });
            // `Logic.scl_of`: the scaled entry `(u, k)` of a local without a linear entry.
            let scl = match (o, &dep) {
                (Opd::Var(x), None) => pre.d.get(x).and_then(|e| match e.kind {
                    EntryKind::Scaled(u) => Some(format!(
                        "Some ({}, ({}, {}, {}))",
                        ubits(u),
                        z(&e.k[0]),
                        z(&e.k[1]),
                        z(&e.k[2])
                    )),
                    _ => None,
                }),
                _ => None,
            };
            let rng = match (o, &dep, &scl) {
                (Opd::Var(x), None, None) => pre.d.get(x).and_then(Dep::window),
                _ => None,
            };
            let dep = match dep {
                Some((k, r, g)) => format!(
                    "Some (({}, {}, {}), {}, {})",
                    z(&k[0]),
                    z(&k[1]),
                    z(&k[2]),
                    z(&r),
                    z(&g)
                ),
                None => "None".to_string(),
            };
            let rng = rng.map_or_else(|| "None".to_string(), |w| format!("Some {}", z(&w)));
            let scl = scl.unwrap_or_else(|| "None".to_string());
            let key = format!(
                "({}, [{}], {dep}, {rng}, {}%Z, {scl})",
                a.space == Space::Shared,
                tc.join("; "),
                a.bytes
            );
            let e = self.tab.entry(key).or_insert_with(|| n.clone());
            if n < e {
                *e = n.clone();
            }
        }
        z(n)
    }

    /// The Coq `dtree` of statement node `n` about `s` (one `D…` constructor per rule),
    /// indented by `ind`; the rules with more than a few lines have their own method.
    fn node(&mut self, n: &Node, s: &Stmt, ind: usize) -> Result<String, ExportError> {
        let (pre, post) = match (&n.pre, &n.post) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return Err(ExportError::Unsupported(format!(
                    "statement node {} without pre/post",
                    n.rule
                )))
            }
        };
        let at = At {
            n,
            pre,
            a: self.assn(pre)?,
            b: self.assn(post)?,
            post_scales: Self::scales(&post.p, 0),
            pad: " ".repeat(ind),
            ind,
        };
        let (a, b, pad) = (&at.a, &at.b, &at.pad);
        let child = |i: usize| at.child(i);
        // an L: rule is printed with the constructor of its Q: counterpart (LowerCheck.v)
        let rule = match self.lower {
            Some(_) => super::coq_lower::as_upper_rule(&n.rule)?,
            None => n.rule.as_str(),
        };
        Ok(match (rule, s) {
            ("Q:SKIP", _) => format!("DSkip {a}"),
            ("Q:SYNC", _) => format!("DSync {a} {b}"),
            ("Q:SHFL" | "Q:VOTE", _) => format!("DWarp {a} {b}"),
            ("Q:SEQ", Stmt::Seq(..)) => self.seq(&n.children, s, a, b, ind)?,
            ("Q:VWRITE1" | "Q:VWRITE2", _) => self.vwrite(&at, s)?,
            ("Q:LWRITE", Stmt::Write(_, _, ex)) => {
                let eacc = self.expr_acc(child(1)?, ex, pre);
                format!("DWrite {a} {b} 0%Z {eacc}")
            }
            ("Q:GWRITE" | "Q:SWRITE", Stmt::Write(arr, o, ex)) => {
                let nn = n.n.clone().unwrap_or_default();
                let acc = self.acc(&nn, arr, o, pre);
                let eacc = self.expr_acc(child(1)?, ex, pre);
                format!("DWrite {a} {b} {acc} {eacc}")
            }
            ("Q:IF1", Stmt::If(e, s1, s2)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let dt = self.node(child(1)?, s1, ind + 2)?;
                let df = self.node(child(2)?, s2, ind + 2)?;
                format!("DIf1 {a} {b} {acc}\n{pad}  ({dt})\n{pad}  ({df})")
            }
            (r @ ("Q:IF2" | "Q:IF3"), Stmt::If(e, s1, s2)) => {
                let neg = r == "Q:IF3";
                let targets = vec![BigInt::one(); self.cond_len(e, neg)];
                let ws = Self::witnesses(n, "cond", &targets, &Self::scales(&pre.p, 0))?;
                let acc = self.expr_acc(child(0)?, e, pre);
                let d = self.node(child(1)?, if neg { s2 } else { s1 }, ind + 2)?;
                let k = if neg { "DIf3" } else { "DIf2" };
                format!("{k} {a} {b} {acc} {ws}\n{pad}  ({d})")
            }
            (r @ ("Q:WHILE2" | "Q:WHILEWARP"), Stmt::While(e, body)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let db = self.node(child(1)?, body, ind + 2)?;
                let k = if r == "Q:WHILE2" {
                    "DWhile2"
                } else {
                    "DWhileWarp"
                };
                format!("{k} {a} {b} {acc}\n{pad}  ({db})")
            }
            ("Q:WHILELAST", Stmt::While(e, body)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let last = child(2)?;
                let (Some(lpre), Some(lpost)) = (&last.pre, &last.post) else {
                    return Err(ExportError::Unsupported(
                        "Q:WHILELAST children without pre/post".into(),
                    ));
                };
                // B'.pre.P = P ++ [L ≤ 0] ++ [−L + 1 − w ≤ 0]: the lane spread w
                let sw = match lpre.p.as_slice() {
                    [.., l, win] if l.lin.add_scaled(&win.lin, &Rat::one()).terms.is_empty() => {
                        let c = Rat::one() - l.lin.add_scaled(&win.lin, &Rat::one()).c;
                        if !c.denom().is_one() {
                            return Err(ExportError::Unsupported(format!("lane spread {c}")));
                        }
                        c.numer().clone()
                    }
                    _ => {
                        return Err(ExportError::Unsupported(
                            "Q:WHILELAST last body pre without the window constraint".into(),
                        ))
                    }
                };
                let mut targets = Self::scales(&pre.p, 0);
                targets.extend(vec![BigInt::one(); self.cond_len(e, true)]);
                let wl = Self::witnesses(n, "last", &targets, &Self::scales(&lpost.p, 0))?;
                let db = self.node(child(1)?, body, ind + 2)?;
                let dl = self.node(last, body, ind + 2)?;
                format!(
                    "DWhileLast {a} {b} {acc} {} {wl}\n{pad}  ({db})\n{pad}  ({dl})",
                    z(&sw)
                )
            }
            ("Q:UNROLL", w @ Stmt::While(e, body)) => {
                // The child is about `if e then (s; while (e) s) else skip` (spec/logic.md §4).
                let unrolled = Stmt::If(
                    e.clone(),
                    Box::new(Stmt::Seq(body.clone(), Box::new(w.clone()))),
                    Box::new(Stmt::Skip),
                );
                let d = self.node(child(0)?, &unrolled, ind + 2)?;
                format!("DUnroll {a} {b}\n{pad}  ({d})")
            }
            ("Q:IF4", Stmt::If(e, s1, s2)) => self.if4(&at, e, s1, s2)?,
            // L:IFD (LowerCheck.v): Q:IF4's constructor with `P ⇒ P'` as its join-then
            // list, the other lists empty and the (unused) children `DSkip`
            ("L:IFD", Stmt::If(e, ..)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let w = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&pre.p, 0))?;
                format!("DIf4 {a} {b} {acc} [] [] {w} [] (DSkip {a}) (DSkip {b})")
            }
            ("Q:WHILE1", Stmt::While(e, body)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let db = self.node(child(1)?, body, ind + 2)?;
                format!("DWhile1 {a} {b} {acc}\n{pad}  ({db})")
            }
            ("Q:WEAK", _) => self.weak(&at, s)?,
            ("Q:GUARD", Stmt::Assign(_, c)) => self.guard(&at, c, s)?,
            ("Q:GUARDEXIT", _) => self.guard_exit(&at, s)?,
            ("Q:IFGUARD4", Stmt::If(c, s1, s2)) => self.if_guard(&at, c, s1, s2)?,
            ("Q:FLAGEXIT", Stmt::Seq(s1, rest)) => self.flag_exit(&at, s1, rest)?,
            (r @ ("Q:IFEXIT1" | "Q:IFEXIT4"), Stmt::If(c, s1, s2)) => {
                self.ifexit(&at, r, c, s1, s2)?
            }
            (r @ ("Q:WHILEEXIT1" | "Q:WHILEEXIT2"), Stmt::While(e, body)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let saved = self.filter.replace(e.clone());
                let db = self.node(child(1)?, body, ind + 2);
                self.filter = saved;
                let db = db?;
                let k = if r == "Q:WHILEEXIT1" {
                    "DWhileExit1"
                } else {
                    "DWhileExit2"
                };
                format!("{k} {a} {b} {acc}\n{pad}  ({db})")
            }
            (
                r @ ("Q:SEQ" | "Q:IF1" | "Q:IF2" | "Q:IF3" | "Q:IF4" | "Q:WHILE1" | "Q:WHILE2"
                | "Q:WHILELAST" | "Q:WHILEWARP" | "Q:UNROLL" | "Q:GWRITE" | "Q:SWRITE"
                | "Q:LWRITE" | "Q:IFEXIT1" | "Q:IFEXIT4" | "Q:WHILEEXIT1" | "Q:WHILEEXIT2"
                | "Q:IFGUARD4" | "Q:FLAGEXIT"),
                _,
            ) => {
                return Err(ExportError::Unsupported(format!(
                    "{r} about a {}",
                    s.kind()
                )))
            }
            (r, _) => return Err(ExportError::UnsupportedRule(r.to_string())),
        })
    }

    /// Q:VWRITE1/2 (`DVwrite1`/`DVwrite2`): the post witnesses and the expression's claim.
    fn vwrite(&mut self, at: &At, s: &Stmt) -> Result<String, ExportError> {
        let (n, a, b) = (at.n, &at.a, &at.b);
        let k = if n.rule.ends_with("VWRITE1") {
            "DVwrite1"
        } else {
            "DVwrite2"
        };
        // a halving node (spec/logic.md §4 "Halving") has one more witness, for the integer
        // target `1 − A ≤ 0` (scale 1), checked by Check.v's `vw1h_ok`; a product node
        // ("Products") two more, for `α − A ≤ 0` and `β − B ≤ 0` (`vw1p_ok`)
        let mut targets = at.post_scales.clone();
        let extra = n
            .entails
            .get("post")
            .map_or(0, Witnesses::len)
            .saturating_sub(targets.len());
        if extra <= 2 {
            targets.extend(std::iter::repeat_n(BigInt::one(), extra));
        }
        let ws = Self::witnesses(n, "post", &targets, &Self::scales(&at.pre.p, 0))?;
        let Stmt::Assign(_, ex) = s else {
            return Err(ExportError::Unsupported(format!(
                "{} about a {}",
                n.rule,
                s.kind()
            )));
        };
        Ok(format!(
            "{k} {a} {b} {} {ws}",
            self.expr_acc(at.child(0)?, ex, at.pre)
        ))
    }

    /// Q:IF4 (`DIf4`): the else-cond, else-then and join witnesses, then both branches.
    fn if4(&mut self, at: &At, e: &Expr, s1: &Stmt, s2: &Stmt) -> Result<String, ExportError> {
        let (n, pre, a, b, pad, ind) = (at.n, at.pre, &at.a, &at.b, &at.pad, at.ind);
        let (t, f) = (at.child(1)?, at.child(2)?);
        let (tpost, fpre, fpost) = match (&t.post, &f.pre, &f.post) {
            (Some(x), Some(y), Some(z)) => (x, y, z),
            _ => {
                return Err(ExportError::Unsupported(
                    "Q:IF4 children without pre/post".into(),
                ))
            }
        };
        // P ∧ ¬e: P, cond(¬e), then at most one lane fact (all integral).
        let ncond = self.cond_len(e, true) + 1;
        let fs = Self::scales(&fpre.p, 0);
        let wec = Self::witnesses(n, "else-cond", &fs, &Self::scales(&pre.p, ncond))?;
        // Q:IF4's else-then covers the linear constraints of the else pre only.
        let fs_lin: Vec<BigInt> = fpre
            .p
            .iter()
            .filter(|c| c.lane.is_none())
            .map(|c| scale_of(&c.lin))
            .collect();
        let wet = Self::witnesses(n, "else-then", &fs_lin, &Self::scales(&tpost.p, 0))?;
        let ps = &at.post_scales;
        let wjt = Self::witnesses(n, "join-then", ps, &Self::scales(&tpost.p, 0))?;
        let wje = Self::witnesses(n, "join-else", ps, &Self::scales(&fpost.p, 0))?;
        let acc = self.expr_acc(at.child(0)?, e, pre);
        let dt = self.node(t, s1, ind + 2)?;
        let df = self.node(f, s2, ind + 2)?;
        Ok(format!(
            "DIf4 {a} {b} {acc} {wec} {wet} {wjt} {wje}\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// Q:WEAK (`DWeak`): the frame, the pre and post witnesses and rewrites, the child.
    fn weak(&mut self, at: &At, s: &Stmt) -> Result<String, ExportError> {
        let (n, pre, a, b, pad) = (at.n, at.pre, &at.a, &at.b, &at.pad);
        let c = at.child(0)?;
        let (np, nq) = match (&c.pre, &c.post) {
            (Some(x), Some(y)) => (x, y),
            _ => {
                return Err(ExportError::Unsupported(
                    "Q:WEAK child without pre/post".into(),
                ))
            }
        };
        let k = q(&n.frame.clone().unwrap_or_else(Rat::zero));
        let wpre = Self::witnesses(n, "pre", &Self::scales(&np.p, 0), &Self::scales(&pre.p, 0))?;
        let rpre = self.rewrites(n, "pre", &pre.p)?;
        let wpost = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&nq.p, 0))?;
        let rpost = self.rewrites(n, "post", &nq.p)?;
        let d = self.node(c, s, at.ind + 2)?;
        Ok(format!(
            "DWeak {a} {b} {k} {wpre} {rpre} {wpost} {rpost}\n{pad}  ({d})"
        ))
    }

    /// Q:GUARD (`DGuard`, spec/logic.md §4a): the rewrites under the child's post `P` and
    /// `cond(c)`, the child (an ordinary judgment).
    fn guard(&mut self, at: &At, c: &Expr, s: &Stmt) -> Result<String, ExportError> {
        let (n, a, b, pad) = (at.n, &at.a, &at.b, &at.pad);
        let ch = at.child(0)?;
        let nq = ch
            .post
            .as_ref()
            .ok_or_else(|| ExportError::Unsupported("Q:GUARD child without post".into()))?;
        let ss = Self::scales(&nq.p, self.cond_len(c, false));
        let rg = self.rewrites_ss(n, "guard", &ss)?;
        let saved = self.filter.take();
        let d = self.node(ch, s, at.ind + 2);
        self.filter = saved;
        let d = d?;
        Ok(format!("DGuard {a} {b} {rg}\n{pad}  ({d})"))
    }

    /// Q:GUARDEXIT (`DGuardExit`, spec/logic.md §4a): the exit witnesses, the child (an
    /// ordinary judgment).
    fn guard_exit(&mut self, at: &At, s: &Stmt) -> Result<String, ExportError> {
        let (n, a, b, pad) = (at.n, &at.a, &at.b, &at.pad);
        let ch = at.child(0)?;
        let nq = ch
            .post
            .as_ref()
            .ok_or_else(|| ExportError::Unsupported("Q:GUARDEXIT child without post".into()))?;
        let wx = Self::witnesses(n, "exit", &at.post_scales, &Self::scales(&nq.p, 0))?;
        let saved = self.filter.take();
        let d = self.node(ch, s, at.ind + 2);
        self.filter = saved;
        let d = d?;
        Ok(format!("DGuardExit {a} {b} {wx}\n{pad}  ({d})"))
    }

    /// Q:IFGUARD4 (`DIfGuard4`, spec/logic.md §4a): the then branch filtered for the
    /// enclosing loop's guard, the else branch (which falsifies it) ordinary.
    fn if_guard(&mut self, at: &At, c: &Expr, s1: &Stmt, s2: &Stmt) -> Result<String, ExportError> {
        let (n, a, b, pad, ind) = (at.n, &at.a, &at.b, &at.pad, at.ind);
        let (t, f) = (at.child(1)?, at.child(2)?);
        let (Some(tpost), Some(fpost)) = (&t.post, &f.post) else {
            return Err(ExportError::Unsupported(
                "Q:IFGUARD4 children without pre/post".into(),
            ));
        };
        if self.filter.is_none() {
            return Err(ExportError::Unsupported(
                "Q:IFGUARD4 outside the body of a Q:WHILEEXIT1/2".into(),
            ));
        }
        let wjt = Self::witnesses(n, "join-then", &at.post_scales, &Self::scales(&tpost.p, 0))?;
        let wje = Self::witnesses(n, "join-else", &at.post_scales, &Self::scales(&fpost.p, 0))?;
        let acc = self.expr_acc(at.child(0)?, c, at.pre);
        let dt = self.node(t, s1, ind + 2)?;
        // The else branch is an ordinary judgment: no filter inside it.
        let saved = self.filter.take();
        let df = self.node(f, s2, ind + 2);
        self.filter = saved;
        let df = df?;
        Ok(format!(
            "DIfGuard4 {a} {b} {acc} {wjt} {wje}\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// Q:FLAGEXIT (`DFlagExit`, spec/logic.md §4a): the part `s1` filtered for the flag
    /// test, the test's then branch filtered for the enclosing loop's guard, its else
    /// branch (which falsifies the guard) ordinary.
    fn flag_exit(&mut self, at: &At, s1: &Stmt, rest: &Stmt) -> Result<String, ExportError> {
        let (n, a, b, pad, ind) = (at.n, &at.a, &at.b, &at.pad, at.ind);
        let unsupported = |what: &str| ExportError::Unsupported(format!("Q:FLAGEXIT {what}"));
        let Stmt::If(c, s2, s3) = rest else {
            return Err(unsupported("about a statement not ending with an `if`"));
        };
        let (part, t, f) = (at.child(0)?, at.child(2)?, at.child(3)?);
        let (Some(ppost), Some(tpost), Some(fpost)) = (&part.post, &t.post, &f.post) else {
            return Err(unsupported("children without pre/post"));
        };
        if self.filter.is_none() {
            return Err(unsupported("outside the body of a loop left by jumps"));
        }
        let wjt = Self::witnesses(n, "join-then", &at.post_scales, &Self::scales(&tpost.p, 0))?;
        let wje = Self::witnesses(n, "join-else", &at.post_scales, &Self::scales(&fpost.p, 0))?;
        let acc = self.expr_acc(at.child(1)?, c, ppost);
        let saved = self.filter.replace(c.clone());
        let d1 = self.node(part, s1, ind + 2);
        self.filter = saved;
        let d1 = d1?;
        let dt = self.node(t, s2, ind + 2)?;
        // The else branch is an ordinary judgment: no filter inside it.
        let saved = self.filter.take();
        let df = self.node(f, s3, ind + 2);
        self.filter = saved;
        let df = df?;
        Ok(format!(
            "DFlagExit {a} {b} {acc} {wjt} {wje}\n{pad}  ({d1})\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// Q:IFEXIT1/4 (`DIfExit1`/`DIfExit4`, spec/logic.md §4a): the then branch ordinary,
    /// the else branch filtered for the enclosing loop's condition.
    fn ifexit(
        &mut self,
        at: &At,
        r: &str,
        c: &Expr,
        s1: &Stmt,
        s2: &Stmt,
    ) -> Result<String, ExportError> {
        let (n, a, b, pad, ind) = (at.n, &at.a, &at.b, &at.pad, at.ind);
        let (t, f) = (at.child(1)?, at.child(2)?);
        let (tpost, fpost) = match (&t.post, &f.post) {
            (Some(x), Some(y)) => (x, y),
            _ => {
                return Err(ExportError::Unsupported(format!(
                    "{r} children without pre/post"
                )))
            }
        };
        let filter = self.filter.clone().ok_or_else(|| {
            ExportError::Unsupported(format!("{r} outside the body of a Q:WHILEEXIT1/2"))
        })?;
        let targets = vec![BigInt::one(); self.cond_len(&filter, true)];
        let tps = Self::scales(&tpost.p, 0);
        let wx = Self::witnesses(n, "exit", &targets, &tps)?;
        let wjt = Self::witnesses(n, "join-then", &at.post_scales, &tps)?;
        let wje = Self::witnesses(n, "join-else", &at.post_scales, &Self::scales(&fpost.p, 0))?;
        let acc = self.expr_acc(at.child(0)?, c, at.pre);
        // The then branch is an ordinary judgment: no filter inside it.
        let saved = self.filter.take();
        let dt = self.node(t, s1, ind + 2);
        self.filter = saved;
        let dt = dt?;
        let df = self.node(f, s2, ind + 2)?;
        let k = if r == "Q:IFEXIT1" {
            "DIfExit1"
        } else {
            "DIfExit4"
        };
        Ok(format!(
            "{k} {a} {b} {acc} {wx} {wjt} {wje}\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// A Q:SEQ node with the children `kids` (`k ≥ 2`, certificate format 3) about the
    /// chain `s`, pre `a`, post `b`, as the nested binary `DSeq`s it stands for: the first
    /// child, then the rest of the chain from the second child's pre (spec/certificate.md).
    fn seq(
        &mut self,
        kids: &[Node],
        s: &Stmt,
        a: &str,
        b: &str,
        ind: usize,
    ) -> Result<String, ExportError> {
        let pad = " ".repeat(ind);
        let (Stmt::Seq(s1, s2), [first, rest @ ..]) = (s, kids) else {
            return Err(ExportError::Unsupported(format!(
                "Q:SEQ with {} children about a {}",
                kids.len(),
                s.kind()
            )));
        };
        if let Some(wg) = rest
            .first()
            .filter(|w| ["Q:WHILEGUARD", "Q:WHILEGUARD1"].contains(&w.rule.as_str()))
        {
            return self.seq_guard(first, wg, &rest[1..], s1, s2, a, b, ind);
        }
        let d1 = self.node(first, s1, ind + 2)?;
        let d2 = match rest {
            [one] => self.node(one, s2, ind + 2)?,
            [second, ..] => {
                let mid = match &second.pre {
                    Some(p) => self.assn(p)?,
                    None => return Err(ExportError::Unsupported("Q:SEQ child without pre".into())),
                };
                self.seq(rest, s2, &mid, b, ind + 2)?
            }
            [] => return Err(ExportError::Unsupported("Q:SEQ with one child".into())),
        };
        Ok(format!("DSeq {a} {b}\n{pad}  ({d1})\n{pad}  ({d2})"))
    }

    /// The items `s0; W; R…` of a Q:SEQ whose second child `wg` is a Q:WHILEGUARD about
    /// `W` (spec/logic.md §4a): `DWhileGuard` about `s0; W` (Coq's rule includes the
    /// guard's write before the loop), then, when the chain goes on with `more` about `R`,
    /// `DAssoc` of `DSeq (s0; W) R`.
    #[allow(clippy::too_many_arguments)]
    fn seq_guard(
        &mut self,
        first: &Node,
        wg: &Node,
        more: &[Node],
        s0: &Stmt,
        tail: &Stmt,
        a: &str,
        b: &str,
        ind: usize,
    ) -> Result<String, ExportError> {
        let pad = " ".repeat(ind);
        let unsupported = |what: &str| ExportError::Unsupported(format!("Q:WHILEGUARD {what}"));
        let (w, r) = match (tail, more.is_empty()) {
            (Stmt::While(..), true) => (tail, None),
            (Stmt::Seq(w, r), false) => (&**w, Some(&**r)),
            _ => return Err(unsupported("not followed by its chain")),
        };
        let Stmt::While(e, body) = w else {
            return Err(unsupported("about a statement other than a loop"));
        };
        let (Some(lpre), Some(lpost)) = (&wg.pre, &wg.post) else {
            return Err(unsupported("without pre/post"));
        };
        let (Some(ec), Some(bn)) = (wg.children.first(), wg.children.get(1)) else {
            return Err(unsupported("children"));
        };
        let bpre = bn
            .pre
            .as_ref()
            .ok_or_else(|| unsupported("body without pre"))?;
        // GE: the body's pre is the loop's `P` followed by the guard's condition
        let ge: Result<Vec<String>, ExportError> = bpre
            .p
            .iter()
            .skip(lpre.p.len())
            .map(|c| self.cstr(c))
            .collect();
        let ge = ge?;
        let acc = self.expr_acc(ec, e, lpre);
        let d0 = self.node(first, s0, ind + 4)?;
        let saved = self.filter.replace(e.clone());
        let db = self.node(bn, body, ind + 4);
        self.filter = saved;
        let db = db?;
        let m = self.assn(lpost)?;
        // the uniform mode (Q:WHILEGUARD1) is Coq's rule with `uf = true`
        let uf = wg.rule == "Q:WHILEGUARD1";
        let dwg = format!(
            "DWhileGuard {a} {m} {acc} {uf} [{}]\n{pad}    ({d0})\n{pad}    ({db})",
            ge.join("; ")
        );
        // without a rest the loop's post is the chain's (`m` names `b`'s assertion)
        let Some(r) = r else {
            return Ok(dwg);
        };
        let dr = match more {
            [one] => self.node(one, r, ind + 4)?,
            [second, ..] => {
                let mid = match &second.pre {
                    Some(p) => self.assn(p)?,
                    None => return Err(ExportError::Unsupported("Q:SEQ child without pre".into())),
                };
                self.seq(more, r, &mid, b, ind + 4)?
            }
            [] => return Err(unsupported("chain")),
        };
        Ok(format!(
            "DAssoc {a} {b}\n{pad}  (DSeq {a} {b}\n{pad}    ({dwg})\n{pad}    ({dr}))"
        ))
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

    fn file(mut self, assumptions: &[Assumption]) -> Result<String, ExportError> {
        let c = self.cert;
        if let Some(w) = c.lower {
            super::coq_lower::root_ok(c)?;
            let tree = self.node(&c.root, &c.program.body, 2)?;
            let bound = self.names.pot(&c.bound)?;
            let mut body = String::new();
            self.names.stmt(&c.program.body, &mut body, 2)?;
            let mut hyps = Vec::new();
            for h in c.hypotheses.iter().flat_map(|h| &h.facts) {
                hyps.push(super::coq_lower::Hyp {
                    term: self.cstr(h)?,
                    prop: self.names.param_prop(h, "ps")?,
                    at_witness: self.names.param_prop(h, "witness")?,
                    text: h.to_string(),
                });
            }
            let witness = match &c.hypotheses {
                Some(h) => Some(self.names.witness(&h.witness)?),
                None => None,
            };
            let parts = super::coq_lower::Parts {
                cert: c,
                warp: w,
                hyps: &hyps,
                witness: witness.as_deref(),
                body: &body,
                defs: &self.defs,
                tree: &tree,
                bound: &bound,
            };
            return super::coq_lower::lower_file(&parts, assumptions);
        }
        let p = &c.program;
        let metric = match c.metric.as_str() {
            m @ ("sectors" | "conflicts" | "divwarps" | "steps") => m,
            m => return Err(ExportError::Unsupported(format!("metric {m}"))),
        };
        let mut body = String::new();
        self.names.stmt(&p.body, &mut body, 2)?;
        let tree = self.node(&c.root, &p.body, 2)?;
        let bound = self.names.pot(&c.bound)?;
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
        out.push_str(&names_comment(p));
        out.push_str(&ctx_def("G", metric, p, c.hardware, c.block));
        let _ = writeln!(out, "Definition body : stmt :=\n  {body}.\n");
        out.push_str(&self.defs);
        let _ = writeln!(out, "\nDefinition tree : dtree :=\n  {tree}.\n");
        let _ = writeln!(out, "Definition bound : pot := {bound}.\n");
        let tab: Vec<String> = self
            .tab
            .iter()
            .map(|(k, n)| format!("  ({k}, {})", z(n)))
            .collect();
        let _ = writeln!(
            out,
            "(* Access-bound claims N*(key) <= n, key = (shared?, thread constraints, dep, range, bytes). *)\n\
             Definition tab : ntab := [\n{}].\n",
            tab.join(";\n")
        );
        out.push_str(
            "Lemma root_ok : check_root G tab body tree bound = true.\n\
             Proof. vm_compute. reflexivity. Qed.\n\n",
        );
        out.push_str(&theorem_comment(assumptions));
        out.push_str(
            "Theorem warp_bound : forall (F : fmodel) (ps : nat -> val) (arrays : nat -> Z -> val)\n  \
             (w : nat) (s' : store) (C : Q)\n  \
             (params_typed : pok G ps) (launch_facts : launch_ok G ps)\n  \
             (warp_nonempty : lanes G w <> [])\n  \
             (terminates_no_runtime_error : seval G F ps (init_store G arrays) body (lanes G w) s' C),\n  \
             (C <= pval (rho_params ps) bound)%Q.\n\
             Proof. exact (bound_sound G tab body tree bound root_ok). Qed.\n\n\
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
