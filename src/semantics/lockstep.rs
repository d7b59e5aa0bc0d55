//! One warp executing miniCUDA in lock-step: the big-step judgments
//! `σ; e ⇓^𝒯_M R; C` and `σ; s ⇓^𝒯_M σ'; C` of RaCUDA §3, Fig. 5, one match arm per rule.
//!
//! Representation: the active set `𝒯` is a slice of lane positions (`0..lanes`, ascending);
//! a result family `R` is a `Vec<Value>` aligned with `𝒯`. Locals are one flat vector
//! `(local, lane) ↦ value`; arrays are a sparse [`Memory`] updated in place (no step copies
//! the store). Costs are accumulated as a [`Usage`] (counts of resource constants), from
//! which the cost under every metric follows exactly. The rules are only ever applied to a
//! non-empty `𝒯` (the initial warp is non-empty, and `SC:IFD`/`SC:WHILESOME` only recurse
//! on non-empty parts), so no access is charged on an empty family.
//!
//! Sequences (`SC:SEQ` on a right-nested chain) and loops (`SC:WHILEALL`/`SC:WHILESOME`
//! recursing on the loop) are executed iteratively, so long runs use constant stack; the
//! derivation, when requested, is assembled afterwards with the nesting of the rules.

use super::derivation::{AccRes, CostModel, Derivation, Res, Usage};
use super::races::RaceLog;
use super::run::ParamValues;
use super::store::{Memory, NameMap};
use super::value::{apply_bin_lanes, apply_un, Value};
use super::warpop::{shfl_values, vote_value};
use super::*;
use crate::core::{
    conflicts, mem_reads, Expr, Hardware, Loc, Operand, Program, Space, Stmt, WarpOp,
};
use std::cell::Cell;

mod scalar;

/// The state of one warp: its lanes, its locals, the parameter values, the usage so far,
/// the remaining fuel and whether derivations are built.
#[derive(Debug)]
pub struct Warp<'a> {
    prog: &'a Program,
    hw: &'a Hardware,
    costs: &'a CostModel,
    /// Value of each parameter the program declares (`prog.params` order; `None` when the
    /// run was not given one: reading it fails).
    params: Vec<Option<Value>>,
    param_idx: NameMap<&'a str, usize>,
    param_cache: SlotCache,
    /// Block-linear thread id of each lane.
    lane_ids: Vec<u32>,
    /// `threadIdx` of each lane.
    tids: Vec<[i64; 3]>,
    /// Locals: `locals[v * lanes + lane]`.
    locals: Vec<Value>,
    var_idx: NameMap<&'a str, usize>,
    array_idx: NameMap<&'a str, usize>,
    var_cache: SlotCache,
    array_cache: SlotCache,
    /// The rule of the last statement conclusion built by `leaf`.
    last_rule: &'static str,
    /// Spent active sets, kept for reuse.
    lane_pool: Vec<Vec<usize>>,
    /// Spent result families, kept for reuse (no allocation per rule application).
    pool: Vec<Family>,
    /// Buffer for the indices of an array access.
    idx: Vec<i64>,
    /// Resource usage so far.
    pub usage: Usage,
    fuel: u64,
    used: u64,
    trace: bool,
    /// Block mode (RaCUDA §5, cost collections): the warp index of each lane; empty in the
    /// single-warp mode of Fig. 5.
    lane_warp: Vec<u32>,
    /// Block mode: per-warp usage of the current barrier interval (segment).
    seg: Vec<Usage>,
    /// Block mode: per-warp usages of the closed segments, in order.
    segments: Vec<Vec<Usage>>,
    /// Optional access log for data-race detection (Collingbourne et al. Def. 3.1/4.1).
    pub races: Option<RaceLog>,
    /// Location of the statement being executed (for race reports).
    cur_loc: Loc,
}

type Family = Vec<Value>;

/// A direct-mapped cache in front of a name table, keyed by the address and length of the
/// name: names are `&'a str` borrowed from the program, immutable while the warp lives, so
/// a non-empty name's address identifies its text. Saves hashing the name at every operand.
#[derive(Debug)]
struct SlotCache(Vec<Cell<(usize, usize, usize)>>);

impl SlotCache {
    const SIZE: usize = 128;

    fn new() -> SlotCache {
        SlotCache(vec![Cell::new((0, 0, usize::MAX)); Self::SIZE])
    }

    /// `table[x]`, through the cache.
    #[inline(always)]
    fn get<'a>(&self, x: &'a str, table: &NameMap<&'a str, usize>) -> Option<usize> {
        let (p, n) = (x.as_ptr() as usize, x.len());
        let c = &self.0[(p >> 4 ^ p >> 11) % Self::SIZE];
        let (cp, cn, slot) = c.get();
        if cp == p && cn == n && n > 0 {
            return Some(slot);
        }
        let slot = *table.get(x)?;
        c.set((p, n, slot));
        Some(slot)
    }
}

/// The ranges `a..b` of `ids` (ascending thread ids) that lie in one warp of `warp` lanes.
fn warp_groups(ids: &[u32], warp: u32) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut a = 0;
    while a < ids.len() {
        let w = ids[a] / warp;
        let mut b = a;
        while b < ids.len() && ids[b] / warp == w {
            b += 1;
        }
        out.push((a, b));
        a = b;
    }
    out
}

