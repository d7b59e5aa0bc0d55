//! The inference proper (RaCUDA §7, note §8): a forward abstract interpretation that fixes
//! the rule of every statement and the `(P, D)` parts of every assertion, then a backward
//! pass that builds potentials with template coefficients (LP variables), the LP, and the
//! instantiation of the derivation tree with the exact LP solution.
//!
//! Loops: a loop with a linear ranking atom (`x ← x + c`, or a symbolic step `x ← x + s`
//! with `s ≥ 1`, relaxed by a `mono` rewrite) is Q:WHILE1/2; one whose trip count `P`
//! decides is unrolled (Q:UNROLL); one left by jumps whose body tests a counter after
//! updating it (`do { …; i -= 20; if (i <= 0) return …; } while (1)`) is Q:WHILEEXIT1/2 of
//! spec/logic.md §4a: its body is analysed in *filtered* position (the post's `D` is about
//! the threads that stay), exits are Q:IFEXIT1/4, and the ranking atom (`max0(i)`) is
//! released by a shift rewrite in the else branch of the counter test (`max0(i + 20) =
//! max0(i) + 20` under `i ≥ 1`). Invariants keep `D` entries and constraints only of the
//! locals (and parameters) some later statement reads.

use super::access::{n_star, range_bound, AccessKind};
use super::entail::{entails, entails_all, join_p, thread_projection};
use super::linear::*;
use super::lp::{Lp, Rel};
use super::tpoly::{LinExpr, TPoly};
use super::{AnalysisError, AnalysisOptions};
use crate::certificate::{Assn, Farkas, Field, Judgment, Node, Rewrite};
use crate::core::assertion::linear::*;
use crate::core::assertion::poly::{canon_atom, AtomVal, Coef, Mono, Poly};
use crate::core::metric::{q, Q};
use crate::core::{Expr, Hardware, Launch, Loc, Metric, Operand, Program, Space, Stmt, Ty};
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Most iterations a loop is unrolled by Q:UNROLL before the analysis falls back to
/// Q:WHILE1/2 (a launch-constant trip count such as `for (s = 1; s < 1024; s *= 2)` is 10).
pub const UNROLL_LIMIT: usize = 64;

/// An abstract state `(P, D)`. Both parts are shared (`Rc`): consecutive program points
/// mostly carry the same lists, and every derivation node holds its pre and post.
#[derive(Clone, Debug, PartialEq)]
pub struct Abs {
    /// Linear constraints (ordered list).
    pub p: Arc<Vec<Cstr>>,
    /// Thread-dependence map.
    pub d: Arc<DepMap>,
}

fn with(p: &[Cstr], extra: &[Cstr]) -> Vec<Cstr> {
    let mut out = p.to_vec();
    out.extend(extra.iter().cloned());
    out
}

fn identity_witnesses(p: &[Cstr]) -> Vec<Farkas> {
    (0..p.len()).map(|i| Farkas(vec![(i, Q::one())])).collect()
}

/// Witnesses for each constraint of `sub` (a sublist of `p`, in order) by position.
fn subset_witnesses(p: &[Cstr], sub: &[Cstr]) -> Vec<Farkas> {
    let mut out = Vec::new();
    let mut j = 0;
    for c in sub {
        while j < p.len() && p[j] != *c {
            j += 1;
        }
        out.push(Farkas(vec![(j, Q::one())]));
        j += 1;
    }
    out
}

fn minus_writes(d: &DepMap, w: &[String]) -> DepMap {
    d.iter()
        .filter(|(x, _)| !w.contains(x))
        .map(|(x, e)| (x.clone(), *e))
        .collect()
}

/// The loop's ranking atom: canonical `max0(atom)`, shift amount, witness for the shift.
#[derive(Clone, Debug)]
struct LoopAtom {
    atom: Lin,
    shift: Q,
    witness: Farkas,
    /// The counter's step is symbolic and `shift` only its lower bound (a `mono` rewrite
    /// may be needed after the shift).
    symbolic: bool,
}

/// The annotated statement produced by the forward pass.
#[derive(Clone, Debug)]
struct AN {
    pre: Abs,
    post: Abs,
    kind: AK,
}

// one value per analysed statement, built once per pass: the size difference of the
// variants costs nothing measurable, boxing the loop variants would only add indirections
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum AK {
    Skip,
    Sync,
    Seq(Box<AN>, Box<AN>),
    Assign {
        x: String,
        loc: Loc,
        lin: Option<Lin>,
        vw1: bool,
        witnesses: Vec<Farkas>,
        e: Node,
        cost: Q,
    },
    Write {
        global: bool,
        n: u64,
        o: Node,
        e: Node,
        cost: Q,
    },
    If23 {
        rule: &'static str,
        witnesses: Vec<Farkas>,
        e: Node,
        cost: Q,
        branch: Box<AN>,
    },
    If1 {
        e: Node,
        cost: Q,
        t: Box<AN>,
        f: Box<AN>,
        join: Abs,
        wt: Vec<Farkas>,
        wf: Vec<Farkas>,
        /// Rewrites of the branch pre potentials (filtered position only).
        rw_t: Vec<Rewrite>,
        rw_f: Vec<Rewrite>,
    },
    If4 {
        e: Node,
        cost: Q,
        t: Box<AN>,
        f: Box<AN>,
        w_else_cond: Vec<Farkas>,
        w_else_then: Vec<Farkas>,
        w_join_then: Vec<Farkas>,
        w_join_else: Vec<Farkas>,
    },
    /// Q:WEAK adding to the pre the thread constraints `P` implies through its equalities
    /// (`thread_projection`), which select the lanes `N*` counts in the branches of a
    /// divergent `if`; `w_pre` proves `inner.pre.P` from the node's pre, post unchanged.
    Tighten {
        inner: Box<AN>,
        w_pre: Vec<Farkas>,
    },
    /// Q:UNROLL: the loop by its first iteration; `inner` is about
    /// `if e then (body; loop) else skip` (Q:IF2 into an iteration, Q:IF3 out of the last).
    Unroll {
        inner: Box<AN>,
    },
    /// Q:IFEXIT1/4 (spec/logic.md §4a): `t` leaves the loop (ordinary), `f` is filtered.
    IfExit {
        uniform: bool,
        e: Node,
        cost: Q,
        t: Box<AN>,
        f: Box<AN>,
        w_exit: Vec<Farkas>,
        w_join_then: Vec<Farkas>,
        w_join_else: Vec<Farkas>,
        /// Rewrites justifying the else branch's potential from the node's (shift by an
        /// update of a counter the else condition bounds).
        rw_f: Vec<Rewrite>,
        /// The else branch's pre as the rule states it, `(P ∧ ¬c, D)`; `f.pre` may have
        /// fewer `D` entries (those of locals dead in the else branch are dropped by a
        /// Q:WEAK, which keeps every later assertion small).
        f_pre: Abs,
    },
    /// Q:WHILEEXIT1/2: the body is filtered for the loop condition.
    WhileExit {
        e: Node,
        cost: Q,
        uniform: bool,
        inv: Abs,
        body: Box<AN>,
        w_pre: Vec<Farkas>,
        w_body_post: Vec<Farkas>,
        key: usize,
        /// Whether the body has a loop of its own.
        nested: bool,
    },
    While {
        e: Node,
        cost: Q,
        uniform: bool,
        inv: Abs,
        body: Box<AN>,
        w_pre: Vec<Farkas>,
        w_body_post: Vec<Farkas>,
        atom: Option<LoopAtom>,
        /// Why the loop has no ranking atom (when `atom` is `None`).
        atom_err: Option<String>,
        writes: Vec<String>,
        loc: Loc,
        key: usize,
    },
}

/// Inference context.
pub struct Ctx<'a> {
    prog: &'a Program,
    metric: &'a Metric,
    hw: &'a Hardware,
    launch: &'a Launch,
    degree: usize,
    /// Candidate atoms of each loop's invariant template, keyed by the address of the loop
    /// body: the loop's own atoms and those of its enclosing and enclosed loops (atoms of
    /// later sibling loops reach a template through the potential after the loop).
    atoms: BTreeMap<usize, Vec<Lin>>,
    /// Loops without a ranking atom, with the reason.
    no_atom: Vec<(Loc, String)>,
    /// Warp-uniform thread dimensions of the launch (spec/logic.md §2).
    udims: DepCx,
    /// `y = c` for every `int` local assigned exactly once in the program, by a constant:
    /// used only to propose candidate ranking atoms (validated against the invariant).
    const_facts: Vec<Cstr>,
    /// Memoized access bounds `N*` (see `access_n`).
    nstar_cache: std::cell::RefCell<BTreeMap<String, u64>>,
    /// Loops without a ranking atom of their own whose candidate atoms come from the
    /// conditions of their body (the counters tested after an update), keyed like `atoms`.
    exit_candidates: BTreeSet<usize>,
    /// The keys of the exit loops whose body is being analysed (innermost last).
    exit_stack: Vec<usize>,
    /// For each exit loop: the atoms of its own body conditions and of its nested loops
    /// (not those of enclosing loops, nor the forms before the loop), the atoms of its
    /// invariant `I` (Q:WHILEEXIT keeps the potential after the loop apart).
    exit_own: BTreeMap<usize, Vec<Lin>>,
    /// For each loop (keyed like `atoms`): the locals live at its head (read before written
    /// by some continuation, the loop included). The invariant's `D` keeps only these.
    live_loop: BTreeMap<usize, Names<'a>>,
    /// The last invariant found for each exit loop (a warm start for the next search).
    exit_fix: BTreeMap<usize, (Vec<Cstr>, DepMap)>,
    /// The locals and parameters live at the start of the else branch of every `if` (keyed
    /// by the branch's address).
    live_else: BTreeMap<usize, Names<'a>>,
    /// The locals and parameters live at the start of the body (its upward-exposed reads).
    live_root: Names<'a>,
    /// The launch facts (spec/logic.md §5): a projection may drop those about a thread
    /// dimension no later statement reads (the lanes `N*` enumerates satisfy them anyway);
    /// other constraints on `threadIdx` alone are kept (they select lanes for `N*`).
    launch_p: Vec<Cstr>,
    /// Whether to derive remainder entries and lane facts (spec/logic.md §2): only when the
    /// metric's cost of an access to an array of the program depends on its count `n`
    /// (lane facts can lower `N*`, nothing else), so certificates of other metrics keep
    /// RaCUDA's representations.
    lanes: bool,
}

fn err(loc: Option<Loc>, reason: impl Into<String>) -> AnalysisError {
    AnalysisError {
        loc,
        reason: reason.into(),
    }
}

