//! S-expression reader for certificates (`spec/certificate.md`, "The format"): tokens are
//! `(`, `)` and atoms (maximal runs of non-whitespace, non-parenthesis characters); `;`
//! starts a comment to the end of the line. Every node records its 1-based source line.
//!
//! The reader is iterative (an explicit stack), so deep nesting cannot overflow the call
//! stack; nesting deeper than [`MAX_DEPTH`] is rejected.

use crate::{Reason, Rejection};

/// Deepest list nesting accepted (bounds the recursion of the later passes).
pub const MAX_DEPTH: usize = 20_000;

/// One s-expression with the line where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp {
    /// An atom and its line.
    Atom(String, usize),
    /// A parenthesized list and the line of its `(`.
    List(Vec<Sexp>, usize),
}

impl Sexp {
    /// The 1-based line where this expression starts.
    pub fn line(&self) -> usize {
        match self {
            Sexp::Atom(_, l) | Sexp::List(_, l) => *l,
        }
    }
    /// The atom's text, if this is an atom.
    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom(a, _) => Some(a),
            Sexp::List(..) => None,
        }
    }
    /// The items, if this is a list.
    pub fn list(&self) -> Option<&[Sexp]> {
        match self {
            Sexp::List(v, _) => Some(v),
            Sexp::Atom(..) => None,
        }
    }
    /// The head atom of a non-empty list whose first item is an atom.
    pub fn head(&self) -> Option<&str> {
        self.list().and_then(|v| v.first()).and_then(Sexp::atom)
    }
    /// A short rendering for error messages (at most about 60 characters).
    pub fn brief(&self) -> String {
        let mut s = String::new();
        self.render(&mut s, 60);
        if s.len() >= 60 {
            s.push('…');
        }
        s
    }
    fn render(&self, out: &mut String, budget: usize) {
        if out.len() >= budget {
            return;
        }
        match self {
            Sexp::Atom(a, _) => out.push_str(a),
            Sexp::List(v, _) => {
                out.push('(');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    x.render(out, budget);
                    if out.len() >= budget {
                        return;
                    }
                }
                out.push(')');
            }
        }
    }
}

fn syntax(line: usize, expected: &'static str, found: &str) -> Rejection {
    Rejection::parse(Reason::Syntax { line, expected, found: found.to_string() })
}

/// Reads all top-level s-expressions of `text`.
///
/// Errors: [`Reason::Syntax`] for an unbalanced parenthesis (with its line) and
/// [`Reason::ResourceLimit`] for nesting deeper than [`MAX_DEPTH`].
pub fn parse_all(text: &str) -> Result<Vec<Sexp>, Rejection> {
    let mut stack: Vec<(Vec<Sexp>, usize)> = vec![(Vec::new(), 0)];
    let mut line = 1usize;
    let mut chars = text.char_indices().peekable();
    while let Some((start, ch)) = chars.next() {
        match ch {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            ';' => {
                while let Some(&(_, c)) = chars.peek() {
                    if c == '\n' {
                        break;
                    }
                    chars.next();
                }
            }
            '(' => {
                if stack.len() > MAX_DEPTH {
                    return Err(Rejection::parse(Reason::ResourceLimit {
                        what: "s-expression nesting depth",
                        limit: MAX_DEPTH as u64,
                    }));
                }
                stack.push((Vec::new(), line));
            }
            ')' => {
                if stack.len() <= 1 {
                    return Err(syntax(line, "an atom or `(`", ")"));
                }
                let (items, l) = stack.pop().unwrap_or_default();
                if let Some(top) = stack.last_mut() {
                    top.0.push(Sexp::List(items, l));
                }
            }
            _ => {
                let mut end = start + ch.len_utf8();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || c == '(' || c == ')' || c == ';' {
                        break;
                    }
                    end = i + c.len_utf8();
                    chars.next();
                }
                if let Some(top) = stack.last_mut() {
                    top.0.push(Sexp::Atom(text[start..end].to_string(), line));
                }
            }
        }
    }
    if stack.len() != 1 {
        let open = stack.last().map(|s| s.1).unwrap_or(line);
        return Err(syntax(open, "a closing `)`", "end of input"));
    }
    Ok(stack.pop().map(|s| s.0).unwrap_or_default())
}
