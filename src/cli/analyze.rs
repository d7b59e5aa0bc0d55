//! `warpcert analyze`: per-warp bounds with checked certificates, one per metric.

use super::options::Loaded;
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::analysis::{analyze, AnalysisOptions};
use crate::certificate::provenance::{self, Source};
use crate::core::{Metric, MetricName};
use crate::report::error::FORMAT_VERSION;
use crate::report::{self, AnalyzeOutcome, BoundReport, CertificateReport, FailureReport, Format};
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Instant;
use warpcert_kernel::Verdict;

/// Arguments of `warpcert analyze`.
#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub(super) kernel: KernelArgs,
    /// Write the certificate here: a file for one metric, or a directory (an existing one,
    /// a path ending with `/`, or any path with several metrics; created) holding
    /// `KERNEL.METRIC.cert`, and an exact answer's lower-bound certificate as
    /// `KERNEL.METRIC.lower.cert`.
    #[arg(long)]
    cert: Option<PathBuf>,
    /// Also export each checked certificate as a Coq file proving the bound
    /// (`coq-export/README.md`): a file for one metric, or a directory (as `--cert`)
    /// holding `KERNEL_METRIC.v` (a Coq file name may not contain dots); an exact answer's
    /// lower-bound certificate beside it as `…_lower.v`.
    #[arg(long)]
    coq: Option<PathBuf>,
    /// Degree of the complete potential templates: every product of at most this many
    /// candidate atoms of a loop. An override, not a cap: a loop nest deeper than this gets,
    /// in addition, the monomials the nest can produce (the products of its counters' ranges
    /// along the nest, up to the nest's depth), so a d-deep nest needs no `--degree d`. A
    /// larger value enlarges every template (exponentially in the value).
    #[arg(long, default_value_t = 2)]
    pub(super) degree: u32,
    /// Form of the bound: `floor` uses floor atoms `⌊L/c⌋` for loops with a constant step
    /// c > 1 where that bound is at least as tight at every sampled point (spec/logic.md §1);
    /// `polynomial` uses `max(0, …)` atoms only, RaCUDA's form, for comparison.
    #[arg(long, value_enum, default_value_t = Form::Floor)]
    pub(super) form: Form,
    /// Charge every divergent `if` the constant `M^div` (Q:IF4), also where its test splits
    /// a warp only off a residue class. By default such an `if` is charged
    /// `M^div·[m ∤ s − X]` (Q:IFALIGN, spec/logic.md §4; issue 15): `[32 ∤ n]` for
    /// `if (i < n)` with `i = blockIdx.x*256 + threadIdx.x`.
    #[arg(long)]
    pub(super) no_align: bool,
    /// Print the lowered miniCUDA program before the bounds.
    #[arg(long)]
    dump_core: bool,
    /// Use Pico's relational analysis (metrics sectors and conflicts) and ask for an
    /// `exact`, `upper` or `lower` per-warp cost, or `auto` (exact where the analysis is
    /// exact, else upper); the output always says which relation holds.
    #[arg(long, value_enum)]
    relation: Option<super::relation::RelationArg>,
    /// Print the relational analysis' exactness table (conditionals, loops, indices:
    /// exact / total) for the file, or for every `.cu` file of a directory.
    #[arg(long)]
    stats: bool,
    /// More files or directories: a batch run over every kernel of each, in parallel,
    /// with a summary (also when FILE is a directory or the format is `jsonl`).
    #[arg(value_name = "MORE")]
    pub(super) more: Vec<PathBuf>,
    /// Worker threads of a batch run (default: the number of cores).
    #[arg(long)]
    pub(super) jobs: Option<usize>,
}

/// The `--form` option of `analyze`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Form {
    /// Floor atoms where at least as tight (the default).
    Floor,
    /// `max(0, …)` atoms only (RaCUDA's form).
    Polynomial,
}

impl AnalyzeArgs {
    /// The `--format` option.
    pub fn format(&self) -> Format {
        self.kernel.format
    }
    /// The analysis options of `--degree` and `--form`.
    pub fn options(&self) -> AnalysisOptions {
        AnalysisOptions {
            degree: self.degree,
            floor: self.form == Form::Floor,
            align: !self.no_align,
        }
    }
}

/// The number of warps of the launch: an integer, or an expression over `gridDim.*`.
pub fn warps_expr(l: &Loaded) -> String {
    let per_block = l.launch.warps_per_block(&l.hw);
    match super::options::total_warps(&l.launch, &l.hw) {
        Some(w) => w.to_string(),
        // one warp per block: the grid's block count, without a factor `*1`
        None if per_block == 1 => "gridDim.x*gridDim.y*gridDim.z".to_string(),
        None => format!("gridDim.x*gridDim.y*gridDim.z*{per_block}"),
    }
}

/// Whether an output path names a directory: several metrics, an existing directory, or a
/// path ending with `/` (created), so `--cert DIR --metric sectors` writes `DIR/K.sectors.cert`.
fn dir_mode(base: &Path, several: bool) -> bool {
    several || base.is_dir() || base.as_os_str().to_string_lossy().ends_with('/')
}

