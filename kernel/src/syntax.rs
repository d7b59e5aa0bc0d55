//! The certificate's abstract syntax (`spec/certificate.md`): the miniCUDA program,
//! linear forms, constraints, potentials, assertions, dependence entries and derivation
//! nodes, built from [`Sexp`]s. Everything is parsed with exact numbers; `float`
//! constants are kept as text.

use crate::arith::{Atom, Cstr, Dep, EntryKind, Lane, Lin, Poly, Rat};
use crate::assume::{self, Assumption};
use crate::sexp::Sexp;
use crate::sorted::SortedMap;
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
    /// Thread-local array (registers/local memory: a read costs `M^var`, a write `M^vwrite`).
    Local,
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
            Opd::Tid(d) => write!(f, "(tid {})", tid_name(*d)),
            Opd::Int(n) => write!(f, "(int {n})"),
            Opd::Bool(b) => write!(f, "(bool {b})"),
            Opd::Float(x) => write!(f, "(float {x})"),
        }
    }
}

/// `x`, `y`, `z` for the thread dimensions 0, 1, 2 (and `z` beyond: the parser builds only 0..3).
fn tid_name(d: usize) -> &'static str {
    match d {
        0 => "x",
        1 => "y",
        _ => "z",
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
    /// `(seq S1 S2)` (`(seq S1 S2 … Sn)` is the right-nested chain of these)
    Seq(Box<Stmt>, Box<Stmt>),
    /// `(assign X E)`
    Assign(String, Expr),
    /// `(write ARR O E)`
    Write(String, Opd, Expr),
    /// `(if E S1 S2)`
    If(Expr, Box<Stmt>, Box<Stmt>),
    /// `(while E S)`
    While(Expr, Box<Stmt>),
    /// `(shfl X KIND WIDTH V L)` / `(vote X KIND P)` (spec/minicuda.md §1, warp operations).
    Warp(String, WarpOp),
}

/// A warp operation of [`Stmt::Warp`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarpOp {
    /// `KIND` ∈ `idx up down xor`, the segment width (≥ 1), the value, the lane argument.
    Shfl(String, u32, Opd, Opd),
    /// `KIND` ∈ `ballot any all`, the predicate.
    Vote(String, Opd),
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
            Stmt::Warp(_, WarpOp::Shfl(..)) => "shfl",
            Stmt::Warp(_, WarpOp::Vote(..)) => "vote",
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
                Stmt::Assign(x, _) | Stmt::Warp(x, _) if !out.contains(x) => out.push(x.clone()),
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
pub const UNOPS: &[&str] = &["neg", "not", "bitnot", "tofloat", "toint", "tobool", "popc", "ffs"];

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
    /// The type of each local and parameter name (the first declaration of a name; a
    /// duplicate is rejected by [`crate::typing`]): lookups in constant time, as a program
    /// may declare thousands of temporaries.
    index: (HashMap<String, Ty>, HashMap<String, Ty>),
}

impl Program {
    /// Type of local `x`.
    pub fn local(&self, x: &str) -> Option<Ty> {
        self.index.0.get(x).copied()
    }
    /// Type of parameter `p`.
    pub fn param(&self, p: &str) -> Option<Ty> {
        self.index.1.get(p).copied()
    }
    /// Declaration of array `a`.
    pub fn array(&self, a: &str) -> Option<&Array> {
        self.arrays.iter().find(|x| x.name == a)
    }
}

/// An assertion `(assn (P CSTR…) (D DEP…) (Q POLY))` (spec/logic.md §1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assn {
    /// Ordered constraint list `P` (shared by the assertions of a format 3 table that
    /// name the same `p` entry).
    pub p: Rc<Vec<Cstr>>,
    /// Dependence map `D` (one entry per local; shared like `p`).
    pub d: Rc<BTreeMap<String, Dep>>,
    /// Potential `Q`, normalized.
    pub q: Poly,
}

/// A Farkas witness: `(I, λ)` pairs.
pub type Farkas = Vec<(usize, Rat)>;

/// One item of an `(entail NAME …)` list (spec/certificate.md "Identity runs"): a written
/// witness, or the run `(ids I J)` (format ≥ 4) kept as its two indices; it stands for the
/// `J − I + 1` witnesses `(farkas (I 1))` … `(farkas (J 1))`, which [`Witnesses::iter`]
/// yields one by one as [`Witness::Id`].
#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Farkas(Farkas),
    Ids(usize, usize),
}

/// The witness list of one `(entail NAME …)` field, in order, with its `(ids I J)` runs
/// unexpanded: its length and items are those of the expanded list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Witnesses {
    items: Vec<Item>,
    len: usize,
}

/// One witness of a [`Witnesses`] list: written out, or the identity witness
/// `(farkas (I 1))` of an `(ids …)` run, given by its index `I`.
#[derive(Clone, Copy, Debug)]
pub enum Witness<'a> {
    /// A witness `(farkas (I λ) …)` as written.
    Farkas(&'a [(usize, Rat)]),
    /// `(farkas (I 1))`.
    Id(usize),
}

impl Witness<'_> {
    /// The witness as `(I, λ)` pairs (`[(I, 1)]` for [`Witness::Id`]).
    pub fn to_farkas(self) -> Farkas {
        match self {
            Witness::Farkas(f) => f.to_vec(),
            Witness::Id(i) => vec![(i, Rat::one())],
        }
    }
}

impl Witnesses {
    /// The number of witnesses (an `(ids I J)` run counts `J − I + 1`).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list has no witness.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The witnesses in order, runs yielded one identity witness at a time.
    pub fn iter(&self) -> impl Iterator<Item = Witness<'_>> + '_ {
        self.items.iter().flat_map(|it| {
            let (f, ids) = match it {
                Item::Farkas(f) => (Some(Witness::Farkas(f)), None),
                Item::Ids(i, j) => (None, Some(*i..=*j)),
            };
            f.into_iter().chain(ids.into_iter().flatten().map(Witness::Id))
        })
    }

    /// The witnesses written out (every run expanded).
    pub fn expanded(&self) -> Vec<Farkas> {
        self.iter().map(Witness::to_farkas).collect()
    }

    fn push(&mut self, f: Farkas) {
        self.items.push(Item::Farkas(f));
        self.len += 1;
    }
}

