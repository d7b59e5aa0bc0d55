//! The inference proper (RaCUDA §7, note §8): a forward abstract interpretation that fixes
//! the rule of every statement and the `(P, D)` parts of every assertion, then a backward
//! pass that builds potentials with template coefficients (LP variables), the LP, and the
//! instantiation of the derivation tree with the exact LP solution.
//!
//! Loops: a loop with a linear ranking atom (`x ← x + c`, or a symbolic step `x ← x + s`
//! with `s ≥ 1`, relaxed by a `mono` rewrite; `s` may be the counter itself, `i *= 2` under
//! `i ≥ 1`: a linear bound on a doubling loop) is Q:WHILE1/2; one whose trip count `P`
//! decides is unrolled (Q:UNROLL); one left by jumps whose body tests a counter after
//! updating it (`do { …; i -= 20; if (i <= 0) return …; } while (1)`) is Q:WHILEEXIT1/2 of
//! spec/logic.md §4a: its body is analysed in *filtered* position (the post's `D` is about
//! the threads that stay), exits are Q:IFEXIT1/4, and the ranking atom (`max0(i)`) is
//! released by a shift rewrite in the else branch of the counter test (`max0(i + 20) =
//! max0(i) + 20` under `i ≥ 1`). Invariants keep `D` entries and constraints only of the
//! locals (and parameters) some later statement reads.

mod backward;
mod candidates;
mod case;
mod exits;
mod forward;
mod guarded;
mod instantiate;
mod launch;
mod liveness;
mod loops;
mod loops_geo;
mod nest;
mod ranking;
mod seq;
mod template;

use crate::analysis::derive::backward::{Back, TNode};
use crate::analysis::derive::candidates::const_facts;
use crate::analysis::derive::instantiate::inst;
use crate::analysis::derive::launch::drop_block_indices;
use crate::analysis::derive::liveness::{live_in, Fixed, Names};
use crate::analysis::derive::ranking::LoopAtom;
use crate::analysis::linear::{initial_deps, warp_uniform_dims, DepCx};
use crate::analysis::lp::Lp;
use crate::analysis::tpoly::{LinExpr, TPoly};
use crate::analysis::{AnalysisError, AnalysisOptions};
use crate::certificate::{Farkas, Node, Rewrite};
use crate::core::assertion::linear::{Cstr, DepMap, Lin};
use crate::core::assertion::poly::{Atom, Coef, Poly};
use crate::core::metric::{q, Q};
use crate::core::{Expr, Hardware, Launch, Loc, Metric, Program, Space, Ty};
pub(crate) use case::split_cases;
pub use launch::launch_facts;
use num_bigint::BigInt;
use num_traits::Zero;
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
    (0..p.len()).map(Farkas::Id).collect()
}

