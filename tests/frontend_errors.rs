//! Front-end error cases as data: every `tests/data/err/NAME.cu` must be rejected by the
//! front end (parsing and lowering for a 32×1×1 block), and its diagnostic, as shown to the
//! user, must equal `tests/data/err/NAME.expected`. `UPDATE_EXPECT=1 cargo test --test
//! frontend_errors` rewrites the expected files (review the diff).
//!
//! The expected files are snapshots of the rendering; what each case must say is stated
//! independently, by hand, in the input itself: a last line `// expect: LINE:COL TEXT`
//! gives the location (line and column counted in the source) and a part of the message
//! (the construct named). The one input without such a line is the empty file, which must
//! be rejected at 1:1 for having no kernel.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use warpcert::core::{Hardware, Launch};
use warpcert::frontend::{self, Diagnostic};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/err")
}

/// The diagnostic for `path`, read as the CLI reads files (lossy UTF-8), named by its file
/// name so that the rendering does not depend on where the repository is.
fn diagnose(path: &Path) -> Result<Diagnostic, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let launch = Launch {
        block: [32, 1, 1],
        grid: None,
    };
    match frontend::parse_str(&name, &text) {
        Err(d) => Ok(d),
        Ok(p) => match frontend::lower(&p, None, &launch, &Hardware::default(), &BTreeMap::new()) {
            Err(d) => Ok(d),
            Ok((prog, _)) => Err(format!("{name}: accepted, lowered to\n{prog}")),
        },
    }
}

/// The hand-written expectation of an input: `(line, col, text)`.
fn expectation(path: &Path) -> Result<(u32, u32, String), String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    if bytes.is_empty() {
        return Ok((1, 1, "no `__global__` kernel".into()));
    }
    let text = String::from_utf8_lossy(&bytes);
    let line = text
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("// expect: "))
        .ok_or_else(|| format!("{}: no `// expect: LINE:COL TEXT` line", path.display()))?;
    let (at, what) = line.split_once(' ').unwrap_or((line, ""));
    let (l, c) = at
        .split_once(':')
        .ok_or_else(|| format!("{}: `{at}` is not LINE:COL", path.display()))?;
    let num = |s: &str| {
        s.parse::<u32>()
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    Ok((num(l)?, num(c)?, what.trim().to_string()))
}

#[test]
fn every_error_case_gives_its_expected_diagnostic() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 17, "error cases found: {}", inputs.len());
    let mut failures = Vec::new();
    for input in &inputs {
        let name = input.display();
        let d = match diagnose(input) {
            Ok(d) => d,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        match expectation(input) {
            Ok((line, col, what)) => {
                if (d.line, d.col) != (line, col) || !d.message.contains(&what) {
                    failures.push(format!(
                        "{name}: expected `{what}` at {line}:{col}, got at {}:{}: {}",
                        d.line, d.col, d.message
                    ));
                }
            }
            Err(e) => failures.push(e),
        }
        let shown = format!("{d}\n");
        let expected_path = input.with_extension("expected");
        if update {
            std::fs::write(&expected_path, &shown).unwrap();
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(want) if want == shown => {}
            Ok(want) => failures.push(format!(
                "{name}: diagnostic differs from {}\n--- expected\n{want}--- got\n{shown}",
                expected_path.display()
            )),
            Err(e) => failures.push(format!(
                "{}: {e} (UPDATE_EXPECT=1 writes it)",
                expected_path.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
