//! Certifying a claimed upper bound (issue 19): a certificate whose root bound is the
//! claim. The analysis's derivation for the metric becomes the child of a root Q:WEAK
//! (spec/logic.md §4) whose pre potential is the claim `C` and whose `(rewrite pre …)`
//! justifies `C ≥ B` for the analysis's bound `B` under the launch facts
//! ([`crate::analysis::compare`]); the kernel checks that step like every other. When the
//! tightest bound is not below the claim that way, the analysis runs again with the claim
//! as its LP target ([`crate::analysis::analyze_toward`]).

use super::expr::ClaimExpr;
use crate::analysis::compare::{align, first_deficit};
use crate::analysis::{analyze_toward, Analysis, AnalysisOptions};
use crate::certificate::{Assn, Farkas, Field, Judgment, Node};
use crate::core::assertion::linear::Lin;
use crate::core::assertion::Poly;
use crate::core::metric::Q;
use crate::core::{Hardware, Launch, Metric, Program};
use num_traits::{One, Signed};
use std::collections::{BTreeMap, BTreeSet};

/// A certificate for the claim, accepted by the kernel.
#[derive(Clone, Debug)]
pub struct Certified {
    /// The certificate text (root bound: the claim's potential).
    pub certificate: String,
    /// warpcert's bound below the claim (the child of the root Q:WEAK).
    pub ours: Poly,
    /// The certificate's bound: the claim as a potential (equal to the claim at every
    /// parameter value `≥ 0`).
    pub bound: Poly,
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
    let atoms: BTreeSet<Lin> = pre.q.max0_atoms().cloned().collect();
    let (c2, rws) = align(c, &atoms, &pre.p);
    if let Some(m) = first_deficit(&c2, &pre.q) {
        return Err(format!(
            "warpcert's bound {} is not below the claim: the coefficient of {m} is larger",
            pre.q.to_bound_string()
        ));
    }
    let identity = |p: &[crate::core::assertion::Cstr]| -> Vec<Farkas> {
        (0..p.len()).map(Farkas::Id).collect()
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

/// The shifts of [`ClaimExpr::to_poly_shifted`] that meet the atoms `x + d` (`d > 0`) of
/// warpcert's bound.
fn shifts_from(b: &Poly) -> BTreeMap<String, Q> {
    let mut out = BTreeMap::new();
    for a in b.max0_atoms() {
        if let [(v, k)] = a.terms.iter().collect::<Vec<_>>()[..] {
            if k.is_one() && a.c.is_positive() {
                out.entry(v.clone()).or_insert_with(|| a.c.clone());
            }
        }
    }
    out
}

/// Tries to certify the claim (module documentation): its potential, and its potential
/// with bare parameters shifted to meet the atoms of warpcert's bound
/// ([`ClaimExpr::to_poly_shifted`]; equal to the claim at parameters `≥ 0`), first against
/// the tightest bound, then with the LP targeting each. `tightest`: the analysis with the
/// default objective, when it succeeded. Returns the certificate, or what was tried.
pub fn certify(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    opts: &AnalysisOptions,
    tightest: Option<&Analysis>,
    claim: &ClaimExpr,
) -> Result<Certified, Vec<String>> {
    let mut tried = Vec::new();
    let mut forms = Vec::new();
    match claim.to_poly() {
        Ok(c) => forms.push(c),
        Err(e) => tried.push(format!("certificate: {e}")),
    }
    if let Some(a) = tightest {
        let sh = shifts_from(&a.bound);
        if !sh.is_empty() {
            if let Ok(c) = claim.to_poly_shifted(&sh) {
                if !forms.contains(&c) {
                    forms.push(c);
                }
            }
        }
    }
    if let Some(a) = tightest {
        for c in &forms {
            match certify_from(prog, metric, hw, launch, a, c) {
                Ok(certificate) => {
                    return Ok(Certified {
                        certificate,
                        ours: a.bound.clone(),
                        bound: c.clone(),
                        how: "tightest bound",
                    })
                }
                Err(e) => tried.push(format!(
                    "tightest bound, claim as {}: {e}",
                    c.to_bound_string()
                )),
            }
        }
    }
    for c in &forms {
        let r = analyze_toward(prog, metric, hw, launch, opts, Some(c))
            .map_err(|e| e.to_string())
            .and_then(|a| certify_from(prog, metric, hw, launch, &a, c).map(|t| (a, t)));
        match r {
            Ok((a, certificate)) => {
                return Ok(Certified {
                    certificate,
                    ours: a.bound,
                    bound: c.clone(),
                    how: "LP with the claim as target",
                })
            }
            Err(e) => tried.push(format!(
                "LP with the claim {} as target: {e}",
                c.to_bound_string()
            )),
        }
    }
    Err(tried)
}
