//! The row charges of Q:GWRITEROWS / Q:VWRITEROWS in Coq (spec/logic.md §4 "Rows", issue
//! 15; coq-export/theories/Logic.v, Soundness.v): the charges `(n N₀) (rows (C M)…)` the analysis puts in
//! the sectors certificates of the precision kernels rows8 (8×32 block) and rows16 (16×16)
//! pass Coq's side condition `Logic.rows_ok_w` (the row table `f(ρ)` computed by enumeration,
//! as the kernel's `access::row_table`), and the bound `MemReads ≤ N₀ + Σ C·[M ∤ U]` of
//! `Soundness.rows_sound` is then a closed theorem for those figures; mutated charges are refused
//! by the reflective check. Skips the `coqc` part, saying so, when `coqc` is not installed.
//!
//! This checks the charges' side condition and its soundness lemma alone; the whole
//! certificates (row multipliers, `Q_GWRITEROWS` / `Q_VWRITEROWS`) are exported and checked
//! by tests/coq_export.rs `row_rules_check_in_coq_and_mutants_fail`.

mod common;

use common::coq::{accepted_and_mutants_refuted, coqc_available};
use std::collections::BTreeMap;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;

/// The sectors certificate of `tests/precision/FILE` under `block` (default options).
fn certificate(file: &str, block: [u32; 3]) -> String {
    let hw = Hardware::default();
    let path = warpcert::cli::precision::suite_dir().join(file);
    let src = frontend::parse_file(&path).unwrap();
    let launch = Launch { block, grid: None };
    let (prog, _) = frontend::lower(&src, None, &launch, &hw, &BTreeMap::new()).unwrap();
    analyze(
        &prog,
        &Metric::standard(MetricName::Sectors),
        &hw,
        &launch,
        &AnalysisOptions::default(),
    )
    .unwrap()
    .certificate
}

/// The `(n N₀) (rows (C M)…)` fields of every row node of `cert`, as written.
fn row_fields(cert: &str) -> Vec<String> {
    let mut out = Vec::new();
    for rule in ["(Q:GWRITEROWS ", "(Q:VWRITEROWS "] {
        for (at, _) in cert.match_indices(rule) {
            let tail = &cert[at..];
            let n = tail.find("(n ").expect("a row node has (n N₀)");
            let rows = tail.find("(rows ").expect("a row node has (rows …)");
            // the `rows` field ends at the first `))` after it (its last pair and itself)
            let end = rows + tail[rows..].find("))").expect("(rows …) is closed") + 2;
            out.push(tail[n..end].to_string());
        }
    }
    out
}

/// `(n N₀) (rows (C M)…)` as Coq's `N₀` and `[(C, M); …]`.
fn coq_charge(fields: &str) -> (String, String) {
    let n0 = fields["(n ".len()..fields.find(')').unwrap()]
        .trim()
        .to_string();
    let rows = &fields[fields.find("(rows ").unwrap() + "(rows ".len()..fields.len() - 1];
    let pairs: Vec<String> = rows
        .split(')')
        .filter_map(|p| {
            let p = p.trim().strip_prefix('(')?;
            let mut it = p.split_whitespace();
            Some(format!("({}, {})", it.next()?, it.next()?))
        })
        .collect();
    (n0, format!("[{}]", pairs.join("; ")))
}

/// The Coq file checking the charge `N₀`, `rows` for `float` accesses (4 bytes) at index
/// `threadIdx.x + W·threadIdx.y` (the index local's entry `(dep _ 1 (? W 1 0) 0 0 0)`: `k = (1, ?, 0)`,
/// `r = g = 0`, the `?` dimension y) in a block `bx × by` of the default hardware (warp 32,
/// 32-byte sectors), with the closed bound theorem.
fn coq_file(bx: u32, by: u32, n0: &str, rows: &str) -> String {
    format!(
        "From Coq Require Import ZArith List Lia.\n\
         From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Rows.\n\
         Import ListNotations.\nOpen Scope Z_scope.\n\n\
         Definition G : ctx := {{| c_metric := sectors; c_warp := 32%nat; c_banks := 32;\n  \
         c_bank_bytes := 4; c_sector_bytes := 32; c_bx := {bx}%nat; c_by := {by}%nat; c_bz := 1%nat;\n  \
         c_lty := fun _ => None; c_pty := fun _ => None; c_arr := fun _ => None;\n  \
         c_blockidx := []; c_griddim := []; c_bgrid := []; c_wu := [] |}}.\n\n\
         Definition rows : list (Z * Z) := {rows}.\n\n\
         Lemma rows_ok : rows_ok_w G (wtids G) [] (false, true, false) (1, 0, 0) 0 0 4 {n0} rows = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Theorem row_bound : forall (ps : nat -> val) (s : store) (U : Z) (T : list nat) (w : nat) (R : fam),\n  \
         (forall t, In t T -> int_of (R t) = kval G (1, 0, 0) t + U * ysel (false, true, false) (lane_t G t) + 0) ->\n  \
         T <> [] -> incl T (lanes G w) ->\n  \
         memreads G 4 T R <= rcharge {n0} rows U.\n\
         Proof.\n  \
         intros ps s U T w R Hidx Hne Hi.\n  \
         refine (proj1 (rows_sound G ps s [] (false, true, false) (1, 0, 0) U 0 0 0 4 {n0} rows T w R\n    \
         rows_ok _ Hidx (Z.divide_refl 0) _ Hne Hi)).\n  \
         - cbn. lia.\n  \
         - intros t _ c Hc. destruct Hc.\n\
         Qed.\n\n\
         Print Assumptions row_bound.\n"
    )
}

