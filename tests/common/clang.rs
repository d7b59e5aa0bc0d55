//! Helpers of the clang front end's tests (`tests/clang_*.rs`): their kernels in
//! `tests/data/clang/`, the skip when clang is absent, and reading a file with clang.

use std::path::PathBuf;
use warpcert::frontend::clang::{self, ClangOptions, ClangParsed};

/// `tests/data/clang/NAME`.
pub fn data(name: &str) -> PathBuf {
    super::root().join("tests/data/clang").join(name)
}

/// Whether clang is installed; when it is not, says that `test` is skipped.
pub fn have_clang(test: &str) -> bool {
    let ok = clang::available();
    if !ok {
        eprintln!("{test}: skipped, clang is not installed (apt-get install clang)");
    }
    ok
}

/// `tests/data/clang/NAME` read by clang with the default options (panics with the
/// diagnostic when clang rejects it).
pub fn read(name: &str) -> ClangParsed {
    clang::parse_file(&data(name), &ClangOptions::default(), None).unwrap_or_else(|d| panic!("{d}"))
}
