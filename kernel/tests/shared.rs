//! Certificate format 3 (spec/certificate.md "Shared assertions", "Long sequences"): a
//! hand-written certificate whose assertions are named in an `(assertions …)` table and
//! whose sequence is one flat `(seq …)` with a three-child `Q:SEQ`; it is accepted exactly
//! like the same derivation written with inline assertions (version 1), and mutants of the
//! table or of the chain are rejected. Formats 4 (identity runs), 5 (implicit Q:SEQ pres and
//! expression costs) and 6 (implicit expression derivations, default `Q:VWRITE` post
//! witnesses, bare bases) are tested at the end.

mod common;
use common::*;
use warpcert_kernel::{check, Reason};

/// `A[tid] ← 0` three times under `sectors`, block 32×1×1. Hand derivation (as for the
/// single store of tests/kernels.rs): each store writes 32 consecutive 4-byte elements,
/// four 32-byte sectors, N* = 4; three stores cost 12. The pre potentials are 12, 8, 4 and
/// the final post potential is 0.
const BODY: &str = "(seq (write A (tid x) (int 0)) (write A (tid x) (int 0)) (write A (tid x) (int 0)))";
const STORE: &str = "(n 4) (OQ:TID (cost 0)) (OQ:CONST (cost 0))";
const ASSUME: &str = "(assumptions (terminates) (no-runtime-error) (no-overflow) (aligned A) (no-alias A) (race-free) (atomics-unserialized) (warp-alone))";

/// The version 3 text with the given `(assertions …)` entries and derivation.
fn v3(version: &str, table: &str, derivation: &str) -> String {
    format!(
        "warpcert-certificate {version}\n(metric sectors)\n(hardware 32 32 4 32)\n(launch 32 1 1)\n{ASSUME}\n(program k\n  (params)\n  (arrays (A global int 4))\n  (locals)\n  (body {BODY}))\n(bound (poly (12)))\n(assertions\n{table})\n(derivation\n{derivation})\n"
    )
}

/// The table: `p0` the launch facts; `p1` written as a change of `p0` (its last fact,
/// `threadIdx.z ≤ 0`, dropped and added again: the same list); `a0`..`a3` with potentials
/// 12, 8, 4, 0 (a store's post keeps its pre's facts).
fn table() -> String {
    format!(
        "(p p0 {})\n(d d0)\n(a a0 p0 d0 (poly (12)))\n(a a1 p0 d0 (poly (8)))\n(a a2 p0 d0 (poly (4)))\n(p p1 (base p0) (drop 5) (le (lin 0 (1 threadIdx.z))))\n(a a3 p1 d0 (poly))\n",
        launch([32, 1, 1])
    )
}

/// A `Q:SEQ` from `a0` to `a3` over the given children.
fn seq(children: &[String]) -> String {
    snode("Q:SEQ", "a0", "a3", &children.join(" "))
}

fn store(pre: &str, post: &str) -> String {
    snode("Q:GWRITE", pre, post, STORE)
}

fn good() -> String {
    v3("3", &table(), &seq(&[store("a0", "a1"), store("a1", "a2"), store("a2", "a3")]))
}

#[test]
fn named_assertions_and_flat_sequence_accepted_like_inline_ones() {
    let v = check(&good()).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(v.bound, "12");
    // 1 seq + 3 × (1 store + 2 operands).
    assert_eq!(v.nodes_checked, 10);
    // The same derivation with inline assertions and the binary (version 1) chain.
    let l = launch([32, 1, 1]);
    let (a0, a1, a2, a3) = (assn(&l, "", "(12)"), assn(&l, "", "(8)"), assn(&l, "", "(4)"), assn(&l, "", ""));
    let inner = snode(
        "Q:SEQ",
        &a1,
        &a3,
        &format!("{} {}", snode("Q:GWRITE", &a1, &a2, STORE), snode("Q:GWRITE", &a2, &a3, STORE)),
    );
    let root = snode("Q:SEQ", &a0, &a3, &format!("{} {inner}", snode("Q:GWRITE", &a0, &a1, STORE)));
    let body = "(seq (write A (tid x) (int 0)) (seq (write A (tid x) (int 0)) (write A (tid x) (int 0))))";
    let w = check(&simple("sectors", "", "(A global int 4)", "", body, "(12)", root).text())
        .unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(w.bound, v.bound);
    // The binary form has one more Q:SEQ node.
    assert_eq!(w.nodes_checked, v.nodes_checked + 1);
}

