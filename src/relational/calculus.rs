//! The Pico calculus as executable code (Pico §3, Figs. 1–3; `spec/relational.md` §1–§3):
//! vector expressions over a warp, memory access protocols and their cost semantics
//! `⟨p, B, σ⟩ ⇓_M i`, the sequential Resource Calculus and its semantics `⟨s, S⟩ ↓ i`, and the
//! metrics `M_E`, `ua`, `bc` with the corrections of the notes' Appendix A (truncated
//! subtraction, `bc` truncated at 0, `ua` on byte addresses with sectors of
//! `sector_bytes`).
//!
//! Extensions of the formal grammar (all in `spec/relational.md` §1): the thread index has
//! three components (`threadIdx.x/y/z`; Pico's `tid` is `threadIdx.x` with lanes `0..W`),
//! kernel parameters and unknown (data) values are atoms, operators `− / ≪ ≫ & | ^ min max`
//! and negation of conditions, loop ranges with additive, multiplicative and dividing steps,
//! and accesses carry their array's memory space and element size.

use crate::core::{Dim, Space};
use std::collections::BTreeMap;
use std::fmt;

/// Atoms of vector expressions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// `threadIdx.d` (Pico's `tid` is `Tid(X)`); type `D`.
    Tid(Dim),
    /// A kernel parameter or `blockIdx.d`/`gridDim.d`: warp-uniform, type `U`.
    Param(String),
    /// A bound variable (loop variable): typed by `Γ`.
    Var(String),
    /// An unknown thread-local value (array contents, floats, values merged after a
    /// branch): Pico's `$A1`; type `D`.
    Unknown(u32),
}

impl Atom {
    /// The atom's name in polynomials and printing.
    pub fn name(&self) -> String {
        match self {
            Atom::Tid(d) => format!("threadIdx.{}", d.letter()),
            Atom::Param(p) => p.clone(),
            Atom::Var(x) => x.clone(),
            Atom::Unknown(k) => format!("${k}"),
        }
    }
}

/// Numeric operators `⋆` (Fig. 1 has `+ × mod`; the rest are extensions). `Sub` is
/// subtraction on integers; `Monus` is Pico's truncated subtraction on ℕ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum NOp {
    Add,
    Sub,
    Monus,
    Mul,
    Div,
    Mod,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Min,
    Max,
}

impl NOp {
    fn symbol(self) -> &'static str {
        match self {
            NOp::Add => "+",
            NOp::Sub => "-",
            NOp::Monus => "∸",
            NOp::Mul => "*",
            NOp::Div => "/",
            NOp::Mod => "%",
            NOp::Shl => "<<",
            NOp::Shr => ">>",
            NOp::BitAnd => "&",
            NOp::BitOr => "|",
            NOp::BitXor => "^",
            NOp::Min => "min",
            NOp::Max => "max",
        }
    }
    /// Applies the operator; `None` on division by zero, bad shift or overflow.
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            NOp::Add => a.checked_add(b),
            NOp::Sub => a.checked_sub(b),
            NOp::Monus => Some((a - b).max(0)),
            NOp::Mul => a.checked_mul(b),
            NOp::Div => a.checked_div(b),
            NOp::Mod => a.checked_rem(b),
            NOp::Shl => (0..63)
                .contains(&b)
                .then(|| a.checked_shl(b as u32))
                .flatten(),
            NOp::Shr => (0..64).contains(&b).then(|| a >> b),
            NOp::BitAnd => Some(a & b),
            NOp::BitOr => Some(a | b),
            NOp::BitXor => Some(a ^ b),
            NOp::Min => Some(a.min(b)),
            NOp::Max => Some(a.max(b)),
        }
    }
}

/// Relational operators `◇`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[allow(missing_docs)]
pub enum COp {
    Le,
    Lt,
    Ge,
    Gt,
    Eq,
    Ne,
}

impl COp {
    fn symbol(self) -> &'static str {
        match self {
            COp::Le => "<=",
            COp::Lt => "<",
            COp::Ge => ">=",
            COp::Gt => ">",
            COp::Eq => "==",
            COp::Ne => "!=",
        }
    }
    /// Applies the comparison.
    pub fn apply(self, a: i64, b: i64) -> bool {
        match self {
            COp::Le => a <= b,
            COp::Lt => a < b,
            COp::Ge => a >= b,
            COp::Gt => a > b,
            COp::Eq => a == b,
            COp::Ne => a != b,
        }
    }
    /// The negated comparison.
    pub fn negate(self) -> COp {
        match self {
            COp::Le => COp::Gt,
            COp::Lt => COp::Ge,
            COp::Ge => COp::Lt,
            COp::Gt => COp::Le,
            COp::Eq => COp::Ne,
            COp::Ne => COp::Eq,
        }
    }
}