impl<'a> Ctx<'a> {
    /// A context for one analysis run.
    pub fn new(
        prog: &'a Program,
        metric: &'a Metric,
        hw: &'a Hardware,
        launch: &'a Launch,
        opts: &AnalysisOptions,
    ) -> Ctx<'a> {
        let mut c = Ctx {
            prog,
            metric,
            hw,
            launch,
            degree: opts.degree as usize,
            atoms: BTreeMap::new(),
            no_atom: Vec::new(),
            udims: DepCx {
                udims: warp_uniform_dims(launch, hw.warp_size),
                block: launch.block,
                warp: hw.warp_size,
            },
            const_facts: Vec::new(),
            nstar_cache: Default::default(),
            exit_candidates: BTreeSet::new(),
            exit_stack: Vec::new(),
            exit_own: BTreeMap::new(),
            live_loop: BTreeMap::new(),
            exit_fix: BTreeMap::new(),
            live_else: BTreeMap::new(),
            live_root: BTreeSet::new(),
            launch_p: launch_facts(prog, launch),
            lanes: prog.arrays.iter().any(|a| {
                let (r, w) = if a.space == Space::Global {
                    (&metric.gread, &metric.gwrite)
                } else {
                    (&metric.sread, &metric.swrite)
                };
                !r.mul.is_zero() || !w.mul.is_zero()
            }),
        };
        c.const_facts = const_facts(prog);
        c.live_root = live_in(
            &prog.body,
            &BTreeSet::new(),
            &mut c.live_loop,
            &mut c.live_else,
        );
        c.collect_atoms(&prog.body, &mut Vec::new());
        c
    }

    // ---------------------------------------------------------------- expressions

    fn operand_node(&self, o: &Operand, loc: Loc) -> Result<(Node, Q), AnalysisError> {
        let (rule, cost) = match o {
            Operand::Var(x) => {
                if self.prog.local_ty(x).is_none() {
                    return Err(err(Some(loc), format!("undeclared local `{x}`")));
                }
                ("OQ:VAR", self.metric.var.clone())
            }
            Operand::Tid(_) => ("OQ:TID", self.metric.var.clone()),
            Operand::Const(_) => ("OQ:CONST", self.metric.konst.clone()),
            Operand::Param(p) => {
                if self.prog.param_ty(p).is_none() {
                    return Err(err(Some(loc), format!("undeclared parameter `{p}`")));
                }
                ("OQ:PARAM", self.metric.param.clone())
            }
        };
        Ok((
            Node {
                rule,
                judgment: Judgment::Expr { cost: cost.clone() },
                fields: vec![],
                children: vec![],
            },
            cost,
        ))
    }

    fn access_n(
        &self,
        arr: &str,
        o: &Operand,
        pre: &Abs,
        loc: Loc,
    ) -> Result<(bool, u64), AnalysisError> {
        let decl = self
            .prog
            .array(arr)
            .ok_or_else(|| err(Some(loc), format!("undeclared array `{arr}`")))?;
        let global = decl.space == Space::Global;
        let kind = if global {
            AccessKind::MemReads
        } else {
            AccessKind::Conflicts
        };
        let dep = dep_operand(&pre.d, o);
        // N* depends only on the thread constraints of P, the dependence, the element size
        // and the kind; loops re-run the forward pass, so it is memoized.
        let tid_p: Vec<Cstr> = pre.p.iter().filter(|c| c.only_tid()).cloned().collect();
        let range = match (o, dep) {
            (Operand::Var(x), None) => pre
                .d
                .get(x)
                .filter(|e| e.kind == EntryKind::Rng)
                .map(|e| e.g),
            _ => None,
        };
        let key = format!("{tid_p:?}|{dep:?}|{range:?}|{}|{global}", decl.elem_bytes);
        if let Some(&n) = self.nstar_cache.borrow().get(&key) {
            return Ok((global, n));
        }
        let mut n = n_star(&tid_p, dep, decl.elem_bytes, kind, self.hw, self.launch);
        if let Some(r) = range.and_then(|w| range_bound(w, decl.elem_bytes, kind, self.hw)) {
            n = n.min(r);
        }
        let n = n.max(1);
        self.nstar_cache.borrow_mut().insert(key, n);
        Ok((global, n))
    }

    fn expr_node(&self, e: &Expr, pre: &Abs, loc: Loc) -> Result<(Node, Q), AnalysisError> {
        let mk = |rule, cost: Q, fields, children| Node {
            rule,
            judgment: Judgment::Expr { cost },
            fields,
            children,
        };
        match e {
            Expr::Opd(o) => self.operand_node(o, loc),
            Expr::Bin(_, a, b) => {
                let (na, ca) = self.operand_node(a, loc)?;
                let (nb, cb) = self.operand_node(b, loc)?;
                let c = ca + cb + &self.metric.op;
                Ok((mk("EQ:OP", c.clone(), vec![], vec![na, nb]), c))
            }
            Expr::Un(_, a) => {
                let (na, ca) = self.operand_node(a, loc)?;
                let c = ca + &self.metric.op;
                Ok((mk("EQ:UOP", c.clone(), vec![], vec![na]), c))
            }
            Expr::Read(arr, o) => {
                let (global, n) = self.access_n(arr, o, pre, loc)?;
                let (no, co) = self.operand_node(o, loc)?;
                let (rule, c) = if global {
                    ("EQ:GARRAY", co + self.metric.gread.at(n))
                } else {
                    ("EQ:SARRAY", co + self.metric.sread.at(n))
                };
                Ok((mk(rule, c.clone(), vec![Field::N(n)], vec![no]), c))
            }
        }
    }

    // ---------------------------------------------------------------- atoms

    /// The raw ranking atom `−L + s` of `while (e) body` (RaCUDA §7 `⟦x, U⟧`; note §8.4):
    /// `cond(e) = [L ≤ 0]`, the counter `x` is updated once, by `x ← x + δ` at the top level
    /// of the body, and `s = coef_x(L)·δ > 0`. Other variables of `L` written in the body are
    /// replaced by their linear definition in the loop invariant `pinv` when it has one.
    /// A symbolic step `δ` (`pos += 192·gridDim.x`: body-local operands are replaced by
    /// their top-level linear definitions before the update) is replaced by its lower bound
    /// `s_min > 0` under `pinv` (or the launch facts), read off single-variable bounds.
    /// Returns the atom `−L + s`, `s`, the counter's name and whether `s` is such a lower
    /// bound, or why there is no atom.
    fn loop_atom_raw(
        &self,
        e: &Expr,
        body: &Stmt,
        pinv: Option<&[Cstr]>,
    ) -> Result<(Lin, Q, String, bool), String> {
        let (ce, _, _, _) = cond(self.prog, e);
        let l = match ce.as_slice() {
            [c] if c.kind == CKind::Le => c.lin.clone(),
            _ => return Err("the condition is not an inequality between linear operands".into()),
        };
        let writes = body.writes();
        let written: Vec<String> = l.vars().filter(|v| writes.contains(v)).cloned().collect();
        if written.is_empty() {
            return Err("no variable of the condition is written in the body".into());
        }
        let mut top = Vec::new();
        flatten(body, &mut top);
        let mut found: Vec<(String, Lin)> = Vec::new();
        for x in &written {
            let mut count = 0;
            count_assigns(body, x, &mut count);
            if count != 1 {
                continue;
            }
            for (j, st) in top.iter().enumerate() {
                if let Stmt::Assign(y, ex, _) = st {
                    if y == x {
                        let le = match pinv {
                            Some(p) => lin_fixed(self.prog, p, ex),
                            None => lin_fixed(self.prog, &self.const_facts, ex),
                        };
                        if let Some(le) = le {
                            let d = le.sub(&Lin::var(x));
                            if !d.mentions(x) {
                                if let Some(d) = self.resolve_step(&d, &top[..j], &writes) {
                                    found.push((x.clone(), d));
                                }
                            }
                        }
                    }
                }
            }
        }
        // a counter with a constant step first (the RaCUDA case), else a symbolic one
        let constant: Vec<(String, Lin)> =
            found.iter().filter(|f| f.1.is_const()).cloned().collect();
        if constant.len() == 1 {
            found = constant;
        }
        let (x, delta) = match found.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(match written.as_slice() {
                    [x] => format!(
                        "the counter `{x}` is not updated by `{x} ← {x} + c` (c an integer constant) exactly once, at the top level of the body"
                    ),
                    _ => "no variable of the condition is updated by `x ← x + c` (c an integer constant) exactly once, at the top level of the body".into(),
                })
            }
            _ => return Err("several variables of the condition are counters of the body".into()),
        };
        let mut l = l;
        for y in written.iter().filter(|y| **y != x) {
            let def = match pinv {
                Some(p) => defining_lin(p, y, &writes),
                // candidate atoms only (validated later against the invariant): the
                // top-level linear assignment of `y` in the body, if any
                None => top.iter().find_map(|st| match st {
                    Stmt::Assign(z, ex, _) if z == y => {
                        lin_expr(self.prog, ex).filter(|le| le.vars().all(|v| !writes.contains(v)))
                    }
                    _ => None,
                }),
            };
            match def {
                Some(def) => l = l.subst(y, &def),
                None => {
                    return Err(format!(
                        "`{y}` in the loop condition is written in the body and the loop invariant gives no linear definition of it"
                    ))
                }
            }
        }
        let step = delta.scale(&l.coef(&x));
        let (s, symbolic) = if step.is_const() {
            (step.c.clone(), false)
        } else {
            let facts = pinv.unwrap_or(&self.launch_p);
            match step_lower_bound(facts, &step) {
                Some(m) => (m, true),
                None => {
                    return Err(format!(
                        "the step of `{x}` is symbolic and has no positive lower bound from single-variable bounds"
                    ))
                }
            }
        };
        if s <= Q::zero() {
            return Err(format!(
                "the update of `{x}` does not move it towards the bound"
            ));
        }
        // atom = −L + s
        Ok((l.scale(&-Q::one()).plus_const(&s), s, x, symbolic))
    }

    /// The raw ranking form made uniform under `d` (spec/logic.md §1): with `k` its thread
    /// coefficients (locals through their linear entries), `raw − Σ k_d·threadIdx.d`, plus
    /// `k_d·(B_d − 1)` for each `k_d > 0` so that the form does not decrease (threads have
    /// `0 ≤ threadIdx.d ≤ B_d − 1`); `None` if a local has no linear entry.
    fn uniformize(&self, raw: &Lin, d: &DepMap) -> Option<Lin> {
        let mut k = [Q::zero(), Q::zero(), Q::zero()];
        for (v, a) in &raw.terms {
            if let Some(dim) = crate::core::Dim::ALL
                .iter()
                .find(|dim| tid_name(**dim) == *v)
            {
                k[dim.index()] += a;
            } else if self.prog.param_ty(v) == Some(Ty::Int) {
            } else {
                let e = d
                    .get(v)
                    .filter(|e| e.is_linear() && self.prog.local_ty(v) == Some(Ty::Int))?;
                for (i, ki) in k.iter_mut().enumerate() {
                    *ki += a * q(e.k[i]);
                }
            }
        }
        let mut out = raw.clone();
        for dim in crate::core::Dim::ALL {
            let kd = &k[dim.index()];
            if kd.is_zero() {
                continue;
            }
            out = out.add_scaled(&Lin::var(&tid_name(dim)), &-kd.clone());
            if *kd > Q::zero() {
                out = out.plus_const(&(kd * q(self.launch.block[dim.index()] as i64 - 1)));
            }
        }
        Some(out)
    }

    /// The step `d` of a counter update with its body-local operands replaced by their
    /// top-level linear definitions in `before` (the statements preceding the update, last
    /// first); `None` if an operand written in the body remains.
    fn resolve_step(&self, d: &Lin, before: &[&Stmt], writes: &[String]) -> Option<Lin> {
        let mut cur = d.clone();
        for st in before.iter().rev() {
            match st {
                Stmt::Assign(y, ex, _) if cur.mentions(y) => {
                    cur = cur.subst(y, &lin_expr(self.prog, ex)?);
                }
                Stmt::Assign(..) | Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => {}
                other => {
                    if other.writes().iter().any(|w| cur.mentions(w)) {
                        return None;
                    }
                }
            }
        }
        let closed = cur.vars().all(|v| !writes.contains(v));
        closed.then_some(cur)
    }

    /// Candidate atoms of a loop without a ranking atom of its own, from the conditions
    /// of its body (spec/logic.md §4a; nested loops excluded): for every `if` whose
    /// condition gives a constraint `L ≤ 0` to its else branch, the atom `−L + 1` (`≥ 1` on
    /// that branch; `i` for `if (i <= 0) return; …`), and for every update `x ← x + δ` (`δ` an
    /// integer) in the body of a variable `x` of the atom, the atom as it reads before the
    /// update, `(−L + 1)[x ← x − δ]` (`i + 20` for `i −= 20`). Returns (atoms, updated atoms).
    fn exit_atoms(&self, body: &Stmt) -> (Vec<Lin>, Vec<Lin>) {
        fn walk<'s>(s: &'s Stmt, ifs: &mut Vec<&'s Expr>, asg: &mut Vec<(&'s String, &'s Expr)>) {
            match s {
                Stmt::Seq(a, b) => {
                    walk(a, ifs, asg);
                    walk(b, ifs, asg);
                }
                Stmt::If(e, a, b, _) => {
                    ifs.push(e);
                    walk(a, ifs, asg);
                    walk(b, ifs, asg);
                }
                Stmt::Assign(x, e, _) => asg.push((x, e)),
                _ => {}
            }
        }
        let (mut ifs, mut asg) = (Vec::new(), Vec::new());
        walk(body, &mut ifs, &mut asg);
        let mut updates: Vec<(String, Q)> = Vec::new();
        for (x, ex) in asg {
            if self.prog.local_ty(x) != Some(Ty::Int) {
                continue;
            }
            if let Some(le) = lin_expr(self.prog, ex) {
                let d = le.sub(&Lin::var(x));
                if d.is_const() && !d.c.is_zero() {
                    updates.push((x.clone(), d.c));
                }
            }
        }
        let (mut hs, mut shifted) = (Vec::new(), Vec::new());
        for e in ifs {
            // the else branch: the one that stays in the loop when the then-branch jumps
            // (spec/lowering.md §6)
            let (_, cne, _, _) = cond(self.prog, e);
            for c in cne.iter() {
                if c.kind != CKind::Le {
                    continue;
                }
                let h = c.lin.scale(&-Q::one()).plus_const(&Q::one());
                let upd: Vec<Lin> = updates
                    .iter()
                    .filter(|(x, _)| h.mentions(x))
                    .map(|(x, d)| h.plus_const(&-(h.coef(x) * d)))
                    .collect();
                if upd.is_empty() {
                    continue;
                }
                if !hs.contains(&h) {
                    hs.push(h);
                }
                for u in upd {
                    if !shifted.contains(&u) {
                        shifted.push(u);
                    }
                }
            }
        }
        (hs, shifted)
    }

    fn collect_atoms(&mut self, s: &Stmt, stack: &mut Vec<(usize, Vec<Lin>)>) {
        let mut top = Vec::new();
        flatten(s, &mut top);
        for (i, st) in top.iter().enumerate() {
            match st {
                Stmt::While(e, body, _) => {
                    let key = loop_key(body);
                    let mut own: Vec<Lin> = Vec::new();
                    // seeds: the loop's own ranking atom, else (spec/logic.md §4a) atoms from
                    // the conditions of its body; each seed is also expressed before the
                    // loop, through the assignments that precede it in this list
                    let mut cands: Vec<Lin> = Vec::new();
                    let mut seeds: Vec<Lin> = Vec::new();
                    let mut tail: Vec<Lin> = Vec::new();
                    match self.loop_atom_raw(e, body, None) {
                        Ok((raw, sh, _, _)) => {
                            seeds.push(raw.clone());
                            cands.push(raw.clone());
                            cands.push(raw.plus_const(&-sh));
                        }
                        Err(_) => {
                            let (hs, shifted) = self.exit_atoms(body);
                            if !hs.is_empty() {
                                self.exit_candidates.insert(key);
                                let direct: Vec<Lin> = hs
                                    .iter()
                                    .chain(shifted.iter())
                                    .filter_map(|c| match canon_atom(c) {
                                        AtomVal::Scaled(_, a) => Some(a),
                                        AtomVal::Const(_) => None,
                                    })
                                    .collect();
                                self.exit_own.insert(key, direct);
                            }
                            cands.extend(hs.iter().cloned());
                            seeds = hs;
                            tail = shifted;
                        }
                    }
                    for raw in seeds {
                        let mut cur = raw;
                        for prev in top[..i].iter().rev() {
                            match prev {
                                Stmt::Assign(x, ex, _) => {
                                    if cur.mentions(x) {
                                        match lin_expr(self.prog, ex) {
                                            Some(le) => {
                                                cur = cur.subst(x, &le);
                                                cands.push(cur.clone());
                                            }
                                            None => break,
                                        }
                                    }
                                }
                                Stmt::Write(..) | Stmt::Skip | Stmt::Sync(_) => {}
                                other => {
                                    if other.writes().iter().any(|w| cur.mentions(w)) {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    cands.extend(tail);
                    for c in cands {
                        if let AtomVal::Scaled(_, a) = canon_atom(&c) {
                            if !own.contains(&a) {
                                own.push(a);
                            }
                        }
                    }
                    // this loop sees its own atoms and its ancestors'; ancestors see this one's
                    let mut scope = own.clone();
                    for (k, anc) in stack.iter() {
                        scope.extend(anc.iter().cloned());
                        let e = self.atoms.entry(*k).or_default();
                        e.extend(own.iter().cloned());
                        if let Some(x) = self.exit_own.get_mut(k) {
                            x.extend(own.iter().cloned());
                        }
                    }
                    self.atoms.entry(key).or_default().extend(scope);
                    stack.push((key, own));
                    self.collect_atoms(body, stack);
                    stack.pop();
                }
                Stmt::If(_, a, b, _) => {
                    self.collect_atoms(a, stack);
                    self.collect_atoms(b, stack);
                }
                _ => {}
            }
        }
    }

    // ---------------------------------------------------------------- forward pass

    /// `cond(e)` (or `cond(¬e)`, `neg`) followed by the lane facts `lane_D(e)` when lanes
    /// are derived for this metric (spec/logic.md §2: `P ∧ e` is `P`, `cond`, `lane_D`).
    fn with_lanes(&self, d: &DepMap, e: &Expr, c: &[Cstr], neg: bool) -> Vec<Cstr> {
        let mut out = c.to_vec();
        if self.lanes {
            out.extend(lane_cond(d, e, neg));
        }
        out
    }

    fn fwd(&mut self, s: &Stmt, pre: &Abs) -> Result<AN, AnalysisError> {
        let kind_post: (AK, Abs) = match s {
            Stmt::Skip => (AK::Skip, pre.clone()),
            Stmt::Sync(_) => (AK::Sync, pre.clone()),
            Stmt::Seq(a, b) => {
                let na = self.fwd(a, pre)?;
                let nb = self.fwd(b, &na.post)?;
                let post = nb.post.clone();
                (AK::Seq(Box::new(na), Box::new(nb)), post)
            }
            Stmt::Assign(x, e, loc) => {
                let xty = self.prog.local_ty(x).ok_or_else(|| {
                    err(Some(*loc), format!("assignment to undeclared local `{x}`"))
                })?;
                let (en, cost) = self.expr_node(e, pre, *loc)?;
                let lin = if xty == Ty::Int {
                    lin_fixed(self.prog, &pre.p, e)
                } else {
                    None
                };
                let dep_e = match lin.as_ref().filter(|l| l.is_const()) {
                    Some(l) if l.c.is_integer() => l.c.to_integer().try_into().ok().map(Dep::exact),
                    _ if self.lanes => entry_expr(&pre.d, e, &self.udims),
                    _ => dep_expr(&pre.d, e, &self.udims),
                };
                // Q:VWRITE1 needs only the value uniform (spec/logic.md §4)
                let vw1 = expr_uniform(&pre.d, e);
                let mut d = (*pre.d).clone();
                d.remove(x);
                let newdep = match dep_e {
                    Some(de) if xty == Ty::Int => Some(de),
                    Some(de) if de.is_uniform() => Some(Dep::unknown_uniform()),
                    _ => None,
                };
                let newdep = match newdep {
                    None if vw1 => Some(Dep::unknown_uniform()),
                    other => other,
                };
                if let Some(nd) = newdep {
                    d.insert(x.clone(), nd);
                }
                let mut p: Vec<Cstr> = Vec::new();
                match &lin {
                    Some(le) if le.sub(&Lin::var(x)).is_const() => {
                        let c = le.sub(&Lin::var(x)).c;
                        let back = Lin::var(x).plus_const(&-c);
                        for cs in pre.p.iter() {
                            p.push(Cstr {
                                kind: cs.kind.clone(),
                                lin: cs.lin.subst(x, &back),
                            });
                        }
                    }
                    Some(le) if !le.mentions(x) => {
                        p.extend(pre.p.iter().filter(|c| !c.mentions(x)).cloned());
                        p.push(Cstr::eq(Lin::var(x).sub(le)));
                    }
                    _ => p.extend(pre.p.iter().filter(|c| !c.mentions(x)).cloned()),
                }
                // the post's constraints are the pre's (renamed back through an update of x,
                // or those not mentioning x) and possibly `x − le = 0`: each target is a
                // constraint of the pre itself or a constant, so the witness is found by
                // position (checked; a general search otherwise)
                let mut witnesses = Vec::new();
                let mut next = 0;
                for c in &p {
                    let target = match &lin {
                        Some(le) => Cstr {
                            kind: c.kind.clone(),
                            lin: c.lin.subst(x, le),
                        },
                        None => c.clone(),
                    };
                    let mut found = None;
                    if target.lin.is_const() {
                        let w = Farkas::default();
                        if super::entail::check_farkas(&pre.p, &target, &w) {
                            found = Some(w);
                        }
                    }
                    if found.is_none() {
                        if let Some(j) = (next..pre.p.len()).find(|&j| pre.p[j] == target) {
                            next = j + 1;
                            found = Some(Farkas(vec![(j, Q::one())]));
                        }
                    }
                    let w = match found {
                        Some(w) => w,
                        None => entails(&pre.p, &target).ok_or_else(|| {
                            err(
                                Some(*loc),
                                "internal: no witness for the assignment's postcondition",
                            )
                        })?,
                    };
                    witnesses.push(w);
                }
                (
                    AK::Assign {
                        x: x.clone(),
                        loc: *loc,
                        lin,
                        vw1,
                        witnesses,
                        e: en,
                        cost,
                    },
                    Abs {
                        p: p.into(),
                        d: d.into(),
                    },
                )
            }
            Stmt::Write(arr, o, e, loc) => {
                let (global, n) = self.access_n(arr, o, pre, *loc)?;
                let (on, c1) = self.operand_node(o, *loc)?;
                let (en, c2) = self.expr_node(e, pre, *loc)?;
                let acc = if global {
                    self.metric.gwrite.at(n)
                } else {
                    self.metric.swrite.at(n)
                };
                (
                    AK::Write {
                        global,
                        n,
                        o: on,
                        e: en,
                        cost: acc + c1 + c2,
                    },
                    pre.clone(),
                )
            }
            Stmt::If(e, s1, s2, loc) => {
                let (en, cost) = self.expr_node(e, pre, *loc)?;
                let (ce, cne, can_t, can_f) = cond(self.prog, e);
                // P ∧ e and P ∧ ¬e with the lane facts of pre.d (spec/logic.md §2); Q:IF2/3
                // decide on cond(e) alone
                let (ce_l, cne_l) = (
                    self.with_lanes(&pre.d, e, &ce, false),
                    self.with_lanes(&pre.d, e, &cne, true),
                );
                let w_t = if can_t && !ce.is_empty() {
                    entails_all(&pre.p, &ce)
                } else {
                    None
                };
                let w_f = if w_t.is_none() && can_f && !cne.is_empty() {
                    entails_all(&pre.p, &cne)
                } else {
                    None
                };
                if let Some(w) = w_t {
                    let b = self.fwd(s1, pre)?;
                    let post = b.post.clone();
                    (
                        AK::If23 {
                            rule: "Q:IF2",
                            witnesses: w,
                            e: en,
                            cost,
                            branch: Box::new(b),
                        },
                        post,
                    )
                } else if let Some(w) = w_f {
                    let b = self.fwd(s2, pre)?;
                    let post = b.post.clone();
                    (
                        AK::If23 {
                            rule: "Q:IF3",
                            witnesses: w,
                            e: en,
                            cost,
                            branch: Box::new(b),
                        },
                        post,
                    )
                } else if expr_uniform(&pre.d, e) {
                    let t = self.fwd(
                        s1,
                        &Abs {
                            p: with(&pre.p, &ce_l).into(),
                            d: pre.d.clone(),
                        },
                    )?;
                    let f = self.fwd(
                        s2,
                        &Abs {
                            p: with(&pre.p, &cne_l).into(),
                            d: pre.d.clone(),
                        },
                    )?;
                    let join = Abs {
                        p: join_p(&t.post.p, &f.post.p).into(),
                        d: join_deps(&t.post.d, &f.post.d).into(),
                    };
                    let wt = entails_all(&t.post.p, &join.p)
                        .ok_or_else(|| err(Some(*loc), "internal: join not entailed"))?;
                    let wf = entails_all(&f.post.p, &join.p)
                        .ok_or_else(|| err(Some(*loc), "internal: join not entailed"))?;
                    (
                        AK::If1 {
                            e: en,
                            cost,
                            t: Box::new(t),
                            f: Box::new(f),
                            join: join.clone(),
                            wt,
                            wf,
                            rw_t: Vec::new(),
                            rw_f: Vec::new(),
                        },
                        join,
                    )
                } else {
                    let pe = with(&pre.p, &ce_l);
                    let pne = with(&pre.p, &cne_l);
                    let t = self.fwd_tight(
                        s1,
                        &Abs {
                            p: pe.into(),
                            d: pre.d.clone(),
                        },
                    )?;
                    // P_F: the linear constraints of P ∧ ¬e that the then branch's post also
                    // entails (Q:IF4 else-then), then the lane constraints of P ∧ ¬e, which
                    // need only else-cond (spec/logic.md §4)
                    let pne_lin: Vec<Cstr> = pne.iter().filter(|c| !c.is_lane()).cloned().collect();
                    let mut pf = join_p(&pne_lin, &t.post.p);
                    for c in pne.iter().filter(|c| c.is_lane()) {
                        if !pf.contains(c) {
                            pf.push(c.clone());
                        }
                    }
                    let pf_lin: Vec<Cstr> = pf.iter().filter(|c| !c.is_lane()).cloned().collect();
                    let df = minus_writes(&t.post.d, &s1.writes());
                    let f = self.fwd_tight(
                        s2,
                        &Abs {
                            p: pf.clone().into(),
                            d: df.into(),
                        },
                    )?;
                    let pj = join_p(&t.post.p, &f.post.p);
                    let dj = minus_writes(&f.post.d, &s2.writes());
                    let internal = || err(Some(*loc), "internal: IF4 join not entailed");
                    let w_else_cond = entails_all(&pne, &pf).ok_or_else(internal)?;
                    let w_else_then = entails_all(&t.post.p, &pf_lin).ok_or_else(internal)?;
                    let w_join_then = entails_all(&t.post.p, &pj).ok_or_else(internal)?;
                    let w_join_else = entails_all(&f.post.p, &pj).ok_or_else(internal)?;
                    (
                        AK::If4 {
                            e: en,
                            cost,
                            t: Box::new(t),
                            f: Box::new(f),
                            w_else_cond,
                            w_else_then,
                            w_join_then,
                            w_join_else,
                        },
                        Abs {
                            p: pj.into(),
                            d: dj.into(),
                        },
                    )
                }
            }
            Stmt::While(e, body, loc) => {
                // a loop without a linear ranking atom whose condition P decides at every
                // iteration (constant trip count) is unrolled exactly
                let has_atom = self.loop_atom_raw(e, body, None).is_ok();
                // a loop left by jumps whose body tests a counter (spec/logic.md §4a)
                if !has_atom
                    && self.exit_candidates.contains(&loop_key(body))
                    && !cond(self.prog, e).1.is_empty()
                {
                    if let Some((kind, post)) = self.fwd_while_exit(e, body, *loc, pre)? {
                        return Ok(AN {
                            pre: pre.clone(),
                            post,
                            kind,
                        });
                    }
                }
                let unrolled = if !has_atom {
                    self.unroll(e, body, *loc, pre, 0)?
                } else {
                    None
                };
                match unrolled {
                    Some(an) => {
                        let post = an.post.clone();
                        (
                            AK::Unroll {
                                inner: Box::new(an),
                            },
                            post,
                        )
                    }
                    None => self.fwd_while(e, body, *loc, pre)?,
                }
            }
        };
        let (kind, post) = kind_post;
        Ok(AN {
            pre: pre.clone(),
            post,
            kind,
        })
    }

    /// The annotated `if e then (body; while (e) body) else skip` of iteration `k` of an
    /// unrolled loop (Q:UNROLL), or `None` when `pre` decides neither `e` nor `¬e` or the
    /// loop runs more than [`UNROLL_LIMIT`] iterations.
    /// [`Ctx::fwd`] of a branch of a divergent `if` (Q:IF4), with the thread constraints
    /// its pre implies but does not list (`thread_projection`) added through a Q:WEAK
    /// ([`AK::Tighten`]), so that the accesses in the branch count only the lanes that can
    /// take it. Only for metrics whose access cost depends on `N*` (`self.lanes`).
    fn fwd_tight(&mut self, s: &Stmt, pre: &Abs) -> Result<AN, AnalysisError> {
        let extra = if self.lanes {
            thread_projection(&pre.p)
        } else {
            Vec::new()
        };
        if extra.is_empty() {
            return self.fwd(s, pre);
        }
        let tight = Abs {
            p: with(&pre.p, &extra).into(),
            d: pre.d.clone(),
        };
        let Some(w_pre) = entails_all(&pre.p, &tight.p) else {
            return self.fwd(s, pre);
        };
        let inner = self.fwd(s, &tight)?;
        Ok(AN {
            pre: pre.clone(),
            post: inner.post.clone(),
            kind: AK::Tighten {
                inner: Box::new(inner),
                w_pre,
            },
        })
    }

    fn unroll(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
        k: usize,
    ) -> Result<Option<AN>, AnalysisError> {
        if k > UNROLL_LIMIT {
            return Ok(None);
        }
        let (ce, cne, can_t, can_f) = cond(self.prog, e);
        let (en, cost) = self.expr_node(e, pre, loc)?;
        let decided = |c: &[Cstr], ok: bool| {
            if ok && !c.is_empty() {
                entails_all(&pre.p, c)
            } else {
                None
            }
        };
        if let Some(w) = decided(&cne, can_f) {
            let skip = AN {
                pre: pre.clone(),
                post: pre.clone(),
                kind: AK::Skip,
            };
            return Ok(Some(AN {
                pre: pre.clone(),
                post: pre.clone(),
                kind: AK::If23 {
                    rule: "Q:IF3",
                    witnesses: w,
                    e: en,
                    cost,
                    branch: Box::new(skip),
                },
            }));
        }
        let Some(w) = decided(&ce, can_t) else {
            return Ok(None);
        };
        let b = self.fwd(body, pre)?;
        let Some(rest) = self.unroll(e, body, loc, &b.post, k + 1)? else {
            return Ok(None);
        };
        let post = rest.post.clone();
        let rest = AN {
            pre: b.post.clone(),
            post: post.clone(),
            kind: AK::Unroll {
                inner: Box::new(rest),
            },
        };
        let seq = AN {
            pre: pre.clone(),
            post: post.clone(),
            kind: AK::Seq(Box::new(b), Box::new(rest)),
        };
        Ok(Some(AN {
            pre: pre.clone(),
            post,
            kind: AK::If23 {
                rule: "Q:IF2",
                witnesses: w,
                e: en,
                cost,
                branch: Box::new(seq),
            },
        }))
    }

    /// Shift rewrites for a branch of a loop body in filtered position whose pre is `p`
    /// (spec/logic.md §4a): for candidate atoms `A`, `A'` of the innermost exit loop with
    /// `A − A' = s > 0` constant and `p ⇒ A' ≥ 0`, `max0(A) = max0(A') + s` (the potential of
    /// the loop head, re-expressed after the counter's update, releases the update's `s`).
    fn branch_rewrites(&self, p: &[Cstr]) -> Vec<Rewrite> {
        let Some(key) = self.exit_stack.last() else {
            return Vec::new();
        };
        let atoms = self.exit_own.get(key).cloned().unwrap_or_default();
        let mut out = Vec::new();
        for a in &atoms {
            let mut best: Option<(Q, Farkas)> = None;
            for b in &atoms {
                let diff = a.sub(b);
                if !diff.is_const() || !diff.c.is_positive() {
                    continue;
                }
                if best.as_ref().is_some_and(|(s, _)| *s >= diff.c) {
                    continue;
                }
                // p ⇒ a ≥ s, i.e. s − a ≤ 0
                let target = Cstr::le(Lin::constant(diff.c.clone()).sub(a));
                if let Some(w) = entails(p, &target) {
                    best = Some((diff.c.clone(), w));
                }
            }
            if let Some((s, w)) = best {
                out.push(Rewrite::Shift(a.clone(), s, w));
            }
        }
        out
    }

    /// The forward pass of a statement in filtered position for the loop condition `f`
    /// (spec/logic.md §4a): the post's `P` is about every thread, its `D` only about the
    /// threads that satisfy `f` afterwards. An `if` whose then-branch ends with `¬f` (a jump
    /// out of the loop) is Q:IFEXIT1/4; a uniform `if` is Q:IF1 with filtered branches; a
    /// sequence's last statement is filtered; anything else is an ordinary statement.
    fn fwd_filt(&mut self, s: &Stmt, pre: &Abs, f: &Expr) -> Result<AN, AnalysisError> {
        let kind_post: (AK, Abs) = match s {
            Stmt::Seq(a, b) => {
                let na = self.fwd(a, pre)?;
                let nb = self.fwd_filt(b, &na.post, f)?;
                let post = nb.post.clone();
                (AK::Seq(Box::new(na), Box::new(nb)), post)
            }
            Stmt::If(c, s1, s2, loc) => {
                let (ce, cne, can_t, can_f) = cond(self.prog, c);
                let decided = |cs: &[Cstr], ok: bool| {
                    if ok && !cs.is_empty() {
                        entails_all(&pre.p, cs)
                    } else {
                        None
                    }
                };
                let w_t = decided(&ce, can_t);
                let w_f = if w_t.is_none() {
                    decided(&cne, can_f)
                } else {
                    None
                };
                if w_t.is_some() || w_f.is_some() {
                    let (en, cost) = self.expr_node(c, pre, *loc)?;
                    let (rule, w, br) = match (w_t, w_f) {
                        (Some(w), _) => ("Q:IF2", w, s1),
                        (None, Some(w)) => ("Q:IF3", w, s2),
                        _ => unreachable!("one of the two is Some"),
                    };
                    let b = self.fwd_filt(br, pre, f)?;
                    let post = b.post.clone();
                    (
                        AK::If23 {
                            rule,
                            witnesses: w,
                            e: en,
                            cost,
                            branch: Box::new(b),
                        },
                        post,
                    )
                } else {
                    let exit_c = cond(self.prog, f).1;
                    let tpre = Abs {
                        p: with(&pre.p, &ce).into(),
                        d: pre.d.clone(),
                    };
                    let fpre = Abs {
                        p: with(&pre.p, &cne).into(),
                        d: pre.d.clone(),
                    };
                    let t = self.fwd(s1, &tpre)?;
                    let w_exit = if exit_c.is_empty() {
                        None
                    } else {
                        entails_all(&t.post.p, &exit_c)
                    };
                    let uniform = expr_uniform(&pre.d, c);
                    if let Some(w_exit) = w_exit {
                        let (en, cost) = self.expr_node(c, pre, *loc)?;
                        let rw_f = self.branch_rewrites(&fpre.p);
                        // the else branch is followed by the end of the body: locals dead
                        // there lose their entries
                        let live_at = self.live_else.get(&(&**s2 as *const Stmt as usize));
                        let fpre_small = match &live_at {
                            Some(live) => Abs {
                                p: (fpre
                                    .p
                                    .iter()
                                    .filter(|c| {
                                        c.lin.vars().all(|v| live.contains(v.as_str()))
                                            || (c.only_tid() && !self.launch_p.contains(c))
                                    })
                                    .cloned()
                                    .collect::<Vec<_>>())
                                .into(),
                                d: restrict_deps(&fpre.d, live).into(),
                            },
                            None => fpre.clone(),
                        };
                        let fb = self.fwd_filt(s2, &fpre_small, f)?;
                        let pj = join_p(&t.post.p, &fb.post.p);
                        let internal = || err(Some(*loc), "internal: exit join not entailed");
                        let w_join_then = entails_all(&t.post.p, &pj).ok_or_else(internal)?;
                        let w_join_else = entails_all(&fb.post.p, &pj).ok_or_else(internal)?;
                        let post = Abs {
                            p: pj.into(),
                            d: fb.post.d.clone(),
                        };
                        (
                            AK::IfExit {
                                uniform,
                                e: en,
                                cost,
                                t: Box::new(t),
                                f: Box::new(fb),
                                w_exit,
                                w_join_then,
                                w_join_else,
                                rw_f,
                                f_pre: fpre,
                            },
                            post,
                        )
                    } else if uniform {
                        let (en, cost) = self.expr_node(c, pre, *loc)?;
                        let rw_t = self.branch_rewrites(&tpre.p);
                        let rw_f = self.branch_rewrites(&fpre.p);
                        let t = self.fwd_filt(s1, &tpre, f)?;
                        let fb = self.fwd_filt(s2, &fpre, f)?;
                        let join = Abs {
                            p: join_p(&t.post.p, &fb.post.p).into(),
                            d: join_deps(&t.post.d, &fb.post.d).into(),
                        };
                        let internal = || err(Some(*loc), "internal: join not entailed");
                        let wt = entails_all(&t.post.p, &join.p).ok_or_else(internal)?;
                        let wf = entails_all(&fb.post.p, &join.p).ok_or_else(internal)?;
                        (
                            AK::If1 {
                                e: en,
                                cost,
                                t: Box::new(t),
                                f: Box::new(fb),
                                join: join.clone(),
                                wt,
                                wf,
                                rw_t,
                                rw_f,
                            },
                            join,
                        )
                    } else {
                        return self.fwd(s, pre);
                    }
                }
            }
            _ => return self.fwd(s, pre),
        };
        let (kind, post) = kind_post;
        Ok(AN {
            pre: pre.clone(),
            post,
            kind,
        })
    }

    /// Q:WHILEEXIT1/2 (spec/logic.md §4a): the invariant `(P, D)` by the same Houdini
    /// iteration as [`Ctx::fwd_while`], with the body in filtered position, so `D` is about
    /// the threads that stay in the loop. `None` when the body has no exit (Q:IFEXIT1/4) on
    /// its filtered spine: then the loop is left only at the test and the ordinary rules
    /// apply.
    fn fwd_while_exit(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
    ) -> Result<Option<(AK, Abs)>, AnalysisError> {
        let key = loop_key(body);
        self.exit_stack.push(key);
        let r = self.exit_invariant(e, body, loc, pre);
        self.exit_stack.pop();
        let (body_an, p, d) = r?;
        if !has_exit(&body_an) {
            return Ok(None);
        }
        let (_, cne, _, _) = cond(self.prog, e);
        let uniform = expr_uniform(&d, e) && !has_divergent_exit(&body_an);
        let writes = body.writes();
        let w_pre = entails_all(&pre.p, &p).ok_or_else(|| {
            err(
                Some(loc),
                "internal: invariant not entailed by the loop entry",
            )
        })?;
        let w_body_post = entails_all(&body_an.post.p, &p)
            .ok_or_else(|| err(Some(loc), "internal: invariant not re-established"))?;
        let (en, cost) = self.expr_node(
            e,
            &Abs {
                p: p.clone().into(),
                d: d.clone().into(),
            },
            loc,
        )?;
        let post = Abs {
            p: with(&p, &cne).into(),
            d: minus_writes(&d, &writes).into(),
        };
        Ok(Some((
            AK::WhileExit {
                e: en,
                cost,
                uniform,
                inv: Abs {
                    p: p.into(),
                    d: d.into(),
                },
                body: Box::new(body_an),
                w_pre,
                w_body_post,
                key,
                nested: has_loop(body),
            },
            post,
        )))
    }

    fn exit_invariant(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
    ) -> Result<(AN, Vec<Cstr>, DepMap), AnalysisError> {
        let (ce, _, _, _) = cond(self.prog, e);
        let mut p = houdini_candidates(&pre.p);
        let live = self.live_loop.get(&loop_key(body)).cloned();
        // constraints on locals dead at the loop are dropped (by the Q:WEAK around it), and
        // so are those on locals the body writes: the threads that leave by a jump carry
        // values of the round they left in, so such facts rarely survive, and starting
        // without them saves a round of the iteration over this (typically long) body
        let writes = body.writes();
        p.retain(|c| {
            (c.only_tid() && !self.launch_p.contains(c))
                || c.lin.vars().all(|v| {
                    live.as_ref().is_none_or(|l| l.contains(v.as_str())) && !writes.contains(v)
                })
        });
        let mut d = match &live {
            Some(live) => restrict_deps(&pre.d, live),
            None => (*pre.d).clone(),
        };
        // warm start: an enclosing loop's invariant search analyses this loop again from a
        // weaker entry; its invariant is then (almost always) within the previous one, so
        // the previous fixpoint is the first candidate (still checked by the iteration)
        if let Some((pp, pd)) = self.exit_fix.get(&loop_key(body)) {
            p.retain(|c| pp.contains(c));
            d = join_deps(&d, pd);
        }
        for _ in 0..40 {
            let b = self.fwd_filt(
                body,
                &Abs {
                    p: with(&p, &ce).into(),
                    d: d.clone().into(),
                },
                e,
            )?;
            let np: Vec<Cstr> = p
                .iter()
                .filter(|c| entails(&b.post.p, c).is_some())
                .cloned()
                .collect();
            let nd = join_deps(&d, &b.post.d);
            if np == p && nd == d {
                self.exit_fix.insert(loop_key(body), (p.clone(), d.clone()));
                return Ok((b, p, d));
            }
            p = np;
            d = nd;
        }
        Err(err(Some(loc), "the loop-invariant search did not converge"))
    }

    fn fwd_while(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        let (ce, cne, _, _) = cond(self.prog, e);
        let mut p = houdini_candidates(&pre.p);
        // entries of locals dead at the loop are dropped (the Q:WEAK around the loop)
        let mut d = match self.live_loop.get(&loop_key(body)) {
            Some(live) => restrict_deps(&pre.d, live),
            None => (*pre.d).clone(),
        };
        let mut rounds = 0;
        let (body_an, p, d) = loop {
            rounds += 1;
            if rounds > 40 {
                return Err(err(Some(loc), "the loop-invariant search did not converge"));
            }
            let b = self.fwd(
                body,
                &Abs {
                    p: with(&p, &self.with_lanes(&d, e, &ce, false)).into(),
                    d: d.clone().into(),
                },
            )?;
            let np: Vec<Cstr> = p
                .iter()
                .filter(|c| entails(&b.post.p, c).is_some())
                .cloned()
                .collect();
            let nd = join_deps(&d, &b.post.d);
            if np == p && nd == d {
                break (b, p, d);
            }
            p = np;
            d = nd;
        };
        let uniform = expr_uniform(&d, e);
        let writes = body.writes();
        let w_pre = entails_all(&pre.p, &p).ok_or_else(|| {
            err(
                Some(loc),
                "internal: invariant not entailed by the loop entry",
            )
        })?;
        let w_body_post = entails_all(&body_an.post.p, &p)
            .ok_or_else(|| err(Some(loc), "internal: invariant not re-established"))?;
        // ranking atom
        let mut atom_err = None;
        let pe = with(&p, &self.with_lanes(&d, e, &ce, false));
        let atom = match self.loop_atom_raw(e, body, Some(&p)) {
            Ok((raw, s, x, symbolic)) => {
                match self.uniformize(&raw, &d) {
                    None => {
                        atom_err = Some(format!(
                            "the counter `{x}` or the bound has no linear thread dependence (no warp-uniform ranking form)"
                        ));
                        None
                    }
                    Some(raw) => match canon_atom(&raw) {
                        AtomVal::Scaled(f, a) => {
                            let shift = s / f;
                            // P ∧ e ⇒ a ≥ shift, i.e. shift − a ≤ 0
                            let target = Cstr::le(Lin::constant(shift.clone()).sub(&a));
                            match entails(&pe, &target) {
                                Some(w) => {
                                    let own = self.atoms.entry(loop_key(body)).or_default();
                                    for extra in [a.clone(), a.plus_const(&-shift.clone())] {
                                        if let AtomVal::Scaled(_, c) = canon_atom(&extra) {
                                            if !own.contains(&c) {
                                                own.push(c);
                                            }
                                        }
                                    }
                                    Some(LoopAtom {
                                        atom: a,
                                        shift,
                                        witness: w,
                                        symbolic,
                                    })
                                }
                                None => {
                                    atom_err = Some(
                                        "the loop invariant does not entail that the ranking atom decreases"
                                            .to_string(),
                                    );
                                    None
                                }
                            }
                        }
                        AtomVal::Const(_) => None,
                    },
                }
            }
            Err(why) => {
                atom_err = Some(why);
                None
            }
        };
        if let Some(why) = &atom_err {
            if !self.no_atom.iter().any(|(l, w)| *l == loc && w == why) {
                self.no_atom.push((loc, why.clone()));
            }
        }
        let (en, cost) = self.expr_node(
            e,
            &Abs {
                p: p.clone().into(),
                d: d.clone().into(),
            },
            loc,
        )?;
        let post = Abs {
            p: with(&p, &self.with_lanes(&d, e, &cne, true)).into(),
            d: (if uniform {
                d.clone()
            } else {
                minus_writes(&d, &writes)
            })
            .into(),
        };
        Ok((
            AK::While {
                e: en,
                cost,
                uniform,
                inv: Abs {
                    p: p.into(),
                    d: d.into(),
                },
                body: Box::new(body_an),
                w_pre,
                w_body_post,
                atom,
                atom_err,
                writes,
                loc,
                key: loop_key(body),
            },
            post,
        ))
    }
}

/// Houdini's candidate invariant constraints for a loop entered with `p`: its constraints,
/// each equality split into two inequalities (so that one side can survive alone); lane
/// facts are about `threadIdx` alone and hold in every round.
fn houdini_candidates(p: &[Cstr]) -> Vec<Cstr> {
    let mut out: Vec<Cstr> = Vec::new();
    for c in p {
        match c.kind {
            CKind::Le | CKind::Mod(..) => out.push(c.clone()),
            CKind::Eq => {
                out.push(Cstr::le(c.lin.clone()));
                out.push(Cstr::le(c.lin.scale(&-Q::one())));
            }
        }
    }
    out.dedup();
    out
}

fn has_loop(s: &Stmt) -> bool {
    match s {
        Stmt::While(..) => true,
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => has_loop(a) || has_loop(b),
        _ => false,
    }
}

/// Whether the filtered spine of `a` (spec/logic.md §4a) has a Q:IFEXIT1/4.
fn has_exit(a: &AN) -> bool {
    match &a.kind {
        AK::Seq(_, b) => has_exit(b),
        AK::If23 { branch, .. } => has_exit(branch),
        AK::If1 { t, f, .. } => has_exit(t) || has_exit(f),
        AK::IfExit { .. } => true,
        _ => false,
    }
}

/// Whether the filtered spine of `a` has a Q:IFEXIT4 (a divergent exit).
fn has_divergent_exit(a: &AN) -> bool {
    match &a.kind {
        AK::Seq(_, b) => has_divergent_exit(b),
        AK::If23 { branch, .. } => has_divergent_exit(branch),
        AK::If1 { t, f, .. } => has_divergent_exit(t) || has_divergent_exit(f),
        AK::IfExit { uniform, f, .. } => !uniform || has_divergent_exit(f),
        _ => false,
    }
}

/// A linear definition `y = lin` from a pair `L ≤ 0`, `−L ≤ 0` (or `L = 0`) of `p`, with
/// `coef_y(L) ≠ 0` and no other variable of `L` in `writes`.
fn defining_lin(p: &[Cstr], y: &str, writes: &[String]) -> Option<Lin> {
    for c in p {
        let a = c.lin.coef(y);
        if a.is_zero() || c.lin.vars().any(|v| v != y && writes.contains(v)) {
            continue;
        }
        let both = c.kind == CKind::Eq || p.contains(&Cstr::le(c.lin.scale(&-Q::one())));
        if both {
            let mut rest = c.lin.clone();
            rest.terms.remove(y);
            return Some(rest.scale(&(-Q::one() / a)));
        }
    }
    None
}

/// A positive lower bound of the non-constant form `step` under `p`: its constant plus, for
/// each variable, its coefficient times the variable's lower (positive coefficient) or
/// upper (negative) bound from the linear constraints of `p` over that variable alone.
fn step_lower_bound(p: &[Cstr], step: &Lin) -> Option<Q> {
    let mut total = step.c.clone();
    for (v, a) in &step.terms {
        let mut best: Option<Q> = None;
        for c in p {
            let b = c.lin.coef(v);
            if b.is_zero() || c.lin.vars().count() != 1 || c.is_lane() {
                continue;
            }
            // b·v + c0 ≤ 0 (or = 0): v ≤ −c0/b when b > 0, v ≥ −c0/b when b < 0
            let bound = -c.lin.c.clone() / &b;
            let usable = c.kind == CKind::Eq || ((b < Q::zero()) == (*a > Q::zero()));
            if usable {
                let val = a * &bound;
                best = Some(best.map_or(val.clone(), |x: Q| x.max(val)));
            }
        }
        total += best?;
    }
    (total > Q::zero()).then_some(total)
}

/// `y − c = 0` for each `int` local whose only assignment in `prog` is `y ← c`.
fn const_facts(prog: &Program) -> Vec<Cstr> {
    let mut out = Vec::new();
    for (y, t) in &prog.locals {
        if *t != Ty::Int {
            continue;
        }
        let mut n = 0;
        count_assigns(&prog.body, y, &mut n);
        if n != 1 {
            continue;
        }
        let mut top = Vec::new();
        all_assigns(&prog.body, &mut top);
        for (z, e) in top {
            if z == y {
                if let Expr::Opd(Operand::Const(crate::core::Const::Int(c))) = e {
                    out.push(Cstr::eq(Lin::var(y).plus_const(&-q(*c))));
                }
            }
        }
    }
    out
}

fn all_assigns<'s>(s: &'s Stmt, out: &mut Vec<(&'s String, &'s Expr)>) {
    match s {
        Stmt::Assign(y, e, _) => out.push((y, e)),
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => {
            all_assigns(a, out);
            all_assigns(b, out);
        }
        Stmt::While(_, b, _) => all_assigns(b, out),
        _ => {}
    }
}

/// A set of names (locals, parameters, `threadIdx.d`) borrowed from the program.
type Names<'s> = BTreeSet<&'s str>;

/// The names of `threadIdx.x/y/z` in linear forms ([`tid_name`]).
const TID_NAMES: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];

/// The locals, parameters and `threadIdx.d` an operand reads.
fn operand_reads<'s>(o: &'s Operand, out: &mut Names<'s>) {
    match o {
        Operand::Var(x) | Operand::Param(x) => {
            out.insert(x);
        }
        Operand::Tid(d) => {
            out.insert(TID_NAMES[d.index()]);
        }
        Operand::Const(_) => {}
    }
}

fn expr_reads<'s>(e: &'s Expr, out: &mut Names<'s>) {
    match e {
        Expr::Opd(o) | Expr::Un(_, o) | Expr::Read(_, o) => operand_reads(o, out),
        Expr::Bin(_, a, b) => {
            operand_reads(a, out);
            operand_reads(b, out);
        }
    }
}

