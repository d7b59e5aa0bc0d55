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

/// Lexes file `file` of `sm`. Errors: an unterminated block comment (at its start).
pub fn lex(sm: &SourceMap, file: u32) -> Result<Vec<Token>, Diagnostic> {
    let text = match sm.files.get(file as usize) {
        Some((_, t)) => t,
        None => return Ok(Vec::new()),
    };
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let mut i = 0usize;
    let (mut line, mut col) = (1u32, 1u32);
    let mut bol = true;
    // Advance helper as a macro to keep line/col in sync.
    macro_rules! bump {
        () => {{
            if chars[i] == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
            i += 1;
        }};
    }
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            bol = true;
            bump!();
            continue;
        }
        if c == '\\' && i + 1 < chars.len() && (chars[i + 1] == '\n' || chars[i + 1] == '\r') {
            bump!();
            if chars[i] == '\r' {
                bump!();
            }
            if i < chars.len() && chars[i] == '\n' {
                bump!();
            }
            continue;
        }
        if c.is_whitespace() {
            bump!();
            continue;
        }
        let pos = Pos { file, line, col };
        if c == '/' && i + 1 < chars.len() && chars[i + 1] == '/' {
            while i < chars.len() && chars[i] != '\n' {
                bump!();
            }
            continue;
        }
        if c == '/' && i + 1 < chars.len() && chars[i + 1] == '*' {
            bump!();
            bump!();
            let mut closed = false;
            while i < chars.len() {
                if chars[i] == '*' && i + 1 < chars.len() && chars[i + 1] == '/' {
                    bump!();
                    bump!();
                    closed = true;
                    break;
                }
                bump!();
            }
            if !closed {
                return Err(sm.error(pos, "unterminated comment `/*`"));
            }
            continue;
        }
        let kind;
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                bump!();
            }
            kind = TokKind::Ident(chars[start..i].iter().collect());
        } else if c.is_ascii_digit()
            || (c == '.' && i + 1 < chars.len() && chars[i + 1].is_ascii_digit())
        {
            let start = i;
            let hex =
                c == '0' && i + 1 < chars.len() && (chars[i + 1] == 'x' || chars[i + 1] == 'X');
            if hex {
                bump!();
                bump!();
                while i < chars.len() && chars[i].is_ascii_hexdigit() {
                    bump!();
                }
                let digits: String = chars[start + 2..i].iter().collect();
                while i < chars.len() && matches!(chars[i], 'u' | 'U' | 'l' | 'L') {
                    bump!();
                }
                let v = u64::from_str_radix(&digits, 16).unwrap_or(u64::MAX);
                kind = TokKind::Int(i64::try_from(v).unwrap_or(v as i64));
            } else {
                let mut is_float = false;
                while i < chars.len() {
                    let d = chars[i];
                    if d.is_ascii_digit() {
                        bump!();
                    } else if d == '.' {
                        is_float = true;
                        bump!();
                    } else if (d == 'e' || d == 'E')
                        && i + 1 < chars.len()
                        && (chars[i + 1].is_ascii_digit()
                            || ((chars[i + 1] == '-' || chars[i + 1] == '+')
                                && i + 2 < chars.len()
                                && chars[i + 2].is_ascii_digit()))
                    {
                        is_float = true;
                        bump!();
                        bump!();
                    } else {
                        break;
                    }
                }
                let body: String = chars[start..i].iter().collect();
                let mut fsuffix = false;
                while i < chars.len() && matches!(chars[i], 'u' | 'U' | 'l' | 'L' | 'f' | 'F') {
                    if matches!(chars[i], 'f' | 'F') {
                        fsuffix = true;
                    }
                    bump!();
                }
                if is_float || fsuffix {
                    kind = TokKind::Float(body.parse::<f64>().unwrap_or(0.0));
                } else if body.len() > 1 && body.starts_with('0') {
                    let v = i64::from_str_radix(&body[1..], 8).unwrap_or(i64::MAX);
                    kind = TokKind::Int(v);
                } else {
                    kind = TokKind::Int(body.parse::<i64>().unwrap_or(i64::MAX));
                }
            }
        } else if c == '"' || c == '\'' {
            let quote = c;
            bump!();
            let start = i;
            while i < chars.len() && chars[i] != quote && chars[i] != '\n' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    bump!();
                }
                bump!();
            }
            let s: String = chars[start..i.min(chars.len())].iter().collect();
            if i < chars.len() && chars[i] == quote {
                bump!();
            }
            kind = if quote == '"' {
                TokKind::Str(s)
            } else {
                let v = char_value(&s);
                TokKind::Int(v)
            };
        } else if let Some(p) = PUNCTS.iter().find(|p| {
            p.chars()
                .enumerate()
                .all(|(k, pc)| chars.get(i + k) == Some(&pc))
        }) {
            for _ in 0..p.len() {
                bump!();
            }
            kind = TokKind::Punct(p);
        } else {
            bump!();
            kind = TokKind::Unknown(c);
        }
        toks.push(Token { kind, pos, bol });
        bol = false;
    }
    Ok(toks)
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