/// An atom rewrite (spec/certificate.md "Derivation nodes").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rw {
    /// `(shift LIN D FARKAS)`: `max0(LIN) = max0(LIN − D) + D` given `P ⇒ LIN ≥ D`.
    Shift(Lin, Rat, Farkas),
    /// `(split LIN D FARKAS1 FARKAS2)`: `max0(LIN) = max0(LIN − D) + max0(D)` given
    /// `P ⇒ D ≥ 0` (`FARKAS1`) and `P ⇒ LIN ≥ D` (`FARKAS2`); `D` a linear form.
    Split(Lin, Lin, Farkas, Farkas),
    /// `(zero LIN FARKAS)`: `max0(LIN) = 0` given `P ⇒ LIN ≤ 0`.
    Zero(Lin, Farkas),
    /// `(mono LIN1 LIN2 FARKAS)`: `max0(LIN1) ≥ max0(LIN2)` given `P ⇒ LIN1 ≥ LIN2`.
    Mono(Lin, Lin, Farkas),
    /// `(ishift ATOM D CG)`: `A = A↓D + D` given `P ⇒ arg(A) ≥ D` over the integers.
    IShift(Atom, Rat, Cg),
    /// `(izero ATOM CG)`: `A = 0` given `P ⇒ arg(A) ≤ 0` over the integers.
    IZero(Atom, Cg),
    /// `(imono ATOM1 ATOM2 CG)`: `A1 ≥ A2` given `P ⇒ arg(A1) ≥ arg(A2)` over the integers.
    IMono(Atom, Atom, Cg),
    /// `(lhalve LIN FARKAS)`: `⌊log2 L⌋⁺ = 1 + ⌊log2 (L/2)⌋⁺` given `P ⇒ LIN ≥ 2`
    /// (spec/certificate.md "Log rewrites").
    LHalve(Lin, Farkas),
    /// `(ldouble LIN1 LIN2 FARKAS1 FARKAS2)`: `⌊log2 (L/M)⌋⁺ = 1 + ⌊log2 (L/2M)⌋⁺` given
    /// `P ⇒ M ≥ 1` and `P ⇒ 2M ≤ L`, `M` with integer coefficients (spec/certificate.md
    /// "Log rewrites").
    LDouble(Lin, Lin, Farkas, Farkas),
}

/// An integer witness `(cg (cut (I λ) …) … (farkas (I λ) …))` or a plain `(farkas …)`:
/// Chvátal–Gomory cuts, each appended to the source list, then a Farkas witness
/// (spec/certificate.md "Integer rewrites").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cg {
    /// The cuts, in order.
    pub cuts: Vec<Farkas>,
    /// The final Farkas witness.
    pub farkas: Farkas,
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
    pub entails: SortedMap<String, Witnesses>,
    /// `(rewrite NAME RW…)` by name.
    pub rewrites: SortedMap<String, Vec<Rw>>,
    /// Field keys present (`pre`, `n`, `entail post`, …), for the allowed-field check.
    pub fields: Vec<String>,
    /// Child nodes in order.
    pub children: Vec<Node>,
}

/// Where a certificate comes from (spec/certificate.md "Provenance"): read and reported by
/// the kernel, which cannot re-run the front end; `warpcert check --source` compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// SHA-256 of the CUDA source file's bytes (64 lowercase hex digits).
    pub source_sha256: String,
    /// SHA-256 of the certificate's `(program …)` section text, from its `(` to its `)`.
    pub program_sha256: String,
    /// The warpcert version that wrote the certificate.
    pub warpcert: String,
    /// The grid the program was lowered for (`None`: symbolic).
    pub grid: Option<[u32; 3]>,
    /// Scalar parameters fixed at lowering (`--param NAME=N`).
    pub fixed: Vec<(String, BigInt)>,
}

/// A parsed certificate (spec/certificate.md "Top level").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// Format version (1 to 6).
    pub version: u32,
    /// The assumptions as written (version 2; empty for version 1, whose assumptions are
    /// implicit: [`crate::assume::implicit`]).
    pub assumptions: Vec<Assumption>,
    /// The provenance section, if any (version 2).
    pub provenance: Option<Provenance>,
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
    /// `(lower W)`: a lower-bound certificate about warp `W` (spec/logic.md §4b).
    pub lower: Option<u32>,
    /// `(lower W (hyp C…) (witness (NAME INT)…))`: the parameter hypotheses and the witness
    /// point of a lower-bound certificate (spec/logic.md §4b, "Parameter hypotheses").
    pub hypotheses: Option<Hypotheses>,
}

/// The parameter hypotheses `H` of a lower-bound certificate and its witness point
/// (spec/logic.md §4b): linear facts over `int` parameters (`le`/`eq`) added to the root's
/// launch facts, and one integer per parameter at which the kernel evaluates them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hypotheses {
    /// `(hyp C…)`, in order.
    pub facts: Vec<Cstr>,
    /// `(witness (NAME INT)…)`, in order.
    pub witness: Vec<(String, BigInt)>,
}

pub(crate) fn err(s: &Sexp, expected: &'static str) -> Rejection {
    Rejection::parse(Reason::Syntax { line: s.line(), expected, found: s.brief() })
}

pub(crate) fn items<'a, 't>(s: &'a Sexp<'t>, head: &str, expected: &'static str) -> Result<&'a [Sexp<'t>], Rejection> {
    match s.list() {
        Some(v) if v.first().and_then(Sexp::atom) == Some(head) => Ok(tail(v)),
        _ => Err(err(s, expected)),
    }
}

pub(crate) fn atom<'a>(s: &'a Sexp, expected: &'static str) -> Result<&'a str, Rejection> {
    s.atom().ok_or_else(|| err(s, expected))
}

/// The items of `v` after the first (none for an empty list).
fn tail<'a, 't>(v: &'a [Sexp<'t>]) -> &'a [Sexp<'t>] {
    v.get(1..).unwrap_or(&[])
}

/// `v` as exactly `N` items (a syntax error at `s`, expecting `e`, otherwise).
fn exactly<'a, 't, const N: usize>(
    v: &'a [Sexp<'t>],
    s: &Sexp,
    e: &'static str,
) -> Result<&'a [Sexp<'t>; N], Rejection> {
    v.try_into().map_err(|_| err(s, e))
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
    let [kind, arg] = exactly(v, s, e)?;
    Ok(match atom(kind, e)? {
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
            let [o, a, b] = exactly(items(s, "bin", e)?, s, "(bin OP OPD OPD)")?;
            let op = atom(o, "a binary operator")?;
            if !BINOPS.contains(&op) {
                return Err(err(o, "a binary operator"));
            }
            Ok(Expr::Bin(op.to_string(), opd(a)?, opd(b)?))
        }
        Some("un") => {
            let [o, a] = exactly(items(s, "un", e)?, s, "(un OP OPD)")?;
            let op = atom(o, "a unary operator")?;
            if !UNOPS.contains(&op) {
                return Err(err(o, "a unary operator"));
            }
            Ok(Expr::Un(op.to_string(), opd(a)?))
        }
        Some("read") => {
            let [a, o] = exactly(items(s, "read", e)?, s, "(read ARR OPD)")?;
            Ok(Expr::Read(atom(a, "an array")?.to_string(), opd(o)?))
        }
        _ => Ok(Expr::Opd(opd(s)?)),
    }
}

