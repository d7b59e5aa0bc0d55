//! Turning `KernelArgs` into a loaded kernel: metric list, launch, hardware, parameter
//! values, and the front end's program. Errors are messages for exit code 2.

use super::KernelArgs;
use crate::core::{Hardware, Launch, MetricName, Program};
use crate::frontend;
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

/// Reads, parses and lowers the kernel named by `args`; `Err` is a rendered diagnostic.
pub fn load(args: &KernelArgs, default_grid: Option<[u32; 3]>) -> Result<Loaded, String> {
    let metrics = parse_metrics(&args.metric)?;
    let params = parse_params(&args.params)?;
    let hw = Hardware {
        warp_size: args.warp_size,
        banks: args.banks,
        bank_bytes: args.bank_bytes,
        sector_bytes: args.sector_bytes,
    };
    if hw.warp_size == 0 || hw.banks == 0 || hw.bank_bytes == 0 || hw.sector_bytes == 0 {
        return Err("hardware parameters must be positive".into());
    }
    let parsed = frontend::parse_file(&args.file).map_err(|d| d.to_string())?;
    let (block, block_source) = match (&args.block, parsed.header.block) {
        (Some(b), _) => (parse_dims(b, "block")?, "--block"),
        (None, Some(b)) => (b, "file header"),
        (None, None) => (DEFAULT_BLOCK, "default"),
    };
    let grid = match (&args.grid, parsed.header.grid) {
        (Some(g), _) => Some(parse_dims(g, "grid")?),
        (None, Some(g)) => Some(g),
        (None, None) => default_grid,
    };
    let launch = Launch { block, grid };
    let (program, warnings) =
        frontend::lower(&parsed, args.kernel.as_deref(), &launch, &hw, &params)
            .map_err(|d| d.to_string())?;
    // `lower` returns the parse warnings too.
    let rendered: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
    Ok(Loaded {
        program,
        launch,
        hw,
        metrics,
        warnings: rendered,
        block_source,
    })
}
