//! Symbolic floor atoms `⌊L/D⌋⁺ = max(0, ⌊L/D⌋)` whose divisor `D` is a launch form over
//! `gridDim.x|y|z` (spec/logic.md §1 "Symbolic divisors", spec/certificate.md `(floors LIN
//! DLIN)` and "Integer rewrites"): a hand-written certificate for the grid-stride loop
//! `for (i = 32·blockIdx.x; i < n; i += 32·gridDim.x)` proving the exact per-block bound
//! `⌊(n + 32·gridDim.x − 1)/(32·gridDim.x)⌋⁺`, and mutants of every new part (divisor
//! variables and coefficients, canonical form, shift, targets, mixed `imono`), rejected by
//! message.

mod common;
use common::*;
use warpcert_kernel::arith::{floors_canonical, rat, Atom, FarkasProblem, Lin};
use warpcert_kernel::printed::{check_printed, PrintedProblem};
use warpcert_kernel::Reason;

fn lin(c: i64, terms: &[(i64, &str)]) -> Lin {
    let mut l = Lin::constant(rat(c));
    for (a, v) in terms {
        l.add_term(v, &rat(*a));
    }
    l
}

/// The parts of the certificate that the mutants change.
#[derive(Clone, Copy)]
struct Grid<'a> {
    /// The divisor `DLIN` of every symbolic atom.
    div: &'a str,
    /// The invariant's form `L` (the loop's `⌊L/D⌋⁺`), written `(lin …)`.
    inv: &'a str,
    /// The form after the `ishift` (`L − K·D`).
    after: &'a str,
    /// The `ishift` amount `K`.
    shift: &'a str,
    /// The `ishift` witness (target `K·D − L ≤ 0`).
    shift_w: &'a str,
    /// The body's `imono` (from the shifted atom to the atom the step leaves).
    body_mono: &'a str,
}

const DIV: &str = "(lin 0 (32 gridDim.x))";
const INV: &str = "(lin -1 (1 n) (-1 i) (32 gridDim.x))";

const GOOD: Grid = Grid {
    div: DIV,
    inv: INV,
    after: "(lin -1 (1 n) (-1 i))",
    shift: "1",
    // K·D − L = 32G − (n − i + 32G − 1) = i − n + 1: the loop condition (source 10)
    shift_w: "(farkas (10 1))",
    // L2 − L1 = (n − i − s + 32G − 1) − (n − i − 1) = 32G − s: −1 × (s − 32G = 0), source 9
    body_mono: "(farkas (9 -1))",
};

/// Launch facts for block 32 with the parameters `blockIdx.x`, `gridDim.x` (spec/logic.md
/// §5, kernel `launch_facts` order): 0–5 thread bounds, 6 `blockIdx.x ≥ 0`,
/// 7 `gridDim.x ≥ 1`, 8 `blockIdx.x ≤ gridDim.x − 1`.
fn launch9() -> String {
    format!(
        "{} (le (lin 0 (-1 blockIdx.x))) (le (lin 1 (-1 gridDim.x))) (le (lin 1 (1 blockIdx.x) (-1 gridDim.x)))",
        launch([32, 1, 1])
    )
}