/// `STMT` (recursive; nesting is bounded by [`crate::sexp::MAX_DEPTH`]).
pub fn stmt(s: &Sexp) -> Result<Stmt, Rejection> {
    let e = "a statement";
    let v = s.list().ok_or_else(|| err(s, e))?;
    let args = tail(v);
    Ok(match s.head() {
        Some("skip") => {
            exactly::<0>(args, s, "(skip)")?;
            Stmt::Skip
        }
        Some("sync") => {
            exactly::<0>(args, s, "(sync)")?;
            Stmt::Sync
        }
        Some("seq") => {
            // (seq S1 S2 … Sn), n ≥ 2, is the right-nested chain S1; (S2; (… Sn)), built
            // without recursion per item (format 3 writes chains flat; 1 and 2 write n = 2)
            if args.len() < 2 {
                return Err(err(s, "(seq S S …) with at least two statements"));
            }
            let mut items = args.iter().map(stmt).collect::<Result<Vec<_>, _>>()?;
            let mut acc = items.pop().unwrap_or(Stmt::Skip);
            while let Some(x) = items.pop() {
                acc = Stmt::Seq(Box::new(x), Box::new(acc));
            }
            acc
        }
        Some("assign") => {
            let [x, e] = exactly(args, s, "(assign X E)")?;
            Stmt::Assign(atom(x, "a local")?.to_string(), expr(e)?)
        }
        Some("write") => {
            let [a, o, e] = exactly(args, s, "(write ARR O E)")?;
            Stmt::Write(atom(a, "an array")?.to_string(), opd(o)?, expr(e)?)
        }
        Some("if") => {
            let [e, a, b] = exactly(args, s, "(if E S S)")?;
            Stmt::If(expr(e)?, Box::new(stmt(a)?), Box::new(stmt(b)?))
        }
        Some("while") => {
            let [e, b] = exactly(args, s, "(while E S)")?;
            Stmt::While(expr(e)?, Box::new(stmt(b)?))
        }
        Some(h @ ("shfl" | "vote")) => warp(s, h, args)?,
        _ => return Err(err(s, e)),
    })
}

/// `(shfl X KIND WIDTH V L)` (KIND `idx up down xor`, WIDTH ≥ 1) or `(vote X KIND P)`
/// (KIND `ballot any all`).
fn warp(s: &Sexp, head: &str, args: &[Sexp]) -> Result<Stmt, Rejection> {
    if head == "vote" {
        let [x, k, p] = exactly(args, s, "(vote X KIND P)")?;
        let kind = atom(k, "ballot, any or all")?;
        if !["ballot", "any", "all"].contains(&kind) {
            return Err(err(k, "ballot, any or all"));
        }
        return Ok(Stmt::Warp(atom(x, "a local")?.to_string(), WarpOp::Vote(kind.to_string(), opd(p)?)));
    }
    let [x, k, w, v, l] = exactly(args, s, "(shfl X KIND WIDTH V L)")?;
    let kind = atom(k, "idx, up, down or xor")?;
    if !["idx", "up", "down", "xor"].contains(&kind) {
        return Err(err(k, "idx, up, down or xor"));
    }
    let width = atom(w, "a width ≥ 1")?.parse::<u32>().ok().filter(|w| *w >= 1).ok_or_else(|| err(w, "a width ≥ 1"))?;
    Ok(Stmt::Warp(atom(x, "a local")?.to_string(), WarpOp::Shfl(kind.to_string(), width, opd(v)?, opd(l)?)))
}

/// `(program NAME (params …) (arrays …) (locals …) (body S))`.
pub fn program(s: &Sexp) -> Result<Program, Rejection> {
    let [name, ps, arrs, ls, body] =
        exactly(items(s, "program", "(program …)")?, s, "(program NAME params arrays locals body)")?;
    let name = atom(name, "the kernel name")?.to_string();
    let typed = |p: &Sexp| -> Result<(Ty, String), Rejection> {
        let [t, x] = exactly(p.list().ok_or_else(|| err(p, "(TY NAME)"))?, p, "(TY NAME)")?;
        Ok((ty(t)?, atom(x, "a name")?.to_string()))
    };
    let params = items(ps, "params", "(params …)")?.iter().map(typed).collect::<Result<_, _>>()?;
    let mut arrays = Vec::new();
    for a in items(arrs, "arrays", "(arrays …)")? {
        let l = a.list().ok_or_else(|| err(a, "(ARR SPACE ETY EBYTES)"))?;
        let [n, sp, t, b] = exactly(l, a, "(ARR SPACE ETY EBYTES)")?;
        let space = match atom(sp, "global, shared or local")? {
            "global" => Space::Global,
            "shared" => Space::Shared,
            "local" => Space::Local,
            _ => return Err(err(sp, "global, shared or local")),
        };
        arrays.push(Array { name: atom(n, "a name")?.to_string(), space, ty: ty(t)?, bytes: u32_of(b)? });
    }
    let locals = items(ls, "locals", "(locals …)")?.iter().map(typed).collect::<Result<_, _>>()?;
    let [b] = exactly(items(body, "body", "(body S)")?, body, "(body S)")?;
    let first = |v: &Vec<(Ty, String)>| {
        let mut m = HashMap::new();
        for (t, x) in v {
            m.entry(x.clone()).or_insert(*t);
        }
        m
    };
    let index = (first(&locals), first(&params));
    Ok(Program { name, params, arrays, locals, body: stmt(b)?, index })
}

/// `(lin C (A V) …)`, normalized.
pub fn lin(s: &Sexp) -> Result<Lin, Rejection> {
    let v = items(s, "lin", "(lin C (A V) …)")?;
    let c = v.first().ok_or_else(|| err(s, "(lin C (A V) …)"))?;
    let mut l = Lin::constant(rat(c)?);
    for t in tail(v) {
        let [a, x] = exactly(t.list().ok_or_else(|| err(t, "(A V)"))?, t, "(A V)")?;
        l.add_term(atom(x, "a variable")?, &rat(a)?);
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
        Some("le") => Ok(Cstr::le(lin(&exactly::<2>(v, s, e)?[1])?)),
        Some("eq") => Ok(Cstr::equal(lin(&exactly::<2>(v, s, e)?[1])?)),
        Some("mod") => {
            let (Some(l), Some(ms), Some(residues)) = (v.get(1), v.get(2), v.get(3..)) else {
                return Err(err(s, e));
            };
            let m = int(ms)?;
            if !m.is_positive() {
                return Err(err(ms, "a modulus M ≥ 1"));
            }
            let mut rs: Vec<BigInt> = Vec::new();
            for r in residues {
                let x = int(r)?;
                if x.is_negative() || x >= m || rs.last().is_some_and(|p| *p >= x) {
                    return Err(err(r, "residues strictly increasing in [0, M)"));
                }
                rs.push(x);
            }
            Ok(Cstr { eq: false, lin: lin(l)?, lane: Some(Lane { m, rs }) })
        }
        _ => Err(err(s, e)),
    }
}

/// `(poly TERM …)`, normalized.
pub fn poly(s: &Sexp) -> Result<Poly, Rejection> {
    let mut p = Poly::zero();
    for t in items(s, "poly", "(poly TERM …)")? {
        term(t, &mut p)?;
    }
    Ok(p)
}

/// Adds the term `(C ATOM …)` to `p` (normalized).
fn term(t: &Sexp, p: &mut Poly) -> Result<(), Rejection> {
    let v = t.list().ok_or_else(|| err(t, "(C ATOM …)"))?;
    let c = v.first().ok_or_else(|| err(t, "(C ATOM …)"))?;
    let mut atoms = Vec::new();
    for a in tail(v) {
        atoms.push(pot_atom(a)?);
    }
    p.add_term(rat(c)?, atoms);
    Ok(())
}

