//! Scaled dependence entries `(dep x kx ? kz r g)` (spec/logic.md §1, §2 "Scaled entries",
//! "Access bounds"; issue 15 item 2, warps that span rows): accepted and rejected on small
//! hand-written certificates. Costs are hand-derived from spec/metrics.md: under `sectors`
//! every cost is 0 except `M^gread(n) = M^gwrite(n) = n`; under `conflicts` only
//! `M^sread(n) = M^swrite(n) = n − 1`.

mod common;
use common::*;
use warpcert_kernel::Reason;

/// `t ← threadIdx.y * W; t ← t + threadIdx.x; A[t] ← 1` in a 16×16 block, `W` a parameter:
/// each warp holds two rows of 16 lanes.
struct Rows<'a> {
    /// The entry claimed for `t` after the first assignment.
    d1: &'a str,
    /// The entry claimed for `t` after the second assignment.
    d2: &'a str,
    /// The access count claimed for the write.
    n: u32,
    /// `global` (metric `sectors`) or `shared` (metric `conflicts`).
    space: &'a str,
    /// The first assignment's right-hand side.
    rhs1: &'a str,
}

impl Default for Rows<'_> {
    fn default() -> Self {
        Rows {
            d1: "(dep t 0 ? 0 0 0)",
            d2: "(dep t 1 ? 0 0 0)",
            n: 6,
            space: "global",
            rhs1: "(bin * (tid y) (param W))",
        }
    }
}

impl Rows<'_> {
    fn text(&self) -> String {
        let l = launch([16, 16, 1]);
        let (metric, cost) = if self.space == "global" { ("sectors", self.n) } else { ("conflicts", self.n - 1) };
        let q = format!("({cost})");
        let d0 = "(dep t 0 0 0 0 0)";
        let c1 = snode(
            "Q:VWRITE2",
            &assn(&l, d0, &q),
            &assn(&l, self.d1, &q),
            &format!("(entail post {}) (EQ:OP (cost 0) (OQ:TID (cost 0)) (OQ:PARAM (cost 0)))", ids(0..6)),
        );
        let c2 = snode(
            "Q:VWRITE2",
            &assn(&l, self.d1, &q),
            &assn(&l, self.d2, &q),
            &format!("(entail post {}) (EQ:OP (cost 0) (OQ:VAR (cost 0)) (OQ:TID (cost 0)))", ids(0..6)),
        );
        let w = snode(
            "Q:GWRITE",
            &assn(&l, self.d2, &q),
            &assn(&l, self.d2, "(0)"),
            &format!("(n {}) (OQ:VAR (cost 0)) (OQ:CONST (cost 0))", self.n),
        );
        let w = if self.space == "global" { w } else { w.replacen("Q:GWRITE", "Q:SWRITE", 1) };
        let inner = snode("Q:SEQ", &assn(&l, self.d1, &q), &assn(&l, self.d2, "(0)"), &format!("{c2} {w}"));
        let root = snode("Q:SEQ", &assn(&l, d0, &q), &assn(&l, self.d2, "(0)"), &format!("{c1} {inner}"));
        let body = format!(
            "(seq (assign t {}) (seq (assign t (bin + (var t) (tid x))) (write A (var t) (int 1))))",
            self.rhs1
        );
        let arrays = format!("(A {} int 4)", self.space);
        let mut c = simple(metric, "(int W)", &arrays, "(int t)", &body, &q, root);
        c.block = [16, 16, 1];
        c.text()
    }
}

/// Hand count: a warp holds rows `2w` and `2w + 1`, 16 lanes each, 16 consecutive 4-byte
/// elements = 64 bytes from an unknown base (a multiple of 4 bytes): at most 3 sectors per
/// row (2 when the row starts on a 32-byte boundary), 6 per warp — the lanes' own count
/// without the entry is 32.
#[test]
fn rows_are_counted_separately() {
    assert_eq!(ok(&Rows::default().text()).bound, "6");
    let r = rej(&Rows { n: 5, ..Default::default() }.text());
    assert_eq!(r.reason, Reason::AccessBound { claimed: "5".into(), required: 6 });
}

/// Shared memory: within a row the 16 lanes hit 16 distinct banks (1 per bank); the two
/// rows may share every bank (`W ≡ 0 mod 32`), so 2 distinct addresses in the fullest bank.
#[test]
fn rows_in_shared_memory_add_their_bank_counts() {
    assert_eq!(ok(&Rows { n: 2, space: "shared", ..Default::default() }.text()).bound, "1");
    let r = rej(&Rows { n: 1, space: "shared", ..Default::default() }.text());
    assert_eq!(r.reason, Reason::AccessBound { claimed: "1".into(), required: 2 });
}

/// The wrong `?` dimension, a known coefficient in place of `?`, a wrong known coefficient
/// and a linear entry are not implied by `scaled_D`; without any entry the write counts
/// one sector per lane (32).
#[test]
fn wrong_scaled_entries_are_rejected() {
    // (0 ? 0 0 1) is implied by (0 ? 0 0 0), but then `t + threadIdx.x` is (1 ? 0 0 1),
    // which does not imply the claimed (1 ? 0 0 0).
    for d1 in ["(dep t ? 0 0 0 0)", "(dep t 0 1 0 0 0)", "(dep t 0 ? 0 0 1)"] {
        let r = rej(&Rows { d1, ..Default::default() }.text());
        assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{d1}: {r}");
    }
    for d2 in ["(dep t 2 ? 0 0 0)", "(dep t 1 0 0 0 1)", "(dep t 1 ? ? 0 0)"] {
        let r = rej(&Rows { d2, ..Default::default() }.text());
        assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{d2}: {r}");
    }
    // `t` without an entry after the assignments: N* = 32 lanes.
    let r = rej(&Rows { d2: "", ..Default::default() }.text());
    assert_eq!(r.reason, Reason::AccessBound { claimed: "6".into(), required: 32 });
}

/// `threadIdx.y * threadIdx.x` has no scaled entry (neither side is uniform), and a `?` in
/// a remainder entry is a syntax error.
#[test]
fn products_of_thread_values_and_malformed_entries() {
    let r = rej(&Rows { rhs1: "(bin * (tid y) (tid x))", ..Default::default() }.text().replacen(
        "(OQ:TID (cost 0)) (OQ:PARAM (cost 0))",
        "(OQ:TID (cost 0)) (OQ:TID (cost 0))",
        1,
    ));
    assert!(matches!(r.reason, Reason::DepNotImplied { .. }), "{r}");
    let r = rej(&Rows { d1: "(rem t 0 ? 0 0 2)", ..Default::default() }.text());
    assert!(matches!(r.reason, Reason::Syntax { .. }), "{r}");
}
