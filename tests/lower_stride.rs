//! Rules L:GARRAYSTRIDE and L:GWRITESTRIDE (spec/logic.md §4b "Strided accesses", issue 14):
//! a global access whose index has a scaled entry with a row multiplier `u = A·P + B`
//! touches one sector per distinct `tid_d` of the named warp once `P` entails
//! `s·u ≥ ⌈32/es⌉`. The lower producer states that region as an L:HYP hypothesis (addSub1:
//! `w ≥ 4`, which entails `2·w ≥ 8`); addSub1's
//! `sectors` (and `steps`) answers become `exact`. The kernel rejects a count above the
//! warp's, a hypothesis too weak for the stride, an index without a multiplier and a
//! missing witness, each pinned by its message.
//!
//! Hand derivations (int = 4 bytes, 32-byte sectors, warp 32):
//! * addSub1, one round `i` of `for (i = 0; i < w; i++)`: `j = 1024·blockIdx.x + tid`, two
//!   statements `B[(2j + c)·w + i] ±= A[i]`, each a read and a write of `B` and a read of
//!   `A[i]` (one uniform int: 1 sector). Neighbouring lanes' `B` indices are `2w` ints =
//!   `8w` bytes apart, so the warp's 32 lanes span `S(w)` sectors: 8 at `w = 1` (256
//!   contiguous bytes, 8-byte steps), 16 at `w = 2`, 24 at `w = 3` (`⌊24·l/32⌋`, l < 32:
//!   24 values), 32 from `w = 4` (each lane its own sector). A round costs
//!   `2·(2·S(w) + 1)` and the warp `w·2·(2·S(w) + 1)`: 34, 132, 294 at w = 1, 2, 3 and
//!   `130·w` from `w = 4`, the upper bound `130·max(0, w)`, attained on `w ≥ 4`.
//! * `COLS` below in a 16×2 block: `out[threadIdx.x·w] = w`; warp 0 holds `x = 0 … 15`
//!   twice (y = 0, 1), the same 16 addresses per row: 16 sectors once `4w ≥ 32` (w ≥ 8),
//!   2 at w = 1 (64 contiguous bytes).
//!
//! The lock-step semantics (`run_warp`, tests/common::warp_cost) confirms each value.

mod common;

use common::answer::exact_both;
use common::mutants::kernel_refuses;
use common::{racuda_kernel, warp_cost};
use std::collections::BTreeMap;
use warpcert::core::ir::Program;
use warpcert::core::metric::{q, MetricName};
use warpcert::core::{Hardware, Launch};
use warpcert::frontend;

/// One strided store per lane, the warp spanning two rows of 16 threads.
const COLS: &str = "__global__ void k(int *out, int w) { out[threadIdx.x * w] = w; }";

fn addsub1() -> Option<(Program, Launch)> {
    racuda_kernel("lower_stride addSub1", "addSub1.cu", 1024)
}

/// Hand values of the module docs: `w·2·(2·S(w) + 1)` with `S = 8, 16, 24, 32, 32, …`.
#[test]
fn addsub1_sectors_exact_from_w_4() {
    let Some((prog, launch)) = addsub1() else {
        return;
    };
    let lower = exact_both(
        "addsub1-sectors",
        &prog,
        launch,
        MetricName::Sectors,
        "130*max(0, w)",
    );
    assert!(lower.contains("(hyp (le (lin 4 (-1 w))))"), "{lower}");
    assert_eq!(
        lower.matches("(L:GARRAYSTRIDE (n 32)").count(),
        2,
        "{lower}"
    );
    assert_eq!(lower.matches("(L:GWRITESTRIDE ").count(), 2, "{lower}");
    for (w, s) in [(1, 8), (2, 16), (3, 24), (4, 32), (5, 32), (8, 32)] {
        for warp in [0, 31] {
            assert_eq!(
                warp_cost(
                    &prog,
                    MetricName::Sectors,
                    &launch,
                    [0, 0, 0],
                    warp,
                    &[("w", w), ("h", 1)]
                ),
                q(w * 2 * (2 * s + 1)),
                "w={w} warp {warp}"
            );
        }
    }
}

