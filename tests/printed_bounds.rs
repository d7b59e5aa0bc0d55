//! Printed formulas (issue 14 items 4 and 6, spec/certificate.md "Printed formula"): the
//! e-graph's short normal form of a bound, golden strings for several shapes; the kernel's
//! comparison (`warpcert_kernel::printed::check_printed`) accepts them and rejects mutated
//! ones, and a refused form is never printed; `analyze --format json` lists the
//! certificates the answer relies on; `check` prints the role and the bound it proves.
//!
//! Every expected string below is derived by hand from the bound it prints (the derivation
//! is in the comment beside it), never copied from the program's output.

mod common;

use common::rng::Rng;
use std::process::Command;
use std::time::Instant;
use warpcert::report::printed::{checked, print_bound, simplify};
use warpcert_kernel::arith::{rat, Atom, Lin, Poly, Rat};
use warpcert_kernel::printed::{check_printed, PrintedProblem};

/// The linear form `c + Σ k·v`.
fn lin(c: i64, terms: &[(&str, i64)]) -> Lin {
    let mut l = Lin::constant(rat(c));
    for (v, k) in terms {
        l.add_term(v, &rat(*k));
    }
    l
}

/// `Σ c·Π atoms`, the coefficients `p/q`.
fn poly(terms: &[((i64, i64), Vec<Atom>)]) -> Poly {
    let mut p = Poly::zero();
    for ((n, d), atoms) in terms {
        p.add_term(Rat::new((*n).into(), (*d).into()), atoms.clone());
    }
    p
}

fn max0(v: &str) -> Atom {
    Atom::Max0(lin(0, &[(v, 1)]))
}

/// `4 + 8·⌊(wA + 31)/32⌋⁺` (matrixMul's exact sectors): one term per atom, nothing to
/// factor; only the floor atom's notation changes, `max(0, ⌊(L)/d⌋)` → `⌊(L)/d⌋⁺`.
fn matrix_mul() -> Poly {
    let floor = Atom::Floor(lin(31, &[("wA", 1)]), 32.into());
    poly(&[((4, 1), vec![]), ((8, 1), vec![floor])])
}

/// `6 + 871/20·max0(crunch)·max0(numBlocks) + 954·max0(numBlocks)` (the shape of
/// Mandelbrot's steps bound): `max(0, numBlocks)` divides both non-constant terms, so
/// `6 + max(0, numBlocks)*(954 + 871/20*max(0, crunch))` (47 characters after `6 + `)
/// is shorter than the two terms (63): constant first, then the product, whose atom comes
/// before the sum, whose constant comes before its atom term.
fn mandelbrot() -> Poly {
    poly(&[
        ((6, 1), vec![]),
        ((871, 20), vec![max0("crunch"), max0("numBlocks")]),
        ((954, 1), vec![max0("numBlocks")]),
    ])
}

#[test]
fn golden_printed_formulas() {
    assert_eq!(simplify(&matrix_mul()), "4 + 8*⌊(wA + 31)/32⌋⁺");
    assert_eq!(
        simplify(&mandelbrot()),
        "6 + max(0, numBlocks)*(954 + 871/20*max(0, crunch))"
    );
    // a floor atom over a single name needs no parentheses: ⌊n/32⌋⁺
    let single = poly(&[((1, 1), vec![Atom::Floor(lin(0, &[("n", 1)]), 32.into())])]);
    assert_eq!(simplify(&single), "⌊n/32⌋⁺");
    // max(0, m)·max(0, n) + max(0, n) = max(0, n)·(1 + max(0, m)): 25 characters against 31
    let shared = poly(&[
        ((1, 1), vec![max0("m"), max0("n")]),
        ((1, 1), vec![max0("n")]),
    ]);
    assert_eq!(simplify(&shared), "max(0, n)*(1 + max(0, m))");
    // no common factor, a negative coefficient: as the kernel prints it, atoms ordered by
    // name (m before n), the negative term after ` - `
    let signs = poly(&[
        ((3, 1), vec![]),
        ((-1, 1), vec![max0("m")]),
        ((2, 1), vec![max0("n")]),
    ]);
    assert_eq!(simplify(&signs), "3 - max(0, m) + 2*max(0, n)");
    // a log atom ⌊log2(max(1, 2n))⌋ in spec/logic.md §1's notation ⌊log2 L⌋⁺
    let log = poly(&[((8, 1), vec![Atom::Log(lin(0, &[("n", 2)]))])]);
    assert_eq!(simplify(&log), "8*⌊log2(2*n)⌋⁺");
    // the zero bound
    assert_eq!(simplify(&Poly::zero()), "0");
    // RaCUDA's form (`--form polynomial`): max0 atoms stay `max(0, L)`
    let racuda = poly(&[
        ((5, 1), vec![]),
        ((5, 16), vec![Atom::Max0(lin(31, &[("wA", 1)]))]),
    ]);
    assert_eq!(simplify(&racuda), "5 + 5/16*max(0, wA + 31)");
}

