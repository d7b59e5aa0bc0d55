//! One warp's run under the Coq semantics: `.v` files that run a miniCUDA program with the
//! interpreter of `coq-export/theories/Exec.v` (`Exec.run`, sound for the relation
//! `Semantics.seval` by `Exec.run_sound`) under `vm_compute`.
//!
//! * [`costs_file`]: computes the cost of the run for each metric (`Eval vm_compute`), for
//!   the differential test of the Rust and Coq semantics (`tests/coq_semantics_diff.rs`,
//!   issue 17 item 5); [`parse_costs`] reads `coqc`'s output back.
//! * [`claim_file`]: proves a theorem "the run of the program at these parameter values and
//!   array contents on warp `w` costs exactly / more than / at least `c`" by `vm_compute`
//!   (`Exec.run_cost_eq`, `run_cost_gt`, `run_cost_ge`): the form a refutation of a claimed
//!   bound takes in Coq (issue 19 item 3).
//! * [`refutation_file`]: proves the negation of the bound theorem a certificate would
//!   state for a claimed bound (`Refute.refute_sound`), when the run costs more than the
//!   bound at its parameter values.
//!
//! The run is the one of [`crate::semantics::run_warp`]: same program, hardware, launch,
//! block index (the `blockIdx.*`, `blockDim.*`, `gridDim.*`, `warpSize` parameters are set
//! as the Rust runner sets them), warp, parameter values and array contents, every local at
//! its type's default value, floats under IEEE binary64 (`Float64.f64`). The program is
//! printed by the certificate export's printer ([`super::coq::Names`]), through the
//! certificate's s-expression form read back by the kernel's parser.
//!
//! Errors ([`CoqRunError`]): parameter errors as in `run_warp`; a warp outside the block;
//! array contents the Coq file cannot state: cells read from [`Input::Random`] (give
//! explicit contents, [`ArrayInit`]).

use super::coq::{ty, ExportError, Names};
use super::coq_context::{ctx_def, names_comment};
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, MetricName, Program};
use crate::semantics::run::resolve_params;
use crate::semantics::{ArrayInit, Input, Inputs, Params, SemError, Value};
use num_bigint::BigInt;
use num_traits::Signed;
use std::fmt::Write as _;
use warpcert_kernel::arith::Poly;
use warpcert_kernel::syntax;

/// The theories a run file imports.
const RUN_THEORIES: &str = "Metric Syntax Semantics Exec Float64";

/// Why a run could not be written as a Coq file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CoqRunError {
    /// The program cannot be printed in Coq (see [`ExportError`]).
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Parameter values that do not fit the program (as [`crate::semantics::run_warp`]).
    #[error(transparent)]
    Sem(#[from] SemError),
    /// A launch or input the Coq file cannot state, with the reason.
    #[error("cannot run under the Coq semantics: {0}")]
    Unsupported(String),
}

/// One warp's run: the arguments of [`crate::semantics::run_warp`] and the fuel of
/// `Exec.run` (a bound on the depth of the derivation: the number of rule applications of
/// the Rust run is always enough).
#[derive(Clone, Copy, Debug)]
pub struct WarpRunSpec<'a> {
    /// The lowered program.
    pub prog: &'a Program,
    /// Warp size, banks, bank and sector bytes.
    pub hw: &'a Hardware,
    /// Block (and grid) dimensions.
    pub launch: &'a Launch,
    /// The block index (sets `blockIdx.*`).
    pub block: [u32; 3],
    /// The warp's index in the block.
    pub warp: u64,
    /// Scalar parameter values by name.
    pub params: &'a Params,
    /// Array contents.
    pub inputs: &'a Inputs,
    /// Fuel of `Exec.run`.
    pub fuel: u64,
}

/// A claim on the cost `C` of one run, the statement of [`claim_file`]'s theorem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CostClaim {
    /// `C == c`.
    Exactly(Q),
    /// `c < C`.
    MoreThan(Q),
    /// `c <= C`.
    AtLeast(Q),
}

