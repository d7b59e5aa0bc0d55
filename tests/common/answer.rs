//! `analyze`'s answer for one metric with both certificates read back (issue 14: an
//! `exact` answer carries an upper and a lower certificate), shared by the lower-bound
//! tests (`tests/lower_align.rs`, `tests/lower_ifdt.rs`).

use warpcert::analysis::AnalysisOptions;
use warpcert::cli::analyze::analyze_metric;
use warpcert::cli::options::Loaded;
use warpcert::core::ir::Program;
use warpcert::core::metric::MetricName;
use warpcert::core::{Hardware, Launch};
use warpcert::report::AnalyzeOutcome;

/// A loaded kernel for `analyze_metric`: `program` at `launch`, default hardware, `metric`.
pub fn loaded(program: Program, launch: Launch, metric: MetricName) -> Loaded {
    Loaded {
        program,
        launch,
        hw: Hardware::default(),
        metrics: vec![metric],
        warnings: vec![],
        block_source: "test",
    }
}

/// The `metric` answer of `l` under `opts`, its certificates written to a fresh temporary
/// directory named after `name`: (relation, per-warp bound, upper certificate text, lower
/// certificate text). Panics when there is no bound or no lower certificate (the
/// relation is then shown).
pub fn exact_answer(
    l: &Loaded,
    metric: MetricName,
    opts: &AnalysisOptions,
    name: &str,
) -> (String, String, String, String) {
    let tmp = std::env::temp_dir().join(format!("warpcert-answer-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let path = tmp.join(format!("{name}.cert"));
    let out = analyze_metric(l, metric, opts, Some(path.clone()), None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let AnalyzeOutcome::Bound(b) = out else {
        panic!("{name}: no bound")
    };
    let upper = std::fs::read_to_string(&path).unwrap();
    let lower =
        std::fs::read_to_string(tmp.join(format!("{name}.lower.cert"))).unwrap_or_else(|e| {
            panic!(
                "{name}: no lower certificate ({e}), relation {}",
                b.relation
            )
        });
    let _ = std::fs::remove_dir_all(&tmp);
    (b.relation.to_string(), b.per_warp, upper, lower)
}
