//! Lower-bound certificates (spec/logic.md §4b, issue 14 item 3): a derivation in the
//! lower-bound logic (`L:*` rules) for one named warp, obtained from an upper derivation
//! (`Q:*`) of the same program whose assertions `(P, D)` it keeps, with the potentials
//! computed again from the post backwards at the exact costs (access counts `N_W` of the
//! named warp instead of `N*`).
//!
//! Covered: straight-line code, uniform `if`s (L:IF1 with the coefficientwise minimum of
//! the branches, through L:WEAK; L:IF2/L:IF3), and counted uniform loops whose body costs a
//! constant and whose upper derivation ranks them by one `shift` of `max0(L)` by 1 (L:WHILE
//! with the invariant `c·max0(L) + R`, and an L:WEAK whose `zero` rewrite proves the exit
//! potential 0). Anything else (divergent branches and loops, nested loops, floor ranking
//! atoms, shuffles) is an error naming the rule: the answer then stays `upper`. Divergent
//! `if`s (upper Q:IF4 or Q:IFALIGN) become L:IFD, or L:IFDIV / L:IFALIGN (the upper node's
//! residue atom and class as the charge) where two lanes of the warp provably split it.
//!
//! Guards that every lane passes only for large enough parameters (`if (i < n)` with
//! `i = 256·blockIdx.x + threadIdx.x`) are decided under **parameter hypotheses** (L:HYP):
//! [`guard_hypotheses`] finds facts over `int` parameters under which each such guard
//! passes on every lane, [`witness_point`] a parameter valuation satisfying them and the
//! launch facts, and [`lower_certificate`] with [`LowerOptions::hyp`] writes
//! `(lower W (hyp …) (witness …))` from a derivation whose root pre includes them
//! (`analysis::derivation` with `DerivationOptions::hyps`).
//!
//! Untrusted: the kernel checks every certificate this writes (`warpcert_kernel::check`).
//!
//! Layout, one job per file: this file writes the certificate ([`lower_certificate`],
//! [`LowerOptions`]) and holds the walk's context and node helpers; `stmt.rs`
//! the statement rules, `divergent.rs` the divergent `if`s, `loops.rs` counted loops,
//! `expr.rs` expressions and access counts; `hypotheses.rs` the parameter hypotheses of
//! L:HYP and their witness point, `congruence.rs` the congruence hypotheses of warp-exact
//! products, `split.rs` L:IFSPLIT (branches over their own lanes,
//! [`LowerOptions::split`]).

mod congruence;
mod divergent;
mod expr;
mod hypotheses;
mod loops;
mod split;
mod stmt;
mod stride;

pub use congruence::congruence_hypotheses;
pub use hypotheses::{guard_hypotheses, split_hypotheses, witness_point, Hypotheses};
pub use stride::stride_hypotheses;

use crate::certificate::{self, Assn, Field, Judgment, Node};
use crate::core::assertion::Poly;
use crate::core::ir::{Program, Stmt};
use crate::core::metric::{Metric, Q};
use crate::core::{Hardware, Launch};
use num_traits::Zero;

/// Why no lower derivation was made (the statement's rule and what is missing).
pub type LowerError = String;

/// What a lower certificate ([`lower_certificate`]) may use beyond the launch facts and
/// the rules of the module docs. The default adds nothing: the section `(lower W)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LowerOptions<'a> {
    /// Parameter hypotheses (section `(lower W (hyp …) (witness …))`, spec/logic.md §4b,
    /// L:HYP): the upper derivation must then be one whose root pre is the launch facts
    /// followed by `hyp.facts` ([`crate::analysis::derivation`] with
    /// [`crate::analysis::DerivationOptions::hyps`]).
    pub hyp: Option<&'a Hypotheses>,
    /// L:IFSPLIT and L:IFLANES (`split.rs`, spec/logic.md §4b "Lane subsets") where a
    /// remainder test splits the lane set, or a comparison of exact values is decided lane
    /// by lane, and the branches' bounds over their lanes beat `minc`. `analyze` asks for
    /// it only where the certificate without it does not reach the upper bound (the
    /// certificates that did are unchanged; LowerCheck.v checks L:IFSPLIT since
    /// lowersplit19 and L:IFLANES (`DIfLanes`) since iflanescoq19).
    pub split: bool,
}

