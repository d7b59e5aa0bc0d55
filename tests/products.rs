//! Products of launch quantities (issue 12: cooperative groups' `grid.size()` is
//! `gridDim.x·gridDim.y·gridDim.z·blockDim…`): Q:VWRITE1's lower bounding substitution for
//! `x ← a * b` under `P ⇒ a ≥ α ∧ b ≥ β` (spec/logic.md §4 "Products"). A grid-stride loop
//! whose stride is such a product gets a ranking atom; every bound is checked by the
//! kernel and compared with the lock-step semantics; certificates whose product facts are
//! stronger than the rule gives are rejected.

mod common;

use common::warp_cost;

use std::collections::BTreeMap;
use warpcert::analysis::{analyze, Analysis, AnalysisOptions};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};

/// A grid-stride copy over a 2-D grid: the block's linear index `blockIdx.y·gridDim.x +
/// blockIdx.x` (a product of a factor ≥ 0 and one ≥ 1) and the stride
/// `gridDim.x·gridDim.y·blockDim.x` (factors ≥ 1).
const STRIDE2D: &str = r#"
__global__ void stride2d(float *out, const float *in, int n) {
  int b = blockIdx.y * gridDim.x + blockIdx.x;
  for (int i = b * blockDim.x + threadIdx.x; i < n; i += gridDim.x * gridDim.y * blockDim.x) {
    out[i] = in[i] + 1.0f;
  }
}
"#;

/// A stride `m·gridDim.x` with an unconstrained `int m`: the product has no lower bound
/// (`m` may be 0 or negative, the loop may not terminate).
const UNSIGNED_FACTOR: &str = r#"
__global__ void anyfactor(float *out, int n, int m) {
  for (int i = threadIdx.x; i < n; i += m * gridDim.x) {
    out[i] = 1.0f;
  }
}
"#;

const BLOCK: u32 = 64;

fn lower(src: &str) -> (Program, Launch) {
    common::lower_1d("products.cu", src, BLOCK)
}

fn analysis(prog: &Program, launch: &Launch, m: MetricName) -> Result<Analysis, String> {
    analyze(
        prog,
        &Metric::standard(m),
        &Hardware::default(),
        launch,
        &AnalysisOptions::default(),
    )
    .map_err(|e| e.to_string())
}

/// The point's parameters: `n` and the symbolic grid's `gridDim.x/y/z`.
fn params(n: i64, gx: i64, gy: i64) -> BTreeMap<String, i64> {
    BTreeMap::from([
        ("n".to_string(), n),
        ("gridDim.x".to_string(), gx),
        ("gridDim.y".to_string(), gy),
        ("gridDim.z".to_string(), 1),
    ])
}

/// The cost of warp 0 of block `(bx, by)` under the lock-step semantics, zero inputs.
fn simulate(
    prog: &Program,
    launch: &Launch,
    m: MetricName,
    pt: &BTreeMap<String, i64>,
    blk: [u32; 2],
) -> Q {
    let params: Vec<(&str, i64)> = pt.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    warp_cost(prog, m, launch, [blk[0], blk[1], 0], 0, &params)
}

/// Sectors of warp 0 of block `(bx, by)` of [`STRIDE2D`] (hand derivation): its lanes start
/// at `s0 = (by·gx + bx)·64` and move by `S = 64·gx·gy`; in round `j` the lanes
/// `i = s0 + jS + l < n` (`l < 32`) read and write `⌈min(32, n − s0 − jS)/8⌉` sectors each
/// (consecutive floats from a multiple of 32 bytes, as `s0` and `S` are multiples of 64).
fn hand_sectors(n: i64, gx: i64, gy: i64, bx: i64, by: i64) -> i64 {
    let (s0, stride) = ((by * gx + bx) * 64, 64 * gx * gy);
    let mut total = 0;
    let mut start = s0;
    while start < n {
        total += 2 * (((n - start).min(32) + 7) / 8);
        start += stride;
    }
    total
}

/// Every metric of [`STRIDE2D`] is bounded with a certificate the kernel accepts, and no
/// bound is below the lock-step cost of a warp at 2-D grids (RaCUDA Theorem 1); the
/// simulated sectors are the hand derivation's.
#[test]
fn a_product_stride_is_bounded_soundly() {
    let (prog, launch) = lower(STRIDE2D);
    for m in MetricName::ALL {
        let a = analysis(&prog, &launch, m).unwrap_or_else(|e| panic!("{m}: {e}"));
        if let Err(r) = warpcert_kernel::check(&a.certificate) {
            panic!("{m}: certificate rejected: {r:?}");
        }
        for (gx, gy) in [(1, 1), (2, 1), (1, 3), (2, 2)] {
            for n in [0, 1, 31, 33, 64, 200, 257, 1000] {
                for blk in [[0, 0], [gx as u32 - 1, gy as u32 - 1]] {
                    let pt = params(n, gx, gy);
                    let sim = simulate(&prog, &launch, m, &pt, blk);
                    if m == MetricName::Sectors {
                        let hand = hand_sectors(n, gx, gy, blk[0] as i64, blk[1] as i64);
                        assert_eq!(
                            sim,
                            Q::from_integer(hand.into()),
                            "hand vs semantics at {pt:?} {blk:?}"
                        );
                    }
                    let b = a.bound.eval(&pt);
                    assert!(
                        b >= sim,
                        "{m} UNSOUND at {pt:?} {blk:?}: bound {b} < simulated {sim}"
                    );
                }
            }
        }
    }
}

