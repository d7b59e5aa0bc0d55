//! Tidy checks on the source tree (habit 15 of `../shared/style-models.md`, "Docs that
//! compile"): every module of `src/` and `kernel/src/` starts with a `//!` line saying
//! what it is, so that a newcomer opening any file reads its job first.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Why the module text `text` does not start with a `//!` line that has words, if it
/// does not.
fn missing_module_doc(text: &str) -> Option<String> {
    let first = text.lines().next().unwrap_or("");
    match first.strip_prefix("//!") {
        None => Some(format!("first line is `{first}`, not a `//!` line")),
        Some(rest) if rest.trim().is_empty() => Some("the first `//!` line is empty".into()),
        Some(_) => None,
    }
}

#[test]
fn every_module_starts_with_a_module_doc_line() {
    let mut bad = Vec::new();
    let mut n = 0;
    for dir in ["src", "kernel/src"] {
        for f in rust_files(&root().join(dir)) {
            n += 1;
            let text = std::fs::read_to_string(&f).unwrap();
            if let Some(why) = missing_module_doc(&text) {
                let rel = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
                bad.push(format!("{rel}: {why}"));
            }
        }
    }
    // src/ and kernel/src/ hold well over a hundred modules; fewer means the walk is broken.
    assert!(n > 100, "only {n} modules found");
    assert!(
        bad.is_empty(),
        "modules without a `//!` first line:\n{}",
        bad.join("\n")
    );
}

/// The check itself: it accepts a module doc line and rejects what is not one.
#[test]
fn the_module_doc_check_tells_a_doc_line_from_others() {
    assert_eq!(missing_module_doc("//! The lexer.\nuse x;"), None);
    assert!(missing_module_doc("use x;\n").is_some());
    assert!(missing_module_doc("/// An item doc.\nfn f() {}").is_some());
    assert!(missing_module_doc("//!\n//! text").is_some());
    assert!(missing_module_doc("").is_some());
}
