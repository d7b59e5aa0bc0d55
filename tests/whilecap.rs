//! Q:WHILEGUARDCAP / Q:WHILEEXITCAP (spec/logic.md §4a, issue 15): a loop left by divergent
//! jumps whose body splits the warp only at exit nodes is charged its splits by the warp's
//! lane count, `(N − 1)·(a + t + 1)·M^div`, instead of per round. `analyze` gives a second
//! certificate B beside the ordinary A; the answer is `min(A, B)`, each checked by the kernel.

mod common;

use common::mutants::{kernel_refuses, replace_first};
use common::warp32::{analyse, analysis, launch, lock_step};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::metric::{q, Q};
use warpcert::core::{Hardware, Metric, MetricName};
use warpcert::semantics::Value;

fn src(name: &str) -> String {
    let path = format!("{}/tests/precision/{name}.cu", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lock-step per-warp cost (one block of 32) of `src` at `n` when lane `k < lanes`
/// reads its negative cell in round `k` (`in[33k] = −1`, the staircase of the kernels'
/// comments: one lane leaves per round), the other cells 1 (`32·128` cells).
fn staircase(src: &str, m: MetricName, n: i64, lanes: usize) -> Q {
    common::warp32::staircase(src, m, n, lanes, 32 * 128)
}

/// The hand derivation of the kernels' comments (tests/precision/break_loop.cu,
/// tests/whileguard.rs `return_loop_divwarps`): the worst `divwarps` of one warp is 0 for
/// `n ≤ 0`, `3n − 1 + r` for `1 ≤ n ≤ 31` and `93 + r` for `n ≥ 32` (`r = 1` for the loops
/// left by `return`: the flag test after the loop). The capped bound by hand from the rule:
/// `(32 − 1)·(a + t + 1)` with `a = 1` (the data `if`, Q:IFEXIT4 under the Q:FLAGEXIT), `t = 1`
/// (the flag test, Q:FLAGEXIT), and the loop test: 93, plus `r`. So `min(A, B)` is the
/// truth for every `n ≥ 1` (and for every `n` for the loops left by `break`), and the
/// staircase input of the lock-step semantics reaches it.
#[test]
fn capped_bound_is_the_lane_count_and_min_is_exact() {
    let kernels = [
        ("break_loop", 0),
        ("break_before", 0),
        ("break_after", 0),
        ("for_return", 1),
        ("while_return", 1),
    ];
    for (name, r) in kernels {
        let s = src(name);
        let a = analysis(&s, MetricName::Divwarps);
        warpcert_kernel::check(&a.certificate).unwrap_or_else(|e| panic!("{name} A: {e:?}"));
        let b = a
            .capped
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no capped bound"));
        assert!(
            b.certificate.contains("(Q:WHILEGUARDCAP "),
            "{name}: Q:WHILEGUARDCAP not used"
        );
        let v = warpcert_kernel::check(&b.certificate)
            .unwrap_or_else(|e| panic!("{name} B rejected: {e:?}"));
        assert_eq!(
            v.bound,
            (93 + r).to_string(),
            "{name}: the kernel's bound of B"
        );
        for n in [-1i64, 0, 1, 2, 17, 31, 32, 33, 40] {
            let at = BTreeMap::from([("n".to_string(), n)]);
            let (ba, bb) = (a.bound.eval(&at), b.bound.eval(&at));
            assert_eq!(bb, q(93 + r), "{name}: B at n = {n}");
            let hand = match n {
                n if n <= 0 => 0,
                n if n <= 31 => 3 * n - 1 + r,
                _ => 93 + r,
            };
            let lanes = if n >= 32 { 31 } else { n.max(0) as usize };
            let truth = staircase(&s, MetricName::Divwarps, n, lanes);
            assert_eq!(truth, q(hand), "{name}: hand derivation at n = {n}");
            let all = staircase(&s, MetricName::Divwarps, n, 32);
            assert!(
                all <= truth,
                "{name}: every lane leaving exceeds the hand count at n = {n}"
            );
            let min = ba.min(bb);
            assert!(min >= truth, "{name}: min(A, B) unsound at n = {n}");
            if n >= 1 || r == 0 {
                assert_eq!(min, truth, "{name}: min(A, B) at n = {n}");
            }
        }
    }
}

/// `steps` gets the capped bound too: A without the per-round `M^div`s (3 steps a round, 2
/// for the first) plus the 93 (`M^div = 1` step): break_loop `16 + max0(n − 1) + 44·max0(n)`
/// and `109 + 42·max0(n)` (93 + 16; 42 = 44 − 2 per round: the first round of A has no loop
/// test `M^div` (Q:WHILEGUARD0), the `max0(n − 1)` is that test in the later rounds).
/// Both cover the lock-step staircase and the no-break run.
#[test]
fn steps_capped_bound_covers_the_lock_step_cost() {
    let s = src("break_loop");
    let a = analysis(&s, MetricName::Steps);
    let b = a
        .capped
        .as_ref()
        .expect("break_loop steps: no capped bound");
    warpcert_kernel::check(&b.certificate).unwrap_or_else(|e| panic!("B rejected: {e:?}"));
    for n in [0i64, 1, 5, 31, 32, 40] {
        let at = BTreeMap::from([("n".to_string(), n)]);
        let want = 109 + 42 * n.max(0);
        assert_eq!(b.bound.eval(&at), q(want), "B at n = {n}");
        for lanes in [0usize, n.clamp(0, 31) as usize, 32] {
            let t = staircase(&s, MetricName::Steps, n, lanes);
            assert!(
                q(want) >= t,
                "B unsound at n = {n}, {lanes} lanes: {want} < {t}"
            );
        }
    }
}

/// A loop whose body splits the warp outside its exits (a divergent `if` that does not jump)
/// may split in every round, so no lane count caps it: at `n = 100` with no break the
/// lock-step semantics splits the odd and even lanes in every round (100 > 93), and the
/// capped run refuses the body (a Q:IF4 node): no B, the answer is A alone.
#[test]
fn a_body_with_another_divergent_if_gets_no_cap() {
    let s = "__global__ void k(float *out, const float *in, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; k++) {
    if (in[32 * k + threadIdx.x] < 0.0f) {
      break;
    }
    if (threadIdx.x % 2 == 0) { acc = acc + 1.0f; } else { acc = acc * 2.0f; }
  }
  out[threadIdx.x] = acc;
}";
    let a = analysis(s, MetricName::Divwarps);
    assert!(
        a.capped.is_none(),
        "a capped bound for a body that splits every round"
    );
    let truth = staircase(s, MetricName::Divwarps, 100, 0);
    assert!(
        truth > q(93),
        "the lock-step cost {truth} is not above the lane count"
    );
    assert!(a.bound.eval(&BTreeMap::from([("n".to_string(), 100)])) >= truth);
}

