//! The forward pass (RaCUDA §7): abstract interpretation of `(P, D)` over the statements,
//! one method per statement kind, choosing the rule of each statement (Q:VWRITE1/2,
//! Q:GWRITE/SWRITE, Q:IF1–4, Q:UNROLL, loops) and the expression nodes (OQ:*, EQ:*) with
//! their access bounds `N*`.

use crate::analysis::access::{n_star, range_bound, AccessKind};
use crate::analysis::derive::candidates::{self, loop_key};
use crate::analysis::derive::{err, minus_writes, with, Abs, Ctx, AK, AN, UNROLL_LIMIT};
use crate::analysis::derive::{AssignAn, If1An, If4An, WarpAn};
use crate::analysis::entail::{entails, entails_all, join_p, thread_projection};
use crate::analysis::linear::{
    align_charge, cond, dep_expr, entry_expr, expr_uniform, index_entry, join_deps, lane_cond,
    lin_fixed, lin_operand, warp_entry, wrap_expr, Types,
};
use crate::analysis::AnalysisError;
use crate::certificate::{Farkas, Field, Judgment, Node};
use crate::core::assertion::linear::{CKind, Cstr, Dep, DepMap, Lin};
use crate::core::metric::{q_sum, Q};
use crate::core::{BinOp, Const, Expr, Hardware, Loc, Operand, Space, Stmt, Ty, WarpOp};
use num_bigint::BigInt;
use num_traits::{One, Zero};
use std::sync::Arc;

/// What [`n_star`] reads of a dependence entry, for the memo key of
/// [`Ctx::access_n`]: `k`, the kind and `g`, and of a linear entry's residue `r` only the
/// base `(r·es) mod gcd(g·es, M)` (`M`: sector bytes, or bank bytes × banks); no `r` of
/// another kind. Accesses at offsets `tid + c` for many constants `c` then share one `N*`
/// computation per base instead of one each (issue 13).
fn nstar_class(d: Dep, es: u32, kind: AccessKind, hw: &Hardware) -> (Dep, i128) {
    use num_integer::Integer;
    let m: i128 = match kind {
        AccessKind::MemReads => hw.sector_bytes as i128,
        AccessKind::Conflicts => hw.bank_bytes as i128 * hw.banks as i128,
    }
    .max(1);
    let es = es as i128;
    let base = if d.is_linear() {
        let step = (d.g as i128 * es).gcd(&m).max(1);
        (d.r as i128 * es).rem_euclid(step)
    } else {
        0
    };
    (Dep { r: 0, ..d }, base)
}

/// The memo key of [`Ctx::access_n`]: the thread constraints of `P` (their number in
/// [`NStarMemo::lists`]), the dependence's [`nstar_class`], the range entry's width, the
/// element size and whether the array is global — everything [`n_star`] and
/// [`range_bound`] read.
type NStarKey = (usize, Option<(Dep, i128)>, Option<i64>, u32, bool);

/// The memo of [`Ctx::access_n`] (loops re-run the forward pass). The thread constraints
/// of a `P` are numbered once per distinct list, found by hash without copying them, and
/// the last `P` seen is remembered by identity (consecutive accesses mostly share one `P`,
/// issue 13); that `Arc` is held, so its address cannot be reused by another list.
#[derive(Default)]
pub(super) struct NStarMemo {
    /// `N*` by key.
    n: rustc_hash::FxHashMap<NStarKey, u64>,
    /// The distinct lists of thread constraints, by number.
    lists: Vec<Vec<Cstr>>,
    /// The numbers of the lists by hash.
    by_hash: rustc_hash::FxHashMap<u64, Vec<usize>>,
    /// The last `P` and the number of its thread constraints.
    last: Option<(Arc<Vec<Cstr>>, usize)>,
}

impl NStarMemo {
    /// The number of the thread constraints of `p` (`Cstr::only_tid`, in order).
    fn tid_list(&mut self, p: &Arc<Vec<Cstr>>) -> usize {
        use std::hash::{Hash, Hasher};
        if let Some((q, i)) = &self.last {
            if Arc::ptr_eq(p, q) {
                return *i;
            }
        }
        let tid = || p.iter().filter(|c| c.only_tid());
        // coefficients hashed by numerator and denominator (a rational's own `Hash` divides
        // big integers; issue 13); lists are compared in full on a hit
        let mut h = rustc_hash::FxHasher::default();
        for c in tid() {
            c.kind.hash(&mut h);
            c.lin.c.numer().hash(&mut h);
            c.lin.c.denom().hash(&mut h);
            for (v, a) in c.lin.terms.iter() {
                v.hash(&mut h);
                a.numer().hash(&mut h);
                a.denom().hash(&mut h);
            }
        }
        let h = h.finish();
        let known = self
            .by_hash
            .get(&h)
            .and_then(|is| is.iter().copied().find(|&i| self.lists[i].iter().eq(tid())));
        let i = known.unwrap_or_else(|| {
            self.lists.push(tid().cloned().collect());
            let i = self.lists.len() - 1;
            self.by_hash.entry(h).or_default().push(i);
            i
        });
        self.last = Some((Arc::clone(p), i));
        i
    }
}

/// Types from the context's map of locals, built once (`Program::local_ty` scans the list
/// of locals: quadratic on long kernels, issue 13).
impl Types for Ctx<'_> {
    fn local_ty(&self, x: &str) -> Option<Ty> {
        self.local_tys.get(x).copied()
    }
    fn param_ty(&self, p: &str) -> Option<Ty> {
        self.param_tys.get(p).copied()
    }
}

