//! Cache reuse and the block-size recommendation of `warpcert audit` (issue 16 item 3;
//! Singhania 2019, Ch. 6), checked against the dissertation's worked example (Sect. 6.1)
//! and against hand applications of Def. 6.1 to RaCUDA's matrix kernels in the corpus.
//!
//! None of the dissertation's Ch. 6 benchmarks (Rodinia's Gaussian/fan2, the Mars programs
//! mm, ss, ii, wc, pvc) is in `../shared/corpus/`; the Sect. 6.1 example is therefore written
//! below as a kernel of our own with the accesses the section names.

mod common;

use serde_json::Value;

/// `warpcert audit PATHS… --format json ARGS…`: the audit of each kernel, in order.
fn audits(paths: &[&str], args: &[&str]) -> Vec<Value> {
    let out = common::warpcert_stdout(&[&["audit"], paths, &["--format", "json"], args].concat());
    let doc: Value = serde_json::from_str(&out).expect("JSON document");
    doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| {
            assert!(k["error"].is_null(), "{}: {}", k["file"], k["error"]);
            k["audit"].clone()
        })
        .collect()
}

/// The loop-reusable accesses of loop `line`: (array, increment in elements, uncoalesced).
fn reusable(reuse: &Value, line: u64) -> Vec<(String, i64, bool)> {
    reuse["loops"]
        .as_array()
        .expect("loops")
        .iter()
        .filter(|l| l["line"] == line)
        .flat_map(|l| l["accesses"].as_array().expect("accesses").iter())
        .map(|a| {
            let name = a[0].as_str().expect("name");
            let array = name.split('[').next().unwrap_or_default().to_string();
            (
                array,
                a[1].as_i64().expect("increment"),
                a[2].as_bool().expect("uncoalesced"),
            )
        })
        .collect()
}

/// A 1-D kernel with the accesses of the dissertation's Fig. 6.1 (Sect. 6.1: the Fan2
/// kernel of Rodinia's Gaussian elimination with the y dimension turned into a loop): each
/// thread `x` owns row `x + i + 1` of the N×N matrices and walks its columns `y + i`.
const FAN2_ROWS: &str = r#"
__global__ void fan2_rows(float *M, float *A, float *B, int N, int i) {
  int x = threadIdx.x + blockIdx.x * blockDim.x;
  if (x < N - i - 1) {
    for (int y = 0; y < N - i; y++) {
      A[N * (x + i + 1) + (y + i)] -= M[N * (x + i + 1) + i] * A[N * i + (y + i)];
      if (y == 0) {
        B[x + i + 1] -= M[N * (x + i + 1) + (y + i)] * B[i];
      }
    }
  }
}
"#;

