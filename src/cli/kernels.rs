//! Choosing the front end (`--frontend clang|builtin|auto`, `-I`, `-D`, `--std`,
//! `--compile-commands`, `--extra-arg`) and loading every kernel of a file (`spec/lowering.md` §9).
//!
//! `auto` (the default) uses clang where it is installed; when clang reads the file but no
//! kernel of it lowers (RaCUDA's benchmark dialect is not valid CUDA: kernels without a
//! return type, `__shared__ int s[n]`), or clang cannot read it, the builtin front end's
//! result is used if it lowers a kernel, with a note saying so.

use super::options::{check_block, check_grid, parse_dims, DimSource, Loaded, DEFAULT_BLOCK};
use super::KernelArgs;
use crate::core::{Hardware, Launch, MetricName};
use crate::frontend::clang::{self, ClangOptions, ClangParsed, Instance};
use crate::frontend::{self, Parsed};
use crate::report::error::{ErrorKind, ErrorReport};
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Which front end reads the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FrontendArg {
    /// clang where installed (falls back to builtin for files clang rejects).
    Auto,
    /// clang 14 (CUDA C++: templates, structs, namespaces, cooperative groups).
    Clang,
    /// warpcert's own parser (the C subset and RaCUDA's dialect; needs no clang).
    Builtin,
}

/// Front-end options shared by the commands that read a kernel.
#[derive(Clone, Debug, Args)]
pub struct FrontendArgs {
    /// Front end: auto (clang where installed), clang, builtin.
    #[arg(long, value_enum, default_value = "auto")]
    pub frontend: FrontendArg,
    /// Include directory for clang (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Macro definition NAME[=VALUE] for clang (repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// C++ standard for clang (default c++17).
    #[arg(long = "std")]
    pub std: Option<String>,
    /// compile_commands.json: the include directories and definitions of the file's entry.
    #[arg(long)]
    pub compile_commands: Option<PathBuf>,
    /// One more argument for clang, passed as given after warpcert's own (repeatable, as
    /// clang-tidy's `--extra-arg`): `--extra-arg=-DTILE=16`, `--extra-arg=-isystem/opt/inc`,
    /// `--extra-arg=-Wno-everything`. Arguments that change what clang prints (`-E`,
    /// another `-ast-dump`) make the file unreadable.
    #[arg(long = "extra-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub extra_arg: Vec<String>,
}

impl Default for FrontendArgs {
    /// `--frontend auto`, no `-I`, `-D`, `--std`, `--compile-commands` or `--extra-arg`.
    fn default() -> FrontendArgs {
        FrontendArgs {
            frontend: FrontendArg::Auto,
            include: Vec::new(),
            define: Vec::new(),
            std: None,
            compile_commands: None,
            extra_arg: Vec::new(),
        }
    }
}

impl FrontendArgs {
    /// The clang options.
    pub fn clang_options(&self) -> ClangOptions {
        ClangOptions {
            includes: self.include.clone(),
            defines: self.define.clone(),
            std: self.std.clone(),
            compile_commands: self.compile_commands.clone(),
            extra_args: self.extra_arg.clone(),
        }
    }
}

/// One kernel of the file: its name and its loaded program or the error.
pub struct Entry {
    /// `k` or `k<float, 128>`.
    pub name: String,
    /// The program ready for analysis, or the error.
    pub loaded: Result<Loaded, ErrorReport>,
}

struct Ctx {
    metrics: Vec<MetricName>,
    params: BTreeMap<String, i64>,
    hw: Hardware,
}

/// The `--grid` value that keeps `gridDim` symbolic whatever the header or host code says.
pub const SYMBOLIC_GRID: &str = "symbolic";

