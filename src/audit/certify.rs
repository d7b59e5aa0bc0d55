//! Certificates for the audit: run the analysis on a program, have the kernel check the
//! certificate, and read the checked counts back from the kernel's own parse of the text
//! the kernel accepted (never from the analysis' in-memory derivation).

use crate::analysis::{analyze, AnalysisOptions};
use crate::core::{Hardware, Launch, Metric, MetricName, Program, Space};
use warpcert_kernel::arith::Poly;
use warpcert_kernel::syntax::{self, Certificate, Expr, Node, Stmt};

/// A certificate the kernel accepted, with the kernel's parse of it.
pub struct Accepted {
    /// The bound as the kernel prints it.
    pub bound: String,
    /// The bound as the kernel parsed and checked it.
    pub poly: Poly,
    /// Derivation nodes the kernel checked.
    pub nodes: usize,
    /// The kernel's parse of the accepted text.
    pub cert: Certificate,
}

/// Infers, writes and checks a certificate for `prog` under `metric`. Errors: the
/// analysis' error, the kernel's rejection, or a parse failure (as text).
pub fn certify(
    prog: &Program,
    metric: MetricName,
    hw: &Hardware,
    launch: &Launch,
    degree: u32,
) -> Result<Accepted, String> {
    let m = Metric::standard(metric);
    let a = analyze(
        prog,
        &m,
        hw,
        launch,
        // the polynomial form: the audit's execution counts are read as max(0, …) forms
        // (tests/audit.rs compares them with hand derivations in that form)
        &AnalysisOptions {
            degree,
            floor: false,
            align: false,
        },
    )
    .map_err(|e| e.to_string())?;
    let v = warpcert_kernel::check(&a.certificate)
        .map_err(|r| format!("certificate REJECTED by the kernel: {r}"))?;
    let top = warpcert_kernel::sexp::parse_all(&a.certificate).map_err(|r| r.to_string())?;
    let cert = syntax::certificate(&top).map_err(|r| r.to_string())?;
    Ok(Accepted {
        bound: v.bound,
        poly: v.bound_poly,
        nodes: v.nodes_checked,
        cert,
    })
}

/// The largest `(n N)` of the nodes of rule `rules` in the derivation (`None`: no such
/// node, e.g. the access is unreachable under the certificate's preconditions).
pub fn max_n(root: &Node, rules: &[&str]) -> Option<u64> {
    use num_traits::ToPrimitive;
    let mut best: Option<u64> = None;
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        if rules.contains(&n.rule.as_str()) {
            if let Some(v) = n.n.as_ref().and_then(|v| v.to_u64()) {
                best = Some(best.map_or(v, |b| b.max(v)));
            }
        }
        todo.extend(n.children.iter());
    }
    best
}

/// Whether the kernel's parse of a probe program has exactly one access to arrays of
/// `space` — a read of `probe` — so that every EQ:GARRAY/EQ:SARRAY node of its derivation
/// is about the probe.
pub fn only_probe(cert: &Certificate, space: Space, probe: &str) -> bool {
    let want = match space {
        Space::Global => syntax::Space::Global,
        Space::Shared => syntax::Space::Shared,
        Space::Local => syntax::Space::Local,
    };
    let in_space = |a: &str| cert.program.array(a).is_some_and(|d| d.space == want);
    let mut reads_probe = 0;
    let mut others = 0;
    let mut see = |e: &Expr| {
        if let Expr::Read(a, _) = e {
            if a == probe {
                reads_probe += 1;
            } else if in_space(a) {
                others += 1;
            }
        }
    };
    let mut todo = vec![&cert.program.body];
    let mut writes = 0;
    while let Some(s) = todo.pop() {
        match s {
            Stmt::Seq(a, b) => todo.extend([a.as_ref(), b.as_ref()]),
            Stmt::If(e, a, b) => {
                see(e);
                todo.extend([a.as_ref(), b.as_ref()]);
            }
            Stmt::While(e, b) => {
                see(e);
                todo.push(b);
            }
            Stmt::Assign(_, e) => see(e),
            Stmt::Write(a, _, e) => {
                see(e);
                if in_space(a) || a == probe {
                    writes += 1;
                }
            }
            Stmt::Skip | Stmt::Sync | Stmt::Warp(..) => {}
        }
    }
    reads_probe == 1 && others == 0 && writes == 0
}

/// `poly` at the point `at` (variables missing from `at` count as 0), in `f64`.
pub fn eval(poly: &Poly, at: &std::collections::BTreeMap<String, i64>) -> f64 {
    let r = |q: &warpcert_kernel::arith::Rat| q.to_f64().unwrap_or(f64::NAN);
    poly.terms
        .iter()
        .map(|(atoms, c)| {
            atoms
                .iter()
                .map(|a| {
                    let l = a.lin();
                    let v = r(&l.c)
                        + l.terms
                            .iter()
                            .map(|(x, a)| r(a) * at.get(x).copied().unwrap_or(0) as f64)
                            .sum::<f64>();
                    match a {
                        // max(0, ⌊L/d⌋) (spec/logic.md §1 "Floor atoms")
                        warpcert_kernel::arith::Atom::Floor(_, d) => {
                            (v / r(&d.clone().into())).floor().max(0.0)
                        }
                        warpcert_kernel::arith::Atom::Max0(_) => v.max(0.0),
                        // [m ∤ L] (spec/logic.md §1 "Residue atoms")
                        warpcert_kernel::arith::Atom::Res(_, m) => {
                            let m = r(&m.clone().into());
                            if v.fract() == 0.0 && v.rem_euclid(m) == 0.0 {
                                0.0
                            } else {
                                1.0
                            }
                        }
                        // [⌊L⌋ mod m < w] (spec/logic.md §1 "Window atoms")
                        warpcert_kernel::arith::Atom::Win(_, m, w) => {
                            let (m, w) = (r(&m.clone().into()), r(&w.clone().into()));
                            if v.floor().rem_euclid(m) < w {
                                1.0
                            } else {
                                0.0
                            }
                        }
                        // max(0, ⌊L/D⌋), D ≥ 1 (spec/logic.md §1 "Symbolic divisors")
                        warpcert_kernel::arith::Atom::FloorSym(_, d) => {
                            let dv = r(&d.c)
                                + d.terms
                                    .iter()
                                    .map(|(x, a)| r(a) * at.get(x).copied().unwrap_or(1) as f64)
                                    .sum::<f64>();
                            (v / dv.max(1.0)).floor().max(0.0)
                        }
                        // ⌊log2 max(1, ⌊L⌋)⌋ (spec/logic.md §1 "Log atoms")
                        warpcert_kernel::arith::Atom::Log(_) => v.floor().max(1.0).log2().floor(),
                        // ⌊log2 max(1, ⌊⌊L⌋ / max(1, ⌊M⌋)⌋)⌋ (spec/logic.md §1 "Quotient log atoms")
                        warpcert_kernel::arith::Atom::LogQ(_, m) => {
                            let mv = r(&m.c)
                                + m.terms
                                    .iter()
                                    .map(|(x, a)| r(a) * at.get(x).copied().unwrap_or(0) as f64)
                                    .sum::<f64>();
                            (v.floor() / mv.floor().max(1.0))
                                .floor()
                                .max(1.0)
                                .log2()
                                .floor()
                        }
                    }
                })
                .product::<f64>()
                * r(c)
        })
        .sum()
}
