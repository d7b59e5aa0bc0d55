//! The printed form of a proved bound (issue 14 item 4, spec/certificate.md "Printed
//! formula"): a short normal form found by an e-graph ([`egg`]) over `+` and `*` whose
//! leaves are numbers and the bound's atoms, printed with floor atoms as `⌊L/d⌋⁺` and log
//! atoms as `⌊log2(L)⌋⁺` (spec/logic.md §1's notation; `max0` atoms keep RaCUDA's
//! `max(0, L)`, so `--form polynomial` prints `max(0, …)` atoms only).
//!
//! The e-graph is untrusted: [`print_bound`] hands its text to the kernel's
//! [`warpcert_kernel::printed::check_printed`], which reads it back with its own parser and
//! compares it with the bound by its own normalization. A text the kernel does not accept is
//! never printed: the kernel's own rendering is, with a note saying so.
//!
//! Rewrites: commutativity and associativity of `+` and `*`, and factoring
//! `a·b + a·c → a·(b + c)` and `a + a·c → a·(1 + c)`. Extraction minimizes the printed
//! length (characters, parentheses counted); the form is kept only when strictly shorter
//! than the term-by-term one, so a bound the e-graph cannot improve prints as the kernel
//! prints it, floor and log atoms in compact notation. The run is bounded (iterations,
//! e-nodes, time): a large bound simply stays term by term.

use egg::{
    define_language, rewrite, CostFunction, Extractor, Id, Language, RecExpr, Runner, Symbol,
};
use num_traits::{One, Zero};
use std::time::Duration;
use warpcert_kernel::arith::{Atom, Lin, Poly, Rat};

define_language! {
    /// Sums and products over leaves: `#k` the k-th atom of the bound, else a rational.
    enum Term {
        "+" = Add([Id; 2]),
        "*" = Mul([Id; 2]),
        Leaf(Symbol),
    }
}

/// A printed bound and, when the kernel refused the simplified form, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    /// The text to print: the simplified form the kernel accepted, or the kernel's own
    /// rendering of the bound.
    pub text: String,
    /// `Some(reason)` when a simplified form was found but the kernel's comparison
    /// rejected it (then `text` is the kernel's rendering).
    pub refused: Option<String>,
}

/// The bound `bound` (the kernel's polynomial; `kernel_text` its own rendering) in short
/// normal form, checked by the kernel (module documentation).
pub fn print_bound(bound: &Poly, kernel_text: &str) -> Printed {
    checked(simplify(bound), bound, kernel_text)
}

/// `text` if the kernel reads it back as `bound`
/// ([`warpcert_kernel::printed::check_printed`]), else `kernel_text` with the refusal.
pub fn checked(text: String, bound: &Poly, kernel_text: &str) -> Printed {
    match warpcert_kernel::printed::check_printed(&text, bound) {
        Ok(()) => Printed { text, refused: None },
        Err(e) => Printed {
            text: kernel_text.to_string(),
            refused: Some(format!(
                "the simplified formula `{text}` was not accepted by the kernel ({e}): the certificate's bound is printed"
            )),
        },
    }
}

/// `text` as a factor of a product: itself when it is one product of factors (a number, a
/// name, an atom, a parenthesised group and their `*` products), else in parentheses (a
/// top-level `+` or binary `-`, a leading `-`, or a finite sum `Σ`). The whole-kernel
/// bound `gridDim.x*gridDim.y*gridDim.z*F` uses it, so a product is not nested in a
/// product (`g*(a*(b + c))` prints `g*a*(b + c)`).
pub fn as_factor(text: &str) -> String {
    let mut depth = 0i32;
    let mut prev = ' ';
    let mut flat = !text.starts_with('-') && !text.contains('Σ') && !text.is_empty();
    for ch in text.chars() {
        match ch {
            '(' | '[' | '⌊' | '{' => depth += 1,
            ')' | ']' | '⌋' | '}' => depth -= 1,
            '+' if depth == 0 => flat = false,
            '-' if depth == 0 && prev == ' ' => flat = false,
            _ => {}
        }
        prev = ch;
    }
    if flat {
        text.to_string()
    } else {
        format!("({text})")
    }
}

