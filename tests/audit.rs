//! `warpcert audit`: per-access findings with certified counts (issue 16 item 1) and SARIF
//! 2.1.0 output (item 4), run through the binary.
//!
//! Expected values are hand derivations, written next to each assertion: 4-byte elements,
//! 32-byte sectors, 32 banks of 4 bytes, 32 lanes per warp (the CLI's defaults). The counts
//! the test reads are the ones the tool labels `certified` (from a certificate the kernel
//! accepted); the test also checks that label.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Runs `warpcert audit ARGS…` and returns stdout; panics with stderr when it fails.
fn audit(args: &[&str]) -> String {
    common::warpcert_stdout(&[&["audit"], args].concat())
}

/// The audit of the only kernel of `file` under `--format json`.
fn kernel_audit(file: &Path, block: &str) -> Value {
    let out = audit(&[
        file.to_str().expect("UTF-8 path"),
        "--block",
        block,
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&out).expect("JSON document");
    let kernels = doc["kernels"].as_array().expect("kernels array");
    assert_eq!(kernels.len(), 1, "one kernel in {}", file.display());
    assert!(
        kernels[0]["error"].is_null(),
        "error: {}",
        kernels[0]["error"]
    );
    kernels[0]["audit"].clone()
}

/// The finding at `line:column` (1-based) of kind `kind` (`read`, `write`, `branch`, `loop`).
fn finding<'a>(a: &'a Value, line: u64, column: u64, kind: &str) -> &'a Value {
    a["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["line"] == line && f["column"] == column && f["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} finding at {line}:{column} in {a:#}"))
}

/// Asserts a certified finding: rule, per-execution count, hardware minimum and excess.
fn assert_finding(f: &Value, rule: &str, per_execution: u64, minimum: u64, excess: u64) {
    let at = format!("{}:{} `{}`", f["line"], f["column"], f["expr"]);
    assert_eq!(f["rule"], rule, "rule of {at}");
    assert_eq!(
        f["certified"], true,
        "{at} is certified: {}",
        f["certificate"]
    );
    assert_eq!(f["per_execution"], per_execution, "per execution of {at}");
    assert_eq!(f["minimum"], minimum, "minimum of {at}");
    assert_eq!(f["excess"], excess, "excess of {at}");
    let level = if matches!(rule, "uncoalesced" | "bank-conflict" | "divergent-branch") {
        "warning"
    } else {
        "note"
    };
    assert_eq!(f["level"], level, "level of {at}");
}

