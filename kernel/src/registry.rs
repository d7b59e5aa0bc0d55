//! The rule registry: one `match` from rule name to rule function (spec/logic.md's
//! `logic-rules:` line). An unknown name is a rejection ([`crate::Reason::UnknownRule`]).

use crate::arith::Rat;
use crate::rules::{
    align::{q_ifalign, q_whilelastalign, q_whilelastwindow},
    cap::{q_whileexitcap, q_whileexitcap2, q_whileguardcap},
    case::{q_case, q_whilenone},
    expr::*,
    guarded::{q_gwriteguard, q_vwriteguard},
    lower::*,
    nosplit::q_whilewarp,
    rows::{q_gwriterows, q_vwriterows},
    stmt::*,
    Ctx, Subject,
};
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
    "Q:SHFL",
    "Q:VOTE",
    "EQ:LARRAY",
    "Q:LWRITE",
    "Q:WHILELAST",
    "Q:WHILEWARP",
    "Q:GUARD",
    "Q:GUARDEXIT",
    "Q:IFGUARD4",
    "Q:WHILEGUARD",
    "Q:WHILEGUARD1",
    "Q:FLAGEXIT",
    "Q:IFALIGN",
    "Q:WHILEGUARD0",
    "Q:WHILELASTALIGN",
    "Q:GWRITEROWS",
    "Q:VWRITEROWS",
    "Q:WHILEGUARDCAP",
    "Q:WHILEEXITCAP",
    "Q:CASE",
    "Q:WHILENONE",
    "Q:GWRITEGUARD",
    "Q:VWRITEGUARD",
    "Q:WHILELASTWINDOW",
    "Q:WHILEEXITCAP2",
];

/// The lower-bound rules of spec/logic.md §4b (its `lower-rules:` line), in its order.
pub const LOWER_RULES: &[&str] = &[
    "L:SKIP",
    "L:SYNC",
    "L:SEQ",
    "L:VWRITE1",
    "L:VWRITE2",
    "L:GWRITE",
    "L:SWRITE",
    "L:LWRITE",
    "L:IF1",
    "L:IF2",
    "L:IF3",
    "L:IFD",
    "L:IFDIV",
    "L:IFALIGN",
    "L:IFDT",
    "L:IFWRAP",
    "L:WHILE",
    "L:UNROLL",
    "L:WEAK",
    "L:GARRAY",
    "L:SARRAY",
    "L:GARRAYSTRIDE",
    "L:GWRITESTRIDE",
    "L:IFSPLIT",
    "L:IFLANES",
];

/// Which certificates a rule may occur in (spec/logic.md §4b): upper-bound certificates
/// (`Q:*`, `EQ:GARRAY`, `EQ:SARRAY`), lower-bound ones (`L:*`), or both (the exact
/// expression rules `OQ:*`, `EQ:OP`, `EQ:UOP`, `EQ:LARRAY`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleRole {
    /// Only in upper-bound certificates.
    Upper,
    /// Only in lower-bound certificates (section `(lower W)`).
    Lower,
    /// In both: the rule computes an exact cost.
    Both,
}

/// The role of rule `name` (meaningful for the names [`lookup`] knows).
pub fn role(name: &str) -> RuleRole {
    match name {
        "OQ:VAR" | "OQ:CONST" | "OQ:PARAM" | "OQ:TID" | "EQ:OP" | "EQ:UOP" | "EQ:LARRAY" => RuleRole::Both,
        _ if name.starts_with("L:") => RuleRole::Lower,
        _ => RuleRole::Upper,
    }
}

/// The judgment a rule concludes: a statement judgment `{P; D; Q} s {P'; D'; Q'}`
/// (spec/logic.md §4, §4a) or an expression/operand judgment `P ⊢ e : C` (§3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// `Q:*` rules: nodes with `pre` and `post`.
    Statement,
    /// `OQ:*` and `EQ:*` rules: nodes with `cost`.
    Expression,
}

