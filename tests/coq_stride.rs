//! The counting lemma of L:GARRAYSTRIDE / L:GWRITESTRIDE in Coq (spec/logic.md §4b
//! "Strided accesses"; coq-export/theories/Stride.v): addSub1's lower certificate claims
//! `(n 32)` for warp 0 of its 1024-thread block under the hypothesis `w ≥ 4`; Coq
//! computes the warp's distinct `threadIdx.x` (32) and proves, with `Stride.stride_claim_le`,
//! the closed theorem `32 ≤ MemReads` for indices `2w·tid_x + c` whenever `w ≥ 4`. Mutants
//! are refused: a claim of 33, and the weaker hypothesis `w ≥ 3` (24-byte steps). Skips
//! the `coqc` part, saying so, when `coqc` is not installed.
//!
//! The whole certificates too (issue 14, "exact means proved both ways"): the upper and the
//! lower certificate of addSub1's exact `sectors` and `steps` answers export
//! (`export-coq`; the strided nodes as LowerCheck.v's `DVwrite2S` / `DWriteS`) to files
//! `coqc` accepts, and mutants of the lower `sectors` export (a claim above the warp's 32
//! distinct `threadIdx.x`, a stride witness that does not entail `8 − 2w ≤ 0`) are refused
//! at the reflective check.

mod common;

use common::answer::{exact_answer, loaded};
use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
use common::{load_for, racuda_corpus};
use warpcert::analysis::AnalysisOptions;
use warpcert::core::metric::MetricName;
use warpcert::core::Launch;
use warpcert::export::coq::export;

/// The Coq file: warp 0 of a `1024 × 1` block, claim `n`, hypothesis `lo ≤ w`.
fn coq_file(n: &str, lo: &str) -> String {
    format!(
        "From Coq Require Import ZArith List Bool Lia.\n\
         From WarpCert Require Import Metric Syntax Semantics Stride.\n\
         Import ListNotations.\nOpen Scope Z_scope.\n\n\
         Definition G : ctx := {{| c_metric := sectors; c_warp := 32%nat; c_banks := 32;\n  \
         c_bank_bytes := 4; c_sector_bytes := 32; c_bx := 1024%nat; c_by := 1%nat; c_bz := 1%nat;\n  \
         c_lty := fun _ => None; c_pty := fun _ => None; c_arr := fun _ => None;\n  \
         c_blockidx := []; c_griddim := []; c_bgrid := []; c_wu := [] |}}.\n\n\
         Definition ok (n lo : Z) : bool :=\n  \
         (n <=? Z.of_nat (length (nodup Z.eq_dec (map (tid G 0) (lanes G 0)))))%Z &&\n  \
         (0 <=? lo)%Z && (c_sector_bytes G <=? 2 * lo * 4)%Z.\n\n\
         Lemma claim_ok : ok {n} {lo} = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Theorem stride_bound : forall (w c : Z) (R : fam), {lo} <= w ->\n  \
         (forall t, In t (lanes G 0) -> int_of (R t) = (2 * w) * tid G 0 t + c) ->\n  \
         {n} <= memreads G 4 (lanes G 0) R.\n\
         Proof.\n  \
         intros w c R Hw HR. pose proof claim_ok as H. unfold ok in H.\n  \
         apply andb_prop in H as [H H3]. apply andb_prop in H as [H1 H2].\n  \
         apply Z.leb_le in H1. apply Z.leb_le in H2. apply Z.leb_le in H3.\n  \
         change (c_sector_bytes G) with 32 in H3.\n  \
         apply (stride_claim_le G 4 (lanes G 0) R (tid G 0) (2 * w) c {n}).\n  \
         - change (c_sector_bytes G) with 32. lia.\n  - lia.\n  \
         - change (c_sector_bytes G) with 32. lia.\n  - exact HR.\n  - exact H1.\n\
         Qed.\n\n\
         Print Assumptions stride_bound.\n"
    )
}

#[test]
fn addsub1_stride_claim_checks_in_coq_and_mutants_fail() {
    let Some(dir) = racuda_corpus("coq_stride addSub1") else {
        return;
    };
    let launch = Launch {
        block: [1024, 1, 1],
        grid: None,
    };
    let prog = load_for(&dir.join("addSub1.cu"), &launch);
    let l = loaded(prog, launch, MetricName::Sectors);
    let (rel, _, _, lower) = exact_answer(
        &l,
        MetricName::Sectors,
        &AnalysisOptions::default(),
        "coq-stride",
    );
    assert_eq!(rel, "exact");
    // the figures the Coq file states: the claim and `4 − w ≤ 0`, i.e. `w ≥ 4`
    assert!(lower.contains("(L:GARRAYSTRIDE (n 32)"), "{lower}");
    assert!(lower.contains("(hyp (le (lin 4 (-1 w))))"), "{lower}");
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq stride check is not run");
        return;
    }
    accepted_and_mutants_refuted(
        "stride",
        &[("stride_ok", coq_file("32", "4"))],
        &[
            ("stride_n33", coq_file("33", "4")),
            ("stride_w3", coq_file("32", "3")),
        ],
    );
}