/// [`upward_exposed`], recording for every loop of `s` the locals live at its head and for
/// every `if` those live at the start of its else branch.
fn live_in<'s>(
    s: &'s Stmt,
    after: &Names<'s>,
    loops: &mut BTreeMap<usize, Names<'s>>,
    elses: &mut BTreeMap<usize, Names<'s>>,
) -> Names<'s> {
    match s {
        Stmt::Seq(a, b) => {
            let mid = live_in(b, after, loops, elses);
            live_in(a, &mid, loops, elses)
        }
        Stmt::If(c, a, b, _) => {
            let mut out = live_in(a, after, loops, elses);
            let lb = live_in(b, after, loops, elses);
            out.extend(lb.iter().copied());
            elses.insert(&**b as *const Stmt as usize, lb);
            expr_reads(c, &mut out);
            out
        }
        Stmt::While(_, body, _) => {
            let l = upward_exposed(s, after);
            live_in(body, &l, loops, elses);
            loops.insert(loop_key(body), l.clone());
            l
        }
        _ => upward_exposed(s, after),
    }
}

fn restrict_deps(d: &DepMap, live: &Names<'_>) -> DepMap {
    d.iter()
        .filter(|(x, _)| live.contains(x.as_str()))
        .map(|(x, e)| (x.clone(), *e))
        .collect()
}

