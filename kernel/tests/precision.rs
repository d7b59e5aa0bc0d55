//! The kernel changes of issues 3 and 4 (precision): remainder entries `(rem …)` and lane
//! constraints `(mod …)` (spec/logic.md §1–§2 "Lane facts", "Assigned entry", access bounds
//! with lanes filtered), Q:IF4's `else-then` on linear constraints only, potentials over
//! uniform forms, Q:VWRITE1 on a non-uniform value, the Q:WHILE2 post restriction, the
//! `(mono …)` rewrite and the `gridDim` launch facts — each accepted and rejected on small
//! hand-written certificates. Costs are hand-derived from spec/metrics.md: under `sectors`
//! every cost is 0 except `M^gread(n) = M^gwrite(n) = n`; under `divwarps` only `M^div = 1`.

mod common;
use common::*;
use warpcert_kernel::arith::FarkasProblem;
use warpcert_kernel::{Reason, WfProblem};

const EVEN: &str = "(mod (lin 0 (1 threadIdx.x)) 2 0)";
const ODD: &str = "(mod (lin 0 (1 threadIdx.x)) 2 1)";
const REM: &str = "(rem t 1 0 0 0 2)";

/// The parts of the addSub0 pattern, by hand:
/// `t ← threadIdx.x % 2; if (t == 0) A[u] ← 1 else A[u] ← 2` under `sectors`, block 32,
/// `u` without dependence entry (`⊤`), so `N*` is the number of lanes kept: 16 even lanes in
/// the then branch, 16 odd lanes in the else branch (lane facts), 32 without them.
struct Split<'a> {
    rem_claim: &'a str,
    then_lane: &'a str,
    else_lane: &'a str,
    n_then: u32,
    n_else: u32,
    else_cond_w: String,
    join_then_w: String,
    modulus_expr: &'a str,
}

impl Default for Split<'_> {
    fn default() -> Self {
        Split {
            rem_claim: REM,
            then_lane: EVEN,
            else_lane: ODD,
            n_then: 16,
            n_else: 16,
            else_cond_w: ids(0..7),
            join_then_w: ids(0..6),
            modulus_expr: "(bin % (tid x) (int 2))",
        }
    }
}

impl Split<'_> {
    fn text(&self) -> String {
        let l = launch([32, 1, 1]);
        let total = self.n_then + self.n_else;
        let d0 = "(dep t 0 0 0 0 0)";
        let c1 = snode(
            "Q:VWRITE2",
            &assn(&l, d0, &format!("({total})")),
            &assn(&l, self.rem_claim, &format!("({total})")),
            &format!("(entail post {}) (EQ:OP (cost 0) (OQ:TID (cost 0)) (OQ:CONST (cost 0)))", ids(0..6)),
        );
        let pt = format!("{l} (eq (lin 0 (1 t))) {}", self.then_lane);
        let pf = format!("{l} {}", self.else_lane);
        // The then branch leaves Q1 = n_else for the else branch (spec/logic.md Q:IF4).
        let t = snode(
            "Q:GWRITE",
            &assn(&pt, self.rem_claim, &format!("({total})")),
            &assn(&pt, self.rem_claim, &format!("({})", self.n_else)),
            &format!("(n {}) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))", self.n_then),
        );
        let f = snode(
            "Q:GWRITE",
            &assn(&pf, self.rem_claim, &format!("({})", self.n_else)),
            &assn(&pf, self.rem_claim, "(0)"),
            &format!("(n {}) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))", self.n_else),
        );
        let c2 = snode(
            "Q:IF4",
            &assn(&l, self.rem_claim, &format!("({total})")),
            &assn(&l, self.rem_claim, "(0)"),
            &format!(
                "(entail else-cond {}) (entail else-then {}) (entail join-then {}) (entail join-else {}) \
                 (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))) {t} {f}",
                self.else_cond_w,
                ids(0..6),
                self.join_then_w,
                ids(0..6)
            ),
        );
        let root = snode(
            "Q:SEQ",
            &assn(&l, d0, &format!("({total})")),
            &assn(&l, self.rem_claim, "(0)"),
            &format!("{c1} {c2}"),
        );
        let body = format!(
            "(seq (assign t {}) (if (bin == (var t) (int 0)) (write A (var u) (int 1)) (write A (var u) (int 2))))",
            self.modulus_expr
        );
        let bound = format!("({total})");
        simple("sectors", "", "(A global int 4)", "(int t) (int u)", &body, &bound, root).text()
    }
}