impl Ctx<'_> {
    /// `went_W(a * b)` of spec/logic.md §4b "Warp-exact products" (the kernel's
    /// `rules::lower::went_w`), under [`Ctx::at_warp`]: each `int` operand with a linear
    /// entry whose `k·tid` is one value `K` on the warp's lanes is one integer
    /// `≡ r + K (mod g)` there (an `int` parameter with a congruence hypothesis: its
    /// class); the product of two such. `None` without `at_warp` or for anything else.
    fn warp_exact_product(&self, d: &DepMap, e: &Expr) -> Option<Dep> {
        let (lanes, cong) = self.warp_exact.as_ref()?;
        let Expr::Bin(BinOp::Mul, a, b) = e else {
            return None;
        };
        let value = |o: &Operand| -> Option<(i64, i64)> {
            let int = match o {
                Operand::Const(Const::Int(_)) | Operand::Tid(_) => true,
                Operand::Param(p) => self.param_ty(p) == Some(Ty::Int),
                Operand::Var(x) => self.local_ty(x) == Some(Ty::Int),
                Operand::Const(_) => false,
            };
            let dep = crate::analysis::linear::dep_operand(d, o).filter(|_| int)?;
            let kv = |t: &[i64; 3]| -> Option<i64> {
                (0..3).try_fold(0i64, |acc, i| acc.checked_add(dep.k[i].checked_mul(t[i])?))
            };
            let k0 = kv(lanes.first()?)?;
            if lanes.iter().any(|t| kv(t) != Some(k0)) {
                return None;
            }
            if let Operand::Param(p) = o {
                if let Some((_, r, m)) = cong.iter().find(|(q, _, m)| q == p && *m >= 1) {
                    return Some((*r, *m));
                }
            }
            Some((dep.r.checked_add(k0)?, dep.g))
        };
        let (r1, g1) = value(a)?;
        let (r2, g2) = value(b)?;
        let (r, g) = crate::analysis::linear::uniform_product(r1, g1, r2, g2)?;
        Dep::new([0; 3], r, g)
    }

    pub(super) fn operand_node(&self, o: &Operand, loc: Loc) -> Result<(Node, Q), AnalysisError> {
        let (rule, cost) = match o {
            Operand::Var(x) => {
                if self.local_ty(x).is_none() {
                    return Err(err(Some(loc), format!("undeclared local `{x}`")));
                }
                ("OQ:VAR", self.metric.var.clone())
            }
            Operand::Tid(_) => ("OQ:TID", self.metric.var.clone()),
            Operand::Const(_) => ("OQ:CONST", self.metric.konst.clone()),
            Operand::Param(p) => {
                if crate::analysis::linear::Types::param_ty(self, p).is_none() {
                    return Err(err(Some(loc), format!("undeclared parameter `{p}`")));
                }
                ("OQ:PARAM", self.metric.param.clone())
            }
        };
        Ok((
            Node {
                rule,
                judgment: Judgment::Expr { cost: cost.clone() },
                fields: vec![],
                children: vec![],
            },
            cost,
        ))
    }

    pub(super) fn access_n(
        &self,
        arr: &str,
        o: &Operand,
        pre: &Abs,
        loc: Loc,
    ) -> Result<(bool, u64), AnalysisError> {
        let decl = self
            .prog
            .array(arr)
            .ok_or_else(|| err(Some(loc), format!("undeclared array `{arr}`")))?;
        let global = decl.space == Space::Global;
        let kind = if global {
            AccessKind::MemReads
        } else {
            AccessKind::Conflicts
        };
        // a scaled entry when `dep_D(o)` is ⊤, a range or wrapped entry's window (spec §2
        // "Access bounds")
        let period = match kind {
            AccessKind::MemReads => None,
            AccessKind::Conflicts => Some(i64::from(self.hw.bank_bytes) * i64::from(self.hw.banks)),
        };
        let (dep, range) = index_entry(&pre.d, o, decl.elem_bytes, period);
        // N* depends only on the thread constraints of P, the dependence, the element size
        // and the kind; loops re-run the forward pass, so it is memoized.
        let mut memo = self.nstar_cache.borrow_mut();
        let tid = memo.tid_list(&pre.p);
        // the key: the thread constraints (numbered), the dependence's class, the range,
        // the element size and the kind
        let key: NStarKey = (
            tid,
            dep.map(|d| nstar_class(d, decl.elem_bytes, kind, self.hw)),
            range,
            decl.elem_bytes,
            global,
        );
        if let Some(&n) = memo.n.get(&key) {
            return Ok((global, n));
        }
        let mut n = n_star(
            &memo.lists[tid],
            dep,
            decl.elem_bytes,
            kind,
            self.hw,
            self.launch,
        );
        if let Some(r) = range.and_then(|w| range_bound(w, decl.elem_bytes, kind, self.hw)) {
            n = n.min(r);
        }
        let n = n.max(1);
        memo.n.insert(key, n);
        Ok((global, n))
    }

    /// Whether `arr` is a thread-local array (rules EQ:LARRAY, Q:LWRITE).
    fn is_local(&self, arr: &str) -> bool {
        self.prog.array(arr).map(|a| a.space) == Some(Space::Local)
    }

    pub(super) fn expr_node(
        &self,
        e: &Expr,
        pre: &Abs,
        loc: Loc,
    ) -> Result<(Node, Q), AnalysisError> {
        let mk = |rule, cost: Q, fields, children| Node {
            rule,
            judgment: Judgment::Expr { cost },
            fields,
            children,
        };
        match e {
            Expr::Opd(o) => self.operand_node(o, loc),
            Expr::Bin(_, a, b) => {
                let (na, ca) = self.operand_node(a, loc)?;
                let (nb, cb) = self.operand_node(b, loc)?;
                let c = q_sum(&q_sum(&ca, &cb), &self.metric.op);
                Ok((mk("EQ:OP", c.clone(), vec![], vec![na, nb]), c))
            }
            Expr::Un(_, a) => {
                let (na, ca) = self.operand_node(a, loc)?;
                let c = q_sum(&ca, &self.metric.op);
                Ok((mk("EQ:UOP", c.clone(), vec![], vec![na]), c))
            }
            Expr::Read(arr, o) if self.is_local(arr) => {
                // EQ:LARRAY: a thread-local array read costs like a local variable
                let (no, co) = self.operand_node(o, loc)?;
                let c = q_sum(&co, &self.metric.var);
                Ok((mk("EQ:LARRAY", c.clone(), vec![], vec![no]), c))
            }
            Expr::Read(arr, o) => {
                let (global, n) = self.access_n(arr, o, pre, loc)?;
                let (no, co) = self.operand_node(o, loc)?;
                let (rule, c) = if global {
                    ("EQ:GARRAY", q_sum(&co, &self.metric.gread.at(n)))
                } else {
                    ("EQ:SARRAY", q_sum(&co, &self.metric.sread.at(n)))
                };
                Ok((mk(rule, c.clone(), vec![Field::N(n)], vec![no]), c))
            }
        }
    }

    /// `cond(e)` (or `cond(¬e)`, `neg`) followed by the lane facts `lane_D(e)` when lanes
    /// are derived for this metric (spec/logic.md §2: `P ∧ e` is `P`, `cond`, `lane_D`).
    pub(super) fn with_lanes(&self, d: &DepMap, e: &Expr, c: &[Cstr], neg: bool) -> Vec<Cstr> {
        let mut out = c.to_vec();
        if self.lanes {
            out.extend(lane_cond(d, e, neg));
        }
        out
    }

    pub(super) fn fwd(&mut self, s: &Stmt, pre: &Abs) -> Result<AN, AnalysisError> {
        let kind_post: (AK, Abs) = match s {
            Stmt::Skip => (AK::Skip, pre.clone()),
            Stmt::Sync(_) => (AK::Sync, pre.clone()),
            Stmt::Seq(..) => self.fwd_seq(s, pre, None)?,
            Stmt::Assign(x, e, loc) => self.fwd_assign(x, e, loc, pre)?,
            Stmt::Write(arr, o, e, loc) if self.is_local(arr) => {
                let (on, c1) = self.operand_node(o, *loc)?;
                let (en, c2) = self.expr_node(e, pre, *loc)?;
                (
                    AK::Write {
                        global: false,
                        local: true,
                        n: 0,
                        o: on.into(),
                        e: en.into(),
                        cost: q_sum(&q_sum(&self.metric.vwrite, &c1), &c2),
                        rows: None,
                        guarded: None,
                    },
                    pre.clone(),
                )
            }
            Stmt::Write(arr, o, e, loc) => {
                let (global, n) = self.access_n(arr, o, pre, *loc)?;
                let (on, c1) = self.operand_node(o, *loc)?;
                let (en, c2) = self.expr_node(e, pre, *loc)?;
                let acc = if global {
                    self.metric.gwrite.at(n)
                } else {
                    self.metric.swrite.at(n)
                };
                let rows = self.rows_charge(arr, o, pre, n).map(|r| {
                    let c = q_sum(&q_sum(&self.metric.gwrite.at(r.n0), &c1), &c2);
                    (r, c)
                });
                let guarded = match (global, &rows) {
                    (true, None) => {
                        let mul = self.metric.gwrite.mul.clone();
                        self.guard_charge(arr, o, pre, n, &mul).map(|g| {
                            let c = q_sum(&q_sum(&self.metric.gwrite.at(g.n0), &c1), &c2);
                            (g, c)
                        })
                    }
                    _ => None,
                };
                (
                    AK::Write {
                        global,
                        local: false,
                        n,
                        o: on.into(),
                        e: en.into(),
                        cost: q_sum(&q_sum(&acc, &c1), &c2),
                        rows: rows.map(Box::new),
                        guarded: guarded.map(Box::new),
                    },
                    pre.clone(),
                )
            }
            Stmt::If(e, s1, s2, loc) => {
                // no guarded charge in a branch (derive/guarded.rs): Q:IF4's pointwise
                // premises do not admit the charge's lower atoms
                self.guard_loops.push(None);
                let r = self.fwd_if(e, s1, s2, loc, pre);
                self.guard_loops.pop();
                r?
            }
            Stmt::While(e, body, loc) => self.fwd_loop(e, body, loc, pre)?,
            Stmt::Warp(x, op, loc) => self.fwd_warp(x, op, loc, pre)?,
        };
        let (kind, post) = kind_post;
        Ok(AN {
            pre: pre.clone(),
            post,
            kind,
        })
    }
    /// Q:SHFL/Q:VOTE: the post of `x ← shfl …`/`x ← vote …` drops the constraints on `x`
    /// and gives `x` the entry of [`warp_entry`] (spec/logic.md §4).
    fn fwd_warp(
        &mut self,
        x: &str,
        op: &WarpOp,
        loc: &Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        let xty = self.local_ty(x).ok_or_else(|| {
            err(
                Some(*loc),
                format!("warp operation on undeclared local `{x}`"),
            )
        })?;
        let mut children = Vec::new();
        let mut cost = &self.metric.op + &self.metric.vwrite;
        for o in op.operands() {
            let (n, c) = self.operand_node(o, *loc)?;
            children.push(n);
            cost += c;
        }
        let mut d = (*pre.d).clone();
        d.remove(x);
        if let Some(e) = warp_entry(&pre.d, op, xty) {
            d.insert(x.to_string(), e);
        }
        let p: Vec<Cstr> = pre.p.iter().filter(|c| !c.mentions(x)).cloned().collect();
        let rule = match op {
            WarpOp::Shfl { .. } => "Q:SHFL",
            WarpOp::Vote { .. } => "Q:VOTE",
        };
        Ok((
            AK::Warp(WarpAn {
                rule,
                x: x.to_string(),
                loc: *loc,
                children,
                cost,
            }),
            Abs {
                p: p.into(),
                d: d.into(),
            },
        ))
    }

    /// Q:VWRITE1/2: the post of `x ← e` (`x` renamed through an update of itself, or
    /// `x = lin(e)` added) and the witnesses of its constraints.
    fn fwd_assign(
        &mut self,
        x: &str,
        e: &Expr,
        loc: &Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        let xty = self
            .local_ty(x)
            .ok_or_else(|| err(Some(*loc), format!("assignment to undeclared local `{x}`")))?;
        let (en, cost) = self.expr_node(e, pre, *loc)?;
        let lin = if xty == Ty::Int {
            lin_fixed(&*self, &pre.p, e)
        } else {
            None
        };
        let dep_e = match lin.as_ref().filter(|l| l.is_const()) {
            Some(l) if l.c.is_integer() => l.c.to_integer().try_into().ok().map(Dep::exact),
            // L:GARRAYSTRIDE's entries (Ctx::with_strides): a scaled entry with a row
            // multiplier even where it groups no lanes
            _ if self.lanes && self.strides => entry_expr(&pre.d, e, &self.udims).or_else(|| {
                crate::analysis::linear::scaled_expr(&pre.d, e, &self.udims)
                    .filter(|x| !x.is_linear() && x.mul.is_some())
            }),
            _ if self.lanes => entry_expr(&pre.d, e, &self.udims),
            // L:IFWRAP's entries (Ctx::with_wraps): a wrapped entry where no linear one is
            _ if self.wraps => dep_expr(&pre.d, e, &self.udims).or_else(|| wrap_expr(&pre.d, e)),
            _ => dep_expr(&pre.d, e, &self.udims),
        };
        // a lower derivation's warp-exact product (spec/logic.md §4b), where dep_D knows
        // no more than "uniform", or, with counted loops unrolled, where it is finer than
        // dep_D's uniform entry (`wB·k` with `k` exact in an unrolled copy and `wB ≡ 1
        // (mod 8)`: `≡ k (mod 8k)`, where dep_D gives `≡ 0 (mod k)`)
        let dep_e = match dep_e {
            d if xty == Ty::Int && d.is_none_or(|d| d == Dep::unknown_uniform()) => {
                self.warp_exact_product(&pre.d, e).or(d)
            }
            Some(d) if xty == Ty::Int && self.unroll_counted && d.is_uniform() => {
                match self.warp_exact_product(&pre.d, e) {
                    Some(w) if w != d && w.implies(&d) => Some(w),
                    _ => Some(d),
                }
            }
            d => d,
        };
        // Q:VWRITE1 needs only the value uniform (spec/logic.md §4)
        let vw1 = expr_uniform(&pre.d, e);
        let newdep = match dep_e {
            Some(de) if xty == Ty::Int => Some(de),
            Some(de) if de.is_uniform() => Some(Dep::unknown_uniform()),
            _ => None,
        };
        let newdep = match newdep {
            None if vw1 => Some(Dep::unknown_uniform()),
            other => other,
        };
        // the pre's map, shared, when `x`'s entry stays as it is (issue 13: no copy of the
        // map per assignment, and the certificate writer finds it by its address)
        let d: Arc<DepMap> = if pre.d.get(x) == newdep.as_ref() {
            Arc::clone(&pre.d)
        } else {
            let mut d = (*pre.d).clone();
            d.remove(x);
            if let Some(nd) = newdep {
                d.insert(x.to_string(), nd);
            }
            d.into()
        };
        // `x ← a * b` (uniform, non-linear) under `P ⇒ a ≥ 1 ∧ b ≥ 1`: `x ≥ 1` and
        // `x ≥ a + b − 1` (spec/logic.md §4 "Products")
        let fact = match &lin {
            None if vw1 && xty == Ty::Int => self.product_fact(e, pre),
            _ => None,
        };
        let product = fact
            .as_ref()
            .map(|(f, _, wa, wb)| (f.clone(), wa.clone(), wb.clone()));
        // the post's list: the pre's, shared (no copy of its constraints, issue 13), when
        // no constraint mentions `x` and none is added; built otherwise
        let keeps_all = !pre.p.iter().any(|c| c.mentions(x));
        let fresh = || Vec::with_capacity(pre.p.len() + 1);
        let renamed = |back: &Lin| -> Vec<Cstr> {
            let mut p = fresh();
            for cs in pre.p.iter() {
                p.push(Cstr {
                    kind: cs.kind.clone(),
                    lin: cs.lin.subst(x, back),
                });
            }
            p
        };
        let mut built: Option<Vec<Cstr>> = match &lin {
            // an update `x ← x + δ` (δ not mentioning x, possibly symbolic: a grid-stride
            // step): the pre's constraints renamed back through `x − δ`
            // (`le − x` does not mention `x` exactly when `x`'s coefficient in `le` is 1)
            Some(le) if le.terms.get(x).is_some_and(One::is_one) => {
                (!keeps_all).then(|| renamed(&Lin::var(x).sub(&le.sub(&Lin::var(x)))))
            }
            // `x ← a·x + δ` (a ≠ 1, δ without x: `i *= 2`) is invertible, the pre's
            // constraints hold of `(x − δ)/a`
            Some(le) if le.mentions(x) && !le.coef(x).is_one() => (!keeps_all).then(|| {
                let a = le.coef(x);
                let mut delta = le.clone();
                delta.terms.remove(x);
                renamed(&Lin::var(x).sub(&delta).scale(&(Q::one() / a)))
            }),
            Some(le) if !le.mentions(x) => {
                let mut p = fresh();
                p.extend(pre.p.iter().filter(|c| !c.mentions(x)).cloned());
                p.push(Cstr::eq(Lin::var(x).sub(le)));
                Some(p)
            }
            _ if keeps_all => None,
            _ => {
                let mut p = fresh();
                p.extend(pre.p.iter().filter(|c| !c.mentions(x)).cloned());
                Some(p)
            }
        };
        if let Some((floor, least, _, _)) = fact {
            // `x ≥ α·β` (the floor's least value) and `x ≥ floor`
            let p = built.get_or_insert_with(|| pre.p.to_vec());
            p.push(Cstr::le(Lin::constant(least).sub(&Lin::var(x))));
            if !floor.mentions(x) && !floor.is_const() {
                p.push(Cstr::le(floor.sub(&Lin::var(x))));
            }
        }
        let p: &[Cstr] = built.as_deref().unwrap_or(&pre.p);
        // the post's constraints are the pre's (renamed back through an update of x,
        // or those not mentioning x) and possibly `x − le = 0`: each target is a
        // constraint of the pre itself or a constant, so the witness is found by
        // position (checked; a general search otherwise)
        let mut witnesses = Vec::with_capacity(p.len());
        let mut next = 0;
        for c in p {
            // `c[x ← le]`, which is `c` itself when `c` does not mention `x` (no copy)
            let substituted;
            let value = lin.as_ref().or(product.as_ref().map(|pr| &pr.0));
            let target = match value {
                Some(le) if c.mentions(x) => {
                    substituted = Cstr {
                        kind: c.kind.clone(),
                        lin: c.lin.subst(x, le),
                    };
                    &substituted
                }
                _ => c,
            };
            let mut found = None;
            if target.lin.is_const() {
                let w = Farkas::default();
                if crate::analysis::entail::check_farkas(&pre.p, target, &w) {
                    found = Some(w);
                }
            }
            if found.is_none() {
                // (the pre's own constraint when the list is shared: found by address)
                let same = |j: usize| std::ptr::eq(&pre.p[j], target) || pre.p[j] == *target;
                if let Some(j) = (next..pre.p.len()).find(|&j| same(j)) {
                    next = j + 1;
                    found = Some(Farkas::Id(j));
                }
            }
            let w = match found {
                Some(w) => w,
                None => entails(&pre.p, target).ok_or_else(|| {
                    err(
                        Some(*loc),
                        "internal: no witness for the assignment's postcondition",
                    )
                })?,
            };
            witnesses.push(w);
        }
        // `x ← a >> c`, `x ← a / c` under `P ⇒ a ≥ 1`: Q:VWRITE1's bounding substitution
        let halve = match (&lin, super::candidates::halved_operand(e)) {
            (None, Some(a)) if xty == Ty::Int => lin_operand(&*self, a).and_then(|la| {
                let w = entails(&pre.p, &Cstr::le(Lin::constant(Q::one()).sub(&la)))?;
                Some((la, w, super::candidates::halved_divisor(e)?))
            }),
            _ => None,
        };
        let rows = match e {
            Expr::Read(arr, o) if !vw1 => {
                let (global, n) = self.access_n(arr, o, pre, *loc)?;
                match (global, self.rows_charge(arr, o, pre, n)) {
                    (true, Some(r)) => {
                        let (on, co) = self.operand_node(o, *loc)?;
                        let c = q_sum(&self.metric.gread.at(r.n0), &co);
                        Some((r, c, on))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let guarded = match e {
            Expr::Read(arr, o) if !vw1 && rows.is_none() => {
                let (global, n) = self.access_n(arr, o, pre, *loc)?;
                let mul = self.metric.gread.mul.clone();
                match global
                    .then(|| self.guard_charge(arr, o, pre, n, &mul))
                    .flatten()
                {
                    Some(g) => {
                        let (on, co) = self.operand_node(o, *loc)?;
                        let c = q_sum(&self.metric.gread.at(g.n0), &co);
                        Some((g, c, on))
                    }
                    None => None,
                }
            }
            _ => None,
        };
        Ok((
            AK::Assign(Box::new(AssignAn {
                x: x.to_string(),
                loc: *loc,
                lin,
                halve: halve.map(Box::new),
                product: product.map(Box::new),
                vw1,
                witnesses,
                e: en.into(),
                cost,
                rows: rows.map(|(r, c, on)| Box::new((r, c, on.into()))),
                guarded: guarded.map(|(g, c, on)| Box::new((g, c, on.into()))),
            })),
            Abs {
                // the pre's list, shared, when the assignment left it as it was
                p: match built {
                    // without spare capacity: the list lives as long as the derivation
                    // (issue 13)
                    Some(mut p) if p != *pre.p => {
                        p.shrink_to_fit();
                        p.into()
                    }
                    _ => Arc::clone(&pre.p),
                },
                d,
            },
        ))
    }

    /// The lower bound `β·A + α·B − α·β` of a product `a * b` of int operands with linear
    /// forms `A`, `B`, `α`, `β` ∈ {1, 0} the largest with `P ⇒ A ≥ α`, `P ⇒ B ≥ β`, and
    /// those two witnesses (Q:VWRITE1's lower bounding substitution, spec/logic.md §4
    /// "Products": `(A − α)(B − β) ≥ 0`); `None` when a factor is not entailed non-negative.
    /// Also returns the floor's least value `α·β`.
    fn product_fact(&self, e: &Expr, pre: &Abs) -> Option<(Lin, Q, Farkas, Farkas)> {
        let Expr::Bin(crate::core::BinOp::Mul, a, b) = e else {
            return None;
        };
        let (la, lb) = (lin_operand(self, a)?, lin_operand(self, b)?);
        let (alpha, wa) = factor_bound(&pre.p, &la)?;
        let (beta, wb) = factor_bound(&pre.p, &lb)?;
        let floor = lb
            .scale(&alpha)
            .add(&la.scale(&beta))
            .plus_const(&-(&alpha * &beta));
        Some((floor, alpha * beta, wa, wb))
    }

    /// Q:IF2/IF3 when `P` decides the condition, Q:IF1 when it is warp-uniform, Q:IF4
    /// otherwise.
    fn fwd_if(
        &mut self,
        e: &Expr,
        s1: &Stmt,
        s2: &Stmt,
        loc: &Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        let (en, cost) = self.expr_node(e, pre, *loc)?;
        let (ce, cne, can_t, can_f) = cond(&*self, e);
        // P ∧ e and P ∧ ¬e with the lane facts of pre.d (spec/logic.md §2); Q:IF2/3
        // decide on cond(e) alone
        let (ce_l, cne_l) = (
            self.with_lanes(&pre.d, e, &ce, false),
            self.with_lanes(&pre.d, e, &cne, true),
        );
        let w_t = if can_t && !ce.is_empty() {
            entails_all(&pre.p, &ce)
        } else {
            None
        };
        let w_f = if w_t.is_none() && can_f && !cne.is_empty() {
            entails_all(&pre.p, &cne)
        } else {
            None
        };
        if let Some(w) = w_t {
            let b = self.fwd(s1, pre)?;
            let post = b.post.clone();
            Ok((
                AK::If23 {
                    rule: "Q:IF2",
                    witnesses: w,
                    e: en.into(),
                    cost,
                    branch: Box::new(b),
                },
                post,
            ))
        } else if let Some(w) = w_f {
            let b = self.fwd(s2, pre)?;
            let post = b.post.clone();
            Ok((
                AK::If23 {
                    rule: "Q:IF3",
                    witnesses: w,
                    e: en.into(),
                    cost,
                    branch: Box::new(b),
                },
                post,
            ))
        } else if expr_uniform(&pre.d, e) {
            let t = self.fwd(
                s1,
                &Abs {
                    p: with(&pre.p, &ce_l).into(),
                    d: pre.d.clone(),
                },
            )?;
            let f = self.fwd(
                s2,
                &Abs {
                    p: with(&pre.p, &cne_l).into(),
                    d: pre.d.clone(),
                },
            )?;
            let join = Abs {
                p: join_p(&t.post.p, &f.post.p).into(),
                d: join_deps(&t.post.d, &f.post.d).into(),
            };
            let wt = entails_all(&t.post.p, &join.p)
                .ok_or_else(|| err(Some(*loc), "internal: join not entailed"))?;
            let wf = entails_all(&f.post.p, &join.p)
                .ok_or_else(|| err(Some(*loc), "internal: join not entailed"))?;
            Ok((
                AK::If1(If1An {
                    e: en.into(),
                    cost,
                    t: Box::new(t),
                    f: Box::new(f),
                    join: join.clone(),
                    wt,
                    wf,
                    rw_t: Vec::new(),
                    rw_f: Vec::new(),
                }),
                join,
            ))
        } else {
            let tpre = Abs {
                p: with(&pre.p, &ce_l).into(),
                d: pre.d.clone(),
            };
            // Q:IFALIGN when enabled and a divergent test costs something (spec/logic.md §4)
            let align = match ce.as_slice() {
                [c] if self.align
                    && !self.metric.div.is_zero()
                    && c.kind == CKind::Le
                    && !cne.is_empty() =>
                {
                    align_charge(self, &pre.d, &c.lin, self.launch, self.hw.warp_size)
                }
                _ => None,
            };
            if let Some((form, _, m)) = &align {
                self.add_if_residue_to_loops(s1, form, m);
            }
            let pne = with(&pre.p, &cne_l);
            self.fwd_if4(s1, s2, loc, tpre, pne, (en, cost, align))
        }
    }

    /// Q:IF4: the then branch from `tpre` (`P ∧ e`), the else branch from the constraints of
    /// `pne` (`P ∧ ¬e`) that the then branch's post also entails; `(en, cost)` is the
    /// condition's expression node and `align` Q:IFALIGN's charge (`None`: Q:IF4).
    fn fwd_if4(
        &mut self,
        s1: &Stmt,
        s2: &Stmt,
        loc: &Loc,
        tpre: Abs,
        pne: Vec<Cstr>,
        (en, cost, align): (Node, Q, Option<(Lin, BigInt, BigInt)>),
    ) -> Result<(AK, Abs), AnalysisError> {
        let t = self.fwd_tight(s1, &tpre)?;
        // P_F: the linear constraints of P ∧ ¬e that the then branch's post also
        // entails (Q:IF4 else-then), then the lane constraints of P ∧ ¬e, which
        // need only else-cond (spec/logic.md §4)
        let pne_lin: Vec<Cstr> = pne.iter().filter(|c| !c.is_lane()).cloned().collect();
        let mut pf = join_p(&pne_lin, &t.post.p);
        for c in pne.iter().filter(|c| c.is_lane()) {
            if !pf.contains(c) {
                pf.push(c.clone());
            }
        }
        let pf_lin: Vec<Cstr> = pf.iter().filter(|c| !c.is_lane()).cloned().collect();
        let df = minus_writes(&t.post.d, &s1.writes());
        let f = self.fwd_tight(
            s2,
            &Abs {
                p: pf.clone().into(),
                d: df.into(),
            },
        )?;
        let pj = join_p(&t.post.p, &f.post.p);
        let dj = minus_writes(&f.post.d, &s2.writes());
        let internal = || err(Some(*loc), "internal: IF4 join not entailed");
        let w_else_cond = entails_all(&pne, &pf).ok_or_else(internal)?;
        let w_else_then = entails_all(&t.post.p, &pf_lin).ok_or_else(internal)?;
        let w_join_then = entails_all(&t.post.p, &pj).ok_or_else(internal)?;
        let w_join_else = entails_all(&f.post.p, &pj).ok_or_else(internal)?;
        Ok((
            AK::If4(Box::new(If4An {
                e: en.into(),
                cost,
                t: Box::new(t),
                f: Box::new(f),
                w_else_cond,
                w_else_then,
                w_join_then,
                w_join_else,
                align,
            })),
            Abs {
                p: pj.into(),
                d: dj.into(),
            },
        ))
    }

    /// A loop: Q:WHILEEXIT1/2 for a loop left by jumps whose body tests a counter, Q:UNROLL
    /// when `P` decides the trip count, Q:WHILE1/2 otherwise.
    fn fwd_loop(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: &Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        // the loop's guard for the guarded accesses of its body (derive/guarded.rs)
        let g = self.guard_loop(e, body);
        self.guard_loops.push(g);
        let r = self.fwd_loop_in(e, body, loc, pre);
        self.guard_loops.pop();
        r
    }

    fn fwd_loop_in(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: &Loc,
        pre: &Abs,
    ) -> Result<(AK, Abs), AnalysisError> {
        // a loop without a linear ranking atom whose condition P decides at every
        // iteration (constant trip count) is unrolled exactly; so is one whose step is
        // proportional to its counter (`for (s = 1; s < 256; s *= 2)`: the ranking atom
        // only gives a linear bound on its logarithmic trip count)
        let atom = self.loop_atom_raw(e, body, None);
        let proportional = matches!(atom, Ok((_, _, _, _, true, _)));
        let has_atom = atom.is_ok();
        // a loop left by jumps whose body tests a counter (spec/logic.md §4a)
        if !has_atom
            && self.exit_candidates.contains(&loop_key(body))
            && (!cond(&*self, e).1.is_empty() || self.guard_var(e).is_some())
        {
            if let Some((kind, post)) = self.fwd_while_exit(e, body, *loc, pre)? {
                return Ok((kind, post));
            }
        }
        // a triangular outer loop with a constant trip count (derive/nest.rs, unroll mode)
        let tri = self.nests.unroll_triangular(loop_key(body));
        // an innermost counted loop whose first test `pre` decides (a launch-constant trip
        // count; unrolled in a Ctx::unrolling_counted run)
        let counted = has_atom && !proportional && !candidates::has_loop(body) && {
            let (ce, _, can_t, _) = cond(&*self, e);
            can_t && !ce.is_empty() && entails_all(&pre.p, &ce).is_some()
        };
        if counted {
            self.counted_loops += 1;
        }
        let unrolled = if !has_atom || proportional || tri || (counted && self.unroll_counted) {
            self.unroll(e, body, *loc, pre, 0)?
        } else {
            None
        };
        if tri && unrolled.is_some() {
            self.nests.unrolled += 1;
        }
        match unrolled {
            Some(an) => {
                let post = an.post.clone();
                Ok((
                    AK::Unroll {
                        inner: Box::new(an),
                    },
                    post,
                ))
            }
            None => self.fwd_while(e, body, *loc, pre),
        }
    }

    /// [`Ctx::fwd`] of a branch of a divergent `if` (Q:IF4), with the thread constraints
    /// its pre implies but does not list (`thread_projection`) added through a Q:WEAK
    /// ([`AK::Tighten`]), so that the accesses in the branch count only the lanes that can
    /// take it. Only for metrics whose access cost depends on `N*` (`self.lanes`).
    pub(super) fn fwd_tight(&mut self, s: &Stmt, pre: &Abs) -> Result<AN, AnalysisError> {
        let extra = if self.lanes {
            thread_projection(&pre.p)
        } else {
            Vec::new()
        };
        if extra.is_empty() {
            return self.fwd(s, pre);
        }
        let tight = Abs {
            p: with(&pre.p, &extra).into(),
            d: pre.d.clone(),
        };
        let Some(w_pre) = entails_all(&pre.p, &tight.p) else {
            return self.fwd(s, pre);
        };
        let inner = self.fwd(s, &tight)?;
        Ok(AN {
            pre: pre.clone(),
            post: inner.post.clone(),
            kind: AK::Tighten {
                inner: Box::new(inner),
                w_pre,
            },
        })
    }

    /// The annotated `if e then (body; while (e) body) else skip` of iteration `k` of an
    /// unrolled loop (Q:UNROLL), or `None` when `pre` decides neither `e` nor `¬e` or the
    /// loop runs more than [`UNROLL_LIMIT`] iterations.
    pub(super) fn unroll(
        &mut self,
        e: &Expr,
        body: &Stmt,
        loc: Loc,
        pre: &Abs,
        k: usize,
    ) -> Result<Option<AN>, AnalysisError> {
        if k > UNROLL_LIMIT {
            return Ok(None);
        }
        let (ce, cne, can_t, can_f) = cond(&*self, e);
        let (en, cost) = self.expr_node(e, pre, loc)?;
        let decided = |c: &[Cstr], ok: bool| {
            if ok && !c.is_empty() {
                entails_all(&pre.p, c)
            } else {
                None
            }
        };
        if let Some(w) = decided(&cne, can_f) {
            let skip = AN {
                pre: pre.clone(),
                post: pre.clone(),
                kind: AK::Skip,
            };
            return Ok(Some(AN {
                pre: pre.clone(),
                post: pre.clone(),
                kind: AK::If23 {
                    rule: "Q:IF3",
                    witnesses: w,
                    e: en.into(),
                    cost,
                    branch: Box::new(skip),
                },
            }));
        }
        let Some(w) = decided(&ce, can_t) else {
            return Ok(None);
        };
        let b = self.fwd(body, pre)?;
        let Some(rest) = self.unroll(e, body, loc, &b.post, k + 1)? else {
            return Ok(None);
        };
        let post = rest.post.clone();
        let rest = AN {
            pre: b.post.clone(),
            post: post.clone(),
            kind: AK::Unroll {
                inner: Box::new(rest),
            },
        };
        let seq = AN {
            pre: pre.clone(),
            post: post.clone(),
            kind: AK::Seq(vec![b, rest]),
        };
        Ok(Some(AN {
            pre: pre.clone(),
            post,
            kind: AK::If23 {
                rule: "Q:IF2",
                witnesses: w,
                e: en.into(),
                cost,
                branch: Box::new(seq),
            },
        }))
    }
}

/// A factor's bound `α` ∈ {1, 0}, the largest with `P ⇒ A ≥ α`, and its witness; the
/// kernel reads `α = 1` off a witness whenever it shows `A ≥ 1` (spec/logic.md §4
/// "Products"), so a witness of `A ≥ 0` that also shows `A ≥ 1` gives `α = 1` here too.
fn factor_bound(p: &[Cstr], a: &Lin) -> Option<(Q, Farkas)> {
    let at_least = |k: Q| Cstr::le(Lin::constant(k).sub(a));
    if let Some(w) = entails(p, &at_least(Q::one())) {
        return Some((Q::one(), w));
    }
    let w = entails(p, &at_least(Q::zero()))?;
    let alpha = if crate::analysis::entail::check_farkas(p, &at_least(Q::one()), &w) {
        Q::one()
    } else {
        Q::zero()
    };
    Some((alpha, w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Launch;

    /// The memo key of `access_n` is sound: entries with one [`nstar_class`] get one `N*`.
    /// Checked against `n_star` itself (the independent computation) for every residue and
    /// modulus below 80, strides 0–3 and element sizes 1, 2, 4, 8, both access kinds, and a
    /// block of 64 threads (two warps); and the class does merge residues (offsets `tid + c`
    /// for 256 constants `c` fall into at most `M` classes: 32 sector bytes, 128 bank bytes).
    #[test]
    fn nstar_class_determines_n_star() {
        let hw = Hardware::default();
        let launch = Launch {
            block: [64, 1, 1],
            grid: None,
        };
        for kind in [AccessKind::MemReads, AccessKind::Conflicts] {
            for es in [1, 2, 4, 8] {
                for kx in 0..4 {
                    let mut seen: std::collections::HashMap<(Dep, i128), u64> = Default::default();
                    for g in [0, 1, 2, 3, 8, 12] {
                        for r in 0..80 {
                            let Some(d) = Dep::new([kx, 0, 0], r, g) else {
                                continue;
                            };
                            let n = n_star(&[], Some(d), es, kind, &hw, &launch);
                            let c = nstar_class(d, es, kind, &hw);
                            assert_eq!(*seen.entry(c).or_insert(n), n, "{d:?} es {es} {kind:?}");
                        }
                    }
                    // exact entries `c`: the base `(c·es) mod M` takes at most `M` values
                    let m = match kind {
                        AccessKind::MemReads => hw.sector_bytes,
                        AccessKind::Conflicts => hw.bank_bytes * hw.banks,
                    } as usize;
                    let exact: std::collections::HashSet<_> = (0..256)
                        .map(|r| nstar_class(Dep::exact(r), es, kind, &hw))
                        .collect();
                    assert!(exact.len() <= m, "{} classes", exact.len());
                }
            }
        }
    }
}