/// Numeric expressions `n ::= i | x | tid | n ⋆ n` (Fig. 1, with the atoms above).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NExpr {
    /// A literal.
    Lit(i64),
    /// An atom.
    Atom(Atom),
    /// `n ⋆ m`.
    Bin(NOp, Box<NExpr>, Box<NExpr>),
}

/// Boolean expressions `c ::= b | n ◇ n | c ∘ c` plus `¬c` (extension: Pico's front end
/// produces else-branches as negated conditions).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cond {
    /// A literal.
    Bool(bool),
    /// `n ◇ m`.
    Cmp(COp, NExpr, NExpr),
    /// `c ∧ d`.
    And(Box<Cond>, Box<Cond>),
    /// `c ∨ d`.
    Or(Box<Cond>, Box<Cond>),
    /// `¬c`.
    Not(Box<Cond>),
}

/// The step of a loop range (extension of Pico's `n..m`, which is `Add(1)`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// `x ← x + k`; the range `lo..hi` is nonempty iff `lo ≤ hi`.
    Add(NExpr),
    /// `x ← x · k`; nonempty iff `lo ≤ hi`.
    Mul(NExpr),
    /// `x ← x − k`; decreasing, nonempty iff `lo ≥ hi`.
    Sub(NExpr),
    /// `x ← x / k` (also `x ≫ log₂k`); decreasing, nonempty iff `lo ≥ hi`.
    Div(NExpr),
}

impl Step {
    /// Whether the range decreases.
    pub fn decreasing(&self) -> bool {
        matches!(self, Step::Sub(_) | Step::Div(_))
    }
}

/// An inclusive range `lo..hi` with a step (Fig. 1's `n..m` when the step is `Add(1)`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Range {
    /// First element.
    pub lo: NExpr,
    /// Last admissible element (inclusive).
    pub hi: NExpr,
    /// Step.
    pub step: Step,
}

/// Read or write (Pico's protocols do not distinguish; kept for reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// A read.
    Read,
    /// A write.
    Write,
}

/// One access `A[n]` with the array's memory space and element size.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// Array name.
    pub array: String,
    /// Element index (in elements, not bytes).
    pub index: NExpr,
    /// Global or shared.
    pub space: Space,
    /// Element size in bytes.
    pub elem_bytes: u32,
    /// Read or write.
    pub mode: Mode,
    /// Source line (0 if unknown).
    pub line: u32,
    /// Identifies the access for exactness accounting.
    pub id: u32,
}

/// Memory access protocols `p ::= skip | A[n] | p;p | if (c) {p} | for x ∈ r {p}` (Fig. 2).
#[derive(Clone, Debug, PartialEq)]
pub enum Proto {
    /// `skip`
    Skip,
    /// `A[n]`
    Acc(Access),
    /// `p₁; …; pₖ` (n-ary sequence, `skip` when empty).
    Seq(Vec<Proto>),
    /// `if (c) {p}`; the number identifies the conditional for exactness accounting.
    If(u32, Cond, Box<Proto>),
    /// `for x ∈ r {p}`; the number identifies the loop for exactness accounting.
    For(u32, String, Range, Box<Proto>),
}

/// Resource Calculus statements `s ::= tick(n) | s;s | if (c) {s} | for x ∈ r {s}` (Fig. 3).
#[derive(Clone, Debug, PartialEq)]
pub enum SStmt {
    /// `tick(n)`
    Tick(NExpr),
    /// `s₁; …; sₖ`
    Seq(Vec<SStmt>),
    /// `if (c) {s}`
    If(Cond, Box<SStmt>),
    /// `for x ∈ r {s}`
    For(String, Range, Box<SStmt>),
}

// ------------------------------------------------------------------------------------------
// Constructors