/// The kernel's certified whole-body bound of `metric`.
fn metric_bound(a: &Value, metric: &str) -> String {
    let m = a["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .find(|m| m["metric"] == metric)
        .unwrap_or_else(|| panic!("no metric {metric}"));
    assert!(
        m["verdict"]
            .as_str()
            .is_some_and(|v| v.starts_with("accepted by the kernel")),
        "{metric}: {}",
        m["verdict"]
    );
    m["bound"].as_str().expect("bound").to_string()
}

fn strides() -> std::path::PathBuf {
    common::root().join("tests/data/audit/strides.cu")
}

/// `tests/data/audit/strides.cu` under one warp (block 32): every access and branch,
/// hand-derived (see the comments per line).
#[test]
fn strides_findings_equal_hand_derivations() {
    let a = kernel_audit(&strides(), "32");
    // a[32*t]: lane t reads bytes 128t..128t+3, one 32-byte sector each → 32 sectors; the
    // minimum for 32 floats is ⌈32·4/32⌉ = 4 → uncoalesced by 28 (GPUDrano: stride 32 ≠ 0, 1)
    assert_finding(finding(&a, 7, 15, "read"), "uncoalesced", 32, 4, 28);
    // b[t]: bytes 0..127 → sectors 0..3 → 4, the minimum
    assert_finding(finding(&a, 8, 15, "read"), "coalesced", 4, 4, 0);
    // s[32*t]: word 32t is in bank 0 for every lane → 32 serialized accesses
    assert_finding(finding(&a, 9, 5, "write"), "bank-conflict", 32, 1, 31);
    // s[t]: banks 0..31, one lane each → 1
    assert_finding(finding(&a, 10, 5, "write"), "conflict-free", 1, 1, 0);
    // d[t + 32*i]: bytes 128i..128i+127 → 4 sectors per execution; the loop runs n times
    let d = finding(&a, 13, 16, "read");
    assert_finding(d, "coalesced", 4, 4, 0);
    assert_eq!(d["executions"], "max(0, n)", "the loop runs n times");
    assert_eq!(
        d["total"], "4*max(0, n)",
        "4 sectors in each of n iterations"
    );
    assert_eq!(
        d["loops"],
        serde_json::json!([12]),
        "inside the loop of line 12"
    );
    // if (t < n): lanes t < n and t ≥ n differ for 1 ≤ n ≤ 31 → one divergence
    assert_finding(finding(&a, 15, 5, "branch"), "divergent-branch", 1, 0, 1);
    // for (i < n): i and n are warp-uniform → no divergence
    assert_finding(finding(&a, 12, 5, "loop"), "uniform-branch", 0, 0, 0);
    // c[t] (4 sectors) and s[t] (conflict-free) in the branch
    assert_finding(finding(&a, 16, 9, "write"), "coalesced", 4, 4, 0);
    assert_finding(finding(&a, 16, 16, "read"), "conflict-free", 1, 1, 0);
    assert_eq!(a["findings"].as_array().map(Vec::len), Some(9), "9 sites");
    // whole kernel: 32 + 4 + 4n + 4 sectors, 31 conflicts (s[32*t]), 1 divergence
    assert_eq!(metric_bound(&a, "sectors"), "40 + 4*max(0, n)");
    assert_eq!(metric_bound(&a, "conflicts"), "31");
    assert_eq!(metric_bound(&a, "divwarps"), "1");
}

/// Shares at the default point n = 1024 and the order of the findings.
#[test]
fn strides_findings_are_sorted_by_share() {
    let a = kernel_audit(&strides(), "32");
    let fs = a["findings"].as_array().expect("findings");
    let shares: Vec<f64> = fs
        .iter()
        .map(|f| {
            f["share"]
                .as_f64()
                .expect("a share for every certified site")
        })
        .collect();
    assert!(
        shares.windows(2).all(|w| w[0] >= w[1]),
        "decreasing shares: {shares:?}"
    );
    assert!(shares.iter().all(|s| (0.0..=1.0).contains(s)), "{shares:?}");
    // sectors at n = 1024: d 4·1024 = 4096 of 40 + 4096 = 4136; a[32t] 32 of 4136
    let share = |l, c| finding(&a, l, c, "read")["share"].as_f64().unwrap_or(-1.0);
    assert!((share(13, 16) - 4096.0 / 4136.0).abs() < 1e-9);
    assert!((share(7, 15) - 32.0 / 4136.0).abs() < 1e-9);
    // the only conflicts and the only divergence: share 1
    assert_eq!(finding(&a, 9, 5, "write")["share"], 1.0);
    assert_eq!(finding(&a, 15, 5, "branch")["share"], 1.0);
    assert_eq!(finding(&a, 10, 5, "write")["share"], 0.0);
}

/// Text output: compiler-style `file:line:column: level[rule]` with the certified count.
#[test]
fn text_output_is_compiler_style() {
    let f = strides();
    let out = audit(&[f.to_str().expect("UTF-8 path"), "--block", "32"]);
    let want = format!(
        "{}:7:15: warning[uncoalesced]: read `a[32 * t]`: <= 32 sectors per execution (minimum 4)",
        f.display()
    );
    assert!(out.contains(&want), "missing `{want}` in:\n{out}");
    assert!(out.contains("kernel strides"), "{out}");
    assert!(
        out.contains("summary: 1 files read, 1 kernels, 1 bounded, 0 failed"),
        "{out}"
    );
}

/// SARIF output validates against the SARIF 2.1.0 JSON schema (OASIS, `sarif-schema-2.1.0.json`
/// as shipped in the `serde-sarif` 0.8.0 crate, vendored in `tests/data/audit/`), and the
/// uncoalesced access of strides.cu is a result at 7:15 with its certified count.
#[test]
fn sarif_output_validates_against_the_2_1_0_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(common::root().join("tests/data/audit/sarif-schema-2.1.0.json"))
            .expect("vendored schema"),
    )
    .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let f = strides();
    let out = audit(&[
        f.to_str().expect("UTF-8 path"),
        "--block",
        "32",
        "--format",
        "sarif",
    ]);
    let log: Value = serde_json::from_str(&out).expect("SARIF is JSON");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "SARIF schema errors: {errors:#?}");
    // the validator does reject a log without its required `version`
    let mut broken = log.clone();
    broken
        .as_object_mut()
        .expect("log object")
        .remove("version");
    assert!(
        !validator.is_valid(&broken),
        "a log without version is invalid"
    );

    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let results = run["results"].as_array().expect("results");
    assert_eq!(
        results.len(),
        9 + 1,
        "9 findings + the block-size-dependent write"
    );
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "uncoalesced")
        .expect("an uncoalesced result");
    let region = &r["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 7);
    assert_eq!(region["startColumn"], 15);
    assert_eq!(r["level"], "warning");
    assert_eq!(r["properties"]["perExecution"], 32);
    assert_eq!(r["properties"]["certified"], true);
    let msg = r["message"]["text"].as_str().expect("message");
    assert!(msg.contains("32 sectors"), "{msg}");
    // every ruleId is one of the driver's rules
    let rules: Vec<&Value> = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|d| &d["id"])
        .collect();
    assert!(results.iter().all(|r| rules.contains(&&r["ruleId"])));
}

