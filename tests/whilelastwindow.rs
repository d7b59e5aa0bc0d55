//! Q:WHILELASTWINDOW and the window atom `[L mod m < w]` (spec/logic.md §1 "Window atoms",
//! §4; issue 15): `tests/precision/nest_entry_stride.cu` `divwarps`. The outer loop is
//! unrolled (8 copies, `i = threadIdx.x + 32k`), and copy `k`'s inner loop
//! `for (j = i; j < n; j += 256)` is charged its one split as
//! `[(n − 32k − 1) mod 256 < 31]` instead of Q:WHILELASTALIGN's `[32 ∤ n]` in every copy
//! (before: `287/32·[32 ∤ n]`, 8.97 times the truth). The export to Coq is checked by
//! `coqc` (Lin.KWin, Check.v's DWhileLastWindow), with three refuted mutants.

mod common;

use common::warp32::simulated;
use std::collections::BTreeMap;
use warpcert::core::metric::Q;
use warpcert::core::MetricName;

fn src() -> String {
    let path = format!(
        "{}/tests/precision/nest_entry_stride.cu",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The hand derivation (one warp, lanes `l = 0 … 31`): in outer round `k` the inner test
/// `l + 32k + 256t < n` has the lanes `l < n − 32u` pass, `u = k + 8t` (each `u ≥ 0` once
/// over the whole run); the warp splits exactly when `1 ≤ n − 32u ≤ 31`, i.e. at
/// `u = ⌊n/32⌋` when `32 ∤ n` and `n ≥ 1`. After that split the passing lanes run one
/// more round and all fail (`n − 32(u + 8) < 0`): no other split. So `divwarps` is
/// `[n ≥ 1 ∧ 32 ∤ n]`, and the split is in copy `k = ⌊n/32⌋ mod 8`.
fn hand(n: i64) -> i64 {
    i64::from(n >= 1 && n % 32 != 0)
}

/// The certificate uses Q:WHILELASTWINDOW and window atoms, the kernel accepts it, and the
/// bound equals the hand count and the lock-step run at every tested `n ≥ 0` (multiples of
/// 32 and 256, their neighbours, and every copy `k` holding the split); at `n < 0` the
/// bound is `[32 ∤ n]` (the window atoms are periodic), above the lock-step 0.
#[test]
fn nest_entry_stride_divwarps_is_the_lock_step_count() {
    let s = src();
    let a = common::precision_one_block("nest_entry_stride", MetricName::Divwarps);
    assert!(
        a.certificate.contains("(Q:WHILELASTWINDOW "),
        "no Q:WHILELASTWINDOW"
    );
    assert!(a.certificate.contains("(inwin "), "no window atom");
    assert_eq!(
        a.certificate.matches("(Q:WHILELASTWINDOW ").count(),
        8,
        "one per unrolled copy"
    );
    warpcert_kernel::check(&a.certificate).unwrap_or_else(|r| panic!("rejected: {r:?}"));
    let points = [
        0i64, 1, 2, 31, 32, 33, 63, 64, 65, 100, 127, 200, 255, 256, 257, 287, 300, 480, 511, 512,
        1000, 1023, 1024, 1100,
    ];
    for n in points {
        let at = BTreeMap::from([("n".to_string(), n)]);
        let want = Q::from_integer(hand(n).into());
        assert_eq!(a.bound.eval(&at), want, "bound at n = {n}");
        // lock-step semantics (warpcert run), one block of 32
        let run = simulated(&s, MetricName::Divwarps, n, None, 2048);
        assert_eq!(run, want, "lock-step at n = {n}");
    }
    for n in [-1i64, -31, -32, -100] {
        let at = BTreeMap::from([("n".to_string(), n)]);
        let run = simulated(&s, MetricName::Divwarps, n, None, 64);
        assert_eq!(run, Q::from_integer(0.into()), "lock-step at n = {n}");
        assert_eq!(
            a.bound.eval(&at),
            Q::from_integer(i64::from(n % 32 != 0).into()),
            "bound at n = {n}"
        );
    }
}

/// Kernel mutants of the certificate, each rejected at Q:WHILELASTWINDOW with its message:
/// a modulus that does not divide the local class's `G = 256`, a modulus below 1, no
/// `(n M)` field, and a window atom of the wrong width in the charged `pre` (30 instead of
/// the hull's 31 integers: the `pre` equation fails).
#[test]
fn whilelastwindow_mutants_are_rejected_by_message() {
    let a = common::precision_one_block("nest_entry_stride", MetricName::Divwarps);
    let cert = &a.certificate;
    let node = "(Q:WHILELASTWINDOW (pre ";
    let at = cert.find(node).expect("a Q:WHILELASTWINDOW node");
    // the node's `(n 256)` field, after its `(pre …) (post …) (entail last …)`
    let rest = &cert[at..];
    let n_at = at + rest.find(" (n 256)").expect("(n 256) on the node");
    let rejected = |mutant: &str, msg: &str, what: &str| {
        let r = warpcert_kernel::check(mutant).expect_err(what);
        assert_eq!(
            r.rule, "Q:WHILELASTWINDOW",
            "{what}: rejected elsewhere: {r:?}"
        );
        assert!(
            r.to_string().contains(msg),
            "{what}: rejected for another reason: {r}"
        );
    };
    let with = |field: &str| format!("{}{field}{}", &cert[..n_at], &cert[n_at + 8..]);
    rejected(
        &with(" (n 96)"),
        "M does not divide the local class's modulus G",
        "modulus 96",
    );
    rejected(&with(" (n 0)"), "M < 1", "modulus 0");
    rejected(&with(""), "missing field (n …)", "no (n M)");
    // the charged atom of some copy, one integer narrower
    let atom = "256 31)";
    assert!(cert.contains(atom));
    let narrow = cert.replace(atom, "256 30)");
    let r = warpcert_kernel::check(&narrow).expect_err("narrow window");
    assert_eq!(
        r.rule, "Q:WHILELASTWINDOW",
        "narrow window: rejected elsewhere: {r:?}"
    );
    assert!(
        r.to_string().contains("M^div·[(b − X) mod M < b − a + 1]"),
        "narrow window: {r}"
    );
}

/// Shifts the constant of every window atom's form in a Coq export by `d`
/// (`KWin (mkLin C%Z …)` → `KWin (mkLin (C + d)%Z …)`): the charge of a hull `[a + d, b + d]`.
fn shift_windows(v: &str, d: i64) -> String {
    let key = "(KWin (mkLin ";
    let mut out = String::new();
    let mut rest = v;
    while let Some(at) = rest.find(key) {
        let (head, tail) = rest.split_at(at + key.len());
        out.push_str(head);
        let end = tail.find("%Z").expect("the form's constant");
        let c: i64 = tail[..end]
            .trim_matches(|ch| ch == '(' || ch == ')')
            .parse()
            .expect("an integer constant");
        out.push_str(&format!("({})", c + d));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// `export-coq` exports the divwarps and steps certificates (Check.v's `DWhileLastWindow`,
/// `Lin.KWin`) and `coqc` accepts both (Soundness.sound_Q_WHILELASTWINDOW). Three mutants
/// of the divwarps export, each changed consistently in every window atom so that only the
/// rule's own checks can tell, are refuted by the reflective check. Hand derivation of the
/// reasons: the one warp (lanes 0 … 31, `K = 1`) has `lo = 0`, `hi = 31`, so `win_hull`
/// gives `[a, b] = [−30, 0]` and the charge `[(0 − X) mod 256 < 31]`;
/// - width 30 instead of 31: the pre holds `[… < 30]` but the check builds `[… < 31]`
///   (`b − a + 1` from the enumerated hull), and the pre's `pot_ge` fails;
/// - modulus 96 in every atom and node: the local class's modulus `G = 256` is not a
///   multiple of 96 (`g mod m =? 0` fails); the same renaming with 128 is accepted;
/// - hull shifted by +1 (every form's constant + 1, i.e. `b = 1`): the check builds the
///   charge with `b = 0`, a different atom, and the pre's `pot_ge` fails.
///
/// Skipped without `coqc`.
#[test]
fn coq_accepts_whilelastwindow_and_refutes_mutants() {
    if !common::coq::coqc_available() {
        eprintln!("coqc not installed: skipped");
        return;
    }
    let export = |m: MetricName| {
        let a = common::precision_one_block("nest_entry_stride", m);
        assert!(
            a.certificate.contains("(Q:WHILELASTWINDOW "),
            "{m:?}: no Q:WHILELASTWINDOW"
        );
        warpcert::export::coq::export(&a.certificate).unwrap_or_else(|e| panic!("{m:?}: {e}"))
    };
    let div = export(MetricName::Divwarps);
    let steps = export(MetricName::Steps);
    for v in [&div, &steps] {
        assert_eq!(
            v.matches("(DWhileLastWindow ").count(),
            8,
            "one per unrolled copy"
        );
        assert!(
            v.contains(" 256%positive (31)%Z)"),
            "window atoms of width 31"
        );
    }
    let narrow = div.replace(" 256%positive (31)%Z)", " 256%positive (30)%Z)");
    // the node's modulus ends its line (`… wl 256%positive`, then the children)
    assert_eq!(
        div.matches(" 256%positive\n").count(),
        8,
        "the nodes' moduli"
    );
    let m96 = div
        .replace(" 256%positive (31)%Z)", " 96%positive (31)%Z)")
        .replace(" 256%positive\n", " 96%positive\n");
    // control: the modulus 128 in every atom and node is accepted (128 divides G = 256, so
    // the offset is still ≡ X (mod 128), and the charge matches): the refusal of 96 is the
    // `g mod m` check, not the renaming
    let m128 = div
        .replace(" 256%positive (31)%Z)", " 128%positive (31)%Z)")
        .replace(" 256%positive\n", " 128%positive\n");
    let shifted = shift_windows(&div, 1);
    assert_ne!(shifted, div);
    common::coq::accepted_and_mutants_refuted(
        "whilelastwindow",
        &[
            ("whilelastwindow_divwarps", div.as_str()),
            ("whilelastwindow_steps", steps.as_str()),
            ("whilelastwindow_divwarps_m128", m128.as_str()),
        ],
        &[
            ("whilelastwindow_w30", narrow.as_str()),
            ("whilelastwindow_m96", m96.as_str()),
            ("whilelastwindow_shift1", shifted.as_str()),
        ],
    );
}
