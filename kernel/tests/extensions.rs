//! The kernel changes of issue 3 (spec/logic.md §2 "Fixed operands", the collapse of
//! warp-uniform thread dimensions in `dep_D`, Q:VWRITE1 without `x ∈ X(D)`, and Q:UNROLL),
//! each accepted and rejected on small hand-written certificates. Costs are hand-derived
//! from spec/metrics.md (`steps`: 1 per operand, operator and assignment; `divwarps`: only
//! `M^div = 1`).

mod common;
use common::*;
use warpcert_kernel::arith::FarkasProblem;
use warpcert_kernel::Reason;

/// `x ← 5·threadIdx.x; x ← 3` under `steps`: the second assignment is Q:VWRITE1 although
/// `x` is not uniform before it (the value `3` is). Costs: first 1 + (1 + 1 + 1) = 4,
/// second 1 + 1 = 2; bound 6.
#[test]
fn q_vwrite1_needs_only_a_uniform_value() {
    let l = launch([32, 1, 1]);
    let d0 = "(dep x 0 0 0 0 0)";
    let d5 = "(dep x 5 0 0 0 0)";
    let mk = |value: &str, d_after: &str| {
        let c1 = snode(
            "Q:VWRITE2",
            &assn(&l, d0, "(6)"),
            &assn(&l, d5, "(2)"),
            &format!("(entail post {}) (EQ:OP (cost 3) (OQ:CONST (cost 1)) (OQ:TID (cost 1)))", ids(0..6)),
        );
        let c2 = snode(
            "Q:VWRITE1",
            &assn(&l, d5, "(2)"),
            &assn(&l, d_after, ""),
            &format!(
                "(entail post {}) ({} (cost 1))",
                ids(0..6),
                if value == "(tid x)" { "OQ:TID" } else { "OQ:CONST" }
            ),
        );
        let root = snode("Q:SEQ", &assn(&l, d0, "(6)"), &assn(&l, d_after, ""), &format!("{c1} {c2}"));
        let body = format!("(seq (assign x (bin * (int 5) (tid x))) (assign x {value}))");
        simple("steps", "(int p)", "", "(int x)", &body, "(6)", root).text()
    };
    ok(&mk("(int 3)", "(dep x 0 0 0 3 0)"));
    // A non-uniform value cannot be claimed uniform (since issue 4 Q:VWRITE1 accepts a
    // non-uniform value, but the post's entry must be implied by ent_P,D(e): precision.rs).
    let r = rej(&mk("(tid x)", "(dep x 0 0 0 0 1)"));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
}

/// `x ← 4; y ← x / 2` under `steps`: `P` fixes `x = 4`, so `lin_P(x / 2) = 2` and the post
/// may state `y = 2` (exact dependence `(0, 2, 0)` too). Costs: 1 + 1 = 2 and
/// 1 + (1 + 1 + 1) = 4; bound 6. Claiming `y = 3` is a Farkas failure.
#[test]
fn fixed_operands_evaluate_nonlinear_operators() {
    let l = launch([32, 1, 1]);
    let d0 = "(dep x 0 0 0 0 0) (dep y 0 0 0 0 0)";
    let d1 = "(dep x 0 0 0 4 0) (dep y 0 0 0 0 0)";
    let mk = |v: i64, op: &str| {
        let p1 = format!("{l} (eq (lin -4 (1 x)))");
        let p2 = format!("{p1} (eq (lin {} (1 y)))", -v);
        let d2 = format!("(dep x 0 0 0 4 0) (dep y 0 0 0 {v} 0)");
        let c1 = snode(
            "Q:VWRITE1",
            &assn(&l, d0, "(6)"),
            &assn(&p1, d1, "(4)"),
            &format!("(entail post {} (farkas)) (OQ:CONST (cost 1))", ids(0..6)),
        );
        let c2 = snode(
            "Q:VWRITE1",
            &assn(&p1, d1, "(4)"),
            &assn(&p2, &d2, ""),
            &format!("(entail post {} (farkas)) (EQ:OP (cost 3) (OQ:VAR (cost 1)) (OQ:CONST (cost 1)))", ids(0..7)),
        );
        let root = snode("Q:SEQ", &assn(&l, d0, "(6)"), &assn(&p2, &d2, ""), &format!("{c1} {c2}"));
        let body = format!("(seq (assign x (int 4)) (assign y (bin {op} (var x) (int 2))))");
        simple("steps", "", "", "(int x) (int y)", &body, "(6)", root).text()
    };
    ok(&mk(2, "/"));
    ok(&mk(1, ">>"));
    ok(&mk(0, "%"));
    let r = rej(&mk(3, "/"));
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
    // A comparison into the int `y` is ill-typed (spec/minicuda.md §2, SS:VWRITE): the
    // program is rejected before any rule.
    let r = rej(&mk(1, "<"));
    assert_eq!(
        r.reason,
        Reason::TypeMismatch { what: "the assignment to `y`".into(), expected: "int", found: "bool" },
        "{r}"
    );
}

/// `x ← p * threadIdx.y` (Q:VWRITE2, `steps`: 1 + (1 + 1 + 1) = 4) with the post claiming
/// `x` uniform `(0 0 0 0 1)`: in a 32×2 block every warp is one row, so `threadIdx.y` is
/// warp-uniform and the product collapses; in a 16×2 block a warp spans two rows and the
/// dependence is `⊤`.
#[test]
fn warp_uniform_dimensions_collapse() {
    let mk = |block: [u32; 3]| {
        let l = launch(block);
        let root = snode(
            "Q:VWRITE2",
            &assn(&l, "(dep x 0 0 0 0 0)", "(4)"),
            &assn(&l, "(dep x 0 0 0 0 1)", ""),
            &format!("(entail post {}) (EQ:OP (cost 3) (OQ:PARAM (cost 1)) (OQ:TID (cost 1)))", ids(0..6)),
        );
        Cert {
            version: "1",
            metric: "steps",
            block,
            params: "(int p)",
            arrays: "",
            locals: "(int x)",
            body: "(assign x (bin * (param p) (tid y)))",
            bound: "(4)",
            derivation: root,
        }
        .text()
    };
    ok(&mk([32, 2, 1]));
    ok(&mk([64, 4, 2]));
    let r = rej(&mk([16, 2, 1]));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
}

