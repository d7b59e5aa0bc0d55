//! Derivation nodes (spec/certificate.md "Derivations"): witnesses (Farkas combinations,
//! identity runs, rewrites, cuts), the per-version node readers and the format-6 defaults.

use super::*;

/// The largest number of witnesses the `(ids I J)` items of one certificate may stand for
/// in total, per byte of its derivation text (spec/certificate.md "Identity runs"): the
/// witnesses checked then take time proportional to the text, as written-out ones do.
pub const IDS_PER_BYTE: usize = 4;

/// `(ids I J)` (version 4, in an entail list): the `J − I + 1` witnesses `(farkas (I 1))` …
/// `(farkas (J 1))`, appended to `out` as one run (not expanded: [`Witnesses::iter`]);
/// `budget` is the number of witnesses such items may still stand for (a
/// [`Reason::ResourceLimit`] past it).
pub(super) fn ids(s: &Sexp, out: &mut Witnesses, budget: &mut usize) -> Result<(), Rejection> {
    let e = "(ids I J) with I ≤ J";
    let [i, j] = exactly(items(s, "ids", e)?, s, e)?;
    let index = |x: &Sexp| atom(x, "an index")?.parse::<usize>().map_err(|_| err(x, "a non-negative index"));
    let (i, j) = (index(i)?, index(j)?);
    if j < i {
        return Err(err(s, e));
    }
    let n = j - i + 1;
    if n > *budget {
        return Err(Rejection::parse(Reason::ResourceLimit {
            what: "witnesses denoted by (ids …) items",
            limit: u64::try_from(*budget).unwrap_or(u64::MAX),
        }));
    }
    *budget -= n;
    out.items.push(Item::Ids(i, j));
    out.len += n;
    Ok(())
}

pub(super) fn farkas(s: &Sexp) -> Result<Farkas, Rejection> {
    pairs(items(s, "farkas", "(farkas (I λ) …)")?)
}

/// The `(I λ)` pairs of a `farkas` or `cut` item.
pub(super) fn pairs(v: &[Sexp]) -> Result<Farkas, Rejection> {
    let mut f = Vec::new();
    for pair in v {
        let [i, l] = exactly(pair.list().ok_or_else(|| err(pair, "(I λ)"))?, pair, "(I λ)")?;
        let idx = atom(i, "an index")?.parse::<usize>().map_err(|_| err(i, "a non-negative index"))?;
        f.push((idx, rat(l)?));
    }
    Ok(f)
}

pub(super) fn rw(s: &Sexp) -> Result<Rw, Rejection> {
    match s.head() {
        Some("shift") => {
            let [l, d, w] = exactly(items(s, "shift", "")?, s, "(shift LIN D FARKAS)")?;
            Ok(Rw::Shift(lin(l)?, rat(d)?, farkas(w)?))
        }
        Some("split") => {
            let [l, d, w1, w2] = exactly(items(s, "split", "")?, s, "(split LIN D FARKAS FARKAS)")?;
            Ok(Rw::Split(lin(l)?, lin(d)?, farkas(w1)?, farkas(w2)?))
        }
        Some("zero") => {
            let [l, w] = exactly(items(s, "zero", "")?, s, "(zero LIN FARKAS)")?;
            Ok(Rw::Zero(lin(l)?, farkas(w)?))
        }
        Some("mono") => {
            let [l1, l2, w] = exactly(items(s, "mono", "")?, s, "(mono LIN1 LIN2 FARKAS)")?;
            Ok(Rw::Mono(lin(l1)?, lin(l2)?, farkas(w)?))
        }
        Some("ishift") => {
            let [a, d, w] = exactly(items(s, "ishift", "")?, s, "(ishift ATOM D CG)")?;
            Ok(Rw::IShift(pot_atom(a)?, rat(d)?, cg(w)?))
        }
        Some("izero") => {
            let [a, w] = exactly(items(s, "izero", "")?, s, "(izero ATOM CG)")?;
            Ok(Rw::IZero(pot_atom(a)?, cg(w)?))
        }
        Some("imono") => {
            let [a1, a2, w] = exactly(items(s, "imono", "")?, s, "(imono ATOM1 ATOM2 CG)")?;
            Ok(Rw::IMono(pot_atom(a1)?, pot_atom(a2)?, cg(w)?))
        }
        Some("lhalve") => {
            let [l, w] = exactly(items(s, "lhalve", "")?, s, "(lhalve LIN FARKAS)")?;
            Ok(Rw::LHalve(lin(l)?, farkas(w)?))
        }
        Some("ldouble") => {
            let [l, m, w1, w2] = exactly(items(s, "ldouble", "")?, s, "(ldouble LIN1 LIN2 FARKAS1 FARKAS2)")?;
            Ok(Rw::LDouble(lin(l)?, lin(m)?, farkas(w1)?, farkas(w2)?))
        }
        _ => Err(err(s, "(shift LIN D FARKAS), (split LIN D FARKAS FARKAS), (zero LIN FARKAS), (mono LIN1 LIN2 FARKAS), (ishift ATOM D CG), (izero ATOM CG), (imono ATOM1 ATOM2 CG), (lhalve LIN FARKAS) or (ldouble LIN1 LIN2 FARKAS1 FARKAS2)")),
    }
}

