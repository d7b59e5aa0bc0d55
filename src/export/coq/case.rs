//! Q:CASE and Q:WHILENONE (spec/logic.md §4a, issue 15): `DCase` and `DWhileNone` of
//! Check.v.

use super::*;

impl Exporter<'_> {
    /// Q:CASE (`DCase`): the split form `L` (the then child's last pre constraint, integral:
    /// scale 1), the equality rewrites `then`/`else` under the children's pre `P`, the
    /// join witnesses from the children's post `P`, and the two children about `s`.
    pub(super) fn case(&mut self, at: &At, s: &Stmt) -> Result<String, ExportError> {
        let (n, a, b, pad) = (at.n, &at.a, &at.b, &at.pad);
        let unsupported = |what: &str| ExportError::Unsupported(format!("Q:CASE {what}"));
        let (t, f) = (at.child(0)?, at.child(1)?);
        let (Some(tpre), Some(tpost), Some(fpre), Some(fpost)) = (&t.pre, &t.post, &f.pre, &f.post)
        else {
            return Err(unsupported("children without pre/post"));
        };
        let l = match tpre.p.last() {
            Some(c) if !c.eq && c.lane.is_none() => c.lin.clone(),
            _ => return Err(unsupported("without its split constraint")),
        };
        let l = self.names.lin(&l, &BigInt::one())?;
        let rt = self.rewrites(n, "then", &tpre.p)?;
        let rf = self.rewrites(n, "else", &fpre.p)?;
        let wjt = Self::witnesses(n, "join-then", &at.post_scales, &Self::scales(&tpost.p, 0))?;
        let wje = Self::witnesses(n, "join-else", &at.post_scales, &Self::scales(&fpost.p, 0))?;
        let dt = self.node_under(None, t, s, at.ind + 2)?;
        let df = self.node_under(None, f, s, at.ind + 2)?;
        Ok(format!(
            "DCase {a} {b} ({l}) {rt} {rf} {wjt} {wje}\n{pad}  ({dt})\n{pad}  ({df})"
        ))
    }

    /// Q:WHILENONE about `w` right after `first` about `s0 = g ← E` (`DWhileNone` about
    /// `s0; w`): the loop's post `m`, the test's access claim, the witnesses of
    /// `P ⇒ cond(¬E)` (integral, scale 1) and the derivation of `s0`.
    pub(super) fn while_none(
        &mut self,
        first: &Node,
        wn: &Node,
        s0: &Stmt,
        w: &Stmt,
        a: &str,
        ind: usize,
    ) -> Result<String, ExportError> {
        let pad = " ".repeat(ind);
        let unsupported = |what: &str| ExportError::Unsupported(format!("Q:WHILENONE {what}"));
        let (Stmt::Assign(_, e0), Stmt::While(e, _)) = (s0, w) else {
            return Err(unsupported("not after the guard's write"));
        };
        let (Some(lpre), Some(lpost)) = (&wn.pre, &wn.post) else {
            return Err(unsupported("without pre/post"));
        };
        let ec = wn
            .children
            .first()
            .ok_or_else(|| unsupported("without its test"))?;
        let acc = self.expr_acc(ec, e, lpre);
        let targets = vec![BigInt::one(); self.cond_len(e0, true)];
        let ws = Self::witnesses(wn, "none", &targets, &Self::scales(&lpre.p, 0))?;
        let d0 = self.node(first, s0, ind + 4)?;
        let m = self.assn(lpost)?;
        Ok(format!("DWhileNone {a} {m} {acc} {ws}\n{pad}    ({d0})"))
    }
}
