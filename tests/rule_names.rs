//! One name means one thing: the rule names listed in `spec/` are exactly the rules the
//! executable semantics and the kernel implement, and the analysis only emits rules the
//! kernel knows.

use warpcert_kernel::{LOGIC_RULES, LOWER_RULES};

/// The names on the `prefix` line of a spec file (`semantic-rules: …`, `logic-rules: …`).
fn spec_line(file: &str, prefix: &str) -> Vec<String> {
    let path = format!("{}/spec/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("{path} has no `{prefix}` line"));
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn semantic_rules_match_spec() {
    let spec = spec_line("semantics.md", "semantic-rules:");
    assert_eq!(spec, warpcert::semantics::RULES);
}

#[test]
fn logic_rules_match_spec_and_kernel() {
    let spec = spec_line("logic.md", "logic-rules:");
    assert_eq!(spec, LOGIC_RULES);
}

#[test]
fn lower_rules_match_spec_and_kernel() {
    let spec = spec_line("logic.md", "lower-rules:");
    assert_eq!(spec, LOWER_RULES);
    for r in LOWER_RULES {
        assert!(
            warpcert_kernel::registry::lookup(r).is_some(),
            "{r} is not registered"
        );
        assert_eq!(
            warpcert_kernel::registry::role(r),
            warpcert_kernel::registry::RuleRole::Lower
        );
    }
}

/// Every rule in `spec/semantics.md` and `spec/logic.md` has a section of its own
/// (a heading or a definition line naming it), so the lists are not just names.
#[test]
fn every_listed_rule_is_specified() {
    for (file, prefix) in [
        ("semantics.md", "semantic-rules:"),
        ("logic.md", "logic-rules:"),
        ("logic.md", "lower-rules:"),
    ] {
        let text =
            std::fs::read_to_string(format!("{}/spec/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        for rule in spec_line(file, prefix) {
            let mentions = text.matches(rule.as_str()).count();
            assert!(
                mentions >= 2,
                "spec/{file} lists {rule} but never defines it"
            );
        }
    }
}
