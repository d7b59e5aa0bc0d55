//! Readers of the program and of the logic's values (spec/certificate.md "Programs",
//! "Numbers, forms and potentials"): operands, expressions, statements, linear forms,
//! constraints, potentials, potential atoms and dependence entries.

use super::*;

pub(crate) fn err(s: &Sexp, expected: &'static str) -> Rejection {
    Rejection::parse(Reason::Syntax { line: s.line(), expected, found: s.brief() })
}

pub(crate) fn items<'a, 't>(s: &'a Sexp<'t>, head: &str, expected: &'static str) -> Result<&'a [Sexp<'t>], Rejection> {
    match s.list() {
        Some(v) if v.first().and_then(Sexp::atom) == Some(head) => Ok(tail(v)),
        _ => Err(err(s, expected)),
    }
}

pub(crate) fn atom<'a>(s: &'a Sexp, expected: &'static str) -> Result<&'a str, Rejection> {
    s.atom().ok_or_else(|| err(s, expected))
}

/// The items of `v` after the first (none for an empty list).
pub(super) fn tail<'a, 't>(v: &'a [Sexp<'t>]) -> &'a [Sexp<'t>] {
    v.get(1..).unwrap_or(&[])
}

/// `v` as exactly `N` items (a syntax error at `s`, expecting `e`, otherwise).
pub(super) fn exactly<'a, 't, const N: usize>(
    v: &'a [Sexp<'t>],
    s: &Sexp,
    e: &'static str,
) -> Result<&'a [Sexp<'t>; N], Rejection> {
    v.try_into().map_err(|_| err(s, e))
}

/// The integer written `a`: optional `-` then ASCII digits (`None` otherwise).
pub(super) fn int_text(a: &str) -> Option<BigInt> {
    let digits = a.strip_prefix('-').unwrap_or(a);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Fast path: at most 18 digits always fit in an i64.
    if digits.len() <= 18 {
        return a.parse::<i64>().ok().map(BigInt::from);
    }
    BigInt::from_str(a).ok()
}

/// Integer literal: optional `-` then ASCII digits.
pub fn int(s: &Sexp) -> Result<BigInt, Rejection> {
    int_text(atom(s, "an integer")?).ok_or_else(|| err(s, "an integer"))
}

/// Rational literal `N` or `P/Q` with `Q > 0`.
pub fn rat(s: &Sexp) -> Result<Rat, Rejection> {
    let a = atom(s, "a rational")?;
    let (p, q) = a.split_once('/').unwrap_or((a, "1"));
    let (Some(p), Some(q)) = (int_text(p), int_text(q)) else {
        return Err(err(s, "a rational"));
    };
    if !q.is_positive() {
        return Err(err(s, "a rational with positive denominator"));
    }
    Ok(if q.is_one() { Rat::from_integer(p) } else { Rat::new(p, q) })
}

pub(super) fn u32_of(s: &Sexp) -> Result<u32, Rejection> {
    atom(s, "a positive integer")?
        .parse::<u32>()
        .ok()
        .filter(|&v| v >= 1)
        .ok_or_else(|| err(s, "a positive 32-bit integer"))
}

pub(super) fn ty(s: &Sexp) -> Result<Ty, Rejection> {
    match atom(s, "a type")? {
        "int" => Ok(Ty::Int),
        "bool" => Ok(Ty::Bool),
        "float" => Ok(Ty::Float),
        _ => Err(err(s, "int, bool or float")),
    }
}

/// `OPD` (spec/certificate.md "Program").
pub fn opd(s: &Sexp) -> Result<Opd, Rejection> {
    let v = s.list().ok_or_else(|| err(s, "an operand"))?;
    let e = "an operand (var|param|tid|int|bool|float X)";
    let [kind, arg] = exactly(v, s, e)?;
    Ok(match atom(kind, e)? {
        "var" => Opd::Var(atom(arg, "a name")?.to_string()),
        "param" => Opd::Param(atom(arg, "a name")?.to_string()),
        "tid" => Opd::Tid(match atom(arg, "x, y or z")? {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return Err(err(arg, "x, y or z")),
        }),
        "int" => Opd::Int(int(arg)?),
        "bool" => Opd::Bool(match atom(arg, "true or false")? {
            "true" => true,
            "false" => false,
            _ => return Err(err(arg, "true or false")),
        }),
        "float" => Opd::Float(atom(arg, "a float literal")?.to_string()),
        _ => return Err(err(s, e)),
    })
}