impl NExpr {
    /// `x` as a bound variable.
    pub fn var(x: &str) -> NExpr {
        NExpr::Atom(Atom::Var(x.to_string()))
    }
    /// Pico's `tid` (`threadIdx.x`).
    pub fn tid() -> NExpr {
        NExpr::Atom(Atom::Tid(Dim::X))
    }
    /// A parameter.
    pub fn param(p: &str) -> NExpr {
        NExpr::Atom(Atom::Param(p.to_string()))
    }
    /// `a ⋆ b` with constant folding.
    pub fn bin(op: NOp, a: NExpr, b: NExpr) -> NExpr {
        if let (NExpr::Lit(x), NExpr::Lit(y)) = (&a, &b) {
            if let Some(v) = op.apply(*x, *y) {
                return NExpr::Lit(v);
            }
        }
        NExpr::Bin(op, Box::new(a), Box::new(b))
    }
    /// Atoms occurring in the expression.
    pub fn atoms(&self, out: &mut Vec<Atom>) {
        match self {
            NExpr::Lit(_) => {}
            NExpr::Atom(a) => {
                if !out.contains(a) {
                    out.push(a.clone())
                }
            }
            NExpr::Bin(_, a, b) => {
                a.atoms(out);
                b.atoms(out);
            }
        }
    }
    /// Replaces atom `a` by `by` (folding constants).
    pub fn subst(&self, a: &Atom, by: &NExpr) -> NExpr {
        match self {
            NExpr::Atom(b) if b == a => by.clone(),
            NExpr::Bin(op, l, r) => NExpr::bin(*op, l.subst(a, by), r.subst(a, by)),
            e => e.clone(),
        }
    }
}

impl Cond {
    /// `¬c`, pushing the negation into comparisons and literals.
    pub fn negate(c: Cond) -> Cond {
        match c {
            Cond::Bool(b) => Cond::Bool(!b),
            Cond::Cmp(op, a, b) => Cond::Cmp(op.negate(), a, b),
            Cond::Not(c) => *c,
            c => Cond::Not(Box::new(c)),
        }
    }
    /// `a ∧ b` with literal simplification.
    pub fn and(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::Bool(true), c) | (c, Cond::Bool(true)) => c,
            (Cond::Bool(false), _) | (_, Cond::Bool(false)) => Cond::Bool(false),
            (a, b) => Cond::And(Box::new(a), Box::new(b)),
        }
    }
    /// `a ∨ b` with literal simplification.
    pub fn or(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::Bool(false), c) | (c, Cond::Bool(false)) => c,
            (Cond::Bool(true), _) | (_, Cond::Bool(true)) => Cond::Bool(true),
            (a, b) => Cond::Or(Box::new(a), Box::new(b)),
        }
    }
    /// A comparison, folded when both sides are literals.
    pub fn cmp(op: COp, a: NExpr, b: NExpr) -> Cond {
        if let (NExpr::Lit(x), NExpr::Lit(y)) = (&a, &b) {
            return Cond::Bool(op.apply(*x, *y));
        }
        Cond::Cmp(op, a, b)
    }
    /// Atoms occurring in the condition.
    pub fn atoms(&self, out: &mut Vec<Atom>) {
        match self {
            Cond::Bool(_) => {}
            Cond::Cmp(_, a, b) => {
                a.atoms(out);
                b.atoms(out);
            }
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.atoms(out);
                b.atoms(out);
            }
            Cond::Not(c) => c.atoms(out),
        }
    }
    /// Replaces atom `a` by `by`, folding literal comparisons.
    pub fn subst(&self, a: &Atom, by: &NExpr) -> Cond {
        match self {
            Cond::Bool(b) => Cond::Bool(*b),
            Cond::Cmp(op, l, r) => Cond::cmp(*op, l.subst(a, by), r.subst(a, by)),
            Cond::And(l, r) => Cond::and(l.subst(a, by), r.subst(a, by)),
            Cond::Or(l, r) => Cond::or(l.subst(a, by), r.subst(a, by)),
            Cond::Not(c) => Cond::negate(c.subst(a, by)),
        }
    }
    /// Number of comparisons and boolean connectives (Pico §7.2 counts each binary boolean
    /// sub-expression of a condition separately).
    pub fn size(&self) -> usize {
        match self {
            Cond::Bool(_) => 1,
            Cond::Cmp(..) => 1,
            Cond::And(a, b) | Cond::Or(a, b) => a.size() + b.size(),
            Cond::Not(c) => c.size(),
        }
    }
}

