//! Q:WHILEGUARDCAP, Q:WHILEEXITCAP and Q:WHILEEXITCAP2 (spec/logic.md §4a, issue 15): a loop
//! left by divergent jumps whose body splits the warp only at exit nodes that lose a lane for
//! good; the splits are paid by the warp's lane count instead of per round (Q:WHILEEXITCAP2:
//! the exit nodes' splits only, the loop test's per round).

use super::stmt::{while_exit_ge, while_guard};
use super::{Ctx, Subject};
use crate::arith::Rat;
use crate::syntax::{Assn, Node};
use crate::{Reason, Rejection};
use num_traits::Zero;

/// Where a node of a capped body is (spec/logic.md §4a, "cap condition").
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pos {
    /// At the end of the loop body's filtered spine.
    TailLoop,
    /// At the end of the filtered spine of a Q:FLAGEXIT's part `N`.
    TailFlag,
    /// Anywhere else.
    Ordinary,
}

/// What [`walk`] found: a Q:IFEXIT4 node (`a`) and the number of guard tests (`t`).
#[derive(Default)]
struct Found {
    exit: bool,
    tests: u64,
}

/// The rules that never split a warp (their premises rule SC:IFD / SC:WHILESOME out, or
/// they have no test), allowed anywhere in a capped body with ordinary children.
const NO_SPLIT: &[&str] = &[
    "_",
    "OQ:VAR",
    "OQ:CONST",
    "OQ:PARAM",
    "OQ:TID",
    "EQ:OP",
    "EQ:UOP",
    "EQ:GARRAY",
    "EQ:SARRAY",
    "EQ:LARRAY",
    "Q:SKIP",
    "Q:SYNC",
    "Q:VWRITE1",
    "Q:VWRITE2",
    "Q:GWRITE",
    "Q:SWRITE",
    "Q:LWRITE",
    "Q:SHFL",
    "Q:VOTE",
    "Q:UNROLL",
    "Q:WHILE1",
    "Q:WHILEWARP",
    "Q:WHILEEXIT1",
    "Q:WHILEGUARD1",
    "Q:GUARD",
    "Q:GUARDEXIT",
    "Q:GWRITEROWS",
    "Q:VWRITEROWS",
];

/// The cap condition on the derivation `n` at position `pos` (spec/logic.md §4a): the only
/// nodes that may split are Q:IFEXIT4 at a tail position and Q:IFGUARD4 / Q:FLAGEXIT at the
/// loop body's tail; children follow filtered position (a Q:SEQ's last child, Q:WEAK's
/// child, Q:IF1–IF3's branches, Q:IFEXIT1/4's `F`, Q:IFGUARD4's `T`, Q:FLAGEXIT's `N`
/// (flag tail) and `T`), every other child is ordinary. Errors: [`Reason::CapSplit`].
fn walk(cx: &Ctx, n: &Node, pos: Pos, found: &mut Found) -> Result<(), Rejection> {
    let rule = n.rule.as_str();
    let refuse = |why| Err(cx.rej(Reason::CapSplit(rule.to_string(), why)));
    let tail = pos != Pos::Ordinary;
    // the position of each child, in order
    let at: Vec<Pos> = match rule {
        "Q:SEQ" => (0..n.children.len()).map(|i| if i + 1 == n.children.len() { pos } else { Pos::Ordinary }).collect(),
        "Q:WEAK" => vec![pos],
        "Q:IF1" | "Q:IF2" | "Q:IF3" => vec![Pos::Ordinary, pos, pos],
        "Q:IFEXIT1" => vec![Pos::Ordinary, Pos::Ordinary, pos],
        "Q:IFEXIT4" if tail => {
            found.exit = true;
            vec![Pos::Ordinary, Pos::Ordinary, pos]
        }
        "Q:IFEXIT4" => return refuse("off the end of a filtered spine"),
        "Q:IFGUARD4" | "Q:FLAGEXIT" if pos != Pos::TailLoop => {
            return refuse("off the end of the loop body's filtered spine")
        }
        "Q:IFGUARD4" => {
            found.tests += 1;
            vec![Pos::Ordinary, pos, Pos::Ordinary]
        }
        "Q:FLAGEXIT" => {
            found.tests += 1;
            vec![Pos::TailFlag, Pos::Ordinary, pos, Pos::Ordinary]
        }
        r if NO_SPLIT.contains(&r) => Vec::new(),
        _ => return refuse("(a rule that may split the warp)"),
    };
    for (i, c) in n.children.iter().enumerate() {
        walk(cx, c, at.get(i).copied().unwrap_or(Pos::Ordinary), found)?;
    }
    Ok(())
}