/// `EXPR`.
pub fn expr(s: &Sexp) -> Result<Expr, Rejection> {
    let e = "an expression";
    match s.head() {
        Some("bin") => {
            let [o, a, b] = exactly(items(s, "bin", e)?, s, "(bin OP OPD OPD)")?;
            let op = atom(o, "a binary operator")?;
            if !BINOPS.contains(&op) {
                return Err(err(o, "a binary operator"));
            }
            Ok(Expr::Bin(op.to_string(), opd(a)?, opd(b)?))
        }
        Some("un") => {
            let [o, a] = exactly(items(s, "un", e)?, s, "(un OP OPD)")?;
            let op = atom(o, "a unary operator")?;
            if !UNOPS.contains(&op) {
                return Err(err(o, "a unary operator"));
            }
            Ok(Expr::Un(op.to_string(), opd(a)?))
        }
        Some("read") => {
            let [a, o] = exactly(items(s, "read", e)?, s, "(read ARR OPD)")?;
            Ok(Expr::Read(atom(a, "an array")?.to_string(), opd(o)?))
        }
        _ => Ok(Expr::Opd(opd(s)?)),
    }
}

/// `STMT` (recursive; nesting is bounded by [`crate::sexp::MAX_DEPTH`]).
pub fn stmt(s: &Sexp) -> Result<Stmt, Rejection> {
    let e = "a statement";
    let v = s.list().ok_or_else(|| err(s, e))?;
    let args = tail(v);
    Ok(match s.head() {
        Some("skip") => {
            exactly::<0>(args, s, "(skip)")?;
            Stmt::Skip
        }
        Some("sync") => {
            exactly::<0>(args, s, "(sync)")?;
            Stmt::Sync
        }
        Some("seq") => {
            // (seq S1 S2 … Sn), n ≥ 2, is the right-nested chain S1; (S2; (… Sn)), built
            // without recursion per item (format 3 writes chains flat; 1 and 2 write n = 2)
            if args.len() < 2 {
                return Err(err(s, "(seq S S …) with at least two statements"));
            }
            let mut items = args.iter().map(stmt).collect::<Result<Vec<_>, _>>()?;
            let mut acc = items.pop().unwrap_or(Stmt::Skip);
            while let Some(x) = items.pop() {
                acc = Stmt::Seq(Box::new(x), Box::new(acc));
            }
            acc
        }
        Some("assign") => {
            let [x, e] = exactly(args, s, "(assign X E)")?;
            Stmt::Assign(atom(x, "a local")?.to_string(), expr(e)?)
        }
        Some("write") => {
            let [a, o, e] = exactly(args, s, "(write ARR O E)")?;
            Stmt::Write(atom(a, "an array")?.to_string(), opd(o)?, expr(e)?)
        }
        Some("if") => {
            let [e, a, b] = exactly(args, s, "(if E S S)")?;
            Stmt::If(expr(e)?, Box::new(stmt(a)?), Box::new(stmt(b)?))
        }
        Some("while") => {
            let [e, b] = exactly(args, s, "(while E S)")?;
            Stmt::While(expr(e)?, Box::new(stmt(b)?))
        }
        Some(h @ ("shfl" | "vote")) => warp(s, h, args)?,
        _ => return Err(err(s, e)),
    })
}

/// `(shfl X KIND WIDTH V L)` (KIND `idx up down xor`, WIDTH ≥ 1) or `(vote X KIND P)`
/// (KIND `ballot any all`).
pub(super) fn warp(s: &Sexp, head: &str, args: &[Sexp]) -> Result<Stmt, Rejection> {
    if head == "vote" {
        let [x, k, p] = exactly(args, s, "(vote X KIND P)")?;
        let kind = atom(k, "ballot, any or all")?;
        if !["ballot", "any", "all"].contains(&kind) {
            return Err(err(k, "ballot, any or all"));
        }
        return Ok(Stmt::Warp(atom(x, "a local")?.to_string(), WarpOp::Vote(kind.to_string(), opd(p)?)));
    }
    let [x, k, w, v, l] = exactly(args, s, "(shfl X KIND WIDTH V L)")?;
    let kind = atom(k, "idx, up, down or xor")?;
    if !["idx", "up", "down", "xor"].contains(&kind) {
        return Err(err(k, "idx, up, down or xor"));
    }
    let width = atom(w, "a width ≥ 1")?.parse::<u32>().ok().filter(|w| *w >= 1).ok_or_else(|| err(w, "a width ≥ 1"))?;
    Ok(Stmt::Warp(atom(x, "a local")?.to_string(), WarpOp::Shfl(kind.to_string(), width, opd(v)?, opd(l)?)))
}

