//! The check that a *printed* formula equals a proved bound (spec/certificate.md
//! "Printed formula", issue 14 item 4): `warpcert analyze` prints a bound simplified by an
//! untrusted e-graph (factored, grouped, floor atoms as `⌊L/d⌋⁺`); before printing it,
//! [`check_printed`] reads that text with its own small parser, normalizes it with the
//! kernel's polynomials over canonical atoms ([`Poly`], [`Atom::canonical`]) and requires
//! the result to be the bound's polynomial term by term. Simplification is never trusted:
//! a formula the kernel does not read back as the bound is not printed.
//!
//! Grammar (`+`, binary and unary `-`, `*`, parentheses; numbers `n` and `p/q`; names of
//! letters, digits, `_` and `.`):
//!
//! ```text
//! sum    := term (('+' | '-') term)*          term := ['-'] factor ('*' factor)*
//! factor := NUM ['/' NUM] | NAME | '(' sum ')'
//!         | 'max(0,' sum ')'                    max0 atom (sum linear)
//!         | 'max(0,' '⌊' arg '/' NUM '⌋' ')'    floor atom, the kernel's own rendering
//!         | '⌊' arg '/' NUM '⌋⁺'                floor atom, compact
//!         | 'max(0,' '⌊' arg '/' '(' sum ')' '⌋' ')'   symbolic floor atom (also compact,
//!                                               `⌊' arg '/(' sum ')⌋⁺'`): divisor a launch form
//!         | '⌊log2(max(1,' sum '))⌋'            log atom, the kernel's own rendering
//!         | '⌊log2(' sum ')⌋⁺'                  log atom, compact
//!         | 'Σ_{' NAME '=' INT '..' INT '}' factor   a finite sum
//! arg    := '(' sum ')' | NAME
//! ```
//!
//! A finite sum `Σ_{k=a..b} F` (`0 ≤ a ≤ b`, at most [`SUM_LIMIT`] values) is
//! `F[k := a] + … + F[k := b]`: the name `k` is bound in `F` (it may shadow a parameter of
//! the same name there). The printer writes the unrolled copies of a loop this way
//! (`Σ_{k=0..63} max(0, n - 63 + k)`, issue 15).
//!
//! A name stands only inside an atom (a bound is a polynomial over atoms); atom arguments
//! must be linear. Errors: [`PrintedProblem`], with the character column.

use crate::arith::{Atom, Lin, Poly, Rat};
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::fmt;
use std::str::FromStr;

/// The most values a printed finite sum `Σ_{k=a..b}` may range over.
pub const SUM_LIMIT: u32 = 4096;

/// Why a printed formula is not the bound. Columns count characters from 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrintedProblem {
    /// The text does not follow the grammar: `expected` at column `at`.
    Syntax {
        /// Column.
        at: usize,
        /// What the parser expected there.
        expected: &'static str,
    },
    /// An atom's argument (the atom starting at column `at`) is not linear.
    NotLinear {
        /// Column of the atom.
        at: usize,
    },
    /// A name outside every atom (column `at`).
    BareName {
        /// Column.
        at: usize,
        /// The name.
        name: String,
    },
    /// A zero denominator or a floor divisor below 1 (column `at`).
    BadDivisor {
        /// Column.
        at: usize,
    },
    /// A symbolic floor atom (column `at`) whose divisor is not a launch form
    /// (spec/logic.md §1 "Symbolic divisors"): `expected` says what was expected.
    BadSymbolicDivisor {
        /// Column of the atom.
        at: usize,
        /// What was expected ([`crate::arith::floors_wf`]).
        expected: &'static str,
    },
    /// The formula reads as a polynomial other than the bound: `printed − bound` is
    /// `difference` (the kernel's rendering).
    Differs {
        /// `printed − bound`, non-zero.
        difference: String,
    },
}

