//! Turning `KernelArgs` into a loaded kernel: metric list, launch, hardware, parameter
//! values, and the front end's program. Errors are messages for exit code 2.

use super::KernelArgs;
use crate::core::{Hardware, Launch, MetricName, Program};
use crate::frontend::Pos;
use crate::report::error::{ErrorKind, ErrorReport};
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

/// CUDA's limit on the threads of one block.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// CUDA's limits on `blockDim.{x,y,z}`.
pub const MAX_BLOCK: [u64; 3] = [1024, 1024, 64];
/// CUDA's limits on `gridDim.{x,y,z}`.
pub const MAX_GRID: [u64; 3] = [(1 << 31) - 1, 65535, 65535];
/// Largest `--warp-size` (a warp has at most as many lanes as a block has threads).
pub const MAX_WARP_SIZE: u32 = 1024;
/// Largest `--banks`, `--bank-bytes`, `--sector-bytes`.
pub const MAX_HW_PARAM: u32 = 65536;

/// Where a launch dimension came from, for error messages: a flag or a header position.
#[derive(Clone, Debug)]
pub(super) enum DimSource<'a> {
    /// `--block` / `--grid`.
    Flag(&'static str),
    /// A `//--blockDim=` / `//--gridDim=` header of a file, at a position.
    Header(&'a str, Pos),
}

impl DimSource<'_> {
    fn error(&self, msg: String) -> ErrorReport {
        match self {
            DimSource::Flag(f) => ErrorReport::new(ErrorKind::Launch, format!("--{f}: {msg}")),
            DimSource::Header(file, p) => {
                let mut e = ErrorReport::in_file(
                    ErrorKind::Launch,
                    file,
                    format!("launch header: {msg} (give --block/--grid to override)"),
                );
                e.line = Some(p.line);
                e.column = Some(p.col);
                e.text = format!("{}\n --> {file}:{}:{}", e.text, p.line, p.col);
                e
            }
        }
    }
}

/// Parses `X[,Y[,Z]]` (optionally in brackets) into three positive dimensions; the limits
/// are checked by [`check_block`] / [`check_grid`].
pub fn parse_dims(s: &str, what: &'static str) -> Result<[u64; 3], ErrorReport> {
    let err = |m: String| ErrorReport::new(ErrorKind::Launch, format!("--{what}: {m}"));
    let inner = s.trim();
    let inner = inner
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(inner);
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(err(format!("expects X[,Y[,Z]], got `{s}`")));
    }
    let mut dims = [1u64; 3];
    for (i, p) in parts.iter().enumerate() {
        dims[i] = match p.parse::<u64>() {
            Ok(d) if d > 0 => d,
            Ok(_) => return Err(err(format!("`{p}`: dimensions must be positive"))),
            Err(_) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(err(format!("`{p}` is too large")))
            }
            Err(_) => return Err(err(format!("`{p}` is not a positive integer"))),
        };
    }
    Ok(dims)
}

fn to_u32(d: [u64; 3]) -> [u32; 3] {
    d.map(|x| u32::try_from(x).unwrap_or(u32::MAX))
}

/// Checks a block against CUDA's limits (each dimension ≤ [`MAX_BLOCK`], at most
/// [`MAX_BLOCK_THREADS`] threads in all).
pub(super) fn check_block(d: [u64; 3], src: &DimSource) -> Result<[u32; 3], ErrorReport> {
    for (k, axis) in ["x", "y", "z"].iter().enumerate() {
        if d[k] > MAX_BLOCK[k] {
            return Err(src.error(format!(
                "blockDim.{axis} = {} exceeds CUDA's limit of {}",
                d[k], MAX_BLOCK[k]
            )));
        }
    }
    // each dimension is at most 1024 here, so the product fits
    let threads: u64 = d.iter().product();
    if threads > MAX_BLOCK_THREADS {
        return Err(src.error(format!(
            "a block of {}x{}x{} = {threads} threads exceeds CUDA's limit of {MAX_BLOCK_THREADS} threads per block",
            d[0], d[1], d[2]
        )));
    }
    Ok(to_u32(d))
}

/// Checks a grid against CUDA's limits ([`MAX_GRID`]).
pub(super) fn check_grid(d: [u64; 3], src: &DimSource) -> Result<[u32; 3], ErrorReport> {
    for (k, axis) in ["x", "y", "z"].iter().enumerate() {
        if d[k] > MAX_GRID[k] {
            return Err(src.error(format!(
                "gridDim.{axis} = {} exceeds CUDA's limit of {}",
                d[k], MAX_GRID[k]
            )));
        }
    }
    Ok(to_u32(d))
}