/// The locals that some execution of `s` followed by a continuation reading `after` may
/// read before writing them (upward-exposed uses, a backward may-analysis).
fn upward_exposed<'s>(s: &'s Stmt, after: &Names<'s>) -> Names<'s> {
    match s {
        Stmt::Skip | Stmt::Sync(_) => after.clone(),
        Stmt::Assign(x, e, _) => {
            let mut out = after.clone();
            out.remove(x.as_str());
            expr_reads(e, &mut out);
            out
        }
        Stmt::Write(_, o, e, _) => {
            let mut out = after.clone();
            operand_reads(o, &mut out);
            expr_reads(e, &mut out);
            out
        }
        Stmt::Seq(a, b) => upward_exposed(a, &upward_exposed(b, after)),
        Stmt::If(c, a, b, _) => {
            let mut out = upward_exposed(a, after);
            out.extend(upward_exposed(b, after));
            expr_reads(c, &mut out);
            out
        }
        Stmt::While(c, body, _) => {
            // L = reads(c) ∪ after ∪ exposed(body, L), the least fixpoint
            let mut l = after.clone();
            expr_reads(c, &mut l);
            loop {
                let mut next = upward_exposed(body, &l);
                next.extend(l.iter().copied());
                if next == l {
                    return l;
                }
                l = next;
            }
        }
    }
}