/// `(max0 LIN)`, `(floor LIN C)` with an integer `C ≥ 1`, `(log2 LIN)` or
/// `(log2q LIN1 LIN2)` (spec/certificate.md).
pub fn pot_atom(a: &Sexp) -> Result<Atom, Rejection> {
    let e = "(max0 LIN), (floor LIN C), (log2 LIN) or (log2q LIN1 LIN2)";
    match a.head() {
        Some("max0") => {
            let [l] = exactly(items(a, "max0", e)?, a, e)?;
            Ok(Atom::Max0(lin(l)?))
        }
        Some("floor") => {
            let [l, c] = exactly(items(a, "floor", e)?, a, e)?;
            let d = int(c)?;
            if !d.is_positive() {
                return Err(err(c, "a divisor C ≥ 1"));
            }
            Ok(Atom::Floor(lin(l)?, d))
        }
        Some("log2") => {
            let [l] = exactly(items(a, "log2", e)?, a, e)?;
            Ok(Atom::Log(lin(l)?))
        }
        Some("log2q") => {
            let [l, m] = exactly(items(a, "log2q", e)?, a, e)?;
            Ok(Atom::LogQ(lin(l)?, lin(m)?))
        }
        _ => Err(err(a, e)),
    }
}

/// `(dep X KX KY KZ R G)` with `g ≥ 0` (a `K` may be `?`: a scaled entry), `(rem X KX KY KZ R M)` with `m ≥ 1` (residue
/// ranges are checked by [`assn`]), `(rng X W)` with `w ≥ 0`, or `(wrap X KX KY KZ M)` with `m ≥ 1`.
fn dep(s: &Sexp) -> Result<(String, Dep), Rejection> {
    let e = "(dep X KX KY KZ R G), (rem X KX KY KZ R M), (rng X W) or (wrap X KX KY KZ M)";
    let rem = match s.head() {
        Some("dep") => false,
        Some("rem") => true,
        Some("rng") => {
            let [x, w] = exactly(s.list().map(tail).unwrap_or(&[]), s, "(rng X W)")?;
            let width = int(w)?;
            if width.is_negative() {
                return Err(err(w, "a width W ≥ 0"));
            }
            return Ok((atom(x, "a local")?.to_string(), Dep::range(width)));
        }
        Some("wrap") => {
            let [x, kx, ky, kz, ms] = exactly(s.list().map(tail).unwrap_or(&[]), s, "(wrap X KX KY KZ M)")?;
            let m = int(ms)?;
            if !m.is_positive() {
                return Err(err(ms, "a modulus M ≥ 1"));
            }
            return Ok((atom(x, "a local")?.to_string(), Dep::wrap([int(kx)?, int(ky)?, int(kz)?], m)));
        }
        _ => return Err(err(s, e)),
    };
    let [x, kx, ky, kz, r, gs] = exactly(s.list().map(tail).unwrap_or(&[]), s, e)?;
    let g = int(gs)?;
    if g.is_negative() || (rem && g.is_zero()) {
        return Err(err(gs, if rem { "a modulus M ≥ 1" } else { "a modulus G ≥ 0" }));
    }
    // `?` for a coefficient of a scaled entry (`dep` only), stored as 0
    let coef = |s: &Sexp| match s.atom() {
        Some("?") if !rem => Ok((BigInt::zero(), true)),
        _ => int(s).map(|k| (k, false)),
    };
    let [(k0, u0), (k1, u1), (k2, u2)] = [coef(kx)?, coef(ky)?, coef(kz)?];
    let kind = match (rem, [u0, u1, u2]) {
        (true, _) => EntryKind::Rem,
        (false, [false, false, false]) => EntryKind::Linear,
        (false, u) => EntryKind::Scaled(u),
    };
    let d = Dep { k: [k0, k1, k2], r: int(r)?, g, kind };
    Ok((atom(x, "a local")?.to_string(), d))
}

/// [`dep`] with the residue condition `0 ≤ r < g` (when `g > 0`) of well-formedness.
fn dep_checked(e: &Sexp) -> Result<(String, Dep), Rejection> {
    let (x, entry) = dep(e)?;
    if matches!(entry.kind, EntryKind::Linear | EntryKind::Scaled(_))
        && entry.g.is_positive()
        && (entry.r.is_negative() || entry.r >= entry.g)
        || entry.kind == EntryKind::Rem && (entry.r.is_negative() || entry.r >= entry.g)
    {
        return Err(err(e, "a residue 0 ≤ R < G"));
    }
    Ok((x, entry))
}

/// The `(assertions …)` table of format 3 (spec/certificate.md "Shared assertions"): `P`
/// lists, `D` maps and assertions by name, each read once. A node's `(pre NAME)` denotes
/// the full assertion defined here, which every rule then checks as an inline one.
#[derive(Clone, Debug, Default)]
pub struct Table {
    p: HashMap<String, Rc<Vec<Cstr>>>,
    d: HashMap<String, Rc<BTreeMap<String, Dep>>>,
    a: HashMap<String, Rc<Assn>>,
}

/// A defined name: an atom not defined before in `defined`.
fn new_name<V>(s: &Sexp, defined: &HashMap<String, V>) -> Result<String, Rejection> {
    let n = atom(s, "a name")?;
    if defined.contains_key(n) {
        return Err(err(s, "a name not defined before"));
    }
    Ok(n.to_string())
}

/// A `p`/`d` entry's base value, its drop items and its remaining items.
type BaseDrop<'s, 'a, V> = (Option<V>, &'s [Sexp<'a>], &'s [Sexp<'a>]);

/// The optional `(base NAME)` (format 6, `bare`: also `NAME`) and `(drop …)` items at the
/// start of a `p`/`d` entry's body: the base (already defined), the drop list and the
/// remaining items.
fn base_drop<'s, 'a, V: Clone>(
    v: &'s [Sexp<'a>],
    defined: &HashMap<String, V>,
    bare: bool,
) -> Result<BaseDrop<'s, 'a, V>, Rejection> {
    let (base, rest) = match v.first() {
        Some(b) if b.head() == Some("base") => {
            let [n] = exactly(items(b, "base", "(base NAME)")?, b, "(base NAME)")?;
            let k = atom(n, "a name")?;
            let val = defined.get(k).cloned().ok_or_else(|| err(n, "a name defined before"))?;
            (Some(val), tail(v))
        }
        // format 6: a bare base `NAME` (an atom where a constraint or entry is a list)
        Some(n) if bare && n.atom().is_some() => {
            let k = atom(n, "a name")?;
            let val = defined.get(k).cloned().ok_or_else(|| err(n, "a name defined before"))?;
            (Some(val), tail(v))
        }
        _ => (None, v),
    };
    match rest.first() {
        Some(d) if d.head() == Some("drop") => {
            if base.is_none() {
                return Err(err(d, "(base NAME) before (drop …)"));
            }
            Ok((base, items(d, "drop", "(drop …)")?, tail(rest)))
        }
        _ => Ok((base, &[], rest)),
    }
}

