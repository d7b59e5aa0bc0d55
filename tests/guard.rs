//! Q:GUARD and Q:GUARDEXIT (spec/logic.md §4a, issue 15): a loop left by `break` is lowered
//! to `while (g)` on a `bool` guard (spec/lowering.md §6); the guard write `g ← k < n` owes
//! the loop's potential only to the threads that stay (`k < n`), and the exit branch
//! `g ← false; …` owes nothing after it. The kernel rejects the rules outside their premises.

mod common;

use common::balanced_end;
use common::coq::{accepted_and_mutants_refuted, coqc_available};
use common::warp32::analyse;
use std::collections::BTreeMap;
use warpcert::core::metric::Q;
use warpcert::core::MetricName;

/// A uniform break: every lane reads `in[k]` at the uniform counter `k`, and each round
/// writes 32 consecutive floats (`out[32k + threadIdx.x]`, 128 bytes: 4 sectors).
///
/// Hand derivation (sectors per warp): round `k` reads `in[k]` (one 4-byte cell for all
/// lanes: 1 sector) and, unless it breaks, writes 4 sectors. With the first negative
/// `in[b]` (or none, `b = ∞`), the rounds `0 … min(n, b + 1) − 1` run: the cost is
/// `5·min(n, b)` plus 1 for the breaking round when `b < n`, at most `5·max(0, n)`.
const UNIFORM: &str = "__global__ void k(float *out, const float *in, int n) {\n  for (int k = 0; k < n; k++) {\n    if (in[k] < 0.0f) {\n      break;\n    }\n    out[32 * k + threadIdx.x] = 1.0f;\n  }\n}\n";

/// The lock-step per-warp cost of `src` under `m` at `n`, with `in[b] = −1` (others 1).
fn simulated(src: &str, m: MetricName, n: i64, b: Option<usize>) -> Q {
    common::warp32::simulated(src, m, n, b, 64)
}

/// The uniform break is bounded by Q:GUARD/Q:GUARDEXIT for `sectors` and `steps`, the kernel
/// accepts the certificates, and the bound covers the lock-step cost at every tested `n` and
/// break position; for `sectors` the bound is the hand-derived `5·max(0, n)` at `n ≥ 1`
/// (exact when no lane breaks: checked against the semantics).
#[test]
fn a_uniform_break_is_bounded_by_the_guard_rules() {
    for m in [MetricName::Sectors, MetricName::Steps] {
        let (cert, bound) = analyse(UNIFORM, m);
        assert!(cert.contains("(Q:GUARD "), "{m:?}: Q:GUARD not used");
        assert!(
            cert.contains("(Q:GUARDEXIT "),
            "{m:?}: Q:GUARDEXIT not used"
        );
        warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("{m:?} rejected: {r:?}"));
        for n in [-2i64, 0, 1, 2, 3, 7, 20] {
            let at = BTreeMap::from([("n".to_string(), n)]);
            let got = bound.eval(&at);
            for b in [None, Some(0), Some(1), Some(3), Some(19)] {
                let truth = simulated(UNIFORM, m, n, b);
                assert!(truth <= got, "{m:?} n = {n}, b = {b:?}: {truth} > {got}");
            }
            if m == MetricName::Sectors {
                let hand = Q::from_integer((5 * n.max(0)).into());
                assert_eq!(simulated(UNIFORM, m, n, None), hand, "n = {n}");
                assert!(got >= hand, "n = {n}");
            }
        }
    }
}

