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
//! launch facts, and [`lower_certificate_under`] writes `(lower W (hyp …) (witness …))`
//! from a derivation whose root pre includes them (`analysis::derivation_under`).
//!
//! Untrusted: the kernel checks every certificate this writes (`warpcert_kernel::check`).

use crate::analysis::entail::entails;
use crate::analysis::linear::{cond, dep_operand, lin_expr, lin_fixed};
use crate::certificate::{self, Assn, Field, Judgment, Node, Rewrite};
use crate::core::assertion::poly::Atom;
use crate::core::assertion::{CKind, Cstr, Lin, Poly};
use crate::core::ir::{Expr, Operand, Program, Space, Stmt};
use crate::core::metric::{Metric, Q};
use crate::core::{Hardware, Launch};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};
use warpcert_kernel::access::{n_warp, Kind};

/// Why no lower derivation was made (the statement's rule and what is missing).
pub type LowerError = String;

/// A lower-bound certificate text (spec/certificate.md, version 5 with `(lower W)`) for
/// warp `warp` of `prog`, derived from the upper derivation `upper` (root: the body); its
/// bound is the root's pre potential (a polynomial in the `int` parameters, in the
/// metric's unit). Errors: a construct the lower logic does not cover (module docs).
pub fn lower_certificate(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    upper: &Node,
    warp: u32,
) -> Result<(String, Poly), LowerError> {
    lower_certificate_under(prog, metric, hw, launch, upper, warp, None)
}

/// Parameter hypotheses `H` of a lower-bound certificate and its witness point
/// (spec/logic.md §4b, L:HYP): linear facts over `int` parameters and one integer per
/// parameter the launch facts and `H` mention, at which all of them hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Hypotheses {
    /// The facts `H` (each `L ≤ 0`), in order.
    pub facts: Vec<Cstr>,
    /// The witness point, by parameter name.
    pub witness: Vec<(String, i64)>,
}

