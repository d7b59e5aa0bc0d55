//! `warpcert audit --format sarif`: SARIF 2.1.0 (OASIS) with the types of the `serde-sarif`
//! crate. Rules are the finding kinds; each finding is a result with a physical location
//! (file, line, column), its certified count in the message and in `properties`.

use super::audit::{count_text, AuditRecord};
use crate::audit::{Finding, Level};
use serde_sarif::sarif;
use std::collections::BTreeMap;

/// The finding kinds (SARIF rules) with their descriptions.
pub const RULES: &[(&str, &str)] = &[
    ("uncoalesced", "A global access whose certified sectors per execution exceed the hardware minimum for the warp by more than the alignment slack of one sector (GPUDrano's range-based uncoalesced access)."),
    ("misaligned", "A global access whose certified sectors per execution are one above the minimum: what a contiguous but misaligned range of the warp's elements costs."),
    ("coalesced", "A global access whose certified sectors per execution are at the hardware minimum."),
    ("bank-conflict", "A shared access whose certified serialized bank accesses per execution exceed 1."),
    ("conflict-free", "A shared access certified free of bank conflicts."),
    ("divergent-branch", "A branch or loop the certificate treats as possibly divergent (one divergence per execution)."),
    ("uniform-branch", "A branch or loop the kernel certified warp-uniform."),
    ("unchecked", "An access without a certified count (no certificate for its probe)."),
    ("block-size-dependent", "A write whose index, value or path may depend on the block size (Singhania Ch. 5)."),
];

fn props(m: BTreeMap<String, serde_json::Value>) -> sarif::PropertyBag {
    sarif::PropertyBag::builder()
        .additional_properties(m)
        .build()
}

fn location(file: &str, line: u32, col: u32) -> sarif::Location {
    let art = sarif::ArtifactLocation::builder()
        .uri(file.to_string())
        .build();
    let phys = if line > 0 {
        let region = sarif::Region::builder()
            .start_line(i64::from(line))
            .start_column(i64::from(col.max(1)))
            .build();
        sarif::PhysicalLocation::builder()
            .artifact_location(art)
            .region(region)
            .build()
    } else {
        sarif::PhysicalLocation::builder()
            .artifact_location(art)
            .build()
    };
    sarif::Location::builder().physical_location(phys).build()
}

fn result(file: &str, kernel: &str, f: &Finding) -> sarif::Result {
    let level = match f.level {
        Level::Warning => sarif::ResultLevel::Warning,
        Level::Note => sarif::ResultLevel::Note,
    };
    let text = format!(
        "kernel {kernel}: {} `{}`: {}{}",
        f.rule,
        if f.expr.is_empty() {
            &f.lowered
        } else {
            &f.expr
        },
        count_text(f),
        if f.certified {
            " (certified by the kernel)"
        } else {
            " (unchecked)"
        }
    );
    let mut p = BTreeMap::new();
    let j = |v: &dyn erased::Ser| v.json();
    p.insert("kernel".into(), serde_json::json!(kernel));
    p.insert("metric".into(), serde_json::json!(f.metric.to_string()));
    p.insert("perExecution".into(), j(&f.per_execution));
    p.insert("relation".into(), serde_json::json!(f.relation));
    p.insert("minimum".into(), serde_json::json!(f.minimum));
    p.insert("excess".into(), serde_json::json!(f.excess));
    p.insert("total".into(), j(&f.total));
    p.insert("executions".into(), j(&f.executions));
    p.insert("share".into(), j(&f.share));
    p.insert("certified".into(), serde_json::json!(f.certified));
    p.insert("certificate".into(), serde_json::json!(f.certificate));
    sarif::Result::builder()
        .rule_id(f.rule.to_string())
        .level(level)
        .message(sarif::Message::builder().text(text).build())
        .locations(vec![location(file, f.line, f.column)])
        .properties(props(p))
        .build()
}

mod erased {
    /// Serializes an optional value to JSON (`null` when absent).
    pub trait Ser {
        fn json(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
        }
    }
}

/// The SARIF log of a batch of audits. Errors: the serializer's message.
pub fn sarif(records: &[AuditRecord]) -> Result<String, String> {
    let rules: Vec<sarif::ReportingDescriptor> = RULES
        .iter()
        .map(|(id, d)| {
            sarif::ReportingDescriptor::builder()
                .id(id.to_string())
                .short_description(
                    sarif::MultiformatMessageString::builder()
                        .text(d.to_string())
                        .build(),
                )
                .build()
        })
        .collect();
    let driver = sarif::ToolComponent::builder()
        .name("warpcert".to_string())
        .version(env!("CARGO_PKG_VERSION").to_string())
        .rules(rules)
        .build();
    let mut results = Vec::new();
    for r in records {
        let Some(a) = &r.audit else { continue };
        for f in &a.findings {
            results.push(result(&r.file, &a.kernel, f));
        }
        if let Some(crate::audit::bsi::Bsi::Dependent {
            line,
            column,
            reason,
            dim,
        }) = &a.bsi
        {
            let mut p = BTreeMap::new();
            p.insert("kernel".into(), serde_json::json!(a.kernel));
            p.insert("dimension".into(), serde_json::json!(dim.to_string()));
            results.push(
                sarif::Result::builder()
                    .rule_id("block-size-dependent".to_string())
                    .level(sarif::ResultLevel::Note)
                    .message(
                        sarif::Message::builder()
                            .text(format!("kernel {}: {reason}", a.kernel))
                            .build(),
                    )
                    .locations(vec![location(&r.file, *line, *column)])
                    .properties(props(p))
                    .build(),
            );
        }
    }
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .results(results)
        .build();
    let log = sarif::Sarif::builder()
        .schema(sarif::SCHEMA_URL.to_string())
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    serde_json::to_string_pretty(&log)
        .map(|s| s + "\n")
        .map_err(|e| e.to_string())
}
