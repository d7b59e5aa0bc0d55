//! The lexer: C/CUDA text → tokens with positions (comments removed, `\`-newline joined).
//!
//! Never fails on characters it does not know: they become [`TokKind::Unknown`] tokens, which
//! are an error only where a kernel is parsed (host code may contain anything). The only lexical
//! error is an unterminated `/* … */` comment.

use super::diag::{Diagnostic, Pos, SourceMap};

/// Kinds of tokens.
#[derive(Clone, Debug, PartialEq)]
pub enum TokKind {
    /// Identifier or keyword.
    Ident(String),
    /// Integer literal (value; suffixes `u`, `l` dropped). Out-of-range literals saturate.
    Int(i64),
    /// Floating literal (`1.0`, `2.5f`, `1e-3`).
    Float(f64),
    /// String literal (contents, escapes left as written).
    Str(String),
    /// Punctuator (`+`, `<<=`, `->`, `#`, ...).
    Punct(&'static str),
    /// A character the lexer does not know.
    Unknown(char),
}

/// A token: kind, position of its first character, and whether a (non-escaped) newline
/// precedes it (used to delimit preprocessor directives).
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: TokKind,
    /// Where it starts.
    pub pos: Pos,
    /// First token on its line (or of the file).
    pub bol: bool,
}

impl Token {
    /// Whether this is the punctuator `p`.
    pub fn is(&self, p: &str) -> bool {
        matches!(&self.kind, TokKind::Punct(q) if *q == p)
    }
    /// The identifier text, if an identifier.
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            TokKind::Ident(s) => Some(s),
            _ => None,
        }
    }
    /// Human-readable text of the token, for messages.
    pub fn describe(&self) -> String {
        match &self.kind {
            TokKind::Ident(s) => format!("`{s}`"),
            TokKind::Int(n) => format!("`{n}`"),
            TokKind::Float(x) => format!("`{x}`"),
            TokKind::Str(s) => format!("string \"{s}\""),
            TokKind::Punct(p) => format!("`{p}`"),
            TokKind::Unknown(c) => format!("unexpected character {c:?}"),
        }
    }
}

const PUNCTS: [&str; 49] = [
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "|=", "^=", "::", "##", "+", "-", "*", "/", "%", "<", ">", "=",
    "!", "~", "&", "|", "^", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "#",
];

/// The lexer's position in a file's characters, with the line and column of `chars[i]`.
struct Cursor {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
}

impl Cursor {
    /// The character `k` places ahead, if any.
    fn at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }
    /// Moves past one character, keeping line and column in step.
    fn bump(&mut self) {
        if self.at(0) == Some('\n') {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        self.i += 1;
    }
    /// Moves past the characters satisfying `f`.
    fn bump_while(&mut self, f: impl Fn(char) -> bool) {
        while self.at(0).is_some_and(&f) {
            self.bump();
        }
    }
    /// The text from `start` to the cursor.
    fn text(&self, start: usize) -> String {
        self.chars[start..self.i.min(self.chars.len())]
            .iter()
            .collect()
    }
}

/// Lexes file `file` of `sm`. Errors: an unterminated block comment (at its start).
pub fn lex(sm: &SourceMap, file: u32) -> Result<Vec<Token>, Diagnostic> {
    let text = match sm.files.get(file as usize) {
        Some((_, t)) => t,
        None => return Ok(Vec::new()),
    };
    let mut cur = Cursor {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
        col: 1,
    };
    let mut toks = Vec::new();
    let mut bol = true;
    while let Some(c) = cur.at(0) {
        if c == '\n' {
            bol = true;
            cur.bump();
            continue;
        }
        if c == '\\' && matches!(cur.at(1), Some('\n' | '\r')) {
            cur.bump();
            if cur.at(0) == Some('\r') {
                cur.bump();
            }
            if cur.at(0) == Some('\n') {
                cur.bump();
            }
            continue;
        }
        if c.is_whitespace() {
            cur.bump();
            continue;
        }
        let pos = Pos {
            file,
            line: cur.line,
            col: cur.col,
        };
        if c == '/' && cur.at(1) == Some('/') {
            cur.bump_while(|d| d != '\n');
            continue;
        }
        if c == '/' && cur.at(1) == Some('*') {
            if !block_comment(&mut cur) {
                return Err(sm.error(pos, "unterminated comment `/*`"));
            }
            continue;
        }
        let kind = if c.is_ascii_alphabetic() || c == '_' {
            let start = cur.i;
            cur.bump_while(|d| d.is_ascii_alphanumeric() || d == '_');
            TokKind::Ident(cur.text(start))
        } else if c.is_ascii_digit() || (c == '.' && cur.at(1).is_some_and(|d| d.is_ascii_digit()))
        {
            number(&mut cur)
        } else if c == '"' || c == '\'' {
            quoted(&mut cur, c)
        } else if let Some(p) = PUNCTS
            .iter()
            .find(|p| p.chars().enumerate().all(|(k, pc)| cur.at(k) == Some(pc)))
        {
            for _ in 0..p.len() {
                cur.bump();
            }
            TokKind::Punct(p)
        } else {
            cur.bump();
            TokKind::Unknown(c)
        };
        toks.push(Token { kind, pos, bol });
        bol = false;
    }
    Ok(toks)
}