/// The `expected` text of a syntax rejection of `t`.
fn syntax(t: &str) -> &'static str {
    match check(t) {
        Err(r) => match r.reason {
            Reason::Syntax { expected, .. } => expected,
            other => panic!("not a syntax rejection: {other:?}"),
        },
        Ok(v) => panic!("accepted: {v}"),
    }
}

#[test]
fn table_mutants_rejected() {
    let t = good();
    // Version 3 needs its table; version 7 does not exist.
    let cut = t.replace(&format!("(assertions\n{})\n", table()), "");
    assert_eq!(syntax(&cut), "assertions");
    let r = check(&t.replacen("warpcert-certificate 3", "warpcert-certificate 7", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::Version { found: "7".into(), supported: "1..=6" });
    // A name used but not defined, or used before its definition.
    assert_eq!(syntax(&t.replacen("(post a1)", "(post a9)", 1)), "an assertion name defined in (assertions …)");
    let late = table().replacen("(d d0)\n", "", 1) + "(d d0)\n";
    assert_eq!(syntax(&t.replace(&table(), &late)), "a D name defined before");
    // A name defined twice.
    let twice = table() + "(a a1 p0 d0 (poly (8)))\n";
    assert_eq!(syntax(&t.replace(&table(), &twice)), "a name not defined before");
    // Drop indices out of range or not increasing; a drop without a base.
    for bad in ["(drop 6)", "(drop 4 4)", "(drop 5 4)"] {
        let m = t.replacen("(drop 5)", bad, 1);
        assert_eq!(syntax(&m), "indices strictly increasing, below the base's length", "{bad}");
    }
    let m = t.replacen("(base p0) (drop 5)", "(drop 5)", 1);
    assert_eq!(syntax(&m), "(base NAME) before (drop …)");
    // A d entry dropping a local it does not have.
    let m = t.replacen("(d d0)", "(d d9) (d d0 (base d9) (drop x))", 1);
    assert_eq!(syntax(&m), "a local with an entry in the base");
}

#[test]
fn a_named_assertion_is_checked_as_the_full_assertion_it_denotes() {
    // p1 dropping position 4 (`-threadIdx.z ≤ 0`) instead of 5: a3's P is no longer the
    // launch facts, and the last store's pre and post differ.
    let r = check(&good().replacen("(drop 5)", "(drop 4)", 1)).unwrap_err();
    assert!(matches!(r.reason, Reason::Differs { component: "P", .. }), "{r}");
    assert_eq!(r.node_path, "0.2");
    // a2 with potential 5: the second store's pre (8) is not its post + 4.
    let t = good().replacen("(a a2 p0 d0 (poly (4)))", "(a a2 p0 d0 (poly (5)))", 1);
    let r = check(&t).unwrap_err();
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
    assert_eq!(r.node_path, "0.1");
    // A link of the chain: the second store starts from b1 (a1 with one more true fact,
    // threadIdx.x ≤ 100) instead of a1, the first store's post: every store is valid, the
    // Q:SEQ link is not.
    let t = v3(
        "3",
        &(table()
            + "(p p2 (base p0) (le (lin -100 (1 threadIdx.x))))\n(a b1 p2 d0 (poly (8)))\n(a b2 p2 d0 (poly (4)))\n"),
        &snode("Q:SEQ", "a0", "a3", &[store("a0", "a1"), store("b1", "b2"), store("b2", "a3")].join(" ")),
    );
    let r = check(&t).unwrap_err();
    assert_eq!(r.rule, "Q:SEQ");
    assert_eq!(r.node_path, "0");
    assert!(matches!(r.reason, Reason::Differs { .. }), "{r}");
}

#[test]
fn sequence_children_must_match_the_chain() {
    let (s0, s1, s2) = (store("a0", "a1"), store("a1", "a2"), store("a2", "a3"));
    // Four children for a chain of three statements: the third child is about the last
    // statement, the fourth has none.
    let t = v3("3", &table(), &seq(&[s0.clone(), s1.clone(), s2.clone(), s2.clone()]));
    let r = check(&t).unwrap_err();
    assert!(matches!(r.reason, Reason::WrongSubject { .. }), "{r}");
    // One child.
    let t = v3("3", &table(), &seq(std::slice::from_ref(&s0)));
    let r = check(&t).unwrap_err();
    assert_eq!(r.reason, Reason::ChildCount { expected: 2, found: 1 });
    // Two children: the second is about `(seq S2 S3)`, which a store rule does not fit.
    let t = v3("3", &table(), &seq(&[s0, s1]));
    let r = check(&t).unwrap_err();
    assert!(matches!(r.reason, Reason::WrongSubject { .. }), "{r}");
    // A `(seq …)` of one statement is not a sequence.
    let t = good().replacen(BODY, "(seq (write A (tid x) (int 0)))", 1);
    assert_eq!(syntax(&t), "(seq S S …) with at least two statements");
}

/// The first store inside a Q:WEAK from `a0` to `a1` whose two entail lists (six launch
/// facts each, `P ⇒ P` for the same `p0`) are `list`.
fn weak_first(version: &str, list: &str) -> String {
    let weak = snode("Q:WEAK", "a0", "a1", &format!("(entail pre {list}) (entail post {list}) {}", store("a0", "a1")));
    v3(version, &table(), &seq(&[weak, store("a1", "a2"), store("a2", "a3")]))
}

/// Format 4 (spec/certificate.md "Identity runs"): `(ids I J)` in an entail list stands for
/// the witnesses `(farkas (I 1))` … `(farkas (J 1))` and is checked as them.
#[test]
fn identity_runs_denote_their_witnesses() {
    let written: String = (0..6).map(|i| format!("(farkas ({i} 1)) ")).collect();
    let long = check(&weak_first("4", &written)).unwrap_or_else(|r| panic!("{r}"));
    let short = check(&weak_first("4", "(ids 0 5)")).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!((short.bound.as_str(), short.nodes_checked), (long.bound.as_str(), long.nodes_checked));
    let mixed = check(&weak_first("4", "(ids 0 2) (farkas (3 1)) (ids 4 5)")).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(mixed.nodes_checked, long.nodes_checked);
    // One witness short: the count is checked on the expansion.
    let r = check(&weak_first("4", "(ids 0 4)")).unwrap_err();
    assert_eq!(r.reason, Reason::WitnessCount { list: "pre".into(), expected: 6, found: 5 });
    // Shifted by one: target 0 (−threadIdx.x ≤ 0) from source 1 (threadIdx.x − 31 ≤ 0) is
    // no valid witness, and the last index is out of range.
    let r = check(&weak_first("4", "(ids 1 6)")).unwrap_err();
    assert!(matches!(r.reason, Reason::Farkas { item: 0, .. }), "{r}");
    // The run is kept unexpanded by the reader but rejected exactly as its expansion
    // written out (same node, list, item, target and problem), also at a later item.
    let shifted: String = (1..7).map(|i| format!("(farkas ({i} 1)) ")).collect();
    assert_eq!(r, check(&weak_first("4", &shifted)).unwrap_err());
    let late = check(&weak_first("4", "(ids 0 3) (ids 5 6)")).unwrap_err();
    let late_written = "(farkas (0 1)) (farkas (1 1)) (farkas (2 1)) (farkas (3 1)) (farkas (5 1)) (farkas (6 1))";
    assert!(matches!(late.reason, Reason::Farkas { item: 4, .. }), "{late}");
    assert_eq!(late, check(&weak_first("4", late_written)).unwrap_err());
    // I > J, and a run longer than the budget (4 witnesses per byte of the derivation).
    assert_eq!(syntax(&weak_first("4", "(ids 3 2)")), "(ids I J) with I ≤ J");
    let r = check(&weak_first("4", "(ids 0 99999999)")).unwrap_err();
    assert!(matches!(r.reason, Reason::ResourceLimit { .. }), "{r}");
    // Not part of format 3.
    assert_eq!(syntax(&weak_first("3", "(ids 0 5)")), "(farkas (I λ) …)");
    assert!(check(&weak_first("3", &written)).is_ok());
}

/// A store from the implicit pre to `post`, its operand nodes without costs (format 5).
fn bare_store(post: &str) -> String {
    format!("(Q:GWRITE (post {post}) (n 4) (OQ:TID) (OQ:CONST))")
}

/// Format 5 (spec/certificate.md "Implicit pres and costs"): a Q:SEQ child without
/// `(pre …)` has the pre Q:SEQ requires of it (the parent's pre, then the previous child's
/// post) and an expression node without `(cost …)` has the recomputed cost; both are then
/// checked exactly as if written (hand derivation as for [`good`]: pres 12, 8, 4).
#[test]
fn implicit_pres_and_costs_are_checked_as_written_ones() {
    let t = v3(
        "5",
        &table(),
        &format!("(Q:SEQ (pre a0) (post a3) {} {} {})", bare_store("a1"), bare_store("a2"), bare_store("a3")),
    );
    let v = check(&t).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!((v.bound.as_str(), v.nodes_checked), ("12", 10));
    // Nested: the binary chain's inner Q:SEQ gets its pre from the outer one and passes it on
    // to its first child.
    let inner = format!("(Q:SEQ (post a3) {} {})", bare_store("a2"), bare_store("a3"));
    let t = v3("5", &table(), &format!("(Q:SEQ (pre a0) (post a3) {} {inner})", bare_store("a1")));
    let w = check(&t).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!((w.bound.as_str(), w.nodes_checked), ("12", 11));
    // Written out, the same certificate is a version 3 one; version 4 requires both fields.
    assert!(check(&good()).is_ok());
    let r = check(&t.replacen("warpcert-certificate 5", "warpcert-certificate 4", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::MissingField("pre"));
    let no_cost = v3(
        "4",
        &table(),
        &seq(&[snode("Q:GWRITE", "a0", "a1", "(n 4) (OQ:TID) (OQ:CONST)"), store("a1", "a2"), store("a2", "a3")]),
    );
    assert_eq!(check(&no_cost).unwrap_err().reason, Reason::MissingField("cost"));
    assert!(check(&no_cost.replacen("warpcert-certificate 4", "warpcert-certificate 5", 1)).is_ok());
    // The implicit pre is the chain's: a first store claiming post 4 instead of 8 makes the
    // second store's implicit pre 4, which does not pay its cost 4 and its post 4.
    let t = v3(
        "5",
        &table(),
        &format!("(Q:SEQ (pre a0) (post a3) {} {} {})", bare_store("a2"), bare_store("a2"), bare_store("a3")),
    );
    let r = check(&t).unwrap_err();
    assert_eq!(r.rule, "Q:GWRITE", "{r}");
    // A written pre is still compared with the chain, and a written cost with the recomputed
    // one.
    let t = v3(
        "5",
        &table(),
        &format!(
            "(Q:SEQ (pre a0) (post a3) {} {} {})",
            bare_store("a1"),
            snode("Q:GWRITE", "a0", "a2", "(n 4) (OQ:TID) (OQ:CONST)"),
            bare_store("a3")
        ),
    );
    assert!(check(&t).is_err());
    let t = v3(
        "5",
        &table(),
        &format!(
            "(Q:SEQ (pre a0) (post a3) {} {} {})",
            bare_store("a1"),
            "(Q:GWRITE (post a2) (n 4) (OQ:TID (cost 1)) (OQ:CONST))",
            bare_store("a3")
        ),
    );
    assert!(matches!(check(&t).unwrap_err().reason, Reason::CostMismatch { .. }));
}

/// `y ← threadIdx.x + 0; A[y] ← 0` under `sectors`, block 32×1×1, in format `version`.
/// Hand derivation: the assignment costs nothing under `sectors` (pre and post potential
/// 4); its post adds `y − threadIdx.x = 0` to the launch facts and the entry
/// `(dep y 1 0 0 0 0)`; the store then writes the 32 consecutive 4-byte elements of
/// [`good`]'s stores, N* = 4, so the bound is 4.
fn assign_store(version: &str, body: &str, table: &str, derivation: &str) -> String {
    format!(
        "warpcert-certificate {version}\n(metric sectors)\n(hardware 32 32 4 32)\n(launch 32 1 1)\n{ASSUME}\n(program k\n  (params)\n  (arrays (A global int 4))\n  (locals (int y))\n  (body {body}))\n(bound (poly (4)))\n(assertions\n{table})\n(derivation\n{derivation})\n"
    )
}

const ASSIGN_BODY: &str = "(seq (assign y (bin + (tid x) (int 0))) (write A (var y) (int 0)))";

/// The table of [`assign_store`] with `base` the way the second `p` entry names its base
/// (`0` bare in format 6, `(base 0)` in any format ≥ 3) and `fact` the new fact about `y`.
fn assign_table(base: &str, fact: &str) -> String {
    format!(
        "(p 0 {})\n(d 0)\n(a 0 0 0 (poly (4)))\n(p 1 {base} {fact})\n(d 1 (dep y 1 0 0 0 0))\n(a 1 1 1 (poly (4)))\n(a 2 1 1 (poly))\n",
        launch([32, 1, 1])
    )
}

const Y_FACT: &str = "(eq (lin 0 (1 y) (-1 threadIdx.x)))";

/// Format 6 (spec/certificate.md "Implicit expressions, default witnesses"): `_` children
/// are the canonical expression derivations, a `Q:VWRITE2` without `(entail post …)` has the
/// default list (`(ids 0 5)` for the six launch facts, then `(farkas)` for `y = threadIdx.x`,
/// which `[y ← threadIdx.x + 0]` makes `0 = 0`), and a base may be bare; all are checked
/// exactly as the written forms of format 5.
#[test]
fn implicit_expressions_and_default_witnesses_are_checked_as_written_ones() {
    let short = "(Q:SEQ (pre 0) (post 2)\n(Q:VWRITE2 (post 1) _)\n(Q:GWRITE (post 2) (n 4) _ _))";
    let v6 =
        check(&assign_store("6", ASSIGN_BODY, &assign_table("0", Y_FACT), short)).unwrap_or_else(|r| panic!("{r}"));
    // 1 seq + 1 assignment + 3 (EQ:OP and its operands) + 1 store + 2 operands.
    assert_eq!((v6.bound.as_str(), v6.nodes_checked), ("4", 8));
    let long = "(Q:SEQ (pre 0) (post 2)\n(Q:VWRITE2 (post 1) (entail post (ids 0 5) (farkas)) (EQ:OP (OQ:TID) (OQ:CONST)))\n(Q:GWRITE (post 2) (n 4) (OQ:VAR) (OQ:CONST)))";
    let v5 = check(&assign_store("5", ASSIGN_BODY, &assign_table("(base 0)", Y_FACT), long))
        .unwrap_or_else(|r| panic!("{r}"));
    assert_eq!((v5.bound.as_str(), v5.nodes_checked), ("4", 8));
    // The written forms stay valid in format 6.
    assert!(check(&assign_store("6", ASSIGN_BODY, &assign_table("(base 0)", Y_FACT), long)).is_ok());
    // None of the three is part of format 5: `_` is no node, a bare base is read as a
    // constraint, and an absent list is empty.
    assert_eq!(
        syntax(&assign_store("5", ASSIGN_BODY, &assign_table("(base 0)", Y_FACT), short)),
        "a derivation node (RULE …)"
    );
    assert_eq!(
        syntax(&assign_store("5", ASSIGN_BODY, &assign_table("0", Y_FACT), long)),
        "(le LIN), (eq LIN) or (mod LIN M R …)"
    );
    let no_list = long.replacen(" (entail post (ids 0 5) (farkas))", "", 1);
    let r = check(&assign_store("5", ASSIGN_BODY, &assign_table("(base 0)", Y_FACT), &no_list)).unwrap_err();
    assert_eq!(r.reason, Reason::WitnessCount { list: "post".into(), expected: 7, found: 0 });
    assert!(check(&assign_store("6", ASSIGN_BODY, &assign_table("(base 0)", Y_FACT), &no_list)).is_ok());
    // Potentials as changes: `1` is `0`'s potential 4, `2` is `1`'s plus −4, that is 0.
    let changes = |t: String, last: &str| {
        t.replacen("(a 1 1 1 (poly (4)))\n(a 2 1 1 (poly))", &format!("(a 1 1 1 0)\n(a 2 1 1 1 {last})"), 1)
    };
    let t = changes(assign_table("0", Y_FACT), "(-4)");
    let v = check(&assign_store("6", ASSIGN_BODY, &t, short)).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!((v.bound.as_str(), v.nodes_checked), ("4", 8));
    // −3 leaves the final potential 1: the store's pre 4 is not its post 1 + its cost 4.
    let t = changes(assign_table("0", Y_FACT), "(-3)");
    let r = check(&assign_store("6", ASSIGN_BODY, &t, short)).unwrap_err();
    assert!(matches!(r.reason, Reason::Differs { component: "Q", .. }), "{r}");
    assert_eq!(r.rule, "Q:GWRITE");
    // Not part of format 5: `(a 1 1 1 0)` has the atom `0` where a potential is read.
    let t = changes(assign_table("(base 0)", Y_FACT), "(-4)");
    assert_eq!(syntax(&assign_store("5", ASSIGN_BODY, &t, long)), "(poly TERM …)");
}

#[test]
fn implicit_expressions_and_default_witnesses_are_not_trusted() {
    let short = "(Q:SEQ (pre 0) (post 2)\n(Q:VWRITE2 (post 1) _)\n(Q:GWRITE (post 2) (n 4) _ _))";
    // A default witness that is not valid: with the fact `y − threadIdx.x − 1 = 0` the
    // substituted target is `−1 = 0`, which the empty witness (item 6) does not prove.
    let bad = "(eq (lin -1 (1 y) (-1 threadIdx.x)))";
    let r = check(&assign_store("6", ASSIGN_BODY, &assign_table("0", bad), short)).unwrap_err();
    assert!(matches!(r.reason, Reason::Farkas { item: 6, .. }), "{r}");
    assert_eq!(r.rule, "Q:VWRITE2");
    // `_` for a global read: its claim `(n N)` must be written.
    let read = "(seq (assign y (read A (tid x))) (write A (var y) (int 0)))";
    let r = check(&assign_store("6", read, &assign_table("0", Y_FACT), short)).unwrap_err();
    assert_eq!(r.reason, Reason::MissingField("n"));
    assert_eq!(r.node_path, "0.0.0");
    // `_` where a statement is derived.
    let stmt = "(Q:SEQ (pre 0) (post 2)\n_\n(Q:GWRITE (post 2) (n 4) _ _))";
    let r = check(&assign_store("6", ASSIGN_BODY, &assign_table("0", Y_FACT), stmt)).unwrap_err();
    assert_eq!(r.reason, Reason::WrongRuleKind { expected: "statement" });
    // `_` is one node: a store with a third `_` child has the wrong shape.
    let extra = short.replacen("_ _)", "_ _ _)", 1);
    let r = check(&assign_store("6", ASSIGN_BODY, &assign_table("0", Y_FACT), &extra)).unwrap_err();
    assert_eq!(r.reason, Reason::ChildCount { expected: 2, found: 3 });
}
