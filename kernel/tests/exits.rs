//! The kernel changes for loops left by jumps (spec/logic.md §4a: filtered position,
//! Q:IFEXIT1, Q:IFEXIT4, Q:WHILEEXIT1, Q:WHILEEXIT2), the `mono` rewrite
//! (spec/certificate.md) and the `gridDim.d ≥ 1` launch fact (spec/logic.md §5), each
//! accepted and rejected on small hand-written certificates. Metric `divwarps`: every cost
//! is 0 except `M^div = 1` (spec/metrics.md), so the potentials below are derived by hand.

mod common;
use common::*;
use warpcert_kernel::arith::FarkasProblem;
use warpcert_kernel::Reason;

const BODY: &str = "(seq (assign i (param n)) (while (bin < (var j) (int 2)) (if (bin <= (var i) (int 0)) (assign j (int 3)) (seq (assign i (bin - (var i) (int 1))) (if (bin == (tid x) (int 0)) (assign j (int 3)) (skip))))))";

/// `i ← n; while (j < 2) { if (i <= 0) j ← 3 else { i ← i − 1; if (threadIdx.x == 0)
/// j ← 3 } }` under `divwarps`, block 32: lane 0 leaves in the first round (a divergent
/// exit, Q:IFEXIT4, `M^div = 1`), the others when `i` reaches 0 (a uniform exit, Q:IFEXIT1).
/// By hand: per round the divergent exit and the divergent loop test cost 2, so the
/// invariant is `I = 2·max0(i)` (the uniform exit's else branch shifts `max0(i)` by 1 under
/// `i ≥ 1`), `k = M^if + M^div + C = 1`, and the loop's pre is `I + 0 + 2k`; the bound is
/// `2·max0(n) + 2`.
fn exits_cert() -> String {
    let l = launch([32, 1, 1]);
    let d0 = "(dep i 0 0 0 0 0) (dep j 0 0 0 0 0)";
    let d1 = "(dep i 0 0 0 0 1) (dep j 0 0 0 0 0)";
    let d1j3 = "(dep i 0 0 0 0 1) (dep j 0 0 0 3 0)";
    let cmp = "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))";
    let cmp_tid = "(EQ:OP (cost 0) (OQ:TID (cost 0)) (OQ:CONST (cost 0)))";
    let j3 = "(eq (lin -3 (1 j)))";
    let pb = format!("{l} (le (lin -1 (1 j)))"); // P ∧ (j < 2)
    let pt = format!("{pb} (le (lin 0 (1 i)))"); // ∧ i ≤ 0
    let pf = format!("{pb} (le (lin 1 (-1 i)))"); // ∧ ¬(i ≤ 0)
    let set_j = |pre_p: &str, npre: usize, d_pre: &str, q: &str| {
        snode(
            "Q:VWRITE1",
            &assn(pre_p, d_pre, q),
            &assn(&format!("{l} {j3}"), d1j3, q),
            &format!("(entail post {} (farkas)) (OQ:CONST (cost 0))", ids(0..6.min(npre))),
        )
    };
    // the divergent exit: if (threadIdx.x == 0) j ← 3 else skip
    let ifexit4 = snode(
        "Q:IFEXIT4",
        &assn(&l, d1, "(2) (2 (max0 (lin 0 (1 i))))"),
        &assn(&l, d1, "(1) (2 (max0 (lin 0 (1 i))))"),
        &format!(
            "(entail exit (farkas (6 -1))) (entail join-then {}) (entail join-else {}) {cmp_tid} {} {}",
            ids(0..6),
            ids(0..6),
            set_j(&format!("{l} (eq (lin 0 (1 threadIdx.x)))"), 7, d1, ""),
            snode(
                "Q:SKIP",
                &assn(&l, d1, "(1) (2 (max0 (lin 0 (1 i))))"),
                &assn(&l, d1, "(1) (2 (max0 (lin 0 (1 i))))"),
                ""
            )
        ),
    );
    let dec = snode(
        "Q:VWRITE1",
        &assn(&pf, d1, "(2) (2 (max0 (lin -1 (1 i))))"),
        &assn(&l, d1, "(2) (2 (max0 (lin 0 (1 i))))"),
        &format!("(entail post {}) {cmp}", ids(0..6)),
    );
    let seq = snode(
        "Q:SEQ",
        &assn(&pf, d1, "(2) (2 (max0 (lin -1 (1 i))))"),
        &assn(&l, d1, "(1) (2 (max0 (lin 0 (1 i))))"),
        &format!("{dec} {ifexit4}"),
    );
    // the else branch of the uniform exit: max0(i) = max0(i − 1) + 1 under 1 − i ≤ 0
    let weak = snode(
        "Q:WEAK",
        &assn(&pf, d1, "(2 (max0 (lin 0 (1 i))))"),
        &assn(&l, d1, "(1) (2 (max0 (lin 0 (1 i))))"),
        &format!(
            "(entail pre {}) (rewrite pre (shift (lin 0 (1 i)) 1 (farkas (7 1)))) (entail post {}) {seq}",
            ids(0..8),
            ids(0..6)
        ),
    );
    let ifexit1 = snode(
        "Q:IFEXIT1",
        &assn(&pb, d1, "(2 (max0 (lin 0 (1 i))))"),
        &assn(&l, d1, "(1) (2 (max0 (lin 0 (1 i))))"),
        &format!(
            "(entail exit (farkas (6 -1))) (entail join-then {}) (entail join-else {}) {cmp} {} {weak}",
            ids(0..6),
            ids(0..6),
            set_j(&pt, 8, d1, "(2 (max0 (lin 0 (1 i))))")
        ),
    );
    let lp = snode(
        "Q:WHILEEXIT2",
        &assn(&l, d1, "(2) (2 (max0 (lin 0 (1 i))))"),
        &assn(&format!("{l} (le (lin 2 (-1 j)))"), "", ""),
        &format!("{cmp} {ifexit1}"),
    );
    let init = snode(
        "Q:VWRITE1",
        &assn(&l, d0, "(2) (2 (max0 (lin 0 (1 n))))"),
        &assn(&l, d1, "(2) (2 (max0 (lin 0 (1 i))))"),
        &format!("(entail post {}) (OQ:PARAM (cost 0))", ids(0..6)),
    );
    let root = snode(
        "Q:SEQ",
        &assn(&l, d0, "(2) (2 (max0 (lin 0 (1 n))))"),
        &assn(&format!("{l} (le (lin 2 (-1 j)))"), "", ""),
        &format!("{init} {lp}"),
    );
    simple("divwarps", "(int n)", "", "(int i) (int j)", BODY, "(2) (2 (max0 (lin 0 (1 n))))", root).text()
}

