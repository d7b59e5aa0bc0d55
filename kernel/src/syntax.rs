//! The certificate's abstract syntax (`spec/certificate.md`): the miniCUDA program,
//! linear forms, constraints, potentials, assertions, dependence entries and derivation
//! nodes, built from [`Sexp`]s. Everything is parsed with exact numbers; `float`
//! constants are kept as text.

use crate::arith::{Cstr, Dep, EntryKind, Lane, Lin, Poly, Rat};
use crate::sexp::Sexp;
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::str::FromStr;

/// Value types of miniCUDA (RaCUDA §3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// Integers.
    Int,
    /// Booleans.
    Bool,
    /// The abstract base type (floats).
    Float,
}

/// Memory space of an array (RaCUDA's `G` / `S`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// Global memory (costs via `MemReads`).
    Global,
    /// Shared memory (costs via `Conflicts`).
    Shared,
}

/// Operands `OPD` (RaCUDA Fig. 2). `Tid(d)` has `d ∈ 0..3` for `x, y, z`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opd {
    /// `(var X)`
    Var(String),
    /// `(param P)`
    Param(String),
    /// `(tid D)`, `D` as 0, 1, 2.
    Tid(usize),
    /// `(int N)`
    Int(BigInt),
    /// `(bool B)`
    Bool(bool),
    /// `(float F)`, kept as text.
    Float(String),
}

impl std::fmt::Display for Opd {
    /// Certificate syntax: `(var x)`, `(tid y)`, `(int 3)`, …
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Opd::Var(x) => write!(f, "(var {x})"),
            Opd::Param(x) => write!(f, "(param {x})"),
            Opd::Tid(d) => write!(f, "(tid {})", ["x", "y", "z"][*d % 3]),
            Opd::Int(n) => write!(f, "(int {n})"),
            Opd::Bool(b) => write!(f, "(bool {b})"),
            Opd::Float(x) => write!(f, "(float {x})"),
        }
    }
}

impl std::fmt::Display for Expr {
    /// Certificate syntax: an operand, `(bin + (var x) (int 1))`, `(un neg …)`, `(read A …)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expr::Opd(o) => write!(f, "{o}"),
            Expr::Bin(op, a, b) => write!(f, "(bin {op} {a} {b})"),
            Expr::Un(op, a) => write!(f, "(un {op} {a})"),
            Expr::Read(arr, o) => write!(f, "(read {arr} {o})"),
        }
    }
}

/// Expressions `EXPR`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    /// An operand.
    Opd(Opd),
    /// `(bin OP A B)`, `OP` one of [`BINOPS`].
    Bin(String, Opd, Opd),
    /// `(un OP A)`, `OP` one of [`UNOPS`].
    Un(String, Opd),
    /// `(read ARR O)`
    Read(String, Opd),
}

/// Statements `STMT`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `(skip)`
    Skip,
    /// `(sync)`
    Sync,
    /// `(seq S1 S2)`
    Seq(Box<Stmt>, Box<Stmt>),
    /// `(assign X E)`
    Assign(String, Expr),
    /// `(write ARR O E)`
    Write(String, Opd, Expr),
    /// `(if E S1 S2)`
    If(Expr, Box<Stmt>, Box<Stmt>),
    /// `(while E S)`
    While(Expr, Box<Stmt>),
}

impl Stmt {
    /// The statement kind's keyword (for messages).
    pub fn kind(&self) -> &'static str {
        match self {
            Stmt::Skip => "skip",
            Stmt::Sync => "sync",
            Stmt::Seq(..) => "seq",
            Stmt::Assign(..) => "assign",
            Stmt::Write(..) => "write",
            Stmt::If(..) => "if",
            Stmt::While(..) => "while",
        }
    }
    /// `W(s)`: locals syntactically assigned by `s` (RaCUDA §4), without duplicates.
    /// Iterative, so deep statements cannot overflow the stack.
    pub fn writes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut todo = vec![self];
        while let Some(s) = todo.pop() {
            match s {
                Stmt::Seq(a, b) | Stmt::If(_, a, b) => {
                    todo.push(b);
                    todo.push(a);
                }
                Stmt::While(_, b) => todo.push(b),
                Stmt::Assign(x, _) if !out.contains(x) => out.push(x.clone()),
                _ => {}
            }
        }
        out
    }
}