/// Kernel mutants, pinned by message: (1) B with its loop rule named Q:WHILEGUARD (the
/// exit nodes charged without `M^div` outside a capped body: the data `if`'s Q:IFEXIT4,
/// checked first, is short of `M^div = 1`); (2) A with its loop rule named Q:WHILEGUARDCAP (the body's data `if` is a
/// Q:IF4, refused by the cap condition); (3) B on a 16-lane warp (the lane count gives
/// `15·3 = 45`, not the 93 the pre pays: the pre does not match).
#[test]
fn kernel_refuses_mutated_capped_certificates() {
    let s = src("break_loop");
    let a = analysis(&s, MetricName::Divwarps);
    let b = a
        .capped
        .as_ref()
        .expect("no capped bound")
        .certificate
        .clone();
    kernel_refuses(
        "mutant 1",
        &replace_first(&b, "(Q:WHILEGUARDCAP ", "(Q:WHILEGUARD "),
        Some("Q:IFEXIT4"),
        "pre differs from then pre + else pre + M^if + C + M^div (Q: `0` vs `1`)",
    );
    kernel_refuses(
        "mutant 2",
        &replace_first(&a.certificate, "(Q:WHILEGUARD0 ", "(Q:WHILEGUARDCAP "),
        None,
        "the capped loop's body has a Q:IF4 node (a rule that may split the warp)",
    );
    kernel_refuses(
        "mutant 3",
        &replace_first(&b, "(hardware 32 32 4 32)", "(hardware 16 32 4 32)"),
        Some("Q:WHILEGUARDCAP"),
        "body post + post + M^if + C",
    );
}

/// The ordinary certificate A is unchanged by the capped run (same text as
/// `common::warp32::analyse`), and B exports to Coq (CapCheck.v, capcons20: `DWhileGuardCap`,
/// its body checked under `M^div := 0` and its splits counted by `cwalk`) for `divwarps`
/// and `steps`: coqc accepts both files, closed. Mutants of the `divwarps` file, each
/// refused at the reflective check (reasons by hand):
/// - every `93` lowered to `92` (the root pre, the loop's pre and the bound, consistently):
///   the capped loop's pre must pay `M^div·(a + t + 1)·(N − 1) = 3·31 = 93` on top of a
///   body and a post of potential 0, so `pot_ge` fails at the `DWhileGuardCap` node;
/// - the data `if` (the body's exit node, Q:IFEXIT4, `a = 1`) claimed as Q:IFEXIT1 (a test
///   that never splits, `a = 0`): its test reads `in[…]`, not uniform under `D`;
/// - `check_root` instead of `ccheck_root`: Check.v's `check` alone has no capped node and
///   refuses the tree.
#[test]
fn capped_certificates_check_in_coq_and_mutants_fail() {
    let s = src("break_loop");
    let a = analysis(&s, MetricName::Divwarps);
    assert_eq!(a.certificate, analyse(&s, MetricName::Divwarps).0);
    let b = a.capped.as_ref().expect("no capped bound");
    assert!(b.certificate.contains("(Q:WHILEGUARDCAP "));
    let v = warpcert_kernel::check(&b.certificate).expect("B rejected");
    assert_eq!(v.bound, "93", "the kernel's bound of B (hand: 3·31)");
    let div = warpcert::export::coq::export(&b.certificate).expect("B's export");
    assert!(div.contains("ccheck_root G tab body tree bound") && div.contains("DWhileGuardCap "));
    let st = analysis(&s, MetricName::Steps);
    let bs = st.capped.as_ref().expect("no capped steps bound");
    let steps = warpcert::export::coq::export(&bs.certificate).expect("B's steps export");
    if !common::coq::coqc_available() {
        eprintln!(
            "SKIPPED: coqc is not installed (apt-get install -y coq); B's exports are not checked"
        );
        return;
    }
    assert_eq!(
        div.matches("(93 # 1)").count(),
        6,
        "93 in the assertions and the bound"
    );
    let lowered = div.replace("(93 # 1)", "(92 # 1)");
    assert_eq!(div.matches("DIfExit4 ").count(), 1);
    let no_exit = div.replace("DIfExit4 ", "DIfExit1 ");
    let plain = div
        .replace("ccheck_root", "check_root")
        .replace("cbound_sound", "bound_sound");
    common::coq::accepted_and_mutants_refuted(
        "capcheck",
        &[
            ("cap_divwarps", div.as_str()),
            ("cap_steps", steps.as_str()),
        ],
        &[
            ("cap_lowered", lowered.as_str()),
            ("cap_no_exit", no_exit.as_str()),
            ("cap_plain_check", plain.as_str()),
        ],
    );
}

/// NVIDIA's `CalcMandelbrot` (read in place from the shared corpus through
/// tests/data/frontend/mandelbrot_wrapper.cu; skipped without it): its `do … while (1)` left
/// only by `return`s is `while (jmp < 2)` (spec/lowering.md §6) with 21 nested exits
/// (Q:IFEXIT4, each at the end of the previous one's else branch) and no flag test, so
/// Q:WHILEEXITCAP charges `(32 − 1)·(1 + 0 + 1) = 62` per call (hand, from the rule) instead
/// of `21 + 21/20·max0(crunch)`: B is `max0(numBlocks)·(62 + [32 ∤ imageW])`, constant in
/// `crunch` (issue 15). Both certificates are accepted.
#[test]
fn mandelbrot_divwarps_capped_by_the_lane_count() {
    if common::corpus_dir("cuda-samples-subset", "mandelbrot_divwarps_capped").is_none() {
        return;
    }
    let path = common::root().join("tests/data/frontend/mandelbrot_wrapper.cu");
    let l = launch(None);
    let prog = common::load_for(&path, &l);
    let hw = Hardware::default();
    let m = Metric::standard(MetricName::Divwarps);
    let a = analyze(&prog, &m, &hw, &l, &AnalysisOptions::default()).unwrap();
    warpcert_kernel::check(&a.certificate).expect("A rejected");
    let b = a.capped.as_ref().expect("mandelbrot: no capped bound");
    assert!(
        b.certificate.contains("(Q:WHILEEXITCAP "),
        "Q:WHILEEXITCAP not used"
    );
    let v = warpcert_kernel::check(&b.certificate).expect("B rejected");
    for (nb, crunch, w) in [
        (1i64, 0i64, 64i64),
        (1, 1000, 64),
        (3, 512, 33),
        (2, 20, 32),
    ] {
        let at = BTreeMap::from([
            ("numBlocks".to_string(), nb),
            ("crunch".to_string(), crunch),
            ("imageW".to_string(), w),
        ]);
        let want = nb * (62 + i64::from(w % 32 != 0));
        assert_eq!(b.bound.eval(&at), q(want), "B at {at:?} ({})", v.bound);
    }
    // B in Coq (CapCheck.v, capcons20): the capped loop sits in the grid-stride loop's
    // Q:WHILE1 body under two Q:IFALIGN branches, on `ccheck`'s spine; coqc accepts the
    // export, and refuses it with the first data exit (Q:IFEXIT4, `a = 1`) claimed as a
    // Q:IFEXIT1 that never splits (its test reads the data: not uniform under `D`)
    let file = warpcert::export::coq::export(&b.certificate).expect("B's export");
    assert!(file.contains("DWhileExitCap ") && file.contains("ccheck_root"));
    if !common::coq::coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; B's export is not checked");
        return;
    }
    let no_exit = file.replacen("DIfExit4 ", "DIfExit1 ", 1);
    common::coq::accepted_and_mutants_refuted(
        "capmandel",
        &[("mandel_capped", file.as_str())],
        &[("mandel_no_exit", no_exit.as_str())],
    );
}