/// The short form of `bound`, unchecked: runs of unrolled copies as finite sums
/// ([`sigma_runs`]) when that is shorter, the rest by the e-graph (or term by term).
pub fn simplify(bound: &Poly) -> String {
    let whole = simplify_terms(bound);
    let Some((rest, runs)) = sigma_runs(bound) else {
        return whole;
    };
    let mut parts = Vec::new();
    if !rest.terms.is_empty() {
        parts.push(simplify_terms(&rest));
    }
    parts.extend(runs);
    let text = parts.join(" + ");
    if text.chars().count() < whole.chars().count() {
        text
    } else {
        whole
    }
}

/// `text`, the term-by-term rendering of `bound`, with runs of unrolled copies folded into
/// finite sums ([`sigma_runs`]; nothing else simplified), checked by the kernel like
/// [`print_bound`]'s text; `text` itself when there is no run or the kernel refuses.
pub fn fold_runs(bound: &Poly, text: &str) -> String {
    let Some((rest, runs)) = sigma_runs(bound) else {
        return text.to_string();
    };
    let mut parts = Vec::new();
    if !rest.terms.is_empty() {
        parts.push(rest.to_string());
    }
    parts.extend(runs);
    checked(parts.join(" + "), bound, text).text
}

/// A bound's text (the kernel's term-by-term rendering) with runs of unrolled copies
/// folded into finite sums ([`fold_runs`]), read through the kernel's printed-formula
/// reader; the text unchanged when the reader refuses it.
pub fn fold_text(text: &str) -> String {
    match warpcert_kernel::printed::parse_printed(text) {
        Ok(p) => fold_runs(&p, text),
        Err(_) => text.to_string(),
    }
}

/// A run's group: atom kind, divisor, linear part without its constant, coefficient.
type RunKey = (u8, String, String, String);

/// The fewest terms a run must have to print as a finite sum.
const MIN_RUN: usize = 4;

/// Runs of unrolled copies (issue 15: Q:UNROLL of a loop with a constant trip count gives
/// `c·A(L₀) + c·A(L₀ + s) + … + c·A(L₀ + (N − 1)·s)`: one atom kind `A` (`max0`, floor or
/// residue, one divisor), one positive coefficient `c`, one linear part, the constants in
/// arithmetic progression of step `s ≠ 0`): each group of at least [`MIN_RUN`] such terms
/// whose constants form one progression prints as `c*Σ_{k=0..N−1} A(L₀ + s·k)` (the
/// kernel's printed grammar, `warpcert_kernel::printed`), with `k` a name no atom uses.
/// Returns the bound without those terms and the runs' texts; `None` when there is no run.
fn sigma_runs(bound: &Poly) -> Option<(Poly, Vec<String>)> {
    use std::collections::BTreeMap;
    // (kind, divisor, linear part, coefficient) → (constant, term's atoms)
    let mut groups: BTreeMap<RunKey, Vec<(Rat, Vec<Atom>)>> = BTreeMap::new();
    for (atoms, c) in &bound.terms {
        let [a] = atoms.as_slice() else { continue };
        if !c.is_positive() {
            continue;
        }
        let (kind, div, lin) = match a {
            Atom::Max0(l) => (0u8, String::new(), l),
            Atom::Floor(l, d) => (1, d.to_string(), l),
            Atom::Res(l, m) => (2, m.to_string(), l),
            Atom::Win(l, m, w) => (3, format!("{m},{w}"), l),
            Atom::Log(_) | Atom::LogQ(..) | Atom::FloorSym(..) => continue,
        };
        let mut part = lin.clone();
        part.c = Rat::zero();
        groups
            .entry((kind, div, part.to_string(), c.to_string()))
            .or_default()
            .push((lin.c.clone(), atoms.clone()));
    }
    let used: Vec<String> = bound.vars().into_iter().cloned().collect();
    let k = ["k", "j", "u", "v"]
        .iter()
        .map(|s| s.to_string())
        .chain((1..).map(|i| format!("k{i}")))
        .find(|n| !used.contains(n))
        .unwrap_or_else(|| "k".to_string());
    let mut rest = bound.clone();
    let mut runs = Vec::new();
    for (_, mut members) in groups {
        if members.len() < MIN_RUN {
            continue;
        }
        members.sort_by(|a, b| a.0.cmp(&b.0));
        let step = &members[1].0 - &members[0].0;
        let progression = members.windows(2).all(|w| &w[1].0 - &w[0].0 == step);
        if !progression || step.is_zero() {
            continue;
        }
        let first = &members[0].1[0];
        let coef = bound
            .terms
            .get(&members[0].1)
            .cloned()
            .unwrap_or_else(Rat::one);
        let with_k = |l: &Lin| {
            let mut l = l.clone();
            l.add_term(&k, &step);
            l
        };
        let atom = match first {
            Atom::Max0(l) => Atom::Max0(with_k(l)),
            Atom::Floor(l, d) => Atom::Floor(with_k(l), d.clone()),
            Atom::Res(l, m) => Atom::Res(with_k(l), m.clone()),
            Atom::Win(l, m, w) => Atom::Win(with_k(l), m.clone(), w.clone()),
            Atom::Log(_) | Atom::LogQ(..) | Atom::FloorSym(..) => continue,
        };
        let sum = format!("Σ_{{{k}=0..{}}} {}", members.len() - 1, atom_text(&atom));
        runs.push(if coef.is_one() {
            sum
        } else {
            format!("{}*{sum}", crate::report::bound::rational(&coef.big()))
        });
        for (_, atoms) in &members {
            rest.terms.remove(atoms);
        }
    }
    (!runs.is_empty()).then_some((rest, runs))
}

