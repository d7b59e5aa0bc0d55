//! Output of `warpcert bench --precision` (issue 15): per kernel of the precision suite and
//! metric, the certified per-warp bound, the truth (the largest simulated per-warp cost
//! over the case's points and inputs) and the ratio bound ÷ truth (worst point and median
//! over points) — a Markdown table (text) or one JSON object `{format_version, rows}`.

use super::Format;
use crate::core::assertion::Poly;
use crate::core::metric::Q;
use crate::core::MetricName;
use num_traits::{ToPrimitive, Zero};
use std::collections::BTreeMap;

/// The bound and the simulated maximum at one parameter point.
#[derive(Clone, Debug)]
pub struct PointRatio {
    /// The point (parameters, `G` = blocks simulated).
    pub at: BTreeMap<String, i64>,
    /// The bound's value there (`None`: no bound).
    pub bound: Option<Q>,
    /// The largest simulated per-warp cost there.
    pub truth: Q,
}

impl PointRatio {
    /// `bound ÷ truth`: 1 when both are 0, `∞` when only the truth is; `None` without a bound.
    pub fn ratio(&self) -> Option<f64> {
        let b = self.bound.as_ref()?;
        Some(if self.truth.is_zero() {
            if b.is_zero() {
                1.0
            } else {
                f64::INFINITY
            }
        } else {
            (b / &self.truth).to_f64().unwrap_or(f64::INFINITY)
        })
    }
    /// Whether the bound is at least the truth (vacuous without a bound).
    pub fn sound(&self) -> bool {
        self.bound.as_ref().is_none_or(|b| *b >= self.truth)
    }
}

/// One kernel × metric of the suite.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The case's name.
    pub kernel: String,
    /// The pattern it exercises.
    pub pattern: String,
    /// The metric.
    pub metric: MetricName,
    /// Whether this metric's truth was also derived by hand (the kernel file's comment).
    pub hand_derived: bool,
    /// The per-warp bound, if one was found.
    pub bound: Option<Poly>,
    /// Further certified bounds (Q:WHILEGUARDCAP / Q:WHILEEXITCAP / Q:WHILEEXITCAP2,
    /// spec/logic.md §4a), each certificate accepted by the kernel: the cell's answer is
    /// `min(bound, capped…)`.
    pub capped: Vec<Poly>,
    /// Whether the kernel accepted its certificate.
    pub accepted: bool,
    /// Why there is no bound.
    pub error: Option<String>,
    /// Bound and truth at every point.
    pub points: Vec<PointRatio>,
}

impl Cell {
    /// Whether the bound is at least the truth at every point (true without a bound).
    pub fn sound(&self) -> bool {
        self.points.iter().all(PointRatio::sound)
    }
    /// The worst ratio and its point.
    pub fn worst(&self) -> Option<(f64, &PointRatio)> {
        self.points
            .iter()
            .filter_map(|p| p.ratio().map(|r| (r, p)))
            .max_by(|a, b| a.0.total_cmp(&b.0))
    }
    /// The median ratio over the points.
    pub fn median(&self) -> Option<f64> {
        let mut rs: Vec<f64> = self.points.iter().filter_map(PointRatio::ratio).collect();
        if rs.is_empty() {
            return None;
        }
        rs.sort_by(|a, b| a.total_cmp(b));
        rs.get(rs.len() / 2).copied()
    }
    /// The largest simulated cost over the points.
    pub fn truth(&self) -> Q {
        self.points
            .iter()
            .map(|p| p.truth.clone())
            .max()
            .unwrap_or_else(Q::zero)
    }
}

/// The columns (JSON keys of a row).
pub const COLUMNS: [&str; 8] = [
    "kernel",
    "pattern",
    "metric",
    "bound",
    "truth",
    "worst_ratio",
    "at",
    "median_ratio",
];

const HEADER: &str = "| kernel | pattern | metric | warpcert bound (per warp) | truth (max simulated) | worst bound/truth | at | median |\n|---|---|---|---|---|---|---|---|\n";

fn show_ratio(r: f64) -> String {
    if r.is_infinite() {
        "∞".into()
    } else {
        format!("{r:.2}")
    }
}

fn show_q(x: &Q) -> String {
    if x.is_integer() {
        x.to_integer().to_string()
    } else {
        format!("{:.2}", x.to_f64().unwrap_or(f64::NAN))
    }
}

fn cells_of(c: &Cell) -> [String; 8] {
    let metric = if c.hand_derived {
        format!("{} (hand)", c.metric)
    } else {
        c.metric.to_string()
    };
    let bound = match (&c.bound, &c.error) {
        (Some(b), _) if c.accepted && c.capped.is_empty() => {
            super::printed::fold_text(&b.to_bound_string())
        }
        (Some(b), _) if c.accepted => {
            let ks: Vec<String> = c
                .capped
                .iter()
                .map(|k| super::printed::fold_text(&k.to_bound_string()))
                .collect();
            format!(
                "min({}, {})",
                super::printed::fold_text(&b.to_bound_string()),
                ks.join(", ")
            )
        }
        (Some(b), _) => format!("{} (REJECTED)", b.to_bound_string()),
        (None, e) => format!(
            "no bound: {}",
            super::bench::short(e.as_deref().unwrap_or(""))
        ),
    };
    let (worst, at) = match c.worst() {
        Some((r, p)) => {
            let kv: Vec<String> = p.at.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let unsound = if p.sound() { "" } else { " UNSOUND" };
            (
                format!("{}{unsound}", show_ratio(r)),
                format!(
                    "{} (bound {}, truth {})",
                    kv.join(" "),
                    p.bound.as_ref().map(show_q).unwrap_or_default(),
                    show_q(&p.truth)
                ),
            )
        }
        None => ("–".into(), "–".into()),
    };
    [
        c.kernel.clone(),
        c.pattern.clone(),
        metric,
        bound,
        show_q(&c.truth()),
        worst,
        at,
        c.median().map(show_ratio).unwrap_or_else(|| "–".into()),
    ]
}

/// The precision table, printed row by row (text) or collected (JSON): the bench's
/// [`super::bench::Table`] with this table's [`COLUMNS`].
pub struct Table(super::bench::Table<8>);

impl Table {
    /// A new table; the text header is printed at once.
    pub fn new(format: Format) -> Table {
        Table(super::bench::Table::with_columns(format, HEADER, COLUMNS))
    }

    /// Adds (text: prints) the row of one cell.
    pub fn row(&mut self, c: &Cell) {
        self.0.row(cells_of(c));
    }

    /// Adds the row of a case that could not be measured.
    pub fn failure(&mut self, kernel: &str, why: &str) {
        let mut cells: [String; 8] = Default::default();
        cells[0] = kernel.to_string();
        cells[2] = "all".into();
        cells[3] = format!("failed: {}", super::bench::short(why));
        self.0.row(cells);
    }

    /// Ends the table (JSON: prints the collected object).
    pub fn finish(self) {
        self.0.finish();
    }
}
