//! `warpcert bench`: every benchmark kernel × metric, analysed and checked, in one table
//! with RaCUDA's published per-warp bounds beside ours (RaCUDA artifact results, as listed
//! in `shared/corpus/racuda/MANIFEST.md`) and median times.

use super::analyze::analyze_metric;
use super::options::Loaded;
use super::{EXIT_BAD_INPUT, EXIT_FAILED};
use crate::core::{Hardware, Launch, MetricName};
use crate::frontend;
use crate::report::AnalyzeOutcome;
use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Arguments of `warpcert bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Folder holding the RaCUDA benchmark kernels.
    #[arg(long, default_value = "../shared/corpus/racuda")]
    corpus: PathBuf,
    /// Runs per kernel and metric; the table shows the median time.
    #[arg(long, default_value_t = 5)]
    runs: usize,
}

/// One benchmark: file, block, and RaCUDA's published per-warp bounds
/// (sectors, conflicts, divwarps, steps; `n/b` = no bound found).
struct Bench {
    file: &'static str,
    block: [u32; 3],
    racuda: [&'static str; 4],
}

/// RaCUDA's launch configurations (paper Table 2 / artifact parameter files) and results.
const BENCHES: &[Bench] = &[
    Bench {
        file: "addSub0.cu",
        block: [1024, 1, 1],
        racuda: ["132 max(0, w)", "0", "max(0, w)", "7 + 177 max(0, w)"],
    },
    Bench {
        file: "addSub1.cu",
        block: [1024, 1, 1],
        racuda: ["132 max(0, w)", "0", "0", "7 + 183 max(0, w)"],
    },
    Bench {
        file: "addSub2.cu",
        block: [1024, 1, 1],
        racuda: ["14 max(0, 1 + h)", "0", "0", "14 + 32 max(0, 1 + h)"],
    },
    Bench {
        file: "addSub3.cu",
        block: [1024, 1, 1],
        racuda: ["4 + 10 max(0, 1 + h)", "0", "0", "22 + 29 max(0, 1 + h)"],
    },
    Bench {
        file: "vectorAdd.cu",
        block: [256, 1, 1],
        racuda: ["12", "0", "1", "27"],
    },
    Bench {
        file: "matrixMul.cu",
        block: [32, 32, 1],
        racuda: [
            "4 + 0.312496 max(0, 31 + wA)",
            "31 max(0, 31 + wA)",
            "0",
            "75 + 50.6562 max(0, 31 + wA)",
        ],
    },
    Bench {
        file: "matrixMulBad.cu",
        block: [32, 32, 1],
        racuda: [
            "15 max(0, 31 + wA)",
            "0",
            "max(0, 31 + wA)",
            "51 + 83.6875 max(0, 31 + wA)",
        ],
    },
    Bench {
        file: "matrixMulTranspose.cu",
        block: [32, 32, 1],
        racuda: [
            "4 + 0.312496 max(0, 31 + wA)",
            "31.9687 max(0, 31 + wA)",
            "0",
            "75 + 51.625 max(0, 31 + wA)",
        ],
    },
    Bench {
        file: "reduce0.cu",
        block: [256, 1, 1],
        racuda: ["5", "0", "257", "6412"],
    },
    Bench {
        file: "reduce1.cu",
        block: [256, 1, 1],
        racuda: ["5", "23715", "257", "30892"],
    },
    Bench {
        file: "reduce2.cu",
        block: [256, 1, 1],
        racuda: ["5", "n/b", "n/b", "n/b"],
    },
    Bench {
        file: "reduce2a.cu",
        block: [256, 1, 1],
        racuda: ["5", "0", "129.5", "3352"],
    },
    Bench {
        file: "reduce3.cu",
        block: [256, 1, 1],
        racuda: ["9", "n/b", "n/b", "n/b"],
    },
    Bench {
        file: "reduce3a.cu",
        block: [256, 1, 1],
        racuda: ["9", "0", "130.5", "4139"],
    },
    Bench {
        file: "syn-brdis.cu",
        block: [32, 1, 1],
        racuda: [
            "0",
            "0",
            "max(0, N)",
            "9 + 85 max(0, M) max(0, N) + 64 max(0, N)",
        ],
    },
    Bench {
        file: "syn-brdis-opt.cu",
        block: [32, 1, 1],
        racuda: [
            "0",
            "0",
            "2 max(0, N)",
            "9 + 69 max(0, M) max(0, N) + 62 max(0, N)",
        ],
    },
];

/// The first reason of an analysis failure, on one line and without table separators.
fn short_reason(e: &str) -> String {
    let one = e.replace(['|', '\n'], " ");
    let first = one.split("; ").take(2).collect::<Vec<_>>().join("; ");
    if first.chars().count() > 160 {
        format!("{}…", first.chars().take(160).collect::<String>())
    } else {
        first
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs.get(xs.len() / 2).copied().unwrap_or(0.0)
}

/// Runs `warpcert bench`; prints the table, returns 0 when every row has a checked bound.
pub fn run(args: &BenchArgs) -> i32 {
    if !args.corpus.is_dir() {
        eprintln!(
            "error: benchmark folder {} not found (it is ../shared/corpus/racuda beside the project)",
            args.corpus.display()
        );
        return EXIT_BAD_INPUT;
    }
    let hw = Hardware::default();
    println!(
        "| kernel | metric | warpcert bound (per warp) | RaCUDA bound | certificate | analysis ms | check ms |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut all_ok = true;
    for b in BENCHES {
        let path = args.corpus.join(b.file);
        let launch = Launch {
            block: b.block,
            grid: None,
        };
        let loaded = frontend::parse_file(&path)
            .map_err(|d| d.to_string())
            .and_then(|p| {
                frontend::lower(&p, None, &launch, &hw, &BTreeMap::new()).map_err(|d| d.to_string())
            });
        let program = match loaded {
            Ok((p, _)) => p,
            Err(e) => {
                all_ok = false;
                let first = e.lines().next().unwrap_or("").to_string();
                println!("| {} | all | front end: {first} | | | | |", b.file);
                continue;
            }
        };
        let stem = b.file.trim_end_matches(".cu");
        let l = Loaded {
            program,
            launch,
            hw,
            metrics: MetricName::ALL.to_vec(),
            warnings: Vec::new(),
            block_source: "bench",
        };
        for (i, &m) in MetricName::ALL.iter().enumerate() {
            let mut times = Vec::new();
            let mut checks = Vec::new();
            let mut last = None;
            for _ in 0..args.runs.max(1) {
                match analyze_metric(&l, m, 2, None) {
                    Ok(o) => {
                        if let AnalyzeOutcome::Bound(r) = &o {
                            times.push(r.time_ms);
                            checks.push(r.certificate.check_ms);
                        }
                        last = Some(o);
                    }
                    Err(e) => {
                        eprintln!("error: {e}");
                        return EXIT_FAILED;
                    }
                }
                if !matches!(last, Some(AnalyzeOutcome::Bound(_))) {
                    break;
                }
            }
            match last {
                Some(AnalyzeOutcome::Bound(r)) => {
                    all_ok &= r.certificate.checked;
                    println!(
                        "| {} | {} | {} | {} | {} | {:.1} | {:.1} |",
                        stem,
                        m,
                        r.per_warp,
                        b.racuda[i],
                        if r.certificate.checked {
                            "accepted"
                        } else {
                            "REJECTED"
                        },
                        median(times),
                        median(checks)
                    );
                }
                Some(AnalyzeOutcome::Failure(f)) => {
                    all_ok = false;
                    println!(
                        "| {} | {} | no bound: {} | {} | – | – | – |",
                        stem,
                        m,
                        short_reason(&f.error),
                        b.racuda[i]
                    );
                }
                None => {}
            }
        }
    }
    if all_ok {
        0
    } else {
        EXIT_FAILED
    }
}
