//! The backward pass of loops: Q:WHILE1/2 (with the shift and `mono` rewrites of the
//! ranking atom) and Q:WHILEEXIT1/2.

use super::{apply_rewrites, node_of, unshifted_monos, Back, TChild, TNode};
use crate::analysis::derive::ranking::{floor_mono_cg, sym_mono_cg, LoopAtom};
use crate::analysis::derive::{err, identity_witnesses, Abs, WhileAn, WhileExitAn, AK, AN};
use crate::analysis::entail::entails;
use crate::analysis::tpoly::TPoly;
use crate::analysis::AnalysisError;
use crate::certificate::{Farkas, Field, Rewrite};
use crate::core::assertion::linear::{Cstr, Lin};
use crate::core::assertion::poly::{canon_atom, Atom, AtomVal, Mono};
use crate::core::metric::Q;
use num_traits::{One, Zero};
use std::collections::BTreeSet;

impl Back<'_, '_> {
    /// Q:WHILEEXIT1/2 (spec/logic.md §4a): an invariant template over the loop's own atoms,
    /// the potential after the loop kept apart.
    pub(super) fn back_while_exit(
        &mut self,
        a: &AN,
        an: &WhileExitAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let WhileExitAn {
            e,
            cost,
            uniform,
            inv,
            body,
            w_pre,
            w_body_post,
            key,
            nested,
            ge,
            entry,
        } = an;
        let node =
            |rule, qpre: &TPoly, fields, children| node_of(a, qpost, rule, qpre, fields, children);
        // Q:WHILEGUARDCAP / Q:WHILEEXITCAP (capped mode): no `M^div` in the loop test nor in
        // the body's exit nodes; the lane count pays the splits (`cap_charge`)
        let cap = self.ctx.cap && !*uniform && self.ctx.metric.div > Q::zero();
        // Q:WHILEEXITCAP2: the loop test keeps `M^div` (paid per round), only the body's exit
        // nodes are capped (loops without a guard)
        let per_round = cap && self.ctx.cap_test && ge.is_none();
        let k = if *uniform || (cap && !per_round) {
            cost + &self.ctx.metric.if_
        } else {
            cost + &self.ctx.metric.if_ + &self.ctx.metric.div
        };
        // a body without loops costs at most a constant per iteration: the ranking
        // atoms alone suffice (the potential after the loop is kept apart)
        let degree = if *nested { self.ctx.degree } else { 1 };
        let mut monos = self.monomials_deg(
            self.ctx.exit_own.get(key),
            self.ctx.exit_floors.get(key),
            &inv.d,
            &[],
            degree,
        );
        if *nested {
            self.add_chains(*key, &inv.d, &[], &mut monos);
        }
        let body_pre = body.pre.clone();
        // Q:WHILEGUARD: the body's pre has the guard's condition, under which every own
        // atom `A` with `A ≥ 1` pays one unit (`max0(A) = max0(A − 1) + 1`)
        let rws: Vec<Rewrite> = match ge {
            Some(_) => self
                .ctx
                .exit_own
                .get(key)
                .into_iter()
                .flatten()
                .filter_map(|a| {
                    let one = Q::one();
                    let target = Cstr::le(Lin::constant(one.clone()).sub(a));
                    entails(&body_pre.p, &target).map(|w| Rewrite::Shift(a.clone(), one, w))
                })
                .collect(),
            None => Vec::new(),
        };
        let i = self.template(&monos);
        let i = self.restrict_d(i, &inv.d)?;
        // Q:WHILEGUARD(1): `i` is the loop head's potential `J`, the body's post; it pays
        // the round `I + k` only under the guard's condition, by the shifts `rws`
        // (`(rewrite guard …)`), so the body's pre is `I = rws(J) − k` and a loop no lane
        // enters is charged its last test alone. Q:WHILEEXIT1/2: body pre `i`, post `i + k`.
        let (ib, jb) = match ge {
            Some(_) => {
                let ib = apply_rewrites(&i, &rws).plus_const(&-k.clone());
                self.geq(&ib, &TPoly::zero(), "the loop body's pre is a potential")?;
                (ib, i.clone())
            }
            None => (i.clone(), i.plus_const(&k)),
        };
        let saved = std::mem::replace(&mut self.capped, cap);
        let nb = self.back(body, jb.clone());
        self.capped = saved;
        let (nb, qb) = nb?;
        let charge = if cap {
            Some(self.cap_charge(&nb, per_round)?)
        } else {
            None
        };
        self.geq(&ib, &qb, "loop body is paid by the invariant")?;
        let bweak = TNode {
            rule: "Q:WEAK",
            pre: (body_pre.clone(), ib.clone()),
            post: (inv.clone(), jb),
            fields: vec![
                Field::Entail("pre", identity_witnesses(&body_pre.p)),
                Field::Entail("post", w_body_post.clone()),
            ],
            children: vec![TChild::Stmt(nb)],
        };
        // Q:WHILEGUARD0: the first test cannot split (the guard is uniform in the pre), so
        // the pre's `J₀` owes the first round `I + M^if + C` only (`(rewrite entry …)`, the
        // same shifts): a template over `J`'s and `I`'s monomials (the shifted atoms let
        // `J₀` charge the last round less, `2·max0(n) + max0(n − 1)` for `3·max0(n)`)
        let k0 = cost + &self.ctx.metric.if_;
        // only where the first round's `M^div` is worth saving (sectors and conflicts
        // have `M^div = 0`: their certificates keep Q:WHILEGUARD)
        let entry = *entry && self.ctx.metric.div > Q::zero() && !cap;
        let head = if entry {
            let mut m0: BTreeSet<Mono> = i.terms.keys().cloned().collect();
            m0.extend(ib.terms.keys().cloned());
            let j0 = self.template(&m0);
            let j0 = self.restrict_d(j0, &inv.d)?;
            let paid = apply_rewrites(&j0, &rws).plus_const(&-k0.clone());
            self.geq(
                &paid,
                &ib,
                "the loop's entry potential pays the first round",
            )?;
            j0
        } else {
            i.clone()
        };
        // Q:WHILEGUARD(0/1): the pre is `J + Q' + M^if + C` (`J₀` for Q:WHILEGUARD0; the
        // last test, which every lane fails, costs `M^if + C`: no `M^div`);
        // Q:WHILEEXIT1/2: `i + Q' + 2k`
        let mut wfields = Vec::new();
        if ge.is_some() && !rws.is_empty() {
            if entry {
                wfields.push(Field::Rewrite("entry", rws.clone()));
            }
            wfields.push(Field::Rewrite("guard", rws));
        }
        let last = match ge {
            Some(_) => k0,
            None => &k + &k,
        } + charge.clone().unwrap_or_else(Q::zero);
        let qp = head.plus(qpost).plus_const(&last);
        let wnode = TNode {
            rule: if charge.is_some() && ge.is_some() {
                "Q:WHILEGUARDCAP"
            } else if per_round {
                "Q:WHILEEXITCAP2"
            } else if charge.is_some() {
                "Q:WHILEEXITCAP"
            } else if entry {
                "Q:WHILEGUARD0"
            } else if ge.is_some() && *uniform {
                "Q:WHILEGUARD1"
            } else if ge.is_some() {
                "Q:WHILEGUARD"
            } else if *uniform {
                "Q:WHILEEXIT1"
            } else {
                "Q:WHILEEXIT2"
            },
            pre: (inv.clone(), qp.clone()),
            post: (a.post.clone(), qpost.clone()),
            fields: wfields,
            children: vec![TChild::Expr(e.clone()), TChild::Stmt(bweak)],
        };
        if ge.is_some() {
            // its entry weakening is on the guard's write before it (`fwd_seq`)
            return Ok((wnode, qp));
        }
        let outer = node(
            "Q:WEAK",
            &qp,
            vec![
                Field::Entail("pre", w_pre.clone()),
                Field::Entail("post", identity_witnesses(&a.post.p)),
            ],
            vec![TChild::Stmt(wnode)],
        );
        Ok((outer, qp))
    }