/// Mutants of the uniform break's certificate that the kernel must reject: Q:GUARD renamed
/// to Q:GUARDEXIT (the write `g ← k < n` does not falsify the guard), Q:GUARDEXIT renamed to
/// Q:GUARD (its statement is a sequence, not the guard write), and the guard rewrite's
/// shift raised to 3 (its witness proves `n − k + 1 ≥ 2` only).
#[test]
fn guard_certificate_mutants_are_rejected() {
    let (cert, _) = analyse(UNIFORM, MetricName::Sectors);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    let renamed = cert.replacen("(Q:GUARD ", "(Q:GUARDEXIT ", 1);
    assert_ne!(renamed, cert);
    assert!(
        warpcert_kernel::check(&renamed).is_err(),
        "Q:GUARD as Q:GUARDEXIT accepted"
    );
    let renamed = cert.replacen("(Q:GUARDEXIT ", "(Q:GUARD ", 1);
    assert_ne!(renamed, cert);
    assert!(
        warpcert_kernel::check(&renamed).is_err(),
        "Q:GUARDEXIT as Q:GUARD accepted"
    );
    // the `(rewrite guard …)` shift raised from 1 to 3: under `P1 ∧ k < n` the atom
    // `n − k + 1` is at least 2, not 3, so its Farkas witness fails (since Q:WHILEGUARD1,
    // issue 15, the loop body pays the round from the guard's condition and this
    // certificate no longer needs the rewrite: dropping it is sound and accepted)
    // (Q:GUARD's own list: the enclosing Q:WHILEGUARD1 has one too since guard15)
    let g = cert.find("(Q:GUARD ").expect("a Q:GUARD node");
    let i = g + cert[g..].find("(rewrite guard").expect("a guard rewrite");
    let end = i + balanced_end(&cert[i..], '(', ')').expect("balanced certificate");
    let field = &cert[i..end];
    assert!(
        field.contains(") 1 (farkas"),
        "unexpected guard rewrite {field}"
    );
    let raised = format!(
        "{}{}{}",
        &cert[..i],
        field.replacen(") 1 (farkas", ") 3 (farkas", 1),
        &cert[end..]
    );
    let r = warpcert_kernel::check(&raised).expect_err("a guard shift by 3 accepted");
    assert_eq!(r.rule, "Q:GUARD", "{r:?}");
    assert!(
        r.to_string().contains("rewrite guard witness 0"),
        "rejected for another reason: {r}"
    );
}

/// The uniform break's `sectors` and `steps` certificates export to Coq (`DGuard`,
/// `DGuardExit`, spec/logic.md §6) and `coqc` accepts them (`Print Assumptions`: closed under
/// the global context); a Coq-level mutant with the guard rewrite's shift raised to 3 (its
/// witness proves a shift of 2 at most) fails the reflective check. Skips, saying so, without `coqc`.
#[test]
fn guard_certificates_check_in_coq_and_a_mutant_fails() {
    let mut texts = Vec::new();
    for (name, m) in [
        ("sectors", MetricName::Sectors),
        ("steps", MetricName::Steps),
    ] {
        let (cert, _) = analyse(UNIFORM, m);
        let v = warpcert::export::coq::export(&cert).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(v.contains("DGuard ") && v.contains("DGuardExit "), "{name}");
        texts.push((format!("guard_{name}"), v));
    }
    // the guard rewrite's shift raised from 1 to 3 (its witness proves only `A ≥ 2`; the
    // rewrite list emptied is no longer a mutant: under Q:WHILEGUARD1 the certificate does
    // not need it)
    let orig = &texts[0].1;
    let at = orig.find("(DGuard ").unwrap();
    let open = at + orig[at..].find('[').unwrap();
    let close = open + orig[open..].find("]\n").unwrap();
    let list = &orig[open..close];
    assert!(list.contains(") 1%Z ("), "unexpected guard rewrites {list}");
    let mutant = format!(
        "{}{}{}",
        &orig[..open],
        list.replacen(") 1%Z (", ") 3%Z (", 1),
        &orig[close..]
    );
    assert_ne!(&mutant, orig);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    accepted_and_mutants_refuted(
        "guard",
        &texts
            .iter()
            .map(|(n, t)| (n.as_str(), t))
            .collect::<Vec<_>>(),
        &[("guard_mutant", &mutant)],
    );
}

