//! The rule registry: one `match` from rule name to rule function (spec/logic.md's
//! `logic-rules:` line). An unknown name is a rejection ([`crate::Reason::UnknownRule`]).

use crate::arith::Rat;
use crate::rules::{expr::*, stmt::*, Ctx, Subject};
use crate::syntax::{Assn, Node};
use crate::Rejection;

/// The one signature of every rule: context, node, what the node is about, and the pre
/// `(P, D, Q)` in force (the node's own for statements, the enclosing statement's for
/// expressions). Returns the recomputed cost (expression rules) or 0 (statement rules).
pub type Rule = fn(&Ctx, &Node, Subject<'_>, &Assn) -> Result<Rat, Rejection>;

/// All rule names of spec/logic.md, in its order.
pub const LOGIC_RULES: &[&str] = &[
    "OQ:VAR",
    "OQ:CONST",
    "OQ:PARAM",
    "OQ:TID",
    "EQ:OP",
    "EQ:UOP",
    "EQ:GARRAY",
    "EQ:SARRAY",
    "Q:SKIP",
    "Q:SYNC",
    "Q:SEQ",
    "Q:VWRITE1",
    "Q:VWRITE2",
    "Q:GWRITE",
    "Q:SWRITE",
    "Q:IF1",
    "Q:IF2",
    "Q:IF3",
    "Q:IF4",
    "Q:WHILE1",
    "Q:WHILE2",
    "Q:UNROLL",
    "Q:IFEXIT1",
    "Q:IFEXIT4",
    "Q:WHILEEXIT1",
    "Q:WHILEEXIT2",
    "Q:WEAK",
];

/// The function checking rule `name`, if it is a rule of the logic.
pub fn lookup(name: &str) -> Option<Rule> {
    Some(match name {
        "OQ:VAR" => oq_var,
        "OQ:CONST" => oq_const,
        "OQ:PARAM" => oq_param,
        "OQ:TID" => oq_tid,
        "EQ:OP" => eq_op,
        "EQ:UOP" => eq_uop,
        "EQ:GARRAY" => eq_garray,
        "EQ:SARRAY" => eq_sarray,
        "Q:SKIP" => q_skip,
        "Q:SYNC" => q_sync,
        "Q:SEQ" => q_seq,
        "Q:VWRITE1" => q_vwrite1,
        "Q:VWRITE2" => q_vwrite2,
        "Q:GWRITE" => q_gwrite,
        "Q:SWRITE" => q_swrite,
        "Q:IF1" => q_if1,
        "Q:IF2" => q_if2,
        "Q:IF3" => q_if3,
        "Q:IF4" => q_if4,
        "Q:WHILE1" => q_while1,
        "Q:WHILE2" => q_while2,
        "Q:UNROLL" => q_unroll,
        "Q:IFEXIT1" => q_ifexit1,
        "Q:IFEXIT4" => q_ifexit4,
        "Q:WHILEEXIT1" => q_whileexit1,
        "Q:WHILEEXIT2" => q_whileexit2,
        "Q:WEAK" => q_weak,
        _ => return None,
    })
}
