//! Floor atoms `⌊L/d⌋⁺ = max(0, ⌊L/d⌋)` and integer rewrites with Chvátal–Gomory cuts
//! (spec/logic.md §1 "Floor atoms", spec/certificate.md "Integer rewrites"): a hand-written
//! certificate for a loop with step 32 that proves the exact bound `⌊(n + 31)/32⌋⁺`, and
//! mutants of every new part (cut, rounding, divisor, shift, atom form), all rejected.

mod common;
use common::*;
use warpcert_kernel::arith::{atom_arg, check_cut, rat, Atom, Cstr, FarkasProblem, Lin, Poly};
use warpcert_kernel::Reason;

const L: [u32; 3] = [32, 1, 1];

fn lin(c: i64, terms: &[(i64, &str)]) -> Lin {
    let mut l = Lin::constant(rat(c));
    for (a, v) in terms {
        l.add_term(v, &rat(*a));
    }
    l
}

/// The parts of the loop certificate that the mutants change.
struct Loop<'a> {
    /// The divisor of the bound and of the invariant's floor atom.
    div: u32,
    /// The constant of the invariant's floor atom `⌊(n − i + K)/div⌋⁺`.
    k: i64,
    /// The `ishift` amount.
    shift: &'a str,
    /// The integer witness of the `ishift`.
    cg: &'a str,
}

const GOOD: Loop = Loop { div: 32, k: 31, shift: "1", cg: "(cg (cut (6 1/32) (8 1/32)) (farkas (9 1)))" };

/// `i = 0; while (i < n) { A[i] = 0; i = i + 32; }` under `sectors` (block 32): every round
/// writes one sector (uniform index: one address), the test and the assignments cost 0.
/// Hand derivation: the rounds are `i = 0, 32, …` below `n`, i.e. `⌈n/32⌉ = ⌊(n + 31)/32⌋`
/// for `n ≥ 0` and none for `n ≤ 0`: the cost is exactly `⌊(n + 31)/32⌋⁺`, which is the
/// bound. The invariant potential is `F = ⌊(n − i + 31)/32⌋⁺`; the body's Q:WEAK shifts it
/// by one round: `F = 1 + ⌊(n − i − 1)/32⌋⁺` under `i < n`, where `q = ⌊(n − i + 31)/32⌋ ≥ 1`
/// needs the cut `(i − n + 1 ≤ 0) + (n − i − 32q ≤ 0)`, scaled by 1/32: `1/32 − q ≤ 0`,
/// rounded to `1 − q ≤ 0` (source indices: 0–5 launch facts, 6 the loop condition, 7–8 the
/// defining facts `32q − (n − i + 31) ≤ 0`, `n − i − 32q ≤ 0`, 9 the cut).
fn loop_cert(m: &Loop) -> String {
    let f = |k: i64| format!("(1 (floor (lin {k} (1 n) (-1 i)) {}))", m.div);
    let fl = f(m.k);
    let g = f(m.k - 32);
    let d = "(dep i 0 0 0 0 1)";
    let pe = format!("{} (le (lin 1 (1 i) (-1 n)))", launch(L));
    let px = format!("{} (le (lin 0 (1 n) (-1 i)))", launch(L));
    let write = snode(
        "Q:GWRITE",
        &assn(&pe, d, &format!("(1) {g}")),
        &assn(&pe, d, &g),
        "(n 1) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))",
    );
    let step = snode(
        "Q:VWRITE1",
        &assn(&pe, d, &g),
        &assn(&launch(L), d, &fl),
        &format!("(entail post {}) (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:CONST (cost 0)))", ids(0..6)),
    );
    let body =
        snode("Q:SEQ", &assn(&pe, d, &format!("(1) {g}")), &assn(&launch(L), d, &fl), &format!("{write} {step}"));
    let weak = snode(
        "Q:WEAK",
        &assn(&pe, d, &fl),
        &assn(&launch(L), d, &fl),
        &format!(
            "(entail pre {}) (entail post {}) (rewrite pre (ishift (floor (lin {} (1 n) (-1 i)) {}) {} {})) {body}",
            ids(0..7),
            ids(0..6),
            m.k,
            m.div,
            m.shift,
            m.cg
        ),
    );
    let cond = "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:PARAM (cost 0)))";
    let lp = snode("Q:WHILE1", &assn(&launch(L), d, &fl), &assn(&px, d, &fl), &format!("{cond} {weak}"));
    let bound = format!("(1 (floor (lin {} (1 n)) {}))", m.k, m.div);
    let init = snode(
        "Q:VWRITE1",
        &assn(&launch(L), "(dep i 0 0 0 0 0)", &bound),
        &assn(&launch(L), d, &fl),
        &format!("(entail post {}) (OQ:CONST (cost 0))", ids(0..6)),
    );
    let root =
        snode("Q:SEQ", &assn(&launch(L), "(dep i 0 0 0 0 0)", &bound), &assn(&px, d, &fl), &format!("{init} {lp}"));
    let prog = "(seq (assign i (int 0)) (while (bin < (var i) (param n)) (seq (write A (var i) (int 0)) (assign i (bin + (var i) (int 32))))))";
    simple("sectors", "(int n)", "(A global int 4)", "(int i)", prog, &bound, root).text()
}