fn z(n: &BigInt) -> String {
    if n.is_negative() {
        format!("({n})%Z")
    } else {
        format!("{n}%Z")
    }
}

fn q(r: &Q) -> String {
    format!("({} # {})", r.numer(), r.denom())
}

fn value(v: Value) -> String {
    match v {
        Value::Int(n) => format!("VInt {}", z(&BigInt::from(n))),
        Value::Bool(b) => format!("VBool {b}"),
        Value::Float(x) => format!("VFloat {}", z(&BigInt::from(x.to_bits() as i64))),
    }
}

/// The definitions shared by both files: names, context (`G` as given by `ctx_head` and
/// `metric`), `body`, `ps`, `arrays`, `w`, `fuel`.
/// The program in the kernel's syntax (the certificate's program section read back).
fn kernel_program(prog: &Program) -> Result<syntax::Program, CoqRunError> {
    let text = crate::certificate::program_sexp(prog);
    let kp = crate::core::stack::with_big_stack(|| {
        let top = warpcert_kernel::sexp::parse_all(&text)
            .map_err(|r| ExportError::Rejected(r.to_string()))?;
        let first = top
            .first()
            .ok_or_else(|| ExportError::Unsupported("empty program".into()))?;
        syntax::program(first).map_err(|r| ExportError::Rejected(r.to_string()))
    })?;
    Ok(kp)
}

fn definitions(
    run: &WarpRunSpec,
    kp: &syntax::Program,
    ctx_head: &str,
    metric: &str,
) -> Result<String, CoqRunError> {
    let prog = run.prog;
    if run.warp >= run.launch.warps_per_block(run.hw) {
        return Err(CoqRunError::Unsupported(format!(
            "warp {} does not exist (the block has {} warps)",
            run.warp,
            run.launch.warps_per_block(run.hw)
        )));
    }
    let pv = resolve_params(prog, run.hw, run.launch, run.block, run.params)?;
    let names = Names::new(kp);
    let mut body = String::new();
    crate::core::stack::with_big_stack(|| names.stmt(&kp.body, &mut body, 2))?;
    let hw = run.hw;
    let hardware = [hw.warp_size, hw.banks, hw.bank_bytes, hw.sector_bytes];
    let mut out = names_comment(kp);
    out.push_str(&ctx_def(ctx_head, metric, kp, hardware, run.launch.block));
    let _ = writeln!(out, "Definition body : stmt :=\n  {body}.\n");
    let ps: Vec<String> = prog
        .params
        .iter()
        .map(|p| {
            pv.get(&p.name)
                .map_or("VInt 0%Z".to_string(), |v| value(*v))
        })
        .collect();
    let _ = writeln!(
        out,
        "Definition ps : nat -> val := fun p => nth p [{}] (VInt 0%Z).\n",
        ps.join("; ")
    );
    let mut arrays = Vec::new();
    for a in &prog.arrays {
        let dflt = match run.inputs.default {
            Input::Zero => Some(value(Value::default_of(a.elem))),
            Input::Random(_) => None,
        };
        let unstated = || {
            CoqRunError::Unsupported(format!(
                "array `{}` reads pseudo-random input cells; give its contents explicitly",
                a.name
            ))
        };
        arrays.push(match run.inputs.arrays.get(&a.name) {
            Some(ArrayInit::Fill(v)) => format!("(fun _ => {})", value(*v)),
            Some(ArrayInit::Values(vs)) => {
                let vs: Vec<String> = vs.iter().map(|v| value(*v)).collect();
                let d = dflt.ok_or_else(unstated)?;
                format!("(cells [{}] ({d}))", vs.join("; "))
            }
            None => format!("(fun _ => {})", dflt.ok_or_else(unstated)?),
        });
    }
    let _ = writeln!(
        out,
        "Definition arrays : nat -> Z -> val :=\n  arrays_of [{}].\n",
        arrays.join(";\n    ")
    );
    let _ = writeln!(
        out,
        "(* warp {} of block ({}, {}, {}) *)\nDefinition w : nat := {}.\nDefinition fuel : nat := {}.\n",
        run.warp, run.block[0], run.block[1], run.block[2], run.warp, run.fuel
    );
    Ok(out)
}

