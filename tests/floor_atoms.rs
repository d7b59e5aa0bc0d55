//! Floor atoms in the producer's potentials (spec/logic.md §1 "Floor atoms", issue 14):
//! the crate's canonical form of `⌊L/d⌋⁺` is the kernel's (`kernel/src/arith.rs`
//! `Atom::canonical`), its value is `max(0, ⌊L/d⌋)`, and the substitution and shift of a
//! floor atom agree with the kernel's.

mod common;

use common::rng::Rng;
use num_bigint::BigInt;
use std::collections::BTreeMap;
use warpcert::core::assertion::linear::Lin;
use warpcert::core::assertion::poly::{Atom, AtomVal, Poly};
use warpcert::core::metric::{q, Q};
use warpcert_kernel::arith as k;

fn lin(c: Q, terms: &[(Q, &str)]) -> Lin {
    let mut l = Lin::constant(c);
    for (a, v) in terms {
        l = l.add(&Lin::var(v).scale(a));
    }
    l
}

fn klin(l: &Lin) -> k::Lin {
    let mut out = k::Lin::constant(l.c.clone().into());
    for (v, a) in &l.terms {
        out.add_term(v, &a.clone().into());
    }
    out
}

fn katom(a: &Atom) -> k::Atom {
    match a {
        Atom::Max0(l) => k::Atom::Max0(klin(l)),
        Atom::Floor(l, d) => k::Atom::Floor(klin(l), d.clone()),
        Atom::Log(l) => k::Atom::Log(klin(l)),
        Atom::LogQ(l, m) => k::Atom::LogQ(klin(l), klin(m)),
        Atom::Res(l, m) => k::Atom::Res(klin(l), m.clone()),
        Atom::Win(l, m, w) => k::Atom::Win(klin(l), m.clone(), w.clone()),
        Atom::FloorSym(l, d) => k::Atom::FloorSym(klin(l), klin(d)),
    }
}

/// Canonical forms agree with the kernel's on 3 000 random atoms (rational coefficients and
/// constants, divisors 1 … 12): the same constant, or the same factor and atom.
#[test]
fn canonical_forms_are_the_kernels() {
    let mut g = Rng::new(7);
    for _ in 0..3000 {
        let r = |g: &mut Rng| {
            let den = g.range(-3, 3).abs() + 1;
            Q::new(BigInt::from(g.range(-12, 12)), BigInt::from(den))
        };
        let c = r(&mut g);
        let (a, b) = (r(&mut g), r(&mut g));
        let l = lin(c, &[(a, "n"), (b, "i")]);
        let d = g.range(-6, 6).abs() * 2 + (g.range(-1, 1).abs());
        let d = d.max(1);
        // quotient log atoms (spec/logic.md §1): a constant divisor form `r` becomes the log
        // atom of `L / max(1, ⌊r⌋)` on both sides
        let m = r(&mut g);
        let logq = |m: Lin| Atom::LogQ(l.clone().into(), m.into());
        for atom in [
            Atom::from(&l),
            Atom::floor(l.clone(), d),
            logq(Lin::constant(m.clone())),
            logq(lin(m, &[(q(1), "i")])),
            // a symbolic divisor (spec/logic.md §1 "Symbolic divisors"): the gcd of both
            // forms divided out on both sides
            Atom::FloorSym(
                l.clone().into(),
                lin(q(d - 1), &[(q(2 * d), "gridDim.x")]).into(),
            ),
        ] {
            let ours = atom.canonical();
            let theirs = katom(&atom).canonical();
            match (ours, theirs) {
                (AtomVal::Const(v), Err(w)) => assert_eq!(v, w.big(), "{atom}"),
                (AtomVal::Scaled(f, a2), Ok((f2, b2))) => {
                    assert_eq!(f, f2.big(), "{atom}");
                    assert_eq!(katom(&a2), b2, "{atom}");
                }
                (x, y) => panic!("{atom}: {x:?} vs {y:?}"),
            }
        }
    }
}

/// Hand values: `⌊(n + 31)/32⌋⁺` is 0 at n = 0, 1 at n = 1 … 32, 2 at n = 33, 0 at n = −5;
/// `⌊(2n + 62)/64⌋ = ⌊(n + 31)/32⌋` (canonical: one atom); divisor 1 is `max0`.
#[test]
fn floor_atoms_evaluate_and_print() {
    let f = Atom::floor(lin(q(31), &[(q(1), "n")]), 32);
    let mut p = Poly::zero();
    p.add_raw_term(std::slice::from_ref(&f), q(8));
    p.add_raw_term(&[Atom::floor(lin(q(62), &[(q(2), "n")]), 64)], q(1));
    assert_eq!(p.terms.len(), 1, "{}", p.to_bound_string());
    assert_eq!(p.to_bound_string(), "9*max(0, ⌊(n + 31)/32⌋)");
    let at = |n: i64| p.eval(&BTreeMap::from([("n".to_string(), n)]));
    for (n, rounds) in [(0, 0), (1, 1), (32, 1), (33, 2), (64, 2), (65, 3), (-5, 0)] {
        assert_eq!(at(n), q(9 * rounds), "n = {n}");
    }
    let mut one = Poly::zero();
    one.add_raw_term(&[Atom::floor(lin(q(3), &[(q(1), "n")]), 1)], q(1));
    assert_eq!(one.to_bound_string(), "max(0, n + 3)");
    assert_eq!(
        warpcert::certificate::poly_sexp(&p),
        "(poly (9 (floor (lin 31 (1 n)) 32)))"
    );
}