/// `s = 32*gridDim.x; i = 32*blockIdx.x; while (i < n) { A[i] = 0; i = i + s; }` under
/// `sectors` (block 32): the index is uniform, so every round writes one sector; the rest
/// costs 0. Hand derivation: block `b` of a grid of `G` blocks visits `i = 32b + 32G·k < n`,
/// i.e. `⌈(n − 32b)/(32G)⌉⁺ = ⌊(n − 32b + 32G − 1)/(32G)⌋⁺` rounds, at most
/// `⌊(n + 32G − 1)/(32G)⌋⁺` (block 0), the bound. At `G = 1` it is `⌈n/32⌉`, at `G = 4`,
/// `n = 1000`: `⌊1127/128⌋ = 8` (block 0 visits 0, 128, …, 896). The invariant is
/// `F = ⌊(n − i + 32G − 1)/(32G)⌋⁺`; the body's Q:WEAK shifts it by one round
/// (`ishift … 1`: `L ≥ 1·D` is `i < n`), leaving `⌊(n − i − 1)/(32G)⌋⁺`, and `imono` reaches
/// the atom the step leaves, `⌊(n − i − s + 32G − 1)/(32G)⌋⁺`, from `s = 32G`. At the
/// entry `imono` bounds `⌊(n − 32·blockIdx.x + 32G − 1)/(32G)⌋⁺` by the bound
/// (`blockIdx.x ≥ 0`). Sources: 0–8 launch, 9 `s − 32G = 0`, 10 `i − n + 1 ≤ 0` (body).
fn grid_cert(m: &Grid) -> String {
    let atom = |l: &str| format!("(floors {l} {})", m.div);
    let term = |l: &str| format!("(1 {})", atom(l));
    let f = term(m.inv);
    let stepped = "(lin -1 (1 n) (-1 i) (-1 s) (32 gridDim.x))";
    let g1 = term(stepped);
    let bound_l = "(lin -1 (1 n) (32 gridDim.x))";
    let bound = term(bound_l);
    let entry_l = "(lin -1 (1 n) (-32 blockIdx.x) (32 gridDim.x))";
    let entry = term(entry_l);
    let l9 = launch9();
    let ps = format!("{l9} (eq (lin 0 (1 s) (-32 gridDim.x)))");
    let pe = format!("{ps} (le (lin 1 (1 i) (-1 n)))");
    let px = format!("{ps} (le (lin 0 (1 n) (-1 i)))");
    let d0 = "(dep i 0 0 0 0 0) (dep s 0 0 0 0 0)";
    let d1 = "(dep i 0 0 0 0 0) (dep s 0 0 0 0 1)";
    let d = "(dep i 0 0 0 0 1) (dep s 0 0 0 0 1)";
    let write = snode(
        "Q:GWRITE",
        &assn(&pe, d, &format!("(1) {g1}")),
        &assn(&pe, d, &g1),
        "(n 1) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))",
    );
    let step = snode(
        "Q:VWRITE1",
        &assn(&pe, d, &g1),
        &assn(&ps, d, &f),
        &format!("(entail post {}) (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:VAR (cost 0)))", ids(0..10)),
    );
    let body = snode("Q:SEQ", &assn(&pe, d, &format!("(1) {g1}")), &assn(&ps, d, &f), &format!("{write} {step}"));
    let weak = snode(
        "Q:WEAK",
        &assn(&pe, d, &f),
        &assn(&ps, d, &f),
        &format!(
            "(entail pre {}) (entail post {}) (rewrite pre (ishift {} {} {}) (imono {} {} {})) {body}",
            ids(0..11),
            ids(0..10),
            atom(m.inv),
            m.shift,
            m.shift_w,
            atom(m.after),
            atom(stepped),
            m.body_mono
        ),
    );
    let cond = "(EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:PARAM (cost 0)))";
    let lp = snode("Q:WHILE1", &assn(&ps, d, &f), &assn(&px, d, &f), &format!("{cond} {weak}"));
    let init_i = snode(
        "Q:VWRITE1",
        &assn(&ps, d1, &entry),
        &assn(&ps, d, &f),
        &format!("(entail post {}) (EQ:OP (cost 0) (OQ:CONST (cost 0)) (OQ:PARAM (cost 0)))", ids(0..10)),
    );
    // the entry: ⌊(n + 32G − 1)/(32G)⌋⁺ ≥ ⌊(n − 32·blockIdx.x + 32G − 1)/(32G)⌋⁺, target
    // L2 − L1 = −32·blockIdx.x ≤ 0: 32 × source 6
    let init_w = snode(
        "Q:WEAK",
        &assn(&ps, d1, &bound),
        &assn(&ps, d, &f),
        &format!(
            "(entail pre {}) (entail post {}) (rewrite pre (imono {} {} (farkas (6 32)))) {init_i}",
            ids(0..10),
            ids(0..10),
            atom(bound_l),
            atom(entry_l)
        ),
    );
    let tail = snode("Q:SEQ", &assn(&ps, d1, &bound), &assn(&px, d, &f), &format!("{init_w} {lp}"));
    let init_s = snode(
        "Q:VWRITE1",
        &assn(&l9, d0, &bound),
        &assn(&ps, d1, &bound),
        &format!("(entail post {} (farkas)) (EQ:OP (cost 0) (OQ:CONST (cost 0)) (OQ:PARAM (cost 0)))", ids(0..9)),
    );
    let root = snode("Q:SEQ", &assn(&l9, d0, &bound), &assn(&px, d, &f), &format!("{init_s} {tail}"));
    let prog = "(seq (assign s (bin * (int 32) (param gridDim.x))) (assign i (bin * (int 32) (param blockIdx.x))) (while (bin < (var i) (param n)) (seq (write A (var i) (int 0)) (assign i (bin + (var i) (var s))))))";
    simple(
        "sectors",
        "(int n) (int blockIdx.x) (int gridDim.x)",
        "(A global int 4)",
        "(int i) (int s)",
        prog,
        &bound,
        root,
    )
    .text()
}

