//! Claimed bounds as written by other analyzers (issue 19): RaCUDA's printed bounds
//! (`4 + 0.312496 (31 + wA)`, `max(0, 31 + wA)`, `75 + 1621 (31+N)/32`) and Pico's
//! (`0.31 wA + 15.0`, `15 wA + 465`, `⌊(wA + 31)/32⌋`), parsed with `nom` into
//! [`ClaimExpr`]: exact rationals (a decimal such as `0.312496` is the rational
//! `312496/1000000`), parameters, `+ - * /` (also `·`, `×` and juxtaposition:
//! `15 wA`), `^` with a natural exponent, `max(a, b)`, `min(a, b)`, `floor(·)` / `⌊·⌋` and
//! `ceil(·)` / `⌈·⌉`; and the atoms warpcert itself prints (spec/logic.md §1), so that its
//! own bound can be pasted into a claim: `⌊L⌋⁺` (`max(0, ⌊L⌋)`) and the residue atom
//! `[m ∤ L]` (also written `[m !| L]`: 0 when the integer `m ≥ 1` divides `L`, else 1),
//! and the finite sum `Σ_{k=a..b} F` (`F[k := a] + … + F[k := b]`, `0 ≤ a ≤ b`, at most
//! [`SUM_LIMIT`] values; `k` is bound in `F`) that warpcert prints for unrolled loop copies
//! (the kernel's printed-formula grammar, `kernel/src/printed.rs`).
//!
//! **Domain.** A claim speaks about parameter values `≥ 0` (the sizes the published
//! bounds describe). On that domain a bare parameter `x` equals `max(0, x)`, which is how
//! [`ClaimExpr::to_poly`] writes it in a potential (spec/logic.md §1: potentials are
//! polynomials over `max0` atoms): a certificate for the potential (valid for *all*
//! parameter values) proves the claim on its domain.

use crate::core::assertion::linear::fmt_q;
use crate::core::assertion::poly::{res_value, Atom};
use crate::core::assertion::{Lin, Poly};
use crate::core::metric::Q;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1, multispace0};
use nom::combinator::{opt, recognize};
use nom::sequence::{delimited, pair, preceded};
use nom::{IResult, Parser};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// Most nested brackets a claim may have (deeper input is rejected before parsing).
pub const MAX_CLAIM_NESTING: usize = 200;
/// Longest claim text, in bytes.
pub const MAX_CLAIM_LEN: usize = 10_000;
/// The most values a finite sum `Σ_{k=a..b}` may range over (the kernel's own limit).
pub const SUM_LIMIT: u32 = warpcert_kernel::printed::SUM_LIMIT;
/// The most expression nodes a claim may have once its finite sums are unrolled.
pub const MAX_CLAIM_NODES: usize = 1_000_000;

/// A claimed bound as a function of the kernel's parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimExpr {
    /// An exact rational.
    Num(Q),
    /// A parameter.
    Var(String),
    /// `a + b`.
    Add(Box<ClaimExpr>, Box<ClaimExpr>),
    /// `a - b`.
    Sub(Box<ClaimExpr>, Box<ClaimExpr>),
    /// `a * b`.
    Mul(Box<ClaimExpr>, Box<ClaimExpr>),
    /// `a / b`.
    Div(Box<ClaimExpr>, Box<ClaimExpr>),
    /// `max(a, b)`.
    Max(Box<ClaimExpr>, Box<ClaimExpr>),
    /// `min(a, b)`.
    Min(Box<ClaimExpr>, Box<ClaimExpr>),
    /// `⌊a⌋`.
    Floor(Box<ClaimExpr>),
    /// `⌈a⌉`.
    Ceil(Box<ClaimExpr>),
    /// The residue atom `[m ∤ a]`: 0 when the integer `m ≥ 1` divides the integer `a`,
    /// else 1 (spec/logic.md §1 "Residue atoms").
    NotDvd(BigInt, Box<ClaimExpr>),
}

fn bx(e: ClaimExpr) -> Box<ClaimExpr> {
    Box::new(e)
}

/// Why a claim text was not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClaimParseError {
    /// The text does not follow the grammar; `at` is the byte offset where reading stopped.
    #[error("cannot read the claim `{text}` at byte {at}: {what}")]
    Syntax {
        /// The claim.
        text: String,
        /// Byte offset.
        at: usize,
        /// What was expected.
        what: String,
    },
    /// Too long or too deeply nested.
    #[error("the claim is longer than {MAX_CLAIM_LEN} bytes or nested deeper than {MAX_CLAIM_NESTING} brackets")]
    Limit,
}

fn ws<'a, O>(
    p: impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
) -> impl Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>> {
    delimited(multispace0, p, multispace0)
}