/// addSub1 (block 1024, warp 0; RaCUDA's parameter file): both certificates of the exact
/// `sectors` (`130·max(0, w)`) and `steps` (`6 + 190·max(0, w)`) answers export and check
/// in Coq; the lower `sectors` export's mutants are refused, each for a reason by hand:
/// - the read's claim 33 (`DVwrite2S … 33%Z`) and the write's claim 33 (`DWriteS … 33%Z`):
///   warp 0's lanes are threads 0…31 of the block, so `threadIdx.x` has 32 distinct values
///   and `stride_W = 32` (a raised claim only raises the charge, so the potential
///   comparison still holds: only the count refuses it);
/// - the write's stride witness `1·(4 − w ≤ 0)` instead of `2·(4 − w ≤ 0)`: the target is
///   `S − s·u = ⌈32/4⌉ − 2w = 8 − 2w ≤ 0`, and `8 − 2w − (4 − w) = 4 − w` is not a
///   constant, so the Farkas check fails; the same for the read's witness.
#[test]
fn addsub1_both_exports_check_in_coq_and_stride_mutants_fail() {
    let Some(dir) = racuda_corpus("coq_stride addSub1 exports") else {
        return;
    };
    let launch = Launch {
        block: [1024, 1, 1],
        grid: None,
    };
    let prog = load_for(&dir.join("addSub1.cu"), &launch);
    let mut accepted: Vec<(String, String)> = Vec::new();
    let mut lower_sectors = String::new();
    for (metric, bound) in [
        (MetricName::Sectors, "130*max(0, w)"),
        (MetricName::Steps, "6 + 190*max(0, w)"),
    ] {
        let l = loaded(prog.clone(), launch, metric);
        let (rel, per_warp, upper, lower) = exact_answer(
            &l,
            metric,
            &AnalysisOptions::default(),
            &format!("coq-stride-export-{metric}"),
        );
        assert_eq!(
            (rel.as_str(), per_warp.as_str()),
            ("exact", bound),
            "{metric}"
        );
        let u = export(&upper).unwrap_or_else(|e| panic!("{metric} upper: {e}"));
        let lo = export(&lower).unwrap_or_else(|e| panic!("{metric} lower: {e}"));
        // two strided reads and two strided writes (the two statements of the loop body)
        assert_eq!(lo.matches("(DVwrite2S ").count(), 2, "{metric}: {lo}");
        assert_eq!(lo.matches("(DWriteS ").count(), 2, "{metric}: {lo}");
        if metric == MetricName::Sectors {
            lower_sectors = lo.clone();
        }
        accepted.push((format!("addsub1_{metric}_upper"), u));
        accepted.push((format!("addsub1_{metric}_lower"), lo));
    }
    let e = &lower_sectors;
    let claim = " 32%Z [(1%Z, [(7, 2%Z)])]";
    let mutants = vec![
        (
            "addsub1_read_claim_33",
            mutate_after(e, "(DVwrite2S ", claim, " 33%Z [(1%Z, [(7, 2%Z)])]"),
        ),
        (
            "addsub1_write_claim_33",
            mutate_after(e, "(DWriteS ", " 32%Z 0%Z ", " 33%Z 0%Z "),
        ),
        (
            "addsub1_write_witness_weak",
            mutate_after(e, "(DWriteS ", "[(1%Z, [(7, 2%Z)])]", "[(1%Z, [(7, 1%Z)])]"),
        ),
        (
            "addsub1_read_witness_weak",
            mutate_after(e, "(DVwrite2S ", claim, " 32%Z [(1%Z, [(7, 1%Z)])]"),
        ),
    ];
    for (n, m) in &mutants {
        assert_ne!(m, e, "{n}: nothing changed");
    }
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq exports are not checked");
        return;
    }
    let acc: Vec<(&str, &str)> = accepted
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let muts: Vec<(&str, &str)> = mutants.iter().map(|(n, t)| (*n, t.as_str())).collect();
    accepted_and_mutants_refuted("stride-exports", &acc, &muts);
}
