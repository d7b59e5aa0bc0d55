//! Process-wide guards of the command line: `--timeout`, `--max-memory`, a closed stdout,
//! and how a resource failure is reported (text on stderr, or a JSON error object on stdout
//! under `--format json`), so that no input ends in a panic, an abort or a long silence.
//!
//! The memory guard is the global allocator of the `warpcert` binary (`src/main.rs`): it
//! calls [`out_of_memory`] when the system refuses memory or the `--max-memory` budget is
//! exceeded. It must not allocate, so the messages are static.

use crate::report::error::{ErrorKind, ErrorReport, FORMAT_VERSION};
use crate::report::Format;
use mimalloc::MiMalloc;
use std::alloc::{GlobalAlloc, Layout};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// Whether errors are printed as JSON on stdout (`--format json`).
static JSON: AtomicBool = AtomicBool::new(false);
/// Memory budget in bytes (0: none).
static BUDGET: AtomicUsize = AtomicUsize::new(0);
/// Bytes currently allocated through [`Guarded`].
static IN_USE: AtomicUsize = AtomicUsize::new(0);
/// Set once a resource failure is being reported (a second one aborts the report).
static FAILING: AtomicBool = AtomicBool::new(false);
/// Set once mimalloc's options are set ([`tune_mimalloc`], before the first allocation).
static MI_TUNED: AtomicBool = AtomicBool::new(false);

/// mimalloc's option number of the size in KiB of the address space an arena reserves at a
/// time (`mi_option_arena_reserve` in `mimalloc.h`, the same in its v2 and v3 sources of
/// `libmimalloc-sys` 0.1.49).
const MI_OPTION_ARENA_RESERVE: i32 = 23;
/// Arena reservation: 64 MiB of address space at a time instead of mimalloc's 1 GiB, which
/// beside the kernel's 1 GiB thread stack and the analysis's 512 MiB one went past a
/// `ulimit -v` of 2 GB (tests/robust.rs; the revert ce42a79).
const ARENA_RESERVE_KIB: i64 = 64 << 10;

/// mimalloc's option number of whether it asks the OS for transparent huge pages
/// (`mi_option_allow_thp` in `mimalloc.h` of `libmimalloc-sys` 0.1.49's v3 sources, the
/// mimalloc it links by default; read at each `mmap` of an arena).
const MI_OPTION_ALLOW_THP: i32 = 43;

/// Sets mimalloc's options once, before its first allocation: a small arena reservation
/// ([`ARENA_RESERVE_KIB`]) and no transparent huge pages (issue 13: on a system whose THP
/// setting is `madvise`, mimalloc's `MADV_HUGEPAGE` on its arenas made partly used 2 MiB
/// pages resident; without it `scaling-point` statements 10 000 `--metric all` peaked
/// 10–20 MB lower for the same CPU time). The purge delay stays mimalloc's (1 s): 0
/// (freed memory returned at once) cost 1.6 s more system time on `scaling-point`
/// statements 10 000 (1.9 s against 0.3 s) for a peak 15 % lower. Must not allocate: it
/// runs inside the allocator.
fn tune_mimalloc() {
    if MI_TUNED.load(Ordering::Relaxed) {
        return;
    }
    extern "C" {
        fn mi_option_set(option: i32, value: std::ffi::c_long);
    }
    // SAFETY: `mi_option_set` stores a value in mimalloc's option table (no allocation);
    // both options exist in the linked mimalloc with these numbers and take these values.
    // It runs on the first allocation, when the process has one thread; a second call from
    // a race would store the same values.
    unsafe {
        mi_option_set(
            MI_OPTION_ARENA_RESERVE,
            ARENA_RESERVE_KIB as std::ffi::c_long,
        );
        mi_option_set(MI_OPTION_ALLOW_THP, 0);
    }
    MI_TUNED.store(true, Ordering::Relaxed);
}

/// Records the output format used for errors reported by the guards.
pub fn set_format(f: Format) {
    JSON.store(f.is_json(), Ordering::Relaxed);
}

