//! Replay of lower-bound witnesses (spec/relational.md §8): a concrete launch, parameter
//! values and the all-zero input, under which one warp of the miniCUDA program in the witness
//! costs the stated amount. The kernel re-executes that warp with its own small lock-step
//! interpreter (RaCUDA Fig. 5 restricted to what the metrics `sectors` and `conflicts`
//! charge: array reads and writes) and accepts iff the cost is exactly the stated one.
//!
//! Trust: the interpreter below and spec/relational.md §8; nothing of warpcert's semantics is
//! used. Floats are exact rationals here (no float arithmetic in the kernel); a witness whose
//! cost depends on float rounding may be rejected, never wrongly accepted for another cost.

use crate::arith::{rat, Rat};
use crate::metric;
use crate::sexp::{parse_all, Sexp};
use crate::syntax::{self, Expr, Opd, Program, Space, Stmt, Ty};
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
    cost: Rat,
    fuel: u64,
}

fn e<T>(s: impl Into<String>) -> Result<T, String> {
    Err(s.into())
}

fn parse_float(s: &str) -> Result<Rat, String> {
    // `[-]digits[.digits][e[-]digits]`
    let (mant, exp) = match s.split_once(['e', 'E']) {
        Some((m, x)) => (m, x.parse::<i32>().map_err(|_| format!("bad float `{s}`"))?),
        None => (s, 0),
    };
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant),
    };
    let (ip, fp) = mant.split_once('.').unwrap_or((mant, ""));
    let digits = format!("{ip}{fp}");
    let n: num_bigint::BigInt =
        if digits.is_empty() { 0.into() } else { digits.parse().map_err(|_| format!("bad float `{s}`"))? };
    let scale = exp - fp.len() as i32;
    let ten = Rat::from_integer(10.into());
    let mut v = Rat::from_integer(n);
    if scale >= 0 {
        for _ in 0..scale {
            v *= &ten;
        }
    } else {
        for _ in 0..(-scale) {
            v /= &ten;
        }
    }
    Ok(if neg { -v } else { v })
}

