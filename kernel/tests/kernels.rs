//! Hand-written certificates for two tiny kernels (accepted) and their mutants (rejected).

mod common;
use common::*;
use warpcert_kernel::{check, Reason};

/// `A[threadIdx.x] ← 0` under `sectors`, block 32×1×1. Hand derivation: the index has
/// dependence (1,0,0; 0 mod 0), so β = 0 and the 32 lanes write bytes 0, 4, …, 124: four
/// 32-byte sectors, N* = 4; cost = M^gwrite(4) + 0 + 0 = 4.
fn store_tid(n: &str, bound: &str, q: &str, rule: &str) -> String {
    let l = launch([32, 1, 1]);
    let d = snode(rule, &assn(&l, "", q), &assn(&l, "", ""), &format!("(n {n}) (OQ:TID (cost 0)) (OQ:CONST (cost 0))"));
    simple("sectors", "", "(A global int 4)", "", "(write A (tid x) (int 0))", bound, d).text()
}

#[test]
fn store_tid_accepted_with_four_sectors() {
    let v = check(&store_tid("4", "(4)", "(4)", "Q:GWRITE")).unwrap();
    assert_eq!(v.bound, "4");
    assert_eq!(v.metric, "sectors");
    assert_eq!(v.block, [32, 1, 1]);
    assert_eq!(v.hardware, [32, 32, 4, 32]);
    assert_eq!(v.nodes_checked, 3);
    assert!(v.to_string().contains("per-warp cost <= 4"));
}