    /// The lane-count charge `(N − 1)·(a + t + 1)·M^div` of a capped loop whose body's
    /// derivation is `body` (spec/logic.md §4a, the kernel's `rules/cap.rs`), `(N − 1)·(a +
    /// t)·M^div` when the loop test is paid per round (`per_round`, Q:WHILEEXITCAP2): `N =
    /// min(warp size, threads of the block)`, `a = 1` with a Q:IFEXIT4 node, `t` the
    /// Q:IFGUARD4 and Q:FLAGEXIT nodes. Errors: a node that may split off the cap condition
    /// (the capped run then fails, and the ordinary certificate stands alone).
    fn cap_charge(&self, body: &TNode, per_round: bool) -> Result<Q, AnalysisError> {
        #[derive(Clone, Copy, PartialEq)]
        enum Pos {
            TailLoop,
            TailFlag,
            Ordinary,
        }
        fn walk(n: &TNode, pos: Pos, found: &mut (bool, u64)) -> Result<(), String> {
            let tail = pos != Pos::Ordinary;
            let at: Vec<Pos> = match n.rule {
                "Q:SEQ" => (0..n.children.len())
                    .map(|i| {
                        if i + 1 == n.children.len() {
                            pos
                        } else {
                            Pos::Ordinary
                        }
                    })
                    .collect(),
                "Q:WEAK" => vec![pos],
                "Q:IF1" | "Q:IF2" | "Q:IF3" => vec![Pos::Ordinary, pos, pos],
                "Q:IFEXIT1" => vec![Pos::Ordinary, Pos::Ordinary, pos],
                "Q:IFEXIT4" if tail => {
                    found.0 = true;
                    vec![Pos::Ordinary, Pos::Ordinary, pos]
                }
                "Q:IFGUARD4" if pos == Pos::TailLoop => {
                    found.1 += 1;
                    vec![Pos::Ordinary, pos, Pos::Ordinary]
                }
                "Q:FLAGEXIT" if pos == Pos::TailLoop => {
                    found.1 += 1;
                    vec![Pos::TailFlag, Pos::Ordinary, pos, Pos::Ordinary]
                }
                "Q:IFEXIT4" | "Q:IFGUARD4" | "Q:FLAGEXIT" | "Q:IF4" | "Q:IFALIGN" | "Q:WHILE2"
                | "Q:WHILELAST" | "Q:WHILELASTALIGN" | "Q:WHILEEXIT2" | "Q:WHILEGUARD"
                | "Q:WHILEGUARD0" | "Q:WHILEGUARDCAP" | "Q:WHILEEXITCAP" | "Q:WHILEEXITCAP2" => {
                    return Err(format!("a {} node may split the warp", n.rule))
                }
                _ => Vec::new(),
            };
            for (i, c) in n.children.iter().enumerate() {
                if let TChild::Stmt(c) = c {
                    walk(c, at.get(i).copied().unwrap_or(Pos::Ordinary), found)?;
                }
            }
            Ok(())
        }
        let mut found = (false, 0u64);
        walk(body, Pos::TailLoop, &mut found).map_err(|reason| AnalysisError {
            loc: None,
            reason: format!("capped loop: {reason}"),
        })?;
        let lanes = u64::from(self.ctx.hw.warp_size)
            .min(self.ctx.launch.block_threads())
            .max(1);
        let splits = (lanes - 1) * (u64::from(found.0) + found.1 + u64::from(!per_round));
        Ok(Q::from_integer(splits.into()) * &self.ctx.metric.div)
    }

