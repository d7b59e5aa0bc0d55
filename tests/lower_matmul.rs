//! matrixMul `sectors`, issue 14's Done-when: `warpcert analyze matrixMul.cu --metric
//! sectors --cert DIR` prints the floor-form bound as `exact` (`=`), and `warpcert check`
//! accepts both certificates in DIR, the upper one (role `upper`) and the lower one (role
//! `lower`, warp 0), both with that bound; `--relation auto` answers the same certified,
//! exact bound. At the benchmark's 32×32 block the bound `5 + 10·T` is attained too, but
//! only where `wA` and `wB` are not multiples of 8: the lower certificate states that region
//! as congruence hypotheses `wA ≡ wB ≡ 1 (mod 8)` and proves warp 1's cost with warp-exact
//! products (spec/logic.md §4b "Warp-exact products"), so that answer is `exact` too
//! (matrixMul and matrixMulTranspose), with both certificates accepted by the kernel and
//! the lower one by `coqc`; mutants of its congruences, entries and counts are rejected.
//!
//! Hand derivation (matrixMul.cu, `a` from `aBegin = 32·wA·by` to `aEnd = aBegin + wA − 1`
//! in steps of 32): the loop runs `T = ⌊(wA + 31)/32⌋⁺` rounds (`⌊(wA − 1)/32⌋ + 1` for
//! `wA ≥ 1`, none for `wA ≤ 0`). Block 256×1 (no header, the default): every lane has
//! `ty = 0`, so a warp's 32 lanes read `A[a + tx]` with `a` a multiple of 32 and
//! `B[32·bx + 32·wB·j + tx]` (a multiple of 32 plus `tx`): 32 consecutive 4-byte floats from a
//! multiple of 128 bytes, 4 sectors each, 8 per round; the store `C[32·wB·by + 32·bx + tx]`
//! after the loop is 4 more. Shared-memory accesses cost no sectors. Every warp costs
//! `4 + 8·T`. Block 32×32: warp `w` has `ty = w`, so its rows start at `wA·w` (A), `wB·w`
//! (B, C) elements after a multiple of 32: at `wA ≡ wB ≡ 1 (mod 8)` warp 1's three accesses
//! start 4 bytes into a sector and touch 5 sectors each (`5 + 10·T`); at `wA ≡ wB ≡ 0
//! (mod 8)` every warp's are aligned (`4 + 8·T`). The lock-step semantics confirms each.
//!
//! Corpus tests skip, saying so, when `../shared` is absent.

mod common;

use common::warp_cost;

use common::{load_for, racuda_corpus, root, warpcert_output, warpcert_stdout};
use std::collections::BTreeMap;
use warpcert::core::metric::{q, MetricName, Q};
use warpcert::core::Launch;

/// The bound of the Done-when, as the kernel renders it (`warpcert check`).
const EXACT: &str = "4 + 8*max(0, ⌊(wA + 31)/32⌋)";

/// `T = ⌊(wA + 31)/32⌋⁺`, the rounds of the tile loop (hand derivation above).
fn rounds(wa: i64) -> i64 {
    (wa + 31).div_euclid(32).max(0)
}

/// The sectors of warp `w` of block `b` at `wA`, `wB`, under the lock-step semantics of the
/// symbolic program (zero inputs).
fn warp_sectors(launch: &Launch, b: [u32; 3], w: u64, wa: i64, wb: i64) -> Q {
    warp_sectors_of("matrixMul.cu", launch, b, w, wa, wb)
}

/// [`warp_sectors`] for the corpus kernel `name`.
fn warp_sectors_of(name: &str, launch: &Launch, b: [u32; 3], w: u64, wa: i64, wb: i64) -> Q {
    let path = root().join("../shared/corpus/racuda").join(name);
    let prog = load_for(&path, launch);
    warp_cost(
        &prog,
        MetricName::Sectors,
        launch,
        b,
        w,
        &[("wA", wa), ("wB", wb)],
    )
}