#[test]
fn step_loop_floor_bound_is_accepted() {
    let v = ok(&loop_cert(&GOOD));
    assert_eq!(v.bound, "max(0, ⌊(n + 31)/32⌋)");
}

#[test]
fn cut_mutants_are_rejected() {
    // Without the cut the rational combination gives only q ≥ 1/32.
    let r = rej(&loop_cert(&Loop { cg: "(cg (farkas (6 1/32) (8 1/32)))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
    let r = rej(&loop_cert(&Loop { cg: "(farkas (6 1/32) (8 1/32))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
    // A changed multiplier leaves a non-integral left side: no rounding allowed.
    let r = rej(&loop_cert(&Loop { cg: "(cg (cut (6 1/16) (8 1/32)) (farkas (9 1)))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NotIntegral(_), .. }), "{r}");
    // A negative multiplier on an inequality.
    let r = rej(&loop_cert(&Loop { cg: "(cg (cut (6 -1/32) (8 1/32)) (farkas (9 1)))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NegativeMultiplier(6), .. }), "{r}");
    // A cut may not refer to itself (index 9 is defined by it).
    let r = rej(&loop_cert(&Loop { cg: "(cg (cut (9 1)) (farkas (9 1)))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::IndexOutOfRange(9), .. }), "{r}");
}

#[test]
fn shift_divisor_and_form_mutants_are_rejected() {
    // Shifting by 2 would need q ≥ 2.
    let r = rej(&loop_cert(&Loop { shift: "2", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
    // A fractional shift of a floor atom.
    let r = rej(&loop_cert(&Loop { shift: "1/2", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NotIntegral(_), .. }), "{r}");
    // Divisor 64 with step 32 (the bound ⌊(n + 31)/64⌋ is 0 at n = 32, where the loop runs
    // once): the cut now gives only −2q ≤ 0, not q ≥ 1.
    let r = rej(&loop_cert(&Loop { div: 64, ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NotConstant(_), .. }), "{r}");
    // A tighter claimed form ⌊(n + 30)/32⌋ (0 at n = 1, where the loop runs once): the cut
    // gives only q ≥ 0.
    let r = rej(&loop_cert(&Loop { k: 30, ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::BadConstant(_), .. }), "{r}");
}

#[test]
fn floor_atoms_are_canonical() {
    // ⌊(2n + 2)/4⌋ = ⌊(n + 1)/2⌋; ⌊(n/2)/1⌋ = ⌊n/2⌋; ⌊(3n + 6)/3⌋ = max0(n + 2);
    // a constant form is evaluated (⌊7/2⌋ = 3, ⌊−1/2⌋⁺ = 0).
    let canon = |l: Lin, d: i64| Atom::Floor(l, d.into()).canonical();
    assert_eq!(canon(lin(2, &[(2, "n")]), 4), Ok((rat(1), Atom::Floor(lin(1, &[(1, "n")]), 2.into()))));
    let half = Lin::constant(rat(0)).add_scaled(&lin(0, &[(1, "n")]), &(rat(1) / rat(2)));
    assert_eq!(canon(half, 1), Ok((rat(1), Atom::Floor(lin(0, &[(1, "n")]), 2.into()))));
    assert_eq!(canon(lin(6, &[(3, "n")]), 3), Ok((rat(1), Atom::Max0(lin(2, &[(1, "n")])))));
    assert_eq!(canon(lin(7, &[]), 2), Err(rat(3)));
    assert_eq!(canon(lin(-1, &[]), 2), Err(rat(0)));
    // Equal atoms written differently merge into one term.
    let mut p = Poly::zero();
    p.add_term(rat(1), vec![Atom::Floor(lin(2, &[(2, "n")]), 4.into())]);
    p.add_term(rat(2), vec![Atom::Floor(lin(1, &[(1, "n")]), 2.into())]);
    assert_eq!(p.to_string(), "3*max(0, ⌊(n + 1)/2⌋)");
}

#[test]
fn cuts_round_only_integral_combinations() {
    // x − 1/2 ≤ 0 (i.e. 2x ≤ 1) gives the cut x ≤ 0 over the integers.
    let src = [Cstr::le(lin(-1, &[(2, "x")]))];
    let half = rat(1) / rat(2);
    assert_eq!(check_cut(&src, &[(0, half.clone())]), Ok(Cstr::le(lin(0, &[(1, "x")]))));
    // 2x − 1 ≤ 0 scaled by 1/4: x/2 − 1/4 is not integral on the left.
    let quarter = rat(1) / rat(4);
    assert!(matches!(check_cut(&src, &[(0, quarter)]), Err(FarkasProblem::NotIntegral(_))));
    // The defining facts of ⌊(n + 31)/32⌋: 32q − n − 31 ≤ 0 and n − 32q ≤ 0.
    let (arg, facts) = atom_arg(&Atom::Floor(lin(31, &[(1, "n")]), 32.into()), "q").unwrap();
    assert_eq!(arg, Lin::var("q"));
    assert_eq!(facts, vec![Cstr::le(lin(-31, &[(32, "q"), (-1, "n")])), Cstr::le(lin(0, &[(1, "n"), (-32, "q")]))]);
    // A floor form with a fractional coefficient has no integer defining facts.
    assert!(atom_arg(&Atom::Floor(lin(0, &[(1, "n")]).scale(&half), 2.into()), "q").is_err());
}

/// Q:WEAK around `sync` (steps): pre potential `pre_q`; the Q:SYNC child has pre `1 + inner`
/// and post `inner`, the node's post is `inner`; `rewrite_pre` must justify
/// `pre_q ≥ 1 + inner`.
fn weak(pre_q: &str, inner: &str, rewrite_pre: &str) -> String {
    let sync_pre = format!("(1) {inner}");
    let sync = snode("Q:SYNC", &assn(&launch(L), "", &sync_pre), &assn(&launch(L), "", inner), "");
    let d = snode(
        "Q:WEAK",
        &assn(&launch(L), "", pre_q),
        &assn(&launch(L), "", inner),
        &format!("(frame 0) (entail pre {}) (entail post {}) {rewrite_pre} {sync}", ids(0..6), ids(0..6)),
    );
    simple("steps", "(int p)", "(A global int 4)", "(int x)", "(sync)", pre_q, d).text()
}

#[test]
fn imono_between_floor_atoms() {
    // 1 + ⌊(p + 31)/32⌋⁺ ≥ 1 + ⌊p/32⌋⁺: q1 ≤ q0 from 32q1 ≤ p (source 8) and p ≤ 32q0
    // (source 7), both scaled by 1/32 (sources: 0–5 launch, 6–7 q0's facts, 8–9 q1's).
    let pre = "(1) (1 (floor (lin 31 (1 p)) 32))";
    let inner = "(1 (floor (lin 0 (1 p)) 32))";
    let mono = |w: &str| format!("(rewrite pre (imono (floor (lin 31 (1 p)) 32) (floor (lin 0 (1 p)) 32) {w}))");
    // without the rewrite, −⌊p/32⌋⁺ is left over
    assert!(matches!(rej(&weak(pre, inner, "")).reason, Reason::NotDominated { .. }));
    ok(&weak(pre, inner, &mono("(farkas (8 1/32) (7 1/32))")));
    // the other direction (⌊p/32⌋ ≥ ⌊(p + 31)/32⌋) is false at p = 1
    let back = "(rewrite pre (imono (floor (lin 0 (1 p)) 32) (floor (lin 31 (1 p)) 32) (farkas (8 1/32) (7 1/32))))";
    let r = rej(&weak("(1) (1 (floor (lin 0 (1 p)) 32))", "(1 (floor (lin 31 (1 p)) 32))", back));
    assert!(matches!(r.reason, Reason::Farkas { .. }), "{r}");
    // a changed multiplier
    let r = rej(&weak(pre, inner, &mono("(farkas (8 1/16) (7 1/32))")));
    assert!(matches!(r.reason, Reason::Farkas { .. }), "{r}");
}

/// `L` at the integer point `(x, y)`.
fn at(l: &Lin, x: i64, y: i64) -> warpcert_kernel::arith::Rat {
    let mut v = l.c.clone();
    for (name, a) in &l.terms {
        v += a * rat(if name == "x" { x } else { y });
    }
    v
}

/// The value of an atom at `(x, y)` (spec/logic.md §1: `max(0, L)`, `max(0, ⌊L/d⌋)`),
/// computed directly from the definition (rational floor of `L/d`).
fn atom_at(a: &Atom, x: i64, y: i64) -> warpcert_kernel::arith::Rat {
    let v = match a {
        Atom::Max0(l) => at(l, x, y),
        Atom::Floor(l, d) => (at(l, x, y) / warpcert_kernel::arith::Rat::from_integer(d.clone())).floor(),
        // max(0, ⌊L/D⌋) with a symbolic divisor (spec/logic.md §1 "Symbolic divisors")
        Atom::FloorSym(l, d) => (at(l, x, y) / at(d, x, y)).floor(),
        // ⌊log2 max(1, ⌊L⌋)⌋ (spec/logic.md §1 "Log atoms"): the k with 2^k ≤ ⌊L⌋ < 2^(k+1)
        Atom::Log(l) => {
            let z = at(l, x, y).floor();
            let (mut k, mut p) = (0, rat(2));
            while p <= z {
                k += 1;
                p *= rat(2);
            }
            rat(k)
        }
        // ⌊log2 max(1, ⌊⌊L⌋ / max(1, ⌊M⌋)⌋)⌋ (spec/logic.md §1 "Quotient log atoms"): the
        // largest k ≥ 0 with m·2^k ≤ ⌊L⌋, m = max(1, ⌊M⌋), or 0
        Atom::LogQ(l, m) => {
            let z = at(l, x, y).floor();
            let m = at(m, x, y).floor().max(rat(1));
            let mut k = 0;
            while m.clone() * rat(1 << (k + 1)) <= z {
                k += 1;
            }
            rat(k)
        }
        // [m ∤ L] (spec/logic.md §1 "Residue atoms"): 0 when L is an integer multiple of
        // m, else 1, from the definition (not the kernel's `res_value`)
        Atom::Res(l, m) => {
            let v = at(l, x, y);
            let m = warpcert_kernel::arith::Rat::from_integer(m.clone());
            if v.is_integer() && (v.clone() / m).is_integer() {
                rat(0)
            } else {
                rat(1)
            }
        }
        // [L mod m < w] (spec/logic.md §1 "Window atoms"): 1 when the least non-negative
        // residue of L modulo m lies in [0, w), from the definition (L has integer
        // coefficients there; not the kernel's `win_value`)
        Atom::Win(l, m, w) => {
            let v = at(l, x, y).floor();
            let m = warpcert_kernel::arith::Rat::from_integer(m.clone());
            let r = v.clone() - m.clone() * (v / m).floor();
            if r < warpcert_kernel::arith::Rat::from_integer(w.clone()) {
                rat(1)
            } else {
                rat(0)
            }
        }
    };
    if v < rat(0) {
        rat(0)
    } else {
        v
    }
}

const BOX: std::ops::RangeInclusive<i64> = -6..=6;

/// Random small forms over `x`, `y` and divisors (quickcheck's generator, bounded).
fn small(g: &mut quickcheck::Gen) -> i64 {
    i64::from(<i8 as quickcheck::Arbitrary>::arbitrary(g) % 7)
}

#[test]
fn property_canonical_floor_atoms_keep_their_value() {
    // For random `L = (a·x + b·y + c)/k` and `d`, the canonical atom times its factor has
    // the atom's value at every integer point of a box (the definition, evaluated exactly).
    fn prop(seed: u64) -> bool {
        let mut g = quickcheck::Gen::new(seed as usize % 50 + 10);
        let (a, b, c) = (small(&mut g), small(&mut g), small(&mut g) * 3);
        let k = small(&mut g).abs() + 1;
        let d = small(&mut g).abs() + 1;
        let l = lin(c, &[(a, "x"), (b, "y")]).scale(&(rat(1) / rat(k)));
        let atom = Atom::Floor(l, d.into());
        let canon = atom.canonical();
        BOX.flat_map(|x| BOX.map(move |y| (x, y))).all(|(x, y)| {
            let v = atom_at(&atom, x, y);
            match &canon {
                Ok((f, c)) => v == f * atom_at(c, x, y),
                Err(k) => v == *k,
            }
        })
    }
    quickcheck::QuickCheck::new().tests(200).quickcheck(prop as fn(u64) -> bool);
}

#[test]
fn property_cuts_hold_on_integer_points() {
    // Two random facts over x, y and random multipliers (halves, thirds): whenever the cut
    // is accepted, the constraint it derives holds at every integer point of the box that
    // satisfies both facts (brute force, independent of the kernel's reasoning).
    fn prop(seed: u64) -> bool {
        let mut g = quickcheck::Gen::new(seed as usize % 50 + 10);
        let src = [
            Cstr::le(lin(small(&mut g), &[(small(&mut g), "x"), (small(&mut g), "y")])),
            Cstr::le(lin(small(&mut g), &[(small(&mut g), "x"), (small(&mut g), "y")])),
        ];
        let m = |g: &mut quickcheck::Gen| rat(small(g).abs()) / rat(small(g).abs() % 3 + 1);
        let w = [(0, m(&mut g)), (1, m(&mut g))];
        let Ok(cut) = check_cut(&src, &w) else { return true };
        BOX.flat_map(|x| BOX.map(move |y| (x, y)))
            .filter(|&(x, y)| src.iter().all(|c| at(&c.lin, x, y) <= rat(0)))
            .all(|(x, y)| at(&cut.lin, x, y) <= rat(0))
    }
    quickcheck::QuickCheck::new().tests(300).quickcheck(prop as fn(u64) -> bool);
}
