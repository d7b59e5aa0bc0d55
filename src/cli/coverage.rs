//! `warpcert coverage DIR…`: for every `.cu`/`.cuh` file of the directories and every
//! kernel (template instance) of it: read, lowered, bounded per metric (a certificate the
//! kernel accepted), or the first error; a summary line, the errors grouped by construct,
//! and the time clang took per file (median, max). Text or JSON.

use super::analyze::analyze_metrics;
use super::kernels::{load_entries, FrontendArgs};
use super::KernelArgs;
use crate::core::MetricName;
use crate::report::coverage::{coverage_report, KernelRow, Summary};
use crate::report::{AnalyzeOutcome, Format};
use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Arguments of `warpcert coverage`.
#[derive(Debug, Args)]
pub struct CoverageArgs {
    /// Directories (or files) to read.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Metrics to bound: sectors, conflicts, divwarps, steps, or all.
    #[arg(long, default_value = "all")]
    pub metric: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Degree of the complete potential templates: every product of at most this many
    /// candidate atoms of a loop. An override, not a cap: a loop nest deeper than this gets,
    /// in addition, the monomials the nest can produce (the products of its counters' ranges
    /// along the nest, up to the nest's depth), so a d-deep nest needs no `--degree d`. A
    /// larger value enlarges every template (exponentially in the value).
    #[arg(long, default_value_t = 2)]
    pub degree: u32,
    /// Front end and its options.
    #[command(flatten)]
    pub front: FrontendArgs,
}

fn files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|f| {
                    matches!(
                        f.extension().and_then(|e| e.to_str()),
                        Some("cu") | Some("cuh")
                    )
                })
                .collect();
            v.sort();
            out.extend(v);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// The construct an error message is about: the message with quoted names elided.
pub fn construct_of(err: &str) -> String {
    let line = err.lines().next().unwrap_or("");
    let line = line
        .trim_start_matches("error: ")
        .trim_start_matches("clang: ");
    let mut out = String::new();
    let mut inside = false;
    for ch in line.chars() {
        if ch == '`' {
            inside = !inside;
            out.push_str(if inside { "`…" } else { "`" });
        } else if !inside {
            out.push(ch);
        }
    }
    let cut: String = out
        .split(" (")
        .next()
        .unwrap_or("")
        .chars()
        .take(90)
        .collect();
    cut
}

fn kernel_args(file: PathBuf, metric: &str, front: &FrontendArgs) -> KernelArgs {
    KernelArgs {
        file,
        kernel: None,
        metric: metric.to_string(),
        block: None,
        grid: None,
        params: Vec::new(),
        format: Format::Text,
        warp_size: 32,
        banks: 32,
        bank_bytes: 4,
        sector_bytes: 32,
        front: front.clone(),
    }
}

