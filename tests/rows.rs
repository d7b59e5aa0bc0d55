//! Q:GWRITEROWS / Q:VWRITEROWS (spec/logic.md §4 "Rows", §1 "Row multipliers"; issue 15):
//! the certificates the analysis makes for the precision kernels rows8 and rows16, their
//! kernel-checked bounds, and mutated certificates the kernel rejects with pinned messages.

use std::collections::BTreeMap;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;

/// The certificate of `tests/precision/FILE` under `block` for `metric` (default options).
fn certificate(file: &str, block: [u32; 3], metric: MetricName) -> String {
    let hw = Hardware::default();
    let path = warpcert::cli::precision::suite_dir().join(file);
    let src = frontend::parse_file(&path).unwrap();
    let launch = Launch { block, grid: None };
    let (prog, _) = frontend::lower(&src, None, &launch, &hw, &BTreeMap::new()).unwrap();
    let opts = AnalysisOptions::default();
    analyze(&prog, &Metric::standard(metric), &hw, &launch, &opts)
        .unwrap()
        .certificate
}

/// The kernel's verdict on `cert`: the bound, or the rejection's message.
fn check(cert: &str) -> Result<String, String> {
    warpcert_kernel::check(cert)
        .map(|v| v.bound)
        .map_err(|r| r.to_string())
}

/// `cert` with the first occurrence of `from` replaced by `to` (which must occur).
fn mutate(cert: &str, from: &str, to: &str) -> String {
    assert!(cert.contains(from), "no `{from}` in the certificate");
    cert.replacen(from, to, 1)
}

/// The charges the analysis proposes are the hand-derived ones (rows8.cu, rows16.cu: per
/// access 4 sectors when every row is aligned, one more sector per misaligned row), and
/// the kernel accepts them with the residue bound; `steps` adds the 14 (rows8) or 26
/// (rows16) non-access steps of the core program to the same charge.
#[test]
fn row_certificates_carry_the_hand_charges() {
    let c8 = certificate("rows8.cu", [8, 32, 1], MetricName::Sectors);
    assert!(c8.contains("(Q:VWRITEROWS (post 4) (n 4) (rows (2 8) (1 4) (1 2)) _)"));
    assert!(c8.contains("(Q:GWRITEROWS (post 1) (n 4) (rows (2 8) (1 4) (1 2)) _ _)"));
    assert!(c8.contains("(dep idx 1 (? W 1 0) 0 0 0)"));
    assert_eq!(check(&c8).unwrap(), "8 + 2*[2 ∤ W] + 2*[4 ∤ W] + 4*[8 ∤ W]");
    let c16 = certificate("rows16.cu", [16, 16, 1], MetricName::Sectors);
    assert!(c16.contains("(n 4) (rows (1 8) (1 4))"));
    assert_eq!(check(&c16).unwrap(), "8 + 2*[4 ∤ W] + 2*[8 ∤ W]");
    let s8 = certificate("rows8.cu", [8, 32, 1], MetricName::Steps);
    assert_eq!(
        check(&s8).unwrap(),
        "22 + 2*[2 ∤ W] + 2*[4 ∤ W] + 4*[8 ∤ W]"
    );
}

/// Mutants of rows8's sectors certificate, each rejected where the side condition fails
/// (values from the hand counts `f = 4, 8, 7, 8, 6, 8, 7, 8` for `W mod 8 = 0 … 7`):
/// a coefficient lowered (`(1 8)`: 7 at `W ≡ 1`, below 8 — the first residue that fails), a wrong modulus (`(2 3)`:
/// 6 at `W ≡ 3 (mod 24)`, below 8), `N₀` lowered (3 at `W ≡ 0`, below 4), a negative
/// coefficient, and a row multiplier the assignment does not give (`2·W`).
#[test]
fn mutated_row_charges_are_rejected() {
    let c8 = certificate("rows8.cu", [8, 32, 1], MetricName::Sectors);
    let rows = "(n 4) (rows (2 8) (1 4) (1 2))";
    let cases = [
        (
            mutate(&c8, rows, "(n 4) (rows (1 8) (1 4) (1 2))"),
            "the row charge is 7 at X ≡ 1 (mod 8), below the 8 sectors or bank accesses of the warp's rows",
        ),
        (
            mutate(&c8, rows, "(n 4) (rows (2 3) (1 4) (1 2))"),
            "the row charge is 6 at X ≡ 3 (mod 24), below the 8 sectors or bank accesses of the warp's rows",
        ),
        (
            mutate(&c8, rows, "(n 3) (rows (2 8) (1 4) (1 2))"),
            "the row charge is 3 at X ≡ 0 (mod 8), below the 4 sectors or bank accesses of the warp's rows",
        ),
        (
            mutate(&c8, rows, "(n 4) (rows (-2 8) (1 4) (1 2))"),
            "bad row charge: a coefficient C < 0",
        ),
        (
            mutate(&c8, "(dep t0 0 (? W 1 0) 0 0 0)", "(dep t0 0 (? W 2 0) 0 0 0)"),
            "(? W 2 0)",
        ),
    ];
    for (m, want) in cases {
        let got = check(&m).expect_err("mutant accepted");
        assert!(got.contains(want), "want `{want}`, got `{got}`");
    }
}
