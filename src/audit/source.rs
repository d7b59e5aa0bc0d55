//! The source text of a finding: the expression at a statement's location, cut from the
//! user's file (the lowered program keeps line and column, not text).

use crate::core::Loc;

/// The expression starting at `loc` in `text`: an identifier with its `[…]` subscripts and
/// `.field`/`->field` selections, or for `if`/`while`/`for` the keyword and its
/// parenthesized header; otherwise the rest of the line up to `;` (at most 60 characters).
/// Empty when `loc` is unknown or outside the text.
pub fn expression_at(text: &str, loc: Loc) -> String {
    if loc.line == 0 {
        return String::new();
    }
    let Some(line) = text.lines().nth(loc.line as usize - 1) else {
        return String::new();
    };
    let chars: Vec<char> = line.chars().collect();
    let start = (loc.col as usize).saturating_sub(1).min(chars.len());
    let rest = &chars[start..];
    let word: String = rest
        .iter()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .collect();
    let mut i = word.chars().count();
    if matches!(word.as_str(), "if" | "while" | "for") {
        let j = rest[i..]
            .iter()
            .position(|c| !c.is_whitespace())
            .map(|j| i + j);
        if let Some(j) = j.filter(|&j| rest[j] == '(') {
            if let Some(end) = balanced(rest, j, '(', ')') {
                return rest[..=end].iter().collect();
            }
        }
        return cut(rest);
    }
    if word.is_empty() {
        return cut(rest);
    }
    loop {
        if i < rest.len() && rest[i] == '[' {
            match balanced(rest, i, '[', ']') {
                Some(end) => i = end + 1,
                None => break,
            }
        } else if i < rest.len()
            && (rest[i] == '.' || (rest[i] == '-' && rest.get(i + 1) == Some(&'>')))
        {
            let k = if rest[i] == '.' { i + 1 } else { i + 2 };
            let n = rest[k..]
                .iter()
                .take_while(|c| c.is_alphanumeric() || **c == '_')
                .count();
            if n == 0 {
                break;
            }
            i = k + n;
        } else {
            break;
        }
    }
    rest[..i].iter().collect()
}

/// The access of `array` in the statement at `loc`: the first `array[…]` (whole word) at
/// or after the column on the line, else [`expression_at`] (a lowered name that differs
/// from the source's, or an access written through a pointer). Returns the location of the
/// access (`loc` when it is not found) and its text.
pub fn access_at(text: &str, loc: Loc, array: &str) -> (Loc, String) {
    if loc.line == 0 || array.is_empty() {
        return (loc, expression_at(text, loc));
    }
    let Some(line) = text.lines().nth(loc.line as usize - 1) else {
        return (loc, String::new());
    };
    let chars: Vec<char> = line.chars().collect();
    let name: Vec<char> = array.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let start = (loc.col as usize).saturating_sub(1);
    for i in start..chars.len() {
        if chars[i..].starts_with(&name) && (i == 0 || !word(chars[i - 1])) {
            let after = i + name.len();
            let next = chars[after..]
                .iter()
                .position(|c| !c.is_whitespace())
                .map(|k| after + k);
            if next.is_some_and(|k| chars[k] == '[') {
                let col = u32::try_from(i + 1).unwrap_or(u32::MAX);
                let at = Loc {
                    line: loc.line,
                    col,
                };
                return (at, expression_at(text, at));
            }
        }
    }
    (loc, expression_at(text, loc))
}

fn balanced(s: &[char], open_at: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in s.iter().enumerate().skip(open_at) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

fn cut(rest: &[char]) -> String {
    let s: String = rest.iter().take_while(|c| **c != ';').take(60).collect();
    s.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, col: u32) -> Loc {
        Loc { line, col }
    }

    #[test]
    fn subscripts_fields_and_headers() {
        let t = "  C[i * n + j] = A[a[k]].x + 1;\n  if (x < (n)) {\n";
        assert_eq!(expression_at(t, at(1, 3)), "C[i * n + j]");
        assert_eq!(expression_at(t, at(1, 18)), "A[a[k]].x");
        assert_eq!(expression_at(t, at(2, 3)), "if (x < (n))");
        assert_eq!(expression_at(t, at(0, 0)), "");
        assert_eq!(expression_at(t, at(9, 1)), "");
        assert_eq!(access_at(t, at(1, 3), "A").1, "A[a[k]].x");
        assert_eq!(access_at(t, at(1, 3), "C").1, "C[i * n + j]");
        assert_eq!(access_at(t, at(1, 3), "a").1, "a[k]");
        assert_eq!(access_at(t, at(1, 3), "B").1, "C[i * n + j]");
        assert_eq!(access_at(t, at(1, 3), "A").0, at(1, 18));
        assert_eq!(access_at(t, at(1, 3), "B").0, at(1, 3));
    }
}
