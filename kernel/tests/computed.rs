//! The computed notions of spec/logic.md §2 on hand-derived examples: `N*` for
//! `MemReads`/`Conflicts`, dependence arithmetic, canonical potentials, Farkas checking.

use num_bigint::BigInt;
use warpcert_kernel::access::{n_star, Kind};
use warpcert_kernel::arith::{check_farkas, rat, Cstr, Dep, FarkasProblem, Lin, Poly};

const HW: [u32; 4] = [32, 32, 4, 32];

fn dep(k: [i64; 3], r: i64, g: i64) -> Dep {
    Dep::norm(k.map(BigInt::from), BigInt::from(r), BigInt::from(g))
}

fn le(c: i64, terms: &[(i64, &str)]) -> Cstr {
    let mut l = Lin::constant(rat(c));
    for (a, v) in terms {
        l.add_term(v, &rat(*a));
    }
    Cstr::le(l)
}

#[test]
fn memreads_bounds() {
    let b = [32, 1, 1];
    // 32 consecutive aligned ints: 128 bytes = 4 sectors (RaCUDA §4, Fig. 9).
    assert_eq!(n_star(b, HW, &[], Some(&dep([1, 0, 0], 0, 0)), 4, Kind::MemReads), Ok(4));
    // Offset unknown (g = 1): β ranges over {0, 4, …, 28}; β = 4 spans bytes 4..131: 5 sectors.
    assert_eq!(n_star(b, HW, &[], Some(&dep([1, 0, 0], 0, 1)), 4, Kind::MemReads), Ok(5));
    // Offset ≡ 0 (mod 8) ints = 32 bytes: always aligned, 4 sectors.
    assert_eq!(n_star(b, HW, &[], Some(&dep([1, 0, 0], 0, 8)), 4, Kind::MemReads), Ok(4));
    // Uniform index: one address, one sector.
    assert_eq!(n_star(b, HW, &[], Some(&dep([0, 0, 0], 0, 1)), 4, Kind::MemReads), Ok(1));
    // Unknown dependence: one sector per lane at most.
    assert_eq!(n_star(b, HW, &[], None, 4, Kind::MemReads), Ok(32));
    // Only lanes with threadIdx.x ≤ 7 (constraint x − 7 ≤ 0) are active: 32 bytes, 1 sector.
    let p = [le(-7, &[(1, "threadIdx.x")]), le(-3, &[(1, "n")])];
    assert_eq!(n_star(b, HW, &p, Some(&dep([1, 0, 0], 0, 0)), 4, Kind::MemReads), Ok(1));
    assert_eq!(n_star(b, HW, &p, None, 4, Kind::MemReads), Ok(8));
    // Block 48×1×1: warp 1 has lanes 32..47 (16 ints = 2 sectors), warp 0 has 4: max 4.
    assert_eq!(n_star([48, 1, 1], HW, &[], Some(&dep([1, 0, 0], 0, 0)), 4, Kind::MemReads), Ok(4));
    // Block 8×4: a warp is 8 columns × 4 rows; index 64·y + x: 4 rows, each 32 bytes: 4 sectors.
    assert_eq!(n_star([8, 4, 1], HW, &[], Some(&dep([1, 64, 0], 0, 0)), 4, Kind::MemReads), Ok(4));
}

#[test]
fn conflict_bounds() {
    let b = [32, 1, 1];
    let c = |k: i64, r: i64, g: i64, es: u32| n_star(b, HW, &[], Some(&dep([k, 0, 0], r, g)), es, Kind::Conflicts);
    assert_eq!(c(1, 0, 0, 4), Ok(1));
    assert_eq!(c(2, 0, 0, 4), Ok(2));
    assert_eq!(c(32, 0, 0, 4), Ok(32));
    // Stride 33 (padding): banks 33t mod 32 = t mod 32, all distinct.
    assert_eq!(c(33, 0, 1, 4), Ok(1));
    // Broadcast: one address in one bank.
    assert_eq!(c(0, 5, 0, 4), Ok(1));
    // 8-byte elements, stride 1: words 2t, 2t+1 start banks 2t mod 32: lanes t, t+16 collide.
    assert_eq!(c(1, 0, 0, 8), Ok(2));
    // Unknown: all 32 lanes may be distinct addresses of one bank.
    assert_eq!(n_star(b, HW, &[], None, 4, Kind::Conflicts), Ok(32));
}

