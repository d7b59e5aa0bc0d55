//! Lower-bound certificates made by the producer (`analysis::lower`, spec/logic.md §4b):
//! for straight-line kernels, a uniform `if` and counted loops, every warp's lower
//! certificate is accepted by the kernel (role `lower`), its bound is at most the cost the
//! lock-step semantics (the oracle) measures for that warp at many parameter values and
//! blocks, and where the hand derivation below says the cost is exact, the lower bound
//! equals the upper one (an `exact` answer backed by two accepted certificates). Mutated
//! access counts are rejected.

mod common;

use common::lower_guard::{guard_lower, lower_src, GUARD};
use common::warp_cost;

use std::collections::BTreeMap;
use warpcert::analysis::lower::{lower_certificate, LowerOptions};
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::metric::{q, Metric, MetricName};
use warpcert::core::Hardware;
use warpcert_kernel::{Reason, Role};

/// Hand derivation: `n` rounds (none for `n ≤ 0`), each reading `A[i + 1]` and writing
/// `A[i]`, one address for the whole warp each (uniform `i`): 1 sector each, so the warp
/// costs exactly `2·max(0, n)` sectors.
const LOOP: &str =
    "__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) { A[i] = A[i + 1]; } }";

/// Hand derivation: `i = 64·blockIdx.x + threadIdx.x` with 4-byte floats: the 32 lanes of a
/// warp read and write 128 consecutive bytes starting at a multiple of 128: 4 sectors per
/// access, 12 in all, for every warp and block.
const LINE: &str = "__global__ void k(float *A, float *B, float *C) { int i = blockDim.x * blockIdx.x + threadIdx.x; C[i] = A[i] + B[i]; }";

/// Hand derivation: each of the `n` rounds writes `A[32·i + threadIdx.x]`, 128 aligned
/// bytes: 4 sectors a round, `4·max(0, n)` in all.
const ROWS: &str = "__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) { A[32 * i + threadIdx.x] = i; } }";

/// A uniform `if`: the then branch writes 4 sectors (`A[threadIdx.x]`), the else branch 1
/// (`A[0]`): the lower bound is the minimum, 1; the upper bound 4. Not exact.
const BRANCH: &str =
    "__global__ void k(int *A, int n) { if (n > 3) { A[threadIdx.x] = 1; } else { A[0] = 2; } }";

/// Hand derivation: the rounds are `i = 0, 32, …` below `n`, `⌊(n + 31)/32⌋⁺` of them,
/// each writing one address (uniform `i`): one sector a round. The ranking atom is a floor
/// atom; the exit's `izero` proves it 0 with a Chvátal–Gomory cut.
const STEP: &str =
    "__global__ void k(int *A, int n) { for (int i = 0; i < n; i += 32) { A[i] = 0; } }";

/// A divergent `if` in a counted loop (rule L:IFD): lanes of even `threadIdx.x + j` take
/// the then branch, the others the else branch, so every warp splits in every round. Hand
/// derivation (sectors): the branches write only the shared `S` (0 sectors); each of the
/// `max(0, n)` rounds writes `A[32·j + threadIdx.x]`, 128 bytes at a multiple of 128: 4
/// sectors. Each warp costs exactly `4·max(0, n)`, which L:IFD (branches charged 0) and
/// L:WHILE prove from below. Its `divwarps` cost, `max(0, n)`, is not proved (L:IFD charges
/// no `M^div`).
const DIVIF: &str = "__global__ void k(int *A, int n) { __shared__ int S[64]; for (int j = 0; j < n; j++) { if ((threadIdx.x + j) % 2 == 0) { S[threadIdx.x] = j; } else { S[threadIdx.x] = 0; } A[32 * j + threadIdx.x] = 1; } }";