/// The e-graph's short form of `bound`, unchecked (or term by term).
fn simplify_terms(bound: &Poly) -> String {
    let atoms: Vec<Atom> = {
        let mut v: Vec<Atom> = bound.terms.keys().flatten().cloned().collect();
        v.sort();
        v.dedup();
        v
    };
    let terms: Vec<P> = bound
        .terms
        .iter()
        .map(|(a, c)| {
            let mut f = vec![P::Num(c.clone())];
            f.extend(
                a.iter()
                    .map(|x| P::Atom(atoms.binary_search(x).unwrap_or(0))),
            );
            P::Prod(f)
        })
        .collect();
    let names: Vec<String> = atoms.iter().map(atom_text).collect();
    let plain = render(&P::Sum(terms.clone()), &names, &atoms);
    if terms.len() < 2 {
        return plain;
    }
    let mut expr = RecExpr::default();
    to_rec(&P::Sum(terms), &mut expr);
    let runner = Runner::default()
        .with_iter_limit(6)
        .with_node_limit(2_000)
        .with_time_limit(Duration::from_millis(50))
        .with_expr(&expr)
        .run(&rules());
    let Some(&root) = runner.roots.first() else {
        return plain;
    };
    let cost = Length { names: &names };
    let (_, best) = Extractor::new(&runner.egraph, cost).find_best(root);
    let short = render(&from_rec(&best, best.root()), &names, &atoms);
    if short.chars().count() < plain.chars().count() {
        short
    } else {
        plain
    }
}

/// An atom in compact notation: `max(0, L)`, `⌊L/d⌋⁺` (`⌊(L)/d⌋⁺` unless `L` is a name),
/// `⌊log2(L)⌋⁺`.
fn atom_text(a: &Atom) -> String {
    match a {
        Atom::Max0(l) => format!("max(0, {l})"),
        Atom::Floor(l, d) if is_name(l) => format!("⌊{l}/{d}⌋⁺"),
        Atom::Floor(l, d) => format!("⌊({l})/{d}⌋⁺"),
        Atom::Log(l) => format!("⌊log2({l})⌋⁺"),
        // spec/logic.md §1 "Symbolic divisors": `⌊(L)/(D)⌋⁺`
        Atom::FloorSym(l, d) => format!("⌊({l})/({d})⌋⁺"),
        // the kernel's rendering (no compact form: it has two linear forms)
        Atom::LogQ(..) | Atom::Res(..) | Atom::Win(..) => a.to_string(),
    }
}

fn is_name(l: &Lin) -> bool {
    use num_traits::Zero;
    l.c.is_zero() && l.terms.len() == 1 && l.terms.values().all(One::is_one)
}

