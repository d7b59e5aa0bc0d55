//! `warpcert audit`: findings as compiler-style text grouped by kernel, JSON, JSON Lines,
//! and the batch summary shared with `analyze` on many files.

use crate::audit::{bsi::Bsi, Finding, KernelAudit, Level};
use crate::report::error::FORMAT_VERSION;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One kernel of a batch: its audit, or the error that stopped it.
#[derive(Clone, Debug, Serialize)]
pub struct AuditRecord {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The source file.
    pub file: String,
    /// Kernel name (`""` when the file could not be read).
    pub kernel: String,
    /// The audit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<KernelAudit>,
    /// The error, when the kernel could not be audited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error's kind (`syntax`, `launch`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// Wall time of this record's work in seconds: the kernel's analysis, plus reading and
    /// lowering its file for the file's first kernel (so the records add up to the batch).
    pub seconds: f64,
}

/// The end-of-run summary of a batch (`analyze` or `audit` on many files).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// Files read.
    pub files: usize,
    /// Kernels found.
    pub kernels: usize,
    /// Kernels with every requested bound accepted by the kernel.
    pub bounded: usize,
    /// Kernels that failed, by reason (error kind or `no bound`).
    pub failed: BTreeMap<String, usize>,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Worker threads.
    pub jobs: usize,
}

impl Summary {
    /// One line: `summary: 12 files, 40 kernels, 31 bounded, failed: syntax 5, no bound 4`.
    pub fn text(&self) -> String {
        let failed: Vec<String> = self
            .failed
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        format!(
            "summary: {} files read, {} kernels, {} bounded, {} failed{} ({:.1} s, {} jobs)\n",
            self.files,
            self.kernels,
            self.bounded,
            self.failed.values().sum::<usize>(),
            if failed.is_empty() {
                String::new()
            } else {
                format!(" ({})", failed.join(", "))
            },
            self.seconds,
            self.jobs
        )
    }
}

fn word(f: &Finding) -> &'static str {
    match f.kind {
        crate::audit::sites::SiteKind::Read => "read",
        crate::audit::sites::SiteKind::Write => "write",
        crate::audit::sites::SiteKind::Branch => "branch",
        crate::audit::sites::SiteKind::Loop => "loop",
    }
}

/// The per-execution count of a finding in words: `≤ 16 sectors per execution (minimum 4)`.
pub fn count_text(f: &Finding) -> String {
    let unit = match f.metric {
        crate::core::MetricName::Sectors => "sectors",
        crate::core::MetricName::Conflicts => "serialized bank accesses",
        _ => "divergences",
    };
    match f.per_execution {
        Some(n) => format!(
            "{} {n} {unit} per execution (minimum {})",
            f.relation, f.minimum
        ),
        None => "no certified count".to_string(),
    }
}

/// One finding as a compiler-style line (plus an indented detail line).
pub fn finding_text(file: &str, f: &Finding) -> String {
    let level = match f.level {
        Level::Warning => "warning",
        Level::Note => "note",
    };
    let what = match (&f.array, f.expr.is_empty()) {
        (_, false) => format!("`{}`", f.expr),
        (Some(a), true) => format!("`{a}` ({})", f.lowered),
        (None, true) => format!("`{}`", f.lowered),
    };
    let mut s = format!(
        "{file}:{}:{}: {level}[{}]: {} {what}: {}",
        f.line,
        f.column,
        f.rule,
        word(f),
        count_text(f)
    );
    if f.excess > 0 && f.rule == "uncoalesced" {
        let _ = write!(s, ", {} sectors above the minimum", f.excess);
    }
    if let Some(sh) = f.share {
        let _ = write!(s, ", {:.1}% of the kernel's {}", sh * 100.0, f.metric);
    }
    let _ = write!(
        s,
        "\n    {}{}{}\n",
        if f.certified { "certified: " } else { "" },
        f.certificate,
        match (&f.executions, &f.total) {
            (Some(e), Some(t)) => format!("; runs <= {e} times per warp; total <= {t}"),
            (None, Some(t)) => format!("; total <= {t}"),
            (Some(e), None) => format!("; runs <= {e} times per warp"),
            _ => String::new(),
        }
    );
    s
}

/// The BSI verdict in one line.
pub fn bsi_text(b: &Bsi) -> String {
    match b {
        Bsi::Independent => "block-size independent (Singhania Thm. 5.6)".into(),
        Bsi::Dependent {
            dim,
            line,
            column,
            reason,
        } => {
            format!("block-size DEPENDENT in dimension {dim}: {line}:{column}: {reason}")
        }
        Bsi::NotProvable { reason } => format!("block-size independence not provable: {reason}"),
    }
}