/// The audits of `files` (one kernel each) of `../shared/corpus/racuda` under `block`, by
/// file name; `None` (the test prints that it skips) when the corpus is absent.
fn corpus_audits(test: &str, files: &[&str], block: &str) -> Option<Vec<Value>> {
    let dir = common::racuda_corpus(test)?;
    let paths: Vec<String> = files
        .iter()
        .map(|f| dir.join(f).to_string_lossy().into_owned())
        .collect();
    let mut args: Vec<&str> = paths.iter().map(String::as_str).collect();
    args.extend(["--block", block, "--format", "json"]);
    let doc: Value = serde_json::from_str(&audit(&args)).expect("JSON document");
    let kernels = doc["kernels"].as_array().expect("kernels");
    Some(
        files
            .iter()
            .map(|f| {
                let k = kernels
                    .iter()
                    .find(|k| k["file"].as_str().is_some_and(|p| p.ends_with(f)))
                    .unwrap_or_else(|| panic!("no audit of {f}"));
                assert!(k["error"].is_null(), "{f}: {}", k["error"]);
                k["audit"].clone()
            })
            .collect(),
    )
}

/// RaCUDA's matrix kernels under their published launch (block 32x32: a warp is one row
/// `ty`, lanes `tx` = 0..31). Hand derivations:
/// * `X[base + w*ty + tx]` reads 32 consecutive floats at an offset whose residue mod 8
///   depends on the width `w` → 4 sectors when aligned, 5 otherwise: ≤ 5, one above the
///   minimum 4 (`misaligned`; stride 1 in `tx`, so GPUDrano does not flag it uncoalesced);
/// * `A[a + wA*ty + k]` (matrixMulBad): one element for all lanes → 1 sector;
/// * `As[ty][tx]`, `Bs[ty][tx]`, `Bs[k][tx]`: banks `tx` → 1; `As[ty][k]`, `As[k][ty]`: one
///   word → broadcast, 1; `As[tx][ty]` (matrixMulTranspose): word `32tx + ty`, bank `ty`
///   for every lane → 32 serialized accesses;
/// * the outer loop runs ⌈wA/32⌉ ≤ (wA + 31)/32 times, the inner one 32 times per outer.
#[test]
fn corpus_matrix_kernels_equal_hand_derivations() {
    let files = ["matrixMul.cu", "matrixMulBad.cu", "matrixMulTranspose.cu"];
    let Some(a) = corpus_audits("corpus_matrix_kernels", &files, "32,32") else {
        return;
    };
    let (mm, bad, tr) = (&a[0], &a[1], &a[2]);
    // matrixMul
    let ra = finding(mm, 102, 22, "read");
    assert_finding(ra, "misaligned", 5, 4, 1);
    assert_eq!(ra["executions"], "1/32*max(0, wA + 31)");
    assert_finding(finding(mm, 103, 22, "read"), "misaligned", 5, 4, 1);
    assert_finding(finding(mm, 126, 5, "write"), "misaligned", 5, 4, 1);
    assert_finding(finding(mm, 102, 9, "write"), "conflict-free", 1, 1, 0);
    assert_finding(finding(mm, 114, 19, "read"), "conflict-free", 1, 1, 0);
    assert_finding(finding(mm, 114, 31, "read"), "conflict-free", 1, 1, 0);
    // 5 sectors for each of A and B per outer iteration, 5 for C: 5 + 10(wA + 31)/32
    assert_eq!(metric_bound(mm, "sectors"), "5 + 5/16*max(0, wA + 31)");
    assert_eq!(metric_bound(mm, "conflicts"), "0");
    assert_eq!(metric_bound(mm, "divwarps"), "0");
    // matrixMulBad
    assert_finding(finding(bad, 103, 16, "read"), "coalesced", 1, 1, 0);
    assert_finding(finding(bad, 104, 16, "read"), "misaligned", 5, 4, 1);
    assert_finding(finding(bad, 111, 11, "read"), "misaligned", 5, 4, 1);
    assert_finding(finding(bad, 111, 11, "write"), "misaligned", 5, 4, 1);
    // the branch on loaded data `be` may split any warp
    let br = finding(bad, 106, 11, "branch");
    assert_finding(br, "divergent-branch", 1, 0, 1);
    assert_eq!(
        br["executions"], "max(0, wA + 31)",
        "32 per outer iteration"
    );
    // 1 + 5 + 5 + 5 sectors per inner iteration, except B's read in the rounds k ≡ 0
    // (mod 8), where its row `b + wB·k` is a multiple of 8 floats (`b ≡ 0 mod 32`): 4
    // sectors. 508 per 32 inner iterations (the inner loop unrolled, Q:UNROLL: spec/logic.md
    // §4 "Producer, counted loops"; tests/matmul_bad_unroll.rs), (wA + 31)/32 outer ones
    assert_eq!(metric_bound(bad, "sectors"), "127/8*max(0, wA + 31)");
    assert_eq!(metric_bound(bad, "divwarps"), "max(0, wA + 31)");
    // matrixMulTranspose
    assert_finding(finding(tr, 101, 9, "write"), "bank-conflict", 32, 1, 31);
    assert_finding(finding(tr, 102, 9, "write"), "conflict-free", 1, 1, 0);
    assert_finding(finding(tr, 113, 19, "read"), "conflict-free", 1, 1, 0);
    assert_eq!(finding(tr, 101, 9, "write")["share"], 1.0);
    // 31 conflicts per outer iteration
    assert_eq!(metric_bound(tr, "conflicts"), "31/32*max(0, wA + 31)");
    // no access of the three is uncoalesced in GPUDrano's sense (all have stride 0 or 1 in tx)
    for k in &a {
        let fs = k["findings"].as_array().expect("findings");
        assert!(fs.iter().all(|f| f["rule"] != "uncoalesced"), "{k:#}");
    }
}