#[test]
fn exits_accepted() {
    assert_eq!(ok(&exits_cert()).bound, "2 + 2*max(0, n)");
}

/// The divergent exit as Q:IFEXIT1: its condition reads `threadIdx.x`.
#[test]
fn ifexit1_needs_a_uniform_condition() {
    let t = mutant(&exits_cert(), "(Q:IFEXIT4", "(Q:IFEXIT1");
    let r = rej(&t);
    assert!(matches!(r.reason, Reason::NotUniform(_)), "{r}");
}

/// Q:WHILEEXIT1 (no `M^div` at the loop test) with a Q:IFEXIT4 exit in the body: rejected
/// (some lanes leave while others stay, so the test splits the warp).
#[test]
fn whileexit1_rejects_divergent_exits() {
    let t = mutant(&exits_cert(), "(Q:WHILEEXIT2", "(Q:WHILEEXIT1");
    let r = rej(&t);
    assert_eq!(r.reason, Reason::DivergentExit, "{r}");
}

/// The same derivation under Q:WHILE2: the body is then an ordinary node and Q:IFEXIT1 is
/// not allowed there.
#[test]
fn ifexit_only_in_filtered_position() {
    let t = mutant(&exits_cert(), "(Q:WHILEEXIT2", "(Q:WHILE2");
    let r = rej(&t);
    assert_eq!(r.reason, Reason::NotFiltered, "{r}");
}

/// The exit witness must show `¬e` (here `2 − j ≤ 0` from `j − 3 = 0`, λ = −1); with λ = 1
/// the remainder `5 − 2j` is not a constant.
#[test]
fn exit_witness_is_checked() {
    let t = mutant(&exits_cert(), "(entail exit (farkas (6 -1)))", "(entail exit (farkas (6 1)))");
    let r = rej(&t);
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::NotConstant(_), .. }), "{r}");
}

