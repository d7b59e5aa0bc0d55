//! Rule L:IFDIV (spec/logic.md §4b, issue 14): a lower-bound derivation charges `M^div`
//! for an `if` that provably splits the named warp, with two lane witnesses `(lanes ℓ1 ℓ2)`
//! whose thread indices with `P` entail the test at `ℓ1` and its negation at `ℓ2`. The
//! `divwarps` answer of a guarded element-wise kernel becomes `exact`; the kernel rejects a
//! wrong lane witness; Coq (LowerCheck.v, `DIf4` with the lane witness lists) accepts the
//! export and refutes its mutants.

mod common;

use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
use common::*;
use std::path::Path;
use std::process::Command;

/// `warpcert analyze FILE --metric divwarps --block 256 --no-align --cert TMP/NAME.cert`:
/// its stdout and the lower-bound certificate it writes beside the upper one. `--no-align`
/// keeps the guard Q:IF4 (charged `M^div`), so its lower rule is L:IFDIV; with Q:IFALIGN
/// (the default) it is L:IFALIGN, tested in tests/lower_align.rs.
fn divwarps_lower(file: &Path, name: &str) -> (String, String) {
    let tmp = std::env::temp_dir().join(format!("warpcert-ifdiv-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let cert = tmp.join(format!("{name}.cert"));
    let out = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .arg("analyze")
        .arg(file)
        .args([
            "--metric",
            "divwarps",
            "--block",
            "256",
            "--no-align",
            "--cert",
        ])
        .arg(&cert)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{name}: analyze failed:\n{text}");
    let lower = std::fs::read_to_string(tmp.join(format!("{name}.lower.cert")))
        .unwrap_or_else(|e| panic!("{name}: no lower certificate ({e}):\n{text}"));
    let _ = std::fs::remove_dir_all(&tmp);
    (text, lower)
}

/// examples/vector_add.cu, `divwarps`, block 256 (hand derivation): `gid = 256·blockIdx.x +
/// threadIdx.x`, one `if (gid < len)` and no loop, so every warp diverges at most once
/// (upper bound 1). Warp 0's lanes have `gid = 256·blockIdx.x + ℓ`, `ℓ = 0…31`; where
/// `256·blockIdx.x + 1 ≤ len ≤ 256·blockIdx.x + 31` lane 0 passes the test (`gid < len`)
/// and lane 31 fails it (`gid ≥ len`): the warp splits and costs exactly 1 divwarp. The
/// lower certificate states that region (L:HYP) and proves it by L:IFDIV with lanes 0
/// and 31. `warpcert run` at `len = 5` (one block) agrees: 1 divergent warp.
#[test]
fn vector_add_divwarps_exact_by_ifdiv() {
    let (out, lower) = divwarps_lower(&root().join("examples/vector_add.cu"), "vector_add");
    assert!(
        out.contains("per warp  = 1")
            && out.contains("lower-bound certificate (warp 0): accepted by the kernel (bound 1)")
            && out.contains(
                "exact (attained when len - 256*blockIdx.x >= 1, 256*blockIdx.x - len >= -31"
            ),
        "not exact:\n{out}"
    );
    assert!(
        lower.contains("(L:IFDIV ") && lower.contains("(lanes 0 31)"),
        "{lower}"
    );
    let v = warpcert_kernel::check(&lower).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(
        (v.role, v.bound.as_str()),
        (warpcert_kernel::Role::Lower(0), "1")
    );
    let run = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .arg("run")
        .arg(root().join("examples/vector_add.cu"))
        .args(["--metric", "divwarps", "--param", "len=5", "--grid", "1"])
        .output()
        .unwrap();
    let run = String::from_utf8_lossy(&run.stdout);
    assert!(run.contains("max per warp            1"), "{run}");
    // the RaCUDA corpus's vectorAdd (`i < numElements`, block 256): the same derivation
    if let Some(dir) = racuda_corpus("vector_add_divwarps_exact_by_ifdiv") {
        let (out, lower) = divwarps_lower(&dir.join("vectorAdd.cu"), "vectorAdd");
        assert!(
            out.contains("per warp  = 1") && out.contains(": exact ("),
            "{out}"
        );
        assert!(lower.contains("(lanes 0 31)"), "{lower}");
    }
}

/// The kernel's checks of L:IFDIV's lane witnesses on the vector_add certificate above:
/// lane 31 as the `then` lane (`gid = 256·blockIdx.x + 31 < len` does not follow from
/// `len ≤ 256·blockIdx.x + 31`: the witness's combination is off by the lane's index, 31),
/// lane 32 (not a lane of a 32-thread warp), and the field missing.
#[test]
fn ifdiv_wrong_lane_witness_rejected() {
    let (_, lower) = divwarps_lower(&root().join("examples/vector_add.cu"), "vector_add_rej");
    let reject = |text: &str| {
        let r = warpcert_kernel::check(text).expect_err("accepted");
        assert_eq!(r.rule, "L:IFDIV");
        r.to_string()
    };
    let wrong = reject(&lower.replacen("(lanes 0 31)", "(lanes 31 31)", 1));
    assert!(
        wrong.contains(
            "entail then witness 0 for `gid - len + 1 <= 0`: residual constant 31 is too large"
        ),
        "{wrong}"
    );
    let outside = reject(&lower.replacen("(lanes 0 31)", "(lanes 0 32)", 1));
    assert!(
        outside.contains("L:IFDIV: lane witness `32` is not a lane of warp 0"),
        "{outside}"
    );
    let missing = reject(&lower.replacen(" (lanes 0 31)", "", 1));
    assert!(missing.contains("missing field (lanes …)"), "{missing}");
}

/// The Coq export of the vector_add lower certificate (`DIf4` with the `then` witnesses as
/// its else-then list and the `else` witnesses as its else-cond list; LowerCheck.v tries
/// each lane of the warp) is accepted; refuted: the bound raised to 2, the `else` witness
/// list dropped (no lane is proved to fail the test, so `M^div` is not earned), the two
/// lists swapped (the `then` witness does not prove `¬e` at any lane).
#[test]
fn ifdiv_coq_accepts_and_mutants_refuted() {
    let (_, lower) = divwarps_lower(&root().join("examples/vector_add.cu"), "vector_add_coq");
    let x = warpcert::export::coq::export(&lower).unwrap_or_else(|e| panic!("{e}"));
    let wf = "[(1%Z, [(0, (-1)%Z); (11, 1%Z); (12, (-1)%Z); (13, (-1)%Z)])]";
    let wt = "[(1%Z, [(0, 1%Z); (10, 1%Z); (12, 1%Z); (13, 1%Z)])]";
    assert!(x.contains(&format!("(DIf4 a3 a1 0%Z {wf} {wt} ")), "{x}");
    let raised = mutate_after(&x, "Definition bound :", "mkPot (1 # 1)", "mkPot (2 # 1)");
    let raised = mutate_after(&raised, "Definition a0 :", "mkPot (1 # 1)", "mkPot (2 # 1)");
    let dropped = x.replacen(&format!("{wf} {wt}"), &format!("[] {wt}"), 1);
    let swapped = x.replacen(&format!("{wf} {wt}"), &format!("{wt} {wf}"), 1);
    for m in [&raised, &dropped, &swapped] {
        assert_ne!(m, &x);
    }
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; the L:IFDIV export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "ifdiv",
        &[("ifdiv_vector_add", x.as_str())],
        &[
            ("ifdiv_bound_raised", raised.as_str()),
            ("ifdiv_else_dropped", dropped.as_str()),
            ("ifdiv_swapped", swapped.as_str()),
        ],
    );
}
