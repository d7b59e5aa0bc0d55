//! S-expression reader for certificates (`spec/certificate.md`, "The format"): tokens are
//! `(`, `)` and atoms (maximal runs of non-whitespace, non-parenthesis characters); `;`
//! starts a comment to the end of the line. Every node records its 1-based source line.
//!
//! The reader is iterative (an explicit stack), so deep nesting cannot overflow the call
//! stack; nesting deeper than [`MAX_DEPTH`] is rejected.

use crate::{Reason, Rejection};

/// Deepest list nesting accepted (bounds the recursion of the later passes).
pub const MAX_DEPTH: usize = 20_000;

/// One s-expression with the line where it starts. Atoms borrow their text from the
/// certificate; a list also keeps its source text (from its `(` to its `)`), which lets
/// [`crate::syntax`] parse a repeated assertion once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexp<'a> {
    /// An atom and its line.
    Atom(&'a str, usize),
    /// A parenthesized list, the line of its `(` and its source text.
    List(Vec<Sexp<'a>>, usize, &'a str),
}

impl<'a> Sexp<'a> {
    /// The 1-based line where this expression starts.
    pub fn line(&self) -> usize {
        match self {
            Sexp::Atom(_, l) | Sexp::List(_, l, _) => *l,
        }
    }
    /// The atom's text, if this is an atom.
    pub fn atom(&self) -> Option<&'a str> {
        match self {
            Sexp::Atom(a, _) => Some(a),
            Sexp::List(..) => None,
        }
    }
    /// The items, if this is a list.
    pub fn list(&self) -> Option<&[Sexp<'a>]> {
        match self {
            Sexp::List(v, ..) => Some(v),
            Sexp::Atom(..) => None,
        }
    }
    /// The head atom of a non-empty list whose first item is an atom.
    pub fn head(&self) -> Option<&'a str> {
        self.list().and_then(|v| v.first()).and_then(Sexp::atom)
    }
    /// The source text: the atom, or the list from its `(` to its `)` (comments and
    /// whitespace included).
    pub fn text(&self) -> &'a str {
        match self {
            Sexp::Atom(a, _) | Sexp::List(_, _, a) => a,
        }
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
            Sexp::List(v, ..) => {
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

/// The character at byte offset `i` of `text` and its length in bytes (`None` at the end;
/// `i` is always a character boundary). An ASCII byte is read without decoding.
fn char_at(text: &str, i: usize) -> Option<(char, usize)> {
    match text.as_bytes().get(i) {
        Some(&b) if b.is_ascii() => Some((char::from(b), 1)),
        _ => text.get(i..)?.chars().next().map(|c| (c, c.len_utf8())),
    }
}

/// Reads all top-level s-expressions of `text`.
///
/// Errors: [`Reason::Syntax`] for an unbalanced parenthesis (with its line) and
/// [`Reason::ResourceLimit`] for nesting deeper than [`MAX_DEPTH`].
pub fn parse_all(text: &str) -> Result<Vec<Sexp<'_>>, Rejection> {
    // The items of all open lists, innermost last; `open` holds, per open list, where its
    // items start in `items`, its line and the byte offset of its `(`.
    let mut items: Vec<Sexp> = Vec::new();
    let mut open: Vec<(usize, usize, usize)> = Vec::new();
    let mut line = 1usize;
    let mut i = 0;
    while let Some((ch, len)) = char_at(text, i) {
        match ch {
            '\n' => line += 1,
            '(' => {
                if open.len() >= MAX_DEPTH {
                    return Err(Rejection::parse(Reason::ResourceLimit {
                        what: "s-expression nesting depth",
                        limit: MAX_DEPTH as u64,
                    }));
                }
                open.push((items.len(), line, i));
            }
            ')' => {
                let Some((start, l, from)) = open.pop() else {
                    return Err(syntax(line, "an atom or `(`", ")"));
                };
                let list = items.split_off(start);
                // `from` and `i` are offsets of the ASCII `(` and `)`: character boundaries
                items.push(Sexp::List(list, l, text.get(from..=i).unwrap_or_default()));
            }
            ';' => {
                // a comment runs to the end of the line (the newline is read next)
                while char_at(text, i).is_some_and(|(c, _)| c != '\n') {
                    i += char_at(text, i).map_or(1, |(_, l)| l);
                }
                continue;
            }
            c if c.is_whitespace() => {}
            _ => {
                let mut end = i;
                while let Some((c, l)) = char_at(text, end) {
                    if c.is_whitespace() || c == '(' || c == ')' || c == ';' {
                        break;
                    }
                    end += l;
                }
                items.push(Sexp::Atom(text.get(i..end).unwrap_or_default(), line));
                i = end;
                continue;
            }
        }
        i += len;
    }
    if let Some(&(_, l, _)) = open.last() {
        return Err(syntax(l, "a closing `)`", "end of input"));
    }
    Ok(items)
}
