//! The checking context and the computed notions of spec/logic.md §2 shared by the rules:
//! `lin`, `cond`, uniformity, `dep_D`, assertion comparison, Farkas entailment lists,
//! potential domination by rewrites, access bounds; plus program typing and the root
//! conditions (spec/logic.md §5).

pub mod expr;
pub mod lower;
pub mod nosplit;
pub mod stmt;
pub mod wrap;

use crate::access::{self, Kind};
use crate::arith::{atom_arg, check_cut, check_farkas, rat, Atom, Cstr, Dep, EntryKind, FarkasProblem, Lin, Poly, Rat};
use crate::metric::{self, Metric};
use crate::registry::{self, RuleKind};
use crate::syntax::{self, Assn, Cg, Expr, Node, Opd, Program, Rw, Space, Stmt, Ty};
use crate::{assume, sexp, typing, Reason, Rejection, Verdict, WfProblem};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};

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

/// The memo key of [`Ctx::access`]: everything `access::n_star` and `access::range_bound`
/// read — the constraints of `P` over `threadIdx.*` alone, the dependence's kind,
/// coefficients, modulus and residue class, the range entry's width, the element size
/// and the hardware function.
type NStarKey = (Vec<Cstr>, Option<([BigInt; 3], EntryKind, BigInt, BigInt)>, Option<BigInt>, u32, Kind);

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
    /// The filter of each node on the stack (spec/logic.md §4a): the condition of the
    /// Q:WHILEEXIT1/2 loop whose body spine the node is on, `None` for ordinary nodes.
    filters: RefCell<Vec<Option<Expr>>>,
    /// Set by Q:IFEXIT4; Q:WHILEEXIT1/2 clear it before their body and read it after.
    pub divergent_exit: Cell<bool>,
    /// Set by Q:SEQ before each child but the first: the child's address and the statement
    /// of the previous child (what Q:WHILEGUARD reads as the guard's write before its loop).
    pub prev: RefCell<Option<(usize, Stmt)>>,
    count: Cell<usize>,
    /// Memoized `N*` values ([`Ctx::access`]).
    nstar: RefCell<BTreeMap<NStarKey, u64>>,
    /// The addresses of the certificate's assertions found well-formed ([`Ctx::wf`]
    /// depends on the assertion alone; shared assertions are checked once). Every such
    /// assertion belongs to the certificate, which outlives the check, so an address is
    /// never reused for another assertion.
    wf_ok: RefCell<HashSet<usize>>,
    /// Format ≥ 5: an expression node may omit `(cost C)`; its cost is then the recomputed
    /// one (a written cost must still equal it).
    pub cost_optional: bool,
    /// `Some(W)`: a lower-bound certificate about warp `W` (spec/logic.md §4b).
    pub lower: Option<u32>,
}

