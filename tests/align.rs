//! Q:IFALIGN (spec/logic.md §4, issue 15): a divergent `if` whose test splits a warp only
//! off a residue class is charged `M^div·[m ∤ s − X]` (a residue atom, spec/logic.md §1)
//! instead of `M^div`. Expected values are hand-derived (comments); the kernel checks every
//! certificate, and rejects a mutant whose warps are not aligned.

use std::collections::BTreeMap;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::cli::precision::{load, measure_with, suite, Case};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Metric, MetricName};

/// The options of `analyze`: Q:IFALIGN on (the default; `--no-align` turns it off).
fn align() -> AnalysisOptions {
    AnalysisOptions {
        align: true,
        ..AnalysisOptions::default()
    }
}

fn case(name: &str) -> Case {
    suite()
        .into_iter()
        .find(|c| c.name == name)
        .expect("precision case")
}

/// The divwarps bound and certificate of a precision case with Q:IFALIGN enabled.
fn divwarps(name: &str) -> (warpcert::core::assertion::poly::Poly, String) {
    let c = case(name);
    let hw = Hardware::default();
    let prog = load(&c, &hw).unwrap();
    let launch = warpcert::core::Launch {
        block: c.block,
        grid: c.concrete_grid.map(|g| [g, 1, 1]),
    };
    let a = analyze(
        &prog,
        &Metric::standard(MetricName::Divwarps),
        &hw,
        &launch,
        &align(),
    )
    .unwrap();
    (a.bound, a.certificate)
}

fn at(n: i64) -> BTreeMap<String, i64> {
    BTreeMap::from([("n".to_string(), n)])
}

/// guard_device.cu (block 256): a warp covers `i = 256b + 32w + l`, `l = 0 … 31`, so
/// `i < n` splits it iff `256b + 32w < n < 256b + 32w + 32`, which needs `32 ∤ n`; the
/// only branch is that `if`, whose split costs 1. Worst: 0 when `32 | n` (n = 4096), 1
/// otherwise (n = 4097: the warp with `256b + 32w = 4096` splits).
#[test]
fn guard_device_divwarps_is_the_residue_indicator() {
    let (bound, cert) = divwarps("guard_device");
    warpcert_kernel::check(&cert).expect("kernel accepts the Q:IFALIGN certificate");
    assert!(cert.contains("Q:IFALIGN"), "the certificate uses Q:IFALIGN");
    assert_eq!(bound.eval(&at(4096)), Q::from_integer(0.into()));
    assert_eq!(bound.eval(&at(4097)), Q::from_integer(1.into()));
    assert_eq!(bound.eval(&at(33)), Q::from_integer(1.into()));
    assert_eq!(bound.eval(&at(0)), Q::from_integer(0.into()));
}

/// grid240.cu (block 256, grid 240): the same argument for `if (i < n)`; 61440 = 1920·32
/// gives 0, 1000 = 31·32 + 8 gives 1.
#[test]
fn grid240_divwarps_is_the_residue_indicator() {
    let (bound, cert) = divwarps("grid240");
    warpcert_kernel::check(&cert).expect("kernel accepts the Q:IFALIGN certificate");
    assert_eq!(bound.eval(&at(61440)), Q::from_integer(0.into()));
    assert_eq!(bound.eval(&at(1000)), Q::from_integer(1.into()));
}

/// With the rule enabled every bound of the three cases is still at least the lock-step
/// semantics' largest per-warp cost at every point (no unsound cell), and the divwarps
/// cells have worst ratio 1 where they were ∞ (truth 0 at n ≡ 0 mod 32: bound 0 there).
/// guard_loop tests the guard in every round of a loop: its charge `[32 ∤ n]` joins the
/// loop's candidate atoms (derive/nest.rs), so the invariant pays `max0(m − k)·[32 ∤ n]`;
/// without that the analysis fell back to Q:IF4 and `max(0, m)` (∞ at 32 | n).
#[test]
fn align_cells_are_sound_and_exact() {
    let hw = Hardware::default();
    for name in ["guard_device", "grid240", "guard_loop"] {
        let m = measure_with(&case(name), &hw, &align()).unwrap();
        for c in &m.cells {
            assert!(
                c.bound.is_none() || c.accepted,
                "{name} {}: rejected",
                c.metric
            );
            for p in &c.points {
                assert!(p.sound(), "{name} {} unsound at {:?}", c.metric, p.at);
                if c.metric == MetricName::Divwarps {
                    assert_eq!(
                        p.bound.as_ref(),
                        Some(&p.truth),
                        "{name} divwarps at {:?}",
                        p.at
                    );
                }
            }
        }
    }
}

