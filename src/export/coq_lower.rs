//! `warpcert export-coq` of a **lower-bound certificate** (section `(lower W)`,
//! spec/logic.md §4b): the derivation is printed as the same `dtree` as an upper one
//! (`src/export/coq/`), each `L:` rule with the constructor of its `Q:` counterpart
//! (`L:WHILE` as `DWhile1`), and the file proves `lroot_ok : lcheck_root G W hyps body tree
//! bound = true` by `vm_compute` and concludes `warp_lower_bound` (`bound ≤ cost` of warp
//! `W`) from `LowerCheck.lower_bound_sound`, whose proof goes through `Lower.v`'s rule
//! lemmas (coq-export/README.md). The parameter hypotheses `H` of rule L:HYP are `hyps`
//! (`[]` without them) and, one for one, hypotheses `hypothesis_1`, … of the theorem over
//! the parameter values `ps`; the witness point is checked in an `Example`.
//!
//! Covered (the rest is refused with the rule's name): `L:SKIP`, `L:SYNC`, `L:SEQ`,
//! `L:VWRITE1`, `L:VWRITE2`, `L:GWRITE`, `L:SWRITE`, `L:LWRITE`, `L:IF1`, `L:IF2`, `L:IF3`,
//! `L:IFD` (as `DIf4` with only its `join-then` list used, for `P ⇒ P'`), `L:IFDIV` (as
//! L:IFD with its lane witnesses as the `else-then` (`e`) and `else-cond` (`¬e`) lists),
//! `L:IFALIGN` (as `DIfAlign` with L:IFDIV's lists and the node's class), `L:IFDT` (as
//! L:IFDIV with an empty `else-cond` list: LowerCheck.v charges `sminc` of the then
//! branch), `L:IFWRAP` (its own constructor `DIfWrap` with `P ⇒ P'`), `L:IFSPLIT` (its own
//! constructor `DIfSplit`: `P ⇒ P'`, `P ∧ e ⇒ P1`, `P ∧ ¬e ⇒ P2` and both branches, which
//! `lcheck` checks over their lane subsets), `L:IFLANES` (its own constructor `DIfLanes`,
//! L:IFSPLIT's fields, an empty side's child printed `DSkip`), `L:WHILE`, `L:UNROLL`, `L:WEAK` (equality rewrites), `L:GARRAY`, `L:SARRAY` and the exact expression
//! rules, with every access claim `N ≤ N_W` (`MemReads` and `Conflicts`: Coq recomputes the
//! kernel's enumeration over the admissible base addresses, `LowerCheck.nw_ok`).

use super::coq::ExportError;
use super::coq_context::{ctx_def, lower_theorem_comment, names_comment};
use std::fmt::Write as _;
use warpcert_kernel::assume::Assumption;
use warpcert_kernel::syntax::Certificate;

/// The `Q:` rule whose `dtree` constructor prints the `L:` rule `rule` (LowerCheck.v's
/// `lcheck` reads it with the lower directions).
///
/// Errors: [`ExportError::UnsupportedRule`] naming any other rule (a lower rule added to
/// the kernel later is refused until LowerCheck.v covers it).
pub(crate) fn as_upper_rule(rule: &str) -> Result<&'static str, ExportError> {
    Ok(match rule {
        "L:SKIP" => "Q:SKIP",
        "L:SYNC" => "Q:SYNC",
        "L:SEQ" => "Q:SEQ",
        "L:VWRITE1" => "Q:VWRITE1",
        "L:VWRITE2" => "Q:VWRITE2",
        "L:GWRITE" => "Q:GWRITE",
        "L:SWRITE" => "Q:SWRITE",
        "L:LWRITE" => "Q:LWRITE",
        "L:IF1" => "Q:IF1",
        "L:IF2" => "Q:IF2",
        "L:IF3" => "Q:IF3",
        // printed by its own case of the dtree writer (`DIf4` read as L:IFD)
        "L:IFD" => "L:IFD",
        "L:IFDIV" => "L:IFDIV",
        "L:IFALIGN" => "L:IFALIGN",
        "L:IFDT" => "L:IFDT",
        "L:IFWRAP" => "L:IFWRAP",
        "L:WHILE" => "Q:WHILE1",
        "L:UNROLL" => "Q:UNROLL",
        "L:WEAK" => "Q:WEAK",
        // printed by its own case (`DWriteS`, LowerCheck.v)
        "L:GWRITESTRIDE" => "L:GWRITESTRIDE",
        // printed by its own case (`DIfSplit`, LowerCheck.v: each branch over its lanes)
        "L:IFSPLIT" => "L:IFSPLIT",
        // printed by its own case (`DIfLanes`, LowerCheck.v: each non-empty side over its
        // lanes, computed from the test's exact entries)
        "L:IFLANES" => "L:IFLANES",
        r => return Err(ExportError::UnsupportedRule(r.to_string())),
    })
}

