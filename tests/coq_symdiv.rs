//! Floor atoms with a symbolic launch divisor in Coq (spec/logic.md §1, the kernel's
//! `(floors LIN DLIN)`; spec/certificate.md "Integer rewrites"): `Lin.KFloorS D`, the
//! rewrites `Logic.RSShift`, `RSZero`, `RSMono` (soundness `IntRw.srw_sound`,
//! `atom_sshift`, `atom_szero`, `atom_smono`) and Q:WEAK's divisor check `Check.rws_gd`.
//!
//! The hand-written instance (the exporter also prints these atoms: the last test below):
//! `tests/data/coq/grid_stride_symdiv.v` derives the grid-stride loop
//! `t = 32 * gridDim.x; i = 32 * blockIdx.x; while (i < n) { A[i] = 0; i = i + t; }`
//! (sectors, launch 32 1 1, every lane writing the uniform cell `A[i]`: one sector a round)
//! with the bound `⌊(n − 32·blockIdx.x + 32·gridDim.x − 1)/(32·gridDim.x)⌋⁺`; the loop
//! body's Q:WEAK pays a round with `ishift` (K = 1, target the loop condition) and steps the
//! atom with `imono` (target `32·gridDim.x − t ≤ 0` from `t = 32·gridDim.x`). The file also
//! checks, with the Coq interpreter `Exec.run`, that the bound is the cost at three points
//! (4, 2 and 0 rounds, counted by hand in its comment). `tests/data/coq/symdiv_checks.v`
//! pins the checker functions one by one (`rw_ok` of each rewrite, `sdiv_wf`, `sdiv_pos`,
//! `rws_gd`, `acanon`). Skips, saying so, when `coqc` is not installed.

mod common;

use common::coq::{accepted_and_mutants_refuted, coqc_available};
use common::root;

/// `text` with every occurrence of `from` replaced by `to`; there must be `n` of them.
fn replace_n(text: &str, from: &str, to: &str, n: usize) -> String {
    assert_eq!(text.matches(from).count(), n, "`{from}` in the instance");
    text.replace(from, to)
}

/// The instance and the checks are accepted (closed theorems); mutants of the instance are
/// refused by the reflective check `root_ok`:
/// - `ishift`'s K raised to 2: `2·32g − L = 32g + i − n + 1 ≤ 0` does not follow from `P`;
/// - `ishift`'s K lowered to 0, with a valid witness for its target `−L ≤ 0` (`i − n + 1 ≤ 0`
///   plus 32 times `1 − g ≤ 0`): the rewrite holds but no longer pays the round's sector;
/// - the divisor `32·gridDim.x` replaced by `32·blockIdx.x` everywhere (the 8 atoms and the
///   2 rewrites; a parameter that is not a grid dimension, 0 for block 0): `rws_gd` and
///   `sdiv_pos` refuse it;
/// - a mixed `imono`: the `RSMono` replaced by an `RIMono` from the symbolic atom to the
///   constant-divisor atom `⌊L2/32⌋⁺`, which reads its first atom as a floor atom
///   `⌊L1/1⌋⁺` and so rewrites nothing: Q:WEAK's `pot_ge` fails.
#[test]
fn symbolic_floor_atoms_check_in_coq_and_mutants_fail() {
    let dir = root().join("tests/data/coq");
    let inst = std::fs::read_to_string(dir.join("grid_stride_symdiv.v")).unwrap();
    let checks = std::fs::read_to_string(dir.join("symdiv_checks.v")).unwrap();
    let shift = "(mkLin 0%Z [(32%Z, VP 1)]) 1%Z ([], (1%Z, [(10, 1%Z)]))";
    let l1 = "(mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0)])";
    let l2 = "(mkLin (-1)%Z [(1%Z, VP 0); ((-1)%Z, VL 0); ((-1)%Z, VL 1); (32%Z, VP 1)])";
    let dv = "(mkLin 0%Z [(32%Z, VP 1)])";
    let mono = format!("RSMono {l1} {l2} {dv} ([], (1%Z, [(9, (-1)%Z)]))");
    let mixed = format!(
        "RIMono 20 (mkAtmK {l1} 1 (KFloorS {dv})) (mkAtm {l2} 32) ([], (1%Z, [(9, (-1)%Z)]))"
    );
    let muts = [
        (
            "symdiv_mutant_k2",
            replace_n(&inst, shift, &shift.replace(") 1%Z (", ") 2%Z ("), 1),
        ),
        (
            "symdiv_mutant_k0",
            replace_n(
                &inst,
                shift,
                "(mkLin 0%Z [(32%Z, VP 1)]) 0%Z ([], (1%Z, [(10, 1%Z); (7, 32%Z)]))",
                1,
            ),
        ),
        (
            "symdiv_mutant_blockidx_divisor",
            replace_n(
                &inst,
                "mkLin 0%Z [(32%Z, VP 1)]",
                "mkLin 0%Z [(32%Z, VP 2)]",
                10,
            ),
        ),
        (
            "symdiv_mutant_mixed_imono",
            replace_n(&inst, &mono, &mixed, 1),
        ),
    ];
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq instance is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "symdiv",
        &[
            ("grid_stride_symdiv", inst.as_str()),
            ("symdiv_checks", checks.as_str()),
        ],
        &muts
            .iter()
            .map(|(n, t)| (*n, t.as_str()))
            .collect::<Vec<_>>(),
    );
}

