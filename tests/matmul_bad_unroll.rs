//! matrixMulBad `sectors` at its benchmark launch (block 32×32, grid 1), issue 14: the
//! certified bound is `508·⌊(wA + 31)/32⌋⁺`, `exact`, where every round of the inner loop
//! charged 5 sectors for `B` gave 512 a tile. The inner loop `for (k = 0; k < 32; ++k)` has
//! a launch-constant trip count and is unrolled (Q:UNROLL; spec/logic.md §4, "Producer,
//! counted loops"), so each copy knows `k`.
//!
//! Hand derivation. Warp `w` of the block has `ty = w` and `tx = 0..31`; the tile loop runs
//! `T = ⌊(wA + 31)/32⌋⁺` rounds (`a` from 0 to `wA − 1` in steps of 32, `by = 0`), round
//! `t` with `b = 32·wB·t` (`bx = 0`). Each of the 32 inner rounds `k` makes, with 4-byte
//! floats and 32-byte sectors (8 floats):
//! * `A[a + wA·ty + k]`: one address for the warp → 1 sector;
//! * `B[b + wB·k + tx] = B[wB·(32t + k) + tx]`: 32 consecutive floats, 4 sectors when
//!   `wB·(32t + k) ≡ 0 (mod 8)`, else 5;
//! * the read and the store of `C[wB·ty + tx]`: 4 sectors each when `wB·w ≡ 0 (mod 8)`,
//!   else 5.
//!
//! Over the 32 consecutive values `32t + k`, `wB·(32t + k) ≡ 0 (mod 8)` holds at least for
//! the 4 with `k ≡ 0 (mod 8)`, for exactly those when `wB` is odd. So a warp costs at most
//! `32·1 + (4·4 + 28·5) + 32·(5 + 5) = 508` a tile, and warp 1 (`ty = 1`) at an odd `wB`
//! costs exactly that: `508·T`. At `wB ≡ 0 (mod 8)` every access is aligned:
//! `32 + 32·4 + 32·8 = 416` a tile for every warp. The certificate's count: in copy `j`,
//! `wB·j ≡ 0 (mod j)` (`dep_D`'s `*` by the exact `j`) and `b ≡ 0 (mod 32)`, so the base of
//! `B`'s row is aligned for `j ∈ {0, 8, 16, 24}` (4 sectors) and only `(mod 4)` or less
//! for the others (5). The lower certificate (warp 1, `wA ≡ wB ≡ 1 (mod 8)`): `went_W(wB·j)
//! = (j, 8j)`, so its `B` reads cost exactly 4 in those 4 copies and 5 in the 28 others, and
//! `C`'s row `wB·1 ≡ 1 (mod 8)` costs 5: `508·T` again.
//!
//! Corpus tests skip, saying so, when `../shared` is absent.

mod common;

use common::{load_for, racuda_corpus, root, warp_cost, warpcert_output};
use warpcert::core::metric::{q, MetricName, Q};
use warpcert::core::Launch;

/// The bound as the kernel renders it (`warpcert check`).
const BOUND: &str = "508*max(0, ⌊(wA + 31)/32⌋)";

/// `T = ⌊(wA + 31)/32⌋⁺`, the rounds of the tile loop (hand derivation above).
fn rounds(wa: i64) -> i64 {
    (wa + 31).div_euclid(32).max(0)
}

/// The block of the benchmark row.
fn launch() -> Launch {
    Launch {
        block: [32, 32, 1],
        grid: Some([1, 1, 1]),
    }
}

/// The sectors of warp `w` of block 0 at `wA`, `wB`: the lock-step semantics of the symbolic
/// program (zero inputs; the `if` on `B`'s value has no access, so inputs do not matter).
fn warp_sectors(w: u64, wa: i64, wb: i64) -> Q {
    let path = root().join("../shared/corpus/racuda/matrixMulBad.cu");
    let l = launch();
    let prog = load_for(&path, &l);
    warp_cost(
        &prog,
        MetricName::Sectors,
        &l,
        [0, 0, 0],
        w,
        &[("wA", wa), ("wB", wb)],
    )
}

/// The lock-step oracle against the hand derivation: warp 1 costs `508·T` at odd `wB` (the
/// bound is attained at `wA` = 1, 31, 32, 33, 64, 100 — at 64 it is 1016, not the 832 of the
/// relational witness, whose point `wA = wB = 64` is aligned), every warp stays within
/// `508·T` (sound), and at `wB ≡ 0 (mod 8)` the worst warp costs `416·T`.
#[test]
fn lockstep_matches_the_hand_count() {
    if racuda_corpus("lockstep_matches_the_hand_count").is_none() {
        return;
    }
    for wa in [1, 31, 32, 33, 64, 100] {
        let t = rounds(wa);
        for wb in [1, 3, 9] {
            assert_eq!(
                warp_sectors(1, wa, wb),
                q(508 * t),
                "wA={wa} wB={wb}: warp 1"
            );
        }
        for wb in [1, 2, 4, 8, 12] {
            let mut worst = q(0);
            for w in 0..32 {
                let c = warp_sectors(w, wa, wb);
                assert!(c <= q(508 * t), "wA={wa} wB={wb} warp {w}: {c} > 508·{t}");
                if c > worst {
                    worst = c;
                }
            }
            if wb % 8 == 0 {
                assert_eq!(worst, q(416 * t), "wA={wa} wB={wb}: aligned, worst warp");
            }
        }
    }
    for wa in [-5, 0] {
        assert_eq!(warp_sectors(1, wa, 1), q(0), "wA={wa}: no tile");
    }
}

