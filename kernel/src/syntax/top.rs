//! The whole certificate (spec/certificate.md "Versions"): header, sections, hypotheses and
//! provenance.

use super::*;

/// Supported certificate format versions (spec/certificate.md, "Versions").
pub const VERSIONS: &str = "1..=6";

/// The whole certificate: header line `warpcert-certificate V` with `V ∈ 1..=6`, then
/// `metric`, `hardware`, `launch`, `program`, `bound`, `derivation`, each exactly once;
/// version 2 adds `assumptions` (required) and `provenance` (optional); version 3 adds
/// `assertions` (required), the table the derivation's `(pre NAME)`/`(post NAME)` refer to;
/// version 4 adds `(ids I J)` items in entail lists, expanded here ([`node_v4`]); version 5
/// lets Q:SEQ children omit their pre ([`node_v5`]) and expression nodes their cost;
/// version 6 adds implicit expression derivations `_`, default `Q:VWRITE` post witnesses
/// ([`node_v6`]) and bare `p`/`d` bases ([`table`]).
///
/// Errors: [`Reason::Version`] for another version, [`Reason::Syntax`] otherwise.
pub fn certificate(top: &[Sexp]) -> Result<Certificate, Rejection> {
    let first = Sexp::Atom("", 1);
    let header = "the header `warpcert-certificate V` on line 1";
    let (Some(h), Some(vs)) = (top.first(), top.get(1)) else {
        return Err(err(top.first().unwrap_or(&first), header));
    };
    if h.atom() != Some("warpcert-certificate") || h.line() != 1 {
        return Err(err(h, header));
    }
    let ver = vs.atom().filter(|_| vs.line() == 1).ok_or_else(|| err(vs, "a version number on line 1"))?;
    let version = match ver {
        "1" => 1,
        "2" => 2,
        "3" => 3,
        "4" => 4,
        "5" => 5,
        "6" => 6,
        _ => return Err(Rejection::parse(Reason::Version { found: ver.to_string(), supported: VERSIONS })),
    };
    let mut known = vec!["metric", "hardware", "launch", "program", "bound", "derivation", "lower"];
    if version >= 2 {
        known.extend(["assumptions", "provenance"]);
    }
    if version >= 3 {
        known.push("assertions");
    }
    let mut sec: BTreeMap<&str, &Sexp> = BTreeMap::new();
    for s in top.get(2..).unwrap_or(&[]) {
        let h = s.head().unwrap_or("");
        if !known.contains(&h) || sec.insert(h, s).is_some() {
            let e = if version >= 3 {
                "one each of metric, hardware, launch, assumptions, program, bound, assertions, derivation (and provenance)"
            } else if version >= 2 {
                "one each of metric, hardware, launch, assumptions, program, bound, derivation (and provenance)"
            } else {
                "one each of metric, hardware, launch, program, bound, derivation"
            };
            return Err(err(s, e));
        }
    }
    let get = |k: &'static str| {
        sec.get(k).copied().ok_or_else(|| {
            Rejection::parse(Reason::Syntax { line: 0, expected: k, found: "no such section".to_string() })
        })
    };
    let m = get("metric")?;
    let [metric] = exactly(items(m, "metric", "")?, m, "(metric NAME)")?;
    let hw = get("hardware")?;
    let [w, b, bb, sb] = exactly(items(hw, "hardware", "")?, hw, "(hardware WARP BANKS BANK_BYTES SECTOR_BYTES)")?;
    let la = get("launch")?;
    let [bx, by, bz] = exactly(items(la, "launch", "")?, la, "(launch BX BY BZ)")?;
    let bs = get("bound")?;
    let [bound] = exactly(items(bs, "bound", "")?, bs, "(bound POLY)")?;
    let d = get("derivation")?;
    let [root] = exactly(items(d, "derivation", "")?, d, "(derivation NODE)")?;
    let assumptions = if version >= 2 { assume::parse(get("assumptions")?)? } else { Vec::new() };
    let (lower, hypotheses) = match sec.get("lower") {
        Some(l) => {
            let e = "(lower WARP) or (lower WARP (hyp C…) (witness (NAME INT)…))";
            let (w, hyp) = match items(l, "lower", e)? {
                [w] => (w, None),
                [w, h, x] => (w, Some(hypotheses(h, x)?)),
                _ => return Err(err(l, e)),
            };
            (Some(atom(w, "a warp number")?.parse::<u32>().map_err(|_| err(w, "a warp number"))?), hyp)
        }
        None => (None, None),
    };
    Ok(Certificate {
        lower,
        hypotheses,
        version,
        metric: atom(metric, "a metric")?.to_string(),
        hardware: [u32_of(w)?, u32_of(b)?, u32_of(bb)?, u32_of(sb)?],
        block: [u32_of(bx)?, u32_of(by)?, u32_of(bz)?],
        assumptions,
        provenance: sec.get("provenance").map(|p| provenance(p)).transpose()?,
        program: deferred(get("program")?, program)?,
        bound: poly(bound)?,
        root: match version {
            6.. => {
                let t = get("assertions")?;
                node_v6(root, &deferred(t, |s| table(s, true))?, t.text().len())?
            }
            5 => node_v5(root, &deferred(get("assertions")?, |s| table(s, false))?)?,
            4 => node_v4(root, &deferred(get("assertions")?, |s| table(s, false))?)?,
            3 => node_with(root, &deferred(get("assertions")?, |s| table(s, false))?)?,
            _ => node(root)?,
        },
    })
}

