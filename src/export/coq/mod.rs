//! `warpcert export-coq`: a certificate the kernel accepted, printed as a Coq file whose
//! bound theorem is proved by reflection against the theories in `coq-export/theories/`.
//!
//! The file defines the context `G` (metric, hardware, launch, signature, warp-uniform
//! dimensions), the program `body`, the derivation `tree` (one `dtree` node per rule
//! application, assertions shared as `Definition a<N>`), the `bound` and the access-bound
//! table `tab`, proves `root_ok : check_root G tab body tree bound = true` by
//! `vm_compute`, and concludes (`warp_bound`) by applying
//! `Check.bound_sound`, itself a consequence of `Soundness.soundness` (RaCUDA
//! Theorem 1 for warpcert's representations). See `coq-export/README.md`. A certificate
//! with a capped loop (Q:WHILEGUARDCAP, Q:WHILEEXITCAP, Q:WHILEEXITCAP2, spec/logic.md §4a) proves
//! `ccheck_root` and applies `CapCheck.cbound_sound` instead (the loop's body is checked
//! under `M^div := 0` and its splits counted; a capped loop off the root's spine, Q:SEQ /
//! Q:WEAK / Q:WHILE1 / Q:IFALIGN, is refused).
//!
//! Representations (coq-export/README.md "What the export prints"): names become
//! indices in declaration order (printed in comments); every linear constraint `L ≤ 0` /
//! `L = 0` and every potential atom is scaled by the least positive integer making it
//! integral, and every Farkas witness `(i λ)…` becomes `(m, [(i, λ')…])` with integers
//! `m > 0`, `λ'`, for the scaled forms; lane constraints `(mod L m r…)` (integral) become
//! `CMod L m [r…]`; dependence maps become lists of entries `DLin`/`DRem`/`DRng`/`DScl`; the
//! access bounds the derivation claims are collected into a table `tab` of `(key, n)`
//! (one entry per distinct `N*` key, `n` the smallest claim) that `coqc` checks once each.
//!
//! A lower-bound certificate (section `(lower W)`, spec/logic.md §4b) prints the same tree
//! with the `L:` rules as their `Q:` constructors and proves `warp_lower_bound` from
//! `LowerCheck.lower_bound_sound` instead ([`super::coq_lower`]).
//!
//! Errors ([`ExportError`]): the kernel rejects the certificate; the derivation uses a
//! rule the Coq theories do not formalize (every rule of spec/logic.md §3–§4b is, the
//! filtered judgments of §4a included; a rule added later fails with its name); a rewrite
//! over a non-integral form or shift; a Q:IFEXIT1/4 outside a Q:WHILEEXIT1/2 body. Nothing
//! is printed in those cases.

mod access;
mod case;
mod guard;
mod node;
mod terms;
mod witness;

use crate::export::coq_context::{ctx_def, names_comment, theorem_comment};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
pub(crate) use terms::ty;
use terms::*;
use warpcert_kernel::access::Kind;
use warpcert_kernel::arith::{Atom, Cstr, Dep, DepMap, EntryKind, Lin, Poly, Rat};
use warpcert_kernel::assume::Assumption;
use warpcert_kernel::rules::wrap::wrap_conflicts;
use warpcert_kernel::syntax::{
    self, Assn, Certificate, Cg, Expr, Node, Opd, Program, Rw, Space, Stmt, Ty, WarpOp, Witnesses,
};

/// Why a certificate could not be exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The independent kernel rejected the certificate (its reason).
    #[error("the kernel rejected the certificate: {0}")]
    Rejected(String),
    /// A rule of the derivation is not formalized in the Coq theories.
    #[error("rule {0} is not formalized in the Coq theories (coq-export/README.md lists the supported rules)")]
    UnsupportedRule(String),
    /// An atom the Coq theories do not formalize yet: the symbolic floor atom `(floors L D)`
    /// (spec/logic.md §1 "Symbolic divisors"; Coq constructor `KFloorS`, not wired into the
    /// export yet: `Exporter::atom` in src/export/coq/terms.rs), named as printed.
    #[error("the symbolic floor atom {0} (floors LIN DLIN) is not exported to Coq yet (constructor KFloorS, spec/logic.md §1 \"Symbolic divisors\")")]
    UnsupportedAtom(String),
    /// Anything else the Coq representation cannot express, with an explanation.
    #[error("cannot export: {0}")]
    Unsupported(String),
}

