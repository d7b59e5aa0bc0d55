//! The checking context and the computed notions of spec/logic.md §2 shared by the rules:
//! `lin`, `cond`, uniformity, `dep_D`, assertion comparison, Farkas entailment lists,
//! potential domination by rewrites, access bounds; plus program typing and the root
//! conditions (spec/logic.md §5).

pub mod align;
pub mod cap;
pub mod case;
mod compare;
mod count;
mod deps;
pub mod expr;
pub mod guarded;
mod lanes;
pub mod lower;
pub mod nosplit;
mod root;
pub mod rows;
pub mod stmt;
pub mod wrap;

pub use deps::eval_int;
pub use lanes::LANE_MODULUS_LIMIT;
pub use root::{check_certificate, launch_facts, warp_uniform_dims};

use crate::access::{self, Kind};
use crate::arith::{
    atom_arg, atom_unit, check_cut, check_farkas, rat, Atom, Cstr, Dep, DepMap, EntryKind, FarkasProblem, Lin, Poly,
    Rat,
};
use crate::metric::{self, Metric};
use crate::registry::{self, RuleKind};
use crate::syntax::{self, Assn, Cg, Expr, Node, Opd, Program, Rw, Space, Stmt, Ty};
use crate::{assume, sexp, typing, Reason, Rejection, Verdict, WfProblem};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// What a derivation node is about.
#[derive(Clone, Copy, Debug)]
pub enum Subject<'a> {
    /// A statement (statement rules `Q:*`).
    Stmt(&'a Stmt),
    /// An expression (`EQ:*`, or an `OQ:*` rule when it is an operand).
    Expr(&'a Expr),
    /// An operand (`OQ:*`).
    Opd(&'a Opd),
}

impl Subject<'_> {
    /// A short description for messages.
    pub fn describe(&self) -> String {
        match self {
            Subject::Stmt(s) => format!("statement `{}`", s.kind()),
            Subject::Expr(e) => format!("expression `{e}`"),
            Subject::Opd(o) => format!("operand `{o}`"),
        }
    }
}

/// The `P` lists and `D` maps of [`Ctx::wf_once`] found well-formed, by address.
type WfParts = (HashMap<usize, Rc<Vec<Cstr>>>, HashMap<usize, Rc<DepMap>>);

/// The memo key of [`Ctx::access`]: everything `access::n_star` and `access::range_bound`
/// read — the constraints of `P` over `threadIdx.*` alone, the dependence's kind,
/// coefficients, modulus and residue class, the range entry's width, the element size
/// and the hardware function.
type NStarKey = (Vec<Cstr>, Option<([BigInt; 3], EntryKind, BigInt, BigInt)>, Option<BigInt>, u32, Kind);

/// [`NStarKey`] without its constraints: the dependence's class, the range entry's width,
/// the element size and the hardware function.
type NStarRest = (Option<([BigInt; 3], EntryKind, BigInt, BigInt)>, Option<BigInt>, u32, Kind);

/// The memo of [`Ctx::access`] by the address of the pre's `P`: the `P` (held, so that the
/// address is not reused) and the `N*` values by [`NStarRest`], in a short list searched
/// in order (issue 13: a `P` sees one or two accesses, and a `BTreeMap`'s first node of
/// eleven keys per `P` was the largest holder of a long program's check, 24 MB at 30 000
/// statements).
type NStarByP = HashMap<usize, (Rc<Vec<Cstr>>, Vec<(NStarRest, u64)>)>;

/// The checking context: the certificate's program, metric, hardware and launch, and the
/// path of the node being checked (for rejections).
pub struct Ctx<'a> {
    /// The program.
    pub prog: &'a Program,
    /// The metric's table.
    pub m: Metric,
    /// `[warp, banks, bank_bytes, sector_bytes]`.
    pub hw: [u32; 4],
    /// Block dimensions.
    pub block: [u32; 3],
    /// The warp-uniform thread dimensions of the launch ([`warp_uniform_dims`]).
    pub udims: [bool; 3],
    stack: RefCell<Vec<(String, usize)>>,
    /// The rule-name strings of nodes popped from `stack`, reused by the next pushes.
    spare_names: RefCell<Vec<String>>,
    /// The filter of each node on the stack (spec/logic.md §4a): the condition of the
    /// Q:WHILEEXIT1/2 loop whose body spine the node is on, `None` for ordinary nodes.
    filters: RefCell<Vec<Option<Expr>>>,
    /// Set by Q:IFEXIT4; Q:WHILEEXIT1/2 clear it before their body and read it after.
    pub divergent_exit: Cell<bool>,
    /// Set by Q:WHILEGUARDCAP / Q:WHILEEXITCAP while their body is checked (spec/logic.md
    /// §4a): the exit nodes Q:IFEXIT4, Q:IFGUARD4 and Q:FLAGEXIT charge no `M^div`
    /// ([`Ctx::split_cost`]); the loop's lane count pays their splits.
    pub capped: Cell<bool>,
    /// Set by Q:SEQ before each child but the first: the child's address and the statement
    /// of the previous child (what Q:WHILEGUARD reads as the guard's write before its loop).
    pub prev: RefCell<Option<(usize, Stmt)>>,
    count: Cell<usize>,
    /// Memoized `N*` values ([`Ctx::access`]).
    nstar: RefCell<BTreeMap<NStarKey, u64>>,
    /// The same values by the address of the pre's `P` (shared by the nodes of an assertion
    /// table entry), which is held here so that the address is not reused: a hit needs
    /// neither the constraints over `threadIdx.*` nor their comparison.
    nstar_by_p: RefCell<NStarByP>,
    /// The addresses of the certificate's assertions found well-formed ([`Ctx::wf`]
    /// depends on the assertion alone; shared assertions are checked once). Every such
    /// assertion belongs to the certificate, which outlives the check, so an address is
    /// never reused for another assertion.
    wf_ok: RefCell<HashSet<usize>>,
    /// The `P` lists and `D` maps found well-formed by the `P` and `D` parts of [`Ctx::wf`]
    /// (each depends on the list or map alone; a list or map of the assertion table is
    /// shared by many assertions and checked once), by address. Each is held here, so its
    /// address is not reused for another list or map during the check.
    wf_parts_ok: RefCell<WfParts>,
    /// The canonical derivations of implicit nodes built so far, by rule ([`Ctx::implicit`]).
    implicit_nodes: RefCell<HashMap<&'static str, Rc<Node>>>,
    /// Format ≥ 5: an expression node may omit `(cost C)`; its cost is then the recomputed
    /// one (a written cost must still equal it).
    pub cost_optional: bool,
    /// `Some(W)`: a lower-bound certificate about warp `W` (spec/logic.md §4b).
    pub lower: Option<u32>,
    /// The parameter hypotheses `H` of a lower certificate (L:HYP; empty without them):
    /// their congruences `(mod p m (r))` feed `went_W` (§4b "Warp-exact products").
    pub hyps: Vec<crate::arith::Cstr>,
    /// The lane set `T` of the lower judgment `⊢ᴸ_{M,T}` being checked (spec/logic.md §4b,
    /// L:IFSPLIT), as thread ids of the named warp: `None` is all its lanes (thread ids
    /// `Wsz·W + ℓ` below the block size); L:IFSPLIT sets each branch's subset while the
    /// branch is checked.
    pub lane_set: RefCell<Option<Rc<Vec<u64>>>>,
}