/// `steps` rides on the same counts: `6 + 190·max(0, w)`, attained from `w = 4` (the
/// semantics at 4, 5, 7), below it at `w = 1`.
#[test]
fn addsub1_steps_exact_from_w_4() {
    let Some((prog, launch)) = addsub1() else {
        return;
    };
    exact_both(
        "addsub1-steps",
        &prog,
        launch,
        MetricName::Steps,
        "6 + 190*max(0, w)",
    );
    for w in [4, 5, 7] {
        assert_eq!(
            warp_cost(
                &prog,
                MetricName::Steps,
                &launch,
                [0, 0, 0],
                0,
                &[("w", w), ("h", 1)]
            ),
            q(6 + 190 * w),
            "w={w}"
        );
    }
    assert!(
        warp_cost(
            &prog,
            MetricName::Steps,
            &launch,
            [0, 0, 0],
            0,
            &[("w", 1), ("h", 1)]
        ) < q(196)
    );
}

/// Mutants of addSub1's lower certificate, each rejected with its message.
#[test]
fn addsub1_stride_mutants_rejected() {
    let Some((prog, launch)) = addsub1() else {
        return;
    };
    let lower = exact_both(
        "addsub1-mut",
        &prog,
        launch,
        MetricName::Sectors,
        "130*max(0, w)",
    );
    let reject = |what: &str, text: String, msg: &str| kernel_refuses(what, &text, None, msg);
    // a count above the warp's 32 distinct lanes
    reject(
        "n 33",
        lower.replacen("(L:GARRAYSTRIDE (n 32)", "(L:GARRAYSTRIDE (n 33)", 1),
        "claimed access count 33 is above the named warp's count 32",
    );
    // w ≥ 3 only (the hypothesis and the root pre): 6 ints = 24 bytes apart, not a sector
    reject(
        "hyp w >= 3",
        lower.replace("(le (lin 4 (-1 w)))", "(le (lin 3 (-1 w)))"),
        "entail stride witness 0",
    );
    // the witness list dropped
    // the stride witness, by hand: `8 − 2w ≤ 0` is 2 × the hypothesis `4 − w ≤ 0`, source
    // 7 (after the seven launch facts)
    let with = "(L:GARRAYSTRIDE (n 32) (entail stride (farkas (7 2))) _)";
    assert!(lower.contains(with), "{lower}");
    let dropped = lower.replacen(with, "(L:GARRAYSTRIDE (n 32) _)", 1);
    // the multiplier 1 leaves `4 − w`, not a constant
    reject(
        "lambda 1",
        lower.replacen(
            with,
            "(L:GARRAYSTRIDE (n 32) (entail stride (farkas (7 1))) _)",
            1,
        ),
        "entail stride witness 0",
    );
    reject(
        "no witness",
        dropped,
        "entail stride: expected 1 witnesses, found 0",
    );
    // A[i] (a uniform index, no scaled entry) claimed through the stride rule
    reject(
        "uniform index",
        lower.replacen(
            "(L:GARRAY (n 1) _)",
            "(L:GARRAYSTRIDE (n 1) (entail stride (farkas (7 2))) _)",
            1,
        ),
        "has no stride count: no scaled entry with one `?` dimension",
    );
}

/// `COLS` in a 16×2 block: 16 distinct `threadIdx.x` per warp, not 32 lanes.
#[test]
fn columns_count_distinct_thread_indices() {
    let launch = Launch {
        block: [16, 2, 1],
        grid: Some([1, 1, 1]),
    };
    let ast = frontend::parse_str("k.cu", COLS).unwrap_or_else(|d| panic!("{d}"));
    let (prog, _) = frontend::lower(&ast, None, &launch, &Hardware::default(), &BTreeMap::new())
        .unwrap_or_else(|d| panic!("{d}"));
    let lower = exact_both("cols", &prog, launch, MetricName::Sectors, "16");
    assert!(lower.contains("(hyp (le (lin 8 (-1 w))))"), "{lower}");
    for (w, want) in [(1, 2), (2, 4), (8, 16), (9, 16)] {
        assert_eq!(
            warp_cost(
                &prog,
                MetricName::Sectors,
                &launch,
                [0, 0, 0],
                0,
                &[("w", w)]
            ),
            q(want),
            "w={w}"
        );
    }
    let text = lower.replacen("(n 16)", "(n 17)", 1);
    let r = warpcert_kernel::check(&text).expect_err("n 17 accepted");
    assert!(
        r.to_string()
            .contains("claimed access count 17 is above the named warp's count 16"),
        "{r}"
    );
}
