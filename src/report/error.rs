//! Errors as the user sees them: one [`ErrorReport`] per failed command, rendered as text on
//! stderr or, under `--format json`, as one JSON object on stdout
//! (`{"format_version", "error", "file", "line", "column", "kind"}`), with the same exit
//! code either way (README, "Exit codes and limits").

use super::Format;
use crate::frontend::{DiagKind, Diagnostic};
use serde::Serialize;
use std::io::Write;

/// Version of every JSON document warpcert prints (`format_version` field); raised when a
/// field changes meaning or type.
pub const FORMAT_VERSION: u32 = 1;

/// What kind of failure an error is; decides the exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// A bad command line (unknown option, malformed value). Exit 2.
    Usage,
    /// An unreadable or unwritable file. Exit 2.
    Io,
    /// A lexical, preprocessor or syntax error, or an unsupported construct. Exit 2.
    Syntax,
    /// A launch configuration outside CUDA's limits (or a malformed launch header). Exit 2.
    Launch,
    /// The input exceeds a limit of warpcert (nesting depth, macro output). Exit 2.
    Limit,
    /// The run of a kernel failed (out of fuel, run-time error). Exit 1.
    Run,
    /// The machine ran out of a resource (memory, threads). Exit 1; never a rejection.
    Resource,
    /// `--timeout` elapsed. Exit 1.
    Timeout,
}

impl ErrorKind {
    /// The kind as it appears in JSON (`"parse"`, `"limit"` …): for batch summaries.
    pub fn word(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{self:?}").to_lowercase())
    }
}

impl ErrorKind {
    /// The process exit code of this kind: 2 for bad input, 1 otherwise.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Usage
            | ErrorKind::Io
            | ErrorKind::Syntax
            | ErrorKind::Launch
            | ErrorKind::Limit => 2,
            ErrorKind::Run | ErrorKind::Resource | ErrorKind::Timeout => 1,
        }
    }
}

/// One error: message, optional location (file, 1-based line and column), kind, and the
/// text rendering (with the source line and a caret for front-end errors).
#[derive(Clone, Debug, Serialize)]
pub struct ErrorReport {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The message, without location.
    pub error: String,
    /// The file the error is in, if any.
    pub file: Option<String>,
    /// 1-based line, if known.
    pub line: Option<u32>,
    /// 1-based column, if known.
    pub column: Option<u32>,
    /// The kind (decides the exit code).
    pub kind: ErrorKind,
    /// The text rendering (stderr).
    #[serde(skip)]
    pub text: String,
}

impl ErrorReport {
    /// An error without location; rendered as `error: MSG`.
    pub fn new(kind: ErrorKind, msg: impl Into<String>) -> ErrorReport {
        let error = msg.into();
        ErrorReport {
            format_version: FORMAT_VERSION,
            text: format!("error: {error}"),
            error,
            file: None,
            line: None,
            column: None,
            kind,
        }
    }

    /// An error about `file` (no line).
    pub fn in_file(kind: ErrorKind, file: &str, msg: impl Into<String>) -> ErrorReport {
        let mut e = ErrorReport::new(kind, msg);
        e.file = Some(file.to_string());
        e
    }

    /// A front-end diagnostic; `kind` is [`ErrorKind::Limit`] for a limit of warpcert
    /// (nesting depth, macro output), [`ErrorKind::Io`] for an unreadable file, else
    /// [`ErrorKind::Syntax`].
    pub fn from_diagnostic(d: &Diagnostic) -> ErrorReport {
        let kind = match d.kind {
            DiagKind::Limit => ErrorKind::Limit,
            DiagKind::Io => ErrorKind::Io,
            DiagKind::Syntax => ErrorKind::Syntax,
            DiagKind::Launch => ErrorKind::Launch,
        };
        ErrorReport {
            format_version: FORMAT_VERSION,
            error: d.message.clone(),
            file: Some(d.file.clone()),
            line: (d.line > 0).then_some(d.line),
            column: (d.line > 0).then_some(d.col),
            kind,
            text: d.to_string(),
        }
    }

    /// The JSON object (one line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| {
            format!(
                "{{\"format_version\":{FORMAT_VERSION},\"error\":\"unprintable error\",\"kind\":\"resource\"}}"
            )
        })
    }

    /// Prints the error in `format` (text on stderr, JSON on stdout) and returns its exit
    /// code. Write errors (a closed pipe) are ignored: the exit code still says what failed.
    pub fn emit(&self, format: Format) -> i32 {
        match format {
            Format::Text => {
                let _ = writeln!(std::io::stderr(), "{}", self.text);
            }
            Format::Json | Format::Jsonl => {
                let _ = writeln!(std::io::stdout(), "{}", self.to_json());
            }
        }
        self.kind.exit_code()
    }
}

impl From<Diagnostic> for ErrorReport {
    fn from(d: Diagnostic) -> ErrorReport {
        ErrorReport::from_diagnostic(&d)
    }
}

impl std::fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_contract_fields_and_kind_decides_exit() {
        let d = Diagnostic {
            file: "k.cu".into(),
            line: 3,
            col: 7,
            message: "expected `;`".into(),
            source_line: "int x".into(),
            kind: DiagKind::Syntax,
        };
        let e = ErrorReport::from_diagnostic(&d);
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap_or_default();
        assert_eq!(v["error"], "expected `;`");
        assert_eq!(v["file"], "k.cu");
        assert_eq!(v["line"], 3);
        assert_eq!(v["column"], 7);
        assert_eq!(v["kind"], "syntax");
        assert_eq!(v["format_version"], FORMAT_VERSION);
        assert_eq!(e.kind.exit_code(), 2);
        assert_eq!(ErrorKind::Resource.exit_code(), 1);
        assert_eq!(ErrorKind::Timeout.exit_code(), 1);
    }
}