impl Ctx<'_> {
    /// The thread ids of the current lower judgment's lane set `T` ([`Ctx::lane_set`]; all
    /// lanes of the named warp below the block size when no subset is set; warp 0 for an
    /// upper certificate, which never reads it).
    pub fn threads(&self) -> Vec<u64> {
        if let Some(t) = self.lane_set.borrow().as_ref() {
            return t.to_vec();
        }
        let wsz = u64::from(self.hw[0]);
        let total = access::block_threads(self.block).unwrap_or(0);
        let first = wsz.saturating_mul(u64::from(self.lower.unwrap_or(0)));
        (first..first.saturating_add(wsz).min(total)).collect()
    }

    /// The `M^div` an exit node (Q:IFEXIT4, Q:IFGUARD4, Q:FLAGEXIT) charges for a split:
    /// `M^div`, or 0 in the body of Q:WHILEGUARDCAP / Q:WHILEEXITCAP ([`Ctx::capped`]).
    pub fn split_cost(&self) -> Rat {
        if self.capped.get() {
            Rat::zero()
        } else {
            self.m.div.clone()
        }
    }

    /// A rejection at the current node.
    pub fn rej(&self, reason: Reason) -> Rejection {
        let st = self.stack.borrow();
        let rule = st.last().map(|s| s.0.clone()).unwrap_or_else(|| "root".to_string());
        let path: Vec<String> = st.iter().map(|s| s.1.to_string()).collect();
        Rejection { rule, node_path: path.join("."), reason }
    }

    /// Checks child `idx` of the current node: looks its rule up in the registry, checks
    /// the node kind and fields common to its kind (statement nodes: `pre`/`post` present
    /// and well-formed; expression nodes: `cost` present and equal to the recomputed cost),
    /// then runs the rule. `env` is the enclosing statement's pre for expression nodes.
    /// Returns the node's cost (0 for statement nodes).
    pub fn check_node(&self, n: &Node, s: Subject<'_>, env: &Assn, idx: usize) -> Result<Rat, Rejection> {
        self.check_node_in(n, s, env, idx, None)
    }

    /// [`Ctx::check_node`] for a child in filtered position for the loop condition
    /// `filter` (`None`: an ordinary node; spec/logic.md §4a).
    pub fn check_node_in(
        &self,
        n: &Node,
        s: Subject<'_>,
        env: &Assn,
        idx: usize,
        filter: Option<&Expr>,
    ) -> Result<Rat, Rejection> {
        // the rule name is copied into a string of a node popped before (no allocation)
        let mut rule = self.spare_names.borrow_mut().pop().unwrap_or_default();
        rule.clear();
        rule.push_str(&n.rule);
        self.stack.borrow_mut().push((rule, idx));
        self.filters.borrow_mut().push(filter.cloned());
        self.count.set(self.count.get().saturating_add(1));
        let depth = self.stack.borrow().len();
        let r = guarded(
            || self.check_node_inner(n, s, env),
            |reason| {
                // A panic below this node unwound past the children's pops: restore the
                // stacks to this node, so that the rejection names it.
                self.stack.borrow_mut().truncate(depth);
                self.filters.borrow_mut().truncate(depth);
                self.rej(reason)
            },
        );
        self.filters.borrow_mut().pop();
        if let Some((rule, _)) = self.stack.borrow_mut().pop() {
            self.spare_names.borrow_mut().push(rule);
        }
        r
    }

    /// The filter of the node being checked (`None`: ordinary position).
    pub fn filter(&self) -> Option<Expr> {
        self.filters.borrow().last().cloned().flatten()
    }

    fn check_node_inner(&self, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
        if n.rule == syntax::IMPLICIT {
            // format 6: `_` is the canonical derivation of the expression, checked as written
            return self.check_node_inner(&*self.implicit(n, s)?, s, env);
        }
        let (kind, f) = registry::lookup(&n.rule).ok_or_else(|| self.rej(Reason::UnknownRule(n.rule.to_string())))?;
        match (registry::role(&n.rule), self.lower) {
            (registry::RuleRole::Lower, None) => return Err(self.rej(Reason::WrongRole { certificate: "upper" })),
            (registry::RuleRole::Upper, Some(_)) => return Err(self.rej(Reason::WrongRole { certificate: "lower" })),
            _ => {}
        }
        let is_stmt_rule = kind == RuleKind::Statement;
        match s {
            Subject::Stmt(_) => {
                if !is_stmt_rule {
                    return Err(self.rej(Reason::WrongRuleKind { expected: "statement" }));
                }
                let pre = n.pre.as_deref().ok_or_else(|| self.rej(Reason::MissingField("pre")))?;
                let post = n.post.as_deref().ok_or_else(|| self.rej(Reason::MissingField("post")))?;
                if n.cost.is_some() {
                    return Err(self.rej(Reason::UnexpectedField("cost".to_string())));
                }
                self.wf_once(pre, "pre")?;
                self.wf_once(post, "post")?;
                f(self, n, s, pre)
            }
            _ => {
                if is_stmt_rule {
                    return Err(self.rej(Reason::WrongRuleKind { expected: "expression" }));
                }
                if n.cost.is_none() && !self.cost_optional {
                    return Err(self.rej(Reason::MissingField("cost")));
                }
                if n.pre.is_some() || n.post.is_some() {
                    let f = if n.pre.is_some() { "pre" } else { "post" };
                    return Err(self.rej(Reason::UnexpectedField(f.to_string())));
                }
                let c = f(self, n, s, env)?;
                if let Some(claimed) = n.cost.as_ref().filter(|claimed| **claimed != c) {
                    return Err(
                        self.rej(Reason::CostMismatch { claimed: claimed.to_string(), computed: c.to_string() })
                    );
                }
                Ok(c)
            }
        }
    }

    /// The canonical derivation an implicit node `_` about `s` stands for (format 6,
    /// spec/certificate.md "Implicit expressions, default witnesses"): `OQ:*` by the
    /// operand's kind, `EQ:OP`/`EQ:UOP`/`EQ:LARRAY` with implicit children; a global or
    /// shared read (its `(n N)` must be written) is `MissingField("n")`, a statement
    /// `WrongRuleKind`. The derivation depends on the rule alone (a node's `line` is not
    /// read by any rule), so each is built once and shared ([`Ctx::implicit_nodes`]).
    fn implicit(&self, n: &Node, s: Subject<'_>) -> Result<Rc<Node>, Rejection> {
        let hole = || Node { rule: syntax::Name::Known(syntax::IMPLICIT), line: n.line, ..Node::default() };
        let (rule, k) = match s {
            Subject::Stmt(_) => return Err(self.rej(Reason::WrongRuleKind { expected: "statement" })),
            Subject::Opd(o) | Subject::Expr(Expr::Opd(o)) => match o {
                Opd::Var(_) => ("OQ:VAR", 0),
                Opd::Tid(_) => ("OQ:TID", 0),
                Opd::Param(_) => ("OQ:PARAM", 0),
                Opd::Int(_) | Opd::Bool(_) | Opd::Float(_) => ("OQ:CONST", 0),
            },
            Subject::Expr(Expr::Bin(..)) => ("EQ:OP", 2),
            Subject::Expr(Expr::Un(..)) => ("EQ:UOP", 1),
            Subject::Expr(Expr::Read(a, _)) if self.prog.array(a).is_some_and(|d| d.space == Space::Local) => {
                ("EQ:LARRAY", 1)
            }
            Subject::Expr(Expr::Read(..)) => return Err(self.rej(Reason::MissingField("n"))),
        };
        if let Some(built) = self.implicit_nodes.borrow().get(rule) {
            return Ok(Rc::clone(built));
        }
        let built = Rc::new(Node {
            rule: syntax::Name::Known(rule),
            line: n.line,
            children: (0..k).map(|_| hole()).collect(),
            ..Node::default()
        });
        self.implicit_nodes.borrow_mut().insert(rule, Rc::clone(&built));
        Ok(built)
    }

    /// The node's `post` (present: checked by [`Ctx::check_node`]).
    pub fn post<'n>(&self, n: &'n Node) -> Result<&'n Assn, Rejection> {
        n.post.as_deref().ok_or_else(|| self.rej(Reason::MissingField("post")))
    }

    /// Requires exactly `K` children and only the listed fields (besides `pre`, `post`,
    /// `cost`); field keys are `n`, `frame`, `entail NAME`, `rewrite NAME`.
    pub fn shape<'n, const K: usize>(&self, n: &'n Node, fields: &[&str]) -> Result<&'n [Node; K], Rejection> {
        for f in &n.fields {
            if !["pre", "post", "cost"].contains(&f.as_str()) && !fields.contains(&f.as_str()) {
                return Err(self.rej(Reason::UnexpectedField(f.to_string())));
            }
        }
        n.children
            .as_slice()
            .try_into()
            .map_err(|_| self.rej(Reason::ChildCount { expected: K, found: n.children.len() }))
    }

    /// A statement child's `pre` and `post` (checked present when the child is checked).
    pub fn pp<'n>(&self, c: &'n Node) -> Result<(&'n Assn, &'n Assn), Rejection> {
        match (&c.pre, &c.post) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(self.rej(Reason::MissingField("pre"))),
        }
    }

    /// [`Ctx::wf`] of an assertion of the certificate, once per assertion.
    /// Its `P` and `D` parts ([`Ctx::wf_p`], [`Ctx::wf_d`]) are checked once per shared
    /// list or map, in the order of [`Ctx::wf`], so a rejection is the one [`Ctx::wf`] gives.
    fn wf_once(&self, a: &Assn, which: &'static str) -> Result<(), Rejection> {
        let key = a as *const Assn as usize;
        if !self.wf_ok.borrow().contains(&key) {
            let (pk, dk) = (Rc::as_ptr(&a.p) as usize, Rc::as_ptr(&a.d) as usize);
            if !self.wf_parts_ok.borrow().0.contains_key(&pk) {
                self.wf_p(a, which)?;
                self.wf_parts_ok.borrow_mut().0.insert(pk, Rc::clone(&a.p));
            }
            if !self.wf_parts_ok.borrow().1.contains_key(&dk) {
                self.wf_d(a, which)?;
                self.wf_parts_ok.borrow_mut().1.insert(dk, Rc::clone(&a.d));
            }
            self.wf_q(a, which)?;
            self.wf_ok.borrow_mut().insert(key);
        }
        Ok(())
    }

    /// Well-formedness of an assertion (spec/logic.md §1).
    pub fn wf(&self, a: &Assn, which: &'static str) -> Result<(), Rejection> {
        self.wf_p(a, which)?;
        self.wf_d(a, which)?;
        self.wf_q(a, which)
    }

    /// The part of [`Ctx::wf`] about `P` alone: its variables and its lane constraints.
    fn wf_p(&self, a: &Assn, which: &'static str) -> Result<(), Rejection> {
        let bad = |problem| self.rej(Reason::IllFormed { which, problem });
        let p = self.prog;
        for c in a.p.iter() {
            for v in c.lin.terms.keys() {
                let ok = p.local(v) == Some(Ty::Int)
                    || p.param(v) == Some(Ty::Int)
                    || ["threadIdx.x", "threadIdx.y", "threadIdx.z"].contains(&v.as_str());
                if !ok {
                    return Err(bad(WfProblem::BadConstraintVar(v.clone())));
                }
            }
            let integral = c.lin.c.is_integer() && c.lin.terms.values().all(Rat::is_integer);
            if c.lane.is_some() && (!integral || c.lin.terms.keys().any(|v| !TIDS.contains(&v.as_str()))) {
                return Err(bad(WfProblem::BadLaneConstraint(c.to_string())));
            }
        }
        Ok(())
    }

    /// The part of [`Ctx::wf`] about `D` alone: an entry per local, `int` or uniform.
    fn wf_d(&self, a: &Assn, which: &'static str) -> Result<(), Rejection> {
        let bad = |problem| self.rej(Reason::IllFormed { which, problem });
        let p = self.prog;
        for (x, d) in a.d.iter() {
            match p.local(x) {
                None => return Err(bad(WfProblem::DepNotLocal(x.clone()))),
                Some(Ty::Int) => {}
                Some(_) => {
                    if *d != Dep::unknown_uniform() {
                        return Err(bad(WfProblem::NonIntDep(x.clone())));
                    }
                }
            }
        }
        Ok(())
    }

    /// The part of [`Ctx::wf`] about `Q` (under `D`): its variables, uniform atoms and
    /// non-negative coefficients.
    fn wf_q(&self, a: &Assn, which: &'static str) -> Result<(), Rejection> {
        let bad = |problem| self.rej(Reason::IllFormed { which, problem });
        let p = self.prog;
        for v in a.q.vars() {
            let linear_local = p.local(v) == Some(Ty::Int) && a.d.get(v).is_some_and(Dep::linear);
            if !(linear_local || p.param(v) == Some(Ty::Int) || TIDS.contains(&v.as_str())) {
                return Err(bad(WfProblem::BadPotentialVar(v.clone())));
            }
        }
        for atom in a.q.terms.keys().flatten() {
            if !atom.forms().into_iter().all(|l| uniform_form(&a.d, l)) {
                return Err(bad(WfProblem::NonUniformAtom(atom.to_string())));
            }
        }
        if let Some(t) = a.q.negative_term() {
            return Err(bad(WfProblem::NegativeCoefficient(t)));
        }
        Ok(())
    }
}