#[test]
fn matrixmul_sectors_is_exact_with_both_certificates() {
    let Some(dir) = racuda_corpus("matrixmul_sectors_is_exact_with_both_certificates") else {
        return;
    };
    let file = dir.join("matrixMul.cu").display().to_string();
    let out = std::env::temp_dir().join(format!("warpcert-mm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let (ok, text) = warpcert_output(&[
        "analyze",
        &file,
        "--metric",
        "sectors",
        "--cert",
        &out.display().to_string(),
    ]);
    assert!(ok, "{text}");
    assert!(
        text.contains("per warp  = 4 + 8*⌊(wA + 31)/32⌋⁺"),
        "the floor-form bound, exact:\n{text}"
    );
    let upper = out.join("MatrixMulCUDA.sectors.cert");
    let lower = out.join("MatrixMulCUDA.sectors.lower.cert");
    for (path, role, rel) in [
        (&upper, "role: upper", "per-warp cost <= "),
        (&lower, "role: lower", "cost of warp 0 >= "),
    ] {
        let (ok, check) = warpcert_output(&["check", &path.display().to_string()]);
        assert!(ok, "{}: {check}", path.display());
        assert!(check.starts_with("ACCEPTED"), "{check}");
        assert!(check.contains(&format!("{rel}{EXACT} (")), "{check}");
        assert!(check.contains(role), "{check}");
    }
    let _ = std::fs::remove_dir_all(&out);

    // the semantics: every warp of every block costs exactly 4 + 8·T (block 256×1)
    let launch = Launch {
        block: [256, 1, 1],
        grid: None,
    };
    for wa in [-3, 0, 1, 31, 32, 33, 64, 65, 100] {
        for wb in [1, 7, 32] {
            for (b, w) in [([0, 0, 0], 0), ([1, 2, 0], 3), ([2, 1, 0], 7)] {
                assert_eq!(
                    warp_sectors(&launch, b, w, wa, wb),
                    q(4 + 8 * rounds(wa)),
                    "wA={wa} wB={wb} block {b:?} warp {w}"
                );
            }
        }
    }
}

