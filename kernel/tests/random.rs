//! Randomized tests (quickcheck): a generator of well-formed derivations whose certificates
//! the kernel must accept exactly when the generator made them valid; random mutations of
//! committed certificates; and a fuzz loop over the reader, the kernel and the witness
//! replay. No input may make the kernel panic ([`Reason::InternalPanic`]).
//!
//! Case counts: `WARPCERT_FUZZ_CASES` (default 300) cases per property; CI runs the
//! default, raise it for a longer search.

mod common;
use common::*;
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use warpcert_kernel::arith::FarkasProblem;
use warpcert_kernel::{check, Reason, Rejection};

/// Cases per property: `WARPCERT_FUZZ_CASES`, default 300.
fn cases() -> u64 {
    std::env::var("WARPCERT_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

fn no_panic(r: &Rejection, input: &str) -> bool {
    let ok = !matches!(r.reason, Reason::InternalPanic(_) | Reason::ThreadFailed);
    if !ok {
        eprintln!("{r}\non\n{input}");
    }
    ok
}

// ---- a generator of well-formed derivations (metric `steps`, block 32×1×1) ----

/// Operands of the generated programs: `(int c)`, `(param p)`, `(var xI)`, `(tid x)`.
#[derive(Clone, Debug)]
enum Opd {
    Int(i64),
    Param,
    Var(u8),
    Tid,
}

/// Statements: `skip`, `sync`, `xI ← o` or `xI ← o1 + o2`, `s1; s2`, and the uniform
/// `if (p < c) s1 else s2`.
#[derive(Clone, Debug)]
enum S {
    Skip,
    Sync,
    Assign(u8, Opd, Option<Opd>),
    Seq(Box<S>, Box<S>),
    If(i64, Box<S>, Box<S>),
}

/// How the generator breaks a valid certificate, and the reason the kernel must give.
#[derive(Clone, Copy, Debug)]
enum Defect {
    /// The bound line says one more than the root potential: `BoundMismatch`.
    Bound,
    /// The first expression node claims one more than its cost: `CostMismatch`.
    Cost,
    /// The first `(entail post …)` list loses its last witness: `WitnessCount`.
    Witness,
    /// The first witness names index 99: `Farkas { IndexOutOfRange }`.
    Index,
    /// The first statement leaf is checked as `Q:IF1`: `WrongSubject`.
    Rule,
}

#[derive(Clone, Debug)]
struct Case {
    s: S,
    defect: Option<Defect>,
}

impl Arbitrary for Opd {
    fn arbitrary(g: &mut Gen) -> Opd {
        match u8::arbitrary(g) % 4 {
            0 => Opd::Int(i64::from(i8::arbitrary(g))),
            1 => Opd::Param,
            2 => Opd::Var(u8::arbitrary(g) % 3),
            _ => Opd::Tid,
        }
    }
}

fn gen_stmt(g: &mut Gen, depth: u32) -> S {
    let leaf = depth == 0 || u8::arbitrary(g) % 3 == 0;
    match (leaf, u8::arbitrary(g) % 3) {
        (true, 0) => S::Skip,
        (true, 1) => S::Sync,
        (true, _) => {
            let second = bool::arbitrary(g).then(|| Opd::arbitrary(g));
            S::Assign(u8::arbitrary(g) % 3, Opd::arbitrary(g), second)
        }
        (false, 0) => {
            S::If(i64::from(i8::arbitrary(g)), Box::new(gen_stmt(g, depth - 1)), Box::new(gen_stmt(g, depth - 1)))
        }
        (false, _) => S::Seq(Box::new(gen_stmt(g, depth - 1)), Box::new(gen_stmt(g, depth - 1))),
    }
}

impl Arbitrary for Case {
    fn arbitrary(g: &mut Gen) -> Case {
        let defect = match u8::arbitrary(g) % 8 {
            0 => Some(Defect::Bound),
            1 => Some(Defect::Cost),
            2 => Some(Defect::Witness),
            3 => Some(Defect::Index),
            4 => Some(Defect::Rule),
            _ => None,
        };
        Case { s: gen_stmt(g, 4), defect }
    }
}

fn opd_text(o: &Opd) -> String {
    match o {
        Opd::Int(c) => format!("(int {c})"),
        Opd::Param => "(param p)".into(),
        Opd::Var(i) => format!("(var x{i})"),
        Opd::Tid => "(tid x)".into(),
    }
}

fn opd_node(o: &Opd) -> &'static str {
    match o {
        Opd::Int(_) => "(OQ:CONST (cost 1))",
        Opd::Param => "(OQ:PARAM (cost 1))",
        Opd::Var(_) => "(OQ:VAR (cost 1))",
        Opd::Tid => "(OQ:TID (cost 1))",
    }
}

fn stmt_text(s: &S) -> String {
    match s {
        S::Skip => "(skip)".into(),
        S::Sync => "(sync)".into(),
        S::Assign(x, a, None) => format!("(assign x{x} {})", opd_text(a)),
        S::Assign(x, a, Some(b)) => format!("(assign x{x} (bin + {} {}))", opd_text(a), opd_text(b)),
        S::Seq(a, b) => format!("(seq {} {})", stmt_text(a), stmt_text(b)),
        S::If(c, a, b) => format!("(if (bin < (param p) (int {c})) {} {})", stmt_text(a), stmt_text(b)),
    }
}

/// The largest cost of a warp under `steps` (spec/metrics.md: 1 per operand, operator,
/// assignment, `sync` and branch test; `skip` 0). The branch of `if (p < c)` is the same
/// for all lanes (`p` is a parameter), so a warp runs one branch: the worst is the larger.
fn worst_cost(s: &S) -> i64 {
    match s {
        S::Skip => 0,
        S::Sync => 1,
        S::Assign(_, _, None) => 1 + 1,
        S::Assign(_, _, Some(_)) => 1 + 3,
        S::Seq(a, b) => worst_cost(a) + worst_cost(b),
        S::If(_, a, b) => 1 + 3 + worst_cost(a).max(worst_cost(b)),
    }
}

fn ids_of(p: &[String]) -> String {
    ids(0..p.len())
}

/// The derivation of `s` from `(P, {}, pre)` to `(P, {}, post_q)`; returns the node and the
/// pre potential (built by the rules of spec/logic.md §4 as the analysis would).
fn derive(s: &S, p: &[String], post_q: i64) -> (String, i64) {
    let a = |q: i64| assn(&p.join(" "), "", &format!("({q})"));
    match s {
        S::Skip => (snode("Q:SKIP", &a(post_q), &a(post_q), ""), post_q),
        S::Sync => (snode("Q:SYNC", &a(post_q + 1), &a(post_q), ""), post_q + 1),
        S::Assign(_, o, second) => {
            let (expr, c) = match second {
                None => (opd_node(o).to_string(), 1),
                Some(b) => (format!("(EQ:OP (cost 3) {} {})", opd_node(o), opd_node(b)), 3),
            };
            let q = post_q + 1 + c;
            (snode("Q:VWRITE2", &a(q), &a(post_q), &format!("(entail post {}) {expr}", ids_of(p))), q)
        }
        S::Seq(s1, s2) => {
            let (n2, q2) = derive(s2, p, post_q);
            let (n1, q1) = derive(s1, p, q2);
            (snode("Q:SEQ", &a(q1), &a(post_q), &format!("{n1} {n2}")), q1)
        }
        S::If(c, s1, s2) => {
            // cond(p < c) = p − c + 1 ≤ 0; cond(¬(p < c)) = c − p ≤ 0 (spec/logic.md §2).
            let then_p: Vec<String> = p.iter().cloned().chain([format!("(le (lin {} (1 p)))", 1 - c)]).collect();
            let else_p: Vec<String> = p.iter().cloned().chain([format!("(le (lin {c} (-1 p)))")]).collect();
            let (nt, qt) = derive(s1, &then_p, post_q);
            let (ne, qe) = derive(s2, &else_p, post_q);
            let qmax = qt.max(qe);
            // Each branch is weakened to the common pre potential and to the if's post.
            let weak = |bp: &[String], n: &str| {
                let pre = assn(&bp.join(" "), "", &format!("({qmax})"));
                snode(
                    "Q:WEAK",
                    &pre,
                    &a(post_q),
                    &format!("(entail pre {}) (entail post {}) {n}", ids_of(bp), ids_of(p)),
                )
            };
            let cond = "(EQ:OP (cost 3) (OQ:PARAM (cost 1)) (OQ:CONST (cost 1)))";
            let q = qmax + 1 + 3;
            let body = format!("{cond} {} {}", weak(&then_p, &nt), weak(&else_p, &ne));
            (snode("Q:IF1", &a(q), &a(post_q), &body), q)
        }
    }
}

/// A test of the reason a defective certificate must be rejected with.
type Expected = fn(&Reason) -> bool;

/// The certificate of `c` and the reason the kernel must give (`None`: accepted with bound
/// [`worst_cost`]). `None` overall when the defect does not apply (no such node).
fn certificate(c: &Case) -> Option<(String, Option<Expected>)> {
    // The launch facts of block 32×1×1 (spec/logic.md §5), one constraint each.
    let facts: Vec<String> = ["x", "y", "z"]
        .iter()
        .zip([32, 1, 1])
        .flat_map(|(d, n)| {
            [format!("(le (lin 0 (-1 threadIdx.{d})))"), format!("(le (lin {} (1 threadIdx.{d})))", 1 - n)]
        })
        .collect();
    let (root, q) = derive(&c.s, &facts, 0);
    let body = stmt_text(&c.s);
    let mut bound = format!("({q})");
    let mut der = root;
    let expect: Option<Expected> = match c.defect {
        None => None,
        Some(Defect::Bound) => {
            bound = format!("({})", q + 1);
            Some(|r| matches!(r, Reason::BoundMismatch { .. }))
        }
        Some(Defect::Cost) => {
            let at = der.find("(OQ:")?;
            let end = at + der[at..].find("(cost 1)")?;
            der.replace_range(end..end + 8, "(cost 2)");
            Some(|r| matches!(r, Reason::CostMismatch { .. }))
        }
        Some(Defect::Witness) => {
            let at = der.find("(entail post (farkas")?;
            let close = at + der[at..].find("))) ")?; // end of the last witness of the list
            let last = der[..close].rfind(" (farkas")?;
            der.replace_range(last..close + 2, "");
            Some(|r| matches!(r, Reason::WitnessCount { .. }))
        }
        Some(Defect::Index) => {
            let at = der.find("(farkas (")? + "(farkas (".len();
            let end = at + der[at..].find(' ')?;
            der.replace_range(at..end, "99");
            Some(|r| matches!(r, Reason::Farkas { problem: FarkasProblem::IndexOutOfRange(99), .. }))
        }
        Some(Defect::Rule) => {
            let at =
                ["(Q:SKIP", "(Q:SYNC", "(Q:VWRITE2"].iter().filter_map(|r| der.find(r).map(|i| (i, r.len()))).min()?;
            der.replace_range(at.0..at.0 + at.1, "(Q:IF1");
            Some(|r| matches!(r, Reason::WrongSubject { expected: "an if statement", .. }))
        }
    };
    let text = simple("steps", "(int p)", "", "(int x0) (int x1) (int x2)", &body, &bound, der).text();
    Some((text, expect))
}

#[test]
fn generated_derivations_accepted_iff_valid() {
    fn prop(c: Case) -> TestResult {
        let Some((text, expect)) = certificate(&c) else { return TestResult::discard() };
        match (check(&text), expect) {
            (Ok(v), None) => TestResult::from_bool(v.bound == worst_cost(&c.s).to_string()),
            (Err(r), Some(want)) => TestResult::from_bool(no_panic(&r, &text) && want(&r.reason)),
            (Ok(v), Some(_)) => TestResult::error(format!("defect {:?} accepted: {v}\n{text}", c.defect)),
            (Err(r), None) => TestResult::error(format!("valid certificate rejected: {r}\n{text}")),
        }
    }
    QuickCheck::new().tests(cases()).max_tests(cases() * 10).quickcheck(prop as fn(Case) -> TestResult);
}

// ---- mutations of committed certificates ----

/// The smallest committed certificates (the vector-add kernels, four metrics each), read once.
fn committed() -> &'static [String] {
    static CERTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    CERTS.get_or_init(read_committed)
}

