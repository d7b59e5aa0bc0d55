//! Crate-level properties: the rule list agrees with spec/logic.md, dependencies are
//! exact-arithmetic crates only, parse errors carry lines, root conditions, well-formedness,
//! deep derivations, and no panic on mangled input.

mod common;
use common::*;
use warpcert_kernel::{check, Reason, Rejection, WfProblem, LOGIC_RULES};

#[test]
fn rule_list_matches_spec() {
    let spec = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/logic.md")).unwrap();
    let line = spec.lines().find_map(|l| l.strip_prefix("logic-rules:")).expect("logic-rules: line");
    let names: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(names, LOGIC_RULES);
    for n in LOGIC_RULES {
        assert!(warpcert_kernel::registry::lookup(n).is_some(), "{n}");
    }
}

#[test]
fn dependencies_are_exact_arithmetic_only() {
    let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    // The checker itself: exact arithmetic only, and the hasher of its hash maps and sets
    // (rustc-hash: a hash function only; a map's contents do not depend on it). Its tests
    // may also use quickcheck.
    let allowed = ["num-bigint", "num-rational", "num-traits", "num-integer", "rustc-hash"];
    let dev_allowed = ["quickcheck"];
    let mut section = String::new();
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        if section.contains("dependencies") {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                let ok = allowed.contains(&name) || (section == "[dev-dependencies]" && dev_allowed.contains(&name));
                assert!(ok, "dependency `{name}` in {section} is not allowed");
            }
        }
    }
}

fn skip_cert(bound: &str, pre: &str) -> String {
    let d = snode("Q:SKIP", pre, pre, "");
    simple("steps", "(int n) (int blockIdx.x)", "", "(int i) (bool b)", "(skip)", bound, d).text()
}

fn facts() -> String {
    format!("{} (le (lin 0 (-1 blockIdx.x)))", launch([32, 1, 1]))
}

#[test]
fn root_conditions() {
    // Launch facts include −blockIdx.x ≤ 0 for the parameter blockIdx.x.
    let v = check(&skip_cert(
        "(2) (3 (max0 (lin 1 (1 n))))",
        &assn(&facts(), "(dep i 0 0 0 0 0)", "(2) (3 (max0 (lin 1 (1 n))))"),
    ))
    .unwrap();
    assert_eq!(v.bound, "2 + 3*max(0, n + 1)");
    // Canonical atoms: 6·max0(n/2 + 1/2) = 3·max0(n + 1).
    check(&skip_cert("(2) (6 (max0 (lin 1/2 (1/2 n))))", &assn(&facts(), "", "(2) (3 (max0 (lin 1 (1 n))))"))).unwrap();
    // Missing blockIdx fact.
    let r = check(&skip_cert("", &assn(&launch([32, 1, 1]), "", ""))).unwrap_err();
    assert!(matches!(r.reason, Reason::Differs { left: "the launch facts", .. }), "{r}");
    // Initial D: i starts at 0, so (dep i 0 0 0 1 0) is not implied.
    let r = check(&skip_cert("", &assn(&facts(), "(dep i 0 0 0 1 0)", ""))).unwrap_err();
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    // The root potential may not mention locals.
    let q = "(1 (max0 (lin 0 (1 i))))";
    let r = check(&skip_cert(q, &assn(&facts(), "(dep i 0 0 0 0 0)", q))).unwrap_err();
    assert_eq!(r.reason, Reason::IllFormed { which: "pre", problem: WfProblem::BadPotentialVar("i".into()) });
}

#[test]
fn well_formedness() {
    let wf =
        |p: &str, d: &str, q: &str| check(&skip_cert(q, &assn(&format!("{} {p}", facts()), d, q))).unwrap_err().reason;
    assert_eq!(
        wf("(le (lin 0 (1 b)))", "", ""),
        Reason::IllFormed { which: "pre", problem: WfProblem::BadConstraintVar("b".into()) }
    );
    assert_eq!(
        wf("", "(dep n 0 0 0 0 0)", ""),
        Reason::IllFormed { which: "pre", problem: WfProblem::DepNotLocal("n".into()) }
    );
    assert_eq!(
        wf("", "(dep b 0 0 0 0 0)", ""),
        Reason::IllFormed { which: "pre", problem: WfProblem::NonIntDep("b".into()) }
    );
    assert_eq!(
        wf("", "", "(-1 (max0 (lin 0 (1 n))))"),
        Reason::IllFormed { which: "pre", problem: WfProblem::NegativeCoefficient("-1*max(0, n)".into()) }
    );
    // i is not in X(D) when D has no entry for it.
    assert_eq!(
        wf("", "", "(1 (max0 (lin 0 (1 i))))"),
        Reason::IllFormed { which: "pre", problem: WfProblem::BadPotentialVar("i".into()) }
    );
}

