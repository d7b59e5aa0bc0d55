//! Per-rule accept/reject cases with small hand-written certificates (block 32×1×1,
//! hardware 32 banks × 4 bytes, 32-byte sectors). Expected costs are hand-derived from
//! spec/metrics.md's tables; each case says how.

mod common;
use common::*;
use warpcert_kernel::arith::FarkasProblem;
use warpcert_kernel::Reason;

const L: [u32; 3] = [32, 1, 1];

fn l() -> String {
    launch(L)
}

/// `x ← E` by Q:VWRITE2 under `steps`: post `(L, {}, 0)`, pre `(L, D, pre_q)`;
/// `expr_node` is the derivation of `E`. When `D` is not the initial `x = 0`, the body is
/// prefixed by `x ← K·threadIdx.x` (see [`prefixed`]).
fn vwrite2(e: &str, d: &str, pre_q: &str, expr_node: &str) -> String {
    let node = snode(
        "Q:VWRITE2",
        &assn(&l(), d, pre_q),
        &assn(&l(), "", ""),
        &format!("(entail post {}) {expr_node}", ids(0..6)),
    );
    let body = format!("(assign x {e})");
    match d.strip_prefix("(dep x ").and_then(|r| r.split(' ').next()) {
        Some(k) if k != "0" => prefixed(k, &body, pre_q, "", node),
        _ => simple("steps", "(int p)", "(A global int 4) (S shared int 4)", "(int x)", &body, pre_q, node).text(),
    }
}

/// `x ← K * threadIdx.x; S` under `steps`: the first assignment (Q:VWRITE2, cost
/// 1 + 1 + 1 + M^vwrite = 4, dep `(int K)` exact times `(1,0,0)` = `(K 0 0 0 0)`) is followed by
/// the node `rest` for `S` with pre potential the constant `rest_q` (given as `(c)`) and
/// post `(L, post_d, 0)`.
fn prefixed(k: &str, s: &str, rest_q: &str, post_d: &str, rest: String) -> String {
    let c: i64 = rest_q.trim_matches(|c| c == '(' || c == ')').parse().unwrap();
    let total = format!("({})", c + 4);
    let dk = format!("(dep x {k} 0 0 0 0)");
    let c1 = snode(
        "Q:VWRITE2",
        &assn(&l(), X0, &total),
        &assn(&l(), &dk, rest_q),
        &format!("(entail post {}) (EQ:OP (cost 3) (OQ:CONST (cost 1)) (OQ:TID (cost 1)))", ids(0..6)),
    );
    let root = snode("Q:SEQ", &assn(&l(), X0, &total), &assn(&l(), post_d, ""), &format!("{c1} {rest}"));
    let body = format!("(seq (assign x (bin * (int {k}) (tid x))) {s})");
    simple("steps", "(int p)", "(A global int 4) (S shared int 4)", "(int x)", &body, &total, root).text()
}

const X0: &str = "(dep x 0 0 0 0 0)";

// ---- operand and expression rules (costs under `steps`: 1 per operand and operator,
// M^vwrite = 1, M^gread(n) = M^sread(n) = n) ----

#[test]
fn oq_var() {
    // 1 (vwrite) + 1 (var).
    ok(&vwrite2("(var x)", X0, "(2)", "(OQ:VAR (cost 1))"));
    let r = rej(&vwrite2("(var x)", X0, "(1)", "(OQ:VAR (cost 0))"));
    assert_eq!(r.reason, Reason::CostMismatch { claimed: "0".into(), computed: "1".into() });
    assert_eq!((r.rule.as_str(), r.node_path.as_str()), ("OQ:VAR", "0.0"));
    let r = rej(&vwrite2("(param p)", X0, "(2)", "(OQ:VAR (cost 1))"));
    assert!(matches!(r.reason, Reason::WrongSubject { expected: "a local operand", .. }), "{r}");
}