/// Runs `f`; a panic inside it becomes `on_panic(`[`Reason::InternalPanic`]`)` instead of
/// unwinding further (the per-node guard of [`Ctx::check_node_in`]: a kernel bug on some
/// input is a rejection naming the node and rule, never an abort).
pub fn guarded<T>(
    f: impl FnOnce() -> Result<T, Rejection>,
    on_panic: impl FnOnce(Reason) -> Rejection,
) -> Result<T, Rejection> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(on_panic(crate::panic_reason(&*p))),
    }
}

/// The names of the thread-index variables.
pub const TIDS: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];

/// Whether the form `l` is uniform under `d` (spec/logic.md §1): its variables are `int`
/// parameters, `threadIdx.*` or locals with linear entries (checked by the caller), and
/// `Σ_{v local} a_v·k_v + (a_threadIdx.x, a_threadIdx.y, a_threadIdx.z) = 0`.
pub fn uniform_form(d: &DepMap, l: &Lin) -> bool {
    let mut k: [Rat; 3] = Default::default();
    for (v, a) in &l.terms {
        if let Some(ki) = TIDS.iter().position(|t| t == v).and_then(|i| k.get_mut(i)) {
            *ki += a;
        } else if let Some(e) = d.get(v) {
            if !e.linear() {
                return false;
            }
            // a zero coefficient adds nothing (skipped: an exact product and sum less)
            for (ki, ke) in k.iter_mut().zip(&e.k).filter(|(_, ke)| !ke.is_zero()) {
                *ki += a * Rat::from_integer(ke.clone());
            }
        }
    }
    k.iter().all(Zero::is_zero)
}