/// Exports certificate text as a Coq file (see the module documentation).
///
/// Errors: [`ExportError`]; the kernel's rejection comes first.
pub fn export(text: &str) -> Result<String, ExportError> {
    let verdict = warpcert_kernel::check(text).map_err(|r| ExportError::Rejected(r.to_string()))?;
    // Reading the derivation and exporting it recurse along its nesting.
    crate::core::stack::with_big_stack(|| {
        let top = warpcert_kernel::sexp::parse_all(text)
            .map_err(|r| ExportError::Rejected(r.to_string()))?;
        let cert = syntax::certificate(&top).map_err(|r| ExportError::Rejected(r.to_string()))?;
        Exporter::new(&cert).file(&verdict.assumptions)
    })
}

/// The indices of a program's locals, parameters and arrays (declaration order) and the
/// Coq terms of its operands, expressions and statements (`Syntax.opd`, `expr`, `stmt`).
/// Shared by the certificate export and `coq_run` (programs run under `Exec.exec`).
pub(crate) struct Names<'p> {
    locals: BTreeMap<&'p str, usize>,
    params: BTreeMap<&'p str, usize>,
    arrays: BTreeMap<&'p str, usize>,
}

struct Exporter<'c> {
    cert: &'c Certificate,
    names: Names<'c>,
    assns: HashMap<String, usize>,
    defs: String,
    /// Access-bound claims: printed key ↦ smallest claimed `n` (`Check.ntab`).
    tab: BTreeMap<String, BigInt>,
    /// The condition of the innermost Q:WHILEEXIT1/2 loop whose body is being exported
    /// (the filter of spec/logic.md §4a; its `cond(¬e)` is the target of `entail exit`).
    filter: Option<Expr>,
    /// `Some(W)`: a lower-bound certificate about warp `W` (`crate::export::coq_lower`).
    lower: Option<u32>,
}

/// A statement node being exported: the node, its pre, the Coq names of its pre and post
/// assertions, the scales of the post's constraints, and the indentation.
struct At<'n> {
    n: &'n Node,
    pre: &'n Assn,
    a: String,
    b: String,
    post_scales: Vec<BigInt>,
    pad: String,
    ind: usize,
}

impl<'n> At<'n> {
    /// Child `i` of the node, or an error naming the rule.
    fn child(&self, i: usize) -> Result<&'n Node, ExportError> {
        self.n
            .children
            .get(i)
            .ok_or_else(|| ExportError::Unsupported(format!("{}: children", self.n.rule)))
    }
}