/// An unsigned decimal `digits[.digits]` or `.digits`, as an exact rational.
fn number(i: &str) -> IResult<&str, ClaimExpr> {
    let (rest, s) = recognize(alt((
        recognize(pair(digit1, opt(pair(char('.'), opt(digit1))))),
        recognize(pair(char('.'), digit1)),
    )))
    .parse(i)?;
    let (ip, fp) = s.split_once('.').unwrap_or((s, ""));
    let digits = format!("{ip}{fp}");
    let n: BigInt = digits.parse().unwrap_or_default();
    let den = BigInt::from(10u32).pow(fp.len() as u32);
    Ok((rest, ClaimExpr::Num(Q::new(n, den))))
}

fn name(i: &str) -> IResult<&str, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_alphabetic() || c == '_'),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.'),
    ))
    .parse(i)
}

fn call2(i: &str) -> IResult<&str, ClaimExpr> {
    let (i, f) = ws(alt((tag("max"), tag("min")))).parse(i)?;
    let (i, (a, b)) = delimited(
        ws(char('(')),
        pair(sum, preceded(ws(char(',')), sum)),
        ws(char(')')),
    )
    .parse(i)?;
    Ok((
        i,
        if f == "max" {
            ClaimExpr::Max(bx(a), bx(b))
        } else {
            ClaimExpr::Min(bx(a), bx(b))
        },
    ))
}

fn call1(i: &str) -> IResult<&str, ClaimExpr> {
    let (i, f) = ws(alt((tag("floor"), tag("ceil")))).parse(i)?;
    let (i, a) = delimited(ws(char('(')), sum, ws(char(')'))).parse(i)?;
    Ok((
        i,
        if f == "floor" {
            ClaimExpr::Floor(bx(a))
        } else {
            ClaimExpr::Ceil(bx(a))
        },
    ))
}

/// `⌊a⌋` or, followed by `⁺`, `max(0, ⌊a⌋)` (warpcert's floor atom).
fn floor_bracket(i: &str) -> IResult<&str, ClaimExpr> {
    let (i, a) = delimited(ws(char('⌊')), sum, ws(char('⌋'))).parse(i)?;
    let (i, plus) = opt(ws(char('⁺'))).parse(i)?;
    let f = ClaimExpr::Floor(bx(a));
    Ok((
        i,
        match plus {
            Some(_) => ClaimExpr::Max(bx(ClaimExpr::Num(Q::zero())), bx(f)),
            None => f,
        },
    ))
}

/// The residue atom `[m ∤ sum]` (or `[m !| sum]`) with a positive integer `m`.
fn residue(i: &str) -> IResult<&str, ClaimExpr> {
    let (i, m) = preceded(ws(char('[')), ws(digit1)).parse(i)?;
    let (i, a) = delimited(ws(alt((tag("∤"), tag("!|")))), sum, ws(char(']'))).parse(i)?;
    let m: BigInt = m.parse().unwrap_or_default();
    if !m.is_positive() {
        return Err(nom::Err::Failure(nom::error::Error::new(
            i,
            nom::error::ErrorKind::Verify,
        )));
    }
    Ok((i, ClaimExpr::NotDvd(m, bx(a))))
}

/// `Σ_{k=a..b} F` for a `power` `F`, unrolled to `F[k := a] + … + F[k := b]` (an inner
/// sum is unrolled first, so every occurrence of `k` left in `F` is bound by this sum).
fn finite_sum(i: &str) -> IResult<&str, ClaimExpr> {
    let fail = |at| nom::Err::Failure(nom::error::Error::new(at, nom::error::ErrorKind::Verify));
    let (i, _) = ws(tag("Σ_{")).parse(i)?;
    let (i, k) = ws(name).parse(i)?;
    let (i, _) = ws(char('=')).parse(i)?;
    let (i, lo) = ws(digit1).parse(i)?;
    let (i, _) = ws(tag("..")).parse(i)?;
    let (i, hi) = ws(digit1).parse(i)?;
    let (i, _) = ws(char('}')).parse(i)?;
    let (rest, body) = power(i)?;
    let (Ok(lo), Ok(hi)) = (lo.parse::<u32>(), hi.parse::<u32>()) else {
        return Err(fail(i));
    };
    if lo > hi || hi - lo >= SUM_LIMIT || (hi - lo + 1) as usize * body.size() > MAX_CLAIM_NODES {
        return Err(fail(i));
    }
    let mut out: Option<ClaimExpr> = None;
    for v in lo..=hi {
        let term = body.subst(k, &Q::from_integer(v.into()));
        out = Some(match out {
            None => term,
            Some(acc) => ClaimExpr::Add(bx(acc), bx(term)),
        });
    }
    Ok((rest, out.unwrap_or(ClaimExpr::Num(Q::zero()))))
}

fn brackets(i: &str) -> IResult<&str, ClaimExpr> {
    alt((
        delimited(ws(char('(')), sum, ws(char(')'))),
        floor_bracket,
        delimited(ws(char('⌈')), sum, ws(char('⌉'))).map(|a| ClaimExpr::Ceil(bx(a))),
        residue,
    ))
    .parse(i)
}