/// The divergent break of `tests/precision/break_loop.cu`: lanes leave the loop at
/// different rounds through the else branch of the jump-flag test (`g0 ← false`), which is
/// Q:IFGUARD4 (spec/logic.md §4a).
fn break_loop_src() -> String {
    let path = format!(
        "{}/tests/precision/break_loop.cu",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `s` with the first occurrence of `from` replaced by `to` (which must occur).
fn mutate(s: &str, from: &str, to: &str) -> String {
    assert!(s.contains(from), "`{from}` not in the certificate");
    s.replacen(from, to, 1)
}

/// The `(entail join-else …)` field of the first Q:IFGUARD4 node of a certificate emptied
/// (its witnesses removed).
fn empty_join_else(cert: &str) -> String {
    let node = cert.find("(Q:IFGUARD4 ").expect("a Q:IFGUARD4 node");
    let i = node
        + cert[node..]
            .find("(entail join-else")
            .expect("a join-else field");
    let end = i + balanced_end(&cert[i..], '(', ')').expect("balanced certificate");
    format!("{}(entail join-else){}", &cert[..i], &cert[end..])
}

/// The name of the pre of the statement node on derivation line `at` (one statement node
/// per line, spec/certificate.md "Implicit pres and costs"): written as `(pre NAME)`, or,
/// in a `Q:SEQ` child, implicit: the post of the previous sibling (the nearest line above
/// at the same indentation) or else the pre of the parent (the nearest line above indented
/// less).
fn pre_name(lines: &[&str], at: usize) -> String {
    let field = |l: &str, f: &str| -> Option<String> {
        l.split(&format!("({f} ")[..])
            .nth(1)
            .and_then(|r| r.split(')').next())
            .map(str::to_string)
    };
    if let Some(p) = field(lines[at], "pre") {
        return p;
    }
    let indent = |l: &str| l.len() - l.trim_start().len();
    let own = indent(lines[at]);
    let up = (0..at)
        .rev()
        .find(|&j| indent(lines[j]) <= own)
        .expect("a sibling or parent line");
    if indent(lines[up]) == own {
        field(lines[up], "post").expect("the sibling's post")
    } else {
        pre_name(lines, up)
    }
}

/// Every metric of the divergent break has a certificate that uses Q:IFGUARD4 and that the
/// kernel accepts (the precision suite, tests/precision.rs, checks the bounds against the
/// lock-step semantics).
#[test]
fn a_divergent_break_is_bounded_by_ifguard4() {
    let src = break_loop_src();
    for m in MetricName::ALL {
        let (cert, _) = analyse(&src, m);
        warpcert_kernel::check(&cert).unwrap_or_else(|r| panic!("{m:?} rejected: {r:?}"));
        if m != MetricName::Conflicts {
            assert!(cert.contains("(Q:IFGUARD4 "), "{m:?}: Q:IFGUARD4 not used");
        }
    }
}

/// Mutants of the divergent break's `divwarps` certificate that the kernel must reject at
/// the Q:IFGUARD4 node: the exit branch made to keep its lanes in the loop
/// (`g0 ← true`: the else branch no longer falsifies the guard; the enclosing Q:WHILEGUARD0
/// may reject it first), the split's `M^div` not charged (the node's pre constant lowered
/// by 1), the else branch's join
/// witnesses removed; and the rule renamed to Q:IFEXIT4 (whose exit is the then branch).
#[test]
fn ifguard4_certificate_mutants_are_rejected() {
    let (cert, _) = analyse(&break_loop_src(), MetricName::Divwarps);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    let at_rule = |mutant: &str, what: &str| {
        let r = warpcert_kernel::check(mutant).expect_err(what);
        assert_eq!(r.rule, "Q:IFGUARD4", "{what}: rejected elsewhere: {r:?}");
    };
    // (the enclosing Q:WHILEGUARD — Q:WHILEGUARD0 since issue 15, exit15b: the guard is
    // uniform before the loop — checks first that every path of the body ends by the
    // guard's write or falsifies the guard: it rejects this mutant before Q:IFGUARD4)
    let r = warpcert_kernel::check(&mutate(
        &cert,
        "(assign g0 (bool false))",
        "(assign g0 (bool true))",
    ))
    .expect_err("an else branch that keeps g0 accepted");
    assert!(
        ["Q:IFGUARD4", "Q:WHILEGUARD0"].contains(&r.rule.as_str()),
        "an else branch that keeps g0: rejected elsewhere: {r:?}"
    );
    // the pre of Q:IFGUARD4 is c + 3·max(0, n − k − 1) with c ≥ 1 (M^div 1, and since
    // Q:WHILEGUARD the then branch's constant 1); the mutant charges one unit less
    let lines: Vec<&str> = cert.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("(Q:IFGUARD4 "))
        .expect("a Q:IFGUARD4 node");
    let pre = pre_name(&lines, at);
    let line = cert
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("(a {pre} ")))
        .expect("its assertion")
        .to_string();
    // format 6: `(a NAME P D …)`; the copy keeps P and D and is written as a change from
    // the original, `(a NAMEm P D NAME (-1))`: the original potential plus −1
    // (spec/certificate.md, `a` entries with a base)
    let mut words = line.trim_start()["(a ".len()..].split_whitespace();
    let (_, p, d) = (words.next(), words.next(), words.next());
    let (p, d) = (p.expect("its P"), d.expect("its D"));
    let lowered = format!("(a {pre}m {p} {d} {pre} (-1))");
    let node = cert
        .lines()
        .find(|l| l.contains("(Q:IFGUARD4 "))
        .unwrap()
        .to_string();
    // the node's pre written out (format 5 leaves it implicit in a Q:SEQ child) as the copy
    let with_pre = match node.contains(&format!("(pre {pre})")) {
        true => node.replace(&format!("(pre {pre})"), &format!("(pre {pre}m)")),
        false => node.replacen("(Q:IFGUARD4 ", &format!("(Q:IFGUARD4 (pre {pre}m) "), 1),
    };
    let mutant = cert
        .replacen(&line, &format!("{line}\n{lowered}"), 1)
        .replacen(&node, &with_pre, 1);
    at_rule(&mutant, "M^div not charged accepted");
    at_rule(&empty_join_else(&cert), "no join-else witnesses accepted");
    assert!(
        warpcert_kernel::check(&mutate(&cert, "(Q:IFGUARD4 ", "(Q:IFEXIT4 ")).is_err(),
        "Q:IFGUARD4 as Q:IFEXIT4 accepted"
    );
}