#[test]
fn printed_formulas_are_accepted_by_the_kernel() {
    for b in [matrix_mul(), mandelbrot()] {
        let p = print_bound(&b, &b.to_string());
        assert_eq!(p.refused, None, "{}", p.text);
        assert_eq!(check_printed(&p.text, &b), Ok(()));
        // the kernel's own rendering reads back too
        assert_eq!(check_printed(&b.to_string(), &b), Ok(()));
    }
}

#[test]
fn a_wrongly_simplified_formula_is_caught() {
    let b = mandelbrot();
    // 945 for 954: printed − bound = (945 − 954)·max(0, numBlocks)
    assert_eq!(
        check_printed("6 + max(0, numBlocks)*(945 + 871/20*max(0, crunch))", &b),
        Err(PrintedProblem::Differs {
            difference: "-9*max(0, numBlocks)".into()
        })
    );
    // a factor dropped from one term: 871/20·max0(crunch) − 871/20·max0(crunch)·max0(numBlocks)
    assert_eq!(
        check_printed("6 + 954*max(0, numBlocks) + 871/20*max(0, crunch)", &b),
        Err(PrintedProblem::Differs {
            difference: "871/20*max(0, crunch) - 871/20*max(0, crunch)*max(0, numBlocks)".into()
        })
    );
    // a changed rounding: ⌊(wA + 32)/32⌋ for ⌊(wA + 31)/32⌋ (atoms ordered by constant)
    let m = matrix_mul();
    assert_eq!(
        check_printed("4 + 8*⌊(wA + 32)/32⌋⁺", &m),
        Err(PrintedProblem::Differs {
            difference: "-8*max(0, ⌊(wA + 31)/32⌋) + 8*max(0, ⌊(wA + 32)/32⌋)".into()
        })
    );
    // a refused form is not printed: the kernel's rendering is, with the reason
    let p = checked("4 + 9*⌊(wA + 31)/32⌋⁺".into(), &m, &m.to_string());
    assert_eq!(p.text, "4 + 8*max(0, ⌊(wA + 31)/32⌋)");
    assert_eq!(
        p.refused.as_deref(),
        Some("the simplified formula `4 + 9*⌊(wA + 31)/32⌋⁺` was not accepted by the kernel (the printed formula is not the bound: printed − bound = max(0, ⌊(wA + 31)/32⌋)): the certificate's bound is printed")
    );
}

/// Random bounds (up to 16 terms of degree ≤ 3 over max0, floor and log atoms, signed
/// rational coefficients): every e-graph form the printer proposes is one the kernel reads
/// back as the bound (none refused), it is never longer than the kernel's rendering with
/// compact atoms, and a large bound does not take long (the e-graph's run is bounded).
#[test]
fn random_bounds_print_forms_the_kernel_accepts() {
    let atoms = [
        max0("n"),
        max0("m"),
        Atom::Max0(lin(1, &[("h", 1), ("n", -1)])),
        Atom::Floor(lin(31, &[("n", 1)]), 32.into()),
        Atom::Floor(lin(0, &[("w", 1)]), 2.into()),
        Atom::Log(lin(0, &[("n", 2)])),
    ];
    for seed in 0..60 {
        let mut r = Rng::new(seed);
        let mut b = Poly::zero();
        for _ in 0..r.range(0, 16) {
            let deg = r.range(0, 3);
            let t: Vec<Atom> = (0..deg)
                .map(|_| atoms[r.below(6) as usize].clone())
                .collect();
            let c = Rat::new(r.range(-40, 99).into(), r.range(1, 4).into());
            b.add_term(c, t);
        }
        let start = Instant::now();
        let p = print_bound(&b, &b.to_string());
        let took = start.elapsed().as_secs_f64();
        assert_eq!(p.refused, None, "seed {seed}: {b}");
        assert_eq!(check_printed(&p.text, &b), Ok(()), "seed {seed}");
        assert!(
            p.text.chars().count() <= b.to_string().chars().count(),
            "seed {seed}: {} vs {b}",
            p.text
        );
        assert!(took < 5.0, "seed {seed}: {took} s for {b}");
    }
}

/// Hand derivation (tests/lower.rs `STEP`): the rounds `i = 0, 32, …` below `n` are
/// `⌊(n + 31)/32⌋⁺`, one uniform address (one sector) each: the warp costs exactly
/// `⌊(n + 31)/32⌋⁺` sectors, proved both ways.
const STEP: &str =
    "__global__ void k(int *A, int n) { for (int i = 0; i < n; i += 32) { A[i] = 0; } }";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpcert"))
}

