//! Output of `warpcert bench`: one row per kernel and metric, comparing the certified
//! per-warp bound with the published RaCUDA and Pico bounds, and its relation (`exact` or
//! `upper`, as `warpcert analyze` reports it) — a Markdown table (text) followed by the line
//! `exact cells: X of Y`, or one JSON object
//! `{format_version, rows: [{kernel, metric, bound, …, relation}], exact_cells, cells}`.

use super::error::FORMAT_VERSION;
use super::Format;
use crate::core::assertion::Poly;
use crate::core::MetricName;

/// The table's columns (the JSON keys of a row). `relation` is last, so the earlier columns
/// keep their positions.
pub const COLUMNS: [&str; 11] = [
    "kernel",
    "metric",
    "bound",
    "racuda",
    "vs_racuda",
    "pico",
    "vs_pico",
    "tightness",
    "analysis_ms",
    "check_ms",
    "relation",
];

/// The table's header and separator lines.
pub const TABLE_HEADER: &str = "| kernel | metric | warpcert bound (per warp) | RaCUDA bound | vs RaCUDA | Pico bound | vs Pico | bound / max simulated | analysis ms | check ms | relation |\n|---|---|---|---|---|---|---|---|---|---|---|\n";

/// One row's cells, in the order of [`COLUMNS`].
pub type Cells = [String; 11];

/// A table of `N` columns printed row by row as Markdown (text: rows appear as they are
/// computed) or collected and printed at the end as one JSON object
/// `{format_version, rows: [{COLUMN: cell, …}]}`. The bench table is `Table` (11 columns,
/// [`COLUMNS`]); `bench --precision` uses it with its own columns.
pub struct Table<const N: usize = 11> {
    columns: [&'static str; N],
    json: Option<Vec<serde_json::Value>>,
}

impl Table {
    /// The bench table in `format`; the text header is printed at once.
    pub fn new(format: Format) -> Table {
        Table::with_columns(format, TABLE_HEADER, COLUMNS)
    }

    /// Ends the bench table with its count of exact cells: text, the line
    /// `exact cells: X of Y` after the table ([`ExactCount::line`]); JSON, the keys
    /// `exact_cells` and `cells` beside `rows`.
    pub fn finish_counted(self, count: &ExactCount) {
        let extra = [
            ("exact_cells", count.exact.into()),
            ("cells", count.cells.into()),
        ];
        self.finish_with(&extra, Some(&count.line()));
    }
}

/// The count under the bench table: how many of its kernel × metric cells have the
/// relation `exact` (both the upper and the lower-bound certificate accepted by the
/// kernel). Cells without a bound count in `cells` (a kernel the front end rejects: one
/// cell per metric).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExactCount {
    /// Cells whose relation is `exact`.
    pub exact: usize,
    /// All kernel × metric cells.
    pub cells: usize,
}

impl ExactCount {
    /// `exact cells: X of Y`.
    pub fn line(&self) -> String {
        format!("exact cells: {} of {}", self.exact, self.cells)
    }
}