impl fmt::Display for PrintedProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrintedProblem::Syntax { at, expected } => write!(f, "column {at}: expected {expected}"),
            PrintedProblem::NotLinear { at } => write!(f, "column {at}: the atom's argument is not linear"),
            PrintedProblem::BareName { at, name } => write!(f, "column {at}: the name {name} stands outside an atom"),
            PrintedProblem::BadDivisor { at } => {
                write!(f, "column {at}: a zero denominator or a floor divisor below 1")
            }
            PrintedProblem::BadSymbolicDivisor { at, expected } => write!(f, "column {at}: expected {expected}"),
            PrintedProblem::Differs { difference } => {
                write!(f, "the printed formula is not the bound: printed − bound = {difference}")
            }
        }
    }
}

impl std::error::Error for PrintedProblem {}

/// Checks that `printed` (the grammar of the module documentation) denotes the polynomial
/// `bound`: both are normalized to canonical atoms and compared term by term.
///
/// Errors: the first [`PrintedProblem`]; never panics.
pub fn check_printed(printed: &str, bound: &Poly) -> Result<(), PrintedProblem> {
    let p = parse_printed(printed)?;
    let diff = p.add_scaled(bound, &-Rat::one());
    if diff.terms.is_empty() {
        Ok(())
    } else {
        Err(PrintedProblem::Differs { difference: diff.to_string() })
    }
}

/// Reads a printed formula as a polynomial over canonical atoms.
///
/// Errors: [`PrintedProblem`] other than `Differs`.
pub fn parse_printed(printed: &str) -> Result<Poly, PrintedProblem> {
    let mut r = Reader { s: printed.chars().collect(), i: 0 };
    let e = r.sum()?;
    r.ws();
    if r.i < r.s.len() {
        return Err(PrintedProblem::Syntax { at: r.i, expected: "the end of the formula" });
    }
    e.poly()
}

/// A parsed formula, before normalization; `usize` fields are columns.
#[derive(Clone)]
enum Expr {
    Num(Rat),
    Name(String, usize),
    Add(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Max0(Box<Expr>, usize),
    Floor(Box<Expr>, BigInt, usize),
    /// `⌊(L)/(D)⌋⁺`, the symbolic floor atom (spec/logic.md §1 "Symbolic divisors").
    FloorSym(Box<Expr>, Box<Expr>, usize),
    Log(Box<Expr>, usize),
    LogQ(Box<Expr>, Box<Expr>, usize),
    Res(Box<Expr>, BigInt, usize),
    /// `[(L) mod m < w]`, the window atom.
    Win(Box<Expr>, BigInt, BigInt, usize),
    /// `Σ_{k=a..b} F`: the bound name, `a`, `b` and `F`.
    Sum(String, u32, u32, Box<Expr>),
}

impl Expr {
    /// The linear form, if the expression is linear (no atom, no product of two names).
    fn lin(&self) -> Option<Lin> {
        Some(match self {
            Expr::Num(c) => Lin::constant(c.clone()),
            Expr::Name(n, _) => Lin::var(n),
            Expr::Add(a, b) => a.lin()?.add_scaled(&b.lin()?, &Rat::one()),
            Expr::Neg(a) => a.lin()?.scale(&-Rat::one()),
            Expr::Mul(a, b) => {
                let (a, b) = (a.lin()?, b.lin()?);
                match (a.as_const(), b.as_const()) {
                    (Some(k), _) => b.scale(k),
                    (_, Some(k)) => a.scale(k),
                    _ => return None,
                }
            }
            Expr::Max0(..)
            | Expr::Floor(..)
            | Expr::FloorSym(..)
            | Expr::Log(..)
            | Expr::LogQ(..)
            | Expr::Res(..)
            | Expr::Win(..)
            | Expr::Sum(..) => return None,
        })
    }