/// vectorAdd and reduce1 (RaCUDA's launch: block 256). Hand derivations:
/// * vectorAdd: `i = 256·blockIdx.x + tid`, so warp `w` touches bytes `1024·b + 128w`
///   .. `+127`: 4 aligned sectors for each of A, B, C (12 in all, RaCUDA's published bound);
/// * reduce1: `sdata[2s·tid]` for `index < 256`: s = 1: tid < 128, banks 2tid mod 32 → 2-way;
///   s = 2: 4-way; s = 4: tid < 32, banks 8tid mod 32 → 8-way; s = 8: 16 lanes on 2 banks →
///   8-way; s = 16: 8 lanes on bank 0 → 8-way; s = 32, 64, 128: 4, 2, 1 lanes. Worst: 8
///   serialized accesses. Warp 0 is active for every s: (1+3+7+7+7+3+1+0) = 29 conflicts
///   for each of the three accesses of line 48 → 87.
#[test]
fn corpus_vector_add_and_reduce1_equal_hand_derivations() {
    let files = ["vectorAdd.cu", "reduce1.cu"];
    let Some(a) = corpus_audits("corpus_vector_add_and_reduce1", &files, "256") else {
        return;
    };
    let (va, r1) = (&a[0], &a[1]);
    assert_finding(finding(va, 40, 5, "write"), "coalesced", 4, 4, 0);
    assert_finding(finding(va, 40, 12, "read"), "coalesced", 4, 4, 0);
    assert_finding(finding(va, 40, 19, "read"), "coalesced", 4, 4, 0);
    assert_finding(finding(va, 39, 3, "branch"), "divergent-branch", 1, 0, 1);
    assert_eq!(metric_bound(va, "sectors"), "12");
    assert_eq!(metric_bound(va, "divwarps"), "1");
    assert_finding(finding(r1, 48, 11, "read"), "bank-conflict", 8, 1, 7);
    assert_finding(finding(r1, 48, 11, "write"), "bank-conflict", 8, 1, 7);
    assert_finding(finding(r1, 48, 27, "read"), "bank-conflict", 8, 1, 7);
    assert_finding(finding(r1, 38, 5, "write"), "conflict-free", 1, 1, 0);
    // g_odata[blockIdx.x]: one element for the warp → 1 sector
    assert_finding(finding(r1, 54, 19, "write"), "coalesced", 1, 1, 0);
    assert_eq!(metric_bound(r1, "conflicts"), "87");
}