/// A mutant whose warps are not aligned: the block of 240 threads indexes
/// `i = 240·blockIdx.x + threadIdx.x`, so block 1's warp 0 covers 240 … 271 and
/// `i < 256` splits it although `32 | 256`; the certificate keeps the aligned charge
/// `[32 ∤ n]` (0 at n = 256, below the true 1) and its class `(class 1 32)`. The class
/// passes the window check of the block of 240 (warps 0–6 miss `≡ 1 (mod 32)` as in a
/// block of 256; warp 7, lanes 224 … 239, has the window `[−238, −224]`, residues 18 … 31
/// and 0), but the offset of `i − n + 1` is only known mod `G = 240`, which 32 does not
/// divide: the kernel rejects the class.
#[test]
fn unaligned_mutant_is_rejected() {
    let (_, cert) = divwarps("guard_device");
    let mutant = cert
        .replace("(launch 256 1 1)", "(launch 240 1 1)")
        .replace(
            "(bin * (param blockIdx.x) (int 256))",
            "(bin * (param blockIdx.x) (int 240))",
        )
        .replace("(lin -255 (1 threadIdx.x))", "(lin -239 (1 threadIdx.x))")
        .replace("(-256 blockIdx.x)", "(-240 blockIdx.x)")
        .replace("(dep i 1 0 0 0 256)", "(dep i 1 0 0 0 240)")
        .replace("(dep i_1 1 0 0 0 256)", "(dep i_1 1 0 0 0 240)")
        .replace("(dep t0 0 0 0 0 256)", "(dep t0 0 0 0 0 240)");
    assert_ne!(mutant, cert);
    let err = warpcert_kernel::check(&mutant).expect_err("the unaligned mutant must be rejected");
    let msg = err.to_string();
    assert!(
        msg.contains("rule Q:IFALIGN at node")
            && msg.contains("the residue class (class 1 32)")
            && msg.contains("M does not divide the local class's modulus G"),
        "{msg}"
    );
}

/// The class is the certificate's, checked and not searched (spec/logic.md §4): in
/// guard_device's certificate (block 256, `G = 256`) the class `(1, 16)` divides `G` but
/// meets every warp's window (31 consecutive integers meet every class mod 16), `(1, 0)`
/// is not a modulus, a Q:IFALIGN node without `(class …)` lacks its field, and Q:IF4 has
/// no such field.
#[test]
fn the_class_is_checked_not_searched() {
    let (_, cert) = divwarps("guard_device");
    assert_eq!(
        cert.matches("(class 1 32)").count(),
        1,
        "one Q:IFALIGN node, class (1, 32)"
    );
    let reject = |mutant: String, pins: &[&str]| {
        assert_ne!(mutant, cert);
        let msg = warpcert_kernel::check(&mutant)
            .expect_err(pins[0])
            .to_string();
        assert!(pins.iter().all(|p| msg.contains(p)), "{msg}");
    };
    let not_its = "is not one of the test `";
    reject(
        cert.replace("(class 1 32)", "(class 1 16)"),
        &[
            "(class 1 16)",
            not_its,
            "a warp's window meets the class (Q:WHILEWARP's window check fails)",
        ],
    );
    reject(
        cert.replace("(class 1 32)", "(class 1 0)"),
        &["(class 1 0)", not_its, ": M < 1"],
    );
    reject(
        cert.replace("(class 1 32)", ""),
        &["missing field (class …)"],
    );
    let if4 = cert
        .replace("(class 1 32)", "")
        .replace("Q:IFALIGN", "Q:IF4")
        .replacen("(entail else-cond", "(class 1 32)(entail else-cond", 1);
    reject(if4, &["unexpected field (class …)"]);
}

mod common;

/// The Coq export of guard_device's divwarps certificate (`DIfAlign`, a residue atom) is
/// accepted by `coqc` (Soundness.sound_Q_IFALIGN, Check.v's DIfAlign case), and a mutant
/// whose class claims the modulus 16 is refused by the reflective check: with `m = 16`
/// every class meets a warp's window of 31 consecutive offsets (`nosplit_ok` fails), and
/// the atom `[16 ∤ n]` is not the pre potential's `[32 ∤ n]`. Skipped without `coqc`.
#[test]
fn coq_accepts_ifalign_and_refutes_a_wrong_modulus() {
    if !common::coq::coqc_available() {
        eprintln!("coqc not installed: skipped");
        return;
    }
    let (_, cert) = divwarps("guard_device");
    let v = warpcert::export::coq::export(&cert).expect("export");
    let class = "(1)%Z 32%positive";
    assert!(v.contains("DIfAlign") && v.contains(class), "{v}");
    let mutant = v.replacen(class, "(1)%Z 16%positive", 1);
    common::coq::accepted_and_mutants_refuted(
        "align",
        &[("align_guard_device", v.as_str())],
        &[("align_guard_device_m16", mutant.as_str())],
    );
}