/// `DIR/KERNEL.METRIC.cert` in directory mode ([`dir_mode`]), else `base` itself.
pub(super) fn cert_path(base: &Path, kernel: &str, metric: MetricName, several: bool) -> PathBuf {
    if dir_mode(base, several) {
        base.join(format!("{kernel}.{metric}.cert"))
    } else {
        base.to_path_buf()
    }
}

/// `DIR/KERNEL_METRIC.v` in directory mode ([`dir_mode`]): a Coq module name, so every character of the
/// kernel's name other than ASCII letters, digits and `_` (a template's `<…>`, `,`, `-`)
/// becomes `_` (coqc rejects `testKernel<RGBA32>_sectors.v`).
fn coq_path(base: &Path, kernel: &str, metric: MetricName, several: bool) -> PathBuf {
    if dir_mode(base, several) {
        let kernel: String = kernel
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        base.join(format!("{kernel}_{metric}.v"))
    } else {
        base.to_path_buf()
    }
}

/// Where the lower-bound certificate of an exact answer was written, if any.
fn lower_cert_path(o: &AnalyzeOutcome) -> Option<String> {
    match o {
        AnalyzeOutcome::Bound(b) => b.lower.as_ref().and_then(|lr| lr.path.clone()),
        _ => None,
    }
}

/// Where the capped certificates B, C of a `min(A, B, C)` answer were written
/// (`PATH.capped`, `PATH.capped2`, [`add_capped`]), in order.
fn capped_cert_paths(o: &AnalyzeOutcome) -> Vec<String> {
    match o {
        AnalyzeOutcome::Bound(b) => b
            .certificates
            .iter()
            .filter_map(|c| c.path.clone())
            .filter(|p| p.contains(".capped"))
            .collect(),
        _ => Vec::new(),
    }
}

/// The Coq file of the capped certificate `PATH.capped…` beside the first one's `…/NAME.v`:
/// `…/NAME_capped….v` (a Coq module name).
fn coq_capped_path(cert: &Path, first: &Path) -> PathBuf {
    let stem = first
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let which = cert.extension().map_or_else(
        || "capped".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    first.with_file_name(format!("{stem}_{which}.v"))
}

/// Exports the capped certificate `cert` (Q:WHILEGUARDCAP / Q:WHILEEXITCAP /
/// Q:WHILEEXITCAP2, spec/logic.md §4a) to [`coq_capped_path`] of the first half's Coq file
/// `first`. A rule the Coq theories do not check (a capped loop off the root's spine,
/// coq-export/theories/CapCheck.v) is a note on stderr, not an error:
/// `first` still proves the answer's first part, and no `…_capped.v` is written. Errors:
/// the certificate cannot be read or exported otherwise, or the file written.
fn write_coq_capped(cert: &Path, first: &Path) -> Result<(), String> {
    use crate::export::coq::ExportError;
    let out = coq_capped_path(cert, first);
    let text = std::fs::read_to_string(cert)
        .map_err(|e| format!("cannot read {}: {e}", cert.display()))?;
    match crate::export::coq::export(&text) {
        Ok(v) => {
            std::fs::write(&out, v).map_err(|e| format!("cannot write {}: {e}", out.display()))
        }
        Err(ExportError::UnsupportedRule(r)) => {
            // `PATH.capped` is B, `PATH.capped2` C (Q:WHILEEXITCAP2)
            let which = if cert.to_string_lossy().ends_with(".capped") {
                "B of min(A, B)"
            } else {
                "C of min(A, B, C)"
            };
            // every rule is in Coq (tests/coq_export.rs `NOT_IN_COQ` is empty); what the
            // export refuses is a capped loop off CapCheck.v's spine, which `r` names
            eprintln!(
                "note: the capped bound {which} is not exported to Coq ({r}): {} proves A only",
                first.display()
            );
            Ok(())
        }
        // an atom the export refuses (a symbolic floor atom whose form is not integral)
        Err(e @ ExportError::UnsupportedAtom(_)) => {
            eprintln!(
                "note: a further bound of the min is not exported to Coq ({e}): {} proves A only",
                first.display()
            );
            Ok(())
        }
        Err(e) => Err(format!("{}: {e}", cert.display())),
    }
}

/// The Coq file of a lower-bound certificate beside the upper one's `…/NAME.v`:
/// `…/NAME_lower.v` (a Coq module name).
fn coq_lower_path(upper: &Path) -> PathBuf {
    let stem = upper
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    upper.with_file_name(format!("{stem}_lower.v"))
}

/// The whole-kernel bound from the kernel's verdict, in exact arithmetic: `warps × B` for
/// a concrete grid, `gridDim.x*gridDim.y*gridDim.z*(w × B)` for a symbolic one (`w` warps
/// per block), the products computed on the kernel's polynomial and printed in its grammar.
pub fn whole_kernel(l: &Loaded, v: &Verdict) -> String {
    use num_bigint::BigInt;
    let per_block = BigInt::from(l.launch.warps_per_block(&l.hw));
    // the product in short normal form, checked by the kernel like the per-warp bound
    let scaled = |k: BigInt| {
        let k = warpcert_kernel::arith::Rat::from_integer(k);
        let p = warpcert_kernel::arith::Poly::zero().add_scaled(&v.bound_poly, &k);
        crate::report::printed::print_bound(&p, &p.to_string()).text
    };
    // exact: a grid of (2³¹−1)×65535×65535 blocks has more warps than a u64 holds
    match l.launch.grid {
        Some(g) => scaled(per_block * g.iter().map(|&d| BigInt::from(d)).product::<BigInt>()),
        None => format!(
            "gridDim.x*gridDim.y*gridDim.z*{}",
            crate::report::printed::as_factor(&scaled(per_block))
        ),
    }
}

/// The bound of the kernel's verdict as the crate's polynomial (the same terms, atoms
/// canonicalized again), for evaluating it at parameter values: what `bench` and the
/// certified companion of `--relation` compare is what the kernel checked. Floor atoms
/// `max(0, ⌊L/d⌋)` stay floor atoms (spec/logic.md §1).
pub fn verdict_bound(v: &Verdict) -> crate::core::assertion::Poly {
    use crate::core::assertion::poly::Atom as A;
    use crate::core::assertion::{Lin, Poly};
    use warpcert_kernel::arith::Atom;
    let lin = |l: &warpcert_kernel::arith::Lin| Lin {
        c: l.c.big(),
        terms: l.terms.iter().map(|(v, a)| (v.clone(), a.big())).collect(),
    };
    let mut p = Poly::zero();
    for (atoms, c) in &v.bound_poly.terms {
        let atoms: Vec<A> = atoms
            .iter()
            .map(|a| match a {
                Atom::Max0(l) => A::Max0(lin(l).into()),
                Atom::Floor(l, d) => A::Floor(lin(l).into(), d.clone()),
                Atom::Log(l) => A::Log(lin(l).into()),
                Atom::LogQ(l, m) => A::LogQ(lin(l).into(), lin(m).into()),
                Atom::Res(l, m) => A::Res(lin(l).into(), m.clone()),
                Atom::Win(l, m, w) => A::Win(lin(l).into(), m.clone(), w.clone()),
                Atom::FloorSym(l, d) => A::FloorSym(lin(l).into(), lin(d).into()),
            })
            .collect();
        p.add_raw_term(&atoms, c.big());
    }
    p
}

/// The report's word for the relation the kernel proves ([`Verdict::RELATION`]).
fn relation_word() -> &'static str {
    match Verdict::RELATION {
        "<=" => "upper",
        _ => "unknown",
    }
}