    /// Q:WHILE1/2: an invariant template paid by the shift of the ranking atom.
    pub(super) fn back_while(
        &mut self,
        a: &AN,
        an: &WhileAn,
        qpost: &TPoly,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let WhileAn {
            e,
            cost,
            uniform,
            inv,
            body,
            w_pre,
            w_body_post,
            atom,
            atom_err,
            last,
            nosplit,
            writes,
            loc,
            key,
        } = an;
        let node =
            |rule, qpre: &TPoly, fields, children| node_of(a, qpost, rule, qpre, fields, children);
        // Q:WHILELAST charges M^div once, before the loop, instead of every round;
        // Q:WHILEWARP never (its test cannot split a warp)
        let k = if *uniform || *nosplit || last.is_some() {
            cost + &self.ctx.metric.if_
        } else {
            cost + &self.ctx.metric.if_ + &self.ctx.metric.div
        };
        let mut monos = self.monomials(*key, &inv.d, &[]);
        monos.extend(qpost.terms.keys().cloned());
        let i = self.template(&monos);
        let i = self.restrict_d(i, &inv.d)?;
        // Q:WHILE2's post potential: the invariant without its terms over W(s)
        let i_post = if *uniform {
            i.clone()
        } else {
            let mut out = TPoly::zero();
            for (m, c) in &i.terms {
                if !m.iter().any(|at| writes.iter().any(|w| at.mentions(w))) {
                    out.add_term(m.clone(), c.clone());
                }
            }
            out
        };
        self.geq(
            &i_post,
            qpost,
            "loop invariant covers the potential after the loop",
        )?;
        let ik = i.plus_const(&k);
        // a triangular loop's shift deferred to its inner loop's entry (derive/nest.rs)
        let deferred = match (atom, last) {
            (Some(la), None) => self.deferral(*key, la, body),
            _ => None,
        };
        if let Some((inner, rw)) = &deferred {
            self.deferred.insert(*inner, rw.clone());
        }
        let backed = self.back(body, ik.clone());
        if let Some((inner, _)) = &deferred {
            self.deferred.remove(inner);
        }
        let (nb, qb) = backed?;
        let (mut ishift, mut rws) = match atom {
            Some(la) => {
                let (mut t, mut rws) = (i.clone(), vec![]);
                // a triangular nest's over-shifted atom: its ordinary atom first (nest.rs)
                if let Some((a0, w0)) = self.ctx.ordinary_first(*key, la, &body.pre.p) {
                    t = t.shift(&a0, &la.shift);
                    rws.push(Rewrite::Shift(a0, la.shift.clone(), w0));
                }
                if deferred.is_none() {
                    rws.push(Rewrite::Shift(
                        la.atom.clone(),
                        la.shift.clone(),
                        la.witness.clone(),
                    ));
                    t = t.shift(&la.atom, &la.shift);
                }
                // a constant step c > 1: the floor atom ⌊R/c⌋⁺ drops by one round too
                let relaxed_floor = la.relaxed.as_ref().and_then(|r| r.floor.as_ref());
                for fr in la.floor.iter().chain(relaxed_floor) {
                    t = t.shift(&fr.atom, &Q::one());
                    rws.push(Rewrite::IShift(
                        fr.atom.clone(),
                        Q::one(),
                        fr.cg(body.pre.p.len()),
                    ));
                }
                // an inner loop's relaxed atom (derive/nest.rs) drops by its shift too
                if let Some(r) = &la.relaxed {
                    t = t.shift(&r.atom, &r.shift);
                    rws.push(Rewrite::Shift(
                        r.atom.clone(),
                        r.shift.clone(),
                        r.witness.clone(),
                    ));
                }
                // a halving counter: ⌊log2 2R⌋⁺ = 1 + ⌊log2 R⌋⁺ pays one round too
                if let Some((l, w)) = &la.log {
                    t = t.lhalve(l);
                    rws.push(Rewrite::LHalve(l.clone(), w.clone()));
                }
                // a doubling counter: ⌊log2 (L/M)⌋⁺ = 1 + ⌊log2 (L/2M)⌋⁺ pays one round too
                if let Some((l, m, w1, w2)) = &la.dlog {
                    t = t.ldouble(l, m);
                    rws.push(Rewrite::LDouble(
                        l.clone(),
                        m.clone(),
                        w1.clone(),
                        w2.clone(),
                    ));
                }
                (t, rws)
            }
            None => (i.clone(), vec![]),
        };
        let (ishift_base, rws_base) = (ishift.clone(), rws.clone());
        // a symbolic step (`pos += 192·gridDim.x`): the body leaves the atom lowered
        // by the step, the shift lowered it by the step's lower bound; bridge the
        // two by a monotone rewrite max0(a − s_min) ≥ max0(a − step)
        let mono_from = atom.as_ref().filter(|la| la.symbolic).and_then(|la| {
            match canon_atom(&la.atom.plus_const(&-la.shift.clone())) {
                AtomVal::Scaled(_, from) => Some(from),
                _ => None,
            }
        });
        if let Some(from) = &mono_from {
            if let Some((to, w)) = self.step_mono(from, &ishift, &qb, &body.pre.p) {
                ishift = ishift.replace_atom(&from.into(), &[(Q::one(), Some(to.clone().into()))]);
                rws.push(Rewrite::Mono(from.clone(), to, w));
            }
        }
        // the same for the floor atom: ⌊(R − c)/c⌋⁺ ≥ ⌊(R − step)/c⌋⁺ (imono)
        let floor_from = atom
            .as_ref()
            .filter(|la| la.symbolic)
            .and_then(|la| la.floor.as_ref())
            .and_then(|fr| match fr.atom.shifted(&Q::one()).canonical() {
                AtomVal::Scaled(_, a) => Some(a),
                AtomVal::Const(_) => None,
            });
        if let Some(from) = &floor_from {
            step_imono(from, &mut ishift, &mut rws, &qb, &body.pre.p);
        }
        self.geo_rewrites(atom.as_ref(), &mut ishift, &mut rws, &qb, &body.pre.p);
        self.geq(&ishift, &qb, "loop body is paid by the invariant")
            .map_err(|e| {
                let why = match atom_err {
                    Some(w) => format!(
                        "no bound for this loop: its body has a cost but the loop has no ranking atom ({w})"
                    ),
                    None => format!("no bound for this loop: {}", e.reason),
                };
                err(Some(*loc), why)
            })?;
        let weak = |pre: Abs, rws: Vec<Rewrite>, post: Abs, w_post: Vec<Farkas>, nb: TNode| {
            let mut fields = vec![Field::Entail("pre", identity_witnesses(&pre.p))];
            if !rws.is_empty() {
                fields.push(Field::Rewrite("pre", rws));
            }
            fields.push(Field::Entail("post", w_post));
            TNode {
                rule: "Q:WEAK",
                pre: (pre, i.clone()),
                post: (post, ik.clone()),
                fields,
                children: vec![TChild::Stmt(nb)],
            }
        };
        // Q:WHILELAST: the last round's body, paid by the same shifted invariant
        let lweak = match last {
            Some(lr) => {
                let (nb2, qb2) = self.back(&lr.body, ik.clone())?;
                let mut ishift2 = ishift_base.clone();
                let mut rws2 = rws_base.clone();
                // the last round's P is P ∧ e and the window: the cut's later indices move
                let relaxed_floor = atom
                    .as_ref()
                    .and_then(|la| la.relaxed.as_ref()?.floor.as_ref());
                let floors = atom.as_ref().and_then(|la| la.floor.as_ref());
                for fr in floors.into_iter().chain(relaxed_floor) {
                    for r in rws2.iter_mut() {
                        if let Rewrite::IShift(fa, _, cg) = r {
                            if *fa == fr.atom {
                                *cg = fr.cg(lr.body.pre.p.len());
                            }
                        }
                    }
                }
                if let Some(from) = &mono_from {
                    if let Some((to, w)) = self.step_mono(from, &ishift2, &qb2, &lr.body.pre.p) {
                        ishift2 = ishift2
                            .replace_atom(&from.into(), &[(Q::one(), Some(to.clone().into()))]);
                        rws2.push(Rewrite::Mono(from.clone(), to, w));
                    }
                }
                if let Some(from) = &floor_from {
                    step_imono(from, &mut ishift2, &mut rws2, &qb2, &lr.body.pre.p);
                }
                self.geo_rewrites(atom.as_ref(), &mut ishift2, &mut rws2, &qb2, &lr.body.pre.p);
                self.geq(
                    &ishift2,
                    &qb2,
                    "last round of the loop is paid by the invariant",
                )?;
                let post = Abs {
                    p: lr.exit.clone().into(),
                    d: inv.d.clone(),
                };
                Some(weak(
                    lr.body.pre.clone(),
                    rws2,
                    post,
                    lr.w_post.clone(),
                    nb2,
                ))
            }
            None => None,
        };
        let bweak = weak(body.pre.clone(), rws, inv.clone(), w_body_post.clone(), nb);
        let (rule, fields, children, qpre) = match lweak {
            Some(lw) => {
                let mut fields = vec![Field::Entail(
                    "last",
                    identity_witnesses(&last.as_ref().map_or(vec![], |l| l.exit.clone())),
                )];
                // Q:WHILELASTALIGN charges the one split M^div·[m ∤ s − X] (spec/logic.md §4)
                let window = last.as_ref().and_then(|l| l.window.as_ref());
                let (rule, qpre) = match last.as_ref().and_then(|l| l.align.as_ref()) {
                    // Q:WHILELASTWINDOW charges M^div·[(b − X) mod m < b − a + 1]
                    Some(_) if window.is_some() => {
                        let (x, m, a, b) = window.expect("checked");
                        fields.push(Field::N(num_traits::ToPrimitive::to_u64(m).unwrap_or(0)));
                        (
                            "Q:WHILELASTWINDOW",
                            ik.plus(&self.window_charge(x, m, *a, *b)),
                        )
                    }
                    Some((form, s, m)) => {
                        fields.push(Field::Class(s.clone(), m.clone()));
                        ("Q:WHILELASTALIGN", ik.plus(&self.residue_charge(form, m)))
                    }
                    None => ("Q:WHILELAST", ik.plus_const(&self.ctx.metric.div)),
                };
                let children = vec![
                    TChild::Expr(e.clone()),
                    TChild::Stmt(bweak),
                    TChild::Stmt(lw),
                ];
                (rule, fields, children, qpre)
            }
            None => (
                match (*uniform, *nosplit) {
                    (true, _) => "Q:WHILE1",
                    (false, true) => "Q:WHILEWARP",
                    (false, false) => "Q:WHILE2",
                },
                vec![],
                vec![TChild::Expr(e.clone()), TChild::Stmt(bweak)],
                ik.clone(),
            ),
        };
        let wnode = TNode {
            rule,
            pre: (inv.clone(), qpre.clone()),
            post: (a.post.clone(), i_post),
            fields,
            children,
        };
        let outer = node(
            "Q:WEAK",
            &qpre,
            vec![
                Field::Entail("pre", w_pre.clone()),
                Field::Entail("post", identity_witnesses(&a.post.p)),
            ],
            vec![TChild::Stmt(wnode)],
        );
        Ok((outer, qpre))
    }