impl Range {
    /// `n..m` with step 1 (Pico's ranges).
    pub fn upto(lo: NExpr, hi: NExpr) -> Range {
        Range {
            lo,
            hi,
            step: Step::Add(NExpr::Lit(1)),
        }
    }
    /// The nonemptiness test `lo ≤ hi` (or `lo ≥ hi` for decreasing steps).
    pub fn nonempty(&self) -> Cond {
        let op = if self.step.decreasing() {
            COp::Ge
        } else {
            COp::Le
        };
        Cond::Cmp(op, self.lo.clone(), self.hi.clone())
    }
    /// The continuation range `1 + r` (generalized: `lo` advanced by one step).
    pub fn next(&self) -> Range {
        let lo = match &self.step {
            Step::Add(k) => NExpr::bin(NOp::Add, self.lo.clone(), k.clone()),
            Step::Mul(k) => NExpr::bin(NOp::Mul, self.lo.clone(), k.clone()),
            Step::Sub(k) => NExpr::bin(NOp::Sub, self.lo.clone(), k.clone()),
            Step::Div(k) => NExpr::bin(NOp::Div, self.lo.clone(), k.clone()),
        };
        Range {
            lo,
            hi: self.hi.clone(),
            step: self.step.clone(),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Printing

impl fmt::Display for NExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NExpr::Lit(i) => write!(f, "{i}"),
            NExpr::Atom(a) => f.write_str(&a.name()),
            NExpr::Bin(op @ (NOp::Min | NOp::Max), a, b) => {
                write!(f, "{}({a}, {b})", op.symbol())
            }
            NExpr::Bin(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Bool(b) => write!(f, "{}", if *b { "t" } else { "f" }),
            Cond::Cmp(op, a, b) => write!(f, "{a} {} {b}", op.symbol()),
            Cond::And(a, b) => write!(f, "({a} ∧ {b})"),
            Cond::Or(a, b) => write!(f, "({a} ∨ {b})"),
            Cond::Not(c) => write!(f, "¬({c})"),
        }
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.lo, self.hi)?;
        match &self.step {
            Step::Add(NExpr::Lit(1)) => Ok(()),
            Step::Add(k) => write!(f, " step +{k}"),
            Step::Mul(k) => write!(f, " step *{k}"),
            Step::Sub(k) => write!(f, " step -{k}"),
            Step::Div(k) => write!(f, " step /{k}"),
        }
    }
}

impl Proto {
    fn fmt_at(&self, f: &mut fmt::Formatter<'_>, ind: usize) -> fmt::Result {
        let pad = "  ".repeat(ind);
        match self {
            Proto::Skip => writeln!(f, "{pad}skip"),
            Proto::Acc(a) => writeln!(f, "{pad}{}[{}]", a.array, a.index),
            Proto::Seq(ps) => {
                if ps.is_empty() {
                    writeln!(f, "{pad}skip")?;
                }
                ps.iter().try_for_each(|p| p.fmt_at(f, ind))
            }
            Proto::If(_, c, p) => {
                writeln!(f, "{pad}if ({c}) {{")?;
                p.fmt_at(f, ind + 1)?;
                writeln!(f, "{pad}}}")
            }
            Proto::For(_, x, r, p) => {
                writeln!(f, "{pad}for {x} ∈ {r} {{")?;
                p.fmt_at(f, ind + 1)?;
                writeln!(f, "{pad}}}")
            }
        }
    }
}

impl fmt::Display for Proto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_at(f, 0)
    }
}

impl SStmt {
    fn fmt_at(&self, f: &mut fmt::Formatter<'_>, ind: usize) -> fmt::Result {
        let pad = "  ".repeat(ind);
        match self {
            SStmt::Tick(n) => writeln!(f, "{pad}tick({n})"),
            SStmt::Seq(ss) => {
                if ss.is_empty() {
                    writeln!(f, "{pad}tick(0)")?;
                }
                ss.iter().try_for_each(|s| s.fmt_at(f, ind))
            }
            SStmt::If(c, s) => {
                writeln!(f, "{pad}if ({c}) {{")?;
                s.fmt_at(f, ind + 1)?;
                writeln!(f, "{pad}}}")
            }
            SStmt::For(x, r, s) => {
                writeln!(f, "{pad}for {x} ∈ {r} {{")?;
                s.fmt_at(f, ind + 1)?;
                writeln!(f, "{pad}}}")
            }
        }
    }
}

