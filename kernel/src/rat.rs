//! The kernel's exact rationals [`Rat`]: the values and operations of `num_rational`'s
//! `BigRational`, with a representation that does not allocate for small values (speed
//! only, issue 13).
//!
//! A value whose normalized numerator `n` and denominator `d` satisfy `|n| < 2^63` and
//! `1 ≤ d < 2^63` is always held as the pair `Small(n, d)`; every other value as a
//! `BigRational` (`Big`). The representation of a value is thus unique, so equality and
//! hashing are those of the representation. Arithmetic on two small values is exact in
//! `i128` (every product of two `i64` magnitudes below `2^63` is below `2^126`, a sum of two
//! such products below `2^127`) and is normalized back; any other operation is
//! `BigRational`'s, on the values converted.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// An exact rational number (value semantics of `BigRational`; module docs).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Rat(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    /// `n/d` in lowest terms, `1 ≤ d`, `n ≠ i64::MIN`.
    Small(i64, i64),
    /// A value that `Small` cannot hold, normalized.
    Big(Box<BigRational>),
}

/// `|x| < 2^63`: `x` and `-x` fit in `i64`.
fn fits(x: i128) -> Option<i64> {
    i64::try_from(x).ok().filter(|&v| v != i64::MIN)
}

/// `gcd(a, b)` by Euclid's algorithm (in `u64` when both fit: speed only).
fn gcd(a: u128, b: u128) -> u128 {
    if let (Ok(mut a), Ok(mut b)) = (u64::try_from(a), u64::try_from(b)) {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        return a.into();
    }
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `n/d` normalized, for `d ≠ 0` and `|n|, |d| < 2^127`.
fn ratio(n: i128, d: i128) -> Rat {
    let (n, d) = if d < 0 { (-n, -d) } else { (n, d) };
    // g = gcd(n, d) ≥ 1 because d ≠ 0, and g ≤ d < 2^127
    let g = if d == 1 { 1 } else { gcd(n.unsigned_abs(), d.unsigned_abs()) as i128 };
    let (n, d) = if g == 1 { (n, d) } else { (n / g, d / g) };
    match (fits(n), fits(d)) {
        (Some(n), Some(d)) => Rat(Repr::Small(n, d)),
        _ => Rat(Repr::Big(Box::new(BigRational::new_raw(n.into(), d.into())))),
    }
}

impl From<BigRational> for Rat {
    /// The rational of a (normalized) `BigRational`.
    fn from(r: BigRational) -> Rat {
        match (r.numer().to_i64().filter(|&v| v != i64::MIN), r.denom().to_i64()) {
            (Some(n), Some(d)) => Rat(Repr::Small(n, d)),
            _ => Rat(Repr::Big(Box::new(r))),
        }
    }
}

impl From<&Rat> for BigRational {
    fn from(r: &Rat) -> BigRational {
        r.big()
    }
}

impl From<Rat> for BigRational {
    fn from(r: Rat) -> BigRational {
        match r.0 {
            Repr::Small(..) => r.big(),
            Repr::Big(b) => *b,
        }
    }
}

impl Rat {
    /// The value as a `BigRational`.
    pub fn big(&self) -> BigRational {
        match &self.0 {
            Repr::Small(n, d) => BigRational::new_raw((*n).into(), (*d).into()),
            Repr::Big(b) => (**b).clone(),
        }
    }
    /// The small pair `(n, d)`, if the value has one.
    fn small(&self) -> Option<(i128, i128)> {
        match self.0 {
            Repr::Small(n, d) => Some((n.into(), d.into())),
            Repr::Big(_) => None,
        }
    }
    /// The integer `n`.
    pub fn from_integer(n: BigInt) -> Rat {
        match n.to_i64() {
            Some(v) => v.into(),
            None => BigRational::from_integer(n).into(),
        }
    }
    /// `n/d` normalized. Panics if `d` is zero (as `BigRational::new`).
    pub fn new(n: BigInt, d: BigInt) -> Rat {
        match (n.to_i64(), d.to_i64()) {
            (Some(a), Some(b)) if b != 0 => ratio(a.into(), b.into()),
            _ => BigRational::new(n, d).into(),
        }
    }
    /// The normalized numerator (the sign of the value).
    pub fn numer(&self) -> BigInt {
        match &self.0 {
            Repr::Small(n, _) => (*n).into(),
            Repr::Big(b) => b.numer().clone(),
        }
    }
    /// The normalized denominator (positive).
    pub fn denom(&self) -> BigInt {
        match &self.0 {
            Repr::Small(_, d) => (*d).into(),
            Repr::Big(b) => b.denom().clone(),
        }
    }
    /// Whether the value is an integer.
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Small(_, d) => *d == 1,
            Repr::Big(b) => b.is_integer(),
        }
    }
    /// Whether the value is above zero.
    pub fn is_positive(&self) -> bool {
        match &self.0 {
            Repr::Small(n, _) => *n > 0,
            Repr::Big(b) => b.is_positive(),
        }
    }
    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small(n, _) => *n < 0,
            Repr::Big(b) => b.is_negative(),
        }
    }
    /// `|self|`.
    pub fn abs(&self) -> Rat {
        if self.is_negative() {
            -self
        } else {
            self.clone()
        }
    }
    /// The integer part, rounded toward zero (`BigRational::to_integer`).
    pub fn to_integer(&self) -> BigInt {
        match &self.0 {
            Repr::Small(n, d) => (n / d).into(),
            Repr::Big(b) => b.to_integer(),
        }
    }
    /// The integer part as a rational, rounded toward zero.
    pub fn trunc(&self) -> Rat {
        match &self.0 {
            Repr::Small(n, d) => Rat(Repr::Small(n / d, 1)),
            Repr::Big(b) => b.trunc().into(),
        }
    }
    /// `⌊self⌋`.
    pub fn floor(&self) -> Rat {
        match &self.0 {
            Repr::Small(n, d) => Rat(Repr::Small(Integer::div_floor(n, d), 1)),
            Repr::Big(b) => b.floor().into(),
        }
    }
    /// `⌈self⌉`.
    pub fn ceil(&self) -> Rat {
        match &self.0 {
            Repr::Small(n, d) => Rat(Repr::Small(Integer::div_ceil(n, d), 1)),
            Repr::Big(b) => b.ceil().into(),
        }
    }
    /// The nearest `f64` (`BigRational::to_f64`), for reports outside the kernel.
    pub fn to_f64(&self) -> Option<f64> {
        self.big().to_f64()
    }
}