/// `atom := number | max(..) | min(..) | floor(..) | ceil(..) | name | (sum) | ⌊sum⌋ |
/// ⌊sum⌋⁺ | ⌈sum⌉ | [m ∤ sum] | Σ_{k=a..b} power`
fn atom(i: &str) -> IResult<&str, ClaimExpr> {
    alt((
        ws(number),
        finite_sum,
        call2,
        call1,
        ws(name).map(|n: &str| ClaimExpr::Var(n.to_string())),
        brackets,
    ))
    .parse(i)
}

/// `power := atom ('^' digits)?`
fn power(i: &str) -> IResult<&str, ClaimExpr> {
    let (i, a) = atom(i)?;
    let (i, e) = opt(preceded(ws(char('^')), ws(digit1))).parse(i)?;
    let Some(e) = e else { return Ok((i, a)) };
    let k: u32 = e.parse().unwrap_or(u32::MAX);
    if k > 16 {
        return Err(nom::Err::Failure(nom::error::Error::new(
            i,
            nom::error::ErrorKind::TooLarge,
        )));
    }
    let mut out = ClaimExpr::Num(Q::one());
    for _ in 0..k {
        out = ClaimExpr::Mul(bx(out), bx(a.clone()));
    }
    Ok((i, out))
}

/// `unary := '-' unary | power`
fn unary(i: &str) -> IResult<&str, ClaimExpr> {
    alt((
        preceded(ws(char('-')), unary)
            .map(|a| ClaimExpr::Sub(bx(ClaimExpr::Num(Q::zero())), bx(a))),
        power,
    ))
    .parse(i)
}

/// `product := unary (('*' | '·' | '×' | '/' | juxtaposition) power)*`
fn product(i: &str) -> IResult<&str, ClaimExpr> {
    let (mut i, mut acc) = unary(i)?;
    loop {
        if let Ok((r, op)) = ws(alt((char('*'), char('·'), char('×'), char('/')))).parse(i) {
            let (r, b) = unary(r)?;
            acc = if op == '/' {
                ClaimExpr::Div(bx(acc), bx(b))
            } else {
                ClaimExpr::Mul(bx(acc), bx(b))
            };
            i = r;
        } else if let Some((r, b)) = juxtaposed(i) {
            acc = ClaimExpr::Mul(bx(acc), bx(b));
            i = r;
        } else {
            return Ok((i, acc));
        }
    }
}

/// A factor written right after another without an operator (`15 wA`, `0.3 (31 + wA)`).
/// A number cannot be juxtaposed (`1 2` is a typo, not 2).
fn juxtaposed(i: &str) -> Option<(&str, ClaimExpr)> {
    let next = i.trim_start().chars().next()?;
    if next.is_ascii_digit() || next == '.' {
        return None;
    }
    power(i).ok()
}

/// `sum := product (('+' | '-') product)*`
fn sum(i: &str) -> IResult<&str, ClaimExpr> {
    let (mut i, mut acc) = product(i)?;
    while let Ok((r, op)) = ws(alt((char('+'), char('-')))).parse(i) {
        let (r, b) = product(r)?;
        acc = if op == '+' {
            ClaimExpr::Add(bx(acc), bx(b))
        } else {
            ClaimExpr::Sub(bx(acc), bx(b))
        };
        i = r;
    }
    Ok((i, acc))
}

impl ClaimExpr {
    /// Parses a claim (module documentation).
    ///
    /// Errors: [`ClaimParseError`] with the byte offset where reading stopped.
    pub fn parse(text: &str) -> Result<ClaimExpr, ClaimParseError> {
        let mut depth = 0usize;
        let mut max_depth = 0usize;
        for c in text.chars() {
            match c {
                '(' | '⌊' | '⌈' | '[' => depth += 1,
                ')' | '⌋' | '⌉' | ']' => depth = depth.saturating_sub(1),
                _ => {}
            }
            max_depth = max_depth.max(depth);
        }
        if text.len() > MAX_CLAIM_LEN || max_depth > MAX_CLAIM_NESTING {
            return Err(ClaimParseError::Limit);
        }
        let err = |rest: &str, what: &str| ClaimParseError::Syntax {
            text: text.to_string(),
            at: text.len() - rest.len(),
            what: what.to_string(),
        };
        match sum(text) {
            Ok((rest, e)) if rest.trim().is_empty() => Ok(e),
            Ok((rest, _)) => Err(err(rest, "an operator or the end of the claim")),
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(err(
                e.input,
                "a number, a parameter, max(…), ⌊…⌋, [m ∤ …] or a bracket",
            )),
            Err(nom::Err::Incomplete(_)) => Err(err("", "more input")),
        }
    }