/// Identity of a loop: the address of its body (stable while the program is borrowed).
fn loop_key(body: &Stmt) -> usize {
    body as *const Stmt as usize
}

fn flatten<'s>(s: &'s Stmt, out: &mut Vec<&'s Stmt>) {
    match s {
        Stmt::Seq(a, b) => {
            flatten(a, out);
            flatten(b, out);
        }
        other => out.push(other),
    }
}

fn count_assigns(s: &Stmt, x: &str, n: &mut usize) {
    match s {
        Stmt::Assign(y, _, _) if y == x => *n += 1,
        Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => {
            count_assigns(a, x, n);
            count_assigns(b, x, n);
        }
        Stmt::While(_, b, _) => count_assigns(b, x, n),
        _ => {}
    }
}

// -------------------------------------------------------------------- backward pass

/// A derivation node whose potentials are templates.
struct TNode {
    rule: &'static str,
    pre: (Abs, TPoly),
    post: (Abs, TPoly),
    fields: Vec<Field>,
    children: Vec<TChild>,
}

enum TChild {
    Expr(Node),
    Stmt(TNode),
}

struct Back<'c, 'a> {
    ctx: &'c Ctx<'a>,
    lp: Lp,
    /// Assignments that forced potential coefficients to 0 (reported if the LP fails).
    hints: Vec<(Loc, String)>,
}

