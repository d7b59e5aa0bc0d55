//! # warpcert-kernel: the trusted certificate checker
//!
//! **Trust contract.** [`check`] returning `Ok(verdict)` guarantees that the certificate
//! text (spec/certificate.md, versions 1 to 6) contains a well-typed miniCUDA program
//! (spec/minicuda.md §2) and a derivation, valid rule by rule for the logic of
//! `spec/logic.md` (RaCUDA §4–§5, Fig. 8, with the representations of `spec/logic.md`
//! §1–§2), of the judgment `⊢_M {P₀; D₀; B} body {…}` where `M` is the metric named in the
//! certificate (tables of `spec/metrics.md`), the hardware parameters and block dimensions
//! are those in the certificate, `P₀` are the launch facts, `D₀` is implied by the initial
//! dependence map, and `B` is the bound ([`Verdict::bound_poly`], spec/logic.md §5). By
//! RaCUDA Theorem 1 this means: for every warp of a block launched with those dimensions,
//! every parameter value and every array content, the cost of the miniCUDA body written in
//! the certificate is at most `B(params)` ([`Verdict::RELATION`]), **under the assumptions
//! of [`Verdict::assumptions`]** ([`assume`]): the run terminates, has no run-time error
//! and no integer overflow (integers are mathematical), every array starts at offset 0 of
//! an aligned allocation, the global arrays do not alias, the launch is race-free, atomics
//! are not serialized and each warp is counted alone. Version 2 states them in the
//! certificate and the kernel requires exactly this list; version 1 has them implicitly.
//!
//! **Trusted:** the specification files `spec/logic.md`, `spec/certificate.md`,
//! `spec/metrics.md`, `spec/minicuda.md` (and the soundness of the logic they describe),
//! the `num-bigint` / `num-rational` / `num-traits` / `num-integer` crates, the `rustc-hash`
//! crate (the hash function of the kernel's hash maps and sets), `std` and rustc.
//!
//! **Not checked:** that the miniCUDA program in the certificate faithfully represents some
//! CUDA source (front end and lowering are untrusted and outside this crate; the
//! `(provenance …)` section is only read and reported, `warpcert check --source` compares
//! it); that the bound is optimal or tight; the assumptions themselves.
//!
//! **Failure:** every rejection is a [`Rejection`] naming the rule, the node path and a
//! specific [`Reason`]. The crate denies indexing, `unwrap` and `panic!`; a panic that
//! still happens is caught per derivation node and becomes [`Reason::InternalPanic`] at
//! that node (a kernel bug; the tests forbid it).
//!
//! The kernel depends on no other part of warpcert: it reads certificates with its own
//! s-expression reader ([`sexp`]) and checks every rule instance with exact rational
//! arithmetic ([`arith`]); no floating point is used anywhere.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::float_arithmetic, clippy::indexing_slicing)]
#![warn(missing_docs)]
// `Rejection` has the shape fixed by the brief (rule, node path, reason by value); it is
// only built on the failure path, so its size does not matter.
#![allow(clippy::result_large_err)]

pub mod access;
pub mod arith;
pub mod assume;
pub mod metric;
pub mod printed;
pub mod rat;
pub mod registry;
pub mod rules;
pub mod sexp;
pub mod sorted;
pub mod syntax;
pub mod typing;
pub mod witness;

use arith::{FarkasProblem, Poly};
use assume::Assumption;
use std::fmt;
use syntax::Provenance;

pub use registry::{LOGIC_RULES, LOWER_RULES};

/// Stack size of the checking thread: enough for derivations nested up to
/// [`sexp::MAX_DEPTH`] lists deep.
pub const STACK_BYTES: usize = 1 << 30;

/// What is wrong with an assertion (spec/logic.md §1, well-formedness).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WfProblem {
    /// A constraint mentions a name that is not an `int` local, `int` parameter or `threadIdx.d`.
    BadConstraintVar(String),
    /// A dep entry for a name that is not a local.
    DepNotLocal(String),
    /// A `bool`/`float` local with a dep entry other than `(dep x 0 0 0 0 1)`.
    NonIntDep(String),
    /// A potential atom mentions a name that is not an `int` parameter, a `threadIdx.d` or an
    /// `int` local with a linear entry in `D`.
    BadPotentialVar(String),
    /// A potential atom whose form is not uniform under `D` (its thread coefficients do not
    /// cancel).
    NonUniformAtom(String),
    /// A lane constraint whose form is not over `threadIdx.*` with integer coefficients.
    BadLaneConstraint(String),
    /// A potential term with a negative coefficient.
    NegativeCoefficient(String),
}

