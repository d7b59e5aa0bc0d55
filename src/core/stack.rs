//! Running deep recursions on a thread with a large stack.
//!
//! The front end, the lowering and the Coq export recurse along the nesting of their input
//! (statements, derivation trees: a Mandelbrot certificate nests a few hundred nodes deep,
//! which overflows the 2 MiB of a default thread in a debug build). They run through
//! [`with_big_stack`]; the analysis and the kernel spawn their own threads likewise.

/// Stack size of the worker thread: 256 MiB of address space (only the part used is
/// touched).
pub const STACK_BYTES: usize = 256 * 1024 * 1024;

/// Runs `f` on a scoped thread with a [`STACK_BYTES`] stack and returns its result; `f`
/// runs inline when the thread cannot be spawned. A panic in `f` is resumed on the caller.
pub fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let slot = std::sync::Mutex::new(Some(f));
    let take = || slot.lock().ok().and_then(|mut g| g.take());
    let spawned = std::thread::scope(|s| {
        let h = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn_scoped(s, || take().map(|f| f()));
        match h {
            Ok(h) => match h.join() {
                Ok(v) => v,
                Err(e) => std::panic::resume_unwind(e),
            },
            Err(_) => None,
        }
    });
    match spawned {
        Some(v) => v,
        None => match take() {
            Some(f) => f(),
            None => std::panic::resume_unwind(Box::new("warpcert: lost work item")),
        },
    }
}