    /// The number of nodes of the expression tree.
    pub fn size(&self) -> usize {
        match self {
            ClaimExpr::Num(_) | ClaimExpr::Var(_) => 1,
            ClaimExpr::Floor(a) | ClaimExpr::Ceil(a) | ClaimExpr::NotDvd(_, a) => 1 + a.size(),
            ClaimExpr::Add(a, b)
            | ClaimExpr::Sub(a, b)
            | ClaimExpr::Mul(a, b)
            | ClaimExpr::Div(a, b)
            | ClaimExpr::Max(a, b)
            | ClaimExpr::Min(a, b) => 1 + a.size() + b.size(),
        }
    }

    /// `self[k := v]`: every occurrence of the parameter `k` replaced by the number `v`.
    pub fn subst(&self, k: &str, v: &Q) -> ClaimExpr {
        let s = |e: &ClaimExpr| bx(e.subst(k, v));
        match self {
            ClaimExpr::Var(n) if n == k => ClaimExpr::Num(v.clone()),
            ClaimExpr::Num(_) | ClaimExpr::Var(_) => self.clone(),
            ClaimExpr::Floor(a) => ClaimExpr::Floor(s(a)),
            ClaimExpr::Ceil(a) => ClaimExpr::Ceil(s(a)),
            ClaimExpr::NotDvd(m, a) => ClaimExpr::NotDvd(m.clone(), s(a)),
            ClaimExpr::Add(a, b) => ClaimExpr::Add(s(a), s(b)),
            ClaimExpr::Sub(a, b) => ClaimExpr::Sub(s(a), s(b)),
            ClaimExpr::Mul(a, b) => ClaimExpr::Mul(s(a), s(b)),
            ClaimExpr::Div(a, b) => ClaimExpr::Div(s(a), s(b)),
            ClaimExpr::Max(a, b) => ClaimExpr::Max(s(a), s(b)),
            ClaimExpr::Min(a, b) => ClaimExpr::Min(s(a), s(b)),
        }
    }

    /// The parameters the claim mentions, sorted.
    pub fn vars(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_vars(&mut out);
        out.sort();
        out.dedup();
        out
    }

    fn collect_vars(&self, out: &mut Vec<String>) {
        match self {
            ClaimExpr::Num(_) => {}
            ClaimExpr::Var(v) => out.push(v.clone()),
            ClaimExpr::Floor(a) | ClaimExpr::Ceil(a) | ClaimExpr::NotDvd(_, a) => {
                a.collect_vars(out)
            }
            ClaimExpr::Add(a, b)
            | ClaimExpr::Sub(a, b)
            | ClaimExpr::Mul(a, b)
            | ClaimExpr::Div(a, b)
            | ClaimExpr::Max(a, b)
            | ClaimExpr::Min(a, b) => {
                a.collect_vars(out);
                b.collect_vars(out);
            }
        }
    }

    /// Whether the claim has a floor, ceiling or residue atom (it is then compared with
    /// warpcert's bound in its default form, with floor and residue atoms).
    pub fn has_integer_atoms(&self) -> bool {
        match self {
            ClaimExpr::Num(_) | ClaimExpr::Var(_) => false,
            ClaimExpr::Floor(_) | ClaimExpr::Ceil(_) | ClaimExpr::NotDvd(..) => true,
            ClaimExpr::Add(a, b)
            | ClaimExpr::Sub(a, b)
            | ClaimExpr::Mul(a, b)
            | ClaimExpr::Div(a, b)
            | ClaimExpr::Max(a, b)
            | ClaimExpr::Min(a, b) => a.has_integer_atoms() || b.has_integer_atoms(),
        }
    }

    /// The exact value at `env` (a parameter missing from `env` is an error).
    ///
    /// Errors: a missing parameter, a division by zero.
    pub fn eval(&self, env: &BTreeMap<String, i64>) -> Result<Q, String> {
        Ok(match self {
            ClaimExpr::Num(c) => c.clone(),
            ClaimExpr::Var(v) => match env.get(v) {
                Some(x) => Q::from_integer((*x).into()),
                None => return Err(format!("no value for the parameter `{v}`")),
            },
            ClaimExpr::Add(a, b) => a.eval(env)? + b.eval(env)?,
            ClaimExpr::Sub(a, b) => a.eval(env)? - b.eval(env)?,
            ClaimExpr::Mul(a, b) => a.eval(env)? * b.eval(env)?,
            ClaimExpr::Div(a, b) => {
                let d = b.eval(env)?;
                if d.is_zero() {
                    return Err("division by zero in the claim".into());
                }
                a.eval(env)? / d
            }
            ClaimExpr::Max(a, b) => a.eval(env)?.max(b.eval(env)?),
            ClaimExpr::Min(a, b) => a.eval(env)?.min(b.eval(env)?),
            ClaimExpr::Floor(a) => a.eval(env)?.floor(),
            ClaimExpr::Ceil(a) => a.eval(env)?.ceil(),
            ClaimExpr::NotDvd(m, a) => res_value(&a.eval(env)?, m),
        })
    }

