//! The claim's side conditions the kernel checks besides the derivation: well-typedness of
//! the program (spec/minicuda.md §2), the assumptions section of format version 2 and the
//! implicit assumptions of version 1, and the provenance section (read and reported).

mod common;
use common::*;
use warpcert_kernel::assume::Assumption;
use warpcert_kernel::{check, Reason};

const ALL: &str = "(assumptions (terminates) (no-runtime-error) (no-overflow) (aligned A S) (no-alias A) (race-free) (atomics-unserialized) (warp-alone))";

/// A Q:SKIP certificate (steps, bound 0) with arrays `A` (global) and `S` (shared), body
/// `body`, locals `(int i) (float f) (bool b)`, version `v`, extra sections `extra`.
fn cert(v: &str, extra: &str, body: &str) -> String {
    let a = assn(&launch([32, 1, 1]), "", "");
    let mut c = simple(
        "steps",
        "(int n)",
        "(A global int 4) (S shared float 4)",
        "(int i) (float f) (bool b)",
        body,
        "",
        snode("Q:SKIP", &a, &a, ""),
    );
    c.version = v;
    c.text().replacen("(program", &format!("{extra}\n(program"), 1)
}

#[test]
fn ill_typed_programs_are_rejected() {
    let bad = |body: &str| {
        let r = check(&cert("2", ALL, body)).unwrap_err();
        assert_eq!(r.rule, "program", "{r}");
        r.reason
    };
    // Shifting two floats: `<<` is int × int → int only.
    assert_eq!(
        bad("(assign f (bin << (var f) (float 2.0)))"),
        Reason::NoSignature { op: "<<".into(), operands: "float × float".into() }
    );
    assert_eq!(bad("(assign b (un neg (var b)))"), Reason::NoSignature { op: "neg".into(), operands: "bool".into() });
    assert_eq!(
        bad("(if (var i) (skip) (skip))"),
        Reason::TypeMismatch { what: "the condition `(var i)`".into(), expected: "bool", found: "int" }
    );
    assert_eq!(
        bad("(while (bin + (var i) (int 1)) (skip))"),
        Reason::TypeMismatch {
            what: "the loop condition `(bin + (var i) (int 1))`".into(),
            expected: "bool",
            found: "int"
        }
    );
    assert_eq!(
        bad("(write S (int 0) (var i))"),
        Reason::TypeMismatch { what: "the value written to `S`".into(), expected: "float", found: "int" }
    );
    assert_eq!(bad("(assign i (int 9223372036854775808))"), Reason::LiteralRange("9223372036854775808".into()));
    // Well-typed: comparisons of floats, conversions, a bool equality.
    let v = check(&cert(
        "2",
        ALL,
        "(seq (assign b (bin < (var f) (float 1.5))) (seq (assign i (un toint (var f))) (assign b (bin == (var b) (bool true)))))",
    ));
    assert!(matches!(v, Err(ref r) if matches!(r.reason, Reason::WrongSubject { .. })), "{v:?}");
}

#[test]
fn version_2_states_exactly_the_assumptions() {
    let v = check(&cert("2", ALL, "(skip)")).unwrap();
    assert_eq!(v.version, 2);
    assert_eq!(v.assumptions.len(), 8);
    assert!(v.assumptions.contains(&Assumption::Aligned(vec!["A".into(), "S".into()])));
    assert!(v.assumptions.contains(&Assumption::NoAlias(vec!["A".into()])));
    let shown = v.to_string();
    assert!(shown.contains("\nassuming:\n  terminates: the run terminates"), "{shown}");
    assert!(shown.contains("no-alias: global arrays A do not overlap"), "{shown}");
    // Missing, unknown, repeated, and array lists other than the program's arrays.
    let r = check(&cert("2", &ALL.replace(" (race-free)", ""), "(skip)")).unwrap_err();
    assert_eq!(r.reason, Reason::MissingAssumption("race-free"));
    let r = check(&cert("2", &ALL.replace("(race-free)", "(race-free) (fast-math)"), "(skip)")).unwrap_err();
    assert_eq!(r.reason, Reason::UnknownAssumption("fast-math".into()));
    let r = check(&cert("2", &ALL.replace("(race-free)", "(race-free) (race-free)"), "(skip)")).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { expected: "each assumption at most once", .. }), "{r}");
    let r = check(&cert("2", &ALL.replace("(aligned A S)", "(aligned A)"), "(skip)")).unwrap_err();
    assert_eq!(r.reason, Reason::AssumptionArrays { assumption: "aligned", expected: "A S".into(), found: "A".into() });
    let r = check(&cert("2", &ALL.replace("(no-alias A)", "(no-alias A S)"), "(skip)")).unwrap_err();
    assert_eq!(
        r.reason,
        Reason::AssumptionArrays { assumption: "no-alias", expected: "A".into(), found: "A S".into() }
    );
    let r = check(&cert("2", &ALL.replace("(terminates)", "(terminates A)"), "(skip)")).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { expected: "an assumption without arguments", .. }), "{r}");
    // Version 1 has no such section (it is not a section of version 1) …
    let r = check(&cert("1", ALL, "(skip)")).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { .. }), "{r}");
    // … and its claim has the same assumptions, implicitly.
    let v = check(&cert("1", "", "(skip)")).unwrap();
    assert_eq!(v.version, 1);
    assert!(v.to_string().contains("assuming (implicit in format version 1):"));
    assert_eq!(v.assumptions.len(), 8);
    let r = check(&cert("2", "", "(skip)")).unwrap_err();
    assert_eq!(r.reason, Reason::Syntax { line: 0, expected: "assumptions", found: "no such section".into() });
}

#[test]
fn provenance_is_read_and_reported() {
    let h = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let p =
        format!("(provenance (source-sha256 {h}) (program-sha256 {h}) (warpcert 0.1.0) (grid symbolic) (fixed (n 4)))");
    let v = check(&cert("2", &format!("{ALL}\n{p}"), "(skip)")).unwrap();
    let pv = v.provenance.clone().unwrap();
    assert_eq!((pv.source_sha256.as_str(), pv.warpcert.as_str(), pv.grid), (h, "0.1.0", None));
    assert_eq!(pv.fixed, vec![("n".to_string(), 4.into())]);
    assert!(v.to_string().contains(&format!("provenance (not checked by the kernel): source sha256 {h}")));
    let r = check(&cert("2", &format!("{ALL}\n{}", p.replacen(h, "ABC", 1)), "(skip)")).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { expected: "64 lowercase hexadecimal digits", .. }), "{r}");
    let r = check(&cert("2", &format!("{ALL}\n{}", p.replace("(grid symbolic)", "(grid 1 2)")), "(skip)")).unwrap_err();
    assert!(matches!(r.reason, Reason::Syntax { expected: "(grid symbolic) or (grid GX GY GZ)", .. }), "{r}");
}