struct Case {
    src: &'static str,
    block: u32,
    /// Sectors bound by hand (`None`: lower and upper differ).
    exact_sectors: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        src: LOOP,
        block: 32,
        exact_sectors: Some("2*max(0, n)"),
    },
    Case {
        src: LINE,
        block: 64,
        exact_sectors: Some("12"),
    },
    Case {
        src: ROWS,
        block: 64,
        exact_sectors: Some("4*max(0, n)"),
    },
    Case {
        src: BRANCH,
        block: 64,
        exact_sectors: None,
    },
    Case {
        src: STEP,
        block: 32,
        exact_sectors: Some("max(0, ⌊(n + 31)/32⌋)"),
    },
    Case {
        src: DIVIF,
        block: 64,
        exact_sectors: Some("4*max(0, n)"),
    },
];

const METRICS: [MetricName; 4] = [
    MetricName::Sectors,
    MetricName::Conflicts,
    MetricName::Divwarps,
    MetricName::Steps,
];

#[test]
fn lower_bounds_are_accepted_and_below_the_semantics() {
    let hw = Hardware::default();
    let mut exact = 0;
    for case in CASES {
        let grid = 3;
        let (prog, launch) = lower_src(case.src, case.block, grid);
        for m in METRICS {
            let metric = Metric::standard(m);
            let up = analyze(&prog, &metric, &hw, &launch, &AnalysisOptions::default())
                .unwrap_or_else(|e| panic!("{m}: {e}"));
            for w in 0..case.block / 32 {
                let (text, bound) = lower_certificate(
                    &prog,
                    &metric,
                    &hw,
                    &launch,
                    &up.derivation,
                    w,
                    &LowerOptions::default(),
                )
                .unwrap_or_else(|e| panic!("{}: {m}: warp {w}: {e}", case.src));
                let v = warpcert_kernel::check(&text).unwrap_or_else(|r| {
                    panic!("{}: {m}: warp {w}: rejected: {r}\n{text}", case.src)
                });
                assert_eq!(v.role, Role::Lower(w));
                assert_eq!(v.bound, bound.to_bound_string());
                // the semantics is the oracle: the warp's cost is at least the bound
                for n in [-2, -1, 0, 1, 2, 3, 5, 9, 31, 32, 33, 64, 65, 100] {
                    for b in 0..grid {
                        let cost =
                            warp_cost(&prog, m, &launch, [b, 0, 0], u64::from(w), &[("n", n)]);
                        let env = BTreeMap::from([
                            ("n".to_string(), n),
                            ("blockIdx.x".to_string(), i64::from(b)),
                        ]);
                        let lb = bound.eval(&env);
                        assert!(
                            lb <= cost,
                            "{}: {m} warp {w} n={n} block {b}: lower bound {lb} above the cost {}",
                            case.src,
                            cost
                        );
                    }
                }
                if m == MetricName::Sectors {
                    match case.exact_sectors {
                        Some(e) => {
                            assert_eq!(v.bound, e, "{}: lower", case.src);
                            assert_eq!(up.bound.to_bound_string(), e, "{}: upper", case.src);
                            exact += 1;
                        }
                        None => assert_ne!(bound, up.bound, "{}", case.src),
                    }
                }
            }
        }
    }
    assert_eq!(
        exact,
        1 + 2 + 2 + 1 + 2,
        "exact sectors answers (warps of LOOP, LINE, ROWS, STEP, DIVIF)"
    );
}