/// `(program NAME (params …) (arrays …) (locals …) (body S))`.
pub fn program(s: &Sexp) -> Result<Program, Rejection> {
    let [name, ps, arrs, ls, body] =
        exactly(items(s, "program", "(program …)")?, s, "(program NAME params arrays locals body)")?;
    let name = atom(name, "the kernel name")?.to_string();
    let typed = |p: &Sexp| -> Result<(Ty, String), Rejection> {
        let [t, x] = exactly(p.list().ok_or_else(|| err(p, "(TY NAME)"))?, p, "(TY NAME)")?;
        Ok((ty(t)?, atom(x, "a name")?.to_string()))
    };
    let params = items(ps, "params", "(params …)")?.iter().map(typed).collect::<Result<_, _>>()?;
    let mut arrays = Vec::new();
    for a in items(arrs, "arrays", "(arrays …)")? {
        let l = a.list().ok_or_else(|| err(a, "(ARR SPACE ETY EBYTES)"))?;
        let [n, sp, t, b] = exactly(l, a, "(ARR SPACE ETY EBYTES)")?;
        let space = match atom(sp, "global, shared or local")? {
            "global" => Space::Global,
            "shared" => Space::Shared,
            "local" => Space::Local,
            _ => return Err(err(sp, "global, shared or local")),
        };
        arrays.push(Array { name: atom(n, "a name")?.to_string(), space, ty: ty(t)?, bytes: u32_of(b)? });
    }
    let locals = items(ls, "locals", "(locals …)")?.iter().map(typed).collect::<Result<_, _>>()?;
    let [b] = exactly(items(body, "body", "(body S)")?, body, "(body S)")?;
    let first = |v: &Vec<(Ty, String)>| {
        let mut m = HashMap::default();
        for (t, x) in v {
            m.entry(x.clone()).or_insert(*t);
        }
        m
    };
    let index = (first(&locals), first(&params));
    Ok(Program { name, params, arrays, locals, body: stmt(b)?, index })
}

/// `(lin C (A V) …)`, normalized.
pub fn lin(s: &Sexp) -> Result<Lin, Rejection> {
    let v = items(s, "lin", "(lin C (A V) …)")?;
    let c = v.first().ok_or_else(|| err(s, "(lin C (A V) …)"))?;
    let mut l = Lin::constant(rat(c)?);
    for t in tail(v) {
        let [a, x] = exactly(t.list().ok_or_else(|| err(t, "(A V)"))?, t, "(A V)")?;
        l.add_term(atom(x, "a variable")?, &rat(a)?);
    }
    Ok(l)
}

/// `(le LIN)` / `(eq LIN)` / `(mod LIN M R …)` (`M ≥ 1`, residues strictly increasing in
/// `[0, M)`; that the form is over `threadIdx.*` with integer coefficients is part of
/// well-formedness, checked by the rules).
pub fn cstr(s: &Sexp) -> Result<Cstr, Rejection> {
    let e = "(le LIN), (eq LIN) or (mod LIN M R …)";
    let v = s.list().unwrap_or(&[]);
    match s.head() {
        Some("le") => Ok(Cstr::le(lin(&exactly::<2>(v, s, e)?[1])?)),
        Some("eq") => Ok(Cstr::equal(lin(&exactly::<2>(v, s, e)?[1])?)),
        Some("mod") => {
            let (Some(l), Some(ms), Some(residues)) = (v.get(1), v.get(2), v.get(3..)) else {
                return Err(err(s, e));
            };
            let m = int(ms)?;
            if !m.is_positive() {
                return Err(err(ms, "a modulus M ≥ 1"));
            }
            let mut rs: Vec<BigInt> = Vec::new();
            for r in residues {
                let x = int(r)?;
                if x.is_negative() || x >= m || rs.last().is_some_and(|p| *p >= x) {
                    return Err(err(r, "residues strictly increasing in [0, M)"));
                }
                rs.push(x);
            }
            Ok(Cstr { eq: false, lin: lin(l)?, lane: Some(Box::new(Lane { m, rs })) })
        }
        _ => Err(err(s, e)),
    }
}

