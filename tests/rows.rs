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

/// The value of a row bound `N + C*[M ∤ W] + …` (the printed form) at `W`.
fn eval_rows_bound(b: &str, w: i64) -> i64 {
    b.split(" + ")
        .map(|t| {
            let (c, atom) = match t.split_once('*') {
                Some((c, a)) => (c.parse::<i64>().unwrap(), Some(a)),
                None if t.starts_with('[') => (1, Some(t)),
                None => (t.parse::<i64>().unwrap(), None),
            };
            match atom {
                None => c,
                Some(a) => {
                    let m: i64 = a
                        .trim_start_matches('[')
                        .split(' ')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap();
                    if w % m != 0 {
                        c
                    } else {
                        0
                    }
                }
            }
        })
        .sum()
}

/// Soundness against the lock-step semantics (`warpcert run`: the largest per-warp
/// `sectors` cost) of the row charges on variants the hand derivations of rows8/rows16 do
/// not cover: a constant offset, 8-byte and 2-byte elements (`P = 4`, `16`; with 2-byte
/// elements the divisor-class fit is sound but not exact), narrow rows (4×64 blocks), a
/// multiplier `2·W` and a negative `threadIdx.x` coefficient; each bound the kernel accepted
/// is at least the simulated maximum at every row length tried, every residue class of
/// `W mod 16` among them.
#[test]
fn row_charges_are_sound_on_variants() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("warpcert-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = |ty: &str, idx: &str, one: &str| {
        format!(
            "__global__ void k({ty} *out, const {ty} *in, int W) {{\n  int r = threadIdx.y * 2;\n  int i = {idx};\n  out[i] = in[i] + {one};\n}}\n"
        )
    };
    let cases = [
        (
            "off",
            body("float", "threadIdx.y * W + threadIdx.x + 3", "1.0f"),
            "4,64",
        ),
        (
            "dbl",
            body("double", "threadIdx.y * W + threadIdx.x", "1.0"),
            "8,32",
        ),
        (
            "dbl4",
            body("double", "threadIdx.y * W + threadIdx.x", "1.0"),
            "4,64",
        ),
        (
            "sh",
            body("short", "W * threadIdx.y + threadIdx.x", "1"),
            "8,32",
        ),
        (
            "sh16",
            body("short", "W * threadIdx.y + threadIdx.x", "1"),
            "16,16",
        ),
        (
            "two",
            body("float", "r * W - threadIdx.x + 40", "1.0f"),
            "4,64",
        ),
    ];
    let exe = env!("CARGO_BIN_EXE_warpcert");
    for (name, src, block) in cases {
        let file = dir.join(format!("{name}.cu"));
        std::fs::write(&file, src).unwrap();
        let out = Command::new(exe)
            .args([
                "analyze",
                file.to_str().unwrap(),
                "--metric",
                "sectors",
                "--block",
                block,
                "--grid",
                "1",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            text.contains("certificate: accepted by the kernel"),
            "{name}: {text}"
        );
        let bound = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("per warp  ≤ "))
            .unwrap_or_else(|| panic!("{name}: {text}"))
            .trim()
            .to_string();
        for w in (64..80).chain([1000, 1001, 1002, 1004]) {
            let out = Command::new(exe)
                .args([
                    "run",
                    file.to_str().unwrap(),
                    "--metric",
                    "sectors",
                    "--block",
                    block,
                    "--grid",
                    "1",
                ])
                .args(["--param", &format!("W={w}")])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let truth: i64 = text
                .split("max per warp")
                .nth(1)
                .and_then(|s| s.split_whitespace().next())
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{name} W={w}: {text}"));
            let b = eval_rows_bound(&bound, w);
            assert!(
                b >= truth,
                "{name} ({block}) at W = {w}: bound {bound} = {b} < simulated {truth}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