    /// The claim as an affine form over raw parameters, when it is one.
    pub fn to_lin(&self) -> Option<Lin> {
        Some(match self {
            ClaimExpr::Num(c) => Lin::constant(c.clone()),
            ClaimExpr::Var(v) => Lin::var(v),
            ClaimExpr::Add(a, b) => a.to_lin()?.add(&b.to_lin()?),
            ClaimExpr::Sub(a, b) => a.to_lin()?.sub(&b.to_lin()?),
            ClaimExpr::Mul(a, b) => {
                let (a, b) = (a.to_lin()?, b.to_lin()?);
                if a.is_const() {
                    b.scale(&a.c)
                } else if b.is_const() {
                    a.scale(&b.c)
                } else {
                    return None;
                }
            }
            ClaimExpr::Div(a, b) => {
                let b = b.to_lin()?;
                if !b.is_const() || b.c.is_zero() {
                    return None;
                }
                a.to_lin()?.scale(&(Q::one() / b.c))
            }
            _ => return None,
        })
    }

    /// The claim as a potential (module documentation: a bare parameter `x` is
    /// `max(0, x)`; `max(a, b)` with `a − b` affine is `b + max(0, a − b)`), equal to the
    /// claim at every parameter value `≥ 0`.
    ///
    /// Errors: `⌊·⌋`/`⌈·⌉`/`min`, a division by a non-constant, `max` of non-affine
    /// arguments, a negative coefficient (not a potential), each named.
    pub fn to_poly(&self) -> Result<Poly, String> {
        self.to_poly_shifted(&BTreeMap::new())
    }

    /// As [`ClaimExpr::to_poly`], with a bare parameter `x` of `shifts` written
    /// `max(0, x + d) − d` (`d = shifts[x] ≥ 0`): equal to `x` for `x ≥ −d`, so the
    /// potential still equals the claim at every parameter value `≥ 0`; used to meet the
    /// atoms of warpcert's bound (`max(0, wA + 31)` for a claim `0.31 wA + 15`).
    ///
    /// Errors: as [`ClaimExpr::to_poly`].
    pub fn to_poly_shifted(&self, shifts: &BTreeMap<String, Q>) -> Result<Poly, String> {
        let p = self.poly(shifts)?;
        if let Some((_, c)) = p.terms.iter().find(|(_, c)| c.is_negative()) {
            return Err(format!(
                "the claim written over max(0, ·) atoms, {}, has the negative coefficient {} (a potential has none)",
                p.to_bound_string(),
                fmt_q(c)
            ));
        }
        Ok(p)
    }

    fn poly(&self, sh: &BTreeMap<String, Q>) -> Result<Poly, String> {
        // max(0, ⌊L⌋) (printed ⌊L⌋⁺) is the floor atom
        if let ClaimExpr::Max(a, b) = self {
            let other = match (a.is_zero(), b.is_zero()) {
                (true, _) => Some(b),
                (_, true) => Some(a),
                _ => None,
            };
            if let Some(ff) = other.and_then(|e| e.floor_form()) {
                return Ok(floor_poly(ff));
            }
        }
        Ok(match self {
            ClaimExpr::Num(c) => Poly::constant(c),
            ClaimExpr::Var(v) => {
                let d = sh
                    .get(v)
                    .filter(|d| !d.is_negative())
                    .cloned()
                    .unwrap_or_else(Q::zero);
                let mut p = Poly::constant(&-d.clone());
                p.add_raw_term(&[Lin::var(v).plus_const(&d)], Q::one());
                p
            }
            ClaimExpr::Add(a, b) => a.poly(sh)?.plus(&b.poly(sh)?),
            ClaimExpr::Sub(a, b) => a.poly(sh)?.plus(&b.poly(sh)?.scaled(&-Q::one())),
            ClaimExpr::Mul(a, b) => mul(&a.poly(sh)?, &b.poly(sh)?),
            ClaimExpr::Div(a, b) => match b.to_lin() {
                Some(l) if l.is_const() && !l.c.is_zero() => a.poly(sh)?.scaled(&(Q::one() / l.c)),
                _ => return Err(format!("division by the non-constant `{b}`")),
            },
            ClaimExpr::Floor(_) | ClaimExpr::Ceil(_) => match self.floor_form() {
                // ⌊F/d⌋ = max(0, ⌊F/d⌋) where F ≥ 0 on the domain (parameters ≥ 0)
                Some((f, d))
                    if !f.c.is_negative() && f.terms.values().all(|k| !k.is_negative()) =>
                {
                    floor_poly((f, d))
                }
                _ => {
                    return Err(format!(
                        "`{self}` may be negative at parameters ≥ 0 (write max(0, …) or ⌊…⌋⁺), or its argument is not affine"
                    ))
                }
            },
            ClaimExpr::NotDvd(m, a) => match a.to_lin() {
                Some(l) => {
                    let mut p = Poly::zero();
                    p.add_raw_term(&[Atom::Res(Arc::new(l), m.clone())], Q::one());
                    p
                }
                None => return Err(format!("`{self}` has a non-affine argument")),
            },
            ClaimExpr::Max(a, b) => match (a.to_lin(), b.to_lin()) {
                (Some(la), Some(lb)) => {
                    // max(a, b) = b + max0(a − b), with the constant side (if any) as b
                    let (la, lb, b) = if la.is_const() && !lb.is_const() {
                        (lb, la, a)
                    } else {
                        (la, lb, b)
                    };
                    let mut p = if lb.is_const() {
                        Poly::constant(&lb.c)
                    } else {
                        b.poly(sh)?
                    };
                    p.add_raw_term(&[la.sub(&lb)], Q::one());
                    p
                }
                _ => return Err(format!("`{self}` is a max of non-affine expressions")),
            },
            ClaimExpr::Min(..) => {
                return Err(format!("`{self}` has no form over max(0, ·) atoms"))
            }
        })
    }