/// The loop step `i ← i + 32` substituted into `⌊(n − i + 31)/32⌋⁺` is the shifted atom
/// `⌊(n − i − 1)/32⌋⁺`, the kernel's `A↓1`; the shift rewrite is `A = 1 + A↓1`.
#[test]
fn substitution_and_shift_match_the_kernel() {
    let f = Atom::floor(lin(q(31), &[(q(1), "n"), (q(-1), "i")]), 32);
    let mut p = Poly::zero();
    p.add_raw_term(std::slice::from_ref(&f), q(1));
    let stepped = p.subst("i", &lin(q(32), &[(q(1), "i")]));
    let down = katom(&f).shifted(&q(1).into()).expect("integer shift");
    let (_, down) = down.canonical().expect("not constant");
    let got: Vec<&Atom> = stepped.terms.keys().flatten().collect();
    assert_eq!(got.len(), 1);
    assert_eq!(katom(got[0]), down);
    let sh = p.shift(&f, &q(1));
    let mut want = stepped.clone();
    want = want.plus_const(&q(1));
    assert_eq!(sh, want);
}

mod produced {
    //! Certificates with floor atoms produced by the analysis (issue 14 item 1, issue 15
    //! "grid-stride loops", "last round"): accepted by the kernel, bounds at least the
    //! lock-step cost of every warp tried, and exact where the hand derivation says so.
    use crate::common::warp_cost;
    use std::collections::BTreeMap;
    use warpcert::analysis::{analyze, Analysis, AnalysisOptions};
    use warpcert::core::assertion::poly::Atom;
    use warpcert::core::metric::{q, Q};
    use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
    use warpcert::frontend;

    fn lower(src: &str, block: u32) -> (Program, Launch) {
        lower_grid(src, block, 1)
    }

    fn lower_grid(src: &str, block: u32, grid: u32) -> (Program, Launch) {
        let launch = Launch {
            block: [block, 1, 1],
            grid: Some([grid, 1, 1]),
        };
        let ast = frontend::parse_str("floor.cu", src).unwrap_or_else(|d| panic!("{d}"));
        let (prog, _) =
            frontend::lower(&ast, None, &launch, &Hardware::default(), &BTreeMap::new())
                .unwrap_or_else(|d| panic!("{d}"));
        (prog, launch)
    }

    fn certified(prog: &Program, launch: &Launch, m: MetricName, floor: bool) -> Analysis {
        let opts = AnalysisOptions {
            degree: 2,
            floor,
            align: false,
        };
        let a = analyze(
            prog,
            &Metric::standard(m),
            &Hardware::default(),
            launch,
            &opts,
        )
        .unwrap_or_else(|e| panic!("{m}: {e}"));
        let v = warpcert_kernel::check(&a.certificate)
            .unwrap_or_else(|r| panic!("{m}: certificate rejected: {r}"));
        assert_eq!(
            v.bound,
            a.bound.to_bound_string(),
            "{m}: the kernel's bound is the analysis's"
        );
        a
    }

    /// The largest cost over the warps of block 0 under the lock-step semantics, `n = v`.
    fn worst(prog: &Program, launch: &Launch, m: MetricName, v: i64) -> Q {
        let warps = launch.block[0].div_ceil(32);
        (0..warps)
            .map(|w| warp_cost(prog, m, launch, [0, 0, 0], u64::from(w), &[("n", v)]))
            .max()
            .unwrap_or_else(|| q(0))
    }

    fn has_floor(a: &Analysis) -> bool {
        a.bound
            .terms
            .keys()
            .flatten()
            .any(|x| matches!(x, Atom::Floor(..)))
    }

    fn at(a: &Analysis, v: i64) -> Q {
        a.bound.eval(&BTreeMap::from([("n".to_string(), v)]))
    }

