//! One `dtree` node per rule application: the dispatch by rule and the statement rules
//! Q:VWRITE, Q:IF4 and Q:WEAK.

use super::*;

impl Exporter<'_> {
    /// [`Exporter::node`] with the filter of spec/logic.md §4a set to `filter` for the
    /// subtree (`None`: an ordinary judgment) and restored afterwards, also on an error.
    pub(super) fn node_under(
        &mut self,
        filter: Option<Expr>,
        n: &Node,
        s: &Stmt,
        ind: usize,
    ) -> Result<String, ExportError> {
        let saved = std::mem::replace(&mut self.filter, filter);
        let r = self.node(n, s, ind);
        self.filter = saved;
        r
    }

    /// The Coq `dtree` of statement node `n` about `s` (one `D…` constructor per rule),
    /// indented by `ind`; the rules with more than a few lines have their own method.
    pub(super) fn node(&mut self, n: &Node, s: &Stmt, ind: usize) -> Result<String, ExportError> {
        let (pre, post) = match (&n.pre, &n.post) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return Err(ExportError::Unsupported(format!(
                    "statement node {} without pre/post",
                    n.rule
                )))
            }
        };
        let at = At {
            n,
            pre,
            a: self.assn(pre)?,
            b: self.assn(post)?,
            post_scales: Self::scales(&post.p, 0),
            pad: " ".repeat(ind),
            ind,
        };
        let (a, b, pad) = (&at.a, &at.b, &at.pad);
        let child = |i: usize| at.child(i);
        // an L: rule is printed with the constructor of its Q: counterpart (LowerCheck.v)
        let rule = match self.lower {
            Some(_) => crate::export::coq_lower::as_upper_rule(&n.rule)?,
            None => n.rule.as_str(),
        };
        // an L:GARRAYSTRIDE read is exported only as the expression of L:VWRITE1 /
        // L:VWRITE2 (`DVwrite1S` / `DVwrite2S`, LowerCheck.v); refused by name elsewhere
        if self.lower.is_some()
            && !matches!(rule, "Q:VWRITE1" | "Q:VWRITE2")
            && n.children.iter().any(|c| c.rule == "L:GARRAYSTRIDE")
        {
            return Err(ExportError::UnsupportedRule("L:GARRAYSTRIDE".to_string()));
        }
        Ok(match (rule, s) {
            ("Q:SKIP", _) => format!("DSkip {a}"),
            ("Q:SYNC", _) => format!("DSync {a} {b}"),
            ("Q:SHFL" | "Q:VOTE", _) => format!("DWarp {a} {b}"),
            ("Q:SEQ", Stmt::Seq(..)) => self.seq(&n.children, s, a, b, ind)?,
            ("Q:VWRITE1" | "Q:VWRITE2", _) => self.vwrite(&at, s)?,
            ("Q:LWRITE", Stmt::Write(_, _, ex)) => {
                let eacc = self.expr_acc(child(1)?, ex, pre);
                format!("DWrite {a} {b} 0%Z {eacc}")
            }
            ("Q:GWRITE" | "Q:SWRITE", Stmt::Write(arr, o, ex)) => {
                let nn = n.n.clone().unwrap_or_default();
                let acc = self.acc(&nn, arr, o, pre);
                let eacc = self.expr_acc(child(1)?, ex, pre);
                format!("DWrite {a} {b} {acc} {eacc}")
            }
            // L:GWRITESTRIDE (LowerCheck.v `DWriteS`, spec/logic.md §4b "Strided accesses"):
            // L:GWRITE's fields, then the `(entail stride w)` list: one witness of the
            // integral target `S − s·u ≤ 0` (scale 1) from the pre's `P`
            ("L:GWRITESTRIDE", Stmt::Write(_, _, ex)) => {
                let nn = n.n.clone().unwrap_or_default();
                let eacc = self.expr_acc(child(1)?, ex, pre);
                let wst = Self::stride_list(n, pre)?;
                format!("DWriteS {a} {b} {} {eacc} {wst}", z(&nn))
            }
            // Q:GWRITEROWS / Q:VWRITEROWS (spec/logic.md §4 "Rows"): the charge's fields
            // `(n N₀)` and `(rows (C M)…)`; Check.v recomputes the row table
            ("Q:GWRITEROWS", Stmt::Write(_, _, ex)) => {
                let (n0, rows) = Self::row_fields(n)?;
                let eacc = self.expr_acc(child(1)?, ex, pre);
                format!("DWriteRows {a} {b} {n0} {rows} {eacc}")
            }
            ("Q:VWRITEROWS", Stmt::Assign(..)) => {
                let (n0, rows) = Self::row_fields(n)?;
                format!("DVwriteRows {a} {b} {n0} {rows}")
            }
            // Q:GWRITEGUARD / Q:VWRITEGUARD (spec/logic.md §4 "Guarded accesses"): the
            // fields `(n N₀)` and `(guard I S (C t)…)`; Check.v recomputes the guard table
            // and the atoms `A^±_j` from the pre's `P` and `D`
            ("Q:GWRITEGUARD", Stmt::Write(_, _, ex)) => {
                let g = Self::guard_fields(n)?;
                let eacc = self.expr_acc(child(1)?, ex, pre);
                format!("DWriteGuard {a} {b} {g} {eacc}")
            }
            ("Q:VWRITEGUARD", Stmt::Assign(..)) => {
                let g = Self::guard_fields(n)?;
                format!("DVwriteGuard {a} {b} {g}")
            }
            ("Q:IF1", Stmt::If(e, s1, s2)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let dt = self.node(child(1)?, s1, ind + 2)?;
                let df = self.node(child(2)?, s2, ind + 2)?;
                format!("DIf1 {a} {b} {acc}\n{pad}  ({dt})\n{pad}  ({df})")
            }
            (r @ ("Q:IF2" | "Q:IF3"), Stmt::If(e, s1, s2)) => {
                let neg = r == "Q:IF3";
                let targets = vec![BigInt::one(); self.cond_len(e, neg)];
                let ws = Self::witnesses(n, "cond", &targets, &Self::scales(&pre.p, 0))?;
                let acc = self.expr_acc(child(0)?, e, pre);
                let d = self.node(child(1)?, if neg { s2 } else { s1 }, ind + 2)?;
                let k = if neg { "DIf3" } else { "DIf2" };
                format!("{k} {a} {b} {acc} {ws}\n{pad}  ({d})")
            }
            (r @ ("Q:WHILE2" | "Q:WHILEWARP"), Stmt::While(e, body)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let db = self.node(child(1)?, body, ind + 2)?;
                let k = if r == "Q:WHILE2" {
                    "DWhile2"
                } else {
                    "DWhileWarp"
                };
                format!("{k} {a} {b} {acc}\n{pad}  ({db})")
            }
            (
                r @ ("Q:WHILELAST" | "Q:WHILELASTALIGN" | "Q:WHILELASTWINDOW"),
                Stmt::While(e, body),
            ) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let last = child(2)?;
                let (Some(lpre), Some(lpost)) = (&last.pre, &last.post) else {
                    return Err(ExportError::Unsupported(
                        "Q:WHILELAST children without pre/post".into(),
                    ));
                };
                // B'.pre.P = P ++ [L ≤ 0] ++ [−L + 1 − w ≤ 0]: the lane spread w
                let sw = match lpre.p.as_slice() {
                    [.., l, win] if l.lin.add_scaled(&win.lin, &Rat::one()).terms.is_empty() => {
                        let c = Rat::one() - l.lin.add_scaled(&win.lin, &Rat::one()).c;
                        if !c.denom().is_one() {
                            return Err(ExportError::Unsupported(format!("lane spread {c}")));
                        }
                        c.numer().clone()
                    }
                    _ => {
                        return Err(ExportError::Unsupported(
                            "Q:WHILELAST last body pre without the window constraint".into(),
                        ))
                    }
                };
                let mut targets = Self::scales(&pre.p, 0);
                targets.extend(vec![BigInt::one(); self.cond_len(e, true)]);
                let wl = Self::witnesses(n, "last", &targets, &Self::scales(&lpost.p, 0))?;
                let db = self.node(child(1)?, body, ind + 2)?;
                let dl = self.node(last, body, ind + 2)?;
                // Q:WHILELASTALIGN (`DWhileLastAlign`): then the node's class `(class S M)`
                // as `S M` (Check.v builds the charge `[M ∤ S − X]`, as for Q:IFALIGN)
                // Q:WHILELASTWINDOW (`DWhileLastWindow`): then the node's modulus `(n M)` as
                // `M` (Check.v computes the hull `[a, b]` and builds the charge
                // `[(b − X) mod M < b − a + 1]`, as the kernel does)
                let (k, class) = match r {
                    "Q:WHILELASTALIGN" => {
                        let (s, m) = Self::class_args(&at, r)?;
                        ("DWhileLastAlign", format!(" ({s})%Z {m}%positive"))
                    }
                    "Q:WHILELASTWINDOW" => {
                        let m = at.n.n.as_ref().filter(|m| m.is_positive()).ok_or_else(|| {
                            ExportError::Unsupported(format!("{r} without a modulus (n M), M ≥ 1"))
                        })?;
                        ("DWhileLastWindow", format!(" {m}%positive"))
                    }
                    _ => ("DWhileLast", String::new()),
                };
                format!(
                    "{k} {a} {b} {acc} {} {wl}{class}\n{pad}  ({db})\n{pad}  ({dl})",
                    z(&sw)
                )
            }
            ("Q:UNROLL", w @ Stmt::While(e, body)) => {
                // The child is about `if e then (s; while (e) s) else skip` (spec/logic.md §4).
                let unrolled = Stmt::If(
                    e.clone(),
                    Box::new(Stmt::Seq(body.clone(), Box::new(w.clone()))),
                    Box::new(Stmt::Skip),
                );
                let d = self.node(child(0)?, &unrolled, ind + 2)?;
                format!("DUnroll {a} {b}\n{pad}  ({d})")
            }
            ("Q:IF4", Stmt::If(e, s1, s2)) => self.if4(&at, e, s1, s2)?,
            ("Q:IFALIGN", Stmt::If(e, s1, s2)) => self.if_align(&at, e, s1, s2)?,
            // L:IFD (LowerCheck.v): Q:IF4's constructor with `P ⇒ P'` as its join-then
            // list, the other lists empty and the (unused) children `DSkip`
            ("L:IFD", Stmt::If(e, ..)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let w = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&pre.p, 0))?;
                format!("DIf4 {a} {b} {acc} [] [] {w} [] (DSkip {a}) (DSkip {b})")
            }
            // L:IFDIV (LowerCheck.v): as L:IFD with the lane witnesses `then` (`e`) as the
            // else-then list and `else` (`¬e`) as the else-cond list, both from the three
            // thread-index facts of the lane followed by `P`
            ("L:IFDIV", Stmt::If(e, ..)) => {
                let lists = self.split_lists(&at, e)?;
                format!("DIf4 {a} {b} {lists} [] (DSkip {a}) (DSkip {b})")
            }
            // L:IFDT (LowerCheck.v): as L:IFDIV with its one lane witness `then` (`e`) as
            // the else-then list and an empty else-cond list (read as L:IFDT: the then
            // branch charged `sminc`)
            ("L:IFDT", Stmt::If(e, ..)) => {
                let lists = self.lane_lists(&at, e, false)?;
                format!("DIf4 {a} {b} {lists} [] (DSkip {a}) (DSkip {b})")
            }
            // L:IFWRAP (LowerCheck.v): its own constructor `DIfWrap` with `P ⇒ P'` (LowerCheck.v
            // decides the split from the pre's wrapped entry and the warp's lanes)
            ("L:IFWRAP", Stmt::If(e, ..)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let w = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&pre.p, 0))?;
                format!("DIfWrap {a} {b} {acc} {w}")
            }
            // L:IFSPLIT (LowerCheck.v `DIfSplit`, spec/logic.md §4b "Lane subsets"): the
            // test's claim, the witnesses of `P ⇒ P'` (`post`), `P ∧ e ⇒ P1` (`then`) and
            // `P ∧ ¬e ⇒ P2` (`else`), the last two from `P`, `cond(e)` (`cond(¬e)`) and at
            // most one lane fact (the kernel's `and_cond`, as Q:IF4's else-cond), then the
            // branches (Coq checks each over its lane subset, from the pre's remainder entry)
            ("L:IFSPLIT", Stmt::If(e, s1, s2)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let w = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&pre.p, 0))?;
                let (t, f) = (child(1)?, child(2)?);
                let (tpre, fpre) = match (&t.pre, &f.pre) {
                    (Some(x), Some(y)) => (x, y),
                    _ => {
                        return Err(ExportError::Unsupported(
                            "L:IFSPLIT children without pre".into(),
                        ))
                    }
                };
                let then_ss = Self::scales(&pre.p, self.cond_len(e, false) + 1);
                let else_ss = Self::scales(&pre.p, self.cond_len(e, true) + 1);
                let wth = Self::witnesses(n, "then", &Self::scales(&tpre.p, 0), &then_ss)?;
                let wel = Self::witnesses(n, "else", &Self::scales(&fpre.p, 0), &else_ss)?;
                let dt = self.node(t, s1, ind + 2)?;
                let df = self.node(f, s2, ind + 2)?;
                format!("DIfSplit {a} {b} {acc} {w} {wth} {wel}\n{pad}  ({dt})\n{pad}  ({df})")
            }
            // L:IFLANES (LowerCheck.v `DIfLanes`, spec/logic.md §4b "Lane subsets"): L:IFSPLIT's
            // fields; the kernel's children are `e` then one judgment per non-empty side
            // (then first). With one branch child, it is the else branch when the node has
            // an `(entail else …)` list and no `(entail then …)` list (SC:IFF), else the then
            // branch (SC:IFT); the missing side is printed `DSkip` with an empty witness list
            // (`lcheck` reads neither: Coq recomputes the sides from the test's exact entries)
            ("L:IFLANES", Stmt::If(e, s1, s2)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let w = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&pre.p, 0))?;
                let (t, f) = match n.children.len() {
                    3 => (Some(child(1)?), Some(child(2)?)),
                    2 if n.entails.contains_key("else") && !n.entails.contains_key("then") => {
                        (None, Some(child(1)?))
                    }
                    2 => (Some(child(1)?), None),
                    k => {
                        return Err(ExportError::Unsupported(format!(
                            "L:IFLANES with {k} children"
                        )))
                    }
                };
                let mut side = |c: Option<&Node>, neg: bool, st: &Stmt| match c {
                    None => Ok(("[]".to_string(), format!("DSkip {a}"))),
                    Some(c) => {
                        let cpre = c.pre.as_ref().ok_or_else(|| {
                            ExportError::Unsupported("L:IFLANES child without pre".into())
                        })?;
                        let ss = Self::scales(&pre.p, self.cond_len(e, neg) + 1);
                        let name = if neg { "else" } else { "then" };
                        let ws = Self::witnesses(n, name, &Self::scales(&cpre.p, 0), &ss)?;
                        Ok((ws, self.node(c, st, ind + 2)?))
                    }
                };
                let (wth, dt) = side(t, false, s1)?;
                let (wel, df) = side(f, true, s2)?;
                format!("DIfLanes {a} {b} {acc} {w} {wth} {wel}\n{pad}  ({dt})\n{pad}  ({df})")
            }
            // L:IFALIGN (LowerCheck.v): L:IFDIV's fields in Q:IFALIGN's constructor, then
            // the node's class `(class S M)` as `S M` (LowerCheck.v builds the charge
            // `[M ∤ S − X]`, as Check.v does); join-else empty, the (unused) children `DSkip`
            ("L:IFALIGN", Stmt::If(e, ..)) => {
                let lists = self.split_lists(&at, e)?;
                let (r, m) = Self::class_args(&at, "L:IFALIGN")?;
                format!("DIfAlign {a} {b} {lists} [] ({r})%Z {m}%positive (DSkip {a}) (DSkip {b})")
            }
            ("Q:WHILE1", Stmt::While(e, body)) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let db = self.node(child(1)?, body, ind + 2)?;
                format!("DWhile1 {a} {b} {acc}\n{pad}  ({db})")
            }
            ("Q:WEAK", _) => self.weak(&at, s)?,
            ("Q:CASE", _) => self.case(&at, s)?,
            ("Q:GUARD", Stmt::Assign(_, c)) => self.guard(&at, c, s)?,
            ("Q:GUARDEXIT", _) => self.guard_exit(&at, s)?,
            ("Q:IFGUARD4", Stmt::If(c, s1, s2)) => self.if_guard(&at, c, s1, s2)?,
            ("Q:FLAGEXIT", Stmt::Seq(s1, rest)) => self.flag_exit(&at, s1, rest)?,
            (r @ ("Q:IFEXIT1" | "Q:IFEXIT4"), Stmt::If(c, s1, s2)) => {
                self.ifexit(&at, r, c, s1, s2)?
            }
            (
                r @ ("Q:WHILEEXIT1" | "Q:WHILEEXIT2" | "Q:WHILEEXITCAP" | "Q:WHILEEXITCAP2"),
                Stmt::While(e, body),
            ) => {
                let acc = self.expr_acc(child(0)?, e, pre);
                let db = self.node_under(Some(e.clone()), child(1)?, body, ind + 2)?;
                // Q:WHILEEXITCAP / Q:WHILEEXITCAP2 (CapCheck.v `DWhileExitCap` /
                // `DWhileExitCap2`): Q:WHILEEXIT2's fields; Coq checks the body under
                // `M^div := 0`, counts `a`, `t` and builds the charge (CAP2: the loop test's
                // `k = M^if + M^div + C`, the charge `(N − 1)·(a + t)·M^div`)
                let k = match r {
                    "Q:WHILEEXIT1" => "DWhileExit1",
                    "Q:WHILEEXIT2" => "DWhileExit2",
                    "Q:WHILEEXITCAP" => "DWhileExitCap",
                    _ => "DWhileExitCap2",
                };
                format!("{k} {a} {b} {acc}\n{pad}  ({db})")
            }
            (
                r @ ("Q:SEQ" | "Q:IF1" | "Q:IF2" | "Q:IF3" | "Q:IF4" | "Q:IFALIGN" | "Q:WHILE1"
                | "Q:WHILE2" | "Q:WHILELAST" | "Q:WHILELASTALIGN" | "Q:WHILEWARP" | "Q:UNROLL"
                | "Q:GWRITE" | "Q:SWRITE" | "Q:LWRITE" | "Q:IFEXIT1" | "Q:IFEXIT4"
                | "Q:GWRITEROWS" | "Q:VWRITEROWS" | "Q:WHILEEXIT1" | "Q:WHILEEXIT2"
                | "Q:IFGUARD4" | "Q:FLAGEXIT" | "Q:GWRITEGUARD" | "Q:VWRITEGUARD"
                | "Q:WHILELASTWINDOW" | "Q:WHILEEXITCAP" | "Q:WHILEEXITCAP2"),
                _,
            ) => {
                return Err(ExportError::Unsupported(format!(
                    "{r} about a {}",
                    s.kind()
                )))
            }
            (r, _) => return Err(ExportError::UnsupportedRule(r.to_string())),
        })
    }

    /// The row charge `(n N₀) (rows (C M)…)` of a Q:GWRITEROWS / Q:VWRITEROWS node as Coq's
    /// `N₀` and `[(C, M); …]` (`Check.DWriteRows` / `DVwriteRows`).
    ///
    /// Errors: [`ExportError::Unsupported`] when the node has no `(n N₀)`.
    fn row_fields(n: &Node) -> Result<(String, String), ExportError> {
        let n0 =
            n.n.as_ref()
                .ok_or_else(|| ExportError::Unsupported(format!("{} without (n N₀)", n.rule)))?;
        let rows: Vec<String> = n
            .rows
            .iter()
            .map(|(c, m)| format!("({}, {})", z(c), z(m)))
            .collect();
        Ok((z(n0), format!("[{}]", rows.join("; "))))
    }

    /// The `(entail stride w)` list of an L:GARRAYSTRIDE / L:GWRITESTRIDE node `n` under the
    /// pre `pre` (spec/logic.md §4b "Strided accesses"): one Farkas witness of the integral
    /// target `S − s·u ≤ 0` (scale 1) from `pre`'s `P`, as LowerCheck.v's `stride_ok` reads it.
    ///
    /// Errors: [`ExportError::Unsupported`] when the list does not hold one witness.
    fn stride_list(n: &Node, pre: &Assn) -> Result<String, ExportError> {
        Self::witnesses(n, "stride", &[BigInt::one()], &Self::scales(&pre.p, 0))
    }

    /// The guarded charge `(n N₀) (guard I S (C t)…)` of a Q:GWRITEGUARD / Q:VWRITEGUARD
    /// node as Coq's `N₀ I S [(C, t); …]` (`Check.DWriteGuard` / `DVwriteGuard`; `I` a
    /// `nat`, the others `Z`).
    ///
    /// Errors: [`ExportError::Unsupported`] when the node has no `(n N₀)`, no `guard` field
    /// or a negative index `I`.
    fn guard_fields(n: &Node) -> Result<String, ExportError> {
        let n0 =
            n.n.as_ref()
                .ok_or_else(|| ExportError::Unsupported(format!("{} without (n N₀)", n.rule)))?;
        let g = n
            .guard
            .as_deref()
            .ok_or_else(|| ExportError::Unsupported(format!("{} without (guard …)", n.rule)))?;
        if g.index.is_negative() {
            return Err(ExportError::Unsupported(format!(
                "{} with a negative guard index",
                n.rule
            )));
        }
        let terms: Vec<String> = g
            .terms
            .iter()
            .map(|(c, t)| format!("({}, {})", z(c), z(t)))
            .collect();
        Ok(format!(
            "{} {} {} [{}]",
            z(n0),
            g.index,
            z(&g.div),
            terms.join("; ")
        ))
    }

    /// Q:VWRITE1/2 (`DVwrite1`/`DVwrite2`): the post witnesses and the expression's claim.
    /// In a lower certificate, an L:GARRAYSTRIDE read makes it `DVwrite1S`/`DVwrite2S`
    /// with the read's `(entail stride w)` list after the claim (LowerCheck.v).
    pub(super) fn vwrite(&mut self, at: &At, s: &Stmt) -> Result<String, ExportError> {
        let (n, a, b) = (at.n, &at.a, &at.b);
        let stride = self.lower.is_some() && at.child(0)?.rule == "L:GARRAYSTRIDE";
        let k = match (n.rule.ends_with("VWRITE1"), stride) {
            (true, false) => "DVwrite1",
            (false, false) => "DVwrite2",
            (true, true) => "DVwrite1S",
            (false, true) => "DVwrite2S",
        };
        let wst = if stride {
            format!(" {}", Self::stride_list(at.child(0)?, at.pre)?)
        } else {
            String::new()
        };
        // a halving node (spec/logic.md §4 "Halving") has one more witness, for the integer
        // target `1 − A ≤ 0` (scale 1), checked by Check.v's `vw1h_ok`; a product node
        // ("Products") two more, for `α − A ≤ 0` and `β − B ≤ 0` (`vw1p_ok`)
        let mut targets = at.post_scales.clone();
        let extra = n
            .entails
            .get("post")
            .map_or(0, Witnesses::len)
            .saturating_sub(targets.len());
        if extra <= 2 {
            targets.extend(std::iter::repeat_n(BigInt::one(), extra));
        }
        let ws = Self::witnesses(n, "post", &targets, &Self::scales(&at.pre.p, 0))?;
        let Stmt::Assign(_, ex) = s else {
            return Err(ExportError::Unsupported(format!(
                "{} about a {}",
                n.rule,
                s.kind()
            )));
        };
        Ok(format!(
            "{k} {a} {b} {}{wst} {ws}",
            self.expr_acc(at.child(0)?, ex, at.pre)
        ))
    }

    /// Q:IF4 (`DIf4`): the else-cond, else-then and join witnesses, then both branches.
    pub(super) fn if4(
        &mut self,
        at: &At,
        e: &Expr,
        s1: &Stmt,
        s2: &Stmt,
    ) -> Result<String, ExportError> {
        let (ws, dt, df) = self.if4_parts(at, e, s1, s2)?;
        let (a, b, pad) = (&at.a, &at.b, &at.pad);
        Ok(format!("DIf4 {a} {b} {ws}\n{pad}  ({dt})\n{pad}  ({df})"))
    }

    /// Q:IFALIGN (`DIfAlign`, spec/logic.md §4): Q:IF4's fields, then the node's residue
    /// class `(class S M)` as `S M` (Coq builds the charge `[M ∤ S − X]` itself).
    ///
    /// Errors: [`ExportError::Unsupported`] when the node has no class or `M < 1`.
    pub(super) fn if_align(
        &mut self,
        at: &At,
        e: &Expr,
        s1: &Stmt,
        s2: &Stmt,
    ) -> Result<String, ExportError> {
        let (ws, dt, df) = self.if4_parts(at, e, s1, s2)?;
        let (r, m) = Self::class_args(at, "Q:IFALIGN")?;
        let (a, b, pad) = (&at.a, &at.b, &at.pad);
        Ok(format!(
            "DIfAlign {a} {b} {ws} ({r})%Z {m}%positive\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// The residue class `(class S M)` of a Q:IFALIGN, Q:WHILELASTALIGN or L:IFALIGN node
    /// (`rule`) as `S M`
    /// (Check.v and LowerCheck.v build the charge `[M ∤ S − X]` from it).
    ///
    /// Errors: [`ExportError::Unsupported`] when the node has no class or `M < 1`.
    fn class_args<'c>(at: &'c At, rule: &str) -> Result<&'c (BigInt, BigInt), ExportError> {
        at.n.class
            .as_deref()
            .filter(|(_, m)| m.is_positive())
            .ok_or_else(|| {
                ExportError::Unsupported(format!("{rule} without a class (class S M), M ≥ 1"))
            })
    }

    /// The fields of L:IFDIV and L:IFALIGN after the assertions (LowerCheck.v): the
    /// condition's access witness, the `else` lane witnesses (`¬e`), the `then` ones (`e`),
    /// both from the three thread-index facts of the lane followed by `P`, and `P ⇒ P'`.
    fn split_lists(&mut self, at: &At, e: &Expr) -> Result<String, ExportError> {
        self.lane_lists(at, e, true)
    }

    /// [`Self::split_lists`], with an empty `else` list unless `both` (L:IFDT: one lane
    /// witness, of `e`).
    fn lane_lists(&mut self, at: &At, e: &Expr, both: bool) -> Result<String, ExportError> {
        let (n, pre) = (at.n, at.pre);
        let acc = self.expr_acc(at.child(0)?, e, pre);
        let w = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&pre.p, 0))?;
        let mut ss = vec![BigInt::one(); 3];
        ss.extend(Self::scales(&pre.p, 0));
        let wt = Self::witnesses(
            n,
            "then",
            &vec![BigInt::one(); self.cond_len(e, false)],
            &ss,
        )?;
        let wf = if both {
            Self::witnesses(n, "else", &vec![BigInt::one(); self.cond_len(e, true)], &ss)?
        } else {
            "[]".to_string()
        };
        Ok(format!("{acc} {wf} {wt} {w}"))
    }

    /// The fields of Q:IF4 and Q:IFALIGN after the assertions (the condition's access
    /// witness, the else-cond, else-then and join witnesses) and both branches' trees.
    fn if4_parts(
        &mut self,
        at: &At,
        e: &Expr,
        s1: &Stmt,
        s2: &Stmt,
    ) -> Result<(String, String, String), ExportError> {
        let (n, pre, ind) = (at.n, at.pre, at.ind);
        let (t, f) = (at.child(1)?, at.child(2)?);
        let (tpost, fpre, fpost) = match (&t.post, &f.pre, &f.post) {
            (Some(x), Some(y), Some(z)) => (x, y, z),
            _ => {
                return Err(ExportError::Unsupported(
                    "Q:IF4 children without pre/post".into(),
                ))
            }
        };
        // P ∧ ¬e: P, cond(¬e), then at most one lane fact (all integral).
        let ncond = self.cond_len(e, true) + 1;
        let fs = Self::scales(&fpre.p, 0);
        let wec = Self::witnesses(n, "else-cond", &fs, &Self::scales(&pre.p, ncond))?;
        // Q:IF4's else-then covers the linear constraints of the else pre only.
        let fs_lin: Vec<BigInt> = fpre
            .p
            .iter()
            .filter(|c| c.lane.is_none())
            .map(|c| scale_of(&c.lin))
            .collect();
        let wet = Self::witnesses(n, "else-then", &fs_lin, &Self::scales(&tpost.p, 0))?;
        let ps = &at.post_scales;
        let wjt = Self::witnesses(n, "join-then", ps, &Self::scales(&tpost.p, 0))?;
        let wje = Self::witnesses(n, "join-else", ps, &Self::scales(&fpost.p, 0))?;
        let acc = self.expr_acc(at.child(0)?, e, pre);
        let dt = self.node(t, s1, ind + 2)?;
        let df = self.node(f, s2, ind + 2)?;
        Ok((format!("{acc} {wec} {wet} {wjt} {wje}"), dt, df))
    }

    /// Q:WEAK (`DWeak`): the frame, the pre and post witnesses and rewrites, the child.
    pub(super) fn weak(&mut self, at: &At, s: &Stmt) -> Result<String, ExportError> {
        let (n, pre, a, b, pad) = (at.n, at.pre, &at.a, &at.b, &at.pad);
        let c = at.child(0)?;
        let (np, nq) = match (&c.pre, &c.post) {
            (Some(x), Some(y)) => (x, y),
            _ => {
                return Err(ExportError::Unsupported(
                    "Q:WEAK child without pre/post".into(),
                ))
            }
        };
        let k = q(&n.frame.clone().unwrap_or_else(Rat::zero));
        let wpre = Self::witnesses(n, "pre", &Self::scales(&np.p, 0), &Self::scales(&pre.p, 0))?;
        let rpre = self.rewrites(n, "pre", &pre.p)?;
        let wpost = Self::witnesses(n, "post", &at.post_scales, &Self::scales(&nq.p, 0))?;
        let rpost = self.rewrites(n, "post", &nq.p)?;
        let d = self.node(c, s, at.ind + 2)?;
        Ok(format!(
            "DWeak {a} {b} {k} {wpre} {rpre} {wpost} {rpost}\n{pad}  ({d})"
        ))
    }
}
