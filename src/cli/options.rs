//! Turning `KernelArgs` into a loaded kernel: metric list, launch, hardware, parameter
//! values, and the front end's program. Errors are messages for exit code 2.

use super::KernelArgs;
use crate::core::{Hardware, Launch, MetricName, Program};
use std::collections::BTreeMap;

/// Block size used when neither `--block` nor a `//--blockDim=` header gives one.
pub const DEFAULT_BLOCK: [u32; 3] = [256, 1, 1];

/// A kernel ready for analysis or execution.
pub struct Loaded {
    /// The lowered program.
    pub program: Program,
    /// The launch used.
    pub launch: Launch,
    /// Hardware parameters.
    pub hw: Hardware,
    /// Metrics requested.
    pub metrics: Vec<MetricName>,
    /// Front-end warnings, already rendered.
    pub warnings: Vec<String>,
    /// Where the block size came from (`--block`, header, default).
    pub block_source: &'static str,
}

/// Parses `X[,Y[,Z]]` into three positive dimensions.
pub fn parse_dims(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(str::trim)
        .collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("--{what} expects X[,Y[,Z]], got `{s}`"));
    }
    let mut dims = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        dims[i] = p
            .parse::<u32>()
            .ok()
            .filter(|&d| d > 0)
            .ok_or_else(|| format!("--{what}: `{p}` is not a positive integer"))?;
    }
    Ok(dims)
}

/// Parses the `--metric` value.
pub fn parse_metrics(s: &str) -> Result<Vec<MetricName>, String> {
    if s == "all" {
        return Ok(MetricName::ALL.to_vec());
    }
    s.split(',')
        .map(|m| m.trim().parse::<MetricName>())
        .collect()
}

/// Parses `NAME=VALUE` pairs.
pub fn parse_params(ps: &[String]) -> Result<BTreeMap<String, i64>, String> {
    let mut out = BTreeMap::new();
    for p in ps {
        let (n, v) = p
            .split_once('=')
            .ok_or_else(|| format!("--param expects NAME=VALUE, got `{p}`"))?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| format!("--param {n}: `{v}` is not an integer"))?;
        out.insert(n.trim().to_string(), v);
    }
    Ok(out)
}

/// Reads, parses and lowers the kernel named by `args` (or the file's only kernel); `Err`
/// is a rendered diagnostic. Every kernel of a file: `super::kernels::load_entries`.
pub fn load(args: &KernelArgs, default_grid: Option<[u32; 3]>) -> Result<Loaded, String> {
    let super::kernels::FileLoad {
        mut entries, notes, ..
    } = super::kernels::load_entries(args, default_grid)?;
    if entries.len() != 1 {
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        return Err(format!(
            "error: several `__global__` kernels ({}); choose one with --kernel",
            names.join(", ")
        ));
    }
    let mut l = entries.remove(0).loaded?;
    l.warnings.extend(notes);
    Ok(l)
}