impl Machine<'_> {
    fn opd(&self, o: &Opd, lane: usize) -> Result<V, String> {
        Ok(match o {
            Opd::Var(x) => match self.locals.get(x).and_then(|v| v.get(lane)) {
                Some(v) => v.clone(),
                None => return e(format!("undeclared local `{x}`")),
            },
            Opd::Param(p) => match self.params.get(p) {
                Some(v) => v.clone(),
                None => return e(format!("no value for parameter `{p}`")),
            },
            Opd::Tid(d) => V::I(self.tids[lane].get(*d).copied().unwrap_or(0)),
            Opd::Int(n) => V::I(n.to_i64().ok_or("integer literal out of range")?),
            Opd::Bool(b) => V::B(*b),
            Opd::Float(s) => V::F(parse_float(s)?),
        })
    }

    fn bin(op: &str, a: V, b: V) -> Result<V, String> {
        use V::*;
        Ok(match (a, b) {
            (I(x), I(y)) => match op {
                "+" => I(x.checked_add(y).ok_or("overflow")?),
                "-" => I(x.checked_sub(y).ok_or("overflow")?),
                "*" => I(x.checked_mul(y).ok_or("overflow")?),
                "/" => I(x.checked_div(y).ok_or("division by zero or overflow")?),
                "%" => I(x.checked_rem(y).ok_or("division by zero or overflow")?),
                "<<" if (0..64).contains(&y) => I(i64::try_from((x as i128) << y).map_err(|_| "overflow".to_string())?),
                ">>" if (0..64).contains(&y) => I(x >> y),
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
                _ => return e(format!("operator `{op}` on ints")),
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
                _ => return e(format!("operator `{op}` on floats")),
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
                _ => return e(format!("operator `{op}` on bools")),
            },
            _ => return e(format!("operator `{op}` on mixed types")),
        })
    }

    fn un(op: &str, a: V) -> Result<V, String> {
        use V::*;
        Ok(match (op, a) {
            ("neg", I(x)) => I(x.checked_neg().ok_or("overflow")?),
            ("neg", F(x)) => F(-x),
            ("not", B(x)) => B(!x),
            ("bitnot", I(x)) => I(!x),
            ("tofloat", I(x)) => F(rat(x)),
            ("tofloat", F(x)) => F(x),
            ("tofloat", B(x)) => F(rat(i64::from(x))),
            ("toint", I(x)) => I(x),
            ("toint", F(x)) => I(x.trunc().to_integer().to_i64().ok_or("overflow")?),
            ("toint", B(x)) => I(i64::from(x)),
            ("tobool", I(x)) => B(x != 0),
            ("tobool", F(x)) => B(!x.is_zero()),
            ("tobool", B(x)) => B(x),
            (op, _) => return e(format!("unary `{op}` on this type")),
        })
    }

    fn array(&self, a: &str) -> Result<(Space, u32, Ty), String> {
        match self.prog.array(a) {
            Some(d) => Ok((d.space, d.bytes, d.ty)),
            None => e(format!("undeclared array `{a}`")),
        }
    }

    /// Charges an access to `a` at the active lanes' indices.
    fn charge(&mut self, a: &str, idx: &[i64], write: bool) -> Result<(), String> {
        let (space, eb, _) = self.array(a)?;
        let [_, banks, bank_bytes, sector_bytes] = self.hw;
        let n = match space {
            Space::Global => {
                let s: BTreeSet<i64> = idx
                    .iter()
                    .map(|i| (i128::from(*i) * i128::from(eb)).div_euclid(i128::from(sector_bytes)) as i64)
                    .collect();
                s.len() as i64
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
                per.values().copied().max().unwrap_or(0)
            }
        };
        let f = match (space, write) {
            (Space::Global, false) => &self.m.gread,
            (Space::Global, true) => &self.m.gwrite,
            (Space::Shared, false) => &self.m.sread,
            (Space::Shared, true) => &self.m.swrite,
        };
        self.cost += metric::at(f, &rat(n));
        Ok(())
    }

    fn read(&self, a: &str, i: i64) -> Result<V, String> {
        let (_, _, ty) = self.array(a)?;
        Ok(match self.mem.get(&(a.to_string(), i)) {
            Some(v) => v.clone(),
            None => match ty {
                Ty::Int => V::I(0),
                Ty::Bool => V::B(false),
                Ty::Float => V::F(Rat::zero()),
            },
        })
    }

    fn index(&self, o: &Opd, lane: usize) -> Result<i64, String> {
        match self.opd(o, lane)? {
            V::I(i) => Ok(i),
            _ => e("array index is not an int"),
        }
    }

    /// Evaluates `x` on the active lanes, charging its array read if any.
    fn expr(&mut self, x: &Expr, active: &[usize]) -> Result<Vec<V>, String> {
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

    fn tick(&mut self) -> Result<(), String> {
        if self.fuel == 0 {
            return e("out of fuel");
        }
        self.fuel -= 1;
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt, active: &[usize]) -> Result<(), String> {
        self.tick()?;
        match s {
            Stmt::Skip | Stmt::Sync => Ok(()),
            Stmt::Seq(a, b) => {
                self.stmt(a, active)?;
                self.stmt(b, active)
            }
            Stmt::Assign(x, ex) => {
                let vs = self.expr(ex, active)?;
                let slot = self.locals.get_mut(x).ok_or_else(|| format!("undeclared local `{x}`"))?;
                for (l, v) in active.iter().zip(vs) {
                    slot[*l] = v;
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
                            return e(format!("write-write race on {a}[{i}]"));
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
                        _ => return e("condition is not a bool"),
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
                            _ => return e("loop condition is not a bool"),
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

fn section<'a, 't>(top: &'a [Sexp<'t>], head: &str) -> Result<&'a [Sexp<'t>], String> {
    let found: Vec<&Sexp> = top.iter().filter(|s| s.head() == Some(head)).collect();
    match found.as_slice() {
        [s] => Ok(s.list().map(|l| &l[1..]).unwrap_or(&[])),
        _ => e(format!("exactly one `({head} …)` section")),
    }
}

fn nums<const N: usize>(v: &[Sexp], what: &str) -> Result<[u32; N], String> {
    if v.len() != N {
        return e(format!("`{what}` needs {N} numbers"));
    }
    let mut out = [0u32; N];
    for (o, s) in out.iter_mut().zip(v) {
        *o = s.atom().and_then(|a| a.parse().ok()).ok_or_else(|| format!("`{what}`: not a number"))?;
    }
    Ok(out)
}

/// Checks a witness text (format: spec/relational.md §8). `Ok` iff the replayed cost of the
/// stated warp equals the stated cost.
pub fn check_witness(text: &str) -> Result<WitnessVerdict, String> {
    let top = parse_all(text).map_err(|r| r.to_string())?;
    if top.first().and_then(|s| s.atom()) != Some("warpcert-witness") || top.get(1).and_then(|s| s.atom()) != Some("1")
    {
        return e("the header `warpcert-witness 1`");
    }
    let top = &top[2..];
    let mname = section(top, "metric")?.first().and_then(|s| s.atom()).ok_or("(metric NAME)")?.to_string();
    if mname != "sectors" && mname != "conflicts" {
        return e("witnesses are for the metrics sectors and conflicts");
    }
    let m = metric::standard(&mname).ok_or("unknown metric")?;
    let hw: [u32; 4] = nums(section(top, "hardware")?, "hardware")?;
    let block: [u32; 3] = nums(section(top, "launch")?, "launch")?;
    let grid: [u32; 3] = nums(section(top, "grid")?, "grid")?;
    let bidx: [u32; 3] = nums(section(top, "block")?, "block")?;
    let [warp]: [u32; 1] = nums(section(top, "warp")?, "warp")?;
    if hw.contains(&0) || block.contains(&0) || grid.contains(&0) || bidx.iter().zip(&grid).any(|(b, g)| b >= g) {
        return e("bad hardware, launch or block index");
    }
    let prog_s = top.iter().find(|s| s.head() == Some("program")).ok_or("a program section")?;
    let prog = syntax::program(prog_s).map_err(|r| r.to_string())?;
    let cost_s = section(top, "cost")?.first().ok_or("(cost Q)")?;
    let claimed = syntax::rat(cost_s).map_err(|r| r.to_string())?;
    let mut params: BTreeMap<String, V> = BTreeMap::new();
    for p in section(top, "params")? {
        let l = p.list().ok_or("(params (NAME VALUE) …)")?;
        let (Some(n), Some(v)) = (l.first().and_then(|s| s.atom()), l.get(1)) else {
            return e("(params (NAME VALUE) …)");
        };
        let iv = syntax::int(v).map_err(|r| r.to_string())?.to_i64().ok_or("parameter out of range")?;
        let val = match prog.param(n) {
            Some(Ty::Int) => V::I(iv),
            Some(Ty::Bool) => V::B(iv != 0),
            Some(Ty::Float) => V::F(rat(iv)),
            None => return e(format!("`{n}` is not a parameter of the program")),
        };
        params.insert(n.to_string(), val);
    }
    for (d, c) in ["x", "y", "z"].iter().enumerate() {
        params.insert(format!("blockIdx.{c}"), V::I(i64::from(bidx[d])));
        params.insert(format!("gridDim.{c}"), V::I(i64::from(grid[d])));
    }
    let threads = u64::from(block[0]) * u64::from(block[1]) * u64::from(block[2]);
    let start = u64::from(warp) * u64::from(hw[0]);
    if start >= threads {
        return e("the warp is outside the block");
    }
    let end = (start + u64::from(hw[0])).min(threads);
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
    let mut mach = Machine {
        prog: &prog,
        m,
        hw,
        params,
        tids,
        locals,
        mem: BTreeMap::new(),
        cost: Rat::zero(),
        fuel: REPLAY_FUEL,
    };
    let all: Vec<usize> = (0..lanes).collect();
    mach.stmt(&prog.body, &all)?;
    if mach.cost != claimed {
        return e(format!("replayed cost {} differs from the stated cost {}", mach.cost, claimed));
    }
    Ok(WitnessVerdict { metric: mname, cost: mach.cost })
}