/// The constant an array access charges, by space and direction, and its rule: an
/// access constant for global and shared arrays (`Ok`), `M^var` / `M^vwrite` for
/// thread-local ones (`Err`).
fn access_charge(space: Space, write: bool) -> Result<(AccRes, &'static str), (Res, &'static str)> {
    match (space, write) {
        (Space::Global, false) => Ok((AccRes::GRead, EC_GARR)),
        (Space::Shared, false) => Ok((AccRes::SRead, EC_SARR)),
        (Space::Global, true) => Ok((AccRes::GWrite, SC_GWRITE)),
        (Space::Shared, true) => Ok((AccRes::SWrite, SC_SWRITE)),
        (Space::Local, false) => Err((Res::Var, EC_LARR)),
        (Space::Local, true) => Err((Res::VWrite, SC_LWRITE)),
    }
}

fn at(loc: Loc, e: SemError) -> SemError {
    if loc == Loc::default() || matches!(e, SemError::At { .. }) {
        e
    } else {
        SemError::At {
            loc,
            error: Box::new(e),
        }
    }
}

fn as_index(v: Value, array: &str) -> Result<i64, SemError> {
    match v {
        Value::Int(i) => Ok(i),
        other => Err(SemError::Type(format!(
            "index of `{array}` must be int, got {}",
            other.ty().keyword()
        ))),
    }
}

fn as_bool(v: Value) -> Result<bool, SemError> {
    match v {
        Value::Bool(b) => Ok(b),
        other => Err(SemError::Type(format!(
            "condition must be bool, got {}",
            other.ty().keyword()
        ))),
    }
}

/// The readable head of a statement, for derivation nodes.
fn stmt_phrase(s: &Stmt) -> String {
    match s {
        Stmt::Skip => "skip".into(),
        Stmt::Seq(..) => "_ ; _".into(),
        Stmt::Assign(x, e, _) => format!("{x} ← {e}"),
        Stmt::Write(a, o, e, _) => format!("{a}[{o}] ← {e}"),
        Stmt::If(e, ..) => format!("if {e} then _ else _"),
        Stmt::While(e, ..) => format!("while ({e}) _"),
        Stmt::Sync(_) => "sync".into(),
        Stmt::Warp(x, op, _) => format!("{x} ← {op}"),
    }
}

