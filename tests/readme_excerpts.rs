//! The README's excerpts of `warpcert audit` / `analyze` output (issue 16) still match the
//! real output: text lines verbatim (node counts aside: they follow the analysis), the SARIF
//! and JSON Lines excerpts as subsets of the real objects, and every HTML marker the README
//! names present in a generated page. The expected values are the README's own text.

mod common;

use serde_json::Value;

const STRIDES: &str = "tests/data/audit/strides.cu";

fn readme() -> String {
    std::fs::read_to_string(common::root().join("README.md")).expect("README.md")
}

/// The fenced block of language `lang` that follows `marker` in the README, its lines
/// without the list indentation.
fn fenced(text: &str, marker: &str, lang: &str) -> Vec<String> {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("README lacks {marker:?}"));
    let open = format!("```{lang}\n");
    let start = at + text[at..].find(&open).expect("opening fence") + open.len();
    let len = text[start..].find("```").expect("closing fence");
    text[start..start + len]
        .lines()
        .map(|l| l.trim_end().strip_prefix("  ").unwrap_or(l).to_string())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

/// Runs `warpcert ARGS…` from the repository root; stdout.
fn warpcert(args: &[&str]) -> String {
    common::warpcert_stdout(args)
}

/// `(N nodes)` → `(_ nodes)`, and the summary line without its timing.
fn normalize(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(" nodes") {
        let head = &rest[..i];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&head[..head.len() - digits]);
        out.push_str(if digits > 0 { "_ nodes" } else { " nodes" });
        rest = &rest[i + " nodes".len()..];
    }
    out.push_str(rest);
    match out.find(" failed (") {
        Some(i) if out.starts_with("summary:") => out[..i + " failed".len()].to_string(),
        _ => out,
    }
}

/// `want` is a subset of `got`: objects key by key, arrays element by element, leaves equal.
fn subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| subset(v, gv))),
        (Value::Array(w), Value::Array(g)) => {
            w.len() <= g.len() && w.iter().zip(g).all(|(a, b)| subset(a, b))
        }
        _ => want == got,
    }
}

#[test]
fn text_excerpt_lines_are_real_output_lines() {
    let lines = fenced(
        &readme(),
        "Text (`warpcert audit tests/data/audit/strides.cu --block 32`",
        "text",
    );
    assert!(lines.len() >= 4, "{lines:?}");
    let real: Vec<String> = warpcert(&["audit", STRIDES, "--block", "32"])
        .lines()
        .map(normalize)
        .collect();
    for l in &lines {
        let n = normalize(l);
        assert!(
            real.contains(&n),
            "README line not in the output:\n{n}\n--\n{real:#?}"
        );
    }
}

#[test]
fn sarif_excerpt_is_a_subset_of_a_real_result() {
    let block = fenced(
        &readme(),
        "SARIF 2.1.0 (`--format sarif`), the result of the last finding",
        "json",
    )
    .join("\n");
    let want: Value = serde_json::from_str(&block).expect("the README excerpt is JSON");
    let doc: Value = serde_json::from_str(&warpcert(&[
        "audit", STRIDES, "--block", "32", "--format", "sarif",
    ]))
    .expect("SARIF is JSON");
    assert_eq!(doc["version"], "2.1.0");
    let results = doc["runs"][0]["results"].as_array().expect("results");
    assert!(
        results.iter().any(|r| subset(&want, r)),
        "no result contains the README's:\n{want:#}"
    );
}

#[test]
fn jsonl_excerpt_lines_are_subsets_of_the_real_lines() {
    let lines = fenced(
        &readme(),
        "`warpcert analyze tests/data/audit/strides.cu --block 32 --format jsonl`",
        "jsonl",
    );
    let real: Vec<Value> = warpcert(&["analyze", STRIDES, "--block", "32", "--format", "jsonl"])
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(
        lines.len(),
        real.len(),
        "one line per kernel, then the summary"
    );
    for (w, g) in lines.iter().zip(&real) {
        let w: Value = serde_json::from_str(w).expect("the README line is JSON");
        assert!(subset(&w, g), "README:\n{w:#}\nreal:\n{g:#}");
    }
    assert!(real[0]["seconds"].is_f64(), "records carry their seconds");
}

#[test]
fn html_markers_named_in_the_readme_are_in_the_page() {
    let text = readme();
    let at = text
        .find("HTML (`--html OUT.html`")
        .expect("HTML paragraph");
    let para = &text[at..at + text[at..].find("\n\n").expect("paragraph end")];
    let markers: Vec<String> = para
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|m| {
            m.replace('\n', " ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|m| m.contains('=') || m.starts_with('<') || m.starts_with("data-"))
        .filter(|m| !m.starts_with("--html"))
        .collect();
    assert!(markers.len() >= 8, "{markers:?}");
    let out = std::env::temp_dir().join(format!("warpcert-readme-{}.html", std::process::id()));
    warpcert(&[
        "audit",
        STRIDES,
        "--block",
        "32",
        "--html",
        out.to_str().expect("UTF-8"),
    ]);
    let page = std::fs::read_to_string(&out).expect("page written");
    let _ = std::fs::remove_file(&out);
    for m in &markers {
        // `data-x` set by the script appears as `dataset.x`
        let script = m.strip_prefix("data-").map(|d| format!("dataset.{d}"));
        assert!(
            page.contains(m.as_str()) || script.is_some_and(|s| page.contains(&s)),
            "the page lacks {m:?}"
        );
    }
}
