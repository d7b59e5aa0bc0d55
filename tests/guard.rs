//! Q:GUARD and Q:GUARDEXIT (spec/logic.md §4a, issue 15): a loop left by `break` is lowered
//! to `while (g)` on a `bool` guard (spec/lowering.md §6); the guard write `g ← k < n` owes
//! the loop's potential only to the threads that stay (`k < n`), and the exit branch
//! `g ← false; …` owes nothing after it. The kernel rejects the rules outside their premises.

mod common;

use common::coq::{build_theories, coqc_all, coqc_available};
use std::collections::BTreeMap;
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, Launch, Metric, MetricName};
use warpcert::frontend;
use warpcert::semantics::{run_kernel, ArrayInit, Inputs, Params, Value};

/// A uniform break: every lane reads `in[k]` at the uniform counter `k`, and each round
/// writes 32 consecutive floats (`out[32k + threadIdx.x]`, 128 bytes: 4 sectors).
///
/// Hand derivation (sectors per warp): round `k` reads `in[k]` (one 4-byte cell for all
/// lanes: 1 sector) and, unless it breaks, writes 4 sectors. With the first negative
/// `in[b]` (or none, `b = ∞`), the rounds `0 … min(n, b + 1) − 1` run: the cost is
/// `5·min(n, b)` plus 1 for the breaking round when `b < n`, at most `5·max(0, n)`.
const UNIFORM: &str = "__global__ void k(float *out, const float *in, int n) {\n  for (int k = 0; k < n; k++) {\n    if (in[k] < 0.0f) {\n      break;\n    }\n    out[32 * k + threadIdx.x] = 1.0f;\n  }\n}\n";

fn launch(grid: Option<[u32; 3]>) -> Launch {
    Launch {
        block: [32, 1, 1],
        grid,
    }
}

/// The certificate and bound of `src` for `m` (block 32, symbolic grid), unchecked.
fn analyse(src: &str, m: MetricName) -> (String, warpcert::core::assertion::poly::Poly) {
    let hw = Hardware::default();
    let file = frontend::parse_str("k.cu", src).unwrap();
    let (prog, _) = frontend::lower(&file, None, &launch(None), &hw, &BTreeMap::new()).unwrap();
    let r = analyze(
        &prog,
        &Metric::standard(m),
        &hw,
        &launch(None),
        &AnalysisOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (r.certificate, r.bound)
}

/// The lock-step per-warp cost of `src` under `m` at `n`, with `in[b] = −1` (others 1).
fn simulated(src: &str, m: MetricName, n: i64, b: Option<usize>) -> Q {
    let hw = Hardware::default();
    let file = frontend::parse_str("k.cu", src).unwrap();
    let l = launch(Some([1, 1, 1]));
    let (prog, _) = frontend::lower(&file, None, &l, &hw, &BTreeMap::new()).unwrap();
    let cells = (0..64)
        .map(|i| Value::Float(if Some(i) == b { -1.0 } else { 1.0 }))
        .collect();
    let inputs = Inputs::zero().with_array("in", ArrayInit::Values(cells));
    let params: Params = BTreeMap::from([("n".to_string(), Value::Int(n))]);
    let ms = [Metric::standard(m)];
    let run = run_kernel(&prog, &ms, &hw, &l, &params, &inputs).unwrap();
    run.metrics[0].max_per_warp.clone()
}

/// The uniform break is bounded by Q:GUARD/Q:GUARDEXIT for `sectors` and `steps`, the kernel
/// accepts the certificates, and the bound covers the lock-step cost at every tested `n` and
/// break position; for `sectors` the bound is the hand-derived `5·max(0, n)` at `n ≥ 1`
/// (exact when no lane breaks: checked against the semantics).
#[test]
fn a_uniform_break_is_bounded_by_the_guard_rules() {
    for m in [MetricName::Sectors, MetricName::Steps] {
        let (cert, bound) = analyse(UNIFORM, m);
        assert!(cert.contains("(Q:GUARD "), "{m:?}: Q:GUARD not used");
        assert!(
            cert.contains("(Q:GUARDEXIT "),
            "{m:?}: Q:GUARDEXIT not used"
        );
        warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("{m:?} rejected: {r:?}"));
        for n in [-2i64, 0, 1, 2, 3, 7, 20] {
            let at = BTreeMap::from([("n".to_string(), n)]);
            let got = bound.eval(&at);
            for b in [None, Some(0), Some(1), Some(3), Some(19)] {
                let truth = simulated(UNIFORM, m, n, b);
                assert!(truth <= got, "{m:?} n = {n}, b = {b:?}: {truth} > {got}");
            }
            if m == MetricName::Sectors {
                let hand = Q::from_integer((5 * n.max(0)).into());
                assert_eq!(simulated(UNIFORM, m, n, None), hand, "n = {n}");
                assert!(got >= hand, "n = {n}");
            }
        }
    }
}