/// `fix_P(y)` (spec/logic.md §2): the integer `c` with `P ⇒ y = c` read off the
/// linear constraints of `p` that mention `y` alone (an `eq`, or an upper and a lower bound that
/// meet). `None` when `p` does not pin `y` to one integer this way.
pub fn fixed(p: &[Cstr], y: &str) -> Option<BigInt> {
    let (mut lo, mut hi): (Option<Rat>, Option<Rat>) = (None, None);
    for c in p {
        let Some(a) = c.lin.terms.get(y) else { continue };
        if c.lin.terms.len() != 1 || a.is_zero() || c.lane.is_some() {
            continue;
        }
        // a·y + c₀ ≤ 0 (or = 0): y ≤ −c₀/a when a > 0, y ≥ −c₀/a when a < 0.
        let v = -&c.lin.c / a;
        if c.eq || a.is_positive() {
            hi = Some(hi.map_or(v.clone(), |h: Rat| h.min(v.clone())));
        }
        if c.eq || a.is_negative() {
            lo = Some(lo.map_or(v.clone(), |l: Rat| l.max(v)));
        }
    }
    match (lo, hi) {
        (Some(l), Some(h)) if l == h && l.is_integer() => Some(l.to_integer()),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The per-node guard turns a panic into [`Reason::InternalPanic`] with its message, at
    /// the rejection the caller builds (no rule panics on any input the tests know, so the
    /// guard is exercised directly).
    #[test]
    fn guard_turns_a_panic_into_a_rejection() {
        let at = |reason| Rejection { rule: "Q:SEQ".into(), node_path: "0.1".into(), reason };
        let r = guarded(|| -> Result<(), Rejection> { panic!("index out of range") }, at).unwrap_err();
        assert_eq!(r, at(Reason::InternalPanic("index out of range".into())));
        assert_eq!(
            r.to_string(),
            "rule Q:SEQ at node 0.1: internal error (a kernel panic, caught): index out of range"
        );
        assert_eq!(guarded(|| Ok(3), at), Ok(3));
    }
}
