//! The executable lock-step cost semantics of miniCUDA (RaCUDA §3, Fig. 5): the oracle
//! against which bounds are tested. Normative description: `spec/semantics.md`.
//!
//! * [`value`]: values and operators (`EC:OP`, `EC:UOP`).
//! * [`store`]: array stores and the input model for unwritten cells.
//! * [`lockstep`]: one warp executing one statement in lock-step, rule by rule.
//! * [`derivation`]: resource usage counters and derivation trees.
//! * [`run`]: running one warp ([`run_warp`]) or a whole kernel ([`run_kernel`]).
//!
//! The other operational semantics (issue 6; `spec/semantics.md` §§9–12), all built on the
//! rules above:
//!
//! * [`parallel`]: RaCUDA §5 work/span of a block (cost collections per warp), `W/P + S`,
//!   and Collingbourne et al.'s checked block-wide lock-step run.
//! * [`smallstep`]: RaCUDA §6 bounded implementation (latencies, greedy scheduler of `P`
//!   warp slots, stuck states).
//! * [`interleaving`]: Collingbourne et al.'s interleaving semantics with a scheduler oracle,
//!   barrier divergence and data-race detection ([`races`]).
//! * [`simt`]: Habermaier's SIMT machine with a reconvergence stack.

pub mod derivation;
mod grid;
pub mod interleaving;
pub mod lockstep;
pub mod parallel;
pub mod races;
pub mod run;
pub mod simt;
pub mod smallstep;
pub mod store;
pub mod value;
pub mod warpop;

pub use derivation::{CostModel, Derivation, Usage};
pub use run::{
    run_kernel, run_kernel_with, run_warp, KernelRun, MetricRun, Params, RunOptions, WarpRun,
};
pub use store::{ArrayInit, Input, Inputs, Memory};
pub use value::Value;

use crate::core::{Loc, Ty};

/// `OC:VAR`: reading a local variable costs `M^var`.
pub const OC_VAR: &str = "OC:VAR";
/// `OC:CONST`: a constant costs `M^const`.
pub const OC_CONST: &str = "OC:CONST";
/// `OC:PARAM`: a parameter costs `M^param`.
pub const OC_PARAM: &str = "OC:PARAM";
/// `OC:TID`: `threadIdx.d` costs `M^var`.
pub const OC_TID: &str = "OC:TID";
/// `EC:OP`: `o1 op o2` costs `C1 + C2 + M^op`.
pub const EC_OP: &str = "EC:OP";
/// `EC:UOP` (extension): `op o` costs `C + M^op`.
pub const EC_UOP: &str = "EC:UOP";
/// `EC:GARR`: global read `G[o]` costs `C + M^gread(MemReads(R))`.
pub const EC_GARR: &str = "EC:GARR";
/// `EC:SARR`: shared read `S[o]` costs `C + M^sread(Conflicts(R))`.
pub const EC_SARR: &str = "EC:SARR";
/// `SC:SKIP`: `skip` costs 0.
pub const SC_SKIP: &str = "SC:SKIP";
/// `SC:SEQ`: `s1; s2` costs `C1 + C2`.
pub const SC_SEQ: &str = "SC:SEQ";
/// `SC:VWRITE`: `x ← e` costs `C + M^vwrite`.
pub const SC_VWRITE: &str = "SC:VWRITE";
/// `SC:GWRITE`: `G[o] ← e` costs `C1 + C2 + M^gwrite(MemReads(R1))`.
pub const SC_GWRITE: &str = "SC:GWRITE";
/// `SC:SWRITE`: `S[o] ← e` costs `C1 + C2 + M^swrite(Conflicts(R1))`.
pub const SC_SWRITE: &str = "SC:SWRITE";
/// `SC:IFT`: condition true on every active thread.
pub const SC_IFT: &str = "SC:IFT";
/// `SC:IFF`: condition false on every active thread.
pub const SC_IFF: &str = "SC:IFF";
/// `SC:IFD`: divergent `if` (then on `𝒯_T`, else on `𝒯_F`, plus `M^div`).
pub const SC_IFD: &str = "SC:IFD";
/// `SC:WHILEALL`: loop condition true on every active thread.
pub const SC_WHILEALL: &str = "SC:WHILEALL";
/// `SC:WHILESOME`: loop condition true on some but not all active threads (`+ M^div`,
/// the loop continues on `𝒯_T`).
pub const SC_WHILESOME: &str = "SC:WHILESOME";
/// `SC:WHILENONE`: loop condition false on every active thread (the loop exits).
pub const SC_WHILENONE: &str = "SC:WHILENONE";
/// `SC:SYNC` (extension, RaCUDA §5): `sync` costs `M^sync`, store unchanged in lock-step.
pub const SC_SYNC: &str = "SC:SYNC";

/// `SC:SHFL` (extension): `x ← shfl k w (v, l)` costs `C1 + C2 + M^op + M^vwrite`; each
/// active lane gets the value of `v` at its source lane when that lane is active, else
/// its own.
pub const SC_SHFL: &str = "SC:SHFL";
/// `SC:VOTE` (extension): `x ← vote k (p)` costs `C + M^op + M^vwrite`; every active lane
/// gets the ballot (or any/all) of `p` over the active lanes of its warp.
pub const SC_VOTE: &str = "SC:VOTE";

/// `EC:LARR` (extension): a thread-local array read `L[o]` costs `C + M^var`.
pub const EC_LARR: &str = "EC:LARR";
/// `SC:LWRITE` (extension): `L[o] ← e` on a thread-local array costs `C1 + C2 + M^vwrite`.
pub const SC_LWRITE: &str = "SC:LWRITE";