    /// `for (i = threadIdx.x; i < n; i += 32) out[i] = 1` with one warp: round j writes the
    /// 32 floats `32j … 32j + 31` that are below `n`, i.e. `⌈min(32, n − 32j)/8⌉` sectors
    /// (4 bytes each, 32-byte sectors, aligned). Hand derivation: `n = 32k + r`
    /// (`0 ≤ r < 32`) costs `4k + ⌈r/8⌉`; the floor bound `4·⌊(n + 31)/32⌋⁺` is exact when
    /// `r = 0` or `r > 24` and within 3 sectors otherwise; the polynomial bound
    /// `1/8·max(0, n + 31)` is not below it anywhere, and is `31/8` at `n = 0` (cost 0).
    #[test]
    fn step_32_loop_gets_the_floor_bound() {
        let src = "__global__ void k(float *out, int n) {\n  for (int i = threadIdx.x; i < n; i += 32) {\n    out[i] = 1.0f;\n  }\n}\n";
        let (prog, launch) = lower(src, 32);
        let a = certified(&prog, &launch, MetricName::Sectors, true);
        assert!(
            has_floor(&a),
            "no floor atom: {}",
            a.bound.to_bound_string()
        );
        let p = certified(&prog, &launch, MetricName::Sectors, false);
        assert!(
            !has_floor(&p),
            "--form polynomial has a floor atom: {}",
            p.bound.to_bound_string()
        );
        assert_eq!(at(&a, 0), q(0), "{}", a.bound.to_bound_string());
        for v in (-3..=200).chain([255, 256, 257, 1000]) {
            let truth = worst(&prog, &launch, MetricName::Sectors, v);
            let (b, bp) = (at(&a, v), at(&p, v));
            assert!(b >= truth, "unsound at n={v}: bound {b} < cost {truth}");
            assert!(
                b <= bp,
                "floor bound {b} looser than polynomial {bp} at n={v}"
            );
            let n = v.max(0);
            let hand = q(4 * (n / 32) + (n % 32 + 7) / 8);
            assert_eq!(truth, hand, "semantics vs hand derivation at n={v}");
            if n % 32 == 0 || n % 32 > 24 {
                assert_eq!(b, truth, "not exact at n={v}");
            }
        }
    }

    /// A step-64 loop over a 64-thread block with two warps (`i += blockDim.x`, a constant
    /// after launch instantiation): warp 0's lanes `l` run the rounds `j` with
    /// `l + 64j < n`: `⌈n/64⌉` rounds for `n ≥ 1`, each round reads and writes 4 sectors
    /// at most: `8·⌈n/64⌉ = 8·⌊(n + 63)/64⌋⁺` (hand derivation; exact at multiples of 64).
    #[test]
    fn block_stride_loop_gets_the_floor_bound() {
        let src = "__global__ void k(float *out, const float *in, int n) {\n  for (int i = threadIdx.x; i < n; i += blockDim.x) {\n    out[i] = in[i] * 2.0f;\n  }\n}\n";
        let (prog, launch) = lower(src, 64);
        let a = certified(&prog, &launch, MetricName::Sectors, true);
        assert!(
            has_floor(&a),
            "no floor atom: {}",
            a.bound.to_bound_string()
        );
        for v in (-2..=300).step_by(3).chain([64, 128, 1024]) {
            let truth = worst(&prog, &launch, MetricName::Sectors, v);
            let b = at(&a, v);
            assert!(b >= truth, "unsound at n={v}: bound {b} < cost {truth}");
            let n = v.max(0);
            if n % 64 == 0 {
                assert_eq!(
                    b,
                    q(8 * (n / 64)),
                    "not exact at n={v}: {}",
                    a.bound.to_bound_string()
                );
            }
        }
    }

    /// A grid-stride loop with a concrete grid of 4 blocks of 256 (tests/precision's
    /// pattern): the stride is the constant 1024 and the counter starts at
    /// `256·blockIdx.x + threadIdx.x`; the bound drops `blockIdx.x` through `imono` (launch
    /// fact `blockIdx.x ≥ 0`, one cut). Hand derivation for warp 0 of block 0: `⌈n/1024⌉`
    /// rounds, each reading and writing at most 4 sectors: `8·⌊(n + 1023)/1024⌋⁺`, exact at
    /// multiples of 1024; 0 at `n ≤ 0`.
    #[test]
    fn grid_stride_loop_gets_the_floor_bound() {
        let src = "__global__ void k(float *out, const float *in, int n) {\n  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n    out[i] = in[i] * 3.0f;\n  }\n}\n";
        let (prog, launch) = lower_grid(src, 256, 4);
        let a = certified(&prog, &launch, MetricName::Sectors, true);
        assert!(
            has_floor(&a),
            "no floor atom: {}",
            a.bound.to_bound_string()
        );
        assert_eq!(at(&a, 0), q(0), "{}", a.bound.to_bound_string());
        for v in [
            -5, 0, 1, 31, 32, 33, 500, 1023, 1024, 1025, 2048, 3000, 4096,
        ] {
            let truth = worst(&prog, &launch, MetricName::Sectors, v);
            let b = at(&a, v);
            assert!(b >= truth, "unsound at n={v}: bound {b} < cost {truth}");
            if v >= 0 && v % 1024 == 0 {
                assert_eq!(
                    b,
                    truth,
                    "not exact at n={v}: {}",
                    a.bound.to_bound_string()
                );
                assert_eq!(
                    truth,
                    q(8 * (v / 1024)),
                    "semantics vs hand derivation at n={v}"
                );
            }
        }
    }
}