/// Witnesses for each constraint of `sub` (a sublist of `p`, in order) by position.
fn subset_witnesses(p: &[Cstr], sub: &[Cstr]) -> Vec<Farkas> {
    let mut out = Vec::new();
    let mut j = 0;
    for c in sub {
        while j < p.len() && p[j] != *c {
            j += 1;
        }
        out.push(Farkas::Id(j));
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

/// An expression node of the forward tree, shared with the template tree's children
/// ([`backward::TChild::Expr`]) instead of copied: the forward tree is freed before the
/// derivation is instantiated, which then takes each node without a copy (issue 13).
type ENode = Arc<Node>;

/// The annotated statement produced by the forward pass.
#[derive(Clone, Debug)]
struct AN {
    pre: Abs,
    post: Abs,
    kind: AK,
}

// one value per analysed statement, built once per pass, held until the certificate is
// written: the largest variants are boxed (issue 13: unboxed, `AN` took 1592 bytes, and a
// sequence of 9 000 statements kept 14 MB of them alive)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum AK {
    Skip,
    Sync,
    /// A sequence chain as one list (at least two items; [`seq`]).
    Seq(Vec<AN>),
    /// Q:WEAK dropping from the post the constraints and `D` entries of dead locals
    /// (`w_post` proves the post's `P`, a sublist, from `inner.post.P`); pre unchanged.
    Weaken {
        inner: Box<AN>,
        w_post: Vec<Farkas>,
    },
    Assign(Box<AssignAn>),
    /// Q:SHFL/Q:VOTE.
    Warp(WarpAn),
    Write {
        global: bool,
        /// A thread-local array (Q:LWRITE; `global` false, `n` unused).
        local: bool,
        n: u64,
        o: ENode,
        e: ENode,
        cost: Q,
        /// Q:GWRITEROWS (spec/logic.md §4 "Rows"): the charge `(N₀, terms, X)` and the
        /// cost with `M^gwrite(N₀)` in place of `M^gwrite(N)`.
        rows: Option<Box<(RowsCharge, Q)>>,
        /// Q:GWRITEGUARD (spec/logic.md §4 "Guarded accesses"): the charge and the cost
        /// with `M^gwrite(N₀)` in place of `M^gwrite(N)`.
        guarded: Option<Box<(guarded::GuardCharge, Q)>>,
    },
    If23 {
        rule: &'static str,
        witnesses: Vec<Farkas>,
        e: ENode,
        cost: Q,
        branch: Box<AN>,
    },
    If1(If1An),
    If4(Box<If4An>),
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
    IfExit(IfExitAn),
    /// Q:WHILEEXIT1/2: the body is filtered for the loop condition.
    WhileExit(WhileExitAn),
    While(Box<WhileAn>),
    /// Q:GUARD (spec/logic.md §4a): `g ← c` of the loop guard in filtered position;
    /// `inner` is the ordinary assignment, `rw` the rewrites of its post potential under
    /// `inner.post.P ∧ cond(c)`. The node's post is `inner`'s.
    Guard {
        inner: Box<AN>,
        rw: Vec<Rewrite>,
    },
    /// Q:GUARDEXIT (spec/logic.md §4a): a statement that sets the loop guard to false;
    /// `inner` is its ordinary derivation (post potential 0).
    GuardExit {
        inner: Box<AN>,
    },
    /// Q:IFGUARD4 (spec/logic.md §4a): a divergent `if` in filtered position for the guard
    /// `(var g)` whose else branch falsifies `g`: `t` filtered, `f` ordinary (post
    /// potential 0).
    IfGuard(IfGuardAn),
    /// Q:FLAGEXIT (spec/logic.md §4a): `part; if c then t else f` in filtered position for
    /// the guard `(var g)`, `part` filtered for the jump-flag test `c`, `t` filtered for
    /// the guard, `f` ordinary from the empty `D` (it ends with `g ← false`).
    FlagExit(FlagExitAn),
    /// Q:WHILENONE (spec/logic.md §4a): a guard loop right after `g ← E` whose pre entails
    /// `cond(¬E)` (`w_none`): no thread enters it; `e` is the test `(var g)`, `cost` its cost.
    WhileNone {
        e: ENode,
        cost: Q,
        w_none: Vec<Farkas>,
    },
}

/// Q:FLAGEXIT (spec/logic.md §4a): the part of a loop body before the jump-flag test,
/// filtered for that test, and the test itself, whose branches are those of a Q:IFGUARD4
/// node (the then branch filtered for the guard, the else branch leaving the loop).
#[derive(Clone, Debug)]
struct FlagExitAn {
    part: Box<AN>,
    test: IfGuardAn,
}

/// Q:IFGUARD4 (spec/logic.md §4a): `t` stays in the loop or not (filtered), `f` leaves it
/// (ordinary, ends with `g ← false`).
#[derive(Clone, Debug)]
struct IfGuardAn {
    e: ENode,
    cost: Q,
    t: Box<AN>,
    f: Box<AN>,
    w_join_then: Vec<Farkas>,
    w_join_else: Vec<Farkas>,
}

/// Q:VWRITE1/2: `x ← e` with the linear value `lin` when there is one, whether the value is
/// uniform (`vw1`), and the witnesses of the post's constraints.
#[derive(Clone, Debug)]
struct AssignAn {
    x: String,
    loc: Loc,
    lin: Option<Lin>,
    /// `x ← a >> c` / `x ← a / c` without `lin`: `lin(a)` and the witness of `P ⇒ a ≥ 1`
    /// (Q:VWRITE1's bounding substitution, spec/logic.md §4 "Halving").
    halve: Option<Box<(Lin, Farkas, Q)>>,
    /// `x ← a * b` (uniform) without `lin`: the lower bound `β·lin(a) + α·lin(b) − α·β`
    /// and the witnesses of `P ⇒ a ≥ α`, `P ⇒ b ≥ β` (spec/logic.md §4 "Products").
    product: Option<Box<(Lin, Farkas, Farkas)>>,
    vw1: bool,
    witnesses: Vec<Farkas>,
    e: ENode,
    cost: Q,
    /// `x ← read A o` as Q:VWRITEROWS (spec/logic.md §4 "Rows"): the row charge, the cost
    /// `C_o + M^gread(N₀)` and the operand node of `o`.
    rows: Option<Box<(RowsCharge, Q, ENode)>>,
    /// `x ← read A o` as Q:VWRITEGUARD (spec/logic.md §4 "Guarded accesses"): the charge,
    /// the cost `C_o + M^gread(N₀)` and the operand node of `o`.
    guarded: Option<Box<(guarded::GuardCharge, Q, ENode)>>,
}

/// Q:SHFL/Q:VOTE: `x ← shfl …`/`x ← vote …` with its operand nodes and its cost (the
/// operands' plus `M^op + M^vwrite`).
#[derive(Clone, Debug)]
struct WarpAn {
    rule: &'static str,
    x: String,
    loc: Loc,
    children: Vec<Node>,
    cost: Q,
}

/// Q:IF1: a warp-uniform `if` whose branches join at `join`.
#[derive(Clone, Debug)]
struct If1An {
    e: ENode,
    cost: Q,
    t: Box<AN>,
    f: Box<AN>,
    join: Abs,
    wt: Vec<Farkas>,
    wf: Vec<Farkas>,
    /// Rewrites of the branch pre potentials (filtered position only).
    rw_t: Vec<Rewrite>,
    rw_f: Vec<Rewrite>,
}

/// Q:IF4: a divergent `if` (both branches run one after the other).
#[derive(Clone, Debug)]
struct If4An {
    e: ENode,
    cost: Q,
    t: Box<AN>,
    f: Box<AN>,
    w_else_cond: Vec<Farkas>,
    w_else_then: Vec<Farkas>,
    w_join_then: Vec<Farkas>,
    w_join_else: Vec<Farkas>,
    /// Q:IFALIGN's charge `[m ∤ s − X]` as `(s − X, s, m)` (spec/logic.md §4; `(s, m)` is
    /// written as `(class S M)`), when the rule applies and is enabled
    /// (`AnalysisOptions::align`); `None`: Q:IF4.
    align: Option<(Lin, BigInt, BigInt)>,
}

/// Q:IFEXIT1/4 (spec/logic.md §4a): `t` leaves the loop (ordinary), `f` is filtered.
#[derive(Clone, Debug)]
struct IfExitAn {
    uniform: bool,
    e: ENode,
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
}

/// Q:WHILEEXIT1/2: the body is filtered for the loop condition.
#[derive(Clone, Debug)]
struct WhileExitAn {
    e: ENode,
    cost: Q,
    uniform: bool,
    inv: Abs,
    body: Box<AN>,
    w_pre: Vec<Farkas>,
    w_body_post: Vec<Farkas>,
    key: usize,
    /// Whether the body has a loop of its own.
    nested: bool,
    /// Q:WHILEGUARD: the guard condition's constraints `GE` in the body's pre (the loop
    /// node then follows the guard's write directly in its Q:SEQ, without Q:WEAK).
    ge: Option<Vec<Cstr>>,
    /// Q:WHILEGUARD0: a divergent guard loop whose guard is uniform in the loop's pre, so
    /// its first test cannot split the warp (the first round owes no `M^div`).
    entry: bool,
}

/// Q:WHILE1/2: the loop with its invariant `inv` and ranking atom.
#[derive(Clone, Debug)]
struct WhileAn {
    e: ENode,
    cost: Q,
    uniform: bool,
    inv: Abs,
    body: Box<AN>,
    w_pre: Vec<Farkas>,
    w_body_post: Vec<Farkas>,
    atom: Option<LoopAtom>,
    /// Why the loop has no ranking atom (when `atom` is `None`).
    atom_err: Option<String>,
    /// Q:WHILELAST's last-round body, when the rule applies (`None`: Q:WHILE1/2).
    last: Option<LastRound>,
    /// Q:WHILEWARP applies: the (non-uniform) test never splits a warp.
    nosplit: bool,
    writes: Vec<String>,
    loc: Loc,
    key: usize,
}

/// The last round of a loop whose test splits the warp at most once (Q:WHILELAST,
/// spec/logic.md §4): the body analysed from `P ∧ e ∧ −L + 1 − w ≤ 0`, the exit
/// constraints `P ∧ cond(¬e)` and the witnesses that the body's post entails them.
#[derive(Clone, Debug)]
struct LastRound {
    body: Box<AN>,
    w_post: Vec<Farkas>,
    exit: Vec<Cstr>,
    /// Q:WHILELASTALIGN's charge `[m ∤ s − X]` as `(s − X, s, m)` (spec/logic.md §4, as
    /// `If4An::align`) when `AnalysisOptions::align` is on, the loop test has a residue
    /// class under the loop's `D` and the body writes no variable of `X`; `None`:
    /// Q:WHILELAST.
    align: Option<(Lin, BigInt, BigInt)>,
    /// Q:WHILELASTWINDOW's charge (spec/logic.md §4) in a [`Ctx::windowed`] run:
    /// `(X, m, a, b)`, the uniform part `X` of the test, the modulus and the hull of the
    /// split windows (`linear::window_charge`); used instead of `align` when present.
    window: Option<(Lin, BigInt, i128, i128)>,
}

/// Congruence hypotheses `(p, r, m)`: the `int` parameter `p` is `≡ r (mod m)`
/// (spec/logic.md §4b "Warp-exact products").
pub type Congruences = Vec<(String, i64, i64)>;

/// [`Ctx::at_warp`]'s data: the warp's lanes' thread indices and the congruences.
type WarpExact = (Vec<[i64; 3]>, Congruences);

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
    /// Whether loops with a constant step `c > 1` get floor atoms (`AnalysisOptions::floor`).
    floor: bool,
    /// Whether divergent `if`s try Q:IFALIGN (`AnalysisOptions::align`).
    align: bool,
    /// Whether Q:WHILELAST loops are charged by Q:WHILELASTWINDOW where it applies
    /// ([`Ctx::windowed`]).
    window: bool,
    /// Whether innermost loops with a ranking atom whose every test `P` decides (a launch
    /// constant trip count) are unrolled by Q:UNROLL ([`Ctx::unrolling_counted`]).
    unroll_counted: bool,
    /// Whether a loop whose symbolic step is a launch form (`pos += 192·gridDim.x`) gets
    /// the symbolic floor atom `⌊R/step⌋⁺` ([`Ctx::symbolic_divisors`]).
    symdiv: bool,
    /// How many loops had a symbolic step that is a launch form (candidates of
    /// [`Ctx::symbolic_divisors`]).
    sym_steps: usize,
    /// How many innermost loops with a ranking atom had a first test `P` decides (the
    /// candidates of [`Ctx::unrolling_counted`]).
    counted_loops: usize,
    /// Candidate floor atoms `⌊L/c⌋⁺` (canonical) of each loop's invariant template, keyed
    /// and scoped like `atoms`.
    floors: BTreeMap<usize, Vec<Atom>>,
    /// The enclosing loops of the statement being derived (innermost last), each with its
    /// guard for Q:GWRITEGUARD / Q:VWRITEGUARD when it has one (`guarded::guard_loop`).
    guard_loops: Vec<Option<(Lin, i64, usize)>>,
    /// Whether guarded charges may be proposed (off in the retry of a failed run).
    guards: bool,
    /// Whether some access was given a guarded charge.
    guards_used: bool,
    /// The innermost loop holding each `if` inside a loop, keyed by the address of the
    /// `if`'s then branch (like `loops::loop_key`): a Q:IFALIGN charge there joins that
    /// loop's and its ancestors' candidate atoms (derive/nest.rs).
    if_loop: BTreeMap<usize, usize>,
    /// Loops without a ranking atom, with the reason.
    no_atom: Vec<(Loc, String)>,
    /// Warp-uniform thread dimensions of the launch (spec/logic.md §2).
    udims: DepCx,
    /// `y = c` for every `int` local assigned exactly once in the program, by a constant:
    /// used only to propose candidate ranking atoms (validated against the invariant).
    const_facts: Vec<Cstr>,
    /// Memoized access bounds `N*` (see `access_n`).
    nstar_cache: std::cell::RefCell<forward::NStarMemo>,
    /// Loops without a ranking atom of their own whose candidate atoms come from the
    /// conditions of their body (the counters tested after an update), keyed like `atoms`.
    exit_candidates: BTreeSet<usize>,
    /// The keys of the exit loops whose body is being analysed (innermost last).
    exit_stack: Vec<usize>,
    /// The guard's write `g ← E` right before a loop `while (g)` in a sequence, keyed by
    /// the loop body's address (set by [`Ctx::fwd_seq`]; Q:WHILEGUARD, spec/logic.md §4a).
    guard_entry: BTreeMap<usize, Expr>,
    /// For each exit loop: the atoms of its own body conditions and of its nested loops
    /// (not those of enclosing loops, nor the forms before the loop), the atoms of its
    /// invariant `I` (Q:WHILEEXIT keeps the potential after the loop apart).
    exit_own: BTreeMap<usize, Vec<Lin>>,
    /// For each exit loop: the canonical floor atoms of its own atoms whose update lowers
    /// them by a constant `c ≥ 2` (`exits::exit_floor_atoms`), and its nested loops'
    /// floor atoms; with `exit_own`, the atoms of its invariant `I` (floor form only).
    exit_floors: BTreeMap<usize, Vec<Atom>>,
    /// For each loop (keyed like `atoms`): the locals, parameters and `threadIdx.d` live at
    /// its head (read before written by some continuation, the loop included). The
    /// invariant's `D` keeps only these.
    live_loop: BTreeMap<usize, Names<'a>>,
    /// The last invariant found for each exit loop (a warm start for the next search).
    exit_fix: BTreeMap<usize, (Vec<Cstr>, DepMap)>,
    /// The locals, parameters and `threadIdx.d` live at the start of the else branch of
    /// every `if` (keyed by the branch's address).
    live_else: BTreeMap<usize, Names<'a>>,
    /// The locals live at the start of the body (its upward-exposed reads; parameters are
    /// not tracked here, `liveness.rs`).
    live_root: Names<'a>,
    /// For every item of a sequence chain (keyed by its address): the locals live after
    /// it ([`seq`] drops facts about the other locals; parameters are not tracked here, so
    /// that `n` parameters read once each cost no `n` names per statement).
    live_after: rustc_hash::FxHashMap<usize, Names<'a>>,
    /// The type of every local by name (`Program::local_ty` searches a list; programs may
    /// declare thousands of temporaries).
    local_tys: rustc_hash::FxHashMap<&'a str, Ty>,
    /// The type of every parameter by name (as `local_tys`; kernels may have hundreds).
    param_tys: rustc_hash::FxHashMap<&'a str, Ty>,
    /// The launch facts (spec/logic.md §5): a projection may drop those about a thread
    /// dimension no later statement reads (the lanes `N*` enumerates satisfy them anyway);
    /// other constraints on `threadIdx` alone are kept (they select lanes for `N*`).
    launch_p: Vec<Cstr>,
    /// Parameter hypotheses appended to the root's launch facts (spec/logic.md §4b,
    /// L:HYP): empty for an upper derivation; set by [`Ctx::under`] for the derivation a
    /// lower-bound certificate borrows its assertions from.
    hyps: Vec<Cstr>,
    /// Set by [`Ctx::at_warp`] for the derivation a lower-bound certificate about one warp
    /// borrows its assertions from (spec/logic.md §4b "Warp-exact products"): that warp's
    /// lanes' thread indices and the congruence hypotheses `(p, r, m)` (`p ≡ r mod m`).
    warp_exact: Option<WarpExact>,
    /// Whether to derive remainder entries and lane facts (spec/logic.md §2): only when the
    /// metric's cost of an access to an array of the program depends on its count `n`
    /// (lane facts can lower `N*`, nothing else), so certificates of other metrics keep
    /// RaCUDA's representations.
    lanes: bool,
    /// Whether to derive wrapped entries (`a % m`, spec/logic.md §2) where `lanes` is off:
    /// set by [`Ctx::with_wraps`] for the derivation a lower-bound certificate borrows its
    /// assertions from (L:IFWRAP, §4b), so upper certificates keep their form.
    wraps: bool,
    /// Capped mode (spec/logic.md §4a, Q:WHILEGUARDCAP / Q:WHILEEXITCAP): a guard loop's
    /// jump-flag test is Q:FLAGEXIT whenever its part has an exit, and the loops with a
    /// divergent exit are capped ([`Ctx::capped`]).
    pub(super) cap: bool,
    /// With `cap`: the loops left by divergent jumps without a guard are Q:WHILEEXITCAP2
    /// (the loop test paid per round, the exit nodes by the lane count) instead of
    /// Q:WHILEEXITCAP ([`Ctx::capped_per_round`]).
    pub(super) cap_test: bool,
    /// Whether to keep scaled entries with a row multiplier where they group no lanes
    /// (`B[2·j·w + i]`): set by [`Ctx::with_strides`] for the derivation a lower-bound
    /// certificate borrows its assertions from (L:GARRAYSTRIDE, spec/logic.md §4b). `N*`
    /// of such an entry is that of no entry (each lane its own group).
    strides: bool,
    /// The loop nests (chain monomials of deep nests, triangular loops).
    nests: nest::Nests,
}

