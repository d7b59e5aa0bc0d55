//! Q:SHFL and Q:VOTE (spec/logic.md §4, warp shuffles and votes), accepted and rejected on
//! hand-written certificates. Costs are hand-derived from spec/metrics.md: under `steps`
//! a shuffle `y ← shfl k w (x, 1)` costs `M^var + M^const + M^op + M^vwrite = 4`, a vote
//! `y ← vote any (true)` costs `M^const + M^op + M^vwrite = 3`; under `sectors` both cost 0.

mod common;
use common::*;
use warpcert_kernel::Reason;

const D0: &str = "(dep x 0 0 0 0 0) (dep y 0 0 0 0 0)";

/// A one-statement certificate: block 32, locals `x`, `y` (of `ty`), body `body`, one
/// node of `rule` from `(P, D0, pre_q)` to `(post_p, post_d, post_q)` with `children`.
fn one(
    rule: &str,
    metric: &str,
    ty: &str,
    body: &str,
    pre_q: &str,
    post: (&str, &str, &str),
    children: &str,
) -> String {
    let l = launch([32, 1, 1]);
    let (pp, pd, pq) = post;
    let pp = if pp.is_empty() { l.clone() } else { pp.to_string() };
    let d0 = if ty == "int" { D0.to_string() } else { "(dep x 0 0 0 0 1) (dep y 0 0 0 0 0)".to_string() };
    let locals = if ty == "int" { "(int x) (int y)".to_string() } else { format!("({ty} x) (int y)") };
    let root = snode(rule, &assn(&l, &d0, pre_q), &assn(&pp, pd, pq), children);
    simple(metric, "(int p)", "", &locals, body, pre_q, root).text()
}

const SHFL: &str = "(shfl y down 32 (var x) (int 1))";
const SHFL_KIDS: &str = "(OQ:VAR (cost 1)) (OQ:CONST (cost 1))";

#[test]
fn shfl_of_a_uniform_value_keeps_its_entry() {
    // x = 0 on every lane, so every lane reads 0: y may be claimed exactly 0
    let post_d = "(dep x 0 0 0 0 0) (dep y 0 0 0 0 0)";
    ok(&one("Q:SHFL", "steps", "int", SHFL, "(4)", ("", post_d, ""), SHFL_KIDS));
    // or nothing about y
    ok(&one("Q:SHFL", "steps", "int", SHFL, "(4)", ("", "(dep x 0 0 0 0 0)", ""), SHFL_KIDS));
    // sectors: no cost at all
    let zero = "(OQ:VAR (cost 0)) (OQ:CONST (cost 0))";
    ok(&one("Q:SHFL", "sectors", "int", SHFL, "", ("", post_d, ""), zero));
}

#[test]
fn shfl_of_a_thread_dependent_value_is_not_uniform() {
    let body = "(shfl y down 32 (tid x) (int 1))";
    let kids = "(OQ:TID (cost 1)) (OQ:CONST (cost 1))";
    let post_d = "(dep x 0 0 0 0 0) (dep y 0 0 0 0 1)";
    let r = rej(&one("Q:SHFL", "steps", "int", body, "(4)", ("", post_d, ""), kids));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // a linear entry of threadIdx.x is not claimable either (lanes read other lanes)
    let post_d = "(dep x 0 0 0 0 0) (dep y 1 0 0 0 0)";
    let r = rej(&one("Q:SHFL", "steps", "int", body, "(4)", ("", post_d, ""), kids));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    ok(&one("Q:SHFL", "steps", "int", body, "(4)", ("", "(dep x 0 0 0 0 0)", ""), kids));
}

#[test]
fn shfl_cost_and_potential() {
    let post_d = "(dep x 0 0 0 0 0) (dep y 0 0 0 0 0)";
    // one step short
    let r = rej(&one("Q:SHFL", "steps", "int", SHFL, "(3)", ("", post_d, ""), SHFL_KIDS));
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
    // the post potential may not mention the shuffled local
    let r = rej(&one("Q:SHFL", "steps", "int", SHFL, "(4)", ("", post_d, "(1 (max0 (lin 0 (1 y))))"), SHFL_KIDS));
    assert!(matches!(r.reason, Reason::PotentialMentions(ref x) if x == "y"), "{r}");
    // a wrong operand cost
    let r = rej(&one("Q:SHFL", "steps", "int", SHFL, "(4)", ("", post_d, ""), "(OQ:VAR (cost 2)) (OQ:CONST (cost 1))"));
    assert!(matches!(r.reason, Reason::CostMismatch { .. }), "{r}");
}

#[test]
fn shfl_post_p_drops_the_constraints_on_the_local() {
    let l = launch([32, 1, 1]);
    // the post may not keep (or invent) a constraint on y
    let with_y = format!("{l} (eq (lin 0 (1 y)))");
    let r = rej(&one("Q:SHFL", "steps", "int", SHFL, "(4)", (&with_y, "(dep x 0 0 0 0 0)", ""), SHFL_KIDS));
    assert!(matches!(r.reason, Reason::Differs { component: "P", .. }), "{r}");
}

#[test]
fn vote_is_uniform_but_unknown() {
    let body = "(vote y any (bool true))";
    let kids = "(OQ:CONST (cost 1))";
    ok(&one("Q:VOTE", "steps", "int", body, "(3)", ("", "(dep x 0 0 0 0 0) (dep y 0 0 0 0 1)", ""), kids));
    let r = rej(&one("Q:VOTE", "steps", "int", body, "(3)", ("", "(dep x 0 0 0 0 0) (dep y 0 0 0 1 0)", ""), kids));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // Q:SHFL about a vote, Q:VWRITE2 about a shuffle: wrong subject
    let r = rej(&one("Q:SHFL", "steps", "int", body, "(3)", ("", "(dep x 0 0 0 0 0)", ""), kids));
    assert!(matches!(r.reason, Reason::WrongSubject { .. }), "{r}");
    let r = rej(&one(
        "Q:VWRITE2",
        "steps",
        "int",
        SHFL,
        "(4)",
        ("", "(dep x 0 0 0 0 0)", ""),
        "(entail post) (OQ:VAR (cost 1))",
    ));
    assert!(matches!(r.reason, Reason::WrongSubject { .. }), "{r}");
}

#[test]
fn warp_statements_are_typed() {
    // a vote into a float local, a float shuffled into an int local, a non-bool predicate
    let kids = "(OQ:VAR (cost 1))";
    let bad = [
        ("float", "(vote x any (bool true))"),
        ("float", "(shfl y down 32 (var x) (int 1))"),
        ("int", "(vote y any (var x))"),
        ("int", "(shfl y down 32 (var x) (bool true))"),
    ];
    for (ty, body) in bad {
        let r = rej(&one("Q:VOTE", "steps", ty, body, "(3)", ("", "(dep x 0 0 0 0 0)", ""), kids));
        assert!(matches!(r.reason, Reason::TypeMismatch { .. }), "{body}: {r}");
    }
}

#[test]
fn warp_statements_parse_strictly() {
    for body in [
        "(shfl y sideways 32 (var x) (int 1))",
        "(shfl y down 0 (var x) (int 1))",
        "(shfl y down 32 (var x))",
        "(vote y most (bool true))",
    ] {
        let r = rej(&one("Q:SHFL", "steps", "int", body, "(4)", ("", "(dep x 0 0 0 0 0)", ""), SHFL_KIDS));
        assert!(matches!(r.reason, Reason::Syntax { .. }), "{body}: {r}");
    }
}
