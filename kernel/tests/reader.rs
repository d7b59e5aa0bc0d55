//! The reader's speed paths agree with its definition (spec/certificate.md, "The format"):
//! whitespace is `char::is_whitespace` (non-ASCII included), integers of any length are
//! exact, and an assertion text seen before is never confused with a different one.

mod common;
use common::*;
use warpcert_kernel::{check, Reason};

/// A right-nested chain of `depth` skips, all with the same assertion (as in meta.rs).
fn chain(depth: usize) -> String {
    let a = assn(&launch([32, 1, 1]), "", "");
    let skip = snode("Q:SKIP", &a, &a, "");
    let body = format!("{}(skip){}", "(seq (skip) ".repeat(depth), ")".repeat(depth));
    let open = format!("(Q:SEQ (pre {a}) (post {a}) {skip} ");
    let der = format!("{}{skip}{}", open.repeat(depth), ")".repeat(depth));
    simple("steps", "", "", "", &body, "", der).text()
}

/// A single Q:SKIP certificate with parameter `n`, bound `bound` and potential `q` in both
/// the pre and the post.
fn skip_with(bound: &str, q: &str) -> String {
    let a = assn(&launch([32, 1, 1]), "", q);
    simple("steps", "(int n)", "", "", "(skip)", bound, snode("Q:SKIP", &a, &a, "")).text()
}

#[test]
fn unicode_whitespace_and_comments() {
    let t = chain(3);
    let nodes = check(&t).unwrap().nodes_checked;
    // Every separator is whitespace for the reader, ASCII or not (U+00A0, U+2003, U+0085,
    // tab, vertical tab, form feed, carriage return).
    for sep in ["\u{a0}", "\u{2003}", "\u{85}", "\t", "\u{b}", "\u{c}", "\r"] {
        let v = check(&t.replace("(Q:SEQ (pre", &format!("(Q:SEQ{sep}(pre"))).unwrap();
        assert_eq!(v.nodes_checked, nodes, "separator {sep:?}");
    }
    // A comment with non-ASCII text, and a comment at the very end without a newline.
    let commented = t.replacen("(derivation", "; ∀ warps é\n(derivation ; ∃\n", 1) + "; end";
    assert_eq!(check(&commented).unwrap().nodes_checked, nodes);
    // A non-ASCII character that is not whitespace belongs to the atom.
    let r = check(&t.replacen("(Q:SKIP", "(Q:SKIPé", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::UnknownRule("Q:SKIPé".into()));
    // Lines are counted after multi-byte characters: the stray `)` is on line 4.
    let r = check(&t.replacen("(metric steps)", "; ∀∀\n; é\n(metric steps))", 1)).unwrap_err();
    assert_eq!(r.reason, Reason::Syntax { line: 4, expected: "an atom or `(`", found: ")".into() });
}

#[test]
fn integers_of_any_length() {
    // 18 digits (always an i64), 19 digits beyond i64::MAX, and 20-digit fractions that
    // reduce to small numbers are all read exactly.
    let big = [
        ("(999999999999999999)", "(999999999999999999)"),
        ("(9223372036854775808)", "(18446744073709551616/2)"),
        ("(2)", "(40000000000000000000/20000000000000000000)"),
        ("(2)", "(0002)"),
        ("(-0 (max0 (lin 1 (1 n))))", ""),
        (
            "(3 (max0 (lin 1 (1 n))))",
            "(3/10000000000000000000 (max0 (lin 10000000000000000000 (10000000000000000000 n))))",
        ),
    ];
    for (bound, q) in big {
        check(&skip_with(bound, q)).unwrap_or_else(|r| panic!("{bound} vs {q}: {r}"));
    }
    // A difference in the 19th digit is seen.
    let r = check(&skip_with("(1000000000000000000)", "(1000000000000000001)")).unwrap_err();
    assert!(matches!(r.reason, Reason::BoundMismatch { .. }), "{r}");
    // Only an optional `-` and digits: `+1`, `1.0`, `1/-2`, `1/0` and `-` are not rationals.
    for bad in ["(+1)", "(1.0)", "(1/-2)", "(1/0)", "(-)", "(1/)"] {
        let r = check(&skip_with(bad, bad)).unwrap_err();
        assert!(bad_rational(&r.reason), "{bad}: {r}");
    }
}

#[test]
fn repeated_assertions_are_told_apart() {
    // one node per line
    let t = chain(3).replace(" (Q:SEQ", "\n(Q:SEQ");
    let a = assn(&launch([32, 1, 1]), "", "");
    // The last post differs from the others in one digit only.
    let b = a.replacen("(lin -31 (1 threadIdx.x))", "(lin -30 (1 threadIdx.x))", 1);
    assert_ne!(a, b);
    let at = t.rfind(&format!("(post {a})")).unwrap();
    let mut m = t.clone();
    m.replace_range(at..at + a.len() + 7, &format!("(post {b})"));
    let r = check(&m).unwrap_err();
    assert!(matches!(r.reason, Reason::Differs { component: "P", .. }), "{r}");
    // A malformed assertion repeated in every node is rejected at its first occurrence.
    let bad = a.replace("(D )", "(D (dep))");
    let r = check(&t.replace(&a, &bad)).unwrap_err();
    let first = t.lines().position(|l| l.contains(&a)).unwrap() + 1;
    assert!(matches!(r.reason, Reason::Syntax { line, .. } if line == first), "{r}");
}
