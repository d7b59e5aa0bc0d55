//! `warpcert bench --scaling` (issue 13, item 6): how analysis, certificate and checking
//! grow with the program. Kernel families grow one dimension at a time:
//!
//! * `statements`: `n` straight-line statements with global and shared accesses;
//! * `loops`: `n` sequential loops `for (i = 0; i < m; i++)` with a global access each;
//! * `branches`: `n` divergent `if`/`else` on the thread index;
//! * `params`: `n` scalar parameters, each used in one global access;
//! * `depth`: a loop nest of depth `n`, analysed with the default options (the degree of
//!   the templates, `n`, is chosen per nest by the analysis: `derive/nest.rs`);
//! * `relation`: the same nest under `--relation auto` (`sectors` and `conflicts`: Pico's
//!   relational analysis, its kernel-replayed point checks within their budget, and the
//!   certified companion; the time is all of it, the check time is not split out).
//!
//! Each (family, size) point runs in a child process of the same binary (the hidden
//! `scaling-point` subcommand) so that its peak memory is its own; the parent polls the
//! child's resident set (`/proc/PID/status`, Linux) and kills it past the per-point time or
//! memory limit, reporting `> limit`, and does not run the family's larger sizes. Per family
//! the growth exponent of time, memory and certificate size is fitted by least squares on
//! the log-log points that finished.

use super::guard::map_metrics;
use crate::analysis::{analyze, AnalysisOptions};
use crate::core::{Hardware, Launch, Metric, MetricName, Stmt};
use crate::frontend;
use crate::report::scaling::{scaling_table, PointOutcome, PointResult, ScalingRow};
use clap::Args;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The families and their default sizes.
pub const FAMILIES: &[(&str, &[u32])] = &[
    ("statements", &[100, 300, 1000, 3000, 10000]),
    ("loops", &[10, 30, 100, 300, 1000]),
    ("branches", &[10, 30, 100, 300, 1000]),
    ("params", &[10, 30, 100, 300, 1000]),
    ("depth", &[1, 2, 3, 4, 5, 6, 7]),
    ("relation", &[1, 2, 3, 4, 5, 6, 7]),
];

/// Options of `bench --scaling`.
#[derive(Clone, Debug, Args)]
pub struct ScalingArgs {
    /// Families to run (comma-separated): statements, loops, branches, params, depth,
    /// relation.
    #[arg(
        long,
        default_value = "statements,loops,branches,params,depth,relation"
    )]
    pub families: String,
    /// Sizes to run instead of each family's defaults (comma-separated).
    #[arg(long)]
    pub sizes: Option<String>,
    /// Metric(s) analysed at each point: sectors, conflicts, divwarps, steps, or all.
    #[arg(long, default_value = "all")]
    pub scaling_metric: String,
    /// Time limit of one point (analysis and check of every metric), in seconds.
    #[arg(long, default_value_t = 60)]
    pub time_limit: u64,
    /// Memory limit of one point (peak resident set), in MB.
    #[arg(long, default_value_t = 4000)]
    pub mem_limit: u64,
}

/// Arguments of the hidden `scaling-point` subcommand (one point, in a child process).
#[derive(Clone, Debug, Args)]
pub struct PointArgs {
    /// Family name.
    #[arg(long)]
    family: String,
    /// Size.
    #[arg(long)]
    size: u32,
    /// Metric(s).
    #[arg(long, default_value = "all")]
    metric: String,
}

