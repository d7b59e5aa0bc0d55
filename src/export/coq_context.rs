//! The statement side of an exported Coq file (`src/export/coq/`, `coq_run.rs`): the
//! comments naming a program's indices, the context `Definition G : ctx` (spec/logic.md §5)
//! and the comment above `warp_bound` mapping each of the certificate's assumptions to a
//! hypothesis of the theorem or to the part of the Coq semantics that makes it true
//! (spec/certificate.md "Assumptions").

use super::coq::ty;
use std::fmt::Write as _;
use warpcert_kernel::assume::Assumption;
use warpcert_kernel::rules::warp_uniform_dims;
use warpcert_kernel::syntax::{Program, Space};

/// The hypothesis of `warp_bound` (or the part of the Coq semantics) that stands for
/// assumption `a` of the certificate (spec/certificate.md "Assumptions", column "Coq"):
/// one line of the theorem's comment, naming the assumption as the kernel prints it.
/// Exhaustive over [`Assumption`], so that an assumption added to the kernel does not
/// export until it is mapped here.
fn coq_hypothesis(a: &Assumption) -> String {
    let arrays = |v: &[String]| {
        if v.is_empty() {
            "(no arrays)".to_string()
        } else {
            v.join(" ")
        }
    };
    match a {
        Assumption::Terminates => {
            "terminates: hypothesis [terminates_no_runtime_error]: [seval] is \
             big-step, it relates [body] only to the final store and cost of a terminating run"
                .into()
        }
        Assumption::NoRuntimeError => {
            "no-runtime-error: hypothesis [terminates_no_runtime_error]: no \
             rule of [seval] continues past a run-time error ([bop_eval] is [None] for a division \
             by zero, a shift amount outside [0, 63] or ill-typed operands; [no_race] for two \
             lanes writing different values to one cell): such a run has no derivation"
                .into()
        }
        Assumption::NoOverflow => "no-overflow: structural: values are [Z], integers are \
             mathematical (the runs it excludes are those where CUDA's 32-bit value differs)"
            .into(),
        Assumption::Aligned(v) => format!(
            "aligned {}: structural: [memreads]/[conflicts_of] place element [i] at byte \
             [i * bytes] of an array starting at address 0 (sector- and bank-aligned)",
            arrays(v)
        ),
        Assumption::NoAlias(v) => format!(
            "no-alias {}: structural: the store keeps each array apart ([sa : nat -> Z -> val]); \
             a write to one array never changes another",
            arrays(v)
        ),
        Assumption::RaceFree => "race-free: outside the statement, which is about one warp: with \
             no data race in the launch, every thread sees the values of its warp's lock-step run"
            .into(),
        Assumption::AtomicsUnserialized => "atomics-unserialized: structural: [body] is the \
             certificate's program, in which atomics are the plain accesses they are lowered to"
            .into(),
        Assumption::WarpAlone => "warp-alone: structural: [seval] runs the warp [lanes G w] alone \
             from [init_store G arrays] (no other warp, no cache, no contention)"
            .into(),
    }
}

/// The comment above `warp_bound`: its statement in words and, one line each, how the
/// certificate's assumptions are hypotheses of the theorem or part of the Coq semantics.
pub(crate) fn theorem_comment(assumptions: &[Assumption]) -> String {
    assumptions_comment(
        "(** For every float model, parameter values of the declared types ([params_typed])\n    \
         satisfying the launch facts ([launch_facts]: [0 <= blockIdx < gridDim]), array\n    \
         contents and non-empty warp [w] of the block ([warp_nonempty]): the cost of running\n    \
         [body] on the warp is at most [bound].\n",
        assumptions,
    )
}

/// The comment above `warp_lower_bound` (a lower-bound certificate, `coq_lower.rs`).
pub(crate) fn lower_theorem_comment(assumptions: &[Assumption]) -> String {
    assumptions_comment(
        "(** For every float model, parameter values of the declared types ([params_typed])\n    \
         satisfying the launch facts ([launch_facts]: [0 <= blockIdx < gridDim]) and the\n    \
         certificate's parameter hypotheses [hyps] (rule L:HYP; [hypothesis_1] … state them\n    \
         over [ps]), and array contents: the cost of running [body] on the lanes of warp\n    \
         [warp] is at least [bound].\n",
        assumptions,
    )
}