#[test]
fn oq_const() {
    ok(&vwrite2("(int 3)", X0, "(2)", "(OQ:CONST (cost 1))"));
    ok(&vwrite2("(int -7)", X0, "(2)", "(OQ:CONST (cost 1))"));
    // `true` into the int `x` is ill-typed: rejected by typing, before the rule runs.
    let r = rej(&vwrite2("(bool true)", X0, "(2)", "(OQ:CONST (cost 1))"));
    assert_eq!(r.reason, Reason::TypeMismatch { what: "the assignment to `x`".into(), expected: "int", found: "bool" });
    let r = rej(&vwrite2("(var x)", X0, "(2)", "(OQ:CONST (cost 1))"));
    assert!(matches!(r.reason, Reason::WrongSubject { expected: "a constant operand", .. }), "{r}");
}

#[test]
fn oq_param() {
    ok(&vwrite2("(param p)", X0, "(2)", "(OQ:PARAM (cost 1))"));
    let r = rej(&vwrite2("(param p)", X0, "(2)", "(OQ:PARAM (cost 1) (n 1))"));
    assert_eq!(r.reason, Reason::UnexpectedField("n".into()));
}

#[test]
fn oq_tid() {
    ok(&vwrite2("(tid y)", X0, "(2)", "(OQ:TID (cost 1))"));
    let r = rej(&vwrite2("(tid y)", X0, "(3)", "(OQ:TID (cost 2))"));
    assert_eq!(r.reason, Reason::CostMismatch { claimed: "2".into(), computed: "1".into() });
}

#[test]
fn eq_op() {
    // 1 (vwrite) + 1 (var) + 1 (const) + 1 (op) = 4.
    ok(&vwrite2("(bin + (var x) (int 1))", X0, "(4)", "(EQ:OP (cost 3) (OQ:VAR (cost 1)) (OQ:CONST (cost 1)))"));
    let r = rej(&vwrite2("(bin + (var x) (int 1))", X0, "(4)", "(EQ:OP (cost 3) (OQ:VAR (cost 1)))"));
    assert_eq!(r.reason, Reason::ChildCount { expected: 2, found: 1 });
}

#[test]
fn eq_uop() {
    // 1 (vwrite) + 1 (param) + 1 (op) = 3.
    ok(&vwrite2("(un neg (param p))", X0, "(3)", "(EQ:UOP (cost 2) (OQ:PARAM (cost 1)))"));
    let r = rej(&vwrite2("(un neg (param p))", X0, "(2)", "(EQ:UOP (cost 1) (OQ:PARAM (cost 1)))"));
    assert_eq!(r.reason, Reason::CostMismatch { claimed: "1".into(), computed: "2".into() });
}

#[test]
fn eq_garray() {
    // Index threadIdx.x, 4-byte ints, 32-byte sectors: 4 sectors. 1 + (1 + 4) = 6.
    ok(&vwrite2("(read A (tid x))", X0, "(6)", "(EQ:GARRAY (cost 5) (n 4) (OQ:TID (cost 1)))"));
    let r = rej(&vwrite2("(read A (tid x))", X0, "(5)", "(EQ:GARRAY (cost 4) (n 3) (OQ:TID (cost 1)))"));
    assert_eq!(r.reason, Reason::AccessBound { claimed: "3".into(), required: 4 });
    // With x = 8·threadIdx.x (dep), lanes are 32 bytes apart: 32 sectors.
    let d = "(dep x 8 0 0 0 0)";
    ok(&vwrite2("(read A (var x))", d, "(34)", "(EQ:GARRAY (cost 33) (n 32) (OQ:VAR (cost 1)))"));
    let r = rej(&vwrite2("(read A (var x))", d, "(33)", "(EQ:GARRAY (cost 32) (n 31) (OQ:VAR (cost 1)))"));
    assert_eq!(r.reason, Reason::AccessBound { claimed: "31".into(), required: 32 });
    // A global rule on a shared array.
    let r = rej(&vwrite2("(read S (tid x))", X0, "(3)", "(EQ:GARRAY (cost 2) (n 1) (OQ:TID (cost 1)))"));
    assert!(matches!(r.reason, Reason::WrongSubject { expected: "a global array", .. }), "{r}");
}