impl Ctx<'_> {
    /// The type of local `x` (`Program::local_ty` in constant time).
    fn local_ty(&self, x: &str) -> Option<Ty> {
        self.local_tys.get(x).copied()
    }
}

fn err(loc: Option<Loc>, reason: impl Into<String>) -> AnalysisError {
    AnalysisError {
        loc,
        reason: reason.into(),
    }
}

/// A row charge `N₀ + Σ C_j·[M_j ∤ X]` of Q:GWRITEROWS / Q:VWRITEROWS (spec/logic.md §4
/// "Rows"): `N₀`, the terms `(C_j, M_j)` and the row multiplier `X` as a linear form.
#[derive(Clone, Debug)]
pub(crate) struct RowsCharge {
    pub n0: u64,
    pub terms: Vec<(u64, u64)>,
    pub form: crate::core::assertion::linear::Lin,
}

impl<'a> Ctx<'a> {
    /// The row charge of the access `arr[o]` under `pre` (spec/logic.md §4 "Rows"): when the
    /// index's scaled entry has one `?` dimension with a row multiplier, Q:IFALIGN's residue
    /// atoms are on (`align`), the array is global, and the fitted charge is below `n` for
    /// some row length (`N₀ < n`; never above `n`: each row's count at its own base is at
    /// most the row's worst). `None` otherwise.
    pub(crate) fn rows_charge(
        &self,
        arr: &str,
        o: &crate::core::Operand,
        pre: &Abs,
        n: u64,
    ) -> Option<RowsCharge> {
        use crate::analysis::access::{fit_rows, row_table, AccessKind};
        use crate::core::assertion::linear::EntryKind;
        if !self.align {
            return None;
        }
        let decl = self.prog.array(arr)?;
        if decl.space != crate::core::Space::Global {
            return None;
        }
        let dep = crate::analysis::linear::scaled_operand(&pre.d, o)?;
        let EntryKind::Scaled(u) = dep.kind else {
            return None;
        };
        if u.iter().filter(|b| **b).count() != 1 {
            return None;
        }
        let mul = dep.mul?;
        let dim = u.iter().position(|b| *b)?;
        let f = row_table(
            &pre.p,
            dep,
            dim,
            decl.elem_bytes,
            AccessKind::MemReads,
            self.hw,
            self.launch,
        )?;
        let (n0, terms) = fit_rows(&f)?;
        let top = n0 + terms.iter().map(|t| t.0).sum::<u64>();
        if n0 >= n || top > n {
            return None;
        }
        use crate::core::assertion::linear::Lin;
        let form = Lin::var(&crate::core::assertion::param_name(mul.param))
            .scale(&crate::core::metric::q(mul.a))
            .plus_const(&crate::core::metric::q(mul.b));
        Some(RowsCharge { n0, terms, form })
    }

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
            floor: opts.floor,
            align: opts.align,
            window: false,
            unroll_counted: false,
            symdiv: false,
            sym_steps: 0,
            counted_loops: 0,
            floors: BTreeMap::new(),
            guard_loops: Vec::new(),
            guards: true,
            guards_used: false,
            if_loop: BTreeMap::new(),
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
            guard_entry: BTreeMap::new(),
            exit_own: BTreeMap::new(),
            exit_floors: BTreeMap::new(),
            live_loop: BTreeMap::new(),
            exit_fix: BTreeMap::new(),
            live_else: BTreeMap::new(),
            live_root: BTreeSet::new(),
            live_after: Default::default(),
            local_tys: prog
                .locals
                .iter()
                .rev()
                .map(|(x, t)| (x.as_str(), *t))
                .collect(),
            param_tys: prog
                .params
                .iter()
                .rev()
                .map(|p| (p.name.as_str(), p.ty))
                .collect(),
            launch_p: launch_facts(prog, launch),
            hyps: Vec::new(),
            warp_exact: None,
            lanes: prog.arrays.iter().any(|a| {
                let (r, w) = match a.space {
                    Space::Global => (&metric.gread, &metric.gwrite),
                    Space::Shared => (&metric.sread, &metric.swrite),
                    Space::Local => return false,
                };
                !r.mul.is_zero() || !w.mul.is_zero()
            }),
            wraps: false,
            cap: false,
            cap_test: false,
            strides: false,
            nests: Default::default(),
        };
        c.const_facts = const_facts(prog);
        let read_after_end = Names::new();
        c.live_root = live_in(
            &prog.body,
            &BTreeSet::new(),
            Fixed::end(&read_after_end),
            &mut c.live_loop,
            &mut c.live_else,
            &mut c.live_after,
        );
        // a program without loops has no atoms to collect (issue 13: the walk indexes the
        // writers of every statement, a tenth of a straight-line program's context)
        if candidates::has_loop(&prog.body) {
            c.collect_atoms(&prog.body, &mut Vec::new());
        }
        c.finish_nests(false);
        c
    }

    /// The context that also derives wrapped entries `(wrap x k m)` for `x ← a % m`
    /// (spec/logic.md §2) for metrics whose access costs do not depend on counts: the
    /// source of a lower-bound certificate's assertions where L:IFWRAP (§4b) needs them.
    pub fn with_wraps(mut self) -> Self {
        self.wraps = true;
        self
    }

    /// The context that keeps scaled entries with a row multiplier where they group no
    /// lanes (spec/logic.md §4b "Strided accesses"): the source of a lower-bound
    /// certificate's assertions where L:GARRAYSTRIDE / L:GWRITESTRIDE need them.
    pub fn with_strides(mut self) -> Self {
        self.strides = true;
        // each branch of a divergent `if` keeps the entries the other reads (L:IFSPLIT's
        // branches are derived over their own lanes, each from the if's `D`)
        let read_after_end = Names::new();
        self.live_loop.clear();
        self.live_else.clear();
        self.live_after.clear();
        self.live_root = liveness::live_in_with(
            &self.prog.body,
            &BTreeSet::new(),
            Fixed::end(&read_after_end),
            &mut self.live_loop,
            &mut self.live_else,
            &mut self.live_after,
            true,
        );
        self
    }

    /// The context whose root pre is the launch facts followed by the parameter
    /// hypotheses `hyps` (linear facts over `int` parameters; spec/logic.md §4b, L:HYP).
    /// The derivation it gives is not an upper certificate (its root is not the launch
    /// facts): it is the source of a lower-bound certificate's assertions.
    pub fn under(mut self, hyps: &[Cstr]) -> Self {
        self.launch_p.extend(hyps.iter().cloned());
        self.hyps = hyps.to_vec();
        self
    }

    /// The derivation a lower-bound certificate about warp `warp` borrows its assertions
    /// from, under the congruence hypotheses `cong` (`(p, r, m)`: `p ≡ r (mod m)`): an
    /// assignment `x ← a * b` whose `dep_D` is `⊤` or `(0, 0, 1)` gets the warp-exact entry
    /// `went_W(a * b)` (spec/logic.md §4b "Warp-exact products") where it is defined. The
    /// root pre is unchanged (congruences are not constraints of `P`).
    pub fn at_warp(mut self, warp: u32, cong: &[(String, i64, i64)]) -> Self {
        let wsz = u64::from(self.hw.warp_size.max(1));
        let total = self.launch.block_threads();
        let first = wsz * u64::from(warp);
        let lanes = (first..(first + wsz).min(total))
            .map(|t| self.launch.thread_index(t))
            .collect();
        self.warp_exact = Some((lanes, cong.to_vec()));
        self
    }

    /// Whether some loop has candidate floor atoms (a constant step `c > 1`, with
    /// `AnalysisOptions::floor`).
    pub fn has_floors(&self) -> bool {
        self.floors.values().any(|v| !v.is_empty())
    }

    /// Whether [`Ctx::overshifted`] could find a bound the first run did not: the program
    /// has a triangular loop nest (`derive/nest.rs`).
    pub fn has_triangular(&self) -> bool {
        self.nests.has_triangular()
    }

    /// The same context without guarded charges (derive/guarded.rs): the retry of a run
    /// whose LP could not pay them.
    pub fn without_guards(mut self) -> Self {
        self.guards = false;
        self
    }

    /// Whether some access of the run was given a guarded charge (Q:GWRITEGUARD,
    /// Q:VWRITEGUARD).
    pub fn used_guards(&self) -> bool {
        self.guards_used
    }

    /// The context whose triangular loops defer the shift of their ranking atom to the
    /// entry of their triangular inner loop (`derive/nest.rs`, "Deferred shifts"); a fresh
    /// context.
    pub fn deferred(mut self) -> Self {
        self.nests.deferred = true;
        self
    }

    /// Whether some triangular loop's trip count may be a launch constant, so that
    /// [`Ctx::unrolling`] could unroll it.
    pub fn has_constant_triangular(&self) -> bool {
        self.nests.has_constant_triangular()
    }

    /// The context whose triangular loops with a trip count `P` decides (at most
    /// [`UNROLL_LIMIT`]) are unrolled (Q:UNROLL; `derive/nest.rs`, "Unrolled outer
    /// loops"); a fresh context.
    pub fn unrolling(mut self) -> Self {
        self.nests.unroll = true;
        self
    }

    /// The context whose Q:WHILELAST loops are charged by Q:WHILELASTWINDOW where it applies
    /// (spec/logic.md §4: the window atom `[(b − X) mod m < b − a + 1]` instead of the
    /// residue atom); a fresh context. Used with [`Ctx::unrolling`], where each copy
    /// of an inner loop enters with its own uniform part `X`.
    pub fn windowed(mut self) -> Self {
        self.window = true;
        self
    }

    /// The context whose innermost loops with a ranking atom and a launch-constant trip
    /// count (every test decided by `P`, at most [`UNROLL_LIMIT`] rounds) are unrolled by
    /// Q:UNROLL (spec/logic.md §4): each copy knows its counter's value, so an access
    /// indexed by `counter·W` gets the congruence of that value (matrixMulBad's
    /// `B[b + wB·k + tx]` is 32-byte aligned in the copies `k ≡ 0 (mod 8)`: 4 sectors
    /// there, 5 elsewhere). A fresh context.
    pub fn unrolling_counted(mut self) -> Self {
        self.unroll_counted = true;
        self
    }

    /// Loops whose symbolic step `δ` is a launch form (`pos += 192·gridDim.x`: the
    /// block size constant, `c·gridDim.d + k`) get the symbolic floor atom
    /// `⌊(R − s + δ)/δ⌋⁺` (spec/logic.md §1 "Symbolic divisors", issue 14) instead of the
    /// floor atom by the step's lower bound `s`: exact at every grid, where the other is
    /// exact at `gridDim = 1` only. A fresh context; its bound is kept beside the first
    /// (`min(A, B)`, [`crate::analysis::Analysis`]'s chain) where it is below it somewhere.
    pub fn symbolic_divisors(mut self) -> Self {
        self.symdiv = true;
        self
    }

    /// Whether some loop of the derivation had a symbolic step that is a launch form (a
    /// candidate of [`Ctx::symbolic_divisors`]).
    pub fn has_symbolic_steps(&self) -> bool {
        self.sym_steps > 0
    }

    /// Whether the forward pass met an innermost loop with a ranking atom whose first test
    /// its pre decides (a candidate of [`Ctx::unrolling_counted`]).
    pub fn has_counted_loops(&self) -> bool {
        self.counted_loops > 0
    }

    /// Whether the forward pass of an [`Ctx::unrolling`] context unrolled some triangular
    /// loop (otherwise its run is the first run again).
    pub fn unrolled_triangular(&self) -> bool {
        self.nests.unrolled > 0
    }

    /// The context with triangular loops ranked by their over-shifted atoms
    /// (`derive/nest.rs`); a fresh context (run it instead of one that was already run).
    pub fn overshifted(mut self) -> Self {
        self.finish_nests(true);
        self
    }

    /// The context that derives the loops left by divergent jumps with Q:WHILEGUARDCAP /
    /// Q:WHILEEXITCAP (spec/logic.md §4a, issue 15): their splits paid by the warp's lane
    /// count. A second certificate beside the ordinary one ([`crate::analysis::Analysis`]'s
    /// `capped`); a fresh context.
    pub fn capped(mut self) -> Self {
        self.cap = true;
        self
    }

    /// [`Ctx::capped`] with Q:WHILEEXITCAP2 for the loops left by divergent jumps without a
    /// guard (spec/logic.md §4a, issue 15): the loop test's split paid per round, the exit
    /// nodes' by the lane count. A third certificate ([`crate::analysis::Analysis`]'s
    /// `capped` chain); a fresh context.
    pub fn capped_per_round(mut self) -> Self {
        self.cap = true;
        self.cap_test = true;
        self
    }

    /// The context with the inner loops of nests whose range has the outer counter ranked
    /// by their relaxed atoms too, and the ranges with the outer counter at its entry value
    /// among the candidate atoms (`derive/nest.rs`); a fresh context.
    pub fn relaxed(mut self) -> Self {
        self.finish_relaxed();
        self
    }
}

