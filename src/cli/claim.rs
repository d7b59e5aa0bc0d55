//! `warpcert claim`: audit a claimed bound (issue 19) — certified (exit 0), refuted (exit 1),
//! unknown (exit 3), bad input (exit 2); `--table`: a CSV of claims, one verdict per row.

use super::options::{load, Loaded};
use super::{KernelArgs, EXIT_BAD_INPUT, EXIT_FAILED};
use crate::analysis::AnalysisOptions;
use crate::claim::expr::ClaimExpr;
use crate::claim::refute::SearchLimits;
use crate::claim::table::{self, ClaimRow};
use crate::claim::{audit, Audit, Claim, Refuted, Relation, Target, Verdict};
use crate::core::MetricName;
use crate::export::coq_run::{refutation_file, WarpRunSpec};
use crate::report::claim::{
    print_one, print_table, CertificateEvidence, ClaimReport, TableReport, WitnessEvidence,
};
use crate::report::error::{ErrorKind, ErrorReport, FORMAT_VERSION};
use crate::report::Format;
use crate::semantics::Params;
use clap::Args;
use num_traits::ToPrimitive;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Exit code of an unknown verdict.
pub const EXIT_UNKNOWN: i32 = 3;

/// Arguments of `warpcert claim`.
#[derive(Debug, Args)]
pub struct ClaimArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// The claimed bound, in RaCUDA's or Pico's notation: numbers (decimals are exact),
    /// parameters, + - * / (also `·` and juxtaposition: `15 wA`), ^, max(a, b), min(a, b),
    /// floor(·) or ⌊·⌋, ceil(·) or ⌈·⌉; and warpcert's own atoms, so its printed bound can be
    /// pasted in: ⌊L⌋⁺ (max(0, ⌊L⌋)) and the residue [m ∤ L] (or [m !| L]: 0 when m
    /// divides L, else 1). Parameters range over values ≥ 0.
    #[arg(long)]
    bound: Option<String>,
    /// upper: every warp costs at most the bound; lower: every warp costs at least it.
    #[arg(long, value_enum, default_value = "upper")]
    relation: RelationArg,
    /// FILE is a CSV of claims (file, kernel, metric, block, bound, relation, source),
    /// audited one by one; files are relative to --root.
    #[arg(long)]
    table: bool,
    /// Directory the table's kernel files are relative to.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Write the evidence: the certificate (`.cert`), the witness (`.wit`) and the Coq
    /// refutation (`.v`). A file stem for one claim, a directory (created) for a table.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Most parameter points the counterexample search tries.
    #[arg(long, default_value_t = 100)]
    points: usize,
    /// Most rule applications of the semantics the counterexample search may use.
    #[arg(long, default_value_t = 50_000_000)]
    budget: u64,
    /// Degree of the complete potential templates: every product of at most this many
    /// candidate atoms of a loop. An override, not a cap: a loop nest deeper than this gets,
    /// in addition, the monomials the nest can produce (the products of its counters' ranges
    /// along the nest, up to the nest's depth), so a d-deep nest needs no `--degree d`. A
    /// larger value enlarges every template (exponentially in the value).
    #[arg(long, default_value_t = 2)]
    degree: u32,
}

/// `--relation` of `warpcert claim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RelationArg {
    /// At most the bound.
    Upper,
    /// At least the bound.
    Lower,
}

impl ClaimArgs {
    /// The `--format` option.
    pub fn format(&self) -> Format {
        self.kernel.format
    }
}

/// Runs `warpcert claim`.
pub fn run(args: &ClaimArgs) -> i32 {
    let format = args.kernel.format;
    if args.table {
        return run_table(args);
    }
    let usage = |m: &str| ErrorReport::new(ErrorKind::Usage, m).emit(format);
    let Some(bound) = &args.bound else {
        return usage("claim: give --bound EXPR (or --table for a CSV of claims)");
    };
    let metric = match args.kernel.metric.parse::<MetricName>() {
        Ok(m) => m,
        Err(_) => {
            return usage("claim: --metric must be one of sectors, conflicts, divwarps, steps")
        }
    };
    let expr = match ClaimExpr::parse(bound) {
        Ok(e) => e,
        Err(e) => return ErrorReport::new(ErrorKind::Syntax, e.to_string()).emit(format),
    };
    let loaded = match load(&args.kernel, None) {
        Ok(l) => l,
        Err(e) => return e.emit(format),
    };
    let relation = match args.relation {
        RelationArg::Upper => Relation::Upper,
        RelationArg::Lower => Relation::Lower,
    };
    let claim = Claim {
        text: bound.clone(),
        expr,
        metric,
        relation,
    };
    let file = args.kernel.file.display().to_string();
    let report = match audit_one(args, &loaded, &claim, &file, args.out.clone()) {
        Ok(r) => r,
        Err(e) => return ErrorReport::new(ErrorKind::Usage, e).emit(format),
    };
    if let Err(e) = print_one(format, &report) {
        return ErrorReport::new(ErrorKind::Io, e).emit(format);
    }
    match report.verdict.as_str() {
        "certified" => 0,
        "refuted" => EXIT_FAILED,
        _ => EXIT_UNKNOWN,
    }
}