/// The CUDA source of `family` at size `n`, or `None` for an unknown family.
///
/// Every kernel has a global array `g`, a shared array `s` of 256 floats and an `int`
/// parameter `m` (loop bound); blocks have 256 threads. Statements are numbered so that no
/// two are identical.
pub fn generate(family: &str, n: u32) -> Option<String> {
    let mut body = String::new();
    let mut params = String::from("float *g, int m");
    match family {
        "statements" => {
            for k in 0..n {
                let line = match k % 4 {
                    0 => format!("x = x + g[threadIdx.x + {k}];"),
                    1 => "s[threadIdx.x] = x;".to_string(),
                    2 => format!("x = s[(threadIdx.x + {k}) % 256] * 0.5f;"),
                    _ => format!("g[blockIdx.x * 256 + threadIdx.x + {k}] = x;"),
                };
                let _ = writeln!(body, "    {line}");
            }
        }
        "loops" => {
            for k in 0..n {
                let _ = writeln!(
                    body,
                    "    for (int i{k} = 0; i{k} < m; i{k}++) {{ x = x + g[threadIdx.x + {k}]; }}"
                );
            }
        }
        "branches" => {
            for k in 0..n {
                let _ = writeln!(
                    body,
                    "    if (threadIdx.x % 2 == {}) {{ x = x + g[threadIdx.x + {k}]; }} else {{ s[threadIdx.x] = x; }}",
                    k % 2
                );
            }
        }
        "params" => {
            for k in 0..n {
                let _ = write!(params, ", int p{k}");
                let _ = writeln!(body, "    x = x + g[threadIdx.x + p{k}];");
            }
        }
        "depth" | "relation" => {
            for k in 0..n {
                let pad = "    ".repeat(k as usize + 1);
                let _ = writeln!(body, "{pad}for (int i{k} = 0; i{k} < m; i{k}++) {{");
            }
            let pad = "    ".repeat(n as usize + 1);
            let _ = writeln!(body, "{pad}x = x + g[threadIdx.x];");
            for k in (0..n).rev() {
                let _ = writeln!(body, "{}}}", "    ".repeat(k as usize + 1));
            }
        }
        _ => return None,
    }
    Some(format!(
        "// warpcert bench --scaling: family {family}, size {n} (generated)\n\
         __global__ void {family}_{n}({params}) {{\n    __shared__ float s[256];\n    float x = 0.0f;\n{body}    g[threadIdx.x] = x;\n}}\n"
    ))
}

/// Peak resident set of this process (`VmHWM`) in kB, 0 where `/proc` is absent.
fn own_peak_kb() -> u64 {
    proc_status_kb("self", "VmHWM:")
}

/// A `kB` field of `/proc/PID/status`.
fn proc_status_kb(pid: &str, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// CPU time (user + system) of this process so far in seconds, threads that have ended
/// included (the analysis runs in its own thread): `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`
/// on Linux (through the `libc` crate), in nanoseconds (issue 13: the clock ticks of `/proc/self/stat`, 1/100 s,
/// made the small points of a family read 0.00 or 0.01 s and moved its fitted CPU exponent
/// by ±0.1), else [`proc_cpu_s`].
pub(crate) fn own_cpu_s() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `clock_gettime` writes one `timespec` (libc's own declaration of the
        // struct) through a pointer to a live local; the clock id is valid on every Linux
        // since 2.6.12, and an error leaves `t` unread.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) } == 0 {
            return t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9;
        }
    }
    proc_cpu_s()
}

/// CPU time (user + system) of this process so far in seconds from fields 14 and 15 of
/// `/proc/self/stat` (Linux), in clock ticks of 1/100 s (`USER_HZ`, 100 on Linux); 0 where
/// absent.
fn proc_cpu_s() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // the command name (field 2) is parenthesized and may hold spaces
            let rest = s.get(s.rfind(')')? + 1..)?;
            let f: Vec<&str> = rest.split_whitespace().collect();
            // `rest` starts at field 3, so fields 14 and 15 are its items 11 and 12
            let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
            Some(ticks as f64 / 100.0)
        })
        .unwrap_or(0.0)
}

fn metrics_of(spec: &str) -> Result<Vec<MetricName>, String> {
    if spec == "all" {
        return Ok(MetricName::ALL.to_vec());
    }
    spec.split(',')
        .map(|m| {
            MetricName::ALL
                .iter()
                .copied()
                .find(|x| x.to_string() == m.trim())
                .ok_or_else(|| format!("unknown metric `{m}`"))
        })
        .collect()
}