    /// `self[k := v]`: every free occurrence of the name `k` replaced by the number `v`.
    fn subst(&self, k: &str, v: u32) -> Expr {
        let b = |e: &Expr| Box::new(e.subst(k, v));
        match self {
            Expr::Name(n, _) if n == k => Expr::Num(Rat::from_integer(BigInt::from(v))),
            Expr::Num(_) | Expr::Name(..) => self.clone(),
            Expr::Add(x, y) => Expr::Add(b(x), b(y)),
            Expr::Neg(x) => Expr::Neg(b(x)),
            Expr::Mul(x, y) => Expr::Mul(b(x), b(y)),
            Expr::Max0(x, at) => Expr::Max0(b(x), *at),
            Expr::Floor(x, d, at) => Expr::Floor(b(x), d.clone(), *at),
            Expr::FloorSym(x, d, at) => Expr::FloorSym(b(x), b(d), *at),
            Expr::Log(x, at) => Expr::Log(b(x), *at),
            Expr::LogQ(x, y, at) => Expr::LogQ(b(x), b(y), *at),
            Expr::Res(x, m, at) => Expr::Res(b(x), m.clone(), *at),
            Expr::Win(x, m, w, at) => Expr::Win(b(x), m.clone(), w.clone(), *at),
            // an inner sum over the same name binds it again
            Expr::Sum(n, ..) if n == k => self.clone(),
            Expr::Sum(n, lo, hi, f) => Expr::Sum(n.clone(), *lo, *hi, b(f)),
        }
    }