/// The head of a Coq file about break_loop's capped loop: the `Require`s of the WarpCert
/// `theories` and the context `G` (`divwarps`, warp 32, 32 banks of 4 bytes, 32-byte
/// sectors, a block of `bx` threads).
fn coq_head(theories: &str, bx: u32) -> String {
    format!(
        "From Coq Require Import ZArith QArith List Arith.\n\
         From WarpCert Require Import {theories}.\n\
         Import ListNotations.\n\n\
         Definition G : ctx := {{| c_metric := divwarps; c_warp := 32%nat; c_banks := 32%Z;\n  \
         c_bank_bytes := 4%Z; c_sector_bytes := 32%Z; c_bx := {bx}%nat; c_by := 1%nat; c_bz := 1%nat;\n  \
         c_lty := fun _ => None; c_pty := fun _ => None; c_arr := fun _ => None;\n  \
         c_blockidx := []; c_griddim := []; c_bgrid := []; c_wu := [] |}}.\n\n"
    )
}

/// The bound of break_loop's capped certificate B (`divwarps`) as the kernel prints it,
/// asserted to be 93 (the truth for `n ≥ 32` by the hand derivation of
/// tests/precision/break_loop.cu), and that bound lowered by one (a mutant's claim). `None`
/// when coqc is absent, saying that `what` is not checked.
fn break_loop_cap_claims(what: &str) -> Option<(String, String)> {
    let a = analysis(&src("break_loop"), MetricName::Divwarps);
    let b = a.capped.as_ref().expect("no capped bound");
    let v = warpcert_kernel::check(&b.certificate).expect("B rejected");
    assert_eq!(v.bound, "93", "the kernel's bound of B");
    if !common::coq::coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); {what} is not checked");
        return None;
    }
    let lowered = (v.bound.parse::<i64>().unwrap() - 1).to_string();
    Some((v.bound, lowered))
}

/// C of NVIDIA's Mandelbrot (Q:WHILEEXITCAP2, the loop test paid per round; read through
/// tests/data/frontend/mandelbrot_wrapper.cu, skipped without the shared corpus) in Coq
/// (cap2wire20, CapCheck.v's `DWhileExitCap2`): for `divwarps` C is
/// `max0(numBlocks)·(33 + ⌊(crunch − 1)/20⌋⁺ + [32 ∤ imageW])` (hand, spec/logic.md §4a's
/// example: the exits' `31·(1 + 0)` and `2k = 2`, `k = M^if + M^div + C = 0 + 1 + 0`), for
/// `steps` the kernel's C (a third bound below A and B at a sampled point); both exports
/// print the capped loop as `DWhileExitCap2` under Q:WHILE1 / Q:IFALIGN on `ccheck`'s spine
/// and coqc accepts them. Mutant: `divwarps`'s `33` lowered to `32` at every place the
/// export prints it (the charge − 1), refused by coqc.
#[test]
fn mandelbrot_per_round_c_checks_in_coq() {
    if common::corpus_dir(
        "cuda-samples-subset",
        "mandelbrot_per_round_c_checks_in_coq",
    )
    .is_none()
    {
        return;
    }
    let path = common::root().join("tests/data/frontend/mandelbrot_wrapper.cu");
    let l = launch(None);
    let prog = common::load_for(&path, &l);
    let hw = Hardware::default();
    let mut files = Vec::new();
    for metric in [MetricName::Divwarps, MetricName::Steps] {
        let m = Metric::standard(metric);
        let a = analyze(&prog, &m, &hw, &l, &AnalysisOptions::default()).unwrap();
        let chain = a.chain();
        let c = *chain
            .iter()
            .find(|c| c.certificate.contains("(Q:WHILEEXITCAP2 "))
            .unwrap_or_else(|| panic!("{metric}: no C beside A and B"));
        let v = warpcert_kernel::check(&c.certificate)
            .unwrap_or_else(|e| panic!("{metric}: C rejected: {e}"));
        if metric == MetricName::Divwarps {
            for (nb, crunch, w) in [(1i64, 0i64, 64i64), (1, 1000, 64), (3, 200, 33)] {
                let at = BTreeMap::from([
                    ("numBlocks".to_string(), nb),
                    ("crunch".to_string(), crunch),
                    ("imageW".to_string(), w),
                ]);
                // the exit loop's floor atom (mandel20): one split a round of 20
                // iterations after the first, `⌊(crunch − 1)/20⌋⁺`
                let rounds = (crunch - 1).div_euclid(20).max(0);
                let want = q(nb * (33 + i64::from(w % 32 != 0) + rounds));
                assert_eq!(c.bound.eval(&at), want, "C at {at:?} ({})", v.bound);
            }
        }
        let file = warpcert::export::coq::export(&c.certificate)
            .unwrap_or_else(|e| panic!("{metric}: C's export: {e}"));
        assert_eq!(file.matches("DWhileExitCap2 ").count(), 1, "{metric}");
        assert!(file.contains("ccheck_root"), "{metric}");
        files.push((format!("mandel_capped2_{metric}"), file));
    }
    if !common::coq::coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; C's exports are not checked");
        return;
    }
    assert!(files[0].1.contains("(33 # 1)"));
    assert!(!files[0].1.contains("(32 # 1)"));
    let lowered = files[0].1.replace("(33 # 1)", "(32 # 1)");
    let ok: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, f)| (n.as_str(), f.as_str()))
        .collect();
    common::coq::accepted_and_mutants_refuted(
        "capmandel2",
        &ok,
        &[("mandel_capped2_lowered", lowered.as_str())],
    );
}

