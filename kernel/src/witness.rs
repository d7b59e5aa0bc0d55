//! Replay of witnesses (spec/relational.md §8): a concrete launch, parameter values and
//! array contents (version 1: the all-zero input; version 2: stated contents), under which
//! one warp of the miniCUDA program in the witness costs the stated amount. The kernel
//! re-executes that warp with its own small lock-step interpreter (RaCUDA Fig. 5 restricted
//! to what the metrics `sectors` and `conflicts` charge: array reads and writes) and accepts
//! iff the cost is exactly the stated one. A version-2 witness may also state a claimed
//! bound (`(claim upper|lower CLAIM)`, issue 19): then it is accepted only if the replayed
//! cost is above (upper) or below (lower) the claim evaluated at the witness's parameters —
//! a checked counterexample to the claim.
//!
//! Trust: the interpreter below and spec/relational.md §8; nothing of warpcert's semantics is
//! used. Floats are exact rationals here (no float arithmetic in the kernel); a witness whose
//! cost depends on float rounding may be rejected, never wrongly accepted for another cost.

use crate::arith::{rat, Rat};
use crate::metric;
use crate::sexp::{parse_all, Sexp};
use crate::syntax::{self, Expr, Opd, Program, Space, Stmt, Ty};
use crate::Rejection;
use num_traits::{ToPrimitive, Zero};
use std::collections::{BTreeMap, BTreeSet};

/// Maximal number of statement executions per replay.
pub const REPLAY_FUEL: u64 = 20_000_000;

/// An accepted witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WitnessVerdict {
    /// Metric name.
    pub metric: String,
    /// The replayed (and stated) cost of the warp.
    pub cost: Rat,
    /// The refuted claim, when the witness states one: its relation and its value at the
    /// witness's parameters (the cost is above it for `Upper`, below it for `Lower`).
    pub refutes: Option<(ClaimRelation, Rat)>,
}

/// Which side of the cost a claimed bound is on (`(claim upper|lower …)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimRelation {
    /// The claim says every warp costs at most the bound: refuted by a cost above it.
    Upper,
    /// The claim says some warp costs at least the bound: refuted by a cost below it.
    Lower,
}

#[derive(Clone, Debug, PartialEq)]
enum V {
    I(i64),
    B(bool),
    F(Rat),
}

struct Machine<'a> {
    prog: &'a Program,
    m: metric::Metric,
    hw: [u32; 4],
    params: BTreeMap<String, V>,
    tids: Vec<[i64; 3]>,
    locals: BTreeMap<String, Vec<V>>,
    mem: BTreeMap<(String, i64), V>,
    fills: BTreeMap<String, V>,
    cost: Rat,
    fuel: u64,
}

