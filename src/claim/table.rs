//! Tables of claims (`warpcert claim --table FILE.csv`, issue 19): one claim per row.
//!
//! ```text
//! # comment lines start with '#'; the first other line is the header
//! file,kernel,metric,block,bound,relation,source
//! ../shared/corpus/racuda/matrixMul.cu,,sectors,32x32x1,"4 + 0.312496*max(0, 31 + wA)",upper,RaCUDA Table 4
//! ```
//!
//! `file` is relative to the directory the command is given (`--root`, default the current
//! directory); `kernel` empty means the file's only kernel; `block` is `X[xY[xZ]]`;
//! `relation` is `upper` or `lower`; a field in double quotes may contain commas.

use super::Relation;
use crate::core::MetricName;

/// One row of a claims table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimRow {
    /// 1-based line number in the table.
    pub line: usize,
    /// The kernel file (relative to the root).
    pub file: String,
    /// The `__global__` function, if named.
    pub kernel: Option<String>,
    /// The metric.
    pub metric: MetricName,
    /// Block dimensions.
    pub block: [u32; 3],
    /// The claimed bound's text.
    pub bound: String,
    /// Upper or lower.
    pub relation: Relation,
    /// Where the claim comes from (paper, table).
    pub source: String,
}

/// Splits one CSV line: fields separated by commas; a field in double quotes may contain
/// commas (no escaped quotes). Errors name the line.
pub fn csv_fields(line: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut rest = line;
    loop {
        let (field, after) = match rest.strip_prefix('"') {
            Some(q) => {
                let end = q
                    .find('"')
                    .ok_or_else(|| format!("unclosed quote in `{line}`"))?;
                (&q[..end], &q[end + 1..])
            }
            None => match rest.find(',') {
                Some(k) => (&rest[..k], &rest[k..]),
                None => (rest, ""),
            },
        };
        out.push(field);
        match after.strip_prefix(',') {
            Some(r) => rest = r,
            None if after.is_empty() => return Ok(out),
            None => return Err(format!("expected `,` after `{field}` in `{line}`")),
        }
    }
}

/// `X[xY[xZ]]` as block dimensions (each ≥ 1).
pub fn parse_block(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(['x', ',']).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("block `{s}`: expected X[xY[xZ]]"));
    }
    let mut b = [1u32; 3];
    for (slot, p) in b.iter_mut().zip(&parts) {
        *slot = p
            .trim()
            .parse()
            .ok()
            .filter(|v| *v >= 1)
            .ok_or_else(|| format!("block `{s}`: `{p}` is not a positive number"))?;
    }
    Ok(b)
}

/// The rows of a claims table. Errors name the line.
pub fn parse(text: &str) -> Result<Vec<ClaimRow>, String> {
    let mut rows = Vec::new();
    let mut header_seen = false;
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !header_seen {
            header_seen = true;
            continue;
        }
        let at = |e: String| format!("line {line_no}: {e}");
        let f = csv_fields(line).map_err(at)?;
        let [file, kernel, metric, block, bound, relation, source] = f[..] else {
            return Err(at(format!("expected 7 fields, found {}", f.len())));
        };
        let relation = match relation.trim() {
            "upper" | "" => Relation::Upper,
            "lower" => Relation::Lower,
            r => return Err(at(format!("relation `{r}` (upper or lower)"))),
        };
        rows.push(ClaimRow {
            line: line_no,
            file: file.trim().to_string(),
            kernel: Some(kernel.trim())
                .filter(|k| !k.is_empty())
                .map(str::to_string),
            metric: metric.trim().parse().map_err(at)?,
            block: parse_block(block).map_err(at)?,
            bound: bound.to_string(),
            relation,
            source: source.to_string(),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_and_errors_name_the_line() {
        let t = "# c\nfile,kernel,metric,block,bound,relation,source\n\
                 a.cu,,sectors,32x32,\"4 + max(0, w)\",upper,RaCUDA Table 4\n\
                 b.cu,k,steps,256,27,lower,x\n";
        let rows = parse(t).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].block, [32, 32, 1]);
        assert_eq!(rows[0].bound, "4 + max(0, w)");
        assert_eq!(rows[0].line, 3);
        assert_eq!(rows[1].kernel.as_deref(), Some("k"));
        assert_eq!(rows[1].relation, Relation::Lower);
        let bad = parse("h\na.cu,,sectors,0,1,upper,s\n").unwrap_err();
        assert!(bad.starts_with("line 2:"), "{bad}");
        assert!(parse("h\na.cu,,bogus,1,1,upper,s\n").is_err());
        assert!(parse("h\na.cu,,sectors,1,1,sideways,s\n").is_err());
        assert!(parse("h\na.cu,,sectors,1,1\n").is_err());
    }
}
