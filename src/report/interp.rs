//! The table of `warpcert bench --interp` (issue 13, item 5): per semantics and
//! configuration, the simulated steps, CPU and wall seconds, steps per CPU second and the
//! number of worker threads the run could use.

use serde::Serialize;
use std::fmt::Write;

/// One measured configuration of an executable semantics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InterpRow {
    /// The semantics and its options (e.g. `lock-step (4 metrics)`).
    pub semantics: String,
    /// The kernel run.
    pub kernel: String,
    /// Threads of the launch.
    pub threads: u64,
    /// What a step is: `lane-steps` (lock-step: rule applications × active lanes) or
    /// `thread-steps` (interleaving: scheduler steps).
    pub unit: &'static str,
    /// Steps simulated, summed over the repeated runs.
    pub steps: u64,
    /// CPU seconds (user + system, every thread of the process) of the runs.
    pub cpu_s: f64,
    /// Wall-clock seconds of the runs.
    pub wall_s: f64,
    /// Worker threads the runs could use.
    pub cores: usize,
}

impl InterpRow {
    /// Steps per CPU second (0 when no CPU time was measured).
    pub fn per_cpu_s(&self) -> f64 {
        if self.cpu_s > 0.0 {
            self.steps as f64 / self.cpu_s
        } else {
            0.0
        }
    }
    /// Steps per wall-clock second.
    pub fn per_wall_s(&self) -> f64 {
        self.steps as f64 / self.wall_s.max(1e-9)
    }
}

/// The table as Markdown (text) or one JSON object `{"rows": [...]}` with the rows' fields
/// and the two rates.
pub fn render(rows: &[InterpRow], format: super::Format) -> String {
    let mut out = String::new();
    if format != super::Format::Text {
        let json: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("steps_per_cpu_s".into(), r.per_cpu_s().into());
                    o.insert("steps_per_wall_s".into(), r.per_wall_s().into());
                }
                v
            })
            .collect();
        let _ = writeln!(out, "{}", serde_json::json!({ "rows": json }));
        return out;
    }
    out.push_str(
        "| semantics | kernel | threads | steps | CPU s | steps / CPU s | wall s | steps / wall s | cores |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} {} | {:.2} | {:.3e} | {:.2} | {:.3e} | {} |",
            r.semantics,
            r.kernel,
            r.threads,
            r.steps,
            r.unit,
            r.cpu_s,
            r.per_cpu_s(),
            r.wall_s,
            r.per_wall_s(),
            r.cores
        );
    }
    out
}