/// The claim's parameters must be `int` parameters of the kernel.
fn check_vars(l: &Loaded, c: &Claim) -> Result<(), String> {
    for v in c.expr.vars() {
        if l.program.param_ty(&v) != Some(crate::core::Ty::Int) {
            return Err(format!(
                "the claim mentions `{v}`, which is not an int parameter of kernel `{}`",
                l.program.name
            ));
        }
    }
    Ok(())
}

/// Audits one claim on a loaded kernel and writes its evidence under `out` (a file stem).
fn audit_one(
    args: &ClaimArgs,
    l: &Loaded,
    claim: &Claim,
    file: &str,
    out: Option<PathBuf>,
) -> Result<ClaimReport, String> {
    check_vars(l, claim)?;
    let t = Target {
        prog: &l.program,
        hw: &l.hw,
        block: l.launch.block,
    };
    // the claim is compared atom by atom (analysis/compare.rs): a polynomial claim with the
    // polynomial form of warpcert's bound, a claim with floor or residue atoms (⌊L⌋⁺,
    // [m ∤ L], e.g. warpcert's own default bound pasted in) with the default form
    let integer = claim.expr.has_integer_atoms();
    let opts = AnalysisOptions {
        degree: args.degree,
        floor: integer,
        align: integer,
    };
    let limits = SearchLimits {
        points: args.points,
        budget: args.budget,
        ..SearchLimits::default()
    };
    let a = audit(&t, claim, &opts, &limits);
    let mut r = ClaimReport {
        format_version: FORMAT_VERSION,
        file: file.to_string(),
        kernel: l.program.name.clone(),
        metric: claim.metric.to_string(),
        block: l.launch.block,
        relation: claim.relation.as_str().into(),
        claim: claim.text.clone(),
        source: None,
        verdict: String::new(),
        ours: a.ours.clone(),
        certificate: None,
        witness: None,
        tried: a.tried.clone(),
    };
    fill_evidence(&mut r, l, claim, a, out)?;
    Ok(r)
}

fn write_file(path: &Path, text: &str) -> Result<String, String> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path.display().to_string())
}

fn with_ext(stem: &Path, ext: &str) -> PathBuf {
    let mut s = stem.as_os_str().to_owned();
    s.push(format!(".{ext}"));
    PathBuf::from(s)
}

fn fill_evidence(
    r: &mut ClaimReport,
    l: &Loaded,
    claim: &Claim,
    a: Audit,
    out: Option<PathBuf>,
) -> Result<(), String> {
    match a.verdict {
        Verdict::Certified(c) => {
            r.verdict = "certified".into();
            let path = match &out {
                Some(stem) => Some(write_file(&with_ext(stem, "cert"), &c.certificate)?),
                None => None,
            };
            r.certificate = Some(CertificateEvidence {
                path,
                checked: true,
                below: c.ours.to_bound_string(),
                bound: c.bound.to_bound_string(),
                how: c.how.into(),
            });
        }
        Verdict::Refuted(w) => {
            r.verdict = "refuted".into();
            let (path, coq) = match &out {
                Some(stem) => {
                    let p = write_file(&with_ext(stem, "wit"), &w.witness)?;
                    let coq = match coq_refutation(l, claim, &w) {
                        Ok(v) => Some(write_file(&coq_path(stem), &v)?),
                        Err(e) => {
                            r.tried.push(format!("Coq refutation: {e}"));
                            None
                        }
                    };
                    (Some(p), coq)
                }
                None => (None, None),
            };
            r.witness = Some(WitnessEvidence {
                path,
                checked: w.checked,
                params: w.params.iter().cloned().collect(),
                warp: w.warp,
                cost: crate::core::assertion::linear::fmt_q(&w.cost),
                claimed: crate::core::assertion::linear::fmt_q(&w.claimed),
                claimed_decimal: w.claimed.to_f64().unwrap_or(f64::NAN),
                input: w.input_name.clone(),
                coq,
            });
        }
        Verdict::Unknown => r.verdict = "unknown".into(),
    }
    Ok(())
}

/// A Coq file name may not contain dots or dashes: `DIR/STEM.v` with both replaced by `_`.
fn coq_path(stem: &Path) -> PathBuf {
    let name = stem
        .file_name()
        .map(|n| n.to_string_lossy().replace(['.', '-'], "_"))
        .unwrap_or_else(|| "refutation".into());
    stem.with_file_name(format!("{name}.v"))
}