/// The base `V` of the objective's degree weights `1, V, V², V³` (a monomial of degree `d`
/// of the bound costs `V^d` per unit of its coefficient, so lower degrees win; above degree
/// 3, [`degree_weight`] grows by [`DEEP_DEGREE_FACTOR`] per degree): 1000, or
/// 4 × the largest constant of an atom of the bound when that is larger. A concrete grid
/// makes strides such as 240 · 256 = 61 440, atoms such as `max(0, n + 61439)` and linear
/// coefficients such as 1/7680; with `V = 1000` a quadratic term whose coefficient is
/// 1/61440 smaller would look cheaper than the linear one (issue 15: a concrete launch must
/// not bound worse than a symbolic one). Every atom of the benchmark's bounds has a
/// constant below 250, so their weights are the former `1, 10³, 10⁶, 10⁹`.
fn degree_weight_base(qroot: &TPoly) -> Q {
    use num_traits::Signed;
    let big = qroot
        .terms
        .keys()
        .flat_map(|m| m.iter())
        .map(|a| a.lin().c.abs())
        .max()
        .unwrap_or_else(Q::zero);
    (big * q(4)).max(q(1000))
}

/// The factor by which the objective's weight of a monomial grows per degree above 3 (deep
/// loop nests, `derive/nest.rs`). Without it every degree from 3 up weighed `V³`, and the
/// LP could as well pay a depth-4 nest's `m³` rounds of the third loop with `m⁴` terms:
/// `steps` of the `depth` family at depth 4 came out as `… + 32·m⁴` instead of
/// `… + 14·m³ + 18·m⁴`. A small factor (not `V`) keeps the objective's coefficients within
/// a range the floating LP resolves (`V³·4⁹ ≈ 2.6·10¹⁴` at degree 12, where a unit of a
/// constant still weighs 1).
const DEEP_DEGREE_FACTOR: i64 = 4;