/// The rounds are counted by the stride's lower bound `64·(gx + gy − 1) ≥ 64` (the
/// products' floors under `gx, gy ≥ 1`): the floor ranking atom `⌊(n − i + 63)/64⌋⁺` of a
/// symbolic step with the integer lower bound 64 (spec/logic.md §1 "Floor atoms") pays 8
/// sectors (2 accesses × 4) per round: `8·⌊(n + 63)/64⌋` (hand derivation: lane 0 starts at
/// `i ≥ 0`, so at most `⌈n/64⌉` rounds, any grid).
#[test]
fn the_product_stride_counts_rounds_by_its_lower_bound() {
    let (prog, launch) = lower(STRIDE2D);
    let a = analysis(&prog, &launch, MetricName::Sectors).unwrap();
    for n in [0i64, 64, 640, 6400] {
        let b = a.bound.eval(&params(n, 1, 1));
        assert_eq!(b, Q::from_integer((8 * ((n + 63) / 64)).into()), "n = {n}");
    }
}

/// A factor that is not entailed non-negative gives no lower bound: the loop has no
/// ranking atom (a located error), not a bound.
#[test]
fn a_factor_of_unknown_sign_gives_no_bound() {
    let (prog, launch) = lower(UNSIGNED_FACTOR);
    let e = analysis(&prog, &launch, MetricName::Sectors).expect_err("no bound expected");
    assert!(e.contains("no bound for this loop"), "{e}");
}

/// The stride's temporary in a certificate of [`STRIDE2D`]: the local its program assigns
/// `gridDim.x * gridDim.y` (the first word after `(assign ` on that line).
fn stride_temporary(certificate: &str) -> String {
    let line = certificate
        .lines()
        .find(|l| l.contains("(bin * (param gridDim.x) (param gridDim.y))"))
        .expect("the stride's product");
    line.trim()
        .trim_start_matches("(assign ")
        .split(' ')
        .next()
        .unwrap()
        .to_string()
}

/// The kernel rejects product facts stronger than the rule's lower bound: in the accepted
/// certificate of [`STRIDE2D`], the stride's fact `t ≥ gridDim.x + gridDim.y − 1` made
/// `t ≥ gridDim.x + gridDim.y` (false at `gx = gy = 1`), and `t ≥ 1` made `t ≥ 2`.
#[test]
fn the_kernel_rejects_facts_stronger_than_the_product_bound() {
    let (prog, launch) = lower(STRIDE2D);
    let a = analysis(&prog, &launch, MetricName::Sectors).unwrap();
    assert!(warpcert_kernel::check(&a.certificate).is_ok());
    let t = stride_temporary(&a.certificate);
    let floor = format!("(le (lin -1 (1 gridDim.x) (1 gridDim.y) (-1 {t})))");
    let one = format!("(le (lin 1 (-1 {t})))");
    assert!(a.certificate.contains(&floor) && a.certificate.contains(&one));
    for (from, to) in [
        (
            floor.clone(),
            format!("(le (lin 0 (1 gridDim.x) (1 gridDim.y) (-1 {t})))"),
        ),
        (one.clone(), format!("(le (lin 2 (-1 {t})))")),
    ] {
        let bad = a.certificate.replace(&from, &to);
        assert!(warpcert_kernel::check(&bad).is_err(), "accepted with {to}");
    }
}

/// The products' rule in Coq (`Q_VWRITE1P`, `Check.vw1p_ok`): the sectors certificate of
/// [`STRIDE2D`] is exported and accepted by `coqc` (`Print Assumptions`: closed); a mutant
/// whose stride fact `t ≥ 1` reads `t ≥ 2` in every assertion (not implied by the product's
/// floor `gx + gy − 1` at `gx = gy = 1`) is rejected by the reflective check. Skips when
/// `coqc` is not installed.
#[test]
fn the_product_rule_checks_in_coq_and_a_stronger_fact_fails() {
    use common::coq::{accepted_and_mutants_refuted, coqc_available};
    let (prog, launch) = lower(STRIDE2D);
    // the default analysis: the grid-stride loop's accesses are Q:GWRITEGUARD /
    // Q:VWRITEGUARD (spec/logic.md §4 "Guarded accesses"), formalized in Coq since coqguard18
    let a = analyze(
        &prog,
        &Metric::standard(MetricName::Sectors),
        &Hardware::default(),
        &launch,
        &AnalysisOptions::default(),
    )
    .unwrap();
    assert!(
        a.certificate.contains("(Q:GWRITEGUARD ") || a.certificate.contains("(Q:VWRITEGUARD "),
        "no guarded access rule in the certificate"
    );
    let exported = warpcert::export::coq::export(&a.certificate).unwrap_or_else(|e| panic!("{e}"));
    // the stride's temporary's index among the locals (`VL k` in the export)
    let t = stride_temporary(&a.certificate);
    let k = prog
        .locals
        .iter()
        .position(|(x, _)| *x == t)
        .expect("a local");
    let fact = format!("CLe (mkLin 1%Z [((-1)%Z, VL {k})])");
    assert!(exported.contains(&fact), "no `{fact}` in the export");
    let mutant = exported.replace(&fact, &format!("CLe (mkLin 2%Z [((-1)%Z, VL {k})])"));
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "products",
        &[("stride2d_sectors", &exported)],
        &[("stride2d_mutant", &mutant)],
    );
}