/// `(poly TERM …)`, normalized.
pub fn poly(s: &Sexp) -> Result<Poly, Rejection> {
    let mut p = Poly::zero();
    for t in items(s, "poly", "(poly TERM …)")? {
        term(t, &mut p)?;
    }
    Ok(p)
}

/// Adds the term `(C ATOM …)` to `p` (normalized).
pub(super) fn term(t: &Sexp, p: &mut Poly) -> Result<(), Rejection> {
    let v = t.list().ok_or_else(|| err(t, "(C ATOM …)"))?;
    let c = v.first().ok_or_else(|| err(t, "(C ATOM …)"))?;
    let mut atoms = Vec::new();
    for a in tail(v) {
        atoms.push(pot_atom(a)?);
    }
    p.add_term(rat(c)?, atoms);
    Ok(())
}

/// `(max0 LIN)`, `(floor LIN C)` with an integer `C ≥ 1`, `(floors LIN DLIN)` (well-formed,
/// [`floors_wf`], and canonical, [`floors_canonical`]), `(log2 LIN)`,
/// `(log2q LIN1 LIN2)`, `(ndvd LIN M)` with an integer `M ≥ 1` or `(inwin LIN M W)` with
/// integers `M ≥ 1`, `W` (spec/certificate.md).
pub fn pot_atom(a: &Sexp) -> Result<Atom, Rejection> {
    let e =
        "(max0 LIN), (floor LIN C), (floors LIN DLIN), (log2 LIN), (log2q LIN1 LIN2), (ndvd LIN M) or (inwin LIN M W)";
    match a.head() {
        Some("max0") => {
            let [l] = exactly(items(a, "max0", e)?, a, e)?;
            Ok(Atom::Max0(lin(l)?))
        }
        Some("floor") => {
            let [l, c] = exactly(items(a, "floor", e)?, a, e)?;
            let d = int(c)?;
            if !d.is_positive() {
                return Err(err(c, "a divisor C ≥ 1"));
            }
            Ok(Atom::Floor(lin(l)?, d))
        }
        Some("floors") => {
            // spec/logic.md §1 "Symbolic divisors": well-formed and canonical as written
            let [l, d] = exactly(items(a, "floors", e)?, a, e)?;
            let (l, d) = (lin(l)?, lin(d)?);
            floors_wf(&l, &d).map_err(|m| err(a, m))?;
            if floors_canonical(&l, &d) != (l.clone(), d.clone()) {
                return Err(err(
                    a,
                    "a canonical symbolic floor atom (the gcd of the coefficients and constants of LIN and DLIN is 1)",
                ));
            }
            Ok(Atom::FloorSym(l, d))
        }
        Some("log2") => {
            let [l] = exactly(items(a, "log2", e)?, a, e)?;
            Ok(Atom::Log(lin(l)?))
        }
        Some("log2q") => {
            let [l, m] = exactly(items(a, "log2q", e)?, a, e)?;
            Ok(Atom::LogQ(lin(l)?, lin(m)?))
        }
        Some("ndvd") => {
            let [l, c] = exactly(items(a, "ndvd", e)?, a, e)?;
            let m = int(c)?;
            if !m.is_positive() {
                return Err(err(c, "a modulus M ≥ 1"));
            }
            let l = lin(l)?;
            if !l.c.is_integer() || !l.terms.values().all(|a| a.is_integer()) {
                return Err(err(a, "a residue atom's form with integer coefficients and constant"));
            }
            Ok(Atom::Res(l, m))
        }
        Some("inwin") => {
            let [l, c, w] = exactly(items(a, "inwin", e)?, a, e)?;
            let m = int(c)?;
            if !m.is_positive() {
                return Err(err(c, "a modulus M ≥ 1"));
            }
            let l = lin(l)?;
            if !l.c.is_integer() || !l.terms.values().all(|a| a.is_integer()) {
                return Err(err(a, "a window atom's form with integer coefficients and constant"));
            }
            Ok(Atom::Win(l, m, int(w)?))
        }
        _ => Err(err(a, e)),
    }
}