fn rules() -> Vec<egg::Rewrite<Term, ()>> {
    vec![
        rewrite!("comm-add"; "(+ ?a ?b)" => "(+ ?b ?a)"),
        rewrite!("comm-mul"; "(* ?a ?b)" => "(* ?b ?a)"),
        rewrite!("assoc-add"; "(+ ?a (+ ?b ?c))" => "(+ (+ ?a ?b) ?c)"),
        rewrite!("assoc-mul"; "(* ?a (* ?b ?c))" => "(* (* ?a ?b) ?c)"),
        rewrite!("factor"; "(+ (* ?a ?b) (* ?a ?c))" => "(* ?a (+ ?b ?c))"),
        rewrite!("factor-one"; "(+ ?a (* ?a ?c))" => "(* ?a (+ 1 ?c))"),
    ]
}

/// Printed length in characters; `top_sum` when the node is a sum (a product puts it in
/// parentheses). Ordered by length first.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
struct Cost {
    len: usize,
    top_sum: bool,
}

struct Length<'a> {
    names: &'a [String],
}

impl CostFunction<Term> for Length<'_> {
    type Cost = Cost;
    fn cost<C: FnMut(Id) -> Cost>(&mut self, enode: &Term, mut costs: C) -> Cost {
        match enode {
            Term::Add([a, b]) => Cost {
                len: costs(*a).len + costs(*b).len + 3,
                top_sum: true,
            },
            Term::Mul([a, b]) => {
                let (a, b) = (costs(*a), costs(*b));
                let paren = |c: &Cost| if c.top_sum { 2 } else { 0 };
                Cost {
                    len: a.len + b.len + 1 + paren(&a) + paren(&b),
                    top_sum: false,
                }
            }
            Term::Leaf(s) => Cost {
                len: match leaf(s) {
                    Leaf::Atom(k) => self.names.get(k).map_or(1, |n| n.chars().count()),
                    Leaf::Num(q) => crate::report::bound::rational(&q.big()).len(),
                },
                top_sum: false,
            },
        }
    }
}

/// A printable tree: flattened sums and products.
#[derive(Clone, Debug)]
enum P {
    Num(Rat),
    Atom(usize),
    Sum(Vec<P>),
    Prod(Vec<P>),
}

enum Leaf {
    Num(Rat),
    Atom(usize),
}

fn leaf(s: &Symbol) -> Leaf {
    let s = s.as_str();
    match s.strip_prefix('#').and_then(|k| k.parse().ok()) {
        Some(k) => Leaf::Atom(k),
        None => Leaf::Num(crate::report::bound::parse_rational(s).map_or_else(Rat::one, Rat::from)),
    }
}

fn to_rec(p: &P, e: &mut RecExpr<Term>) -> Id {
    match p {
        P::Num(q) => e.add(Term::Leaf(Symbol::from(crate::report::bound::rational(
            &q.big(),
        )))),
        P::Atom(k) => e.add(Term::Leaf(Symbol::from(format!("#{k}")))),
        P::Sum(v) | P::Prod(v) => {
            let ids: Vec<Id> = v.iter().map(|x| to_rec(x, e)).collect();
            let mut it = ids.into_iter();
            let first = it
                .next()
                .unwrap_or_else(|| e.add(Term::Leaf(Symbol::from("0"))));
            it.fold(first, |acc, id| match p {
                P::Sum(_) => e.add(Term::Add([acc, id])),
                _ => e.add(Term::Mul([acc, id])),
            })
        }
    }
}

/// The tree of the extracted expression `e` at `id`, flat: a sum's summands are no sums
/// and a product's factors no products ([`unit_product`]), so the text never nests a sum
/// directly in a sum or a product in a product.
fn from_rec(e: &RecExpr<Term>, id: Id) -> P {
    let node = &e[id];
    match node {
        Term::Leaf(s) => match leaf(s) {
            Leaf::Atom(k) => P::Atom(k),
            Leaf::Num(q) => P::Num(q),
        },
        Term::Add(_) | Term::Mul(_) => {
            let is_add = matches!(node, Term::Add(_));
            let mut out = Vec::new();
            for &c in node.children() {
                match from_rec(e, c) {
                    P::Sum(v) if is_add => out.extend(v),
                    P::Prod(v) if !is_add => out.extend(v),
                    x => out.push(x),
                }
            }
            if is_add {
                P::Sum(out)
            } else {
                unit_product(out)
            }
        }
    }
}

