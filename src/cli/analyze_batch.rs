//! `warpcert analyze` on directories and many files (or with `--format jsonl`): every
//! kernel of every file, in parallel (`--jobs`), one record per kernel and a summary.

use super::analyze::{analyze_metrics, race_warning, AnalyzeArgs};
use super::batch::{self, Item, Record};
use crate::report::audit::{json_line, summary_line, AnalyzeRecord, Summary};
use crate::report::error::{ErrorKind, ErrorReport, FORMAT_VERSION};
use crate::report::{AnalyzeOutcome, Format};
use std::time::Instant;

fn analyze_item(item: Item<'_>, opts: &crate::analysis::AnalysisOptions) -> AnalyzeRecord {
    batch::record(item, |_, l, r: &mut AnalyzeRecord| {
        r.warnings = l.warnings.clone();
        r.warnings.extend(race_warning(&l));
        for res in analyze_metrics(&l, &l.metrics, opts, |_| None, None) {
            match res {
                Ok(o) => r.outcomes.push(o),
                Err(e) => r.fail(e, "io".into()),
            }
        }
    })
}

fn summarize(records: &[AnalyzeRecord], files: usize, seconds: f64, jobs: usize) -> Summary {
    let mut s = Summary {
        format_version: FORMAT_VERSION,
        files,
        seconds,
        jobs,
        ..Summary::default()
    };
    for r in records {
        let failed = |s: &mut Summary, k: String| *s.failed.entry(k).or_insert(0) += 1;
        if r.kernel.is_empty() {
            failed(&mut s, r.error_kind.clone().unwrap_or_default());
            continue;
        }
        s.kernels += 1;
        let bounded = !r.outcomes.is_empty()
            && r.outcomes
                .iter()
                .all(|o| matches!(o, AnalyzeOutcome::Bound(b) if b.certificate.checked));
        match (&r.error_kind, bounded) {
            (Some(k), _) => failed(&mut s, k.clone()),
            (None, true) => s.bounded += 1,
            (None, false) => failed(&mut s, "no bound".into()),
        }
    }
    s
}

/// Runs the batch; exit 0 when every kernel was handled (per-kernel errors are results).
pub fn run(args: &AnalyzeArgs) -> i32 {
    let format = args.format();
    let mut paths = vec![args.kernel.file.clone()];
    paths.extend(args.more.iter().cloned());
    let files = batch::collect_files(&paths);
    if files.is_empty() {
        return ErrorReport::new(ErrorKind::Io, "no .cu or .cuh file in the given paths")
            .emit(format);
    }
    let jobs = batch::jobs(args.jobs);
    let start = Instant::now();
    let opts = args.options();
    let records = match batch::run(&args.kernel, &files, jobs, |_, item| {
        analyze_item(item, &opts)
    }) {
        Ok(r) => r,
        Err(e) => return ErrorReport::new(ErrorKind::Resource, e).emit(format),
    };
    let summary = summarize(&records, files.len(), start.elapsed().as_secs_f64(), jobs);
    let out = match format {
        Format::Text => Ok(crate::report::audit::analyze_batch_text(&records, &summary)),
        Format::Json => crate::report::audit::analyze_batch_json(&records, &summary),
        Format::Jsonl => records
            .iter()
            .map(json_line)
            .chain([summary_line(&summary)])
            .collect::<Result<String, String>>(),
    };
    match out {
        Ok(s) => {
            print!("{s}");
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            super::EXIT_FAILED
        }
    }
}