/// The launch of one kernel: `--block`/`--grid`, else the file's GPUVerify header, else the
/// host code's `<<<…>>>`, else the default block and `default_grid`; every source checked
/// against CUDA's limits (a located launch error otherwise). Also says where the block came
/// from and, when the host code gave the launch, a note saying so.
fn launch_for(
    args: &KernelArgs,
    file: &str,
    header: frontend::LaunchHeader,
    host: Option<&clang::HostLaunchInfo>,
    default_grid: Option<[u32; 3]>,
) -> Result<(Launch, &'static str, Option<String>), ErrorReport> {
    let mut note = None;
    let wide = |d: [u32; 3]| d.map(u64::from);
    let hdr = |p: Option<frontend::Pos>| DimSource::Header(file, p.unwrap_or_default());
    let host_src = DimSource::Flag("host code's <<<…>>>");
    let (block, src) = match (&args.block, header.block, host.and_then(|h| h.block)) {
        (Some(b), _, _) => (
            check_block(parse_dims(b, "block")?, &DimSource::Flag("block"))?,
            "--block",
        ),
        (None, Some(b), _) => (check_block(wide(b), &hdr(header.block_at))?, "file header"),
        (None, None, Some(b)) => (check_block(wide(b), &host_src)?, "host code"),
        (None, None, None) => (DEFAULT_BLOCK, "default"),
    };
    let grid = match (&args.grid, header.grid, host.and_then(|h| h.grid)) {
        (Some(g), _, _) if g.trim() == SYMBOLIC_GRID => default_grid,
        (Some(g), _, _) => Some(check_grid(
            parse_dims(g, "grid")?,
            &DimSource::Flag("grid"),
        )?),
        (None, Some(g), _) => Some(check_grid(wide(g), &hdr(header.grid_at))?),
        (None, None, Some(g)) => Some(check_grid(wide(g), &host_src)?),
        (None, None, None) => default_grid,
    };
    if let Some(h) = host {
        let used_block = src == "host code";
        let used_grid = args.grid.is_none() && header.grid.is_none() && h.grid.is_some();
        if used_block || used_grid {
            note = Some(format!(
                "note: launch from the host code's `<<<…>>>` at {}: {}{}",
                h.at,
                if used_block {
                    format!("block {}x{}x{}", block[0], block[1], block[2])
                } else {
                    String::new()
                },
                match (used_grid, grid) {
                    (true, Some(g)) => format!(
                        "{}grid {}x{}x{}",
                        if used_block { ", " } else { "" },
                        g[0],
                        g[1],
                        g[2]
                    ),
                    _ => String::new(),
                }
            ));
        }
    }
    Ok((Launch { block, grid }, src, note))
}

fn builtin_entries(
    args: &KernelArgs,
    p: &Parsed,
    cx: &Ctx,
    default_grid: Option<[u32; 3]>,
) -> Vec<Entry> {
    let names: Vec<Option<String>> = match (&args.kernel, p.kernels.len()) {
        (Some(k), _) => vec![Some(k.clone())],
        (None, 0 | 1) => vec![None],
        (None, _) => p.kernels.iter().cloned().map(Some).collect(),
    };
    names
        .into_iter()
        .map(|k| {
            let name = k
                .clone()
                .or_else(|| p.kernels.first().cloned())
                .unwrap_or_default();
            let file = args.file.display().to_string();
            let loaded = launch_for(args, &file, p.header, None, default_grid).and_then(
                |(launch, src, _)| {
                    let (program, warnings) =
                        frontend::lower(p, k.as_deref(), &launch, &cx.hw, &cx.params)?;
                    Ok(Loaded {
                        program,
                        launch,
                        hw: cx.hw,
                        metrics: cx.metrics.clone(),
                        warnings: warnings.iter().map(|w| w.to_string()).collect(),
                        block_source: src,
                    })
                },
            );
            Entry { name, loaded }
        })
        .collect()
}

fn clang_entry(
    args: &KernelArgs,
    cp: &ClangParsed,
    inst: &Instance,
    cx: &Ctx,
    default_grid: Option<[u32; 3]>,
) -> Entry {
    let file = args.file.display().to_string();
    let host = inst.launch.as_ref();
    let loaded = launch_for(args, &file, cp.parsed.header, host, default_grid).and_then(
        |(launch, src, note)| {
            let (program, warnings) = clang::lower(cp, inst, &launch, &cx.hw, &cx.params)?;
            let mut w: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
            w.extend(note);
            Ok(Loaded {
                program,
                launch,
                hw: cx.hw,
                metrics: cx.metrics.clone(),
                warnings: w,
                block_source: src,
            })
        },
    );
    Entry {
        name: inst.display.clone(),
        loaded,
    }
}