/// A lower-bound certificate text (spec/certificate.md, version 5 with `(lower W)`, or
/// `(lower W (hyp …) (witness …))` with [`LowerOptions::hyp`]) for warp `warp` of `prog`,
/// derived from the upper derivation `upper` (root: the body) with what `with` allows
/// ([`LowerOptions`]); its bound is the root's pre potential (a polynomial in the `int`
/// parameters, in the metric's unit). Errors: a construct the lower logic does not cover
/// (module docs).
pub fn lower_certificate(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    upper: &Node,
    warp: u32,
    with: &LowerOptions<'_>,
) -> Result<(String, Poly), LowerError> {
    let wsz = u64::from(hw.warp_size);
    let first = wsz * u64::from(warp);
    let cx = Lx {
        prog,
        m: metric,
        hw,
        launch,
        warp,
        threads: (first..(first + wsz).min(launch.block_threads())).collect(),
        split: with.split,
    };
    // `Lx::stmt` recurses along the derivation (an unrolled loop nests its copies): on a
    // large stack, as the upper analysis (a rayon worker's 2 MiB overflowed in a debug
    // build on tests/precision/nest_entry.cu's 64 unrolled copies)
    let root = crate::core::stack::with_big_stack(|| cx.stmt(upper, &prog.body, &Poly::zero()))?;
    let bound = root.pre().map(|a| a.q.clone()).unwrap_or_else(Poly::zero);
    let text = certificate::write(prog, metric, hw, launch, &root);
    let (head, rest) = text
        .split_once("(assumptions")
        .ok_or_else(|| "the certificate writer wrote no assumptions section".to_string())?;
    let section = match with.hyp {
        None => format!("(lower {warp})"),
        Some(h) => {
            let facts: Vec<String> = h.facts.iter().map(certificate::cstr_sexp).collect();
            let pts: Vec<String> = h
                .witness
                .iter()
                .map(|(v, x)| format!("({v} {x})"))
                .collect();
            format!(
                "(lower {warp} (hyp {}) (witness {}))",
                facts.join(" "),
                pts.join(" ")
            )
        }
    };
    Ok((format!("{head}{section}\n(assumptions{rest}"), bound))
}

/// The context of one lower derivation (the methods live in `stmt.rs`, `divergent.rs`,
/// `loops.rs` and `expr.rs`): the program, metric, hardware, launch, the named warp and
/// the judgment's lane set `T` (thread ids; all lanes of the warp, or a branch's subset
/// under L:IFSPLIT, `split.rs`).
struct Lx<'a> {
    prog: &'a Program,
    m: &'a Metric,
    hw: &'a Hardware,
    launch: &'a Launch,
    warp: u32,
    threads: Vec<u64>,
    /// Whether L:IFSPLIT may be used ([`LowerOptions::split`]).
    split: bool,
}

impl<'a> Lx<'a> {
    /// The same context on the lane subset `threads` (L:IFSPLIT's branches).
    fn on(&self, threads: Vec<u64>) -> Lx<'a> {
        Lx {
            prog: self.prog,
            m: self.m,
            hw: self.hw,
            launch: self.launch,
            warp: self.warp,
            threads,
            split: self.split,
        }
    }
}

fn stmt_node(
    rule: &'static str,
    pre: Assn,
    post: Assn,
    fields: Vec<Field>,
    children: Vec<Node>,
) -> Node {
    Node {
        rule,
        judgment: Judgment::Stmt { pre, post },
        fields,
        children,
    }
}

fn with_q(a: &Assn, q: Poly) -> Assn {
    Assn {
        p: a.p.clone(),
        d: a.d.clone(),
        q,
    }
}

/// The upper node's `pre` and `post` (statement nodes only).
fn pp(n: &Node) -> Result<(&Assn, &Assn), LowerError> {
    match &n.judgment {
        Judgment::Stmt { pre, post } => Ok((pre, post)),
        Judgment::Expr { .. } => Err(format!("{}: a statement node was expected", n.rule)),
    }
}

fn cost_of(n: &Node) -> Q {
    match &n.judgment {
        Judgment::Expr { cost } => cost.clone(),
        Judgment::Stmt { .. } => Q::zero(),
    }
}

/// `(entail NAME (farkas (i 1)) …)` for the identical list of `k` constraints.
fn ids(name: &'static str, k: usize) -> Field {
    Field::Entail(name, (0..k).map(certificate::Farkas::Id).collect())
}

/// The coefficientwise minimum of two potentials (absent monomials count 0).
fn min_poly(a: &Poly, b: &Poly) -> Poly {
    let mut out = Poly::zero();
    for (m, c) in a.terms.iter() {
        if let Some(d) = b.terms.get(m) {
            out.add_term(m.clone(), c.clone().min(d.clone()));
        }
    }
    out
}

fn pre_q(n: &Node) -> Poly {
    n.pre().map(|a| a.q.clone()).unwrap_or_else(Poly::zero)
}

/// The only child of `n` (`k` = 1).
fn only(n: &Node, k: usize) -> Result<&Node, LowerError> {
    match n.children.as_slice() {
        [c] if k == 1 => Ok(c),
        _ => Err(format!("{}: {k} child expected", n.rule)),
    }
}

/// The items a Q:SEQ node with `k` children is about (spec/certificate.md "Long
/// sequences"): `s1, …, s(k−1)` and the rest of the chain.
fn chain_items(s: &Stmt, k: usize) -> Vec<&Stmt> {
    let mut out = Vec::with_capacity(k);
    let mut cur = s;
    while out.len() + 1 < k {
        match cur {
            Stmt::Seq(a, b) => {
                out.push(&**a);
                cur = b;
            }
            _ => break,
        }
    }
    out.push(cur);
    out
}