impl Default for Rat {
    /// Zero.
    fn default() -> Rat {
        Rat::zero()
    }
}

impl Zero for Rat {
    fn zero() -> Rat {
        Rat(Repr::Small(0, 1))
    }
    fn is_zero(&self) -> bool {
        matches!(self.0, Repr::Small(0, _))
    }
}

impl One for Rat {
    fn one() -> Rat {
        Rat(Repr::Small(1, 1))
    }
    fn is_one(&self) -> bool {
        matches!(self.0, Repr::Small(1, 1))
    }
}

impl From<BigInt> for Rat {
    fn from(n: BigInt) -> Rat {
        Rat::from_integer(n)
    }
}

impl From<i64> for Rat {
    fn from(n: i64) -> Rat {
        ratio(n.into(), 1)
    }
}

impl Ord for Rat {
    fn cmp(&self, other: &Rat) -> Ordering {
        match (self.small(), other.small()) {
            // d_a, d_b > 0: n_a/d_a ≤ n_b/d_b iff n_a·d_b ≤ n_b·d_a
            (Some((an, ad)), Some((bn, bd))) => (an * bd).cmp(&(bn * ad)),
            _ => self.big().cmp(&other.big()),
        }
    }
}

impl PartialOrd for Rat {
    fn partial_cmp(&self, other: &Rat) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Rat {
    /// As `BigRational`: `n`, or `n/d` when `d ≠ 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Small(n, 1) => write!(f, "{n}"),
            Repr::Small(n, d) => write!(f, "{n}/{d}"),
            Repr::Big(b) => write!(f, "{b}"),
        }
    }
}

impl fmt::Debug for Rat {
    /// As `BigRational`'s `Debug`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.big(), f)
    }
}

impl Neg for &Rat {
    type Output = Rat;
    fn neg(self) -> Rat {
        match &self.0 {
            // n ≠ i64::MIN, so -n fits
            Repr::Small(n, d) => Rat(Repr::Small(-n, *d)),
            Repr::Big(b) => (-&**b).into(),
        }
    }
}

impl Neg for Rat {
    type Output = Rat;
    fn neg(self) -> Rat {
        -&self
    }
}