#[test]
fn eq_sarray() {
    // Stride 1 over 32 banks: conflict-free, N* = 1; 1 + (1 + 1) = 3.
    ok(&vwrite2("(read S (tid x))", X0, "(3)", "(EQ:SARRAY (cost 2) (n 1) (OQ:TID (cost 1)))"));
    // x = 2·threadIdx.x: elements 2t, bank 2t mod 32; lanes t and t+16 share a bank: N* = 2.
    let d = "(dep x 2 0 0 0 0)";
    ok(&vwrite2("(read S (var x))", d, "(4)", "(EQ:SARRAY (cost 3) (n 2) (OQ:VAR (cost 1)))"));
    let r = rej(&vwrite2("(read S (var x))", d, "(3)", "(EQ:SARRAY (cost 2) (n 1) (OQ:VAR (cost 1)))"));
    assert_eq!(r.reason, Reason::AccessBound { claimed: "1".into(), required: 2 });
    // x uniform with unknown residue (0; 0 mod 1): one address, a broadcast: N* = 1.
    let d = "(dep x 0 0 0 0 1)";
    ok(&vwrite2("(read S (var x))", d, "(3)", "(EQ:SARRAY (cost 2) (n 1) (OQ:VAR (cost 1)))"));
}

// ---- statement rules ----

fn stmt_cert(metric: &str, body: &str, bound: &str, d: String) -> String {
    simple(metric, "(int p)", "(A global int 4) (S shared int 4)", "(int x)", body, bound, d).text()
}

#[test]
fn q_skip() {
    let a = assn(&l(), "", "(3)");
    ok(&stmt_cert("steps", "(skip)", "(3)", snode("Q:SKIP", &a, &a, "")));
    let r = rej(&stmt_cert("steps", "(skip)", "(3)", snode("Q:SKIP", &a, &assn(&l(), "", "(2)"), "")));
    assert!(matches!(r.reason, Reason::Differs { left: "pre", right: "post", component: "Q", .. }), "{r}");
    let r = rej(&stmt_cert("steps", "(sync)", "(3)", snode("Q:SKIP", &a, &a, "")));
    assert!(matches!(r.reason, Reason::WrongSubject { expected: "skip", .. }), "{r}");
}

#[test]
fn q_sync() {
    // steps: M^sync = 1; sectors: 0.
    let d = snode("Q:SYNC", &assn(&l(), "", "(1)"), &assn(&l(), "", ""), "");
    ok(&stmt_cert("steps", "(sync)", "(1)", d.clone()));
    let r = rej(&stmt_cert("sectors", "(sync)", "(1)", d));
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
}

fn seq(c2_pre_p: &str) -> String {
    let c1 = snode("Q:SKIP", &assn(&l(), "", "(1)"), &assn(&l(), "", "(1)"), "");
    let c2 = snode("Q:SYNC", &assn(c2_pre_p, "", "(1)"), &assn(c2_pre_p, "", ""), "");
    let d = snode("Q:SEQ", &assn(&l(), "", "(1)"), &assn(c2_pre_p, "", ""), &format!("{c1} {c2}"));
    stmt_cert("steps", "(seq (skip) (sync))", "(1)", d)
}

#[test]
fn q_seq() {
    ok(&seq(&l()));
    let r = rej(&seq(""));
    assert!(matches!(r.reason, Reason::Differs { component: "P", .. }), "{r}");
    assert!(
        r.to_string().starts_with("rule Q:SEQ at node 0: post of a premise differs from pre of the next (P:"),
        "{r}"
    );
}