/// Binary operators of the certificate grammar.
pub const BINOPS: &[&str] =
    &["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==", "!=", "&&", "||", "min", "max"];
/// Unary operators of the certificate grammar.
pub const UNOPS: &[&str] = &["neg", "not", "bitnot", "tofloat", "toint", "tobool"];

/// An array declaration `(ARR SPACE ETY EBYTES)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    /// Name.
    pub name: String,
    /// Memory space.
    pub space: Space,
    /// Element type.
    pub ty: Ty,
    /// Element size in bytes (≥ 1).
    pub bytes: u32,
}

/// A program `(program NAME (params …) (arrays …) (locals …) (body S))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Kernel name.
    pub name: String,
    /// Parameters in declaration order.
    pub params: Vec<(Ty, String)>,
    /// Arrays.
    pub arrays: Vec<Array>,
    /// Locals.
    pub locals: Vec<(Ty, String)>,
    /// The body.
    pub body: Stmt,
}

impl Program {
    /// Type of local `x`.
    pub fn local(&self, x: &str) -> Option<Ty> {
        self.locals.iter().find(|l| l.1 == x).map(|l| l.0)
    }
    /// Type of parameter `p`.
    pub fn param(&self, p: &str) -> Option<Ty> {
        self.params.iter().find(|l| l.1 == p).map(|l| l.0)
    }
    /// Declaration of array `a`.
    pub fn array(&self, a: &str) -> Option<&Array> {
        self.arrays.iter().find(|x| x.name == a)
    }
}

/// An assertion `(assn (P CSTR…) (D DEP…) (Q POLY))` (spec/logic.md §1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assn {
    /// Ordered constraint list `P`.
    pub p: Vec<Cstr>,
    /// Dependence map `D` (one entry per local).
    pub d: BTreeMap<String, Dep>,
    /// Potential `Q`, normalized.
    pub q: Poly,
}

/// A Farkas witness: `(I, λ)` pairs.
pub type Farkas = Vec<(usize, Rat)>;

/// An atom rewrite (spec/certificate.md "Derivation nodes").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rw {
    /// `(shift LIN D FARKAS)`: `max0(LIN) = max0(LIN − D) + D` given `P ⇒ LIN ≥ D`.
    Shift(Lin, Rat, Farkas),
    /// `(zero LIN FARKAS)`: `max0(LIN) = 0` given `P ⇒ LIN ≤ 0`.
    Zero(Lin, Farkas),
    /// `(mono LIN1 LIN2 FARKAS)`: `max0(LIN1) ≥ max0(LIN2)` given `P ⇒ LIN1 ≥ LIN2`.
    Mono(Lin, Lin, Farkas),
}

/// A derivation node with its fields and children. Assertions with the same text are
/// parsed once and shared (`Rc`) between the nodes of one certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// Rule name (e.g. `Q:SEQ`).
    pub rule: String,
    /// Source line.
    pub line: usize,
    /// `(pre ASSN)`
    pub pre: Option<Rc<Assn>>,
    /// `(post ASSN)`
    pub post: Option<Rc<Assn>>,
    /// `(cost C)`
    pub cost: Option<Rat>,
    /// `(n N)`
    pub n: Option<BigInt>,
    /// `(frame C)`
    pub frame: Option<Rat>,
    /// `(entail NAME FARKAS…)` by name.
    pub entails: BTreeMap<String, Vec<Farkas>>,
    /// `(rewrite NAME RW…)` by name.
    pub rewrites: BTreeMap<String, Vec<Rw>>,
    /// Field keys present (`pre`, `n`, `entail post`, …), for the allowed-field check.
    pub fields: Vec<String>,
    /// Child nodes in order.
    pub children: Vec<Node>,
}

/// A parsed certificate (spec/certificate.md "Top level").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// Metric name as written.
    pub metric: String,
    /// `[warp, banks, bank_bytes, sector_bytes]`.
    pub hardware: [u32; 4],
    /// Block dimensions.
    pub block: [u32; 3],
    /// The program.
    pub program: Program,
    /// The claimed bound, normalized.
    pub bound: Poly,
    /// The derivation's root.
    pub root: Node,
}

fn err(s: &Sexp, expected: &'static str) -> Rejection {
    Rejection::parse(Reason::Syntax { line: s.line(), expected, found: s.brief() })
}