/// The product of `factors` (already flat), or its one factor when the numbers multiply
/// to 1 and one other factor is left: the e-graph's `1·(a + b)` (factoring terms whose
/// coefficient is 1) is the sum `a + b`, which a parent sum then takes in flat
/// (`33 + a + b`, not `33 + (a + b)`; associativity of `+`, spec/certificate.md "Printed
/// formula"). Any other product stays one product.
fn unit_product(factors: Vec<P>) -> P {
    let (c, mut rest) = split(&factors);
    if c.is_one() && rest.len() == 1 {
        rest.pop().unwrap_or(P::Num(c))
    } else {
        P::Prod(factors)
    }
}

/// The polynomial a tree denotes (for ordering summands as the kernel orders terms).
fn denote(p: &P, atoms: &[Atom]) -> Poly {
    match p {
        P::Num(q) => Poly::constant(q.clone()),
        P::Atom(k) => {
            let mut r = Poly::zero();
            if let Some(a) = atoms.get(*k) {
                r.add_term(Rat::one(), vec![a.clone()]);
            }
            r
        }
        P::Sum(v) => v.iter().fold(Poly::zero(), |acc, x| {
            acc.add_scaled(&denote(x, atoms), &Rat::one())
        }),
        P::Prod(v) => v.iter().fold(Poly::constant(Rat::one()), |acc, x| {
            acc.mul(&denote(x, atoms))
        }),
    }
}

/// A product's numeric coefficient and its other factors (numbers multiplied out; atoms
/// in the kernel's order, then sums).
fn split(v: &[P]) -> (Rat, Vec<P>) {
    let mut c = Rat::one();
    let mut rest = Vec::new();
    for x in v {
        match x {
            P::Num(q) => c *= q,
            P::Prod(w) => {
                let (c2, r2) = split(w);
                c *= c2;
                rest.extend(r2);
            }
            other => rest.push(other.clone()),
        }
    }
    rest.sort_by_key(|x| match x {
        P::Atom(k) => (0, *k),
        _ => (1, 0),
    });
    (c, rest)
}

