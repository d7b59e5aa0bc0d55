//! Per-access findings with certified counts (GPUDrano's questions answered with
//! certificates), block-size independence (Singhania 2019, Ch. 5) and cache-reuse advice
//! (Ch. 6). Normative description: `spec/audit.md`.
//!
//! * [`sites`]: the accesses and branches of a lowered kernel; probe programs isolating one
//!   access.
//! * [`certify`]: analysis → kernel check → the kernel's parse of the accepted text.
//! * [`branches`]: the uniform/divergent rule of each branch in a checked derivation.
//! * [`bsi`]: the block-size-independence analysis over the lowered program.
//! * [`reuse`]: loop-reusable accesses, working set and the recommended block size.
//! * [`source`]: the source expression at a location.
//!
//! Every count labelled *certified* comes from a certificate the kernel accepted; anything
//! else is labelled unchecked.

pub mod branches;
pub mod bsi;
pub mod certify;
pub mod plot;
pub mod reuse;
pub mod sites;
pub mod source;

use crate::core::{Hardware, Launch, MetricName, Program, Space};
use certify::{certify, eval, max_n, only_probe};
use serde::Serialize;
use sites::{probe_program, Probe, Site, SiteKind};
use std::collections::BTreeMap;

/// Options of an audit.
#[derive(Clone, Debug)]
pub struct AuditOptions {
    /// Largest degree of the potential templates.
    pub degree: u32,
    /// Integer parameter values at which shares are evaluated (missing: [`DEFAULT_AT`] for
    /// scalar parameters, 0 for `blockIdx.*`, 1 for `gridDim.*`).
    pub at: BTreeMap<String, i64>,
    /// Certify each access's total and execution count with probe programs (two analyses
    /// per access); without it only the per-execution counts of the probes are computed.
    pub totals: bool,
}

/// The value of a symbolic scalar parameter when shares are evaluated.
pub const DEFAULT_AT: i64 = 1024;

impl Default for AuditOptions {
    fn default() -> Self {
        AuditOptions {
            degree: 2,
            at: BTreeMap::new(),
            totals: true,
        }
    }
}

/// Severity of a finding (SARIF's `level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Costs more than the hardware minimum (may).
    Warning,
    /// At the minimum, or informational.
    Note,
}

/// One finding: an access or a branch with its certified cost.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    /// The finding kind (SARIF rule id): `uncoalesced` (more than `minimum + 1` sectors:
    /// range-based, GPUDrano's notion), `misaligned` (`minimum + 1`: what a contiguous but
    /// misaligned range costs), `coalesced`, `bank-conflict`,
    /// `conflict-free`, `divergent-branch`, `uniform-branch`, `unchecked`.
    pub rule: &'static str,
    /// `warning` or `note`.
    pub level: Level,
    /// Read, write, branch or loop.
    pub kind: SiteKind,
    /// 1-based line (0: synthesized by the lowering).
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The source expression at the location.
    pub expr: String,
    /// The lowered access or condition.
    pub lowered: String,
    /// The array (accesses).
    pub array: Option<String>,
    /// `sectors` (global), `conflicts` (shared) or `divwarps` (branches).
    pub metric: MetricName,
    /// Certified bound on the count of one execution by one warp: sectors (`MemReads`),
    /// serialized bank accesses (`Conflicts`; the metric charges this − 1) or divergences.
    pub per_execution: Option<u64>,
    /// The relation of the certified counts to the true ones (`<=`).
    pub relation: &'static str,
    /// The hardware minimum of one execution: `⌈lanes·elem_bytes / sector_bytes⌉` sectors
    /// (distinct elements; the certified count when it is lower, e.g. 1 for a warp-uniform
    /// index), 1 serialized access, 0 divergences.
    pub minimum: u64,
    /// How far the certified count may exceed the minimum (GPUDrano's count of extra
    /// transactions, in sectors or serialized accesses).
    pub excess: u64,
    /// Certified bound on the metric's cost of this site over one warp's run (polynomial).
    pub total: Option<String>,
    /// Certified bound on how often the site runs in one warp's run (polynomial).
    pub executions: Option<String>,
    /// `total` at the evaluation point, over the sum of the totals of the kernel's findings
    /// of the same metric (0..1).
    pub share: Option<f64>,
    /// Whether `per_execution` comes from a certificate the kernel accepted.
    pub certified: bool,
    /// The certificate behind the counts, or why there is none.
    pub certificate: String,
    /// Source lines of the enclosing loops, outermost first.
    pub loops: Vec<u32>,
    /// The site's preorder index ([`sites::sites`]).
    #[serde(skip)]
    pub site: usize,
}

