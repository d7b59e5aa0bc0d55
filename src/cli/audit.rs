//! `warpcert audit FILE|DIR…`: per-access findings with certified counts, block-size
//! independence and cache-reuse advice for every kernel of the files (`spec/audit.md`).

use super::batch::{self, Item};
use super::kernels::FrontendArgs;
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::audit::{audit_kernel, bsi, AuditOptions};
use crate::report::audit::{audit_json, audit_text, json_line, summary_line, AuditRecord, Summary};
use crate::report::error::{ErrorKind, ErrorReport, FORMAT_VERSION};
use crate::report::Format;
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// Output formats of `audit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AuditFormat {
    /// Compiler-style text grouped by kernel.
    Text,
    /// One JSON document.
    Json,
    /// JSON Lines: one object per kernel, then `{"summary": …}`.
    Jsonl,
    /// SARIF 2.1.0 (editors, code scanning).
    Sarif,
}

/// Arguments of `warpcert audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// `.cu`/`.cuh` files and directories (searched recursively).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: AuditFormat,
    /// Also write a self-contained HTML report here.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Evaluate shares at NAME=VALUE (integer parameters; default 1024, blockIdx 0,
    /// gridDim 1). Repeatable.
    #[arg(long = "at", value_name = "NAME=VALUE")]
    pub at: Vec<String>,
    /// Only per-execution counts: skip the two probe certificates per access that bound
    /// its total and its executions (faster; no shares).
    #[arg(long)]
    pub no_totals: bool,
    /// Degree of the complete potential templates: every product of at most this many
    /// candidate atoms of a loop. An override, not a cap: a loop nest deeper than this gets,
    /// in addition, the monomials the nest can produce (the products of its counters' ranges
    /// along the nest, up to the nest's depth), so a d-deep nest needs no `--degree d`. A
    /// larger value enlarges every template (exponentially in the value).
    #[arg(long, default_value_t = 2)]
    pub degree: u32,
    /// Block dimensions X[,Y[,Z]] (default: the file's header, host code, else 256).
    #[arg(long)]
    pub block: Option<String>,
    /// Grid dimensions X[,Y[,Z]] (default: header or host code, else symbolic).
    #[arg(long)]
    pub grid: Option<String>,
    /// Fix a scalar kernel parameter: NAME=VALUE. Repeatable.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Only this kernel of each file.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Front end and its options.
    #[command(flatten)]
    pub front: FrontendArgs,
}

impl AuditArgs {
    /// The format errors are printed in.
    pub fn error_format(&self) -> Format {
        match self.format {
            AuditFormat::Text => Format::Text,
            _ => Format::Json,
        }
    }

    fn kernel_args(&self, file: PathBuf) -> KernelArgs {
        KernelArgs {
            file,
            kernel: self.kernel.clone(),
            metric: "all".into(),
            block: self.block.clone(),
            grid: self.grid.clone(),
            params: self.params.clone(),
            format: Format::Text,
            warp_size: 32,
            banks: 32,
            bank_bytes: 4,
            sector_bytes: 32,
            front: self.front.clone(),
        }
    }
}

/// BSI of a loaded kernel: lower it under its block and under a second block, both with a
/// symbolic grid (a block-size change keeps the grid's thread count, not its block count:
/// `src/audit/bsi.rs`), and compare.
fn decide_bsi(args: &KernelArgs, l: &super::options::Loaded) -> bsi::Bsi {
    let b1 = l.launch.block;
    let b2 = bsi::second_block(b1);
    let lower = |b: [u32; 3]| {
        let mut a = args.clone();
        a.block = Some(format!("{},{},{}", b[0], b[1], b[2]));
        a.grid = Some(super::kernels::SYMBOLIC_GRID.to_string());
        a.kernel = Some(l.program.name.clone());
        super::kernels::load_entries(&a, None)
            .ok()
            .and_then(|f| f.entries.into_iter().find_map(|e| e.loaded.ok()))
    };
    let not_lowered = |b: [u32; 3]| bsi::Bsi::NotProvable {
        reason: format!(
            "the kernel does not lower under block {}x{}x{} with a symbolic grid",
            b[0], b[1], b[2]
        ),
    };
    // the loaded program is reused when its grid is already symbolic
    let relowered = match l.launch.grid {
        None => None,
        Some(_) => match lower(b1) {
            Some(f) => Some(f),
            None => return not_lowered(b1),
        },
    };
    let first = relowered.as_ref().map_or(&l.program, |f| &f.program);
    match lower(b2) {
        Some(l2) => bsi::decide_lowered(first, &l2.program, b1, b2),
        None => not_lowered(b2),
    }
}