impl<'c> Exporter<'c> {
    fn new(cert: &'c Certificate) -> Exporter<'c> {
        Exporter {
            cert,
            names: Names::new(&cert.program),
            assns: HashMap::new(),
            defs: String::new(),
            tab: BTreeMap::new(),
            filter: None,
            lower: cert.lower,
        }
    }

    fn file(mut self, assumptions: &[Assumption]) -> Result<String, ExportError> {
        let c = self.cert;
        if let Some(w) = c.lower {
            crate::export::coq_lower::root_ok(c)?;
            let tree = self.node(&c.root, &c.program.body, 2)?;
            let bound = self.names.pot(&c.bound)?;
            let mut body = String::new();
            self.names.stmt(&c.program.body, &mut body, 2)?;
            let mut hyps = Vec::new();
            for h in c.hypotheses.iter().flat_map(|h| &h.facts) {
                hyps.push(crate::export::coq_lower::Hyp {
                    term: self.cstr(h)?,
                    prop: self.names.param_prop(h, "ps")?,
                    at_witness: self.names.param_prop(h, "witness")?,
                    text: h.to_string(),
                });
            }
            let witness = match &c.hypotheses {
                Some(h) => Some(self.names.witness(&h.witness)?),
                None => None,
            };
            let parts = crate::export::coq_lower::Parts {
                cert: c,
                warp: w,
                hyps: &hyps,
                witness: witness.as_deref(),
                body: &body,
                defs: &self.defs,
                tree: &tree,
                bound: &bound,
            };
            return crate::export::coq_lower::lower_file(&parts, assumptions);
        }
        let p = &c.program;
        let capped = capped_on_spine(&c.root, true)?;
        let metric = match c.metric.as_str() {
            m @ ("sectors" | "conflicts" | "divwarps" | "steps") => m,
            m => return Err(ExportError::Unsupported(format!("metric {m}"))),
        };
        let mut body = String::new();
        self.names.stmt(&p.body, &mut body, 2)?;
        let tree = self.node(&c.root, &p.body, 2)?;
        let bound = self.names.pot(&c.bound)?;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "(* Exported by `warpcert export-coq` from a certificate the kernel accepted.\n   \
             Kernel `{}`, metric `{metric}`. Check with coqc against coq-export/theories\n   \
             (see coq-export/README.md). Do not edit. *)",
            p.name
        );
        out.push_str(
            "From Coq Require Import ZArith QArith List.\n\
             From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Check.\n",
        );
        // a certificate with a capped loop is checked by `CapCheck.ccheck_root`
        let (root, sound) = if capped {
            out.push_str("From WarpCert Require Import Cap CapSound CapCheck.\n");
            ("ccheck_root", "cbound_sound")
        } else {
            ("check_root", "bound_sound")
        };
        out.push_str("Import ListNotations.\nOpen Scope Q_scope.\nOpen Scope nat_scope.\n\n");
        out.push_str(&names_comment(p));
        out.push_str(&ctx_def("G", metric, p, c.hardware, c.block));
        let _ = writeln!(out, "Definition body : stmt :=\n  {body}.\n");
        out.push_str(&self.defs);
        let _ = writeln!(out, "\nDefinition tree : dtree :=\n  {tree}.\n");
        let _ = writeln!(out, "Definition bound : pot := {bound}.\n");
        let tab: Vec<String> = self
            .tab
            .iter()
            .map(|(k, n)| format!("  ({k}, {})", z(n)))
            .collect();
        let _ = writeln!(
            out,
            "(* Access-bound claims N*(key) <= n, key = (shared?, thread constraints, dep, range, bytes). *)\n\
             Definition tab : ntab := [\n{}].\n",
            tab.join(";\n")
        );
        let _ = write!(
            out,
            "Lemma root_ok : {root} G tab body tree bound = true.\n\
             Proof. vm_compute. reflexivity. Qed.\n\n"
        );
        out.push_str(&theorem_comment(assumptions));
        let _ = write!(
            out,
            "Theorem warp_bound : forall (F : fmodel) (ps : nat -> val) (arrays : nat -> Z -> val)\n  \
             (w : nat) (s' : store) (C : Q)\n  \
             (params_typed : pok G ps) (launch_facts : launch_ok G ps)\n  \
             (warp_nonempty : lanes G w <> [])\n  \
             (terminates_no_runtime_error : seval G F ps (init_store G arrays) body (lanes G w) s' C),\n  \
             (C <= pval (rho_params ps) bound)%Q.\n\
             Proof. exact ({sound} G tab body tree bound root_ok). Qed.\n\n\
             Print Assumptions warp_bound.\n"
        );
        Ok(out)
    }
}

/// The capped loop rules of spec/logic.md §4a that Coq checks (CapCheck.v `ccheck`).
const CAP_RULES: [&str; 3] = ["Q:WHILEGUARDCAP", "Q:WHILEEXITCAP", "Q:WHILEEXITCAP2"];

/// Whether the derivation `n` has a capped loop node ([`CAP_RULES`]). `CapCheck.ccheck`
/// accepts one on the certificate's spine only: `n` itself (`spine`) and, through Q:SEQ,
/// Q:WEAK, Q:WHILE1 and Q:IFALIGN, their children (NVIDIA's Mandelbrot: the capped loop in
/// a grid-stride loop's `if`).
///
/// Errors: [`ExportError::UnsupportedRule`] for a capped loop off the spine (inside
/// another rule's child), naming the rule and the place.
fn capped_on_spine(n: &Node, spine: bool) -> Result<bool, ExportError> {
    let cap = CAP_RULES.contains(&n.rule.as_str());
    if cap && !spine {
        return Err(ExportError::UnsupportedRule(format!(
            "{} off the root's Q:SEQ / Q:WEAK / Q:WHILE1 / Q:IFALIGN spine (CapCheck.v \
             checks a capped loop there only)",
            n.rule
        )));
    }
    let keep = spine
        && matches!(
            n.rule.as_str(),
            "Q:SEQ" | "Q:WEAK" | "Q:WHILE1" | "Q:IFALIGN"
        );
    let mut any = cap;
    for c in &n.children {
        any |= capped_on_spine(c, keep)?;
    }
    Ok(any)
}

fn bad(x: &str) -> ExportError {
    ExportError::Unsupported(format!("unknown name {x}"))
}

/// The bound of an exported file as a Coq term (for tests that mutate it).
pub fn bound_line(file: &str) -> Option<&str> {
    file.lines()
        .find(|l| l.starts_with("Definition bound : pot :="))
}