fn items<'a, 't>(s: &'a Sexp<'t>, head: &str, expected: &'static str) -> Result<&'a [Sexp<'t>], Rejection> {
    match s.list() {
        Some(v) if v.first().and_then(Sexp::atom) == Some(head) => Ok(&v[1..]),
        _ => Err(err(s, expected)),
    }
}

fn atom<'a>(s: &'a Sexp, expected: &'static str) -> Result<&'a str, Rejection> {
    s.atom().ok_or_else(|| err(s, expected))
}

fn exactly<'a, 't>(v: &'a [Sexp<'t>], n: usize, s: &Sexp, e: &'static str) -> Result<&'a [Sexp<'t>], Rejection> {
    if v.len() == n {
        Ok(v)
    } else {
        Err(err(s, e))
    }
}

/// The integer written `a`: optional `-` then ASCII digits (`None` otherwise).
fn int_text(a: &str) -> Option<BigInt> {
    let digits = a.strip_prefix('-').unwrap_or(a);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Fast path: at most 18 digits always fit in an i64.
    if digits.len() <= 18 {
        return a.parse::<i64>().ok().map(BigInt::from);
    }
    BigInt::from_str(a).ok()
}

/// Integer literal: optional `-` then ASCII digits.
pub fn int(s: &Sexp) -> Result<BigInt, Rejection> {
    int_text(atom(s, "an integer")?).ok_or_else(|| err(s, "an integer"))
}

/// Rational literal `N` or `P/Q` with `Q > 0`.
pub fn rat(s: &Sexp) -> Result<Rat, Rejection> {
    let a = atom(s, "a rational")?;
    let (p, q) = a.split_once('/').unwrap_or((a, "1"));
    let (Some(p), Some(q)) = (int_text(p), int_text(q)) else {
        return Err(err(s, "a rational"));
    };
    if !q.is_positive() {
        return Err(err(s, "a rational with positive denominator"));
    }
    Ok(if q.is_one() { Rat::from_integer(p) } else { Rat::new(p, q) })
}

fn u32_of(s: &Sexp) -> Result<u32, Rejection> {
    atom(s, "a positive integer")?
        .parse::<u32>()
        .ok()
        .filter(|&v| v >= 1)
        .ok_or_else(|| err(s, "a positive 32-bit integer"))
}

fn ty(s: &Sexp) -> Result<Ty, Rejection> {
    match atom(s, "a type")? {
        "int" => Ok(Ty::Int),
        "bool" => Ok(Ty::Bool),
        "float" => Ok(Ty::Float),
        _ => Err(err(s, "int, bool or float")),
    }
}

/// `OPD` (spec/certificate.md "Program").
pub fn opd(s: &Sexp) -> Result<Opd, Rejection> {
    let v = s.list().ok_or_else(|| err(s, "an operand"))?;
    let e = "an operand (var|param|tid|int|bool|float X)";
    let v = exactly(v, 2, s, e)?;
    let arg = &v[1];
    Ok(match atom(&v[0], e)? {
        "var" => Opd::Var(atom(arg, "a name")?.to_string()),
        "param" => Opd::Param(atom(arg, "a name")?.to_string()),
        "tid" => Opd::Tid(match atom(arg, "x, y or z")? {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return Err(err(arg, "x, y or z")),
        }),
        "int" => Opd::Int(int(arg)?),
        "bool" => Opd::Bool(match atom(arg, "true or false")? {
            "true" => true,
            "false" => false,
            _ => return Err(err(arg, "true or false")),
        }),
        "float" => Opd::Float(atom(arg, "a float literal")?.to_string()),
        _ => return Err(err(s, e)),
    })
}

/// `EXPR`.
pub fn expr(s: &Sexp) -> Result<Expr, Rejection> {
    let e = "an expression";
    match s.head() {
        Some("bin") => {
            let v = exactly(items(s, "bin", e)?, 3, s, "(bin OP OPD OPD)")?;
            let op = atom(&v[0], "a binary operator")?;
            if !BINOPS.contains(&op) {
                return Err(err(&v[0], "a binary operator"));
            }
            Ok(Expr::Bin(op.to_string(), opd(&v[1])?, opd(&v[2])?))
        }
        Some("un") => {
            let v = exactly(items(s, "un", e)?, 2, s, "(un OP OPD)")?;
            let op = atom(&v[0], "a unary operator")?;
            if !UNOPS.contains(&op) {
                return Err(err(&v[0], "a unary operator"));
            }
            Ok(Expr::Un(op.to_string(), opd(&v[1])?))
        }
        Some("read") => {
            let v = exactly(items(s, "read", e)?, 2, s, "(read ARR OPD)")?;
            Ok(Expr::Read(atom(&v[0], "an array")?.to_string(), opd(&v[1])?))
        }
        _ => Ok(Expr::Opd(opd(s)?)),
    }
}

/// `STMT` (recursive; nesting is bounded by [`crate::sexp::MAX_DEPTH`]).
pub fn stmt(s: &Sexp) -> Result<Stmt, Rejection> {
    let e = "a statement";
    let v = s.list().ok_or_else(|| err(s, e))?;
    let args = v.get(1..).unwrap_or(&[]);
    Ok(match s.head() {
        Some("skip") => {
            exactly(args, 0, s, "(skip)")?;
            Stmt::Skip
        }
        Some("sync") => {
            exactly(args, 0, s, "(sync)")?;
            Stmt::Sync
        }
        Some("seq") => {
            let a = exactly(args, 2, s, "(seq S S)")?;
            Stmt::Seq(Box::new(stmt(&a[0])?), Box::new(stmt(&a[1])?))
        }
        Some("assign") => {
            let a = exactly(args, 2, s, "(assign X E)")?;
            Stmt::Assign(atom(&a[0], "a local")?.to_string(), expr(&a[1])?)
        }
        Some("write") => {
            let a = exactly(args, 3, s, "(write ARR O E)")?;
            Stmt::Write(atom(&a[0], "an array")?.to_string(), opd(&a[1])?, expr(&a[2])?)
        }
        Some("if") => {
            let a = exactly(args, 3, s, "(if E S S)")?;
            Stmt::If(expr(&a[0])?, Box::new(stmt(&a[1])?), Box::new(stmt(&a[2])?))
        }
        Some("while") => {
            let a = exactly(args, 2, s, "(while E S)")?;
            Stmt::While(expr(&a[0])?, Box::new(stmt(&a[1])?))
        }
        _ => return Err(err(s, e)),
    })
}

/// `(program NAME (params …) (arrays …) (locals …) (body S))`.
pub fn program(s: &Sexp) -> Result<Program, Rejection> {
    let v = exactly(items(s, "program", "(program …)")?, 5, s, "(program NAME params arrays locals body)")?;
    let name = atom(&v[0], "the kernel name")?.to_string();
    let mut params = Vec::new();
    for p in items(&v[1], "params", "(params …)")? {
        let l = p.list().ok_or_else(|| err(p, "(TY NAME)"))?;
        let l = exactly(l, 2, p, "(TY NAME)")?;
        params.push((ty(&l[0])?, atom(&l[1], "a name")?.to_string()));
    }
    let mut arrays = Vec::new();
    for a in items(&v[2], "arrays", "(arrays …)")? {
        let l = a.list().ok_or_else(|| err(a, "(ARR SPACE ETY EBYTES)"))?;
        let l = exactly(l, 4, a, "(ARR SPACE ETY EBYTES)")?;
        let space = match atom(&l[1], "global or shared")? {
            "global" => Space::Global,
            "shared" => Space::Shared,
            _ => return Err(err(&l[1], "global or shared")),
        };
        arrays.push(Array { name: atom(&l[0], "a name")?.to_string(), space, ty: ty(&l[2])?, bytes: u32_of(&l[3])? });
    }
    let mut locals = Vec::new();
    for p in items(&v[3], "locals", "(locals …)")? {
        let l = p.list().ok_or_else(|| err(p, "(TY NAME)"))?;
        let l = exactly(l, 2, p, "(TY NAME)")?;
        locals.push((ty(&l[0])?, atom(&l[1], "a name")?.to_string()));
    }
    let b = exactly(items(&v[4], "body", "(body S)")?, 1, &v[4], "(body S)")?;
    Ok(Program { name, params, arrays, locals, body: stmt(&b[0])? })
}

/// `(lin C (A V) …)`, normalized.
pub fn lin(s: &Sexp) -> Result<Lin, Rejection> {
    let v = items(s, "lin", "(lin C (A V) …)")?;
    let c = v.first().ok_or_else(|| err(s, "(lin C (A V) …)"))?;
    let mut l = Lin::constant(rat(c)?);
    for t in &v[1..] {
        let p = t.list().ok_or_else(|| err(t, "(A V)"))?;
        let p = exactly(p, 2, t, "(A V)")?;
        l.add_term(atom(&p[1], "a variable")?, &rat(&p[0])?);
    }
    Ok(l)
}

/// `(le LIN)` / `(eq LIN)` / `(mod LIN M R …)` (`M ≥ 1`, residues strictly increasing in
/// `[0, M)`; that the form is over `threadIdx.*` with integer coefficients is part of
/// well-formedness, checked by the rules).
pub fn cstr(s: &Sexp) -> Result<Cstr, Rejection> {
    let e = "(le LIN), (eq LIN) or (mod LIN M R …)";
    let v = s.list().unwrap_or(&[]);
    match s.head() {
        Some("le") => Ok(Cstr::le(lin(&exactly(v, 2, s, e)?[1])?)),
        Some("eq") => Ok(Cstr::equal(lin(&exactly(v, 2, s, e)?[1])?)),
        Some("mod") if v.len() >= 3 => {
            let m = int(&v[2])?;
            if !m.is_positive() {
                return Err(err(&v[2], "a modulus M ≥ 1"));
            }
            let mut rs: Vec<BigInt> = Vec::new();
            for r in &v[3..] {
                let x = int(r)?;
                if x.is_negative() || x >= m || rs.last().is_some_and(|p| *p >= x) {
                    return Err(err(r, "residues strictly increasing in [0, M)"));
                }
                rs.push(x);
            }
            Ok(Cstr { eq: false, lin: lin(&v[1])?, lane: Some(Lane { m, rs }) })
        }
        _ => Err(err(s, e)),
    }
}

/// `(poly TERM …)`, normalized.
pub fn poly(s: &Sexp) -> Result<Poly, Rejection> {
    let mut p = Poly::zero();
    for t in items(s, "poly", "(poly TERM …)")? {
        let v = t.list().ok_or_else(|| err(t, "(C ATOM …)"))?;
        let c = v.first().ok_or_else(|| err(t, "(C ATOM …)"))?;
        let mut atoms = Vec::new();
        for a in &v[1..] {
            let l = exactly(items(a, "max0", "(max0 LIN)")?, 1, a, "(max0 LIN)")?;
            atoms.push(lin(&l[0])?);
        }
        p.add_term(rat(c)?, atoms);
    }
    Ok(p)
}

/// `(dep X KX KY KZ R G)` with `g ≥ 0`, `(rem X KX KY KZ R M)` with `m ≥ 1` (residue
/// ranges are checked by [`assn`]), or `(rng X W)` with `w ≥ 0`.
fn dep(s: &Sexp) -> Result<(String, Dep), Rejection> {
    let e = "(dep X KX KY KZ R G), (rem X KX KY KZ R M) or (rng X W)";
    let rem = match s.head() {
        Some("dep") => false,
        Some("rem") => true,
        Some("rng") => {
            let v = exactly(s.list().map(|l| &l[1..]).unwrap_or(&[]), 2, s, "(rng X W)")?;
            let w = int(&v[1])?;
            if w.is_negative() {
                return Err(err(&v[1], "a width W ≥ 0"));
            }
            return Ok((atom(&v[0], "a local")?.to_string(), Dep::range(w)));
        }
        _ => return Err(err(s, e)),
    };
    let v = exactly(s.list().map(|l| &l[1..]).unwrap_or(&[]), 6, s, e)?;
    let g = int(&v[5])?;
    if g.is_negative() || (rem && g.is_zero()) {
        return Err(err(&v[5], if rem { "a modulus M ≥ 1" } else { "a modulus G ≥ 0" }));
    }
    let kind = if rem { EntryKind::Rem } else { EntryKind::Linear };
    let d = Dep { k: [int(&v[1])?, int(&v[2])?, int(&v[3])?], r: int(&v[4])?, g, kind };
    Ok((atom(&v[0], "a local")?.to_string(), d))
}

/// `(assn (P …) (D …) (Q POLY))`. Residues must satisfy `0 ≤ r < g` when `g > 0`
/// (spec/logic.md §1, well-formedness); a second entry for the same local is an error.
pub fn assn(s: &Sexp) -> Result<Assn, Rejection> {
    let v = exactly(items(s, "assn", "(assn (P …) (D …) (Q POLY))")?, 3, s, "(assn (P …) (D …) (Q POLY))")?;
    let p = items(&v[0], "P", "(P CSTR …)")?.iter().map(cstr).collect::<Result<Vec<_>, _>>()?;
    let mut d = BTreeMap::new();
    for e in items(&v[1], "D", "(D DEP …)")? {
        let (x, entry) = dep(e)?;
        if entry.linear() && entry.g.is_positive() && (entry.r.is_negative() || entry.r >= entry.g)
            || entry.kind == EntryKind::Rem && (entry.r.is_negative() || entry.r >= entry.g)
        {
            return Err(err(e, "a residue 0 ≤ R < G"));
        }
        if d.insert(x, entry).is_some() {
            return Err(err(e, "at most one dep entry per local"));
        }
    }
    let q = exactly(items(&v[2], "Q", "(Q POLY)")?, 1, &v[2], "(Q POLY)")?;
    Ok(Assn { p, d, q: poly(&q[0])? })
}

fn farkas(s: &Sexp) -> Result<Farkas, Rejection> {
    let mut f = Vec::new();
    for pair in items(s, "farkas", "(farkas (I λ) …)")? {
        let v = pair.list().ok_or_else(|| err(pair, "(I λ)"))?;
        let v = exactly(v, 2, pair, "(I λ)")?;
        let i = atom(&v[0], "an index")?.parse::<usize>().map_err(|_| err(&v[0], "a non-negative index"))?;
        f.push((i, rat(&v[1])?));
    }
    Ok(f)
}

fn rw(s: &Sexp) -> Result<Rw, Rejection> {
    match s.head() {
        Some("shift") => {
            let v = exactly(items(s, "shift", "")?, 3, s, "(shift LIN D FARKAS)")?;
            Ok(Rw::Shift(lin(&v[0])?, rat(&v[1])?, farkas(&v[2])?))
        }
        Some("zero") => {
            let v = exactly(items(s, "zero", "")?, 2, s, "(zero LIN FARKAS)")?;
            Ok(Rw::Zero(lin(&v[0])?, farkas(&v[1])?))
        }
        Some("mono") => {
            let v = exactly(items(s, "mono", "")?, 3, s, "(mono LIN1 LIN2 FARKAS)")?;
            Ok(Rw::Mono(lin(&v[0])?, lin(&v[1])?, farkas(&v[2])?))
        }
        _ => Err(err(s, "(shift LIN D FARKAS), (zero LIN FARKAS) or (mono LIN1 LIN2 FARKAS)")),
    }
}

const FIELD_HEADS: &[&str] = &["pre", "post", "cost", "n", "frame", "entail", "rewrite"];

/// The assertions parsed so far, by source text: a certificate repeats the same assertion
/// in many nodes, and the parsed value depends on the text alone.
type Memo<'a> = HashMap<&'a str, Rc<Assn>>;

/// [`assn`] through the memo: the first occurrence of a text is parsed (a malformed one is
/// rejected there), a later one shares the parsed value.
fn assn_memo<'a>(s: &Sexp<'a>, memo: &mut Memo<'a>) -> Result<Rc<Assn>, Rejection> {
    if let Some(a) = memo.get(s.text()) {
        return Ok(Rc::clone(a));
    }
    let a = Rc::new(assn(s)?);
    memo.insert(s.text(), Rc::clone(&a));
    Ok(a)
}

