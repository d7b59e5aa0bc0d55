//! Process-wide guards of the command line: `--timeout`, `--max-memory`, a closed stdout,
//! and how a resource failure is reported (text on stderr, or a JSON error object on stdout
//! under `--format json`), so that no input ends in a panic, an abort or a long silence.
//!
//! The memory guard is the global allocator of the `warpcert` binary (`src/main.rs`): it
//! calls [`out_of_memory`] when the system refuses memory or the `--max-memory` budget is
//! exceeded. It must not allocate, so the messages are static.

use crate::report::error::{ErrorKind, ErrorReport, FORMAT_VERSION};
use crate::report::Format;
use std::alloc::{GlobalAlloc, Layout, System};
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

/// glibc's `mallopt` parameter numbers (`<malloc.h>`): the largest size served from the
/// fast bins, and the extra bytes obtained from the system each time the heap grows.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_MXFAST: i32 = 1;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_TOP_PAD: i32 = -2;

/// Tunes the system allocator (glibc's malloc, Linux only; elsewhere nothing) for the
/// analysis and the kernel, which allocate and free millions of small blocks (assertions,
/// linear forms, derivation nodes) and free whole trees at once (issue 13): without fast
/// bins, freeing a tree no longer makes the next large request consolidate them (glibc's
/// `malloc_consolidate`, about a fifth of the profile of `bench --scaling` statements
/// 10000; the per-thread cache still serves small blocks), and the heap grows by 64 MiB
/// of address space at a time instead of 128 kB (untouched pages are not resident).
/// Call once, before other threads start.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        // SAFETY: `mallopt` only sets allocator parameters, both values are in their
        // documented ranges, and no other thread is allocating yet.
        unsafe {
            mallopt(M_MXFAST, 0);
            mallopt(M_TOP_PAD, 64 << 20);
        }
    }
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

/// The allocator of the `warpcert` binary: the system allocator with a byte count, a budget
/// and a resource-failure report instead of an abort when memory runs out.
pub struct Guarded;

impl Guarded {
    fn admit(size: usize) {
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

// SAFETY: every method forwards to `System` with the same layout; the count is bookkeeping.
unsafe impl GlobalAlloc for Guarded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Guarded::admit(layout.size());
        let p = System.alloc(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Guarded::admit(layout.size());
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        Guarded::release(layout.size());
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            Guarded::admit(new_size - layout.size());
        } else {
            Guarded::release(layout.size() - new_size);
        }
        let p = System.realloc(ptr, layout, new_size);
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