/// `(farkas …)` (no cuts) or `(cg (cut (I λ) …) … (farkas (I λ) …))`.
pub(super) fn cg(s: &Sexp) -> Result<Cg, Rejection> {
    if s.head() == Some("farkas") {
        return Ok(Cg { cuts: Vec::new(), farkas: farkas(s)? });
    }
    let e = "(farkas …) or (cg (cut (I λ) …) … (farkas …))";
    let v = items(s, "cg", e)?;
    let (last, cuts) = v.split_last().ok_or_else(|| err(s, e))?;
    let mut out = Vec::with_capacity(cuts.len());
    for c in cuts {
        out.push(pairs(items(c, "cut", "(cut (I λ) …)")?)?);
    }
    if last.head() != Some("farkas") {
        return Err(err(last, "(farkas (I λ) …)"));
    }
    Ok(Cg { cuts: out, farkas: farkas(last)? })
}

pub(super) const FIELD_HEADS: &[&str] =
    &["pre", "post", "cost", "n", "frame", "entail", "rewrite", "lanes", "class", "rows", "guard"];

/// The field keys the rules name ([`Node::fields`] holds these as [`Name::Known`]; another
/// `entail`/`rewrite` key is kept as read and rejected by the rule's field check).
pub const FIELD_KEYS: &[&str] = &[
    "pre",
    "post",
    "cost",
    "n",
    "frame",
    "lanes",
    "class",
    "rows",
    "guard",
    "entail pre",
    "entail post",
    "entail then",
    "entail else",
    "entail exit",
    "entail cond",
    "entail last",
    "entail join-then",
    "entail join-else",
    "entail else-then",
    "entail else-cond",
    "entail stride",
    "rewrite pre",
    "rewrite post",
    "rewrite guard",
    "rewrite entry",
];

/// The key of a field with head `head` and list name `list` (`""` for the fields without
/// one): `head`, or `head list`, as a [`Name`] ([`FIELD_KEYS`]).
fn field_key(head: &str, list: &str) -> Name {
    if list.is_empty() {
        return Name::of(head, FIELD_KEYS);
    }
    let known = FIELD_KEYS.iter().find(|k| {
        k.len() == head.len() + 1 + list.len()
            && k.starts_with(head)
            && k.as_bytes().get(head.len()) == Some(&b' ')
            && k.ends_with(list)
    });
    match known {
        Some(k) => Name::Known(k),
        None => Name::Other(format!("{head} {list}").into()),
    }
}

/// A node's rule name as a [`Name`]: `_` and the names of [`crate::registry`]'s
/// `LOGIC_RULES` and `LOWER_RULES` are [`Name::Known`].
pub fn rule_name(rule: &str) -> Name {
    if rule == IMPLICIT {
        return Name::Known(IMPLICIT);
    }
    match crate::registry::LOGIC_RULES.iter().chain(crate::registry::LOWER_RULES).find(|k| **k == rule) {
        Some(k) => Name::Known(k),
        None => Name::Other(rule.into()),
    }
}

