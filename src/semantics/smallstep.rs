//! The small-step bounded implementation of RaCUDA §6 (Figs. 14–18, with the
//! reconstructions of `notes/muller-hoffmann-2024-cuda-cost-logic.md` §7).
//!
//! **One warp** (judgments `e —[M;σ;𝒯]→^C e'` and `⟨σ, s⟩ —[M;𝒯]→^C ⟨σ', s'⟩`): every step
//! performs exactly one operation and returns its *latency* `C` under the latency metric.
//! Operands step to result families in one step (rules `ES:VAR`, `ES:CONST`, `ES:PARAM`,
//! `ES:TID`); `o1 op o2` takes three steps (`ES:OP1` first operand, `ES:OP2` second,
//! `ES:OP` the operator — the 3-step reconstruction that keeps "one step = one unit of work");
//! `op o` two (`ES:UOP`); `A[o]` two (`ES:GARR1`/`ES:SARR1` then `ES:GARR`/`ES:SARR`).
//! Statements: `SS:VWRITE`, `SS:GWRITE`, `SS:SWRITE` (after their operand/expression steps,
//! latency `M^vwrite`, `M^gwrite(MemReads)`, `M^swrite(Conflicts)` — the note's fix of the
//! figure's `M^gread`), `SS:IFT`/`SS:IFF` (uniform test, latency `M^if`), `SS:IFD`
//! (divergent test: `switch(𝒯_T, s1); switch∘(𝒯_F, s2)`), `SS:WHILE` (the loop unrolls to
//! `if e then (s; while (e) s) else skip`), `SS:SWITCHPAID` (the one paid step at the end of
//! `switch∘`, latency `M^div`). Sequences, `switch` entry/exit and `skip` take no step.
//! The representation is a continuation (stack of pending items) plus a stack of active
//! masks, equivalent to rewriting the statement.
//!
//! **A block** (Fig. 17): warps `(δ, s, 𝒯)` with delays. Each parallel step is `BL:STEP` —
//! the greedy scheduler executes up to `P` ready warps (delay 0, not blocked at a `sync`,
//! lowest warp index first; the store is threaded through them in that order), executed
//! warps take the latency of their step as new delay, delayed warps count down — or
//! `BL:SYNC` when every warp is blocked at a `sync` with delay 0 (Fig. 16; one step).
//!
//! **Stuck states** (Theorem 5): [`Stuck::DataRace`] (a write whose active lanes write
//! different values to one cell — the lock-step semantics' condition, so that the two agree;
//! the paper's definition also counts equal values), [`Stuck::BadSync`] (a `sync` inside a
//! `switch`, Coq `bad_sync`), [`Stuck::SyncBlocked`] (some warps wait at a `sync` while others
//! have finished: no rule applies).
//!
//! Theorem 6: a completed run takes `n ≤ W/P + S` steps, with `W`, `S` the work and span of
//! the parallel semantics under `WS(M)` ([`super::parallel::ws_metrics`]).

use super::derivation::{AccRes, Res, Usage};
use super::run::{check_hw, lanes, resolve_params, Params};
use super::store::{Inputs, Memory};
use super::value::{apply_bin, apply_un, Value};
use super::SemError;
use crate::core::{conflicts, mem_reads, BinOp, Expr, Hardware, Launch, Loc, Metric, Operand};
use crate::core::{Program, Space, Stmt, UnOp};
use num_traits::{Signed, ToPrimitive};
use std::collections::HashMap;

/// Rule names of the small-step semantics (one warp, then block level), in the order of
/// `spec/semantics.md`.
pub const SMALLSTEP_RULES: &[&str] = &[
    "ES:VAR",
    "ES:CONST",
    "ES:PARAM",
    "ES:TID",
    "ES:OP1",
    "ES:OP2",
    "ES:OP",
    "ES:UOP",
    "ES:GARR1",
    "ES:GARR",
    "ES:SARR1",
    "ES:SARR",
    "SS:VWRITE",
    "SS:GWRITE",
    "SS:SWRITE",
    "SS:IFT",
    "SS:IFF",
    "SS:IFD",
    "SS:WHILE",
    "SS:SWITCHPAID",
    "BL:STEP",
    "BL:SYNC",
];