#[test]
fn grid_stride_symbolic_floor_bound_is_accepted() {
    let v = ok(&grid_cert(&GOOD));
    assert_eq!(v.bound, "max(0, ⌊(32*gridDim.x + n - 1)/(32*gridDim.x)⌋)");
}

#[test]
fn divisor_mutants_are_rejected_by_message() {
    for (div, pinned) in [
        // a divisor over a non-launch variable (n could be 0 or negative)
        ("(lin 0 (32 n))", "over gridDim.x, gridDim.y and gridDim.z only"),
        // a zero coefficient is no coefficient: the divisor is the constant 0 …
        ("(lin 0 (0 gridDim.x))", "mentions a grid dimension"),
        // … a negative one makes D ≤ −1
        ("(lin 0 (-32 gridDim.x))", "positive integer coefficients"),
        // a fractional one
        ("(lin 0 (1/2 gridDim.x))", "positive integer coefficients"),
        // a negative constant (D = 32G − 32 is 0 at G = 1)
        ("(lin -32 (32 gridDim.x))", "integer constant ≥ 0"),
        // a constant divisor is `(floor LIN C)`
        ("(lin 32)", "mentions a grid dimension"),
    ] {
        rej_msg(&grid_cert(&Grid { div, ..GOOD }), pinned);
    }
}

#[test]
fn non_canonical_atoms_are_rejected_by_message() {
    // ⌊(2L)/(2D)⌋: the gcd of L and D together is 2
    let twice = Grid { div: "(lin 0 (64 gridDim.x))", inv: "(lin -2 (2 n) (-2 i) (64 gridDim.x))", ..GOOD };
    rej_msg(&grid_cert(&twice), "a canonical symbolic floor atom");
    // the canonical form divides through by the common gcd
    let (l, d) = floors_canonical(&lin(-2, &[(2, "n"), (64, "gridDim.x")]), &lin(0, &[(64, "gridDim.x")]));
    assert_eq!((l, d), (lin(-1, &[(1, "n"), (32, "gridDim.x")]), lin(0, &[(32, "gridDim.x")])));
}