/// Why a witness is rejected ([`check_witness`]). Every variant names the offending part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WitnessError {
    /// Malformed text or an ill-formed or ill-typed program: the certificate reader's
    /// rejection (same grammar, spec/certificate.md "Program"; typing spec/minicuda.md §2).
    Read(Rejection),
    /// Line 1 is not `warpcert-witness 1` or `warpcert-witness 2`.
    Header,
    /// A section only version 2 has (`arrays`, `claim`) in a version-1 witness.
    Version2Section(&'static str),
    /// Array contents for a name that is not an array of the program, or given twice.
    NotAnArray(String),
    /// A cell value that does not have the array's element type.
    CellType(String),
    /// The claim cannot be evaluated at the witness's parameters (a name without a value,
    /// a division by zero), or is malformed.
    ClaimEval(String),
    /// The replayed cost does not refute the claim.
    NotRefuted {
        /// The claim's relation.
        relation: ClaimRelation,
        /// The replayed cost.
        cost: Rat,
        /// The claim's value at the witness's parameters.
        claimed: Rat,
    },
    /// A section is absent or repeated.
    Section(&'static str),
    /// A section's content does not have the required shape.
    Malformed {
        /// The section.
        section: &'static str,
        /// The shape it needs.
        expected: &'static str,
    },
    /// A metric other than `sectors` and `conflicts`.
    Metric(String),
    /// A zero hardware parameter, launch or grid dimension, or a block index outside the grid.
    Launch,
    /// A value for a name that is not a parameter of the program.
    NotAParameter(String),
    /// A parameter value outside the 64-bit range.
    ParameterRange(String),
    /// The warp index is outside the block.
    WarpOutside(u32),
    /// The replay stopped with a run-time error.
    Run(RunError),
    /// The replayed cost differs from the stated one.
    CostDiffers {
        /// The replayed cost.
        replayed: Rat,
        /// The stated cost.
        stated: Rat,
    },
}

/// A run-time error of the replay (the semantics errs there; the witness shows nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// A local or parameter without a value.
    NoValue(String),
    /// An integer literal outside `i64`.
    LiteralRange(String),
    /// A float literal not of the form `[-]digits[.digits][e[-]digits]` (exponent ≤ 4000).
    BadFloat(String),
    /// An integer operation whose result leaves `i64` (or a shift amount outside `0..64`).
    Overflow(String),
    /// Division or remainder by zero.
    DivisionByZero(String),
    /// An operator on operands of types it does not take.
    OperandTypes(String),
    /// An array not declared.
    UndeclaredArray(String),
    /// An array index that is not an `int`.
    IndexNotInt,
    /// A condition that is not a `bool`.
    ConditionNotBool,
    /// A warp shuffle or vote: the replay interpreter does not run them (the witness is
    /// rejected, never accepted for another cost).
    WarpOp,
    /// Two lanes write different values to one cell in one step.
    WriteRace {
        /// The array.
        array: String,
        /// The cell.
        index: i64,
    },
    /// More than [`REPLAY_FUEL`] statement executions.
    OutOfFuel,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::NoValue(x) => write!(f, "no value for `{x}`"),
            RunError::LiteralRange(n) => write!(f, "integer literal {n} is out of range"),
            RunError::BadFloat(x) => write!(f, "bad float literal `{x}`"),
            RunError::Overflow(op) => write!(f, "`{op}` overflows"),
            RunError::DivisionByZero(op) => write!(f, "`{op}` by zero"),
            RunError::OperandTypes(op) => write!(f, "operator `{op}` on operands of the wrong types"),
            RunError::UndeclaredArray(a) => write!(f, "undeclared array `{a}`"),
            RunError::IndexNotInt => write!(f, "an array index is not an int"),
            RunError::ConditionNotBool => write!(f, "a condition is not a bool"),
            RunError::WriteRace { array, index } => write!(f, "write-write race on {array}[{index}]"),
            RunError::WarpOp => write!(f, "warp shuffles and votes are not replayed"),
            RunError::OutOfFuel => write!(f, "more than {REPLAY_FUEL} statement executions"),
        }
    }
}

impl std::fmt::Display for WitnessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WitnessError::Read(r) => write!(f, "{r}"),
            WitnessError::Header => write!(f, "expected the header `warpcert-witness 1` or `warpcert-witness 2`"),
            WitnessError::Version2Section(h) => write!(f, "section `{h}` needs `warpcert-witness 2`"),
            WitnessError::NotAnArray(a) => {
                write!(f, "`{a}` is not an array of the program, or its contents are given twice")
            }
            WitnessError::CellType(a) => write!(f, "a cell of `{a}` does not have the array's element type"),
            WitnessError::ClaimEval(why) => write!(f, "the claim cannot be evaluated: {why}"),
            WitnessError::NotRefuted { relation, cost, claimed } => {
                let (word, op) = match relation {
                    ClaimRelation::Upper => ("upper", "<="),
                    ClaimRelation::Lower => ("lower", ">="),
                };
                write!(f, "the replayed cost {cost} {op} the claimed {word} bound {claimed}: the claim is not refuted")
            }
            WitnessError::Section(h) => write!(f, "expected exactly one `({h} …)` section"),
            WitnessError::Malformed { section, expected } => write!(f, "section `{section}`: expected {expected}"),
            WitnessError::Metric(m) => write!(f, "metric `{m}`: witnesses are for sectors and conflicts"),
            WitnessError::Launch => write!(f, "a zero hardware parameter or dimension, or a block outside the grid"),
            WitnessError::NotAParameter(n) => write!(f, "`{n}` is not a parameter of the program"),
            WitnessError::ParameterRange(n) => write!(f, "the value of `{n}` is out of range"),
            WitnessError::WarpOutside(w) => write!(f, "warp {w} is outside the block"),
            WitnessError::Run(e) => write!(f, "replay failed: {e}"),
            WitnessError::CostDiffers { replayed, stated } => {
                write!(f, "replayed cost {replayed} differs from the stated cost {stated}")
            }
        }
    }
}