/// One metric of the kernel: the whole-body certificate.
#[derive(Clone, Debug, Serialize)]
pub struct MetricSummary {
    /// The metric.
    pub metric: MetricName,
    /// The per-warp bound the kernel accepted (`None`: no certificate).
    pub bound: Option<String>,
    /// `<=`.
    pub relation: &'static str,
    /// The kernel's verdict, or the failure.
    pub verdict: String,
    /// The bound at the evaluation point.
    pub at_point: Option<f64>,
    /// The derivation as an outline (for the HTML report; not serialized).
    #[serde(skip)]
    pub outline: Option<Outline>,
}

/// A derivation node for display: rule, pre/post assertion texts, side conditions.
#[derive(Clone, Debug, Serialize)]
pub struct Outline {
    /// Rule name (`Q:SEQ`, `EQ:GARRAY` …).
    pub rule: String,
    /// The precondition's potential, or the expression cost.
    pub pre: String,
    /// The postcondition's potential.
    pub post: String,
    /// Side-condition fields: `n ≥ N*`, frame, entailment and rewrite names.
    pub side: Vec<String>,
    /// Children.
    pub children: Vec<Outline>,
}

/// The audit of one kernel.
#[derive(Clone, Debug, Serialize)]
pub struct KernelAudit {
    /// Kernel name.
    pub kernel: String,
    /// Block dimensions of the analysis.
    pub block: [u32; 3],
    /// Findings, by decreasing share (then location).
    pub findings: Vec<Finding>,
    /// Whole-kernel certificates per metric.
    pub metrics: Vec<MetricSummary>,
    /// The point at which shares are evaluated.
    pub at: BTreeMap<String, i64>,
    /// Block-size independence (Ch. 5), when decided.
    pub bsi: Option<bsi::Bsi>,
    /// Cache-reuse advice (Ch. 6).
    pub reuse: Option<reuse::Reuse>,
    /// The `sectors` bound against the simulated cost over a parameter (for the plot).
    pub series: Option<plot::Series>,
}

/// The evaluation point: `opts.at`, else defaults for every `int` parameter.
fn point(prog: &Program, opts: &AuditOptions) -> BTreeMap<String, i64> {
    prog.params
        .iter()
        .filter(|p| p.ty == crate::core::Ty::Int)
        .map(|p| {
            let d = if p.name.starts_with("blockIdx.") {
                0
            } else if p.name.starts_with("gridDim.") {
                1
            } else {
                DEFAULT_AT
            };
            (p.name.clone(), opts.at.get(&p.name).copied().unwrap_or(d))
        })
        .collect()
}

/// Active lanes of a full warp of the launch.
fn lanes(hw: &Hardware, launch: &Launch) -> u64 {
    u64::from(hw.warp_size).min(launch.block_threads().max(1))
}

/// The metric of an access to `space` (local arrays never reach here: they have no
/// finding, and would count as global).
fn metric_of(space: Space) -> MetricName {
    match space {
        Space::Global | Space::Local => MetricName::Sectors,
        Space::Shared => MetricName::Conflicts,
    }
}

