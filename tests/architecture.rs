//! The layering of `ARCHITECTURE.md` holds: every module of `src/` names (by `use crate::…`,
//! a `crate::…` path, or `super::` up to the crate root) only the modules its row of the
//! table "Layering" allows, and every module of `src/` has a row; and the code map names
//! every module file of `src/` and `kernel/src/`.
//!
//! The table is read from `ARCHITECTURE.md` itself, so the document and the code cannot
//! drift apart: changing a dependency means changing the table, in review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The rows of the table under `## Layering`: module → modules it may use.
fn layering(doc: &str) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let mut lines = doc.lines().skip_while(|l| l.trim_end() != "## Layering");
    if lines.next().is_none() {
        return Err("ARCHITECTURE.md has no section `## Layering`".into());
    }
    let mut rows = BTreeMap::new();
    let mut in_table = false;
    for line in lines {
        if line.starts_with("## ") {
            break;
        }
        let Some(body) = line.trim().strip_prefix('|') else {
            if in_table {
                break;
            }
            continue;
        };
        in_table = true;
        let cells: Vec<&str> = body.split('|').map(str::trim).collect();
        if cells.len() < 2 || cells[0] == "module" || cells[0].starts_with("---") {
            continue;
        }
        let name = |c: &str| c.trim().trim_matches('`').to_string();
        let allowed = cells[1]
            .split(',')
            .map(name)
            .filter(|m| !m.is_empty() && m != "—")
            .collect();
        rows.insert(name(cells[0]), allowed);
    }
    if rows.is_empty() {
        return Err("the section `## Layering` of ARCHITECTURE.md has no table".into());
    }
    Ok(rows)
}

/// `text` with comments and the contents of string and char literals blanked out
/// (newlines kept, so that offsets keep their line numbers).
fn code_only(text: &str) -> String {
    let cs: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < cs.len() && cs[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < cs.len() && !(cs[i] == '*' && cs.get(i + 1) == Some(&'/')) {
                out.push(if cs[i] == '\n' { '\n' } else { ' ' });
                i += 1;
            }
            i += 2;
        } else if c == '"' || (c == 'r' && (next == Some('"') || next == Some('#'))) {
            // string literal (raw ones with their hashes)
            let mut hashes = 0;
            if c == 'r' {
                i += 1;
                while cs.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                if cs.get(i) != Some(&'"') {
                    out.push('r');
                    continue;
                }
            }
            i += 1;
            out.push('"');
            while i < cs.len() {
                if c != 'r' && cs[i] == '\\' {
                    i += 2;
                    continue;
                }
                if cs[i] == '"' && (0..hashes).all(|k| cs.get(i + 1 + k) == Some(&'#')) {
                    i += 1 + hashes;
                    break;
                }
                if cs[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            out.push('"');
        } else if c == '\'' && next == Some('"') && cs.get(i + 2) == Some(&'\'') {
            out.push_str("' '");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The first identifier at the start of `s` (after white space).
fn ident(s: &str) -> &str {
    let s = s.trim_start();
    let end = s.find(|c: char| !is_ident(c)).unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules named after a path prefix that reaches the crate root: `rest` is
/// the text after `crate::` (or the last `super::`): `x::…` or `{x::…, y, …}`.
fn named(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    let Some(group) = rest.strip_prefix('{') else {
        return vec![ident(rest).to_string()];
    };
    let mut out = Vec::new();
    let (mut depth, mut item_start) = (0usize, true);
    for (k, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => item_start = true,
            c if item_start && !c.is_whitespace() => {
                out.push(ident(&group[k..]).to_string());
                item_start = false;
            }
            _ => {}
        }
    }
    out
}

/// Every `(line, module)` that `text`, the source of module path `path` (`["analysis",
/// "derive", "forward"]`), names at the crate's top level.
fn crate_refs(text: &str, path: &[String]) -> Vec<(usize, String)> {
    let code = code_only(text);
    let line_of = |pos: usize| code[..pos].matches('\n').count() + 1;
    let mut out = Vec::new();
    for (pos, _) in code.match_indices("crate::") {
        let before = code[..pos].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == '$' || c == ':') {
            continue;
        }
        for m in named(&code[pos + "crate::".len()..]) {
            out.push((line_of(pos), m));
        }
    }
    for (pos, _) in code.match_indices("super::") {
        let before = code[..pos].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            continue;
        }
        let mut ups = 0;
        let mut rest = &code[pos..];
        while let Some(r) = rest.strip_prefix("super::") {
            ups += 1;
            rest = r;
        }
        if ups >= path.len() {
            for m in named(rest) {
                out.push((line_of(pos), m));
            }
        }
    }
    out
}

/// The `.rs` files below `dir`, recursively, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file below `src/`: `analysis/derive/mod.rs` → `[analysis, derive]`.
fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
}

/// The violations of `rows` in the files below `src`: `file:line: message`.
fn violations(src: &Path, rows: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(src).ok())
        .filter_map(|rel| module_path(rel).first().cloned())
        .filter(|m| m != "lib" && m != "main")
        .collect();
    let mut out = Vec::new();
    for m in &modules {
        if !rows.contains_key(m) {
            out.push(format!(
                "src/{m}: the module has no row in ARCHITECTURE.md's layering table"
            ));
        }
    }
    for f in &files {
        let Ok(rel) = f.strip_prefix(src) else {
            continue;
        };
        let path = module_path(rel);
        let Some(me) = path.first() else { continue };
        if me == "lib" || me == "main" {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let allowed = rows.get(me).cloned().unwrap_or_default();
        for (line, used) in crate_refs(&text, &path) {
            if used == *me || !modules.contains(&used) || allowed.contains(&used) {
                continue;
            }
            out.push(format!(
                "src/{}:{line}: `{me}` uses `crate::{used}`, which ARCHITECTURE.md does not allow (`{me}` may use: {})",
                rel.display(),
                if allowed.is_empty() {
                    "nothing".to_string()
                } else {
                    allowed.iter().cloned().collect::<Vec<_>>().join(", ")
                }
            ));
        }
    }
    out
}

#[test]
fn every_crate_path_follows_the_layering_of_architecture_md() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let rows = layering(&doc).unwrap();
    let v = violations(&root().join("src"), &rows);
    assert!(v.is_empty(), "{}", v.join("\n"));
}