#[test]
fn dependence_arithmetic() {
    let tid = dep([1, 0, 0], 0, 0);
    let u = dep([0, 0, 0], 0, 1);
    let three = Dep::exact(BigInt::from(3));
    // tid + 3: (1,0,0; 3 mod 0).
    assert_eq!(tid.add(&three, 1), dep([1, 0, 0], 3, 0));
    // (3 mod 0) · (2 mod 4) = (6 mod gcd(0, 12, 0)) = (6 mod 12).
    let two4 = dep([0, 0, 0], 2, 4);
    assert_eq!(three.mul_uniform(&two4), dep([0, 0, 0], 6, 12));
    // (1 mod 2)·(1 mod 2) = 1 mod gcd(4, 2, 2) = 1 mod 2.
    let odd = dep([0, 0, 0], 1, 2);
    assert_eq!(odd.mul_uniform(&odd), dep([0, 0, 0], 1, 2));
    // Implication: 6 mod 12 ⇒ 0 mod 2 and ⇒ 0 mod 3, not ⇒ 0 mod 4; exact ⇒ any congruence it meets.
    assert!(dep([0, 0, 0], 6, 12).implies(&dep([0, 0, 0], 0, 2)));
    assert!(dep([0, 0, 0], 6, 12).implies(&dep([0, 0, 0], 0, 3)));
    assert!(!dep([0, 0, 0], 6, 12).implies(&dep([0, 0, 0], 0, 4)));
    assert!(three.implies(&u));
    assert!(!u.implies(&three));
    assert!(!tid.implies(&u));
    // Normalization: −1 mod 4 = 3 mod 4; scaling by −2: (−2,0,0; −6 mod 8) = (−2,0,0; 2 mod 8).
    assert_eq!(dep([0, 0, 0], -1, 4), dep([0, 0, 0], 3, 4));
    assert_eq!(dep([1, 0, 0], 3, 4).scale(&BigInt::from(-2)), dep([-2, 0, 0], 2, 8));
}

#[test]
fn canonical_potentials() {
    let lin = |c: i64, t: &[(i64, &str)]| le(c, t).lin;
    let mut a = Poly::zero();
    a.add_term(rat(6), vec![lin(2, &[(4, "n")])]); // 6·max0(4n + 2) = 12·max0(2n + 1)
    let mut b = Poly::zero();
    b.add_term(rat(12), vec![lin(1, &[(2, "n")])]);
    assert_eq!(a, b);
    assert_eq!(a.to_string(), "12*max(0, 2*n + 1)");
    // Constant atoms are evaluated: max0(−3) = 0, max0(2) = 2.
    let mut c = Poly::zero();
    c.add_term(rat(5), vec![lin(-3, &[])]);
    c.add_term(rat(5), vec![lin(2, &[]), lin(-1, &[(1, "n"), (-1, "i")])]);
    assert_eq!(c.to_string(), "10*max(0, n - i - 1)");
}

#[test]
fn farkas_checks() {
    let p = [le(1, &[(1, "i"), (-1, "n")]), le(0, &[(-1, "i")])]; // i − n + 1 ≤ 0, −i ≤ 0
                                                                  // −n + 1 ≤ 0 = p0 + p1.
    let t = le(1, &[(-1, "n")]);
    assert_eq!(check_farkas(&p, &t, &[(0, rat(1)), (1, rat(1))]), Ok(()));
    // −n ≤ 0 too (μ = −1).
    assert_eq!(check_farkas(&p, &le(0, &[(-1, "n")]), &[(0, rat(1)), (1, rat(1))]), Ok(()));
    // −n + 2 ≤ 0 does not follow: μ = 1.
    assert_eq!(
        check_farkas(&p, &le(2, &[(-1, "n")]), &[(0, rat(1)), (1, rat(1))]),
        Err(FarkasProblem::BadConstant("1".into()))
    );
    assert_eq!(check_farkas(&p, &t, &[(2, rat(1))]), Err(FarkasProblem::IndexOutOfRange(2)));
    let eq = Cstr::equal(t.lin.clone());
    assert_eq!(check_farkas(&p, &eq, &[(0, rat(1))]), Err(FarkasProblem::InequalityForEquality(0)));
}

