//! Running clang 14 on a CUDA file: the command line, the prelude and the stub toolkit
//! headers written to a temporary directory, and clang's own diagnostics.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The prelude (`prelude.cuh`), passed with `-include`.
pub const PRELUDE: &str = include_str!("prelude.cuh");

/// CUDA toolkit (and CUDA Samples helper) headers answered by the prelude: each is an
/// empty stub, so `#include <cuda_runtime.h>` finds it and the prelude's declarations are
/// what the kernel sees.
pub const STUB_HEADERS: &[&str] = &[
    "cuda.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "device_launch_parameters.h",
    "device_functions.h",
    "vector_types.h",
    "vector_functions.h",
    "cooperative_groups.h",
    "cooperative_groups/reduce.h",
    "cooperative_groups/scan.h",
    "cuda_fp16.h",
    "math_constants.h",
    "helper_cuda.h",
    "helper_functions.h",
    "sm_20_atomic_functions.h",
    "sm_32_intrinsics.h",
];

const STUB_EXTRA: &str = "#pragma once\n#ifndef checkCudaErrors\n#define checkCudaErrors(x) (x)\n#define getLastCudaError(msg) ((void)0)\n#endif\n#ifndef CUDART_PI_F\n#define CUDART_PI_F 3.141592654f\n#define CUDART_PI 3.1415926535897931\n#define CUDART_INF_F __builtin_huge_valf()\n#endif\n";

/// The clang executable: `$WARPCERT_CLANG` when set (an empty value or a missing program
/// means "no clang": tests use it to check the builtin path), else `clang`.
pub fn clang_program() -> String {
    std::env::var("WARPCERT_CLANG").unwrap_or_else(|_| "clang".to_string())
}

/// Whether a clang that can read CUDA is installed (its `--version` runs).
pub fn available() -> bool {
    let prog = clang_program();
    if prog.is_empty() {
        return false;
    }
    Command::new(&prog)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// The per-process directory of [`support_dir`], once written.
static SUPPORT_DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// The directory holding `prelude.cuh` and `include/` (the stubs), written once per process
/// under the system's temporary directory (`warpcert-clang-PID`); [`remove_support_dir`]
/// deletes it. Errors: the directory or a file cannot be written (the message names it).
pub fn support_dir() -> Result<&'static Path, String> {
    SUPPORT_DIR
        .get_or_init(|| {
            remove_stale_support_dirs();
            let dir = std::env::temp_dir().join(format!("warpcert-clang-{}", std::process::id()));
            let inc = dir.join("include");
            let w = |p: &Path, t: &str| -> Result<(), String> {
                if let Some(d) = p.parent() {
                    std::fs::create_dir_all(d)
                        .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
                }
                std::fs::write(p, t).map_err(|e| format!("cannot write {}: {e}", p.display()))
            };
            w(&dir.join("prelude.cuh"), PRELUDE)?;
            for h in STUB_HEADERS {
                w(&inc.join(h), STUB_EXTRA)?;
            }
            Ok(dir)
        })
        .as_ref()
        .map(|p| p.as_path())
        .map_err(|e| e.clone())
}

/// Deletes the directory [`support_dir`] wrote, if this process wrote one (the command line
/// calls it before exiting; a failure to delete is ignored: the directory is scratch).
pub fn remove_support_dir() {
    if let Some(Ok(dir)) = SUPPORT_DIR.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Deletes the `warpcert-clang-PID` directories of processes that no longer run. A process
/// that uses the front end as a library (the test binaries, an embedding tool) never calls
/// [`remove_support_dir`], so its directory outlives it; the next process to write one
/// collects it. Liveness is read from `/proc/PID`; where `/proc` is absent (not Linux),
/// nothing is deleted. Errors are ignored: the directories are scratch.
fn remove_stale_support_dirs() {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("warpcert-clang-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// One diagnostic of clang: file, line, column, `error`/`fatal error`, message.
#[derive(Clone, Debug)]
pub struct ClangDiag {
    /// File as clang printed it.
    pub file: String,
    /// Line.
    pub line: u32,
    /// Column.
    pub col: u32,
    /// `fatal error` / `error`.
    pub fatal: bool,
    /// The message.
    pub message: String,
}

/// Reads clang's `file:line:col: error: message` lines.
pub fn diagnostics(stderr: &str) -> Vec<ClangDiag> {
    let mut out = Vec::new();
    for l in stderr.lines() {
        let (fatal, split) = if let Some(i) = l.find(": fatal error: ") {
            (true, (i, ": fatal error: ".len()))
        } else if let Some(i) = l.find(": error: ") {
            (false, (i, ": error: ".len()))
        } else {
            continue;
        };
        let head = &l[..split.0];
        let message = l[split.0 + split.1..].to_string();
        let mut parts = head.rsplitn(3, ':');
        let col = parts.next().and_then(|c| c.parse().ok()).unwrap_or(0);
        let line = parts.next().and_then(|c| c.parse().ok()).unwrap_or(0);
        let file = parts.next().unwrap_or("").to_string();
        out.push(ClangDiag {
            file,
            line,
            col,
            fatal,
            message,
        });
    }
    out
}

/// The arguments for dumping the AST of `file`; `extra`: the user's `--extra-arg`s, after
/// warpcert's own (so a later `-D`, `-U` or `-std` wins) and before the AST dump and the
/// file.
pub fn command(
    file: &Path,
    includes: &[PathBuf],
    defines: &[String],
    std: Option<&str>,
    extra: &[String],
) -> Result<Command, String> {
    let dir = support_dir()?;
    let mut c = Command::new(clang_program());
    c.args([
        "-x",
        "cuda",
        "--cuda-device-only",
        "-nocudainc",
        "-nocudalib",
        "-fsyntax-only",
        "-w",
        "-ferror-limit=0",
        "-fno-color-diagnostics",
    ]);
    c.arg(format!("-std={}", std.unwrap_or("c++17")));
    c.arg("-isystem").arg(dir.join("include"));
    c.arg("-include").arg(dir.join("prelude.cuh"));
    for i in includes {
        c.arg("-I").arg(i);
    }
    for d in defines {
        c.arg(format!("-D{d}"));
    }
    c.args(extra);
    c.args(["-Xclang", "-ast-dump=json"]).arg(file);
    Ok(c)
}