    fn is_zero(&self) -> bool {
        matches!(self, ClaimExpr::Num(c) if c.is_zero())
    }

    /// `⌊a⌋` resp. `⌈a⌉` of an affine `a` as `⌊F/d⌋` with the affine form `F/d`:
    /// `⌊L⌋ = ⌊(d·L)/d⌋` and `⌈L⌉ = ⌊(d·L + d − 1)/d⌋`, `d` the least common denominator
    /// of `L` (so `d·L` is integer at integer parameters); `None` for anything else.
    fn floor_form(&self) -> Option<(Lin, BigInt)> {
        let (a, ceil) = match self {
            ClaimExpr::Floor(a) => (a, false),
            ClaimExpr::Ceil(a) => (a, true),
            _ => return None,
        };
        let l = a.to_lin()?;
        let d = std::iter::once(&l.c)
            .chain(l.terms.values())
            .fold(BigInt::one(), |acc, k| acc.lcm(k.denom()));
        let mut f = l.scale(&Q::from_integer(d.clone()));
        if ceil {
            f = f.plus_const(&Q::from_integer(&d - BigInt::one()));
        }
        Some((f, d))
    }

    /// The claim in the kernel's witness grammar (`kernel/src/witness.rs`, `CLAIM`).
    pub fn to_sexp(&self) -> String {
        let two = |op: &str, a: &ClaimExpr, b: &ClaimExpr| {
            format!("({op} {} {})", a.to_sexp(), b.to_sexp())
        };
        match self {
            ClaimExpr::Num(c) => fmt_q(c),
            ClaimExpr::Var(v) => format!("(param {v})"),
            ClaimExpr::Add(a, b) => two("+", a, b),
            ClaimExpr::Sub(a, b) => two("-", a, b),
            ClaimExpr::Mul(a, b) => two("*", a, b),
            ClaimExpr::Div(a, b) => two("/", a, b),
            ClaimExpr::Max(a, b) => two("max", a, b),
            ClaimExpr::Min(a, b) => two("min", a, b),
            ClaimExpr::Floor(a) => format!("(floor {})", a.to_sexp()),
            ClaimExpr::Ceil(a) => format!("(ceil {})", a.to_sexp()),
            // [m ∤ a] = ⌈a/m⌉ − ⌊a/m⌋ (1 exactly when a/m is not an integer)
            ClaimExpr::NotDvd(m, a) => {
                let q = format!("(/ {} {m})", a.to_sexp());
                format!("(- (ceil {q}) (floor {q}))")
            }
        }
    }
}

/// The floor atom `⌊F/d⌋⁺` of [`ClaimExpr::floor_form`] as a potential.
fn floor_poly((f, d): (Lin, BigInt)) -> Poly {
    let mut p = Poly::zero();
    p.add_raw_term(&[Atom::Floor(Arc::new(f), d)], Q::one());
    p
}

/// The product of two polynomials (atoms concatenated, renormalized).
pub fn mul(a: &Poly, b: &Poly) -> Poly {
    let mut out = Poly::zero();
    for (m1, c1) in &a.terms {
        for (m2, c2) in &b.terms {
            let atoms: Vec<Atom> = m1.iter().chain(m2).cloned().collect();
            out.add_raw_term(&atoms, c1 * c2);
        }
    }
    out
}