impl Back<'_, '_> {
    /// Forces to 0 (LP equalities) and drops the monomials that mention a variable `bad`
    /// rejects.
    fn restrict(
        &mut self,
        qp: TPoly,
        bad: impl Fn(&str) -> bool,
        why: &str,
    ) -> Result<TPoly, AnalysisError> {
        self.restrict_atoms(qp, |a| a.vars().any(|v| bad(v)), why)
    }

    /// Forces to 0 (LP equalities) and drops the monomials with an atom `bad` rejects.
    fn restrict_atoms(
        &mut self,
        qp: TPoly,
        bad: impl Fn(&Lin) -> bool,
        why: &str,
    ) -> Result<TPoly, AnalysisError> {
        // in monomial order, as the LP equalities are numbered in the order they are added
        let mut out = qp;
        let drop: Vec<Mono> = out
            .terms
            .keys()
            .filter(|m| m.iter().any(&bad))
            .cloned()
            .collect();
        for m in drop {
            if let Some(c) = out.terms.remove(&m) {
                self.lp
                    .add(c, Rel::Eq, why)
                    .map_err(|e| err(None, format!("no bound: {e}")))?;
            }
        }
        out.terms.retain(|_, c| !c.is_zero_c());
        Ok(out)
    }

    /// Forces to 0 the monomials with an atom that is not uniform under `d` (spec/logic.md
    /// §1: atoms are forms whose thread coefficients cancel under `D`).
    fn restrict_d(&mut self, qp: TPoly, d: &DepMap) -> Result<TPoly, AnalysisError> {
        let prog = self.ctx.prog;
        self.restrict_atoms(
            qp,
            |a| !uniform_form(prog, d, a),
            "potential atoms must be uniform under D",
        )
    }

    /// `hi ≥ lo` coefficientwise.
    fn geq(&mut self, hi: &TPoly, lo: &TPoly, why: &str) -> Result<(), AnalysisError> {
        let mut monos: BTreeSet<&Mono> = hi.terms.keys().collect();
        monos.extend(lo.terms.keys());
        for m in monos {
            let a = hi.terms.get(m).cloned().unwrap_or_default();
            let b = lo.terms.get(m).cloned().unwrap_or_default();
            self.lp
                .add(a.minus(&b), Rel::Ge, why)
                .map_err(|e| err(None, format!("no bound: {e}")))?;
        }
        Ok(())
    }

    /// The atom `b` of the body's potential `qb` that the shifted invariant `ishift` lacks
    /// and that `from` dominates under `p` (`P ⇒ from ≥ b`), with the witness: the target
    /// of a `(mono from b …)` rewrite. Among several, the one closest to `from` (largest
    /// constant of `b − from`): the image of the ranking atom itself, not of its shifted
    /// copies.
    fn step_mono(
        &self,
        from: &Lin,
        ishift: &TPoly,
        qb: &TPoly,
        p: &[Cstr],
    ) -> Option<(Lin, Farkas)> {
        let have: BTreeSet<&Lin> = ishift.terms.keys().flatten().collect();
        if !have.contains(from) {
            return None;
        }
        let mut missing: Vec<&Lin> = qb
            .terms
            .keys()
            .flatten()
            .filter(|b| !have.contains(b))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        missing.sort_by(|a, b| b.sub(from).c.cmp(&a.sub(from).c));
        missing
            .into_iter()
            .find_map(|b| entails(p, &Cstr::le(b.sub(from))).map(|w| (b.clone(), w)))
    }

    fn template(&mut self, monos: &BTreeSet<Mono>) -> TPoly {
        let mut t = TPoly::zero();
        for m in monos {
            let v = self.lp.fresh(true);
            t.add_term(m.clone(), LinExpr::var(v));
        }
        t
    }

    fn monomials(&self, key: usize, d: &DepMap, exclude: &[String]) -> BTreeSet<Mono> {
        self.monomials_of(self.ctx.atoms.get(&key), d, exclude)
    }

    fn monomials_of(
        &self,
        atoms: Option<&Vec<Lin>>,
        d: &DepMap,
        exclude: &[String],
    ) -> BTreeSet<Mono> {
        self.monomials_deg(atoms, d, exclude, self.ctx.degree)
    }

    fn monomials_deg(
        &self,
        atoms: Option<&Vec<Lin>>,
        d: &DepMap,
        exclude: &[String],
        degree: usize,
    ) -> BTreeSet<Mono> {
        let mut scope: Vec<&Lin> = Vec::new();
        for a in atoms.into_iter().flatten() {
            if !scope.contains(&a) {
                scope.push(a);
            }
        }
        let atoms: Vec<&Lin> = scope
            .into_iter()
            .filter(|a| uniform_form(self.ctx.prog, d, a) && a.vars().all(|v| !exclude.contains(v)))
            .collect();
        let mut out: BTreeSet<Mono> = BTreeSet::new();
        out.insert(Vec::new());
        let mut frontier: Vec<Mono> = vec![Vec::new()];
        for _ in 0..degree {
            let mut next = Vec::new();
            for m in &frontier {
                for a in &atoms {
                    if m.last().is_some_and(|l| l > *a) {
                        continue;
                    }
                    let mut nm = m.clone();
                    nm.push((*a).clone());
                    if out.insert(nm.clone()) {
                        next.push(nm);
                    }
                }
            }
            frontier = next;
        }
        out
    }

