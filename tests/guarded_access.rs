//! Q:GWRITEGUARD / Q:VWRITEGUARD (spec/logic.md §4 "Guarded accesses", issue 15): the
//! sectors of a partial last round. A hand-written certificate for
//! `tests/precision/last_round.cu` (block 256), its kernel-checked bound against the
//! lock-step semantics, and mutated certificates the kernel rejects with pinned messages.

mod common;

use std::path::PathBuf;
use warpcert::core::metric::Q;
use warpcert::core::MetricName;

/// The hand-written certificate (tests/data/guarded/last_round.sectors.cert): the loop
/// invariant `Σ_{j<4} ⌊(n − X − 8j + 31)/32⌋⁺` with `X = i − threadIdx.x`, the write
/// `Q:GWRITEGUARD (n 0) (guard 7 32 (1 0) (1 8) (1 16) (1 24))` (constraint 7 of its `P` is
/// the loop test `i − n + 1 ≤ 0`), and the step `i ← i + 32` mapping each
/// `⌊(n − X − 8j + 31)/32⌋⁺` to the `⌊(n − X − 8j − 1)/32⌋⁺` the write leaves.
fn hand_certificate() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/guarded/last_round.sectors.cert");
    std::fs::read_to_string(p).unwrap()
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

/// The hand truth of last_round.cu's `sectors` in a block of 256 (lanes `l` of warp `w`
/// start at `i = 32w + l` and step by 32): warp 0 has the most rounds, and in round `r`
/// its lanes `l < n − 32r` write `⌈min(32, n − 32r)/8⌉` sectors, so the per-warp worst is
/// `Σ_r ⌈min(32, n − 32r)/8⌉ = Σ_{j<4} ⌊(n + 31 − 8j)/32⌋⁺` (sector `j` is written in
/// round `r` iff `32r + 8j < n`).
fn truth(n: i64) -> i64 {
    (0..4).map(|j| (n + 31 - 8 * j).max(0).div_euclid(32)).sum()
}

/// The kernel accepts the hand certificate with the exact bound, which equals the
/// lock-step maximum over the block's 8 warps at every `n` tried (the old bound,
/// `4·⌊(n + 31)/32⌋⁺`, is 4 at `n = 1`, truth 1).
#[test]
fn guarded_certificate_is_exact_on_last_round() {
    let b = check(&hand_certificate()).unwrap();
    assert_eq!(
        b,
        "max(0, ⌊(n + 7)/32⌋) + max(0, ⌊(n + 15)/32⌋) + max(0, ⌊(n + 23)/32⌋) + max(0, ⌊(n + 31)/32⌋)"
    );
    let path = warpcert::cli::precision::suite_dir().join("last_round.cu");
    let launch = common::launch(256, None);
    let prog = common::load_for(&path, &launch);
    for n in [
        0i64, 1, 2, 7, 8, 9, 16, 17, 24, 25, 31, 32, 33, 40, 63, 64, 65, 100, 129,
    ] {
        let sim = (0..8u64)
            .map(|w| {
                common::warp_cost(
                    &prog,
                    MetricName::Sectors,
                    &launch,
                    [256, 1, 1],
                    w,
                    &[("n", n)],
                )
            })
            .max()
            .unwrap();
        assert_eq!(sim, Q::from_integer(truth(n).into()), "n = {n}");
    }
    assert_eq!(truth(1), 1);
    assert_eq!(truth(33), 5);
}

/// Mutants of the hand certificate, each rejected by name (values from the hand table of
/// warp 0: the lanes with `threadIdx.x ≤ T` write `⌊T/8⌋ + 1` sectors for `T < 32`):
/// a term dropped (3 at `T = 24`, below 4), a threshold moved (`t = 9`: 1 at `T = 8`,
/// below 2), the wrong guard (constraint 6, `threadIdx.x − i ≤ 0`, has `K = 0`: every lane
/// has `T = 0`, where 32 lanes write 4 sectors and the charge is 1), an index outside `P`,
/// a divisor 0, a negative coefficient, and a divisor that the potentials do not match
/// (`S = 16`: the equation's atoms differ).
#[test]
fn mutated_guard_charges_are_rejected() {
    let c = hand_certificate();
    let g = "(guard 7 32 (1 0) (1 8) (1 16) (1 24))";
    let cases = [
        (
            mutate(&c, g, "(guard 7 32 (1 0) (1 8) (1 16))"),
            "the guarded charge is 3 at the lane value K·tid = 24, below the 4 sectors",
        ),
        (
            mutate(&c, g, "(guard 7 32 (1 0) (1 9) (1 16) (1 24))"),
            "the guarded charge is 1 at the lane value K·tid = 8, below the 2 sectors",
        ),
        (
            mutate(&c, g, "(guard 6 32 (1 0) (1 8) (1 16) (1 24))"),
            "the guarded charge is 1 at the lane value K·tid = 0, below the 4 sectors",
        ),
        (
            mutate(&c, g, "(guard 8 32 (1 0) (1 8) (1 16) (1 24))"),
            "bad guarded access: the index I names no constraint of P",
        ),
        (
            mutate(&c, g, "(guard 7 0 (1 0) (1 8) (1 16) (1 24))"),
            "bad guarded access: the divisor S < 1",
        ),
        (
            mutate(&c, g, "(guard 7 32 (-1 0) (2 8) (1 16) (1 24))"),
            "bad guarded access: a coefficient C < 0",
        ),
        (
            mutate(&c, g, "(guard 7 16 (1 0) (1 8) (1 16) (1 24))"),
            "differs",
        ),
        (
            mutate(
                &c,
                "(Q:GWRITEGUARD (post 7) (n 0)",
                "(Q:GWRITEGUARD (post 7) (n -1)",
            ),
            "bad guarded access: N₀ < 0",
        ),
    ];
    for (m, want) in cases {
        let got = check(&m).expect_err("mutant accepted");
        assert!(got.contains(want), "want `{want}`, got `{got}`");
    }
}