/// The objective's weight of a monomial of `len` atoms: `V^len` up to degree 3, then
/// `V³·4^(len − 3)` ([`DEEP_DEGREE_FACTOR`]); strictly increasing in `len`.
fn degree_weight(v: &Q, len: usize) -> Q {
    let low = (0..len.min(3)).fold(q(1), |w, _| w * v);
    (3..len).fold(low, |w, _| w * q(DEEP_DEGREE_FACTOR))
}

/// Runs the whole inference: forward pass, backward pass, LP, instantiation.
/// Returns the root node (about the kernel body) and the bound.
pub fn run(ctx: &mut Ctx<'_>) -> Result<(Node, Poly), AnalysisError> {
    run_toward(ctx, None)
}

/// As [`run`]; with a `target` potential (a claimed bound, issue 19) the LP also requires
/// the bound to be below the target coefficient-wise after the `(mono …)` alignment of
/// [`crate::analysis::compare::align`] (feasibility against the claim; the objective still
/// picks the tightest such bound). Errors as [`run`]; an infeasible LP means no bound of the
/// templates is below the target that way.
pub fn run_toward(ctx: &mut Ctx<'_>, target: Option<&Poly>) -> Result<(Node, Poly), AnalysisError> {
    let prog = ctx.prog;
    // the initial map restricted to the locals some path may read before writing them
    // (spec/logic.md §5 allows any D ⊑ the initial map; an entry for a local that is always
    // written first is never used, and would only be copied into every assertion)
    let exposed = &ctx.live_root;
    let root = Abs {
        p: with(&launch_facts(prog, ctx.launch), &ctx.hyps).into(),
        d: (initial_deps(prog)
            .into_iter()
            .filter(|(x, _)| exposed.contains(x.as_str()))
            .collect::<DepMap>())
        .into(),
    };
    let an = ctx.fwd(&prog.body, &root)?;
    // the liveness sets of sequence items are read by the forward pass only (`trim_dead`;
    // the backward pass borrows the context immutably), and a context runs one pass: freed
    // before the backward pass, whose template tree is the analysis' peak (issue 13)
    ctx.live_after = Default::default();
    let ctx_ref: &Ctx<'_> = ctx;
    // long sequences' LPs are solved tail by tail (derive/seq.rs); should a tail's solution
    // leave the rest without a bound, the whole LP is solved at once instead
    let (res, tails) = solve_back(ctx_ref, &an, target, true);
    let (tn, qbound, sol) = match res {
        Err(_) if tails > 0 => solve_back(ctx_ref, &an, target, false).0?,
        r => r?,
    };
    // the forward pass's tree is not read any more: freed before the derivation is built
    // from the template (issue 13: its witnesses and expression nodes, copied into the
    // template, need not be in memory with the derivation and the certificate text)
    drop(an);
    let node = inst(tn, &sol)?;
    let bound = qbound.instantiate(&sol);
    Ok((node, bound))
}