fn clang_entries(
    args: &KernelArgs,
    cp: &ClangParsed,
    cx: &Ctx,
    default_grid: Option<[u32; 3]>,
) -> Result<Vec<Entry>, ErrorReport> {
    let usage = |m: String| ErrorReport::new(ErrorKind::Usage, m);
    match &args.kernel {
        None => Ok(cp
            .instances
            .iter()
            .map(|i| clang_entry(args, cp, i, cx, default_grid))
            .collect()),
        Some(k) => match cp
            .instances
            .iter()
            .find(|i| clang::same_name(k, &i.display))
        {
            Some(i) => Ok(vec![clang_entry(args, cp, i, cx, default_grid)]),
            None if k.contains('<') => {
                let cp2 = clang::parse_file(&args.file, &args.front.clang_options(), Some(k))?;
                match cp2
                    .instances
                    .iter()
                    .find(|i| clang::same_name(k, &i.display))
                {
                    Some(i) => Ok(vec![clang_entry(args, &cp2, i, cx, default_grid)]),
                    None => Err(usage(format!(
                        "clang did not instantiate `{k}` (check the template arguments)"
                    ))),
                }
            }
            None => {
                let names: Vec<&str> = cp.instances.iter().map(|i| i.display.as_str()).collect();
                Err(usage(format!(
                    "no kernel named `{k}`; kernels in this file: {}",
                    names.join(", ")
                )))
            }
        },
    }
}

/// Every kernel of a file, with the notes of the front-end choice and the time clang took.
pub struct FileLoad {
    /// One entry per kernel (or template instance).
    pub entries: Vec<Entry>,
    /// Notes to print (a fallback of `--frontend auto`).
    pub notes: Vec<String>,
    /// Milliseconds of the clang process, when clang read the file.
    pub clang_ms: Option<f64>,
    /// `clang` or `builtin`: the front end whose result this is.
    pub frontend: &'static str,
}

/// Reads `args.file` with the chosen front end and loads every kernel (or the one
/// `--kernel` names). Errors: unreadable file, no front end can read it, bad options.
pub fn load_entries(
    args: &KernelArgs,
    default_grid: Option<[u32; 3]>,
) -> Result<FileLoad, ErrorReport> {
    let usage = |m: String| ErrorReport::new(ErrorKind::Usage, m);
    let metrics = super::options::parse_metrics(&args.metric).map_err(usage)?;
    let params = super::options::parse_params(&args.params).map_err(usage)?;
    let hw = super::options::hardware(args)?;
    let cx = Ctx {
        metrics,
        params,
        hw,
    };
    // The builtin front end reads every file first (milliseconds): its limits (nesting,
    // macro output) hold for either front end, and checking them before clang runs keeps a
    // macro bomb from reaching clang (which would expand it without a limit).
    let parsed = frontend::parse_file(&args.file);
    if let Err(d) = &parsed {
        if d.kind == frontend::DiagKind::Limit {
            return Err(ErrorReport::from_diagnostic(d));
        }
    }
    let builtin = |cx: &Ctx| -> Result<Vec<Entry>, ErrorReport> {
        let p = parsed.as_ref().map_err(ErrorReport::from_diagnostic)?;
        Ok(builtin_entries(args, p, cx, default_grid))
    };
    let use_clang = match args.front.frontend {
        FrontendArg::Builtin => false,
        FrontendArg::Clang => true,
        FrontendArg::Auto => clang::available(),
    };
    let done = |entries, notes, clang_ms, frontend| FileLoad {
        entries,
        notes,
        clang_ms,
        frontend,
    };
    if !use_clang {
        return builtin(&cx).map(|e| done(e, Vec::new(), None, "builtin"));
    }
    let mut clang_ms = None;
    let cl = clang::parse_file(&args.file, &args.front.clang_options(), None)
        .map_err(ErrorReport::from)
        .and_then(|cp| {
            clang_ms = Some(cp.clang_ms);
            clang_entries(args, &cp, &cx, default_grid)
        });
    if args.front.frontend == FrontendArg::Clang {
        return cl.map(|e| done(e, Vec::new(), clang_ms, "clang"));
    }
    let none_lowers = |es: &Vec<Entry>| es.iter().all(|e| e.loaded.is_err());
    match cl {
        Ok(es) if !none_lowers(&es) => Ok(done(es, Vec::new(), clang_ms, "clang")),
        other => match builtin(&cx) {
            Ok(b) if !none_lowers(&b) => {
                let why = match &other {
                    Ok(_) => "no kernel read by clang lowers".to_string(),
                    Err(e) => e.error.lines().next().unwrap_or("").to_string(),
                };
                let note = format!(
                    "note: --frontend auto: clang: {why}; the builtin front end read the file"
                );
                Ok(done(b, vec![note], clang_ms, "builtin"))
            }
            // a limit of warpcert holds for either front end, and a clang that crashed says
            // less than the builtin front end's located error
            Err(be)
                if be.kind == ErrorKind::Limit
                    || matches!(&other, Err(ce) if ce.error.starts_with("clang failed")) =>
            {
                Err(be)
            }
            _ => other.map(|e| done(e, Vec::new(), clang_ms, "clang")),
        },
    }
}