#[test]
fn mutated_access_counts_are_rejected() {
    let hw = Hardware::default();
    let (prog, launch) = lower_src(ROWS, 64, 3);
    let metric = Metric::standard(MetricName::Sectors);
    let up = analyze(&prog, &metric, &hw, &launch, &AnalysisOptions::default()).unwrap();
    let (text, _) = lower_certificate(
        &prog,
        &metric,
        &hw,
        &launch,
        &up.derivation,
        1,
        &LowerOptions::default(),
    )
    .unwrap();
    assert!(text.contains("(n 4)"), "{text}");
    let r = warpcert_kernel::check(&text.replacen("(n 4)", "(n 5)", 1)).unwrap_err();
    assert_eq!(
        r.reason,
        Reason::AccessAbove {
            claimed: "5".into(),
            allowed: 4
        }
    );
    // the same certificate about a warp the block lacks
    let r = warpcert_kernel::check(&text.replacen("(lower 1)", "(lower 2)", 1)).unwrap_err();
    assert_eq!(
        r.reason,
        Reason::NoSuchWarp {
            warp: 2,
            threads: 64
        }
    );
    // the bound and every potential 4·max(0, n) raised to 5·max(0, n): the rounds pay 4
    let raised = text.replace("(4 (max0 (lin 0 (1 n))))", "(5 (max0 (lin 0 (1 n))))");
    assert_ne!(raised, text);
    let r = warpcert_kernel::check(&raised).unwrap_err();
    assert!(r.rule.starts_with("L:"), "{r}");
}