fn read_committed() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../certificates");
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("certificates/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("vector")))
        .map(|p| std::fs::read_to_string(p).expect("readable"))
        .collect();
    v.sort();
    assert!(v.len() >= 4, "the vector-add certificates are committed");
    v
}

/// Byte ranges of the tokens of `t` (parentheses and atoms).
fn tokens(t: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    let b = t.as_bytes();
    while i < b.len() {
        match b[i] {
            b'(' | b')' => {
                out.push((i, i + 1));
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                let s = i;
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'(' && b[i] != b')' {
                    i += 1;
                }
                out.push((s, i));
            }
        }
    }
    out
}

#[derive(Clone, Debug)]
struct Mutation {
    cert: usize,
    edits: Vec<(u32, u8, i64)>,
}

impl Arbitrary for Mutation {
    fn arbitrary(g: &mut Gen) -> Mutation {
        let n = 1 + usize::arbitrary(g) % 3;
        Mutation { cert: usize::arbitrary(g), edits: (0..n).map(|_| <(u32, u8, i64)>::arbitrary(g)).collect() }
    }
}

#[test]
fn mutated_certificates_never_panic() {
    fn prop(m: Mutation) -> bool {
        let certs = committed();
        let Some(base) = certs.get(m.cert % certs.len()) else { return false };
        let mut t = base.clone();
        for &(pos, op, v) in &m.edits {
            let toks = tokens(&t);
            let Some(&(a, b)) = toks.get(pos as usize % toks.len().max(1)) else { continue };
            let other = toks.get((v.unsigned_abs() as usize) % toks.len()).map(|&(x, y)| t[x..y].to_string());
            let rep = match op % 6 {
                0 => v.to_string(),                                   // a number
                1 => format!("{}/{}", v, (v % 7).unsigned_abs() + 1), // a rational
                2 => String::new(),                                   // delete the token
                3 => other.unwrap_or_default(),                       // another token of the file
                4 => format!("{} {}", &t[a..b], &t[a..b]),            // duplicate it
                _ => ["(", ")", "-0", "4294967296", "18446744073709551617", "Q:WEAK", "x"]
                    [(v.unsigned_abs() % 7) as usize]
                    .into(),
            };
            t.replace_range(a..b, &rep);
        }
        match check(&t) {
            Ok(_) => true,
            Err(r) => no_panic(&r, &t),
        }
    }
    QuickCheck::new().tests(cases()).quickcheck(prop as fn(Mutation) -> bool);
}

