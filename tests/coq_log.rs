//! Log atoms in Coq (issue 15; spec/logic.md §1 "Log atoms", "Quotient log atoms", §4
//! "Halving"; spec/certificate.md "Log rewrites"): the sectors certificates of the precision
//! suite's halving kernel (`8·⌊log2 2n⌋⁺`: the rewrite `(lhalve …)` and Q:VWRITE1's bounding
//! substitution `s ← s/2` in a log atom) and doubling kernel (`4·⌊log2 (2n − 2)⌋⁺`: quotient
//! log atoms `(log2q L i)` and the rewrite `(ldouble …)`) export to Coq files that `coqc`
//! accepts with closed theorems (`Lin.akind`'s `KLog`/`KLogQ`, `Logic.RLHalve`/`RLDouble`,
//! soundness from Log.v's `lhalve_sound`, `ldouble_sound`), and mutants are refused by the
//! reflective check. Skips the `coqc` part, saying so, when `coqc` is not installed.

mod common;

use common::coq::{accepted_and_mutants_refuted, coqc_available, mutate_after};
use warpcert::core::MetricName;
use warpcert::export::coq::export;

/// The Coq export of the sectors certificate of `tests/precision/{name}.cu` (one block of
/// 32, the floor form).
fn exported(name: &str) -> String {
    let a = common::precision_one_block(name, MetricName::Sectors);
    export(&a.certificate).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `text` with every occurrence of `from` replaced by `to`; there must be `n` of them.
fn replace_n(text: &str, from: &str, to: &str, n: usize) -> String {
    assert_eq!(text.matches(from).count(), n, "`{from}` in the export");
    text.replace(from, to)
}

/// The halving and doubling exports are accepted; their mutants are refused:
/// - the bound lowered by 1 (the root potential and `bound` both): false at `n = 1` for
///   halving (one round, 8 sectors > `8·⌊log2 2⌋ − 1 = 7`) and at `n = 2` for doubling (one
///   round `i = 1`, 4 sectors > `4·⌊log2 2⌋ − 1 = 3`), hand counts from the kernels' comments;
/// - the `lhalve` witness for `P ⇒ 2s ≥ 2` with multiplier 1 on `1 − s ≤ 0` (constraint 6)
///   instead of 2: `(2 − 2s) − (1 − s) = 1 − s` is not a constant;
/// - the second `ldouble` witness, for `P ⇒ 2i ≤ 2n − 2`, with multiplier 1 on
///   `1 + i − n ≤ 0` (constraint 7) instead of 2: `(2i − 2n + 2) − (1 + i − n)` is not a
///   constant.
#[test]
fn log_atoms_check_in_coq_and_mutants_fail() {
    let halving = exported("halving");
    let doubling = exported("doubling");
    // (lhalve (lin 0 (2 s)) (farkas (6 2))): L = 2s (s is local 0), scale 1, target 2 − 2s
    let lhalve = "RLHalve (mkLin 0%Z [(2%Z, VL 0)]) 1%positive (1%Z, [(6, 2%Z)])";
    assert!(
        halving.contains(lhalve),
        "no {lhalve} in the halving export"
    );
    // (ldouble (lin -2 (2 n)) (lin 0 (1 i)) (farkas (6 1)) (farkas (7 2))); n is parameter 0
    let ldouble = "RLDouble (mkLin (-2)%Z [(2%Z, VP 0)]) 1%positive (mkLin 0%Z [(1%Z, VL 0)]) (1%Z, [(6, 1%Z)]) (1%Z, [(7, 2%Z)])";
    assert!(
        doubling.contains(ldouble),
        "no {ldouble} in the doubling export"
    );
    let hbound = "mkPot (0 # 1) [((8 # 1), [mkAtmK (mkLin 0%Z [(2%Z, VP 0)]) 1%positive KLog])]";
    let dbound = "mkPot (0 # 1) [((4 # 1), [mkAtmK (mkLin (-2)%Z [(2%Z, VP 0)]) 1%positive KLog])]";
    let lower = |b: &str| b.replacen("mkPot (0 # 1)", "mkPot ((-1) # 1)", 1);
    let muts = [
        (
            "mutant_halving_bound",
            replace_n(&halving, hbound, &lower(hbound), 2),
        ),
        (
            "mutant_doubling_bound",
            replace_n(&doubling, dbound, &lower(dbound), 2),
        ),
        (
            "mutant_lhalve_witness",
            mutate_after(
                &halving,
                "RLHalve",
                "(1%Z, [(6, 2%Z)])",
                "(1%Z, [(6, 1%Z)])",
            ),
        ),
        (
            "mutant_ldouble_witness",
            mutate_after(
                &doubling,
                "RLDouble",
                "(1%Z, [(7, 2%Z)])",
                "(1%Z, [(7, 1%Z)])",
            ),
        ),
    ];
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "log",
        &[
            ("halving_sectors", halving.as_str()),
            ("doubling_sectors", doubling.as_str()),
        ],
        &muts
            .iter()
            .map(|(n, t)| (*n, t.as_str()))
            .collect::<Vec<_>>(),
    );
}