/// `x ← p` by Q:VWRITE1 (steps: 1 + 1): post potential `max0(x)`, pre `max0(p) + 2`.
fn vwrite1(e: &str, post_dep: &str, expr_node: &str) -> String {
    let d = snode(
        "Q:VWRITE1",
        &assn(&l(), X0, "(2) (1 (max0 (lin 0 (1 p))))"),
        &assn(&l(), post_dep, "(1 (max0 (lin 0 (1 x))))"),
        &format!("(entail post {}) {expr_node}", ids(0..6)),
    );
    stmt_cert("steps", &format!("(assign x {e})"), "(2) (1 (max0 (lin 0 (1 p))))", d)
}

#[test]
fn q_vwrite1() {
    ok(&vwrite1("(param p)", "(dep x 0 0 0 0 1)", "(OQ:PARAM (cost 1))"));
    // dep_D(p) = (0; 0 mod 1) does not imply the exact (0; 0 mod 0).
    let r = rej(&vwrite1("(param p)", "(dep x 0 0 0 0 0)", "(OQ:PARAM (cost 1))"));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // threadIdx.x is not uniform: claiming a uniform entry for it fails ...
    let r = rej(&vwrite1("(tid x)", "(dep x 0 0 0 0 1)", "(OQ:TID (cost 1))"));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // ... and with its true entry the post potential max0(x) is not uniform (spec §1).
    let r = rej(&vwrite1("(tid x)", "(dep x 1 0 0 0 0)", "(OQ:TID (cost 1))"));
    assert!(matches!(r.reason, Reason::IllFormed { which: "post", .. }), "{r}");
}

#[test]
fn q_vwrite2() {
    ok(&vwrite2("(tid x)", X0, "(2)", "(OQ:TID (cost 1))"));
    // Q' mentions the assigned x.
    let d = snode(
        "Q:VWRITE2",
        &assn(&l(), X0, "(2) (1 (max0 (lin 0 (1 p))))"),
        &assn(&l(), "(dep x 0 0 0 0 1)", "(1 (max0 (lin 0 (1 x))))"),
        &format!("(entail post {}) (OQ:PARAM (cost 1))", ids(0..6)),
    );
    let r = rej(&stmt_cert("steps", "(assign x (param p))", "(2) (1 (max0 (lin 0 (1 p))))", d));
    assert_eq!(r.reason, Reason::PotentialMentions("x".into()));
    // Five witnesses for six post constraints.
    let d = snode(
        "Q:VWRITE2",
        &assn(&l(), X0, "(2)"),
        &assn(&l(), "", ""),
        &format!("(entail post {}) (OQ:TID (cost 1))", ids(0..5)),
    );
    let r = rej(&stmt_cert("steps", "(assign x (tid x))", "(2)", d));
    assert_eq!(r.reason, Reason::WitnessCount { list: "post".into(), expected: 6, found: 5 });
}

fn write(rule: &str, arr: &str, idx: &str, d: &str, n: u32, q: u32, idx_node: &str) -> String {
    let dd = snode(
        rule,
        &assn(&l(), d, &format!("({q})")),
        &assn(&l(), d, ""),
        &format!("(n {n}) {idx_node} (OQ:CONST (cost 1))"),
    );
    let body = format!("(write {arr} {idx} (int 0))");
    match d.strip_prefix("(dep x ").and_then(|r| r.split(' ').next()) {
        Some(k) if k != "0" => prefixed(k, &body, &format!("({q})"), d, dd),
        _ => stmt_cert("steps", &body, &format!("({q})"), dd),
    }
}

#[test]
fn q_gwrite() {
    // N* = 4 (see EQ:GARRAY); 4 + 1 + 1 = 6.
    ok(&write("Q:GWRITE", "A", "(tid x)", "", 4, 6, "(OQ:TID (cost 1))"));
    let r = rej(&write("Q:GWRITE", "A", "(tid x)", "", 2, 4, "(OQ:TID (cost 1))"));
    assert_eq!(r.reason, Reason::AccessBound { claimed: "2".into(), required: 4 });
}