/// Sect. 6.1: `A[x+i+1, y+i]`, `M[x+i+1, i]` and `M[x+i+1, y+i]` are uncoalesced (a warp's
/// lanes are N elements apart) and loop-reusable (increments 1, 0 and 1 elements per
/// iteration of the y loop, 4 B and 0 B < η = 128 B); "we need at least 3 × 128 = 384 B of
/// cache memory per thread … 48 × 1024 / 384 = 128 threads": block size 128. Hand
/// derivation of the other accesses by Def. 6.1: `A[i, y+i]` (increment 1) and `B[x+i+1]`,
/// `B[i]` (increment 0) are loop-reusable but coalesced (one row for the warp; consecutive
/// or one element), so they add nothing to the working set. The kernel is block-size
/// independent (the dissertation's pipeline requires it; x is the global id).
#[test]
fn fan2_rows_reuses_three_uncoalesced_accesses_and_picks_128_threads() {
    let dir = std::env::temp_dir().join(format!("warpcert-reuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("fan2_rows.cu");
    std::fs::write(&file, FAN2_ROWS).expect("write");
    let a = audits(
        &[file.to_str().expect("UTF-8")],
        &["--block", "256", "--no-totals"],
    );
    let r = &a[0]["reuse"];
    let mut acc = reusable(r, 5);
    acc.sort();
    // A[x+i+1, y+i] is read and written (`-=`): one signature, two accesses
    let uc: Vec<&(String, i64, bool)> = acc.iter().filter(|a| a.2).collect();
    let uc_arrays: Vec<(&str, i64)> = uc.iter().map(|a| (a.0.as_str(), a.1)).collect();
    assert_eq!(
        uc_arrays,
        [("A", 1), ("A", 1), ("M", 0), ("M", 1)],
        "uncoalesced loop-reusable accesses: {acc:?}"
    );
    let coalesced: Vec<(&str, i64)> = acc
        .iter()
        .filter(|a| !a.2)
        .map(|a| (a.0.as_str(), a.1))
        .collect();
    assert_eq!(
        coalesced,
        [("A", 1), ("B", 0), ("B", 0), ("B", 0)],
        "{acc:?}"
    );
    assert_eq!(r["working_set"], 384, "3 signatures × 128 B (Sect. 6.1)");
    assert_eq!(r["recommended_block"], 128, "48 KB / 384 B (Sect. 6.1)");
    assert_eq!(a[0]["bsi"]["verdict"], "independent", "{}", a[0]["bsi"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// RaCUDA's matrix kernels (block 32×32), Def. 6.1 by hand:
/// * matrixMul, outer loop (line 88): `A[a + wA·ty + tx]` moves by `aStep` = 32 elements =
///   128 B per iteration, not < η = 128 B: not loop-reusable; `B[b + wB·ty + tx]` moves by
///   `bStep` = 32·wB (not a constant): not loop-reusable. The inner loop (line 113) has only
///   shared accesses, which Ch. 6 does not consider. No advice.
/// * matrixMulBad, inner loop (line 102): `A[a + wA·ty + k]` moves by 1 element (4 B),
///   `C[…]` (read and write of `+=`) by 0: loop-reusable; `B[b + wB·k + tx]` by wB: not.
///   None of them is uncoalesced in GPUDrano's sense (stride 0 or 1 in tx), so no block
///   change is suggested.
#[test]
fn corpus_matrix_kernels_reusable_accesses_follow_definition_6_1() {
    let Some(dir) = common::racuda_corpus("corpus_matrix_kernels_reusable_accesses") else {
        return;
    };
    let mm = dir.join("matrixMul.cu");
    let bad = dir.join("matrixMulBad.cu");
    let a = audits(
        &[mm.to_str().expect("UTF-8"), bad.to_str().expect("UTF-8")],
        &["--block", "32,32", "--no-totals"],
    );
    let (mm, bad) = (&a[0]["reuse"], &a[1]["reuse"]);
    assert!(reusable(mm, 88).is_empty(), "{mm}");
    assert!(reusable(mm, 113).is_empty(), "shared accesses only: {mm}");
    assert!(mm["recommended_block"].is_null(), "{mm}");
    let mut acc = reusable(bad, 102);
    acc.sort();
    assert_eq!(
        acc,
        [
            ("A".to_string(), 1, false),
            ("C".to_string(), 0, false),
            ("C".to_string(), 0, false)
        ],
        "{bad}"
    );
    assert!(bad["recommended_block"].is_null(), "{bad}");
    assert_eq!(bad["working_set"], 0);
}

/// RaCUDA's addSub1 (block 256), Def. 6.1 and Sect. 6.3 by hand: in the `i` loop,
/// `B[2j*w + i]` and `B[(2j+1)*w + i]` (each read and written by `±=`) move by 1 element
/// (4 B < 128 B) and are uncoalesced (lanes 2w elements apart: 32 sectors); `A[i]` moves
/// by 1 and is coalesced (one element). Two uncoalesced signatures: working set
/// 2 × 128 = 256 B per thread; 48 × 1024 / 256 = 192 threads, the largest power of two
/// not above it is 128. addSub2 (`i` the global id, loop over rows `j`): `B[j*w + i]` moves
/// by 2w (unknown) and `A[i]` by 0: only `A[i]` (twice) is loop-reusable, coalesced: no advice.
#[test]
fn corpus_add_sub_reuse_and_block_size_follow_section_6_3() {
    let Some(dir) = common::racuda_corpus("corpus_add_sub_reuse") else {
        return;
    };
    let one = dir.join("addSub1.cu");
    let two = dir.join("addSub2.cu");
    let a = audits(
        &[one.to_str().expect("UTF-8"), two.to_str().expect("UTF-8")],
        &["--block", "256", "--no-totals"],
    );
    let (one, two) = (&a[0]["reuse"], &a[1]["reuse"]);
    let mut acc = reusable(one, 2);
    acc.sort();
    let b = |d: i64, uc: bool| ("B".to_string(), d, uc);
    assert_eq!(
        acc,
        [
            ("A".to_string(), 1, false),
            ("A".to_string(), 1, false),
            b(1, true),
            b(1, true),
            b(1, true),
            b(1, true)
        ],
        "{one}"
    );
    assert_eq!(one["working_set"], 256, "{one}");
    assert_eq!(one["recommended_block"], 128, "{one}");
    let mut acc2 = reusable(two, 3);
    acc2.sort();
    assert_eq!(
        acc2,
        [("A".to_string(), 0, false), ("A".to_string(), 0, false)],
        "{two}"
    );
    assert!(two["recommended_block"].is_null(), "{two}");
}