fn header(prog: &Program, what: &str, theories: &str) -> String {
    format!(
        "(* Generated by warpcert (src/export/coq_run.rs): {what} of kernel `{}` under the Coq\n   \
         semantics (coq-export/theories/Exec.v). Check with coqc against coq-export/theories.\n   \
         Do not edit. *)\n\
         From Coq Require Import ZArith QArith List.\n\
         From WarpCert Require Import {theories}.\n\
         Import ListNotations.\nOpen Scope Q_scope.\nOpen Scope nat_scope.\n\n",
        prog.name
    )
}

/// A `.v` file that computes, for each of `metrics` in order, the cost of the run (one
/// `Eval vm_compute` each, printing `Some (numerator, denominator)` of the reduced cost,
/// or `None` when a premise fails — a run-time error — or the fuel runs out).
///
/// Errors: [`CoqRunError`].
pub fn costs_file(run: &WarpRunSpec, metrics: &[MetricName]) -> Result<String, CoqRunError> {
    let kp = kernel_program(run.prog)?;
    let mut out = header(run.prog, "the costs of one warp's run", RUN_THEORIES);
    out.push_str(&definitions(run, &kp, "G (m : metric)", "m")?);
    out.push_str(
        "Definition cost (m : metric) : option (Z * Z) :=\n  \
         option_map (fun c => let c' := Qred c in (Qnum c', Zpos (Qden c')))\n    \
         (run (G m) f64 ps arrays body w fuel).\n\n",
    );
    for m in metrics {
        let _ = writeln!(out, "Eval vm_compute in cost {}.", m.as_str());
    }
    Ok(out)
}

/// Reads the costs printed by `coqc` on a [`costs_file`] for `n` metrics: one entry per
/// metric, `None` where the Coq run failed.
///
/// Errors: a message when the output does not hold exactly `n` results.
pub fn parse_costs(output: &str, n: usize) -> Result<Vec<Option<Q>>, String> {
    let mut out = Vec::new();
    for line in output.lines() {
        let Some(r) = line.trim().strip_prefix("= ") else {
            continue;
        };
        if r == "None" {
            out.push(None);
            continue;
        }
        let bad = || format!("unexpected result `{r}` in coqc's output");
        let pair = r
            .strip_prefix("Some (")
            .and_then(|x| x.strip_suffix(')'))
            .ok_or_else(bad)?;
        let (a, b) = pair.split_once(',').ok_or_else(bad)?;
        let num = |s: &str| -> Result<BigInt, String> {
            s.trim()
                .trim_end_matches("%Z")
                .trim_start_matches('(')
                .trim_end_matches(')')
                .trim_end_matches("%Z")
                .parse::<BigInt>()
                .map_err(|_| bad())
        };
        let den = num(b)?;
        if !den.is_positive() {
            return Err(bad());
        }
        out.push(Some(Q::new(num(a)?, den)));
    }
    if out.len() != n {
        return Err(format!(
            "expected {n} results in coqc's output, found {}:\n{output}",
            out.len()
        ));
    }
    Ok(out)
}