#[test]
fn q_swrite() {
    // N* = 1 for stride 1 (1 + 1 + 1 = 3), 2 for stride 2 (2 + 1 + 1 = 4).
    ok(&write("Q:SWRITE", "S", "(tid x)", "", 1, 3, "(OQ:TID (cost 1))"));
    let d = "(dep x 2 0 0 0 0)";
    ok(&write("Q:SWRITE", "S", "(var x)", d, 2, 4, "(OQ:VAR (cost 1))"));
    let r = rej(&write("Q:SWRITE", "S", "(var x)", d, 1, 3, "(OQ:VAR (cost 1))"));
    assert_eq!(r.reason, Reason::AccessBound { claimed: "1".into(), required: 2 });
}

/// `if e then skip else sync`, each branch weakened to post `(L, {}, 0)`; steps: the
/// condition `(bin < A B)` costs 3, so pre = 1 + M^if + 3 (+ M^div for Q:IF4 … not here).
fn if1(cond: &str, c_true: &str, c_false: &str) -> String {
    let pt = format!("{} {c_true}", l());
    let pf = format!("{} {c_false}", l());
    let t = snode(
        "Q:WEAK",
        &assn(&pt, "", "(1)"),
        &assn(&l(), "", ""),
        &format!(
            "(entail pre {}) (entail post {}) {}",
            ids(0..7),
            ids(0..6),
            snode("Q:SKIP", &assn(&pt, "", "(1)"), &assn(&pt, "", "(1)"), "")
        ),
    );
    let f = snode(
        "Q:WEAK",
        &assn(&pf, "", "(1)"),
        &assn(&l(), "", ""),
        &format!(
            "(entail pre {}) (entail post {}) {}",
            ids(0..7),
            ids(0..6),
            snode("Q:SYNC", &assn(&pf, "", "(1)"), &assn(&pf, "", ""), "")
        ),
    );
    let e = "(EQ:OP (cost 3) (OQ:PARAM (cost 1)) (OQ:CONST (cost 1)))";
    let d = snode("Q:IF1", &assn(&l(), "", "(5)"), &assn(&l(), "", ""), &format!("{e} {t} {f}"));
    stmt_cert("steps", &format!("(if {cond} (skip) (sync))"), "(5)", d)
}

#[test]
fn q_if1() {
    // p < 0: cond = p + 1 ≤ 0, ¬cond = −p ≤ 0.
    ok(&if1("(bin < (param p) (int 0))", "(le (lin 1 (1 p)))", "(le (lin 0 (-1 p)))"));
    let r = rej(&if1("(bin < (param p) (int 0))", "(le (lin 0 (1 p)))", "(le (lin 0 (-1 p)))"));
    assert!(matches!(r.reason, Reason::Differs { left: "P ∧ e", right: "then pre", .. }), "{r}");
    let r = rej(&if1("(bin < (tid x) (int 0))", "(le (lin 1 (1 threadIdx.x)))", "(le (lin 0 (-1 threadIdx.x)))"));
    assert_eq!(r.reason, Reason::NotUniform("(tid x)".into()));
}

/// Q:IF2/Q:IF3 with a branch decided by the launch facts (`threadIdx.x − 31 ≤ 0`, index 1).
fn if_decided(rule: &str, cond: &str, body: &str, lambda: &str) -> String {
    let b = snode("Q:SYNC", &assn(&l(), "", "(1)"), &assn(&l(), "", ""), "");
    let e = "(EQ:OP (cost 3) (OQ:TID (cost 1)) (OQ:CONST (cost 1)))";
    // 1 (sync) + 1 (M^if) + 3 (condition) = 5.
    let d = snode(
        rule,
        &assn(&l(), "", "(5)"),
        &assn(&l(), "", ""),
        &format!("(entail cond (farkas (1 {lambda}))) {e} {b}"),
    );
    stmt_cert("steps", &format!("(if {cond} {body})"), "(5)", d)
}