/// Checks that the root of the lower certificate `c` is the one LowerCheck.v's
/// `lcheck_root` decides: its pre `P` exactly the launch facts followed by the parameter
/// hypotheses `H` of `(lower W (hyp C…) …)` (rule L:HYP, spec/logic.md §4b; `H` empty
/// without them).
///
/// Errors: [`ExportError::Unsupported`] for a root pre with other facts (the kernel
/// rejects such a certificate: this only guards the export of an unchecked one).
pub(crate) fn root_ok(c: &Certificate) -> Result<(), ExportError> {
    let mut facts = warpcert_kernel::rules::launch_facts(&c.program, c.block);
    // H's linear facts only: its congruences are not constraints of P (§4b)
    facts.extend(
        c.hypotheses
            .iter()
            .flat_map(|h| h.facts.iter().filter(|f| f.lane.is_none()).cloned()),
    );
    match &c.root.pre {
        Some(pre) if *pre.p == facts => Ok(()),
        _ => Err(ExportError::Unsupported(
            "lower-bound certificate whose root pre is not the launch facts followed by its \
             parameter hypotheses (rule L:HYP)"
                .into(),
        )),
    }
}

/// One parameter hypothesis of L:HYP as printed: the `Lin.cstr` term, the proposition over
/// `ps` (a hypothesis of `warp_lower_bound`) and over `witness`, and the kernel's text.
pub(crate) struct Hyp {
    pub term: String,
    pub prop: String,
    pub at_witness: String,
    pub text: String,
}

/// The printed parts of a lower certificate's file.
pub(crate) struct Parts<'a> {
    pub cert: &'a Certificate,
    /// The named warp `W`.
    pub warp: u32,
    /// The parameter hypotheses `H` (L:HYP), in the certificate's order.
    pub hyps: &'a [Hyp],
    /// The witness point as a Coq `nat -> val` (with hypotheses).
    pub witness: Option<&'a str>,
    /// The program as a `Syntax.stmt` term.
    pub body: &'a str,
    /// The assertion definitions `a<N>`.
    pub defs: &'a str,
    /// The derivation as a `dtree` term.
    pub tree: &'a str,
    /// The bound as a `pot` term.
    pub bound: &'a str,
}