/// `s ← 1; while (s < 3) s ← s * 2` under `divwarps` (every cost 0): two iterations
/// (`s = 1, 2`), derived by Q:UNROLL twice with Q:IF2 and once with Q:IF3 (`s = 4`).
/// Leaving after one iteration (Q:IF3 at `s = 2`) is a Farkas failure, and so is a third
/// iteration (Q:IF2 at `s = 4`).
#[test]
fn q_unroll_constant_trip_count() {
    let l = launch([32, 1, 1]);
    let a = |v: i64| (format!("{l} (eq (lin {} (1 s)))", -v), format!("(dep s 0 0 0 {v} 0)"));
    let cond = "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))";
    let step = |v: i64| {
        let ((p, d), (p2, d2)) = (a(v), a(2 * v));
        snode(
            "Q:VWRITE1",
            &assn(&p, &d, ""),
            &assn(&p2, &d2, ""),
            &format!("(entail post {} (farkas)) (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))", ids(0..6)),
        )
    };
    // iterations: the values of `s` at which an iteration is entered; `last` leaves.
    let mk = |iters: &[i64], last: i64, exit_rule: &str, exit_w: &str| {
        let (pl, dl) = a(last);
        let end = assn(&pl, &dl, "");
        let mut node = snode(
            "Q:UNROLL",
            &end,
            &end,
            &snode(
                exit_rule,
                &end,
                &end,
                &format!("(entail cond {exit_w}) {cond} {}", snode("Q:SKIP", &end, &end, "")),
            ),
        );
        for &v in iters.iter().rev() {
            let (p, d) = a(v);
            let pre = assn(&p, &d, "");
            let seq = snode("Q:SEQ", &pre, &end, &format!("{} {node}", step(v)));
            // s − 2 ≤ 0 from s − v = 0: λ = 1, μ = v − 2 ≤ 0.
            let iff = snode("Q:IF2", &pre, &end, &format!("(entail cond (farkas (6 1))) {cond} {seq}"));
            node = snode("Q:UNROLL", &pre, &end, &iff);
        }
        let (p1, d1) = a(1);
        let init = snode(
            "Q:VWRITE1",
            &assn(&l, "(dep s 0 0 0 0 0)", ""),
            &assn(&p1, &d1, ""),
            &format!("(entail post {} (farkas)) (OQ:CONST (cost 1))", ids(0..6)).replace("(cost 1)", "(cost 0)"),
        );
        let root = snode("Q:SEQ", &assn(&l, "(dep s 0 0 0 0 0)", ""), &end, &format!("{init} {node}"));
        let body = "(seq (assign s (int 1)) (while (bin < (var s) (int 3)) (assign s (bin * (var s) (int 2)))))";
        simple("divwarps", "", "", "(int s)", body, "", root).text()
    };
    // Leaving at s = 4: 3 − s ≤ 0 from s − 4 = 0 with λ = −1 (an equality): μ = −1.
    ok(&mk(&[1, 2], 4, "Q:IF3", "(farkas (6 -1))"));
    // Leaving at s = 2 would need 3 − s ≤ 0, i.e. μ = 1 > 0.
    let r = rej(&mk(&[1], 2, "Q:IF3", "(farkas (6 -1))"));
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
    // A third iteration at s = 4: s − 2 ≤ 0 from s − 4 = 0 gives μ = 2 > 0.
    let r = rej(&mk(&[1, 2, 4], 8, "Q:IF3", "(farkas (6 -1))"));
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
    // Q:UNROLL is about loops only.
    let t = mk(&[1, 2], 4, "Q:IF3", "(farkas (6 -1))").replacen("(Q:VWRITE1", "(Q:UNROLL", 1);
    let r = rej(&t);
    assert!(matches!(r.reason, Reason::WrongSubject { expected: "a while loop", .. }), "{r}");
}

/// The kernel memoizes `N*` per (thread constraints, dependence, element size, kind); a
/// repeated access must still be checked against its own claim: `A[threadIdx.x] ← 1`
/// twice under `sectors` (32 ints = 4 sectors each, by hand), the second claiming 3.
#[test]
fn repeated_access_is_checked_each_time() {
    let l = launch([32, 1, 1]);
    let mk = |n2: u32| {
        let total = 4 + n2;
        let w = |pre: u32, post: u32, n: u32| {
            snode(
                "Q:GWRITE",
                &assn(&l, "", &format!("({pre})")),
                &assn(&l, "", &format!("({post})")),
                &format!("(n {n}) (OQ:TID (cost 0)) (OQ:CONST (cost 0))"),
            )
        };
        let root = snode(
            "Q:SEQ",
            &assn(&l, "", &format!("({total})")),
            &assn(&l, "", "(0)"),
            &format!("{} {}", w(total, n2, 4), w(n2, 0, n2)),
        );
        let body = "(seq (write A (tid x) (int 1)) (write A (tid x) (int 1)))";
        let bound = format!("({total})");
        simple("sectors", "", "(A global int 4)", "", body, &bound, root).text()
    };
    assert_eq!(ok(&mk(4)).bound, "8");
    let r = rej(&mk(3));
    assert_eq!(r.reason, Reason::AccessBound { claimed: "3".into(), required: 4 });
}