/// The backward pass and the LP (tails of long sequences solved on their own when `tails`):
/// the template derivation, the template bound and the solution; and how many tails were
/// solved on their own.
#[allow(clippy::type_complexity)]
fn solve_back(
    ctx_ref: &Ctx<'_>,
    an: &AN,
    target: Option<&Poly>,
    tails: bool,
) -> (Result<(TNode, TPoly, Vec<Q>), AnalysisError>, usize) {
    let mut back = Back {
        ctx: ctx_ref,
        lp: Lp::default(),
        hints: Vec::new(),
        tails,
        tails_solved: 0,
        restricted: None,
        deferred: BTreeMap::new(),
        capped: false,
    };
    let res = back_and_solve(&mut back, an, target);
    (res, back.tails_solved)
}

/// The backward pass from the root and the LP's solution: the template derivation, the
/// template bound and the solution.
fn back_and_solve(
    back: &mut Back<'_, '_>,
    an: &AN,
    target: Option<&Poly>,
) -> Result<(TNode, TPoly, Vec<Q>), AnalysisError> {
    let ctx_ref = back.ctx;
    let prog = ctx_ref.prog;
    let (tn, qroot) = back.back(an, TPoly::zero())?;
    // the root potential may mention only int parameters
    let qroot = back.restrict(
        qroot,
        |v| prog.param_ty(v) != Some(Ty::Int),
        "the bound may mention only parameters",
    )?;
    let mut tn = tn;
    tn.pre.1 = qroot.clone();
    let (tn, qbound) = drop_block_indices(prog, tn, &qroot);
    let obj = objective(ctx_ref, &qroot, 0..back.lp.nonneg.len());
    if let Some(t) = target {
        for (e, why) in crate::analysis::compare::target_constraints(&qbound, t, &tn.pre.0.p) {
            back.lp
                .add(e, crate::analysis::lp::Rel::Ge, &why)
                .map_err(|e| err(None, format!("no bound below the claim: {e}")))?;
        }
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
                " (every loop has a ranking atom; a bound may need templates of a degree above {} \
                 (`--degree`) beyond the monomials of its loop nests)",
                ctx_ref.degree
            ));
        }
        let loc = ctx_ref.no_atom.first().or(hints.first()).map(|(l, _)| *l);
        err(loc, msg)
    })?;
    Ok((tn, qbound, sol))
}