/// The Coq file of step (2) for a block of `bx` threads: `Cap.cap_loop_lanes` instantiated
/// with `k = a + t = 2` (break_loop: the data `if`, Q:IFEXIT4, and the flag test,
/// Q:FLAGEXIT) states that a capped loop costs its `M^div := 0` cost plus at most
/// `M^div·claim`, after `(S k)·(N − 1) = claim` is computed (`N = min(32, bx)`).
fn cap_budget_file(bx: u32, claim: &str) -> String {
    let head = coq_head("Metric Syntax Semantics Cap", bx);
    format!(
        "{head}\
         Lemma budget_ok : (S 2 * (cap_lanes G - 1) =? {claim})%nat = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Theorem loop_budget : forall F ps e b Inv, body_cap G F ps e b 2 Inv ->\n  \
         forall w s T s' C R C0, NoDup T -> incl T (lanes G w) ->\n  \
         seval G F ps s (SWhile e b) T s' C -> Inv s T -> eeval G F ps s e T R C0 ->\n  \
         exists C', seval (ctx_nodiv G) F ps s (SWhile e b) T s' C' /\\\n    \
         (C <= C' + m_div (c_metric G) * qn {claim})%Q.\n\
         Proof.\n  \
         intros F ps e b Inv Hb w s T s' C R C0 Hn Hi H HI He.\n  \
         pose proof budget_ok as E. apply Nat.eqb_eq in E. rewrite <- E.\n  \
         exact (cap_loop_lanes G F ps e b 2 Inv Hb w s T s' C R C0 Hn Hi H HI He).\n\
         Qed.\n\n\
         Print Assumptions loop_budget.\n"
    )
}

/// Step (2) of the cap rules in Coq (coq-export/theories/Cap.v, `cap_loop_lanes`, closed):
/// the split budget Coq proves for break_loop's capped loop on a block of 32 is the bound
/// of the kernel's certificate B (93, which the hand derivation of
/// tests/precision/break_loop.cu gives as the truth for `n ≥ 32`). Mutants, each refused
/// at the computation: B lowered by one (a cap charge of `(N − 1)·δ − 1`: 92 is not
/// `3·31`), and `N` taken as the block's threads instead of `min(warp, block)` (a block of
/// 64 claiming `3·63 = 189`: Coq's `cap_lanes` is `min(32, 64) = 32`). This is the step's
/// theorem with the body's premise as a hypothesis; the export of B, where CapCheck.v
/// derives the premise from the certificate, is `capped_certificates_check_in_coq_and_mutants_fail`.
#[test]
fn cap_budget_in_coq_is_the_kernels_charge() {
    let Some((bound, lowered)) = break_loop_cap_claims("the Coq cap budget") else {
        return;
    };
    common::coq::accepted_and_mutants_refuted(
        "cap",
        &[("cap_budget", cap_budget_file(32, &bound))],
        &[
            ("cap_lowered", cap_budget_file(32, &lowered)),
            ("cap_block_lanes", cap_budget_file(64, "189")),
        ],
    );
}

/// The Coq file of Q:WHILEGUARDCAP's soundness for break_loop's capped loop
/// (coq-export/theories/CapSound.v, `cap_guard_valid_FC`, closed): the charge `cap_delta`
/// of the per-lane count `k` (written `k_charge`) on a block of `bx` threads is computed to
/// `claim`, and the rule is valid under the kernel's pre `J + Q' + M^if + C + claim` for a
/// body whose counted meaning has break_loop's `a = 1` (the data `if`, Q:IFEXIT4) and
/// `t = 1` (the flag test, Q:FLAGEXIT). The two facts are first computed as booleans
/// (`count_b`: the charge's count is `a + t`; `charge_b`: the charge is `claim`), so that a
/// wrong one is refused by `vm_compute; reflexivity` (`true` vs `false`).
fn cap_sound_file(bx: u32, k_charge: &str, claim: &str) -> String {
    let head = coq_head(
        "Metric Syntax Semantics Lin Logic Soundness Cap CapSound",
        bx,
    );
    format!(
        "{head}\
         Lemma count_b : ({k_charge} =? 1 + 1)%nat = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Lemma charge_b : Qeq_bool (cap_delta G ({k_charge})) ({claim} # 1) = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Lemma charge_ok : cap_delta G ({k_charge}) = {claim} # 1.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Theorem capped_guard_loop : wu_sound G ->\n  \
         forall A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg,\n  \
         valid G A s0 (mkAssn P D Qn) -> c_lty G g = Some TBool ->\n  \
         guard_last G g GE s0 = true -> guard_last G g GE b = true ->\n  \
         qexpr (ctx_nodiv G) P D (EOpd (OVar g)) n C ->\n  \
         validF (ctx_nodiv G) false (EOpd (OVar g)) (mkAssn B D I) b (mkAssn PB D QB') ->\n  \
         validFC G 1 1 (EOpd (OVar g)) (mkAssn B D I) b (mkAssn PB D QB') ->\n  \
         cstrs_equiv B (P ++ GE) = true -> cstrs_equiv PB P = true ->\n  \
         pot_ge_under B rg QB' (padd I (m_if (c_metric G) + C)) = true ->\n  \
         pot_ge Qn (padd (pplus QB' Q') (m_if (c_metric G) + C + ({claim} # 1))) = true ->\n  \
         cstrs_equiv P' P = true ->\n  \
         dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->\n  \
         puni G D QB' = true -> pnonneg QB' = true -> puni G D' Q' = true ->\n  \
         valid G A (SSeq s0 (SWhile (EOpd (OVar g)) b)) (mkAssn P' D' Q').\n\
         Proof.\n  \
         intros HWU A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg V0 Hty Hg0 Hgb Hq V VC HB HPB\n    \
         HQB' Hpre HP' HcD HdD HuJ HnJ HuQ.\n  \
         rewrite <- charge_ok in Hpre.\n  \
         pose proof count_b as E. apply Nat.eqb_eq in E. try rewrite E in Hpre.\n  \
         exact (cap_guard_valid_FC G HWU A s0 g GE P D Qn Q' n C b B I PB QB' P' D' rg 1 1 V0 Hty\n    \
         Hg0 Hgb Hq V VC HB HPB HQB' Hpre HP' HcD HdD HuJ HnJ HuQ).\n\
         Qed.\n\n\
         Print Assumptions capped_guard_loop.\n"
    )
}

