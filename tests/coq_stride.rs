//! The counting lemma of L:GARRAYSTRIDE / L:GWRITESTRIDE in Coq (spec/logic.md §4b
//! "Strided accesses"; coq-export/theories/Stride.v): addSub1's lower certificate claims
//! `(n 32)` for warp 0 of its 1024-thread block under the hypothesis `w ≥ 4`; Coq
//! computes the warp's distinct `threadIdx.x` (32) and proves, with `Stride.stride_claim_le`,
//! the closed theorem `32 ≤ MemReads` for indices `2w·tid_x + c` whenever `w ≥ 4`. Mutants
//! are refused: a claim of 33, and the weaker hypothesis `w ≥ 3` (24-byte steps). Skips
//! the `coqc` part, saying so, when `coqc` is not installed.
//!
//! Not an export of the whole certificate: the rules' constructors and the row multiplier
//! on `DScl` entries are not formalized (spec/logic.md §6), so `export-coq` refuses these
//! certificates by name.

mod common;

use common::answer::{exact_answer, loaded};
use common::coq::{accepted_and_mutants_refuted, coqc_available};
use common::{load_for, racuda_corpus};
use warpcert::analysis::AnalysisOptions;
use warpcert::core::metric::MetricName;
use warpcert::core::Launch;

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
