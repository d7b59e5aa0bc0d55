//! Issue 14 item 4 in `warpcert bench`: the table's last column is the relation of each
//! certified bound (`exact` when the upper and a lower-bound certificate with the same bound
//! both passed the kernel, else `upper`, as `warpcert analyze` reports it), columns 1–10
//! keep their order, and the line `exact cells: X of Y` (JSON: `exact_cells`, `cells`)
//! counts the `exact` cells. Run on vectorAdd alone (`--only`), whose relations are derived
//! by hand below.
//!
//! Corpus tests skip, saying so, when `../shared` is absent.

mod common;

use common::*;
use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .current_dir(root())
        .args(["bench", "--no-sim", "--runs", "1"])
        .args(args)
        .output()
        .expect("warpcert runs")
}

/// The cells of the table row of `kernel` and `metric` (text format).
fn row<'a>(table: &'a str, kernel: &str, metric: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .collect::<Vec<_>>()
        })
        .find(|c| c.len() > 1 && c[0] == kernel && c[1] == metric)
        .unwrap_or_else(|| panic!("no row {kernel} {metric} in\n{table}"))
}

/// vectorAdd (`i = blockDim.x*blockIdx.x + threadIdx.x; if (i < numElements) C[i] = A[i] +
/// B[i];`, block 256), by hand:
///
/// * `sectors` = 12, exact: a warp's lanes have 32 consecutive `i`, starting at a multiple
///   of 32, so each of the three accesses (`A[i]`, `B[i]`, `C[i]`) touches 32 consecutive
///   4-byte floats = 128 bytes from a multiple of 128 bytes (arrays aligned): 4 sectors of
///   32 bytes; 3·4 = 12 when all lanes pass `i < numElements` (`numElements ≥ 256·(b+1)`),
///   at most 12 otherwise. So 12 is the worst warp's cost: an upper and a lower bound.
/// * `conflicts` = 0, exact: there is no `__shared__` array, every access costs 0 conflicts,
///   so 0 is attained by every warp.
///
/// The column is the last one (11th), after `check ms`; the summary counts the two
/// `exact` cells out of vectorAdd's four metrics (`divwarps`, `steps`: whatever the
/// relation, it is `exact` or `upper`, and counted as such).
#[test]
fn bench_table_ends_with_the_relation_and_counts_exact_cells() {
    if racuda_corpus("bench_table_ends_with_the_relation_and_counts_exact_cells").is_none() {
        return;
    }
    let out = bench(&["--only", "vectorAdd"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let header = text.lines().next().unwrap_or("");
    assert_eq!(
        header,
        "| kernel | metric | warpcert bound (per warp) | RaCUDA bound | vs RaCUDA | Pico bound \
         | vs Pico | bound / max simulated | analysis ms | check ms | relation |"
    );
    let sectors = row(&text, "vectorAdd", "sectors");
    assert_eq!(sectors.len(), 11, "{sectors:?}");
    assert_eq!((sectors[2], sectors[10]), ("12", "exact"), "{sectors:?}");
    let conflicts = row(&text, "vectorAdd", "conflicts");
    assert_eq!(
        (conflicts[2], conflicts[10]),
        ("0", "exact"),
        "{conflicts:?}"
    );
    let mut exact = 0;
    for m in ["sectors", "conflicts", "divwarps", "steps"] {
        let r = row(&text, "vectorAdd", m);
        assert!(matches!(r[10], "exact" | "upper"), "{m}: {r:?}");
        exact += usize::from(r[10] == "exact");
    }
    assert!(exact >= 2);
    let summary = format!("exact cells: {exact} of 4");
    assert_eq!(text.lines().last(), Some(summary.as_str()), "{text}");

    // JSON: the same relation under the key `relation`, the count beside `rows`
    let out = bench(&["--only", "vectorAdd", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let rows = v["rows"].as_array().expect("rows");
    let rel = |m: &str| {
        rows.iter()
            .find(|r| r["kernel"] == "vectorAdd" && r["metric"] == m)
            .map(|r| (r["bound"].clone(), r["relation"].clone()))
    };
    assert_eq!(rel("sectors"), Some(("12".into(), "exact".into())));
    assert_eq!(rel("conflicts"), Some(("0".into(), "exact".into())));
    assert_eq!(v["exact_cells"], exact);
    assert_eq!(v["cells"], 4);
}

/// `--only` with a name that is no benchmark kernel is a usage error naming it (exit 2),
/// before any table is printed.
#[test]
fn bench_only_rejects_an_unknown_kernel() {
    if racuda_corpus("bench_only_rejects_an_unknown_kernel").is_none() {
        return;
    }
    let out = bench(&["--only", "vectorAdd,vectorSub"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--only: no benchmark kernel named vectorSub (known: addSub0, "),
        "{err}"
    );
}

/// `bench --coq` (issue 14 item 5): every `exact` row's two certificates are exported
/// (`export-coq`) and checked with `coqc`, and the relation column says how. vectorAdd's
/// `sectors` (12) and `conflicts` (0) are exact by the hand derivation above, and both
/// exports of each are accepted (as tests/coq_lower_rows.rs checks for every exact row), so
/// their relation reads `exact, coqc upper ok / lower ok`; `divwarps` and `steps` read that
/// too when exact, else `upper` with no coqc part. The summary still counts the exact cells.
/// Skips, saying so, without the corpus or `coqc`.
#[test]
fn bench_coq_checks_both_certificates_of_each_exact_row() {
    if racuda_corpus("bench_coq_checks_both_certificates_of_each_exact_row").is_none() {
        return;
    }
    if !coq::coqc_available() {
        eprintln!(
            "SKIPPED: coqc is not installed (apt-get install -y coq); bench --coq is not run"
        );
        return;
    }
    coq::build_theories().unwrap_or_else(|e| panic!("{e}"));
    let out = bench(&["--only", "vectorAdd", "--coq"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let passed = "exact, coqc upper ok / lower ok";
    assert_eq!(row(&text, "vectorAdd", "sectors")[10], passed, "{text}");
    assert_eq!(row(&text, "vectorAdd", "conflicts")[10], passed, "{text}");
    let mut exact = 0;
    for m in ["sectors", "conflicts", "divwarps", "steps"] {
        let r = row(&text, "vectorAdd", m);
        assert!(r[10] == "upper" || r[10] == passed, "{m}: {r:?}");
        exact += usize::from(r[10] == passed);
    }
    let summary = format!("exact cells: {exact} of 4");
    assert_eq!(text.lines().last(), Some(summary.as_str()), "{text}");
}