#[test]
fn q_if2() {
    // tid.x < 32: cond = tid.x − 31 ≤ 0, exactly launch fact 1.
    ok(&if_decided("Q:IF2", "(bin < (tid x) (int 32))", "(sync) (skip)", "1"));
    // tid.x < 31 is not implied: residual (x − 30) − (x − 31) = 1.
    let r = rej(&if_decided("Q:IF2", "(bin < (tid x) (int 31))", "(sync) (skip)", "1"));
    assert_eq!(
        r.reason,
        Reason::Farkas {
            list: "entail cond".into(),
            item: 0,
            target: "threadIdx.x - 30 <= 0".into(),
            problem: FarkasProblem::BadConstant("1".into())
        }
    );
    let r = rej(&if_decided("Q:IF2", "(bin < (tid x) (int 32))", "(sync) (skip)", "-1"));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NegativeMultiplier(1), .. }), "{r}");
}

#[test]
fn q_if3() {
    // ¬(tid.x >= 32) = tid.x − 31 ≤ 0.
    ok(&if_decided("Q:IF3", "(bin >= (tid x) (int 32))", "(skip) (sync)", "1"));
    let r = rej(&if_decided("Q:IF3", "(bin == (tid x) (int 32))", "(skip) (sync)", "1"));
    assert_eq!(r.reason, Reason::NoCondition("==".into()));
}

/// `if (tid.x < 16) sync else skip` by Q:IF4 under steps: then pre 1, post 0; else 0 → 0;
/// pre = 1 + M^if (1) + C (3) + M^div (1) = 6.
fn if4(else_cond_ws: usize) -> String {
    let pt = format!("{} (le (lin -15 (1 threadIdx.x)))", l());
    let t = snode("Q:SYNC", &assn(&pt, "", "(1)"), &assn(&pt, "", ""), "");
    let f = snode("Q:SKIP", &assn(&l(), "", ""), &assn(&l(), "", ""), "");
    let e = "(EQ:OP (cost 3) (OQ:TID (cost 1)) (OQ:CONST (cost 1)))";
    let w = format!(
        "(entail else-cond {}) (entail else-then {}) (entail join-then {}) (entail join-else {})",
        ids(0..else_cond_ws),
        ids(0..6),
        ids(0..6),
        ids(0..6)
    );
    let d = snode("Q:IF4", &assn(&l(), "", "(6)"), &assn(&l(), "", ""), &format!("{w} {e} {t} {f}"));
    stmt_cert("steps", "(if (bin < (tid x) (int 16)) (sync) (skip))", "(6)", d)
}

#[test]
fn q_if4() {
    ok(&if4(6));
    let r = rej(&if4(5));
    assert_eq!(r.reason, Reason::WitnessCount { list: "else-cond".into(), expected: 6, found: 5 });
}

/// `while (x < tid.x) x ← x + 1` under `sectors` (every cost 0), x absent from D.
fn while2(rule: &str) -> String {
    let pe = format!("{} (le (lin 1 (1 x) (-1 threadIdx.x)))", l());
    let px = format!("{} (le (lin 0 (-1 x) (1 threadIdx.x)))", l());
    let body = snode(
        "Q:VWRITE2",
        &assn(&pe, "", ""),
        &assn(&l(), "", ""),
        &format!("(entail post {}) (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))", ids(0..6)),
    );
    let e = "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:TID (cost 0)))";
    let d = snode(rule, &assn(&l(), "", ""), &assn(&px, "", ""), &format!("{e} {body}"));
    stmt_cert("sectors", "(while (bin < (var x) (tid x)) (assign x (bin + (var x) (int 1))))", "", d)
}