/// Analyses one metric of a loaded kernel: infer, write (with a provenance section when
/// `source` is given), check. The bound, relation and whole-kernel total reported are the
/// kernel's verdict; a rejected certificate is a failure that shows no bound.
pub fn analyze_metric(
    l: &Loaded,
    metric: MetricName,
    opts: &AnalysisOptions,
    cert_out: Option<PathBuf>,
    source: Option<&Source>,
) -> Result<AnalyzeOutcome, String> {
    let start = Instant::now();
    let m = Metric::standard(metric);
    let result = analyze(&l.program, &m, &l.hw, &l.launch, opts);
    let failure = |error: String| {
        AnalyzeOutcome::Failure(FailureReport {
            format_version: FORMAT_VERSION,
            kernel: l.program.name.clone(),
            metric: metric.to_string(),
            error,
        })
    };
    let mut a = match result {
        Ok(a) => a,
        Err(e) => return Ok(failure(e.to_string())),
    };
    let text = match source {
        Some(src) => provenance::add(&a.certificate, src)?,
        None => std::mem::take(&mut a.certificate),
    };
    let time_ms = start.elapsed().as_secs_f64() * 1e3;
    let path = match cert_out {
        Some(p) => {
            if let Some(dir) = p.parent() {
                if !dir.as_os_str().is_empty() {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                }
            }
            std::fs::write(&p, &text).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            Some(p.display().to_string())
        }
        None => None,
    };
    let mut outcome = outcome_from_verdict(l, metric, &text, path.clone(), time_ms);
    if let (AnalyzeOutcome::Bound(b), Some(c)) = (&mut outcome, a.capped.take()) {
        // B at `PATH.capped`, C (Q:WHILEEXITCAP2) at `PATH.capped2`
        for (i, c) in c.chain().into_iter().enumerate() {
            let suffix = if i == 0 {
                String::new()
            } else {
                (i + 1).to_string()
            };
            add_capped(l, b, c, path.as_deref(), source, &suffix)?;
        }
    }
    if let AnalyzeOutcome::Bound(b) = &mut outcome {
        let upper = b
            .certificates
            .first()
            .map(|c| c.bound.clone())
            .unwrap_or_default();
        let lower = exact_lower(l, &m, opts, &a.derivation, &upper, path.as_deref())?;
        b.relation = relation_of(lower.as_ref());
        if let Some(lr) = lower {
            b.certificates.push(crate::report::CertEntry {
                role: lr.role,
                path: lr.path.clone(),
                checked: lr.checked,
                bound: lr.bound.clone(),
            });
            b.lower = Some(Box::new(lr));
        }
    }
    Ok(outcome)
}