/// Q:WHILEGUARDCAP's soundness in Coq (CapSound.v, closed) with the kernel's charge of
/// certificate B for break_loop (93; the truth for `n ≥ 32` by the hand derivation of
/// tests/precision/break_loop.cu): `cap_delta` with `k = a + t = 2`, `N = min(32, 32)` is
/// `3·31 = 93`. Mutants, each refused by coqc (reasons derived by hand):
/// - a lowered cap charge, 92: `charge_b` is false (`3·31 = 93 ≠ 92`);
/// - a wrong `N`, the block's 64 threads (`3·63 = 189`): `cap_lanes` is `min(32, 64) = 32`,
///   so `charge_b` computes 93 ≠ 189;
/// - a wrong per-lane count, `k = 1` (the flag test forgotten) with its own charge
///   `2·31 = 62` (`charge_b` holds): the body's counts are `a = 1, t = 1`, and `count_b`
///   is false (`1 ≠ 1 + 1`); without it the theorem does not type-check either
///   (`cap_delta G 1` where `cap_guard_valid_FC` needs `cap_delta G (1 + 1)`).
///
/// The body's premises (`validFC`, its `ctx_nodiv` validity) are hypotheses here; in an
/// export of B, CapCheck.v derives them from the body's tree (`cwalk_sound`, `chk0_validF`).
#[test]
fn cap_rule_soundness_in_coq_takes_the_kernels_charge() {
    let Some((bound, lowered)) = break_loop_cap_claims("CapSound.v") else {
        return;
    };
    common::coq::accepted_and_mutants_refuted(
        "capsound",
        &[("cap_sound", cap_sound_file(32, "1 + 1", &bound))],
        &[
            ("cap_sound_lowered", cap_sound_file(32, "1 + 1", &lowered)),
            ("cap_sound_block_lanes", cap_sound_file(64, "1 + 1", "189")),
            ("cap_sound_per_lane", cap_sound_file(32, "1", "62")),
        ],
    );
}