/// Audits one kernel: a finding per access and branch of `prog` with certified counts,
/// the whole-kernel certificates of `sectors`, `conflicts` and `divwarps`, and cache-reuse
/// advice. `source` is the text of the kernel's file (for the expressions). BSI is decided
/// separately ([`bsi::decide`]) since it needs a second lowering.
pub fn audit_kernel(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    source: &str,
    opts: &AuditOptions,
) -> KernelAudit {
    crate::core::stack::with_big_stack(|| audit_inner(prog, hw, launch, source, opts))
}

fn audit_inner(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    source: &str,
    opts: &AuditOptions,
) -> KernelAudit {
    let at = point(prog, opts);
    let all = sites::sites(prog);
    let mut metrics = Vec::new();
    let mut branch_rules = None;
    let mut series = None;
    for m in [
        MetricName::Sectors,
        MetricName::Conflicts,
        MetricName::Divwarps,
    ] {
        match certify(prog, m, hw, launch, opts.degree) {
            Ok(a) => {
                if m == MetricName::Sectors {
                    series = plot::series(prog, hw, launch, m, &a.poly);
                }
                if m == MetricName::Divwarps {
                    branch_rules = Some(branches::branch_rules(&a.cert.root, &prog.body));
                }
                metrics.push(MetricSummary {
                    metric: m,
                    at_point: Some(eval(&a.poly, &at)),
                    bound: Some(a.bound.clone()),
                    relation: "<=",
                    verdict: format!("accepted by the kernel ({} nodes checked)", a.nodes),
                    outline: Some(outline(&a.cert.root)),
                })
            }
            Err(e) => metrics.push(MetricSummary {
                metric: m,
                bound: None,
                relation: "<=",
                verdict: e,
                at_point: None,
                outline: None,
            }),
        }
    }
    let mut findings: Vec<(Finding, Option<f64>)> = Vec::new();
    for s in &all {
        let f = match s.kind {
            // thread-local arrays cost no sectors and no conflicts (spec/metrics.md): no
            // finding
            SiteKind::Read | SiteKind::Write if s.space == Some(Space::Local) => continue,
            SiteKind::Read | SiteKind::Write => {
                access_finding(prog, hw, launch, s, source, opts, &at)
            }
            SiteKind::Branch | SiteKind::Loop => branch_finding(
                prog,
                hw,
                launch,
                s,
                source,
                opts,
                &at,
                branch_rules.as_ref(),
            ),
        };
        findings.push(f);
    }
    // shares per metric
    let mut sums: BTreeMap<String, f64> = BTreeMap::new();
    for (f, t) in &findings {
        *sums.entry(f.metric.to_string()).or_insert(0.0) += t.unwrap_or(0.0);
    }
    let mut out: Vec<Finding> = findings
        .into_iter()
        .map(|(mut f, t)| {
            let sum = sums.get(&f.metric.to_string()).copied().unwrap_or(0.0);
            // a zero polynomial may evaluate to -0.0: clamp so that no share prints as "-0.0%"
            f.share = t.map(|t| if sum > 0.0 && t > 0.0 { t / sum } else { 0.0 });
            f
        })
        .collect();
    out.sort_by(|a, b| {
        b.share
            .unwrap_or(-1.0)
            .total_cmp(&a.share.unwrap_or(-1.0))
            .then(a.level.cmp(&b.level))
            .then((a.line, a.column).cmp(&(b.line, b.column)))
    });
    let uncoalesced = out
        .iter()
        .filter(|f| f.rule == "uncoalesced")
        .map(|f| f.site)
        .collect();
    KernelAudit {
        kernel: prog.name.clone(),
        block: launch.block,
        reuse: Some(reuse::analyze(prog, &all, &uncoalesced, launch.block)),
        findings: out,
        metrics,
        at,
        bsi: None,
        series,
    }
}