/// Mutants of the uniform break's certificate that the kernel must reject: Q:GUARD renamed
/// to Q:GUARDEXIT (the write `g ← k < n` does not falsify the guard), Q:GUARDEXIT renamed to
/// Q:GUARD (its statement is a sequence, not the guard write), and the guard rewrites
/// dropped (the post potential `I + k` is then not dominated by the child's post).
#[test]
fn guard_certificate_mutants_are_rejected() {
    let (cert, _) = analyse(UNIFORM, MetricName::Sectors);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    let renamed = cert.replacen("(Q:GUARD ", "(Q:GUARDEXIT ", 1);
    assert_ne!(renamed, cert);
    assert!(
        warpcert_kernel::check(&renamed).is_err(),
        "Q:GUARD as Q:GUARDEXIT accepted"
    );
    let renamed = cert.replacen("(Q:GUARDEXIT ", "(Q:GUARD ", 1);
    assert_ne!(renamed, cert);
    assert!(
        warpcert_kernel::check(&renamed).is_err(),
        "Q:GUARDEXIT as Q:GUARD accepted"
    );
    // the `(rewrite guard …)` field removed
    let i = cert.find("(rewrite guard").expect("a guard rewrite");
    let mut depth = 0usize;
    let mut end = i;
    for (j, ch) in cert[i..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = i + j + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    let dropped = format!("{}{}", &cert[..i], &cert[end..]);
    assert!(
        warpcert_kernel::check(&dropped).is_err(),
        "no guard rewrite accepted"
    );
}

/// The uniform break's `sectors` and `steps` certificates export to Coq (`DGuard`,
/// `DGuardExit`, spec/logic.md §6) and `coqc` accepts them (`Print Assumptions`: closed under
/// the global context); a Coq-level mutant with the guard rewrites dropped (`Q1 ≥ Q'` is then
/// not dominated) fails the reflective check. Skips, saying so, without `coqc`.
#[test]
fn guard_certificates_check_in_coq_and_a_mutant_fails() {
    let mut texts = Vec::new();
    for (name, m) in [
        ("sectors", MetricName::Sectors),
        ("steps", MetricName::Steps),
    ] {
        let (cert, _) = analyse(UNIFORM, m);
        let v = warpcert::export::coq::export(&cert).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(v.contains("DGuard ") && v.contains("DGuardExit "), "{name}");
        texts.push((name.to_string(), v));
    }
    let orig = &texts[0].1;
    let at = orig.find("(DGuard ").unwrap();
    let open = at + orig[at..].find('[').unwrap();
    let close = open + orig[open..].find("]\n").unwrap();
    let mutant = format!("{}[]{}", &orig[..open], &orig[close + 1..]);
    assert_ne!(&mutant, orig);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let tmp = std::env::temp_dir().join(format!("warpcert-coq-guard-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut files = Vec::new();
    for (name, text) in texts.iter().chain([("mutant".to_string(), mutant)].iter()) {
        let f = tmp.join(format!("guard_{name}.v"));
        std::fs::write(&f, text).unwrap();
        files.push(f);
    }
    let runs = coqc_all(&files, 2);
    for (f, r) in files.iter().zip(&runs).take(2) {
        assert!(r.ok, "coqc rejected {}:\n{}", f.display(), r.out);
        assert!(
            r.out.contains("Closed under the global context"),
            "{}",
            r.out
        );
    }
    assert!(!runs[2].ok, "coqc accepted the mutant:\n{}", runs[2].out);
}
