//! Text output of `warpcert run --semantics parallel|smallstep|interleaving|simt` and of
//! `warpcert derive` (issue 6), and `derive`'s JSON.

use super::bound;
use super::error::FORMAT_VERSION;
use crate::core::metric::Q;
use crate::core::{Metric, MetricName};
use crate::semantics::derivation::{render_threads, Derivation};
use std::fmt::Write;

/// `parallel`: one line per metric with the block's work `W`, span `S` and `W/P + S`.
pub fn parallel_text(
    kernel: &str,
    warps: u64,
    segments: usize,
    p: u64,
    rows: &[(MetricName, Q, Q, Q)],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "kernel {kernel}  block (0, 0, 0): {warps} warps, {segments} segments (RaCUDA §5 parallel semantics)"
    );
    for (m, w, s, t) in rows {
        let _ = writeln!(
            out,
            "{:<10} work W {:>12}   span S {:>12}   W/P + S (P = {p}) {:>12}",
            m.as_str(),
            w,
            s,
            t
        );
    }
    out
}

/// `run --trace` (lock-step): the cost of warp 0 of block 0 under each metric.
pub fn warp_costs_text(kernel: &str, metrics: &[Metric], costs: &[Q]) -> String {
    let costs: Vec<String> = metrics
        .iter()
        .zip(costs)
        .map(|(m, c)| format!("{}={c}", m.name))
        .collect();
    format!(
        "kernel {kernel}  warp 0 of block (0, 0, 0): {}\n",
        costs.join("  ")
    )
}

/// `derive`: the line above the derivation tree of warp `warp` (`nodes` nodes).
pub fn derivation_header(warp: u64, kernel: &str, nodes: usize) -> String {
    format!(
        "σ; body ⇓^𝒯 σ'; C   for warp {warp} of block (0, 0, 0) of `{kernel}` ({nodes} nodes; rule  T={{threads}}  cost  phrase)\n"
    )
}

/// Key/value lines (`name: value`), for the machines' summaries.
pub fn summary_text(title: &str, fields: &[(&str, String)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{title}");
    for (k, v) in fields {
        let _ = writeln!(out, "  {k:<22} {v}");
    }
    out
}

/// Trace lines, at most `max` of them (then a line saying how many were left out).
pub fn trace_text(lines: &[String], max: usize) -> String {
    let mut out = String::new();
    for l in lines.iter().take(max) {
        let _ = writeln!(out, "{l}");
    }
    if lines.len() > max {
        let _ = writeln!(out, "… {} more steps not shown", lines.len() - max);
    }
    out
}

/// The JSON form of a machine's summary (`run --semantics … --format json`): one object
/// with `format_version`, `semantics`, `title`, the summary's fields (keys as printed) and
/// the trace lines (at most `max`).
pub fn summary_json(
    semantics: &str,
    title: &str,
    fields: &[(&str, String)],
    trace: &[String],
    max: usize,
) -> String {
    let mut obj = serde_json::Map::new();
    obj.insert("format_version".into(), super::error::FORMAT_VERSION.into());
    obj.insert("semantics".into(), semantics.into());
    obj.insert("title".into(), title.into());
    let fields: serde_json::Map<String, serde_json::Value> = fields
        .iter()
        .map(|(k, v)| ((*k).to_string(), v.clone().into()))
        .collect();
    obj.insert("fields".into(), fields.into());
    let shown: Vec<serde_json::Value> = trace.iter().take(max).map(|l| l.clone().into()).collect();
    obj.insert("trace".into(), shown.into());
    obj.insert("trace_lines".into(), trace.len().into());
    serde_json::to_string_pretty(&serde_json::Value::Object(obj)).unwrap_or_default()
}

/// `derive --format json`: the derivation of warp `warp` of block 0 as JSON — the nodes in
/// preorder, each with its `depth` (0 for the root), rule, threads, cost per metric and
/// phrase, so that a deep derivation does not make a deeply nested document.
pub fn derivation_json(d: &Derivation, metrics: &[Metric], kernel: &str, warp: u64) -> String {
    let mut nodes = Vec::new();
    let mut stack = vec![(d, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        let cost: serde_json::Map<String, serde_json::Value> = metrics
            .iter()
            .zip(&n.cost)
            .map(|(m, c)| (m.name.to_string(), bound::rational(c).into()))
            .collect();
        nodes.push(serde_json::json!({
            "depth": depth,
            "rule": n.rule,
            "threads": render_threads(&n.threads),
            "cost": cost,
            "phrase": n.phrase,
        }));
        stack.extend(n.children.iter().rev().map(|c| (c, depth + 1)));
    }
    let obj = serde_json::json!({
        "format_version": FORMAT_VERSION,
        "kernel": kernel,
        "block": [0, 0, 0],
        "warp": warp,
        "nodes": nodes,
    });
    serde_json::to_string_pretty(&obj).unwrap_or_default()
}