#[test]
fn analyze_json_lists_the_certificates_and_check_names_the_role() {
    let dir = std::env::temp_dir().join(format!("warpcert-printed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("step.cu");
    std::fs::write(&src, STEP).unwrap();
    // one metric: `--cert` names the upper certificate's file, the lower one goes beside it
    let upper = dir.join("k.sectors.cert").display().to_string();
    let lower = dir.join("k.sectors.lower.cert").display().to_string();
    let o = bin()
        .args([
            "analyze", "--format", "json", "--metric", "sectors", "--block", "32",
        ])
        .args(["--cert", &upper])
        .arg(&src)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let r = &v[0];
    assert_eq!(r["relation"], "exact");
    assert_eq!(r["per_warp"], "⌊(n + 31)/32⌋⁺");
    assert!(r.get("printing_note").is_none(), "{r}");
    let certs = r["certificates"].as_array().unwrap();
    assert_eq!(certs.len(), 2, "{r}");
    for (c, role, path) in [(&certs[0], "upper", &upper), (&certs[1], "lower", &lower)] {
        assert_eq!(c["role"], role);
        assert_eq!(c["path"], path.as_str());
        assert_eq!(c["checked"], true);
        assert_eq!(c["bound"], "max(0, ⌊(n + 31)/32⌋)");
    }
    // the old fields stay
    assert_eq!(r["certificate"]["checked"], true);
    assert_eq!(r["lower"]["role"], "lower");
    // text: the short form on the per-warp line
    let o = bin()
        .args(["analyze", "--metric", "sectors", "--block", "32"])
        .arg(&src)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("  per warp  = ⌊(n + 31)/32⌋⁺\n"), "{text}");
    // check: the bound each certificate proves and its role, as text and JSON
    for (path, claim, role, warp) in [
        (
            &upper,
            "per-warp cost <= max(0, ⌊(n + 31)/32⌋)",
            "upper",
            serde_json::Value::Null,
        ),
        (
            &lower,
            "cost of warp 0 >= max(0, ⌊(n + 31)/32⌋)",
            "lower",
            0.into(),
        ),
    ] {
        let o = bin().args(["check", path]).output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(claim), "{text}");
        assert!(text.contains(&format!("\nrole: {role}\n")), "{text}");
        let o = bin()
            .args(["check", "--format", "json", path])
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["role"], role);
        assert_eq!(j["bound"], "max(0, ⌊(n + 31)/32⌋)");
        assert_eq!(j["warp"], warp);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The whole-kernel line of a symbolic grid multiplies the per-warp bound by
/// `gridDim.x*gridDim.y*gridDim.z` and the warps per block without nesting a product in a
/// product: hand, [`STEP`] costs `⌊(n + 31)/32⌋⁺` per warp (above); a block of 64 threads
/// has 2 warps, so the kernel is `gridDim.x*gridDim.y*gridDim.z*2*⌊(n + 31)/32⌋⁺` (no
/// parentheses around the product `2*⌊…⌋⁺`), and a block of 32 has one warp (`warps` is
/// the block count, without a factor `*1`). A sum stays a parenthesised factor: one more
/// sector for `A[0] = 1` before the loop is `1 + ⌊(n + 31)/32⌋⁺` per warp and
/// `…*(2 + 2*⌊(n + 31)/32⌋⁺)` for the kernel.
#[test]
fn the_whole_kernel_bound_nests_no_product_in_a_product() {
    let dir = std::env::temp_dir().join(format!("warpcert-printed-k-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let step = dir.join("step.cu");
    std::fs::write(&step, STEP).unwrap();
    let first = dir.join("step_first.cu");
    std::fs::write(&first, STEP.replace("{ for", "{ A[0] = 1; for").as_str()).unwrap();
    let g = "gridDim.x*gridDim.y*gridDim.z";
    for (src, block, per_warp, warps, kernel) in [
        (
            &step,
            "32",
            "⌊(n + 31)/32⌋⁺",
            g.to_string(),
            format!("{g}*⌊(n + 31)/32⌋⁺"),
        ),
        (
            &step,
            "64",
            "⌊(n + 31)/32⌋⁺",
            format!("{g}*2"),
            format!("{g}*2*⌊(n + 31)/32⌋⁺"),
        ),
        (
            &first,
            "64",
            "1 + ⌊(n + 31)/32⌋⁺",
            format!("{g}*2"),
            format!("{g}*(2 + 2*⌊(n + 31)/32⌋⁺)"),
        ),
    ] {
        let o = bin()
            .args(["analyze", "--metric", "sectors", "--block", block])
            .arg(src)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{text}");
        for line in [
            format!("  per warp  = {per_warp}\n"),
            format!("  warps     = {warps}\n"),
            format!("  kernel    ≤ {kernel}\n"),
        ] {
            assert!(
                text.contains(&line),
                "block {block}: no {line:?} in\n{text}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