/// Skips a `/* … */` comment starting at the cursor; false when it is not closed.
fn block_comment(cur: &mut Cursor) -> bool {
    cur.bump();
    cur.bump();
    while cur.at(0).is_some() {
        if cur.at(0) == Some('*') && cur.at(1) == Some('/') {
            cur.bump();
            cur.bump();
            return true;
        }
        cur.bump();
    }
    false
}

/// A number starting at the cursor: hexadecimal, octal or decimal integers (suffixes
/// `u`, `l` dropped; out of range saturates), floats (`1.0`, `2.5f`, `1e-3`).
fn number(cur: &mut Cursor) -> TokKind {
    let start = cur.i;
    if cur.at(0) == Some('0') && matches!(cur.at(1), Some('x' | 'X')) {
        cur.bump();
        cur.bump();
        cur.bump_while(|d| d.is_ascii_hexdigit());
        let digits = cur.text(start + 2);
        cur.bump_while(|d| matches!(d, 'u' | 'U' | 'l' | 'L'));
        let v = u64::from_str_radix(&digits, 16).unwrap_or(u64::MAX);
        return TokKind::Int(i64::try_from(v).unwrap_or(v as i64));
    }
    let mut is_float = false;
    while let Some(d) = cur.at(0) {
        if d.is_ascii_digit() {
            cur.bump();
        } else if d == '.' {
            is_float = true;
            cur.bump();
        } else if (d == 'e' || d == 'E')
            && (cur.at(1).is_some_and(|x| x.is_ascii_digit())
                || (matches!(cur.at(1), Some('-' | '+'))
                    && cur.at(2).is_some_and(|x| x.is_ascii_digit())))
        {
            is_float = true;
            cur.bump();
            cur.bump();
        } else {
            break;
        }
    }
    let body = cur.text(start);
    let mut fsuffix = false;
    while let Some(d @ ('u' | 'U' | 'l' | 'L' | 'f' | 'F')) = cur.at(0) {
        fsuffix |= matches!(d, 'f' | 'F');
        cur.bump();
    }
    if is_float || fsuffix {
        TokKind::Float(body.parse::<f64>().unwrap_or(0.0))
    } else if body.len() > 1 && body.starts_with('0') {
        TokKind::Int(i64::from_str_radix(&body[1..], 8).unwrap_or(i64::MAX))
    } else {
        TokKind::Int(body.parse::<i64>().unwrap_or(i64::MAX))
    }
}

/// A string (`"…"`, its contents) or character (`'…'`, its value) literal starting at the
/// cursor; it ends at the closing quote or, unterminated, at the end of the line.
fn quoted(cur: &mut Cursor, quote: char) -> TokKind {
    cur.bump();
    let start = cur.i;
    while let Some(d) = cur.at(0) {
        if d == quote || d == '\n' {
            break;
        }
        if d == '\\' && cur.at(1).is_some() {
            cur.bump();
        }
        cur.bump();
    }
    let s = cur.text(start);
    if cur.at(0) == Some(quote) {
        cur.bump();
    }
    if quote == '"' {
        TokKind::Str(s)
    } else {
        TokKind::Int(char_value(&s))
    }
}

fn char_value(s: &str) -> i64 {
    let mut it = s.chars();
    match (it.next(), it.next()) {
        (Some('\\'), Some(e)) => match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            '0' => 0,
            '\\' => 92,
            '\'' => 39,
            '"' => 34,
            other => other as i64,
        },
        (Some(c), _) => c as i64,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokKind> {
        let mut sm = SourceMap::default();
        let f = sm.add("t.cu", src.to_string());
        lex(&sm, f)
            .map(|v| v.into_iter().map(|t| t.kind).collect())
            .unwrap_or_default()
    }

    #[test]
    fn lexes_operators_numbers_comments() {
        let k = kinds("a<<=0x10u /* c */ 1.5f // x\n b->c 07 'a'");
        assert_eq!(
            k,
            vec![
                TokKind::Ident("a".into()),
                TokKind::Punct("<<="),
                TokKind::Int(16),
                TokKind::Float(1.5),
                TokKind::Ident("b".into()),
                TokKind::Punct("->"),
                TokKind::Ident("c".into()),
                TokKind::Int(7),
                TokKind::Int(97),
            ]
        );
    }

    #[test]
    fn positions_and_bol() {
        let mut sm = SourceMap::default();
        let f = sm.add("t.cu", "x\n  y \\\n z".to_string());
        let t = lex(&sm, f).unwrap_or_default();
        assert_eq!(t.len(), 3);
        assert_eq!((t[1].pos.line, t[1].pos.col, t[1].bol), (2, 3, true));
        assert_eq!((t[2].pos.line, t[2].pos.col, t[2].bol), (3, 2, false));
    }

    #[test]
    fn unterminated_comment_is_error() {
        let mut sm = SourceMap::default();
        let f = sm.add("t.cu", "int x; /* oops".to_string());
        let e = lex(&sm, f).err();
        assert_eq!(e.map(|d| (d.line, d.col)), Some((1, 8)));
    }
}