/// The four operations on references: small operands in `i128` (bounds in the module
/// docs), others by `BigRational`. Division by zero panics, as `BigRational`'s.
impl Add for &Rat {
    type Output = Rat;
    fn add(self, b: &Rat) -> Rat {
        match (self.small(), b.small()) {
            (Some((an, ad)), Some((bn, bd))) if ad == bd => ratio(an + bn, ad),
            (Some((an, ad)), Some((bn, bd))) => ratio(an * bd + bn * ad, ad * bd),
            _ => (self.big() + b.big()).into(),
        }
    }
}

impl Sub for &Rat {
    type Output = Rat;
    fn sub(self, b: &Rat) -> Rat {
        self + &-b
    }
}

impl Mul for &Rat {
    type Output = Rat;
    fn mul(self, b: &Rat) -> Rat {
        match (self.small(), b.small()) {
            (Some((an, ad)), Some((bn, bd))) => ratio(an * bn, ad * bd),
            _ => (self.big() * b.big()).into(),
        }
    }
}

impl Div for &Rat {
    type Output = Rat;
    fn div(self, b: &Rat) -> Rat {
        match (self.small(), b.small()) {
            (Some((an, ad)), Some((bn, bd))) if bn != 0 => ratio(an * bd, ad * bn),
            _ => (self.big() / b.big()).into(),
        }
    }
}

/// The operations on owned operands and mixed ones, by the reference forms.
macro_rules! by_ref {
    ($tr:ident, $f:ident) => {
        impl $tr<Rat> for Rat {
            type Output = Rat;
            fn $f(self, b: Rat) -> Rat {
                (&self).$f(&b)
            }
        }
        impl $tr<&Rat> for Rat {
            type Output = Rat;
            fn $f(self, b: &Rat) -> Rat {
                (&self).$f(b)
            }
        }
        impl $tr<Rat> for &Rat {
            type Output = Rat;
            fn $f(self, b: Rat) -> Rat {
                self.$f(&b)
            }
        }
    };
}
by_ref!(Add, add);
by_ref!(Sub, sub);
by_ref!(Mul, mul);
by_ref!(Div, div);

impl AddAssign<&Rat> for Rat {
    fn add_assign(&mut self, b: &Rat) {
        *self = &*self + b;
    }
}

impl AddAssign for Rat {
    fn add_assign(&mut self, b: Rat) {
        *self = &*self + &b;
    }
}

impl SubAssign<&Rat> for Rat {
    fn sub_assign(&mut self, b: &Rat) {
        *self = &*self - b;
    }
}

impl MulAssign<&Rat> for Rat {
    fn mul_assign(&mut self, b: &Rat) {
        *self = &*self * b;
    }
}

impl MulAssign for Rat {
    fn mul_assign(&mut self, b: Rat) {
        *self = &*self * &b;
    }
}

impl DivAssign for Rat {
    fn div_assign(&mut self, b: Rat) {
        *self = &*self / &b;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::float_arithmetic)]
mod tests {
    //! `Rat` against `BigRational` (the oracle): every operation's value, and every result
    //! in the unique representation (small exactly when numerator and denominator fit).
    use super::*;
    use quickcheck::{Arbitrary, Gen, QuickCheck};
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    /// Integers around the edges of the small representation, and beyond.
    fn edges() -> Vec<BigInt> {
        let p = |e: u32| BigInt::from(2).pow(e);
        let mut v: Vec<BigInt> = vec![0.into(), 1.into(), 2.into(), 3.into(), 6.into(), 7.into()];
        for e in [31, 32, 62, 63, 64, 126, 127, 128] {
            v.extend([p(e) - 1, p(e), p(e) + 1]);
        }
        let neg: Vec<BigInt> = v.iter().map(|x| -x).collect();
        v.extend(neg);
        v
    }

    /// The value, and whether it is held small.
    fn is_small(r: &Rat) -> bool {
        matches!(r.0, Repr::Small(..))
    }

    /// `r` has the value `q` and the representation the module docs prescribe.
    fn agrees(r: &Rat, q: &BigRational) -> bool {
        let lim = BigInt::from(i64::MAX);
        let fits = q.numer().abs() <= lim && *q.denom() <= lim;
        r.big() == *q && is_small(r) == fits
    }

    #[derive(Clone, Debug)]
    struct Q(BigRational);