/// The lower rules' soundness lemmas (coq-export/theories/Lower.v, semantic premises:
/// spec/logic.md §4b) compile and depend on no axiom; skipped, saying so, without coqc.
#[test]
fn lower_rules_are_proved_in_coq_without_axioms() {
    use common::coq::{build_theories, coqc, coqc_available, CLOSED};
    if !coqc_available() {
        eprintln!("coqc not installed: Lower.v not checked");
        return;
    }
    build_theories().unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("warpcert-lower-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("lower_assumptions.v");
    let names = [
        "L_SKIP",
        "L_SYNC",
        "L_SEQ",
        "L_WEAK",
        "L_VWRITE",
        "L_GWRITE",
        "L_SWRITE",
        "L_LWRITE",
        "L_GARRAY",
        "L_SARRAY",
        "L_IF1",
        "L_IF2",
        "L_IF3",
        "L_IFD",
        "L_IFDIV",
        "seval_nonneg",
        "L_WHILE",
        "lower_claim",
        "exact_on_region",
    ];
    let mut text = String::from("From WarpCert Require Import Lower.\n");
    for n in names {
        text += &format!("Print Assumptions Lower.{n}.\n");
    }
    std::fs::write(&f, text).unwrap();
    let (ok, out) = coqc(&f);
    assert!(ok, "{out}");
    assert_eq!(out.matches(CLOSED).count(), names.len(), "{out}");
    let src = std::fs::read_to_string(common::root().join("coq-export/theories/Lower.v")).unwrap();
    assert!(
        !src.contains("admit") && !src.contains("Abort"),
        "Lower.v has an unfinished proof"
    );
}

#[test]
fn guard_hypotheses_make_the_guarded_bound_exact_on_their_region() {
    let hw = Hardware::default();
    let metric = Metric::standard(MetricName::Sectors);
    for w in 0..2 {
        let (prog, launch, text, when) = guard_lower(w);
        assert_eq!(when, "n - 64*blockIdx.x >= 64");
        assert!(
            text.contains(
                "(hyp (le (lin 64 (64 blockIdx.x) (-1 n)))) (witness (blockIdx.x 0) (n 64))"
            ),
            "{text}"
        );
        let v = warpcert_kernel::check(&text).unwrap_or_else(|r| panic!("rejected: {r}\n{text}"));
        assert_eq!((v.role, v.bound.as_str()), (Role::Lower(w), "12"));
        assert_eq!(
            v.hypotheses,
            vec!["64*blockIdx.x - n + 64 <= 0".to_string()]
        );
        let up = analyze(&prog, &metric, &hw, &launch, &AnalysisOptions::default()).unwrap();
        assert_eq!(up.bound.to_bound_string(), "12");
        // the semantics: 12 exactly inside the region, less outside it at n = 64·b
        for b in 0..3u32 {
            let base = 64 * i64::from(b);
            for (n, inside) in [
                (base, false),
                (base + 64, true),
                (base + 65, true),
                (1000, true),
            ] {
                let cost = warp_cost(
                    &prog,
                    MetricName::Sectors,
                    &launch,
                    [b, 0, 0],
                    u64::from(w),
                    &[("n", n)],
                );
                if inside {
                    assert_eq!(cost, q(12), "warp {w} block {b} n={n}");
                } else {
                    assert_eq!(cost, q(0), "warp {w} block {b} n={n}");
                }
            }
        }
    }
}

#[test]
fn mutated_hypotheses_and_witnesses_are_rejected() {
    let (_, _, text, _) = guard_lower(0);
    let check = |t: &str| warpcert_kernel::check(t).unwrap_err().reason;
    let wit = "(witness (blockIdx.x 0) (n 64))";
    // a witness outside the region (n = 63 < 64·(0 + 1))
    assert_eq!(
        check(&text.replacen(wit, "(witness (blockIdx.x 0) (n 63))", 1)),
        Reason::WitnessViolates("64*blockIdx.x - n + 64 <= 0".into())
    );
    // a witness violating a launch fact (blockIdx.x ≥ 0)
    assert_eq!(
        check(&text.replacen(wit, "(witness (blockIdx.x -1) (n 64))", 1)),
        Reason::WitnessViolates("-blockIdx.x <= 0".into())
    );
    // a witness without a parameter the facts mention
    assert_eq!(
        check(&text.replacen(wit, "(witness (n 64))", 1)),
        Reason::WitnessMissing("blockIdx.x".into())
    );
    // a witness naming a local
    assert_eq!(
        check(&text.replacen(wit, "(witness (blockIdx.x 0) (n 64) (i 0))", 1)),
        Reason::WitnessName("i".into())
    );
    // a hypothesis about a local (not a parameter)
    let hyp = "(hyp (le (lin 64 (64 blockIdx.x) (-1 n))))";
    assert!(text.contains(hyp));
    assert_eq!(
        check(&text.replacen(hyp, "(hyp (le (lin 64 (64 blockIdx.x) (-1 i))))", 1)),
        Reason::HypothesisVariable("i".into())
    );
    // without the hypotheses the root pre is not the launch facts
    let r = warpcert_kernel::check(&text.replacen(&format!(" {hyp} {wit}"), "", 1)).unwrap_err();
    assert!(
        matches!(
            r.reason,
            Reason::Differs {
                left: "the launch facts",
                ..
            }
        ),
        "{r}"
    );
    // a weaker hypothesis (n ≥ 64·blockIdx.x + 32) in the root pre and the section: L:IF2
    // no longer proves that every lane of the block passes the guard
    let weak = text.replace(
        "(lin 64 (64 blockIdx.x) (-1 n))",
        "(lin 32 (64 blockIdx.x) (-1 n))",
    );
    let r = warpcert_kernel::check(&weak).unwrap_err();
    assert_eq!(r.rule, "L:IF2", "{r}");
    // the bound raised to 13
    let raised = text.replace("(poly (12))", "(poly (13))");
    assert_ne!(raised, text);
    assert!(warpcert_kernel::check(&raised).is_err());
}

/// `warpcert analyze` on GUARD prints `=` with the region where the bound is attained, and
/// `warpcert check` on the lower certificate prints its hypotheses (spec/logic.md §4b,
/// L:HYP; the hand derivation is GUARD's).
#[test]
fn analyze_prints_the_region_of_an_exact_answer_under_hypotheses() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("warpcert-lowerhyp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("guard.cu");
    std::fs::write(&src, GUARD).unwrap();
    let cert = dir.join("guard.sectors.cert");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .args([
            "analyze",
            src.to_str().unwrap(),
            "--block",
            "64",
            "--metric",
            "sectors",
        ])
        .args(["--cert", cert.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("per warp  = 12"), "{text}");
    assert!(
        text.contains("exact (attained when n - 64*blockIdx.x >= 64; at most that elsewhere)"),
        "{text}"
    );
    let lower = dir.join("guard.sectors.lower.cert");
    let out = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .args(["check", lower.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("cost of warp 0 >= 12"), "{text}");
    assert!(
        text.contains(
            "when (parameter hypotheses, a witness point checked): 64*blockIdx.x - n + 64 <= 0"
        ),
        "{text}"
    );
}

/// A branch writes the local `x`, which the code after the `if` does not use: the upper
/// derivation's join forgets `x`, and L:IFD's post neither mentions it nor needs to.
const WRITES_X: &str = "__global__ void k(int *A, int n) { int x = 0; if (threadIdx.x % 2 == 0) { x = 1; } A[threadIdx.x] = n; }";

/// `text` with the L:IFD node's post replaced by a new assertion `zz`, defined (at the end of
/// the `(assertions …)` table) by the lines `defs` (format 6 names: bare base-36).
fn ifd_post_replaced(text: &str, defs: &str) -> String {
    let at = text.find("(L:IFD (post ").expect("an L:IFD node");
    let end = at + text[at..].find(')').expect("its post");
    let node = format!("{}(post zz)", &text[at..at + "(L:IFD ".len()]);
    let with_post = format!("{}{}{}", &text[..at], node, &text[end + 1..]);
    let table_end = with_post
        .find("\n)\n(derivation")
        .expect("the assertions table");
    format!(
        "{}\n{defs}{}",
        &with_post[..table_end],
        &with_post[table_end..]
    )
}

/// L:IFD (spec/logic.md §4b): the post may not mention a local a branch writes, in `P`
/// (`IfdWritten` with part `P`) or in `Q` (part `Q`): after a divergent `if` its value is
/// whatever the branches left. The unmutated certificate is accepted, with the hand
/// derivation's bound (4 sectors: `A[threadIdx.x]`, 128 aligned bytes, for warp 0 of a
/// 32-thread block; the branch writes no memory).
#[test]
fn ifd_posts_mentioning_a_written_local_are_rejected() {
    let hw = Hardware::default();
    let (prog, launch) = lower_src(WRITES_X, 32, 1);
    let metric = Metric::standard(MetricName::Sectors);
    let up = analyze(&prog, &metric, &hw, &launch, &AnalysisOptions::default()).unwrap();
    let (text, _) = lower_certificate(
        &prog,
        &metric,
        &hw,
        &launch,
        &up.derivation,
        0,
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let v = warpcert_kernel::check(&text).unwrap_or_else(|r| panic!("rejected: {r}\n{text}"));
    assert_eq!((v.role, v.bound.as_str()), (Role::Lower(0), "4"));
    // a fact about x in the post's P
    let r = warpcert_kernel::check(&ifd_post_replaced(
        &text,
        "(p zy 0 (le (lin -1 (1 x))))\n(a zz zy 1 (poly (4)))",
    ))
    .unwrap_err();
    assert_eq!(
        r.reason,
        Reason::IfdWritten {
            part: "P",
            var: "x".into()
        }
    );
    assert_eq!(r.rule, "L:IFD");
    assert!(
        r.to_string()
            .contains("L:IFD: the post P mentions `x`, which a branch of the if writes"),
        "{r}"
    );
    // a term over x in the post's Q (with d2, the map where x is uniform, so that the
    // assertion is well formed; p0 and d2 as the analysis names them)
    let r = warpcert_kernel::check(&ifd_post_replaced(
        &text,
        "(a zz 0 2 (poly (1 (max0 (lin 0 (1 x))))))",
    ))
    .unwrap_err();
    assert_eq!(
        r.reason,
        Reason::IfdWritten {
            part: "Q",
            var: "x".into()
        }
    );
    assert!(
        r.to_string()
            .contains("L:IFD: the post Q mentions `x`, which a branch of the if writes"),
        "{r}"
    );
}
