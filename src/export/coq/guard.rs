//! The guarded and early-exit rules of spec/logic.md §4a (Q:WHILEGUARD, Q:WHILEEXIT1/2,
//! Q:IFGUARD, Q:FLAGEXIT, Q:IFEXIT1–4) and the sequence rules that carry them.

use super::*;

impl Exporter<'_> {
    /// Q:GUARD (`DGuard`, spec/logic.md §4a): the rewrites under the child's post `P` and
    /// `cond(c)`, the child (an ordinary judgment).
    pub(super) fn guard(&mut self, at: &At, c: &Expr, s: &Stmt) -> Result<String, ExportError> {
        let (n, a, b, pad) = (at.n, &at.a, &at.b, &at.pad);
        let ch = at.child(0)?;
        let nq = ch
            .post
            .as_ref()
            .ok_or_else(|| ExportError::Unsupported("Q:GUARD child without post".into()))?;
        let ss = Self::scales(&nq.p, self.cond_len(c, false));
        let rg = self.rewrites_ss(n, "guard", &ss)?;
        let d = self.node_under(None, ch, s, at.ind + 2)?;
        Ok(format!("DGuard {a} {b} {rg}\n{pad}  ({d})"))
    }

    /// Q:GUARDEXIT (`DGuardExit`, spec/logic.md §4a): the exit witnesses, the child (an
    /// ordinary judgment).
    pub(super) fn guard_exit(&mut self, at: &At, s: &Stmt) -> Result<String, ExportError> {
        let (n, a, b, pad) = (at.n, &at.a, &at.b, &at.pad);
        let ch = at.child(0)?;
        let nq = ch
            .post
            .as_ref()
            .ok_or_else(|| ExportError::Unsupported("Q:GUARDEXIT child without post".into()))?;
        let wx = Self::witnesses(n, "exit", &at.post_scales, &Self::scales(&nq.p, 0))?;
        let d = self.node_under(None, ch, s, at.ind + 2)?;
        Ok(format!("DGuardExit {a} {b} {wx}\n{pad}  ({d})"))
    }

    /// The `join-then` and `join-else` witnesses of a two-branch node (the branches'
    /// posts entail the node's post): `tps` are the then branch's post scales, `fpost` the
    /// else branch's post. Shared by Q:IFGUARD4, Q:FLAGEXIT and Q:IFEXIT1/4.
    fn join_witnesses(
        at: &At,
        tps: &[BigInt],
        fpost: &Assn,
    ) -> Result<(String, String), ExportError> {
        let wjt = Self::witnesses(at.n, "join-then", &at.post_scales, tps)?;
        let wje = Self::witnesses(
            at.n,
            "join-else",
            &at.post_scales,
            &Self::scales(&fpost.p, 0),
        )?;
        Ok((wjt, wje))
    }

    /// Q:IFGUARD4 (`DIfGuard4`, spec/logic.md §4a): the then branch filtered for the
    /// enclosing loop's guard, the else branch (which falsifies it) ordinary.
    pub(super) fn if_guard(
        &mut self,
        at: &At,
        c: &Expr,
        s1: &Stmt,
        s2: &Stmt,
    ) -> Result<String, ExportError> {
        let (a, b, pad, ind) = (&at.a, &at.b, &at.pad, at.ind);
        let (t, f) = (at.child(1)?, at.child(2)?);
        let (Some(tpost), Some(fpost)) = (&t.post, &f.post) else {
            return Err(ExportError::Unsupported(
                "Q:IFGUARD4 children without pre/post".into(),
            ));
        };
        if self.filter.is_none() {
            return Err(ExportError::Unsupported(
                "Q:IFGUARD4 outside the body of a Q:WHILEEXIT1/2".into(),
            ));
        }
        let (wjt, wje) = Self::join_witnesses(at, &Self::scales(&tpost.p, 0), fpost)?;
        let acc = self.expr_acc(at.child(0)?, c, at.pre);
        let dt = self.node(t, s1, ind + 2)?;
        // The else branch is an ordinary judgment: no filter inside it.
        let df = self.node_under(None, f, s2, ind + 2)?;
        Ok(format!(
            "DIfGuard4 {a} {b} {acc} {wjt} {wje}\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// Q:FLAGEXIT (`DFlagExit`, spec/logic.md §4a): the part `s1` filtered for the flag
    /// test, the test's then branch filtered for the enclosing loop's guard, its else
    /// branch (which falsifies the guard) ordinary.
    pub(super) fn flag_exit(
        &mut self,
        at: &At,
        s1: &Stmt,
        rest: &Stmt,
    ) -> Result<String, ExportError> {
        let (a, b, pad, ind) = (&at.a, &at.b, &at.pad, at.ind);
        let unsupported = |what: &str| ExportError::Unsupported(format!("Q:FLAGEXIT {what}"));
        let Stmt::If(c, s2, s3) = rest else {
            return Err(unsupported("about a statement not ending with an `if`"));
        };
        let (part, t, f) = (at.child(0)?, at.child(2)?, at.child(3)?);
        let (Some(ppost), Some(tpost), Some(fpost)) = (&part.post, &t.post, &f.post) else {
            return Err(unsupported("children without pre/post"));
        };
        if self.filter.is_none() {
            return Err(unsupported("outside the body of a loop left by jumps"));
        }
        let (wjt, wje) = Self::join_witnesses(at, &Self::scales(&tpost.p, 0), fpost)?;
        let acc = self.expr_acc(at.child(1)?, c, ppost);
        let d1 = self.node_under(Some(c.clone()), part, s1, ind + 2)?;
        let dt = self.node(t, s2, ind + 2)?;
        // The else branch is an ordinary judgment: no filter inside it.
        let df = self.node_under(None, f, s3, ind + 2)?;
        Ok(format!(
            "DFlagExit {a} {b} {acc} {wjt} {wje}\n{pad}  ({d1})\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// Q:IFEXIT1/4 (`DIfExit1`/`DIfExit4`, spec/logic.md §4a): the then branch ordinary,
    /// the else branch filtered for the enclosing loop's condition.
    pub(super) fn ifexit(
        &mut self,
        at: &At,
        r: &str,
        c: &Expr,
        s1: &Stmt,
        s2: &Stmt,
    ) -> Result<String, ExportError> {
        let (n, a, b, pad, ind) = (at.n, &at.a, &at.b, &at.pad, at.ind);
        let (t, f) = (at.child(1)?, at.child(2)?);
        let (tpost, fpost) = match (&t.post, &f.post) {
            (Some(x), Some(y)) => (x, y),
            _ => {
                return Err(ExportError::Unsupported(format!(
                    "{r} children without pre/post"
                )))
            }
        };
        let filter = self.filter.clone().ok_or_else(|| {
            ExportError::Unsupported(format!("{r} outside the body of a Q:WHILEEXIT1/2"))
        })?;
        let targets = vec![BigInt::one(); self.cond_len(&filter, true)];
        let tps = Self::scales(&tpost.p, 0);
        let wx = Self::witnesses(n, "exit", &targets, &tps)?;
        let (wjt, wje) = Self::join_witnesses(at, &tps, fpost)?;
        let acc = self.expr_acc(at.child(0)?, c, at.pre);
        // The then branch is an ordinary judgment: no filter inside it.
        let dt = self.node_under(None, t, s1, ind + 2)?;
        let df = self.node(f, s2, ind + 2)?;
        let k = if r == "Q:IFEXIT1" {
            "DIfExit1"
        } else {
            "DIfExit4"
        };
        Ok(format!(
            "{k} {a} {b} {acc} {wx} {wjt} {wje}\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// A Q:SEQ node with the children `kids` (`k ≥ 2`, certificate format 3) about the
    /// chain `s`, pre `a`, post `b`, as the nested binary `DSeq`s it stands for: the first
    /// child, then the rest of the chain from the second child's pre (spec/certificate.md).
    pub(super) fn seq(
        &mut self,
        kids: &[Node],
        s: &Stmt,
        a: &str,
        b: &str,
        ind: usize,
    ) -> Result<String, ExportError> {
        let pad = " ".repeat(ind);
        let (Stmt::Seq(s1, s2), [first, rest @ ..]) = (s, kids) else {
            return Err(ExportError::Unsupported(format!(
                "Q:SEQ with {} children about a {}",
                kids.len(),
                s.kind()
            )));
        };
        if let Some(wg) = rest.first().filter(|w| {
            [
                "Q:WHILEGUARD",
                "Q:WHILEGUARD1",
                "Q:WHILEGUARD0",
                "Q:WHILENONE",
                "Q:WHILEGUARDCAP",
            ]
            .contains(&w.rule.as_str())
        }) {
            return self.seq_guard(first, wg, &rest[1..], s1, s2, a, b, ind);
        }
        let d1 = self.node(first, s1, ind + 2)?;
        let d2 = match rest {
            [one] => self.node(one, s2, ind + 2)?,
            [second, ..] => {
                let mid = match &second.pre {
                    Some(p) => self.assn(p)?,
                    None => return Err(ExportError::Unsupported("Q:SEQ child without pre".into())),
                };
                self.seq(rest, s2, &mid, b, ind + 2)?
            }
            [] => return Err(ExportError::Unsupported("Q:SEQ with one child".into())),
        };
        Ok(format!("DSeq {a} {b}\n{pad}  ({d1})\n{pad}  ({d2})"))
    }

    /// The items `s0; W; R…` of a Q:SEQ whose second child `wg` is a Q:WHILEGUARD about
    /// `W` (spec/logic.md §4a): `DWhileGuard` about `s0; W` (Coq's rule includes the
    /// guard's write before the loop), then, when the chain goes on with `more` about `R`,
    /// `DAssoc` of `DSeq (s0; W) R`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn seq_guard(
        &mut self,
        first: &Node,
        wg: &Node,
        more: &[Node],
        s0: &Stmt,
        tail: &Stmt,
        a: &str,
        b: &str,
        ind: usize,
    ) -> Result<String, ExportError> {
        let pad = " ".repeat(ind);
        let unsupported = |what: &str| ExportError::Unsupported(format!("Q:WHILEGUARD {what}"));
        let (w, r) = match (tail, more.is_empty()) {
            (Stmt::While(..), true) => (tail, None),
            (Stmt::Seq(w, r), false) => (&**w, Some(&**r)),
            _ => return Err(unsupported("not followed by its chain")),
        };
        let Stmt::While(e, body) = w else {
            return Err(unsupported("about a statement other than a loop"));
        };
        // Q:WHILENONE (issue 15, case17): `DWhileNone` about the pair `s0; W`
        let dwg = if wg.rule == "Q:WHILENONE" {
            self.while_none(first, wg, s0, w, a, ind)?
        } else {
            self.guard_loop(first, wg, s0, (e, body), a, ind)?
        };
        // without a rest the loop's post is the chain's (`m` names `b`'s assertion)
        let Some(r) = r else {
            return Ok(dwg);
        };
        let dr = match more {
            [one] => self.node(one, r, ind + 4)?,
            [second, ..] => {
                let mid = match &second.pre {
                    Some(p) => self.assn(p)?,
                    None => return Err(ExportError::Unsupported("Q:SEQ child without pre".into())),
                };
                self.seq(more, r, &mid, b, ind + 4)?
            }
            [] => return Err(unsupported("chain")),
        };
        Ok(format!(
            "DAssoc {a} {b}\n{pad}  (DSeq {a} {b}\n{pad}    ({dwg})\n{pad}    ({dr}))"
        ))
    }

    /// The `DWhileGuard`/`DWhileGuard0` of the guard loop `wg` about `while (e) body`
    /// right after `first` about `s0`, pre `a`.
    fn guard_loop(
        &mut self,
        first: &Node,
        wg: &Node,
        s0: &Stmt,
        (e, body): (&Expr, &Stmt),
        a: &str,
        ind: usize,
    ) -> Result<String, ExportError> {
        let pad = " ".repeat(ind);
        let unsupported = |what: &str| ExportError::Unsupported(format!("Q:WHILEGUARD {what}"));
        let (Some(lpre), Some(lpost)) = (&wg.pre, &wg.post) else {
            return Err(unsupported("without pre/post"));
        };
        let (Some(ec), Some(bn)) = (wg.children.first(), wg.children.get(1)) else {
            return Err(unsupported("children"));
        };
        let bpre = bn
            .pre
            .as_ref()
            .ok_or_else(|| unsupported("body without pre"))?;
        // GE: the body's pre is the loop's `P` followed by the guard's condition
        let ge: Result<Vec<String>, ExportError> = bpre
            .p
            .iter()
            .skip(lpre.p.len())
            .map(|c| self.cstr(c))
            .collect();
        let ge = ge?;
        let acc = self.expr_acc(ec, e, lpre);
        let d0 = self.node(first, s0, ind + 4)?;
        let db = self.node_under(Some(e.clone()), bn, body, ind + 4)?;
        let m = self.assn(lpost)?;
        // the uniform mode (Q:WHILEGUARD1) is Coq's rule with `uf = true`
        let uf = wg.rule == "Q:WHILEGUARD1";
        // `(rewrite guard …)` under the body's pre `P ++ GE`
        let rg = self.rewrites(wg, "guard", &bpre.p)?;
        Ok(if wg.rule == "Q:WHILEGUARDCAP" {
            // Q:WHILEGUARDCAP (CapCheck.v `DWhileGuardCap`): Q:WHILEGUARD's fields without
            // the mode; Coq checks the body under `M^div := 0`, counts `a`, `t` (the
            // kernel's cap condition) and builds the charge `M^div·(a + t + 1)·(N − 1)`
            format!(
                "DWhileGuardCap {a} {m} {acc} [{}] {rg}\n{pad}    ({d0})\n{pad}    ({db})",
                ge.join("; ")
            )
        } else if wg.rule == "Q:WHILEGUARD0" {
            // Q:WHILEGUARD0: the entry potential `J₀ = pre − Q' − (M^if + M^var)` (the test
            // `(var g)` costs `M^var`, OQ:VAR) and `(rewrite entry …)`
            let m0 = warpcert_kernel::metric::standard(&self.cert.metric)
                .ok_or_else(|| unsupported("under an unknown metric"))?;
            let k0 = &m0.if_ + &m0.var;
            let j0 = lpre.q.add_scaled(&lpost.q, &-Rat::one()).plus_const(&-k0);
            let j0 = self.names.pot(&j0)?;
            let r0 = self.rewrites(wg, "entry", &bpre.p)?;
            format!(
                "DWhileGuard0 {a} {m} {acc} [{}] ({j0}) {rg} {r0}\n{pad}    ({d0})\n{pad}    ({db})",
                ge.join("; ")
            )
        } else {
            format!(
                "DWhileGuard {a} {m} {acc} {uf} [{}] {rg}\n{pad}    ({d0})\n{pad}    ({db})",
                ge.join("; ")
            )
        })
    }

    /// The number of constraints of `cond(¬e)` (neg) or `cond(e)` (spec/logic.md §2).
    pub(super) fn cond_len(&self, e: &Expr, neg: bool) -> usize {
        let p = &self.cert.program;
        let linear = |o: &Opd| match o {
            Opd::Var(x) => p.local(x) == Some(Ty::Int),
            Opd::Param(x) => p.param(x) == Some(Ty::Int),
            Opd::Tid(_) | Opd::Int(_) => true,
            _ => false,
        };
        match e {
            Expr::Bin(op, a, b) if linear(a) && linear(b) => match (op.as_str(), neg) {
                ("<" | "<=" | ">" | ">=", _) | ("==", false) | ("!=", true) => 1,
                _ => 0,
            },
            _ => 0,
        }
    }
}