    impl Arbitrary for Q {
        fn arbitrary(g: &mut Gen) -> Q {
            let pick = |g: &mut Gen| -> BigInt {
                match u8::arbitrary(g) % 4 {
                    0 => g.choose(&edges()).unwrap().clone(),
                    1 => BigInt::from(i8::arbitrary(g)),
                    2 => BigInt::from(i64::arbitrary(g)),
                    _ => {
                        BigInt::from(i64::arbitrary(g)) * BigInt::from(i64::arbitrary(g))
                            + BigInt::from(i8::arbitrary(g))
                    }
                }
            };
            let n = pick(g);
            let d = match u8::arbitrary(g) % 3 {
                0 => BigInt::one(),
                _ => pick(g),
            };
            Q(if d.is_zero() { BigRational::from_integer(n) } else { BigRational::new(n, d) })
        }
    }

    fn hash(r: &Rat) -> u64 {
        let mut h = DefaultHasher::new();
        r.hash(&mut h);
        h.finish()
    }

    /// Every operation on `(a, b)` agrees with `BigRational`'s.
    fn pair(a: &BigRational, b: &BigRational) -> bool {
        let (x, y) = (Rat::from(a.clone()), Rat::from(b.clone()));
        // `Rat::new` on an unnormalized pair (any signs) is the quotient
        let div_ok = b.is_zero()
            || (agrees(&(&x / &y), &(a / b))
                && agrees(&Rat::new(a.numer() * b.denom(), a.denom() * b.numer()), &(a / b)));
        let mut acc = x.clone();
        acc += &y;
        agrees(&x, a)
            && agrees(&(&x + &y), &(a + b))
            && agrees(&acc, &(a + b))
            && agrees(&(&x - &y), &(a - b))
            && agrees(&(&x * &y), &(a * b))
            && div_ok
            && x.cmp(&y) == a.cmp(b)
            && (x == y) == (a == b)
            && (x != y || hash(&x) == hash(&y))
    }

    /// Every unary operation on `a` agrees with `BigRational`'s.
    fn single(a: &BigRational) -> bool {
        let x = Rat::from(a.clone());
        agrees(&x, a)
            && agrees(&-&x, &-a)
            && agrees(&x.abs(), &a.abs())
            && agrees(&x.floor(), &a.floor())
            && agrees(&x.ceil(), &a.ceil())
            && agrees(&x.trunc(), &a.trunc())
            && x.to_integer() == a.to_integer()
            && x.numer() == *a.numer()
            && x.denom() == *a.denom()
            && x.is_integer() == a.is_integer()
            && x.is_positive() == a.is_positive()
            && x.is_negative() == a.is_negative()
            && x.is_zero() == a.is_zero()
            && x.is_one() == a.is_one()
            && x.to_string() == a.to_string()
            && format!("{x:?}") == format!("{a:?}")
            && x.to_f64() == a.to_f64()
            && BigRational::from(x.clone()) == *a
            && agrees(&Rat::new(a.numer().clone(), a.denom().clone()), a)
            && (!a.is_integer() || agrees(&Rat::from_integer(a.numer().clone()), a))
    }

    #[test]
    fn random_values_agree_with_bigrational() {
        fn pair_q(a: Q, b: Q) -> bool {
            pair(&a.0, &b.0)
        }
        fn single_q(a: Q) -> bool {
            single(&a.0)
        }
        QuickCheck::new().tests(1_500).quickcheck(pair_q as fn(Q, Q) -> bool);
        QuickCheck::new().tests(1_500).quickcheck(single_q as fn(Q) -> bool);
    }

    /// Quotients of edge integers (every numerator over every fourth denominator): each
    /// value alone, and every 61st value paired with every value.
    #[test]
    fn edge_values_agree_with_bigrational() {
        let dens: Vec<BigInt> = edges().into_iter().filter(|d| !d.is_zero()).step_by(4).collect();
        let vals: Vec<BigRational> =
            edges().iter().flat_map(|n| dens.iter().map(move |d| BigRational::new(n.clone(), d.clone()))).collect();
        for a in &vals {
            assert!(single(a), "{a}");
        }
        for a in vals.iter().step_by(61) {
            for b in &vals {
                assert!(pair(a, b), "{a} {b}");
            }
        }
        // the extremes: i64::MIN is held big, its negation likewise
        let min = Rat::from(i64::MIN);
        assert!(!is_small(&min) && agrees(&-&min, &BigRational::from_integer(BigInt::from(2).pow(63))));
        assert!(is_small(&Rat::from(i64::MAX)) && is_small(&Rat::from(-i64::MAX)));
    }
}