/// `(dep X KX KY KZ R G)` with `g ≥ 0` (a `K` may be `?`: a scaled entry), `(rem X KX KY KZ R M)` with `m ≥ 1` (residue
/// ranges are checked by [`assn`]), `(rng X W)` with `w ≥ 0`, or `(wrap X KX KY KZ M)` with `m ≥ 1`.
pub(super) fn dep(s: &Sexp) -> Result<(String, Dep), Rejection> {
    let e = "(dep X KX KY KZ R G), (rem X KX KY KZ R M), (rng X W) or (wrap X KX KY KZ M)";
    let rem = match s.head() {
        Some("dep") => false,
        Some("rem") => true,
        Some("rng") => {
            let [x, w] = exactly(s.list().map(tail).unwrap_or(&[]), s, "(rng X W)")?;
            let width = int(w)?;
            if width.is_negative() {
                return Err(err(w, "a width W ≥ 0"));
            }
            return Ok((atom(x, "a local")?.to_string(), Dep::range(width)));
        }
        Some("wrap") => {
            let [x, kx, ky, kz, ms] = exactly(s.list().map(tail).unwrap_or(&[]), s, "(wrap X KX KY KZ M)")?;
            let m = int(ms)?;
            if !m.is_positive() {
                return Err(err(ms, "a modulus M ≥ 1"));
            }
            return Ok((atom(x, "a local")?.to_string(), Dep::wrap([int(kx)?, int(ky)?, int(kz)?], m)));
        }
        _ => return Err(err(s, e)),
    };
    let [x, kx, ky, kz, r, gs] = exactly(s.list().map(tail).unwrap_or(&[]), s, e)?;
    let g = int(gs)?;
    if g.is_negative() || (rem && g.is_zero()) {
        return Err(err(gs, if rem { "a modulus M ≥ 1" } else { "a modulus G ≥ 0" }));
    }
    // `?` for a coefficient of a scaled entry (`dep` only), stored as 0; `(? P A B)` with
    // its row multiplier `A·P + B` (spec/logic.md §1 "Row multipliers")
    let coef = |s: &Sexp| match (s.atom(), s.head()) {
        (Some("?"), _) if !rem => Ok((BigInt::zero(), true, None)),
        (_, Some("?")) if !rem => {
            let [p, a, b] = exactly(s.list().map(tail).unwrap_or(&[]), s, "(? P A B)")?;
            let mul = Mul { param: atom(p, "a parameter")?.to_string(), a: int(a)?, b: int(b)? };
            Ok((BigInt::zero(), true, Some(mul)))
        }
        _ => int(s).map(|k| (k, false, None)),
    };
    let [(k0, u0, m0), (k1, u1, m1), (k2, u2, m2)] = [coef(kx)?, coef(ky)?, coef(kz)?];
    let kind = match (rem, [u0, u1, u2]) {
        (true, _) => EntryKind::Rem,
        (false, [false, false, false]) => EntryKind::Linear,
        (false, u) => EntryKind::Scaled(u),
    };
    let muls: Vec<Mul> = [m0, m1, m2].into_iter().flatten().collect();
    if !muls.is_empty() && [u0, u1, u2].iter().filter(|u| **u).count() != 1 {
        return Err(err(s, "a row multiplier (? P A B) only on the one ? dimension of a scaled entry"));
    }
    let d = Dep { k: [k0, k1, k2], r: int(r)?, g, kind, mul: muls.into_iter().next() };
    Ok((atom(x, "a local")?.to_string(), d))
}

/// [`dep`] with the residue condition `0 ≤ r < g` (when `g > 0`) of well-formedness.
pub(super) fn dep_checked(e: &Sexp) -> Result<(String, Dep), Rejection> {
    let (x, entry) = dep(e)?;
    if matches!(entry.kind, EntryKind::Linear | EntryKind::Scaled(_))
        && entry.g.is_positive()
        && (entry.r.is_negative() || entry.r >= entry.g)
        || entry.kind == EntryKind::Rem && (entry.r.is_negative() || entry.r >= entry.g)
    {
        return Err(err(e, "a residue 0 ≤ R < G"));
    }
    Ok((x, entry))
}
