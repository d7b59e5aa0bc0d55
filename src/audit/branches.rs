//! Which rule the kernel-checked derivation applies to each branch and loop: the uniform
//! rules (Q:IF1/2/3, Q:IFEXIT1, Q:WHILE1, Q:WHILEEXIT1), whose side condition `P ⇒ e unif`
//! (or `P ⇒ e`, `P ⇒ ¬e`) the kernel checked, or the possibly divergent ones (Q:IF4,
//! Q:IFEXIT4, Q:WHILE2, Q:WHILEEXIT2). The derivation is walked together with the program,
//! as the kernel walks it (`spec/certificate.md` "Derivation nodes").

use crate::core::{Loc, Stmt};
use std::collections::BTreeMap;
use warpcert_kernel::syntax::Node;

/// The verdict on one branch or loop, merged over every node about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchRule {
    /// Some node about it uses a possibly divergent rule.
    pub divergent: bool,
    /// The rules used (sorted, unique).
    pub rules: Vec<String>,
}

const UNIFORM: &[&str] = &[
    "Q:IF1",
    "Q:IF2",
    "Q:IF3",
    "Q:IFEXIT1",
    "Q:WHILE1",
    "Q:WHILEEXIT1",
    "Q:WHILEWARP",
];
const DIVERGENT: &[&str] = &["Q:IF4", "Q:IFEXIT4", "Q:WHILE2", "Q:WHILEEXIT2"];

fn record(out: &mut BTreeMap<Loc, BranchRule>, loc: Loc, rule: &str) {
    let e = out.entry(loc).or_insert(BranchRule {
        divergent: false,
        rules: Vec::new(),
    });
    e.divergent |= DIVERGENT.contains(&rule);
    if !e.rules.iter().any(|r| r == rule) {
        e.rules.push(rule.to_string());
        e.rules.sort();
    }
}

/// The rules applied to the branches and loops of `body`, by source location, from the
/// derivation `root` about `body`. Nodes whose shape does not match the statement are
/// skipped (the kernel accepted the derivation, so this does not happen).
pub fn branch_rules(root: &Node, body: &Stmt) -> BTreeMap<Loc, BranchRule> {
    let mut out = BTreeMap::new();
    // owned statements built for Q:UNROLL live here while their children are walked
    let mut todo: Vec<(&Node, Stmt)> = vec![(root, body.clone())];
    while let Some((n, s)) = todo.pop() {
        let c = &n.children;
        let rule = n.rule.as_str();
        match (&s, rule) {
            (_, "Q:WEAK") if !c.is_empty() => todo.push((&c[0], s.clone())),
            (Stmt::Seq(..), "Q:SEQ") if c.len() >= 2 => {
                // k children (format 3): child i < k − 1 is about the head of the rest of
                // the chain, the last child about what remains (as the kernel's Q:SEQ)
                let mut rest = &s;
                for (i, child) in c.iter().enumerate() {
                    match rest {
                        Stmt::Seq(a, b) if i + 1 < c.len() => {
                            todo.push((child, (**a).clone()));
                            rest = b.as_ref();
                        }
                        _ => todo.push((child, rest.clone())),
                    }
                }
            }
            (Stmt::If(_, t, f, loc), _) if UNIFORM.contains(&rule) || DIVERGENT.contains(&rule) => {
                record(&mut out, *loc, rule);
                match (rule, c.len()) {
                    ("Q:IF2", 2) => todo.push((&c[1], (**t).clone())),
                    ("Q:IF3", 2) => todo.push((&c[1], (**f).clone())),
                    (_, 3) => {
                        todo.push((&c[1], (**t).clone()));
                        todo.push((&c[2], (**f).clone()));
                    }
                    _ => {}
                }
            }
            (Stmt::While(_, b, loc), _) if UNIFORM.contains(&rule) || DIVERGENT.contains(&rule) => {
                record(&mut out, *loc, rule);
                if c.len() == 2 {
                    todo.push((&c[1], (**b).clone()));
                }
            }
            (Stmt::While(e, b, loc), "Q:UNROLL") if c.len() == 1 => {
                let unrolled = Stmt::If(
                    e.clone(),
                    Box::new(Stmt::Seq(b.clone(), Box::new(s.clone()))),
                    Box::new(Stmt::Skip),
                    *loc,
                );
                todo.push((&c[0], unrolled));
            }
            _ => {}
        }
    }
    out
}