/// The addSub0 pattern is accepted with 16 + 16 sectors (hand count: 16 lanes write 16
/// distinct unknown addresses in each branch), where RaCUDA's rules give 32 + 32.
#[test]
fn lane_facts_split_a_divergent_branch() {
    assert_eq!(ok(&Split::default().text()).bound, "32");
    // 15 is below the 16 even lanes.
    let r = rej(&Split { n_then: 15, ..Default::default() }.text());
    assert_eq!(r.reason, Reason::AccessBound { claimed: "15".into(), required: 16 });
    // The else branch cannot claim the even lanes: its lane constraint must follow from
    // P ∧ ¬e, which gives the odd ones.
    let r = rej(&Split { else_lane: EVEN, ..Default::default() }.text());
    assert!(
        matches!(&r.reason, Reason::Farkas { list, problem: FarkasProblem::BadLaneWitness, .. } if list == "entail else-cond"),
        "{r}"
    );
    // The then branch's pre is exactly P ∧ e: claiming the odd lanes differs.
    let r = rej(&Split { then_lane: ODD, ..Default::default() }.text());
    assert!(matches!(r.reason, Reason::Differs { left: "P ∧ e", .. }), "{r}");
    // A linear target cannot be proved from a lane constraint (index 7 of P1 is the lane
    // constraint; index 6 is t = 0).
    let w = format!("{} (farkas (7 1))", ids(0..5));
    let r = rej(&Split { join_then_w: w, ..Default::default() }.text());
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::LaneSource(7), .. }), "{r}");
    // A lane target needs a lane source (index 5 is a linear constraint).
    let w = format!("{} (farkas (5 1))", ids(0..6));
    let r = rej(&Split { else_cond_w: w, ..Default::default() }.text());
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::BadLaneWitness, .. }), "{r}");
}

/// `ent_P,D(a % m)` (spec/logic.md §2): the remainder entry needs `m | g`, `m ≥ 1` and the
/// exact `k`, `r mod m`.
#[test]
fn remainder_entries_need_a_known_residue() {
    // threadIdx.x % 3 is (rem t 1 0 0 0 3), not modulo 2.
    let r = rej(&Split { modulus_expr: "(bin % (tid x) (int 3))", ..Default::default() }.text());
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // u % 2 with u unknown (⊤) has no entry.
    let r = rej(&Split { modulus_expr: "(bin % (var u) (int 2))", ..Default::default() }.text().replacen(
        "(EQ:OP (cost 0) (OQ:TID (cost 0)) (OQ:CONST (cost 0)))",
        "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))",
        1,
    ));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // A claimed residue 1 is wrong for threadIdx.x % 2.
    let t = Split { rem_claim: "(rem t 1 0 0 1 2)", ..Default::default() }.text();
    let r = rej(&t);
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // Malformed entries and lane constraints are parse errors.
    for (bad, expected) in [("(rem t 1 0 0 2 2)", "a residue 0 ≤ R < G"), ("(rem t 1 0 0 0 0)", "a modulus M ≥ 1")]
    {
        let r = rej(&Split { rem_claim: bad, ..Default::default() }.text());
        assert!(matches!(r.reason, Reason::Syntax { expected: e, .. } if e == expected), "{r}");
    }
    for bad in ["(mod (lin 0 (1 threadIdx.x)) 2 1 0)", "(mod (lin 0 (1 threadIdx.x)) 0)"] {
        let r = rej(&Split { then_lane: bad, ..Default::default() }.text());
        assert!(matches!(r.reason, Reason::Syntax { .. }), "{r}");
    }
    // A lane constraint over a local is ill-formed.
    let r = rej(&Split { then_lane: "(mod (lin 0 (1 t)) 2 0)", ..Default::default() }.text());
    assert!(matches!(r.reason, Reason::IllFormed { problem: WfProblem::BadLaneConstraint(_), .. }), "{r}");
}