/// The Coq file of a lower certificate (module documentation).
///
/// Errors: [`ExportError::Unsupported`] for a metric the theories do not know.
pub(crate) fn lower_file(x: &Parts<'_>, assumptions: &[Assumption]) -> Result<String, ExportError> {
    let c = x.cert;
    let p = &c.program;
    let metric = match c.metric.as_str() {
        m @ ("sectors" | "conflicts" | "divwarps" | "steps") => m,
        m => return Err(ExportError::Unsupported(format!("metric {m}"))),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "(* Exported by `warpcert export-coq` from a lower-bound certificate the kernel accepted.\n   \
         Kernel `{}`, metric `{metric}`, warp {}. Check with coqc against coq-export/theories\n   \
         (see coq-export/README.md). Do not edit. *)",
        p.name, x.warp
    );
    out.push_str(
        "From Coq Require Import ZArith QArith List Lia.\n\
         From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Check Refute LowerCheck.\n\
         Import ListNotations.\nOpen Scope Q_scope.\nOpen Scope nat_scope.\n\n",
    );
    out.push_str(&names_comment(p));
    out.push_str(&ctx_def("G", metric, p, c.hardware, c.block));
    let _ = writeln!(out, "Definition body : stmt :=\n  {}.\n", x.body);
    out.push_str(x.defs);
    let _ = writeln!(out, "\nDefinition tree : dtree :=\n  {}.\n", x.tree);
    let _ = writeln!(out, "Definition bound : pot := {}.\n", x.bound);
    let _ = writeln!(out, "Definition warp : nat := {}.\n", x.warp);
    let terms: Vec<&str> = x.hyps.iter().map(|h| h.term.as_str()).collect();
    out.push_str(
        "(* The parameter hypotheses H of the certificate (rule L:HYP, spec/logic.md §4b):\n",
    );
    for h in x.hyps {
        let _ = writeln!(out, "   {}", h.text);
    }
    if x.hyps.is_empty() {
        out.push_str("   none *)\n");
    } else {
        out.push_str("   They are hypotheses of warp_lower_bound below, one for one. *)\n");
    }
    let _ = writeln!(
        out,
        "Definition hyps : list cstr := [{}].\n",
        terms.join("; ")
    );
    if let Some(w) = x.witness {
        let props: Vec<&str> = x.hyps.iter().map(|h| h.at_witness.as_str()).collect();
        let _ =
            writeln!(
            out,
            "(** The certificate's witness point: the launch facts and H hold there, so the\n    \
             hypotheses of warp_lower_bound can all hold. *)\n\
             Definition witness : nat -> val := {w}.\n\n\
             Example witness_satisfies_hypotheses :\n  launch_ok G witness /\\ {}.\n\
             Proof.\n  split; [apply launch_ok_b_sound; vm_compute; reflexivity|].\n  \
             repeat split; vm_compute; congruence.\nQed.\n",
            if props.is_empty() { "True".to_string() } else { props.join(" /\\ ") }
        );
    }
    out.push_str(
        "Lemma lroot_ok : lcheck_root G warp hyps body tree bound = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n",
    );
    out.push_str(&lower_theorem_comment(assumptions));
    let mut binders = String::new();
    let mut names = String::new();
    for (i, h) in x.hyps.iter().enumerate() {
        let _ = writeln!(binders, "  (hypothesis_{} : {})", i + 1, h.prop);
        let _ = write!(names, " hypothesis_{}", i + 1);
    }
    let _ = write!(
        out,
        "Theorem warp_lower_bound : forall (F : fmodel) (ps : nat -> val) (arrays : nat -> Z -> val)\n  \
         (s' : store) (C : Q)\n  \
         (params_typed : pok G ps) (launch_facts : launch_ok G ps)\n\
         {binders}  \
         (terminates_no_runtime_error : seval G F ps (init_store G arrays) body (lanes G warp) s' C),\n  \
         (pval (rho_params ps) bound <= C)%Q.\n\
         Proof.\n  \
         intros F ps arrays s' C params_typed launch_facts{names} terminates_no_runtime_error.\n  \
         apply (lower_bound_sound G warp hyps body tree bound lroot_ok F ps arrays s' C\n    \
         params_typed launch_facts); [|exact terminates_no_runtime_error].\n  \
         intros c Hc; simpl in Hc; repeat destruct Hc as [<- | Hc]; try contradiction;\n    cbv [holds leval tsum fold_right lcst lterms fst snd rho_params In];\n    first [lia | (rewrite ?Z.add_0_l, ?Z.add_0_r, ?Z.mul_1_l; left; symmetry; assumption)].\n\
         Qed.\n\n\
         Print Assumptions warp_lower_bound.\n",
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_outside_the_covered_subset_are_refused_by_name() {
        assert_eq!(as_upper_rule("L:WHILE").ok(), Some("Q:WHILE1"));
        assert_eq!(as_upper_rule("L:WEAK").ok(), Some("Q:WEAK"));
        // a rule LowerCheck.v does not know, and an upper rule in a lower derivation
        for r in ["L:WHILEFLOOR", "Q:WHILE1"] {
            match as_upper_rule(r) {
                Err(e @ ExportError::UnsupportedRule(_)) => {
                    assert!(e.to_string().contains(r), "{e}")
                }
                other => panic!("{r}: {other:?}"),
            }
        }
    }

    /// L:HYP: a root pre with a parameter hypothesis `n ≥ 1` beyond the launch facts is
    /// accepted when the certificate's `(hyp …)` lists it, refused when it does not (the
    /// kernel rejects that certificate too: `root_ok` only guards an unchecked one).
    #[test]
    fn root_pre_is_the_launch_facts_and_the_hypotheses() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/lower/step32.sectors.lower.cert"
        );
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let read = |t: &str| {
            let sx = warpcert_kernel::sexp::parse_all(t).ok()?;
            warpcert_kernel::syntax::certificate(&sx).ok()
        };
        let Some(c) = read(&text) else {
            panic!("step32 does not parse")
        };
        assert!(root_ok(&c).is_ok());
        // the first pre is the root's: append `1 - n ≤ 0` to its P (the launch facts)
        let last = "(le (lin 0 (1 threadIdx.z))) ) (D";
        let with_n = text.replacen(
            last,
            "(le (lin 0 (1 threadIdx.z))) (le (lin 1 (-1 n))) ) (D",
            1,
        );
        assert_ne!(with_n, text);
        let Some(unlisted) = read(&with_n) else {
            panic!("mutant does not parse")
        };
        match root_ok(&unlisted) {
            Err(ExportError::Unsupported(m)) => assert!(m.contains("(rule L:HYP)"), "{m}"),
            other => panic!("{other:?}"),
        }
        let listed = with_n.replacen(
            "(lower 0)",
            "(lower 0 (hyp (le (lin 1 (-1 n)))) (witness (n 1)))",
            1,
        );
        let Some(h) = read(&listed) else {
            panic!("listed mutant does not parse")
        };
        assert_eq!(h.hypotheses.as_ref().map(|h| h.facts.len()), Some(1));
        assert!(root_ok(&h).is_ok());
    }
}