#[test]
fn parse_errors_have_lines() {
    let t = skip_cert("", &assn(&facts(), "", ""));
    let r = check(&t.replacen("(skip)", "(skip", 1)).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { .. }), "{r}");
    let r = check(&t.replacen("(metric steps)", "(metric steps))", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::Syntax { line: 2, expected: "an atom or `(`", found: ")".into() });
    let r = check(&t.replacen("(metric steps)", "(metric cycles)", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::UnknownMetric("cycles".into()));
    let r = check(&t.replacen("(lin 0 (-1 blockIdx.x))", "(lin 0 (-1/0 blockIdx.x))", 1)).unwrap_err();
    assert!(bad_rational(&r.reason), "{r}");
    let r = check(&t.replacen("warpcert-certificate 1", "warpcert-certificate 0", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::Version { found: "0".into(), supported: "1..=6" });
    let r = check("").unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { line: 1, .. }), "{r}");
}

#[test]
fn program_typing() {
    let a = assn(&facts(), "", "");
    let bad = |body: &str| {
        let d = snode("Q:SKIP", &a, &a, "");
        check(&simple("steps", "(int n) (int blockIdx.x)", "(A global int 4)", "(int i) (float f)", body, "", d).text())
            .unwrap_err()
    };
    assert_eq!(bad("(assign j (int 0))").reason, Reason::Undeclared { kind: "local", name: "j".into() });
    assert_eq!(bad("(write B (int 0) (int 0))").reason, Reason::Undeclared { kind: "array", name: "B".into() });
    assert_eq!(
        bad("(write A (var f) (int 0))").reason,
        Reason::IllTyped { what: "(var f)".into(), expected: "an int index" }
    );
}

/// A right-nested chain of `depth` skips, all with the same assertion.
fn chain(depth: usize) -> String {
    let a = assn(&launch([32, 1, 1]), "", "");
    let skip = snode("Q:SKIP", &a, &a, "");
    let body = format!("{}(skip){}", "(seq (skip) ".repeat(depth), ")".repeat(depth));
    let open = format!("(Q:SEQ (pre {a}) (post {a}) {skip} ");
    let der = format!("{}{skip}{}", open.repeat(depth), ")".repeat(depth));
    simple("steps", "", "", "", &body, "", der).text()
}

#[test]
fn deep_derivation() {
    let v = check(&chain(5000)).unwrap();
    assert_eq!(v.nodes_checked, 2 * 5000 + 1);
    // Close to the nesting limit (each Q:SEQ level nests two lists: node and children).
    assert!(check(&chain(12_000)).is_ok());
    let r = check(&"(".repeat(30_000)).unwrap_err();
    assert!(matches!(r.reason, Reason::ResourceLimit { .. }), "{r}");
}

/// A rejection that is not a caught kernel panic (the per-node guard turns a panic into
/// [`Reason::InternalPanic`]; no input may reach it).
fn no_panic(r: &Rejection, input: &str) {
    assert!(!matches!(r.reason, Reason::InternalPanic(_) | Reason::ThreadFailed), "{r}\non\n{input}");
}

#[test]
fn mangled_inputs_never_panic() {
    let t = chain(3);
    for cut in (0..t.len()).step_by(7) {
        if t.is_char_boundary(cut) {
            // A strict prefix misses at least the closing `)` of the derivation.
            let r = check(&t[..cut]).unwrap_err();
            no_panic(&r, &t[..cut]);
            assert!(matches!(r.reason, Reason::Syntax { .. }), "{r}");
        }
    }
    for (i, c) in t.char_indices().step_by(5) {
        for rep in ["(", ")", "-1", "x", "1/2", "4294967295", "-9223372036854775809"] {
            let mut m = t.clone();
            m.replace_range(i..i + c.len_utf8(), rep);
            if let Err(r) = check(&m) {
                no_panic(&r, &m);
            }
        }
    }
}

/// Inputs that indexed out of range or overflowed before the kernel denied indexing and
/// unchecked products: huge block dimensions (their product overflows `u64`), and
/// `(mod …)`/node lists shorter than their grammar.
#[test]
fn crafted_out_of_range_inputs_are_rejected_with_their_reason() {
    let huge = chain(1).replacen("(launch 32 1 1)", "(launch 4294967295 4294967295 4294967295)", 1);
    let r = check(&huge).unwrap_err();
    no_panic(&r, &huge);
    // The root pre states the launch facts of a 32-thread block.
    assert!(matches!(r.reason, Reason::Differs { left: "the launch facts", .. }), "{r}");
    let a = assn(&format!("{} (mod (lin 0 (1 threadIdx.x)))", launch([32, 1, 1])), "", "");
    let t = simple("steps", "", "", "", "(skip)", "", snode("Q:SKIP", &a, &a, "")).text();
    let r = check(&t).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { expected: "(le LIN), (eq LIN) or (mod LIN M R …)", .. }), "{r}");
    let t = simple("steps", "", "", "", "(skip)", "", "(Q:SEQ (pre".into()).text();
    let r = check(&t).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { .. }), "{r}");
    // A node with one child where two are required.
    let a = assn(&launch([32, 1, 1]), "", "");
    let skip = snode("Q:SKIP", &a, &a, "");
    let t = simple("steps", "", "", "", "(seq (skip) (skip))", "", snode("Q:SEQ", &a, &a, &skip)).text();
    let r = check(&t).unwrap_err();
    assert_eq!(r.reason, Reason::ChildCount { expected: 2, found: 1 });
}