    fn back(&mut self, a: &AN, qpost: TPoly) -> Result<(TNode, TPoly), AnalysisError> {
        let qpost = self.restrict_d(qpost, &a.post.d)?;
        let node = |rule, qpre: &TPoly, fields, children| TNode {
            rule,
            pre: (a.pre.clone(), qpre.clone()),
            post: (a.post.clone(), qpost.clone()),
            fields,
            children,
        };
        let (n, qpre) = match &a.kind {
            AK::Skip => (node("Q:SKIP", &qpost, vec![], vec![]), qpost.clone()),
            AK::Sync => {
                let qp = qpost.plus_const(&self.ctx.metric.sync);
                (node("Q:SYNC", &qp, vec![], vec![]), qp)
            }
            AK::Seq(s1, s2) => {
                let (n2, qm) = self.back(s2, qpost.clone())?;
                let (n1, qp) = self.back(s1, qm)?;
                (
                    node(
                        "Q:SEQ",
                        &qp,
                        vec![],
                        vec![TChild::Stmt(n1), TChild::Stmt(n2)],
                    ),
                    qp,
                )
            }
            AK::Assign {
                x,
                loc,
                lin,
                vw1,
                witnesses,
                e,
                cost,
            } => {
                let k = cost + &self.ctx.metric.vwrite;
                let fields = vec![Field::Entail("post", witnesses.clone())];
                // Q:VWRITE1 substitutes (a non-uniform value too when the potential after it
                // mentions x through uniform forms, spec/logic.md §4); Q:VWRITE2 otherwise
                let substitute = *vw1 || (qpost.mentions(x) && a.post.d.contains_key(x));
                if substitute && lin.is_some() {
                    let le = lin.clone().unwrap_or_default();
                    let qp = qpost.subst(x, &le).plus_const(&k);
                    (
                        node("Q:VWRITE1", &qp, fields, vec![TChild::Expr(e.clone())]),
                        qp,
                    )
                } else {
                    // Q' must not mention x: force those coefficients to 0 (now qpost is exact)
                    if qpost.mentions(x) {
                        let why = if *vw1 {
                            format!("`{x}` is assigned a non-linear value, so the potential after it cannot mention `{x}`")
                        } else {
                            format!("`{x}` is not warp-uniform before this assignment (Q:VWRITE1 needs it in X(D)) or the value is not uniform, so the potential after it cannot mention `{x}`")
                        };
                        if !self.hints.iter().any(|(l, w)| l == loc && *w == why) {
                            self.hints.push((*loc, why));
                        }
                    }
                    let xs = x.clone();
                    let restricted = self.restrict(
                        qpost.clone(),
                        |v| v == xs,
                        "the potential after an assignment without substitution must not mention the variable",
                    )?;
                    let qp = restricted.plus_const(&k);
                    let rule = if *vw1 { "Q:VWRITE1" } else { "Q:VWRITE2" };
                    let mut nn = node(rule, &qp, fields, vec![TChild::Expr(e.clone())]);
                    nn.post.1 = restricted;
                    (nn, qp)
                }
            }
            AK::Write {
                global,
                n,
                o,
                e,
                cost,
            } => {
                let qp = qpost.plus_const(cost);
                let rule = if *global { "Q:GWRITE" } else { "Q:SWRITE" };
                (
                    node(
                        rule,
                        &qp,
                        vec![Field::N(*n)],
                        vec![TChild::Expr(o.clone()), TChild::Expr(e.clone())],
                    ),
                    qp,
                )
            }
            AK::If23 {
                rule,
                witnesses,
                e,
                cost,
                branch,
            } => {
                let (nb, qb) = self.back(branch, qpost.clone())?;
                let qp = qb.plus_const(&(cost + &self.ctx.metric.if_));
                (
                    node(
                        rule,
                        &qp,
                        vec![Field::Entail("cond", witnesses.clone())],
                        vec![TChild::Expr(e.clone()), TChild::Stmt(nb)],
                    ),
                    qp,
                )
            }
            AK::If1 {
                e,
                cost,
                t,
                f,
                join,
                wt,
                wf,
                rw_t,
                rw_f,
            } => {
                let (nt, qt) = self.back(t, qpost.clone())?;
                let (nf, qf) = self.back(f, qpost.clone())?;
                let mut monos: BTreeSet<Mono> = qt.terms.keys().cloned().collect();
                monos.extend(qf.terms.keys().cloned());
                monos.extend(unshifted_monos(rw_t, &qt));
                monos.extend(unshifted_monos(rw_f, &qf));
                let tpl = self.template(&monos);
                self.geq(&apply_rewrites(&tpl, rw_t), &qt, "IF1 then-branch")?;
                self.geq(&apply_rewrites(&tpl, rw_f), &qf, "IF1 else-branch")?;
                let weak = |child: TNode, w: &Vec<Farkas>, pre: &Abs, rw: &Vec<Rewrite>| {
                    let mut fields = vec![Field::Entail("pre", identity_witnesses(&pre.p))];
                    if !rw.is_empty() {
                        fields.push(Field::Rewrite("pre", rw.clone()));
                    }
                    fields.push(Field::Entail("post", w.clone()));
                    TNode {
                        rule: "Q:WEAK",
                        pre: (pre.clone(), tpl.clone()),
                        post: (join.clone(), qpost.clone()),
                        fields,
                        children: vec![TChild::Stmt(child)],
                    }
                };
                let tpre = t.pre.clone();
                let fpre = f.pre.clone();
                let wnt = weak(nt, wt, &tpre, rw_t);
                let wnf = weak(nf, wf, &fpre, rw_f);
                let qp = tpl.plus_const(&(cost + &self.ctx.metric.if_));
                (
                    node(
                        "Q:IF1",
                        &qp,
                        vec![],
                        vec![
                            TChild::Expr(e.clone()),
                            TChild::Stmt(wnt),
                            TChild::Stmt(wnf),
                        ],
                    ),
                    qp,
                )
            }
            AK::Tighten { inner, w_pre } => {
                let (n, q) = self.back(inner, qpost.clone())?;
                (
                    node(
                        "Q:WEAK",
                        &q,
                        vec![
                            Field::Entail("pre", w_pre.clone()),
                            Field::Entail("post", identity_witnesses(&inner.post.p)),
                        ],
                        vec![TChild::Stmt(n)],
                    ),
                    q,
                )
            }
            AK::If4 {
                e,
                cost,
                t,
                f,
                w_else_cond,
                w_else_then,
                w_join_then,
                w_join_else,
            } => {
                let (nf, q1) = self.back(f, qpost.clone())?;
                let (nt, qt) = self.back(t, q1)?;
                let qp = qt.plus_const(&(cost + &self.ctx.metric.if_ + &self.ctx.metric.div));
                (
                    node(
                        "Q:IF4",
                        &qp,
                        vec![
                            Field::Entail("else-cond", w_else_cond.clone()),
                            Field::Entail("else-then", w_else_then.clone()),
                            Field::Entail("join-then", w_join_then.clone()),
                            Field::Entail("join-else", w_join_else.clone()),
                        ],
                        vec![TChild::Expr(e.clone()), TChild::Stmt(nt), TChild::Stmt(nf)],
                    ),
                    qp,
                )
            }
            AK::IfExit {
                uniform,
                e,
                cost,
                t,
                f,
                w_exit,
                w_join_then,
                w_join_else,
                rw_f,
                f_pre,
            } => {
                let (nf, qf) = self.back(f, qpost.clone())?;
                let (nt, qt) = self.back(t, TPoly::zero())?;
                let ident = |abs: &Abs| Field::Entail("pre", identity_witnesses(&abs.p));
                let ident_post = |abs: &Abs| Field::Entail("post", identity_witnesses(&abs.p));
                // the else branch's potential, from a template through the rewrites
                let weak_f = |this: &mut Self, tpl: &TPoly| -> Result<TNode, AnalysisError> {
                    this.geq(&apply_rewrites(tpl, rw_f), &qf, "IFEXIT else-branch")?;
                    let mut fields =
                        vec![Field::Entail("pre", subset_witnesses(&f_pre.p, &f.pre.p))];
                    if !rw_f.is_empty() {
                        fields.push(Field::Rewrite("pre", rw_f.clone()));
                    }
                    fields.push(ident_post(&f.post));
                    Ok(TNode {
                        rule: "Q:WEAK",
                        pre: (f_pre.clone(), tpl.clone()),
                        post: (f.post.clone(), qpost.clone()),
                        fields,
                        children: vec![],
                    })
                };
                let fields = vec![
                    Field::Entail("exit", w_exit.clone()),
                    Field::Entail("join-then", w_join_then.clone()),
                    Field::Entail("join-else", w_join_else.clone()),
                ];
                if *uniform {
                    let mut monos: BTreeSet<Mono> = qt.terms.keys().cloned().collect();
                    monos.extend(qf.terms.keys().cloned());
                    monos.extend(unshifted_monos(rw_f, &qf));
                    let tpl = self.template(&monos);
                    self.geq(&tpl, &qt, "IFEXIT then-branch")?;
                    let mut wf = weak_f(self, &tpl)?;
                    wf.children.push(TChild::Stmt(nf));
                    let wt = TNode {
                        rule: "Q:WEAK",
                        pre: (t.pre.clone(), tpl.clone()),
                        post: (t.post.clone(), TPoly::zero()),
                        fields: vec![ident(&t.pre), ident_post(&t.post)],
                        children: vec![TChild::Stmt(nt)],
                    };
                    let qp = tpl.plus_const(&(cost + &self.ctx.metric.if_));
                    (
                        node(
                            "Q:IFEXIT1",
                            &qp,
                            fields,
                            vec![TChild::Expr(e.clone()), TChild::Stmt(wt), TChild::Stmt(wf)],
                        ),
                        qp,
                    )
                } else {
                    let (fchild, qfn) =
                        if rw_f.is_empty() && f_pre.d == f.pre.d && f_pre.p == f.pre.p {
                            (nf, qf.clone())
                        } else {
                            let mut monos: BTreeSet<Mono> = qf.terms.keys().cloned().collect();
                            monos.extend(unshifted_monos(rw_f, &qf));
                            let tpl = self.template(&monos);
                            let mut wf = weak_f(self, &tpl)?;
                            wf.children.push(TChild::Stmt(nf));
                            (wf, tpl)
                        };
                    let qp = qt
                        .plus(&qfn)
                        .plus_const(&(cost + &self.ctx.metric.if_ + &self.ctx.metric.div));
                    (
                        node(
                            "Q:IFEXIT4",
                            &qp,
                            fields,
                            vec![
                                TChild::Expr(e.clone()),
                                TChild::Stmt(nt),
                                TChild::Stmt(fchild),
                            ],
                        ),
                        qp,
                    )
                }
            }
            AK::WhileExit {
                e,
                cost,
                uniform,
                inv,
                body,
                w_pre,
                w_body_post,
                key,
                nested,
            } => {
                let k = if *uniform {
                    cost + &self.ctx.metric.if_
                } else {
                    cost + &self.ctx.metric.if_ + &self.ctx.metric.div
                };
                // a body without loops costs at most a constant per iteration: the ranking
                // atoms alone suffice (the potential after the loop is kept apart)
                let degree = if *nested { self.ctx.degree } else { 1 };
                let monos = self.monomials_deg(self.ctx.exit_own.get(key), &inv.d, &[], degree);
                let i = self.template(&monos);
                let i = self.restrict_d(i, &inv.d)?;
                let ik = i.plus_const(&k);
                let (nb, qb) = self.back(body, ik.clone())?;
                self.geq(&i, &qb, "loop body is paid by the invariant")?;
                let body_pre = body.pre.clone();
                let bweak = TNode {
                    rule: "Q:WEAK",
                    pre: (body_pre.clone(), i.clone()),
                    post: (inv.clone(), ik.clone()),
                    fields: vec![
                        Field::Entail("pre", identity_witnesses(&body_pre.p)),
                        Field::Entail("post", w_body_post.clone()),
                    ],
                    children: vec![TChild::Stmt(nb)],
                };
                let qp = i.plus(&qpost).plus_const(&(&k + &k));
                let wnode = TNode {
                    rule: if *uniform {
                        "Q:WHILEEXIT1"
                    } else {
                        "Q:WHILEEXIT2"
                    },
                    pre: (inv.clone(), qp.clone()),
                    post: (a.post.clone(), qpost.clone()),
                    fields: vec![],
                    children: vec![TChild::Expr(e.clone()), TChild::Stmt(bweak)],
                };
                let outer = node(
                    "Q:WEAK",
                    &qp,
                    vec![
                        Field::Entail("pre", w_pre.clone()),
                        Field::Entail("post", identity_witnesses(&a.post.p)),
                    ],
                    vec![TChild::Stmt(wnode)],
                );
                (outer, qp)
            }
            AK::Unroll { inner } => {
                let (ni, qi) = self.back(inner, qpost.clone())?;
                (node("Q:UNROLL", &qi, vec![], vec![TChild::Stmt(ni)]), qi)
            }
            AK::While {
                e,
                cost,
                uniform,
                inv,
                body,
                w_pre,
                w_body_post,
                atom,
                atom_err,
                writes,
                loc,
                key,
            } => {
                let k = if *uniform {
                    cost + &self.ctx.metric.if_
                } else {
                    cost + &self.ctx.metric.if_ + &self.ctx.metric.div
                };
                let mut monos = self.monomials(*key, &inv.d, &[]);
                monos.extend(qpost.terms.keys().cloned());
                let i = self.template(&monos);
                let i = self.restrict_d(i, &inv.d)?;
                // Q:WHILE2's post potential: the invariant without its terms over W(s)
                let i_post = if *uniform {
                    i.clone()
                } else {
                    let mut out = TPoly::zero();
                    for (m, c) in &i.terms {
                        if !m.iter().any(|at| writes.iter().any(|w| at.mentions(w))) {
                            out.add_term(m.clone(), c.clone());
                        }
                    }
                    out
                };
                self.geq(
                    &i_post,
                    &qpost,
                    "loop invariant covers the potential after the loop",
                )?;
                let ik = i.plus_const(&k);
                let (nb, qb) = self.back(body, ik.clone())?;
                let (mut ishift, mut rws) = match atom {
                    Some(la) => (
                        i.shift(&la.atom, &la.shift),
                        vec![Rewrite::Shift(
                            la.atom.clone(),
                            la.shift.clone(),
                            la.witness.clone(),
                        )],
                    ),
                    None => (i.clone(), vec![]),
                };
                // a symbolic step (`pos += 192·gridDim.x`): the body leaves the atom lowered
                // by the step, the shift lowered it by the step's lower bound; bridge the
                // two by a monotone rewrite max0(a − s_min) ≥ max0(a − step)
                if let Some(la) = atom.as_ref().filter(|la| la.symbolic) {
                    if let AtomVal::Scaled(_, from) =
                        canon_atom(&la.atom.plus_const(&-la.shift.clone()))
                    {
                        if let Some((to, w)) = self.step_mono(&from, &ishift, &qb, &body.pre.p) {
                            ishift = ishift.replace_atom(&from, &[(Q::one(), Some(to.clone()))]);
                            rws.push(Rewrite::Mono(from, to, w));
                        }
                    }
                }
                self.geq(&ishift, &qb, "loop body is paid by the invariant")
                    .map_err(|e| {
                        let why = match atom_err {
                            Some(w) => format!(
                                "no bound for this loop: its body has a cost but the loop has no ranking atom ({w})"
                            ),
                            None => format!("no bound for this loop: {}", e.reason),
                        };
                        err(Some(*loc), why)
                    })?;
                let body_pre = body.pre.clone();
                let mut bfields = vec![Field::Entail("pre", identity_witnesses(&body_pre.p))];
                if !rws.is_empty() {
                    bfields.push(Field::Rewrite("pre", rws));
                }
                bfields.push(Field::Entail("post", w_body_post.clone()));
                let bweak = TNode {
                    rule: "Q:WEAK",
                    pre: (body_pre, i.clone()),
                    post: (inv.clone(), ik.clone()),
                    fields: bfields,
                    children: vec![TChild::Stmt(nb)],
                };
                let wnode = TNode {
                    rule: if *uniform { "Q:WHILE1" } else { "Q:WHILE2" },
                    pre: (inv.clone(), ik.clone()),
                    post: (a.post.clone(), i_post),
                    fields: vec![],
                    children: vec![TChild::Expr(e.clone()), TChild::Stmt(bweak)],
                };
                let outer = node(
                    "Q:WEAK",
                    &ik,
                    vec![
                        Field::Entail("pre", w_pre.clone()),
                        Field::Entail("post", identity_witnesses(&a.post.p)),
                    ],
                    vec![TChild::Stmt(wnode)],
                );
                (outer, ik)
            }
        };
        let qpre = self.restrict_d(qpre, &a.pre.d)?;
        let mut n = n;
        n.pre.1 = qpre.clone();
        Ok((n, qpre))
    }
}