/// `x != 0` gives the lanes `1 … m−1`; `x != 1` gives none (its value may be `1 − m`).
#[test]
fn disequality_lane_facts() {
    let mk = |c: i64, lane: &str| {
        let l = launch([32, 1, 1]);
        let d = "(dep t 0 0 0 0 0)";
        let c1 = snode(
            "Q:VWRITE2",
            &assn(&l, d, "(8)"),
            &assn(&l, "(rem t 1 0 0 0 4)", "(8)"),
            &format!("(entail post {}) (EQ:OP (cost 0) (OQ:TID (cost 0)) (OQ:CONST (cost 0)))", ids(0..6)),
        );
        // if (t != c) skip else A[u] ← 0: the else branch runs on the lanes with t = c.
        let pt = format!("{l} {lane}");
        // P_F keeps only what P1 (then post) entails linearly, plus the lane fact of ¬e.
        let pf = format!("{l} (mod (lin 0 (1 threadIdx.x)) 4 {})", c.rem_euclid(4));
        let d4 = "(rem t 1 0 0 0 4)";
        let t = snode("Q:SKIP", &assn(&pt, d4, "(8)"), &assn(&pt, d4, "(8)"), "");
        let f = snode(
            "Q:GWRITE",
            &assn(&pf, d4, "(8)"),
            &assn(&pf, d4, "(0)"),
            "(n 8) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))",
        );
        let c2 = snode(
            "Q:IF4",
            &assn(&l, d4, "(8)"),
            &assn(&l, d4, "(0)"),
            &format!(
                "(entail else-cond {} (farkas (7 1))) (entail else-then {}) (entail join-then {}) (entail join-else {}) \
                 (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))) {t} {f}",
                ids(0..6),
                ids(0..6),
                ids(0..6),
                ids(0..6)
            ),
        );
        let root = snode("Q:SEQ", &assn(&l, d, "(8)"), &assn(&l, d4, "(0)"), &format!("{c1} {c2}"));
        let body = format!(
            "(seq (assign t (bin % (tid x) (int 4))) (if (bin != (var t) (int {c})) (skip) (write A (var u) (int 0))))"
        );
        simple("sectors", "", "(A global int 4)", "(int t) (int u)", &body, "(8)", root).text()
    };
    // x != 0: then lanes {1, 2, 3} mod 4; the else branch (t = 0) has 8 lanes.
    assert_eq!(ok(&mk(0, "(mod (lin 0 (1 threadIdx.x)) 4 1 2 3)")).bound, "8");
    // x != 1 gives no lane fact: the then branch's pre is P ∧ e without one.
    let r = rej(&mk(1, "(mod (lin 0 (1 threadIdx.x)) 4 0 2 3)"));
    assert!(matches!(r.reason, Reason::Differs { left: "P ∧ e", .. }), "{r}");
}