/// `warpcert scaling-point`: generates, analyses and checks one point and prints its
/// [`PointResult`] as one JSON line. Exit 0, or 2 for an unknown family or metric.
pub fn run_point(a: &PointArgs) -> i32 {
    let (src, metrics) = match (generate(&a.family, a.size), metrics_of(&a.metric)) {
        (Some(s), Ok(m)) => (s, m),
        (None, _) => {
            eprintln!("unknown family `{}`", a.family);
            return super::EXIT_BAD_INPUT;
        }
        (_, Err(e)) => {
            eprintln!("{e}");
            return super::EXIT_BAD_INPUT;
        }
    };
    let hw = Hardware::default();
    let launch = Launch {
        block: [256, 1, 1],
        grid: None,
    };
    let mut r = PointResult::default();
    let lowered = frontend::parse_str("scaling.cu", &src)
        .and_then(|p| frontend::lower(&p, None, &launch, &hw, &BTreeMap::new()));
    let prog = match lowered {
        Ok((p, _)) => p,
        Err(d) => {
            r.errors.push(format!("front end: {d}"));
            println!("{}", serde_json::to_string(&r).unwrap_or_default());
            return 0;
        }
    };
    r.statements = statement_count(&prog.body);
    if a.family == "relation" {
        relation_point(prog, hw, launch, &metrics, &mut r);
        r.peak_mb = own_peak_kb() as f64 / 1024.0;
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
        return 0;
    }
    metrics_point(&prog, &hw, &launch, &metrics, &mut r);
    r.peak_mb = own_peak_kb() as f64 / 1024.0;
    println!("{}", serde_json::to_string(&r).unwrap_or_default());
    0
}

/// Analyses and checks `metrics` of `prog` into `r`, the metrics concurrently on the
/// available cores ([`map_metrics`]), each metric's analysis and check in one task: its
/// derivation is freed as soon as its certificate text is written (so that it and the
/// kernel's parse are not in memory together: freeing it during the check raised the peak
/// by 20–80 %), and the text after its check. Issue 13: two phases (every analysis, then
/// every check) made the two workers reach their analyses' peaks together; one task per
/// metric lowered statements 10 000's peak by 15–20 MB for the same CPU time. `analysis_s`
/// and `check_s` split the wall-clock time of all metrics in the ratio of the summed
/// per-metric analysis and check times, `cpu_s` is the CPU time of both (all threads).
/// Errors, bounds and certificate bytes are summed in the order of `metrics`.
fn metrics_point(
    prog: &crate::core::Program,
    hw: &Hardware,
    launch: &Launch,
    metrics: &[MetricName],
    r: &mut PointResult,
) {
    let c0 = own_cpu_s();
    let t0 = Instant::now();
    let done: Vec<(u64, f64, f64, Result<(), String>)> = map_metrics(metrics, |&m| {
        let ta = Instant::now();
        let cert = analyze(
            prog,
            &Metric::standard(m),
            hw,
            launch,
            &AnalysisOptions::default(),
        )
        .map(|mut an| std::mem::take(&mut an.certificate))
        .map_err(|e| format!("{m}: {e}"));
        let (a_s, tc) = (ta.elapsed().as_secs_f64(), Instant::now());
        let bytes = cert.as_ref().map_or(0, |t| t.len() as u64);
        let ok = cert.and_then(|text| {
            warpcert_kernel::check(&text)
                .map(|_| ())
                .map_err(|_| format!("{m}: certificate rejected"))
        });
        (bytes, a_s, tc.elapsed().as_secs_f64(), ok)
    });
    let wall = t0.elapsed().as_secs_f64();
    r.cpu_s += own_cpu_s() - c0;
    let (a, c): (f64, f64) = done.iter().fold((0.0, 0.0), |(a, c), d| (a + d.1, c + d.2));
    let share = if a + c > 0.0 { a / (a + c) } else { 1.0 };
    r.analysis_s += wall * share;
    r.check_s += wall * (1.0 - share);
    for (bytes, _, _, ok) in done {
        r.metrics += 1;
        r.cert_bytes += bytes;
        match ok {
            Ok(()) => r.bounds += 1,
            Err(e) => r.errors.push(e),
        }
    }
}