/// The monomials of `q` with each atom `A'` that a shift of `rw` produces
/// (`max0(A) = max0(A') + s`) replaced by `A`: the monomials a template needs so that the
/// rewrites can turn it into `q`.
fn unshifted_monos(rw: &[Rewrite], q: &TPoly) -> Vec<Mono> {
    let mut out = Vec::new();
    for r in rw {
        if let Rewrite::Shift(a, sft, _) = r {
            let AtomVal::Scaled(f, b) = canon_atom(&a.plus_const(&-sft.clone())) else {
                continue;
            };
            if !f.is_one() {
                continue;
            }
            for m in q.terms.keys() {
                if m.contains(&b) {
                    let mut nm: Mono = m
                        .iter()
                        .map(|x| if *x == b { a.clone() } else { x.clone() })
                        .collect();
                    nm.sort();
                    out.push(nm);
                }
            }
        }
    }
    out
}

/// A template after the shift rewrites of `rw`, in order.
fn apply_rewrites(t: &TPoly, rw: &[Rewrite]) -> TPoly {
    let mut out = t.clone();
    for r in rw {
        match r {
            Rewrite::Shift(a, sft, _) => out = out.shift(a, sft),
            Rewrite::Zero(a, _) => out = out.zero_atom(a),
            Rewrite::Mono(l, l2, _) => out = out.mono(l, l2),
        }
    }
    out
}

fn inst(n: &TNode, sol: &[Q]) -> Result<Node, AnalysisError> {
    let assn = |(abs, qp): &(Abs, TPoly)| -> Result<Assn, AnalysisError> {
        let qq = qp.instantiate(sol);
        if !qq.nonneg() {
            return Err(err(None, "internal: negative potential coefficient"));
        }
        Ok(Assn {
            p: abs.p.clone(),
            d: abs.d.clone(),
            q: qq,
        })
    };
    let mut children = Vec::new();
    for c in &n.children {
        children.push(match c {
            TChild::Expr(e) => e.clone(),
            TChild::Stmt(s) => inst(s, sol)?,
        });
    }
    Ok(Node {
        rule: n.rule,
        judgment: Judgment::Stmt {
            pre: assn(&n.pre)?,
            post: assn(&n.post)?,
        },
        fields: n.fields.clone(),
        children,
    })
}

/// The launch facts of `spec/logic.md` §5, in order: thread-index bounds, `blockIdx.d ≥ 0`,
/// `gridDim.d ≥ 1`, `blockIdx.d ≤ gridDim.d − 1`.
pub fn launch_facts(prog: &Program, launch: &Launch) -> Vec<Cstr> {
    let mut p = Vec::new();
    for dim in crate::core::Dim::ALL {
        let t = Lin::var(&tid_name(dim));
        p.push(Cstr::le(t.scale(&-Q::one())));
        p.push(Cstr::le(
            t.plus_const(&-q(launch.block[dim.index()] as i64 - 1)),
        ));
    }
    for prm in &prog.params {
        if prm.name.starts_with("blockIdx.") {
            p.push(Cstr::le(Lin::var(&prm.name).scale(&-Q::one())));
        }
    }
    for prm in &prog.params {
        if prm.name.starts_with("gridDim.") {
            p.push(Cstr::le(
                Lin::var(&prm.name).scale(&-Q::one()).plus_const(&Q::one()),
            ));
        }
    }
    for dim in crate::core::Dim::ALL {
        let (b, g) = (
            format!("blockIdx.{}", dim.letter()),
            format!("gridDim.{}", dim.letter()),
        );
        if prog.param_ty(&b).is_some() && prog.param_ty(&g).is_some() {
            p.push(Cstr::le(
                Lin::var(&b).sub(&Lin::var(&g)).plus_const(&Q::one()),
            ));
        }
    }
    p
}

/// The per-warp bound is for every block: an atom of the root potential with negative
/// `blockIdx.d` terms is replaced by the atom without them (larger, as `blockIdx.d ≥ 0` is a
/// launch fact), through a root Q:WEAK with `(mono …)` rewrites (spec/certificate.md).
/// Atoms whose image would coincide with another atom are kept. Returns the root node and
/// its potential (unchanged when no atom mentions a block index negatively).
fn drop_block_indices(prog: &Program, tn: TNode, qroot: &TPoly) -> (TNode, TPoly) {
    let atoms: BTreeSet<Lin> = qroot.terms.keys().flatten().cloned().collect();
    let mut images: BTreeMap<Lin, (Lin, Lin)> = BTreeMap::new(); // atom ↦ (image, canonical image)
    for a in &atoms {
        let mut img = a.clone();
        for (v, c) in &a.terms {
            if v.starts_with("blockIdx.") && prog.param_ty(v) == Some(Ty::Int) && *c < Q::zero() {
                img.terms.remove(v);
            }
        }
        if img == *a {
            continue;
        }
        if let AtomVal::Scaled(_, canon) = canon_atom(&img) {
            images.insert(a.clone(), (img, canon));
        }
    }
    // keep only injective images that are not atoms already
    let mut count: BTreeMap<&Lin, usize> = BTreeMap::new();
    for (_, c) in images.values() {
        *count.entry(c).or_default() += 1;
    }
    let keep: Vec<(Lin, Lin, Lin)> = images
        .iter()
        .filter(|(_, (_, c))| count[c] == 1 && !atoms.contains(c))
        .map(|(a, (img, c))| (a.clone(), img.clone(), c.clone()))
        .collect();
    if keep.is_empty() {
        return (tn, qroot.clone());
    }
    let p = tn.pre.0.p.clone();
    let mut outer_q = qroot.clone();
    let mut rws = Vec::new();
    for (a, img, _) in &keep {
        outer_q = outer_q.replace_atom(a, &[(Q::one(), Some(img.clone()))]);
        // P ⇒ img ≥ a: img − a = Σ |c|·blockIdx.d, from the launch facts −blockIdx.d ≤ 0
        match entails(&p, &Cstr::le(a.sub(img))) {
            Some(w) => rws.push(Rewrite::Mono(img.clone(), a.clone(), w)),
            None => return (tn, qroot.clone()),
        }
    }
    let node = TNode {
        rule: "Q:WEAK",
        pre: (tn.pre.0.clone(), outer_q.clone()),
        post: tn.post.clone(),
        fields: vec![
            Field::Entail("pre", identity_witnesses(&p)),
            Field::Rewrite("pre", rws),
            Field::Entail("post", identity_witnesses(&tn.post.0.p)),
        ],
        children: vec![TChild::Stmt(tn)],
    };
    (node, outer_q)
}

/// Runs the whole inference: forward pass, backward pass, LP, instantiation.
/// Returns the root node (about the kernel body) and the bound.
pub fn run(ctx: &mut Ctx<'_>) -> Result<(Node, Poly), AnalysisError> {
    let prog = ctx.prog;
    // the initial map restricted to the locals some path may read before writing them
    // (spec/logic.md §5 allows any D ⊑ the initial map; an entry for a local that is always
    // written first is never used, and would only be copied into every assertion)
    let exposed = &ctx.live_root;
    let root = Abs {
        p: launch_facts(prog, ctx.launch).into(),
        d: (initial_deps(prog)
            .into_iter()
            .filter(|(x, _)| exposed.contains(x.as_str()))
            .collect::<DepMap>())
        .into(),
    };
    let an = ctx.fwd(&prog.body, &root)?;
    let ctx_ref: &Ctx<'_> = ctx;
    let mut back = Back {
        ctx: ctx_ref,
        lp: Lp::default(),
        hints: Vec::new(),
    };
    let (tn, qroot) = back.back(&an, TPoly::zero())?;
    // the root potential may mention only int parameters
    let qroot = back.restrict(
        qroot,
        |v| prog.param_ty(v) != Some(Ty::Int),
        "the bound may mention only parameters",
    )?;
    let mut tn = tn;
    tn.pre.1 = qroot.clone();
    let (tn, qbound) = drop_block_indices(prog, tn, &qroot);
    let mut obj = LinExpr::default();
    for (m, c) in &qroot.terms {
        let w = match m.len() {
            0 => q(1),
            1 => q(1000),
            2 => q(1_000_000),
            _ => q(1_000_000_000),
        };
        obj.add_assign_c(&c.scaled(&w));
    }
    let nvars = back.lp.nonneg.len();
    for i in 0..nvars {
        let e = obj.v.entry(i).or_insert_with(Q::zero);
        *e += Q::new(1.into(), 100000.into());
    }
    let hints = back.hints.clone();
    let sol = back.lp.solve(&obj).map_err(|why| {
        let mut msg = format!("no bound found: {why}");
        for (loc, r) in &ctx_ref.no_atom {
            msg.push_str(&format!("; loop at {loc}: {r}"));
        }
        for (loc, h) in &hints {
            msg.push_str(&format!("; assignment at {loc}: {h}"));
        }
        if ctx_ref.no_atom.is_empty() && hints.is_empty() {
            msg.push_str(&format!(
                " (every loop has a ranking atom; a bound may need a degree above {})",
                ctx_ref.degree
            ));
        }
        let loc = ctx_ref.no_atom.first().or(hints.first()).map(|(l, _)| *l);
        err(loc, msg)
    })?;
    let node = inst(&tn, &sol)?;
    let bound = qbound.instantiate(&sol);
    Ok((node, bound))
}