/// The loop's pre must also pay the final test and the post potential: `I + Q' + 2k`;
/// claiming `I + k` at the loop is rejected there.
#[test]
fn whileexit_charges_the_final_test() {
    let t = exits_cert();
    let at = t.find("(Q:WHILEEXIT2 (pre ").expect("loop node");
    let mut t2 = t[..at].to_string();
    t2.push_str(&t[at..].replacen("(poly (2) ", "(poly (1) ", 1));
    let r = rej(&t2);
    assert_eq!(r.rule, "Q:WHILEEXIT2", "{r}");
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
}

/// A loop condition without `cond(¬e)` (`j == 0`): no exit can be shown.
#[test]
fn exit_needs_a_negatable_condition() {
    let t = mutant(&exits_cert(), "(while (bin < (var j) (int 2))", "(while (bin == (var j) (int 0))");
    let r = rej(&t);
    assert!(matches!(r.reason, Reason::NoCondition(_)), "{r}");
}

/// A loop left by jumps whose condition reads an array (`while (B[j])`): the test also runs
/// on threads that left by an exit, for which `D` (and so the read's `n`) need not hold;
/// Q:WHILEEXIT1/2 reject it before anything else (spec/logic.md §4a).
#[test]
fn whileexit_test_reads_no_array() {
    let t = mutant(&exits_cert(), "(arrays )", "(arrays (B global bool 1))").replacen(
        "(while (bin < (var j) (int 2))",
        "(while (read B (var j))",
        1,
    );
    assert!(t.contains("(while (read B (var j))") && t.contains("(B global bool 1)"));
    let r = rej(&t);
    assert_eq!(r.rule, "Q:WHILEEXIT2", "{r}");
    assert_eq!(r.reason, Reason::ExitTestReads("B".into()), "{r}");
}

/// `mono`: under the launch fact `1 − gridDim.x ≤ 0`, `max0(n) ≥ max0(n + 1 − gridDim.x)`
/// (the decrease of a grid-stride counter, relaxed): a Q:WEAK about `skip` from `max0(n)`
/// to `max0(n − gridDim.x + 1)`.
fn mono_cert(root_p_extra: &str, rw: &str) -> String {
    let l = launch([32, 1, 1]);
    let p = format!("{l} {root_p_extra}");
    let q2 = "(1 (max0 (lin 1 (1 n) (-1 gridDim.x))))";
    let skip = snode("Q:SKIP", &assn(&p, "", q2), &assn(&p, "", q2), "");
    let n = l.matches("(le").count() + root_p_extra.matches("(le").count();
    let root = snode(
        "Q:WEAK",
        &assn(&p, "", "(1 (max0 (lin 0 (1 n))))"),
        &assn(&p, "", q2),
        &format!("(entail pre {}) (rewrite pre {rw}) (entail post {}) {skip}", ids(0..n), ids(0..n)),
    );
    simple("divwarps", "(int n) (int gridDim.x)", "", "", "(skip)", "(1 (max0 (lin 0 (1 n))))", root).text()
}

#[test]
fn mono_rewrite_and_grid_launch_fact() {
    let fact = "(le (lin 1 (-1 gridDim.x)))";
    let good = "(mono (lin 0 (1 n)) (lin 1 (1 n) (-1 gridDim.x)) (farkas (6 1)))";
    assert_eq!(ok(&mono_cert(fact, good)).bound, "max(0, n)");
    // a witness that does not prove 1 − gridDim.x ≤ 0
    let bad_w = good.replace("(farkas (6 1))", "(farkas (6 2))");
    let r = rej(&mono_cert(fact, &bad_w));
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::NotConstant(_), .. }), "{r}");
    // the wrong direction: max0(n + 1 − gridDim.x) ≥ max0(n) would need gridDim.x ≤ 1
    let up = "(mono (lin 1 (1 n) (-1 gridDim.x)) (lin 0 (1 n)) (farkas (6 -1)))";
    let r = rej(&mono_cert(fact, up));
    assert!(matches!(r.reason, Reason::Farkas { .. }), "{r}");
}

