//! The lower-bound rules of possibly divergent `if`s (spec/logic.md §4b): L:IFD, and where
//! the warp provably splits or a lane provably runs the then branch L:IFDIV, L:IFALIGN,
//! L:IFWRAP and L:IFDT, with their lane witnesses and `minc` (the least cost of a branch).

use super::split::Subsets;
use super::{ids, pp, pre_q, stmt_node, with_q, LowerError, Lx};
use crate::analysis::linear::cond;
use crate::certificate::{Assn, Field, Node};
use crate::core::assertion::poly::Atom;
use crate::core::assertion::{Cstr, Lin, Poly};
use crate::core::ir::{Expr, Operand, Space, Stmt};
use crate::core::metric::Q;
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

impl Lx<'_> {
    /// L:IFD for a possibly divergent `if` (upper node Q:IF4 or Q:IFALIGN, `s` the `if`):
    /// the test's exact cost and `M^if`, its branches charged 0; L:IFDIV (`+ M^div`) when
    /// two lanes of the warp decide the test both ways under `P`, L:IFALIGN
    /// (`+ M^div·[m ∤ s − X]`, the upper Q:IFALIGN node's atom and class) then instead when the upper node
    /// is Q:IFALIGN (spec/logic.md §4b). The post keeps the upper post's `P'`
    /// (entailed by `P`; it must not mention a local the branches write) and `D \ W`, then
    /// an L:WEAK without rewrites narrows `D \ W` to the upper post's `D'`. Errors: `post_q`
    /// or `P'` mentions a written local, or `P ⇏ P'`.
    pub(super) fn divergent_if(
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
        // L:IFSPLIT when a remainder test splits the lane set, else L:IFLANES when the test
        // compares exact values lane by lane (an unrolled round of reduce1's
        // `if (index < blockDim.x)`): each branch over the lanes taking it, kept where the
        // branches' constant lower bounds exceed `minc(s1) + minc(s2)` (so the bound is
        // above L:IFDIV's and L:IFDT's; where it is not, the certificate is unchanged)
        let minc = self.minc(s1) + self.minc(s2);
        let subset = [Subsets::Rem, Subsets::Exact].into_iter().find_map(|how| {
            self.subset_if(how, n, e, [s1, s2], pre, &ipost, &ws, &le, &c)
                .filter(|(_, k)| *k > minc)
        });
        if let Some((node, _)) = subset {
            return Ok(self.narrowed(node, pre, post, post_q));
        }
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
        Ok(self.narrowed(ifd, pre, post, post_q))
    }

    /// `ifd` (post `D \ W`) under an L:WEAK without rewrites that narrows its post's `D`
    /// to the upper post's (`pre`, `post`: the upper node's), or `ifd` itself when equal.
    fn narrowed(&self, ifd: Node, pre: &Assn, post: &Assn, post_q: &Poly) -> Node {
        let Ok((ipre, ipost)) = pp(&ifd) else {
            return ifd;
        };
        if ipost.d == post.d {
            return ifd;
        }
        let ipre = ipre.clone();
        let fields = vec![ids("pre", pre.p.len()), ids("post", post.p.len())];
        stmt_node(
            "L:WEAK",
            ipre,
            with_q(post, post_q.clone()),
            fields,
            vec![ifd],
        )
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
        let mut seen = vec![false; m as usize];
        for &t in &self.threads {
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
        let ws = u64::from(self.hw.warp_size);
        let first = ws * u64::from(self.warp);
        // the lanes of the judgment's set (a branch's subset under L:IFSPLIT)
        (0..self.hw.warp_size)
            .filter_map(|l| {
                let t = first + u64::from(l);
                self.threads.contains(&t).then(|| {
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
