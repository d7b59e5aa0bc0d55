//! Mutating certificates and Coq exports, and pinning the kernel's refusal of a mutant by
//! its message (the rule tests of `tests/lower_*.rs` and `tests/whilecap.rs`).

use super::balanced_end;

/// The byte offset of the `nth` (0-based) occurrence of `pat` in `text` (which must occur).
pub fn nth_at(text: &str, pat: &str, nth: usize) -> usize {
    text.match_indices(pat)
        .nth(nth)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("`{pat}` #{nth} not in the text"))
}

/// `text` with its first occurrence of `from` (which must occur) replaced by `to`.
pub fn replace_first(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` not in the text");
    text.replacen(from, to, 1)
}

/// `text` without the balanced s-expression that starts at byte `at` (an opening `(`).
pub fn without_subtree_at(text: &str, at: usize) -> String {
    let end = balanced_end(&text[at..], '(', ')')
        .unwrap_or_else(|| panic!("unbalanced subtree at byte {at}"));
    format!("{}{}", &text[..at], &text[at + end..])
}

/// `text` (starting at a constructor) with its `n`th (0-based) top-level bracketed list
/// replaced by `[]`.
pub fn drop_list(text: &str, n: usize) -> String {
    let (mut depth, mut seen, mut start) = (0i32, 0usize, None);
    for (k, ch) in text.char_indices() {
        match ch {
            '[' => {
                if depth == 0 && seen == n {
                    start = Some(k);
                }
                depth += 1;
            }
            ']' => {
                depth -= 1;
                if depth == 0 {
                    if let Some(b) = start {
                        return format!("{}[]{}", &text[..b], &text[k + 1..]);
                    }
                    seen += 1;
                }
            }
            _ => {}
        }
    }
    panic!("no list #{n}")
}

/// Asserts that the kernel refuses the certificate `text` (the mutant `what`) with a
/// message containing `msg`, and, given `rule`, at a node of that rule.
pub fn kernel_refuses(what: &str, text: &str, rule: Option<&str>, msg: &str) {
    let r = warpcert_kernel::check(text)
        .err()
        .unwrap_or_else(|| panic!("{what}: accepted"));
    if let Some(rule) = rule {
        assert_eq!(r.rule, rule, "{what}: {r}");
    }
    assert!(r.to_string().contains(msg), "{what}: {r}");
}
