//! Fuzzing that stays (issue 18): quickcheck-driven random byte and token mutations of the
//! example kernels, the test kernels and (when present) the shared corpus, fed to the front
//! end and lowering in-process and, for a sample, to `warpcert analyze` end to end; and
//! random mutations of the committed certificates fed to `warpcert check`. Nothing may
//! panic, abort or end by a signal; every command ends with exit 0, 1 or 2.
//!
//! CI runs a fixed number of cases (seconds). `WARPCERT_FUZZ_SECS=N cargo test --test fuzz
//! -- --nocapture` runs each target for about N seconds instead. A failing input is written
//! to `target/fuzz-crashes/` and printed; add it to `tests/data/robust/` (replayed by
//! `tests/robust.rs`) with the fix.

use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use warpcert::core::{Hardware, Launch};
use warpcert::frontend;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files with extension `ext` under `dir`, recursively, sorted.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().and_then(|x| x.to_str()) == Some(ext) {
            out.push(p);
        }
    }
}

/// The seed kernels: examples, test data and, if present, `../shared/corpus`.
fn kernels() -> &'static Vec<String> {
    static K: OnceLock<Vec<String>> = OnceLock::new();
    K.get_or_init(|| {
        let mut paths = Vec::new();
        files(&root().join("examples"), "cu", &mut paths);
        files(&root().join("tests/data"), "cu", &mut paths);
        let shared = root().join("../shared/corpus");
        if shared.is_dir() {
            files(&shared, "cu", &mut paths);
        } else {
            eprintln!("fuzz: ../shared/corpus is absent; mutating the project's kernels only");
        }
        paths
            .iter()
            .filter_map(|p| std::fs::read(p).ok())
            .filter(|b| b.len() < 200_000)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect()
    })
}

/// The committed certificates (small ones, to keep each check fast).
fn certificates() -> &'static Vec<String> {
    static C: OnceLock<Vec<String>> = OnceLock::new();
    C.get_or_init(|| {
        let mut paths = Vec::new();
        files(&root().join("certificates"), "cert", &mut paths);
        paths
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .filter(|t| t.len() < 60_000)
            .collect()
    })
}

/// Tokens inserted by token mutations: delimiters, keywords, directives, extreme numbers.
const VOCAB: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "+",
    "*",
    "/",
    "%",
    "<<",
    "=",
    "==",
    "?",
    ":",
    "&&",
    "if",
    "else",
    "while",
    "for",
    "do",
    "return",
    "break",
    "continue",
    "__syncthreads()",
    "threadIdx.x",
    "blockIdx.x",
    "blockDim.x",
    "int",
    "float",
    "__shared__",
    "#define X X",
    "#define F(x) F(x)",
    "#if",
    "#endif",
    "#include \"x.h\"",
    "0",
    "-1",
    "2147483647",
    "9223372036854775807",
    "99999999999999999999",
    "1e999",
    "\"s\"",
    "'c'",
    "/*",
    "*/",
    "//",
    "\\",
    "\n",
    "template",
    "<",
    ">",
    "::",
    "...",
    "a[a[a[0]]]",
    "(((((",
    ")))))",
];

/// Tokens of a certificate mutation: numbers, parentheses, rule names, keywords.
const CERT_VOCAB: &[&str] = &[
    "(",
    ")",
    "0",
    "-1",
    "1/0",
    "99999999999999999999999",
    "1/3",
    "Q:SEQ",
    "Q:WHILE1",
    "EQ:GARRAY",
    "(poly)",
    "(lin 0)",
    "(D)",
    "(P)",
    "farkas",
    "threadIdx.x",
    "seq",
    "skip",
    "\n",
    "\"",
    "(n 4294967296)",
    "(cost -5)",
];

/// One fuzz case: which seed input, and a seed for the mutations.
#[derive(Clone, Debug)]
struct Case {
    pick: usize,
    seed: u64,
    ops: u8,
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Case {
        Case {
            pick: usize::arbitrary(g),
            seed: u64::arbitrary(g),
            ops: u8::arbitrary(g) % 8 + 1,
        }
    }
}