    /// The polynomial over canonical atoms.
    fn poly(&self) -> Result<Poly, PrintedProblem> {
        let atom = |a: Atom| {
            let mut p = Poly::zero();
            p.add_term(Rat::one(), vec![a]);
            p
        };
        let arg = |e: &Expr, at: usize| e.lin().ok_or(PrintedProblem::NotLinear { at });
        Ok(match self {
            Expr::Num(c) => Poly::constant(c.clone()),
            Expr::Name(n, at) => return Err(PrintedProblem::BareName { at: *at, name: n.clone() }),
            Expr::Add(a, b) => a.poly()?.add_scaled(&b.poly()?, &Rat::one()),
            Expr::Neg(a) => Poly::zero().add_scaled(&a.poly()?, &-Rat::one()),
            Expr::Mul(a, b) => a.poly()?.mul(&b.poly()?),
            Expr::Max0(e, at) => atom(Atom::Max0(arg(e, *at)?)),
            Expr::Floor(e, d, at) => atom(Atom::Floor(arg(e, *at)?, d.clone())),
            Expr::FloorSym(e, d, at) => {
                let (l, d) = (arg(e, *at)?, arg(d, *at)?);
                crate::arith::floors_wf(&l, &d)
                    .map_err(|expected| PrintedProblem::BadSymbolicDivisor { at: *at, expected })?;
                atom(Atom::FloorSym(l, d))
            }
            Expr::Log(e, at) => atom(Atom::Log(arg(e, *at)?)),
            Expr::LogQ(l, m, at) => atom(Atom::LogQ(arg(l, *at)?, arg(m, *at)?)),
            Expr::Res(e, m, at) => atom(Atom::Res(arg(e, *at)?, m.clone())),
            Expr::Win(e, m, w, at) => atom(Atom::Win(arg(e, *at)?, m.clone(), w.clone())),
            Expr::Sum(k, lo, hi, f) => {
                let mut p = Poly::zero();
                for v in *lo..=*hi {
                    p = p.add_scaled(&f.subst(k, v).poly()?, &Rat::one());
                }
                p
            }
        })
    }
}

#[derive(Clone, Copy)]
enum AtomKind {
    Max0,
    Floor,
    /// `⌊log2(max(1, L))⌋`, the kernel's rendering; `⌊log2(max(1, L)/max(1, M))⌋` too
    /// (its quotient form continues after `L`).
    LogKernel,
    /// `⌊log2(L)⌋⁺`, the compact rendering.
    Log,
    /// `[m ∤ L]`, the residue atom (spec/logic.md §1 "Residue atoms").
    Res,
}

/// The atoms' opening and closing texts, longest opening first where one is a prefix of
/// another (`max(0, ⌊` before `max(0,`, `⌊log2(max(1,` before `⌊log2(` before `⌊`).
const ATOMS: [(&str, &str, AtomKind); 6] = [
    ("max(0, ⌊", "⌋)", AtomKind::Floor),
    ("max(0,", ")", AtomKind::Max0),
    ("⌊log2(max(1,", "))⌋", AtomKind::LogKernel),
    ("⌊log2(", ")⌋⁺", AtomKind::Log),
    ("⌊", "⌋⁺", AtomKind::Floor),
    ("[", "]", AtomKind::Res),
];

/// Recursive-descent reader over the characters of the formula.
struct Reader {
    s: Vec<char>,
    i: usize,
}

impl Reader {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_whitespace()) {
            self.i += 1;
        }
    }
    /// Skips blanks; whether `lit` follows (consumed if so; blanks inside `lit` match any
    /// run of blanks, including none).
    fn eat(&mut self, lit: &str) -> bool {
        self.ws();
        let save = self.i;
        for c in lit.chars() {
            if c == ' ' {
                self.ws();
            } else if self.s.get(self.i) == Some(&c) {
                self.i += 1;
            } else {
                self.i = save;
                return false;
            }
        }
        true
    }
    fn expect(&mut self, lit: &'static str) -> Result<(), PrintedProblem> {
        if self.eat(lit) {
            Ok(())
        } else {
            Err(PrintedProblem::Syntax { at: self.i, expected: lit })
        }
    }
    fn sum(&mut self) -> Result<Expr, PrintedProblem> {
        let mut e = self.term()?;
        loop {
            if self.eat("+") {
                e = Expr::Add(Box::new(e), Box::new(self.term()?));
            } else if self.eat("-") {
                e = Expr::Add(Box::new(e), Box::new(Expr::Neg(Box::new(self.term()?))));
            } else {
                return Ok(e);
            }
        }
    }
    fn term(&mut self) -> Result<Expr, PrintedProblem> {
        let neg = self.eat("-");
        let mut e = self.factor()?;
        while self.eat("*") {
            e = Expr::Mul(Box::new(e), Box::new(self.factor()?));
        }
        Ok(if neg { Expr::Neg(Box::new(e)) } else { e })
    }
    fn integer(&mut self) -> Result<BigInt, PrintedProblem> {
        self.ws();
        let start = self.i;
        while self.s.get(self.i).is_some_and(char::is_ascii_digit) {
            self.i += 1;
        }
        let digits: String = self.s.get(start..self.i).unwrap_or_default().iter().collect();
        BigInt::from_str(&digits).map_err(|_| PrintedProblem::Syntax { at: start, expected: "a number" })
    }
    fn name(&mut self) -> Option<(String, usize)> {
        self.ws();
        let start = self.i;
        if !self.s.get(self.i).is_some_and(|c| c.is_ascii_alphabetic() || *c == '_') {
            return None;
        }
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.') {
            self.i += 1;
        }
        Some((self.s.get(start..self.i).unwrap_or_default().iter().collect(), start))
    }
    /// `'(' sum ')' | NAME` (the argument of a floor atom).
    fn floor_arg(&mut self) -> Result<Expr, PrintedProblem> {
        if self.eat("(") {
            let e = self.sum()?;
            self.expect(")")?;
            return Ok(e);
        }
        match self.name() {
            Some((n, at)) => Ok(Expr::Name(n, at)),
            None => Err(PrintedProblem::Syntax { at: self.i, expected: "( or a name" }),
        }
    }
    fn divisor(&mut self) -> Result<BigInt, PrintedProblem> {
        self.ws();
        let at = self.i;
        let d = self.integer()?;
        if d.is_positive() {
            Ok(d)
        } else {
            Err(PrintedProblem::BadDivisor { at })
        }
    }
    /// `'Σ_{' NAME '=' INT '..' INT '}' factor`, after `Σ_{`.
    fn finite_sum(&mut self) -> Result<Expr, PrintedProblem> {
        let Some((k, _)) = self.name() else {
            return Err(PrintedProblem::Syntax { at: self.i, expected: "the name of a sum" });
        };
        self.expect("=")?;
        let range_at = self.i;
        let lo = self.integer()?;
        self.expect("..")?;
        let hi = self.integer()?;
        self.expect("}")?;
        let (Some(lo), Some(hi)) = (lo.to_u32(), hi.to_u32()) else {
            return Err(PrintedProblem::Syntax { at: range_at, expected: "a range a..b of small integers" });
        };
        if lo > hi || hi - lo >= SUM_LIMIT {
            return Err(PrintedProblem::Syntax {
                at: range_at,
                expected: "a range a..b with a ≤ b and at most 4096 values",
            });
        }
        let f = self.factor()?;
        Ok(Expr::Sum(k, lo, hi, Box::new(f)))
    }
    fn factor(&mut self) -> Result<Expr, PrintedProblem> {
        self.ws();
        let at = self.i;
        if self.eat("Σ_{") {
            return self.finite_sum();
        }
        // the kernel's renderings of atoms and the compact ones
        for (open, close, kind) in ATOMS {
            if !self.eat(open) {
                continue;
            }
            let (e, d) = match kind {
                AtomKind::Floor => {
                    let e = self.floor_arg()?;
                    self.expect("/")?;
                    // a symbolic divisor `(D)` (spec/logic.md §1 "Symbolic divisors")
                    if self.eat("(") {
                        let d = self.sum()?;
                        self.expect(")")?;
                        self.expect(close)?;
                        return Ok(Expr::FloorSym(Box::new(e), Box::new(d), at));
                    }
                    (e, Some(self.divisor()?))
                }
                AtomKind::Res => {
                    // the window atom `[(L) mod m < w]` (spec/logic.md §1 "Window atoms")
                    if self.eat("(") {
                        let e = self.sum()?;
                        self.expect(")")?;
                        self.expect("mod")?;
                        let m = self.divisor()?;
                        self.expect("<")?;
                        let w = self.integer()?;
                        self.expect(close)?;
                        return Ok(Expr::Win(Box::new(e), m, w, at));
                    }
                    let m = self.divisor()?;
                    self.expect("∤")?;
                    let e = self.sum()?;
                    self.expect(close)?;
                    return Ok(Expr::Res(Box::new(e), m, at));
                }
                AtomKind::Max0 | AtomKind::Log | AtomKind::LogKernel => (self.sum()?, None),
            };
            // the quotient log atom `⌊log2(max(1, L)/max(1, M))⌋` (spec/logic.md §1)
            if matches!(kind, AtomKind::LogKernel) && self.eat(")/max(1,") {
                let m = self.sum()?;
                self.expect(close)?;
                return Ok(Expr::LogQ(Box::new(e), Box::new(m), at));
            }
            self.expect(close)?;
            let e = Box::new(e);
            return Ok(match (kind, d) {
                (AtomKind::Floor, Some(d)) => Expr::Floor(e, d, at),
                (AtomKind::Log | AtomKind::LogKernel, _) => Expr::Log(e, at),
                _ => Expr::Max0(e, at),
            });
        }
        if self.eat("(") {
            let e = self.sum()?;
            self.expect(")")?;
            return Ok(e);
        }
        if self.s.get(self.i).is_some_and(char::is_ascii_digit) {
            let n = self.integer()?;
            // `p/q` only when a number follows the slash
            let save = self.i;
            if self.eat("/") {
                self.ws();
                if self.s.get(self.i).is_some_and(char::is_ascii_digit) {
                    let q_at = self.i;
                    let q = self.integer()?;
                    if q.is_zero() {
                        return Err(PrintedProblem::BadDivisor { at: q_at });
                    }
                    return Ok(Expr::Num(Rat::new(n, q)));
                }
                self.i = save;
            }
            return Ok(Expr::Num(Rat::from_integer(n)));
        }
        match self.name() {
            Some((n, at)) => Ok(Expr::Name(n, at)),
            None => Err(PrintedProblem::Syntax { at, expected: "a number, a name, ( or an atom" }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `c + k·max0(n + 1)` built by hand.
    fn bound(c: i64, k: i64) -> Poly {
        let mut l = Lin::var("n");
        l.c = Rat::one();
        let mut p = Poly::constant(crate::arith::rat(c));
        p.add_term(crate::arith::rat(k), vec![Atom::Max0(l)]);
        p
    }

    #[test]
    fn reads_both_renderings() {
        let b = bound(3, 14);
        assert_eq!(check_printed("3 + 14*max(0, n + 1)", &b), Ok(()));
        // 14·max0(n + 1) = 7·max0(2n + 2) (canonical atoms), and the sum commutes
        assert_eq!(check_printed("7*max(0, 2*n + 2) + 3", &b), Ok(()));
        assert_eq!(check_printed("(1 + 14/3*max(0, n + 1))*3", &b), Ok(()));
    }

    /// A quotient log atom `⌊log2(L/M)⌋⁺` with a variable divisor (spec/logic.md §1) reads
    /// back in the kernel's rendering; a swapped quotient is a different atom.
    #[test]
    fn reads_quotient_log_atoms() {
        let mut b = Poly::constant(crate::arith::rat(2));
        let (n, g) = (Lin::var("n"), Lin::var("g"));
        b.add_term(crate::arith::rat(4), vec![Atom::LogQ(n.clone(), g.clone())]);
        assert_eq!(check_printed(&b.to_string(), &b), Ok(()));
        assert_eq!(check_printed("2 + 4*⌊log2(max(1, n)/max(1, g))⌋", &b), Ok(()));
        assert!(matches!(check_printed("2 + 4*⌊log2(max(1, g)/max(1, n))⌋", &b), Err(PrintedProblem::Differs { .. })));
    }

    /// A finite sum reads as its unrolled terms (hand: `Σ_{k=0..2} max(0, n − 2 + k)` is
    /// `max0(n − 2) + max0(n − 1) + max0(n)`); the bound name is local to the sum; a range
    /// too long or reversed is refused.
    #[test]
    fn reads_finite_sums() {
        let mut b = Poly::constant(crate::arith::rat(4));
        for c in [-2i64, -1, 0] {
            let mut l = Lin::var("n");
            l.c = crate::arith::rat(c);
            b.add_term(crate::arith::rat(3), vec![Atom::Max0(l)]);
        }
        assert_eq!(check_printed("4 + 3*Σ_{k=0..2} max(0, n - 2 + k)", &b), Ok(()));
        assert!(check_printed("Σ_{n=0..2} max(0, m + n) + 4", &b).is_err());
        assert!(matches!(check_printed("4 + 3*Σ_{k=0..3} max(0, n - 2 + k)", &b), Err(PrintedProblem::Differs { .. })));
        assert!(matches!(check_printed("Σ_{k=2..1} max(0, k)", &b), Err(PrintedProblem::Syntax { .. })));
        assert!(matches!(check_printed("Σ_{k=0..5000} max(0, k)", &b), Err(PrintedProblem::Syntax { .. })));
        // k is bound: outside the sum it is a bare name again
        assert!(matches!(check_printed("Σ_{k=0..2} max(0, n) + k", &b), Err(PrintedProblem::BareName { .. })));
    }

    #[test]
    fn rejects_a_changed_coefficient() {
        let b = bound(3, 14);
        assert_eq!(
            check_printed("3 + 15*max(0, n + 1)", &b),
            Err(PrintedProblem::Differs { difference: "max(0, n + 1)".into() })
        );
        assert_eq!(check_printed("3 + 14*max(0, n*n)", &b), Err(PrintedProblem::NotLinear { at: 7 }));
        assert_eq!(check_printed("3 + n", &b), Err(PrintedProblem::BareName { at: 4, name: "n".into() }));
        assert_eq!(check_printed("3 + ⌊n/0⌋⁺", &b), Err(PrintedProblem::BadDivisor { at: 7 }));
        assert_eq!(
            check_printed("3 +", &b),
            Err(PrintedProblem::Syntax { at: 3, expected: "a number, a name, ( or an atom" })
        );
    }
}