impl Ctx<'_> {
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
        self.stack.borrow_mut().push((n.rule.clone(), idx));
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
        self.stack.borrow_mut().pop();
        r
    }

    /// The filter of the node being checked (`None`: ordinary position).
    pub fn filter(&self) -> Option<Expr> {
        self.filters.borrow().last().cloned().flatten()
    }

    fn check_node_inner(&self, n: &Node, s: Subject<'_>, env: &Assn) -> Result<Rat, Rejection> {
        if n.rule == syntax::IMPLICIT {
            // format 6: `_` is the canonical derivation of the expression, checked as written
            return self.check_node_inner(&self.implicit(n, s)?, s, env);
        }
        let (kind, f) = registry::lookup(&n.rule).ok_or_else(|| self.rej(Reason::UnknownRule(n.rule.clone())))?;
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
    /// `WrongRuleKind`.
    fn implicit(&self, n: &Node, s: Subject<'_>) -> Result<Node, Rejection> {
        let hole = || Node { rule: syntax::IMPLICIT.to_string(), line: n.line, ..Node::default() };
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
        Ok(Node { rule: rule.to_string(), line: n.line, children: (0..k).map(|_| hole()).collect(), ..Node::default() })
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
                return Err(self.rej(Reason::UnexpectedField(f.clone())));
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
    fn wf_once(&self, a: &Assn, which: &'static str) -> Result<(), Rejection> {
        let key = a as *const Assn as usize;
        if !self.wf_ok.borrow().contains(&key) {
            self.wf(a, which)?;
            self.wf_ok.borrow_mut().insert(key);
        }
        Ok(())
    }

    /// Well-formedness of an assertion (spec/logic.md §1).
    pub fn wf(&self, a: &Assn, which: &'static str) -> Result<(), Rejection> {
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

    /// `lin(o)` (spec/logic.md §2).
    pub fn lin_opd(&self, o: &Opd) -> Option<Lin> {
        match o {
            Opd::Var(x) if self.prog.local(x) == Some(Ty::Int) => Some(Lin::var(x)),
            Opd::Param(x) if self.prog.param(x) == Some(Ty::Int) => Some(Lin::var(x)),
            Opd::Int(n) => Some(Lin::constant(Rat::from_integer(n.clone()))),
            Opd::Tid(d) => TIDS.get(*d).map(|t| Lin::var(t)),
            _ => None,
        }
    }

    /// `lin(e)` (spec/logic.md §2).
    pub fn lin_expr(&self, e: &Expr) -> Option<Lin> {
        let int = |o: &Opd| match o {
            Opd::Int(n) => Some(Rat::from_integer(n.clone())),
            _ => None,
        };
        match e {
            Expr::Opd(o) => self.lin_opd(o),
            Expr::Bin(op, a, b) => {
                let (la, lb) = (self.lin_opd(a)?, self.lin_opd(b)?);
                match op.as_str() {
                    "+" => Some(la.add_scaled(&lb, &Rat::one())),
                    "-" => Some(la.add_scaled(&lb, &-Rat::one())),
                    "*" => match (int(a), int(b)) {
                        (Some(c), _) => Some(lb.scale(&c)),
                        (_, Some(c)) => Some(la.scale(&c)),
                        _ => None,
                    },
                    // `a << c` = `2^c·a` for `0 ≤ c < 64` (EC:OP: exact, an overflow errs)
                    "<<" => match b {
                        Opd::Int(c) => {
                            let c = c.to_u32().filter(|c| *c < 64)?;
                            Some(la.scale(&Rat::from_integer(BigInt::from(2).pow(c))))
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
            Expr::Un(op, a) if op == "neg" => Some(self.lin_opd(a)?.scale(&-Rat::one())),
            _ => None,
        }
    }

    /// `(op, a − b)` when `e` is a comparison of linear operands.
    fn comparison(&self, e: &Expr) -> Option<(String, Lin)> {
        match e {
            Expr::Bin(op, a, b) if ["<", "<=", ">", ">=", "==", "!="].contains(&op.as_str()) => {
                let d = self.lin_opd(a)?.add_scaled(&self.lin_opd(b)?, &-Rat::one());
                Some((op.clone(), d))
            }
            _ => None,
        }
    }

    /// `cond(e)` (`neg = false`) or `cond(¬e)` (`neg = true`), spec/logic.md §2's table.
    pub fn cond(&self, e: &Expr, neg: bool) -> Vec<Cstr> {
        let Some((op, d)) = self.comparison(e) else {
            return Vec::new();
        };
        let one = Rat::one();
        let le = |l: Lin| vec![Cstr::le(l)];
        let ab1 = d.add_scaled(&Lin::constant(one.clone()), &one); // a − b + 1
        let ba = d.scale(&-one.clone()); // b − a
        let ba1 = ba.add_scaled(&Lin::constant(one.clone()), &one); // b − a + 1
        match (op.as_str(), neg) {
            ("<", false) | (">=", true) => le(ab1),
            ("<", true) | (">=", false) => le(ba),
            ("<=", false) | (">", true) => le(d),
            ("<=", true) | (">", false) => le(ba1),
            ("==", false) | ("!=", true) => vec![Cstr::equal(d)],
            _ => Vec::new(),
        }
    }

    /// `lane_D(e)` (`neg = false`) or `lane_D(¬e)` (`neg = true`), spec/logic.md §2 "Lane
    /// facts": for `x == c` / `x != c` with `D(x) = (rem x k r m)` and `dep_D(c)` an exact
    /// integer, the lane constraint `(k·tid + r) mod m ∈ {c mod m}` for an equality, and
    /// `∈ {1 … m−1}` for a disequality with `c = 0` and `m ≤` [`LANE_MODULUS_LIMIT`].
    pub fn lane(&self, d: &BTreeMap<String, Dep>, e: &Expr, neg: bool) -> Vec<Cstr> {
        let Expr::Bin(op, a, b) = e else { return Vec::new() };
        let equal = match (op.as_str(), neg) {
            ("==", false) | ("!=", true) => true,
            ("!=", false) | ("==", true) => false,
            _ => return Vec::new(),
        };
        let rem_of = |o: &Opd| match o {
            Opd::Var(x) => d.get(x).filter(|e| e.kind == EntryKind::Rem),
            _ => None,
        };
        let exact = |o: &Opd| Self::dep_opd(d, o).and_then(|e| e.as_exact().cloned());
        let (ent, c) = match (rem_of(a), rem_of(b)) {
            (Some(ent), _) if exact(b).is_some() => (ent, exact(b)),
            (_, Some(ent)) => (ent, exact(a)),
            _ => return Vec::new(),
        };
        let Some(c) = c else { return Vec::new() };
        let m = ent.g.clone();
        let rs: Vec<BigInt> = if equal {
            vec![c.mod_floor(&m)]
        } else if c.is_zero() && m <= BigInt::from(LANE_MODULUS_LIMIT) {
            num_iter_range(&m)
        } else {
            return Vec::new();
        };
        let mut lin = Lin::constant(Rat::from_integer(ent.r.clone()));
        for (t, k) in TIDS.iter().zip(&ent.k) {
            lin.add_term(t, &Rat::from_integer(k.clone()));
        }
        vec![Cstr { eq: false, lin, lane: Some(crate::arith::Lane { m, rs }) }]
    }

    /// `P ∧ e` (`neg = false`) or `P ∧ ¬e` (`neg = true`) in the context of the pre's map
    /// `d`: `P`, then `cond`, then `lane_D` (spec/logic.md §2).
    pub fn and_cond(&self, p: &[Cstr], d: &BTreeMap<String, Dep>, e: &Expr, neg: bool) -> Vec<Cstr> {
        p.iter().cloned().chain(self.cond(e, neg)).chain(self.lane(d, e, neg)).collect()
    }

    /// `P ⇒ e` / `P ⇒ ¬e` targets for Q:IF2 / Q:IF3: `cond` of a linear comparison whose
    /// operator is allowed (`<,<=,>,>=,==` for `e`; `<,<=,>,>=,!=` for `¬e`).
    pub fn decided_cond(&self, e: &Expr, neg: bool) -> Result<Vec<Cstr>, Rejection> {
        let excluded = if neg { "==" } else { "!=" };
        match (self.comparison(e), e) {
            (Some((op, _)), _) if op != excluded => Ok(self.cond(e, neg)),
            (_, Expr::Bin(op, ..)) => Err(self.rej(Reason::NoCondition(op.clone()))),
            _ => Err(self.rej(Reason::NoCondition(e.to_string()))),
        }
    }

    /// `P ⇒ e unif` (spec/logic.md §2): every operand constant, parameter or in `X(D)`.
    pub fn uniform(&self, d: &BTreeMap<String, Dep>, e: &Expr) -> Result<(), Rejection> {
        let opds: Vec<&Opd> = match e {
            Expr::Opd(o) | Expr::Un(_, o) | Expr::Read(_, o) => vec![o],
            Expr::Bin(_, a, b) => vec![a, b],
        };
        for o in opds {
            let ok = match o {
                Opd::Var(x) => d.get(x).is_some_and(Dep::uniform),
                Opd::Tid(_) => false,
                _ => true,
            };
            if !ok {
                return Err(self.rej(Reason::NotUniform(o.to_string())));
            }
        }
        Ok(())
    }

    /// `dep_D(o)`; `None` is `⊤` (also for a local with a remainder entry).
    pub fn dep_opd(d: &BTreeMap<String, Dep>, o: &Opd) -> Option<Dep> {
        match o {
            Opd::Int(n) => Some(Dep::exact(n.clone())),
            Opd::Param(_) | Opd::Bool(_) | Opd::Float(_) => Some(Dep::unknown_uniform()),
            Opd::Tid(i) => {
                let mut k: [BigInt; 3] = Default::default();
                if let Some(k) = k.get_mut(*i) {
                    *k = BigInt::one();
                }
                Some(Dep::norm(k, BigInt::zero(), BigInt::zero()))
            }
            Opd::Var(x) => d.get(x).filter(|e| e.linear()).cloned(),
        }
    }

    /// `dep_D(e)` (spec/logic.md §2); `None` is `⊤`. Operands of `*` (when neither side is
    /// an exact constant) and of opaque operators are first made warp-uniform by
    /// [`Ctx::collapse`] when their thread dependence is only on warp-uniform dimensions.
    pub fn dep_expr(&self, d: &BTreeMap<String, Dep>, e: &Expr) -> Option<Dep> {
        let col = |x: &Option<Dep>| x.as_ref().map(|x| self.collapse(x));
        let opaque =
            |ds: &[Option<Dep>]| ds.iter().all(|x| x.as_ref().is_some_and(Dep::uniform)).then(Dep::unknown_uniform);
        match e {
            Expr::Opd(o) => Self::dep_opd(d, o),
            Expr::Read(_, o) => opaque(&[col(&Self::dep_opd(d, o))]),
            Expr::Un(op, o) => {
                let x = Self::dep_opd(d, o);
                match (op.as_str(), &x) {
                    ("neg", Some(x)) => Some(x.scale(&-BigInt::one())),
                    _ => opaque(&[col(&x)]),
                }
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (Self::dep_opd(d, a), Self::dep_opd(d, b));
                match (op.as_str(), &x, &y) {
                    ("+", Some(x), Some(y)) => Some(x.add(y, 1)),
                    ("-", Some(x), Some(y)) => Some(x.add(y, -1)),
                    ("*", Some(x), Some(y)) => match (x.as_exact(), y.as_exact()) {
                        (Some(c), _) => Some(y.scale(c)),
                        (_, Some(c)) => Some(x.scale(c)),
                        _ => {
                            let (x, y) = (self.collapse(x), self.collapse(y));
                            (x.uniform() && y.uniform()).then(|| x.mul_uniform(&y))
                        }
                    },
                    ("<<", Some(x), Some(y)) => match y.as_exact().and_then(ToPrimitive::to_u32) {
                        Some(c) if c < 62 => Some(x.scale(&(BigInt::one() << c))),
                        _ => opaque(&[col(&Some(x.clone())), col(&Some(y.clone()))]),
                    },
                    (">>", Some(x), Some(y)) => match y.as_exact().and_then(ToPrimitive::to_u32) {
                        Some(c) if c < 62 && !self.collapse(x).uniform() && self.shift_uniform(x, c) => {
                            Some(Dep::unknown_uniform())
                        }
                        _ => opaque(&[col(&Some(x.clone())), col(&Some(y.clone()))]),
                    },
                    _ => opaque(&[col(&x), col(&y)]),
                }
            }
        }
    }

    /// The `>>` rule of `dep_D` (spec/logic.md §2): for every warp and every `ρ ∈ [0, 2^c)`
    /// with `ρ ≡ r (mod gcd(g, 2^c))`, `⌊(k·tid(l) + ρ) / 2^c⌋` is the same on all lanes `l`.
    /// `false` when the enumeration would exceed [`access::WORK_LIMIT`].
    pub fn shift_uniform(&self, x: &Dep, c: u32) -> bool {
        let p = BigInt::one() << c;
        let step = if x.g.is_zero() { p.clone() } else { x.g.gcd(&p) };
        let rho0 = x.r.mod_floor(&step);
        let count = (&p / &step).to_u64().unwrap_or(u64::MAX);
        let total = access::block_threads(self.block).unwrap_or(u64::MAX);
        if count.saturating_mul(total) > access::WORK_LIMIT {
            return false;
        }
        let warp = u64::from(self.hw[0].max(1));
        let mut start = 0;
        while start < total {
            let end = (start + warp).min(total);
            let offs: Vec<BigInt> = (start..end)
                .map(|t| {
                    let ti = access::thread_index(self.block, t);
                    x.k.iter().zip(ti).map(|(k, i)| k * BigInt::from(i)).sum()
                })
                .collect();
            let mut rho = rho0.clone();
            while rho < p {
                let mut qs = offs.iter().map(|o| (o + &rho).div_floor(&p));
                let q0 = qs.next();
                if qs.any(|q| Some(q) != q0) {
                    return false;
                }
                rho += &step;
            }
            start = end;
        }
        true
    }

    /// Collapse of a dependence on warp-uniform dimensions only (spec/logic.md §2):
    /// `(k, r, g)` with `k_d = 0` for every dimension `d` that is not warp-uniform becomes
    /// `(0, r, gcd(g, k_d …))`, the gcd over the dimensions of extent `B_d ≠ 1` only
    /// (`threadIdx.d = 0` on every thread when `B_d = 1`); any other entry is returned
    /// unchanged.
    pub fn collapse(&self, x: &Dep) -> Dep {
        if x.uniform() || x.k.iter().zip(self.udims).any(|(k, u)| !k.is_zero() && !u) {
            return x.clone();
        }
        let g = x.k.iter().zip(self.block).filter(|(_, b)| *b != 1).fold(x.g.clone(), |g, (k, _)| g.gcd(k));
        Dep::norm(Default::default(), x.r.clone(), g)
    }

    /// `lin_P(e)` (spec/logic.md §2 "Fixed operands"): `lin(e′)` where `e′` is `e` with every
    /// `(var y)` operand fixed by `p` ([`fixed`]) replaced by its value, and a binary integer
    /// operator on two constants evaluated ([`eval_int`]; undefined when the evaluation is).
    pub fn lin_fixed(&self, p: &[Cstr], e: &Expr) -> Option<Lin> {
        let fix = |o: &Opd| match o {
            Opd::Var(y) if self.prog.local(y) == Some(Ty::Int) => fixed(p, y).map_or_else(|| o.clone(), Opd::Int),
            _ => o.clone(),
        };
        match e {
            Expr::Opd(o) => self.lin_opd(&fix(o)),
            Expr::Bin(op, a, b) => match (fix(a), fix(b)) {
                (Opd::Int(x), Opd::Int(y)) if !["+", "-", "*"].contains(&op.as_str()) => {
                    eval_int(op, &x, &y).map(|v| Lin::constant(Rat::from_integer(v)))
                }
                (a, b) => self.lin_expr(&Expr::Bin(op.clone(), a, b)),
            },
            Expr::Un(op, a) => self.lin_expr(&Expr::Un(op.clone(), fix(a))),
            Expr::Read(..) => None,
        }
    }

    /// `ent_P,D(e)`, the entry a Q:VWRITE node may claim for `x ← e` (spec/logic.md §2
    /// "Assigned entry"): `(0, c, 0)` when `lin_P(e)` is the constant `c`; a copy of a
    /// remainder entry; the remainder entry of `a % m`; `dep_D(e)`; else the scaled entry
    /// `scaled_D(e)` when it has a `?` dimension; else the range entry of `width_D(e)`.
    pub fn dep_assigned(&self, pre: &Assn, e: &Expr) -> Option<Dep> {
        if let Some(c) = self.lin_fixed(&pre.p, e).as_ref().and_then(Lin::as_const) {
            if c.is_integer() {
                return Some(Dep::exact(c.to_integer()));
            }
        }
        let linear = self.dep_expr(&pre.d, e);
        let rem = match e {
            Expr::Opd(Opd::Var(y)) => pre.d.get(y).filter(|d| d.kind == EntryKind::Rem).cloned(),
            Expr::Bin(op, a, b) if op == "%" && linear.is_none() => {
                let m = Self::dep_opd(&pre.d, b).and_then(|d| d.as_exact().cloned()).filter(Signed::is_positive);
                match (m, Self::dep_opd(&pre.d, a)) {
                    (Some(m), Some(da)) if da.g.is_multiple_of(&m) => Some(Dep::remainder(da.k, &da.r, m)),
                    _ => None,
                }
            }
            _ => None,
        };
        rem.or(linear)
            .or_else(|| self.scaled_expr(&pre.d, e).filter(|d| !d.linear()))
            .or_else(|| Self::width_expr(&pre.d, e).map(Dep::range))
    }

    /// `scaled_D(o)` (spec/logic.md §2 "Scaled entries"): a local's scaled entry, else
    /// `dep_D(o)` (a linear entry: no `?` dimension).
    pub fn scaled_opd(d: &BTreeMap<String, Dep>, o: &Opd) -> Option<Dep> {
        match o {
            Opd::Var(x) => {
                d.get(x).filter(|e| matches!(e.kind, EntryKind::Scaled(_))).cloned().or_else(|| Self::dep_opd(d, o))
            }
            _ => Self::dep_opd(d, o),
        }
    }

    /// `scaled_D(e)`: sums and differences (`?` on the union of the operands' `?`
    /// dimensions), `neg`, products with an exact side (scaled) or with a side uniform after
    /// collapse (every thread dimension of the other side becomes `?`).
    pub fn scaled_expr(&self, d: &BTreeMap<String, Dep>, e: &Expr) -> Option<Dep> {
        let or = |a: [bool; 3], b: [bool; 3]| {
            let mut r = a;
            for (x, y) in r.iter_mut().zip(b) {
                *x |= y;
            }
            r
        };
        let times =
            |x: &Dep, c: &BigInt| Dep::with_unknown(x.k.clone().map(|k| k * c), x.unknown_dims(), &x.r * c, &x.g * c);
        // x·y with y exact, or y one value in the warp (c₂ ≡ r₂ mod g₂): c₁·c₂ as for uniforms.
        let prod = |x: &Dep, y: &Dep| match y.as_exact() {
            Some(c) if c.is_zero() => Some(Dep::exact(BigInt::zero())),
            Some(c) => Some(times(x, c)),
            None if y.linear() && self.collapse(y).uniform() => {
                let c = Dep::norm(Default::default(), x.r.clone(), x.g.clone()).mul_uniform(&self.collapse(y));
                let u = or(x.unknown_dims(), x.k.each_ref().map(|k| !k.is_zero()));
                Some(Dep::with_unknown(Default::default(), u, c.r, c.g))
            }
            None => None,
        };
        match e {
            Expr::Opd(o) => Self::scaled_opd(d, o),
            Expr::Un(op, o) if op == "neg" => Some(times(&Self::scaled_opd(d, o)?, &-BigInt::one())),
            Expr::Bin(op, a, b) => {
                let (x, y) = (Self::scaled_opd(d, a)?, Self::scaled_opd(d, b)?);
                let s = match op.as_str() {
                    "+" => BigInt::one(),
                    "-" => -BigInt::one(),
                    "*" => return prod(&x, &y).or_else(|| prod(&y, &x)),
                    _ => return None,
                };
                let mut k = x.k.clone();
                for (kd, yd) in k.iter_mut().zip(&y.k) {
                    *kd += &s * yd;
                }
                let u = or(x.unknown_dims(), y.unknown_dims());
                Some(Dep::with_unknown(k, u, &x.r + &s * &y.r, x.g.gcd(&y.g)))
            }
            _ => None,
        }
    }

    /// `width_D(o)` (spec/logic.md §2 "Widths"): 0 for a uniform value, `w` for a local with
    /// a range entry.
    pub fn width_opd(d: &BTreeMap<String, Dep>, o: &Opd) -> Option<BigInt> {
        match (Self::dep_opd(d, o), o) {
            (Some(x), _) if x.uniform() => Some(BigInt::zero()),
            (_, Opd::Var(x)) => d.get(x).filter(|e| e.kind != EntryKind::Rem).and_then(Dep::window),
            _ => None,
        }
    }

    /// `width_D(e)`: a range local; `a & n` for an exact `n ≥ 0` (`0 ≤ v & n ≤ n`); `a % m` for
    /// an exact `m ≥ 1` (`2m − 2`: `−m < a % m < m`); sums and differences of operands with
    /// widths; `neg`.
    pub fn width_expr(d: &BTreeMap<String, Dep>, e: &Expr) -> Option<BigInt> {
        let exact_nonneg =
            |o: &Opd| Self::dep_opd(d, o).and_then(|x| x.as_exact().cloned()).filter(|n| !n.is_negative());
        match e {
            Expr::Opd(o @ Opd::Var(_)) => Self::width_opd(d, o).filter(|_| Self::dep_opd(d, o).is_none()),
            Expr::Bin(op, a, b) if op == "&" => exact_nonneg(b).or_else(|| exact_nonneg(a)),
            // C's truncating `a % m`, `m ≥ 1`: `−m < a % m < m`
            Expr::Bin(op, _, b) if op == "%" => exact_nonneg(b).filter(|m| !m.is_zero()).map(|m| 2 * m - 2),
            Expr::Bin(op, a, b) if op == "+" || op == "-" => Some(Self::width_opd(d, a)? + Self::width_opd(d, b)?),
            Expr::Un(op, a) if op == "neg" => Self::width_opd(d, a),
            _ => None,
        }
    }

    /// Compares two assertions component by component (P as lists, D as maps, Q normalized).
    pub fn same(&self, a: &Assn, b: &Assn, left: &'static str, right: &'static str) -> Result<(), Rejection> {
        self.same_p(&a.p, &b.p, left, right)?;
        self.same_d(&a.d, &b.d, left, right)?;
        self.same_q(&a.q, &b.q, left, right)
    }

    /// `P` list equality.
    pub fn same_p(&self, a: &[Cstr], b: &[Cstr], left: &'static str, right: &'static str) -> Result<(), Rejection> {
        if std::ptr::eq(a, b) || a == b {
            return Ok(());
        }
        let show = |p: &[Cstr]| p.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
        Err(self.rej(Reason::Differs { left, right, component: "P", left_val: show(a), right_val: show(b) }))
    }

    /// `D` set equality.
    pub fn same_d(
        &self,
        a: &BTreeMap<String, Dep>,
        b: &BTreeMap<String, Dep>,
        left: &'static str,
        right: &'static str,
    ) -> Result<(), Rejection> {
        if std::ptr::eq(a, b) || a == b {
            return Ok(());
        }
        let show = |d: &BTreeMap<String, Dep>| d.iter().map(|(x, e)| format!("{x}:{e}")).collect::<Vec<_>>().join(", ");
        Err(self.rej(Reason::Differs { left, right, component: "D", left_val: show(a), right_val: show(b) }))
    }

    /// Potential equality after normalization.
    pub fn same_q(&self, a: &Poly, b: &Poly, left: &'static str, right: &'static str) -> Result<(), Rejection> {
        if std::ptr::eq(a, b) || a == b {
            return Ok(());
        }
        Err(self.rej(Reason::Differs {
            left,
            right,
            component: "Q",
            left_val: a.to_string(),
            right_val: b.to_string(),
        }))
    }

    /// `a ≥ b` pointwise, by coefficients alone: `a − b` (normalized) has no negative
    /// coefficient. No rewrites, so it holds on every state, whatever `P` says.
    pub fn ge_pointwise(&self, a: &Poly, b: &Poly, left: &'static str, right: &'static str) -> Result<(), Rejection> {
        match a.add_scaled(b, &-Rat::one()).negative_term() {
            Some(term) => Err(self.rej(Reason::NotPointwiseBelow { left, right, term })),
            None => Ok(()),
        }
    }

    /// `D1 ⊒ D2`: every entry of `d2` is implied by `d1`'s entry for the same local.
    pub fn covers(&self, d1: &BTreeMap<String, Dep>, d2: &BTreeMap<String, Dep>) -> Result<(), Rejection> {
        for (x, want) in d2 {
            match d1.get(x) {
                Some(have) if have.implies(want) => {}
                have => {
                    return Err(self.rej(Reason::DepNotImplied {
                        var: x.clone(),
                        have: have.map_or("absent".to_string(), ToString::to_string),
                        want: want.to_string(),
                    }))
                }
            }
        }
        Ok(())
    }

    /// Checks the witness list `(entail NAME …)`: one valid Farkas witness per target,
    /// each from `source` (an absent list counts as empty).
    pub fn entail<T: std::borrow::Borrow<Cstr>>(
        &self,
        n: &Node,
        name: &str,
        source: &[Cstr],
        targets: &[T],
    ) -> Result<(), Rejection> {
        let empty = syntax::Witnesses::default();
        let ws = n.entails.get(name).unwrap_or(&empty);
        if ws.len() != targets.len() {
            return Err(self.rej(Reason::WitnessCount {
                list: name.to_string(),
                expected: targets.len(),
                found: ws.len(),
            }));
        }
        for (i, (w, t)) in ws.iter().zip(targets).enumerate() {
            let t: &Cstr = t.borrow();
            let checked = match w {
                syntax::Witness::Farkas(f) => check_farkas(source, t, f),
                // an `(ids …)` run's `(farkas (K 1))`: `check_farkas`'s own first case
                // (source K equals the target), else the pair built and checked
                syntax::Witness::Id(k) if source.get(k) == Some(t) => Ok(()),
                syntax::Witness::Id(k) => check_farkas(source, t, &[(k, Rat::one())]),
            };
            checked.map_err(|problem| {
                self.rej(Reason::Farkas { list: format!("entail {name}"), item: i, target: t.to_string(), problem })
            })?;
        }
        Ok(())
    }

    /// `(rewrite NAME …)` justifies `q1 ≥ q2` under `p` (spec/certificate.md): each rewrite's
    /// Farkas witness is checked, the rewrites are applied to `q1` in order, and
    /// `q1' − q2` must have only non-negative coefficients.
    pub fn dominates(&self, n: &Node, name: &'static str, p: &[Cstr], q1: &Poly, q2: &Poly) -> Result<(), Rejection> {
        let q = self.rewritten(n, name, p, q1, false)?;
        match q.add_scaled(q2, &-Rat::one()).negative_term() {
            Some(term) => Err(self.rej(Reason::NotDominated { list: name, term })),
            None => Ok(()),
        }
    }

    /// `q1` after the rewrites of `(rewrite NAME …)` under `p`, each witness checked
    /// (spec/certificate.md); with `equalities_only` (L:WEAK, spec/logic.md §4b) a `mono`
    /// or `imono` rewrite is rejected ([`Reason::InequalityRewrite`]).
    pub fn rewritten(
        &self,
        n: &Node,
        name: &'static str,
        p: &[Cstr],
        q1: &Poly,
        equalities_only: bool,
    ) -> Result<Poly, Rejection> {
        let mut q = q1.clone();
        for (i, r) in n.rewrites.get(name).map(Vec::as_slice).unwrap_or(&[]).iter().enumerate() {
            if equalities_only && matches!(r, Rw::Mono(..) | Rw::IMono(..)) {
                return Err(self.rej(Reason::InequalityRewrite(name)));
            }
            if matches!(r, Rw::Mono(..) | Rw::IMono(..)) {
                // Only on a polynomial without negative coefficients (then replacing an atom
                // by a smaller one decreases it).
                if let Some(term) = q.negative_term() {
                    return Err(self.rej(Reason::NotDominated { list: name, term }));
                }
            }
            let farkas_rej = |target: String, problem| {
                self.rej(Reason::Farkas { list: format!("rewrite {name}"), item: i, target, problem })
            };
            let (atom, by) = match r {
                Rw::IShift(a, d, w) => self.int_rewrite(p, a, None, Some(d), w, farkas_rej)?,
                Rw::IZero(a, w) => self.int_rewrite(p, a, None, None, w, farkas_rej)?,
                Rw::IMono(a1, a2, w) => self.int_rewrite(p, a1, Some(a2), None, w, farkas_rej)?,
                Rw::LHalve(l, w) => lhalve(p, l, w).map_err(|(t, e)| farkas_rej(t, e))?,
                Rw::LDouble(l, m, w1, w2) => ldouble(p, l, m, w1, w2).map_err(|(t, e)| farkas_rej(t, e))?,
                Rw::Mono(l1, l2, w) => {
                    // P ⇒ LIN1 ≥ LIN2, i.e. LIN2 − LIN1 ≤ 0
                    let target = Cstr::le(l2.add_scaled(l1, &-Rat::one()));
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    let mut by = Poly::zero();
                    by.add_term(Rat::one(), vec![l2.clone()]);
                    (Atom::Max0(l1.clone()), by)
                }
                Rw::Shift(l, d, w) => {
                    if d.is_negative() {
                        return Err(self.rej(Reason::Negative { what: "shift", value: d.to_string() }));
                    }
                    // P ⇒ LIN ≥ D, i.e. D − LIN ≤ 0.
                    let target = Cstr::le(Lin::constant(d.clone()).add_scaled(l, &-Rat::one()));
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    let mut by = Poly::constant(d.clone());
                    by.add_term(Rat::one(), vec![l.add_scaled(&Lin::constant(d.clone()), &-Rat::one())]);
                    (Atom::Max0(l.clone()), by)
                }
                Rw::Zero(l, w) => {
                    let target = Cstr::le(l.clone());
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    (Atom::Max0(l.clone()), Poly::zero())
                }
                Rw::Split(l, d, w0, w) => {
                    // P ⇒ D ≥ 0, i.e. −D ≤ 0, and P ⇒ LIN ≥ D, i.e. D − LIN ≤ 0.
                    let t0 = Cstr::le(d.scale(&-Rat::one()));
                    check_farkas(p, &t0, w0).map_err(|e| farkas_rej(t0.to_string(), e))?;
                    let target = Cstr::le(d.add_scaled(l, &-Rat::one()));
                    check_farkas(p, &target, w).map_err(|e| farkas_rej(target.to_string(), e))?;
                    let mut by = Poly::zero();
                    by.add_term(Rat::one(), vec![l.add_scaled(d, &-Rat::one())]);
                    by.add_term(Rat::one(), vec![d.clone()]);
                    (Atom::Max0(l.clone()), by)
                }
            };
            // A = f·A' (canonical), so A' = (1/f)·by.
            if let Ok((f, canon)) = atom.canonical() {
                q = q.replace_atom(&canon, &Poly::zero().add_scaled(&by, &(Rat::one() / f)));
            }
        }
        Ok(q)
    }

    /// An integer rewrite (spec/certificate.md "Integer rewrites"): `(ishift A D CG)`
    /// (`shift = Some(D)`), `(izero A CG)`, or `(imono A A2 CG)` (`a2 = Some(A2)`). The source
    /// is `p`, then the defining facts of `A`'s and `A2`'s arguments ([`atom_arg`], fresh
    /// integer variables `(q0)`, `(q1)`: parentheses never occur in a certificate's names),
    /// then each Chvátal–Gomory cut in order ([`check_cut`]); the final Farkas witness proves
    /// `D − arg(A) ≤ 0`, `arg(A) ≤ 0`, resp. `arg(A2) − arg(A) ≤ 0` from it. Returns `A` and
    /// the polynomial that replaces it (`D + A↓D`, `0`, resp. `A2`).
    fn int_rewrite(
        &self,
        p: &[Cstr],
        a: &Atom,
        a2: Option<&Atom>,
        shift: Option<&Rat>,
        cg: &Cg,
        rej: impl Fn(String, FarkasProblem) -> Rejection,
    ) -> Result<(Atom, Poly), Rejection> {
        let mut source = p.to_vec();
        let (arg1, facts1) = atom_arg(a, "(q0)").map_err(|e| rej(a.to_string(), e))?;
        source.extend(facts1);
        let arg2 = match a2 {
            Some(x) => {
                let (arg, facts) = atom_arg(x, "(q1)").map_err(|e| rej(x.to_string(), e))?;
                source.extend(facts);
                Some(arg)
            }
            None => None,
        };
        for (j, cut) in cg.cuts.iter().enumerate() {
            let c = check_cut(&source, cut).map_err(|e| rej(format!("cut {j}"), e))?;
            source.push(c);
        }
        let (target, by) = match (a2.zip(arg2), shift) {
            (Some((a2, arg2)), _) => {
                let mut by = Poly::zero();
                by.add_term(Rat::one(), vec![a2.clone()]);
                (arg2.add_scaled(&arg1, &-Rat::one()), by)
            }
            (None, Some(d)) => {
                if d.is_negative() {
                    return Err(self.rej(Reason::Negative { what: "shift", value: d.to_string() }));
                }
                let mut by = Poly::constant(d.clone());
                by.add_term(Rat::one(), vec![a.shifted(d).map_err(|e| rej(a.to_string(), e))?]);
                (Lin::constant(d.clone()).add_scaled(&arg1, &-Rat::one()), by)
            }
            (None, None) => (arg1, Poly::zero()),
        };
        let target = Cstr::le(target);
        check_farkas(&source, &target, &cg.farkas).map_err(|e| rej(target.to_string(), e))?;
        Ok((a.clone(), by))
    }

    /// Checks a claimed access count `(n N)` for index `o` of array `arr` (which must be in
    /// `space`) against `N*` under the pre `(P, D)` = `env`; returns `N` as a rational.
    pub fn access(&self, n: &Node, env: &Assn, arr: &str, o: &Opd, space: Space) -> Result<Rat, Rejection> {
        let (a, claimed, kind) = self.access_site(n, arr, space)?;
        // N* reads only the constraints over threadIdx.* alone (access::n_star), so equal
        // (those constraints, dependence, element size, kind) give equal N*: memoized.
        let tid_only: Vec<Cstr> = env
            .p
            .iter()
            .filter(|c| c.lin.terms.keys().all(|v| ["threadIdx.x", "threadIdx.y", "threadIdx.z"].contains(&v.as_str())))
            .cloned()
            .collect();
        // A scaled entry is counted per group of lanes, a range (or wrapped) entry bounds
        // the access by the window's sectors / bank occupancy (spec/logic.md §2).
        let (dep, range) = self.index_entry(&env.d, o, a.bytes, kind);
        // N* reads of a linear entry's residue r only (r·es) mod gcd(g·es, M), and no r of
        // another kind (access::n_star): the key holds that class instead of r
        let class = dep.as_ref().map(|d| {
            let m = BigInt::from(if kind == Kind::MemReads {
                u64::from(self.hw[3])
            } else {
                u64::from(self.hw[1]) * u64::from(self.hw[2])
            });
            let step = (&d.g * BigInt::from(a.bytes)).gcd(&m);
            let r = if !d.linear() {
                BigInt::zero()
            } else if step.is_zero() {
                d.r.clone()
            } else {
                (&d.r * BigInt::from(a.bytes)).mod_floor(&step)
            };
            (d.k.clone(), d.kind, d.g.clone(), r)
        });
        let key: NStarKey = (tid_only, class, range.clone(), a.bytes, kind);
        let cached = self.nstar.borrow().get(&key).copied();
        let star = match cached {
            Some(n) => n,
            None => {
                let mut n = access::n_star(self.block, self.hw, &env.p, dep.as_ref(), a.bytes, kind).map_err(|_| {
                    self.rej(Reason::ResourceLimit { what: "access enumeration work", limit: access::WORK_LIMIT })
                })?;
                if let Some(r) = range.as_ref().and_then(|w| access::range_bound(self.hw, w, a.bytes, kind)) {
                    n = n.min(r);
                }
                self.nstar.borrow_mut().insert(key, n);
                n
            }
        };
        let required = star.max(1);
        if claimed < BigInt::from(required) {
            return Err(self.rej(Reason::AccessBound { claimed: claimed.to_string(), required }));
        }
        Ok(Rat::from_integer(claimed))
    }
}

impl Ctx<'_> {
    /// The array `arr` (which must be in `space`), the node's claimed `(n N)` and the
    /// hardware function of the access ([`Ctx::access`], [`Ctx::access_lower`]).
    fn access_site(&self, n: &Node, arr: &str, space: Space) -> Result<(&syntax::Array, BigInt, Kind), Rejection> {
        let a = self
            .prog
            .array(arr)
            .ok_or_else(|| self.rej(Reason::Undeclared { kind: "array", name: arr.to_string() }))?;
        if a.space != space {
            return Err(self.rej(Reason::WrongSubject {
                expected: match space {
                    Space::Global => "a global array",
                    Space::Shared => "a shared array",
                    Space::Local => "a thread-local array",
                },
                found: format!("array `{arr}`"),
            }));
        }
        let claimed = n.n.clone().ok_or_else(|| self.rej(Reason::MissingField("n")))?;
        Ok((a, claimed, if space == Space::Global { Kind::MemReads } else { Kind::Conflicts }))
    }

    /// The claimed access count of an array node, checked for the certificate's role:
    /// [`Ctx::access`] (`N ≥ N*`, upper) or [`Ctx::access_lower`] (`N ≤ N_W`, lower; the
    /// registry admits EQ:GARRAY/EQ:SARRAY/Q:GWRITE/Q:SWRITE only in upper certificates and
    /// their L: counterparts only in lower ones).
    pub fn count(&self, n: &Node, env: &Assn, arr: &str, o: &Opd, space: Space) -> Result<Rat, Rejection> {
        if self.lower.is_some() {
            self.access_lower(n, env, arr, o, space)
        } else {
            self.access(n, env, arr, o, space)
        }
    }

    /// Checks a lower rule's claimed access count `(n N)` for index `o` of array `arr` (in
    /// `space`): `0 ≤ N ≤ N_W(o)`, the named warp's count under the pre `env`
    /// (spec/logic.md §4b, [`access::n_warp`]); returns `N`.
    pub fn access_lower(&self, n: &Node, env: &Assn, arr: &str, o: &Opd, space: Space) -> Result<Rat, Rejection> {
        let (a, claimed, kind) = self.access_site(n, arr, space)?;
        let warp = self.lower.unwrap_or(0);
        let dep = Self::dep_opd(&env.d, o);
        let allowed = access::n_warp(self.block, self.hw, warp, dep.as_ref(), a.bytes, kind).map_err(|_| {
            self.rej(Reason::ResourceLimit { what: "access enumeration work", limit: access::WORK_LIMIT })
        })?;
        if claimed.is_negative() || claimed > BigInt::from(allowed) {
            return Err(self.rej(Reason::AccessAbove { claimed: claimed.to_string(), allowed }));
        }
        Ok(Rat::from_integer(claimed))
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

/// Largest modulus for which `lane_D(x != 0)` lists the residues `1 … m−1`
/// (spec/logic.md §2; a larger one gives no lane fact).
pub const LANE_MODULUS_LIMIT: u32 = 4096;

/// The residues `1 … m−1`.
fn num_iter_range(m: &BigInt) -> Vec<BigInt> {
    let mut out = Vec::new();
    let mut r = BigInt::one();
    while r < *m {
        out.push(r.clone());
        r += 1;
    }
    out
}

/// The names of the thread-index variables.
pub const TIDS: [&str; 3] = ["threadIdx.x", "threadIdx.y", "threadIdx.z"];

/// Whether the form `l` is uniform under `d` (spec/logic.md §1): its variables are `int`
/// parameters, `threadIdx.*` or locals with linear entries (checked by the caller), and
/// `Σ_{v local} a_v·k_v + (a_threadIdx.x, a_threadIdx.y, a_threadIdx.z) = 0`.
pub fn uniform_form(d: &BTreeMap<String, Dep>, l: &Lin) -> bool {
    let mut k: [Rat; 3] = Default::default();
    for (v, a) in &l.terms {
        if let Some(ki) = TIDS.iter().position(|t| t == v).and_then(|i| k.get_mut(i)) {
            *ki += a;
        } else if let Some(e) = d.get(v) {
            if !e.linear() {
                return false;
            }
            for (ki, ke) in k.iter_mut().zip(&e.k) {
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

/// `a op b` on 64-bit integers exactly as the lock-step semantics computes it
/// (spec/semantics.md, `EC:OP`): `/` and `%` truncate, `>>` is arithmetic, `<<` must not
/// lose bits. `None` for comparisons and logical operators, a value outside `i64`, division
/// by zero or a shift amount outside `0..64` (the semantics errs there).
pub fn eval_int(op: &str, a: &BigInt, b: &BigInt) -> Option<BigInt> {
    let (x, y) = (a.to_i64()?, b.to_i64()?);
    let v = match op {
        "+" => x.checked_add(y)?,
        "-" => x.checked_sub(y)?,
        "*" => x.checked_mul(y)?,
        "/" => x.checked_div(y)?,
        "%" => x.checked_rem(y)?,
        "<<" if (0..64).contains(&y) => i64::try_from(i128::from(x) << y).ok()?,
        ">>" if (0..64).contains(&y) => x >> y,
        "&" => x & y,
        "|" => x | y,
        "^" => x ^ y,
        "min" => x.min(y),
        "max" => x.max(y),
        _ => return None,
    };
    Some(BigInt::from(v))
}

/// The warp-uniform thread dimensions of a launch: `d` is warp-uniform when, in every warp
/// of the block (linear thread ids `W·w … W·w+W−1` below the block size, x fastest),
/// all lanes have the same `threadIdx.d` (spec/logic.md §2).
pub fn warp_uniform_dims(block: [u32; 3], warp: u32) -> [bool; 3] {
    let Some(total) = access::block_threads(block).filter(|&t| t <= access::WORK_LIMIT) else {
        return [false; 3];
    };
    let warp = u64::from(warp.max(1));
    let mut out = [true; 3];
    let mut start = 0;
    while start < total {
        let end = (start + warp).min(total);
        let first = access::thread_index(block, start);
        for t in start..end {
            let ti = access::thread_index(block, t);
            for ((o, a), b) in out.iter_mut().zip(ti).zip(first) {
                *o &= a == b;
            }
        }
        start = end;
    }
    out
}

/// The launch facts of spec/logic.md §5, in order: thread-index bounds, `blockIdx.d ≥ 0`,
/// `gridDim.d ≥ 1`, `blockIdx.d ≤ gridDim.d − 1`.
pub fn launch_facts(p: &Program, block: [u32; 3]) -> Vec<Cstr> {
    let mut v = Vec::new();
    for (d, b) in ["x", "y", "z"].iter().zip(block) {
        let t = Lin::var(&format!("threadIdx.{d}"));
        v.push(Cstr::le(t.scale(&-Rat::one())));
        v.push(Cstr::le(t.add_scaled(&Lin::constant(rat(i64::from(b) - 1)), &-Rat::one())));
    }
    let has = |n: &str| p.params.iter().any(|x| x.1 == n);
    for (_, name) in &p.params {
        if ["blockIdx.x", "blockIdx.y", "blockIdx.z"].contains(&name.as_str()) {
            v.push(Cstr::le(Lin::var(name).scale(&-Rat::one())));
        }
    }
    for (_, name) in &p.params {
        if ["gridDim.x", "gridDim.y", "gridDim.z"].contains(&name.as_str()) {
            v.push(Cstr::le(Lin::var(name).scale(&-Rat::one()).add_scaled(&Lin::constant(Rat::one()), &Rat::one())));
        }
    }
    for d in ["x", "y", "z"] {
        let (b, g) = (format!("blockIdx.{d}"), format!("gridDim.{d}"));
        if has(&b) && has(&g) {
            let l = Lin::var(&b)
                .add_scaled(&Lin::var(&g), &-Rat::one())
                .add_scaled(&Lin::constant(Rat::one()), &Rat::one());
            v.push(Cstr::le(l));
        }
    }
    v
}

/// Parses and checks a whole certificate (the body of [`crate::check`]).
pub fn check_certificate(text: &str) -> Result<Verdict, Rejection> {
    let top = sexp::parse_all(text)?;
    let cert = syntax::certificate(&top)?;
    // the parsed certificate owns its data: the s-expression tree is not needed any more
    drop(top);
    let m =
        metric::standard(&cert.metric).ok_or_else(|| Rejection::parse(Reason::UnknownMetric(cert.metric.clone())))?;
    typing::check_program(&cert.program)?;
    let assumptions = if cert.version >= 2 {
        assume::check(&cert.program, &cert.assumptions).map_err(Rejection::parse)?;
        cert.assumptions.clone()
    } else {
        assume::implicit(&cert.program)
    };
    let cx = Ctx {
        prog: &cert.program,
        m,
        hw: cert.hardware,
        block: cert.block,
        udims: warp_uniform_dims(cert.block, cert.hardware[0]),
        stack: RefCell::new(Vec::new()),
        filters: RefCell::new(Vec::new()),
        divergent_exit: Cell::new(false),
        prev: RefCell::new(None),
        count: Cell::new(0),
        nstar: RefCell::new(BTreeMap::new()),
        wf_ok: RefCell::new(HashSet::new()),
        cost_optional: cert.version >= 5,
        lower: cert.lower,
    };
    if let Some(w) = cert.lower {
        let threads = access::block_threads(cert.block).unwrap_or(u64::MAX);
        if u64::from(w).saturating_mul(u64::from(cert.hardware[0])) >= threads {
            return Err(Rejection {
                rule: "root".to_string(),
                node_path: String::new(),
                reason: Reason::NoSuchWarp { warp: w, threads },
            });
        }
    }
    let root = &cert.root;
    let dummy = Assn { p: Default::default(), d: Default::default(), q: Poly::zero() };
    cx.check_node(root, Subject::Stmt(&cert.program.body), &dummy, 0)?;
    // Root conditions (spec/logic.md §5), reported at node 0.
    cx.stack.borrow_mut().push((root.rule.clone(), 0));
    let pre = root.pre.as_deref().ok_or_else(|| cx.rej(Reason::MissingField("pre")))?;
    let launch = launch_facts(&cert.program, cert.block);
    match &cert.hypotheses {
        // L:HYP (§4b): a lower certificate's root may add parameter hypotheses
        Some(h) => {
            cx.same_p(&lower::l_hyp(&cx, &launch, h)?, &pre.p, "the launch facts and hypotheses", "the root pre")?
        }
        None => cx.same_p(&launch, &pre.p, "the launch facts", "the root pre")?,
    }
    let mut init = BTreeMap::new();
    for (t, x) in &cert.program.locals {
        let d = if *t == Ty::Int { Dep::exact(BigInt::zero()) } else { Dep::unknown_uniform() };
        init.insert(x.clone(), d);
    }
    cx.covers(&init, &pre.d)?;
    if let Some(v) = pre.q.vars().into_iter().find(|v| cert.program.param(v) != Some(Ty::Int)) {
        return Err(cx.rej(Reason::IllFormed { which: "pre", problem: WfProblem::BadPotentialVar(v.clone()) }));
    }
    if cert.bound != pre.q {
        return Err(cx.rej(Reason::BoundMismatch { bound: cert.bound.to_string(), root: pre.q.to_string() }));
    }
    // A lower bound is `Q − Q'` at the root: its post potential must be 0 (§4b).
    let post_q = &cx.post(root)?.q;
    if cert.lower.is_some() && *post_q != Poly::zero() {
        return Err(cx.rej(Reason::LowerPostNotZero(post_q.to_string())));
    }
    Ok(Verdict {
        version: cert.version,
        kernel: cert.program.name.clone(),
        metric: cert.metric.clone(),
        hardware: cert.hardware,
        block: cert.block,
        bound: cert.bound.to_string(),
        bound_poly: cert.bound.clone(),
        assumptions,
        provenance: cert.provenance.clone(),
        nodes_checked: cx.count.get(),
        role: cert.lower.map_or(crate::Role::Upper, crate::Role::Lower),
        hypotheses: cert.hypotheses.iter().flat_map(|h| h.facts.iter().map(ToString::to_string)).collect(),
    })
}

/// The log rewrite `(lhalve LIN FARKAS)` (spec/certificate.md "Log rewrites"): the witness
/// proves `P ⇒ LIN ≥ 2` (target `2 − LIN ≤ 0`); returns the atom `⌊log2 LIN⌋⁺` and the
/// polynomial `1 + ⌊log2 (LIN/2)⌋⁺` that replaces it (`⌊LIN⌋ ≥ 2` and
/// `⌊LIN/2⌋ = ⌊⌊LIN⌋/2⌋`, so `log2` drops by exactly 1). `Err` names the failed target.
fn lhalve(p: &[Cstr], l: &Lin, w: &syntax::Farkas) -> Result<(Atom, Poly), (String, FarkasProblem)> {
    let target = Cstr::le(Lin::constant(Rat::from_integer(BigInt::from(2))).add_scaled(l, &-Rat::one()));
    check_farkas(p, &target, w).map_err(|e| (target.to_string(), e))?;
    let mut by = Poly::constant(Rat::one());
    by.add_term(Rat::one(), vec![Atom::Log(l.scale(&Rat::new(BigInt::one(), BigInt::from(2))))]);
    Ok((Atom::Log(l.clone()), by))
}

/// The log rewrite `(ldouble LIN1 LIN2 FARKAS1 FARKAS2)` (spec/certificate.md "Log
/// rewrites"): `M = LIN2` must have integer coefficients (so `⌊2M⌋ = 2⌊M⌋` on integer
/// states; else [`FarkasProblem::NotIntegral`] with target `M`); the witnesses prove
/// `P ⇒ M ≥ 1` (target `1 − M ≤ 0`) and `P ⇒ 2M ≤ L` (target `2M − L ≤ 0`). Returns the
/// atom `⌊log2 (L/M)⌋⁺` and the polynomial `1 + ⌊log2 (L/2M)⌋⁺` that replaces it
/// (`m = ⌊M⌋ ≥ 1`, `⌊L⌋ ≥ 2m`: `⌊⌊L⌋/2m⌋ = ⌊⌊⌊L⌋/m⌋/2⌋` with `⌊⌊L⌋/m⌋ ≥ 2`, so `log2`
/// drops by exactly 1; Coq `Log.ldouble_sound`). `Err` names the failed target.
fn ldouble(
    p: &[Cstr],
    l: &Lin,
    m: &Lin,
    w1: &syntax::Farkas,
    w2: &syntax::Farkas,
) -> Result<(Atom, Poly), (String, FarkasProblem)> {
    if !m.c.is_integer() || !m.terms.values().all(Rat::is_integer) {
        return Err((m.to_string(), FarkasProblem::NotIntegral(m.to_string())));
    }
    let one = Cstr::le(Lin::constant(Rat::one()).add_scaled(m, &-Rat::one()));
    check_farkas(p, &one, w1).map_err(|e| (one.to_string(), e))?;
    let two = Rat::from_integer(BigInt::from(2));
    let twice = Cstr::le(m.scale(&two).add_scaled(l, &-Rat::one()));
    check_farkas(p, &twice, w2).map_err(|e| (twice.to_string(), e))?;
    let mut by = Poly::constant(Rat::one());
    by.add_term(Rat::one(), vec![Atom::LogQ(l.clone(), m.scale(&two))]);
    Ok((Atom::LogQ(l.clone(), m.clone()), by))
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