/// A further bound of [`crate::analysis::Analysis::capped`]'s chain (B: Q:WHILEGUARDCAP /
/// Q:WHILEEXITCAP, C: Q:WHILEEXITCAP2, spec/logic.md §4a): its certificate is written
/// beside the first (`PATH.capped` + `suffix`) and checked by the kernel; if accepted, the
/// report's answer becomes `min(A, B)` (per warp and for the kernel; each part a formula the
/// kernel's printed-formula reader checked against its own certificate's bound; a further
/// bound joins the `min`) and B is listed among the certificates. A rejected B is left out.
/// Errors: the file cannot be written.
fn add_capped(
    l: &Loaded,
    b: &mut BoundReport,
    c: &crate::analysis::Analysis,
    path: Option<&str>,
    source: Option<&Source>,
    suffix: &str,
) -> Result<(), String> {
    let text = match source {
        Some(src) => provenance::add(&c.certificate, src)?,
        None => c.certificate.clone(),
    };
    let Ok(v) = warpcert_kernel::check(&text) else {
        return Ok(());
    };
    let path = match path {
        Some(p) => {
            let p = format!("{p}.capped{suffix}");
            std::fs::write(&p, &text).map_err(|e| format!("cannot write {p}: {e}"))?;
            Some(p)
        }
        None => None,
    };
    let printed = crate::report::printed::print_bound(&v.bound_poly, &v.bound);
    let join = |sofar: &str, next: &str| match sofar.strip_suffix(')') {
        // `min(A, B)` and C: `min(A, B, C)`
        Some(head) if !suffix.is_empty() && sofar.starts_with("min(") => {
            format!("{head}, {next})")
        }
        _ => format!("min({sofar}, {next})"),
    };
    b.per_warp = join(&b.per_warp, &printed.text);
    b.total = join(&b.total, &whole_kernel(l, &v));
    b.certificates.push(crate::report::CertEntry {
        role: v.role.name(),
        path,
        checked: true,
        bound: v.bound.clone(),
    });
    Ok(())
}

/// [`analyze_metric`] for every metric of `metrics` of one loaded kernel, concurrently on
/// the available cores ([`super::guard::map_metrics`]: the cores, or the enclosing pool of
/// `--jobs`, fewer under `ulimit -v`; issue 13: the four metrics of `--metric all` are
/// independent analyses and checks). The results are
/// in the order of `metrics` whatever the order the analyses end in; `cert_out` gives each
/// metric's certificate path. The `--max-memory` budget and `--timeout` stay process-wide
/// (`cli::guard`), so they bound the metrics together.
pub fn analyze_metrics(
    l: &Loaded,
    metrics: &[MetricName],
    opts: &AnalysisOptions,
    cert_out: impl Fn(MetricName) -> Option<PathBuf> + Sync,
    source: Option<&Source>,
) -> Vec<Result<AnalyzeOutcome, String>> {
    super::guard::map_metrics(metrics, |&m| {
        analyze_metric(l, m, opts, cert_out(m), source)
    })
}

/// The relation of an upper bound the kernel accepted (issue 14 item 4), as `analyze`
/// reports it and `bench` tabulates it, from [`exact_lower`]'s result: `"exact"` when it
/// found a lower-bound certificate the kernel accepts with the same bound, else `"upper"`
/// (the kernel's relation, [`Verdict::RELATION`]).
pub(super) fn relation_of(lower: Option<&crate::report::LowerReport>) -> &'static str {
    match lower {
        Some(_) => "exact",
        None => relation_word(),
    }
}

/// The first warp of the block (0, 1, 2 and the last are tried) whose lower-bound certificate
/// (`analysis::lower`, spec/logic.md §4b) the kernel accepts with the bound `upper` (the
/// kernel's rendering of the accepted upper bound); written beside `upper_path` as
/// `….lower.cert`. `None` when no warp has one (the answer stays `upper`).
pub(super) fn exact_lower(
    l: &Loaded,
    m: &Metric,
    opts: &AnalysisOptions,
    upper_deriv: &crate::certificate::Node,
    upper: &str,
    upper_path: Option<&str>,
) -> Result<Option<crate::report::LowerReport>, String> {
    use crate::analysis::lower::{guard_hypotheses, split_hypotheses};
    let search = LowerSearch {
        l,
        m,
        opts,
        upper,
        upper_path,
        launch_p: crate::analysis::derive::launch_facts(&l.program, &l.launch),
    };
    let warps = tried_warps(l);
    if let Some(r) = search.for_warps(upper_deriv, None, &warps)? {
        return Ok(Some(r));
    }
    // a divergent test `x % m == 0` whose lanes move with a uniform value (L:IFWRAP): the
    // assertions need the wrapped entries the upper derivation does not carry
    if !num_traits::Zero::is_zero(&m.div) && has_rem(&l.program.body) {
        let wraps = crate::analysis::DerivationOptions {
            wraps: true,
            ..Default::default()
        };
        if let Ok(d) = crate::analysis::derivation(&l.program, m, &l.hw, &l.launch, opts, &wraps) {
            if let Some(r) = search.for_warps(&d, None, &warps)? {
                return Ok(Some(r));
            }
        }
    }
    // guards the lanes pass only for large enough parameters: the same bound on the
    // region where every lane passes them (spec/logic.md §4b, L:HYP), with a witness point
    let facts = guard_hypotheses(&l.program, &l.launch);
    if let Some(r) = search.under(facts, &warps)? {
        return Ok(Some(r));
    }
    // strided global accesses, each lane a sector apart for large enough parameters
    // (spec/logic.md §4b "Strided accesses", L:GARRAYSTRIDE under L:HYP)
    if let Some(r) = search.strided(&warps)? {
        return Ok(Some(r));
    }
    // rows misaligned by a parameter (matrixMul at a 32×32 block): warp-exact products
    // under congruence hypotheses (spec/logic.md §4b "Warp-exact products")
    // (`unrolled`: the upper derivation has Q:UNROLL nodes, e.g. analysis::counted_run's)
    let mut rules = std::collections::BTreeMap::new();
    upper_deriv.count_rules(&mut rules);
    if let Some(r) = search.congruent(&warps, rules.contains_key("Q:UNROLL"))? {
        return Ok(Some(r));
    }
    // where M^div counts: the region where the guards split the warp (L:IFDIV)
    if num_traits::Zero::is_zero(&m.div) {
        return Ok(None);
    }
    for w in warps {
        let facts = split_hypotheses(&l.program, &l.launch, &l.hw, &search.launch_p, w);
        if let Some(r) = search.under(facts, &[w])? {
            return Ok(Some(r));
        }
    }
    Ok(None)
}