impl fmt::Display for SStmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_at(f, 0)
    }
}

// ------------------------------------------------------------------------------------------
// Vector semantics ⟨n, σ⟩ ⇓ I (Fig. 1)

/// A warp: the thread index of each lane (Pico's `I_ℕ` is lanes `(0,0,0) … (W−1,0,0)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lanes {
    /// `threadIdx` of each lane.
    pub tid: Vec<[i64; 3]>,
}

impl Lanes {
    /// Pico's warp of `w` threads: `tid = I_ℕ = (0, …, W − 1)`.
    pub fn pico(w: usize) -> Lanes {
        Lanes {
            tid: (0..w as i64).map(|l| [l, 0, 0]).collect(),
        }
    }
    /// Number of lanes `W`.
    pub fn len(&self) -> usize {
        self.tid.len()
    }
    /// Whether the warp has no lanes.
    pub fn is_empty(&self) -> bool {
        self.tid.is_empty()
    }
}

/// The vector environment `σ` (variables and unknowns ↦ `ℕ^W`, here `ℤ^W`) and the uniform
/// parameter values.
#[derive(Clone, Debug, Default)]
pub struct VEnv {
    /// Bound variables and unknowns by atom name.
    pub vars: BTreeMap<String, Vec<i64>>,
    /// Parameter values (uniform).
    pub params: BTreeMap<String, i64>,
}

/// Evaluation errors: an atom without a value, or an arithmetic error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The atom has no value in the environment.
    #[error("no value for `{0}`")]
    Unbound(String),
    /// Division by zero, bad shift or overflow.
    #[error("arithmetic error in `{0}`")]
    Arith(String),
    /// A loop ran out of fuel.
    #[error("loop did not terminate within the fuel")]
    Fuel,
}

/// `⟨n, σ⟩ ⇓ I`: the value of `n` in every lane.
pub fn eval_n(n: &NExpr, lanes: &Lanes, env: &VEnv) -> Result<Vec<i64>, EvalError> {
    let w = lanes.len();
    match n {
        NExpr::Lit(i) => Ok(vec![*i; w]),
        NExpr::Atom(Atom::Tid(d)) => Ok(lanes.tid.iter().map(|t| t[d.index()]).collect()),
        NExpr::Atom(Atom::Param(p)) => env
            .params
            .get(p)
            .map(|v| vec![*v; w])
            .ok_or_else(|| EvalError::Unbound(p.clone())),
        NExpr::Atom(a) => env
            .vars
            .get(&a.name())
            .cloned()
            .ok_or_else(|| EvalError::Unbound(a.name())),
        NExpr::Bin(op, a, b) => {
            let x = eval_n(a, lanes, env)?;
            let y = eval_n(b, lanes, env)?;
            x.iter()
                .zip(&y)
                .map(|(u, v)| {
                    op.apply(*u, *v)
                        .ok_or_else(|| EvalError::Arith(n.to_string()))
                })
                .collect()
        }
    }
}

/// `⟨c, σ⟩ ⇓ C`.
pub fn eval_c(c: &Cond, lanes: &Lanes, env: &VEnv) -> Result<Vec<bool>, EvalError> {
    let w = lanes.len();
    Ok(match c {
        Cond::Bool(b) => vec![*b; w],
        Cond::Cmp(op, a, b) => {
            let x = eval_n(a, lanes, env)?;
            let y = eval_n(b, lanes, env)?;
            x.iter().zip(&y).map(|(u, v)| op.apply(*u, *v)).collect()
        }
        Cond::And(a, b) => {
            let x = eval_c(a, lanes, env)?;
            let y = eval_c(b, lanes, env)?;
            x.iter().zip(&y).map(|(u, v)| *u && *v).collect()
        }
        Cond::Or(a, b) => {
            let x = eval_c(a, lanes, env)?;
            let y = eval_c(b, lanes, env)?;
            x.iter().zip(&y).map(|(u, v)| *u || *v).collect()
        }
        Cond::Not(a) => eval_c(a, lanes, env)?.iter().map(|u| !u).collect(),
    })
}