/// The divergent break's certificates export to Coq (`DIfGuard4`, spec/logic.md §6) and
/// `coqc` accepts them (`Print Assumptions`: closed under the global context); Coq-level
/// mutants fail the reflective check: the `M^div` of the split not charged (the constant
/// of the `DIfGuard4` node's pre lowered by 1) and the else branch's join witnesses removed. Skips,
/// saying so, without `coqc`.
#[test]
fn ifguard4_certificates_check_in_coq_and_mutants_fail() {
    let src = break_loop_src();
    let mut texts = Vec::new();
    for (name, m) in [
        ("sectors", MetricName::Sectors),
        ("divwarps", MetricName::Divwarps),
        ("steps", MetricName::Steps),
    ] {
        let (cert, _) = analyse(&src, m);
        let v = warpcert::export::coq::export(&cert).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(v.contains("DIfGuard4 "), "{name}");
        texts.push((format!("ifguard_{name}"), v));
    }
    let div = texts[1].1.clone();
    // the DIfGuard4 node: `DIfGuard4 aI aJ ne [wjt] [wje]`
    let at = div.find("(DIfGuard4 ").expect("a DIfGuard4 node");
    let pre = div[at..].split_whitespace().nth(1).unwrap().to_string();
    let def = format!("Definition {pre} : assn := ");
    let dl = div.find(&def).expect("the pre's definition");
    let dend = dl + div[dl..].find('\n').unwrap();
    let line = &div[dl..dend];
    let c: i64 = line
        .split("(mkPot (")
        .nth(1)
        .and_then(|r| r.split(" # 1)").next())
        .and_then(|c| c.parse().ok())
        .expect("an integer constant in the pre");
    assert!(c >= 1, "{line}");
    // a copy of the pre with one unit less (`M^div` not charged), used by the DIfGuard4
    // node alone
    let lowered = line
        .replace(
            &format!("(mkPot ({c} # 1) "),
            &format!("(mkPot ({} # 1) ", c - 1),
        )
        .replacen(&def, &format!("Definition {pre}m : assn := "), 1);
    let no_div = format!("{}\n{}{}", &div[..dend], lowered, &div[dend..]).replacen(
        &format!("(DIfGuard4 {pre} "),
        &format!("(DIfGuard4 {pre}m "),
        1,
    );
    let eol = at + div[at..].find('\n').unwrap();
    let head = &div[at..eol];
    // the end of the first (join-then) list: its `[` matched
    let open = head.find('[').unwrap();
    let wjt_end = open + balanced_end(&head[open..], '[', ']').expect("a closed list");
    let no_wje = format!("{}{} []{}", &div[..at], &head[..wjt_end], &div[eol..]);
    assert_ne!(no_div, div);
    assert_ne!(no_wje, div);
    if !coqc_available() {
        eprintln!("SKIPPED: coqc is not installed (apt-get install -y coq); the Coq export is not checked");
        return;
    }
    // the mutants are refused by the reflective check (`check_root … = true`), not by the
    // parser
    accepted_and_mutants_refuted(
        "ifguard",
        &texts
            .iter()
            .map(|(n, t)| (n.as_str(), t))
            .collect::<Vec<_>>(),
        &[("ifguard_no_div", &no_div), ("ifguard_no_wje", &no_wje)],
    );
}