/// Named stuck states (RaCUDA §6, Theorem 5 and Lemma 9).
#[derive(Clone, Debug, PartialEq)]
pub enum Stuck {
    /// A write of warp `warp` at `loc` whose active lanes write different values to one cell.
    DataRace {
        /// Warp index.
        warp: usize,
        /// Array and index.
        array: String,
        /// Index.
        index: i64,
        /// Statement location.
        loc: Loc,
    },
    /// Warp `warp` reached the `sync` at `loc` inside a `switch` (some lanes inactive).
    BadSync {
        /// Warp index.
        warp: usize,
        /// Location of the `sync`.
        loc: Loc,
    },
    /// Warps `blocked` wait at a `sync` while the others have finished.
    SyncBlocked {
        /// The waiting warps.
        blocked: Vec<usize>,
    },
}

/// How a small-step run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum SmallOutcome {
    /// Every warp reached `skip`.
    Completed,
    /// No rule applies.
    Stuck(Stuck),
    /// The step limit was reached.
    StepLimit(u64),
    /// A run-time error of an operation (overflow, type error, ...).
    Error(SemError),
}

/// The result of a small-step block run.
#[derive(Clone, Debug)]
pub struct SmallRun {
    /// How it ended.
    pub outcome: SmallOutcome,
    /// Parallel steps `n` taken (`BL:STEP` and `BL:SYNC`).
    pub steps: u64,
    /// Steps (operations) executed by each warp; a `BL:SYNC` counts one for each warp.
    pub warp_steps: Vec<u64>,
    /// Charges of each warp (same resource constants as the cost semantics).
    pub per_warp: Vec<Usage>,
    /// Final arrays.
    pub memory: Memory,
    /// Trace lines when requested: `n  BL:STEP  w0:RULE w1:RULE …  delays=[…]` (the rule each
    /// executed warp applied and every warp's delay afterwards) or `n  BL:SYNC  warps=k`.
    pub trace: Vec<String>,
}

/// Integer latencies of the 12 resource constants, read from a metric.
#[derive(Clone, Debug)]
struct Lat {
    fixed: HashMap<&'static str, u64>,
    acc: [(u64, u64); 4],
}

fn nat(x: &crate::core::metric::Q, what: &str) -> Result<u64, SemError> {
    if !x.is_integer() || x.is_negative() {
        return Err(SemError::BadInput(format!(
            "latency {what} must be a non-negative integer, got {x}"
        )));
    }
    x.to_integer()
        .to_u64()
        .ok_or_else(|| SemError::BadInput(format!("latency {what} too large")))
}

impl Lat {
    fn new(m: &Metric) -> Result<Lat, SemError> {
        let mut fixed = HashMap::new();
        for (k, v) in [
            ("var", &m.var),
            ("const", &m.konst),
            ("param", &m.param),
            ("op", &m.op),
            ("if", &m.if_),
            ("div", &m.div),
            ("vwrite", &m.vwrite),
        ] {
            fixed.insert(k, nat(v, k)?);
        }
        let a = |x: &crate::core::metric::Affine, w: &str| -> Result<(u64, u64), SemError> {
            Ok((nat(&x.mul, w)?, nat(&x.add, w)?))
        };
        Ok(Lat {
            fixed,
            acc: [
                a(&m.gread, "gread")?,
                a(&m.sread, "sread")?,
                a(&m.gwrite, "gwrite")?,
                a(&m.swrite, "swrite")?,
            ],
        })
    }
    fn of(&self, r: Res) -> u64 {
        let k = match r {
            Res::Var => "var",
            Res::Const => "const",
            Res::Param => "param",
            Res::Op => "op",
            Res::If => "if",
            Res::Div => "div",
            Res::VWrite => "vwrite",
            Res::Sync => return 0,
        };
        self.fixed.get(k).copied().unwrap_or(0)
    }
    fn of_acc(&self, r: AccRes, n: u64) -> u64 {
        let (m, a) = self.acc[match r {
            AccRes::GRead => 0,
            AccRes::SRead => 1,
            AccRes::GWrite => 2,
            AccRes::SWrite => 3,
        }];
        m.saturating_mul(n).saturating_add(a)
    }
}

