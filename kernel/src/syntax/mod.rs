//! The certificate's abstract syntax (`spec/certificate.md`): the miniCUDA program,
//! linear forms, constraints, potentials, assertions, dependence entries and derivation
//! nodes, built from [`Sexp`]s. Everything is parsed with exact numbers; `float`
//! constants are kept as text.

use crate::arith::{floors_canonical, floors_wf, Atom, Cstr, Dep, DepMap, EntryKind, Lane, Lin, Mul, Poly, Rat};
use crate::assume::{self, Assumption};
use crate::sexp::Sexp;
use crate::sorted::SortedMap;
use crate::{Reason, Rejection};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::str::FromStr;

mod nodes;
mod read;
mod tables;
mod top;

pub use nodes::*;
pub use read::*;
pub use tables::*;
pub use top::*;

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
    pub d: Rc<DepMap>,
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

/// A name read from a certificate that is usually one of a fixed set (a node's rule name,
/// a field key): a name of the set is the set's `&'static str` (no allocation per node, issue
/// 13), any other is kept as read (for the rejection that names it). Either way it is the
/// text of the certificate: [`Name::as_str`] is the name as written, and two names are equal
/// exactly when their texts are (whichever variant holds them).
#[derive(Clone, Debug)]
pub enum Name {
    /// A name of the fixed set.
    Known(&'static str),
    /// Any other name, as read.
    Other(Box<str>),
}

impl Name {
    /// `s` as the entry of `known` equal to it, else as an owned copy.
    pub fn of(s: &str, known: &[&'static str]) -> Name {
        match known.iter().find(|k| **k == s) {
            Some(k) => Name::Known(k),
            None => Name::Other(s.into()),
        }
    }
    /// The name as written.
    pub fn as_str(&self) -> &str {
        match self {
            Name::Known(k) => k,
            Name::Other(o) => o,
        }
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl Default for Name {
    /// The empty name.
    fn default() -> Self {
        Name::Known("")
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The field `(guard I S (C₁ t₁) … (C_k t_k))` of Q:GWRITEGUARD / Q:VWRITEGUARD
/// (spec/logic.md §4 "Guarded accesses"): the index `I` (0-based) of the guard constraint
/// `L ≤ 0` in the pre's `P`, the floor divisor `S ≥ 1` of the charge's atoms, and the charge
/// terms `C_j·[t_j ≤ −L_u]` (`L_u` the uniform part of `L`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guard {
    /// `I`: the guard constraint's position in `P`.
    pub index: BigInt,
    /// `S`: the divisor of the floor atoms `A^±_j`.
    pub div: BigInt,
    /// The pairs `(C_j, t_j)`.
    pub terms: Vec<(BigInt, BigInt)>,
}

/// A derivation node with its fields and children. Assertions with the same text are
/// parsed once and shared (`Rc`) between the nodes of one certificate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    /// Rule name (e.g. `Q:SEQ`): a name of [`crate::registry`] or `_` as a
    /// [`Name::Known`], another as read (rejected when checked).
    pub rule: Name,
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
    /// `(lanes L1 L2)`: L:IFDIV's lane witnesses, `(lanes L)`: L:IFDT's (spec/logic.md
    /// §4b); empty when absent.
    pub lanes: Vec<BigInt>,
    /// `(class S M)`: the residue class of Q:IFALIGN and Q:WHILELASTALIGN (spec/logic.md §4);
    /// boxed, as few nodes have one.
    pub class: Option<Box<(BigInt, BigInt)>>,
    /// `(rows (C M)…)`: the terms `C·[M ∤ X]` of Q:GWRITEROWS and Q:VWRITEROWS
    /// (spec/logic.md §4); empty when absent.
    pub rows: Vec<(BigInt, BigInt)>,
    /// `(guard I S (C t)…)`: the guard of Q:GWRITEGUARD and Q:VWRITEGUARD (spec/logic.md §4
    /// "Guarded accesses"); boxed, as few nodes have one.
    pub guard: Option<Box<Guard>>,
    /// `(entail NAME FARKAS…)` by name.
    pub entails: SortedMap<String, Witnesses>,
    /// `(rewrite NAME RW…)` by name.
    pub rewrites: SortedMap<String, Vec<Rw>>,
    /// Field keys present (`pre`, `n`, `entail post`, …), for the allowed-field check
    /// (those of [`FIELD_KEYS`] as [`Name::Known`]).
    pub fields: Vec<Name>,
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