/// `--relation auto`: the answer is the certified bound, `exact` because a lower-bound
/// certificate with the same bound was accepted too, both written (`FILE.cert`,
/// `FILE.lower.cert`); Pico's formula is shown apart as unchecked.
#[test]
fn relation_auto_answers_the_certified_exact_bound() {
    let Some(dir) = racuda_corpus("relation_auto_answers_the_certified_exact_bound") else {
        return;
    };
    let file = dir.join("matrixMul.cu").display().to_string();
    let out = std::env::temp_dir().join(format!("warpcert-mm-rel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let cert = out.join("mm.cert");
    let text = warpcert_stdout(&[
        "analyze",
        &file,
        "--metric",
        "sectors",
        "--relation",
        "auto",
        "--format",
        "json",
        "--cert",
        &cert.display().to_string(),
    ]);
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(v[0]["relation"], "exact", "{text}");
    assert_eq!(v[0]["per_warp"], EXACT, "{text}");
    let lower = &v[0]["certified"]["lower"];
    assert_eq!(lower["bound"], EXACT, "{text}");
    assert_eq!(lower["checked"], true, "{text}");
    let lpath = out.join("mm.lower.cert");
    assert_eq!(lower["path"], lpath.display().to_string(), "{text}");
    let (ok, check) = warpcert_output(&["check", &lpath.display().to_string()]);
    assert!(ok && check.contains("role: lower"), "{check}");
    let _ = std::fs::remove_dir_all(&out);
}

/// Block 32×32 (the benchmark's launch): the certified upper bound `5 + 10·T` is attained by
/// warp 1 where `wA ≡ wB ≡ 1 (mod 8)`; where both are multiples of 8, no warp costs more than `4 + 8·T` (hand derivation in the
/// module docs). So the bound is tight, but only on an alignment region, not on a region of
/// linear facts: the lower certificate needs congruence hypotheses (next test).
#[test]
fn matrixmul_32x32_attains_the_upper_bound_only_off_alignment() {
    if racuda_corpus("matrixmul_32x32_attains_the_upper_bound_only_off_alignment").is_none() {
        return;
    }
    let launch = Launch {
        block: [32, 32, 1],
        grid: None,
    };
    for wa in [1, 9, 33, 97] {
        assert_eq!(
            warp_sectors(&launch, [0, 0, 0], 1, wa, wa),
            q(5 + 10 * rounds(wa)),
            "wA=wB={wa}: warp 1"
        );
    }
    let mut worst: BTreeMap<i64, Q> = BTreeMap::new();
    for wa in [8, 32, 64] {
        for w in 0..32 {
            let c = warp_sectors(&launch, [1, 1, 0], w, wa, wa);
            let e = worst.entry(wa).or_insert_with(|| q(0));
            if c > *e {
                *e = c;
            }
        }
        assert_eq!(worst[&wa], q(4 + 8 * rounds(wa)), "wA=wB={wa}: worst warp");
    }
}

/// The bound of the 32×32 block, as the kernel renders it.
const EXACT32: &str = "5 + 10*max(0, ⌊(wA + 31)/32⌋)";

/// Block 32×32 (`warpcert bench`'s launch), matrixMul and matrixMulTranspose `sectors`: the
/// answer is `exact`, `5 + 10·T`, the lower certificate about warp 1 under the congruence
/// hypotheses `wA ≡ 1 (mod 8)`, `wB ≡ 1 (mod 8)` (spec/logic.md §4b "Warp-exact products");
/// both certificates pass `warpcert check`. The values: the lock-step semantics of warp 1 at
/// points of that region equals the hand count `5 + 10·T` (module docs: the rows of `A`,
/// `B`, `C` start `wA`, `wB` elements, 4 bytes mod 32, after an aligned base: 5 sectors
/// each, `T` rounds of two reads and one store). Kernel mutants of the lower certificate
/// are rejected with pinned messages: a congruence class changed (`wA ≡ 0`, witness
/// adjusted), an entry raised (`(0, 1, 16)` for `(0, 1, 8)`), the warp changed to 0 (whose
/// `ty = 0` makes the product exactly 0), an access count raised above the warp's.
#[test]
fn matrixmul_32x32_sectors_is_exact_under_congruences() {
    let Some(dir) = racuda_corpus("matrixmul_32x32_sectors_is_exact_under_congruences") else {
        return;
    };
    let launch = Launch {
        block: [32, 32, 1],
        grid: None,
    };
    for (name, kernel) in [
        ("matrixMul.cu", "MatrixMulCUDA"),
        ("matrixMulTranspose.cu", "MatrixMulTranspose"),
    ] {
        let file = dir.join(name).display().to_string();
        let out =
            std::env::temp_dir().join(format!("warpcert-mm32-{kernel}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        let (ok, text) = warpcert_output(&[
            "analyze",
            &file,
            "--metric",
            "sectors",
            "--block",
            "32,32",
            "--cert",
            &out.display().to_string(),
        ]);
        assert!(ok, "{text}");
        assert!(
            text.contains("per warp  = 5 + 10*⌊(wA + 31)/32⌋⁺"),
            "{name}: exact:\n{text}"
        );
        assert!(
            text.contains("lower-bound certificate (warp 1): accepted"),
            "{text}"
        );
        assert!(
            text.contains("wA ≡ 1 (mod 8), wB ≡ 1 (mod 8)"),
            "{name}: the region:\n{text}"
        );
        let upper = out.join(format!("{kernel}.sectors.cert"));
        let lower = out.join(format!("{kernel}.sectors.lower.cert"));
        for (path, role, rel) in [
            (&upper, "role: upper", "per-warp cost <= "),
            (&lower, "role: lower", "cost of warp 1 >= "),
        ] {
            let (ok, check) = warpcert_output(&["check", &path.display().to_string()]);
            assert!(ok, "{}: {check}", path.display());
            assert!(check.contains(&format!("{rel}{EXACT32} (")), "{check}");
            assert!(check.contains(role), "{check}");
        }
        // mutants of the lower certificate: each rejected, with its message
        let text = std::fs::read_to_string(&lower).unwrap();
        let hyp = "(mod (lin 0 (1 wA)) 8 1)";
        assert!(text.contains(hyp) && text.contains("(wA 1)"), "{text}");
        let first_entry = text
            .split("(dep ")
            .skip(1)
            .map(|t| t.split(')').next().unwrap_or(""))
            .find(|t| t.ends_with(" 0 0 0 1 8"))
            .map(|t| format!("(dep {t})"))
            .expect("a warp-exact entry (dep t 0 0 0 1 8)");
        let raised = first_entry.replace(" 1 8)", " 1 16)");
        let mutants = [
            (
                text.replace(hyp, "(mod (lin 0 (1 wA)) 8 0)")
                    .replace("(wA 1)", "(wA 8)"),
                "dep entry (0 0 0 1 8) of `",
            ),
            (
                text.replace(&first_entry, &raised),
                "dep entry (0 0 0 1 16) of `",
            ),
            (
                text.replacen("(lower 1 ", "(lower 0 ", 1),
                "dep entry (0 0 0 1 8) of `",
            ),
            (
                text.replacen("(n 5)", "(n 6)", 1),
                "claimed access count 6 is above the named warp's count 5",
            ),
            (
                text.replace("(wA 1)", "(wA 2)"),
                "the witness point violates the fact `",
            ),
        ];
        for (i, (m, msg)) in mutants.iter().enumerate() {
            assert_ne!(m, &text, "{name}: mutant {i} changed nothing");
            match warpcert_kernel::check(m) {
                Ok(v) => panic!("{name}: mutant {i} accepted: {}", v.bound),
                Err(r) => assert!(r.to_string().contains(msg), "{name}: mutant {i}: {r}"),
            }
        }
        let _ = std::fs::remove_dir_all(&out);
        // the semantics: warp 1 attains 5 + 10·T on the region (lock-step oracle)
        for (wa, wb) in [(1, 1), (9, 1), (33, 17), (65, 9), (-7, 1)] {
            assert_eq!(
                warp_sectors_of(name, &launch, [0, 0, 0], 1, wa, wb),
                q(5 + 10 * rounds(wa)),
                "{name}: wA={wa} wB={wb}: warp 1"
            );
        }
    }
}

/// The 32×32 lower certificate of matrixMul `sectors` exported to Coq (`export-coq`)
/// is accepted by `coqc` (`warp_lower_bound` with the congruences as hypotheses
/// `hypothesis_1`, `hypothesis_2`, closed), and the export with the congruence of `wA`
/// changed to `wA ≡ 0 (mod 8)` (and the witness to `wA = 8`) is refused by `lcheck_root` (LowerCheck.v's
/// `wprod` then gives `(0, 0, 8)`, which does not imply the certificate's `(0, 1, 8)`).
#[test]
fn matrixmul_32x32_lower_certificate_checks_in_coq() {
    use common::coq::{assert_accepted, assert_refuted, build_theories, coqc_all, coqc_available};
    let Some(dir) = racuda_corpus("matrixmul_32x32_lower_certificate_checks_in_coq") else {
        return;
    };
    let out = std::env::temp_dir().join(format!("warpcert-mm32-coq-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let file = dir.join("matrixMul.cu").display().to_string();
    let (ok, text) = warpcert_output(&[
        "analyze",
        &file,
        "--metric",
        "sectors",
        "--block",
        "32,32",
        "--cert",
        &out.display().to_string(),
    ]);
    assert!(ok, "{text}");
    let lower = std::fs::read_to_string(out.join("MatrixMulCUDA.sectors.lower.cert")).unwrap();
    let v = warpcert::export::coq::export(&lower).unwrap_or_else(|e| panic!("{e}"));
    let hyp = "CMod (mkLin 0%Z [(1%Z, VP 0)]) 8%Z [1%Z]";
    assert!(
        v.contains(&format!("Definition hyps : list cstr := [{hyp};")),
        "{v}"
    );
    assert!(
        v.contains("(hypothesis_1 : (int_of (ps 0%nat) mod 8 = 1)%Z)"),
        "{v}"
    );
    // the class of wA changed everywhere it is stated (hyps, the theorem's hypothesis, the
    // witness and its check), so that only lcheck_root can refuse it
    let mutant = v
        .replacen(hyp, "CMod (mkLin 0%Z [(1%Z, VP 0)]) 8%Z [0%Z]", 1)
        .replace(
            "(int_of (ps 0%nat) mod 8 = 1)%Z",
            "(int_of (ps 0%nat) mod 8 = 0)%Z",
        )
        .replace(
            "(int_of (witness 0%nat) mod 8 = 1)%Z",
            "(int_of (witness 0%nat) mod 8 = 0)%Z",
        )
        .replacen("| 0 => VInt 1%Z", "| 0 => VInt 8%Z", 1);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed; the export is not checked");
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let paths = [out.join("mm32_lower.v"), out.join("mm32_lower_hyp0.v")];
    std::fs::write(&paths[0], &v).unwrap();
    std::fs::write(&paths[1], &mutant).unwrap();
    let runs = coqc_all(&paths, 2);
    assert_accepted(paths[0].display(), &runs[0]);
    assert_refuted(paths[1].display(), &runs[1]);
    let _ = std::fs::remove_dir_all(&out);
}

/// `steps` at the 32×32 block became `exact` with the congruences too (`warpcert bench`):
/// the exact answer must be attained, so warp 1's lock-step cost (symbolic program,
/// parameters not folded) at points of the region `wA ≡ wB ≡ 1 (mod 8)` equals the bound
/// `analyze` prints and the kernel accepted in both roles (property check, not a value
/// taken from the analysis: the bound is read from its certificate and compared with the
/// semantics).
#[test]
fn matrixmul_32x32_steps_exact_is_attained() {
    let Some(dir) = racuda_corpus("matrixmul_32x32_steps_exact_is_attained") else {
        return;
    };
    let out = std::env::temp_dir().join(format!("warpcert-mm32-steps-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let file = dir.join("matrixMul.cu").display().to_string();
    let (ok, text) = warpcert_output(&[
        "analyze",
        &file,
        "--metric",
        "steps",
        "--block",
        "32,32",
        "--cert",
        &out.display().to_string(),
    ]);
    assert!(ok, "{text}");
    let lower = std::fs::read_to_string(out.join("MatrixMulCUDA.steps.lower.cert")).unwrap();
    let v = warpcert_kernel::check(&lower).unwrap_or_else(|r| panic!("{r}"));
    // the bound `a + b*max(0, ⌊(wA + 31)/32⌋)`
    let (a, b) = v
        .bound
        .split_once(" + ")
        .and_then(|(a, r)| {
            Some((
                a.parse::<i64>().ok()?,
                r.split_once('*')?.0.parse::<i64>().ok()?,
            ))
        })
        .unwrap_or_else(|| panic!("bound {}", v.bound));
    let launch = Launch {
        block: [32, 32, 1],
        grid: None,
    };
    let path = root().join("../shared/corpus/racuda/matrixMul.cu");
    let prog = load_for(&path, &launch);
    for (wa, wb) in [(1, 1), (33, 9)] {
        let c = warp_cost(
            &prog,
            MetricName::Steps,
            &launch,
            [0, 0, 0],
            1,
            &[("wA", wa), ("wB", wb)],
        );
        assert_eq!(c, q(a + b * rounds(wa)), "wA={wa} wB={wb}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