fn base_finding(s: &Site, source: &str, metric: MetricName) -> Finding {
    // the lowered statement's location, moved to the access itself when the source has it
    let (loc, expr) = match &s.array {
        Some(a) => source::access_at(source, s.loc, a),
        None => (s.loc, source::expression_at(source, s.loc)),
    };
    Finding {
        rule: "unchecked",
        level: Level::Note,
        kind: s.kind,
        line: loc.line,
        column: loc.col,
        expr,
        lowered: s.lowered.clone(),
        array: s.array.clone(),
        metric,
        per_execution: None,
        relation: "<=",
        minimum: 0,
        excess: 0,
        total: None,
        executions: None,
        share: None,
        certified: false,
        certificate: String::new(),
        loops: s.loops.iter().map(|l| l.line).collect(),
        site: s.id,
    }
}

/// The certified executions bound of a site (probe with a constant index) and its value at
/// `at`.
fn executions(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    s: &Site,
    opts: &AuditOptions,
    at: &BTreeMap<String, i64>,
) -> Option<(String, f64)> {
    let mut g = s.clone();
    g.space = Some(Space::Global);
    g.array.as_ref()?;
    let p = probe_program(prog, &g, Probe::Constant)?;
    let a = certify(&p, MetricName::Sectors, hw, launch, opts.degree).ok()?;
    Some((a.bound, eval(&a.poly, at)))
}

fn access_finding(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    s: &Site,
    source: &str,
    opts: &AuditOptions,
    at: &BTreeMap<String, i64>,
) -> (Finding, Option<f64>) {
    // local sites never reach here (no finding); they would count as global
    let space = s.space.unwrap_or(Space::Global);
    let metric = metric_of(space);
    let mut f = base_finding(s, source, metric);
    f.minimum = match space {
        Space::Global | Space::Local => {
            let bytes = lanes(hw, launch) * u64::from(s.elem_bytes.max(1));
            bytes.div_ceil(u64::from(hw.sector_bytes.max(1))).max(1)
        }
        Space::Shared => 1,
    };
    let Some(p) = probe_program(prog, s, Probe::SameIndex) else {
        f.certificate = if s.in_loop_condition {
            "unchecked: an access in a loop condition is not probed".into()
        } else {
            "unchecked: no probe program for this access".into()
        };
        return (f, None);
    };
    let probe = p.arrays.last().map(|a| a.name.clone()).unwrap_or_default();
    let a = match certify(&p, metric, hw, launch, opts.degree) {
        Ok(a) => a,
        Err(e) => {
            f.certificate = format!("unchecked: no certificate for the probe ({e})");
            return (f, None);
        }
    };
    let rules: &[&str] = match space {
        Space::Global | Space::Local => &["EQ:GARRAY"],
        Space::Shared => &["EQ:SARRAY"],
    };
    if !only_probe(&a.cert, space, &probe) {
        f.certificate = "unchecked: the probe program has other accesses of the space".into();
        return (f, None);
    }
    let Some(n) = max_n(&a.cert.root, rules) else {
        f.certificate = format!(
            "certified unreachable: the probe certificate (bound {}) has no {} node",
            a.bound, rules[0]
        );
        f.rule = match space {
            Space::Global | Space::Local => "coalesced",
            Space::Shared => "conflict-free",
        };
        f.certified = true;
        f.per_execution = Some(0);
        f.minimum = 0;
        return (f, Some(0.0));
    };
    f.per_execution = Some(n);
    f.certified = true;
    // an access certified below the minimum for distinct elements (a warp-uniform index:
    // one element for all lanes) is at its own minimum
    f.minimum = f.minimum.min(n);
    f.excess = n.saturating_sub(f.minimum);
    // GPUDrano's (range-based) notion: more sectors than a contiguous range of the warp's
    // elements needs at any alignment (minimum + 1); one sector above the minimum is what
    // a contiguous but misaligned range costs
    let bad = match space {
        Space::Global | Space::Local => n > f.minimum + 1,
        Space::Shared => n > 1,
    };
    f.rule = match (space, bad) {
        (Space::Global | Space::Local, true) => "uncoalesced",
        (Space::Global | Space::Local, false) if n > f.minimum => "misaligned",
        (Space::Global | Space::Local, false) => "coalesced",
        (Space::Shared, true) => "bank-conflict",
        (Space::Shared, false) => "conflict-free",
    };
    f.level = if bad { Level::Warning } else { Level::Note };
    f.certificate = format!(
        "probe certificate accepted by the kernel ({} nodes): {} {} per warp",
        a.nodes, a.bound, metric
    );
    let mut total = None;
    if opts.totals {
        f.total = Some(a.bound.clone());
        total = Some(eval(&a.poly, at));
        if let Some((e, _)) = executions(prog, hw, launch, s, opts, at) {
            f.executions = Some(e);
        }
    }
    (f, total)
}