/// Sets the memory budget (`--max-memory`, MiB); `None` leaves only the system's limits.
pub fn set_memory_budget(mib: Option<u64>) {
    let bytes = mib.map_or(0, |m| {
        usize::try_from(m.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    });
    BUDGET.store(bytes, Ordering::Relaxed);
}

/// Reports an allocation of `size` bytes that failed (the system refused it or the budget is
/// exhausted) as a resource failure, without allocating, and ends the process with exit
/// code 1. Never returns.
pub fn out_of_memory(size: usize) -> ! {
    if FAILING.swap(true, Ordering::SeqCst) {
        std::process::exit(1);
    }
    let _ = size;
    const MSG: &str = "error: out of memory: resource failure (the machine's memory, `ulimit -v` or --max-memory is exhausted); no certificate was rejected — give a smaller launch or input, or more memory";
    if JSON.load(Ordering::Relaxed) {
        const JSON_MSG: &str = "{\"format_version\":1,\"error\":\"out of memory: resource failure (the machine's memory, ulimit -v or --max-memory is exhausted); no certificate was rejected\",\"file\":null,\"line\":null,\"column\":null,\"kind\":\"resource\"}\n";
        debug_assert_eq!(FORMAT_VERSION, 1);
        raw_write(1, JSON_MSG.as_bytes());
    } else {
        raw_write(2, MSG.as_bytes());
        raw_write(2, b"\n");
    }
    std::process::exit(ErrorKind::Resource.exit_code())
}

/// Writes to file descriptor `fd` without allocating or locking.
fn raw_write(fd: i32, bytes: &[u8]) {
    #[cfg(unix)]
    {
        use std::os::fd::FromRawFd;
        // SAFETY: fd 1 and 2 are open for the life of the process; ManuallyDrop keeps them open.
        let mut f = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
        let _ = f.write_all(bytes);
    }
    #[cfg(not(unix))]
    {
        let _ = fd;
        let _ = std::io::stderr().write_all(bytes);
    }
}

/// The allocator of the `warpcert` binary: mimalloc (the `mimalloc` crate, options set by
/// [`tune_mimalloc`]; the analysis and the kernel allocate many small rationals, maps and
/// s-expression lists, issue 13) with a byte count, a budget and a resource-failure report
/// instead of an abort when memory runs out.
pub struct Guarded;

impl Guarded {
    fn admit(size: usize) {
        tune_mimalloc();
        let budget = BUDGET.load(Ordering::Relaxed);
        let used = IN_USE
            .fetch_add(size, Ordering::Relaxed)
            .saturating_add(size);
        if budget != 0 && used > budget {
            out_of_memory(size);
        }
    }
    fn release(size: usize) {
        IN_USE.fetch_sub(size, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `MiMalloc` with the same layout; the count is bookkeeping.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Guarded::admit(layout.size());
        let p = MiMalloc.alloc(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Guarded::admit(layout.size());
        let p = MiMalloc.alloc_zeroed(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        Guarded::release(layout.size());
        MiMalloc.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            Guarded::admit(new_size - layout.size());
        } else {
            Guarded::release(layout.size() - new_size);
        }
        let p = MiMalloc.realloc(ptr, layout, new_size);
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }
}

/// Starts the `--timeout` watchdog: after `seconds` it reports a timeout error (in the
/// format of the command) and ends the process with exit code 1. Errors: a non-positive or
/// non-finite value.
pub fn start_timeout(seconds: f64, format: Format) -> Result<(), ErrorReport> {
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(ErrorReport::new(
            ErrorKind::Usage,
            format!("--timeout: `{seconds}` is not a positive number of seconds"),
        ));
    }
    let d = Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX);
    let spawned = std::thread::Builder::new()
        .name("warpcert-timeout".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            std::thread::sleep(d);
            let e = ErrorReport::new(
                ErrorKind::Timeout,
                format!("timed out after {seconds} s (--timeout); no result"),
            );
            std::process::exit(e.emit(format));
        });
    spawned.map(|_| ()).map_err(|e| {
        ErrorReport::new(
            ErrorKind::Resource,
            format!("cannot start the --timeout watchdog: {e}"),
        )
    })
}

/// Makes a closed stdout (`warpcert bench | head -1`) end the process quietly with exit
/// code 0 instead of a panic: `print!` panics with "failed printing to stdout" on a broken
/// pipe, and this hook turns exactly that panic into a silent exit. Other panics keep the
/// default report.
pub fn quiet_on_closed_stdout() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        previous(info);
    }));
}

