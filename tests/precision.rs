//! The precision suite of issue 15 (`tests/precision/*.cu`, `warpcert bench --precision`):
//! every hand-derived worst per-warp cost (the comment at the top of each kernel file) is
//! the lock-step semantics' maximum at every tested point, and every certified bound is at
//! least the simulated maximum at every point (a bound below it is unsound).

use warpcert::cli::precision::{measure, suite};
use warpcert::core::metric::Q;
use warpcert::core::{Hardware, MetricName};

/// The hand derivations agree with the semantics, and no bound is below a simulated cost.
#[test]
fn hand_truths_match_the_semantics_and_every_bound_is_sound() {
    let hw = Hardware::default();
    let mut failures = Vec::new();
    for case in suite() {
        let m = measure(&case, &hw).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let i = MetricName::ALL
            .iter()
            .position(|&x| x == case.metric)
            .unwrap();
        for (pt, worst) in &m.sims {
            let hand = Q::from_integer((case.hand)(pt).into());
            if worst[i] != hand {
                failures.push(format!(
                    "{} {} at {pt:?}: hand {hand}, simulated {}",
                    case.name, case.metric, worst[i]
                ));
            }
        }
        for c in &m.cells {
            if c.bound.is_some() && !c.accepted {
                failures.push(format!("{} {}: certificate rejected", c.kernel, c.metric));
            }
            for p in &c.points {
                if !p.sound() {
                    failures.push(format!(
                        "{} {} UNSOUND at {:?}: bound {:?} < simulated {}",
                        c.kernel, c.metric, p.at, p.bound, p.truth
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The soundness check fails on an unsound bound: a cell whose bound is one less than the
/// simulated maximum at one point is reported (the check above can fail).
#[test]
fn a_bound_below_the_simulated_cost_is_unsound() {
    use warpcert::report::precision::PointRatio;
    let p = PointRatio {
        at: Default::default(),
        bound: Some(Q::from_integer(11.into())),
        truth: Q::from_integer(12.into()),
    };
    assert!(!p.sound());
    let ok = PointRatio {
        bound: Some(Q::from_integer(12.into())),
        ..p
    };
    assert!(ok.sound());
    assert_eq!(ok.ratio(), Some(1.0));
}

/// A concrete grid, up to the largest (`--grid 65535`: a grid-stride of 16 776 960), bounds
/// every metric of the grid-stride kernels with a certificate the kernel accepts, and that
/// bound is not above the symbolic grid's bound at the same grid from `n = 1000` on (issue 15
/// item 3: a concrete launch never bounds worse than a symbolic one; both are sound by RaCUDA
/// Theorem 1, the test above checks them against the semantics at `--grid 240`). Below one
/// round the two round the first round up differently: at `n = 0` the concrete sectors bound
/// of gridstride.cu at `--grid 240` is 61439/7680 ≈ 8.0, the symbolic one 255/32 ≈ 7.97.
#[test]
fn concrete_large_grids_bound_no_worse_than_a_symbolic_grid() {
    use std::collections::BTreeMap;
    use warpcert::analysis::{analyze, AnalysisOptions};
    use warpcert::core::{Launch, Metric};
    use warpcert::frontend;
    let hw = Hardware::default();
    let dir = warpcert::cli::precision::suite_dir();
    for (file, bx) in [("gridstride.cu", 256u32), ("gridstride_sum.cu", 128)] {
        let src = frontend::parse_file(&dir.join(file)).unwrap();
        let bound = |grid: Option<[u32; 3]>, m: MetricName| {
            let launch = Launch {
                block: [bx, 1, 1],
                grid,
            };
            let (prog, _) = frontend::lower(&src, None, &launch, &hw, &BTreeMap::new()).unwrap();
            let opts = AnalysisOptions::default();
            analyze(&prog, &Metric::standard(m), &hw, &launch, &opts)
                .unwrap_or_else(|e| panic!("{file} {m} grid {grid:?}: {e}"))
        };
        for g in [240u32, 1000, 65535] {
            let stride = i64::from(bx) * i64::from(g);
            for &m in MetricName::ALL.iter() {
                let sym = bound(None, m).bound;
                let conc = bound(Some([g, 1, 1]), m);
                if let Err(r) = warpcert_kernel::check(&conc.certificate) {
                    panic!("{file} {m} --grid {g}: certificate rejected: {r:?}");
                }
                for n in [1000, stride - 1, stride, stride + 1, 10 * stride + 33] {
                    let env = BTreeMap::from([
                        ("n".to_string(), n),
                        ("gridDim.x".to_string(), i64::from(g)),
                    ]);
                    let (c, s) = (conc.bound.eval(&env), sym.eval(&env));
                    assert!(
                        c <= s,
                        "{file} {m} --grid {g} n={n}: concrete {c} > symbolic {s}"
                    );
                }
            }
        }
    }
}

/// Warps that span rows (issue 15 item 2; spec/logic.md §1 "Row multipliers", §4
/// Q:GWRITEROWS / Q:VWRITEROWS): the certified sectors bound of rows16 and rows8 is, at every
/// tested row length `W`, the hand-derived per-warp cost of the kernel files (8, 10 or 12 for
/// rows16; 8, 12, 14 or 16 for rows8, by `W mod 8`) and the lock-step semantics' maximum
/// (`measure` runs every warp at every point), with every residue case among the points;
/// the bound is the residue form `8 + 2·[8 ∤ W] + 2·[4 ∤ W]` (rows16) and
/// `8 + 4·[8 ∤ W] + 2·[4 ∤ W] + 2·[2 ∤ W]` (rows8), which the kernel accepted. Before the
/// row rules it was the worst row alignment at every `W` (12 and 16).
#[test]
fn warps_spanning_rows_are_charged_per_row_alignment() {
    let hw = Hardware::default();
    for case in suite()
        .into_iter()
        .filter(|c| ["rows16", "rows8"].contains(&c.name) && c.metric == MetricName::Sectors)
    {
        let m = measure(&case, &hw).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let cell = m
            .cells
            .iter()
            .find(|c| c.metric == MetricName::Sectors)
            .unwrap();
        assert!(cell.accepted, "{}: certificate rejected", case.name);
        let want = if case.name == "rows16" {
            "8 + 2*[4 ∤ W] + 2*[8 ∤ W]"
        } else {
            "8 + 2*[2 ∤ W] + 2*[4 ∤ W] + 4*[8 ∤ W]"
        };
        assert_eq!(
            cell.bound.as_ref().unwrap().to_bound_string(),
            want,
            "{}",
            case.name
        );
        let mut classes = std::collections::BTreeSet::new();
        for p in &cell.points {
            let w = p.at["W"];
            classes.insert(w % 8);
            let hand = Q::from_integer((case.hand)(&p.at).into());
            assert_eq!(p.truth, hand, "{} semantics at W = {w}", case.name);
            assert_eq!(p.bound, Some(hand), "{} bound at W = {w}", case.name);
        }
        assert!(
            classes.is_superset(&[0, 1, 2, 4].into_iter().collect()),
            "{}: every residue case tested: {classes:?}",
            case.name
        );
    }
}

/// rows8's `steps` cell follows its `sectors` cell (before the row rules: 30 for a truth of
/// 22 at `W = 64`, the whole gap the per-row sector charge; now exact with it). Hand derivation from the core program (`analyze --dump-core`):
/// `t0 ← threadIdx.y * W` (`M^var + M^param + M^op + M^vwrite` = 4 steps),
/// `idx ← t0 + threadIdx.x` (4), `t1 ← in[idx]` (`M^var + M^gread(n1) + M^vwrite` = 2 + n1),
/// `out[idx] ← t1 + 1.0` (`M^var` for the index, 3 for `t1 + 1.0`, `M^gwrite(n2)`: 4 + n2),
/// with `M^gread(n) = M^gwrite(n) = n` under `steps` (spec/metrics.md): `14 + n1 + n2`, where
/// `n1 + n2` is the `sectors` cost. So the simulated `steps` maximum is 14 plus the
/// hand-derived `sectors` truth at every point (each residue class of `W` mod 8 is among the
/// points), and the certified `steps` bound is 14 plus the certified `sectors` bound: no rule
/// other than the access charge loses anything (the residue-dependent sector charge of
/// Q:GWRITEROWS / Q:VWRITEROWS makes both exact together).
#[test]
fn rows8_steps_gap_is_the_sector_charge() {
    let hw = Hardware::default();
    let case = suite()
        .into_iter()
        .find(|c| c.name == "rows8" && c.metric == MetricName::Sectors)
        .expect("rows8 in the suite");
    let m = measure(&case, &hw).unwrap_or_else(|e| panic!("rows8: {e}"));
    let steps = MetricName::ALL
        .iter()
        .position(|&x| x == MetricName::Steps)
        .unwrap();
    let mut classes = std::collections::BTreeSet::new();
    for (pt, worst) in &m.sims {
        classes.insert(pt["W"] % 8);
        let hand = Q::from_integer((14 + (case.hand)(pt)).into());
        assert_eq!(worst[steps], hand, "rows8 steps at {pt:?}");
    }
    assert!(
        classes.is_superset(&[0, 2, 4, 1].into_iter().collect()),
        "every residue case of the derivation is tested: {classes:?}"
    );
    let cell = |metric: MetricName| {
        let c = m.cells.iter().find(|c| c.metric == metric).unwrap();
        assert!(c.accepted, "rows8 {metric}: certificate rejected");
        c
    };
    let (sec, st) = (cell(MetricName::Sectors), cell(MetricName::Steps));
    for (ps, pt) in sec.points.iter().zip(&st.points) {
        assert_eq!(ps.at, pt.at);
        let (bs, bt) = (ps.bound.clone().unwrap(), pt.bound.clone().unwrap());
        assert_eq!(bt, bs + Q::from_integer(14.into()), "rows8 at {:?}", ps.at);
    }
}

/// Analyses `src` (one kernel, block `[32, 1, 1]`, symbolic grid) for `m`; the bound when
/// the kernel accepted its certificate, else the analysis's or the kernel's message.
fn bound_of(src: &str, m: MetricName) -> Result<warpcert::core::assertion::poly::Poly, String> {
    use std::collections::BTreeMap;
    use warpcert::analysis::{analyze, AnalysisOptions};
    use warpcert::core::{Launch, Metric};
    use warpcert::frontend;
    let hw = Hardware::default();
    let launch = Launch {
        block: [32, 1, 1],
        grid: None,
    };
    let parsed = frontend::parse_str("k.cu", src).map_err(|e| format!("{e:?}"))?;
    let (prog, _) = frontend::lower(&parsed, None, &launch, &hw, &BTreeMap::new())
        .map_err(|e| format!("{e:?}"))?;
    let a = analyze(
        &prog,
        &Metric::standard(m),
        &hw,
        &launch,
        &AnalysisOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    warpcert_kernel::check(&a.certificate).map_err(|r| format!("rejected: {r:?}"))?;
    Ok(a.bound)
}

/// Doubling loops (issue 15 item 2; spec/logic.md §1 "Quotient log atoms"): `i *= 2`,
/// `i <<= 1` and `i = i + i` under `i < n` have the invariant atom
/// `⌊log2 (2(n − 1)/i)⌋⁺` (the rounds left from `i ≥ 1`, Coq `Log.doubling_rounds`), which
/// `ldouble` at the body's entry (`2i ≤ 2(n − 1)`) splits into `1 + ⌊log2 (2(n − 1)/2i)⌋⁺`,
/// the invariant after `i ← 2i`. Hand derivation of the expected bound: each round writes
/// `out[threadIdx.x]`, 32 floats = 4 sectors, so the bound is 4 times the number of rounds
/// `r = #{j ≥ 0 : i₀·2^j < n}`, counted here by running the loop (at the entry the atom is
/// `⌊log2 ⌊2(n − 1)/i₀⌋⌋⁺`, which is `r`: `i₀·2^(r−1) ≤ n − 1 < i₀·2^r`). A doubling from
/// 0 never leaves the loop for `n > 0`: no ranking, no bound.
#[test]
fn doubling_loops_have_the_exact_log_bound() {
    use std::collections::BTreeMap;
    for (i0, update) in [
        (1i64, "i *= 2"),
        (3, "i *= 2"),
        (5, "i *= 2"),
        (1, "i <<= 1"),
        (2, "i = i + i"),
    ] {
        let src = format!(
            "__global__ void k(float *out, int n) {{\n  for (int i = {i0}; i < n; {update}) {{\n    out[threadIdx.x] = 1.0f;\n  }}\n}}\n"
        );
        let b = bound_of(&src, MetricName::Sectors)
            .unwrap_or_else(|e| panic!("i0 = {i0}, {update}: {e}"));
        for n in [-3i64, 0, 1, 2, 3, 4, 5, 7, 8, 9, 100, 4096, 4097, 5000] {
            let got = b.eval(&BTreeMap::from([("n".to_string(), n)]));
            let (mut i, mut rounds) = (i0, 0i64);
            while i < n {
                i *= 2;
                rounds += 1;
            }
            assert_eq!(
                got,
                Q::from_integer((4 * rounds).into()),
                "i0 = {i0}, {update}, n = {n}"
            );
        }
    }
    let from0 = "__global__ void k(float *out, int n) {\n  for (int i = 0; i < n; i *= 2) {\n    out[threadIdx.x] = 1.0f;\n  }\n}\n";
    let e = bound_of(from0, MetricName::Sectors).expect_err("a loop that never ends for n > 0");
    assert!(e.contains("no positive lower bound"), "{e}");
}

/// The certificate text of `src` for `m` (block `[32, 1, 1]`, symbolic grid), unchecked.
fn certificate_of(src: &str, m: MetricName) -> String {
    use std::collections::BTreeMap;
    use warpcert::analysis::{analyze, AnalysisOptions};
    use warpcert::core::{Launch, Metric};
    use warpcert::frontend;
    let hw = Hardware::default();
    let launch = Launch {
        block: [32, 1, 1],
        grid: None,
    };
    let parsed = frontend::parse_str("k.cu", src).expect("parses");
    let (prog, _) = frontend::lower(&parsed, None, &launch, &hw, &BTreeMap::new()).expect("lowers");
    analyze(
        &prog,
        &Metric::standard(m),
        &hw,
        &launch,
        &AnalysisOptions::default(),
    )
    .expect("analyses")
    .certificate
}

/// Halving loops (issue 15; Q:VWRITE1's bounding substitution, spec/logic.md §4
/// "Halving"): `s >>= c` and `s /= c` under the loop condition `s ≥ 1` give the new value a
/// place in `[0, s − 1]`, so the atom `max0(s)` drops by at least 1 per round. Hand
/// derivation of the expected bound: each round writes `out[threadIdx.x]` (32 floats, 4
/// sectors), the invariant `4·max0(s)` pays it, at the entry `s = n`: `4·max(0, n)`. The
/// truth `4·(⌊log_{2^c} n⌋ + 1)` for `n ≥ 1` (counted here) is below it. Halving by 2
/// (`s >>= 1`, `s /= 2`) has the log atom `⌊log2 2s⌋⁺` instead (spec/logic.md §1 "Log
/// atoms": the bounding substitution `s ← s/2` in it and `lhalve` pay one round), whose
/// value at the entry is the number of rounds itself: the bound is the counted truth
/// `4·(⌊log2 n⌋ + 1)` (0 for `n ≤ 0`).
#[test]
fn halving_loops_have_the_hand_derived_bounds() {
    use std::collections::BTreeMap;
    for (update, div) in [
        ("s >>= 1", 2i64),
        ("s >>= 3", 8),
        ("s /= 2", 2),
        ("s /= 10", 10),
    ] {
        let src = format!(
            "__global__ void k(float *out, int n) {{\n  for (int s = n; s > 0; {update}) {{\n    out[threadIdx.x] = 1.0f;\n  }}\n}}\n"
        );
        let b = bound_of(&src, MetricName::Sectors).unwrap_or_else(|e| panic!("{update}: {e}"));
        for n in [-3i64, 0, 1, 2, 3, 7, 8, 100, 5000] {
            let got = b.eval(&BTreeMap::from([("n".to_string(), n)]));
            let (mut s, mut rounds) = (n, 0i64);
            while s > 0 {
                s /= div;
                rounds += 1;
            }
            let want = if div == 2 { 4 * rounds } else { 4 * n.max(0) };
            assert_eq!(got, Q::from_integer(want.into()), "{update}, n = {n}");
        }
    }
}

/// Mutants of a halving certificate: the kernel accepts the bounding substitution only for
/// `>> c` with `1 ≤ c < 64` and `/ c` with `c ≥ 2` (a shift by 0, a left shift or a division
/// by 1 does not lower the counter), and only with a valid last witness for `P ⇒ s ≥ 1`.
#[test]
fn halving_certificate_mutants_are_rejected() {
    let src = "__global__ void k(float *out, int n) {\n  for (int s = n; s > 0; s >>= 1) {\n    out[threadIdx.x] = 1.0f;\n  }\n}\n";
    let cert = certificate_of(src, MetricName::Sectors);
    warpcert_kernel::check(&cert).expect("the original is accepted");
    let shr = "(bin >> (var s) (int 1))";
    assert!(cert.contains(shr), "{cert}");
    for bad in [
        "(bin >> (var s) (int 0))",
        "(bin << (var s) (int 1))",
        "(bin / (var s) (int 1))",
        "(bin >> (var s) (int 64))",
    ] {
        let m = cert.replace(shr, bad);
        assert!(warpcert_kernel::check(&m).is_err(), "{bad} accepted");
    }
    // the last witness of the halving node (P ⇒ s ≥ 1) replaced by the empty combination
    // (the Q:VWRITE1 node with a written `(entail post …)`: format 6 leaves out only the
    // default list, spec/certificate.md, and the halving node's has one witness more)
    let mut lines: Vec<String> = cert.lines().map(str::to_string).collect();
    let i = (0..lines.len())
        .find(|&i| lines[i].starts_with("(Q:VWRITE1") && lines[i].contains("(entail post"))
        .expect("the halving node");
    // the entail field, up to its closing parenthesis
    let line = lines[i].clone();
    let start = line.find("(entail post").expect("the list");
    let mut depth = 0;
    let end = start
        + line[start..]
            .char_indices()
            .find(|&(_, c)| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })
            .map(|(k, _)| k)
            .expect("a closed list");
    let field = &line[start..end];
    // the last item is `(farkas …)` or a run `(ids I J)` of identity witnesses (format 4,
    // spec/certificate.md): its last witness `J` becomes the empty combination
    let cut = field
        .rfind("(farkas")
        .into_iter()
        .chain(field.rfind("(ids "))
        .max()
        .expect("a last witness");
    let run: Option<(u64, u64)> = field[cut..].strip_prefix("(ids ").and_then(|r| {
        let mut it = r.split([' ', ')']);
        Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
    });
    let head = &line[..start + cut];
    lines[i] = match run {
        Some((a, b)) if a < b => format!("{head}(ids {a} {}) (farkas){}", b - 1, &line[end..]),
        _ => format!("{head}(farkas){}", &line[end..]),
    };
    assert!(warpcert_kernel::check(&lines.join("\n")).is_err());
}

/// A remainder by a constant in a loop (issue 15; spec/logic.md §2 "Wrapped entries" and
/// "Widths": `a % m` for an exact `m ≥ 1` lies in `[1 − m, m − 1]`). Hand derivation of the
/// expected bound: each round writes `s[(threadIdx.x + k) % m]` (floats, 32 banks of one
/// word). For `m = 8, 16` (`4m` not a multiple of 128) the window: `2m − 1` consecutive
/// words hold at most `⌈(2m − 1)/32⌉ = 1` address of one bank, 0 conflicts. For `m = 32, 64`
/// (`4m` a multiple of 128) the wrapped index is counted as its lane stride
/// `threadIdx.x + k`: 32 consecutive words, one per bank, 0 conflicts (before the wrapped
/// entry: the window's 1 and 3; before the window: 31, the index was `⊤`).
#[test]
fn remainder_loops_have_the_hand_derived_window_bound() {
    use std::collections::BTreeMap;
    for (m, per_round) in [(8i64, 0i64), (16, 0), (32, 0), (64, 0)] {
        let src = format!(
            "__global__ void k(float *out, int n) {{\n  __shared__ float s[128];\n  for (int k = 0; k < n; k++) {{\n    s[(threadIdx.x + k) % {m}] = (float)k;\n  }}\n  out[threadIdx.x] = s[threadIdx.x];\n}}\n"
        );
        let b = bound_of(&src, MetricName::Conflicts).unwrap_or_else(|e| panic!("% {m}: {e}"));
        for n in [-3i64, 0, 1, 2, 100] {
            let got = b.eval(&BTreeMap::from([("n".to_string(), n)]));
            assert_eq!(
                got,
                Q::from_integer((per_round * n.max(0)).into()),
                "% {m}, n = {n}"
            );
        }
    }
}

/// Grid-stride loops over a symbolic grid (issue 15; derive/loops.rs `floor_divisor`): the
/// step `blockDim.x·gridDim.x` is at least 32 (block `[32, 1, 1]`, launch fact
/// `gridDim.x ≥ 1`), so the floor atom `⌊(n − i + 31)/32⌋⁺` drops by one per round: its
/// `ishift` by 1, then `(imono ⌊(n − i − 1)/32⌋⁺ ⌊(n − i − 32·gridDim.x + 31)/32⌋⁺ …)` to the
/// atom the step leaves (spec/certificate.md "Integer rewrites"). Hand derivation of the
/// expected bound: a round writes `out[i]` on the lanes with `i < n`, at most 32 consecutive
/// floats from a multiple of 128 bytes: at most 4 sectors; the warp of block `b` starts at
/// `i = 32b + lane` and runs at most `⌈(n − 32b)/(32·gridDim.x)⌉ ≤ ⌈n/32⌉` rounds (lane 0
/// has the most). The store is a guarded access (Q:GWRITEGUARD, spec/logic.md §4 "Guarded
/// accesses"): sector `s < 4` of a round with base `X` is charged iff `X + 8s < n`, so the
/// per-warp bound is `Σ_{s<4} ⌊(n − 8s + 31)/32⌋⁺ = ⌈n/8⌉` for `n ≥ 0` (each `v = s + 4t`
/// with `8v < n` once: the sectors of `n` consecutive floats), 0 for `n ≤ 0` (before the
/// guarded charge: `4·⌈n/32⌉`; before floor atoms: the linear `(n + 31)/8`).
#[test]
fn symbolic_grid_stride_loops_have_the_floor_bound() {
    use std::collections::BTreeMap;
    let src = "__global__ void k(float *out, int n) {\n  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {\n    out[i] = 1.0f;\n  }\n}\n";
    let b = bound_of(src, MetricName::Sectors).unwrap_or_else(|e| panic!("{e}"));
    for n in [-3i64, 0, 1, 31, 32, 33, 64, 100, 1000] {
        for g in [1i64, 2, 7] {
            let env = BTreeMap::from([("n".to_string(), n), ("gridDim.x".to_string(), g)]);
            let sectors = if n <= 0 { 0 } else { (n + 7) / 8 };
            assert_eq!(
                b.eval(&env),
                Q::from_integer(sectors.into()),
                "n = {n}, gridDim.x = {g}"
            );
        }
    }
}