/// The context of [`exact_lower`]'s search for a lower-bound certificate of one metric:
/// the loaded kernel, the metric and analysis options, the bound `upper` the certificate
/// must reach (the kernel's rendering of the accepted upper bound), where the upper
/// certificate was written (the lower one goes beside it) and the launch facts `launch_p`
/// of the program (spec/logic.md §4b).
struct LowerSearch<'a> {
    l: &'a Loaded,
    m: &'a Metric,
    opts: &'a AnalysisOptions,
    upper: &'a str,
    upper_path: Option<&'a str>,
    launch_p: Vec<crate::core::assertion::Cstr>,
}

/// Whether `s` assigns some `a % b` (the source of a wrapped entry, spec/logic.md §2).
fn has_rem(s: &crate::core::ir::Stmt) -> bool {
    use crate::core::ir::{BinOp, Expr, Stmt};
    let mut todo = vec![s];
    while let Some(s) = todo.pop() {
        match s {
            Stmt::Assign(_, Expr::Bin(BinOp::Rem, ..), _) => return true,
            Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => todo.extend([&**a, &**b]),
            Stmt::While(_, b, _) => todo.push(b),
            _ => {}
        }
    }
    false
}

/// Whether `s` assigns some `p * y` or `y * p` with `p` a parameter and `y` a local or a
/// thread index (the source of a row multiplier, spec/logic.md §1).
fn has_param_product(s: &crate::core::ir::Stmt) -> bool {
    use crate::core::ir::{BinOp, Expr, Operand, Stmt};
    let mut todo = vec![s];
    while let Some(s) = todo.pop() {
        match s {
            Stmt::Assign(_, Expr::Bin(BinOp::Mul, a, b), _)
                if matches!(
                    (a, b),
                    (Operand::Param(_), Operand::Var(_) | Operand::Tid(_))
                        | (Operand::Var(_) | Operand::Tid(_), Operand::Param(_))
                ) =>
            {
                return true
            }
            Stmt::Seq(a, b) | Stmt::If(_, a, b, _) => todo.extend([&**a, &**b]),
            Stmt::While(_, b, _) => todo.push(b),
            _ => {}
        }
    }
    false
}