impl<'a> Warp<'a> {
    /// A warp of `prog` whose lanes are `lanes` = (block-linear thread id, `threadIdx`),
    /// with every local at its type's default value, parameter values `params` (every
    /// declared parameter is expected to be present; a missing one fails when read), a fuel
    /// of `fuel` rule applications and, if `trace`, derivation building (node costs under
    /// the metrics of `costs`).
    pub fn new(
        prog: &'a Program,
        hw: &'a Hardware,
        costs: &'a CostModel,
        params: &ParamValues,
        lanes: &[(u32, [i64; 3])],
        fuel: u64,
        trace: bool,
    ) -> Warp<'a> {
        let mut w = Warp {
            prog,
            hw,
            costs,
            params: Vec::new(),
            param_idx: prog
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.as_str(), i))
                .collect(),
            param_cache: SlotCache::new(),
            lane_ids: Vec::new(),
            tids: Vec::new(),
            locals: Vec::new(),
            var_idx: prog
                .locals
                .iter()
                .enumerate()
                .map(|(i, (x, _))| (x.as_str(), i))
                .collect(),
            array_idx: prog
                .arrays
                .iter()
                .enumerate()
                .map(|(i, a)| (a.name.as_str(), i))
                .collect(),
            var_cache: SlotCache::new(),
            array_cache: SlotCache::new(),
            lane_pool: Vec::new(),
            last_rule: SC_SKIP,
            pool: Vec::new(),
            idx: Vec::new(),
            usage: Usage::default(),
            fuel,
            used: 0,
            trace,
            lane_warp: Vec::new(),
            seg: Vec::new(),
            segments: Vec::new(),
            races: None,
            cur_loc: Loc::default(),
        };
        w.set_params(params);
        w.reset(lanes);
        w
    }

    /// Sets the parameter values (OC:PARAM) to `params`, e.g. for the next block; only the
    /// parameters the program declares are read.
    pub(crate) fn set_params(&mut self, params: &ParamValues) {
        self.params.clear();
        self.params.extend(
            self.prog
                .params
                .iter()
                .map(|p| params.get(&p.name).copied()),
        );
    }

    /// Makes this warp a fresh warp of the same program, parameters and fuel on `lanes`:
    /// every local at its default value, no usage, no rule applied (what [`Warp::new`]
    /// returns, without rebuilding its name tables). Leaves block mode.
    pub fn reset(&mut self, lanes: &[(u32, [i64; 3])]) {
        let n = lanes.len();
        self.lane_ids.clear();
        self.lane_ids.extend(lanes.iter().map(|l| l.0));
        self.tids.clear();
        self.tids.extend(lanes.iter().map(|l| l.1));
        self.locals.clear();
        for (_, ty) in &self.prog.locals {
            self.locals
                .extend(std::iter::repeat_n(Value::default_of(*ty), n));
        }
        self.usage = Usage::default();
        self.used = 0;
        self.lane_warp.clear();
        self.seg.clear();
        self.segments.clear();
    }

    /// An empty family with room for `n` values (reused from [`Warp::give`]).
    #[inline]
    fn family(&mut self, n: usize) -> Family {
        let mut f = self.pool.pop().unwrap_or_default();
        f.clear();
        f.reserve(n);
        f
    }

    /// Returns a spent family for reuse.
    #[inline]
    fn give(&mut self, f: Family) {
        if self.pool.len() < 8 {
            self.pool.push(f);
        }
    }

    /// An empty active set with room for `n` lanes (reused from [`Warp::give_lanes`]).
    #[inline]
    fn lanes_buf(&mut self, n: usize) -> Vec<usize> {
        let mut v = self.lane_pool.pop().unwrap_or_default();
        v.clear();
        v.reserve(n);
        v
    }

    /// Returns a spent active set for reuse.
    #[inline]
    fn give_lanes(&mut self, v: Vec<usize>) {
        if self.lane_pool.len() < 16 {
            self.lane_pool.push(v);
        }
    }

    /// The usage now, when derivations are built (the start of a node); `None` otherwise.
    #[inline]
    fn mark(&self) -> Option<Usage> {
        self.trace.then_some(self.usage)
    }

    /// Switches to *block mode* (RaCUDA §5, Figs. 10–12): the lanes are all threads of a
    /// block and `lane_warp[l]` is the warp of lane `l` (lanes ascending by thread id, so
    /// each warp's lanes are contiguous). Every charge `C ⊕_𝒯 M^rc` then goes once to each
    /// warp with an active lane (per-warp access counts `MemReads`/`Conflicts` over that
    /// warp's lanes), `M^div` only to warps that actually split, and `sync` must be reached
    /// by every lane ([`SemError::BarrierDivergence`] otherwise) and closes a segment.
    /// [`Warp::usage`] is then the sum over warps (the work usage).
    pub fn block_mode(&mut self, lane_warp: Vec<u32>) {
        let n = lane_warp.iter().map(|&w| w as usize + 1).max().unwrap_or(0);
        self.lane_warp = lane_warp;
        self.seg = vec![Usage::default(); n];
        self.segments.clear();
    }

    /// Block mode: the per-warp usages of every segment (barrier interval), the open one
    /// last. Empty in single-warp mode.
    pub fn segments(&self) -> Vec<Vec<Usage>> {
        if self.lane_warp.is_empty() {
            return Vec::new();
        }
        let mut out = self.segments.clone();
        out.push(self.seg.clone());
        out
    }

    /// Charges `r` once per warp with an active lane (once in single-warp mode).
    #[inline]
    fn charge(&mut self, ts: &[usize], r: Res) {
        if self.lane_warp.is_empty() {
            self.usage.charge(r);
            return;
        }
        let mut last = u32::MAX;
        for &l in ts {
            let w = self.lane_warp[l];
            if w != last {
                last = w;
                self.usage.charge(r);
                self.seg[w as usize].charge(r);
            }
        }
    }

    /// Charges an array access by the array's space and returns the rule that charges it:
    /// a global access `M^gread(n)`/`M^gwrite(n)` with `n = MemReads` (EC:GARR, SC:GWRITE),
    /// a shared one `M^sread(n)`/`M^swrite(n)` with `n = Conflicts` (EC:SARR, SC:SWRITE), a
    /// thread-local one the constant `M^var`/`M^vwrite` (EC:LARR, SC:LWRITE).
    fn charge_space(
        &mut self,
        ts: &[usize],
        idx: &[i64],
        space: Space,
        bytes: u32,
        write: bool,
    ) -> &'static str {
        let (acc, rule) = match access_charge(space, write) {
            Ok(a) => a,
            Err((r, rule)) => {
                self.charge(ts, r);
                return rule;
            }
        };
        self.charge_access(ts, idx, bytes, acc);
        rule
    }

    /// Charges an access `M^r(n)`, `n` = `MemReads`/`Conflicts` of the indices of each
    /// warp's active lanes (the whole family in single-warp mode).
    fn charge_access(&mut self, ts: &[usize], idx: &[i64], elem_bytes: u32, r: AccRes) {
        let count = |ix: &[i64], hw: &Hardware| match r {
            AccRes::GRead | AccRes::GWrite => mem_reads(ix, elem_bytes, hw),
            AccRes::SRead | AccRes::SWrite => conflicts(ix, elem_bytes, hw),
        };
        if self.lane_warp.is_empty() {
            let n = count(idx, self.hw);
            self.usage.charge_access(r, n);
            return;
        }
        let mut i = 0;
        while i < ts.len() {
            let w = self.lane_warp[ts[i]];
            let mut j = i;
            while j < ts.len() && self.lane_warp[ts[j]] == w {
                j += 1;
            }
            let n = count(&idx[i..j], self.hw);
            self.usage.charge_access(r, n);
            self.seg[w as usize].charge_access(r, n);
            i = j;
        }
    }

    /// Charges `M^div` for a split of the active set into `tt` and `tf` (both non-empty):
    /// once in single-warp mode; in block mode once per warp with lanes on both sides
    /// (`⊕_{w | ∃t1 ∈ 𝒯_T, t2 ∈ 𝒯_F. w = WarpOf(t1) = WarpOf(t2)}`, SC:IFFULL).
    pub(crate) fn charge_div(&mut self, tt: &[usize], tf: &[usize]) {
        if self.lane_warp.is_empty() {
            self.usage.charge(Res::Div);
            return;
        }
        let mut in_t = vec![false; self.seg.len()];
        for &l in tt {
            in_t[self.lane_warp[l] as usize] = true;
        }
        let mut done = vec![false; self.seg.len()];
        for &l in tf {
            let w = self.lane_warp[l] as usize;
            if in_t[w] && !done[w] {
                done[w] = true;
                self.usage.charge(Res::Div);
                self.seg[w].charge(Res::Div);
            }
        }
    }

    /// Executes `s` on the active lanes `ts` (ascending, non-empty): the statement rules of
    /// Fig. 5 applied to an arbitrary active set. Used by the interleaving semantics (one
    /// lane: a thread step) and the SIMT machine (the active mask) for atomic statements.
    /// Returns the rule of the conclusion for `skip`, `x ← e` and `A[o] ← e` (`SC:SKIP`
    /// for an empty `ts`, where nothing runs).
    pub(crate) fn exec_on(
        &mut self,
        s: &'a Stmt,
        ts: &[usize],
        mem: &mut Memory,
    ) -> Result<&'static str, SemError> {
        if ts.is_empty() {
            return Ok(SC_SKIP);
        }
        self.exec(s, ts, mem)?;
        Ok(self.last_rule)
    }

    /// The first premise of SC:IFT/IFF/IFD (and of the loop rules) plus its `M^if`:
    /// evaluates the condition `e` on `ts` and charges `M^if`; leaves one boolean per lane
    /// of `ts` in `out`. `loc` is the statement's location (for errors and race reports).
    pub(crate) fn branch(
        &mut self,
        e: &'a Expr,
        ts: &[usize],
        mem: &mut Memory,
        loc: Loc,
        out: &mut Vec<bool>,
    ) -> Result<(), SemError> {
        self.cur_loc = loc;
        out.clear();
        let r = (|| {
            self.tick()?;
            let (r, _) = self.eval_expr(e, ts, mem)?;
            self.charge(ts, Res::If);
            for v in &r {
                out.push(as_bool(*v)?);
            }
            self.give(r);
            Ok(())
        })();
        r.map_err(|x| at(loc, x))
    }

    /// Charges `M^sync` on `ts` without block-mode checks (the thread-level semantics
    /// handle barriers themselves); one rule application.
    pub(crate) fn charge_sync(&mut self, ts: &[usize]) -> Result<(), SemError> {
        self.tick()?;
        self.charge(ts, Res::Sync);
        Ok(())
    }

    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        self.lane_ids.len()
    }

    /// Block-linear thread id of each lane.
    pub fn lane_ids(&self) -> &[u32] {
        &self.lane_ids
    }

    /// Rule applications so far.
    pub fn steps_used(&self) -> u64 {
        self.used
    }

    /// The value of local `x` in lane `lane`, if both exist.
    pub fn local(&self, x: &str, lane: usize) -> Option<Value> {
        let v = *self.var_idx.get(x)?;
        if lane >= self.lanes() {
            return None;
        }
        self.locals.get(v * self.lanes() + lane).copied()
    }

    /// Runs `s` on all lanes (the warp's full thread set) against `mem`.
    ///
    /// Returns the derivation of `σ; s ⇓^𝒯_M σ'; C` when tracing is on (else `None`);
    /// `σ'` is left in `mem` and in the warp's locals, `C` is added to [`Warp::usage`].
    /// Errors: any [`SemError`] raised by a rule, wrapped in [`SemError::At`] with the
    /// innermost statement location known; [`SemError::OutOfFuel`].
    pub fn run(&mut self, s: &'a Stmt, mem: &mut Memory) -> Result<Option<Derivation>, SemError> {
        let all: Vec<usize> = (0..self.lanes()).collect();
        if all.is_empty() {
            return Ok(None);
        }
        self.exec(s, &all, mem)
    }

    #[inline]
    fn tick(&mut self) -> Result<(), SemError> {
        if self.used >= self.fuel {
            return Err(SemError::OutOfFuel(self.fuel));
        }
        self.used += 1;
        Ok(())
    }

    fn node(
        &self,
        rule: &'static str,
        ts: &[usize],
        start: &Option<Usage>,
        phrase: String,
        children: Vec<Derivation>,
    ) -> Derivation {
        Derivation {
            rule,
            threads: ts.iter().map(|&l| self.lane_ids[l]).collect(),
            cost: self
                .costs
                .costs(&self.usage.since(&start.unwrap_or_default())),
            phrase,
            children,
        }
    }

    #[inline]
    fn var_slot(&self, x: &'a str) -> Result<usize, SemError> {
        self.var_cache
            .get(x, &self.var_idx)
            .ok_or_else(|| SemError::Undeclared {
                kind: "local",
                name: x.to_string(),
            })
    }

    /// The slot of local `x` and its declared type.
    #[inline(always)]
    fn var_slot_ty(&self, x: &'a str) -> Result<(usize, Ty), SemError> {
        let slot = self.var_slot(x)?;
        let ty =
            self.prog
                .locals
                .get(slot)
                .map(|(_, t)| *t)
                .ok_or_else(|| SemError::Undeclared {
                    kind: "local",
                    name: x.to_string(),
                })?;
        Ok((slot, ty))
    }

    #[inline]
    fn array_slot(&self, a: &'a str) -> Result<usize, SemError> {
        self.array_cache
            .get(a, &self.array_idx)
            .ok_or_else(|| SemError::Undeclared {
                kind: "array",
                name: a.to_string(),
            })
    }

    /// The value of parameter `p` (OC:PARAM). Errors: [`SemError::Undeclared`].
    #[inline]
    fn param(&self, p: &'a str) -> Result<Value, SemError> {
        self.param_cache
            .get(p, &self.param_idx)
            .and_then(|k| self.params.get(k).copied().flatten())
            .ok_or_else(|| SemError::Undeclared {
                kind: "parameter",
                name: p.to_string(),
            })
    }

    /// `σ; o ⇓^𝒯_M R; C` — rules OC:VAR, OC:CONST, OC:PARAM, OC:TID.
    fn eval_opd(
        &mut self,
        o: &'a Operand,
        ts: &[usize],
    ) -> Result<(Family, Option<Derivation>), SemError> {
        self.tick()?;
        let start = self.mark();
        let mut fam = self.family(ts.len());
        let rule = match o {
            Operand::Var(x) => {
                let base = self.var_slot(x)? * self.lanes();
                let col = self
                    .locals
                    .get(base..base + self.lanes())
                    .ok_or_else(|| SemError::Type(format!("local `{x}` has no storage")))?;
                if ts.len() == col.len() {
                    // every lane active: `ts` is `0..lanes` (ascending, distinct)
                    fam.extend_from_slice(col);
                } else {
                    fam.extend(ts.iter().map(|&l| col[l]));
                }
                self.charge(ts, Res::Var);
                OC_VAR
            }
            Operand::Const(c) => {
                fam.resize(ts.len(), Value::of_const(c));
                self.charge(ts, Res::Const);
                OC_CONST
            }
            Operand::Param(p) => {
                let v = self.param(p)?;
                fam.resize(ts.len(), v);
                self.charge(ts, Res::Param);
                OC_PARAM
            }
            Operand::Tid(d) => {
                let k = d.index();
                fam.extend(ts.iter().map(|&l| Value::Int(self.tids[l][k])));
                self.charge(ts, Res::Var);
                OC_TID
            }
        };
        let d = if self.trace {
            Some(self.node(rule, ts, &start, o.to_string(), Vec::new()))
        } else {
            None
        };
        Ok((fam, d))
    }

    /// The indices of an array access (`as_index` on every value of `r`), into `idx`.
    fn indices(r: &[Value], array: &str, idx: &mut Vec<i64>) -> Result<(), SemError> {
        idx.clear();
        for v in r {
            idx.push(as_index(*v, array)?);
        }
        Ok(())
    }

    /// `σ; e ⇓^𝒯_M R; C` — operands and rules EC:OP, EC:UOP, EC:GARR, EC:SARR.
    fn eval_expr(
        &mut self,
        e: &'a Expr,
        ts: &[usize],
        mem: &mut Memory,
    ) -> Result<(Family, Option<Derivation>), SemError> {
        let (a, b) = match e {
            Expr::Opd(o) => return self.eval_opd(o, ts),
            Expr::Bin(_, a, b) => (a, Some(b)),
            Expr::Un(_, a) => (a, None),
            Expr::Read(_, o) => (o, None),
        };
        self.tick()?;
        let start = self.mark();
        let (mut ra, da) = self.eval_opd(a, ts)?;
        let mut kids = Vec::new();
        kids.extend(da);
        let rule = match e {
            Expr::Bin(op, ..) => {
                let (rb, db) = match b {
                    Some(b) => self.eval_opd(b, ts)?,
                    None => return Err(SemError::Type("binary operator without operand".into())),
                };
                kids.extend(db);
                apply_bin_lanes(*op, &mut ra, &rb)?;
                self.give(rb);
                self.charge(ts, Res::Op);
                EC_OP
            }
            Expr::Un(op, _) => {
                for x in ra.iter_mut() {
                    *x = apply_un(*op, *x)?;
                }
                self.charge(ts, Res::Op);
                EC_UOP
            }
            Expr::Read(arr, _) => {
                let slot = self.array_slot(arr)?;
                let mut idx = std::mem::take(&mut self.idx);
                Self::indices(&ra, arr, &mut idx)?;
                let cells = mem
                    .arrays
                    .get_mut(slot)
                    .ok_or_else(|| SemError::Undeclared {
                        kind: "array",
                        name: arr.clone(),
                    })?;
                for (x, &i) in ra.iter_mut().zip(&idx) {
                    *x = cells.read(i);
                }
                let (space, bytes) = (cells.space, cells.elem_bytes);
                if let Some(log) = self.races.as_mut() {
                    for (&l, &i) in ts.iter().zip(&idx) {
                        log.access(slot, space, i, self.lane_ids[l], None, self.cur_loc, arr)?;
                    }
                }
                let rule = self.charge_space(ts, &idx, space, bytes, false);
                self.idx = idx;
                rule
            }
            Expr::Opd(_) => return Err(SemError::Type("unreachable operand case".into())),
        };
        let d = if self.trace {
            Some(self.node(rule, ts, &start, e.to_string(), kids))
        } else {
            None
        };
        Ok((ra, d))
    }

    /// `σ; s ⇓^𝒯_M σ'; C` — the statement rules (`ts` non-empty).
    fn exec(
        &mut self,
        s: &'a Stmt,
        ts: &[usize],
        mem: &mut Memory,
    ) -> Result<Option<Derivation>, SemError> {
        match s {
            Stmt::Seq(..) => self.exec_seq(s, ts, mem),
            Stmt::While(e, body, loc) => {
                self.cur_loc = *loc;
                self.exec_while(e, body, ts, mem, *loc)
                    .map_err(|x| at(*loc, x))
            }
            Stmt::Skip => {
                self.tick()?;
                let start = self.mark();
                Ok(self.leaf(SC_SKIP, ts, &start, s, Vec::new()))
            }
            Stmt::Sync(loc) => {
                // SC:SYNC in lock-step: a barrier is a no-op on the store of one warp.
                self.tick().map_err(|x| at(*loc, x))?;
                let start = self.mark();
                if !self.lane_warp.is_empty() && ts.len() != self.lanes() {
                    // Block mode: a barrier reached by only part of the block has no
                    // derivation (RaCUDA §5; Collingbourne et al.'s barrier divergence).
                    return Err(SemError::BarrierDivergence {
                        loc: *loc,
                        reached: ts.iter().map(|&l| self.lane_ids[l]).collect(),
                        waiting: (0..self.lanes())
                            .filter(|l| !ts.contains(l))
                            .map(|l| self.lane_ids[l])
                            .collect(),
                    });
                }
                self.charge(ts, Res::Sync);
                if !self.lane_warp.is_empty() {
                    // SF:PARTIAL: the segment ends here; spans are joined by the caller.
                    let fresh = vec![Usage::default(); self.seg.len()];
                    self.segments.push(std::mem::replace(&mut self.seg, fresh));
                    if let Some(log) = self.races.as_mut() {
                        log.barrier();
                    }
                }
                Ok(self.leaf(SC_SYNC, ts, &start, s, Vec::new()))
            }
            Stmt::Assign(x, e, loc) => {
                self.cur_loc = *loc;
                self.exec_assign(s, x, e, ts, mem).map_err(|y| at(*loc, y))
            }
            Stmt::Write(a, o, e, loc) => {
                self.cur_loc = *loc;
                self.exec_write(s, a, o, e, ts, mem)
                    .map_err(|y| at(*loc, y))
            }
            Stmt::If(e, s1, s2, loc) => {
                self.cur_loc = *loc;
                self.exec_if(s, e, s1, s2, ts, mem).map_err(|y| at(*loc, y))
            }
            Stmt::Warp(x, op, loc) => {
                self.cur_loc = *loc;
                self.exec_warp(s, x, op, ts).map_err(|y| at(*loc, y))
            }
        }
    }

    /// SC:SHFL and SC:VOTE: the operands on `ts`, then the values of `warpop.rs` computed
    /// per warp (in block mode each warp's lanes exchange among themselves), assigned to
    /// `x`; costs `C1 (+ C2) + M^op + M^vwrite`.
    fn exec_warp(
        &mut self,
        s: &'a Stmt,
        x: &'a str,
        op: &'a WarpOp,
        ts: &[usize],
    ) -> Result<Option<Derivation>, SemError> {
        self.tick()?;
        let start = self.mark();
        let slot = self.var_slot(x)?;
        let ty = self.prog.locals.get(slot).map(|(_, t)| *t);
        let mut kids = Vec::new();
        let warp = self.hw.warp_size.max(1);
        let ids: Vec<u32> = ts.iter().map(|&l| self.lane_ids[l]).collect();
        let mut out = Vec::with_capacity(ts.len());
        let rule = match op {
            WarpOp::Shfl {
                kind,
                width,
                value,
                lane,
            } => {
                let (rv, dv) = self.eval_opd(value, ts)?;
                let (rl, dl) = self.eval_opd(lane, ts)?;
                kids.extend(dv);
                kids.extend(dl);
                for (a, b) in warp_groups(&ids, warp) {
                    out.extend(shfl_values(
                        *kind,
                        *width,
                        warp,
                        &ids[a..b],
                        &rv[a..b],
                        &rl[a..b],
                    )?);
                }
                self.give(rv);
                self.give(rl);
                SC_SHFL
            }
            WarpOp::Vote { kind, pred } => {
                let (rp, dp) = self.eval_opd(pred, ts)?;
                kids.extend(dp);
                for (a, b) in warp_groups(&ids, warp) {
                    let v = vote_value(*kind, warp, &ids[a..b], &rp[a..b])?;
                    out.extend(std::iter::repeat_n(Value::Int(v), b - a));
                }
                self.give(rp);
                SC_VOTE
            }
        };
        if let Some(v) = out.iter().find(|v| Some(v.ty()) != ty) {
            return Err(SemError::Type(format!(
                "assigning a {} value to `{x}` of type {}",
                v.ty().keyword(),
                ty.map(|t| t.keyword()).unwrap_or("?")
            )));
        }
        let base = slot * self.lanes();
        for (&l, v) in ts.iter().zip(&out) {
            if let Some(cell) = self.locals.get_mut(base + l) {
                *cell = *v;
            }
        }
        self.charge(ts, Res::Op);
        self.charge(ts, Res::VWrite);
        Ok(self.leaf(rule, ts, &start, s, kids))
    }

    #[inline]
    fn leaf(
        &mut self,
        rule: &'static str,
        ts: &[usize],
        start: &Option<Usage>,
        s: &'a Stmt,
        kids: Vec<Derivation>,
    ) -> Option<Derivation> {
        self.last_rule = rule;
        if self.trace {
            Some(self.node(rule, ts, start, stmt_phrase(s), kids))
        } else {
            None
        }
    }

    /// SC:SEQ, iterated along the right spine of `s1; (s2; (s3; …))`.
    fn exec_seq(
        &mut self,
        s: &'a Stmt,
        ts: &[usize],
        mem: &mut Memory,
    ) -> Result<Option<Derivation>, SemError> {
        // (usage before the SC:SEQ node, derivation of its first premise)
        let mut spine: Vec<(Option<Usage>, Option<Derivation>)> = Vec::new();
        let mut cur = s;
        let last = loop {
            match cur {
                Stmt::Seq(a, b) => {
                    self.tick()?;
                    let start = self.mark();
                    let d = self.exec(a, ts, mem)?;
                    if self.trace {
                        spine.push((start, d));
                    }
                    cur = b;
                }
                other => break self.exec(other, ts, mem)?,
            }
        };
        if !self.trace {
            return Ok(None);
        }
        let mut acc = last;
        while let Some((start, d1)) = spine.pop() {
            let mut kids = Vec::with_capacity(2);
            kids.extend(d1);
            kids.extend(acc);
            acc = Some(self.node(SC_SEQ, ts, &start, "_ ; _".into(), kids));
        }
        Ok(acc)
    }

    /// SC:VWRITE.
    fn exec_assign(
        &mut self,
        s: &'a Stmt,
        x: &'a str,
        e: &'a Expr,
        ts: &[usize],
        mem: &mut Memory,
    ) -> Result<Option<Derivation>, SemError> {
        self.tick()?;
        let start = self.mark();
        let (slot, ty) = self.var_slot_ty(x)?;
        let (r, de) = self.eval_expr(e, ts, mem)?;
        if let Some(v) = r.iter().find(|v| v.ty() != ty) {
            return Err(SemError::Type(format!(
                "assigning a {} value to `{x}` of type {}",
                v.ty().keyword(),
                ty.keyword()
            )));
        }
        let (base, n) = (slot * self.lanes(), self.lanes());
        match self.locals.get_mut(base..base + n) {
            // every lane active: `ts` is `0..lanes` (ascending, distinct)
            Some(col) if ts.len() == n && r.len() == n => col.copy_from_slice(&r),
            _ => {
                for (&l, v) in ts.iter().zip(&r) {
                    if let Some(cell) = self.locals.get_mut(base + l) {
                        *cell = *v;
                    }
                }
            }
        }
        self.give(r);
        self.charge(ts, Res::VWrite);
        Ok(self.leaf(SC_VWRITE, ts, &start, s, de.into_iter().collect()))
    }

    /// SC:GWRITE / SC:SWRITE, with the write-write race check.
    fn exec_write(
        &mut self,
        s: &'a Stmt,
        a: &'a str,
        o: &'a Operand,
        e: &'a Expr,
        ts: &[usize],
        mem: &mut Memory,
    ) -> Result<Option<Derivation>, SemError> {
        self.tick()?;
        let start = self.mark();
        let slot = self.array_slot(a)?;
        let (r1, d1) = self.eval_opd(o, ts)?;
        let (r2, d2) = self.eval_expr(e, ts, mem)?;
        let mut idx = std::mem::take(&mut self.idx);
        Self::indices(&r1, a, &mut idx)?;
        self.give(r1);
        let cells = mem
            .arrays
            .get_mut(slot)
            .ok_or_else(|| SemError::Undeclared {
                kind: "array",
                name: a.to_string(),
            })?;
        if let Some(v) = r2.iter().find(|v| v.ty() != cells.elem) {
            return Err(SemError::Type(format!(
                "writing a {} value into `{a}` of element type {}",
                v.ty().keyword(),
                cells.elem.keyword()
            )));
        }
        if let Some(log) = self.races.as_mut() {
            for ((&l, &i), &v) in ts.iter().zip(&idx).zip(&r2) {
                log.access(
                    slot,
                    cells.space,
                    i,
                    self.lane_ids[l],
                    Some(v),
                    self.cur_loc,
                    a,
                )?;
            }
        }
        // Race check: distinct (strictly ascending) indices cannot race; otherwise sort
        // (index, position) and compare neighbours.
        if !idx.windows(2).all(|w| w[0] < w[1]) {
            let mut order: Vec<usize> = (0..idx.len()).collect();
            order.sort_by_key(|&k| (idx[k], k));
            for w in order.windows(2) {
                let (p, q) = (w[0], w[1]);
                if idx[p] == idx[q] && !r2[p].same_bits(r2[q]) {
                    return Err(SemError::Race {
                        array: a.to_string(),
                        index: idx[p],
                        t1: self.lane_ids[ts[p]],
                        v1: r2[p],
                        t2: self.lane_ids[ts[q]],
                        v2: r2[q],
                    });
                }
            }
        }
        for (&i, &v) in idx.iter().zip(r2.iter()) {
            cells.set(i, v);
        }
        self.give(r2);
        let (space, bytes) = (cells.space, cells.elem_bytes);
        let rule = self.charge_space(ts, &idx, space, bytes, true);
        self.idx = idx;
        let kids = d1.into_iter().chain(d2).collect();
        Ok(self.leaf(rule, ts, &start, s, kids))
    }

    /// SC:IFT, SC:IFF, SC:IFD.
    fn exec_if(
        &mut self,
        s: &'a Stmt,
        e: &'a Expr,
        s1: &'a Stmt,
        s2: &'a Stmt,
        ts: &[usize],
        mem: &mut Memory,
    ) -> Result<Option<Derivation>, SemError> {
        self.tick()?;
        let start = self.mark();
        let (r, de) = self.eval_expr(e, ts, mem)?;
        self.charge(ts, Res::If);
        let mut tt = self.lanes_buf(ts.len());
        let mut tf = self.lanes_buf(ts.len());
        for (&l, v) in ts.iter().zip(&r) {
            if as_bool(*v)? {
                tt.push(l);
            } else {
                tf.push(l);
            }
        }
        self.give(r);
        let mut kids: Vec<Derivation> = de.into_iter().collect();
        let rule = if tf.is_empty() {
            kids.extend(self.exec(s1, ts, mem)?);
            SC_IFT
        } else if tt.is_empty() {
            kids.extend(self.exec(s2, ts, mem)?);
            SC_IFF
        } else {
            // s1 on 𝒯_T, then s2 on 𝒯_F on the store s1 produced; plus M^div.
            self.charge_div(&tt, &tf);
            kids.extend(self.exec(s1, &tt, mem)?);
            kids.extend(self.exec(s2, &tf, mem)?);
            SC_IFD
        };
        self.give_lanes(tt);
        self.give_lanes(tf);
        Ok(self.leaf(rule, ts, &start, s, kids))
    }

    /// SC:WHILEALL, SC:WHILESOME (continuing on `𝒯_T`), SC:WHILENONE, iterated.
    fn exec_while(
        &mut self,
        e: &'a Expr,
        body: &'a Stmt,
        ts: &[usize],
        mem: &mut Memory,
        loc: Loc,
    ) -> Result<Option<Derivation>, SemError> {
        struct Iter {
            rule: &'static str,
            threads: Vec<usize>,
            start: Option<Usage>,
            kids: Vec<Derivation>,
        }
        let mut iters: Vec<Iter> = Vec::new();
        let mut cur: Vec<usize> = ts.to_vec();
        loop {
            self.tick()?;
            let start = self.mark();
            self.cur_loc = loc;
            let (r, de) = self.eval_expr(e, &cur, mem)?;
            self.charge(&cur, Res::If);
            let mut tt = Vec::with_capacity(cur.len());
            let mut tf = Vec::new();
            for (&l, v) in cur.iter().zip(&r) {
                if as_bool(*v)? {
                    tt.push(l);
                } else if !self.lane_warp.is_empty() {
                    tf.push(l);
                }
            }
            self.give(r);
            let mut kids: Vec<Derivation> = de.into_iter().collect();
            // next: None = the loop ends; Some(None) = same threads; Some(Some(t)) = 𝒯_T.
            let (rule, next) = if tt.is_empty() {
                (SC_WHILENONE, None)
            } else if tt.len() == cur.len() {
                kids.extend(self.exec(body, &cur, mem)?);
                (SC_WHILEALL, Some(None))
            } else {
                self.charge_div(&tt, &tf);
                kids.extend(self.exec(body, &tt, mem)?);
                (SC_WHILESOME, Some(Some(tt)))
            };
            if self.trace {
                iters.push(Iter {
                    rule,
                    threads: cur.clone(),
                    start,
                    kids,
                });
            }
            match next {
                None => break,
                Some(None) => {}
                Some(Some(t)) => cur = t,
            }
        }
        if !self.trace {
            return Ok(None);
        }
        let phrase = format!("while ({e}) _");
        let mut acc: Option<Derivation> = None;
        while let Some(mut it) = iters.pop() {
            it.kids.extend(acc);
            acc = Some(self.node(it.rule, &it.threads, &it.start, phrase.clone(), it.kids));
        }
        Ok(acc)
    }
}