/// `warpcert analyze` at the benchmark launch answers `= 508·T`, both certificates accepted
/// by the kernel (`warpcert check`: upper, and lower about warp 1 on `wA ≡ wB ≡ 1 (mod 8)`);
/// the upper one unrolls the 32 inner rounds (33 Q:UNROLL nodes: 32 copies and the exit)
/// and charges `B` 4 sectors in 4 copies. Kernel mutants of the unrolled part are rejected
/// with pinned messages: upper — copy 1's `wB·1` claimed `≡ 0 (mod 8)`, an aligned copy's
/// count lowered to 3; lower — copy 1's `went_W` class `(1, 8)` replaced by `(0, 8)`,
/// `wB`'s congruence changed to `≡ 0 (mod 8)` (witness adjusted), a 5-sector read raised to
/// 6, an aligned copy's 4 raised to 5 (the warp's exact count there is 4).
#[test]
fn sectors_is_exact_508_a_tile_with_both_certificates() {
    let Some(dir) = racuda_corpus("sectors_is_exact_508_a_tile_with_both_certificates") else {
        return;
    };
    let file = dir.join("matrixMulBad.cu").display().to_string();
    let out = std::env::temp_dir().join(format!("warpcert-mmbad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let (ok, text) = warpcert_output(&[
        "analyze",
        &file,
        "--metric",
        "sectors",
        "--block",
        "32,32",
        "--grid",
        "1",
        "--cert",
        &out.display().to_string(),
    ]);
    assert!(ok, "{text}");
    assert!(
        text.contains("per warp  = 508*⌊(wA + 31)/32⌋⁺"),
        "exact, 508 a tile:\n{text}"
    );
    assert!(
        text.contains("lower-bound certificate (warp 1): accepted"),
        "{text}"
    );
    assert!(
        text.contains("wA ≡ 1 (mod 8), wB ≡ 1 (mod 8)"),
        "the region:\n{text}"
    );
    let upper = out.join("MatrixMulBad.sectors.cert");
    let lower = out.join("MatrixMulBad.sectors.lower.cert");
    for (path, role, rel) in [
        (&upper, "role: upper", "per-warp cost <= "),
        (&lower, "role: lower", "cost of warp 1 >= "),
    ] {
        let (ok, check) = warpcert_output(&["check", &path.display().to_string()]);
        assert!(ok, "{}: {check}", path.display());
        assert!(check.contains(&format!("{rel}{BOUND} (")), "{check}");
        assert!(check.contains(role), "{check}");
    }
    let up = std::fs::read_to_string(&upper).unwrap();
    assert_eq!(
        up.matches("(Q:UNROLL ").count(),
        33,
        "32 copies and the exit"
    );
    assert_eq!(
        up.matches("(EQ:GARRAY (n 4)").count(),
        4,
        "copies 0, 8, 16, 24"
    );
    let low = std::fs::read_to_string(&lower).unwrap();
    let mutants = [
        (
            up.replacen("(dep t5 0 0 0 0 1)", "(dep t5 0 0 0 0 8)", 1),
            "dep entry (0 0 0 0 8) of `t5` is not implied by (0 0 0 0 1)",
        ),
        (
            up.replacen("(EQ:GARRAY (n 4)", "(EQ:GARRAY (n 3)", 1),
            "claimed access count 3 is below the required 4",
        ),
        (
            low.replacen("(dep t5 0 0 0 1 8)", "(dep t5 0 0 0 0 8)", 1),
            "dep entry (0 0 0 0 8) of `t5` is not implied by",
        ),
        (
            low.replace("(mod (lin 0 (1 wB)) 8 1)", "(mod (lin 0 (1 wB)) 8 0)")
                .replace("(wB 1)", "(wB 8)"),
            "dep entry (0 0 0 32 256) of `bStep` is not implied by",
        ),
        (
            low.replacen("(n 5)", "(n 6)", 1),
            "claimed access count 6 is above the named warp's count 5",
        ),
        (
            low.replacen("(n 4)", "(n 5)", 1),
            "claimed access count 5 is above the named warp's count 4",
        ),
    ];
    for (i, (m, msg)) in mutants.iter().enumerate() {
        assert!(m != &up && m != &low, "mutant {i} changed nothing");
        match warpcert_kernel::check(m) {
            Ok(v) => panic!("mutant {i} accepted: {}", v.bound),
            Err(r) => assert!(r.to_string().contains(msg), "mutant {i}: {r}"),
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}