#[allow(clippy::too_many_arguments)]
fn branch_finding(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    s: &Site,
    source: &str,
    opts: &AuditOptions,
    at: &BTreeMap<String, i64>,
    rules: Option<&BTreeMap<crate::core::Loc, branches::BranchRule>>,
) -> (Finding, Option<f64>) {
    let mut f = base_finding(s, source, MetricName::Divwarps);
    let Some(rules) = rules else {
        f.certificate = "unchecked: no divwarps certificate for the kernel".into();
        return (f, None);
    };
    let Some(r) = rules.get(&s.loc) else {
        f.certificate =
            "certified unreachable: no node of the divwarps derivation is about it".into();
        f.rule = "uniform-branch";
        f.certified = true;
        f.per_execution = Some(0);
        return (f, Some(0.0));
    };
    f.certified = true;
    f.per_execution = Some(u64::from(r.divergent));
    f.excess = u64::from(r.divergent);
    f.rule = if r.divergent {
        "divergent-branch"
    } else {
        "uniform-branch"
    };
    f.level = if r.divergent {
        Level::Warning
    } else {
        Level::Note
    };
    f.certificate = format!(
        "divwarps certificate accepted by the kernel; rules {}",
        r.rules.join(", ")
    );
    let mut total = None;
    if opts.totals && r.divergent {
        if let Some((e, v)) = branch_executions(prog, hw, launch, s, opts, at) {
            f.executions = Some(e.clone());
            f.total = Some(e);
            total = Some(v);
        }
    } else if !r.divergent {
        f.total = Some("0".into());
        total = Some(0.0);
    }
    (f, total)
}

fn branch_executions(
    prog: &Program,
    hw: &Hardware,
    launch: &Launch,
    s: &Site,
    opts: &AuditOptions,
    at: &BTreeMap<String, i64>,
) -> Option<(String, f64)> {
    let p = sites::probe_branch(prog, s)?;
    let a = certify(&p, MetricName::Sectors, hw, launch, opts.degree).ok()?;
    Some((a.bound, eval(&a.poly, at)))
}

fn outline(root: &warpcert_kernel::syntax::Node) -> Outline {
    use warpcert_kernel::syntax::Node;
    fn go(n: &Node, depth: usize) -> Outline {
        let pot = |a: &Option<std::rc::Rc<warpcert_kernel::syntax::Assn>>| {
            a.as_ref().map(|a| format!("{}", a.q)).unwrap_or_default()
        };
        let mut side = Vec::new();
        if let Some(v) = &n.n {
            side.push(format!("n = {v} ≥ N* (checked by enumeration)"));
        }
        if let Some(c) = &n.frame {
            side.push(format!("frame {c}"));
        }
        for k in n.entails.keys() {
            side.push(format!("entail {k} (Farkas)"));
        }
        for k in n.rewrites.keys() {
            side.push(format!("rewrite {k}"));
        }
        Outline {
            rule: n.rule.to_string(),
            pre: match &n.cost {
                Some(c) => format!("cost {c}"),
                None => pot(&n.pre),
            },
            post: pot(&n.post),
            side,
            children: if depth > 200 {
                Vec::new()
            } else {
                n.children.iter().map(|c| go(c, depth + 1)).collect()
            },
        }
    }
    go(root, 0)
}
