//! Differential test of the two front ends (issue 12, item 5): every corpus kernel that both
//! the builtin front end and the clang front end read and lower must give the same
//! miniCUDA program up to renaming, or else the same bound for every metric and the same
//! lock-step costs on random inputs. Skips, saying so, when clang or `../shared` is absent.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use warpcert::analysis::{analyze, AnalysisOptions};
use warpcert::core::{
    Expr, Hardware, Launch, Metric, MetricName, Operand, Program, Stmt, Ty, WarpOp,
};
use warpcert::frontend::{self, clang};
use warpcert::semantics::run::{run_kernel, Params};
use warpcert::semantics::store::Inputs;
use warpcert::semantics::value::Value;

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/corpus");
    if !shared.is_dir() {
        return None;
    }
    let mut out = Vec::new();
    for d in ["gpuverify-testsuite", "cuda-samples-subset", "racuda"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(shared.join(d))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("cu") | Some("cuh")
                )
            })
            .collect();
        v.sort();
        out.extend(v);
    }
    let mut ex: Vec<PathBuf> = std::fs::read_dir(root.join("examples"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("cu"))
        .collect();
    ex.sort();
    out.extend(ex);
    Some(out)
}

/// The program with locals, parameters and arrays renamed by order of declaration.
fn canonical(p: &Program) -> Program {
    let mut m: HashMap<String, String> = HashMap::new();
    for (k, (n, _)) in p.locals.iter().enumerate() {
        m.insert(n.clone(), format!("v{k}"));
    }
    for (k, a) in p.arrays.iter().enumerate() {
        m.insert(a.name.clone(), format!("A{k}"));
    }
    for (k, a) in p.params.iter().enumerate() {
        if !a.name.contains('.') {
            m.insert(a.name.clone(), format!("p{k}"));
        }
    }
    let r = |n: &str| m.get(n).cloned().unwrap_or_else(|| n.to_string());
    let opd = |o: &Operand| match o {
        Operand::Var(x) => Operand::Var(r(x)),
        Operand::Param(x) => Operand::Param(r(x)),
        o => o.clone(),
    };
    let expr = |e: &Expr| match e {
        Expr::Opd(o) => Expr::Opd(opd(o)),
        Expr::Bin(b, x, y) => Expr::Bin(*b, opd(x), opd(y)),
        Expr::Un(u, x) => Expr::Un(*u, opd(x)),
        Expr::Read(a, x) => Expr::Read(r(a), opd(x)),
    };
    fn walk(
        s: &Stmt,
        r: &dyn Fn(&str) -> String,
        opd: &dyn Fn(&Operand) -> Operand,
        expr: &dyn Fn(&Expr) -> Expr,
    ) -> Stmt {
        use warpcert::core::Loc;
        let z = Loc::default();
        match s {
            Stmt::Skip => Stmt::Skip,
            Stmt::Sync(_) => Stmt::Sync(z),
            Stmt::Seq(a, b) => Stmt::Seq(
                Box::new(walk(a, r, opd, expr)),
                Box::new(walk(b, r, opd, expr)),
            ),
            Stmt::Assign(x, e, _) => Stmt::Assign(r(x), expr(e), z),
            Stmt::Write(a, o, e, _) => Stmt::Write(r(a), opd(o), expr(e), z),
            Stmt::If(e, a, b, _) => Stmt::If(
                expr(e),
                Box::new(walk(a, r, opd, expr)),
                Box::new(walk(b, r, opd, expr)),
                z,
            ),
            Stmt::While(e, b, _) => Stmt::While(expr(e), Box::new(walk(b, r, opd, expr)), z),
            Stmt::Warp(x, op, _) => {
                let op = match op {
                    WarpOp::Shfl {
                        kind,
                        width,
                        value,
                        lane,
                    } => WarpOp::Shfl {
                        kind: *kind,
                        width: *width,
                        value: opd(value),
                        lane: opd(lane),
                    },
                    WarpOp::Vote { kind, pred } => WarpOp::Vote {
                        kind: *kind,
                        pred: opd(pred),
                    },
                };
                Stmt::Warp(r(x), op, z)
            }
        }
    }
    let mut q = p.clone();
    q.name = String::new();
    q.body = walk(&p.body, &r, &opd, &expr);
    q.locals = p.locals.iter().map(|(n, t)| (r(n), *t)).collect();
    for a in &mut q.arrays {
        a.name = r(&a.name);
    }
    for a in &mut q.params {
        a.name = r(&a.name);
    }
    q
}