/// The assertions parsed so far, by source text: a certificate repeats the same assertion
/// in many nodes, and the parsed value depends on the text alone.
pub(super) type Memo<'a> = HashMap<&'a str, Rc<Assn>>;

/// [`assn`] through the memo: the first occurrence of a text is parsed (a malformed one is
/// rejected there), a later one shares the parsed value.
pub(super) fn assn_memo<'a>(s: &Sexp<'a>, memo: &mut Memo<'a>) -> Result<Rc<Assn>, Rejection> {
    if let Some(a) = memo.get(s.text()) {
        return Ok(Rc::clone(a));
    }
    let a = Rc::new(assn(s)?);
    memo.insert(s.text(), Rc::clone(&a));
    Ok(a)
}

/// What the reading of one derivation shares between its nodes: the memo of inline
/// assertions, the table of format ≥ 3, and (format ≥ 4) the remaining budget of `(ids …)`
/// witnesses (`None`: `(ids …)` is not part of the format).
pub(super) struct Reader<'a, 't> {
    memo: Memo<'a>,
    table: Option<&'t Table>,
    ids: Option<usize>,
    /// Format ≥ 6: a child may be the implicit expression derivation `_`.
    implicit: bool,
}

/// The rule name of an implicit expression derivation `_` (format 6, spec/certificate.md
/// "Implicit expressions, default witnesses"): the checker builds the canonical derivation
/// of the node's expression in its place.
pub const IMPLICIT: &str = "_";

/// A derivation node `(RULE FIELD … CHILD …)`. Fields come before children and appear at
/// most once (an `entail`/`rewrite` field is identified by its name).
pub fn node(s: &Sexp) -> Result<Node, Rejection> {
    node_in(s, &mut Reader { memo: Memo::default(), table: None, ids: None, implicit: false })
}

/// [`node`] of format 3: `(pre NAME)` / `(post NAME)` name an assertion of `table`.
pub fn node_with(s: &Sexp, table: &Table) -> Result<Node, Rejection> {
    node_in(s, &mut Reader { memo: Memo::default(), table: Some(table), ids: None, implicit: false })
}

/// [`node_with`] of format 4: an entail list may also hold `(ids I J)` items, together
/// standing for at most [`IDS_PER_BYTE`] witnesses per byte of `s`'s text.
pub fn node_v4(s: &Sexp, table: &Table) -> Result<Node, Rejection> {
    let budget = s.text().len().saturating_mul(IDS_PER_BYTE);
    node_in(s, &mut Reader { memo: Memo::default(), table: Some(table), ids: Some(budget), implicit: false })
}

/// [`node_v4`] of format 5: a statement child of a `Q:SEQ` node may omit `(pre …)`; it then
/// has the pre of its place in the chain ([`seq_pres`]). (Format 5 also lets expression
/// nodes omit `(cost …)`: that is the checker's business, [`crate::rules`].)
pub fn node_v5(s: &Sexp, table: &Table) -> Result<Node, Rejection> {
    let mut n = node_v4(s, table)?;
    seq_pres(&mut n);
    Ok(n)
}

/// [`node_v5`] of format 6 (spec/certificate.md "Implicit expressions, default
/// witnesses"): a child may be `_` (an implicit expression derivation, built by the checker),
/// and a `Q:VWRITE1/2`, `L:VWRITE1/2` node without `(entail post …)` gets the default list
/// ([`default_posts`]), whose identities count against the `(ids …)` budget, here
/// [`IDS_PER_BYTE`] per byte of `s` and of the table's text `table_bytes` together.
pub fn node_v6(s: &Sexp, table: &Table, table_bytes: usize) -> Result<Node, Rejection> {
    let budget = s.text().len().saturating_add(table_bytes).saturating_mul(IDS_PER_BYTE);
    let mut rd = Reader { memo: Memo::default(), table: Some(table), ids: Some(budget), implicit: true };
    let mut n = node_in(s, &mut rd)?;
    seq_pres(&mut n);
    let mut budget = rd.ids.unwrap_or(0);
    default_posts(&mut n, &mut budget)?;
    Ok(n)
}