    /// Deferred shifts (derive/nest.rs): for the triangular loop `key` with ranking atom
    /// `la` (a constant step, no floor, log, geometric or relaxed atom), the first loop of
    /// its body's sequence that is one of its triangular inner loops, and the shift of
    /// `la`'s atom under that loop's pre (`P ⇒ atom ≥ shift`), which a Q:WEAK at the inner
    /// loop's entry applies instead of the body's entry. `None` when the mode is off or
    /// there is no such loop or witness.
    fn deferral(&self, key: usize, la: &LoopAtom, body: &AN) -> Option<(usize, Rewrite)> {
        if la.symbolic
            || la.geo.is_some()
            || la.floor.is_some()
            || la.log.is_some()
            || la.dlog.is_some()
            || la.relaxed.is_some()
        {
            return None;
        }
        let inners = self.ctx.nests.deferred_inner(key);
        if inners.is_empty() {
            return None;
        }
        let items: &[AN] = match &body.kind {
            AK::Seq(items) => items,
            _ => std::slice::from_ref(body),
        };
        let found = items.iter().find_map(|it| {
            let mut cur = it;
            loop {
                match &cur.kind {
                    AK::Weaken { inner, .. } | AK::Tighten { inner, .. } => cur = inner,
                    AK::While(w) if inners.contains(&w.key) => return Some((cur, w.key)),
                    _ => return None,
                }
            }
        });
        let (an, k) = found?;
        let target = Cstr::le(Lin::constant(la.shift.clone()).sub(&la.atom));
        let w = entails(&an.pre.p, &target)?;
        Some((k, Rewrite::Shift(la.atom.clone(), la.shift.clone(), w)))
    }