/// `⟨r, σ⟩ ⇓ (I, C)`: first element and per-lane nonemptiness.
pub fn eval_r(r: &Range, lanes: &Lanes, env: &VEnv) -> Result<(Vec<i64>, Vec<bool>), EvalError> {
    Ok((
        eval_n(&r.lo, lanes, env)?,
        eval_c(&r.nonempty(), lanes, env)?,
    ))
}

// ------------------------------------------------------------------------------------------
// Metrics

/// Which cost a protocol is measured in (Pico §6.4, Example 3.1), with the hardware
/// parameters that the formulas need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PicoMetric {
    /// `M_E(I, B) = count(B, t)`: active threads, every access.
    ActiveThreads,
    /// `ua(B, I)`: distinct sectors of `sector_bytes` bytes touched by the active lanes of a
    /// **global** access (byte address `I(j)·elem_bytes`); shared accesses cost 0.
    /// = warpcert's `sectors` per access (`MemReads`).
    Ua {
        /// Sector (transaction) size in bytes (32).
        sector_bytes: u32,
    },
    /// `bc(B, I)`: largest number of distinct indices in one bank, minus one, truncated at 0,
    /// of a **shared** access; global accesses cost 0. = warpcert's `conflicts` per access
    /// (`Conflicts(R) − 1`).
    Bc {
        /// Number of banks (32).
        banks: u32,
        /// Bank width in bytes (4).
        bank_bytes: u32,
    },
}

/// `count(B, t)`.
pub fn m_e(mask: &[bool]) -> u64 {
    mask.iter().filter(|b| **b).count() as u64
}

/// `ua(B, I) = |{ ⌊I(j)·elem_bytes / sector_bytes⌋ | B(j) }|`.
pub fn ua(mask: &[bool], idx: &[i64], elem_bytes: u32, sector_bytes: u32) -> u64 {
    let s: std::collections::BTreeSet<i64> = mask
        .iter()
        .zip(idx)
        .filter(|(b, _)| **b)
        .map(|(_, i)| (i * elem_bytes as i64).div_euclid(sector_bytes as i64))
        .collect();
    s.len() as u64
}

/// `bc(B, I) = max_k |bank(k, I, B)| ∸ 1` with `bank(k, I, B)` the distinct active indices
/// whose word `⌊I(j)·elem_bytes / bank_bytes⌋` lies in bank `k` (`mod banks`).
pub fn bc(mask: &[bool], idx: &[i64], elem_bytes: u32, banks: u32, bank_bytes: u32) -> u64 {
    let mut per: BTreeMap<i64, std::collections::BTreeSet<i64>> = BTreeMap::new();
    for (b, i) in mask.iter().zip(idx) {
        if *b {
            let bank = (i * elem_bytes as i64)
                .div_euclid(bank_bytes as i64)
                .rem_euclid(banks as i64);
            per.entry(bank).or_default().insert(*i);
        }
    }
    per.values()
        .map(|s| s.len() as u64)
        .max()
        .unwrap_or(0)
        .saturating_sub(1)
}

impl PicoMetric {
    /// `M(I, B)` for an access to an array in `space` with elements of `elem_bytes` bytes.
    pub fn cost(self, space: Space, elem_bytes: u32, idx: &[i64], mask: &[bool]) -> u64 {
        match (self, space) {
            (PicoMetric::ActiveThreads, _) => m_e(mask),
            (PicoMetric::Ua { sector_bytes }, Space::Global) => {
                ua(mask, idx, elem_bytes, sector_bytes)
            }
            (PicoMetric::Bc { banks, bank_bytes }, Space::Shared) => {
                bc(mask, idx, elem_bytes, banks, bank_bytes)
            }
            _ => 0,
        }
    }
    /// Whether accesses to `space` can cost anything.
    pub fn counts(self, space: Space) -> bool {
        match self {
            PicoMetric::ActiveThreads => true,
            PicoMetric::Ua { .. } => space == Space::Global,
            PicoMetric::Bc { .. } => space == Space::Shared,
        }
    }
}

// ------------------------------------------------------------------------------------------
// Protocol semantics ⟨p, B, σ⟩ ⇓_M i (Fig. 2, with the reconstructed IF-T)