/// The `relation` family's point: `--relation auto` on each relational metric of `metrics`
/// (`sectors`, `conflicts`; the others are not relational and are left out). A metric
/// counts as bounded when it got a relational result; its time (relational analysis, point
/// checks, certified companion and its check) is the analysis time: the wall-clock time of
/// the relational metrics run concurrently ([`map_metrics`]), `cpu_s` their CPU time.
fn relation_point(
    program: crate::core::Program,
    hw: Hardware,
    launch: Launch,
    metrics: &[MetricName],
    r: &mut PointResult,
) {
    let l = super::options::Loaded {
        program,
        launch,
        hw,
        metrics: metrics.to_vec(),
        warnings: Vec::new(),
        block_source: "bench --scaling",
    };
    let relational: Vec<MetricName> = metrics
        .iter()
        .copied()
        .filter(|m| matches!(m, MetricName::Sectors | MetricName::Conflicts))
        .collect();
    let (c0, t0) = (own_cpu_s(), Instant::now());
    let reports = map_metrics(&relational, |&m| {
        super::relation::relation_report(&l, m, super::relation::RelationArg::Auto, None)
    });
    r.analysis_s += t0.elapsed().as_secs_f64();
    r.cpu_s += own_cpu_s() - c0;
    for (m, rep) in relational.iter().zip(reports) {
        r.metrics += 1;
        if rep.relation.is_some() {
            r.bounds += 1;
        } else {
            r.errors.push(format!(
                "{m}: {}",
                rep.note.unwrap_or_else(|| "no relational result".into())
            ));
        }
    }
}

/// Runs one point in a child process under the limits.
fn run_child(family: &str, size: u32, args: &ScalingArgs) -> PointOutcome {
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return PointOutcome::Failed(format!("cannot find own executable: {e}")),
    };
    let child = Command::new(exe)
        .args(["scaling-point", "--family", family, "--size"])
        .arg(size.to_string())
        .args(["--metric", &args.scaling_metric])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return PointOutcome::Failed(format!("cannot start the point: {e}")),
    };
    let pid = child.id().to_string();
    let start = Instant::now();
    let limit = Duration::from_secs(args.time_limit);
    let mut peak_kb = 0;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) => {}
            Err(e) => return PointOutcome::Failed(e.to_string()),
        }
        peak_kb = peak_kb.max(proc_status_kb(&pid, "VmRSS:"));
        let over_mem = peak_kb / 1024 > args.mem_limit;
        if over_mem || start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return if over_mem {
                PointOutcome::MemLimit(args.mem_limit)
            } else {
                PointOutcome::TimeLimit(args.time_limit)
            };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    match child.wait_with_output() {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout);
            match serde_json::from_str::<PointResult>(text.trim()) {
                Ok(r) => PointOutcome::Done(r),
                Err(_) => PointOutcome::Failed(format!(
                    "the point ended without a result ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .last()
                        .unwrap_or("")
                )),
            }
        }
        Err(e) => PointOutcome::Failed(e.to_string()),
    }
}

/// `warpcert bench --scaling`: prints the table of every family × size and the fitted
/// exponents. Exit 0, or 2 for an unknown family or a bad size list.
pub fn run(args: &ScalingArgs) -> i32 {
    let sizes: Option<Vec<u32>> = match &args.sizes {
        None => None,
        Some(s) => match s.split(',').map(|x| x.trim().parse()).collect() {
            Ok(v) => Some(v),
            Err(_) => {
                eprintln!("error: --sizes takes a comma-separated list of positive integers");
                return super::EXIT_BAD_INPUT;
            }
        },
    };
    if let Err(e) = metrics_of(&args.scaling_metric) {
        eprintln!("error: {e}");
        return super::EXIT_BAD_INPUT;
    }
    let mut rows = Vec::new();
    for fam in args.families.split(',').map(str::trim) {
        let Some((_, defaults)) = FAMILIES.iter().find(|(f, _)| *f == fam) else {
            eprintln!(
                "error: unknown family `{fam}` (one of statements, loops, branches, params, depth, relation)"
            );
            return super::EXIT_BAD_INPUT;
        };
        let sizes = sizes.clone().unwrap_or_else(|| defaults.to_vec());
        let mut stopped = false;
        for n in sizes {
            let outcome = if stopped {
                PointOutcome::NotRun
            } else {
                let o = run_child(fam, n, args);
                stopped = !matches!(o, PointOutcome::Done(_));
                o
            };
            eprintln!("{fam} {n}: {}", outcome.short());
            rows.push(ScalingRow {
                family: fam.to_string(),
                size: n,
                outcome,
            });
        }
    }
    print!("{}", scaling_table(&rows, &args.scaling_metric));
    0
}