/// The checker itself: on a small tree it finds a forbidden `use`, a grouped import, a
/// path in an expression and a `super::` reaching the crate root, reports their lines,
/// ignores comments and strings, and reports a module missing from the table.
#[test]
fn the_layering_check_finds_violations() {
    let dir = std::env::temp_dir().join(format!("warpcert-arch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("core")).unwrap();
    std::fs::create_dir_all(dir.join("certificate")).unwrap();
    std::fs::create_dir_all(dir.join("analysis")).unwrap();
    std::fs::write(dir.join("core/mod.rs"), "pub struct X;\n").unwrap();
    std::fs::write(dir.join("analysis/mod.rs"), "use crate::core::X;\n").unwrap();
    std::fs::write(
        dir.join("certificate/mod.rs"),
        "use crate::core::X;\n// use crate::analysis::Lin;\nlet s = \"crate::analysis\";\nuse crate::{core::X, analysis::Lin};\nfn f() { crate::analysis::g(); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("certificate/write.rs"),
        "use super::super::analysis::Lin;\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("extra")).unwrap();
    std::fs::write(dir.join("extra/mod.rs"), "").unwrap();
    let doc = "## Layering\n\n| module | may use |\n|---|---|\n| `core` | — |\n| `certificate` | `core` |\n| `analysis` | `core`, `certificate` |\n\n## Next\n";
    let rows = layering(doc).unwrap();
    let v = violations(&dir, &rows);
    let _ = std::fs::remove_dir_all(&dir);
    let expected = [
        "src/extra: the module has no row",
        "src/certificate/mod.rs:4: `certificate` uses `crate::analysis`",
        "src/certificate/mod.rs:5: `certificate` uses `crate::analysis`",
        "src/certificate/write.rs:1: `certificate` uses `crate::analysis`",
    ];
    assert_eq!(v.len(), expected.len(), "{v:#?}");
    for (got, want) in v.iter().zip(expected) {
        assert!(got.starts_with(want), "expected `{want}…`, got `{got}`");
    }
}

/// The files of `dirs` (below the project root) whose name `ARCHITECTURE.md`'s code map
/// does not mention (as `` `name.rs` `` or a path ending in it); `mod.rs`, `lib.rs` and
/// `main.rs` are described by their directory or crate.
fn unmapped(doc: &str, root: &Path, dirs: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    for d in dirs {
        rust_files(&root.join(d), &mut files);
    }
    files
        .iter()
        .filter_map(|f| {
            let name = f.file_name()?.to_str()?;
            if matches!(name, "mod.rs" | "lib.rs" | "main.rs") {
                return None;
            }
            let named = doc.contains(&format!("`{name}`")) || doc.contains(&format!("/{name}`"));
            (!named).then(|| f.strip_prefix(root).unwrap_or(f).display().to_string())
        })
        .collect()
}

/// The code map names every module file of `src/` and `kernel/src/` (by file name: a new
/// file needs a line in `ARCHITECTURE.md` saying what it is).
#[test]
fn every_module_file_is_on_the_map() {
    let root = root();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let missing = unmapped(&doc, &root, &["src", "kernel/src"]);
    assert!(
        missing.is_empty(),
        "files ARCHITECTURE.md does not name:\n{}",
        missing.join("\n")
    );
}

/// The map check itself: a named file passes, an unnamed one is reported.
#[test]
fn the_map_check_finds_an_unnamed_file() {
    let dir = std::env::temp_dir().join(format!("warpcert-map-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/a")).unwrap();
    for f in ["src/a/mod.rs", "src/a/named.rs", "src/a/other.rs"] {
        std::fs::write(dir.join(f), "//! x\n").unwrap();
    }
    let got = unmapped("`named.rs` is here", &dir, &["src"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(got, vec!["src/a/other.rs".to_string()]);
}