/// `(p NAME [(base P0)] [(drop I …)] CSTR …)`: the list `P0` without its 0-based positions
/// `I` (strictly increasing, in range), followed by the `CSTR`s; without a base, the `CSTR`s.
fn p_entry(e: &Sexp, t: &mut Table, bare: bool) -> Result<(), Rejection> {
    let v = items(e, "p", "(p NAME …)")?;
    let name = new_name(v.first().ok_or_else(|| err(e, "(p NAME …)"))?, &t.p)?;
    let (base, drop, add) = base_drop(tail(v), &t.p, bare)?;
    let mut out: Vec<Cstr> = Vec::new();
    if let Some(b) = base {
        let mut drops = Vec::new();
        for i in drop {
            let k = atom(i, "an index")?.parse::<usize>().map_err(|_| err(i, "an index"))?;
            if k >= b.len() || drops.last().is_some_and(|&l| l >= k) {
                return Err(err(i, "indices strictly increasing, below the base's length"));
            }
            drops.push(k);
        }
        let mut di = drops.iter().peekable();
        for (k, c) in b.iter().enumerate() {
            if di.peek() == Some(&&k) {
                di.next();
            } else {
                out.push(c.clone());
            }
        }
    }
    for c in add {
        out.push(cstr(c)?);
    }
    t.p.insert(name, Rc::new(out));
    Ok(())
}