/// Applies `case.ops` random byte or token mutations to `text`.
fn mutate(text: &str, case: &Case, vocab: &[&str]) -> String {
    let mut rng = StdRng::seed_from_u64(case.seed);
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..case.ops {
        let n = bytes.len().max(1);
        let at = rng.gen_range(0..n).min(bytes.len());
        match rng.gen_range(0..7) {
            0 => {
                if let Some(b) = bytes.get_mut(at) {
                    *b ^= 1 << rng.gen_range(0..8);
                }
            }
            1 => bytes.insert(at, rng.gen()),
            2 => {
                let end = (at + rng.gen_range(1..64)).min(bytes.len());
                bytes.drain(at..end);
            }
            3 | 4 => {
                let t = vocab[rng.gen_range(0..vocab.len())];
                let sep = if rng.gen_bool(0.5) { " " } else { "" };
                let ins = format!("{sep}{t}{sep}");
                bytes.splice(at..at, ins.bytes());
            }
            5 => {
                // duplicate a slice (grows nesting and repetition)
                let end = (at + rng.gen_range(1..200)).min(bytes.len());
                let piece: Vec<u8> = bytes.get(at..end).map(<[u8]>::to_vec).unwrap_or_default();
                for _ in 0..rng.gen_range(1..20) {
                    bytes.splice(at..at, piece.iter().copied());
                }
            }
            _ => {
                // swap two slices' first bytes: reorders tokens
                let other = rng.gen_range(0..n).min(bytes.len().saturating_sub(1));
                if at < bytes.len() && other < bytes.len() {
                    bytes.swap(at, other);
                }
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Records a failing input and returns the failure.
fn crash(kind: &str, input: &str, why: &str) -> TestResult {
    let dir = root().join("target/fuzz-crashes");
    let _ = std::fs::create_dir_all(&dir);
    let h = input.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    });
    let path = dir.join(format!("{kind}-{h:016x}"));
    let _ = std::fs::write(&path, input);
    TestResult::error(format!("{kind}: {why}; input saved to {}", path.display()))
}

/// The front end and lowering on one mutated kernel, in-process: an error is fine, a panic
/// is not.
fn frontend_case(case: Case) -> TestResult {
    let ks = kernels();
    let Some(text) = ks.get(case.pick % ks.len().max(1)) else {
        return TestResult::discard();
    };
    let input = mutate(text, &case, VOCAB);
    let run = std::panic::catch_unwind(|| {
        let Ok(parsed) = frontend::parse_str("fuzz.cu", &input) else {
            return;
        };
        let launch = Launch {
            block: [64, 1, 1],
            grid: None,
        };
        let _ = frontend::lower(
            &parsed,
            None,
            &launch,
            &Hardware::default(),
            &BTreeMap::new(),
        );
    });
    match run {
        Ok(()) => TestResult::passed(),
        Err(_) => crash("frontend", &input, "panic in the front end"),
    }
}

/// Runs the binary on `args` with a 40 s budget (`--timeout`); a signal, a panic or an exit
/// code other than 0, 1, 2 is a crash.
fn binary_case(kind: &str, input: &str, file: &Path, args: &[&str]) -> TestResult {
    if std::fs::write(file, input).is_err() {
        return TestResult::discard();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_warpcert"))
        .args(args)
        .arg(file)
        .args(["--timeout", "40"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    let Ok(o) = o else {
        return TestResult::discard();
    };
    let err = String::from_utf8_lossy(&o.stderr);
    if !matches!(o.status.code(), Some(0..=2)) || err.contains("panicked") {
        let tail: String = err
            .chars()
            .rev()
            .take(600)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        return crash(kind, input, &format!("{:?}: {tail}", o.status));
    }
    TestResult::passed()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("warpcert-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&d);
    d.join(name)
}

/// `warpcert analyze` end to end on one mutated kernel (block 32, all metrics).
fn analyze_case(case: Case) -> TestResult {
    let ks = kernels();
    let Some(text) = ks.get(case.pick % ks.len().max(1)) else {
        return TestResult::discard();
    };
    let input = mutate(text, &case, VOCAB);
    let file = scratch(&format!("k{}.cu", case.seed));
    let r = binary_case(
        "analyze",
        &input,
        &file,
        &["analyze", "--block", "32", "--metric", "all"],
    );
    let _ = std::fs::remove_file(&file);
    r
}

/// `warpcert check` on one mutated certificate.
fn check_case(case: Case) -> TestResult {
    let cs = certificates();
    let Some(text) = cs.get(case.pick % cs.len().max(1)) else {
        return TestResult::discard();
    };
    let input = mutate(text, &case, CERT_VOCAB);
    let file = scratch(&format!("c{}.cert", case.seed));
    let r = binary_case("check", &input, &file, &["check"]);
    let _ = std::fs::remove_file(&file);
    r
}

/// Runs `prop` for `cases` cases, or for `WARPCERT_FUZZ_SECS` seconds when set; returns the
/// number of cases run.
fn fuzz(name: &str, cases: u64, prop: fn(Case) -> TestResult) -> u64 {
    let secs: Option<u64> = std::env::var("WARPCERT_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok());
    let start = Instant::now();
    let mut total = 0;
    loop {
        let batch = if secs.is_some() { 50 } else { cases };
        QuickCheck::new()
            .tests(batch)
            .max_tests(batch * 10)
            .quickcheck(prop);
        total += batch;
        match secs {
            Some(s) if start.elapsed() < Duration::from_secs(s) => continue,
            _ => break,
        }
    }
    eprintln!(
        "fuzz {name}: {total} cases in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    total
}

#[test]
fn fuzz_frontend_never_panics() {
    assert!(fuzz("frontend", 4000, frontend_case) >= 4000);
}

#[test]
fn fuzz_analyze_ends_within_the_contract() {
    assert!(fuzz("analyze", 300, analyze_case) >= 300);
}

#[test]
fn fuzz_check_ends_within_the_contract() {
    assert!(fuzz("check", 600, check_case) >= 600);
}