/// The hardware parameters of `args`, checked: positive, `--warp-size` at most
/// [`MAX_WARP_SIZE`], the others at most [`MAX_HW_PARAM`] (a usage error otherwise).
pub fn hardware(args: &KernelArgs) -> Result<Hardware, ErrorReport> {
    let usage = |m: String| ErrorReport::new(ErrorKind::Usage, m);
    let hw = Hardware {
        warp_size: args.warp_size,
        banks: args.banks,
        bank_bytes: args.bank_bytes,
        sector_bytes: args.sector_bytes,
    };
    if hw.warp_size == 0 || hw.banks == 0 || hw.bank_bytes == 0 || hw.sector_bytes == 0 {
        return Err(usage("hardware parameters must be positive".into()));
    }
    if hw.warp_size > MAX_WARP_SIZE
        || [hw.banks, hw.bank_bytes, hw.sector_bytes]
            .iter()
            .any(|&p| p > MAX_HW_PARAM)
    {
        return Err(usage(format!(
            "hardware parameters out of range (--warp-size at most {MAX_WARP_SIZE}, --banks, --bank-bytes, --sector-bytes at most {MAX_HW_PARAM})"
        )));
    }
    Ok(hw)
}

/// The number of warps of a launch with a concrete grid, exactly (at most
/// (2³¹−1)·65535²·1024 under CUDA's limits, which needs more than 64 bits).
pub fn total_warps(launch: &Launch, hw: &Hardware) -> Option<u128> {
    let per_block = u128::from(launch.warps_per_block(hw));
    let g = launch.grid?;
    g.iter()
        .try_fold(per_block, |acc, &d| acc.checked_mul(u128::from(d)))
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

/// Reads, parses and lowers the kernel named by `args` (or the file's only kernel). Errors:
/// bad options, an unreadable file, a front-end diagnostic, a launch outside CUDA's limits
/// or hardware parameters out of range, each as an [`ErrorReport`] (exit 2); several kernels
/// without `--kernel`. Every kernel of a file: `super::kernels::load_entries`.
pub fn load(args: &KernelArgs, default_grid: Option<[u32; 3]>) -> Result<Loaded, ErrorReport> {
    let super::kernels::FileLoad {
        mut entries, notes, ..
    } = super::kernels::load_entries(args, default_grid)?;
    if entries.len() != 1 {
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        return Err(ErrorReport::new(
            ErrorKind::Usage,
            format!(
                "several `__global__` kernels ({}); choose one with --kernel",
                names.join(", ")
            ),
        ));
    }
    let mut l = entries.remove(0).loaded?;
    l.warnings.extend(notes);
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_launch_limits() {
        let flag = DimSource::Flag("block");
        // CUDA C Programming Guide, "Compute capabilities" table: 1024 threads per block,
        // block ≤ 1024×1024×64, grid ≤ (2³¹−1)×65535×65535.
        assert_eq!(check_block([1024, 1, 1], &flag).ok(), Some([1024, 1, 1]));
        assert_eq!(check_block([32, 32, 1], &flag).ok(), Some([32, 32, 1]));
        assert!(check_block([1025, 1, 1], &flag).is_err());
        assert!(check_block([1, 1, 65], &flag).is_err());
        assert!(check_block([1024, 1024, 64], &flag).is_err());
        assert!(check_block([4294967295, 1, 1], &flag).is_err());
        let g = [2147483647, 65535, 65535];
        assert_eq!(check_grid(g, &flag).ok(), Some([2147483647, 65535, 65535]));
        assert!(check_grid([2147483648, 1, 1], &flag).is_err());
        assert!(check_grid([1, 65536, 1], &flag).is_err());
        for bad in ["0", "-3", "abc", "1,2,3,4", "", "99999999999999999999"] {
            assert!(parse_dims(bad, "grid").is_err(), "{bad}");
        }
        assert_eq!(parse_dims("[4,2]", "grid").ok(), Some([4, 2, 1]));
    }

    #[test]
    fn total_warps_is_exact_beyond_64_bits() {
        let hw = Hardware::default();
        let launch = Launch {
            block: [1024, 1, 1],
            grid: Some([2147483647, 65535, 65535]),
        };
        // 1024 / 32 = 32 warps per block, times (2³¹−1)·65535² blocks (by hand), which is
        // more than u64 can hold.
        let blocks: u128 = 2147483647 * 65535 * 65535;
        assert_eq!(total_warps(&launch, &hw), Some(32 * blocks));
        assert!(32 * blocks > u128::from(u64::MAX));
    }
}