/// The Coq file proving, by `vm_compute`, that the witness's run refutes the claim
/// (`coq_run::refutation_file`, `Refute.refute_sound`). Errors: a claim without a
/// polynomial form (`⌊·⌋`), a program the Coq export cannot print.
pub fn coq_refutation(l: &Loaded, claim: &Claim, w: &Refuted) -> Result<String, String> {
    if claim.relation != Relation::Upper {
        return Err("Refute.v refutes upper bounds only".into());
    }
    let poly = claim.expr.to_poly()?;
    let sexp = crate::certificate::poly_sexp(&poly);
    let top = warpcert_kernel::sexp::parse_all(&sexp).map_err(|e| e.to_string())?;
    let first = top.first().ok_or("empty potential")?;
    let kpoly = warpcert_kernel::syntax::poly(first).map_err(|e| e.to_string())?;
    let mut params = Params::new();
    for p in &l.program.params {
        if let Some((_, v)) = w.params.iter().find(|(n, _)| *n == p.name) {
            params.insert(
                p.name.clone(),
                match p.ty {
                    crate::core::Ty::Int => crate::semantics::Value::Int(*v),
                    crate::core::Ty::Float => crate::semantics::Value::Float(*v as f64),
                    crate::core::Ty::Bool => crate::semantics::Value::Bool(*v != 0),
                },
            );
        }
    }
    let launch = crate::core::Launch {
        block: l.launch.block,
        grid: Some([1, 1, 1]),
    };
    let spec = WarpRunSpec {
        prog: &l.program,
        hw: &l.hw,
        launch: &launch,
        block: [0, 0, 0],
        warp: w.warp,
        params: &params,
        inputs: &w.inputs,
        fuel: 100_000_000,
    };
    refutation_file(&spec, claim.metric, &kpoly).map_err(|e| e.to_string())
}

/// `--table`: every row audited; exit 0 when every row could be read and loaded, 2 else.
fn run_table(args: &ClaimArgs) -> i32 {
    let format = args.kernel.format;
    let path = args.kernel.file.display().to_string();
    let text = match std::fs::read_to_string(&args.kernel.file) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!("cannot read {path}: {e}");
            return ErrorReport::in_file(ErrorKind::Io, &path, msg).emit(format);
        }
    };
    let rows = match table::parse(&text) {
        Ok(r) => r,
        Err(e) => {
            return ErrorReport::in_file(ErrorKind::Syntax, &path, format!("{path}: {e}"))
                .emit(format)
        }
    };
    let mut reports = Vec::new();
    let mut bad = false;
    for row in &rows {
        let r = table_row(args, row);
        bad |= r.verdict == "error";
        reports.push(r);
    }
    let mut counts = BTreeMap::new();
    for r in &reports {
        *counts.entry(r.verdict.clone()).or_insert(0) += 1;
    }
    let t = TableReport {
        format_version: FORMAT_VERSION,
        table: path,
        counts,
        rows: reports,
    };
    if let Err(e) = print_table(format, &t) {
        return ErrorReport::new(ErrorKind::Io, e).emit(format);
    }
    if bad {
        EXIT_BAD_INPUT
    } else {
        0
    }
}

fn table_row(args: &ClaimArgs, row: &ClaimRow) -> ClaimReport {
    let file = args.root.join(&row.file);
    let shown = row.file.clone();
    let err = |why: String| {
        let mut r = ClaimReport::error(&shown, row.metric.as_str(), &row.bound, why);
        r.source = Some(row.source.clone());
        r
    };
    let expr = match ClaimExpr::parse(&row.bound) {
        Ok(e) => e,
        Err(e) => return err(format!("line {}: {e}", row.line)),
    };
    let mut ka = args.kernel.clone();
    ka.file = file;
    ka.kernel = row.kernel.clone();
    ka.metric = row.metric.as_str().to_string();
    ka.block = Some(format!(
        "{},{},{}",
        row.block[0], row.block[1], row.block[2]
    ));
    let loaded = match load(&ka, None) {
        Ok(l) => l,
        Err(e) => return err(format!("line {}: {}", row.line, e.text)),
    };
    let claim = Claim {
        text: row.bound.clone(),
        expr,
        metric: row.metric,
        relation: row.relation,
    };
    let out = args.out.as_ref().map(|d| {
        let stem = Path::new(&row.file)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        d.join(format!("line{}-{stem}.{}", row.line, row.metric))
    });
    match audit_one(args, &loaded, &claim, &shown, out) {
        Ok(mut r) => {
            r.source = Some(row.source.clone());
            r
        }
        Err(e) => err(format!("line {}: {e}", row.line)),
    }
}