#[test]
fn shift_and_target_mutants_are_rejected() {
    // shifting by 2 needs L ≥ 2·D, i.e. i + 32G − n + 1 ≤ 0: not from i < n
    let r = rej(&grid_cert(&Grid { shift: "2", after: "(lin -1 (1 n) (-1 i) (-32 gridDim.x))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NotConstant(_), .. }), "{r}");
    // a fractional shift
    let r = rej(&grid_cert(&Grid { shift: "1/2", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NotIntegral(_), .. }), "{r}");
    // the constant-divisor target `1 − L ≤ 0` (witness for L ≥ 1, not L ≥ D): with the
    // loop condition the residual keeps −32·gridDim.x + … — the target is K·D − L
    let r = rej(&grid_cert(&Grid { shift_w: "(farkas (10 1) (7 -32))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { .. }), "{r}");
    // the shifted atom is ⌊(L − D)/D⌋⁺ = ⌊(n − i − 1)/(32G)⌋⁺; naming ⌊(n − i)/(32G)⌋⁺ in
    // the imono replaces nothing, and the step's atom is left unpaid
    let r = rej(&grid_cert(&Grid { after: "(lin 0 (1 n) (-1 i))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::NotDominated { .. }), "{r}");
    // the body's imono in the wrong direction (witness +1 instead of −1 on s − 32G = 0)
    let r = rej(&grid_cert(&Grid { body_mono: "(farkas (9 1))", ..GOOD }));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NotConstant(_), .. }), "{r}");
}

/// Q:WEAK around `sync` (steps) with parameters `n`, `gridDim.x`: pre potential `pre_q`,
/// the child's `1 + inner`, and `rewrite_pre` justifying `pre_q ≥ 1 + inner` (sources 0–5
/// thread bounds, 6 `gridDim.x ≥ 1`).
fn weak(pre_q: &str, inner: &str, rewrite_pre: &str) -> String {
    let p = format!("{} (le (lin 1 (-1 gridDim.x)))", launch([32, 1, 1]));
    let sync_pre = format!("(1) {inner}");
    let sync = snode("Q:SYNC", &assn(&p, "", &sync_pre), &assn(&p, "", inner), "");
    let d = snode(
        "Q:WEAK",
        &assn(&p, "", pre_q),
        &assn(&p, "", inner),
        &format!("(frame 0) (entail pre {}) (entail post {}) {rewrite_pre} {sync}", ids(0..7), ids(0..7)),
    );
    simple("steps", "(int n) (int gridDim.x)", "(A global int 4)", "(int x)", "(sync)", pre_q, d).text()
}

#[test]
fn imono_needs_the_same_symbolic_divisor() {
    // ⌊(n + 31)/32⌋⁺ vs ⌊(n + 32G − 1)/(32G)⌋⁺: the latter is smaller at G ≥ 2 but a mixed
    // constant/symbolic imono is refused whatever the witness
    let sym = "(floors (lin -1 (1 n) (32 gridDim.x)) (lin 0 (32 gridDim.x)))";
    let con = "(floor (lin 31 (1 n)) 32)";
    let pre = format!("(1) (1 {con})");
    let inner = format!("(1 {sym})");
    let same_divisor = "needs another with the same divisor";
    rej_msg(&weak(&pre, &inner, &format!("(rewrite pre (imono {con} {sym} (farkas)))")), same_divisor);
    rej_msg(
        &weak(&format!("(1) {inner}"), &format!("(1 {con})"), &format!("(rewrite pre (imono {sym} {con} (farkas)))")),
        same_divisor,
    );
    // two symbolic atoms with different divisors
    let sym2 = "(floors (lin -1 (1 n) (64 gridDim.x)) (lin 0 (64 gridDim.x)))";
    rej_msg(
        &weak(&format!("(1) {inner}"), &format!("(1 {sym2})"), &format!("(rewrite pre (imono {sym} {sym2} (farkas)))")),
        same_divisor,
    );
    // izero: ⌊(32G − 1)/(32G)⌋ = 0 needs L ≤ D − 1, the target (32G − 1) − 32G + 1 = 0 ≤ 0:
    // accepted with the empty witness; ⌊(n + 32G)/(32G)⌋ ≥ 1 for n ≥ 0 is not zeroed
    let zero_atom = "(floors (lin -1 (32 gridDim.x)) (lin 0 (32 gridDim.x)))";
    ok(&weak(&format!("(1) (1 {zero_atom})"), "", &format!("(rewrite pre (izero {zero_atom} (farkas)))")));
    let bad_zero = "(floors (lin 0 (1 n) (32 gridDim.x)) (lin 0 (32 gridDim.x)))";
    let r = rej(&weak(&format!("(1) (1 {bad_zero})"), "", &format!("(rewrite pre (izero {bad_zero} (farkas)))")));
    assert!(matches!(&r.reason, Reason::Farkas { problem: FarkasProblem::NotConstant(_), .. }), "{r}");
}

#[test]
fn printed_symbolic_floor_atoms_read_back() {
    let mut b = warpcert_kernel::arith::Poly::zero();
    let l = lin(-1, &[(1, "n"), (32, "gridDim.x")]);
    let d = lin(0, &[(32, "gridDim.x")]);
    b.add_term(rat(8), vec![Atom::FloorSym(l, d)]);
    assert_eq!(check_printed("8*max(0, ⌊(n + 32*gridDim.x - 1)/(32*gridDim.x)⌋)", &b), Ok(()));
    assert_eq!(check_printed("8*⌊(n + 32*gridDim.x - 1)/(32*gridDim.x)⌋⁺", &b), Ok(()));
    // multiplied through by 2: the same canonical atom
    assert_eq!(check_printed("8*⌊(2*n + 64*gridDim.x - 2)/(64*gridDim.x)⌋⁺", &b), Ok(()));
    // a divisor over n is not a launch form
    assert!(matches!(check_printed("8*⌊(n - 1)/(32*n)⌋⁺", &b), Err(PrintedProblem::BadSymbolicDivisor { .. })));
    // a different divisor is a different bound
    assert!(matches!(
        check_printed("8*⌊(n + 32*gridDim.x - 1)/(16*gridDim.x)⌋⁺", &b),
        Err(PrintedProblem::Differs { .. })
    ));
}