#[test]
fn q_while1_and_while2() {
    ok(&while2("Q:WHILE2"));
    // Q:WHILE1 needs a uniform condition; x is not in X(D) and threadIdx.x never is.
    let r = rej(&while2("Q:WHILE1"));
    assert_eq!(r.reason, Reason::NotUniform("(var x)".into()));
}

/// Q:WEAK around `sync` (steps): `pre (L, {}, frame + 1 + extra)`, `post (L, {}, post_q)`.
fn weak(frame: &str, pre_q: &str, post_q: &str, rewrite_post: &str) -> String {
    let inner = snode("Q:SYNC", &assn(&l(), "", "(1)"), &assn(&l(), "", ""), "");
    let d = snode(
        "Q:WEAK",
        &assn(&l(), "", pre_q),
        &assn(&l(), "", post_q),
        &format!("(frame {frame}) (entail pre {}) (entail post {}) {rewrite_post} {inner}", ids(0..6), ids(0..6)),
    );
    stmt_cert("steps", "(sync)", pre_q, d)
}

#[test]
fn q_weak() {
    // Frame 2: pre 3 ≥ 1 + 2, post 0 + 2 ≥ 2.
    ok(&weak("2", "(3)", "(2)", ""));
    // Frame 1/2 and a looser pre.
    ok(&weak("1/2", "(4)", "(1/2)", ""));
    let r = rej(&weak("-1", "(0)", "", ""));
    assert_eq!(r.reason, Reason::Negative { what: "frame", value: "-1".into() });
    // Post 3 is not dominated by 0 + 2.
    let r = rej(&weak("2", "(3)", "(3)", ""));
    assert_eq!(r.reason, Reason::NotDominated { list: "post", term: "-1".into() });
    // A zero rewrite needs P ⇒ LIN ≤ 0; p ≤ 0 does not follow from the launch facts.
    let r = rej(&weak("0", "(1)", "", "(rewrite post (zero (lin 0 (1 p)) (farkas)))"));
    assert!(
        matches!(&r.reason, Reason::Farkas { list, problem: FarkasProblem::NotConstant(_), .. } if list == "rewrite post"),
        "{r}"
    );
}

#[test]
fn weak_rewrites_need_valid_witnesses() {
    // max0(p) + 1 ≥ 1 holds, but the post potential max0(p) exceeds the inner post 0.
    let r = rej(&weak("0", "(1) (1 (max0 (lin 0 (1 p))))", "(1 (max0 (lin 0 (1 p))))", ""));
    assert!(matches!(r.reason, Reason::NotDominated { list: "post", .. }), "{r}");
    // A shift of max0(p) by 0 needs P ⇒ p ≥ 0, which the launch facts do not give.
    let t = weak("0", "(1) (1 (max0 (lin 0 (1 p))))", "", "(rewrite pre (shift (lin 0 (1 p)) 0 (farkas)))");
    let r = rej(&t);
    assert_eq!(
        r.reason,
        Reason::Farkas {
            list: "rewrite pre".into(),
            item: 0,
            target: "-p <= 0".into(),
            problem: FarkasProblem::NotConstant("-p".into())
        }
    );
    // Without the rewrite, the pre max0(p) + 1 dominates 1 directly.
    ok(&weak("0", "(1) (1 (max0 (lin 0 (1 p))))", "", ""));
}

#[test]
fn unknown_rule_and_wrong_kind() {
    let a = assn(&l(), "", "");
    let r = rej(&stmt_cert("steps", "(skip)", "", snode("Q:NOPE", &a, &a, "")));
    assert_eq!(r.reason, Reason::UnknownRule("Q:NOPE".into()));
    let r = rej(&stmt_cert("steps", "(skip)", "", "(OQ:VAR (cost 0))".into()));
    assert_eq!(r.reason, Reason::WrongRuleKind { expected: "statement" });
}