impl Hypotheses {
    /// The facts as a reader would write them, `, `-separated: `L ≤ 0` as
    /// `numElements - 256*blockIdx.x >= 256` (the negative terms moved right).
    pub fn text(&self) -> String {
        let term = |v: &str, k: &Q| {
            if k.is_one() {
                v.to_string()
            } else {
                format!("{k}*{v}")
            }
        };
        self.facts
            .iter()
            .map(|c| {
                // L ≤ 0 as Σ(−a_v)·v ≥ c, positive terms first
                let neg = c.lin.scale(&-Q::one());
                let mut pos: Vec<String> = Vec::new();
                let mut negs: Vec<String> = Vec::new();
                for (v, k) in neg.terms.iter() {
                    if k.is_positive() {
                        pos.push(term(v, k));
                    } else {
                        negs.push(term(v, &-k.clone()));
                    }
                }
                let lhs = match (pos.is_empty(), negs.is_empty()) {
                    (false, true) => pos.join(" + "),
                    (false, false) => format!("{} - {}", pos.join(" + "), negs.join(" - ")),
                    (true, _) => format!("-{}", negs.join(" - ")),
                };
                if let CKind::Mod(m, rs) = &c.kind {
                    // a congruence over parameters: `wA ≡ 1 (mod 8)`
                    let rs: Vec<String> = rs.iter().map(i64::to_string).collect();
                    return format!("{} ≡ {} (mod {m})", c.lin, rs.join("|"));
                }
                let op = if matches!(c.kind, CKind::Eq) {
                    "="
                } else {
                    ">="
                };
                format!("{lhs} {op} {}", -neg.c.clone())
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The parameter hypotheses under which every guard `if (e)` of `prog` outside loops whose
/// test is a comparison of linear forms passes on every lane of the block (`launch.block`)
/// at every block index: `cond(e)` with the locals replaced by their linear values (the
/// straight-line assignments before the guard) and each `threadIdx.d` by its worst value
/// (`B_d − 1` for a positive coefficient, else 0), a fact over `int` parameters alone
/// (spec/logic.md §4b, L:HYP; L:IF2 then decides the guard). Guards whose test mentions a
/// local without such a value, or a non-linear one, give nothing. Heuristic and
/// untrusted: the kernel checks the certificate that uses them.
pub fn guard_hypotheses(prog: &Program, launch: &Launch) -> Vec<Cstr> {
    let mut out = Vec::new();
    each_guard(prog, &prog.body, &mut Default::default(), &mut |e, env| {
        let (ce, _, can_t, _) = cond(prog, e);
        for c in ce.iter().filter(|c| can_t && !matches!(c.kind, CKind::Eq)) {
            if let Some(h) = close(prog, &c.lin, env).and_then(|l| worst_lanes(&l, launch)) {
                if !h.is_const() && !out.contains(&Cstr::le(h.clone())) {
                    out.push(Cstr::le(h));
                }
            }
        }
    });
    out
}

/// The parameter hypotheses under which every guard `if (e)` of `prog` outside loops
/// whose test is a comparison of linear forms both ways (not `==`, `!=`) **splits** warp
/// `warp`: `cond(e)` at its first lane and `cond(¬e)` at its last (or the reverse), the
/// locals replaced by their linear values and `threadIdx.d` by the lane's index, facts
/// over `int` parameters alone; an orientation is kept when [`witness_point`] finds a
/// point of `launch_p`, the facts so far and it. L:IFDIV then charges `M^div` for each
/// guard (spec/logic.md §4b). Empty when the warp has fewer than 2 lanes or no guard
/// splits. Heuristic and untrusted, as [`guard_hypotheses`].
pub fn split_hypotheses(
    prog: &Program,
    launch: &Launch,
    hw: &Hardware,
    launch_p: &[Cstr],
    warp: u32,
) -> Vec<Cstr> {
    let mut out: Vec<Cstr> = Vec::new();
    let total = warpcert_kernel::access::block_threads(launch.block).unwrap_or(0);
    let first = u64::from(hw.warp_size) * u64::from(warp);
    let last = (first + u64::from(hw.warp_size))
        .min(total)
        .saturating_sub(1);
    if last <= first {
        return out;
    }
    let at = |l: &Lin, t: u64| {
        let tid = warpcert_kernel::access::thread_index(launch.block, t);
        ["threadIdx.x", "threadIdx.y", "threadIdx.z"]
            .iter()
            .zip(tid)
            .fold(l.clone(), |l, (v, k)| {
                l.subst(v, &Lin::constant(Q::from_integer(BigInt::from(k))))
            })
    };
    each_guard(prog, &prog.body, &mut Default::default(), &mut |e, env| {
        let (ct, cf, can_t, can_f) = cond(prog, e);
        if !(can_t && can_f) || ct.is_empty() || cf.is_empty() {
            return;
        }
        for (ta, tb) in [(first, last), (last, first)] {
            let facts: Option<Vec<Cstr>> = ct
                .iter()
                .map(|c| (c, ta))
                .chain(cf.iter().map(|c| (c, tb)))
                .map(|(c, t)| {
                    close(prog, &c.lin, env).map(|l| Cstr {
                        lin: at(&l, t),
                        ..c.clone()
                    })
                })
                .collect();
            let Some(facts) = facts else { return };
            let mut all = out.clone();
            all.extend(facts.iter().filter(|c| !c.lin.is_const()).cloned());
            if facts.iter().any(|c| {
                c.lin.is_const()
                    && (c.lin.c.is_positive()
                        || (matches!(c.kind, CKind::Eq) && !c.lin.c.is_zero()))
            }) {
                continue;
            }
            if witness_point(launch_p, &all).is_some() {
                out = all;
                return;
            }
        }
    });
    out
}

/// Calls `visit(e, env)` for every `if (e)` of `s` outside loops, `env` the linear values
/// of the locals assigned before it (straight-line assignments of linear expressions).
fn each_guard(
    prog: &Program,
    s: &Stmt,
    env: &mut std::collections::BTreeMap<String, Lin>,
    visit: &mut dyn FnMut(&Expr, &std::collections::BTreeMap<String, Lin>),
) {
    for item in s.seq_items() {
        match item {
            Stmt::Seq(..) => each_guard(prog, item, env, visit),
            Stmt::Assign(x, e, _) => match lin_expr(prog, e).and_then(|l| close(prog, &l, env)) {
                Some(l) => {
                    env.insert(x.clone(), l);
                }
                None => {
                    env.remove(x);
                }
            },
            Stmt::If(e, s1, s2, _) => {
                visit(e, env);
                let (mut e1, mut e2) = (env.clone(), env.clone());
                each_guard(prog, s1, &mut e1, visit);
                each_guard(prog, s2, &mut e2, visit);
                for x in item.writes() {
                    env.remove(&x);
                }
            }
            _ => {
                for x in item.writes() {
                    env.remove(&x);
                }
            }
        }
    }
}

/// `l` with every local replaced by its value in `env` (`None`: a local without one).
fn close(prog: &Program, l: &Lin, env: &std::collections::BTreeMap<String, Lin>) -> Option<Lin> {
    let mut out = l.clone();
    for v in l.terms.keys() {
        if prog.local_ty(v).is_some() {
            out = out.subst(v, env.get(v)?);
        }
    }
    Some(out)
}

/// `l` with each `threadIdx.d` replaced by the value that makes it largest in a block of
/// `launch.block` threads: the fact `l' ≤ 0` over parameters implies `l ≤ 0` on every lane.
fn worst_lanes(l: &Lin, launch: &Launch) -> Option<Lin> {
    let mut out = l.clone();
    for d in crate::core::Dim::ALL {
        let t = crate::core::assertion::linear::tid_name(d);
        let k = l.coef(&t);
        let worst = if k.is_positive() {
            Q::from_integer(BigInt::from(launch.block[d.index()]) - 1)
        } else {
            Q::zero()
        };
        out = out.subst(&t, &Lin::constant(worst));
    }
    Some(out)
}

/// Congruence hypotheses for a lower certificate with warp-exact products (spec/logic.md
/// §4b "Warp-exact products"): every `int` parameter of the kernel's signature
/// `p ≡ 1 (mod m)`, `m` the sector size in 4-byte words (so that a row of 4-byte elements
/// starting `p` elements after an aligned base is misaligned), with the witness point of
/// the launch facts (`witness_point`) where each such `p` is 1. `None` without `int`
/// parameters. Heuristic and untrusted: the kernel checks the certificate.
pub fn congruence_hypotheses(
    prog: &Program,
    hw: &Hardware,
    launch_p: &[Cstr],
) -> Option<(Hypotheses, crate::analysis::derive::Congruences)> {
    let m = i64::from((hw.sector_bytes / 4).max(1));
    let params: Vec<&str> = prog
        .params
        .iter()
        .filter(|p| p.ty == crate::core::Ty::Int && !p.name.contains('.'))
        .map(|p| p.name.as_str())
        .collect();
    if params.is_empty() {
        return None;
    }
    let mut witness: std::collections::BTreeMap<String, i64> =
        witness_point(launch_p, &[])?.into_iter().collect();
    let mut facts = Vec::new();
    let mut cong = Vec::new();
    for p in params {
        facts.push(Cstr {
            kind: CKind::Mod(m, vec![1 % m]),
            lin: Lin::var(p),
        });
        cong.push((p.to_string(), 1 % m, m));
        witness.insert(p.to_string(), 1);
    }
    let witness = witness.into_iter().collect();
    Some((Hypotheses { facts, witness }, cong))
}

/// A witness point of the launch facts `launch_p` and the hypotheses `h` (spec/logic.md
/// §4b): block indices 0, grid sizes 1, other parameters 0, then each violated fact is
/// repaired by raising a parameter with a negative coefficient (one that is not a block
/// index first), a few rounds. `None` when that does not find one.
pub fn witness_point(launch_p: &[Cstr], h: &[Cstr]) -> Option<Vec<(String, i64)>> {
    let facts: Vec<&Cstr> = launch_p.iter().chain(h).collect();
    let mut at: std::collections::BTreeMap<String, i64> = Default::default();
    for c in &facts {
        for v in c.lin.terms.keys() {
            if !v.starts_with("threadIdx.") {
                at.entry(v.clone())
                    .or_insert(i64::from(v.starts_with("gridDim.")));
            }
        }
    }
    let val = |c: &Cstr, at: &std::collections::BTreeMap<String, i64>| {
        let mut x = c.lin.c.clone();
        for (v, k) in c.lin.terms.iter() {
            x += k * Q::from_integer(BigInt::from(*at.get(v).unwrap_or(&0)));
        }
        x
    };
    for _ in 0..8 {
        let mut changed = false;
        for c in facts.iter().filter(|c| !c.is_lane()) {
            let x = val(c, &at);
            if matches!(c.kind, CKind::Eq) && !x.is_zero() {
                return None;
            }
            if !x.is_positive() {
                continue;
            }
            let pick = c
                .lin
                .terms
                .iter()
                .filter(|(v, k)| k.is_negative() && at.contains_key(*v))
                .min_by_key(|(v, _)| v.starts_with("blockIdx.") || v.starts_with("gridDim."))?;
            let raise = (x / -pick.1.clone()).ceil().to_integer();
            let r: i64 = raise.try_into().ok()?;
            *at.get_mut(pick.0)? += r;
            changed = true;
        }
        if !changed {
            return Some(at.into_iter().collect());
        }
    }
    None
}

/// [`lower_certificate`] with the parameter hypotheses `hyp` (section
/// `(lower W (hyp …) (witness …))`, spec/logic.md §4b, L:HYP): `upper` must then be a
/// derivation whose root pre is the launch facts followed by `hyp.facts`
/// ([`crate::analysis::derivation_under`]).
pub fn lower_certificate_under(
    prog: &Program,
    metric: &Metric,
    hw: &Hardware,
    launch: &Launch,
    upper: &Node,
    warp: u32,
    hyp: Option<&Hypotheses>,
) -> Result<(String, Poly), LowerError> {
    let cx = Lx {
        prog,
        m: metric,
        hw,
        launch,
        warp,
    };
    let root = cx.stmt(upper, &prog.body, &Poly::zero())?;
    let bound = root.pre().map(|a| a.q.clone()).unwrap_or_else(Poly::zero);
    let text = certificate::write(prog, metric, hw, launch, &root);
    let (head, rest) = text
        .split_once("(assumptions")
        .ok_or_else(|| "the certificate writer wrote no assumptions section".to_string())?;
    let section = match hyp {
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

struct Lx<'a> {
    prog: &'a Program,
    m: &'a Metric,
    hw: &'a Hardware,
    launch: &'a Launch,
    warp: u32,
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

impl Lx<'_> {
    /// The L: node about `s` with post potential `post_q`, from the upper node `n`.
    fn stmt(&self, n: &Node, s: &Stmt, post_q: &Poly) -> Result<Node, LowerError> {
        let (pre, post) = pp(n)?;
        let lpost = with_q(post, post_q.clone());
        let keep = |f: &&Field| matches!(f, Field::Entail(..));
        match (n.rule, s) {
            ("Q:SKIP", _) => Ok(stmt_node("L:SKIP", lpost.clone(), lpost, vec![], vec![])),
            ("Q:SYNC", _) => Ok(stmt_node(
                "L:SYNC",
                with_q(pre, post_q.plus_const(&self.m.sync)),
                lpost,
                vec![],
                vec![],
            )),
            ("Q:SEQ", _) => {
                let items = chain_items(s, n.children.len());
                let mut q = post_q.clone();
                let mut out = Vec::with_capacity(items.len());
                for (c, item) in n.children.iter().zip(&items).rev() {
                    let lc = self.stmt(c, item, &q)?;
                    q = lc.pre().map(|a| a.q.clone()).unwrap_or_else(Poly::zero);
                    out.push(lc);
                }
                out.reverse();
                Ok(stmt_node("L:SEQ", with_q(pre, q), lpost, vec![], out))
            }
            ("Q:VWRITE1" | "Q:VWRITE2", Stmt::Assign(x, e, _)) => {
                let (ce, c) = self.expr(only(n, 1)?, e, pre)?;
                let q = if post_q.mentions(x) {
                    let l = lin_fixed(self.prog, &pre.p, e)
                        .filter(|_| n.rule == "Q:VWRITE1")
                        .ok_or_else(|| {
                            format!(
                                "{}: the potential mentions `{x}`, assigned a non-linear value",
                                n.rule
                            )
                        })?;
                    post_q.subst(x, &l)
                } else {
                    post_q.clone()
                };
                // exactly one witness per constraint of P' (no bounding substitution)
                let fields = n
                    .fields
                    .iter()
                    .map(|f| match f {
                        Field::Entail("post", ws) => {
                            Field::Entail("post", ws.iter().take(post.p.len()).cloned().collect())
                        }
                        f => f.clone(),
                    })
                    .collect();
                let rule = if n.rule == "Q:VWRITE1" {
                    "L:VWRITE1"
                } else {
                    "L:VWRITE2"
                };
                let pq = q.plus_const(&(&self.m.vwrite + c));
                Ok(stmt_node(rule, with_q(pre, pq), lpost, fields, vec![ce]))
            }
            ("Q:GWRITE" | "Q:SWRITE" | "Q:LWRITE", Stmt::Write(a, o, e, _)) => {
                let [c1, c2] = n.children.as_slice() else {
                    return Err(format!("{}: two children expected", n.rule));
                };
                let (lo, k1) = self.expr_opd(c1, o, pre)?;
                let (le, k2) = self.expr(c2, e, pre)?;
                let (rule, fields, acc) = match n.rule {
                    "Q:LWRITE" => ("L:LWRITE", vec![], self.m.vwrite.clone()),
                    r => {
                        let (space, f) = if r == "Q:GWRITE" {
                            (Space::Global, &self.m.gwrite)
                        } else {
                            (Space::Shared, &self.m.swrite)
                        };
                        let nw = self.n_w(a, o, pre, space)?;
                        (
                            if r == "Q:GWRITE" {
                                "L:GWRITE"
                            } else {
                                "L:SWRITE"
                            },
                            vec![Field::N(nw)],
                            f.at(nw),
                        )
                    }
                };
                let pq = post_q.plus_const(&(acc + k1 + k2));
                Ok(stmt_node(
                    rule,
                    with_q(pre, pq),
                    lpost,
                    fields,
                    vec![lo, le],
                ))
            }
            ("Q:IF1", Stmt::If(e, s1, s2, _)) => {
                let [ce, t, f] = n.children.as_slice() else {
                    return Err("Q:IF1: three children expected".into());
                };
                let (le, c) = self.expr(ce, e, pre)?;
                let (lt, lf) = (self.stmt(t, s1, post_q)?, self.stmt(f, s2, post_q)?);
                let (tq, fq) = (pre_q(&lt), pre_q(&lf));
                let q0 = min_poly(&tq, &fq);
                let lt = self.lowered_to(lt, &q0);
                let lf = self.lowered_to(lf, &q0);
                let pq = q0.plus_const(&(&self.m.if_ + c));
                Ok(stmt_node(
                    "L:IF1",
                    with_q(pre, pq),
                    lpost,
                    vec![],
                    vec![le, lt, lf],
                ))
            }
            ("Q:IF2" | "Q:IF3", Stmt::If(e, s1, s2, _)) => {
                let [ce, b] = n.children.as_slice() else {
                    return Err(format!("{}: two children expected", n.rule));
                };
                let (le, c) = self.expr(ce, e, pre)?;
                let lb = self.stmt(b, if n.rule == "Q:IF2" { s1 } else { s2 }, post_q)?;
                let pq = pre_q(&lb).plus_const(&(&self.m.if_ + c));
                let rule = if n.rule == "Q:IF2" { "L:IF2" } else { "L:IF3" };
                Ok(stmt_node(
                    rule,
                    with_q(pre, pq),
                    lpost,
                    n.fields.iter().filter(keep).cloned().collect(),
                    vec![le, lb],
                ))
            }
            ("Q:IF4" | "Q:IFALIGN", Stmt::If(e, s1, s2, _)) => {
                self.divergent_if(n, e, [s1, s2], s, post_q)
            }
            ("Q:UNROLL", Stmt::While(e, body, loc)) => {
                // L:UNROLL: the child is about `if e then (body; while e body) else skip`
                let unrolled = Stmt::If(
                    e.clone(),
                    Box::new(Stmt::Seq(body.clone(), Box::new(s.clone()))),
                    Box::new(Stmt::Skip),
                    *loc,
                );
                let lc = self.stmt(only(n, 1)?, &unrolled, post_q)?;
                Ok(stmt_node(
                    "L:UNROLL",
                    with_q(pre, pre_q(&lc)),
                    lpost,
                    vec![],
                    vec![lc],
                ))
            }
            ("Q:WEAK", _) => {
                // the potential passes through: only (P, D) are weakened
                let lc = self.stmt(only(n, 1)?, s, post_q)?;
                let q = pre_q(&lc);
                Ok(stmt_node(
                    "L:WEAK",
                    with_q(pre, q),
                    lpost,
                    n.fields.iter().filter(keep).cloned().collect(),
                    vec![lc],
                ))
            }
            ("Q:WHILE1", Stmt::While(e, body, _)) => self.counted_loop(n, e, body, post_q),
            (r, _) => Err(format!("{r}: no lower-bound rule (spec/logic.md §4b)")),
        }
    }

    /// L:IFD for a possibly divergent `if` (upper node Q:IF4 or Q:IFALIGN, `s` the `if`):
    /// the test's exact cost and `M^if`, its branches charged 0; L:IFDIV (`+ M^div`) when
    /// two lanes of the warp decide the test both ways under `P`, L:IFALIGN
    /// (`+ M^div·[m ∤ s − X]`, the upper Q:IFALIGN node's atom and class) then instead when the upper node
    /// is Q:IFALIGN (spec/logic.md §4b). The post keeps the upper post's `P'`
    /// (entailed by `P`; it must not mention a local the branches write) and `D \ W`, then
    /// an L:WEAK without rewrites narrows `D \ W` to the upper post's `D'`. Errors: `post_q`
    /// or `P'` mentions a written local, or `P ⇏ P'`.
    fn divergent_if(
        &self,
        n: &Node,
        e: &Expr,
        [s1, s2]: [&Stmt; 2],
        s: &Stmt,
        post_q: &Poly,
    ) -> Result<Node, LowerError> {
        let (pre, post) = pp(n)?;
        let ce = n
            .children
            .first()
            .ok_or_else(|| "Q:IF4: three children expected".to_string())?;
        let (le, c) = self.expr(ce, e, pre)?;
        let w = s.writes();
        if let Some(x) = w.iter().find(|x| post_q.mentions(x)) {
            return Err(format!(
                "L:IFD: the potential after the if mentions `{x}`, which a branch writes"
            ));
        }
        if let Some(x) = w.iter().find(|x| post.p.iter().any(|c| c.mentions(x))) {
            return Err(format!(
                "L:IFD: the assertion after the if mentions `{x}`, which a branch writes"
            ));
        }
        let ws = crate::analysis::entail::entails_all(&pre.p, &post.p).ok_or_else(|| {
            "L:IFD: the pre does not entail the assertion after the if".to_string()
        })?;
        let mut d = (*pre.d).clone();
        d.retain(|x, _| !w.contains(x));
        let ipost = Assn {
            p: post.p.clone(),
            d: std::sync::Arc::new(d),
            q: post_q.clone(),
        };
        // L:IFDIV when two lanes of the warp decide the test both ways under P (only
        // where M^div counts: elsewhere L:IFD proves the same bound)
        let split = if self.m.div.is_zero() {
            None
        } else {
            self.split_lanes(e, &pre.p)
        };
        // L:IFALIGN when the upper node charged `M^div·[m ∤ s − X]` (Q:IFALIGN): the same
        // atom and class, so that the lower bound has the upper one's form. A class whose
        // atom is a constant (`threadIdx.x < 16`: `[32 ∤ 16]` = 1) leaves no residue atom
        // in the charge: the upper node charged `M^div` and L:IFDIV proves the same
        let res = if n.rule == "Q:IFALIGN" {
            align_charge(n).ok()
        } else {
            None
        };
        let ifd = match split {
            Some((l1, w1, l2, w2)) => stmt_node(
                if res.is_some() {
                    "L:IFALIGN"
                } else {
                    "L:IFDIV"
                },
                with_q(
                    pre,
                    // both branches run on non-empty thread sets: minc(s1) + minc(s2)
                    match &res {
                        Some((atom, _)) => {
                            let mut q = post_q
                                .plus_const(&(&self.m.if_ + &c + self.minc(s1) + self.minc(s2)));
                            q.add_term(vec![atom.clone()], self.m.div.clone());
                            q
                        }
                        None => post_q.plus_const(
                            &(&self.m.if_ + &c + &self.m.div + self.minc(s1) + self.minc(s2)),
                        ),
                    },
                ),
                ipost.clone(),
                [
                    Field::Entail("post", ws),
                    Field::Lanes(l1, l2),
                    Field::Entail("then", w1),
                    Field::Entail("else", w2),
                ]
                .into_iter()
                .chain(res.map(|(_, class)| class))
                .collect(),
                vec![le],
            ),
            // L:IFWRAP: the wrapped test splits the warp whatever the entry's unknown
            None if !self.m.div.is_zero() && self.wrap_splits(e, pre) => stmt_node(
                "L:IFWRAP",
                with_q(
                    pre,
                    post_q.plus_const(
                        &(&self.m.if_ + &c + &self.m.div + self.minc(s1) + self.minc(s2)),
                    ),
                ),
                ipost.clone(),
                vec![Field::Entail("post", ws)],
                vec![le],
            ),
            None => match self
                .then_lane(e, &pre.p)
                .filter(|_| self.minc(s1).is_positive())
            {
                // L:IFDT: a lane takes the then branch, which costs at least minc(s1)
                Some((l, wt)) => stmt_node(
                    "L:IFDT",
                    with_q(pre, post_q.plus_const(&(&self.m.if_ + c + self.minc(s1)))),
                    ipost.clone(),
                    vec![
                        Field::Entail("post", ws),
                        Field::Lane(l),
                        Field::Entail("then", wt),
                    ],
                    vec![le],
                ),
                None => stmt_node(
                    "L:IFD",
                    with_q(pre, post_q.plus_const(&(&self.m.if_ + c))),
                    ipost.clone(),
                    vec![Field::Entail("post", ws)],
                    vec![le],
                ),
            },
        };
        if ipost.d == post.d {
            return Ok(ifd);
        }
        let ipre = ifd
            .pre()
            .cloned()
            .ok_or_else(|| "L:IFD: no pre".to_string())?;
        let fields = vec![ids("pre", pre.p.len()), ids("post", post.p.len())];
        Ok(stmt_node(
            "L:WEAK",
            ipre,
            with_q(post, post_q.clone()),
            fields,
            vec![ifd],
        ))
    }

    /// L:IFDT's lane witness (spec/logic.md §4b): a lane `ℓ` of the warp where
    /// `P ∧ threadIdx = tid(ℓ) ⇒ e`, with its Farkas witnesses (sources: the three
    /// thread-index facts, then `P`). `None` when the test has no linear condition or no
    /// lane decides it.
    fn then_lane(&self, e: &Expr, p: &[Cstr]) -> Option<(u32, Vec<crate::certificate::Farkas>)> {
        let (ct, _, can_t, _) = cond(self.prog, e);
        if !can_t || ct.is_empty() {
            return None;
        }
        self.lane_sources(p)
            .iter()
            .find_map(|(l, src)| crate::analysis::entail::entails_all(src, &ct).map(|w| (*l, w)))
    }

    /// L:IFWRAP's split (spec/logic.md §4b; the kernel's `wrap_split`): the test is
    /// `x == 0` or `x != 0` with a wrapped entry `(wrap x k m)` in the pre's `D`,
    /// `2 ≤ m ≤ Wsz`, and `k·tid mod m` over the warp's lanes covers every residue.
    fn wrap_splits(&self, e: &Expr, pre: &Assn) -> bool {
        use crate::core::assertion::EntryKind;
        use crate::core::ir::{BinOp, Const};
        let Expr::Bin(BinOp::Eq | BinOp::Ne, Operand::Var(x), Operand::Const(Const::Int(0))) = e
        else {
            return false;
        };
        let Some(ent) = pre.d.get(x).filter(|d| d.kind == EntryKind::Wrap) else {
            return false;
        };
        let ws = i64::from(self.hw.warp_size);
        let m = ent.g;
        if !(2..=ws).contains(&m) {
            return false;
        }
        let Some(total) = warpcert_kernel::access::block_threads(self.launch.block) else {
            return false;
        };
        let mut seen = vec![false; m as usize];
        for l in 0..self.hw.warp_size {
            let t = u64::from(self.hw.warp_size) * u64::from(self.warp) + u64::from(l);
            if t >= total {
                break;
            }
            let tid = warpcert_kernel::access::thread_index(self.launch.block, t);
            let v: i128 = (0..3)
                .map(|i| i128::from(ent.k[i]) * i128::from(tid[i]))
                .sum();
            seen[v.rem_euclid(i128::from(m)) as usize] = true;
        }
        seen.iter().all(|b| *b)
    }

    /// `minc(s)` of spec/logic.md §4b (the kernel's `rules::lower::minc`): what every run
    /// of `s` on a non-empty thread set costs at least, in the metric's unit.
    fn minc(&self, s: &Stmt) -> Q {
        let m = self.m;
        let opd = |o: &Operand| match o {
            Operand::Var(_) | Operand::Tid(_) => m.var.clone(),
            Operand::Param(_) => m.param.clone(),
            Operand::Const(_) => m.konst.clone(),
        };
        let acc = |a: &str, write: bool| match self.prog.array(a).map(|x| x.space) {
            Some(Space::Global) => if write { &m.gwrite } else { &m.gread }.at(1),
            Some(Space::Shared) => if write { &m.swrite } else { &m.sread }.at(1),
            Some(Space::Local) => {
                if write {
                    m.vwrite.clone()
                } else {
                    m.var.clone()
                }
            }
            None => Q::zero(),
        };
        let expr = |e: &Expr| match e {
            Expr::Opd(o) => opd(o),
            Expr::Bin(_, a, b) => opd(a) + opd(b) + &m.op,
            Expr::Un(_, a) => opd(a) + &m.op,
            Expr::Read(a, i) => opd(i) + acc(a, false),
        };
        let mut total = Q::zero();
        let mut todo = vec![s];
        while let Some(s) = todo.pop() {
            total += match s {
                Stmt::Skip | Stmt::Warp(..) => Q::zero(),
                Stmt::Sync(_) => m.sync.clone(),
                Stmt::Seq(a, b) => {
                    todo.push(b);
                    todo.push(a);
                    Q::zero()
                }
                Stmt::Assign(_, e, _) => expr(e) + &m.vwrite,
                Stmt::Write(a, o, e, _) => opd(o) + expr(e) + acc(a, true),
                Stmt::If(e, ..) | Stmt::While(e, ..) => expr(e) + &m.if_,
            };
        }
        total
    }

    /// The lanes of the warp with their L:IFDIV / L:IFDT witness sources: the three
    /// thread-index facts `threadIdx.d = v` of the lane, then `p`.
    fn lane_sources(&self, p: &[Cstr]) -> Vec<(u32, Vec<Cstr>)> {
        let ws = self.hw.warp_size;
        let Some(total) = warpcert_kernel::access::block_threads(self.launch.block) else {
            return Vec::new();
        };
        (0..ws)
            .filter_map(|l| {
                let t = u64::from(ws) * u64::from(self.warp) + u64::from(l);
                (t < total).then(|| {
                    let tid = warpcert_kernel::access::thread_index(self.launch.block, t);
                    let mut src: Vec<Cstr> = ["threadIdx.x", "threadIdx.y", "threadIdx.z"]
                        .iter()
                        .zip(tid)
                        .map(|(v, k)| {
                            Cstr::eq(Lin::var(v).plus_const(&-Q::from_integer(BigInt::from(k))))
                        })
                        .collect();
                    src.extend(p.iter().cloned());
                    (l, src)
                })
            })
            .collect()
    }

    /// L:IFDIV's lane witnesses (spec/logic.md §4b): a lane `ℓ1` of the warp where
    /// `P ∧ threadIdx = tid(ℓ1) ⇒ e` and a lane `ℓ2` where it entails `¬e`, with their
    /// Farkas witnesses (sources: the three thread-index facts, then `P`). `None` when the
    /// test has no linear condition both ways or no lanes decide it so.
    fn split_lanes(
        &self,
        e: &Expr,
        p: &[Cstr],
    ) -> Option<(
        u32,
        Vec<crate::certificate::Farkas>,
        u32,
        Vec<crate::certificate::Farkas>,
    )> {
        let (ct, cf, can_t, can_f) = cond(self.prog, e);
        if !(can_t && can_f) || ct.is_empty() || cf.is_empty() {
            return None;
        }
        let sources = self.lane_sources(p);
        let find = |targets: &[Cstr]| {
            sources.iter().find_map(|(l, src)| {
                crate::analysis::entail::entails_all(src, targets).map(|w| (*l, w))
            })
        };
        let (l1, w1) = find(&ct)?;
        let (l2, w2) = find(&cf)?;
        Some((l1, w1, l2, w2))
    }

    /// `lc` with its pre potential lowered to `q` (an L:WEAK without rewrites, when `q`
    /// differs: `q` is coefficientwise at most `lc`'s pre).
    fn lowered_to(&self, lc: Node, q: &Poly) -> Node {
        let Ok((cp, cq)) = pp(&lc).map(|(a, b)| (a.clone(), b.clone())) else {
            return lc;
        };
        if &cp.q == q {
            return lc;
        }
        let fields = vec![ids("pre", cp.p.len()), ids("post", cq.p.len())];
        stmt_node("L:WEAK", with_q(&cp, q.clone()), cq, fields, vec![lc])
    }

    /// A uniform loop ranked by `max0(L)` (the upper body's Q:WEAK shifts it by 1):
    /// invariant `I = c·max0(L) + R` with `c` the cost of a round (test included), and the
    /// exit potential `c·max0(L)` removed by `zero` under `P ∧ ¬e`.
    fn counted_loop(&self, n: &Node, e: &Expr, body: &Stmt, r: &Poly) -> Result<Node, LowerError> {
        let (pre, post) = pp(n)?;
        let [ce, b] = n.children.as_slice() else {
            return Err("Q:WHILE1: two children expected".into());
        };
        let writes = body.writes();
        if writes.iter().any(|x| r.mentions(x)) {
            return Err(
                "Q:WHILE1: the potential after the loop mentions a local the loop writes".into(),
            );
        }
        let (le, c) = self.expr(ce, e, pre)?;
        let k = &self.m.if_ + c;
        let (bpre, bpost) = pp(b)?;
        // the body under its ranking Q:WEAK (if any)
        let inner = if b.rule == "Q:WEAK" { only(b, 1)? } else { b };
        let rank = b.fields.iter().find_map(|f| match f {
            Field::Rewrite("pre", rws) => rws.iter().find_map(|rw| match rw {
                Rewrite::Shift(l, d, _) if d.is_one() => Some(Atom::from(l)),
                Rewrite::IShift(a, d, _) if d.is_one() => Some(a.clone()),
                _ => None,
            }),
            _ => None,
        });
        // a round's cost: the body from the post R + k (nothing of the ranking atom)
        let probe = pre_q(&self.stmt(inner, body, &r.plus_const(&k))?);
        let diff = probe.plus(&r.scaled(&-Q::one()));
        let round = match diff.terms.iter().collect::<Vec<_>>().as_slice() {
            [] => Q::zero(),
            [(m, c)] if m.is_empty() => (*c).clone(),
            _ => return Err("Q:WHILE1: a round's cost is not a constant (nested loop?)".into()),
        };
        if round.is_negative() {
            return Err("Q:WHILE1: a round has a negative cost".into());
        }
        if round.is_zero() {
            // rounds cost nothing: the invariant is R itself, no ranking needed
            let lbody = self.stmt(b, body, &r.plus_const(&k))?;
            let lpre = with_q(pre, r.plus_const(&k));
            return Ok(stmt_node(
                "L:WHILE",
                lpre,
                with_q(post, r.clone()),
                vec![],
                vec![le, lbody],
            ));
        }
        let atom = rank.filter(|_| b.rule == "Q:WEAK").ok_or_else(|| {
            "Q:WHILE1: no `shift`/`ishift` of an atom by 1 ranks the loop".to_string()
        })?;
        let mut inv = r.clone();
        inv.add_raw_term(std::slice::from_ref(&atom), round.clone());
        let lin_inner = self.stmt(inner, body, &inv.plus_const(&k))?;
        let rws: Vec<Rewrite> = b
            .fields
            .iter()
            .filter_map(|f| match f {
                Field::Rewrite("pre", rws) => Some(
                    rws.iter()
                        .filter(|r| matches!(r, Rewrite::Shift(..) | Rewrite::IShift(..)))
                        .cloned(),
                ),
                _ => None,
            })
            .flatten()
            .collect();
        let mut bfields: Vec<Field> = b
            .fields
            .iter()
            .filter(|f| matches!(f, Field::Entail(..)))
            .cloned()
            .collect();
        bfields.push(Field::Rewrite("pre", rws));
        let lbody = stmt_node(
            "L:WEAK",
            with_q(bpre, inv.clone()),
            with_q(bpost, inv.plus_const(&k)),
            bfields,
            vec![lin_inner],
        );
        let lpre = with_q(pre, inv.plus_const(&k));
        let lwhile = stmt_node(
            "L:WHILE",
            lpre.clone(),
            with_q(post, inv.clone()),
            vec![],
            vec![le, lbody],
        );
        let fields = vec![
            ids("pre", pre.p.len()),
            ids("post", post.p.len()),
            Field::Rewrite("post", vec![exit_zero(&post.p, &atom)?]),
        ];
        Ok(stmt_node(
            "L:WEAK",
            lpre,
            with_q(post, r.clone()),
            fields,
            vec![lwhile],
        ))
    }

    /// `N_W(o)` of spec/logic.md §4b (the kernel's own enumeration, [`n_warp`]).
    fn n_w(&self, a: &str, o: &Operand, pre: &Assn, space: Space) -> Result<u64, LowerError> {
        let arr = self
            .prog
            .array(a)
            .ok_or_else(|| format!("array `{a}` undeclared"))?;
        let dep = dep_operand(&pre.d, o).map(|d| {
            warpcert_kernel::arith::Dep::norm(
                d.k.map(BigInt::from),
                BigInt::from(d.r),
                BigInt::from(d.g),
            )
        });
        let kind = if space == Space::Global {
            Kind::MemReads
        } else {
            Kind::Conflicts
        };
        let hw = [
            self.hw.warp_size,
            self.hw.banks,
            self.hw.bank_bytes,
            self.hw.sector_bytes,
        ];
        n_warp(
            self.launch.block,
            hw,
            self.warp,
            dep.as_ref(),
            arr.elem_bytes,
            kind,
        )
        .map_err(|_| {
            format!(
                "the access count of `{a}` for warp {} is not computable",
                self.warp
            )
        })
    }

    /// The lower expression node about `e` and its cost.
    fn expr(&self, n: &Node, e: &Expr, pre: &Assn) -> Result<(Node, Q), LowerError> {
        let expr_node = |rule, cost: Q, fields, children| {
            (
                Node {
                    rule,
                    judgment: Judgment::Expr { cost: cost.clone() },
                    fields,
                    children,
                },
                cost,
            )
        };
        match (n.rule, e) {
            (_, Expr::Opd(o)) => self.expr_opd(n, o, pre),
            ("EQ:OP", Expr::Bin(_, a, b)) => {
                let [ca, cb] = n.children.as_slice() else {
                    return Err("EQ:OP: two children expected".into());
                };
                let ((la, ka), (lb, kb)) = (self.expr_opd(ca, a, pre)?, self.expr_opd(cb, b, pre)?);
                Ok(expr_node(
                    "EQ:OP",
                    ka + kb + &self.m.op,
                    vec![],
                    vec![la, lb],
                ))
            }
            ("EQ:UOP", Expr::Un(_, a)) => {
                let (la, ka) = self.expr_opd(only(n, 1)?, a, pre)?;
                Ok(expr_node("EQ:UOP", ka + &self.m.op, vec![], vec![la]))
            }
            ("EQ:LARRAY", Expr::Read(_, o)) => {
                let (lo, ko) = self.expr_opd(only(n, 1)?, o, pre)?;
                Ok(expr_node("EQ:LARRAY", ko + &self.m.var, vec![], vec![lo]))
            }
            (r @ ("EQ:GARRAY" | "EQ:SARRAY"), Expr::Read(a, o)) => {
                let (lo, ko) = self.expr_opd(only(n, 1)?, o, pre)?;
                let (space, f, rule) = if r == "EQ:GARRAY" {
                    (Space::Global, &self.m.gread, "L:GARRAY")
                } else {
                    (Space::Shared, &self.m.sread, "L:SARRAY")
                };
                let nw = self.n_w(a, o, pre, space)?;
                Ok(expr_node(rule, ko + f.at(nw), vec![Field::N(nw)], vec![lo]))
            }
            (r, _) => Err(format!("{r}: no lower-bound rule for this expression")),
        }
    }

    /// An operand node (`OQ:*`, exact: kept with its cost).
    fn expr_opd(&self, n: &Node, _o: &Operand, _pre: &Assn) -> Result<(Node, Q), LowerError> {
        match n.rule {
            "OQ:VAR" | "OQ:CONST" | "OQ:PARAM" | "OQ:TID" => Ok((n.clone(), cost_of(n))),
            r => Err(format!("{r}: an operand rule was expected")),
        }
    }
}

/// The rewrite that proves the ranking atom 0 at the loop's exit (`p` the exit's
/// constraints): `(zero L w)` for `max0(L)` with `P ⇒ L ≤ 0`; for `⌊L/d⌋⁺`, `(izero …)`
/// whose cut adds `1/d` of the defining fact `d·q − L ≤ 0` to `1/d` of a witness of
/// `P ⇒ L ≤ d − 1`, giving `q − (d − 1)/d ≤ 0`, rounded to `q ≤ 0` (spec/certificate.md
/// "Integer rewrites"). Errors: no such witness.
fn exit_zero(p: &[Cstr], atom: &Atom) -> Result<Rewrite, LowerError> {
    let none = || "Q:WHILE1: the exit condition does not prove the ranking atom 0".to_string();
    match atom {
        Atom::Max0(l) => {
            let w = entails(p, &Cstr::le((**l).clone())).ok_or_else(none)?;
            Ok(Rewrite::Zero((**l).clone(), w))
        }
        Atom::Floor(l, d) => {
            let dq = Q::from_integer(d.clone());
            let w = entails(p, &Cstr::le(l.plus_const(&(Q::one() - &dq)))).ok_or_else(none)?;
            let mut cut: Vec<(usize, Q)> = w.terms().map(|(i, c)| (i, c / &dq)).collect();
            cut.push((p.len(), Q::one() / &dq));
            let cg = certificate::Cg {
                cuts: vec![certificate::Farkas::Comb(cut)],
                farkas: certificate::Farkas::Id(p.len() + 2),
            };
            Ok(Rewrite::IZero(atom.clone(), cg))
        }
        // a halving loop's log atom: no lower rule proves it 0 at the exit (L:WHILE covers
        // counted loops only)
        Atom::Log(_) => {
            Err("L:WHILE: a log-atom ranking (halving loop) has no lower-bound rule".to_string())
        }
        Atom::LogQ(..) => Err(
            "L:WHILE: a quotient-log-atom ranking (doubling loop) has no lower-bound rule"
                .to_string(),
        ),
        // never a ranking atom (Q:IFALIGN's charge only)
        Atom::Res(..) => Err("L:WHILE: a residue atom is no ranking atom".to_string()),
    }
}

/// The residue atom `[m ∤ s − X]` of a Q:IFALIGN node's charge `M^div·[m ∤ s − X]` (spec/logic.md
/// §4): the term of `pre − then pre` whose monomial is one residue atom, and the node's
/// class field `(class S M)`, which the L:IFALIGN node carries too (the kernel recomputes
/// the atom from it, spec/logic.md §4b).
fn align_charge(n: &Node) -> Result<(Atom, Field), LowerError> {
    let (pre, _) = pp(n)?;
    let then_pre = n.children.get(1).map(pre_q).unwrap_or_else(Poly::zero);
    let diff = pre.q.plus(&then_pre.scaled(&-Q::one()));
    let atom = diff.terms.iter().find_map(|(m, _)| match m.as_slice() {
        [a @ Atom::Res(..)] => Some(a.clone()),
        _ => None,
    });
    let atom = atom.ok_or_else(|| "Q:IFALIGN: no residue atom in the charge".to_string())?;
    let class = n
        .fields
        .iter()
        .find(|f| matches!(f, Field::Class(..)))
        .cloned()
        .ok_or_else(|| "Q:IFALIGN: no (class S M) field".to_string())?;
    Ok((atom, class))
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