    /// An inner loop whose outer loop deferred its shift to it (derive/nest.rs): the loop's
    /// derivation under a Q:WEAK whose `(rewrite pre …)` is the shift `rw` of the outer
    /// ranking atom, from a template over the loop's pre monomials and their unshifted
    /// forms.
    pub(super) fn back_deferred(
        &mut self,
        a: &AN,
        an: &WhileAn,
        qpost: &TPoly,
        rw: Rewrite,
    ) -> Result<(TNode, TPoly), AnalysisError> {
        let (n, q) = self.back_while(a, an, qpost)?;
        let rws = vec![rw];
        let mut monos: BTreeSet<Mono> = q.terms.keys().cloned().collect();
        monos.extend(unshifted_monos(&rws, &q));
        let tpl = self.template(&monos);
        self.geq(
            &apply_rewrites(&tpl, &rws),
            &q,
            "the deferred shift pays the inner loop's entry",
        )?;
        let node = TNode {
            rule: "Q:WEAK",
            pre: (a.pre.clone(), tpl.clone()),
            post: (a.post.clone(), qpost.clone()),
            fields: vec![
                Field::Entail("pre", identity_witnesses(&a.pre.p)),
                Field::Rewrite("pre", rws),
                Field::Entail("post", identity_witnesses(&a.post.p)),
            ],
            children: vec![TChild::Stmt(n)],
        };
        Ok((node, tpl))
    }