/// Address space one concurrent analysis-and-check may reserve besides the heap: the
/// kernel's thread stack ([`warpcert_kernel::STACK_BYTES`], 1 GiB), the analysis's
/// ([`crate::analysis::STACK_BYTES`], 512 MiB) and a share of the heap (512 MiB). Stacks are
/// reserved address space (untouched pages are not resident), which `ulimit -v` counts.
const WORKER_ADDRESS_BYTES: u64 =
    warpcert_kernel::STACK_BYTES as u64 + crate::analysis::STACK_BYTES as u64 + (512 << 20);

/// The soft address-space limit of this process (`ulimit -v`, `Max address space` in
/// `/proc/self/limits`, Linux) in bytes; `None` when unlimited or unknown.
fn address_space_limit() -> Option<u64> {
    address_space_limit_in(&std::fs::read_to_string("/proc/self/limits").ok()?)
}

/// The soft `Max address space` of a `/proc/PID/limits` text, in bytes; `None` when
/// `unlimited` or absent.
fn address_space_limit_in(limits: &str) -> Option<u64> {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    // "Max address space   <soft>   <hard>   bytes"
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Workers for `cores` threads under an address-space limit of `limit` bytes: as many
/// [`WORKER_ADDRESS_BYTES`] as fit, at most `cores`, at least one.
fn workers_within(cores: usize, limit: Option<u64>) -> usize {
    match limit {
        Some(limit) => cores
            .min(usize::try_from(limit / WORKER_ADDRESS_BYTES).unwrap_or(usize::MAX))
            .max(1),
        None => cores.max(1),
    }
}

/// How many metrics may be analysed and checked at once: rayon's threads (the cores, or
/// the enclosing pool of `--jobs`), fewer under an address-space limit so that their thread
/// stacks fit ([`WORKER_ADDRESS_BYTES`] each; a 2 GB `ulimit -v` allows one), at least one.
pub fn metric_workers() -> usize {
    workers_within(rayon::current_num_threads(), address_space_limit())
}

/// `f` on every item of `items`, concurrently on up to [`metric_workers`] threads (issue
/// 13: the metrics of one kernel are independent analyses and checks), the results in the
/// order of `items` whatever the order they end in. One worker: in order on this thread.
pub fn map_metrics<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    let workers = metric_workers();
    if workers <= 1 || items.len() <= 1 {
        return items.iter().map(f).collect();
    }
    if workers >= rayon::current_num_threads() {
        return items.par_iter().map(f).collect();
    }
    match rayon::ThreadPoolBuilder::new().num_threads(workers).build() {
        Ok(pool) => pool.install(|| items.par_iter().map(&f).collect()),
        Err(_) => items.iter().map(f).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limit is the soft value of `/proc/self/limits`' line (proc(5)); tests/robust.rs's
    /// `ulimit -v 2097152` (KiB) is 2 GiB = 2 147 483 648 bytes, one worker's address space
    /// (1 GiB + 512 MiB + 512 MiB), so one worker, and one below it too; 8 GiB fits four,
    /// capped at the two cores; no limit: the cores.
    #[test]
    fn workers_fit_the_address_space() {
        let text = "Limit                     Soft Limit           Hard Limit           Units\n\
                    Max stack size            8388608              unlimited            bytes\n\
                    Max address space         2147483648           unlimited            bytes\n";
        assert_eq!(address_space_limit_in(text), Some(2_147_483_648));
        let free = "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(address_space_limit_in(free), None);
        assert_eq!(WORKER_ADDRESS_BYTES, 2_147_483_648);
        assert_eq!(workers_within(2, Some(2_147_483_648)), 1);
        assert_eq!(workers_within(2, Some(2_048_000_000)), 1);
        assert_eq!(workers_within(2, Some(8 << 30)), 2);
        assert_eq!(workers_within(2, None), 2);
        assert_eq!(workers_within(0, None), 1);
    }

    /// Results come back in the order of the items although the first item ends last (it
    /// sleeps longest): 10·i for i = 0..6.
    #[test]
    fn map_metrics_keeps_the_order() {
        let items: Vec<u64> = (0..6).collect();
        let out = map_metrics(&items, |&i| {
            std::thread::sleep(Duration::from_millis(30 - 5 * i));
            10 * i
        });
        assert_eq!(out, vec![0, 10, 20, 30, 40, 50]);
    }
}