/// (kernel, line, column, kind, rule, per execution, minimum, excess, GPUDrano flags it).
type Row = (
    usize,
    u64,
    u64,
    &'static str,
    &'static str,
    u64,
    u64,
    u64,
    bool,
);

/// RaCUDA's addSub0/1/2 (block 256; `int` = 4 bytes; a warp is 32 consecutive global ids
/// `j` or `i`). Hand derivations of the certified counts, and GPUDrano's verdict (Singhania
/// Ch. 4, Fig. 4.3 rules: `tid` ↦ c1, parameters and loop counters ↦ c0, c0·c1 ↦ ⊤ unless
/// the factor is ±1, c1 + c0 ↦ c1; an index is flagged when it is ⊤):
/// * addSub0 `B[j*w + i]` in `if (j % 2 == 0)` and its `else`: 16 lanes of one parity,
///   2w elements = 8w bytes apart: one sector each once w ≥ 4 → 16 (minimum 4 for a warp
///   of 4-byte elements); GPUDrano: j ↦ c1, j·w ↦ ⊤: flagged;
/// * addSub1 `B[2j*w + i]`, `B[(2j+1)*w + i]`: 32 lanes 2w elements apart → 32; ⊤: flagged;
/// * `A[i]` in addSub0/1 (i the loop counter): one element → 1 sector; c0: not flagged;
/// * addSub2 `B[j*w + i]`, `B[(j+1)*w + i]` with `i` the global id: 32 consecutive ints at
///   an offset `j*w` of unknown residue mod 8 → 4 or 5 sectors (misaligned); c0 + c1 ↦ c1:
///   not flagged; `A[i]`: 128 aligned bytes → 4 sectors; c1: not flagged.
/// * Kernel bounds: addSub0 per iteration both parities run: 2·(16 + 16 + 1) = 66 per `i`;
///   addSub1 4·32 + 2 = 130 per `i`; addSub2 per iteration of `j` (⌈h/2⌉ ≤ (h+1)/2 of them)
///   4·5 + 2·4 = 28 → 14(h + 1).
#[test]
fn corpus_add_sub_kernels_uncoalesced_flags_equal_gpudrano() {
    let files = ["addSub0.cu", "addSub1.cu", "addSub2.cu"];
    let Some(a) = corpus_audits("corpus_add_sub_kernels", &files, "256") else {
        return;
    };
    let table: [Row; 20] = [
        (0, 5, 7, "read", "uncoalesced", 16, 4, 12, true),
        (0, 5, 7, "write", "uncoalesced", 16, 4, 12, true),
        (0, 7, 7, "read", "uncoalesced", 16, 4, 12, true),
        (0, 7, 7, "write", "uncoalesced", 16, 4, 12, true),
        (0, 5, 23, "read", "coalesced", 1, 1, 0, false),
        (0, 7, 23, "read", "coalesced", 1, 1, 0, false),
        (1, 4, 5, "read", "uncoalesced", 32, 4, 28, true),
        (1, 4, 5, "write", "uncoalesced", 32, 4, 28, true),
        (1, 5, 5, "read", "uncoalesced", 32, 4, 28, true),
        (1, 5, 5, "write", "uncoalesced", 32, 4, 28, true),
        (1, 4, 25, "read", "coalesced", 1, 1, 0, false),
        (1, 5, 31, "read", "coalesced", 1, 1, 0, false),
        (2, 4, 5, "read", "misaligned", 5, 4, 1, false),
        (2, 4, 5, "write", "misaligned", 5, 4, 1, false),
        (2, 5, 5, "read", "misaligned", 5, 4, 1, false),
        (2, 5, 5, "write", "misaligned", 5, 4, 1, false),
        (2, 4, 21, "read", "coalesced", 4, 4, 0, false),
        (2, 5, 27, "read", "coalesced", 4, 4, 0, false),
        (0, 4, 5, "branch", "divergent-branch", 1, 0, 1, false),
        (1, 2, 3, "loop", "uniform-branch", 0, 0, 0, false),
    ];
    for (k, line, col, kind, rule, per, min, excess, gpudrano) in table {
        let f = finding(&a[k], line, col, kind);
        assert_finding(f, rule, per, min, excess);
        assert_eq!(
            f["rule"] == "uncoalesced",
            gpudrano,
            "{}:{line}:{col} {kind}: uncoalesced flag vs GPUDrano",
            files[k]
        );
    }
    // every global access of the three kernels is in the table (none left unchecked)
    let global = |k: &Value| {
        k["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["metric"] == "sectors")
            .count()
    };
    assert_eq!((global(&a[0]), global(&a[1]), global(&a[2])), (6, 6, 6));
    assert_eq!(metric_bound(&a[0], "sectors"), "66*max(0, w)");
    assert_eq!(metric_bound(&a[1], "sectors"), "130*max(0, w)");
    assert_eq!(metric_bound(&a[2], "sectors"), "14*max(0, h + 1)");
}

/// Runs `warpcert ARGS…` and returns (exit code, stdout).
fn warpcert(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .args(args)
        .output()
        .expect("warpcert runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Batch runs (item 6): `analyze` and `audit` over a directory with a good kernel and a
/// file that does not parse give one JSON Lines object per kernel (the broken file's as an
/// error record), then a summary counting both, and exit 0 (errors are results).
#[test]
fn batch_runs_give_a_line_per_kernel_and_a_summary() {
    let dir = std::env::temp_dir().join(format!("warpcert-audit-batch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::copy(strides(), dir.join("a_strides.cu")).expect("copy");
    std::fs::write(
        dir.join("b_broken.cu"),
        "__global__ void broken(int *a) { a[0] = ; }\n",
    )
    .expect("write");
    let d = dir.to_str().expect("UTF-8 path");
    for cmd in ["analyze", "audit"] {
        let (code, out) = warpcert(&[cmd, d, "--block", "32", "--format", "jsonl", "--jobs", "2"]);
        assert_eq!(
            code, 0,
            "{cmd}: exit 0 when every kernel was handled:\n{out}"
        );
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect();
        assert_eq!(lines.len(), 3, "{cmd}: 2 records + summary:\n{out}");
        assert_eq!(lines[0]["kernel"], "strides", "{cmd}");
        assert!(lines[0]["error"].is_null(), "{cmd}: {}", lines[0]["error"]);
        assert!(
            lines[1]["error"].is_string(),
            "{cmd}: the broken file is an error record"
        );
        let s = &lines[2]["summary"];
        assert_eq!(s["files"], 2, "{cmd}: {s}");
        assert_eq!(s["bounded"], 1, "{cmd}: {s}");
        let failed: u64 = s["failed"]
            .as_object()
            .expect("failed by reason")
            .values()
            .filter_map(Value::as_u64)
            .sum();
        assert_eq!(failed, 1, "{cmd}: {s}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `data-*` attributes the report's script puts on `<body>` once loaded, from
/// `chromium --headless --dump-dom URL`.
fn loaded_body(url: &str) -> Option<String> {
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            url,
        ])
        .output()
        .ok()?;
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let start = dom.find("<body")?;
    let end = start + dom[start..].find('>')?;
    Some(dom[start..=end].to_string())
}

fn attr(body: &str, name: &str) -> Option<u64> {
    let key = format!("{name}=\"");
    let at = body.find(&key)? + key.len();
    body[at..].split('"').next()?.parse().ok()
}

/// The HTML report (item 5) in a real headless browser (Debian's `chromium`): the page loads
/// without script errors, the derivation outline expands (every `<details>` open after
/// clicking the summaries, fewer before), and the plot has 12 points: the 6 parameter values
/// 16, 32, …, 512 (`audit::plot::VALUES`) × {certified bound, simulated cost}.
#[test]
fn html_report_loads_expands_and_plots_in_a_headless_browser() {
    if Command::new("chromium").arg("--version").output().is_err() {
        eprintln!(
            "html_report_loads_expands_and_plots_in_a_headless_browser: skipped, no chromium"
        );
        return;
    }
    let html = std::env::temp_dir().join(format!("warpcert-audit-{}.html", std::process::id()));
    let f = strides();
    audit(&[
        f.to_str().expect("UTF-8 path"),
        "--block",
        "32",
        "--html",
        html.to_str().expect("UTF-8 path"),
    ]);
    let text = std::fs::read_to_string(&html).expect("report written");
    let details = text.matches("<details").count() as u64;
    assert!(details > 0, "the derivation outline has nodes");
    let url = format!("file://{}", html.display());
    let expanded = loaded_body(&format!("{url}#expand-all")).expect("chromium dumps the DOM");
    assert_eq!(attr(&expanded, "data-ready"), Some(1), "{expanded}");
    assert_eq!(
        attr(&expanded, "data-errors"),
        None,
        "script errors: {expanded}"
    );
    assert_eq!(attr(&expanded, "data-details"), Some(details), "{expanded}");
    assert_eq!(attr(&expanded, "data-circles"), Some(12), "{expanded}");
    let folded = loaded_body(&url).expect("chromium dumps the DOM");
    assert!(
        attr(&folded, "data-details").is_some_and(|n| n < details),
        "the outline starts folded: {folded}"
    );
    let _ = std::fs::remove_file(&html);
}

/// Warp operations in an audit (`examples/warp_reduce.cu`, block 64): a vote gives every
/// lane of the warp the same value (rule SC:VOTE), so the branch on `__any_sync` at 23:5 is
/// uniform (certified by Q:IF1); shuffles (lines 18–20) move values between lanes and are
/// no memory access, so no read or write finding is about them; the one global read
/// `in[i]` at 16:13 reads 32 consecutive floats of an aligned row: 4 sectors (hand count).
#[test]
fn warp_operations_are_uniform_votes_and_no_accesses() {
    let file = common::root().join("examples/warp_reduce.cu");
    let a = kernel_audit(&file, "64");
    let vote = finding(&a, 23, 5, "branch");
    assert_eq!(vote["rule"], "uniform-branch", "{vote:#}");
    assert_eq!(vote["certified"], true, "{vote:#}");
    let findings = a["findings"].as_array().expect("findings");
    assert!(
        findings.iter().all(|f| {
            let line = f["line"].as_u64().unwrap_or(0);
            !(18..=20).contains(&line) || !matches!(f["kind"].as_str(), Some("read" | "write"))
        }),
        "an access finding on a shuffle line: {a:#}"
    );
    assert_finding(finding(&a, 16, 13, "read"), "coalesced", 4, 4, 0);
}
