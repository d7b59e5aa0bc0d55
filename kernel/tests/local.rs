//! EQ:LARRAY and Q:LWRITE (spec/logic.md §3, §4: thread-local arrays), accepted and
//! rejected on hand-written certificates. Costs by hand from spec/metrics.md under `steps`:
//! `L[threadIdx.x] ← 1` costs `M^var + M^const + M^vwrite = 3`; `x ← L[threadIdx.x]` costs
//! `M^var` (operand) `+ M^var` (the local read) `+ M^vwrite = 3`.

mod common;
use common::*;
use warpcert_kernel::Reason;

fn cert(arrays: &str, body: &str, rule: &str, pre_q: &str, post_d: &str, children: &str) -> String {
    let l = launch([32, 1, 1]);
    let root = snode(rule, &assn(&l, "(dep x 0 0 0 0 0)", pre_q), &assn(&l, post_d, ""), children);
    simple("steps", "(int p)", arrays, "(int x)", body, pre_q, root).text()
}

const LOCAL: &str = "(L local int 4)";
const WRITE: &str = "(write L (tid x) (int 1))";
const KIDS: &str = "(OQ:TID (cost 1)) (OQ:CONST (cost 1))";

#[test]
fn local_write_costs_a_variable_write() {
    ok(&cert(LOCAL, WRITE, "Q:LWRITE", "(3)", "(dep x 0 0 0 0 0)", KIDS));
    let r = rej(&cert(LOCAL, WRITE, "Q:LWRITE", "(2)", "(dep x 0 0 0 0 0)", KIDS));
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
    // no access count
    let r = rej(&cert(LOCAL, WRITE, "Q:LWRITE", "(3)", "(dep x 0 0 0 0 0)", &format!("(n 1) {KIDS}")));
    assert!(matches!(r.reason, Reason::UnexpectedField(_)), "{r}");
    // the global rules do not apply to a local array, nor Q:LWRITE to a global one
    let r = rej(&cert(LOCAL, WRITE, "Q:GWRITE", "(3)", "(dep x 0 0 0 0 0)", &format!("(n 1) {KIDS}")));
    assert!(matches!(r.reason, Reason::WrongSubject { .. }), "{r}");
    let r = rej(&cert("(L global int 4)", WRITE, "Q:LWRITE", "(3)", "(dep x 0 0 0 0 0)", KIDS));
    assert!(matches!(r.reason, Reason::WrongSubject { .. }), "{r}");
}

#[test]
fn local_read_costs_a_variable_read() {
    let body = "(assign x (read L (tid x)))";
    let ws = format!("(entail post {})", ids(0..6));
    let kids = &format!("{ws} (EQ:LARRAY (cost 2) (OQ:TID (cost 1)))");
    ok(&cert(LOCAL, body, "Q:VWRITE2", "(3)", "", kids));
    // a thread-dependent index: the value is not uniform
    let r = rej(&cert(LOCAL, body, "Q:VWRITE2", "(3)", "(dep x 0 0 0 0 1)", kids));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    let r = rej(&cert(LOCAL, body, "Q:VWRITE2", "(3)", "", &format!("{ws} (EQ:LARRAY (cost 1) (OQ:TID (cost 1)))")));
    assert!(matches!(r.reason, Reason::CostMismatch { .. }), "{r}");
}