impl fmt::Display for WfProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WfProblem::BadConstraintVar(v) => {
                write!(f, "constraint mentions `{v}`, not an int local, int parameter or threadIdx")
            }
            WfProblem::DepNotLocal(v) => write!(f, "dep entry for `{v}`, which is not a local"),
            WfProblem::NonIntDep(v) => {
                write!(f, "non-int local `{v}` must have entry (dep {v} 0 0 0 0 1)")
            }
            WfProblem::BadPotentialVar(v) => {
                write!(
                    f,
                    "potential mentions `{v}`, not an int parameter, threadIdx or int local with a linear dep entry"
                )
            }
            WfProblem::NonUniformAtom(a) => {
                write!(f, "potential atom `max(0, {a})` is not uniform under D (thread coefficients do not cancel)")
            }
            WfProblem::BadLaneConstraint(c) => {
                write!(f, "lane constraint `{c}` must be over threadIdx.* with integer coefficients")
            }
            WfProblem::NegativeCoefficient(t) => {
                write!(f, "potential term `{t}` has a negative coefficient")
            }
        }
    }
}

/// Why a certificate is rejected. Every variant carries the offending values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Malformed text: what was expected, what was found, on which line (0: missing section).
    Syntax {
        /// 1-based line.
        line: usize,
        /// What the grammar expected.
        expected: &'static str,
        /// What was found.
        found: String,
    },
    /// Unsupported certificate version.
    Version {
        /// Version on line 1.
        found: String,
        /// Supported range.
        supported: &'static str,
    },
    /// An input exceeds a resource limit of the kernel (nesting depth, enumeration work).
    ResourceLimit {
        /// Which limit.
        what: &'static str,
        /// Its value.
        limit: u64,
    },
    /// The metric is not one of spec/metrics.md's four.
    UnknownMetric(String),
    /// A rule name not in [`LOGIC_RULES`].
    UnknownRule(String),
    /// A statement rule where an expression node is expected, or vice versa.
    WrongRuleKind {
        /// `statement` or `expression`.
        expected: &'static str,
    },
    /// A name used but not declared (with the kind expected).
    Undeclared {
        /// `local`, `parameter`, `array`, …
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// An operator applied to operands of types no signature of spec/minicuda.md §2 has.
    NoSignature {
        /// The operator.
        op: String,
        /// The operand types, e.g. `float × float`.
        operands: String,
    },
    /// An assignment, array write or condition whose expression has the wrong type.
    TypeMismatch {
        /// What is typed, e.g. ``the assignment to `x` ``.
        what: String,
        /// The required type.
        expected: &'static str,
        /// The expression's type.
        found: &'static str,
    },
    /// An integer literal outside `i64` (spec/minicuda.md §1: constants are `i64`).
    LiteralRange(String),
    /// A version 2 certificate without one of the assumptions of [`assume::KEYWORDS`].
    MissingAssumption(&'static str),
    /// An assumption the format does not define.
    UnknownAssumption(String),
    /// `(aligned …)` / `(no-alias …)` not listing exactly the program's (global) arrays.
    AssumptionArrays {
        /// `aligned` or `no-alias`.
        assumption: &'static str,
        /// The arrays it must list.
        expected: String,
        /// The arrays it lists.
        found: String,
    },
    /// A name declared twice among params, arrays and locals.
    DuplicateName(String),
    /// An operand or target of the wrong type.
    IllTyped {
        /// The offending operand or name.
        what: String,
        /// The type required.
        expected: &'static str,
    },
    /// An ill-formed `pre` or `post` assertion.
    IllFormed {
        /// `pre` or `post`.
        which: &'static str,
        /// The problem.
        problem: WfProblem,
    },
    /// The rule does not apply to the statement or expression the node is about.
    WrongSubject {
        /// What the rule is about.
        expected: &'static str,
        /// What the node is about.
        found: String,
    },
    /// Wrong number of child nodes.
    ChildCount {
        /// Required.
        expected: usize,
        /// Present.
        found: usize,
    },
    /// A required field is absent.
    MissingField(&'static str),
    /// A field this rule does not take.
    UnexpectedField(String),
    /// Two things the rule requires to be equal differ.
    Differs {
        /// The first.
        left: &'static str,
        /// The second.
        right: &'static str,
        /// Which component (`P`, `D`, `Q`).
        component: &'static str,
        /// The first's value.
        left_val: String,
        /// The second's value.
        right_val: String,
    },
    /// A node's `(cost C)` differs from the recomputed cost.
    CostMismatch {
        /// Claimed.
        claimed: String,
        /// Recomputed.
        computed: String,
    },
    /// A claimed access count `n` below `N*` (or below 1).
    AccessBound {
        /// Claimed `n`.
        claimed: String,
        /// Required minimum `max(N*, 1)`.
        required: u64,
    },
    /// Wrong number of Farkas witnesses in a named list.
    WitnessCount {
        /// List name (`post`, `cond`, …).
        list: String,
        /// One per target constraint.
        expected: usize,
        /// Given.
        found: usize,
    },
    /// An invalid Farkas witness.
    Farkas {
        /// List name (`rewrite pre` etc. for rewrite witnesses).
        list: String,
        /// 0-based witness index in the list.
        item: usize,
        /// The target constraint.
        target: String,
        /// The defect.
        problem: FarkasProblem,
    },
    /// After the rewrites, `Q1 − Q2` has a negative coefficient.
    NotDominated {
        /// The rewrite list (`pre`/`post`).
        list: &'static str,
        /// The negative term.
        term: String,
    },
    /// A potential the rule requires to be pointwise at most another (coefficientwise, no
    /// rewrites: Q:IF4's `Q ≥ Q1 ≥ Q2`) is not.
    NotPointwiseBelow {
        /// The larger side.
        left: &'static str,
        /// The smaller side.
        right: &'static str,
        /// A negative term of `left − right`.
        term: String,
    },
    /// A negative `frame` or shift amount.
    Negative {
        /// `frame` or `shift`.
        what: &'static str,
        /// The value.
        value: String,
    },
    /// An operand that is not warp-uniform where the rule requires `P ⇒ e unif`.
    NotUniform(String),
    /// The assigned local is not in `X(D)` (Q:VWRITE1).
    NotInUniformSet(String),
    /// A dep entry not implied by what the rule provides.
    DepNotImplied {
        /// The local.
        var: String,
        /// Available entry (`⊤`/`absent` if none).
        have: String,
        /// Required entry.
        want: String,
    },
    /// A substitution needs `lin(e)`, which is undefined.
    SubstUndefined(String),
    /// The post potential mentions the assigned local (Q:VWRITE2).
    PotentialMentions(String),
    /// The condition is not a linear comparison with an operator the rule allows.
    NoCondition(String),
    /// Q:IFEXIT1/4 outside filtered position (spec/logic.md §4a).
    NotFiltered,
    /// Q:WHILEEXIT1 whose body's derivation has a Q:IFEXIT4 node for this loop.
    DivergentExit,
    /// Q:WHILEGUARD whose loop is not preceded (in its Q:SEQ) by the guard's write, or
    /// whose body does not end every path by a write of the guard with the same condition
    /// or by falsifying it (spec/logic.md §4a).
    GuardEntry(String),
    /// Q:CASE (spec/logic.md §4a): the children's pre `P` is not the node's with `L ≤ 0`,
    /// resp. `−L + 1 ≤ 0` appended, or the split form `L` is not integral or not uniform.
    CaseSplit(String),
    /// Q:WHILENONE (spec/logic.md §4a): not a loop on a `bool` guard right after the guard's
    /// write `g ← E` in its Q:SEQ, or `cond(¬E)` empty.
    WhileNone(String),
    /// Q:WHILEEXIT1/2 whose loop condition reads this array (spec/logic.md §4a: the test
    /// also runs on threads that left by an exit, for which `D` need not hold).
    ExitTestReads(String),
    /// Q:WHILELAST: a local of the loop condition's form without a linear entry in `D`
    /// (its lane spread is unknown), or a block too large to enumerate.
    NoLinearEntry(String),
    /// Q:WHILEWARP: the window check finds a warp whose lanes may disagree on the test.
    MaySplit(String),
    /// Q:WHILEGUARDCAP / Q:WHILEEXITCAP: a node of the loop body (its rule) that may split
    /// the warp outside the cap condition (spec/logic.md §4a), and why.
    CapSplit(String, &'static str),
    /// Q:WHILELASTALIGN: a variable of the test's uniform part `X` is written by the loop
    /// body, so the class checked at entry need not hold at a later test (spec/logic.md §4).
    UniformPartWritten {
        /// The variable.
        var: String,
        /// The loop test.
        test: String,
    },
    /// Q:IFALIGN, Q:WHILELASTALIGN: the node's residue class `(class S M)` is not one of the test's: `M < 1`,
    /// `M ∤ G`, or the window check fails with the class `(S, M)` (spec/logic.md §4).
    BadResidueClass {
        /// The test.
        test: String,
        /// `(S, M)` as written.
        class: (num_bigint::BigInt, num_bigint::BigInt),
        /// Which condition fails.
        why: &'static str,
    },
    /// Q:GWRITEROWS, Q:VWRITEROWS: the index has no scaled entry with one `?` dimension and
    /// a row multiplier over an integer parameter (spec/logic.md §4 "Rows").
    NoRowMultiplier(String),
    /// Q:GWRITEROWS, Q:VWRITEROWS: `N₀ < 0`, a coefficient `C < 0` or a modulus `M < 1`.
    BadRowTerm(&'static str),
    /// Q:GWRITEROWS, Q:VWRITEROWS: at the residue `ρ` of the row multiplier (modulo
    /// `modulus`), the charge `N₀ + Σ C·[M ∤ ρ]` is below the warp's count `f(ρ)`.
    RowCharge {
        /// The residue.
        rho: u64,
        /// `lcm(P, M_1, …)`.
        modulus: u64,
        /// The charge at `ρ`.
        charged: String,
        /// The count it must reach.
        need: u64,
    },
    /// Q:GWRITEGUARD, Q:VWRITEGUARD: the `(guard I S (C t)…)` field, its constraint or the
    /// index's entry is not as spec/logic.md §4 "Guarded accesses" requires.
    BadGuard(&'static str),
    /// Q:GWRITEGUARD, Q:VWRITEGUARD: at the lane value `T = K·tid`, the charge
    /// `N₀ + Σ C·[t ≤ T]` is below the sectors of the warp's lanes with `K·tid ≤ T`.
    GuardCharge {
        /// The lane value `T`.
        at: String,
        /// The charge at `T`.
        charged: String,
        /// The count it must reach.
        need: u64,
    },
    /// The root's bound differs from its pre potential.
    BoundMismatch {
        /// `(bound …)`.
        bound: String,
        /// Root pre `Q`.
        root: String,
    },
    /// A rule of the other role than the certificate's (spec/logic.md §4b): an `L:*` node
    /// in an upper-bound certificate, or a `Q:*`/`EQ:GARRAY`/`EQ:SARRAY` node in a lower one.
    WrongRole {
        /// The certificate's role (`upper` or `lower`).
        certificate: &'static str,
    },
    /// A lower rule's claimed access count above the named warp's count `N_W` (§4b).
    AccessAbove {
        /// Claimed `n`.
        claimed: String,
        /// The warp's count `N_W`.
        allowed: u64,
    },
    /// L:GARRAYSTRIDE, L:GWRITESTRIDE (§4b "Strided accesses"): the index `index` has no
    /// stride count (`why`: no scaled entry with one `?` dimension, no row multiplier over
    /// an `int` parameter, a zero multiplier, or a non-`?` part that varies on the warp).
    StrideEntry {
        /// The index operand.
        index: String,
        /// What fails.
        why: &'static str,
    },
    /// A `mono`/`imono` rewrite in L:WEAK (only equality rewrites keep a lower bound).
    InequalityRewrite(&'static str),
    /// The root post potential of a lower-bound certificate is not `0` (§4b).
    LowerPostNotZero(String),
    /// L:IFDIV, L:IFALIGN, L:IFDT (§4b): a lane witness of `(lanes L1 L2)` / `(lanes L)`
    /// is not a lane of warp `warp` (`0 ≤ L < Wsz` and thread id `Wsz·W + L` below the
    /// block size) in the judgment's lane set (all of the warp, or a branch's subset under
    /// L:IFSPLIT, §4b "Lane subsets").
    IfdivLane {
        /// The rule of the node.
        rule: &'static str,
        /// The lane as written.
        lane: String,
        /// The warp.
        warp: u32,
    },
    /// L:IFALIGN (§4b): `Q − (Q' + M^if + C + minc(s1) + minc(s2) + M^div·[m ∤ s − X])`, shown, is not 0 (the atom
    /// from the node's class, as Q:IFALIGN computes it).
    IfalignCharge(String),
    /// L:IFWRAP (§4b): the test `test` is not a split of warp `warp` by a wrapped entry
    /// (`x == 0` / `x != 0` with `D(x) = (wrap x k m)`, `m ≥ 2`, the lanes' `k·tid mod m`
    /// covering every residue); `why` says which condition fails.
    IfwrapSplit {
        /// The test, as written.
        test: String,
        /// The warp.
        warp: u32,
        /// The failed condition.
        why: &'static str,
    },
    /// L:IFSPLIT (§4b "Lane subsets"): the test `test` does not split the judgment's lane set
    /// by a remainder entry (`x == 0` / `x != 0` with `D(x) = (rem x k r m)`, both subsets
    /// non-empty); `why` says which condition fails.
    IfsplitLanes {
        /// The test, as written.
        test: String,
        /// The failed condition.
        why: &'static str,
    },
    /// L:IFSPLIT (§4b "Lane subsets"): the `branch` (`then`/`else`) child's `which`
    /// (`pre`/`post`) potential `q` is not a constant.
    IfsplitPotential {
        /// `then` or `else`.
        branch: &'static str,
        /// `pre` or `post`.
        which: &'static str,
        /// The potential, shown.
        q: String,
    },
    /// L:IFLANES (§4b "Lane subsets"): the test `test` is not decided lane by lane (a
    /// comparison of operands with exact linear entries over a non-empty lane set); `why`
    /// says which condition fails.
    IflanesTest {
        /// The test, as written.
        test: String,
        /// The failed condition.
        why: &'static str,
    },
    /// L:IFLANES (§4b "Lane subsets"): the `branch` (`then`/`else`) child's `which`
    /// (`pre`/`post`) potential `q` is not a constant.
    IflanesPotential {
        /// `then` or `else`.
        branch: &'static str,
        /// `pre` or `post`.
        which: &'static str,
        /// The potential, shown.
        q: String,
    },
    /// L:IFD (§4b): the post's `part` (`P` or `Q`) mentions the local `var`, which a
    /// branch of the `if` writes (the branches' runs are not followed).
    IfdWritten {
        /// `P` or `Q`.
        part: &'static str,
        /// The local.
        var: String,
    },
    /// A parameter hypothesis of a lower-bound certificate mentions `var`, which is not an
    /// `int` parameter (spec/logic.md §4b, "Parameter hypotheses").
    HypothesisVariable(String),
    /// The witness point of a lower-bound certificate names `name`, not an `int`
    /// parameter, or names it twice.
    WitnessName(String),
    /// The witness point gives no value to the parameter `var` a fact mentions.
    WitnessMissing(String),
    /// A launch fact or hypothesis is false at the witness point.
    WitnessViolates(String),
    /// `(lower W)` names a warp the block does not have.
    NoSuchWarp {
        /// The named warp.
        warp: u32,
        /// Threads in the block.
        threads: u64,
    },
    /// The checking thread could not be started.
    ThreadFailed,
    /// A panic inside the kernel, caught and turned into a rejection (at the node being
    /// checked when it happened inside the derivation). Always a kernel bug: no input
    /// should reach it, and the tests forbid it.
    InternalPanic(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Reason::*;
        match self {
            Syntax { line, expected, found } => write!(f, "line {line}: expected {expected}, found `{found}`"),
            Version { found, supported } => {
                write!(f, "unsupported certificate version {found} (supported: {supported})")
            }
            ResourceLimit { what, limit } => write!(f, "{what} exceeds the limit ({limit})"),
            UnknownMetric(m) => write!(f, "unknown metric `{m}`"),
            UnknownRule(r) => write!(f, "unknown rule `{r}`"),
            WrongRuleKind { expected } => write!(f, "a {expected} rule is required here"),
            Undeclared { kind, name } => write!(f, "`{name}` is not a declared {kind}"),
            NoSignature { op, operands } => {
                write!(f, "operator `{op}` has no signature for {operands} (spec/minicuda.md §2)")
            }
            TypeMismatch { what, expected, found } => write!(f, "{what} has type {found}, {expected} is required"),
            LiteralRange(n) => write!(f, "integer literal {n} is outside the 64-bit range"),
            MissingAssumption(a) => write!(f, "the assumptions do not state ({a} …)"),
            UnknownAssumption(a) => write!(f, "unknown assumption `{a}`"),
            AssumptionArrays { assumption, expected, found } => {
                write!(f, "({assumption} …) lists `{found}`, the program's arrays are `{expected}`")
            }
            DuplicateName(n) => write!(f, "`{n}` is declared twice"),
            IllTyped { what, expected } => write!(f, "`{what}` must be {expected}"),
            IllFormed { which, problem } => write!(f, "ill-formed {which}: {problem}"),
            WrongSubject { expected, found } => {
                write!(f, "rule is about {expected}, node is about {found}")
            }
            ChildCount { expected, found } => {
                write!(f, "expected {expected} children, found {found}")
            }
            MissingField(x) => write!(f, "missing field ({x} …)"),
            UnexpectedField(x) => write!(f, "unexpected field ({x} …)"),
            Differs { left, right, component, left_val, right_val } => {
                write!(f, "{left} differs from {right} ({component}: `{left_val}` vs `{right_val}`)")
            }
            CostMismatch { claimed, computed } => {
                write!(f, "claimed cost {claimed}, recomputed {computed}")
            }
            AccessBound { claimed, required } => {
                write!(f, "claimed access count {claimed} is below the required {required}")
            }
            WitnessCount { list, expected, found } => {
                write!(f, "entail {list}: expected {expected} witnesses, found {found}")
            }
            Farkas { list, item, target, problem } => write!(f, "{list} witness {item} for `{target}`: {problem}"),
            NotDominated { list, term } => {
                write!(f, "rewrite {list}: difference has negative term `{term}`")
            }
            NotPointwiseBelow { left, right, term } => {
                write!(f, "{right} is not pointwise at most {left}: their difference has the negative term `{term}`")
            }
            Negative { what, value } => write!(f, "{what} {value} is negative"),
            NotUniform(o) => write!(f, "operand `{o}` is not warp-uniform"),
            NotInUniformSet(x) => write!(f, "`{x}` is not uniform in the pre's D"),
            DepNotImplied { var, have, want } => {
                write!(f, "dep entry {want} of `{var}` is not implied by {have}")
            }
            SubstUndefined(x) => write!(f, "substitution for `{x}` needs a linear right-hand side"),
            PotentialMentions(x) => write!(f, "post potential mentions the assigned `{x}`"),
            NoCondition(op) => write!(f, "condition `{op}` is not a linear comparison this rule can use"),
            NotFiltered => write!(f, "rule allowed only in filtered position (the spine of a Q:WHILEEXIT body)"),
            GuardEntry(why) => write!(f, "Q:WHILEGUARD: {why}"),
            CaseSplit(why) => write!(f, "Q:CASE: {why}"),
            WhileNone(why) => write!(f, "Q:WHILENONE: {why}"),
            DivergentExit => {
                write!(f, "the loop body leaves the loop by a Q:IFEXIT4 (divergent) exit: Q:WHILEEXIT2 is required")
            }
            NoLinearEntry(x) => {
                write!(f, "`{x}` has no linear entry, so the lane spread of the loop condition is unknown")
            }
            MaySplit(e) => write!(f, "the test `{e}` may split a warp (Q:WHILEWARP's window check fails)"),
            CapSplit(r, why) => write!(f, "the capped loop's body has a {r} node {why}"),
            NoRowMultiplier(o) => write!(f, "the index `{o}` has no scaled entry with a row multiplier (? P A B)"),
            BadRowTerm(why) => write!(f, "bad row charge: {why}"),
            BadGuard(why) => write!(f, "bad guarded access: {why}"),
            GuardCharge { at, charged, need } => write!(
                f,
                "the guarded charge is {charged} at the lane value K·tid = {at}, below the {need} sectors or bank accesses of the lanes with K·tid ≤ {at}"
            ),
            RowCharge { rho, modulus, charged, need } => write!(
                f,
                "the row charge is {charged} at X ≡ {rho} (mod {modulus}), below the {need} sectors or bank accesses of the warp's rows"
            ),
            BadResidueClass { test, class: (s, m), why } => {
                write!(f, "the residue class (class {s} {m}) is not one of the test `{test}`: {why}")
            }
            UniformPartWritten { var, test } => write!(
                f,
                "`{var}` of the uniform part X of the loop test `{test}` is written by the loop body, so the residue class need not hold at a later test"
            ),
            ExitTestReads(a) => {
                write!(
                    f,
                    "the condition of a loop left by jumps reads array `{a}` (Q:WHILEEXIT1/2 allow no array read)"
                )
            }
            BoundMismatch { bound, root } => write!(f, "bound `{bound}` differs from the root potential `{root}`"),
            WrongRole { certificate } => {
                write!(f, "this rule may not occur in a {certificate}-bound certificate (spec/logic.md §4b)")
            }
            StrideEntry { index, why } => {
                write!(f, "the index `{index}` has no stride count: {why} (spec/logic.md §4b)")
            }
            AccessAbove { claimed, allowed } => {
                write!(f, "claimed access count {claimed} is above the named warp's count {allowed}")
            }
            InequalityRewrite(list) => {
                write!(f, "rewrite {list}: mono/imono is an inequality, a lower bound allows only equality rewrites")
            }
            LowerPostNotZero(q) => write!(f, "the root post potential of a lower-bound certificate is `{q}`, not 0"),
            IfdivLane { rule, lane, warp } => {
                write!(f, "{rule}: lane witness `{lane}` is not a lane of warp {warp} in the judgment's lane set")
            }
            IfalignCharge(d) => {
                write!(f, "L:IFALIGN: the pre potential minus post + M^if + C + minc(s1) + minc(s2) + M^div·[m ∤ s − X] is `{d}`, not 0")
            }
            IfwrapSplit { test, warp, why } => {
                write!(f, "L:IFWRAP: the test `{test}` does not provably split warp {warp}: {why}")
            }
            IfsplitLanes { test, why } => {
                write!(f, "L:IFSPLIT: the test `{test}` does not split the lane set: {why}")
            }
            IfsplitPotential { branch, which, q } => {
                write!(f, "L:IFSPLIT: the {branch} branch's {which} potential `{q}` is not a constant")
            }
            IflanesTest { test, why } => {
                write!(f, "L:IFLANES: the test `{test}` is not decided lane by lane: {why}")
            }
            IflanesPotential { branch, which, q } => {
                write!(f, "L:IFLANES: the {branch} branch's {which} potential `{q}` is not a constant")
            }
            IfdWritten { part, var } => {
                write!(f, "L:IFD: the post {part} mentions `{var}`, which a branch of the if writes")
            }
            HypothesisVariable(v) => {
                write!(f, "a parameter hypothesis mentions `{v}`, which is not an int parameter")
            }
            WitnessName(n) => write!(f, "the witness point names `{n}`, not an int parameter (or twice)"),
            WitnessMissing(v) => write!(f, "the witness point gives no value to the parameter `{v}`"),
            WitnessViolates(c) => write!(f, "the witness point violates the fact `{c}`"),
            NoSuchWarp { warp, threads } => write!(f, "warp {warp} does not exist in a block of {threads} threads"),
            ThreadFailed => write!(f, "the checking thread could not be started"),
            InternalPanic(m) => write!(f, "internal error (a kernel panic, caught): {m}"),
        }
    }
}

/// A rejection: the rule and node (dotted child path from the root `0`) where checking
/// failed, and why. Parse and program errors have rule `parse`/`program` and an empty path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// Rule name of the failing node (or `parse`, `program`, `root`).
    pub rule: String,
    /// Child path of the failing node, e.g. `0.2.1`; empty outside the derivation.
    pub node_path: String,
    /// The reason.
    pub reason: Reason,
}

impl Rejection {
    /// A rejection outside the derivation (rule `parse`).
    pub fn parse(reason: Reason) -> Rejection {
        Rejection { rule: "parse".to_string(), node_path: String::new(), reason }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.node_path.is_empty() {
            write!(f, "{}: {}", self.rule, self.reason)
        } else {
            write!(f, "rule {} at node {}: {}", self.rule, self.node_path, self.reason)
        }
    }
}

impl std::error::Error for Rejection {}

/// What an accepted certificate proves of its bound (spec/logic.md §5, §4b).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The bound is at least the cost of every warp (`<=`).
    Upper,
    /// The bound is at most the cost of the named warp (`>=`; section `(lower W)`).
    Lower(u32),
}

impl Role {
    /// `upper` or `lower`.
    pub fn name(self) -> &'static str {
        match self {
            Role::Upper => "upper",
            Role::Lower(_) => "lower",
        }
    }
    /// The relation between the cost and the bound: `<=` or `>=`.
    pub fn relation(self) -> &'static str {
        match self {
            Role::Upper => Verdict::RELATION,
            Role::Lower(_) => ">=",
        }
    }
}

/// An accepted certificate's claim (spec/logic.md §5): for every warp of a block of
/// `block` threads on `hardware`, under `assumptions`, the cost under `metric` is at most
/// `bound_poly` (relation [`Verdict::RELATION`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Certificate format version (1 to 6).
    pub version: u32,
    /// Kernel name.
    pub kernel: String,
    /// Metric name.
    pub metric: String,
    /// `[warp, banks, bank_bytes, sector_bytes]`.
    pub hardware: [u32; 4],
    /// Block dimensions.
    pub block: [u32; 3],
    /// The bound, printed from the kernel's own parse, e.g. `3 + 14*max(0, h + 1)`.
    pub bound: String,
    /// The bound as the kernel parsed and checked it (equal to the root pre potential).
    pub bound_poly: Poly,
    /// The claim's assumptions: as written (version 2) or the implicit ones (version 1).
    pub assumptions: Vec<Assumption>,
    /// The provenance section as written (version 2, optional): not checked by the kernel.
    pub provenance: Option<Provenance>,
    /// Number of derivation nodes checked.
    pub nodes_checked: usize,
    /// Upper bound for every warp, or lower bound for the named warp.
    pub role: Role,
    /// A lower certificate's parameter hypotheses (spec/logic.md §4b, L:HYP), each printed
    /// as `L <= 0` / `L = 0`: the claim holds for the parameter values satisfying them.
    pub hypotheses: Vec<String>,
}

impl Verdict {
    /// The relation the kernel proves between the per-warp cost and the bound of an upper
    /// certificate ([`Role::relation`] gives the verdict's own).
    pub const RELATION: &'static str = "<=";
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [w, b, bb, s] = self.hardware;
        let [x, y, z] = self.block;
        write!(
            f,
            "ACCEPTED kernel {} metric {} block {x}x{y}x{z} hardware warp={w} banks={b} bank_bytes={bb} sector_bytes={s}: {} {} {} ({} nodes checked)",
            self.kernel,
            self.metric,
            match self.role {
                Role::Upper => "per-warp cost".to_string(),
                Role::Lower(n) => format!("cost of warp {n}"),
            },
            self.role.relation(),
            self.bound,
            self.nodes_checked
        )?;
        write!(f, "\nrole: {}", self.role.name())?;
        if !self.hypotheses.is_empty() {
            write!(f, "\nwhen (parameter hypotheses, a witness point checked): {}", self.hypotheses.join(", "))?;
        }
        let implicit = if self.version == 1 { " (implicit in format version 1)" } else { "" };
        write!(f, "\nassuming{implicit}:")?;
        for a in &self.assumptions {
            write!(f, "\n  {a}")?;
        }
        if let Some(p) = &self.provenance {
            write!(
                f,
                "\nprovenance (not checked by the kernel): source sha256 {}, program sha256 {}, warpcert {}",
                p.source_sha256, p.program_sha256, p.warpcert
            )?;
        }
        Ok(())
    }
}

/// Checks a certificate (spec/certificate.md, versions 1 to 6) completely: parse, program
/// well-typedness ([`typing`]), the assumptions ([`assume`]), every rule instance of the
/// derivation, and the root conditions (spec/logic.md §5). Runs on a thread with a
/// [`STACK_BYTES`] stack.
///
/// Errors: the first [`Rejection`] found. Never panics: a panic is
/// [`Reason::InternalPanic`].
pub fn check(text: &str) -> Result<Verdict, Rejection> {
    // a scoped thread borrows the text (no copy of a certificate of megabytes)
    let joined = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("warpcert-kernel".to_string())
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, || rules::check_certificate(text));
        handle.map(|h| h.join())
    })
    .map_err(|_| Rejection::parse(Reason::ThreadFailed))?;
    // A panic outside any derivation node (reader, program, root conditions).
    joined.map_err(|p| Rejection { rule: "kernel".to_string(), node_path: String::new(), reason: panic_reason(&*p) })?
}

/// [`Reason::InternalPanic`] with the panic's message (`&str` or `String` payloads).
pub fn panic_reason(payload: &(dyn std::any::Any + Send)) -> Reason {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string());
    Reason::InternalPanic(msg)
}