/// The sections [`certificate`] reads through [`deferred`]: a reader may leave them
/// unread ([`crate::sexp::parse_top`]), so that their trees are built one at a time.
pub const DEFERRED_SECTIONS: [&str; 2] = ["program", "assertions"];

/// `f` on the full tree of the section `s` ([`crate::sexp::parse_deferred`]), freed
/// before returning: the s-expressions of the program and of the assertion table are not
/// kept while the derivation is read.
fn deferred<T>(s: &Sexp, f: impl FnOnce(&Sexp) -> Result<T, Rejection>) -> Result<T, Rejection> {
    let full = crate::sexp::parse_deferred(s)?;
    f(&full)
}

/// `(hyp C…)` (each `(le LIN)`, `(eq LIN)` or a congruence `(mod LIN M R…)`) and
/// `(witness (NAME INT)…)` of a lower-bound certificate (spec/certificate.md, "Lower-bound
/// certificates").
pub(super) fn hypotheses(h: &Sexp, x: &Sexp) -> Result<Hypotheses, Rejection> {
    let mut facts = Vec::new();
    for c in items(h, "hyp", "(hyp (le LIN)…)")? {
        if !matches!(c.head(), Some("le" | "eq" | "mod")) {
            return Err(err(c, "(le LIN), (eq LIN) or (mod LIN M R…)"));
        }
        facts.push(cstr(c)?);
    }
    let mut witness = Vec::new();
    for p in items(x, "witness", "(witness (NAME INT)…)")? {
        let [n, v] = exactly(p.list().ok_or_else(|| err(p, "(NAME INT)"))?, p, "(NAME INT)")?;
        witness.push((atom(n, "a parameter name")?.to_string(), int(v)?));
    }
    Ok(Hypotheses { facts, witness })
}

/// `(provenance (source-sha256 HEX) (program-sha256 HEX) (warpcert VERSION) (grid …)
/// (fixed (NAME N) …))` (spec/certificate.md "Provenance"): read and reported, not checked.
pub(super) fn provenance(s: &Sexp) -> Result<Provenance, Rejection> {
    let e = "(provenance (source-sha256 HEX) (program-sha256 HEX) (warpcert V) (grid …) (fixed …))";
    let [src, prog, ver, grid, fixed] = exactly(items(s, "provenance", e)?, s, e)?;
    let hex = |x: &Sexp, head: &str| -> Result<String, Rejection> {
        let [h] = exactly(items(x, head, e)?, x, e)?;
        let h = atom(h, "a SHA-256 in hexadecimal")?;
        if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(err(x, "64 lowercase hexadecimal digits"));
        }
        Ok(h.to_string())
    };
    let [v] = exactly(items(ver, "warpcert", e)?, ver, "(warpcert VERSION)")?;
    let grid = match items(grid, "grid", "(grid symbolic) or (grid GX GY GZ)")? {
        [g] if g.atom() == Some("symbolic") => None,
        [x, y, z] => Some([u32_of(x)?, u32_of(y)?, u32_of(z)?]),
        _ => return Err(err(grid, "(grid symbolic) or (grid GX GY GZ)")),
    };
    let mut values = Vec::new();
    for f in items(fixed, "fixed", "(fixed (NAME N) …)")? {
        let [n, v] = exactly(f.list().ok_or_else(|| err(f, "(NAME N)"))?, f, "(NAME N)")?;
        values.push((atom(n, "a parameter name")?.to_string(), int(v)?));
    }
    Ok(Provenance {
        source_sha256: hex(src, "source-sha256")?,
        program_sha256: hex(prog, "program-sha256")?,
        warpcert: atom(v, "a version")?.to_string(),
        grid,
        fixed: values,
    })
}