/// `⟨p, B, σ⟩ ⇓_M i`. Rules SKIP, ACC, SEQ, IF-T (body under `B ∧ C`), IF-F (`C = f^W`),
/// FOR-1 (range empty in every lane), FOR-2 (body under `B ∧ C` with `x ↦ I`, continuation
/// `1 + r` under the outer `B`). `fuel` bounds the total number of loop iterations.
pub fn eval_proto(
    p: &Proto,
    mask: &[bool],
    lanes: &Lanes,
    env: &mut VEnv,
    m: PicoMetric,
    fuel: &mut u64,
) -> Result<u64, EvalError> {
    match p {
        Proto::Skip => Ok(0),
        Proto::Acc(a) => {
            let idx = eval_n(&a.index, lanes, env)?;
            Ok(m.cost(a.space, a.elem_bytes, &idx, mask))
        }
        Proto::Seq(ps) => {
            let mut s = 0;
            for q in ps {
                s += eval_proto(q, mask, lanes, env, m, fuel)?;
            }
            Ok(s)
        }
        Proto::If(_, c, q) => {
            let cv = eval_c(c, lanes, env)?;
            if cv.iter().all(|b| !b) {
                return Ok(0);
            }
            let inner: Vec<bool> = mask.iter().zip(&cv).map(|(a, b)| *a && *b).collect();
            eval_proto(q, &inner, lanes, env, m, fuel)
        }
        Proto::For(_, x, r, q) => {
            let mut r = r.clone();
            let mut total = 0;
            let saved = env.vars.get(x).cloned();
            loop {
                let (first, ne) = eval_r(&r, lanes, env)?;
                if ne.iter().all(|b| !b) {
                    break;
                }
                if *fuel == 0 {
                    return Err(EvalError::Fuel);
                }
                *fuel -= 1;
                let inner: Vec<bool> = mask.iter().zip(&ne).map(|(a, b)| *a && *b).collect();
                env.vars.insert(x.clone(), first);
                total += eval_proto(q, &inner, lanes, env, m, fuel)?;
                // `1 + r` is evaluated in the outer environment (x is not free in r).
                match &saved {
                    Some(v) => env.vars.insert(x.clone(), v.clone()),
                    None => env.vars.remove(x),
                };
                r = r.next();
            }
            Ok(total)
        }
    }
}

// ------------------------------------------------------------------------------------------
// Scalar semantics ⟨s, S⟩ ↓ i (Fig. 3): the W = 1 instance of the vector semantics

/// `⟨n, S⟩ ↓ i` (no `tid`; errors on it).
pub fn eval_sn(n: &NExpr, env: &BTreeMap<String, i64>) -> Result<i64, EvalError> {
    match n {
        NExpr::Lit(i) => Ok(*i),
        NExpr::Atom(a) => env
            .get(&a.name())
            .copied()
            .ok_or_else(|| EvalError::Unbound(a.name())),
        NExpr::Bin(op, a, b) => op
            .apply(eval_sn(a, env)?, eval_sn(b, env)?)
            .ok_or_else(|| EvalError::Arith(n.to_string())),
    }
}

/// `⟨c, S⟩ ↓ b`.
pub fn eval_sc(c: &Cond, env: &BTreeMap<String, i64>) -> Result<bool, EvalError> {
    Ok(match c {
        Cond::Bool(b) => *b,
        Cond::Cmp(op, a, b) => op.apply(eval_sn(a, env)?, eval_sn(b, env)?),
        Cond::And(a, b) => eval_sc(a, env)? && eval_sc(b, env)?,
        Cond::Or(a, b) => eval_sc(a, env)? || eval_sc(b, env)?,
        Cond::Not(a) => !eval_sc(a, env)?,
    })
}

