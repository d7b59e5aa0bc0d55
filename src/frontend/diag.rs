//! Source files, positions and diagnostics of the front end.
//!
//! Every token carries a [`Pos`] in the *original* file it was read from (the preprocessor
//! works on tokens, so positions survive `#include` and macro expansion: an expanded token
//! takes the position of the macro use). A [`SourceMap`] turns a `Pos` into a [`Diagnostic`]
//! that names file, line and column and shows the source line.

use std::fmt;

/// The nesting limit of the front end, the same for every construct: statements inside
/// statements, subexpressions (a chain `a + b + …` nests one level per operator),
/// parentheses, and macro calls inside macro arguments. Deeper input is an error at its
/// position (README, "Exit codes and limits"), so no later stage recurses deeper.
pub const MAX_NESTING: usize = 1000;

/// The most tokens macro expansion may produce in one translation unit (an exponential
/// macro is an error naming it, not an exhausted memory).
pub const MAX_MACRO_OUTPUT: usize = 4_000_000;

/// A position in one of the source files of a [`SourceMap`]: file index, 1-based line and
/// 1-based column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// Index into [`SourceMap::files`].
    pub file: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// The source files read while parsing one translation unit (the main file first, then
/// every `#include "…"`d file in order of first inclusion).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// `(display name, text)` per file.
    pub files: Vec<(String, String)>,
}

impl SourceMap {
    /// Adds a file and returns its index.
    pub fn add(&mut self, name: &str, text: String) -> u32 {
        self.files.push((name.to_string(), text));
        (self.files.len() - 1) as u32
    }

    /// The display name of file `f` (`<unknown>` when out of range).
    pub fn name(&self, f: u32) -> &str {
        self.files
            .get(f as usize)
            .map(|(n, _)| n.as_str())
            .unwrap_or("<unknown>")
    }

    /// The text of line `pos.line` of `pos.file`, without its line terminator (empty when out of range).
    pub fn line_text(&self, pos: Pos) -> String {
        self.files
            .get(pos.file as usize)
            .and_then(|(_, t)| t.lines().nth(pos.line.saturating_sub(1) as usize))
            .unwrap_or("")
            .to_string()
    }

    /// An error at `pos`.
    pub fn error(&self, pos: Pos, msg: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: self.name(pos.file).to_string(),
            line: pos.line,
            col: pos.col,
            message: msg.into(),
            source_line: self.line_text(pos),
            kind: DiagKind::Syntax,
        }
    }

    /// An error at `pos` for input beyond one of warpcert's limits ([`DiagKind::Limit`]).
    pub fn limit(&self, pos: Pos, msg: impl Into<String>) -> Diagnostic {
        Diagnostic {
            kind: DiagKind::Limit,
            ..self.error(pos, msg)
        }
    }

    /// A warning at `pos`.
    pub fn warning(&self, pos: Pos, msg: impl Into<String>) -> Warning {
        Warning(self.error(pos, msg))
    }
}

/// A front-end error: what went wrong and where (file, 1-based line and column), with the
/// offending source line. `Display` renders one screen:
/// `error: MSG\n --> file:line:col\n  | src line\n  |   ^`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// File name as given to `parse_file`/`parse_str` (or the include path).
    pub file: String,
    /// 1-based line (0 when the error has no position).
    pub line: u32,
    /// 1-based column (0 when the error has no position).
    pub col: u32,
    /// The message; names the construct when something cannot be modelled.
    pub message: String,
    /// The source line at `line`, without terminator.
    pub source_line: String,
    /// What kind of problem (decides how the CLI reports it; all are bad input, exit 2).
    pub kind: DiagKind,
}

/// The kind of a [`Diagnostic`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiagKind {
    /// Lexical, preprocessor or syntax error, or a construct warpcert cannot model.
    #[default]
    Syntax,
    /// The input exceeds one of warpcert's limits (README, "Exit codes and limits").
    Limit,
    /// The file cannot be read.
    Io,
    /// A malformed launch header (`//--gridDim=[abc]`).
    Launch,
}

fn render(f: &mut fmt::Formatter<'_>, kind: &str, d: &Diagnostic) -> fmt::Result {
    writeln!(f, "{kind}: {}", d.message)?;
    write!(f, " --> {}:{}:{}", d.file, d.line, d.col)?;
    if d.line > 0 {
        let (src, caret) = excerpt(&d.source_line.replace('\t', " "), d.col);
        write!(f, "\n  | {src}")?;
        write!(f, "\n  | {}^", " ".repeat(caret))?;
    }
    Ok(())
}

/// At most this many characters of a source line are shown around the column.
const EXCERPT: usize = 100;

/// The part of `line` shown under a diagnostic (at most [`EXCERPT`] characters around
/// 1-based column `col`, `…` where cut) and the caret's offset in it.
fn excerpt(line: &str, col: u32) -> (String, usize) {
    let chars: Vec<char> = line.chars().collect();
    let at = (col.saturating_sub(1) as usize).min(chars.len());
    if chars.len() <= EXCERPT {
        return (line.to_string(), at);
    }
    let start = at.saturating_sub(EXCERPT / 2);
    let end = (start + EXCERPT).min(chars.len());
    let mut shown: String = chars[start..end].iter().collect();
    let mut caret = at - start;
    if start > 0 {
        shown.insert(0, '…');
        caret += 1;
    }
    if end < chars.len() {
        shown.push('…');
    }
    (shown, caret)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, "error", self)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("warpcert::frontend"))
    }
}

/// A front-end warning (a deviation from CUDA that is accepted, e.g. RaCUDA's
/// `__shared__ int s[n]`); same shape and rendering as [`Diagnostic`] with `warning:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning(pub Diagnostic);

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, "warning", &self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_source_lines_are_cut_around_the_column() {
        let line = "x".repeat(10_000);
        let (shown, caret) = excerpt(&line, 5_000);
        assert_eq!(shown.chars().count(), EXCERPT + 2);
        assert_eq!(caret, EXCERPT / 2 + 1);
        assert_eq!(excerpt("ab;", 3), ("ab;".to_string(), 2));
    }
}
