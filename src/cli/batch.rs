//! Batch runs of `analyze` and `audit`: every kernel of many files and directories,
//! analysed in parallel (rayon, `--jobs`), a progress bar on a terminal (indicatif; none
//! when stderr is not a terminal), and the end-of-run summary. Errors are results, per
//! kernel: a run in which every kernel was handled exits 0.

use super::kernels::{load_entries, Entry};
use super::KernelArgs;
use crate::report::error::ErrorReport;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Every `.cu`/`.cuh` file under the directories of `paths` (recursively, sorted) and every
/// other path as given, in order.
pub fn collect_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            let mut todo = vec![p.clone()];
            while let Some(d) = todo.pop() {
                for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                    let f = e.path();
                    if f.is_dir() {
                        todo.push(f);
                    } else if matches!(f.extension().and_then(|e| e.to_str()), Some("cu" | "cuh")) {
                        found.push(f);
                    }
                }
            }
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// The number of worker threads: `--jobs`, else rayon's default (the cores).
pub fn jobs(requested: Option<usize>) -> usize {
    requested
        .filter(|&j| j > 0)
        .unwrap_or_else(rayon::current_num_threads)
}

/// What a batch produces for one kernel (or for a file no kernel of which could be read).
pub enum Item<'a> {
    /// A kernel of `file`.
    Kernel(&'a Path, Box<Entry>),
    /// `file` could not be read.
    FileError(&'a Path, ErrorReport),
}

/// Runs `work` on every kernel of every file on `jobs` threads, files and kernels in
/// parallel; results in file order, kernels in file order. `base` gives the options of each
/// file (its `file` is replaced). A progress bar counts kernels on a terminal.
pub fn run<R: Send>(
    base: &KernelArgs,
    files: &[PathBuf],
    jobs: usize,
    work: impl Fn(&KernelArgs, Item<'_>) -> R + Sync,
) -> Result<Vec<R>, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| format!("cannot start {jobs} worker threads: {e}"))?;
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} kernels {elapsed} {wide_msg}")
    {
        bar.set_style(style);
    }
    let out = pool.install(|| {
        files
            .par_iter()
            .flat_map_iter(|f| {
                let mut args = base.clone();
                args.file = f.clone();
                bar.set_message(f.display().to_string());
                let items: Vec<(KernelArgs, Item<'_>)> = match load_entries(&args, None) {
                    Ok(l) => l
                        .entries
                        .into_iter()
                        .map(|e| (args.clone(), Item::Kernel(f.as_path(), Box::new(e))))
                        .collect(),
                    Err(e) => vec![(args.clone(), Item::FileError(f.as_path(), e))],
                };
                bar.inc_length(items.len() as u64);
                items
            })
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|(args, item)| {
                let r = work(&args, item);
                bar.inc(1);
                r
            })
            .collect::<Vec<R>>()
    });
    bar.finish_and_clear();
    Ok(out)
}