/// `⟨s, S⟩ ↓ i`: rules TICK, SEQ, IF-T, IF-F, FOR-SKIP, FOR-ITER (recursing on `1 + r`).
/// A negative tick is an arithmetic error (costs are natural numbers).
pub fn eval_stmt(
    s: &SStmt,
    env: &mut BTreeMap<String, i64>,
    fuel: &mut u64,
) -> Result<i64, EvalError> {
    match s {
        SStmt::Tick(n) => {
            let v = eval_sn(n, env)?;
            if v < 0 {
                return Err(EvalError::Arith(format!("tick({n}) = {v} < 0")));
            }
            Ok(v)
        }
        SStmt::Seq(ss) => {
            let mut t = 0;
            for x in ss {
                t += eval_stmt(x, env, fuel)?;
            }
            Ok(t)
        }
        SStmt::If(c, b) => {
            if eval_sc(c, env)? {
                eval_stmt(b, env, fuel)
            } else {
                Ok(0)
            }
        }
        SStmt::For(x, r, b) => {
            let mut r = r.clone();
            let mut t = 0;
            let saved = env.get(x).copied();
            loop {
                if !eval_sc(&r.nonempty(), env)? {
                    break;
                }
                if *fuel == 0 {
                    return Err(EvalError::Fuel);
                }
                *fuel -= 1;
                let first = eval_sn(&r.lo, env)?;
                env.insert(x.clone(), first);
                t += eval_stmt(b, env, fuel)?;
                match saved {
                    Some(v) => env.insert(x.clone(), v),
                    None => env.remove(x),
                };
                r = r.next();
            }
            Ok(t)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc0() -> Proto {
        Proto::Acc(Access {
            array: "A".into(),
            index: NExpr::Lit(0),
            space: Space::Global,
            elem_bytes: 4,
            mode: Mode::Read,
            line: 0,
            id: 0,
        })
    }

    /// Eq. (4): `⟨2 × tid, ∅⟩ ⇓ (0, 2, 4, 6)` at W = 4; `(1,1,1,1) ≤ (0,1,2,3) = fttt`.
    #[test]
    fn eq4_and_comparison() {
        let l = Lanes::pico(4);
        let e = NExpr::bin(NOp::Mul, NExpr::Lit(2), NExpr::tid());
        assert_eq!(eval_n(&e, &l, &VEnv::default()).unwrap(), vec![0, 2, 4, 6]);
        let c = Cond::Cmp(COp::Le, NExpr::Lit(1), NExpr::tid());
        assert_eq!(
            eval_c(&c, &l, &VEnv::default()).unwrap(),
            vec![false, true, true, true]
        );
    }

    /// Example 3.1: `for x ∈ 0..tid {A[0]}` costs 4 + 3 + 2 + 1 = 10 under `M_E` at W = 4,
    /// and (W² + W)/2 = 528 at W = 32 (Example 2.1).
    #[test]
    fn example_3_1() {
        let p = Proto::For(
            0,
            "x".into(),
            Range::upto(NExpr::Lit(0), NExpr::tid()),
            Box::new(acc0()),
        );
        for (w, expect) in [(4usize, 10u64), (32, 528)] {
            let l = Lanes::pico(w);
            let mut fuel = 10_000;
            let c = eval_proto(
                &p,
                &vec![true; w],
                &l,
                &mut VEnv::default(),
                PicoMetric::ActiveThreads,
                &mut fuel,
            )
            .unwrap();
            assert_eq!(c, expect);
        }
    }

    /// Example 3.2: `for x ∈ 0..(4−1) {tick(4−x)}` ↓ 10.
    #[test]
    fn example_3_2() {
        let s = SStmt::For(
            "x".into(),
            Range::upto(NExpr::Lit(0), NExpr::Lit(3)),
            Box::new(SStmt::Tick(NExpr::bin(
                NOp::Monus,
                NExpr::Lit(4),
                NExpr::var("x"),
            ))),
        );
        assert_eq!(eval_stmt(&s, &mut BTreeMap::new(), &mut 100).unwrap(), 10);
    }

    /// `ua` and `bc` agree with warpcert's hardware functions `MemReads` and
    /// `Conflicts − 1` on full masks (hand-checked strides).
    #[test]
    fn metrics_agree_with_hardware() {
        use crate::core::hardware::{conflicts, mem_reads};
        let hw = crate::core::Hardware::default();
        for stride in [0i64, 1, 2, 3, 8, 32] {
            let idx: Vec<i64> = (0..32).map(|l| 7 + stride * l).collect();
            let all = vec![true; 32];
            assert_eq!(ua(&all, &idx, 4, 32), mem_reads(&idx, 4, &hw));
            assert_eq!(bc(&all, &idx, 4, 32, 4), conflicts(&idx, 4, &hw) - 1);
        }
        // A broadcast is one transaction and no conflict (Pico §7.1, tag C).
        assert_eq!(ua(&[true; 32], &[5; 32], 4, 32), 1);
        assert_eq!(bc(&[true; 32], &[5; 32], 4, 32, 4), 0);
        // All lanes disabled: 0 (truncated subtraction, Appendix A).
        assert_eq!(bc(&[false; 4], &[0, 1, 2, 3], 4, 32, 4), 0);
    }
}