/// `analyze --coq` on the loops answered `min(A, B)` (break_loop, for_return; block 32):
/// A's Coq file and B's `…_capped.v` (Q:WHILEGUARDCAP, CapCheck.v) are written and `coqc`
/// accepts both (closed), with no note on stderr and exit status 0; the temporary
/// certificates (A's and B's `.capped`) are removed.
#[test]
fn analyze_coq_writes_a_and_b() {
    let (tmp, scratch) = scratch_dirs("coqcap");
    let out = tmp.join("out");
    let mut files = Vec::new();
    for name in ["break_loop", "for_return"] {
        let file = Path::new("tests/precision").join(format!("{name}.cu"));
        let (ok, stdout, stderr) = analyze_coq(&file, &out, &scratch);
        assert!(ok, "{name}: {stderr}");
        assert!(
            stdout.contains(", 93") || stdout.contains(", 94"),
            "{name}: no min(A, B):\n{stdout}"
        );
        assert!(!stderr.contains("not exported to Coq"), "{name}: {stderr}");
        let v = out.join(format!("{name}_divwarps.v"));
        assert!(v.exists(), "{name}: A's Coq file not written");
        let vb = out.join(format!("{name}_divwarps_capped.v"));
        assert!(vb.exists(), "{name}: B's Coq file not written");
        files.push(v);
        files.push(vb);
    }
    let left: Vec<_> = files_in(&scratch)
        .into_iter()
        .filter(|n| n.ends_with(".cert") || n.contains(".capped"))
        .collect();
    assert!(left.is_empty(), "temporary certificates left: {left:?}");
    if common::coq::coqc_available() {
        common::coq::build_theories().unwrap_or_else(|e| panic!("{e}"));
        for (f, r) in files.iter().zip(common::coq::coqc_all(&files, 2)) {
            common::coq::assert_accepted(f.display(), &r);
        }
    } else {
        eprintln!("SKIPPED: coqc is not installed; the exports of A and B are not checked");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A fresh temporary directory for the test `tag` and its subdirectory `tmp` (the `TMPDIR`
/// of [`analyze_coq`], where the temporary certificates go).
fn scratch_dirs(tag: &str) -> (PathBuf, PathBuf) {
    let tmp = std::env::temp_dir().join(format!("warpcert-{tag}-{}", std::process::id()));
    let scratch = tmp.join("tmp");
    std::fs::create_dir_all(&scratch).unwrap();
    (tmp, scratch)
}

/// Runs `warpcert analyze FILE --metric divwarps --block 32 --coq OUT/` from the project
/// root with `TMPDIR` set to `scratch`: whether it succeeded, its stdout and its stderr.
fn analyze_coq(file: &Path, out: &Path, scratch: &Path) -> (bool, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .current_dir(common::root())
        .env("TMPDIR", scratch)
        .arg("analyze")
        .arg(file)
        .args(["--metric", "divwarps", "--block", "32", "--coq"])
        .arg(format!("{}/", out.display()))
        .output()
        .expect("warpcert runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (o.status.success(), text(&o.stdout), text(&o.stderr))
}

/// The names of the files in `dir`.
fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Why the `+ 1` of `δ = (a + t + 1)·M^div` stays for a `do … while (1)` left only by
/// `return`s (NVIDIA's `CalcMandelbrot` shape): the loop is lowered to `while (jmp < 2)`
/// (spec/lowering.md §6), and a lane that returns sets `jmp ← 3` and stays active until the
/// test, so a round in which some lanes return and others stay splits the warp twice, at the
/// data `if` (Q:IFEXIT4) and at the loop test. The loop's `D` is filtered (spec/logic.md
/// §4a: about the lanes that stay), where `jmp` is the uniform 0, so "the loop test is
/// uniform under `D`" does not rule the second split out. Hand count on the staircase input
/// (lane `k < 31` reads its negative cell `in[33k]` in round `i = k`): rounds `0 … 30` lose
/// one lane each with 2 splits, round 31 has lane 31 alone, which returns at `i + 1 >= n`
/// (`n = 32`): `31·2 = 62` = B, `(32 − 1)·(1 + 0 + 1)` (hand, from the rule); a charge
/// `(a + t)·31 = 31` would be unsound. The lock-step semantics reaches 62.
#[test]
fn return_loop_pays_the_loop_test_split_of_every_lane() {
    let s = "__global__ void k(float *out, const float *in, int n) {
  int i = 0;
  do {
    if (in[32 * i + threadIdx.x] < 0.0f) {
      return;
    }
    i = i + 1;
    if (i >= n) {
      return;
    }
  } while (1);
}";
    let a = analysis(s, MetricName::Divwarps);
    warpcert_kernel::check(&a.certificate).unwrap_or_else(|e| panic!("A rejected: {e:?}"));
    let b = a.capped.as_ref().expect("no capped bound");
    assert!(
        b.certificate.contains("(Q:WHILEEXITCAP "),
        "Q:WHILEEXITCAP not used"
    );
    let v = warpcert_kernel::check(&b.certificate).unwrap_or_else(|e| panic!("B rejected: {e:?}"));
    assert_eq!(v.bound, "62", "the kernel's bound of B");
    let truth = staircase(s, MetricName::Divwarps, 32, 31);
    assert_eq!(truth, q(62), "hand count of the staircase at n = 32");
    // no lane reads a negative cell: all leave together at `i >= n`, no split
    assert_eq!(staircase(s, MetricName::Divwarps, 32, 0), q(0));
    // the loop's `D` has `jmp0` uniform (the filtered entry 0), yet a certificate charging
    // `(a + t)·31 = 31` (the bound and the root's potential 31) is refused, by the kernel's
    // own lane-count charge at the loop node (pinned by message)
    assert!(b.certificate.contains("(d 0 (dep jmp0 0 0 0 0 0))"));
    assert_eq!(b.certificate.matches("(poly (62))").count(), 2);
    kernel_refuses(
        "a charge without the loop test",
        &b.certificate.replace("(poly (62))", "(poly (31))"),
        Some("Q:WHILEEXITCAP"),
        "pre differs from body pre + post + 2·loop-test cost (Q: `-31` vs `0`)",
    );
    // B in Coq (CapCheck.v `DWhileExitCap`, capcons20): coqc accepts it; the same charge
    // `(a + t)·31 = 31` written into the Coq file (every `62` of the root's potential, the
    // loop's pre and the bound) is refused by Coq's own charge `cap_delta (a + t)`
    let file = warpcert::export::coq::export(&b.certificate).expect("B's export");
    assert!(file.contains("DWhileExitCap ") && file.contains("ccheck_root"));
    assert!(
        file.matches("(62 # 1)").count() >= 2,
        "62 in the root pre and the bound"
    );
    if !common::coq::coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; B's export is not checked");
        return;
    }
    let halved = file.replace("(62 # 1)", "(31 # 1)");
    common::coq::accepted_and_mutants_refuted(
        "capreturn",
        &[("return_capped", file.as_str())],
        &[("return_halved", halved.as_str())],
    );
}

/// Q:WHILEEXITCAP2 (spec/logic.md §4a, issue 15, mandel19): a `do … while (1)` left by
/// `return`s with four data exits a round (`CalcMandelbrot`'s shape at a smaller scale: its
/// 20 exits a round make Q:WHILEEXIT2 pay every exit in every round, Q:WHILEEXITCAP the loop
/// test 31 times).
const RET4: &str = "__global__ void k(float *out, const float *in, int n) {
  int i = 0;
  do {
    if (in[128 * i + threadIdx.x] < 0.0f) {
      return;
    }
    if (in[128 * i + 32 + threadIdx.x] < 0.0f) {
      return;
    }
    if (in[128 * i + 64 + threadIdx.x] < 0.0f) {
      return;
    }
    if (in[128 * i + 96 + threadIdx.x] < 0.0f) {
      return;
    }
    i = i + 1;
    if (i >= n) {
      return;
    }
  } while (1);
}";

/// The lock-step `divwarps` of one warp of [`RET4`] at `n` when lane `t` with
/// `leave(t) = Some((r, e))` reads a negative cell at exit `e` of round `r` (the others never).
fn ret4_run(n: i64, leave: impl Fn(usize) -> Option<(usize, usize)>) -> Q {
    let mut cells = vec![Value::Float(1.0); 32 * 128];
    for t in 0..32 {
        if let Some((r, e)) = leave(t) {
            cells[128 * r + 32 * e + t] = Value::Float(-1.0);
        }
    }
    lock_step(RET4, MetricName::Divwarps, n, cells)
}

/// The third bound C of [`RET4`] (`divwarps`), by hand from Q:WHILEEXITCAP2: the four data
/// exits are Q:IFEXIT4 (`a = 1`, no flag test: `t = 0`), so the exits cost `(32 − 1)·1 = 31`
/// in all; the loop test pays `M^div` a round by the shift of `max0(n − i)` (`I = max0(n −
/// i)`), and `2k = 2`: `C = 33 + max0(n)`. A is `6 + 5·max0(n)` (five splits a round), B is
/// `62`; C is below both for `7 ≤ n ≤ 28`. Hand worst case at `n = 8`: lane `t < 31` leaves
/// at exit `t mod 4` of round `⌊t/4⌋` (alone at its exit, lanes behind it), lane 31 stays to
/// the end (`i >= n` returns it with lanes 28–30 gone): 31 exit splits, and a loop-test split
/// after each of rounds 0–6 (some lanes returned, some stay) = 38 ≤ C = 41. Lock-step
/// agrees, and stays within C on other inputs (every lane at the first exit, staggered
/// rounds, `n` from 1 to 28).
#[test]
fn per_round_test_bound_is_sound_on_the_lock_step_semantics() {
    let a = analysis(RET4, MetricName::Divwarps);
    let chain = a.chain();
    assert_eq!(chain.len(), 3, "no C beside A and B");
    let c = chain[2];
    assert!(
        c.certificate.contains("(Q:WHILEEXITCAP2 "),
        "{}",
        c.certificate
    );
    let v = warpcert_kernel::check(&c.certificate).unwrap_or_else(|e| panic!("C rejected: {e}"));
    assert_eq!(v.bound, "33 + max(0, n)");
    let vb = warpcert_kernel::check(&chain[1].certificate).expect("B rejected");
    assert_eq!(vb.bound, "62");
    assert_eq!(a.bound.to_bound_string(), "6 + 5*max(0, n)");
    let at = |n: i64| BTreeMap::from([("n".to_string(), n)]);
    let worst = ret4_run(8, |t| (t < 31).then_some((t / 4, t % 4)));
    assert_eq!(worst, q(38), "hand count at n = 8");
    assert_eq!(c.bound.eval(&at(8)), q(41));
    for n in [1i64, 2, 5, 8, 13, 20, 28] {
        let cn = c.bound.eval(&at(n));
        let rounds = n as usize;
        let runs = [
            ret4_run(n, |t| (t < 31).then_some((t / 4 % rounds, t % 4))),
            ret4_run(n, |t| (t % 2 == 0).then_some((0, 0))),
            ret4_run(n, |t| Some((t % rounds, 3 - t % 4))),
            ret4_run(n, |t| (t > 0).then_some(((t * 7) % rounds, (t * 3) % 4))),
        ];
        for (i, r) in runs.iter().enumerate() {
            assert!(*r <= cn, "n = {n}, input {i}: lock-step {r} > C = {cn}");
        }
    }
}

/// Kernel mutants of C (Q:WHILEEXITCAP2) for [`RET4`], pinned by message: (1) the
/// constant 33 lowered to 32, the body's pre kept (the loop's pre is 1 short of the
/// lane-count charge `31` plus the test's `2k = 2`); (2) C's loop named Q:WHILEEXITCAP (that rule charges `31·2 = 62` and
/// no `M^div` in the test: the pre does not match); (3) C's loop named Q:WHILEEXIT2 (its
/// body's exits are then charged `M^div`, which C's body nodes lack); (4) A's loop named
/// Q:WHILEEXITCAP2 (the body's exits charge `M^div`, while the capped body's exit nodes
/// must charge 0); (5) C on a 16-lane warp (`15·1`, not `31`). (6) `export-coq` prints C's
/// loop as CapCheck.v's `DWhileExitCap2` (cap2wire20; coqc's verdicts in
/// `per_round_certificate_checks_in_coq`).
#[test]
fn kernel_refuses_mutated_per_round_certificates() {
    let a = analysis(RET4, MetricName::Divwarps);
    let c = a.chain()[2].certificate.clone();
    assert_eq!(
        c.matches("(-33)").count(),
        1,
        "the body's pre: the loop's less 33"
    );
    kernel_refuses(
        "mutant 1",
        &c.replace("(33)", "(32)").replace("(-33)", "(-32)"),
        Some("Q:WHILEEXITCAP2"),
        "pre differs from body pre + post + 2·loop-test cost",
    );
    kernel_refuses(
        "mutant 2",
        &replace_first(&c, "(Q:WHILEEXITCAP2 ", "(Q:WHILEEXITCAP "),
        Some("Q:WHILEEXITCAP"),
        "body post differs from body pre + loop-test cost",
    );
    kernel_refuses(
        "mutant 3",
        &replace_first(&c, "(Q:WHILEEXITCAP2 ", "(Q:WHILEEXIT2 "),
        Some("Q:IFEXIT4"),
        "pre differs from then pre + else pre + M^if + C + M^div",
    );
    kernel_refuses(
        "mutant 4",
        &replace_first(&a.certificate, "(Q:WHILEEXIT2 ", "(Q:WHILEEXITCAP2 "),
        Some("Q:IFEXIT4"),
        "pre differs from then pre + else pre + M^if + C + M^div",
    );
    kernel_refuses(
        "mutant 5",
        &replace_first(&c, "(hardware 32 32 4 32)", "(hardware 16 32 4 32)"),
        Some("Q:WHILEEXITCAP2"),
        "pre differs from body pre + post + 2·loop-test cost",
    );
    let file = warpcert::export::coq::export(&c).unwrap_or_else(|e| panic!("export of C: {e}"));
    assert_eq!(
        file.matches("DWhileExitCap2 ").count(),
        1,
        "C's one capped loop"
    );
    assert!(file.contains("ccheck_root G tab body tree bound"));
    assert!(
        !file.contains("DWhileExitCap "),
        "C's loop printed as Q:WHILEEXITCAP"
    );
}

/// C of [`RET4`] (Q:WHILEEXITCAP2, bound `33 + max(0, n)`) in Coq (cap2wire20: Check.v's
/// `DWhileExitCap2`, checked by CapCheck.v's `ccheck`, the loop test's `k = M^if + M^div +
/// C` and the charge `cap2_delta (a + t)` computed by Coq from `cwalk`'s `a = 1`, `t = 0`):
/// coqc accepts the export (closed). Mutants, each a constant `2k + (N − 1)·(a + t)` other
/// than `2·1 + 31·1 = 33` (hand, divwarps: `k = 0 + 1 + 0`) written at every place the
/// export prints C's constant (the root's pre, the loop's pre, the bound), refused by coqc
/// at the `DWhileExitCap2` node's `pot_ge` on the pre:
/// - the charge lowered by one, `2 + 30 = 32`;
/// - the loop test's `k` without `M^div` (Q:WHILEEXITCAP's `M^if + C = 0`): `0 + 31 = 31`.
#[test]
fn per_round_certificate_checks_in_coq() {
    let a = analysis(RET4, MetricName::Divwarps);
    let c = a.chain()[2];
    assert!(c.certificate.contains("(Q:WHILEEXITCAP2 "));
    let v = warpcert_kernel::check(&c.certificate).unwrap_or_else(|e| panic!("C rejected: {e}"));
    assert_eq!(v.bound, "33 + max(0, n)");
    let file = warpcert::export::coq::export(&c.certificate).expect("C's export");
    assert!(file.contains("DWhileExitCap2 ") && file.contains("ccheck_root"));
    let n33 = file.matches("(33 # 1)").count();
    assert!(n33 >= 2, "33 in the root pre and the bound: {n33}");
    assert_eq!(file.matches("(32 # 1)").count(), 0);
    assert_eq!(file.matches("(31 # 1)").count(), 0);
    if !common::coq::coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; C's export is not checked");
        return;
    }
    let lowered = file.replace("(33 # 1)", "(32 # 1)");
    let no_div_k = file.replace("(33 # 1)", "(31 # 1)");
    common::coq::accepted_and_mutants_refuted(
        "capcheck2",
        &[("ret4_capped2", file.as_str())],
        &[
            ("ret4_capped2_lowered", lowered.as_str()),
            ("ret4_capped2_k_no_div", no_div_k.as_str()),
        ],
    );
}