/// `head` (the theorem in words), then one line per assumption.
fn assumptions_comment(head: &str, assumptions: &[Assumption]) -> String {
    let mut out = String::from(head);
    out.push_str(
        "    The certificate's assumptions (spec/certificate.md \"Assumptions\"), one for one:\n",
    );
    for a in assumptions {
        let _ = writeln!(out, "    - {}", coq_hypothesis(a));
    }
    out.push_str("*)\n");
    out
}

/// The comments naming the indices of `p`'s locals, parameters and arrays.
pub(crate) fn names_comment(p: &Program) -> String {
    let names = |v: Vec<&str>| -> String {
        v.iter()
            .enumerate()
            .map(|(i, n)| format!("{i} = {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "(* locals: {} *)",
        names(p.locals.iter().map(|l| l.1.as_str()).collect())
    );
    let _ = writeln!(
        out,
        "(* parameters: {} *)",
        names(p.params.iter().map(|l| l.1.as_str()).collect())
    );
    let _ = writeln!(
        out,
        "(* arrays: {} *)",
        names(p.arrays.iter().map(|a| a.name.as_str()).collect())
    );
    out
}

/// `Definition HEAD : ctx := {| … |}.`: the context of `p` (spec/logic.md §5) for metric
/// term `metric` (`sectors`, … or a bound name), hardware `[warp, banks, bank bytes,
/// sector bytes]` and block dimensions: signature, launch parameters, warp-uniform
/// dimensions (`warp_uniform_dims`).
pub(crate) fn ctx_def(
    head: &str,
    metric: &str,
    p: &Program,
    hardware: [u32; 4],
    block: [u32; 3],
) -> String {
    let [w, banks, bank_bytes, sector_bytes] = hardware;
    let [bx, by, bz] = block;
    let udims = warp_uniform_dims(block, w);
    let lty: Vec<String> = p
        .locals
        .iter()
        .map(|l| format!("Some {}", ty(l.0)))
        .collect();
    let pty: Vec<String> = p
        .params
        .iter()
        .map(|l| format!("Some {}", ty(l.0)))
        .collect();
    let arr: Vec<String> = p
        .arrays
        .iter()
        .map(|a| {
            let sp = match a.space {
                Space::Global => "Global",
                Space::Shared => "Shared",
                Space::Local => "Local",
            };
            format!("Some ({sp}, {}%Z)", a.bytes)
        })
        .collect();
    let with_prefix = |pre: &str| -> Vec<String> {
        p.params
            .iter()
            .enumerate()
            .filter(|(_, l)| l.1.starts_with(pre))
            .map(|(i, _)| i.to_string())
            .collect()
    };
    let bidx = with_prefix("blockIdx.");
    let gdim = with_prefix("gridDim.");
    // (blockIdx.d, gridDim.d) for d = x, y, z when both are parameters.
    let bgrid: Vec<String> = ["x", "y", "z"]
        .iter()
        .filter_map(|d| {
            let b = p
                .params
                .iter()
                .position(|l| l.1 == format!("blockIdx.{d}"))?;
            let g = p
                .params
                .iter()
                .position(|l| l.1 == format!("gridDim.{d}"))?;
            Some(format!("({b}, {g})"))
        })
        .collect();
    let wu: Vec<String> = (0..3)
        .filter(|&d| udims[d])
        .map(|d| d.to_string())
        .collect();
    let mut out = String::new();
    let _ = writeln!(
            out,
            "Definition {head} : ctx := {{|\n  c_metric := {metric}; c_warp := {w}; c_banks := {banks}%Z;\n  \
             c_bank_bytes := {bank_bytes}%Z; c_sector_bytes := {sector_bytes}%Z;\n  \
             c_bx := {bx}; c_by := {by}; c_bz := {bz};\n  \
             c_lty := fun x => nth x [{}] None;\n  c_pty := fun p => nth p [{}] None;\n  \
             c_arr := fun a => nth a [{}] None;\n  c_blockidx := [{}];\n  \
             c_griddim := [{}]; c_bgrid := [{}];\n  c_wu := [{}] |}}.\n",
            lty.join("; "),
            pty.join("; "),
            arr.join("; "),
            bidx.join("; "),
            gdim.join("; "),
            bgrid.join("; "),
            wu.join("; ")
        );
    out
}