/// The root's `P` is the launch facts, `1 − gridDim.x ≤ 0` included for a `gridDim.x`
/// parameter (after those of `blockIdx.x`, in declaration order).
#[test]
fn grid_launch_fact() {
    let l = launch([32, 1, 1]);
    let mk = |p: &str| {
        let root = snode("Q:SKIP", &assn(p, "", ""), &assn(p, "", ""), "");
        simple("divwarps", "(int blockIdx.x) (int gridDim.x)", "", "", "(skip)", "", root).text()
    };
    // spec/logic.md §5: blockIdx.x ≥ 0, gridDim.x ≥ 1, blockIdx.x ≤ gridDim.x − 1, in this order.
    ok(&mk(&format!(
        "{l} (le (lin 0 (-1 blockIdx.x))) (le (lin 1 (-1 gridDim.x))) (le (lin 1 (1 blockIdx.x) (-1 gridDim.x)))"
    )));
    let r = rej(&mk(&format!("{l} (le (lin 0 (-1 blockIdx.x))) (le (lin 1 (-1 gridDim.x)))")));
    assert!(matches!(r.reason, Reason::Differs { component: "P", .. }), "{r}");
    let r = rej(&mk(&format!("{l} (le (lin 0 (-1 blockIdx.x)))")));
    assert!(matches!(r.reason, Reason::Differs { component: "P", .. }), "{r}");
    let r = rej(&mk(&format!("{l} (le (lin 1 (-1 gridDim.x))) (le (lin 0 (-1 blockIdx.x)))")));
    assert!(matches!(r.reason, Reason::Differs { component: "P", .. }), "{r}");
}

/// `i ← n; while (j < 2) { if (i <= 0) j ← 3 else i ← i − 1 }` under `divwarps`: every
/// branch is uniform, so Q:WHILEEXIT1 charges no `M^div` at the test and the bound is 0
/// (by hand: no divergence anywhere). Without `j` in `D` the loop test is not uniform.
#[test]
fn uniform_exit_loop() {
    let l = launch([32, 1, 1]);
    let mk = |dj: &str| {
        let d0 = format!("(dep i 0 0 0 0 0) {dj}");
        let d1 = format!("(dep i 0 0 0 0 1) {dj}");
        let cmp = "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))";
        let pb = format!("{l} (le (lin -1 (1 j)))");
        let pt = format!("{pb} (le (lin 0 (1 i)))");
        let pf = format!("{pb} (le (lin 1 (-1 i)))");
        let set_j = snode(
            "Q:VWRITE1",
            &assn(&pt, &d1, ""),
            &assn(&format!("{l} (eq (lin -3 (1 j)))"), "(dep i 0 0 0 0 1) (dep j 0 0 0 3 0)", ""),
            &format!("(entail post {} (farkas)) (OQ:CONST (cost 0))", ids(0..6)),
        );
        let dec =
            snode("Q:VWRITE1", &assn(&pf, &d1, ""), &assn(&l, &d1, ""), &format!("(entail post {}) {cmp}", ids(0..6)));
        let ifexit1 = snode(
            "Q:IFEXIT1",
            &assn(&pb, &d1, ""),
            &assn(&l, &d1, ""),
            &format!(
                "(entail exit (farkas (6 -1))) (entail join-then {}) (entail join-else {}) {cmp} {set_j} {dec}",
                ids(0..6),
                ids(0..6)
            ),
        );
        let post = assn(&format!("{l} (le (lin 2 (-1 j)))"), "", "");
        let lp = snode("Q:WHILEEXIT1", &assn(&l, &d1, ""), &post, &format!("{cmp} {ifexit1}"));
        let init = snode(
            "Q:VWRITE1",
            &assn(&l, &d0, ""),
            &assn(&l, &d1, ""),
            &format!("(entail post {}) (OQ:PARAM (cost 0))", ids(0..6)),
        );
        let root = snode("Q:SEQ", &assn(&l, &d0, ""), &post, &format!("{init} {lp}"));
        let body = "(seq (assign i (param n)) (while (bin < (var j) (int 2)) (if (bin <= (var i) (int 0)) (assign j (int 3)) (assign i (bin - (var i) (int 1))))))";
        simple("divwarps", "(int n)", "", "(int i) (int j)", body, "", root).text()
    };
    assert_eq!(ok(&mk("(dep j 0 0 0 0 0)")).bound, "0");
    let r = rej(&mk(""));
    assert!(matches!(r.reason, Reason::NotUniform(_)), "{r}");
}