impl std::error::Error for WitnessError {}

/// Largest decimal exponent of a float literal the replay evaluates exactly.
const MAX_FLOAT_EXP: i64 = 4000;

fn parse_float(s: &str) -> Result<Rat, RunError> {
    let bad = || RunError::BadFloat(s.to_string());
    // `[-]digits[.digits][e[-]digits]`
    let (mant, exp) = match s.split_once(['e', 'E']) {
        Some((m, x)) => (m, x.parse::<i64>().map_err(|_| bad())?),
        None => (s, 0),
    };
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant),
    };
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let digits = format!("{ip}{fp}");
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: num_bigint::BigInt = if digits.is_empty() { 0.into() } else { digits.parse().map_err(|_| bad())? };
    let scale = i64::try_from(fp.len()).ok().and_then(|l| exp.checked_sub(l)).ok_or_else(bad)?;
    if scale.abs() > MAX_FLOAT_EXP {
        return Err(bad());
    }
    let p = num_bigint::BigInt::from(10).pow(u32::try_from(scale.unsigned_abs()).map_err(|_| bad())?);
    let v = if scale >= 0 { Rat::from_integer(n * p) } else { Rat::new(n, p) };
    Ok(if neg { -v } else { v })
}

impl Machine<'_> {
    fn opd(&self, o: &Opd, lane: usize) -> Result<V, RunError> {
        Ok(match o {
            Opd::Var(x) => match self.locals.get(x).and_then(|v| v.get(lane)) {
                Some(v) => v.clone(),
                None => return Err(RunError::NoValue(x.clone())),
            },
            Opd::Param(p) => match self.params.get(p) {
                Some(v) => v.clone(),
                None => return Err(RunError::NoValue(p.clone())),
            },
            Opd::Tid(d) => V::I(self.tids.get(lane).and_then(|t| t.get(*d)).copied().unwrap_or(0)),
            Opd::Int(n) => V::I(n.to_i64().ok_or_else(|| RunError::LiteralRange(n.to_string()))?),
            Opd::Bool(b) => V::B(*b),
            Opd::Float(s) => V::F(parse_float(s)?),
        })
    }

    fn bin(op: &str, a: V, b: V) -> Result<V, RunError> {
        use V::*;
        let over = || RunError::Overflow(op.to_string());
        let div = |y: i64| if y == 0 { RunError::DivisionByZero(op.to_string()) } else { over() };
        let types = || Err(RunError::OperandTypes(op.to_string()));
        Ok(match (a, b) {
            (I(x), I(y)) => match op {
                "+" => I(x.checked_add(y).ok_or_else(over)?),
                "-" => I(x.checked_sub(y).ok_or_else(over)?),
                "*" => I(x.checked_mul(y).ok_or_else(over)?),
                "/" => I(x.checked_div(y).ok_or_else(|| div(y))?),
                "%" => I(x.checked_rem(y).ok_or_else(|| div(y))?),
                "<<" if (0..64).contains(&y) => I(i64::try_from(i128::from(x) << y).map_err(|_| over())?),
                ">>" if (0..64).contains(&y) => I(x >> y),
                "<<" | ">>" => return Err(over()),
                "&" => I(x & y),
                "|" => I(x | y),
                "^" => I(x ^ y),
                "<" => B(x < y),
                "<=" => B(x <= y),
                ">" => B(x > y),
                ">=" => B(x >= y),
                "==" => B(x == y),
                "!=" => B(x != y),
                "min" => I(x.min(y)),
                "max" => I(x.max(y)),
                _ => return types(),
            },
            (F(x), F(y)) => match op {
                "+" => F(x + y),
                "-" => F(x - y),
                "*" => F(x * y),
                "/" if !y.is_zero() => F(x / y),
                "<" => B(x < y),
                "<=" => B(x <= y),
                ">" => B(x > y),
                ">=" => B(x >= y),
                "==" => B(x == y),
                "!=" => B(x != y),
                "min" => F(if x <= y { x } else { y }),
                "max" => F(if x >= y { x } else { y }),
                _ => return types(),
            },
            (B(x), B(y)) => match op {
                "&&" | "&" | "min" => B(x && y),
                "||" | "|" | "max" => B(x || y),
                "^" | "!=" => B(x != y),
                "==" => B(x == y),
                "<" => B(!x & y),
                "<=" => B(x <= y),
                ">" => B(x & !y),
                ">=" => B(x >= y),
                _ => return types(),
            },
            _ => return types(),
        })
    }

    fn un(op: &str, a: V) -> Result<V, RunError> {
        use V::*;
        Ok(match (op, a) {
            ("neg", I(x)) => I(x.checked_neg().ok_or_else(|| RunError::Overflow(op.to_string()))?),
            ("neg", F(x)) => F(-x),
            ("not", B(x)) => B(!x),
            ("bitnot", I(x)) => I(!x),
            ("popc", I(x)) => I(i64::from(x.count_ones())),
            ("ffs", I(x)) => I(if x == 0 { 0 } else { i64::from(x.trailing_zeros()) + 1 }),
            ("tofloat", I(x)) => F(rat(x)),
            ("tofloat", F(x)) => F(x),
            ("tofloat", B(x)) => F(rat(i64::from(x))),
            ("toint", I(x)) => I(x),
            ("toint", F(x)) => I(x.trunc().to_integer().to_i64().ok_or_else(|| RunError::Overflow(op.to_string()))?),
            ("toint", B(x)) => I(i64::from(x)),
            ("tobool", I(x)) => B(x != 0),
            ("tobool", F(x)) => B(!x.is_zero()),
            ("tobool", B(x)) => B(x),
            (op, _) => return Err(RunError::OperandTypes(op.to_string())),
        })
    }

    fn array(&self, a: &str) -> Result<(Space, u32, Ty), RunError> {
        match self.prog.array(a) {
            Some(d) => Ok((d.space, d.bytes, d.ty)),
            None => Err(RunError::UndeclaredArray(a.to_string())),
        }
    }

    /// Charges an access to `a` at the active lanes' indices.
    fn charge(&mut self, a: &str, idx: &[i64], write: bool) -> Result<(), RunError> {
        let (space, eb, _) = self.array(a)?;
        let [_, banks, bank_bytes, sector_bytes] = self.hw;
        let (n, f) = match space {
            // a thread-local array costs like a local variable (spec/metrics.md)
            Space::Local => {
                self.cost += if write { self.m.vwrite.clone() } else { self.m.var.clone() };
                return Ok(());
            }
            Space::Global => {
                let s: BTreeSet<i64> = idx
                    .iter()
                    .map(|i| (i128::from(*i) * i128::from(eb)).div_euclid(i128::from(sector_bytes)) as i64)
                    .collect();
                (s.len() as i64, if write { &self.m.gwrite } else { &self.m.gread })
            }
            Space::Shared => {
                let distinct: BTreeSet<i64> = idx.iter().copied().collect();
                let mut per: BTreeMap<i128, i64> = BTreeMap::new();
                for i in distinct {
                    let bank = (i128::from(i) * i128::from(eb))
                        .div_euclid(i128::from(bank_bytes))
                        .rem_euclid(i128::from(banks));
                    *per.entry(bank).or_insert(0) += 1;
                }
                (per.values().copied().max().unwrap_or(0), if write { &self.m.swrite } else { &self.m.sread })
            }
        };
        self.cost += metric::at(f, &rat(n));
        Ok(())
    }

    fn read(&self, a: &str, i: i64) -> Result<V, RunError> {
        let (_, _, ty) = self.array(a)?;
        Ok(match self.mem.get(&(a.to_string(), i)).or_else(|| self.fills.get(a)) {
            Some(v) => v.clone(),
            None => match ty {
                Ty::Int => V::I(0),
                Ty::Bool => V::B(false),
                Ty::Float => V::F(Rat::zero()),
            },
        })
    }

    fn index(&self, o: &Opd, lane: usize) -> Result<i64, RunError> {
        match self.opd(o, lane)? {
            V::I(i) => Ok(i),
            _ => Err(RunError::IndexNotInt),
        }
    }

    /// Evaluates `x` on the active lanes, charging its array read if any.
    fn expr(&mut self, x: &Expr, active: &[usize]) -> Result<Vec<V>, RunError> {
        match x {
            Expr::Opd(o) => active.iter().map(|l| self.opd(o, *l)).collect(),
            Expr::Bin(op, a, b) => active.iter().map(|l| Self::bin(op, self.opd(a, *l)?, self.opd(b, *l)?)).collect(),
            Expr::Un(op, a) => active.iter().map(|l| Self::un(op, self.opd(a, *l)?)).collect(),
            Expr::Read(a, o) => {
                let idx: Vec<i64> = active.iter().map(|l| self.index(o, *l)).collect::<Result<_, _>>()?;
                self.charge(a, &idx, false)?;
                idx.iter().map(|i| self.read(a, *i)).collect()
            }
        }
    }

    fn tick(&mut self) -> Result<(), RunError> {
        if self.fuel == 0 {
            return Err(RunError::OutOfFuel);
        }
        self.fuel -= 1;
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, active: &[usize]) -> Result<(), RunError> {
        self.tick()?;
        match s {
            Stmt::Skip | Stmt::Sync => Ok(()),
            Stmt::Warp(..) => Err(RunError::WarpOp),
            Stmt::Seq(a, b) => {
                self.stmt(a, active)?;
                self.stmt(b, active)
            }
            Stmt::Assign(x, ex) => {
                let vs = self.expr(ex, active)?;
                let slot = self.locals.get_mut(x).ok_or_else(|| RunError::NoValue(x.clone()))?;
                for (l, v) in active.iter().zip(vs) {
                    if let Some(cell) = slot.get_mut(*l) {
                        *cell = v;
                    }
                }
                Ok(())
            }
            Stmt::Write(a, o, ex) => {
                let vs = self.expr(ex, active)?;
                let idx: Vec<i64> = active.iter().map(|l| self.index(o, *l)).collect::<Result<_, _>>()?;
                self.charge(a, &idx, true)?;
                let mut written: BTreeMap<i64, V> = BTreeMap::new();
                for (i, v) in idx.iter().zip(vs) {
                    if let Some(old) = written.get(i) {
                        if *old != v {
                            return Err(RunError::WriteRace { array: a.clone(), index: *i });
                        }
                    }
                    written.insert(*i, v);
                }
                for (i, v) in written {
                    self.mem.insert((a.clone(), i), v);
                }
                Ok(())
            }
            Stmt::If(c, s1, s2) => {
                let cs = self.expr(c, active)?;
                let mut t = Vec::new();
                let mut f = Vec::new();
                for (l, v) in active.iter().zip(cs) {
                    match v {
                        V::B(true) => t.push(*l),
                        V::B(false) => f.push(*l),
                        _ => return Err(RunError::ConditionNotBool),
                    }
                }
                if !t.is_empty() {
                    self.stmt(s1, &t)?;
                }
                if !f.is_empty() {
                    self.stmt(s2, &f)?;
                }
                Ok(())
            }
            Stmt::While(c, body) => {
                let mut act = active.to_vec();
                loop {
                    self.tick()?;
                    let cs = self.expr(c, &act)?;
                    let mut t = Vec::new();
                    for (l, v) in act.iter().zip(cs) {
                        match v {
                            V::B(true) => t.push(*l),
                            V::B(false) => {}
                            _ => return Err(RunError::ConditionNotBool),
                        }
                    }
                    if t.is_empty() {
                        return Ok(());
                    }
                    self.stmt(body, &t)?;
                    act = t;
                }
            }
        }
    }
}

