//! Batch runs of `analyze` and `audit`: every kernel of many files and directories,
//! analysed in parallel (rayon, `--jobs`), a progress bar on a terminal (indicatif; none
//! when stderr is not a terminal), and the end-of-run summary. Errors are results, per
//! kernel: a run in which every kernel was handled exits 0.

use super::kernels::{load_entries, Entry};
use super::options::Loaded;
use super::KernelArgs;
use crate::report::audit::{AnalyzeRecord, AuditRecord};
use crate::report::error::{ErrorReport, FORMAT_VERSION};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

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
    /// A kernel of `file`; `load_seconds` is the wall time spent reading and lowering the
    /// file, given with its first kernel only (0 for the others), so that the records'
    /// times add up to the batch's work.
    Kernel(&'a Path, Box<Entry>, f64),
    /// `file` could not be read (after `load_seconds`).
    FileError(&'a Path, ErrorReport, f64),
}

/// The fields every per-kernel record of a batch has (`analyze` and `audit` records).
pub trait Record {
    /// The record of `kernel` of `file` (`""` when the file could not be read), with no
    /// result yet and `load` seconds of reading and lowering.
    fn blank(file: &Path, kernel: String, load: f64) -> Self;
    /// Records an error and its kind (`syntax`, `launch`, `io`, …).
    fn fail(&mut self, error: String, kind: String);
    /// The record's wall time in seconds.
    fn seconds(&mut self) -> &mut f64;
}

/// The record of one batch item: the error of an unreadable file or kernel as is, else
/// `work` on the loaded kernel (its file and the blank record); the item's wall time is
/// added to the record's load time.
pub fn record<R: Record>(item: Item<'_>, work: impl FnOnce(&Path, Loaded, &mut R)) -> R {
    let start = Instant::now();
    let mut r = match item {
        Item::FileError(f, e, load) => {
            let mut r = R::blank(f, String::new(), load);
            r.fail(e.error, e.kind.word());
            r
        }
        Item::Kernel(f, entry, load) => {
            let mut r = R::blank(f, entry.name, load);
            match entry.loaded {
                Err(e) => r.fail(e.error, e.kind.word()),
                Ok(l) => work(f, l, &mut r),
            }
            r
        }
    };
    *r.seconds() += start.elapsed().as_secs_f64();
    r
}

impl Record for AnalyzeRecord {
    fn blank(file: &Path, kernel: String, load: f64) -> Self {
        AnalyzeRecord {
            format_version: FORMAT_VERSION,
            file: file.display().to_string(),
            kernel,
            outcomes: Vec::new(),
            warnings: Vec::new(),
            error: None,
            error_kind: None,
            seconds: load,
        }
    }
    fn fail(&mut self, error: String, kind: String) {
        self.error = Some(error);
        self.error_kind = Some(kind);
    }
    fn seconds(&mut self) -> &mut f64 {
        &mut self.seconds
    }
}

impl Record for AuditRecord {
    fn blank(file: &Path, kernel: String, load: f64) -> Self {
        AuditRecord {
            format_version: FORMAT_VERSION,
            file: file.display().to_string(),
            kernel,
            audit: None,
            error: None,
            error_kind: None,
            seconds: load,
        }
    }
    fn fail(&mut self, error: String, kind: String) {
        self.error = Some(error);
        self.error_kind = Some(kind);
    }
    fn seconds(&mut self) -> &mut f64 {
        &mut self.seconds
    }
}

/// A unit of work of the queue: reading a file, or one of its kernels.
enum Task {
    /// Read and lower file `i`.
    Load(usize),
    /// Kernel `k` of file `i`, with the file's options and its share of the load time.
    Kernel(usize, usize, Box<KernelArgs>, Box<Entry>, f64),
}

/// The shared queue: kernels already found first (they are started as soon as a worker
/// is free, which keeps the work of a large file from being the tail), then the files
/// still to read, largest first (longest-processing-time-first list scheduling).
struct Queue {
    kernels: Vec<Task>,
    loads: Vec<Task>,
}

impl Queue {
    fn pop(&mut self) -> Option<Task> {
        self.kernels.pop().or_else(|| self.loads.pop())
    }
}

/// File indices by decreasing size (bytes; an unreadable file counts 0), ties by order:
/// the front end's and the analysis' work grow with the source, so the largest files start
/// first and the small ones fill the gaps at the end.
pub fn largest_first(files: &[PathBuf]) -> Vec<usize> {
    let size = |f: &PathBuf| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
    let mut order: Vec<(u64, usize)> = files.iter().map(size).zip(0..).collect();
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    order.into_iter().map(|(_, i)| i).collect()
}

/// Runs `work` on every kernel of every file on `jobs` worker threads; results in file
/// order, kernels in file order. `base` gives the options of each file (its `file` is
/// replaced). There is no phase boundary: each worker takes the next task of one shared
/// queue (a kernel already read, else the largest file not yet read, whose kernels it then
/// queues), so reading and analysis overlap and no worker waits while work is left. A
/// progress bar counts kernels on a terminal. Errors: the worker threads cannot start.
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
    // `pop` takes from the end: the largest file last in `loads`
    let mut loads: Vec<Task> = largest_first(files).into_iter().map(Task::Load).collect();
    loads.reverse();
    let queue = Mutex::new(Queue {
        kernels: Vec::new(),
        loads,
    });
    let results: Mutex<Vec<(usize, usize, R)>> = Mutex::new(Vec::new());
    let next = || queue.lock().ok().and_then(|mut q| q.pop());
    let worker = || {
        while let Some(task) = next() {
            match task {
                Task::Load(i) => {
                    let f = &files[i];
                    let mut args = base.clone();
                    args.file = f.clone();
                    bar.set_message(f.display().to_string());
                    let start = Instant::now();
                    let loaded = load_entries(&args, None);
                    let secs = start.elapsed().as_secs_f64();
                    match loaded {
                        Ok(l) => {
                            bar.inc_length(l.entries.len() as u64);
                            let tasks: Vec<Task> = l
                                .entries
                                .into_iter()
                                .enumerate()
                                .map(|(k, e)| {
                                    let t = if k == 0 { secs } else { 0.0 };
                                    Task::Kernel(i, k, Box::new(args.clone()), Box::new(e), t)
                                })
                                .rev()
                                .collect();
                            if let Ok(mut q) = queue.lock() {
                                q.kernels.extend(tasks);
                            }
                        }
                        Err(e) => {
                            bar.inc_length(1);
                            let r = work(&args, Item::FileError(f.as_path(), e, secs));
                            bar.inc(1);
                            if let Ok(mut v) = results.lock() {
                                v.push((i, 0, r));
                            }
                        }
                    }
                }
                Task::Kernel(i, k, args, entry, secs) => {
                    let r = work(&args, Item::Kernel(files[i].as_path(), entry, secs));
                    bar.inc(1);
                    if let Ok(mut v) = results.lock() {
                        v.push((i, k, r));
                    }
                }
            }
        }
    };
    pool.scope(|s| {
        for _ in 0..jobs {
            s.spawn(|_| worker());
        }
    });
    bar.finish_and_clear();
    let mut out = results
        .into_inner()
        .map_err(|_| "a worker thread failed".to_string())?;
    out.sort_by_key(|&(i, k, _)| (i, k));
    Ok(out.into_iter().map(|(_, _, r)| r).collect())
}
