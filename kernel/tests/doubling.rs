//! Quotient log atoms `⌊log2 (L/M)⌋⁺` (spec/logic.md §1 "Quotient log atoms", issue 15
//! doubling loops): the halving bounding substitution of Q:VWRITE1 applies in the bound form
//! `L` and is refused when the divisor form `M` mentions the assigned variable (hand-written
//! certificates); the value, the canonical form and the `ldouble` equality checked on
//! integer points against the definition.

mod common;
use common::*;
use warpcert_kernel::arith::{log2q_floor, rat, Atom, Lin, Rat};
use warpcert_kernel::Reason;

/// `i = gridDim.x >> 1` under `sectors` (cost 0), the root Q:VWRITE1 with the halving
/// bounding substitution (spec/logic.md §4 "Halving"; `A = gridDim.x ≥ 1` is launch fact 6,
/// the last `post` witness). `post_q`, `pre_q`: the potentials after and before.
fn halve_cert(pre_q: &str, post_q: &str) -> String {
    let p = format!("{}(le (lin 1 (-1 gridDim.x)))", launch([32, 1, 1]));
    let root = snode(
        "Q:VWRITE1",
        &assn(&p, "(dep i 0 0 0 0 0)", pre_q),
        &assn(&p, "(dep i 0 0 0 0 1)", post_q),
        &format!("(entail post {} (farkas (6 1))) (EQ:OP (cost 0) (OQ:PARAM (cost 0)) (OQ:CONST (cost 0)))", ids(0..7)),
    );
    simple(
        "sectors",
        "(int gridDim.x)",
        "(A global int 4)",
        "(int i)",
        "(assign i (bin >> (param gridDim.x) (int 1)))",
        pre_q,
        root,
    )
    .text()
}

/// Hand derivation: after `i = ⌊g/2⌋` (`g = gridDim.x ≥ 1`) the atom `⌊log2 (i/g)⌋⁺` is at
/// most its bound form with `i ← g/2` (`L` monotone): `⌊log2 ((g/2)/g)⌋⁺`, accepted. With
/// `i` in the divisor form the atom `⌊log2 (g/i)⌋⁺` is antitone in `i`; the substitution
/// `i ← g − 1` that a `max0` atom rising with `i` gets would give `⌊log2 (g/(g − 1))⌋⁺`,
/// which is 0 at `g = 4` while the atom after the assignment is `⌊log2 (4/2)⌋ = 1`: the
/// kernel refuses the substitution (`SubstUndefined`).
#[test]
fn halving_bounds_the_bound_form_and_refuses_the_divisor_form() {
    let v = ok(&halve_cert(
        "(1 (log2q (lin 0 (1/2 gridDim.x)) (lin 0 (1 gridDim.x))))",
        "(1 (log2q (lin 0 (1 i)) (lin 0 (1 gridDim.x))))",
    ));
    assert_eq!(v.bound, "⌊log2(max(1, 1/2*gridDim.x)/max(1, gridDim.x))⌋");
    let r = rej_msg(
        &halve_cert(
            "(1 (log2q (lin 0 (1 gridDim.x)) (lin -1 (1 gridDim.x))))",
            "(1 (log2q (lin 0 (1 gridDim.x)) (lin 0 (1 i))))",
        ),
        "substitution for `i` needs a linear right-hand side",
    );
    assert!(matches!(&r.reason, Reason::SubstUndefined(x) if x == "i"), "{r}");
    // the unsoundness the refusal prevents, at g = 4
    let after = log2q_floor(&rat(4), &rat(4 / 2));
    let claimed = log2q_floor(&rat(4), &rat(4 - 1));
    assert_eq!((after, claimed), (1.into(), 0.into()));
}

/// The largest `k ≥ 0` with `m·2^k ≤ l` for `m = max(1, ⌊M⌋)`, `l = ⌊L⌋`, else 0 (the
/// definition, by counting).
fn by_definition(l: &Rat, m: &Rat) -> i64 {
    let (z, m) = (l.floor(), m.floor().max(rat(1)));
    let mut k = 0;
    while m.clone() * rat(1 << (k + 1)) <= z {
        k += 1;
    }
    k
}

/// Hand values: `⌊log2 (5000/1)⌋ = 12`, `⌊log2 (9998/1)⌋ = 13` (the doubling kernel's entry
/// atom at n = 5000: 13 rounds), `⌊log2 (20/3)⌋ = 2`, `⌊log2 (7/4)⌋ = 0`, negatives 0; and on
/// a box the kernel's value is the definition, a constant divisor form canonicalizes to the
/// log atom of `L / max(1, ⌊M⌋)` with the same value, and `ldouble`'s equality
/// `v(L, M) = 1 + v(L, 2M)` holds wherever `M ≥ 1` and `2M ≤ L` (Coq `Log.ldouble_sound`).
#[test]
fn quotient_log_atoms_have_their_defined_values() {
    for (l, m, want) in [(5000, 1, 12), (9998, 1, 13), (20, 3, 2), (7, 4, 0), (-5, 1, 0), (8, -3, 3), (8, 0, 3)] {
        assert_eq!(log2q_floor(&rat(l), &rat(m)), want.into(), "{l}/{m}");
        assert_eq!(by_definition(&rat(l), &rat(m)), want, "{l}/{m}");
    }
    let half = rat(1) / rat(2);
    for l2 in -8..=80i64 {
        let l = rat(l2) * &half;
        for m in -3..=12i64 {
            let m = rat(m);
            assert_eq!(log2q_floor(&l, &m), by_definition(&l, &m).into(), "{l}/{m}");
            if m >= rat(1) && rat(2) * &m <= l {
                assert_eq!(log2q_floor(&l, &m), log2q_floor(&l, &(rat(2) * &m)) + 1, "ldouble at {l}/{m}");
            }
            // a constant divisor form: canonical log atom of L/max(1, ⌊M⌋), same value
            // (the form `x + L` at x = 0)
            let form = Lin::var("x").add_scaled(&Lin::constant(l.clone()), &rat(1));
            let atom = Atom::LogQ(form, Lin::constant(m.clone()));
            let canon = atom.canonical().expect("not constant");
            let Atom::Log(f) = &canon.1 else { panic!("{canon:?}") };
            assert_eq!(
                Rat::from_integer(warpcert_kernel::arith::log2_floor(&f.c)) * &canon.0,
                Rat::from_integer(log2q_floor(&l, &m)),
                "{atom}"
            );
        }
    }
}
