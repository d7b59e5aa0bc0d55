//! Auditing another analyzer's bound (issue 19): a claim "every warp costs at most `EXPR`
//! under metric `M`" (or, for a lower bound, "at least") is **certified** by a certificate
//! the kernel accepts whose root bound is the claim ([`certify`]), **refuted** by a witness
//! the kernel replays — parameter values, array contents and a warp whose lock-step run
//! costs more (less) than the claim at those values ([`refute`]; `kernel/src/witness.rs`,
//! version 2) — or left **unknown** with what was tried. Nothing is reported certified or
//! refuted unless the kernel accepted the evidence.
//!
//! Claims speak about parameter values `≥ 0` ([`expr`]). A lower-bound claim ("every warp
//! of every run costs at least `EXPR`") can only be refuted: the kernel proves upper bounds.

pub mod certify;
pub mod expr;
pub mod refute;
pub mod table;

use crate::analysis::{analyze, AnalysisOptions};
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, Metric, MetricName, Program};
use crate::relational::witness::{write_v2, WitnessV2};
use crate::semantics::Inputs;
use expr::ClaimExpr;
use refute::SearchLimits;

/// Which side of the cost the claimed bound is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Every warp costs at most the bound.
    Upper,
    /// Every warp costs at least the bound.
    Lower,
}

impl Relation {
    /// `upper` / `lower`.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Upper => "upper",
            Relation::Lower => "lower",
        }
    }
}

/// A claimed bound on one metric of one kernel.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The text as given.
    pub text: String,
    /// The text read.
    pub expr: ClaimExpr,
    /// The metric.
    pub metric: MetricName,
    /// Upper or lower.
    pub relation: Relation,
}

/// A refutation whose witness the kernel replayed.
#[derive(Clone, Debug)]
pub struct Refuted {
    /// The witness text (version 2).
    pub witness: String,
    /// The kernel's verdict on it: `Ok` (accepted), else the rejection (then the verdict is
    /// not `refuted`).
    pub checked: bool,
    /// Parameter values.
    pub params: Vec<(String, i64)>,
    /// Warp of block 0.
    pub warp: u64,
    /// Its cost.
    pub cost: Q,
    /// The claim at the parameters.
    pub claimed: Q,
    /// The array contents of the run (for the Coq export).
    pub inputs: Inputs,
    /// The input family.
    pub input_name: String,
}

/// The verdict of an audit.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// A kernel-accepted certificate whose bound is the claim.
    Certified(certify::Certified),
    /// A kernel-accepted counterexample.
    Refuted(Box<Refuted>),
    /// Neither; the reasons.
    Unknown,
}

/// An audit's result: the verdict, warpcert's own bound (when the analysis found one) and
/// what was tried.
#[derive(Clone, Debug)]
pub struct Audit {
    /// The verdict.
    pub verdict: Verdict,
    /// warpcert's tightest bound, printed.
    pub ours: Option<String>,
    /// What was tried, in order (the reasons for `unknown`).
    pub tried: Vec<String>,
}

/// The kernel and launch a claim is about.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a> {
    /// The lowered kernel.
    pub prog: &'a Program,
    /// Hardware.
    pub hw: &'a Hardware,
    /// Block dimensions (the grid is symbolic for certificates, one block for witnesses).
    pub block: [u32; 3],
}

/// Audits `claim` on `target` (module documentation).
pub fn audit(t: &Target, claim: &Claim, opts: &AnalysisOptions, limits: &SearchLimits) -> Audit {
    let metric = Metric::standard(claim.metric);
    let launch = Launch {
        block: t.block,
        grid: None,
    };
    let mut tried = Vec::new();
    let tightest = analyze(t.prog, &metric, t.hw, &launch, opts);
    let ours = tightest.as_ref().ok().map(|a| a.bound.to_bound_string());
    if let Err(e) = &tightest {
        tried.push(format!("analysis: {e}"));
    }
    if claim.relation == Relation::Upper {
        let ok = tightest.as_ref().ok();
        match certify::certify(t.prog, &metric, t.hw, &launch, opts, ok, &claim.expr) {
            Ok(cert) => {
                return Audit {
                    verdict: Verdict::Certified(cert),
                    ours,
                    tried,
                }
            }
            Err(why) => tried.extend(why),
        }
    } else {
        tried.push("certificate: the kernel proves upper bounds only".into());
    }
    let ours_poly = tightest.as_ref().ok().map(|a| &a.bound);
    let problem = refute::Problem {
        prog: t.prog,
        metric: claim.metric,
        hw: t.hw,
        block: t.block,
        claim: &claim.expr,
        relation: claim.relation,
        ours: ours_poly,
    };
    let (found, log) = refute::search(&problem, limits);
    let mut summary = format!(
        "search: {} parameter points, {} block runs",
        log.points, log.runs
    );
    if log.failed > 0 {
        summary.push_str(&format!(
            ", {} failed (first: {})",
            log.failed,
            log.first_error.clone().unwrap_or_default()
        ));
    }
    if log.out_of_budget {
        summary.push_str(", budget exhausted");
    }
    if let Some((r, at)) = &log.closest {
        summary.push_str(&format!(", closest cost/claim ratio {r:.3} at {at}"));
    }
    let Some(cx) = found else {
        tried.push(format!("{summary}: no counterexample"));
        return Audit {
            verdict: Verdict::Unknown,
            ours,
            tried,
        };
    };
    if !matches!(claim.metric, MetricName::Sectors | MetricName::Conflicts) {
        tried.push(format!(
            "{summary}: the semantics costs warp {} {} against the claimed {} at {:?}, but the kernel replays witnesses for sectors and conflicts only",
            cx.warp, cx.cost, cx.claimed, cx.params
        ));
        return Audit {
            verdict: Verdict::Unknown,
            ours,
            tried,
        };
    }
    let sexp = claim.expr.to_sexp();
    let text = write_v2(&WitnessV2 {
        prog: t.prog,
        metric: claim.metric,
        hw: t.hw,
        block: t.block,
        params: &cx.params,
        warp: cx.warp,
        cost: &cx.cost,
        inputs: &cx.inputs,
        claim: Some((claim.relation.as_str(), &sexp)),
    });
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            tried.push(format!("{summary}: the witness cannot be written: {e}"));
            return Audit {
                verdict: Verdict::Unknown,
                ours,
                tried,
            };
        }
    };
    // replayed on a big stack, as `--relation` does: the kernel's reader recurses along the
    // program, and a long statement chain would overflow the default stack
    let replayed = crate::core::stack::with_big_stack(|| {
        warpcert_kernel::witness::check_witness(&text)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    match replayed {
        Ok(()) => Audit {
            verdict: Verdict::Refuted(Box::new(Refuted {
                witness: text,
                checked: true,
                params: cx.params,
                warp: cx.warp,
                cost: cx.cost,
                claimed: cx.claimed,
                inputs: cx.inputs,
                input_name: cx.input_name,
            })),
            ours,
            tried,
        },
        Err(e) => {
            tried.push(format!(
                "{summary}: the kernel rejects the witness found: {e}"
            ));
            Audit {
                verdict: Verdict::Unknown,
                ours,
                tried,
            }
        }
    }
}