/// The Coq file of Q:WHILEEXITCAP2's soundness for [`RET4`]'s loop
/// (coq-export/theories/CapSound2.v, `cap_exit2_valid_FC`, closed): the lane-count charge
/// `cap2_delta` of the per-lane count `k_charge` (`a + t`) on a block of `bx` threads is
/// computed to `claim`, the kernel's loop constant `konst` is `2k + claim` with the loop
/// test's `k = k_test` at the test's cost `C = 0` (divwarps: `m_if = 0`, `m_div = 1`, and a
/// test that reads no array costs 0), and the rule is valid under the kernel's pre
/// `I + Q' + 2k + claim` for a body whose counted meaning has [`RET4`]'s `a = 1` (its four
/// data exits, Q:IFEXIT4) and `t = 0` (no flag test). The facts are first computed as
/// booleans (`count_b`, `charge_b`, `loop_const_b`), so that a wrong one is refused by
/// `vm_compute; reflexivity` (`true` vs `false`).
fn cap_exit2_sound_file(bx: u32, k_charge: &str, claim: &str, k_test: &str, konst: &str) -> String {
    format!(
        "From Coq Require Import ZArith QArith List Arith.\n\
         From WarpCert Require Import Metric Syntax Semantics Lin Logic Soundness Cap CapSound CapSound2.\n\
         Import ListNotations.\n\n\
         Definition G : ctx := {{| c_metric := divwarps; c_warp := 32%nat; c_banks := 32%Z;\n  \
         c_bank_bytes := 4%Z; c_sector_bytes := 32%Z; c_bx := {bx}%nat; c_by := 1%nat; c_bz := 1%nat;\n  \
         c_lty := fun _ => None; c_pty := fun _ => None; c_arr := fun _ => None;\n  \
         c_blockidx := []; c_griddim := []; c_bgrid := []; c_wu := [] |}}.\n\n\
         Lemma count_b : ({k_charge} =? 1 + 0)%nat = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Lemma charge_b : Qeq_bool (cap2_delta G ({k_charge})) ({claim} # 1) = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Lemma loop_const_b : Qeq_bool (let C := 0 in ({k_test}) + ({k_test}) + ({claim} # 1)) ({konst} # 1) = true.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Lemma charge_ok : cap2_delta G ({k_charge}) = {claim} # 1.\n\
         Proof. vm_compute. reflexivity. Qed.\n\n\
         Theorem capped_exit2_loop : wu_sound G ->\n  \
         forall P D Qn Q' e n C b B I PB QB' P' D',\n  \
         qexpr (ctx_nodiv G) P D e n C -> noread e = true ->\n  \
         validF (ctx_nodiv G) false e (mkAssn B D I) b (mkAssn PB D QB') ->\n  \
         validFC G 1 0 e (mkAssn B D I) b (mkAssn PB D QB') ->\n  \
         cstrs_equiv B (P ++ fst (cond G e)) = true -> cstrs_equiv PB P = true ->\n  \
         pot_ge QB' (padd I ({k_test})) = true ->\n  \
         pot_ge Qn (padd (pplus I Q') (({k_test}) + ({k_test}) + ({claim} # 1))) = true ->\n  \
         cstrs_equiv P' (P ++ snd (cond G e)) = true ->\n  \
         dcovers D D' = true -> disjoint (dvars D') (writes b) = true ->\n  \
         puni G D I = true -> pnonneg I = true -> puni G D' Q' = true ->\n  \
         valid G (mkAssn P D Qn) (SWhile e b) (mkAssn P' D' Q').\n\
         Proof.\n  \
         intros HWU P D Qn Q' e n C b B I PB QB' P' D' Hq Hnr V VC HB HPB HQB' Hpre HP' HcD HdD\n    \
         HuI HnI HuQ.\n  \
         rewrite <- charge_ok in Hpre.\n  \
         pose proof count_b as E. apply Nat.eqb_eq in E. try rewrite E in Hpre.\n  \
         exact (cap_exit2_valid_FC G HWU P D Qn Q' e n C b B I PB QB' P' D' 1 0 Hq Hnr V VC HB HPB\n    \
         HQB' Hpre HP' HcD HdD HuI HnI HuQ).\n\
         Qed.\n\n\
         Print Assumptions capped_exit2_loop.\n"
    )
}

