//! Lower-bound certificates (spec/logic.md §4b, rules `L:*`, section `(lower W)`): a
//! hand-derived certificate for a counted loop and one for a stride-1 write, accepted with
//! role `lower` and relation `>=`, and mutants of every lower-bound part (a rule of the
//! wrong role, an access count above the warp's, an inequality rewrite, a raised bound, the
//! root post, the cut's rounding, the named warp), each rejected with its pinned message.

mod common;
use common::*;
use warpcert_kernel::{Reason, Role};

/// `i = 0; while (i < n) { A[i] = 0; i = i + 32; }`, sectors, block 32, warp 0.
/// Hand derivation: the rounds are `i = 0, 32, …` below `n`, `⌊(n + 31)/32⌋⁺` of them, and
/// each writes one address for all 32 lanes (the index `i` is uniform), one sector; the test
/// and the assignments cost 0 under `sectors`. So the warp costs exactly
/// `⌊(n + 31)/32⌋⁺` and the lower bound is that. The derivation is the upper one of
/// `tests/data/coq/floor_step32.sectors.cert` with `L:` rules, wrapped in an L:WEAK whose
/// `izero` proves the loop's exit potential 0 (`q = ⌊(n − i + 31)/32⌋`, `32q ≤ n − i + 31`
/// and `n − i ≤ 0` give the cut `q ≤ ⌈−31/32⌉ = 0`).
const STEP32: &str = include_str!("../../tests/data/lower/step32.sectors.lower.cert");

fn step32_with(from: &str, to: &str) -> String {
    mutant(STEP32, from, to)
}

#[test]
fn counted_loop_lower_bound_is_accepted_with_role_lower() {
    let v = ok(STEP32);
    assert_eq!(v.role, Role::Lower(0));
    assert_eq!(v.role.relation(), ">=");
    assert_eq!(v.bound, "max(0, ⌊(n + 31)/32⌋)");
    let shown = v.to_string();
    assert!(shown.contains("cost of warp 0 >= max(0, ⌊(n + 31)/32⌋)"), "{shown}");
    assert!(shown.contains("\nrole: lower"), "{shown}");
}

#[test]
fn upper_rule_in_lower_certificate_is_rejected() {
    let r = rej(&step32_with("(L:GWRITE ", "(Q:GWRITE "));
    assert_eq!(r.reason, Reason::WrongRole { certificate: "lower" });
    assert_eq!(r.reason.to_string(), "this rule may not occur in a lower-bound certificate (spec/logic.md §4b)");
}

#[test]
fn lower_rule_in_upper_certificate_is_rejected() {
    let upper = include_str!("../../tests/data/coq/floor_step32.sectors.cert");
    let r = rej(&upper.replacen("(Q:GWRITE ", "(L:GWRITE ", 1));
    assert_eq!(r.rule, "L:GWRITE");
    assert_eq!(r.reason, Reason::WrongRole { certificate: "upper" });
}

#[test]
fn access_count_above_the_warps_is_rejected() {
    // one address for the whole warp: N_W = 1
    let r = rej(&step32_with("(n 1)", "(n 2)"));
    assert_eq!(r.reason, Reason::AccessAbove { claimed: "2".into(), allowed: 1 });
    assert_eq!(r.reason.to_string(), "claimed access count 2 is above the named warp's count 1");
}

#[test]
fn raised_bound_is_rejected() {
    // the bound and the root potential doubled (the first two occurrences: the bound line
    // and the outer L:WEAK's pre): the loop only pays ⌊(n + 31)/32⌋⁺
    let t = STEP32.replacen("(poly (1 (floor (lin 31 (1 n)) 32)))", "(poly (2 (floor (lin 31 (1 n)) 32)))", 2);
    let r = rej(&t);
    assert_eq!(r.rule, "L:WEAK");
    assert!(matches!(r.reason, Reason::NotDominated { list: "pre", .. }), "{r}");
}

#[test]
fn inequality_rewrite_is_rejected() {
    let t = step32_with("(rewrite post (izero", "(rewrite post (mono (lin 0 (1 n)) (lin 0 (1 n)) (farkas)) (izero");
    let r = rej(&t);
    assert_eq!(r.reason, Reason::InequalityRewrite("post"));
    assert_eq!(
        r.reason.to_string(),
        "rewrite post: mono/imono is an inequality, a lower bound allows only equality rewrites"
    );
}

#[test]
fn nonzero_root_post_is_rejected() {
    // without the izero rewrite the root post must keep the exit potential
    let t = step32_with("(Q (poly)))", "(Q (poly (1 (floor (lin 31 (1 n) (-1 i)) 32)))))");
    let t = t.replacen(
        " (rewrite post (izero (floor (lin 31 (1 n) (-1 i)) 32) (cg (cut (6 1/32) (7 1/32)) (farkas (9 1)))))",
        "",
        1,
    );
    let r = rej(&t);
    assert_eq!(r.reason, Reason::LowerPostNotZero("max(0, ⌊(n - i + 31)/32⌋)".into()));
}

#[test]
fn wrong_rounding_in_the_cut_is_rejected() {
    let r = rej(&step32_with("(cut (6 1/32) (7 1/32))", "(cut (6 1/16) (7 1/32))"));
    assert_eq!(r.rule, "L:WEAK");
    assert!(matches!(r.reason, Reason::Farkas { .. }), "{r}");
}

#[test]
fn missing_warp_is_rejected() {
    let r = rej(&step32_with("(lower 0)", "(lower 1)"));
    assert_eq!(r.reason, Reason::NoSuchWarp { warp: 1, threads: 32 });
    assert_eq!(r.reason.to_string(), "warp 1 does not exist in a block of 32 threads");
}

/// `A[threadIdx.x] = 0` (4-byte int) in a block of 64, warp `w`, sectors. Hand derivation:
/// the lanes of warp 1 write bytes 128 … 255 (array aligned, `aligned` assumption): sectors
/// 4 … 7, four sectors, at cost 4; the index's entry `(dep 1 0 0 0 0)` is exact, so only
/// `β = 0` is enumerated.
fn stride1(warp: u32, n: u32, bound: u32) -> String {
    let p = launch([64, 1, 1]);
    let pre = assn(&p, "", &format!("({bound})"));
    let post = assn(&p, "", "");
    let d = snode("L:GWRITE", &pre, &post, &format!("(n {n}) (OQ:TID (cost 0)) (OQ:CONST (cost 0))"));
    format!(
        "warpcert-certificate 1\n(metric sectors)\n(hardware 32 32 4 32)\n(launch 64 1 1)\n(lower {warp})\n\
         (program k (params) (arrays (A global int 4)) (locals) (body (write A (tid x) (int 0))))\n\
         (bound (poly ({bound})))\n(derivation {d})\n"
    )
}

#[test]
fn stride_one_write_is_four_sectors_for_each_warp() {
    for w in [0, 1] {
        let v = ok(&stride1(w, 4, 4));
        assert_eq!((v.role, v.bound.as_str()), (Role::Lower(w), "4"));
    }
    // a lane more than the warp has sectors: five would need an unaligned base
    let r = rej(&stride1(1, 5, 5));
    assert_eq!(r.reason, Reason::AccessAbove { claimed: "5".into(), allowed: 4 });
    // the claimed count must pay the bound: 3 sectors do not give 4
    let r = rej(&stride1(1, 3, 4));
    assert_eq!(r.rule, "L:GWRITE");
    assert!(matches!(r.reason, Reason::Differs { .. }), "{r}");
}