/// The histogram pattern under `divwarps` (every test of a Q:WHILE2 loop costs
/// `M^div = 1`): `pos ← threadIdx.x; while (pos < n) pos ← pos + 32`. The counter is not
/// uniform (`D(pos) = (dep pos 1 0 0 0 32)`), but `n − pos + threadIdx.x + 31` is, and it
/// drops by 32 per iteration: bound `1 + max0(n + 31)/32` (tests: `⌈n/32⌉ + 1` for lane 0).
fn grid_stride(atom: &str, shift: &str, post_q: &str, body_update: &str) -> String {
    let l = launch([32, 1, 1]);
    let d0 = "(dep pos 0 0 0 0 0)";
    let d = "(dep pos 1 0 0 0 32)";
    let inv = format!("(1/32 (max0 {atom}))");
    let e_cost = "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:PARAM (cost 0)))";
    let pe = format!("{l} (le (lin 1 (1 pos) (-1 n)))");
    let pexit = format!("{l} (le (lin 0 (-1 pos) (1 n)))");
    let upd = snode(
        "Q:VWRITE1",
        &assn(&pe, d, &format!("(1) (1/32 (max0 {}))", atom.replace("(lin 31", "(lin -1"))),
        &assn(&l, d, &format!("(1) {inv}")),
        &format!("(entail post {}) (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))", ids(0..6)),
    );
    let body = snode(
        "Q:WEAK",
        &assn(&pe, d, &inv),
        &assn(&l, d, &format!("(1) {inv}")),
        &format!(
            "(entail pre {}) (rewrite pre (shift {atom} {shift} (farkas (0 1) (6 1)))) (entail post {}) {upd}",
            ids(0..7),
            ids(0..6)
        ),
    );
    let w =
        snode("Q:WHILE2", &assn(&l, d, &format!("(1) {inv}")), &assn(&pexit, "", post_q), &format!("{e_cost} {body}"));
    let init = snode(
        "Q:VWRITE1",
        &assn(&l, d0, "(1) (1/32 (max0 (lin 31 (1 n))))"),
        &assn(&l, d, &format!("(1) {inv}")),
        &format!("(entail post {}) (OQ:TID (cost 0))", ids(0..6)),
    );
    let root = snode(
        "Q:SEQ",
        &assn(&l, d0, "(1) (1/32 (max0 (lin 31 (1 n))))"),
        &assn(&pexit, "", post_q),
        &format!("{init} {w}"),
    );
    let prog = format!("(seq (assign pos (tid x)) (while (bin < (var pos) (param n)) (assign pos {body_update})))");
    simple("divwarps", "(int n)", "", "(int pos)", &prog, "(1) (1/32 (max0 (lin 31 (1 n))))", root).text()
}

const ATOM: &str = "(lin 31 (1 n) (-1 pos) (1 threadIdx.x))";
const STEP: &str = "(bin + (var pos) (int 32))";