// ---- fuzz loop over the reader, the kernel and the witness replay ----

const VOCAB: &[&str] = &[
    "(",
    "(",
    "(",
    ")",
    ")",
    ")",
    "warpcert-certificate",
    "warpcert-witness",
    "1",
    "2",
    "0",
    "-1",
    "32",
    "1/2",
    "4294967295",
    "metric",
    "steps",
    "sectors",
    "hardware",
    "launch",
    "program",
    "params",
    "arrays",
    "locals",
    "body",
    "bound",
    "derivation",
    "assumptions",
    "provenance",
    "poly",
    "assn",
    "P",
    "D",
    "Q",
    "lin",
    "le",
    "eq",
    "mod",
    "max0",
    "dep",
    "rem",
    "rng",
    "int",
    "bool",
    "float",
    "global",
    "shared",
    "var",
    "param",
    "tid",
    "x",
    "bin",
    "un",
    "read",
    "+",
    "<",
    "<<",
    "neg",
    "skip",
    "seq",
    "assign",
    "write",
    "if",
    "while",
    "Q:SEQ",
    "Q:SKIP",
    "Q:WEAK",
    "Q:IF4",
    "Q:WHILE2",
    "Q:WHILEEXIT2",
    "Q:IFEXIT4",
    "EQ:GARRAY",
    "OQ:VAR",
    "pre",
    "post",
    "cost",
    "n",
    "frame",
    "entail",
    "rewrite",
    "farkas",
    "shift",
    "zero",
    "mono",
    "threadIdx.x",
    "grid",
    "block",
    "warp",
    "\n",
    ";",
];

#[derive(Clone, Debug)]
struct Soup(String);

impl Arbitrary for Soup {
    fn arbitrary(g: &mut Gen) -> Soup {
        let n = usize::arbitrary(g) % 200;
        let mut s = String::from(if bool::arbitrary(g) { "warpcert-certificate 2\n" } else { "warpcert-witness 1\n" });
        for _ in 0..n {
            s.push_str(g.choose(VOCAB).copied().unwrap_or("x"));
            s.push(' ');
        }
        Soup(s)
    }
}

#[test]
fn fuzz_reader_kernel_and_witness() {
    fn on(text: &str) -> bool {
        let _ = warpcert_kernel::sexp::parse_all(text);
        let _ = warpcert_kernel::witness::check_witness(text);
        match check(text) {
            Ok(_) => true,
            Err(r) => no_panic(&r, text),
        }
    }
    QuickCheck::new().tests(cases()).quickcheck((|s: String| on(&s)) as fn(String) -> bool);
    QuickCheck::new().tests(cases()).quickcheck((|s: Soup| on(&s.0)) as fn(Soup) -> bool);
}