/// A derivation node `(RULE FIELD … CHILD …)`. Fields come before children and appear at
/// most once (an `entail`/`rewrite` field is identified by its name).
pub fn node(s: &Sexp) -> Result<Node, Rejection> {
    node_in(s, &mut Memo::new())
}

fn node_in<'a>(s: &Sexp<'a>, memo: &mut Memo<'a>) -> Result<Node, Rejection> {
    let v = s.list().ok_or_else(|| err(s, "a derivation node (RULE …)"))?;
    let rule = atom(v.first().ok_or_else(|| err(s, "a rule name"))?, "a rule name")?;
    let mut n = Node { rule: rule.to_string(), line: s.line(), ..Node::default() };
    for item in &v[1..] {
        let head = item.head().unwrap_or("");
        if !FIELD_HEADS.contains(&head) {
            n.children.push(node_in(item, memo)?);
            continue;
        }
        if !n.children.is_empty() {
            return Err(err(item, "fields before children"));
        }
        let args = item.list().map(|l| &l[1..]).unwrap_or(&[]);
        let key = match head {
            "entail" | "rewrite" => {
                let name = args.first().ok_or_else(|| err(item, "a witness-list name"))?;
                format!("{head} {}", atom(name, "a witness-list name")?)
            }
            _ => head.to_string(),
        };
        if n.fields.contains(&key) {
            return Err(err(item, "each field at most once"));
        }
        let one = |e| exactly(args, 1, item, e).map(|a| &a[0]);
        match head {
            "pre" => n.pre = Some(assn_memo(one("(pre ASSN)")?, memo)?),
            "post" => n.post = Some(assn_memo(one("(post ASSN)")?, memo)?),
            "cost" => n.cost = Some(rat(one("(cost C)")?)?),
            "n" => n.n = Some(int(one("(n N)")?)?),
            "frame" => n.frame = Some(rat(one("(frame C)")?)?),
            "entail" => {
                let ws = args[1..].iter().map(farkas).collect::<Result<Vec<_>, _>>()?;
                n.entails.insert(key[7..].to_string(), ws);
            }
            _ => {
                let ws = args[1..].iter().map(rw).collect::<Result<Vec<_>, _>>()?;
                n.rewrites.insert(key[8..].to_string(), ws);
            }
        }
        n.fields.push(key);
    }
    Ok(n)
}