/// `(d NAME [(base D0)] [(drop X …)] DEP …)`: the map `D0` without the locals `X` (each an
/// entry of `D0`), then the `DEP`s (at most one per local) added or replacing `D0`'s.
fn d_entry(e: &Sexp, t: &mut Table, bare: bool) -> Result<(), Rejection> {
    let v = items(e, "d", "(d NAME …)")?;
    let name = new_name(v.first().ok_or_else(|| err(e, "(d NAME …)"))?, &t.d)?;
    let (base, drop, add) = base_drop(tail(v), &t.d, bare)?;
    let mut out: BTreeMap<String, Dep> = base.map(|b| (*b).clone()).unwrap_or_default();
    for x in drop {
        if out.remove(atom(x, "a local")?).is_none() {
            return Err(err(x, "a local with an entry in the base"));
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for a in add {
        let (x, entry) = dep_checked(a)?;
        if seen.contains(&x) {
            return Err(err(a, "at most one dep entry per local"));
        }
        seen.push(x.clone());
        out.insert(x, entry);
    }
    t.d.insert(name, Rc::new(out));
    Ok(())
}

/// `(assertions ENTRY …)`, entries in order, each name defined once and used only after
/// its definition: `(p …)` ([`p_entry`]), `(d …)` ([`d_entry`]), `(a NAME P D POLY)`;
/// `bare` (format 6): a `p`/`d` base may be written as its name alone, and an assertion as
/// `(a NAME P D A0 TERM …)`, the potential of `A0` plus the terms.
pub fn table(s: &Sexp, bare: bool) -> Result<Table, Rejection> {
    let mut t = Table::default();
    for e in items(s, "assertions", "(assertions …)")? {
        match e.head() {
            Some("p") => p_entry(e, &mut t, bare)?,
            Some("d") => d_entry(e, &mut t, bare)?,
            Some("a") => {
                let f = "(a NAME P D POLY)";
                let v = items(e, "a", f)?;
                let (Some(n), Some(pn), Some(dn), Some(q)) = (v.first(), v.get(1), v.get(2), v.get(3)) else {
                    return Err(err(e, f));
                };
                let name = new_name(n, &t.a)?;
                let p = t.p.get(atom(pn, "a P name")?).ok_or_else(|| err(pn, "a P name defined before"))?;
                let d = t.d.get(atom(dn, "a D name")?).ok_or_else(|| err(dn, "a D name defined before"))?;
                let q = match q.atom() {
                    // format 6: `(a NAME P D A0 TERM …)`, the potential of A0 plus the terms
                    Some(b) if bare => {
                        let base = t.a.get(b).ok_or_else(|| err(q, "an assertion name defined before"))?;
                        let mut sum = base.q.clone();
                        for x in v.get(4..).unwrap_or(&[]) {
                            term(x, &mut sum)?;
                        }
                        sum
                    }
                    _ => {
                        exactly::<4>(v, e, f)?;
                        poly(q)?
                    }
                };
                let a = Assn { p: Rc::clone(p), d: Rc::clone(d), q };
                t.a.insert(name, Rc::new(a));
            }
            _ => return Err(err(e, "(p …), (d …) or (a …)")),
        }
    }
    Ok(t)
}

/// `(assn (P …) (D …) (Q POLY))`. Residues must satisfy `0 ≤ r < g` when `g > 0`
/// (spec/logic.md §1, well-formedness); a second entry for the same local is an error.
pub fn assn(s: &Sexp) -> Result<Assn, Rejection> {
    let [ps, ds, qs] = exactly(items(s, "assn", "(assn (P …) (D …) (Q POLY))")?, s, "(assn (P …) (D …) (Q POLY))")?;
    let p = items(ps, "P", "(P CSTR …)")?.iter().map(cstr).collect::<Result<Vec<_>, _>>()?;
    let mut d = BTreeMap::new();
    for e in items(ds, "D", "(D DEP …)")? {
        let (x, entry) = dep_checked(e)?;
        if d.insert(x, entry).is_some() {
            return Err(err(e, "at most one dep entry per local"));
        }
    }
    let [q] = exactly(items(qs, "Q", "(Q POLY)")?, qs, "(Q POLY)")?;
    Ok(Assn { p: Rc::new(p), d: Rc::new(d), q: poly(q)? })
}

/// The largest number of witnesses the `(ids I J)` items of one certificate may stand for
/// in total, per byte of its derivation text (spec/certificate.md "Identity runs"): the
/// witnesses checked then take time proportional to the text, as written-out ones do.
pub const IDS_PER_BYTE: usize = 4;

/// `(ids I J)` (version 4, in an entail list): the `J − I + 1` witnesses `(farkas (I 1))` …
/// `(farkas (J 1))`, appended to `out` as one run (not expanded: [`Witnesses::iter`]);
/// `budget` is the number of witnesses such items may still stand for (a
/// [`Reason::ResourceLimit`] past it).
fn ids(s: &Sexp, out: &mut Witnesses, budget: &mut usize) -> Result<(), Rejection> {
    let e = "(ids I J) with I ≤ J";
    let [i, j] = exactly(items(s, "ids", e)?, s, e)?;
    let index = |x: &Sexp| atom(x, "an index")?.parse::<usize>().map_err(|_| err(x, "a non-negative index"));
    let (i, j) = (index(i)?, index(j)?);
    if j < i {
        return Err(err(s, e));
    }
    let n = j - i + 1;
    if n > *budget {
        return Err(Rejection::parse(Reason::ResourceLimit {
            what: "witnesses denoted by (ids …) items",
            limit: u64::try_from(*budget).unwrap_or(u64::MAX),
        }));
    }
    *budget -= n;
    out.items.push(Item::Ids(i, j));
    out.len += n;
    Ok(())
}

fn farkas(s: &Sexp) -> Result<Farkas, Rejection> {
    pairs(items(s, "farkas", "(farkas (I λ) …)")?)
}

/// The `(I λ)` pairs of a `farkas` or `cut` item.
fn pairs(v: &[Sexp]) -> Result<Farkas, Rejection> {
    let mut f = Vec::new();
    for pair in v {
        let [i, l] = exactly(pair.list().ok_or_else(|| err(pair, "(I λ)"))?, pair, "(I λ)")?;
        let idx = atom(i, "an index")?.parse::<usize>().map_err(|_| err(i, "a non-negative index"))?;
        f.push((idx, rat(l)?));
    }
    Ok(f)
}

fn rw(s: &Sexp) -> Result<Rw, Rejection> {
    match s.head() {
        Some("shift") => {
            let [l, d, w] = exactly(items(s, "shift", "")?, s, "(shift LIN D FARKAS)")?;
            Ok(Rw::Shift(lin(l)?, rat(d)?, farkas(w)?))
        }
        Some("split") => {
            let [l, d, w1, w2] = exactly(items(s, "split", "")?, s, "(split LIN D FARKAS FARKAS)")?;
            Ok(Rw::Split(lin(l)?, lin(d)?, farkas(w1)?, farkas(w2)?))
        }
        Some("zero") => {
            let [l, w] = exactly(items(s, "zero", "")?, s, "(zero LIN FARKAS)")?;
            Ok(Rw::Zero(lin(l)?, farkas(w)?))
        }
        Some("mono") => {
            let [l1, l2, w] = exactly(items(s, "mono", "")?, s, "(mono LIN1 LIN2 FARKAS)")?;
            Ok(Rw::Mono(lin(l1)?, lin(l2)?, farkas(w)?))
        }
        Some("ishift") => {
            let [a, d, w] = exactly(items(s, "ishift", "")?, s, "(ishift ATOM D CG)")?;
            Ok(Rw::IShift(pot_atom(a)?, rat(d)?, cg(w)?))
        }
        Some("izero") => {
            let [a, w] = exactly(items(s, "izero", "")?, s, "(izero ATOM CG)")?;
            Ok(Rw::IZero(pot_atom(a)?, cg(w)?))
        }
        Some("imono") => {
            let [a1, a2, w] = exactly(items(s, "imono", "")?, s, "(imono ATOM1 ATOM2 CG)")?;
            Ok(Rw::IMono(pot_atom(a1)?, pot_atom(a2)?, cg(w)?))
        }
        Some("lhalve") => {
            let [l, w] = exactly(items(s, "lhalve", "")?, s, "(lhalve LIN FARKAS)")?;
            Ok(Rw::LHalve(lin(l)?, farkas(w)?))
        }
        Some("ldouble") => {
            let [l, m, w1, w2] = exactly(items(s, "ldouble", "")?, s, "(ldouble LIN1 LIN2 FARKAS1 FARKAS2)")?;
            Ok(Rw::LDouble(lin(l)?, lin(m)?, farkas(w1)?, farkas(w2)?))
        }
        _ => Err(err(s, "(shift LIN D FARKAS), (split LIN D FARKAS FARKAS), (zero LIN FARKAS), (mono LIN1 LIN2 FARKAS), (ishift ATOM D CG), (izero ATOM CG), (imono ATOM1 ATOM2 CG), (lhalve LIN FARKAS) or (ldouble LIN1 LIN2 FARKAS1 FARKAS2)")),
    }
}

/// `(farkas …)` (no cuts) or `(cg (cut (I λ) …) … (farkas (I λ) …))`.
fn cg(s: &Sexp) -> Result<Cg, Rejection> {
    if s.head() == Some("farkas") {
        return Ok(Cg { cuts: Vec::new(), farkas: farkas(s)? });
    }
    let e = "(farkas …) or (cg (cut (I λ) …) … (farkas …))";
    let v = items(s, "cg", e)?;
    let (last, cuts) = v.split_last().ok_or_else(|| err(s, e))?;
    let mut out = Vec::with_capacity(cuts.len());
    for c in cuts {
        out.push(pairs(items(c, "cut", "(cut (I λ) …)")?)?);
    }
    if last.head() != Some("farkas") {
        return Err(err(last, "(farkas (I λ) …)"));
    }
    Ok(Cg { cuts: out, farkas: farkas(last)? })
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

/// What the reading of one derivation shares between its nodes: the memo of inline
/// assertions, the table of format ≥ 3, and (format ≥ 4) the remaining budget of `(ids …)`
/// witnesses (`None`: `(ids …)` is not part of the format).
struct Reader<'a, 't> {
    memo: Memo<'a>,
    table: Option<&'t Table>,
    ids: Option<usize>,
    /// Format ≥ 6: a child may be the implicit expression derivation `_`.
    implicit: bool,
}

/// The rule name of an implicit expression derivation `_` (format 6, spec/certificate.md
/// "Implicit expressions, default witnesses"): the checker builds the canonical derivation
/// of the node's expression in its place.
pub const IMPLICIT: &str = "_";

/// A derivation node `(RULE FIELD … CHILD …)`. Fields come before children and appear at
/// most once (an `entail`/`rewrite` field is identified by its name).
pub fn node(s: &Sexp) -> Result<Node, Rejection> {
    node_in(s, &mut Reader { memo: Memo::new(), table: None, ids: None, implicit: false })
}

/// [`node`] of format 3: `(pre NAME)` / `(post NAME)` name an assertion of `table`.
pub fn node_with(s: &Sexp, table: &Table) -> Result<Node, Rejection> {
    node_in(s, &mut Reader { memo: Memo::new(), table: Some(table), ids: None, implicit: false })
}

/// [`node_with`] of format 4: an entail list may also hold `(ids I J)` items, together
/// standing for at most [`IDS_PER_BYTE`] witnesses per byte of `s`'s text.
pub fn node_v4(s: &Sexp, table: &Table) -> Result<Node, Rejection> {
    let budget = s.text().len().saturating_mul(IDS_PER_BYTE);
    node_in(s, &mut Reader { memo: Memo::new(), table: Some(table), ids: Some(budget), implicit: false })
}

/// [`node_v4`] of format 5: a statement child of a `Q:SEQ` node may omit `(pre …)`; it then
/// has the pre of its place in the chain ([`seq_pres`]). (Format 5 also lets expression
/// nodes omit `(cost …)`: that is the checker's business, [`crate::rules`].)
pub fn node_v5(s: &Sexp, table: &Table) -> Result<Node, Rejection> {
    let mut n = node_v4(s, table)?;
    seq_pres(&mut n);
    Ok(n)
}

/// [`node_v5`] of format 6 (spec/certificate.md "Implicit expressions, default
/// witnesses"): a child may be `_` (an implicit expression derivation, built by the checker),
/// and a `Q:VWRITE1/2`, `L:VWRITE1/2` node without `(entail post …)` gets the default list
/// ([`default_posts`]), whose identities count against the `(ids …)` budget, here
/// [`IDS_PER_BYTE`] per byte of `s` and of the table's text `table_bytes` together.
pub fn node_v6(s: &Sexp, table: &Table, table_bytes: usize) -> Result<Node, Rejection> {
    let budget = s.text().len().saturating_add(table_bytes).saturating_mul(IDS_PER_BYTE);
    let mut rd = Reader { memo: Memo::new(), table: Some(table), ids: Some(budget), implicit: true };
    let mut n = node_in(s, &mut rd)?;
    seq_pres(&mut n);
    let mut budget = rd.ids.unwrap_or(0);
    default_posts(&mut n, &mut budget)?;
    Ok(n)
}

/// Format 6, over the tree `n` (pres already filled in by [`seq_pres`]): a `Q:VWRITE1`,
/// `Q:VWRITE2`, `L:VWRITE1` or `L:VWRITE2` node with a pre and a post and no
/// `(entail post …)` gets the list of `|P'|` witnesses `(farkas (i 1))` for
/// `i < min(|P|, |P'|)`, then `(farkas)` (`P`, `P'` the constraints of its pre and post);
/// the identities are taken from `budget` ([`Reason::ResourceLimit`] past it). Iterative.
fn default_posts(n: &mut Node, budget: &mut usize) -> Result<(), Rejection> {
    let mut todo = vec![n];
    while let Some(n) = todo.pop() {
        let vwrite = matches!(n.rule.as_str(), "Q:VWRITE1" | "Q:VWRITE2" | "L:VWRITE1" | "L:VWRITE2");
        if let (true, false, Some(pre), Some(post)) = (vwrite, n.entails.contains_key("post"), &n.pre, &n.post) {
            let (t, k) = (post.p.len(), pre.p.len().min(post.p.len()));
            if k > *budget {
                return Err(Rejection::parse(Reason::ResourceLimit {
                    what: "witnesses denoted by (ids …) items",
                    limit: u64::try_from(*budget).unwrap_or(u64::MAX),
                }));
            }
            *budget -= k;
            let mut ws = Witnesses::default();
            if k > 0 {
                ws.items.push(Item::Ids(0, k - 1));
                ws.len = k;
            }
            for _ in k..t {
                ws.push(Vec::new());
            }
            n.entails.insert("post".to_string(), ws);
            n.fields.push("entail post".to_string());
        }
        todo.extend(n.children.iter_mut());
    }
    Ok(())
}

/// Format 5 (spec/certificate.md "Implicit pres and costs"), top-down over the tree `n`
/// (a parent's pre is known before its children's): each child of a `Q:SEQ` node written
/// without `(pre …)` gets the assertion Q:SEQ requires of it: the node's pre for the first
/// child, the previous child's post for the others (`None` when that is absent too; the
/// checker then rejects the child for its missing field). Every check of Q:SEQ and of the
/// children is unchanged, on these full assertions.
fn seq_pres(n: &mut Node) {
    if n.rule == "Q:SEQ" || n.rule == "L:SEQ" {
        let mut prev = n.pre.clone();
        for c in &mut n.children {
            if c.pre.is_none() {
                c.pre = prev;
            }
            prev = c.post.clone();
        }
    }
    for c in &mut n.children {
        seq_pres(c);
    }
}

/// An assertion field's argument: inline, or (format 3) a name of the table.
fn assn_arg<'a>(s: &Sexp<'a>, memo: &mut Memo<'a>, table: Option<&Table>) -> Result<Rc<Assn>, Rejection> {
    match (s.atom(), table) {
        (Some(n), Some(t)) => t.a.get(n).cloned().ok_or_else(|| err(s, "an assertion name defined in (assertions …)")),
        _ => assn_memo(s, memo),
    }
}

fn node_in<'a>(s: &Sexp<'a>, rd: &mut Reader<'a, '_>) -> Result<Node, Rejection> {
    let v = s.list().ok_or_else(|| err(s, "a derivation node (RULE …)"))?;
    let rule = atom(v.first().ok_or_else(|| err(s, "a rule name"))?, "a rule name")?;
    let mut n = Node { rule: rule.to_string(), line: s.line(), ..Node::default() };
    for item in tail(v) {
        if rd.implicit && item.atom() == Some(IMPLICIT) {
            n.children.push(Node { rule: IMPLICIT.to_string(), line: item.line(), ..Node::default() });
            continue;
        }
        let head = item.head().unwrap_or("");
        if !FIELD_HEADS.contains(&head) {
            n.children.push(node_in(item, rd)?);
            continue;
        }
        if !n.children.is_empty() {
            return Err(err(item, "fields before children"));
        }
        let args = item.list().map(tail).unwrap_or(&[]);
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
        let one = |e| exactly::<1>(args, item, e).map(|[a]| a);
        match head {
            "pre" => n.pre = Some(assn_arg(one("(pre ASSN)")?, &mut rd.memo, rd.table)?),
            "post" => n.post = Some(assn_arg(one("(post ASSN)")?, &mut rd.memo, rd.table)?),
            "cost" => n.cost = Some(rat(one("(cost C)")?)?),
            "n" => n.n = Some(int(one("(n N)")?)?),
            "frame" => n.frame = Some(rat(one("(frame C)")?)?),
            "entail" => {
                let mut ws = Witnesses::default();
                for w in tail(args) {
                    match (w.head(), rd.ids.as_mut()) {
                        (Some("ids"), Some(budget)) => ids(w, &mut ws, budget)?,
                        _ => ws.push(farkas(w)?),
                    }
                }
                n.entails.insert(key.trim_start_matches("entail ").to_string(), ws);
            }
            _ => {
                let ws = tail(args).iter().map(rw).collect::<Result<Vec<_>, _>>()?;
                n.rewrites.insert(key.trim_start_matches("rewrite ").to_string(), ws);
            }
        }
        n.fields.push(key);
    }
    Ok(n)
}

/// Supported certificate format versions (spec/certificate.md, "Versions").
pub const VERSIONS: &str = "1..=6";

/// The whole certificate: header line `warpcert-certificate V` with `V ∈ 1..=6`, then
/// `metric`, `hardware`, `launch`, `program`, `bound`, `derivation`, each exactly once;
/// version 2 adds `assumptions` (required) and `provenance` (optional); version 3 adds
/// `assertions` (required), the table the derivation's `(pre NAME)`/`(post NAME)` refer to;
/// version 4 adds `(ids I J)` items in entail lists, expanded here ([`node_v4`]); version 5
/// lets Q:SEQ children omit their pre ([`node_v5`]) and expression nodes their cost;
/// version 6 adds implicit expression derivations `_`, default `Q:VWRITE` post witnesses
/// ([`node_v6`]) and bare `p`/`d` bases ([`table`]).
///
/// Errors: [`Reason::Version`] for another version, [`Reason::Syntax`] otherwise.
pub fn certificate(top: &[Sexp]) -> Result<Certificate, Rejection> {
    let first = Sexp::Atom("", 1);
    let header = "the header `warpcert-certificate V` on line 1";
    let (Some(h), Some(vs)) = (top.first(), top.get(1)) else {
        return Err(err(top.first().unwrap_or(&first), header));
    };
    if h.atom() != Some("warpcert-certificate") || h.line() != 1 {
        return Err(err(h, header));
    }
    let ver = vs.atom().filter(|_| vs.line() == 1).ok_or_else(|| err(vs, "a version number on line 1"))?;
    let version = match ver {
        "1" => 1,
        "2" => 2,
        "3" => 3,
        "4" => 4,
        "5" => 5,
        "6" => 6,
        _ => return Err(Rejection::parse(Reason::Version { found: ver.to_string(), supported: VERSIONS })),
    };
    let mut known = vec!["metric", "hardware", "launch", "program", "bound", "derivation", "lower"];
    if version >= 2 {
        known.extend(["assumptions", "provenance"]);
    }
    if version >= 3 {
        known.push("assertions");
    }
    let mut sec: BTreeMap<&str, &Sexp> = BTreeMap::new();
    for s in top.get(2..).unwrap_or(&[]) {
        let h = s.head().unwrap_or("");
        if !known.contains(&h) || sec.insert(h, s).is_some() {
            let e = if version >= 3 {
                "one each of metric, hardware, launch, assumptions, program, bound, assertions, derivation (and provenance)"
            } else if version >= 2 {
                "one each of metric, hardware, launch, assumptions, program, bound, derivation (and provenance)"
            } else {
                "one each of metric, hardware, launch, program, bound, derivation"
            };
            return Err(err(s, e));
        }
    }
    let get = |k: &'static str| {
        sec.get(k).copied().ok_or_else(|| {
            Rejection::parse(Reason::Syntax { line: 0, expected: k, found: "no such section".to_string() })
        })
    };
    let m = get("metric")?;
    let [metric] = exactly(items(m, "metric", "")?, m, "(metric NAME)")?;
    let hw = get("hardware")?;
    let [w, b, bb, sb] = exactly(items(hw, "hardware", "")?, hw, "(hardware WARP BANKS BANK_BYTES SECTOR_BYTES)")?;
    let la = get("launch")?;
    let [bx, by, bz] = exactly(items(la, "launch", "")?, la, "(launch BX BY BZ)")?;
    let bs = get("bound")?;
    let [bound] = exactly(items(bs, "bound", "")?, bs, "(bound POLY)")?;
    let d = get("derivation")?;
    let [root] = exactly(items(d, "derivation", "")?, d, "(derivation NODE)")?;
    let assumptions = if version >= 2 { assume::parse(get("assumptions")?)? } else { Vec::new() };
    let (lower, hypotheses) = match sec.get("lower") {
        Some(l) => {
            let e = "(lower WARP) or (lower WARP (hyp C…) (witness (NAME INT)…))";
            let (w, hyp) = match items(l, "lower", e)? {
                [w] => (w, None),
                [w, h, x] => (w, Some(hypotheses(h, x)?)),
                _ => return Err(err(l, e)),
            };
            (Some(atom(w, "a warp number")?.parse::<u32>().map_err(|_| err(w, "a warp number"))?), hyp)
        }
        None => (None, None),
    };
    Ok(Certificate {
        lower,
        hypotheses,
        version,
        metric: atom(metric, "a metric")?.to_string(),
        hardware: [u32_of(w)?, u32_of(b)?, u32_of(bb)?, u32_of(sb)?],
        block: [u32_of(bx)?, u32_of(by)?, u32_of(bz)?],
        assumptions,
        provenance: sec.get("provenance").map(|p| provenance(p)).transpose()?,
        program: program(get("program")?)?,
        bound: poly(bound)?,
        root: match version {
            6.. => {
                let t = get("assertions")?;
                node_v6(root, &table(t, true)?, t.text().len())?
            }
            5 => node_v5(root, &table(get("assertions")?, false)?)?,
            4 => node_v4(root, &table(get("assertions")?, false)?)?,
            3 => node_with(root, &table(get("assertions")?, false)?)?,
            _ => node(root)?,
        },
    })
}

