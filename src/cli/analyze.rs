//! `warpcert analyze`: per-warp bounds with checked certificates, one per metric.

use super::options::Loaded;
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::analysis::{analyze, AnalysisOptions};
use crate::core::{Metric, MetricName};
use crate::report::{
    self, bound, AnalyzeOutcome, BoundReport, CertificateReport, FailureReport, Format,
};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Arguments of `warpcert analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// Write the certificate here: a file for one metric, a directory (created) for
    /// several, holding `KERNEL.METRIC.cert`.
    #[arg(long)]
    cert: Option<PathBuf>,
    /// Also export each checked certificate as a Coq file proving the bound
    /// (`coq-export/README.md`): a file for one metric, a directory (created) for several,
    /// holding `KERNEL_METRIC.v` (a Coq file name may not contain dots).
    #[arg(long)]
    coq: Option<PathBuf>,
    /// Maximal degree of the potential templates.
    #[arg(long, default_value_t = 2)]
    degree: u32,
    /// Print the lowered miniCUDA program before the bounds.
    #[arg(long)]
    dump_core: bool,
    /// Use Pico's relational analysis (metrics sectors and conflicts) and ask for an
    /// `exact`, `upper` or `lower` per-warp cost, or `auto` (exact where the analysis is
    /// exact, else upper); the output always says which relation holds.
    #[arg(long, value_enum)]
    relation: Option<super::relation::RelationArg>,
    /// Print the relational analysis' exactness table (conditionals, loops, indices:
    /// exact / total) for the file, or for every `.cu` file of a directory.
    #[arg(long)]
    stats: bool,
}

/// The number of warps of the launch: an integer, or an expression over `gridDim.*`.
pub fn warps_expr(l: &Loaded) -> String {
    let per_block = l.launch.warps_per_block(&l.hw);
    match l.launch.grid {
        Some(g) => (per_block * g.iter().map(|&d| d as u64).product::<u64>()).to_string(),
        None => format!("gridDim.x*gridDim.y*gridDim.z*{per_block}"),
    }
}

pub(super) fn cert_path(base: &Path, kernel: &str, metric: MetricName, several: bool) -> PathBuf {
    if several {
        base.join(format!("{kernel}.{metric}.cert"))
    } else {
        base.to_path_buf()
    }
}

fn coq_path(base: &Path, kernel: &str, metric: MetricName, several: bool) -> PathBuf {
    if several {
        base.join(format!("{kernel}_{metric}.v"))
    } else {
        base.to_path_buf()
    }
}

/// Analyses one metric of a loaded kernel: infer, write, check.
pub fn analyze_metric(
    l: &Loaded,
    metric: MetricName,
    degree: u32,
    cert_out: Option<PathBuf>,
) -> Result<AnalyzeOutcome, String> {
    let start = Instant::now();
    let m = Metric::standard(metric);
    let result = analyze(
        &l.program,
        &m,
        &l.hw,
        &l.launch,
        &AnalysisOptions { degree },
    );
    let a = match result {
        Ok(a) => a,
        Err(e) => {
            return Ok(AnalyzeOutcome::Failure(FailureReport {
                kernel: l.program.name.clone(),
                metric: metric.to_string(),
                error: e.to_string(),
            }))
        }
    };
    let time_ms = start.elapsed().as_secs_f64() * 1e3;
    let path = match cert_out {
        Some(p) => {
            if let Some(dir) = p.parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                }
            }
            std::fs::write(&p, &a.certificate)
                .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            Some(p.display().to_string())
        }
        None => None,
    };
    let check_start = Instant::now();
    let verdict = warpcert_kernel::check(&a.certificate);
    let check_ms = check_start.elapsed().as_secs_f64() * 1e3;
    let per_warp = a.bound.to_bound_string();
    let warps = warps_expr(l);
    let certificate = match &verdict {
        Ok(v) => CertificateReport {
            path,
            checked: true,
            verdict: format!("accepted by the kernel (bound {})", v.bound),
            nodes: v.nodes_checked,
            check_ms,
        },
        Err(r) => CertificateReport {
            path,
            checked: false,
            verdict: format!("REJECTED by the kernel: {r}"),
            nodes: 0,
            check_ms,
        },
    };
    Ok(AnalyzeOutcome::Bound(BoundReport {
        kernel: l.program.name.clone(),
        metric: metric.to_string(),
        relation: "upper",
        total: bound::times(&warps, &per_warp),
        per_warp,
        warps,
        certificate,
        time_ms,
        block: l.launch.block,
        grid: l.launch.grid,
        hardware: l.hw,
    }))
}

/// Runs `warpcert analyze`; returns the exit code.
pub fn run(args: &AnalyzeArgs) -> i32 {
    if args.stats {
        return super::relation::run_stats(&args.kernel);
    }
    if let Some(r) = args.relation {
        return super::relation::run_relation(&args.kernel, r, args.cert.as_deref());
    }
    let super::kernels::FileLoad { entries, notes, .. } =
        match super::kernels::load_entries(&args.kernel, None) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{e}");
                return EXIT_BAD_INPUT;
            }
        };
    for n in &notes {
        eprintln!("{n}");
    }
    let single = entries.len() == 1;
    let mut outcomes = Vec::new();
    for entry in entries {
        match entry.loaded {
            Ok(l) => {
                if let Err(code) = analyze_kernel(args, &l, !single, &mut outcomes) {
                    return code;
                }
            }
            Err(e) if single => {
                eprintln!("{e}");
                return EXIT_BAD_INPUT;
            }
            Err(e) => {
                eprintln!("{e}");
                outcomes.push(AnalyzeOutcome::Failure(FailureReport {
                    kernel: entry.name,
                    metric: "all".to_string(),
                    error: e.lines().next().unwrap_or("").to_string(),
                }));
            }
        }
    }
    match args.kernel.format {
        Format::Text => print!("{}", report::analyze_text(&outcomes)),
        Format::Json => match serde_json::to_string_pretty(&outcomes) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_FAILED;
            }
        },
    }
    let all_ok = outcomes.iter().all(|o| match o {
        AnalyzeOutcome::Bound(b) => b.certificate.checked,
        AnalyzeOutcome::Failure(_) => false,
    });
    if all_ok {
        0
    } else {
        EXIT_FAILED
    }
}

/// Analyses every metric of one loaded kernel, appending to `outcomes`; `Err` is an exit code.
fn analyze_kernel(
    args: &AnalyzeArgs,
    l: &Loaded,
    many: bool,
    outcomes: &mut Vec<AnalyzeOutcome>,
) -> Result<(), i32> {
    for w in &l.warnings {
        eprintln!("{w}");
    }
    if l.block_source == "default" {
        eprintln!(
            "note: no --block and no //--blockDim= header: using block {}x{}x{}",
            l.launch.block[0], l.launch.block[1], l.launch.block[2]
        );
    }
    if args.dump_core {
        eprintln!("{}", l.program);
    }
    let several = l.metrics.len() > 1 || many;
    for &m in &l.metrics {
        let mut out = args
            .cert
            .as_ref()
            .map(|c| cert_path(c, &l.program.name, m, several));
        let coq_out = args
            .coq
            .as_ref()
            .map(|c| coq_path(c, &l.program.name, m, several));
        if coq_out.is_some() && out.is_none() {
            let tmp = std::env::temp_dir().join(format!(
                "warpcert-{}-{}.{m}.cert",
                std::process::id(),
                l.program.name
            ));
            out = Some(tmp);
        }
        match analyze_metric(l, m, args.degree, out.clone()) {
            Ok(o) => {
                if let (Some(v), Some(c)) = (&coq_out, &out) {
                    if let Err(e) = super::export::write_coq(c, v) {
                        eprintln!("error: {e}");
                        return Err(EXIT_FAILED);
                    }
                    if args.cert.is_none() {
                        let _ = std::fs::remove_file(c);
                    }
                }
                outcomes.push(o)
            }
            Err(e) => {
                eprintln!("error: {e}");
                return Err(EXIT_BAD_INPUT);
            }
        }
    }
    Ok(())
}