/// Format 6, over the tree `n` (pres already filled in by [`seq_pres`]): a `Q:VWRITE1`,
/// `Q:VWRITE2`, `L:VWRITE1` or `L:VWRITE2` node with a pre and a post and no
/// `(entail post …)` gets the list of `|P'|` witnesses `(farkas (i 1))` for
/// `i < min(|P|, |P'|)`, then `(farkas)` (`P`, `P'` the constraints of its pre and post);
/// the identities are taken from `budget` ([`Reason::ResourceLimit`] past it). Iterative.
pub(super) fn default_posts(n: &mut Node, budget: &mut usize) -> Result<(), Rejection> {
    let mut todo = vec![n];
    while let Some(n) = todo.pop() {
        let vwrite = matches!(n.rule.as_str(), "Q:VWRITE1" | "Q:VWRITE2" | "L:VWRITE1" | "L:VWRITE2");
        if let (true, false, Some(pre), Some(post)) = (vwrite, n.entails.contains_key("post"), &n.pre, &n.post) {
            let (t, k) = (post.p.len(), pre.p.len().min(post.p.len()));
            if k > *budget {
                return Err(Rejection::parse(Reason::ResourceLimit {
                    what: "witnesses denoted by (ids …) items",
                    limit: u64::try_from(*budget).unwrap_or(u64::MAX),
                }));
            }
            *budget -= k;
            let mut ws = Witnesses::default();
            if k > 0 {
                ws.items.push(Item::Ids(0, k - 1));
                ws.len = k;
            }
            for _ in k..t {
                ws.push(Vec::new());
            }
            n.entails.insert("post".to_string(), ws);
            n.fields.push(Name::Known("entail post"));
        }
        todo.extend(n.children.iter_mut());
    }
    Ok(())
}

/// Format 5 (spec/certificate.md "Implicit pres and costs"), top-down over the tree `n`
/// (a parent's pre is known before its children's): each child of a `Q:SEQ` node written
/// without `(pre …)` gets the assertion Q:SEQ requires of it: the node's pre for the first
/// child, the previous child's post for the others (`None` when that is absent too; the
/// checker then rejects the child for its missing field). Every check of Q:SEQ and of the
/// children is unchanged, on these full assertions.
pub(super) fn seq_pres(n: &mut Node) {
    if n.rule == "Q:SEQ" || n.rule == "L:SEQ" {
        let mut prev = n.pre.clone();
        for c in &mut n.children {
            if c.pre.is_none() {
                c.pre = prev;
            }
            prev = c.post.clone();
        }
    }
    for c in &mut n.children {
        seq_pres(c);
    }
}

/// An assertion field's argument: inline, or (format 3) a name of the table.
pub(super) fn assn_arg<'a>(s: &Sexp<'a>, memo: &mut Memo<'a>, table: Option<&Table>) -> Result<Rc<Assn>, Rejection> {
    match (s.atom(), table) {
        (Some(n), Some(t)) => t.a.get(n).cloned().ok_or_else(|| err(s, "an assertion name defined in (assertions …)")),
        _ => assn_memo(s, memo),
    }
}