/// A `.v` file proving `Theorem run_claim`: the run under `metric` costs as `claim` says
/// (`exists s' C, seval G f64 ps (init_store G arrays) body (lanes G w) s' C /\ …`), by
/// `vm_compute` and `Exec.run_cost_eq` / `run_cost_gt` / `run_cost_ge`, followed by
/// `Print Assumptions run_claim`. `G` has the form of an exported certificate's context.
/// `coqc` rejects the file when the claim is false (or the fuel runs out).
///
/// Errors: [`CoqRunError`].
pub fn claim_file(
    run: &WarpRunSpec,
    metric: MetricName,
    claim: &CostClaim,
) -> Result<String, CoqRunError> {
    let kp = kernel_program(run.prog)?;
    let mut out = header(
        run.prog,
        "a claim on the cost of one warp's run",
        RUN_THEORIES,
    );
    out.push_str(&definitions(run, &kp, "G", metric.as_str())?);
    let (c, rel, lemma) = match claim {
        CostClaim::Exactly(c) => (c, "C == c", "run_cost_eq"),
        CostClaim::MoreThan(c) => (c, "c < C", "run_cost_gt"),
        CostClaim::AtLeast(c) => (c, "c <= C", "run_cost_ge"),
    };
    let _ = writeln!(out, "Definition c : Q := {}.\n", q(c));
    let _ = writeln!(
        out,
        "(** The run of [body] on warp [w] from the initial store with contents [arrays], at\n    \
         parameter values [ps], under the float model [f64]: its cost [C] satisfies [{rel}]. *)\n\
         Theorem run_claim : exists s' C,\n  \
         seval G f64 ps (init_store G arrays) body (lanes G w) s' C /\\ ({rel})%Q.\n\
         Proof. apply ({lemma} G f64 ps arrays body w fuel c). vm_compute. reflexivity. Qed.\n\n\
         Print Assumptions run_claim."
    );
    Ok(out)
}

/// A `.v` file proving `Theorem refuted`: the negation of the bound theorem an exported
/// certificate of the program would prove for the claimed `bound` (a polynomial over the
/// program's integer parameters, as a certificate's `bound`; `warp_bound` in
/// `coq-export/README.md`), namely
/// `~ (forall F ps arrays w s' C, pok G ps -> launch_ok G ps -> lanes G w <> [] ->
/// seval G F ps (init_store G arrays) body (lanes G w) s' C -> C <= pval (rho_params ps) bound)`,
/// by `vm_compute` of `Refute.refutes` on this run (`Refute.refute_sound`): its parameter
/// values are well typed and satisfy the launch facts, its warp is not empty, and it costs
/// more than `bound` at its parameter values. Followed by `Print Assumptions refuted`.
/// `coqc` rejects the file when the run does not refute the bound.
///
/// Errors: [`CoqRunError`]; a variable of `bound` that is not a parameter of the program.
pub fn refutation_file(
    run: &WarpRunSpec,
    metric: MetricName,
    bound: &Poly,
) -> Result<String, CoqRunError> {
    let kp = kernel_program(run.prog)?;
    let names = Names::new(&kp);
    let mut out = header(
        run.prog,
        "a refutation of a claimed bound by one warp's run",
        "Metric Syntax Semantics Exec Float64 Lin Logic Soundness Check Refute",
    );
    out.push_str(&definitions(run, &kp, "G", metric.as_str())?);
    let tys: Vec<String> = kp
        .params
        .iter()
        .map(|p| format!("Some {}", ty(p.0)))
        .collect();
    let _ = writeln!(
        out,
        "Definition tys : list (option ty) := [{}].\n\
         Definition bound : pot := {}.\n\n\
         (** No certificate can prove [bound] for [body]: the run at [ps], [arrays], [w]\n    \
         costs more. *)\n\
         Theorem refuted : ~ (forall (F : fmodel) (ps : nat -> val) (arrays : nat -> Z -> val)\n  \
         (w : nat) (s' : store) (C : Q),\n  \
         pok G ps -> launch_ok G ps -> lanes G w <> [] ->\n  \
         seval G F ps (init_store G arrays) body (lanes G w) s' C ->\n  \
         (C <= pval (rho_params ps) bound)%Q).\n\
         Proof.\n  \
         apply (refute_sound G tys f64 ps arrays body w fuel bound (fun p => eq_refl)).\n  \
         vm_compute. reflexivity.\n\
         Qed.\n\n\
         Print Assumptions refuted.",
        tys.join("; "),
        names.pot(bound)?
    );
    Ok(out)
}
