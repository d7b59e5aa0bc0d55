//! Issue 14 (items 2 and 4): the certified RaCUDA-logic bound of `matrixMul` is as tight as
//! the relational one. The collapse of spec/logic.md §2 counts no thread coefficient on a
//! dimension of extent 1 (`threadIdx.d = 0` there), so in a 256×1×1 block `wA * threadIdx.y`
//! is the exact 0 and the row base `a ≡ 0 (mod 32)` keeps its alignment in
//! `A[a + wA * threadIdx.y + threadIdx.x]`: 4 sectors per warp access instead of 5.

mod common;

use common::*;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::{Launch, Metric, MetricName};

/// The certificate of `matrixMul`'s sectors for `block`, and the kernel's verdict on it.
fn matmul(
    test: &str,
    block: [u32; 3],
) -> Option<(
    String,
    Result<warpcert_kernel::Verdict, warpcert_kernel::Rejection>,
)> {
    let f = racuda_corpus(test)?.join("matrixMul.cu");
    let parsed = warpcert::frontend::parse_file(&f).unwrap_or_else(|d| panic!("{d}"));
    let launch = Launch { block, grid: None };
    let (prog, _) = warpcert::frontend::lower(&parsed, None, &launch, &hw(), &Default::default())
        .unwrap_or_else(|d| panic!("{d}"));
    let a = analyze(
        &prog,
        &Metric::standard(MetricName::Sectors),
        &hw(),
        &launch,
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let v = warpcert_kernel::check(&a.certificate);
    Some((a.certificate, v))
}

/// Hand count for a 256×1×1 block (every warp has `threadIdx.y = 0`): each of the
/// `⌈wA/32⌉ = ⌊(wA + 31)/32⌋` rounds reads `A[a + tx]` with `a = 32·wA·by + 32·i` and
/// `B[b + tx]` with `b = 32·bx + 32·wB·i`, 32 consecutive 4-byte floats from a multiple of
/// 32 elements (128 aligned bytes): 4 sectors each; the final write `C[c + tx]`,
/// `c = 32·wB·by + 32·bx`, 4 more. Pico's relational formula is the same
/// (`8*⌊(31 + wA)/32⌋ + 4`); before the extent-1 collapse the certified one was
/// `5 + 10*max(0, ⌊(wA + 31)/32⌋)`.
#[test]
fn matrix_mul_256_block_is_certified_at_four_sectors_per_access() {
    let Some((_, v)) = matmul("matrix_mul_256_block", [256, 1, 1]) else {
        return;
    };
    let v = v.unwrap_or_else(|e| panic!("rejected: {e}"));
    assert_eq!(v.bound, "4 + 8*max(0, ⌊(wA + 31)/32⌋)");
}

/// The same certificate for a 256×2×1 block is refused: there `threadIdx.y` is 0 or 1 by
/// warp, so `wA * threadIdx.y` (the local `t4`) is no longer the exact 0 but only uniform
/// (`(0 0 0 0 1)`: warp 8, `threadIdx.y = 1`, with `wA = 1` reads `A[a + 1 + tx]`, 5
/// sectors), and the kernel refuses the claimed exact entry at that write.
#[test]
fn the_four_sector_claim_is_refused_when_threadidx_y_varies() {
    let Some((cert, _)) = matmul("four_sector_claim_refused", [256, 1, 1]) else {
        return;
    };
    let mutant = cert.replacen("(launch 256 1 1)", "(launch 256 2 1)", 1);
    assert_ne!(mutant, cert);
    let e = warpcert_kernel::check(&mutant).expect_err("the mutant must be rejected");
    let msg = e.to_string();
    assert!(
        msg.contains("dep entry (0 0 0 0 0) of `t4` is not implied by (0 0 0 0 1)"),
        "{msg}"
    );
}