impl LowerSearch<'_> {
    /// [`Self::for_warps`] on the region of the parameter hypotheses `facts` (rule L:HYP,
    /// with a witness point; none when `facts` is empty or no point is found), from an
    /// upper derivation whose root pre includes them.
    fn under(
        &self,
        facts: Vec<crate::core::assertion::Cstr>,
        warps: &[u32],
    ) -> Result<Option<crate::report::LowerReport>, String> {
        use crate::analysis::lower::{witness_point, Hypotheses};
        let l = self.l;
        if facts.is_empty() {
            return Ok(None);
        }
        let Some(witness) = witness_point(&self.launch_p, &facts) else {
            return Ok(None);
        };
        let h = Hypotheses { facts, witness };
        let under = crate::analysis::DerivationOptions {
            hyps: &h.facts,
            ..Default::default()
        };
        let Ok(d) =
            crate::analysis::derivation(&l.program, self.m, &l.hw, &l.launch, self.opts, &under)
        else {
            return Ok(None);
        };
        self.for_warps(&d, Some(&h), warps)
    }

    /// [`Self::for_warps`] on the region where the program's strided global accesses touch
    /// one sector per lane (spec/logic.md §4b "Strided accesses"): the facts of
    /// [`crate::analysis::lower::stride_hypotheses`] (with the guard hypotheses), from a
    /// derivation that keeps scaled entries with row multipliers
    /// ([`crate::analysis::DerivationOptions::strides`]). `None` when the program has no such
    /// access.
    fn strided(&self, warps: &[u32]) -> Result<Option<crate::report::LowerReport>, String> {
        use crate::analysis::lower::{
            guard_hypotheses, stride_hypotheses, witness_point, Hypotheses,
        };
        let l = self.l;
        // only where a global access's count matters and some `x ← p * y` can give a
        // row multiplier (one extra derivation otherwise for nothing)
        let counted = !num_traits::Zero::is_zero(&self.m.gread.mul)
            || !num_traits::Zero::is_zero(&self.m.gwrite.mul);
        if !counted || !has_param_product(&l.program.body) {
            return Ok(None);
        }
        let strided = |hyps: &[crate::core::assertion::Cstr]| {
            let with = crate::analysis::DerivationOptions {
                hyps,
                strides: true,
                ..Default::default()
            };
            crate::analysis::derivation(&l.program, self.m, &l.hw, &l.launch, self.opts, &with)
        };
        let Ok(d0) = strided(&[]) else {
            return Ok(None);
        };
        let mut facts = stride_hypotheses(&l.program, &l.hw, &d0);
        if facts.is_empty() {
            return Ok(None);
        }
        facts.extend(guard_hypotheses(&l.program, &l.launch));
        let Some(witness) = witness_point(&self.launch_p, &facts) else {
            return Ok(None);
        };
        let h = Hypotheses { facts, witness };
        let Ok(d) = strided(&h.facts) else {
            return Ok(None);
        };
        self.for_warps(&d, Some(&h), warps)
    }

    /// [`Self::for_warps`] under congruence hypotheses on the `int` parameters
    /// ([`crate::analysis::lower::congruence_hypotheses`]), each warp from its own
    /// derivation with warp-exact products ([`crate::analysis::DerivationOptions::at_warp`]). Tried
    /// only when a thread dimension other than x has extent above 1 (where the collapse of
    /// spec/logic.md §2 loses a row's offset); with `unrolled` (the upper derivation has
    /// Q:UNROLL nodes) also from derivations with the counted loops unrolled
    /// ([`crate::analysis::DerivationOptions::counted`]).
    fn congruent(
        &self,
        warps: &[u32],
        unrolled: bool,
    ) -> Result<Option<crate::report::LowerReport>, String> {
        let l = self.l;
        if l.launch.block[1] <= 1 && l.launch.block[2] <= 1 {
            return Ok(None);
        }
        let Some((h, cong)) =
            crate::analysis::lower::congruence_hypotheses(&l.program, &l.hw, &self.launch_p)
        else {
            return Ok(None);
        };
        let at_warp = |w: u32, counted: bool| {
            let with = crate::analysis::DerivationOptions {
                at_warp: Some((w, &cong)),
                counted,
                ..Default::default()
            };
            crate::analysis::derivation(&l.program, self.m, &l.hw, &l.launch, self.opts, &with)
        };
        // with `unrolled`, an upper bound found with counted loops unrolled
        // (analysis::counted_run): the lower derivation unrolls them too, each copy's
        // access at its own residue
        let passes: &[bool] = if unrolled { &[false, true] } else { &[false] };
        for &counted in passes {
            for &w in warps {
                let Ok(d) = at_warp(w, counted) else {
                    continue;
                };
                if let Some(r) = self.for_warps(&d, Some(&h), &[w])? {
                    return Ok(Some(r));
                }
            }
        }
        Ok(None)
    }

    /// [`exact_lower`] for one source derivation `upper_deriv` and hypotheses `hyp` (none:
    /// the launch facts alone): the warps `warps` are tried in order.
    fn for_warps(
        &self,
        upper_deriv: &crate::certificate::Node,
        hyp: Option<&crate::analysis::lower::Hypotheses>,
        warps: &[u32],
    ) -> Result<Option<crate::report::LowerReport>, String> {
        let (l, upper) = (self.l, self.upper);
        for &w in warps {
            let lower = |split: bool| {
                let with = crate::analysis::lower::LowerOptions { hyp, split };
                crate::analysis::lower::lower_certificate(
                    &l.program,
                    self.m,
                    &l.hw,
                    &l.launch,
                    upper_deriv,
                    w,
                    &with,
                )
            };
            let Ok((text, _)) = lower(false) else {
                // the lower logic does not cover this program (no warp will do better)
                return Ok(None);
            };
            let reaches = |t: &str| warpcert_kernel::check(t).is_ok_and(|v| v.bound == upper);
            // L:IFSPLIT (branches counted over their own lanes, spec/logic.md §4b "Lane
            // subsets") only where the certificate without it falls short (both export to
            // Coq since lowersplit19; the certificates that did not need it are unchanged)
            let text = if reaches(&text) {
                text
            } else {
                match lower(true) {
                    Ok((t, _)) if t != text && reaches(&t) => t,
                    _ => continue,
                }
            };
            let path = match self.upper_path {
                Some(p) => {
                    let lp = format!("{}.lower.cert", p.strip_suffix(".cert").unwrap_or(p));
                    std::fs::write(&lp, &text).map_err(|e| format!("cannot write {lp}: {e}"))?;
                    Some(lp)
                }
                None => None,
            };
            return Ok(Some(crate::report::LowerReport {
                role: "lower",
                warp: w,
                bound: upper.to_string(),
                checked: true,
                path,
                when: hyp.map(|h| h.text()),
            }));
        }
        Ok(None)
    }
}

