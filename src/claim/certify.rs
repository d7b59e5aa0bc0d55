//! Certifying a claimed upper bound (issue 19): a certificate whose root bound is the
//! claim. The analysis's derivation for the metric becomes the child of a root Q:WEAK
//! (spec/logic.md §4) whose pre potential is the claim `C` and whose `(rewrite pre …)`
//! justifies `C ≥ B` for the analysis's bound `B` under the launch facts
//! ([`crate::analysis::compare`]); the kernel checks that step like every other. When the
//! tightest bound is not below the claim that way, the analysis runs again with the claim
//! as its LP target ([`crate::analysis::analyze_toward`]).

use crate::analysis::compare::{align, first_deficit};
use crate::analysis::{analyze_toward, Analysis, AnalysisOptions};
use crate::certificate::{Assn, Farkas, Field, Judgment, Node};
use crate::core::assertion::linear::Lin;
use crate::core::assertion::Poly;
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, Metric, Program};
use num_traits::One;
use std::collections::BTreeSet;

/// A certificate for the claim, accepted by the kernel.
#[derive(Clone, Debug)]
pub struct Certified {
    /// The certificate text (root bound: the claim's potential).
    pub certificate: String,
    /// warpcert's bound below the claim (the child of the root Q:WEAK).
    pub ours: Poly,
    /// How it was found: `tightest bound` or `LP with the claim as target`.
    pub how: &'static str,
}

/// The root Q:WEAK from the claim's potential `c` to the derivation `root`, if the
/// comparison can be written (`None`: the rewritten claim is below `B` somewhere; the
/// monomial is named in the error).
pub fn weaken_to(c: &Poly, root: &Node) -> Result<Node, String> {
    let Judgment::Stmt { pre, post } = &root.judgment else {
        return Err("the derivation's root is not a statement node".into());
    };
    let atoms: BTreeSet<Lin> = pre.q.terms.keys().flatten().cloned().collect();
    let (c2, rws) = align(c, &atoms, &pre.p);
    if let Some(m) = first_deficit(&c2, &pre.q) {
        return Err(format!(
            "warpcert's bound {} is not below the claim: the coefficient of {m} is larger",
            pre.q.to_bound_string()
        ));
    }
    let identity = |p: &[crate::core::assertion::Cstr]| -> Vec<Farkas> {
        (0..p.len()).map(|i| Farkas(vec![(i, Q::one())])).collect()
    };
    Ok(Node {
        rule: "Q:WEAK",
        judgment: Judgment::Stmt {
            pre: Assn {
                p: pre.p.clone(),
                d: pre.d.clone(),
                q: c.clone(),
            },
            post: post.clone(),
        },
        fields: vec![
            Field::Entail("pre", identity(&pre.p)),
            Field::Rewrite("pre", rws),
            Field::Entail("post", identity(&post.p)),
        ],
        children: vec![root.clone()],
    })
}

/// The certificate text for the claim `c` from an analysis, checked by the kernel (whose
/// bound must be `c`). Errors: the comparison cannot be written, or the kernel rejects.
fn certify_from(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    a: &Analysis,
    c: &Poly,
) -> Result<String, String> {
    let root = weaken_to(c, &a.derivation)?;
    let text = crate::certificate::write(prog, metric, hw, launch, &root);
    let v = warpcert_kernel::check(&text).map_err(|r| format!("the kernel rejects: {r}"))?;
    // the kernel's bound, read back from its printed form, must be the claim's potential
    let printed = v.bound_poly.to_string();
    let back = super::expr::ClaimExpr::parse(&printed)
        .map_err(|e| e.to_string())?
        .to_poly()?;
    if back != *c {
        return Err(format!("the kernel's bound {printed} is not the claim"));
    }
    Ok(text)
}

/// Tries to certify the claim `c` (module documentation). `tightest`: the analysis with
/// the default objective, when it succeeded. Returns the certificate, or what was tried.
pub fn certify(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    opts: &AnalysisOptions,
    tightest: Option<&Analysis>,
    c: &Poly,
) -> Result<Certified, Vec<String>> {
    let mut tried = Vec::new();
    if let Some(a) = tightest {
        match certify_from(prog, metric, hw, launch, a, c) {
            Ok(certificate) => {
                return Ok(Certified {
                    certificate,
                    ours: a.bound.clone(),
                    how: "tightest bound",
                })
            }
            Err(e) => tried.push(format!("tightest bound: {e}")),
        }
    }
    match analyze_toward(prog, metric, hw, launch, opts, Some(c)) {
        Ok(a) => match certify_from(prog, metric, hw, launch, &a, c) {
            Ok(certificate) => Ok(Certified {
                certificate,
                ours: a.bound,
                how: "LP with the claim as target",
            }),
            Err(e) => {
                tried.push(format!("LP with the claim as target: {e}"));
                Err(tried)
            }
        },
        Err(e) => {
            tried.push(format!("LP with the claim as target: {e}"));
            Err(tried)
        }
    }
}