/// The kind and checking function of rule `name`, if it is a rule of the logic.
pub fn lookup(name: &str) -> Option<(RuleKind, Rule)> {
    use RuleKind::{Expression as E, Statement as S};
    Some(match name {
        "OQ:VAR" => (E, oq_var as Rule),
        "OQ:CONST" => (E, oq_const as Rule),
        "OQ:PARAM" => (E, oq_param as Rule),
        "OQ:TID" => (E, oq_tid as Rule),
        "EQ:OP" => (E, eq_op as Rule),
        "EQ:UOP" => (E, eq_uop as Rule),
        "EQ:GARRAY" => (E, eq_garray as Rule),
        "EQ:SARRAY" => (E, eq_sarray as Rule),
        "Q:SKIP" => (S, q_skip as Rule),
        "Q:SYNC" => (S, q_sync as Rule),
        "Q:SEQ" => (S, q_seq as Rule),
        "Q:VWRITE1" => (S, q_vwrite1 as Rule),
        "Q:VWRITE2" => (S, q_vwrite2 as Rule),
        "Q:GWRITE" => (S, q_gwrite as Rule),
        "Q:SWRITE" => (S, q_swrite as Rule),
        "Q:IF1" => (S, q_if1 as Rule),
        "Q:IF2" => (S, q_if2 as Rule),
        "Q:IF3" => (S, q_if3 as Rule),
        "Q:IF4" => (S, q_if4 as Rule),
        "Q:WHILE1" => (S, q_while1 as Rule),
        "Q:WHILE2" => (S, q_while2 as Rule),
        "Q:UNROLL" => (S, q_unroll as Rule),
        "Q:IFEXIT1" => (S, q_ifexit1 as Rule),
        "Q:IFEXIT4" => (S, q_ifexit4 as Rule),
        "Q:WHILEEXIT1" => (S, q_whileexit1 as Rule),
        "Q:WHILEEXIT2" => (S, q_whileexit2 as Rule),
        "Q:WEAK" => (S, q_weak as Rule),
        "Q:SHFL" => (S, q_shfl as Rule),
        "Q:VOTE" => (S, q_vote as Rule),
        "EQ:LARRAY" => (E, eq_larray as Rule),
        "Q:LWRITE" => (S, q_lwrite as Rule),
        "Q:WHILELAST" => (S, q_whilelast as Rule),
        "Q:WHILEWARP" => (S, q_whilewarp as Rule),
        "Q:GUARD" => (S, q_guard as Rule),
        "Q:GUARDEXIT" => (S, q_guardexit as Rule),
        "Q:IFGUARD4" => (S, q_ifguard4 as Rule),
        "Q:WHILEGUARD" => (S, q_whileguard as Rule),
        "Q:WHILEGUARD1" => (S, q_whileguard1 as Rule),
        "Q:FLAGEXIT" => (S, q_flagexit as Rule),
        "Q:IFALIGN" => (S, q_ifalign as Rule),
        "Q:WHILELASTALIGN" => (S, q_whilelastalign as Rule),
        "Q:WHILEGUARD0" => (S, q_whileguard0 as Rule),
        "Q:GWRITEROWS" => (S, q_gwriterows as Rule),
        "Q:VWRITEROWS" => (S, q_vwriterows as Rule),
        "Q:WHILEGUARDCAP" => (S, q_whileguardcap as Rule),
        "Q:WHILEEXITCAP" => (S, q_whileexitcap as Rule),
        "Q:CASE" => (S, q_case as Rule),
        "Q:WHILENONE" => (S, q_whilenone as Rule),
        "Q:GWRITEGUARD" => (S, q_gwriteguard as Rule),
        "Q:VWRITEGUARD" => (S, q_vwriteguard as Rule),
        "Q:WHILELASTWINDOW" => (S, q_whilelastwindow as Rule),
        "Q:WHILEEXITCAP2" => (S, q_whileexitcap2 as Rule),
        "L:SKIP" => (S, l_skip as Rule),
        "L:SYNC" => (S, l_sync as Rule),
        "L:SEQ" => (S, l_seq as Rule),
        "L:VWRITE1" => (S, l_vwrite1 as Rule),
        "L:VWRITE2" => (S, l_vwrite2 as Rule),
        "L:GWRITE" => (S, l_gwrite as Rule),
        "L:SWRITE" => (S, l_swrite as Rule),
        "L:LWRITE" => (S, l_lwrite as Rule),
        "L:IF1" => (S, l_if1 as Rule),
        "L:IF2" => (S, l_if2 as Rule),
        "L:IF3" => (S, l_if3 as Rule),
        "L:IFD" => (S, l_ifd as Rule),
        "L:IFDIV" => (S, l_ifdiv as Rule),
        "L:IFALIGN" => (S, l_ifalign as Rule),
        "L:IFDT" => (S, l_ifdt as Rule),
        "L:IFWRAP" => (S, l_ifwrap as Rule),
        "L:WHILE" => (S, l_while as Rule),
        "L:UNROLL" => (S, l_unroll as Rule),
        "L:WEAK" => (S, l_weak as Rule),
        "L:GARRAY" => (E, l_garray as Rule),
        "L:SARRAY" => (E, l_sarray as Rule),
        "L:GARRAYSTRIDE" => (E, l_garraystride as Rule),
        "L:GWRITESTRIDE" => (S, l_gwritestride as Rule),
        "L:IFSPLIT" => (S, l_ifsplit as Rule),
        "L:IFLANES" => (S, l_iflanes as Rule),
        _ => return None,
    })
}