impl<const N: usize> Table<N> {
    /// A table with `columns` (the JSON keys) in `format`; the text `header` (Markdown
    /// header and separator lines) is printed at once.
    pub fn with_columns(format: Format, header: &str, columns: [&'static str; N]) -> Table<N> {
        let json = match format {
            Format::Json | Format::Jsonl => Some(Vec::new()),
            Format::Text => {
                print!("{header}");
                None
            }
        };
        Table { columns, json }
    }

    /// Adds (text: prints) one row, cells in the order of the columns.
    pub fn row(&mut self, cells: [String; N]) {
        match &mut self.json {
            Some(rows) => rows.push(serde_json::Value::Object(
                self.columns
                    .iter()
                    .zip(cells)
                    .map(|(k, v)| (k.to_string(), v.into()))
                    .collect(),
            )),
            None => println!("| {} |", cells.join(" | ")),
        }
    }

    /// Ends the table (JSON: prints the collected object).
    pub fn finish(self) {
        self.finish_with(&[], None);
    }

    /// Ends the table: JSON, the collected object with the keys `extra` beside `rows`;
    /// text, the line `text` (if any) after an empty line.
    fn finish_with(self, extra: &[(&str, serde_json::Value)], text: Option<&str>) {
        match self.json {
            Some(rows) => {
                let mut obj = serde_json::Map::new();
                obj.insert("format_version".into(), FORMAT_VERSION.into());
                obj.insert("rows".into(), rows.into());
                for (k, v) in extra {
                    obj.insert(k.to_string(), v.clone());
                }
                println!("{:#}", serde_json::Value::Object(obj));
            }
            None => {
                if let Some(t) = text {
                    println!("\n{t}");
                }
            }
        }
    }
}

/// A failure reason on one line, without table separators, cut at 140 characters.
pub fn short(e: &str) -> String {
    let one = e.replace(['|', '\n'], " ");
    if one.chars().count() > 140 {
        format!("{}…", one.chars().take(140).collect::<String>())
    } else {
        one
    }
}

/// The row of a kernel the front end rejected (`reason`: the first line of its error).
pub fn front_end_failure_row(stem: &str, reason: &str) -> Cells {
    let mut cells: Cells = Default::default();
    cells[0] = stem.to_string();
    cells[1] = "all".into();
    cells[2] = format!("front end: {}", short(reason));
    cells
}

/// One row with a bound.
pub struct BoundRow<'a> {
    /// The kernel's short name.
    pub stem: &'a str,
    /// The metric.
    pub metric: MetricName,
    /// The per-warp bound the analysis found.
    pub bound: &'a Poly,
    /// The bound as printed: its short normal form the kernel read back as the bound
    /// ([`super::printed::print_bound`]); `None` prints `bound` term by term.
    pub printed: Option<&'a str>,
    /// Whether the independent kernel accepted its certificate.
    pub accepted: bool,
    /// RaCUDA's published bound, as printed in the paper.
    pub racuda: &'a str,
    /// The comparison with RaCUDA's bound.
    pub vs_racuda: &'a str,
    /// Pico's published bound, if any.
    pub pico: Option<&'a str>,
    /// The comparison with Pico's bound, if any.
    pub vs_pico: Option<String>,
    /// Bound / largest simulated cost.
    pub tightness: &'a str,
    /// Median analysis time, milliseconds.
    pub analysis_ms: f64,
    /// Median kernel check time, milliseconds.
    pub check_ms: f64,
    /// The bound's relation as `warpcert analyze` reports it: `exact` or `upper`.
    pub relation: &'a str,
}

/// The row of a bound (`(REJECTED)` after a bound the kernel did not accept).
pub fn bound_row(r: &BoundRow<'_>) -> Cells {
    let text = r
        .printed
        .map_or_else(|| r.bound.to_bound_string(), str::to_string);
    let shown = if r.accepted {
        text
    } else {
        format!("{text} (REJECTED)")
    };
    [
        r.stem.to_string(),
        r.metric.to_string(),
        shown,
        r.racuda.to_string(),
        r.vs_racuda.to_string(),
        r.pico.unwrap_or("–").to_string(),
        r.vs_pico.clone().unwrap_or_else(|| "–".into()),
        r.tightness.to_string(),
        format!("{:.1}", r.analysis_ms),
        format!("{:.1}", r.check_ms),
        r.relation.to_string(),
    ]
}

/// The row of a metric without a bound.
pub fn no_bound_row(
    stem: &str,
    metric: MetricName,
    reason: &str,
    racuda: &str,
    pico: Option<&str>,
) -> Cells {
    let dash = || "–".to_string();
    [
        stem.to_string(),
        metric.to_string(),
        format!("no bound: {}", short(reason)),
        racuda.to_string(),
        dash(),
        pico.unwrap_or("–").to_string(),
        dash(),
        dash(),
        dash(),
        dash(),
        dash(),
    ]
}