/// The rules are formalized in Coq (spec/logic.md §6, coq-export/theories/Guard.v; Check.v
/// `DWriteGuard`): the hand certificate exports with its node's fields `N₀ = 0`, `I = 7`,
/// `S = 32` and the terms `(1, 0) (1, 8) (1, 16) (1, 24)` as written, and `coqc` accepts the
/// file (`Print Assumptions`: closed). Skips the `coqc` part when it is not installed.
#[test]
fn export_of_guarded_accesses_checks_in_coq() {
    use common::coq::{assert_accepted, build_theories, coqc_all, coqc_available};
    let e = warpcert::export::coq::export(&hand_certificate()).unwrap_or_else(|e| panic!("{e}"));
    let fields = " 0%Z 7 32%Z [(1%Z, 0%Z); (1%Z, 8%Z); (1%Z, 16%Z); (1%Z, 24%Z)]";
    assert!(
        e.contains("DWriteGuard ") && e.contains(fields),
        "no `DWriteGuard … {fields}` in the export"
    );
    if !coqc_available() {
        eprintln!(
            "SKIPPED: coqc is not installed (apt-get install -y coq); the export is not checked"
        );
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let tmp = std::env::temp_dir().join(format!("warpcert-coq-guarded-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let f = tmp.join("last_round_hand.v");
    std::fs::write(&f, &e).unwrap();
    let runs = coqc_all(std::slice::from_ref(&f), 1);
    eprintln!("coqc {}: {:.2} s", f.display(), runs[0].secs);
    assert_accepted(f.display(), &runs[0]);
    let _ = std::fs::remove_dir_all(&tmp);
}

/// The hand truth of a grid-stride loop over `n` 4-byte elements, stride `s` (the block
/// size times the grid), `acc` accesses of `a[i]` per round: warp 0 of block 0 has the most
/// rounds, and in round `r` its lanes `l < n − s·r` touch `⌈min(32, n − s·r)/8⌉` sectors per
/// access (gridstride.cu, gridstride_sum.cu, last_round.cu headers).
fn rounds_truth(n: i64, s: i64, acc: i64) -> i64 {
    let mut total = 0;
    let mut r = 0;
    while n - s * r > 0 {
        total += (n - s * r).min(32).div_euclid(8) + i64::from((n - s * r).min(32) % 8 != 0);
        r += 1;
    }
    acc * total
}

/// The analysis's certificates for the precision kernels use the guarded rules, the kernel
/// accepts them, and their bounds are the hand truths: `acc·Σ_{j<4} ⌊(n + S − 1 − 8j)/S⌋⁺`
/// (+ 4 for gridstride_sum's final store, `S` the stride at one block for a symbolic grid).
/// Each bound is checked against the closed form of [`rounds_truth`] at every `n` tried and
/// against lock-step runs (all warps of blocks 0 and `G − 1`): equal at the launch the
/// precision suite measures (G = 1 for a symbolic grid), at least the run at G = 3.
#[test]
fn analysis_certificates_carry_the_guarded_charges() {
    use warpcert::analysis::{analyze, AnalysisOptions};
    use warpcert::cli::precision::{load, suite};
    use warpcert::core::{Hardware, Launch, Metric};
    // (case, rule that must occur, stride at the measured grid, accesses per round, constant)
    let cases = [
        ("gridstride", "Q:VWRITEGUARD", 256, 2, 0),
        ("gridstride_prod", "Q:GWRITEGUARD", 256, 2, 0),
        ("gridstride@2", "Q:GWRITEGUARD", 512, 2, 0),
        ("gridstride_sum@240", "Q:VWRITEGUARD", 30720, 1, 4),
        ("last_round", "Q:GWRITEGUARD", 32, 1, 0),
    ];
    let hw = Hardware::default();
    for (name, rule, s, acc, k) in cases {
        let c = suite()
            .into_iter()
            .find(|c| c.name == name)
            .expect("precision case");
        let prog = load(&c, &hw).unwrap();
        let launch = Launch {
            block: c.block,
            grid: c.concrete_grid.map(|g| [g, 1, 1]),
        };
        let a = analyze(
            &prog,
            &Metric::standard(MetricName::Sectors),
            &hw,
            &launch,
            &AnalysisOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(a.certificate.contains(rule), "{name}: no {rule}");
        warpcert_kernel::check(&a.certificate).unwrap_or_else(|e| panic!("{name}: {e}"));
        let grids: Vec<u32> = match c.concrete_grid {
            Some(g) => vec![g],
            None => vec![1, 3],
        };
        for n in [0i64, 1, 7, 8, 9, 31, 33, 255, 256, 257, 263, 600] {
            let env = std::collections::BTreeMap::from([("n".to_string(), n)]);
            let bound = a.bound.eval(&env);
            let closed: i64 = acc
                * (0..4)
                    .map(|j| (n + s - 1 - 8 * j).max(0).div_euclid(s))
                    .sum::<i64>()
                + k;
            assert_eq!(bound, Q::from_integer(closed.into()), "{name} n = {n}");
            assert_eq!(
                closed,
                rounds_truth(n, s, acc) + k,
                "{name} n = {n}: closed form"
            );
            for &g in &grids {
                let run = Launch {
                    block: c.block,
                    grid: Some([g, 1, 1]),
                };
                let warps = u64::from(c.block.iter().product::<u32>()).div_ceil(32);
                let sim = [0, g - 1]
                    .into_iter()
                    .flat_map(|b| (0..warps).map(move |w| (b, w)))
                    .map(|(b, w)| {
                        common::warp_cost(
                            &prog,
                            MetricName::Sectors,
                            &run,
                            [b, 0, 0],
                            w,
                            &[("n", n)],
                        )
                    })
                    .max()
                    .unwrap();
                if g == c.concrete_grid.unwrap_or(1) {
                    assert_eq!(sim, bound, "{name} G = {g} n = {n}: not exact");
                } else {
                    assert!(
                        sim <= bound,
                        "{name} G = {g} n = {n}: {sim} above the bound {bound}"
                    );
                }
            }
        }
    }
}

/// A guarded access inside a divergent `if` of a grid-stride body is not given a guarded
/// charge (derive/guarded.rs: Q:IF4's pointwise premises `Q ≥ Q1` would see the then
/// branch's `−A⁻_j`; with the charge the kernel rejected the certificate, node
/// `0.1.0.1.0.1`, "then post is not pointwise at most then pre"). The analysis succeeds as
/// before, the kernel accepts the certificate, it has no guarded rule, and the bound is at
/// least the lock-step maximum. Hand truth (block 32, one warp, step 32): round `r` writes
/// the even `i = 32r + l < n`, 16 lanes at stride 8 bytes, `⌈min(32, n − 32r)/8⌉` sectors.
#[test]
fn guarded_access_in_a_divergent_branch_falls_back() {
    use warpcert::analysis::{analyze, AnalysisOptions};
    use warpcert::core::{Hardware, Metric};
    let dir = std::env::temp_dir().join(format!("warpcert-guarded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("branch.cu");
    std::fs::write(
        &path,
        "__global__ void k(float *out, int n) {\n  for (int i = threadIdx.x; i < n; i += 32) {\n    if (i % 2 == 0) {\n      out[i] = 1.0f;\n    }\n  }\n}\n",
    )
    .unwrap();
    let launch = common::launch(32, Some(1));
    let prog = common::load_for(&path, &launch);
    let a = analyze(
        &prog,
        &Metric::standard(MetricName::Sectors),
        &Hardware::default(),
        &launch,
        &AnalysisOptions::default(),
    )
    .expect("the retry without guarded charges finds a bound");
    warpcert_kernel::check(&a.certificate).expect("kernel accepts");
    assert!(
        !a.certificate.contains("WRITEGUARD"),
        "no guarded rule expected"
    );
    for n in [0i64, 1, 2, 9, 31, 32, 33, 70] {
        let env = std::collections::BTreeMap::from([("n".to_string(), n)]);
        let sim = common::warp_cost(
            &prog,
            MetricName::Sectors,
            &launch,
            [0, 0, 0],
            0,
            &[("n", n)],
        );
        assert_eq!(
            sim,
            Q::from_integer(rounds_truth(n, 32, 1).into()),
            "n = {n}: hand truth"
        );
        assert!(sim <= a.bound.eval(&env), "n = {n}");
    }
}