fn section<'a, 't>(top: &'a [Sexp<'t>], head: &'static str) -> Result<&'a [Sexp<'t>], WitnessError> {
    let found: Vec<&Sexp> = top.iter().filter(|s| s.head() == Some(head)).collect();
    match found.as_slice() {
        [s] => Ok(s.list().and_then(|l| l.get(1..)).unwrap_or(&[])),
        _ => Err(WitnessError::Section(head)),
    }
}

fn nums<const N: usize>(v: &[Sexp], section: &'static str) -> Result<[u32; N], WitnessError> {
    let bad = WitnessError::Malformed { section, expected: "non-negative 32-bit numbers" };
    let v: &[Sexp; N] = v.try_into().map_err(|_| bad.clone())?;
    let mut out = [0u32; N];
    for (o, s) in out.iter_mut().zip(v) {
        *o = s.atom().and_then(|a| a.parse().ok()).ok_or_else(|| bad.clone())?;
    }
    Ok(out)
}

/// Checks a witness text (format: spec/relational.md §8). `Ok` iff the replayed cost of the
/// stated warp equals the stated cost.
///
/// Errors: the first [`WitnessError`] found.
pub fn check_witness(text: &str) -> Result<WitnessVerdict, WitnessError> {
    let top = parse_all(text).map_err(WitnessError::Read)?;
    if top.first().and_then(|s| s.atom()) != Some("warpcert-witness") {
        return Err(WitnessError::Header);
    }
    let version = match top.get(1).and_then(|s| s.atom()) {
        Some("1") => 1,
        Some("2") => 2,
        _ => return Err(WitnessError::Header),
    };
    let top = top.get(2..).unwrap_or(&[]);
    let arrays_s = optional_section(top, "arrays", version)?;
    let claim_s = optional_section(top, "claim", version)?;
    let metric_s = section(top, "metric")?;
    let mname = match metric_s {
        [m] => m.atom().ok_or(WitnessError::Malformed { section: "metric", expected: "(metric NAME)" })?,
        _ => return Err(WitnessError::Malformed { section: "metric", expected: "(metric NAME)" }),
    };
    if mname != "sectors" && mname != "conflicts" {
        return Err(WitnessError::Metric(mname.to_string()));
    }
    let m = metric::standard(mname).ok_or_else(|| WitnessError::Metric(mname.to_string()))?;
    let hw: [u32; 4] = nums(section(top, "hardware")?, "hardware")?;
    let block: [u32; 3] = nums(section(top, "launch")?, "launch")?;
    let grid: [u32; 3] = nums(section(top, "grid")?, "grid")?;
    let bidx: [u32; 3] = nums(section(top, "block")?, "block")?;
    let [warp]: [u32; 1] = nums(section(top, "warp")?, "warp")?;
    if hw.contains(&0) || block.contains(&0) || grid.contains(&0) || bidx.iter().zip(&grid).any(|(b, g)| b >= g) {
        return Err(WitnessError::Launch);
    }
    let prog_s = match top.iter().filter(|s| s.head() == Some("program")).collect::<Vec<_>>().as_slice() {
        [p] => *p,
        _ => return Err(WitnessError::Section("program")),
    };
    let prog = syntax::program(prog_s).map_err(WitnessError::Read)?;
    crate::typing::check_program(&prog).map_err(WitnessError::Read)?;
    let cost_s = match section(top, "cost")? {
        [c] => c,
        _ => return Err(WitnessError::Malformed { section: "cost", expected: "(cost Q)" }),
    };
    let claimed = syntax::rat(cost_s).map_err(WitnessError::Read)?;
    let mut params: BTreeMap<String, V> = BTreeMap::new();
    for p in section(top, "params")? {
        let pair = p.list().and_then(|l| <&[Sexp; 2]>::try_from(l).ok());
        let Some([n, v]) = pair else {
            return Err(WitnessError::Malformed { section: "params", expected: "(params (NAME VALUE) …)" });
        };
        let n = n.atom().ok_or(WitnessError::Malformed { section: "params", expected: "(NAME VALUE)" })?;
        let iv = syntax::int(v).map_err(WitnessError::Read)?;
        let iv = iv.to_i64().ok_or_else(|| WitnessError::ParameterRange(n.to_string()))?;
        let val = match prog.param(n) {
            Some(Ty::Int) => V::I(iv),
            Some(Ty::Bool) => V::B(iv != 0),
            Some(Ty::Float) => V::F(rat(iv)),
            None => return Err(WitnessError::NotAParameter(n.to_string())),
        };
        params.insert(n.to_string(), val);
    }
    for ((c, b), g) in ["x", "y", "z"].iter().zip(bidx).zip(grid) {
        params.insert(format!("blockIdx.{c}"), V::I(i64::from(b)));
        params.insert(format!("gridDim.{c}"), V::I(i64::from(g)));
    }
    let threads = crate::access::block_threads(block).ok_or(WitnessError::Launch)?;
    let start = u64::from(warp) * u64::from(hw[0]);
    if start >= threads {
        return Err(WitnessError::WarpOutside(warp));
    }
    let end = start.saturating_add(u64::from(hw[0])).min(threads);
    let tids: Vec<[i64; 3]> = (start..end).map(|t| crate::access::thread_index(block, t)).collect();
    let lanes = tids.len();
    let mut locals = BTreeMap::new();
    for (ty, x) in &prog.locals {
        let v = match ty {
            Ty::Int => V::I(0),
            Ty::Bool => V::B(false),
            Ty::Float => V::F(Rat::zero()),
        };
        locals.insert(x.clone(), vec![v; lanes]);
    }
    let (mem, fills) = initial_memory(&prog, arrays_s)?;
    let mut mach =
        Machine { prog: &prog, m, hw, params, tids, locals, mem, fills, cost: Rat::zero(), fuel: REPLAY_FUEL };
    let all: Vec<usize> = (0..lanes).collect();
    mach.stmt(&prog.body, &all).map_err(WitnessError::Run)?;
    if mach.cost != claimed {
        return Err(WitnessError::CostDiffers { replayed: mach.cost, stated: claimed });
    }
    let refutes = match claim_s {
        None => None,
        Some(c) => Some(refuted(c, &mach.params, &mach.cost)?),
    };
    Ok(WitnessVerdict { metric: mname.to_string(), cost: mach.cost, refutes })
}