pub(super) fn node_in<'a>(s: &Sexp<'a>, rd: &mut Reader<'a, '_>) -> Result<Node, Rejection> {
    let v = s.list().ok_or_else(|| err(s, "a derivation node (RULE …)"))?;
    let rule = atom(v.first().ok_or_else(|| err(s, "a rule name"))?, "a rule name")?;
    // the children are the items that are not fields (`_` included): sized once
    let children = tail(v).iter().filter(|it| !FIELD_HEADS.contains(&it.head().unwrap_or(""))).count();
    let mut n = Node {
        rule: rule_name(rule),
        line: s.line(),
        children: Vec::with_capacity(children),
        fields: Vec::with_capacity(tail(v).len() - children),
        ..Node::default()
    };
    for item in tail(v) {
        if rd.implicit && item.atom() == Some(IMPLICIT) {
            n.children.push(Node { rule: Name::Known(IMPLICIT), line: item.line(), ..Node::default() });
            continue;
        }
        let head = item.head().unwrap_or("");
        if !FIELD_HEADS.contains(&head) {
            n.children.push(node_in(item, rd)?);
            continue;
        }
        if !n.children.is_empty() {
            return Err(err(item, "fields before children"));
        }
        let args = item.list().map(tail).unwrap_or(&[]);
        // the list name of an `entail`/`rewrite` field ("" for the others)
        let list = match head {
            "entail" | "rewrite" => {
                let name = args.first().ok_or_else(|| err(item, "a witness-list name"))?;
                atom(name, "a witness-list name")?
            }
            _ => "",
        };
        let key = field_key(head, list);
        if n.fields.contains(&key) {
            return Err(err(item, "each field at most once"));
        }
        let one = |e| exactly::<1>(args, item, e).map(|[a]| a);
        match head {
            "pre" => n.pre = Some(assn_arg(one("(pre ASSN)")?, &mut rd.memo, rd.table)?),
            "post" => n.post = Some(assn_arg(one("(post ASSN)")?, &mut rd.memo, rd.table)?),
            "cost" => n.cost = Some(rat(one("(cost C)")?)?),
            "n" => n.n = Some(int(one("(n N)")?)?),
            "frame" => n.frame = Some(rat(one("(frame C)")?)?),
            "lanes" => {
                // `(lanes L1 L2)` (L:IFDIV, L:IFALIGN) or `(lanes L)` (L:IFDT)
                if !(1..=2).contains(&args.len()) {
                    return Err(err(item, "(lanes L1 L2) or (lanes L)"));
                }
                n.lanes = args.iter().map(int).collect::<Result<_, _>>()?
            }
            "class" => {
                let [cs, cm] = exactly::<2>(args, item, "(class S M)")?;
                n.class = Some(Box::new((int(cs)?, int(cm)?)));
            }
            "rows" => {
                // `(rows (C M)…)`: Q:GWRITEROWS/Q:VWRITEROWS's charge terms (spec/logic.md §4)
                let mut rows = Vec::new();
                for t in args {
                    let [c, m] = exactly::<2>(t.list().unwrap_or(&[]), t, "(C M)")?;
                    rows.push((int(c)?, int(m)?));
                }
                n.rows = rows;
            }
            "guard" => {
                // `(guard I S (C t)…)`: Q:GWRITEGUARD/Q:VWRITEGUARD's guard constraint, divisor
                // and charge terms (spec/logic.md §4 "Guarded accesses")
                let [gi, gs] = match args {
                    [gi, gs, ..] => [gi, gs],
                    _ => return Err(err(item, "(guard I S (C t)…)")),
                };
                let mut terms = Vec::new();
                for t in args.get(2..).unwrap_or(&[]) {
                    let [c, th] = exactly::<2>(t.list().unwrap_or(&[]), t, "(C t)")?;
                    terms.push((int(c)?, int(th)?));
                }
                n.guard = Some(Box::new(super::Guard { index: int(gi)?, div: int(gs)?, terms }));
            }
            "entail" => {
                let mut ws = Witnesses::default();
                for w in tail(args) {
                    match (w.head(), rd.ids.as_mut()) {
                        (Some("ids"), Some(budget)) => ids(w, &mut ws, budget)?,
                        _ => ws.push(farkas(w)?),
                    }
                }
                n.entails.insert(list.to_string(), ws);
            }
            _ => {
                let ws = tail(args).iter().map(rw).collect::<Result<Vec<_>, _>>()?;
                n.rewrites.insert(list.to_string(), ws);
            }
        }
        n.fields.push(key);
    }
    Ok(n)
}