    /// The geometric atom's `split` (derive/loops_geo.rs) when the invariant has the atom
    /// and the body's pre `p` justifies it, then, when the body's potential `qb` lacks
    /// the step's atom `max0(D)`, a `mono` from it to a smaller atom `qb` needs (an inner
    /// loop entered with `max0(s − 1)` from `t ← s / 2`).
    fn geo_rewrites(
        &self,
        atom: Option<&LoopAtom>,
        ishift: &mut TPoly,
        rws: &mut Vec<Rewrite>,
        qb: &TPoly,
        p: &[Cstr],
    ) {
        let Some(geo) = atom.and_then(|la| la.geo.as_ref()) else {
            return;
        };
        let AtomVal::Scaled(_, g) = canon_atom(&geo.g) else {
            return;
        };
        if !ishift
            .terms
            .keys()
            .flatten()
            .any(|a| a.as_max0() == Some(&g))
        {
            return;
        }
        let Some(rw) = self.ctx.geo_split(geo, p) else {
            return;
        };
        *ishift = ishift.split(&geo.g, &geo.d);
        rws.push(rw);
        let AtomVal::Scaled(_, d) = canon_atom(&geo.d) else {
            return;
        };
        if qb.terms.keys().flatten().any(|a| a.as_max0() == Some(&d)) {
            return;
        }
        if let Some((to, w)) = self.step_mono(&d, ishift, qb, p) {
            *ishift = ishift.replace_atom(&(&d).into(), &[(Q::one(), Some(to.clone().into()))]);
            rws.push(Rewrite::Mono(d, to, w));
        }
    }