impl fmt::Display for ClaimExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimExpr::Num(c) => f.write_str(&fmt_q(c)),
            ClaimExpr::Var(v) => f.write_str(v),
            ClaimExpr::Add(a, b) => write!(f, "({a} + {b})"),
            ClaimExpr::Sub(a, b) => write!(f, "({a} - {b})"),
            ClaimExpr::Mul(a, b) => write!(f, "{a}*{b}"),
            ClaimExpr::Div(a, b) => write!(f, "{a}/{b}"),
            ClaimExpr::Max(a, b) => write!(f, "max({a}, {b})"),
            ClaimExpr::Min(a, b) => write!(f, "min({a}, {b})"),
            ClaimExpr::Floor(a) => write!(f, "⌊{a}⌋"),
            ClaimExpr::Ceil(a) => write!(f, "⌈{a}⌉"),
            ClaimExpr::NotDvd(m, a) => write!(f, "[{m} ∤ {a}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::metric::q;

    fn at(e: &str, kv: &[(&str, i64)]) -> Q {
        let env = kv.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        ClaimExpr::parse(e).unwrap().eval(&env).unwrap()
    }

    /// RaCUDA's matrixMul bound (Table 4; Pico §7.1: 44.94 at wA = 100): 4 + 0.312496·131
    /// = 44.936976, exactly, in every notation it is printed in.
    #[test]
    fn racuda_and_pico_notations_read_exactly() {
        let want = Q::new(44_936_976.into(), 1_000_000.into());
        for t in [
            "4 + 0.312496*max(0, 31 + wA)",
            "4 + 0.312496 (31 + wA)",
            "4 + 0.312496·max(0, 31 + wA)",
            "0.312496 (31 + wA) + 4",
        ] {
            assert_eq!(at(t, &[("wA", 100)]), want, "{t}");
        }
        assert_eq!(at("15 wA + 465", &[("wA", 2)]), q(495));
        assert_eq!(at("75 + 1621 (31+N)/32", &[("N", 1)]), q(75 + 1621));
        assert_eq!(at("⌊(wA + 31)/32⌋", &[("wA", 33)]), q(2));
        assert_eq!(at("ceil(wA/32)", &[("wA", 33)]), q(2));
        assert_eq!(at("2^3 - -1", &[]), q(9));
        assert_eq!(at("8 - 2 - 1", &[]), q(5));
    }

    /// The finite sums warpcert prints for unrolled copies (nest_entry's bound,
    /// `4 + Σ_{k=0..63} max(0, k + n - 63)`): at n = 200 every copy is positive and the
    /// sum is Σ_{k=0..63} (137 + k) = 64·137 + 2016 = 10784, plus 4 (hand sum).
    #[test]
    fn finite_sums_unroll() {
        assert_eq!(
            at("4 + Σ_{k=0..63} max(0, k + n - 63)", &[("n", 200)]),
            q(10_788)
        );
        // n = 1: only k = 62, 63 give a positive copy (0 and 1).
        assert_eq!(at("4 + Σ_{k=0..63} max(0, k + n - 63)", &[("n", 1)]), q(5));
        // 4·Σ_{k=0..7} ⌊(32k + n + 31)/256⌋⁺ at n = 1: 32k + 32 ≥ 256 only for k = 7.
        assert_eq!(
            at("4 + 4*Σ_{k=0..7} ⌊(32*k + n + 31)/256⌋⁺", &[("n", 1)]),
            q(8)
        );
        // the bound name shadows a parameter of the same name; nested sums bind again.
        assert_eq!(at("Σ_{n=1..3} n", &[("n", 100)]), q(6));
        // Σ_{i=0..2} Σ_{j=0..1} (i + j) = Σ_i (2i + 1) = 1 + 3 + 5.
        assert_eq!(at("Σ_{i=0..2} Σ_{j=0..1} (i + j)", &[]), q(9));
        assert_eq!(at("Σ_{k=0..1} Σ_{k=0..2} k", &[]), q(6));
        assert_eq!(at("2*Σ_{k=0..1} (k + 1) + 1", &[]), q(7));
        for bad in [
            "Σ_{k=3..1} k",
            "Σ_{k=0..4096} k",
            "Σ_{k=0..} k",
            "Σ_{=0..2} k",
        ] {
            assert!(ClaimExpr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn junk_is_rejected_with_its_offset() {
        for t in ["2 +", "max(1 2)", "3 $", "", "(1", "⌊2"] {
            assert!(ClaimExpr::parse(t).is_err(), "{t}");
        }
        match ClaimExpr::parse("3 $") {
            Err(ClaimParseError::Syntax { at, .. }) => assert_eq!(at, 2),
            other => panic!("{other:?}"),
        }
        let deep = format!("{}1{}", "(".repeat(300), ")".repeat(300));
        assert_eq!(ClaimExpr::parse(&deep), Err(ClaimParseError::Limit));
    }

    /// The potential agrees with the claim at parameters ≥ 0 (module documentation); a
    /// floor or a negative coefficient is named.
    #[test]
    fn potentials_agree_on_the_domain() {
        for t in [
            "4 + 0.312496*max(0, 31 + wA)",
            "15 wA + 465",
            "max(wA, 32) + 3 wA wB",
            "9 + 85 max(0, wA) max(0, wB) + 64 wB",
        ] {
            let e = ClaimExpr::parse(t).unwrap();
            let p = e.to_poly().unwrap();
            for (a, b) in [(0, 0), (1, 7), (100, 3), (33, 64)] {
                let env = BTreeMap::from([("wA".to_string(), a), ("wB".to_string(), b)]);
                assert_eq!(p.eval(&env), e.eval(&env).unwrap(), "{t} at {a},{b}");
            }
        }
        // shifted: 5/16·wA + 15 = 5/16·max0(wA + 31) + 85/16 for wA ≥ 0
        let e = ClaimExpr::parse("0.3125 wA + 15").unwrap();
        let p = e
            .to_poly_shifted(&BTreeMap::from([("wA".to_string(), q(31))]))
            .unwrap();
        let mut want = Poly::constant(&Q::new(85.into(), 16.into()));
        want.add_raw_term(
            &[Lin::var("wA").plus_const(&q(31))],
            Q::new(5.into(), 16.into()),
        );
        assert_eq!(p, want);
        for a in [0, 1, 33, 1000] {
            let env = BTreeMap::from([("wA".to_string(), a)]);
            assert_eq!(p.eval(&env), e.eval(&env).unwrap());
        }
        // ⌊wA − 5⌋/32 is −1 at wA = 0: no floor atom (max(0, ·)) equals it on the domain
        assert!(ClaimExpr::parse("⌊(wA - 5)/32⌋")
            .unwrap()
            .to_poly()
            .is_err());
        assert!(ClaimExpr::parse("10 - wA").unwrap().to_poly().is_err());
        assert!(ClaimExpr::parse("wA / wB").unwrap().to_poly().is_err());
    }

    /// warpcert's own printed atoms read back: `⌊L⌋⁺ = max(0, ⌊L⌋)` and `[m ∤ L]`. Values
    /// by hand: ⌊(1 + 31)/32⌋ = 1, so 4 + 8·1 = 12 at wA = 1; at wA = −100 the atom is 0;
    /// 32 divides 64, not 65.
    #[test]
    fn printed_floor_and_residue_atoms_read() {
        assert_eq!(at("4 + 8*⌊(wA + 31)/32⌋⁺", &[("wA", 1)]), q(12));
        assert_eq!(at("4 + 8*⌊(wA + 31)/32⌋⁺", &[("wA", -100)]), q(4));
        assert_eq!(at("4 + 8*max(0, ⌊(wA + 31)/32⌋)", &[("wA", 33)]), q(20));
        assert_eq!(at("[32 ∤ n]", &[("n", 64)]), q(0));
        assert_eq!(at("[32 ∤ n]", &[("n", 65)]), q(1));
        assert_eq!(at("3 + 2*[8 !| 2*W]", &[("W", 4)]), q(3));
        assert_eq!(at("3 + 2*[8 !| 2*W]", &[("W", 3)]), q(5));
        for t in ["[0 ∤ n]", "[32 ∤ n", "[x ∤ n]", "⌊n⌋⁺⁺"] {
            assert!(ClaimExpr::parse(t).is_err(), "{t}");
        }
    }

    /// The potentials of floor, ceiling and residue claims agree with the claims at
    /// parameters ≥ 0, and a residue's witness form `⌈a/m⌉ − ⌊a/m⌋` (`to_sexp`) has its
    /// value (both evaluated by `eval`, independently of the potential).
    #[test]
    fn floor_and_residue_potentials_agree_on_the_domain() {
        for t in [
            "4 + 8*⌊(wA + 31)/32⌋⁺",
            "⌊wA/32⌋ + ⌈(wA + 1)/3⌉",
            "max(0, ⌈wA/2 - 7⌉) + ⌊(wA + wB)/5⌋⁺",
            "[32 ∤ wA] + 2*[3 ∤ wA + 2*wB] + wB",
            "5*[4 ∤ wA]*⌊wB/8⌋⁺",
        ] {
            let e = ClaimExpr::parse(t).unwrap();
            let p = e.to_poly().unwrap_or_else(|err| panic!("{t}: {err}"));
            for a in [0, 1, 2, 7, 31, 32, 33, 64, 95, 1000] {
                for b in [0, 1, 3, 8, 9, 40] {
                    let env = BTreeMap::from([("wA".to_string(), a), ("wB".to_string(), b)]);
                    assert_eq!(p.eval(&env), e.eval(&env).unwrap(), "{t} at {a},{b}");
                }
            }
        }
        let res = ClaimExpr::parse("[32 ∤ n + 3]").unwrap();
        assert_eq!(
            res.to_sexp(),
            "(- (ceil (/ (+ (param n) 3) 32)) (floor (/ (+ (param n) 3) 32)))"
        );
        let witness_form = ClaimExpr::parse("ceil((n + 3)/32) - floor((n + 3)/32)").unwrap();
        for n in -70..70 {
            let env = BTreeMap::from([("n".to_string(), n)]);
            assert_eq!(res.eval(&env), witness_form.eval(&env), "n = {n}");
        }
        assert!(ClaimExpr::parse("[32 ∤ n*n]").unwrap().to_poly().is_err());
    }
}