/// Warp 0, the next two and the last (a partial last warp may cost less): each try is
/// one more derivation for the kernel to check.
fn tried_warps(l: &Loaded) -> Vec<u32> {
    let last = u32::try_from(l.launch.warps_per_block(&l.hw).saturating_sub(1)).unwrap_or(0);
    let mut tries = vec![0, 1.min(last), 2.min(last), last];
    tries.dedup();
    tries
}

/// The report of one metric from the kernel's verdict on certificate `text`: the bound,
/// relation and total of an accepted certificate, or a failure naming the rejection (no
/// bound). `path`: where the certificate was written.
pub fn outcome_from_verdict(
    l: &Loaded,
    metric: MetricName,
    text: &str,
    path: Option<String>,
    time_ms: f64,
) -> AnalyzeOutcome {
    let check_start = Instant::now();
    let verdict = warpcert_kernel::check(text);
    let check_ms = check_start.elapsed().as_secs_f64() * 1e3;
    let v = match verdict {
        Ok(v) => v,
        Err(r) => {
            // no bound beside a rejection; a kernel that could not run is a resource
            // failure, not a rejection (issue 18)
            let error = if r.reason == warpcert_kernel::Reason::ThreadFailed {
                super::check::rejection_text(&r)
            } else {
                crate::report::check::rejected_no_bound(&r, path.as_deref())
            };
            return AnalyzeOutcome::Failure(FailureReport {
                format_version: FORMAT_VERSION,
                kernel: l.program.name.clone(),
                metric: metric.to_string(),
                error,
            });
        }
    };
    let printed = crate::report::printed::print_bound(&v.bound_poly, &v.bound);
    AnalyzeOutcome::Bound(BoundReport {
        format_version: FORMAT_VERSION,
        kernel: l.program.name.clone(),
        metric: metric.to_string(),
        relation: relation_word(),
        lower: None,
        total: whole_kernel(l, &v),
        per_warp: printed.text,
        printing_note: printed.refused,
        certificates: vec![crate::report::CertEntry {
            role: v.role.name(),
            path: path.clone(),
            checked: true,
            bound: v.bound.clone(),
        }],
        warps: warps_expr(l),
        certificate: Box::new(CertificateReport {
            path,
            checked: true,
            verdict: crate::report::check::accepted_line(&v),
            nodes: v.nodes_checked,
            check_ms,
        }),
        time_ms,
        block: l.launch.block,
        grid: l.launch.grid,
        hardware: l.hw,
    })
}

/// What the provenance section records for a loaded kernel: the source file's bytes, the
/// grid and the fixed parameters of the command line.
fn source_of(args: &KernelArgs, l: &Loaded) -> Result<Source, String> {
    let bytes = std::fs::read(&args.file)
        .map_err(|e| format!("error: cannot read {}: {e}", args.file.display()))?;
    let fixed = super::options::parse_params(&args.params)?;
    Ok(Source {
        bytes,
        grid: l.launch.grid,
        fixed,
    })
}

/// Runs the interleaving semantics (spec/semantics.md §11) on a small launch — the block
/// of the analysis, at most 2 blocks per grid dimension, every scalar `int` parameter equal
/// to the number of threads, `float` 1, `bool` true, zero inputs — and returns a warning
/// when it finds a data race: the bounds assume race freedom (assumption `race-free`).
/// Finding none proves nothing; a run that errs or hits its step limit gives no warning.
pub fn race_warning(l: &Loaded) -> Option<String> {
    use crate::semantics::interleaving::{run_interleaving, InterleavingOptions, Outcome};
    use crate::semantics::{store::Inputs, value::Value};
    let grid = l.launch.grid.map_or([2, 1, 1], |g| g.map(|d| d.min(2)));
    let launch = crate::core::Launch {
        block: l.launch.block,
        grid: Some(grid),
    };
    let threads = launch
        .block
        .iter()
        .chain(&grid)
        .map(|&d| i64::from(d))
        .product::<i64>();
    let params: crate::semantics::run::Params = l
        .program
        .params
        .iter()
        .map(|p| {
            let v = match p.ty {
                crate::core::Ty::Int => Value::Int(threads),
                crate::core::Ty::Float => Value::Float(1.0),
                crate::core::Ty::Bool => Value::Bool(true),
            };
            (p.name.clone(), v)
        })
        .collect();
    let opts = InterleavingOptions {
        max_steps: 2_000_000,
        ..InterleavingOptions::default()
    };
    let run = run_interleaving(&l.program, &l.hw, &launch, &params, &Inputs::zero(), &opts).ok()?;
    match run.outcome {
        Outcome::Race(e) => Some(crate::report::race_warning(
            launch.block,
            grid,
            threads,
            &e.to_string(),
        )),
        _ => None,
    }
}

