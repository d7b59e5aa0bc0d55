//! The GPUVerify-style header: the leading `//` comment lines of a kernel file, read for
//! `--blockDim=` / `--gridDim=` (the default launch) and `-DNAME[=VALUE]` (macro definitions).
//!
//! Parsed strictly: a launch value is `N`, `[N]`, `[N,N]` or `[N,N,N]` with every `N` a
//! positive decimal integer below 2³²; anything else is an error naming the word and its
//! position (`//--gridDim=[abc]`, `[-3]`, `[0]`, `[99999999999999999999]`). CUDA's own limits
//! (1 024 threads per block …) are checked by the caller together with `--block`/`--grid`
//! (`cli::options`), since GPUVerify's test headers exceed them on purpose.

use super::diag::{DiagKind, Diagnostic, Pos, SourceMap};

/// A default launch configuration read from a GPUVerify-style header comment
/// (`//--blockDim=[32,32] --gridDim=4`, also `--blockDim=64` and `[a,b,c]`); missing
/// components are 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchHeader {
    /// `--blockDim=`
    pub block: Option<[u32; 3]>,
    /// `--gridDim=`
    pub grid: Option<[u32; 3]>,
    /// Where `--blockDim=` was written.
    pub block_at: Option<Pos>,
    /// Where `--gridDim=` was written.
    pub grid_at: Option<Pos>,
}

/// The leading `//` lines of `text` as (1-based line number, line, text after `//`); blank
/// lines are skipped and the first other line ends the header.
fn header_lines(text: &str) -> impl Iterator<Item = (u32, &str, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map_while(|(i, l)| {
            let c = l.trim_start().strip_prefix("//")?;
            Some((i as u32 + 1, l, c))
        })
}

/// The words of the comment `comment` (a suffix of `line`) with their 1-based columns.
fn words<'t>(line: &'t str, comment: &'t str) -> impl Iterator<Item = (u32, &'t str)> + 't {
    let base = line.len() - comment.len();
    let mut off = 0;
    comment.split(char::is_whitespace).filter_map(move |w| {
        let start = base + off;
        off += w.len() + 1;
        let col = line.get(..start).map_or(0, |p| p.chars().count()) as u32 + 1;
        (!w.is_empty()).then_some((col, w))
    })
}

/// Reads `--blockDim=` / `--gridDim=` from the leading `//` comment lines of file `file` of
/// `sm`. Errors: a malformed value (not 1–3 positive integers below 2³²), at its position.
pub fn parse_header(sm: &SourceMap, file: u32) -> Result<LaunchHeader, Diagnostic> {
    let text = sm
        .files
        .get(file as usize)
        .map(|f| f.1.as_str())
        .unwrap_or("");
    let mut h = LaunchHeader::default();
    for (n, line, c) in header_lines(text) {
        for (col, word) in words(line, c) {
            let pos = Pos { file, line: n, col };
            for (flag, is_block) in [("--blockDim=", true), ("--gridDim=", false)] {
                let Some(v) = word.strip_prefix(flag) else {
                    continue;
                };
                let dims = parse_dims(v).map_err(|why| Diagnostic {
                    kind: DiagKind::Launch,
                    ..sm.error(
                        pos,
                        format!("malformed launch header `{word}`: {why} (expected {flag}N or {flag}[X,Y,Z] with positive integers)"),
                    )
                })?;
                if is_block {
                    h.block = Some(dims);
                    h.block_at = Some(pos);
                } else {
                    h.grid = Some(dims);
                    h.grid_at = Some(pos);
                }
            }
        }
    }
    Ok(h)
}

/// Parses `N`, `[N]`, `[N,N]`, `[N,N,N]`: positive integers below 2³²; the error says why not.
fn parse_dims(v: &str) -> Result<[u32; 3], String> {
    let inner = v.strip_prefix('[').map_or(Some(v), |r| r.strip_suffix(']'));
    let Some(inner) = inner else {
        return Err("unbalanced `[`".into());
    };
    let parts: Vec<&str> = inner.split(',').collect();
    if parts.len() > 3 {
        return Err(format!("{} dimensions (at most 3)", parts.len()));
    }
    let mut d = [1u32; 3];
    for (k, p) in parts.iter().enumerate() {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{p}` is not a positive integer"));
        }
        d[k] = match p.parse::<u32>() {
            Ok(0) => return Err("a dimension is 0 (dimensions must be positive)".into()),
            Ok(x) => x,
            Err(_) => return Err(format!("`{p}` is too large (at most {})", u32::MAX)),
        };
    }
    Ok(d)
}

/// The `-DNAME=VALUE` / `-DNAME` flags (value `1`) of the leading `//` comment lines of
/// `text` (GPUVerify test headers such as `//--blockDim=64 -DWIDTH=256`); the parser applies
/// them as macro definitions before the file.
pub fn header_defines(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (_, _, c) in header_lines(text) {
        for word in c.split_whitespace() {
            if let Some(d) = word.strip_prefix("-D") {
                let (n, v) = d.split_once('=').unwrap_or((d, "1"));
                let ok = !n.is_empty()
                    && n.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                    && !n.starts_with(|ch: char| ch.is_ascii_digit());
                if ok {
                    out.push((n.to_string(), v.to_string()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> Result<LaunchHeader, Diagnostic> {
        let mut sm = SourceMap::default();
        let f = sm.add("h.cu", text.to_string());
        parse_header(&sm, f)
    }

    #[test]
    fn header_forms() {
        let h = header("//pass\n//--blockDim=[32,32] --gridDim=4\n__global__ void f(){}");
        let h = h.unwrap_or_default();
        assert_eq!(h.block, Some([32, 32, 1]));
        assert_eq!(h.grid, Some([4, 1, 1]));
        assert_eq!(h.block_at.map(|p| (p.line, p.col)), Some((2, 3)));
        assert_eq!(h.grid_at.map(|p| (p.line, p.col)), Some((2, 22)));
        let h = header("\n//--blockDim=64 --gridDim=[2,3,4]\n").unwrap_or_default();
        assert_eq!(h.block, Some([64, 1, 1]));
        assert_eq!(h.grid, Some([2, 3, 4]));
        assert_eq!(
            header("int x; //--blockDim=8").ok(),
            Some(LaunchHeader::default())
        );
    }

    #[test]
    fn malformed_headers_are_errors_naming_the_word() {
        for (text, why) in [
            ("//--gridDim=[abc]\n", "`abc` is not a positive integer"),
            ("//--gridDim=[-3]\n", "`-3` is not a positive integer"),
            ("//--gridDim=[99999999999999999999]\n", "too large"),
            ("//--gridDim=[0]\n", "is 0"),
            ("// x --blockDim=[0]\n", "is 0"),
            ("//--blockDim=[1,2,3,4]\n", "4 dimensions"),
            ("//--blockDim=[4\n", "unbalanced"),
            ("//--blockDim=\n", "`` is not a positive integer"),
        ] {
            match header(text) {
                Err(d) => {
                    assert!(d.message.contains(why), "{text:?}: {}", d.message);
                    assert!(
                        d.message.contains("malformed launch header `--"),
                        "{}",
                        d.message
                    );
                    assert_eq!(d.line, 1, "{text:?}");
                }
                Ok(h) => panic!("{text:?} accepted as {h:?}"),
            }
        }
    }
}