/// Runs `warpcert coverage`; exit 0 (the table is the result).
pub fn run(args: &CoverageArgs) -> i32 {
    let fs = files(&args.paths);
    let mut rows = Vec::new();
    let mut clang_times = Vec::new();
    let mut files_read = 0;
    let mut unread_kernels = 0;
    let mut missing_kernels = 0;
    for f in &fs {
        let name = f
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ka = kernel_args(f.clone(), &args.metric, &args.front);
        match load_entries(&ka, None) {
            Ok(fl) => {
                files_read += 1;
                clang_times.extend(fl.clang_ms);
                for entry in fl.entries {
                    let mut row = KernelRow {
                        file: name.clone(),
                        frontend: fl.frontend.to_string(),
                        kernel: entry.name.clone(),
                        read: true,
                        lowered: false,
                        bounded: Vec::new(),
                        error: None,
                    };
                    match entry.loaded {
                        Err(e) => {
                            row.error = Some(e.error.lines().next().unwrap_or("").to_string())
                        }
                        Ok(l) => {
                            row.lowered = true;
                            let opts = crate::analysis::AnalysisOptions {
                                degree: args.degree,
                                floor: true,
                                align: false,
                            };
                            let results = analyze_metrics(&l, &l.metrics, &opts, |_| None, None);
                            for (&m, res) in l.metrics.iter().zip(results) {
                                match res {
                                    Ok(AnalyzeOutcome::Bound(b)) if b.certificate.checked => {
                                        row.bounded.push(m.to_string())
                                    }
                                    Ok(AnalyzeOutcome::Bound(b)) => {
                                        row.error.get_or_insert(format!(
                                            "{m}: {}",
                                            b.certificate.verdict
                                        ));
                                    }
                                    Ok(AnalyzeOutcome::Failure(fr)) => {
                                        row.error.get_or_insert(format!(
                                            "{m}: {}",
                                            fr.error.lines().next().unwrap_or("")
                                        ));
                                    }
                                    Err(e) => {
                                        row.error.get_or_insert(format!("{m}: {e}"));
                                    }
                                }
                            }
                        }
                    }
                    rows.push(row);
                }
            }
            Err(e) => {
                let text = std::fs::read_to_string(f).unwrap_or_default();
                let n = text.matches("__global__").count();
                unread_kernels += n;
                if is_missing_header(&e.error) {
                    missing_kernels += n;
                }
                rows.push(KernelRow {
                    file: name.clone(),
                    frontend: "-".into(),
                    kernel: "-".into(),
                    read: false,
                    lowered: false,
                    bounded: Vec::new(),
                    error: Some(e.error.lines().next().unwrap_or("").to_string()),
                });
            }
        }
    }
    let summary = summarize(
        &rows,
        fs.len(),
        files_read,
        (unread_kernels, missing_kernels),
        &mut clang_times,
        &args.metric,
    );
    match coverage_report(args.format, &rows, &summary) {
        Ok(out) => print!("{out}"),
        Err(e) => {
            eprintln!("error: {e}");
            return super::EXIT_FAILED;
        }
    }
    0
}

/// A front end's error for a header clang cannot find (`frontend::clang`).
fn is_missing_header(e: &str) -> bool {
    e.starts_with("header `") && e.contains("` not found")
}

fn summarize(
    rows: &[KernelRow],
    files: usize,
    files_read: usize,
    (unread_kernels, missing_kernels): (usize, usize),
    times: &mut [f64],
    metric: &str,
) -> Summary {
    let kernel_rows: Vec<&KernelRow> = rows.iter().filter(|r| r.read).collect();
    let mut bounded = BTreeMap::new();
    let metrics: Vec<MetricName> = super::options::parse_metrics(metric).unwrap_or_default();
    for m in &metrics {
        let c = kernel_rows
            .iter()
            .filter(|r| r.bounded.contains(&m.to_string()))
            .count();
        bounded.insert(m.to_string(), c);
    }
    let mut errors = BTreeMap::new();
    for r in rows {
        if r.bounded.is_empty() {
            if let Some(e) = &r.error {
                let e = e
                    .split_once(": ")
                    .filter(|(m, _)| m.parse::<MetricName>().is_ok())
                    .map(|(_, x)| x)
                    .unwrap_or(e);
                *errors.entry(construct_of(e)).or_insert(0) += 1;
            }
        }
    }
    let missing: Vec<&KernelRow> = rows
        .iter()
        .filter(|r| !r.read && r.error.as_deref().is_some_and(is_missing_header))
        .collect();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    Summary {
        files,
        files_read,
        kernels: kernel_rows.len() + unread_kernels,
        read: kernel_rows.len(),
        lowered: kernel_rows.iter().filter(|r| r.lowered).count(),
        bounded_any: kernel_rows.iter().filter(|r| !r.bounded.is_empty()).count(),
        excluded_missing_header: missing.len(),
        excluded_missing_header_kernels: missing_kernels,
        bounded,
        errors,
        clang_ms_median: (!times.is_empty()).then(|| times[times.len() / 2]),
        clang_ms_max: times.last().copied(),
    }
}