#[test]
fn store_tid_mutants_rejected() {
    // n below N* = 4.
    let r = check(&store_tid("3", "(3)", "(3)", "Q:GWRITE")).unwrap_err();
    assert_eq!(r.reason, Reason::AccessBound { claimed: "3".into(), required: 4 });
    assert_eq!(r.rule, "Q:GWRITE");
    assert_eq!(r.node_path, "0");
    // A coefficient of the pre potential changed (pre says 5, post + 4 = 4).
    let r = check(&store_tid("4", "(5)", "(5)", "Q:GWRITE")).unwrap_err();
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
    // The bound line differs from the root potential.
    let r = check(&store_tid("4", "(3)", "(4)", "Q:GWRITE")).unwrap_err();
    assert_eq!(r.reason, Reason::BoundMismatch { bound: "3".into(), root: "4".into() });
    // Rule names: an unknown one, and the shared-memory rule on a global array.
    let r = check(&store_tid("4", "(4)", "(4)", "Q:GWRITE3")).unwrap_err();
    assert_eq!(r.reason, Reason::UnknownRule("Q:GWRITE3".into()));
    let r = check(&store_tid("4", "(4)", "(4)", "Q:SWRITE")).unwrap_err();
    assert!(matches!(r.reason, Reason::WrongSubject { expected: "a shared array", .. }), "{r}");
    // Version: 7 is outside the supported range; a version 2 certificate needs its
    // assumptions section (versions 3 to 6 are tested in tests/shared.rs).
    let t = store_tid("4", "(4)", "(4)", "Q:GWRITE");
    let r = check(&t.replacen("warpcert-certificate 1", "warpcert-certificate 7", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::Version { found: "7".into(), supported: "1..=6" });
    assert_eq!(r.to_string(), "parse: unsupported certificate version 7 (supported: 1..=6)");
    let r = check(&t.replacen("warpcert-certificate 1", "warpcert-certificate 2", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::Syntax { line: 0, expected: "assumptions", found: "no such section".into() });
}

/// `i ← 0; while (i < n) { A[i] ← 0; i ← i + 1 }` under `sectors`, block 32×1×1, bound
/// `max(0, n)`. Hand derivation: the loop invariant potential is `max0(n − i)`; at the body
/// entry `i − n + 1 ≤ 0` gives `n − i ≥ 1`, so Q:WEAK shifts it to `max0(n − i − 1) + 1`;
/// the uniform store `A[i]` has dependence (0; 0 mod 1), all lanes hit one address: N* = 1.
fn loop_cert(n: &str, lambda: &str, vwrite_q: &str) -> String {
    let l = launch([32, 1, 1]);
    let d0 = "(dep i 0 0 0 0 0)";
    let d1 = "(dep i 0 0 0 0 1)";
    let ni = "(1 (max0 (lin 0 (1 n) (-1 i))))";
    let ni1 = "(1 (max0 (lin -1 (1 n) (-1 i))))";
    let ge = "(le (lin 1 (1 i) (-1 n)))"; // i − n + 1 ≤ 0
    let exit = "(le (lin 0 (-1 i) (1 n)))"; // n − i ≤ 0
    let init = snode("Q:VWRITE1", &assn(&l, d0, vwrite_q), &assn("", d1, ni), "(OQ:CONST (cost 0))");
    let store = snode(
        "Q:GWRITE",
        &assn(ge, d1, &format!("(1) {ni1}")),
        &assn(ge, d1, ni1),
        &format!("(n {n}) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))"),
    );
    let incr = snode(
        "Q:VWRITE1",
        &assn(ge, d1, ni1),
        &assn("", d1, ni),
        "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))",
    );
    let body = snode("Q:SEQ", &assn(ge, d1, &format!("(1) {ni1}")), &assn("", d1, ni), &format!("{store} {incr}"));
    let weak = snode(
        "Q:WEAK",
        &assn(ge, d1, ni),
        &assn("", d1, ni),
        &format!(
            "(entail pre (farkas (0 1))) (rewrite pre (shift (lin 0 (1 n) (-1 i)) 1 (farkas (0 {lambda})))) {body}"
        ),
    );
    let lp = snode(
        "Q:WHILE1",
        &assn("", d1, ni),
        &assn(exit, d1, ni),
        &format!("(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:PARAM (cost 0))) {weak}"),
    );
    let root = snode("Q:SEQ", &assn(&l, d0, "(1 (max0 (lin 0 (1 n))))"), &assn(exit, d1, ni), &format!("{init} {lp}"));
    simple(
        "sectors",
        "(int n)",
        "(A global int 4)",
        "(int i)",
        "(seq (assign i (int 0)) (while (bin < (var i) (param n)) (seq (write A (var i) (int 0)) (assign i (bin + (var i) (int 1))))))",
        "(1 (max0 (lin 0 (1 n))))",
        root,
    )
    .text()
}

#[test]
fn loop_accepted() {
    let v = check(&loop_cert("1", "1", "(1 (max0 (lin 0 (1 n))))")).unwrap();
    assert_eq!(v.bound, "max(0, n)");
    // 1 root + 2 (i ← 0) + 1 loop + 3 (i < n) + 1 weak + 1 seq + 3 store + 4 (i ← i + 1).
    assert_eq!(v.nodes_checked, 16);
}

#[test]
fn loop_mutants_rejected() {
    // Farkas multiplier 2: residual (1 − n + i) − 2(i − n + 1) = n − i − 1 is not constant.
    let r = check(&loop_cert("1", "2", "(1 (max0 (lin 0 (1 n))))")).unwrap_err();
    assert_eq!(r.rule, "Q:WEAK");
    assert_eq!(r.node_path, "0.1.1");
    assert!(matches!(&r.reason, Reason::Farkas { item: 0, .. }), "{r}");
    // The store claims 0 sectors (N* = 1, and n ≥ 1 is required).
    let r = check(&loop_cert("0", "1", "(1 (max0 (lin 0 (1 n))))")).unwrap_err();
    assert_eq!(r.reason, Reason::AccessBound { claimed: "0".into(), required: 1 });
    assert_eq!(r.node_path, "0.1.1.0.0");
    // Coefficient 2 in the first assignment's pre: Q'[i ← 0] = max0(n) ≠ 2·max0(n).
    let r = check(&loop_cert("1", "1", "(2 (max0 (lin 0 (1 n))))")).unwrap_err();
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
}