/// The statements of `s` other than `seq` and `skip` (the unit of
/// `PointResult::statements`). Iterative, so a 10 000-statement chain needs no deep stack.
fn statement_count(s: &Stmt) -> u64 {
    let mut n = 0;
    let mut todo = vec![s];
    while let Some(s) = todo.pop() {
        match s {
            Stmt::Skip => {}
            Stmt::Seq(a, b) => todo.extend([&**a, &**b]),
            Stmt::If(_, a, b, _) => {
                n += 1;
                todo.extend([&**a, &**b]);
            }
            Stmt::While(_, b, _) => {
                n += 1;
                todo.push(b);
            }
            Stmt::Assign(..) | Stmt::Write(..) | Stmt::Sync(_) | Stmt::Warp(..) => n += 1,
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Expr, Loc, Operand};

    /// Every family's generated kernel goes through the front end at a small size, and the
    /// size is what grows: `statements` at n has n more statements than at 0 (one per line).
    #[test]
    fn generated_families_lower() {
        let hw = Hardware::default();
        let launch = Launch {
            block: [256, 1, 1],
            grid: None,
        };
        for (fam, _) in FAMILIES {
            for n in [1, 3] {
                let src = generate(fam, n).expect("family");
                let p = frontend::parse_str("t.cu", &src).unwrap_or_else(|d| panic!("{d}"));
                frontend::lower(&p, None, &launch, &hw, &BTreeMap::new())
                    .unwrap_or_else(|d| panic!("{fam} {n}: {d}\n{src}"));
            }
        }
        let lines = |n| generate("statements", n).unwrap().lines().count();
        assert_eq!(lines(10) - lines(0), 10);
        assert_eq!(generate("depth", 3).unwrap().matches("for (").count(), 3);
        assert!(generate("nope", 1).is_none());
    }

    /// The process CPU clock resolves below the 1/100 s tick of `/proc/self/stat` (the
    /// first change of its reading is smaller than a tick) and agrees with `/proc` to a few
    /// ticks (both are the CPU time of the same process).
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    #[test]
    fn cpu_clock_is_finer_than_a_tick() {
        let a = own_cpu_s();
        let mut b = own_cpu_s();
        while b == a {
            b = own_cpu_s();
        }
        assert!(b > a && b - a < 0.01, "{a} -> {b}");
        let (c, p) = (own_cpu_s(), proc_cpu_s());
        assert!((c - p).abs() < 0.05, "clock {c} s, /proc {p} s");
    }

    /// Counted by hand: `x ← 1; while (x) { if (x) skip else sync }` has four statements
    /// (the assignment, the loop, the `if`, the `sync`); `seq` and `skip` do not count.
    #[test]
    fn statement_count_skips_seq_and_skip() {
        let x = || Expr::Opd(Operand::Var("x".into()));
        let body = Stmt::If(
            x(),
            Box::new(Stmt::Skip),
            Box::new(Stmt::Sync(Loc::default())),
            Loc::default(),
        );
        let prog = Stmt::Seq(
            Box::new(Stmt::Assign("x".into(), x(), Loc::default())),
            Box::new(Stmt::While(x(), Box::new(body), Loc::default())),
        );
        assert_eq!(statement_count(&prog), 4);
    }
}