#[test]
fn divergent_counter_carries_potential_through_a_uniform_form() {
    assert_eq!(ok(&grid_stride(ATOM, "32", "", STEP)).bound, "1 + 1/32*max(0, n + 31)");
    // Without the threadIdx.x term the atom is not uniform under D.
    let r = rej(&grid_stride("(lin 31 (1 n) (-1 pos))", "32", "", STEP));
    assert!(matches!(r.reason, Reason::IllFormed { problem: WfProblem::NonUniformAtom(_), .. }), "{r}");
    // P ∧ e gives only n − pos + threadIdx.x + 31 ≥ 32, not 33.
    let r = rej(&grid_stride(ATOM, "33", "", STEP));
    assert!(matches!(r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
    // Q:WHILE2's post is the invariant without the terms over W(s): keeping the atom over
    // `pos` (no longer in D) is ill-formed, and so is a post over a non-written atom that
    // the invariant does not have.
    let r = rej(&grid_stride(ATOM, "32", &format!("(1/32 (max0 {ATOM}))"), STEP));
    assert!(matches!(r.reason, Reason::IllFormed { which: "post", .. }), "{r}");
    let r = rej(&grid_stride(ATOM, "32", "(1 (max0 (lin 0 (1 n))))", STEP));
    assert!(matches!(r.reason, Reason::Differs { left: "post", right: "body pre without W(s) terms", .. }), "{r}");
    // A step of threadIdx.x changes the dependence: (dep pos 2 0 0 0 32) is not (1 0 0 0 32).
    let r = rej(&grid_stride(ATOM, "32", "", "(bin + (var pos) (tid x))").replace(
        "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))",
        "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:TID (cost 0)))",
    ));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
}

/// The launch facts with `blockIdx.x` and `gridDim.x` (spec/logic.md §5), and the `mono`
/// rewrite: `skip` with pre potential `max0(n + 1)` weakened to `max0(n − blockIdx.x + 1)`
/// (as `blockIdx.x ≥ 0`) and `max0(n)` to `max0(n − gridDim.x + 1)` (as `gridDim.x ≥ 1`).
fn mono_cert(facts: &str, rw: &str, pre_q: &str, child_q: &str) -> String {
    let d = "";
    let child = snode("Q:SKIP", &assn(facts, d, child_q), &assn(facts, d, child_q), "");
    let root = snode(
        "Q:WEAK",
        &assn(facts, d, pre_q),
        &assn(facts, d, child_q),
        &format!("(entail pre {n}) (rewrite pre {rw}) (entail post {n}) {child}", n = ids(0..9)),
    );
    simple("steps", "(int n) (int blockIdx.x) (int gridDim.x)", "", "", "(skip)", pre_q, root).text()
}

#[test]
fn mono_rewrites_and_grid_launch_facts() {
    let l = launch([32, 1, 1]);
    // Launch facts: 6 thread bounds, −b ≤ 0 (6), 1 − g ≤ 0 (7), b − g + 1 ≤ 0 (8).
    let facts = format!(
        "{l} (le (lin 0 (-1 blockIdx.x))) (le (lin 1 (-1 gridDim.x))) (le (lin 1 (1 blockIdx.x) (-1 gridDim.x)))"
    );
    let child = "(1 (max0 (lin 1 (1 n) (-1 blockIdx.x)))) (1 (max0 (lin 1 (1 n) (-1 gridDim.x))))";
    let pre = "(1 (max0 (lin 1 (1 n)))) (1 (max0 (lin 0 (1 n))))";
    let rws = "(mono (lin 1 (1 n)) (lin 1 (1 n) (-1 blockIdx.x)) (farkas (6 1))) \
               (mono (lin 0 (1 n)) (lin 1 (1 n) (-1 gridDim.x)) (farkas (7 1)))";
    assert_eq!(ok(&mono_cert(&facts, rws, pre, child)).bound, "max(0, n) + max(0, n + 1)");
    // Without the rewrites the pre does not dominate.
    let r = rej(&mono_cert(&facts, "", pre, child));
    assert!(matches!(r.reason, Reason::NotDominated { .. }), "{r}");
    // The wrong direction: max0(n − blockIdx.x + 1) ≥ max0(n + 1) does not follow.
    let wrong = "(mono (lin 1 (1 n) (-1 blockIdx.x)) (lin 1 (1 n)) (farkas (6 1)))";
    let r = rej(&mono_cert(&facts, wrong, child, pre));
    assert!(matches!(r.reason, Reason::Farkas { .. }), "{r}");
    // The root must state the gridDim facts (spec/logic.md §5).
    let old = format!("{l} (le (lin 0 (-1 blockIdx.x)))");
    let r = rej(&mono_cert(&old, "", "(1)", "(1)").replace(&ids(0..9), &ids(0..7)));
    assert!(matches!(r.reason, Reason::Differs { left: "the launch facts", .. }), "{r}");
}

/// The histogram pattern under `conflicts` (only `M^swrite(n) = n − 1` costs), block
/// `bx`×1×1: `w ← threadIdx.x >> s; b ← w * 256; t ← u & 255; i ← b + t; S[i] ← 0` with `u`
/// unknown. With `B_x` a multiple of 32 and `s = 5`, `w` is the warp index (uniform, spec
/// §2's `>>` rule), `t` and `i` have range entries of width 255, and a warp's 32 indices in
/// one window of 256 ints hit each bank at most 256/32 = 8 times (by hand): `N* = 8`, cost 7.
fn byte_bins(bx: u32, shift: u32, w_claim: &str, t_claim: &str, n: u32) -> String {
    let l = launch([bx, 1, 1]);
    let base = "(dep b 0 0 0 0 0) (dep i 0 0 0 0 0) (dep t 0 0 0 0 0) (dep w 0 0 0 0 0)";
    let d1 = base.replace("(dep w 0 0 0 0 0)", w_claim);
    let d2 = d1.replace("(dep b 0 0 0 0 0)", "(dep b 0 0 0 0 256)");
    let d3 = d2.replace("(dep t 0 0 0 0 0)", t_claim);
    let d4 = d3.replace("(dep i 0 0 0 0 0)", "(rng i 255)");
    let cost = n.saturating_sub(1);
    let q = format!("({cost})");
    let op = |a: &str, b: &str| format!("(EQ:OP (cost 0) ({a} (cost 0)) ({b} (cost 0)))");
    let asg = |pre: &str, post: &str, child: String| {
        snode("Q:VWRITE2", &assn(&l, pre, &q), &assn(&l, post, &q), &format!("(entail post {}) {child}", ids(0..6)))
    };
    let s1 = asg(base, &d1, op("OQ:TID", "OQ:CONST"));
    let s2 = asg(&d1, &d2, op("OQ:VAR", "OQ:CONST"));
    let s3 = asg(&d2, &d3, op("OQ:VAR", "OQ:CONST"));
    let s4 = asg(&d3, &d4, op("OQ:VAR", "OQ:VAR"));
    let s5 = snode(
        "Q:SWRITE",
        &assn(&l, &d4, &q),
        &assn(&l, &d4, "(0)"),
        &format!("(n {n}) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))"),
    );
    let seq =
        |a: &str, b: &str, pre: &str| snode("Q:SEQ", &assn(&l, pre, &q), &assn(&l, &d4, "(0)"), &format!("{a} {b}"));
    let c4 = seq(&s4, &s5, &d3);
    let c3 = seq(&s3, &c4, &d2);
    let c2 = seq(&s2, &c3, &d1);
    let root = seq(&s1, &c2, base);
    let body = format!(
        "(seq (assign w (bin >> (tid x) (int {shift}))) (seq (assign b (bin * (var w) (int 256))) \
         (seq (assign t (bin & (var u) (int 255))) (seq (assign i (bin + (var b) (var t))) (write S (var i) (int 0))))))"
    );
    Cert {
        version: "1",
        metric: "conflicts",
        block: [bx, 1, 1],
        params: "",
        arrays: "(S shared int 4)",
        locals: "(int w) (int b) (int t) (int i) (int u)",
        body: &body,
        bound: &q,
        derivation: root,
    }
    .text()
}

#[test]
fn range_entries_bound_bank_conflicts() {
    let (w, t) = ("(dep w 0 0 0 0 1)", "(rng t 255)");
    assert_eq!(ok(&byte_bins(192, 5, w, t, 8)).bound, "7");
    assert_eq!(ok(&byte_bins(64, 5, w, t, 8)).bound, "7");
    // 8 is the bound: 7 is rejected.
    let r = rej(&byte_bins(192, 5, w, t, 7));
    assert_eq!(r.reason, Reason::AccessBound { claimed: "7".into(), required: 8 });
    // threadIdx.x >> 4 takes two values in a warp: not uniform, so i has no range entry.
    let r = rej(&byte_bins(192, 4, w, t, 8));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // In a 48-thread block the second warp has 16 lanes: still one value of >> 5 per warp.
    assert_eq!(ok(&byte_bins(48, 5, w, t, 8)).bound, "7");
    // A 40-thread block: its second warp (threads 32..39) has >> 5 = 1 on all lanes.
    assert_eq!(ok(&byte_bins(40, 5, w, t, 8)).bound, "7");
    // u & 255 has width 255, not 127; a wider claim is implied.
    let r = rej(&byte_bins(192, 5, w, "(rng t 127)", 8));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    let r = rej(&byte_bins(192, 5, w, "(rng t 511)", 8));
    // t's entry is weaker, so i = b + t has width 511 ≠ the claimed 255.
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // Malformed: a negative width.
    let r = rej(&byte_bins(192, 5, w, "(rng t -1)", 8));
    assert!(matches!(r.reason, Reason::Syntax { .. }), "{r}");
}

/// The `%` width rule (spec/logic.md §2 "Widths", issue 15): `t ← u % m` with `u` unknown
/// lies in `[1 − m, m − 1]` (C's truncating remainder), width `2m − 2`. The histogram
/// certificate above with `u & 255` replaced by `u % 128` (width 254, implies the claimed
/// `(rng t 255)`) is accepted with the same bound 7; `u % 129` (width 256) and `u % 0`
/// (no width) are not.
#[test]
fn remainder_widths_bound_bank_conflicts() {
    let (w, t) = ("(dep w 0 0 0 0 1)", "(rng t 255)");
    let with = |m: &str| {
        byte_bins(192, 5, w, t, 8).replace("(bin & (var u) (int 255))", &format!("(bin % (var u) (int {m}))"))
    };
    assert_eq!(ok(&with("128")).bound, "7");
    let r = rej(&with("129"));
    assert_eq!(r.reason, Reason::DepNotImplied { var: "t".into(), have: "(rng 256)".into(), want: "(rng 255)".into() });
    let r = rej(&with("0"));
    assert_eq!(r.reason, Reason::DepNotImplied { var: "t".into(), have: "⊤".into(), want: "(rng 255)".into() });
}

/// `N*` evaluates the thread constraints in machine integers when they fit (a linear form
/// scaled by its denominators) and exactly otherwise: both give the same kept lanes. By hand:
/// `threadIdx.x ≤ 15` in every spelling keeps 16 of 32 lanes; with `threadIdx.x mod 2 = 1`
/// too, 8.
#[test]
fn access_bound_integer_and_exact_paths_agree() {
    use num_bigint::BigInt;
    use warpcert_kernel::access::{n_star, Kind};
    use warpcert_kernel::arith::{Cstr, Lane, Lin, Rat};
    let r = |n: i64, d: i64| Rat::new(BigInt::from(n), BigInt::from(d));
    let le = |c: Rat, a: Rat| {
        let mut l = Lin::constant(c);
        l.add_term("threadIdx.x", &a);
        Cstr::le(l)
    };
    let big = BigInt::from(10).pow(20);
    let odd = Cstr {
        eq: false,
        lin: Lin::var("threadIdx.x"),
        lane: Some(Box::new(Lane { m: 2.into(), rs: vec![1.into()] })),
    };
    let hw = [32, 32, 4, 32];
    let count = |p: &[Cstr]| n_star([32, 1, 1], hw, p, None, 4, Kind::MemReads).unwrap();
    // x − 15 ≤ 0; x/2 − 15/2 ≤ 0 (scaled by 2); 10^20·x − 15·10^20 ≤ 0 (beyond i64: exact path)
    assert_eq!(count(&[le(r(-15, 1), r(1, 1))]), 16);
    assert_eq!(count(&[le(r(-15, 2), r(1, 2))]), 16);
    let huge = le(Rat::from_integer(-&big * 15), Rat::from_integer(big.clone()));
    assert_eq!(count(std::slice::from_ref(&huge)), 16);
    assert_eq!(count(&[le(r(-15, 1), r(1, 1)), odd.clone()]), 8);
    assert_eq!(count(&[huge, odd]), 8);
}
