//! Output of `warpcert coverage DIR…`: one row per kernel (read, lowered, metrics with a
//! checked certificate, first error), the summary, and the errors grouped by construct, as
//! a text table or one JSON object `{kernels, summary}`.

use super::Format;
use serde::Serialize;
use std::collections::BTreeMap;

/// One kernel's row.
#[derive(Clone, Debug, Serialize)]
pub struct KernelRow {
    /// File name.
    pub file: String,
    /// Front end that read it.
    pub frontend: String,
    /// Kernel (instance) name; `-` when the file could not be read.
    pub kernel: String,
    /// The front end read the file and found the kernel.
    pub read: bool,
    /// It lowered to miniCUDA.
    pub lowered: bool,
    /// Metrics with a checked certificate.
    pub bounded: Vec<String>,
    /// The first error (one line), if any.
    pub error: Option<String>,
}

/// The summary.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Files.
    pub files: usize,
    /// Files a front end read.
    pub files_read: usize,
    /// Kernels (of unread files: `__global__` occurrences in the text).
    pub kernels: usize,
    /// Kernels read.
    pub read: usize,
    /// Kernels lowered.
    pub lowered: usize,
    /// Kernels with a checked bound for at least one metric.
    pub bounded_any: usize,
    /// Per metric: kernels with a checked bound.
    pub bounded: BTreeMap<String, usize>,
    /// First errors grouped by construct.
    pub errors: BTreeMap<String, usize>,
    /// Files not read because a header they include is missing (the error names it and the
    /// `-I` to give): excluded, with the `__global__` occurrences of their text.
    pub excluded_missing_header: usize,
    /// See `excluded_missing_header`: their kernels (by text).
    pub excluded_missing_header_kernels: usize,
    /// clang time per file, milliseconds: median and max.
    pub clang_ms_median: Option<f64>,
    /// See `clang_ms_median`.
    pub clang_ms_max: Option<f64>,
}

/// The coverage table of `rows` with `summary` in `format`, ending with a newline.
/// Errors: JSON serialization.
pub fn coverage_report(
    format: Format,
    rows: &[KernelRow],
    summary: &Summary,
) -> Result<String, String> {
    #[derive(Serialize)]
    struct Out<'a> {
        kernels: &'a [KernelRow],
        summary: &'a Summary,
    }
    super::render(
        format,
        &Out {
            kernels: rows,
            summary,
        },
        |o| text(o.kernels, o.summary),
    )
}

fn text(rows: &[KernelRow], s: &Summary) -> String {
    let mut out = String::new();
    for r in rows {
        let b = if r.bounded.is_empty() {
            "-".to_string()
        } else {
            r.bounded.join(",")
        };
        let status = if !r.read {
            "unread"
        } else if !r.lowered {
            "read"
        } else {
            "lowered"
        };
        out.push_str(&format!(
            "{:<60} {:<8} {:<40} {:<8} {:<34} {}\n",
            r.file,
            r.frontend,
            r.kernel,
            status,
            b,
            r.error.as_deref().unwrap_or("")
        ));
    }
    let per: Vec<String> = s.bounded.iter().map(|(m, c)| format!("{m} {c}")).collect();
    out.push_str(&format!(
        "\nsummary: {} files ({} read), {} kernels: read {}, lowered {}, bounded (>= 1 metric, certificate checked) {}; per metric: {}\n",
        s.files, s.files_read, s.kernels, s.read, s.lowered, s.bounded_any, per.join(", ")
    ));
    if s.excluded_missing_header > 0 {
        out.push_str(&format!(
            "excluded: missing header: {} files ({} kernels by text; each error names the header and the -I to give)\n",
            s.excluded_missing_header, s.excluded_missing_header_kernels
        ));
    }
    if let (Some(m), Some(x)) = (s.clang_ms_median, s.clang_ms_max) {
        out.push_str(&format!(
            "clang per file: median {m:.0} ms, max {x:.0} ms\n"
        ));
    }
    out.push_str("errors of kernels without a bound, by construct:\n");
    let mut es: Vec<(&String, &usize)> = s.errors.iter().collect();
    es.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (e, c) in es {
        out.push_str(&format!("  {c:>3}  {e}\n"));
    }
    out
}