/// The whole certificate: header line `warpcert-certificate V` with `V ∈ 1..=1`, then
/// `metric`, `hardware`, `launch`, `program`, `bound`, `derivation`, each exactly once.
///
/// Errors: [`Reason::Version`] for another version, [`Reason::Syntax`] otherwise.
pub fn certificate(top: &[Sexp]) -> Result<Certificate, Rejection> {
    let first = Sexp::Atom("", 1);
    if top.len() < 2 {
        return Err(err(top.first().unwrap_or(&first), "the header `warpcert-certificate 1` on line 1"));
    }
    let h = top.first().unwrap_or(&first);
    if h.atom() != Some("warpcert-certificate") || h.line() != 1 {
        return Err(err(h, "the header `warpcert-certificate 1` on line 1"));
    }
    let vs = top.get(1).unwrap_or(&first);
    let ver = vs.atom().filter(|_| vs.line() == 1).ok_or_else(|| err(vs, "a version number on line 1"))?;
    if ver != "1" {
        return Err(Rejection::parse(Reason::Version { found: ver.to_string(), supported: "1..=1" }));
    }
    let mut sec: BTreeMap<&str, &Sexp> = BTreeMap::new();
    for s in &top[2..] {
        let h = s.head().unwrap_or("");
        if !["metric", "hardware", "launch", "program", "bound", "derivation"].contains(&h)
            || sec.insert(h, s).is_some()
        {
            return Err(err(s, "one each of metric, hardware, launch, program, bound, derivation"));
        }
    }
    let get = |k: &'static str| {
        sec.get(k).copied().ok_or_else(|| {
            Rejection::parse(Reason::Syntax { line: 0, expected: k, found: "no such section".to_string() })
        })
    };
    let m = get("metric")?;
    let metric = atom(&exactly(items(m, "metric", "")?, 1, m, "(metric NAME)")?[0], "a metric")?;
    let hw = get("hardware")?;
    let hv = exactly(items(hw, "hardware", "")?, 4, hw, "(hardware WARP BANKS BANK_BYTES SECTOR_BYTES)")?;
    let la = get("launch")?;
    let lv = exactly(items(la, "launch", "")?, 3, la, "(launch BX BY BZ)")?;
    let b = get("bound")?;
    let bv = exactly(items(b, "bound", "")?, 1, b, "(bound POLY)")?;
    let d = get("derivation")?;
    let dv = exactly(items(d, "derivation", "")?, 1, d, "(derivation NODE)")?;
    Ok(Certificate {
        metric: metric.to_string(),
        hardware: [u32_of(&hv[0])?, u32_of(&hv[1])?, u32_of(&hv[2])?, u32_of(&hv[3])?],
        block: [u32_of(&lv[0])?, u32_of(&lv[1])?, u32_of(&lv[2])?],
        program: program(get("program")?)?,
        bound: poly(&bv[0])?,
        root: node(&dv[0])?,
    })
}