    /// The atom `b` of the body's potential `qb` that the shifted invariant `ishift` lacks
    /// and that `from` dominates under `p` (`P ⇒ from ≥ b`), with the witness: the target
    /// of a `(mono from b …)` rewrite. Among several, the one closest to `from` (largest
    /// constant of `b − from`): the image of the ranking atom itself, not of its shifted
    /// copies.
    pub(super) fn step_mono(
        &self,
        from: &Lin,
        ishift: &TPoly,
        qb: &TPoly,
        p: &[Cstr],
    ) -> Option<(Lin, Farkas)> {
        let have: BTreeSet<&Lin> = ishift.max0_atoms().collect();
        if !have.contains(from) {
            return None;
        }
        let mut missing: Vec<&Lin> = qb
            .max0_atoms()
            .filter(|b| !have.contains(b))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        missing.sort_by(|a, b| b.sub(from).c.cmp(&a.sub(from).c));
        missing
            .into_iter()
            .find_map(|b| entails(p, &Cstr::le(b.sub(from))).map(|w| (b.clone(), w)))
    }
}

/// A symbolic step's floor atom (derive/loops.rs `floor_divisor`): when the shifted invariant
/// `ishift` has `from = ⌊(R − c)/c⌋⁺` and the body's potential `qb` a floor atom
/// `⌊L2/c⌋⁺` it lacks with `P ⇒ L2 ≤ R − c` (the atom the step `i += 256·gridDim.x` leaves),
/// the `(imono from ⌊L2/c⌋⁺ …)` rewrite replacing the one by the other in `ishift`
/// (spec/certificate.md "Integer rewrites"). A symbolic floor atom `⌊(R − D)/D⌋⁺` (the
/// divisor the step itself, spec/logic.md §1 "Symbolic divisors") is bridged the same way
/// to an atom `⌊L2/D⌋⁺` of the same divisor, by a plain Farkas witness of `L2 − L1 ≤ 0`
/// (no defining facts, [`sym_mono_cg`]), unless the body's potential has `from` itself (the
/// step is the divisor: `L1` is what the step leaves). Nothing when there is none.
fn step_imono(from: &Atom, ishift: &mut TPoly, rws: &mut Vec<Rewrite>, qb: &TPoly, p: &[Cstr]) {
    // the witness of `from ≥ to` for an atom `to` of the same divisor
    let mono_cg = |to: &Atom| match (from, to) {
        (Atom::Floor(l1, c), Atom::Floor(l2, c2)) if c2 == c => floor_mono_cg(p, l1, l2, c),
        (Atom::FloorSym(l1, d), Atom::FloorSym(l2, d2)) if d2 == d => sym_mono_cg(p, l1, l2),
        _ => None,
    };
    let same_divisor = |to: &Atom| match (from, to) {
        (Atom::Floor(_, c), Atom::Floor(_, c2)) => c2 == c,
        (Atom::FloorSym(_, d), Atom::FloorSym(_, d2)) => d2 == d,
        _ => false,
    };
    if !matches!(from, Atom::Floor(..) | Atom::FloorSym(..)) {
        return;
    }
    // a symbolic step by the divisor itself leaves exactly `from` in the body's potential:
    // nothing to bridge
    if matches!(from, Atom::FloorSym(..)) && qb.terms.keys().flatten().any(|a| a == from) {
        return;
    }
    let have: BTreeSet<&Atom> = ishift.terms.keys().flatten().collect();
    if !have.contains(from) {
        return;
    }
    // among several, the one closest to `from` (as `step_mono`)
    let l1 = from.lin();
    let mut missing: Vec<&Atom> = qb
        .terms
        .keys()
        .flatten()
        .filter(|b| !have.contains(b) && same_divisor(b))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    missing.sort_by(|a, b| b.lin().sub(l1).c.cmp(&a.lin().sub(l1).c));
    let found = missing
        .into_iter()
        .find_map(|b| mono_cg(b).map(|cg| (b.clone(), cg)));
    if let Some((to, cg)) = found {
        *ishift = ishift.replace_atom(from, &[(Q::one(), Some(to.clone()))]);
        rws.push(Rewrite::IMono(from.clone(), to, cg));
    }
}