/// Q:WHILEEXITCAP2's soundness in Coq (CapSound2.v, closed) for [`RET4`]'s certificate C:
/// the kernel's bound `33 + max(0, n)` has the loop constant 33 = `2k + (N − 1)·(a + t)`,
/// by hand `2·1 + 31·(1 + 0)` (divwarps: `k = M^if + M^div + C = 0 + 1 + 0`; `N = min(32,
/// 32)`, `a = 1`, `t = 0`; the derivation in
/// `per_round_test_bound_is_sound_on_the_lock_step_semantics`). coqc accepts the theorem
/// with the charge 31 and the kernel's 33. Mutants, each refused by coqc at a computed
/// boolean (reasons by hand):
/// - the charge lowered to 30: `charge_b` is false (`31·1 = 31 ≠ 30`);
/// - a wrong `k` of the loop test, Q:WHILEEXITCAP's `M^if + C` (the test's split not paid
///   per round): `loop_const_b` is false (`0 + 0 + 31 = 31 ≠ 33`); without it the theorem
///   does not type-check either (`cap_exit2_valid_FC` needs `M^if + M^div + C`);
/// - a wrong per-lane count, `k = 1 + 1` (a flag test that the body does not have) with its
///   own charge `2·31 = 62` (`charge_b` holds): `count_b` is false (`2 ≠ 1 + 0`);
/// - the block's 64 threads as `N` with the charge `63`: `cap_lanes` is `min(32, 64) = 32`,
///   `charge_b` computes 31 ≠ 63.
///
/// The body's premises (`validFC`, its `ctx_nodiv` validity) are hypotheses here, as for
/// Q:WHILEEXITCAP (`cap_rule_soundness_in_coq_takes_the_kernels_charge`); CapCheck.v's
/// `ccheck` discharges them for a certificate (`per_round_certificate_checks_in_coq`).
#[test]
fn per_round_rule_soundness_in_coq_takes_the_kernels_charge() {
    let a = analysis(RET4, MetricName::Divwarps);
    let c = a.chain()[2];
    assert!(
        c.certificate.contains("(Q:WHILEEXITCAP2 "),
        "{}",
        c.certificate
    );
    let v = warpcert_kernel::check(&c.certificate).unwrap_or_else(|e| panic!("C rejected: {e}"));
    assert_eq!(v.bound, "33 + max(0, n)", "the kernel's bound of C");
    let konst = v.bound.split(" + ").next().unwrap().to_string();
    if !common::coq::coqc_available() {
        eprintln!(
            "SKIPPED: coqc is not installed (apt-get install -y coq); CapSound2.v is not checked"
        );
        return;
    }
    // the loop test's `k` of Q:WHILEEXITCAP2 (Q:WHILEEXIT2's) and of Q:WHILEEXITCAP
    let k2 = "m_if (c_metric G) + m_div (c_metric G) + C";
    let k1 = "m_if (c_metric G) + C";
    let f = |bx, kc, claim, kt| cap_exit2_sound_file(bx, kc, claim, kt, &konst);
    common::coq::accepted_and_mutants_refuted(
        "capsound2",
        &[("cap_exit2_sound", f(32, "1 + 0", "31", k2))],
        &[
            ("cap_exit2_lowered", f(32, "1 + 0", "30", k2)),
            ("cap_exit2_test_k", f(32, "1 + 0", "31", k1)),
            ("cap_exit2_per_lane", f(32, "1 + 1", "62", k2)),
            ("cap_exit2_block_lanes", f(64, "1 + 0", "63", k2)),
        ],
    );
}

/// `analyze --coq` on [`RET4`] (answer `min(A, B, C)`, C by Q:WHILEEXITCAP2): the printed
/// answer has the three parts (hand values in `per_round_test_bound_is_sound_on_the_lock_step_semantics`),
/// C is exported to `…_capped2.v` (CapCheck.v's `DWhileExitCap2`, cap2wire20) with no note
/// on stderr, the exit status is 0 and the temporary certificates (`.capped`, `.capped2`)
/// are removed.
#[test]
fn analyze_coq_writes_c_and_leaves_no_temporary_file() {
    let (tmp, scratch) = scratch_dirs("coqcap2");
    let src = tmp.join("ret4.cu");
    std::fs::write(&src, RET4).unwrap();
    let (ok, stdout, stderr) = analyze_coq(&src, &tmp.join("out"), &scratch);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("min(6 + 5*max(0, n), 62, 33 + max(0, n))"),
        "{stdout}"
    );
    assert!(!stderr.contains("not exported to Coq"), "{stderr}");
    let vc = tmp.join("out").join("k_divwarps_capped2.v");
    let text = std::fs::read_to_string(&vc)
        .unwrap_or_else(|e| panic!("C's Coq file {}: {e}", vc.display()));
    assert!(text.contains("DWhileExitCap2 ") && text.contains("ccheck_root"));
    let left = files_in(&scratch);
    assert!(left.is_empty(), "temporary files left: {left:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}