/// `(hyp C…)` (each `(le LIN)` or `(eq LIN)`) and `(witness (NAME INT)…)` of a lower-bound
/// certificate (spec/certificate.md, "Lower-bound certificates").
fn hypotheses(h: &Sexp, x: &Sexp) -> Result<Hypotheses, Rejection> {
    let mut facts = Vec::new();
    for c in items(h, "hyp", "(hyp (le LIN)…)")? {
        if !matches!(c.head(), Some("le" | "eq")) {
            return Err(err(c, "(le LIN) or (eq LIN)"));
        }
        facts.push(cstr(c)?);
    }
    let mut witness = Vec::new();
    for p in items(x, "witness", "(witness (NAME INT)…)")? {
        let [n, v] = exactly(p.list().ok_or_else(|| err(p, "(NAME INT)"))?, p, "(NAME INT)")?;
        witness.push((atom(n, "a parameter name")?.to_string(), int(v)?));
    }
    Ok(Hypotheses { facts, witness })
}

/// `(provenance (source-sha256 HEX) (program-sha256 HEX) (warpcert VERSION) (grid …)
/// (fixed (NAME N) …))` (spec/certificate.md "Provenance"): read and reported, not checked.
fn provenance(s: &Sexp) -> Result<Provenance, Rejection> {
    let e = "(provenance (source-sha256 HEX) (program-sha256 HEX) (warpcert V) (grid …) (fixed …))";
    let [src, prog, ver, grid, fixed] = exactly(items(s, "provenance", e)?, s, e)?;
    let hex = |x: &Sexp, head: &str| -> Result<String, Rejection> {
        let [h] = exactly(items(x, head, e)?, x, e)?;
        let h = atom(h, "a SHA-256 in hexadecimal")?;
        if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(err(x, "64 lowercase hexadecimal digits"));
        }
        Ok(h.to_string())
    };
    let [v] = exactly(items(ver, "warpcert", e)?, ver, "(warpcert VERSION)")?;
    let grid = match items(grid, "grid", "(grid symbolic) or (grid GX GY GZ)")? {
        [g] if g.atom() == Some("symbolic") => None,
        [x, y, z] => Some([u32_of(x)?, u32_of(y)?, u32_of(z)?]),
        _ => return Err(err(grid, "(grid symbolic) or (grid GX GY GZ)")),
    };
    let mut values = Vec::new();
    for f in items(fixed, "fixed", "(fixed (NAME N) …)")? {
        let [n, v] = exactly(f.list().ok_or_else(|| err(f, "(NAME N)"))?, f, "(NAME N)")?;
        values.push((atom(n, "a parameter name")?.to_string(), int(v)?));
    }
    Ok(Provenance {
        source_sha256: hex(src, "source-sha256")?,
        program_sha256: hex(prog, "program-sha256")?,
        warpcert: atom(v, "a version")?.to_string(),
        grid,
        fixed: values,
    })
}