/// The text report of one kernel.
pub fn kernel_text(file: &str, a: &KernelAudit) -> String {
    let mut s = format!(
        "kernel {} ({file}, block {}x{}x{})\n",
        a.kernel, a.block[0], a.block[1], a.block[2]
    );
    for m in &a.metrics {
        let _ = writeln!(
            s,
            "  {:<9} {} {}  [{}]",
            m.metric.to_string(),
            m.relation,
            m.bound.as_deref().unwrap_or("(no bound)"),
            m.verdict
        );
    }
    if !a.at.is_empty() {
        let pts: Vec<String> = a.at.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(s, "  shares evaluated at {}", pts.join(", "));
    }
    for f in &a.findings {
        s.push_str(&finding_text(file, f));
    }
    if let Some(b) = &a.bsi {
        let _ = writeln!(s, "  {}", bsi_text(b));
    }
    if let Some(r) = &a.reuse {
        let _ = writeln!(s, "  cache reuse (Ch. 6, advice): {}", r.advice);
    }
    s
}

/// Counts of findings by rule over `records`.
pub fn counts(records: &[AuditRecord]) -> BTreeMap<&'static str, usize> {
    let mut c = BTreeMap::new();
    for f in records
        .iter()
        .filter_map(|r| r.audit.as_ref())
        .flat_map(|a| &a.findings)
    {
        *c.entry(f.rule).or_insert(0) += 1;
    }
    c
}

/// The whole text report.
pub fn audit_text(records: &[AuditRecord], summary: &Summary) -> String {
    let mut s = String::new();
    for r in records {
        match (&r.audit, &r.error) {
            (Some(a), _) => s.push_str(&kernel_text(&r.file, a)),
            (None, Some(e)) => {
                let _ = writeln!(
                    s,
                    "{}: error: {}{}",
                    r.file,
                    if r.kernel.is_empty() {
                        String::new()
                    } else {
                        format!("kernel {}: ", r.kernel)
                    },
                    e.lines().next().unwrap_or("")
                );
            }
            _ => {}
        }
        s.push('\n');
    }
    let c: Vec<String> = counts(records)
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    if !c.is_empty() {
        let _ = writeln!(s, "findings: {}", c.join(", "));
    }
    s.push_str(&summary.text());
    s
}

/// The JSON document of a batch: `{format_version, kernels, findings, summary}`.
pub fn audit_json(records: &[AuditRecord], summary: &Summary) -> Result<String, String> {
    #[derive(Serialize)]
    struct Doc<'a> {
        format_version: u32,
        kernels: &'a [AuditRecord],
        findings: BTreeMap<&'static str, usize>,
        summary: &'a Summary,
    }
    serde_json::to_string_pretty(&Doc {
        format_version: FORMAT_VERSION,
        kernels: records,
        findings: counts(records),
        summary,
    })
    .map(|s| s + "\n")
    .map_err(|e| e.to_string())
}

/// One JSON Lines record (no newline inside).
pub fn json_line<T: Serialize>(v: &T) -> Result<String, String> {
    serde_json::to_string(v)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
}

/// The summary as the last JSON Lines record: `{"summary": …}`.
pub fn summary_line(s: &Summary) -> Result<String, String> {
    #[derive(Serialize)]
    struct Last<'a> {
        summary: &'a Summary,
    }
    json_line(&Last { summary: s })
}

/// One kernel of an `analyze` batch.
#[derive(Clone, Debug, Serialize)]
pub struct AnalyzeRecord {
    /// [`FORMAT_VERSION`].
    pub format_version: u32,
    /// The source file.
    pub file: String,
    /// Kernel name (`""` when the file could not be read).
    pub kernel: String,
    /// One outcome per metric.
    pub outcomes: Vec<crate::report::AnalyzeOutcome>,
    /// Front-end notes and the race warning.
    pub warnings: Vec<String>,
    /// The error, when the kernel could not be analysed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error's kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// Wall time of this record's work in seconds: the kernel's analysis, plus reading and
    /// lowering its file for the file's first kernel (so the records add up to the batch).
    pub seconds: f64,
}

/// The text of an `analyze` batch: per kernel a header and the outcomes, then the summary.
pub fn analyze_batch_text(records: &[AnalyzeRecord], summary: &Summary) -> String {
    let mut s = String::new();
    for r in records {
        let _ = writeln!(
            s,
            "== {}{}",
            r.file,
            if r.kernel.is_empty() {
                String::new()
            } else {
                format!(": {}", r.kernel)
            }
        );
        if let Some(e) = &r.error {
            let _ = writeln!(s, "error: {}", e.lines().next().unwrap_or(""));
        }
        s.push_str(&crate::report::analyze_text(&r.outcomes));
        for w in &r.warnings {
            let _ = writeln!(s, "{w}");
        }
    }
    s.push_str(&summary.text());
    s
}

/// The JSON document of an `analyze` batch.
pub fn analyze_batch_json(records: &[AnalyzeRecord], summary: &Summary) -> Result<String, String> {
    #[derive(Serialize)]
    struct Doc<'a> {
        format_version: u32,
        kernels: &'a [AnalyzeRecord],
        summary: &'a Summary,
    }
    serde_json::to_string_pretty(&Doc {
        format_version: FORMAT_VERSION,
        kernels: records,
        summary,
    })
    .map(|s| s + "\n")
    .map_err(|e| e.to_string())
}