/// The fast paths of `arith::add`/`arith::mul` (integers, `i64` parts) and of `Lin::canonical` give the
/// values (and normalized representations) of plain `Ratio` arithmetic, small and large.
#[test]
fn fast_arithmetic_agrees_with_ratio() {
    use num_traits::One;
    use warpcert_kernel::arith::{add, mul, Rat};
    let big = BigInt::from(u64::MAX) * BigInt::from(u64::MAX);
    let mut xs: Vec<Rat> = [0i64, 1, -1, 2, -7, 12, i64::MAX, i64::MIN].iter().map(|&n| rat(n)).collect();
    xs.extend([Rat::new(1.into(), 2.into()), Rat::new((-3).into(), 4.into()), Rat::from_integer(big.clone())]);
    xs.push(Rat::new(big.clone(), BigInt::from(6)));
    // fractions at the edge of i64 (computed in i128)
    xs.push(Rat::new(i64::MAX.into(), (i64::MAX - 1).into()));
    xs.push(Rat::new(i64::MIN.into(), 3.into()));
    xs.push(Rat::new((-5).into(), i64::MAX.into()));
    xs.push(Rat::new(871.into(), 20.into()));
    for a in &xs {
        for b in &xs {
            let (s, p) = (add(a, b), mul(a, b));
            assert_eq!((s.numer(), s.denom()), ((a + b).numer(), (a + b).denom()), "{a} + {b}");
            assert_eq!((p.numer(), p.denom()), ((a * b).numer(), (a * b).denom()), "{a} * {b}");
        }
    }
    // canonical: 4 + 6x = 2·(2 + 3x); 2 + 3x is its own canonical form; x/2 + 1/3 = 1/6·(2 + 3x).
    let l = |c: Rat, a: Rat| {
        let mut l = Lin::constant(c);
        l.add_term("x", &a);
        l
    };
    let canon = l(rat(2), rat(3));
    assert_eq!(l(rat(4), rat(6)).canonical(), Ok((rat(2), canon.clone())));
    assert_eq!(canon.canonical(), Ok((Rat::one(), canon.clone())));
    let half = l(Rat::new(1.into(), 3.into()), Rat::new(1.into(), 2.into()));
    assert_eq!(half.canonical(), Ok((Rat::new(1.into(), 6.into()), canon.clone())));
    // a coefficient beyond i64: (big + big·x) = big·(1 + x)
    assert_eq!(
        l(Rat::from_integer(big.clone()), Rat::from_integer(big.clone())).canonical(),
        Ok((Rat::from_integer(big), l(rat(1), rat(1))))
    );
}

/// `N*` with thread coefficients inside and beyond `i64` (the machine-integer count and the
/// `BigInt` count): 2^62 and 2^64 are both ≡ 0 (mod 32·4), so every lane of a warp hits
/// another sector (32 sectors) but the same bank (32 distinct addresses in one bank).
#[test]
fn n_star_beyond_i64() {
    let b = [32, 1, 1];
    let huge = |e: u32| {
        let k = BigInt::from(2).pow(e);
        Dep::norm([k, BigInt::from(0), BigInt::from(0)], BigInt::from(0), BigInt::from(0))
    };
    for e in [62, 64, 100] {
        assert_eq!(n_star(b, HW, &[], Some(&huge(e)), 4, Kind::MemReads), Ok(32), "2^{e}");
        assert_eq!(n_star(b, HW, &[], Some(&huge(e)), 4, Kind::Conflicts), Ok(32), "2^{e}");
    }
    // Stride 2 ints: 64 consecutive ints' worth of bytes → 8 sectors; banks 0, 2, …, 30 hold
    // two lanes each (2-way conflict).
    assert_eq!(n_star(b, HW, &[], Some(&dep([2, 0, 0], 0, 0)), 4, Kind::MemReads), Ok(8));
    assert_eq!(n_star(b, HW, &[], Some(&dep([2, 0, 0], 0, 0)), 4, Kind::Conflicts), Ok(2));
}