/// The LP objective that makes the potential `qroot` small: each monomial's coefficient
/// weighted by its degree ([`degree_weight`]), plus `10⁻⁵` per variable of `vars` (ties
/// broken toward small coefficients everywhere).
pub(super) fn objective(ctx: &Ctx<'_>, qroot: &TPoly, vars: std::ops::Range<usize>) -> LinExpr {
    let mut obj = LinExpr::default();
    let v = degree_weight_base(qroot);
    for (m, c) in &qroot.terms {
        let mut w = degree_weight(&v, m.len());
        // a floor atom ⌊L/c⌋⁺ is about L/c: weighted 99/100 of max0(L)/c, so that the
        // floor form wins over the max0 form of the same size
        for a in m {
            if let Atom::Floor(_, d) = a {
                w *= Q::new(99.into(), d * 100);
            }
            // a symbolic floor atom ⌊L/D⌋⁺ (spec/logic.md §1 "Symbolic divisors") is at most
            // the floor atom by D's value at gridDim = 1 (`d₁`, the sum of D's coefficients
            // and constant): weighted 98/100 of max0(L)/d₁, below that floor atom
            if let Atom::FloorSym(_, d) = a {
                let d1: Q = d.terms.values().fold(d.c.clone(), |acc, k| acc + k);
                if d1 > Q::zero() {
                    w *= q(98) / (d1 * q(100));
                }
            }
            // a log atom ⌊log2 L⌋⁺ is far below max0(L) for large L: weighted 1/64 of it
            if let Atom::Log(_) | Atom::LogQ(..) = a {
                w *= Q::new(1.into(), 64.into());
            }
        }
        if ctx.nests.overshift {
            // over-shifted atoms (derive/nest.rs) exceed their ordinary atoms by the shift:
            // among monomials of one degree, those with smaller constants win
            let consts: Q = m.iter().map(|a| a.lin().c.clone().max(Q::zero())).sum();
            w = &w + &w * consts / q(1000);
        }
        // ties between monomials of one degree go to the smaller constants (`10⁻⁴` of the
        // weight at most): Q:WHILEGUARD0's entry potential `2·max0(n) + max0(n − 1)`, not
        // `3·max0(n)` (issue 15, `tests/precision/break_loop.cu`)
        let c0: Q = m.iter().map(|a| a.lin().c.clone()).sum();
        let c0 = c0.clamp(q(-1), q(1));
        w = &w + &w * c0 / q(10000);
        obj.add_assign_c(&c.scaled(&w));
    }
    for i in vars {
        let eps = Q::new(1.into(), 100000.into());
        match obj.v.get_mut(&i) {
            Some(e) => *e += eps,
            None => {
                obj.v.insert(i, eps);
            }
        }
    }
    obj
}
