//! Coq export of lower-bound certificates (issue 14 items 3 and 5; spec/logic.md §4b,
//! `coq-export/theories/LowerCheck.v`): the lower certificates `warpcert analyze --cert`
//! writes for exact answers export (`src/export/coq_lower.rs`) to files that `coqc`
//! accepts, their theorem `warp_lower_bound` closed under the global context, and mutants
//! of the exports (a raised bound, a dropped or weakened parameter hypothesis of L:HYP
//! (examples/vector_add.cu, exact under its guard's hypothesis), raised access claims `N` above the warp's count `N_W` for
//! `MemReads` and `Conflicts`, a raised integer shift) are rejected by the reflective check. Skips the Coq part with a
//! message when `coqc` is absent, the corpus part when `../shared/corpus` is.

mod common;

use common::coq::{assert_accepted, assert_refuted, build_theories, coqc_all, coqc_available};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use warpcert::export::coq::export;

/// Runs `warpcert analyze FILE --metric METRIC --cert TMP/NAME` and returns the text of the
/// lower-bound certificate it writes (`TMP/NAME.lower.cert`), after checking that the
/// answer is exact and that the kernel accepts it as a lower certificate of warp 0 with the
/// bound `bound`.
fn analysed_lower(file: &Path, metric: &str, tmp: &Path, name: &str, bound: &str) -> String {
    let out_path = tmp.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .arg("analyze")
        .arg(file)
        .args(["--metric", metric, "--cert"])
        .arg(&out_path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{name}: analyze failed:\n{text}");
    assert!(
        text.contains("lower-bound certificate (warp 0): accepted by the kernel")
            && text.contains("exact"),
        "{name}: no exact answer with a lower certificate:\n{text}"
    );
    let lower = std::fs::read_to_string(format!("{}.lower.cert", out_path.display())).unwrap();
    let v = warpcert_kernel::check(&lower).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(v.role, warpcert_kernel::Role::Lower(0), "{name}");
    assert_eq!(v.bound, bound, "{name}");
    lower
}

/// Replaces `from` by `to` in the lines of `text` that start with one of `lines` (each
/// must change).
fn mutate_lines(text: &str, lines: &[&str], from: &str, to: &str) -> String {
    let mut changed = vec![false; lines.len()];
    let out: Vec<String> = text
        .lines()
        .map(|l| match lines.iter().position(|p| l.starts_with(p)) {
            Some(i) if l.contains(from) => {
                changed[i] = true;
                l.replacen(from, to, 1)
            }
            _ => l.to_string(),
        })
        .collect();
    assert!(
        changed.iter().all(|c| *c),
        "`{from}` not in the lines {lines:?}"
    );
    out.join("\n") + "\n"
}

#[test]
fn lower_certificates_check_in_coq_and_mutants_fail() {
    let tmp = std::env::temp_dir().join(format!("warpcert-coq-lower-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    // tests/data/coq/lower_loop_read.cu, block 256 (the default), warp 0 (hand count, see the
    // file): per round the 32 lanes read 32 consecutive ints, 128 bytes at the 128-byte-
    // aligned address 128·i (4 sectors), after the loop they write 32 consecutive ints at
    // 4·(256·blockIdx.x) (4 sectors): 4·n + 4 sectors for n ≥ 0, 4 for n ≤ 0.
    let read = analysed_lower(
        &root().join("tests/data/coq/lower_loop_read.cu"),
        "sectors",
        &tmp,
        "lower_loop_read.sectors",
        "4 + 4*max(0, n)",
    );
    let mut files: Vec<(String, String)> = Vec::new();
    let e = export(&read).unwrap_or_else(|e| panic!("lower_loop_read: {e}"));
    assert!(
        e.contains("lcheck_root G warp hyps body tree bound")
            && e.contains("Definition hyps : list cstr := [].")
            && e.contains("Theorem warp_lower_bound")
    );
    // the read's claim N = 4 (an assignment's expression claim) and the write's
    assert!(
        e.contains(" 4%Z [(1%Z,") && e.contains("(DWrite a"),
        "claims not exported"
    );
    let mutants = vec![
        // the bound raised from 4 + 4·n to 5 + 4·n (the run costs 4 at n = 0), in the bound
        // and in the root assertion alike
        (
            "lower_read_bound_raised",
            mutate_lines(
                &e,
                &["Definition a0 :", "Definition bound :"],
                "mkPot (4 # 1)",
                "mkPot (5 # 1)",
            ),
        ),
        // the read's claim raised to 5: N_W = 4 at the only admissible base (β = 0)
        (
            "lower_read_claim_raised",
            e.replacen(" 4%Z [(1%Z,", " 5%Z [(1%Z,", 1),
        ),
        // the final write's claim raised to 5 (4 sectors)
        ("lower_write_claim_raised", {
            let at = e.find("(DWrite a").unwrap();
            let (h, t) = e.split_at(at);
            format!("{h}{}", t.replacen(" 4%Z 0%Z)", " 5%Z 0%Z)", 1))
        }),
    ];
    for (n, m) in &mutants {
        assert_ne!(m, &e, "{n}: nothing changed");
    }
    files.push(("lower_loop_read_sectors".into(), e));
    // tests/data/coq/lower_shared_stride.cu (hand count, see the file): each round the warp
    // reads S[2·t], two distinct words in each even bank: a 2-way conflict (N = 2, 1
    // conflict), n rounds. The claim raised to 3 is above N_W = 2 (at every admissible base).
    let shared = analysed_lower(
        &root().join("tests/data/coq/lower_shared_stride.cu"),
        "conflicts",
        &tmp,
        "lower_shared_stride.conflicts",
        "max(0, n)",
    );
    let sh = export(&shared).unwrap_or_else(|e| panic!("lower_shared_stride: {e}"));
    assert!(sh.contains(" 2%Z [(1%Z,"), "shared claim 2 not exported");
    let sh_raised = sh.replacen(" 2%Z [(1%Z,", " 3%Z [(1%Z,", 1);
    files.push(("lower_shared_stride_conflicts".into(), sh));
    // the committed step-32 loop (tests/data/lower: bound ⌊(n + 31)/32⌋⁺, L:WEAK with
    // ishift/izero) and its shift raised from 1 to 2 (a round then pays 2 of 1)
    let step =
        std::fs::read_to_string(root().join("tests/data/lower/step32.sectors.lower.cert")).unwrap();
    let s = export(&step).unwrap_or_else(|e| panic!("step32: {e}"));
    let at = s.find("RIShift").expect("no RIShift in the step32 export");
    let (h, t) = s.split_at(at);
    assert!(t.contains(") 1%Z ([("), "no shift 1");
    let shifted = format!("{h}{}", t.replacen(") 1%Z ([(", ") 2%Z ([(", 1));
    files.push(("lower_step32_sectors".into(), s));
    // examples/vector_add.cu, sectors (block 256, warp 0; hand count): `gid = 256·blockIdx.x +
    // tid`; under the guard's hypothesis H = `len ≥ 256·blockIdx.x + 256` (L:HYP) every lane
    // of the block passes `gid < len` and warp 0 reads x, reads y and writes out at 32
    // consecutive floats, 128 aligned bytes each: 3·4 = 12 sectors, the upper bound too
    // (the exact answer of issue 14).
    let va = analysed_lower(
        &root().join("examples/vector_add.cu"),
        "sectors",
        &tmp,
        "vector_add.sectors",
        "12",
    );
    assert!(
        va.contains("(lower 0 (hyp (le (lin 256 (256 blockIdx.x) (-1 len)))) (witness"),
        "vector_add: no hypothesis in the lower certificate"
    );
    let v = export(&va).unwrap_or_else(|e| panic!("vector_add: {e}"));
    // H as the term checked at the root (parameters: 0 = len, 1 = blockIdx.x) and as a
    // hypothesis of the theorem, over `ps`
    let h = "CLe (mkLin 256%Z [(256%Z, VP 1); ((-1)%Z, VP 0)])";
    assert!(
        v.contains(&format!("Definition hyps : list cstr := [{h}].")),
        "vector_add: H not exported"
    );
    assert!(
        v.contains("(hypothesis_1 : (256 + 256 * int_of (ps 1%nat) - int_of (ps 0%nat) <= 0)%Z)")
            && v.contains("Example witness_satisfies_hypotheses"),
        "vector_add: H not in the theorem"
    );
    let va_mutants = vec![
        // H dropped from the root check: the root pre (launch facts ∧ H) is then not the
        // launch facts
        (
            "lower_vector_add_hyp_dropped",
            v.replacen(
                &format!("Definition hyps : list cstr := [{h}]."),
                "Definition hyps : list cstr := [].",
                1,
            ),
        ),
        // H weakened to `len ≥ 256·blockIdx.x + 255` everywhere it is a constraint (the
        // root check and every assertion): L:IF2's entailment of the guard no longer holds
        // (lane 255 of the block fails `gid < len` when len = 256·blockIdx.x + 255)
        (
            "lower_vector_add_hyp_weakened",
            v.replace(h, "CLe (mkLin 255%Z [(256%Z, VP 1); ((-1)%Z, VP 0)])"),
        ),
        // the bound raised from 12 to 13, in the bound and the root assertion
        (
            "lower_vector_add_bound_raised",
            mutate_lines(
                &v,
                &["Definition a0 :", "Definition bound :"],
                "mkPot (12 # 1)",
                "mkPot (13 # 1)",
            ),
        ),
    ];
    for (n, m) in &va_mutants {
        assert_ne!(m, &v, "{n}: nothing changed");
    }
    files.push(("lower_vector_add_sectors".into(), v));
    // tests/lower.rs' GUARD kernel (block 64, grid 3; hand derivation in
    // tests/common/lower_guard.rs): warp 1, lanes 32..63, 12 sectors under the hypothesis
    // `n ≥ 64·blockIdx.x + 64` (L:HYP), the second warp's lanes in the Coq check
    let (_, _, guard1, when) = common::lower_guard::guard_lower(1);
    assert_eq!(when, "n - 64*blockIdx.x >= 64");
    let g = warpcert_kernel::check(&guard1).unwrap_or_else(|r| panic!("guard warp 1: {r}"));
    assert_eq!(
        (g.role, g.bound.as_str()),
        (warpcert_kernel::Role::Lower(1), "12")
    );
    let gx = export(&guard1).unwrap_or_else(|e| panic!("guard warp 1: {e}"));
    assert!(gx.contains("Definition warp : nat := 1.") && gx.contains("(hypothesis_1 : "));
    files.push(("lower_guard_warp1_sectors".into(), gx));
    // addSub1 (RaCUDA corpus): no shared array (conflicts 0) and a uniform loop (divwarps 0)
    if let Some(dir) = racuda_corpus("lower_certificates_check_in_coq_and_mutants_fail") {
        for m in ["conflicts", "divwarps"] {
            let c = analysed_lower(
                &dir.join("addSub1.cu"),
                m,
                &tmp,
                &format!("addSub1.{m}"),
                "0",
            );
            let x = export(&c).unwrap_or_else(|e| panic!("addSub1 {m}: {e}"));
            files.push((format!("lower_addSub1_{m}"), x));
        }
        // divergent ifs (rule L:IFD, exported as `DIf4`): addSub0's `if (j % 2 == 0)` in a
        // counted loop and syn-brdis's `if ((threadIdx.x + i) % 2 == 0)`, whose branches
        // touch no shared memory (addSub0: conflicts 0) and no global memory (syn-brdis:
        // sectors 0); reduce0's reduction loop has a constant trip count (L:UNROLL) and
        // divergent ifs over shared memory with one word per bank (conflicts 0)
        for (k, m) in [
            ("addSub0", "conflicts"),
            ("syn-brdis", "sectors"),
            ("reduce0", "conflicts"),
        ] {
            let c = analysed_lower(
                &dir.join(format!("{k}.cu")),
                m,
                &tmp,
                &format!("{k}.{m}"),
                "0",
            );
            assert!(c.contains("(L:IFD"), "{k} {m}: no L:IFD node");
            let x = export(&c).unwrap_or_else(|e| panic!("{k} {m}: {e}"));
            assert!(x.contains("DIf4"), "{k} {m}: L:IFD not exported as DIf4");
            files.push((format!("lower_{}_{m}", k.replace('-', "_")), x));
        }
    }
    // `analyze --coq DIR` (all metrics) writes each exact answer's lower file beside the
    // upper one; the steps one goes through coqc below
    let cq = tmp.join("coq");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .arg("analyze")
        .arg(root().join("tests/data/coq/lower_loop_read.cu"))
        .arg("--coq")
        .arg(&cq)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "analyze --coq: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for m in ["conflicts", "divwarps", "sectors", "steps"] {
        let f = cq.join(format!("lowerLoopRead_{m}_lower.v"));
        assert!(f.exists(), "no {}", f.display());
    }
    let steps = std::fs::read_to_string(cq.join("lowerLoopRead_steps_lower.v")).unwrap();
    assert!(steps.contains("Theorem warp_lower_bound"));
    files.push(("lower_loop_read_steps".into(), steps));
    let accepted = files.len();
    files.extend(mutants.into_iter().map(|(n, t)| (n.to_string(), t)));
    files.push(("lower_step32_shift_raised".into(), shifted));
    files.push(("lower_shared_claim_raised".into(), sh_raised));
    files.extend(va_mutants.into_iter().map(|(n, t)| (n.to_string(), t)));
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the lower exports are not checked");
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(n, t)| {
            let f = tmp.join(format!("{n}.v"));
            std::fs::write(&f, t).unwrap();
            f
        })
        .collect();
    let runs = coqc_all(&paths, 2);
    for (f, r) in paths.iter().zip(&runs) {
        eprintln!("coqc {}: {:.2} s", f.display(), r.secs);
    }
    for (f, r) in paths.iter().zip(&runs).take(accepted) {
        assert_accepted(f.display(), r);
    }
    for (f, r) in paths.iter().zip(&runs).skip(accepted) {
        assert_refuted(f.display(), r);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