/// Runs `warpcert analyze`; returns the exit code.
pub fn run(args: &AnalyzeArgs) -> i32 {
    if args.stats {
        return super::relation::run_stats(&args.kernel);
    }
    if let Some(r) = args.relation {
        return super::relation::run_relation(&args.kernel, r, args.cert.as_deref());
    }
    let format = args.kernel.format;
    if args.kernel.file.is_dir() || !args.more.is_empty() || format == Format::Jsonl {
        return super::analyze_batch::run(args);
    }
    let super::kernels::FileLoad { entries, notes, .. } =
        match super::kernels::load_entries(&args.kernel, None) {
            Ok(x) => x,
            Err(e) => return e.emit(format),
        };
    for n in &notes {
        eprintln!("{n}");
    }
    let single = entries.len() == 1;
    let mut outcomes = Vec::new();
    let mut races = Vec::new();
    for entry in entries {
        match entry.loaded {
            Ok(l) => {
                if let Err(code) = analyze_kernel(args, &l, !single, &mut outcomes, &mut races) {
                    return code;
                }
            }
            Err(e) if single => return e.emit(format),
            Err(e) => {
                eprintln!("{}", e.text);
                outcomes.push(AnalyzeOutcome::Failure(FailureReport {
                    format_version: FORMAT_VERSION,
                    kernel: entry.name,
                    metric: "all".to_string(),
                    error: e.error,
                }));
            }
        }
    }
    let text = |v: &Vec<AnalyzeOutcome>| {
        let mut t = report::analyze_text(v);
        for w in &races {
            t.push_str(w);
            t.push('\n');
        }
        t
    };
    match report::render(format, &outcomes, text) {
        Ok(s) => print!("{s}"),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_FAILED;
        }
    }
    if format.is_json() {
        for w in &races {
            eprintln!("{w}");
        }
    }
    let all_ok = outcomes.iter().all(|o| match o {
        AnalyzeOutcome::Bound(b) => b.certificate.checked,
        AnalyzeOutcome::Failure(_) => false,
    });
    if all_ok {
        0
    } else {
        EXIT_FAILED
    }
}

/// Analyses every metric of one loaded kernel, appending to `outcomes`; `Err` is an exit code.
///
/// The race check of a small launch (`race_warning`) adds its warning to `races`.
fn analyze_kernel(
    args: &AnalyzeArgs,
    l: &Loaded,
    many: bool,
    outcomes: &mut Vec<AnalyzeOutcome>,
    races: &mut Vec<String>,
) -> Result<(), i32> {
    for w in &l.warnings {
        eprintln!("{w}");
    }
    if l.block_source == "default" {
        eprintln!("{}", crate::report::default_block_note(l.launch.block));
    }
    if args.dump_core {
        eprintln!("{}", l.program);
    }
    let source = match source_of(&args.kernel, l) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return Err(EXIT_BAD_INPUT);
        }
    };
    if let Some(w) = race_warning(l) {
        races.push(if many {
            format!("{}: {w}", l.program.name)
        } else {
            w
        });
    }
    let several = l.metrics.len() > 1 || many;
    // each metric's certificate path, and a temporary one when only Coq is asked
    let cert_out = |m: MetricName| {
        let out = args
            .cert
            .as_ref()
            .map(|c| cert_path(c, &l.program.name, m, several));
        out.or_else(|| {
            args.coq.as_ref().map(|_| {
                std::env::temp_dir().join(format!(
                    "warpcert-{}-{}.{m}.cert",
                    std::process::id(),
                    l.program.name
                ))
            })
        })
    };
    let results = analyze_metrics(l, &l.metrics, &args.options(), cert_out, Some(&source));
    let mut failed = None;
    for (&m, result) in l.metrics.iter().zip(results) {
        let out = cert_out(m);
        if failed.is_some() {
            // an earlier metric failed: the temporary certificates of the later ones,
            // analysed beside it, are removed as the Coq export would have
            if let (None, Some(c), Ok(o)) = (&args.cert, &out, &result) {
                let _ = std::fs::remove_file(c);
                if let Some(lp) = lower_cert_path(o) {
                    let _ = std::fs::remove_file(lp);
                }
            }
            continue;
        }
        let coq_out = args
            .coq
            .as_ref()
            .map(|c| coq_path(c, &l.program.name, m, several));
        match result {
            Ok(o) => {
                if let (Some(v), Some(c)) = (&coq_out, &out) {
                    let mut written = super::export::write_coq(c, v);
                    if args.cert.is_none() {
                        let _ = std::fs::remove_file(c);
                    }
                    // an exact answer's lower-bound certificate: `…_lower.v` beside it
                    if let Some(lp) = lower_cert_path(&o) {
                        let lv = coq_lower_path(v);
                        if written.is_ok() {
                            written = super::export::write_coq(Path::new(&lp), &lv);
                        }
                        if args.cert.is_none() {
                            let _ = std::fs::remove_file(&lp);
                        }
                    }
                    // the capped parts B, C of a `min(A, B, C)` answer: `…_capped.v`,
                    // `…_capped2.v` beside it
                    for cp in capped_cert_paths(&o) {
                        if written.is_ok() {
                            written = write_coq_capped(Path::new(&cp), v);
                        }
                        if args.cert.is_none() {
                            let _ = std::fs::remove_file(&cp);
                        }
                    }
                    if let Err(e) = written {
                        eprintln!("error: {e}");
                        failed = Some(EXIT_FAILED);
                        continue;
                    }
                }
                outcomes.push(o)
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed = Some(EXIT_BAD_INPUT);
            }
        }
    }
    failed.map_or(Ok(()), Err)
}