/// What one step did: its rule, the resource it charges (if any) and its latency.
type Step = (&'static str, Option<Res>, u64);

#[derive(Clone, Debug)]
enum Item<'p> {
    Stmt(&'p Stmt),
    /// `while` unrolled (SS:WHILE): its test follows.
    Loop(&'p Stmt),
    Opd(&'p Operand, &'static str),
    Bin(BinOp),
    Un(UnOp),
    Read(&'p str),
    Assign(&'p str),
    Write(&'p str, Loc),
    IfTest(&'p Stmt),
    LoopTest(&'p Stmt),
    /// `switch(𝒯', _)` entry (free).
    Push(Vec<usize>),
    /// End of `switch` (free).
    Pop,
    /// End of `switch∘` (SS:SWITCHPAID, one step with latency `M^div`).
    PopPaid,
}

struct WarpState<'p> {
    delay: u64,
    items: Vec<Item<'p>>,
    masks: Vec<Vec<usize>>,
    vals: Vec<Vec<Value>>,
    usage: Usage,
    steps: u64,
}

struct Machine<'a> {
    prog: &'a Program,
    hw: &'a Hardware,
    params: super::run::ParamValues,
    lat: Lat,
    /// Per warp: lane → (thread id, tid).
    lanes: Vec<Vec<(u32, [i64; 3])>>,
    /// Per warp: locals[var * lanes + lane].
    locals: Vec<Vec<Value>>,
    var_idx: HashMap<&'a str, usize>,
}

/// Pushes the operation items of `e` (in reverse, onto a stack that pops from the end).
fn push_expr<'p>(out: &mut Vec<Item<'p>>, e: &'p Expr) {
    // Items are executed from the end of `out`; build the forward list then reverse it in.
    let mut fwd: Vec<Item<'p>> = Vec::new();
    match e {
        Expr::Opd(o) => fwd.push(Item::Opd(o, "")),
        Expr::Bin(op, a, b) => {
            fwd.push(Item::Opd(a, "ES:OP1"));
            fwd.push(Item::Opd(b, "ES:OP2"));
            fwd.push(Item::Bin(*op));
        }
        Expr::Un(op, a) => {
            fwd.push(Item::Opd(a, ""));
            fwd.push(Item::Un(*op));
        }
        Expr::Read(arr, o) => {
            fwd.push(Item::Opd(o, "ARR1"));
            fwd.push(Item::Read(arr));
        }
    }
    out.extend(fwd.into_iter().rev());
}

impl<'a> Machine<'a> {
    fn opd(
        &self,
        w: usize,
        o: &Operand,
        mask: &[usize],
    ) -> Result<(Vec<Value>, Res, &'static str), SemError> {
        let n = self.lanes[w].len();
        Ok(match o {
            Operand::Var(x) => {
                let v = *self
                    .var_idx
                    .get(x.as_str())
                    .ok_or_else(|| SemError::Undeclared {
                        kind: "local",
                        name: x.clone(),
                    })?;
                (
                    mask.iter().map(|&l| self.locals[w][v * n + l]).collect(),
                    Res::Var,
                    "ES:VAR",
                )
            }
            Operand::Const(c) => (vec![Value::of_const(c); mask.len()], Res::Const, "ES:CONST"),
            Operand::Param(p) => {
                let v = *self.params.get(p).ok_or_else(|| SemError::Undeclared {
                    kind: "parameter",
                    name: p.clone(),
                })?;
                (vec![v; mask.len()], Res::Param, "ES:PARAM")
            }
            Operand::Tid(d) => (
                mask.iter()
                    .map(|&l| Value::Int(self.lanes[w][l].1[d.index()]))
                    .collect(),
                Res::Var,
                "ES:TID",
            ),
        })
    }

    fn is_shared(&self, array: &str) -> bool {
        self.prog.array(array).map(|a| a.space) == Some(Space::Shared)
    }

    /// Removes free items (sequences, switch entry/exit, skip, loop unrolling, statement
    /// expansion) until the next item takes a step or is a `sync`.
    fn normalize(&self, ws: &mut WarpState<'a>) {
        while let Some(it) = ws.items.last() {
            match it {
                Item::Stmt(s) => {
                    let s: &'a Stmt = s;
                    match s {
                        Stmt::Sync(_) | Stmt::Warp(..) => return,
                        Stmt::Skip => {
                            ws.items.pop();
                        }
                        Stmt::Seq(a, b) => {
                            ws.items.pop();
                            ws.items.push(Item::Stmt(b));
                            ws.items.push(Item::Stmt(a));
                        }
                        Stmt::Assign(x, e, _) => {
                            ws.items.pop();
                            ws.items.push(Item::Assign(x));
                            push_expr(&mut ws.items, e);
                        }
                        Stmt::Write(a, o, e, loc) => {
                            ws.items.pop();
                            ws.items.push(Item::Write(a, *loc));
                            push_expr(&mut ws.items, e);
                            ws.items.push(Item::Opd(o, "WRITE1"));
                        }
                        Stmt::If(e, ..) => {
                            ws.items.pop();
                            ws.items.push(Item::IfTest(s));
                            push_expr(&mut ws.items, e);
                        }
                        Stmt::While(..) => {
                            ws.items.pop();
                            ws.items.push(Item::Loop(s));
                        }
                    }
                }
                Item::Loop(s) => {
                    let s: &'a Stmt = s;
                    ws.items.pop();
                    if let Stmt::While(e, ..) = s {
                        ws.items.push(Item::LoopTest(s));
                        push_expr(&mut ws.items, e);
                    }
                }
                Item::Push(m) => {
                    let m = m.clone();
                    ws.items.pop();
                    ws.masks.push(m);
                }
                Item::Pop => {
                    ws.items.pop();
                    ws.masks.pop();
                }
                _ => return,
            }
        }
    }

    /// One step of warp `w`: returns (rule, latency).
    fn step(
        &mut self,
        w: usize,
        ws: &mut WarpState<'a>,
        mem: &mut Memory,
    ) -> Result<Result<(&'static str, u64), Stuck>, SemError> {
        let Some(it) = ws.items.pop() else {
            return Ok(Ok(("SS:SKIP", 0)));
        };
        let mask = ws.masks.last().cloned().unwrap_or_default();
        let pop = |ws: &mut WarpState<'_>| ws.vals.pop().unwrap_or_default();
        let (rule, res, lat): Step = match it {
            Item::Opd(o, ctx) => {
                let (fam, r, rule) = self.opd(w, o, &mask)?;
                ws.vals.push(fam);
                let rule = match ctx {
                    "ES:OP1" | "ES:OP2" => ctx,
                    "ARR1" => match ws.items.last() {
                        Some(Item::Read(a)) if self.is_shared(a) => "ES:SARR1",
                        _ => "ES:GARR1",
                    },
                    _ => rule,
                };
                (rule, Some(r), self.lat.of(r))
            }
            Item::Bin(op) => {
                let b = pop(ws);
                let a = pop(ws);
                let r = a
                    .into_iter()
                    .zip(b)
                    .map(|(x, y)| apply_bin(op, x, y))
                    .collect::<Result<Vec<_>, _>>()?;
                ws.vals.push(r);
                ("ES:OP", Some(Res::Op), self.lat.of(Res::Op))
            }
            Item::Un(op) => {
                let a = pop(ws);
                let r = a
                    .into_iter()
                    .map(|x| apply_un(op, x))
                    .collect::<Result<Vec<_>, _>>()?;
                ws.vals.push(r);
                ("ES:UOP", Some(Res::Op), self.lat.of(Res::Op))
            }
            Item::Read(arr) => self.read(ws, mem, arr)?,
            Item::Assign(x) => {
                let v = *self.var_idx.get(x).ok_or_else(|| SemError::Undeclared {
                    kind: "local",
                    name: x.to_string(),
                })?;
                let n = self.lanes[w].len();
                for (&l, val) in mask.iter().zip(pop(ws)) {
                    self.locals[w][v * n + l] = val;
                }
                ("SS:VWRITE", Some(Res::VWrite), self.lat.of(Res::VWrite))
            }
            Item::Write(a, loc) => match self.write(w, ws, mem, a, loc)? {
                Ok(x) => x,
                Err(stuck) => return Ok(Err(stuck)),
            },
            Item::IfTest(s) => self.if_test(ws, &mask, s)?,
            Item::LoopTest(s) => self.loop_test(ws, &mask, s)?,
            Item::PopPaid => {
                ws.masks.pop();
                ("SS:SWITCHPAID", Some(Res::Div), self.lat.of(Res::Div))
            }
            other => {
                return Err(SemError::Type(format!(
                    "internal: unexpected item {other:?}"
                )));
            }
        };
        if let Some(r) = res {
            ws.usage.charge(r);
        }
        ws.steps += 1;
        Ok(Ok((rule, lat)))
    }

    /// ES:GARR / ES:SARR: the cells of `arr` at the index family on top of the value stack,
    /// charged `MemReads` / `Conflicts`.
    fn read(&self, ws: &mut WarpState<'a>, mem: &Memory, arr: &str) -> Result<Step, SemError> {
        let pop = |ws: &mut WarpState<'_>| ws.vals.pop().unwrap_or_default();
        let ix = index_family(pop(ws), arr)?;
        let cells = mem.array(arr).ok_or_else(|| SemError::Undeclared {
            kind: "array",
            name: arr.to_string(),
        })?;
        ws.vals.push(ix.iter().map(|&i| cells.get(i)).collect());
        self.charge(ws, cells.space, cells.elem_bytes, &ix, arr, false)
    }

    /// The access of a warp to `arr` (a `space` array of `elem_bytes`-byte elements) at the
    /// index family `ix`: charged `MemReads` (global) or `Conflicts` (shared) under the
    /// read rule (ES:GARR / ES:SARR) or the write rule (SS:GWRITE / SS:SWRITE), with its
    /// latency. Errors: a thread-local array (not modelled by this machine).
    fn charge(
        &self,
        ws: &mut WarpState<'a>,
        space: Space,
        elem_bytes: u32,
        ix: &[i64],
        arr: &str,
        write: bool,
    ) -> Result<Step, SemError> {
        let (kind, n, rule) = match (space, write) {
            (Space::Global, false) => {
                (AccRes::GRead, mem_reads(ix, elem_bytes, self.hw), "ES:GARR")
            }
            (Space::Global, true) => (
                AccRes::GWrite,
                mem_reads(ix, elem_bytes, self.hw),
                "SS:GWRITE",
            ),
            (Space::Shared, false) => {
                (AccRes::SRead, conflicts(ix, elem_bytes, self.hw), "ES:SARR")
            }
            (Space::Shared, true) => (
                AccRes::SWrite,
                conflicts(ix, elem_bytes, self.hw),
                "SS:SWRITE",
            ),
            (Space::Local, _) => return Err(local_unsupported(arr)),
        };
        ws.usage.charge_access(kind, n);
        Ok((rule, None, self.lat.of_acc(kind, n)))
    }

    /// SS:GWRITE / SS:SWRITE: the value family into `a` at the index family below it, or a
    /// data race when two lanes write different values to one cell.
    fn write(
        &self,
        w: usize,
        ws: &mut WarpState<'a>,
        mem: &mut Memory,
        a: &str,
        loc: Loc,
    ) -> Result<Result<Step, Stuck>, SemError> {
        let pop = |ws: &mut WarpState<'_>| ws.vals.pop().unwrap_or_default();
        let vals = pop(ws);
        let ix = index_family(pop(ws), a)?;
        let slot = self
            .prog
            .arrays
            .iter()
            .position(|d| d.name == a)
            .ok_or_else(|| SemError::Undeclared {
                kind: "array",
                name: a.to_string(),
            })?;
        let cells = &mut mem.arrays[slot];
        let mut order: Vec<usize> = (0..ix.len()).collect();
        order.sort_by_key(|&k| (ix[k], k));
        for p in order.windows(2) {
            if ix[p[0]] == ix[p[1]] && !vals[p[0]].same_bits(vals[p[1]]) {
                return Ok(Err(Stuck::DataRace {
                    warp: w,
                    array: a.to_string(),
                    index: ix[p[0]],
                    loc,
                }));
            }
        }
        for (&i, &v) in ix.iter().zip(&vals) {
            cells.set(i, v);
        }
        let (space, elem_bytes) = (cells.space, cells.elem_bytes);
        self.charge(ws, space, elem_bytes, &ix, a, true).map(Ok)
    }

    /// SS:IFT / SS:IFF / SS:IFD: the branch (or both, under `switch`) of the `if` `s`.
    fn if_test(
        &self,
        ws: &mut WarpState<'a>,
        mask: &[usize],
        s: &'a Stmt,
    ) -> Result<Step, SemError> {
        let pop = |ws: &mut WarpState<'_>| ws.vals.pop().unwrap_or_default();
        let c = pop(ws);
        let (tt, tf) = split(mask, c)?;
        let Stmt::If(_, s1, s2, _) = s else {
            return Err(SemError::Type("if test on a non-if".into()));
        };
        let rule = if tf.is_empty() {
            ws.items.push(Item::Stmt(s1));
            "SS:IFT"
        } else if tt.is_empty() {
            ws.items.push(Item::Stmt(s2));
            "SS:IFF"
        } else {
            // switch(𝒯_T, s1); switch∘(𝒯_F, s2)
            ws.items.push(Item::PopPaid);
            ws.items.push(Item::Stmt(s2));
            ws.items.push(Item::Push(tf));
            ws.items.push(Item::Pop);
            ws.items.push(Item::Stmt(s1));
            ws.items.push(Item::Push(tt));
            "SS:IFD"
        };
        Ok((rule, Some(Res::If), self.lat.of(Res::If)))
    }

    /// SS:WHILE: the next iteration of the loop `s` for the lanes whose test is true.
    fn loop_test(
        &self,
        ws: &mut WarpState<'a>,
        mask: &[usize],
        s: &'a Stmt,
    ) -> Result<Step, SemError> {
        let pop = |ws: &mut WarpState<'_>| ws.vals.pop().unwrap_or_default();
        let c = pop(ws);
        let (tt, tf) = split(mask, c)?;
        let Stmt::While(_, body, _) = s else {
            return Err(SemError::Type("loop test on a non-loop".into()));
        };
        if tt.is_empty() {
            // if F then … else skip
        } else if tf.is_empty() {
            ws.items.push(Item::Loop(s));
            ws.items.push(Item::Stmt(body));
        } else {
            // switch(𝒯_T, s; while (e) s); switch∘(𝒯_F, skip)
            ws.items.push(Item::PopPaid);
            ws.items.push(Item::Push(tf));
            ws.items.push(Item::Pop);
            ws.items.push(Item::Loop(s));
            ws.items.push(Item::Stmt(body));
            ws.items.push(Item::Push(tt));
        }
        Ok(("SS:WHILE", Some(Res::If), self.lat.of(Res::If)))
    }
}

fn index_family(v: Vec<Value>, array: &str) -> Result<Vec<i64>, SemError> {
    v.into_iter()
        .map(|x| match x {
            Value::Int(i) => Ok(i),
            o => Err(SemError::Type(format!(
                "index of `{array}` must be int, got {}",
                o.ty().keyword()
            ))),
        })
        .collect()
}

/// The error for a thread-local array: RaCUDA §6's small-step rules have no access of it.
fn local_unsupported(array: &str) -> SemError {
    SemError::Unsupported(format!(
        "thread-local array `{array}`: the small-step semantics (RaCUDA §6) has no rule for \
         it; use the lock-step, SIMT or interleaving semantics"
    ))
}

fn split(mask: &[usize], c: Vec<Value>) -> Result<(Vec<usize>, Vec<usize>), SemError> {
    let mut tt = Vec::new();
    let mut tf = Vec::new();
    for (&l, v) in mask.iter().zip(c) {
        match v {
            Value::Bool(true) => tt.push(l),
            Value::Bool(false) => tf.push(l),
            o => {
                return Err(SemError::Type(format!(
                    "condition must be bool, got {}",
                    o.ty().keyword()
                )))
            }
        }
    }
    Ok((tt, tf))
}

/// Runs block `block` under the bounded implementation with `p` warp slots (`p ≥ 1`), the
/// integer latencies of `latency` (`M^rc` per operation, accesses `mul·n + add`; `sync`
/// latency is 0, Lemma 7), at most `max_steps` parallel steps, on a fresh memory.
///
/// Errors (`Err`): launch, parameter and input errors, and [`SemError::BadInput`] for a
/// latency that is not a non-negative integer; everything that happens during the run is
/// reported in [`SmallOutcome`].
#[allow(clippy::too_many_arguments)]
pub fn run_smallstep(
    prog: &Program,
    latency: &Metric,
    hw: &Hardware,
    launch: &Launch,
    block: [u32; 3],
    params: &Params,
    input: &Inputs,
    p: usize,
    max_steps: u64,
    trace: bool,
) -> Result<SmallRun, SemError> {
    check_hw(hw, launch)?;
    if let Some(a) = prog.arrays.iter().find(|a| a.space == Space::Local) {
        return Err(local_unsupported(&a.name));
    }
    if let Some((op, loc)) = prog.body.first_warp_op() {
        return Err(SemError::At {
            loc,
            error: Box::new(SemError::Unsupported(format!(
                "warp operation `{op}`: the small-step semantics (RaCUDA §6) has no rule \
                 for warp shuffles and votes; use the lock-step or SIMT semantics"
            ))),
        });
    }
    let lat = Lat::new(latency)?;
    let pv = resolve_params(prog, hw, launch, block, params)?;
    let mut mem = Memory::new(prog, input)?;
    let nw = launch.warps_per_block(hw) as usize;
    let wl: Vec<Vec<(u32, [i64; 3])>> = (0..nw as u64).map(|w| lanes(hw, launch, w)).collect();
    let locals = wl
        .iter()
        .map(|ls| {
            let mut v = Vec::with_capacity(prog.locals.len() * ls.len());
            for (_, ty) in &prog.locals {
                v.extend(std::iter::repeat_n(Value::default_of(*ty), ls.len()));
            }
            v
        })
        .collect();
    let mut m = Machine {
        prog,
        hw,
        params: pv,
        lat,
        lanes: wl,
        locals,
        var_idx: prog
            .locals
            .iter()
            .enumerate()
            .map(|(i, (x, _))| (x.as_str(), i))
            .collect(),
    };
    let mut warps: Vec<WarpState<'_>> = m
        .lanes
        .iter()
        .map(|ls| WarpState {
            delay: 0,
            items: vec![Item::Stmt(&prog.body)],
            masks: vec![(0..ls.len()).collect()],
            vals: Vec::new(),
            usage: Usage::default(),
            steps: 0,
        })
        .collect();
    let p = p.max(1);
    let mut n = 0u64;
    let mut lines = Vec::new();
    let outcome = loop {
        for ws in warps.iter_mut() {
            m.normalize(ws);
        }
        let at_sync =
            |ws: &WarpState<'_>| matches!(ws.items.last(), Some(Item::Stmt(Stmt::Sync(_))));
        if let Some((i, loc)) = warps
            .iter()
            .enumerate()
            .find_map(|(i, ws)| match ws.items.last() {
                Some(Item::Stmt(Stmt::Sync(loc))) if ws.masks.len() > 1 => Some((i, *loc)),
                _ => None,
            })
        {
            break SmallOutcome::Stuck(Stuck::BadSync { warp: i, loc });
        }
        if warps.iter().all(|ws| ws.items.is_empty()) {
            break SmallOutcome::Completed;
        }
        if n >= max_steps {
            break SmallOutcome::StepLimit(max_steps);
        }
        let ready: Vec<usize> = (0..nw)
            .filter(|&i| warps[i].delay == 0 && !warps[i].items.is_empty() && !at_sync(&warps[i]))
            .collect();
        if ready.is_empty() && warps.iter().all(|ws| ws.delay == 0) {
            // Everything left waits at a sync: BL:SYNC, or stuck if some warp finished.
            let blocked: Vec<usize> = (0..nw).filter(|&i| at_sync(&warps[i])).collect();
            if blocked.len() != nw {
                break SmallOutcome::Stuck(Stuck::SyncBlocked { blocked });
            }
            for ws in warps.iter_mut() {
                ws.items.pop();
                ws.usage.charge(Res::Sync);
                ws.steps += 1;
            }
            n += 1;
            if trace {
                lines.push(format!("{n:>6}  BL:SYNC  warps={}", nw));
            }
            continue;
        }
        // BL:STEP: the greedy split E (first P ready), U (other ready), D (delayed).
        let exec: Vec<usize> = ready.iter().copied().take(p).collect();
        let mut stepped = Vec::new();
        let mut stop = None;
        for (i, ws) in warps.iter_mut().enumerate() {
            if exec.contains(&i) {
                match m.step(i, ws, &mut mem) {
                    Ok(Ok((rule, lat))) => {
                        ws.delay = lat;
                        stepped.push(format!("w{i}:{rule}"));
                    }
                    Ok(Err(st)) => {
                        stop = Some(SmallOutcome::Stuck(st));
                        break;
                    }
                    Err(e) => {
                        stop = Some(SmallOutcome::Error(e));
                        break;
                    }
                }
            } else if ws.delay > 0 {
                ws.delay -= 1;
            }
        }
        if let Some(o) = stop {
            break o;
        }
        n += 1;
        if trace {
            let delays: Vec<String> = warps.iter().map(|w| w.delay.to_string()).collect();
            lines.push(format!(
                "{n:>6}  BL:STEP  {}  delays=[{}]",
                if stepped.is_empty() {
                    "(all delayed)".to_string()
                } else {
                    stepped.join(" ")
                },
                delays.join(",")
            ));
        }
    };
    Ok(SmallRun {
        outcome,
        steps: n,
        warp_steps: warps.iter().map(|w| w.steps).collect(),
        per_warp: warps.iter().map(|w| w.usage).collect(),
        memory: mem,
        trace: lines,
    })
}