/// Text of `p`; sums ordered by the smallest kernel term each summand expands to
/// (constants first), a negative summand after the first printed with ` - `.
fn render(p: &P, names: &[String], atoms: &[Atom]) -> String {
    match p {
        P::Num(q) => crate::report::bound::rational(&q.big()),
        P::Atom(k) => names.get(*k).cloned().unwrap_or_default(),
        P::Prod(v) => {
            let (c, rest) = split(v);
            let body: Vec<String> = rest
                .iter()
                .map(|x| match x {
                    P::Sum(_) => format!("({})", render(x, names, atoms)),
                    _ => render(x, names, atoms),
                })
                .collect();
            match (body.is_empty(), c.is_one(), (-c.clone()).is_one()) {
                (true, _, _) => crate::report::bound::rational(&c.big()),
                (false, true, _) => body.join("*"),
                (false, _, true) => format!("-{}", body.join("*")),
                _ => format!(
                    "{}*{}",
                    crate::report::bound::rational(&c.big()),
                    body.join("*")
                ),
            }
        }
        P::Sum(v) => {
            let mut keyed: Vec<(Vec<Atom>, &P)> = v
                .iter()
                .map(|x| {
                    let d = denote(x, atoms);
                    let first: Vec<Atom> = d.terms.keys().next().cloned().unwrap_or_default();
                    (first, x)
                })
                .collect();
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = String::new();
            for (i, (_, x)) in keyed.into_iter().enumerate() {
                let neg = match x {
                    P::Num(q) => q.is_negative(),
                    P::Prod(w) => split(w).0.is_negative(),
                    _ => false,
                };
                if i == 0 {
                    out.push_str(&render(x, names, atoms));
                } else if neg {
                    out.push_str(" - ");
                    out.push_str(&render(
                        &P::Prod(vec![P::Num(-Rat::one()), x.clone()]),
                        names,
                        atoms,
                    ));
                } else {
                    out.push_str(" + ");
                    out.push_str(&render(x, names, atoms));
                }
            }
            if out.is_empty() {
                "0".into()
            } else {
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `4 + c·Σ_{i<N} max0(n − i)` built by hand, `c = 1`, with an extra `max0(n + 7)`.
    fn unrolled(len: i64, extra: bool) -> Poly {
        let mut p = Poly::constant(Rat::from_integer(4.into()));
        let mut term = |c: i64| {
            let mut l = Lin::var("n");
            l.c = Rat::from_integer(c.into());
            p.add_term(Rat::one(), vec![Atom::Max0(l)]);
        };
        for i in 0..len {
            term(-i);
        }
        if extra {
            term(7);
        }
        p
    }

    /// A sum factored out of terms whose coefficient is 1 prints flat inside its parent
    /// sum, and the kernel reads the text back as the bound. Hand: `33·M + M·F + M·R`
    /// (Mandelbrot's divwarps term C, `M = max(0, n)`, `F = ⌊(c − 1)/20⌋⁺`,
    /// `R = max(0, r)`) is `M·(33 + R + F)`; the e-graph factors `M·R + M·F` as
    /// `1·M·(R + F)`, whose sum the printer used to keep in parentheses inside the outer one
    /// (Mandelbrot: `max(0, numBlocks)*(33 + (⌊(crunch - 1)/20⌋⁺ + [32 ∤ imageW]))`).
    #[test]
    fn a_sum_inside_a_sum_prints_flat() {
        let m = Atom::Max0(Lin::var("n"));
        let mut cm1 = Lin::var("c");
        cm1.c = -Rat::one();
        let f = Atom::Floor(cm1, 20u32.into());
        let r = Atom::Max0(Lin::var("r"));
        let mut b = Poly::zero();
        b.add_term(Rat::from_integer(33.into()), vec![m.clone()]);
        b.add_term(Rat::one(), vec![m.clone(), f]);
        b.add_term(Rat::one(), vec![m, r]);
        let text = simplify(&b);
        // summands in the kernel's term order: the constant, `max0` atoms, floor atoms
        assert_eq!(text, "max(0, n)*(33 + max(0, r) + ⌊(c - 1)/20⌋⁺)");
        assert_eq!(warpcert_kernel::printed::check_printed(&text, &b), Ok(()));
    }

    /// A factor of a product is parenthesised exactly when it is not itself a product
    /// (hand: the grammar of spec/certificate.md "Printed formula").
    #[test]
    fn as_factor_parenthesises_sums_only() {
        assert_eq!(
            as_factor("max(0, n)*(33 + ⌊(c - 1)/20⌋⁺)"),
            "max(0, n)*(33 + ⌊(c - 1)/20⌋⁺)"
        );
        assert_eq!(as_factor("4*max(0, n - 1)"), "4*max(0, n - 1)");
        assert_eq!(as_factor("7"), "7");
        assert_eq!(
            as_factor("5 + 10*⌊(wA + 31)/32⌋⁺"),
            "(5 + 10*⌊(wA + 31)/32⌋⁺)"
        );
        assert_eq!(as_factor("max(0, n) - 1"), "(max(0, n) - 1)");
        assert_eq!(as_factor("-max(0, n)"), "(-max(0, n))");
        assert_eq!(
            as_factor("Σ_{k=0..4} max(0, k + n - 4)"),
            "(Σ_{k=0..4} max(0, k + n - 4))"
        );
    }

    /// A run of unrolled copies prints as one finite sum that the kernel reads back as the
    /// bound (hand: the five atoms `max0(n − 4) … max0(n)` are `max0(n − 4 + k)`,
    /// `k = 0 … 4`); a constant outside the progression keeps the group term by term; a
    /// run shorter than [`MIN_RUN`] is not folded.
    #[test]
    fn unrolled_copies_print_as_a_checked_finite_sum() {
        let b = unrolled(5, false);
        let text = simplify(&b);
        assert_eq!(text, "4 + Σ_{k=0..4} max(0, k + n - 4)");
        assert_eq!(warpcert_kernel::printed::check_printed(&text, &b), Ok(()));
        let broken = unrolled(5, true);
        assert!(!simplify(&broken).contains('Σ'), "{}", simplify(&broken));
        assert!(!simplify(&unrolled(3, false)).contains('Σ'));
    }
}