/// The exporter prints the kernel's symbolic floor atoms and their rewrites
/// (`mkAtmK L 1 (KFloorS D)`, `RSShift`, `RSMono`): `analyze --coq` on the precision
/// suite's grid-stride loop (tests/precision/gridstride.cu, block 256, symbolic grid) writes
/// the second bound of its `min(A, B)`, B = `8·⌊(n + 256·gridDim.x − 1)/(256·gridDim.x)⌋⁺`
/// (by hand: warp 0 of block 0 runs `⌈n/(256g)⌉` rounds of at most 8 sectors, 4 read and 4
/// written), as `…_capped.v`, and coqc accepts it (closed). Mutants refused by the
/// reflective check: the loop's `ishift` by K = 2 rounds (its target `2·256g − L ≤ 0` does
/// not follow from the loop condition), and the same rewrite's divisor halved to `128·g`
/// (its atom is then not the potential's, so Q:WEAK's `pot_ge` fails).
#[test]
fn exported_symbolic_divisor_bound_is_accepted_by_coqc() {
    let dir = std::env::temp_dir().join(format!("warpcert-symdiv-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .current_dir(root())
        .args([
            "analyze",
            "tests/precision/gridstride.cu",
            "--block",
            "256",
            "--metric",
            "sectors",
            "--coq",
        ])
        .arg(format!("{}/", dir.display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("8*⌊(256*gridDim.x + n - 1)/(256*gridDim.x)⌋⁺"),
        "no symbolic-divisor bound:\n{stdout}"
    );
    let text = std::fs::read_to_string(dir.join("gridstride_sectors_capped.v")).unwrap();
    assert!(
        text.contains("KFloorS") && text.contains("RSShift"),
        "{text}"
    );
    let shift = "RSShift (mkLin (-1)%Z [(256%Z, VP 2)";
    let muts = [
        (
            "symdiv_export_k2",
            common::coq::mutate_after(&text, shift, "]) 1%Z (", "]) 2%Z ("),
        ),
        (
            "symdiv_export_divisor",
            common::coq::mutate_after(
                &text,
                shift,
                "(mkLin 0%Z [(256%Z, VP 2)]) 1%Z",
                "(mkLin 0%Z [(128%Z, VP 2)]) 1%Z",
            ),
        ),
    ];
    let _ = std::fs::remove_dir_all(&dir);
    if !coqc_available() {
        eprintln!(
            "SKIPPED: coqc is not installed (apt-get install -y coq); the export is not checked"
        );
        return;
    }
    accepted_and_mutants_refuted(
        "symdiv-export",
        &[("gridstride_sectors_capped", text.as_str())],
        &muts
            .iter()
            .map(|(n, t)| (*n, t.as_str()))
            .collect::<Vec<_>>(),
    );
}