/// rows8 and rows16: every row node's charge is accepted by Coq with a closed theorem;
/// mutants refused by `rows_ok_w` (hand counts, tests/precision/rows8.cu and rows16.cu:
/// rows8 `f = 4, 8, 7, 8, 6, 8, 7, 8` for `W mod 8 = 0 … 7`, rows16 `f = 4, 6, 6, 6, 5, 6,
/// 6, 6`):
/// - rows8 `(2 8)` → `(1 8)`: 7 at `W ≡ 1 (mod 8)`, below 8;
/// - rows8 `(2 8)` → `(2 3)`: 6 at `W ≡ 3 (mod 24)`, below 8;
/// - rows8 `N₀ = 3`: 3 at `W ≡ 0`, below 4;
/// - rows16 `(1 4)` → `(0 4)`: 5 at `W ≡ 2 (mod 8)`, below 6.
#[test]
fn row_charges_check_in_coq_and_mutants_fail() {
    let c8 = certificate("rows8.cu", [8, 32, 1]);
    let c16 = certificate("rows16.cu", [16, 16, 1]);
    for c in [&c8, &c16] {
        assert!(
            c.contains(" 1 (? W 1 0) 0 0 0)"),
            "the index entry the Coq file assumes:\n{c}"
        );
    }
    let f8 = row_fields(&c8);
    let f16 = row_fields(&c16);
    // two accesses per kernel (the read of `in`, the write of `out`), one charge each
    assert_eq!(f8.len(), 2, "{f8:?}");
    assert_eq!(f16.len(), 2, "{f16:?}");
    let mut accepted = Vec::new();
    for (i, f) in f8.iter().enumerate() {
        let (n0, rows) = coq_charge(f);
        accepted.push((format!("rows8_{i}"), coq_file(8, 32, &n0, &rows)));
    }
    for (i, f) in f16.iter().enumerate() {
        let (n0, rows) = coq_charge(f);
        accepted.push((format!("rows16_{i}"), coq_file(16, 16, &n0, &rows)));
    }
    let (n8, r8) = coq_charge(&f8[0]);
    assert_eq!(
        (n8.as_str(), r8.as_str()),
        ("4", "[(2, 8); (1, 4); (1, 2)]")
    );
    let (n16, r16) = coq_charge(&f16[0]);
    assert_eq!((n16.as_str(), r16.as_str()), ("4", "[(1, 8); (1, 4)]"));
    let muts = [
        (
            "rows8_c18",
            coq_file(8, 32, "4", "[(1, 8); (1, 4); (1, 2)]"),
        ),
        ("rows8_m3", coq_file(8, 32, "4", "[(2, 3); (1, 4); (1, 2)]")),
        ("rows8_n3", coq_file(8, 32, "3", "[(2, 8); (1, 4); (1, 2)]")),
        ("rows16_c04", coq_file(16, 16, "4", "[(1, 8); (0, 4)]")),
    ];
    if !coqc_available() {
        eprintln!(
            "SKIPPED: coqc is not installed (apt-get install -y coq); the Coq row check is not run"
        );
        return;
    }
    let acc: Vec<(&str, String)> = accepted
        .iter()
        .map(|(n, t)| (n.as_str(), t.clone()))
        .collect();
    let mu: Vec<(&str, String)> = muts.iter().map(|(n, t)| (*n, t.clone())).collect();
    accepted_and_mutants_refuted("rows", &acc, &mu);
}
