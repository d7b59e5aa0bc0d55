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

/// Whether the byte `b` is an ASCII character that ends an atom: `char::is_whitespace`
/// on ASCII (tab, line feed, vertical tab, form feed, carriage return, space), `(`, `)`
/// or `;`.
fn ascii_delimiter(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' | b'(' | b')' | b';')
}

/// Whether the (non-ASCII) character starting at byte offset `i` of `text` is whitespace,
/// and its length in bytes (`i` is always a character boundary).
fn wide_char(text: &str, i: usize) -> (bool, usize) {
    text.get(i..).and_then(|t| t.chars().next()).map_or((false, 1), |c| (c.is_whitespace(), c.len_utf8()))
}

/// Reads all top-level s-expressions of `text`.
///
/// Errors: [`Reason::Syntax`] for an unbalanced parenthesis (with its line) and
/// [`Reason::ResourceLimit`] for nesting deeper than [`MAX_DEPTH`].
pub fn parse_all(text: &str) -> Result<Vec<Sexp<'_>>, Rejection> {
    read(text, 1, &[])
}

/// Reads all top-level s-expressions of `text` as [`parse_all`] does (same errors), except
/// that a top-level list whose head atom is one of `deferred` keeps only that head: the
/// rest of it is read later from its text by [`parse_deferred`], so that the trees of large
/// sections need not be in memory together.
pub fn parse_top<'a>(text: &'a str, deferred: &[&str]) -> Result<Vec<Sexp<'a>>, Rejection> {
    read(text, 1, deferred)
}

/// The whole tree of a list `s` read by [`parse_top`] (or by [`parse_all`]: then the same
/// tree again), read from its text with its lines.
///
/// Errors: those of [`parse_all`] on the text (none for a list [`parse_top`] read).
pub fn parse_deferred<'a>(s: &Sexp<'a>) -> Result<Sexp<'a>, Rejection> {
    let mut v = read(s.text(), s.line(), &[])?;
    match (v.pop(), v.is_empty()) {
        (Some(x), true) => Ok(x),
        _ => Err(syntax(s.line(), "one s-expression", s.text())),
    }
}

/// [`parse_all`] from line `first_line`, keeping only the heads of the top-level lists
/// whose head atom is in `deferred`.
fn read<'a>(text: &'a str, first_line: usize, deferred: &[&str]) -> Result<Vec<Sexp<'a>>, Rejection> {
    // The items of all open lists, innermost last; `open` holds, per open list, where its
    // items start in `items`, its line and the byte offset of its `(`.
    let mut items: Vec<Sexp> = Vec::new();
    let mut open: Vec<(usize, usize, usize)> = Vec::new();
    // inside a deferred top-level list: its items after the head are scanned, not kept
    let mut skip = false;
    let mut line = first_line;
    let bytes = text.as_bytes();
    let mut i = 0;
    // Bytes are scanned one by one; a non-ASCII byte starts a character decoded whole
    // ([`wide_char`]), so `i` stays on character boundaries. A `\n` or `;` byte is never
    // part of a multi-byte character.
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' => line += 1,
            b'(' => {
                if open.len() >= MAX_DEPTH {
                    return Err(Rejection::parse(Reason::ResourceLimit {
                        what: "s-expression nesting depth",
                        limit: MAX_DEPTH as u64,
                    }));
                }
                open.push((items.len(), line, i));
            }
            b')' => {
                let Some((start, l, from)) = open.pop() else {
                    return Err(syntax(line, "an atom or `(`", ")"));
                };
                if skip && !open.is_empty() {
                    i += 1;
                    continue;
                }
                skip = false;
                let list = items.split_off(start);
                // `from` and `i` are offsets of the ASCII `(` and `)`: character boundaries
                items.push(Sexp::List(list, l, text.get(from..=i).unwrap_or_default()));
            }
            b';' => {
                // a comment runs to the end of the line (the newline is read next)
                i = bytes.get(i..).and_then(|r| r.iter().position(|&c| c == b'\n')).map_or(bytes.len(), |k| i + k);
                continue;
            }
            _ if b.is_ascii() && ascii_delimiter(b) => {}
            _ if !b.is_ascii() && wide_char(text, i).0 => {
                i += wide_char(text, i).1;
                continue;
            }
            _ => {
                let mut end = i;
                while let Some(&c) = bytes.get(end) {
                    if c.is_ascii() {
                        if ascii_delimiter(c) {
                            break;
                        }
                        end += 1;
                    } else {
                        let (space, len) = wide_char(text, end);
                        if space {
                            break;
                        }
                        end += len;
                    }
                }
                let atom = text.get(i..end).unwrap_or_default();
                if !skip {
                    // the head of a top-level list: defer the rest if it is named in `deferred`
                    skip =
                        matches!(open.as_slice(), [(start, ..)] if *start == items.len()) && deferred.contains(&atom);
                    items.push(Sexp::Atom(atom, line));
                }
                i = end;
                continue;
            }
        }
        i += 1;
    }
    if let Some(&(_, l, _)) = open.last() {
        return Err(syntax(l, "a closing `)`", "end of input"));
    }
    Ok(items)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The ASCII atom delimiters are `char::is_whitespace`, `(`, `)` and `;` (the reader
    /// scans ASCII bytes without decoding them).
    #[test]
    fn ascii_delimiters_are_whitespace_and_parentheses() {
        for b in 0u8..128 {
            let c = char::from(b);
            assert_eq!(ascii_delimiter(b), c.is_whitespace() || "();".contains(c), "{b}");
        }
    }

    /// A deferred top-level list keeps only its head and its text (written by hand: the
    /// list `(p (x 1) y)` on lines 2–3); read again from that text it is the tree
    /// [`parse_all`] builds, with the same lines. Lists not named stay whole, and an
    /// unbalanced text is rejected as by [`parse_all`].
    #[test]
    fn deferred_lists_are_read_later() {
        let text = "(a (b c))\n(p (x 1)\n y) (q p)";
        let top = parse_top(text, &["p"]).unwrap();
        let all = parse_all(text).unwrap();
        assert_eq!(top.len(), 3);
        assert_eq!(top.first(), all.first());
        assert_eq!(top.get(2), all.get(2));
        let p = top.get(1).unwrap();
        assert_eq!(p.list().unwrap(), [Sexp::Atom("p", 2)]);
        assert_eq!(p.text(), "(p (x 1)\n y)");
        let full = parse_deferred(p).unwrap();
        assert_eq!(Some(&full), all.get(1));
        assert_eq!(full.list().unwrap().get(2), Some(&Sexp::Atom("y", 3)));
        assert_eq!(parse_top("(p (x)", &["p"]).unwrap_err(), parse_all("(p (x)").unwrap_err());
        assert_eq!(parse_top("(p x))", &["p"]).unwrap_err(), parse_all("(p x))").unwrap_err());
    }

    /// Non-ASCII whitespace separates atoms (and does not count as a line); other
    /// non-ASCII characters are part of atoms; lines count `\n` only.
    #[test]
    fn non_ascii_text() {
        let v = parse_all("(a\u{00A0}b λx\u{2028}é) ; c\u{3000}\n(d)").unwrap();
        let first = v.first().unwrap().list().unwrap();
        let atoms: Vec<_> = first.iter().map(|s| (s.atom().unwrap(), s.line())).collect();
        assert_eq!(atoms, [("a", 1), ("b", 1), ("λx", 1), ("é", 1)]);
        assert_eq!(v.get(1).unwrap().line(), 2);
        assert_eq!(v.len(), 2);
    }
}