/// Every rule of the lock-step semantics, in the order of `spec/semantics.md`.
pub const RULES: &[&str] = &[
    OC_VAR,
    OC_CONST,
    OC_PARAM,
    OC_TID,
    EC_OP,
    EC_UOP,
    EC_GARR,
    EC_SARR,
    SC_SKIP,
    SC_SEQ,
    SC_VWRITE,
    SC_GWRITE,
    SC_SWRITE,
    SC_IFT,
    SC_IFF,
    SC_IFD,
    SC_WHILEALL,
    SC_WHILESOME,
    SC_WHILENONE,
    SC_SYNC,
    SC_SHFL,
    SC_VOTE,
    EC_LARR,
    SC_LWRITE,
];

/// Errors of the executable semantics. Every failure of a run is one of these values;
/// the semantics never panics on any program or input.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SemError {
    /// Parameters the program declares but the run was not given (names listed).
    #[error("missing values for kernel parameters: {}", .0.join(", "))]
    MissingParams(Vec<String>),
    /// A parameter value of the wrong type.
    #[error("parameter `{name}` has type {}, but a {} value was given", .expected.keyword(), .found.keyword())]
    ParamType {
        /// Parameter name.
        name: String,
        /// Declared type.
        expected: Ty,
        /// Type of the value given.
        found: Ty,
    },
    /// A name the program does not declare (variable, parameter or array).
    #[error("undeclared {kind} `{name}`")]
    Undeclared {
        /// `local`, `parameter` or `array`.
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// A type error at run time (ill-typed program; the lowering should prevent it).
    #[error("type error: {0}")]
    Type(String),
    /// An integer result outside `i64`.
    #[error("integer overflow in {0}")]
    Overflow(String),
    /// Integer division or remainder by zero.
    #[error("division by zero in {0}")]
    DivByZero(String),
    /// A shift by a negative amount or by 64 or more.
    #[error("shift by {0} (must be in 0..64)")]
    BadShift(i64),
    /// A write-write race within one warp store: two active threads write different values
    /// to the same cell (RaCUDA §3: the store update is undefined).
    #[error(
        "write-write race on {array}[{index}]: thread {t1} writes {v1}, thread {t2} writes {v2}"
    )]
    Race {
        /// Array name.
        array: String,
        /// Element index.
        index: i64,
        /// First thread (block-linear id) and its value.
        t1: u32,
        /// Its value.
        v1: Value,
        /// Second thread and its value.
        t2: u32,
        /// Its value.
        v2: Value,
    },
    /// The run exceeded its fuel (number of rule applications per warp): the program may
    /// not terminate.
    #[error(
        "out of fuel after {0} rule applications (the kernel may not terminate; raise the limit)"
    )]
    OutOfFuel(u64),
    /// The launch's grid is symbolic but a kernel run needs every block.
    #[error("running a kernel needs concrete grid dimensions")]
    SymbolicGrid,
    /// A launch configuration, block or warp index that cannot be run.
    #[error("bad launch: {0}")]
    BadLaunch(String),
    /// An explicit input that does not fit the program.
    #[error("bad input: {0}")]
    BadInput(String),
    /// A data race (Collingbourne et al. Def. 3.1/4.1): two distinct threads access the same
    /// cell, at least one writes, with no barrier between them.
    #[error(
        "data race on {array}[{index}]: thread {} (block {}) {} at {} and thread {} (block {}) {} at {}",
        .first.thread, .first.block, if .first.write { "writes" } else { "reads" }, .first.loc,
        .second.thread, .second.block, if .second.write { "writes" } else { "reads" }, .second.loc
    )]
    DataRace {
        /// Array name.
        array: String,
        /// Element index.
        index: i64,
        /// The earlier access.
        first: Box<races::AccessSite>,
        /// The access that completed the race.
        second: Box<races::AccessSite>,
    },
    /// Barrier divergence: a `__syncthreads()` reached by only part of a block, by threads
    /// at different barriers, or while other threads have finished.
    #[error(
        "barrier divergence at {loc}: threads {} wait at the barrier, threads {} do not",
        derivation::render_threads(.reached), derivation::render_threads(.waiting)
    )]
    BarrierDivergence {
        /// Location of the barrier (one of them, when threads wait at different ones).
        loc: Loc,
        /// Threads (block-linear ids) at this barrier.
        reached: Vec<u32>,
        /// Threads of the block not at this barrier.
        waiting: Vec<u32>,
    },
    /// An error raised by the statement at `loc` (innermost statement with a known location).
    /// A construct this semantics does not model (named), e.g. a warp shuffle in the
    /// thread-interleaving semantics, where no two lanes step together.
    #[error("{0}")]
    Unsupported(String),
    #[error("at {loc}: {error}")]
    At {
        /// Source position of the statement.
        loc: Loc,
        /// The error.
        error: Box<SemError>,
    },
    /// An error raised in warp `warp` of block `block` during a kernel run.
    #[error("block ({}, {}, {}), warp {warp}: {error}", .block[0], .block[1], .block[2])]
    InWarp {
        /// Block index.
        block: [u32; 3],
        /// Warp index within the block.
        warp: u64,
        /// The error.
        error: Box<SemError>,
    },
}

impl SemError {
    /// The underlying error, without [`SemError::At`] / [`SemError::InWarp`] context.
    pub fn root(&self) -> &SemError {
        let mut e = self;
        loop {
            match e {
                SemError::At { error, .. } | SemError::InWarp { error, .. } => e = error,
                _ => return e,
            }
        }
    }
}
