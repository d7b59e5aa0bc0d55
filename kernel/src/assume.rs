//! The assumptions of a certificate's claim (spec/certificate.md "Assumptions"): what the
//! per-warp bound presupposes about the run and the hardware, beyond the program text.
//! Version 2 writes them in an `(assumptions …)` section; version 1 has the same ones
//! implicitly ([`implicit`]). The kernel requires exactly this list (it is what the logic's
//! soundness theorem needs, spec/logic.md §5) and reports it with the verdict.

use crate::sexp::Sexp;
use crate::syntax::{atom, err, items, Program, Space};
use crate::{Reason, Rejection};
use std::fmt;

/// One assumption of the claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assumption {
    /// `(terminates)`: the claim is about runs that terminate.
    Terminates,
    /// `(no-runtime-error)`: runs without a run-time error of the semantics.
    NoRuntimeError,
    /// `(no-overflow)`: integers are mathematical; runs in which an integer operation
    /// leaves the range of its CUDA type (32-bit `int`: `[−2³¹, 2³¹ − 1]`) are excluded.
    NoOverflow,
    /// `(aligned A …)`: each listed array starts at offset 0 of an allocation aligned to a
    /// sector (global) or to bank 0 (shared). Lists every array of the program.
    Aligned(Vec<String>),
    /// `(no-alias A …)`: the listed global arrays (pointer parameters) do not overlap.
    /// Lists every global array of the program.
    NoAlias(Vec<String>),
    /// `(race-free)`: the launch has no data race.
    RaceFree,
    /// `(atomics-unserialized)`: an atomic access costs as the plain accesses it is lowered
    /// to; conflicting lanes are not serialized.
    AtomicsUnserialized,
    /// `(warp-alone)`: each warp's cost is counted as if it ran alone (no contention with
    /// other warps, no caches).
    WarpAlone,
}

/// The keywords of the assumptions, in the order they are written and printed.
pub const KEYWORDS: [&str; 8] = [
    "terminates",
    "no-runtime-error",
    "no-overflow",
    "aligned",
    "no-alias",
    "race-free",
    "atomics-unserialized",
    "warp-alone",
];

impl Assumption {
    /// The keyword (the head of the assumption's list).
    pub fn keyword(&self) -> &'static str {
        match self {
            Assumption::Terminates => "terminates",
            Assumption::NoRuntimeError => "no-runtime-error",
            Assumption::NoOverflow => "no-overflow",
            Assumption::Aligned(_) => "aligned",
            Assumption::NoAlias(_) => "no-alias",
            Assumption::RaceFree => "race-free",
            Assumption::AtomicsUnserialized => "atomics-unserialized",
            Assumption::WarpAlone => "warp-alone",
        }
    }
}

impl fmt::Display for Assumption {
    /// One line in words, e.g. `aligned: arrays A, B start at offset 0 of an aligned allocation`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |v: &[String]| if v.is_empty() { "(none)".to_string() } else { v.join(", ") };
        match self {
            Assumption::Terminates => write!(f, "terminates: the run terminates"),
            Assumption::NoRuntimeError => write!(f, "no-runtime-error: the run has no run-time error"),
            Assumption::NoOverflow => write!(
                f,
                "no-overflow: no integer operation leaves the range of its CUDA type (integers are mathematical)"
            ),
            Assumption::Aligned(v) => {
                write!(f, "aligned: arrays {} start at offset 0 of an aligned allocation", list(v))
            }
            Assumption::NoAlias(v) => write!(f, "no-alias: global arrays {} do not overlap", list(v)),
            Assumption::RaceFree => write!(f, "race-free: the launch has no data race"),
            Assumption::AtomicsUnserialized => {
                write!(f, "atomics-unserialized: atomic accesses cost as plain accesses (no serialization)")
            }
            Assumption::WarpAlone => write!(f, "warp-alone: each warp's cost is counted as if it ran alone"),
        }
    }
}

/// Reads `(assumptions (KEYWORD ARR …) …)`. Errors: [`Reason::UnknownAssumption`] for a
/// keyword not in [`KEYWORDS`], [`Reason::Syntax`] for a malformed or repeated item.
pub fn parse(s: &Sexp) -> Result<Vec<Assumption>, Rejection> {
    let mut out: Vec<Assumption> = Vec::new();
    for item in items(s, "assumptions", "(assumptions (KEYWORD …) …)")? {
        let head = item.head().ok_or_else(|| err(item, "(KEYWORD …)"))?;
        let args = item.list().and_then(|l| l.get(1..)).unwrap_or(&[]);
        let names = || -> Result<Vec<String>, Rejection> {
            args.iter().map(|a| atom(a, "an array name").map(str::to_string)).collect()
        };
        let a = match head {
            "aligned" => Assumption::Aligned(names()?),
            "no-alias" => Assumption::NoAlias(names()?),
            "terminates" => Assumption::Terminates,
            "no-runtime-error" => Assumption::NoRuntimeError,
            "no-overflow" => Assumption::NoOverflow,
            "race-free" => Assumption::RaceFree,
            "atomics-unserialized" => Assumption::AtomicsUnserialized,
            "warp-alone" => Assumption::WarpAlone,
            other => return Err(Rejection::parse(Reason::UnknownAssumption(other.to_string()))),
        };
        if !matches!(a, Assumption::Aligned(_) | Assumption::NoAlias(_)) && !args.is_empty() {
            return Err(err(item, "an assumption without arguments"));
        }
        if out.iter().any(|b| b.keyword() == a.keyword()) {
            return Err(err(item, "each assumption at most once"));
        }
        out.push(a);
    }
    Ok(out)
}

/// The assumptions of every claim about `p`, in [`KEYWORDS`] order: version 1's implicit
/// list, and the list version 2 must write.
pub fn implicit(p: &Program) -> Vec<Assumption> {
    let all = p.arrays.iter().map(|a| a.name.clone()).collect();
    let global = p.arrays.iter().filter(|a| a.space == Space::Global).map(|a| a.name.clone()).collect();
    vec![
        Assumption::Terminates,
        Assumption::NoRuntimeError,
        Assumption::NoOverflow,
        Assumption::Aligned(all),
        Assumption::NoAlias(global),
        Assumption::RaceFree,
        Assumption::AtomicsUnserialized,
        Assumption::WarpAlone,
    ]
}

/// Checks that `written` states exactly [`implicit`]`(p)` (any order; array lists as
/// sets). Errors: [`Reason::MissingAssumption`], [`Reason::AssumptionArrays`].
pub fn check(p: &Program, written: &[Assumption]) -> Result<(), Reason> {
    for want in implicit(p) {
        let found = written.iter().find(|a| a.keyword() == want.keyword());
        let Some(found) = found else {
            return Err(Reason::MissingAssumption(want.keyword()));
        };
        if let (Assumption::Aligned(w) | Assumption::NoAlias(w), Assumption::Aligned(f) | Assumption::NoAlias(f)) =
            (&want, found)
        {
            let (mut w, mut f) = (w.clone(), f.clone());
            w.sort();
            f.sort();
            if w != f {
                return Err(Reason::AssumptionArrays {
                    assumption: want.keyword(),
                    expected: w.join(" "),
                    found: f.join(" "),
                });
            }
        }
    }
    Ok(())
}