/// A section that may be absent (at most once), only in version 2.
fn optional_section<'a, 't>(
    top: &'a [Sexp<'t>],
    head: &'static str,
    version: u32,
) -> Result<Option<&'a [Sexp<'t>]>, WitnessError> {
    match top.iter().filter(|s| s.head() == Some(head)).count() {
        0 => Ok(None),
        1 if version >= 2 => section(top, head).map(Some),
        1 => Err(WitnessError::Version2Section(head)),
        _ => Err(WitnessError::Section(head)),
    }
}

/// `(arrays (ARR (cells V …)) (ARR (fill V)) …)`: cells `0, 1, …` of `ARR` hold the values
/// `V …` (every other cell the default of the element type), or every cell holds `V`.
/// `V` is an integer for `int` arrays, `true`/`false` for `bool`, a rational for `float`.
#[allow(clippy::type_complexity)]
fn initial_memory(
    prog: &Program,
    arrays: Option<&[Sexp]>,
) -> Result<(BTreeMap<(String, i64), V>, BTreeMap<String, V>), WitnessError> {
    let mut mem = BTreeMap::new();
    let mut fills = BTreeMap::new();
    let mut seen = BTreeSet::new();
    let bad = WitnessError::Malformed { section: "arrays", expected: "(ARR (cells V …)) or (ARR (fill V))" };
    for a in arrays.unwrap_or(&[]) {
        let Some([n, content]) = a.list().and_then(|l| <&[Sexp; 2]>::try_from(l).ok()) else {
            return Err(bad);
        };
        let name = n.atom().ok_or_else(|| bad.clone())?;
        let ty = match prog.array(name) {
            Some(d) if seen.insert(name.to_string()) => d.ty,
            _ => return Err(WitnessError::NotAnArray(name.to_string())),
        };
        let cell = |v: &Sexp| -> Result<V, WitnessError> {
            let wrong = || WitnessError::CellType(name.to_string());
            match ty {
                Ty::Int => syntax::int(v).ok().and_then(|i| i.to_i64()).map(V::I).ok_or_else(wrong),
                Ty::Bool => match v.atom() {
                    Some("true") => Ok(V::B(true)),
                    Some("false") => Ok(V::B(false)),
                    _ => Err(wrong()),
                },
                Ty::Float => syntax::rat(v).map(V::F).map_err(|_| wrong()),
            }
        };
        match (content.head(), content.list().and_then(|l| l.get(1..))) {
            (Some("cells"), Some(vs)) => {
                for (i, v) in vs.iter().enumerate() {
                    let i = i64::try_from(i).map_err(|_| bad.clone())?;
                    mem.insert((name.to_string(), i), cell(v)?);
                }
            }
            (Some("fill"), Some([v])) => {
                fills.insert(name.to_string(), cell(v)?);
            }
            _ => return Err(bad),
        }
    }
    Ok((mem, fills))
}