/// The lane-count charge `(N − 1)·(a + t + 1)·M^div` of a capped loop node `n` (its body is
/// child 1; spec/logic.md §4a), `(N − 1)·(a + t)·M^div` when the loop test is paid per round
/// (`test_per_round`, Q:WHILEEXITCAP2): `N = min(warp size, threads of the block)`, `a`, `t`
/// from [`walk`]. A node without a body child is charged 0 (the loop rule refuses its shape).
fn cap_charge(cx: &Ctx, n: &Node, test_per_round: bool) -> Result<Rat, Rejection> {
    let Some(body) = n.children.get(1) else {
        return Ok(Rat::zero());
    };
    let mut found = Found::default();
    walk(cx, body, Pos::TailLoop, &mut found)?;
    let threads = crate::access::block_threads(cx.block).unwrap_or(u64::MAX);
    let lanes = u64::from(cx.hw[0]).min(threads).max(1);
    let splits = (lanes - 1) * (u64::from(found.exit) + found.tests + u64::from(!test_per_round));
    Ok(Rat::from_integer(splits.into()) * &cx.m.div)
}

/// Q:WHILEGUARDCAP — Q:WHILEGUARD with `M^div := 0` in the loop test and the body's exit
/// nodes, whose splits the pre pays by the lane count ([`cap_charge`]): the pre is
/// `(P, D, J + Q' + M^if + C + (N − 1)·(a + t + 1)·M^div)` (spec/logic.md §4a). Errors: as
/// Q:WHILEGUARD, [`Reason::CapSplit`].
pub fn q_whileguardcap(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let charge = cap_charge(cx, n, false)?;
    while_guard(cx, n, s, pre, false, false, Some((&charge, false)))
}

/// Q:WHILEEXITCAP — Q:WHILEEXIT2 with `M^div := 0` in the loop test and the body's exit
/// nodes: `B.post = (P, D, I + M^if + C)`, the pre
/// `(P, D, I + Q' + 2(M^if + C) + (N − 1)·(a + t + 1)·M^div)` (spec/logic.md §4a). Errors:
/// as Q:WHILEEXIT2, [`Reason::CapSplit`].
pub fn q_whileexitcap(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let charge = cap_charge(cx, n, false)?;
    while_exit_ge(cx, n, s, pre, false, None, false, Some((&charge, false)))
}

/// Q:WHILEEXITCAP2 — Q:WHILEEXIT2 whose loop test keeps `M^div` (`k = M^if + M^div + C`,
/// paid per round) and whose body's exit nodes are charged without `M^div`: `B.post =
/// (P, D, I + k)`, the pre `(P, D, I + Q' + 2k + (N − 1)·(a + t)·M^div)` under the cap
/// condition (spec/logic.md §4a; issue 15, NVIDIA's `CalcMandelbrot`: one `M^div` a round
/// for the test instead of `(N − 1)` for it). Errors: as Q:WHILEEXIT2, [`Reason::CapSplit`].
pub fn q_whileexitcap2(cx: &Ctx, n: &Node, s: Subject<'_>, pre: &Assn) -> Result<Rat, Rejection> {
    let charge = cap_charge(cx, n, true)?;
    while_exit_ge(cx, n, s, pre, false, None, false, Some((&charge, true)))
}
