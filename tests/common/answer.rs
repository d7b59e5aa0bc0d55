//! `analyze`'s answer for one metric with both certificates read back (issue 14: an
//! `exact` answer carries an upper and a lower certificate), shared by the lower-bound
//! tests (`tests/lower_align.rs`, `tests/lower_ifdt.rs`, `tests/lower_stride.rs`,
//! `tests/lower_ifsplit.rs`).

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

/// The `metric` answer of `prog` at `launch` (default options): relation `exact` with
/// bound `want`, both certificates accepted by the kernel, the lower one for warp 0 (its
/// role `Lower(0)` and bound `want`). Returns the lower certificate. Panics naming `name`.
pub fn exact_both(
    name: &str,
    prog: &Program,
    launch: Launch,
    metric: MetricName,
    want: &str,
) -> String {
    let l = loaded(prog.clone(), launch, metric);
    let (rel, per_warp, upper, lower) = exact_answer(&l, metric, &AnalysisOptions::default(), name);
    assert_eq!((rel.as_str(), per_warp.as_str()), ("exact", want), "{name}");
    let u = warpcert_kernel::check(&upper).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(u.bound, want, "{name}");
    let v = warpcert_kernel::check(&lower).unwrap_or_else(|r| panic!("{name}: {r}"));
    assert_eq!(
        (v.role, v.bound.as_str()),
        (warpcert_kernel::Role::Lower(0), want),
        "{name}"
    );
    lower
}