/// Most nested operators of a claim.
const MAX_CLAIM_DEPTH: usize = 200;

/// The value of `CLAIM ::= Q | (param NAME) | (OP CLAIM CLAIM) | (floor CLAIM) |
/// (ceil CLAIM)`, `OP ∈ + - * / max min`, at the parameters (an `int` parameter's value;
/// `blockIdx.*`/`gridDim.*` of the replayed block).
fn claim_value(s: &Sexp, params: &BTreeMap<String, V>, depth: usize) -> Result<Rat, WitnessError> {
    let bad = |why: &str| WitnessError::ClaimEval(why.to_string());
    if depth > MAX_CLAIM_DEPTH {
        return Err(bad("nested deeper than 200 operators"));
    }
    if s.atom().is_some() {
        return syntax::rat(s).map_err(|_| bad("a number is not a rational"));
    }
    let l = s.list().unwrap_or(&[]);
    let arg = |k: usize| -> Result<Rat, WitnessError> {
        claim_value(l.get(k).ok_or_else(|| bad("an operator lacks an argument"))?, params, depth + 1)
    };
    let arity =
        |n: usize| if l.len() == n + 1 { Ok(()) } else { Err(bad("an operator has the wrong number of arguments")) };
    match s.head() {
        Some("param") => {
            arity(1)?;
            let n = l.get(1).and_then(|n| n.atom()).ok_or_else(|| bad("(param NAME)"))?;
            match params.get(n) {
                Some(V::I(x)) => Ok(rat(*x)),
                _ => Err(WitnessError::ClaimEval(format!("no int value for `{n}`"))),
            }
        }
        Some(op @ ("floor" | "ceil")) => {
            arity(1)?;
            let x = arg(1)?;
            Ok(if op == "floor" { x.floor() } else { x.ceil() })
        }
        Some(op @ ("+" | "-" | "*" | "/" | "max" | "min")) => {
            arity(2)?;
            let (a, b) = (arg(1)?, arg(2)?);
            Ok(match op {
                "+" => a + b,
                "-" => a - b,
                "*" => a * b,
                "/" if b.is_zero() => return Err(bad("division by zero")),
                "/" => a / b,
                "max" => a.max(b),
                _ => a.min(b),
            })
        }
        _ => Err(bad("unknown operator")),
    }
}

/// `(claim upper|lower CLAIM)`: the relation and the claim's value, if the cost refutes it.
fn refuted(c: &[Sexp], params: &BTreeMap<String, V>, cost: &Rat) -> Result<(ClaimRelation, Rat), WitnessError> {
    let [rel, e] = c else {
        return Err(WitnessError::Malformed { section: "claim", expected: "(claim upper|lower CLAIM)" });
    };
    let relation = match rel.atom() {
        Some("upper") => ClaimRelation::Upper,
        Some("lower") => ClaimRelation::Lower,
        _ => return Err(WitnessError::Malformed { section: "claim", expected: "(claim upper|lower CLAIM)" }),
    };
    let claimed = claim_value(e, params, 0)?;
    let ok = match relation {
        ClaimRelation::Upper => *cost > claimed,
        ClaimRelation::Lower => *cost < claimed,
    };
    if ok {
        Ok((relation, claimed))
    } else {
        Err(WitnessError::NotRefuted { relation, cost: cost.clone(), claimed })
    }
}
