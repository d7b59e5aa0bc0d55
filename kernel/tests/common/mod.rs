//! Builders for hand-written certificates (spec/certificate.md, version 1).
#![allow(dead_code)]

use warpcert_kernel::{check, Reason, Rejection, Verdict};

/// The kernel's verdict on `t`, which must be accepted (panics with the rejection).
pub fn ok(t: &str) -> Verdict {
    match check(t) {
        Ok(v) => v,
        Err(r) => panic!("rejected: {r}\n{t}"),
    }
}

/// The kernel's rejection of `t`, which must be rejected (panics with the verdict).
pub fn rej(t: &str) -> Rejection {
    match check(t) {
        Ok(v) => panic!("accepted: {v}\n{t}"),
        Err(r) => r,
    }
}

/// The kernel's rejection of the mutant `t`, which must be rejected with a message
/// containing `pinned` (the pinned-by-message check of a mutated certificate; panics with
/// the verdict or the other message).
pub fn rej_msg(t: &str, pinned: &str) -> Rejection {
    let r = rej(t);
    assert!(r.to_string().contains(pinned), "expected a rejection saying `{pinned}`, got: {r}\n{t}");
    r
}

/// Whether `r` is the reader's refusal of a malformed rational (spec/certificate.md: an
/// optional `-`, digits, and a positive denominator after `/`).
pub fn bad_rational(r: &Reason) -> bool {
    matches!(
        r,
        Reason::Syntax { expected: "a rational", .. }
            | Reason::Syntax { expected: "a rational with positive denominator", .. }
    )
}

/// The mutant of `t` with the first occurrence of `from` (which must occur: a mutant that
/// changes nothing would test nothing) replaced by `to`.
pub fn mutant(t: &str, from: &str, to: &str) -> String {
    assert!(t.contains(from), "mutant pattern `{from}` absent");
    t.replacen(from, to, 1)
}

/// The launch facts of spec/logic.md §5 for block `b` (no `blockIdx` parameters).
pub fn launch(b: [u32; 3]) -> String {
    let mut s = String::new();
    for (d, n) in ["x", "y", "z"].iter().zip(b) {
        s += &format!("(le (lin 0 (-1 threadIdx.{d}))) (le (lin {} (1 threadIdx.{d}))) ", -(n as i64 - 1));
    }
    s
}

/// `(assn (P p) (D d) (Q (poly q)))`.
pub fn assn(p: &str, d: &str, q: &str) -> String {
    format!("(assn (P {p}) (D {d}) (Q (poly {q})))")
}

/// A statement node `(RULE (pre …) (post …) rest…)`.
pub fn snode(rule: &str, pre: &str, post: &str, rest: &str) -> String {
    format!("({rule} (pre {pre}) (post {post}) {rest})")
}

/// Identity Farkas witnesses `(farkas (i 1))` for `i` in `range`.
pub fn ids(range: std::ops::Range<usize>) -> String {
    range.map(|i| format!("(farkas ({i} 1))")).collect::<Vec<_>>().join(" ")
}

/// A certificate piece by piece.
pub struct Cert<'a> {
    pub version: &'a str,
    pub metric: &'a str,
    pub block: [u32; 3],
    pub params: &'a str,
    pub arrays: &'a str,
    pub locals: &'a str,
    pub body: &'a str,
    pub bound: &'a str,
    pub derivation: String,
}

impl Cert<'_> {
    pub fn text(&self) -> String {
        format!(
            "warpcert-certificate {}\n(metric {})\n(hardware 32 32 4 32)\n(launch {} {} {})\n(program k\n  (params {})\n  (arrays {})\n  (locals {})\n  (body {}))\n(bound (poly {}))\n(derivation\n{})\n",
            self.version, self.metric, self.block[0], self.block[1], self.block[2], self.params, self.arrays,
            self.locals, self.body, self.bound, self.derivation
        )
    }
}

/// A statement-level certificate for block 32×1×1, metric `metric`, with the given program
/// parts and root derivation.
pub fn simple<'a>(
    metric: &'a str,
    params: &'a str,
    arrays: &'a str,
    locals: &'a str,
    body: &'a str,
    bound: &'a str,
    derivation: String,
) -> Cert<'a> {
    Cert { version: "1", metric, block: [32, 1, 1], params, arrays, locals, body, bound, derivation }
}