fn params_of(p: &Program) -> Params {
    let mut out = Params::new();
    for d in &p.params {
        if d.name.contains('.') {
            continue;
        }
        let v = match d.ty {
            Ty::Int => Value::Int(37),
            Ty::Float => Value::Float(0.5),
            Ty::Bool => Value::Bool(true),
        };
        out.insert(d.name.clone(), v);
    }
    out
}

fn bounds(p: &Program, l: &Launch) -> Vec<Result<String, String>> {
    MetricName::ALL
        .iter()
        .map(|&m| {
            analyze(
                p,
                &Metric::standard(m),
                &Hardware::default(),
                l,
                &AnalysisOptions {
                    degree: 2,
                    floor: true,
                    align: false,
                },
            )
            .map(|a| a.bound.to_bound_string())
            .map_err(|e| e.to_string())
        })
        .collect()
}

fn costs(p: &Program, l: &Launch, seed: u64) -> Option<Vec<String>> {
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let run = run_kernel(
        p,
        &metrics,
        &Hardware::default(),
        l,
        &params_of(p),
        &Inputs::random(seed),
    )
    .ok()?;
    Some(
        run.metrics
            .iter()
            .map(|m| format!("{} {}", m.max_per_warp, m.total))
            .collect(),
    )
}

fn block_of(path: &Path) -> [u32; 3] {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut sm = frontend::SourceMap::default();
    let f = sm.add(&path.display().to_string(), text);
    frontend::header::parse_header(&sm, f)
        .ok()
        .and_then(|h| h.block)
        .unwrap_or([32, 1, 1])
}

#[test]
fn both_front_ends_agree() {
    if !clang::available() {
        eprintln!("both_front_ends_agree: skipped, clang is not installed");
        return;
    }
    let Some(files) = corpus_files() else {
        eprintln!("both_front_ends_agree: skipped, ../shared/corpus is absent");
        return;
    };
    let hw = Hardware::default();
    let (mut same_program, mut same_bounds, mut compared) = (0, 0, 0);
    let mut mismatches = Vec::new();
    for f in &files {
        let Ok(bp) = frontend::parse_file(f) else {
            continue;
        };
        let Ok(cp) = clang::parse_file(f, &clang::ClangOptions::default(), None) else {
            continue;
        };
        let block = block_of(f);
        let sym = Launch { block, grid: None };
        let conc = Launch {
            block,
            grid: Some([2, 1, 1]),
        };
        for k in &bp.kernels {
            let Some(inst) = cp.instances.iter().find(|i| i.display == *k) else {
                continue;
            };
            let Ok((b, _)) = frontend::lower(&bp, Some(k), &sym, &hw, &BTreeMap::new()) else {
                continue;
            };
            let Ok((c, _)) = clang::lower(&cp, inst, &sym, &hw, &BTreeMap::new()) else {
                continue;
            };
            compared += 1;
            if canonical(&b) == canonical(&c) {
                same_program += 1;
                continue;
            }
            // the lowerings differ: bounds and lock-step costs must not
            let name = format!("{}:{k}", f.display());
            if bounds(&b, &sym) != bounds(&c, &sym) {
                mismatches.push(format!(
                    "{name}: bounds differ\n  builtin {:?}\n  clang   {:?}",
                    bounds(&b, &sym),
                    bounds(&c, &sym)
                ));
                continue;
            }
            let (Ok((bc, _)), Ok((cc, _))) = (
                frontend::lower(&bp, Some(k), &conc, &hw, &BTreeMap::new()),
                clang::lower(&cp, inst, &conc, &hw, &BTreeMap::new()),
            ) else {
                mismatches.push(format!(
                    "{name}: lowers for a symbolic grid only in one front end"
                ));
                continue;
            };
            for seed in [1, 2, 3] {
                if costs(&bc, &conc, seed) != costs(&cc, &conc, seed) {
                    mismatches.push(format!("{name}: lock-step costs differ (seed {seed})"));
                }
            }
            same_bounds += 1;
        }
    }
    eprintln!("both_front_ends_agree: {compared} kernels read by both: {same_program} same program up to renaming, {same_bounds} different programs with the same bounds and costs");
    assert!(compared > 0, "no kernel is read by both front ends");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