fn audit_item(args: &KernelArgs, item: Item<'_>, opts: &AuditOptions) -> AuditRecord {
    batch::record(item, |f, l, r: &mut AuditRecord| {
        let source = std::fs::read_to_string(f).unwrap_or_default();
        let mut a = audit_kernel(&l.program, &l.hw, &l.launch, &source, opts);
        a.bsi = Some(decide_bsi(args, &l));
        r.audit = Some(a);
    })
}

/// The batch summary of audit records: a kernel is bounded when its three whole-kernel
/// certificates were accepted.
fn summarize(records: &[AuditRecord], files: usize, seconds: f64, jobs: usize) -> Summary {
    let mut s = Summary {
        format_version: FORMAT_VERSION,
        files,
        seconds,
        jobs,
        ..Summary::default()
    };
    for r in records {
        if r.kernel.is_empty() && r.audit.is_none() {
            *s.failed
                .entry(r.error_kind.clone().unwrap_or_default())
                .or_insert(0) += 1;
            continue;
        }
        s.kernels += 1;
        match &r.audit {
            Some(a) if a.metrics.iter().all(|m| m.bound.is_some()) => s.bounded += 1,
            Some(_) => *s.failed.entry("no bound".into()).or_insert(0) += 1,
            None => {
                *s.failed
                    .entry(r.error_kind.clone().unwrap_or_default())
                    .or_insert(0) += 1
            }
        }
    }
    s
}

/// Runs `warpcert audit`; exit 0 when every kernel was handled (findings and per-kernel
/// errors are results), 2 for a bad command line, 1 when output cannot be written.
pub fn run(args: &AuditArgs) -> i32 {
    let fmt = args.error_format();
    let mut at = BTreeMap::new();
    for a in &args.at {
        match a
            .split_once('=')
            .map(|(k, v)| (k.trim(), v.trim().parse::<i64>()))
        {
            Some((k, Ok(v))) => {
                at.insert(k.to_string(), v);
            }
            _ => {
                return ErrorReport::new(
                    ErrorKind::Usage,
                    format!("--at {a}: expected NAME=INTEGER"),
                )
                .emit(fmt)
            }
        }
    }
    let opts = AuditOptions {
        degree: args.degree,
        at,
        totals: !args.no_totals,
    };
    let files = batch::collect_files(&args.paths);
    if files.is_empty() {
        return ErrorReport::new(ErrorKind::Io, "no .cu or .cuh file in the given paths").emit(fmt);
    }
    let jobs = batch::jobs(args.jobs);
    let start = Instant::now();
    let base = args.kernel_args(files[0].clone());
    let records = match batch::run(&base, &files, jobs, |ka, item| audit_item(ka, item, &opts)) {
        Ok(r) => r,
        Err(e) => return ErrorReport::new(ErrorKind::Resource, e).emit(fmt),
    };
    let summary = summarize(&records, files.len(), start.elapsed().as_secs_f64(), jobs);
    let out = match args.format {
        AuditFormat::Text => Ok(audit_text(&records, &summary)),
        AuditFormat::Json => audit_json(&records, &summary),
        AuditFormat::Sarif => crate::report::sarif::sarif(&records),
        AuditFormat::Jsonl => records
            .iter()
            .map(json_line)
            .chain([summary_line(&summary)])
            .collect::<Result<String, String>>(),
    };
    match out {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    }
    if args.format == AuditFormat::Sarif {
        eprint!("{}", summary.text());
    }
    if let Some(h) = &args.html {
        let sources: BTreeMap<String, String> = records
            .iter()
            .filter_map(|r| {
                std::fs::read_to_string(&r.file)
                    .ok()
                    .map(|t| (r.file.clone(), t))
            })
            .collect();
        let page = crate::report::html::page(&records, &sources, &opts_point_label(&records));
        if let Err(e) = std::fs::write(h, page) {
            eprintln!("error: cannot write {}: {e}", h.display());
            return EXIT_BAD_INPUT;
        }
    }
    0
}

fn opts_point_label(records: &[AuditRecord]) -> String {
    records
        .iter()
        .find_map(|r| r.audit.as_ref())
        .map(|a| {
            a.at.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}
