//! Warp shuffles and votes (spec/semantics.md §3 `SC:SHFL`/`SC:VOTE`, spec/logic.md §4
//! `Q:SHFL`/`Q:VOTE`, spec/lowering.md §9.5): the lock-step values and costs on hand-built
//! programs (expected values by hand from the PTX `shfl.sync` rules and spec/metrics.md),
//! the lowering of the intrinsics, and the shuffle reduction `examples/warp_reduce.cu`,
//! whose bounds are checked against the lock-step semantics' largest per-warp cost.

mod common;

use common::*;
use std::collections::BTreeMap;
use warpcert::core::{
    Const, Expr, Hardware, Launch, Metric, MetricName, Operand, ParamDecl, Program, ShflKind, Stmt,
    Ty, VoteKind, WarpOp,
};
use warpcert::semantics::run::run_kernel;
use warpcert::semantics::{Inputs, Params, Value};

fn tid() -> Operand {
    Operand::Tid(warpcert::core::Dim::X)
}

fn int(n: i64) -> Operand {
    Operand::Const(Const::Int(n))
}

fn var(x: &str) -> Operand {
    Operand::Var(x.into())
}

fn prog(locals: &[(&str, Ty)], body: Vec<Stmt>) -> Program {
    Program {
        name: "k".into(),
        params: Vec::<ParamDecl>::new(),
        arrays: Vec::new(),
        locals: locals.iter().map(|(x, t)| (x.to_string(), *t)).collect(),
        body: Stmt::seq(body),
    }
}

fn shfl(y: &str, kind: ShflKind, width: u32, v: Operand, l: Operand) -> Stmt {
    Stmt::Warp(
        y.into(),
        WarpOp::Shfl {
            kind,
            width,
            value: v,
            lane: l,
        },
        Default::default(),
    )
}

/// Runs warp 0 of block 0 (block `bx`) and returns `y` per lane and the steps cost.
fn run_y(p: &Program, bx: u32, y: &str) -> (Vec<Value>, i64) {
    let l = Launch {
        block: [bx, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let r = warpcert::semantics::run::run_warp(
        p,
        &[Metric::standard(MetricName::Steps)],
        &Hardware::default(),
        &l,
        [0, 0, 0],
        0,
        &Params::new(),
        &Inputs::zero(),
        &Default::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let steps = r.costs[0].to_integer().try_into().unwrap();
    let vals = r
        .locals
        .iter()
        .find(|(x, _)| x == y)
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    (vals, steps)
}

#[test]
fn shfl_down_reads_the_lane_above_or_keeps_its_own() {
    // x ← threadIdx.x; y ← shfl down 32 (x, 1): lane l gets l + 1, lane 31 keeps 31.
    // steps: x ← tid 2; shfl: var + const + op + vwrite = 4.
    let p = prog(
        &[("x", Ty::Int), ("y", Ty::Int)],
        vec![
            Stmt::Assign("x".into(), Expr::Opd(tid()), Default::default()),
            shfl("y", ShflKind::Down, 32, var("x"), int(1)),
        ],
    );
    let (y, steps) = run_y(&p, 32, "y");
    let want: Vec<Value> = (0..32).map(|l| Value::Int((l + 1).min(31))).collect();
    assert_eq!(y, want);
    assert_eq!(steps, 6);
}

#[test]
fn inactive_and_missing_lanes_give_the_own_value() {
    // block of 20 threads: lanes 20..31 do not exist. xor 16: lane l < 4 reads l + 16
    // (exists), 4 ≤ l < 16 reads l + 16 ≥ 20 (missing: own), l ≥ 16 reads l − 16.
    let p = prog(
        &[("x", Ty::Int), ("y", Ty::Int)],
        vec![
            Stmt::Assign("x".into(), Expr::Opd(tid()), Default::default()),
            shfl("y", ShflKind::Xor, 32, var("x"), int(16)),
        ],
    );
    let (y, _) = run_y(&p, 20, "y");
    let want: Vec<Value> = (0..20)
        .map(|l| {
            Value::Int(if l < 4 {
                l + 16
            } else if l < 16 {
                l
            } else {
                l - 16
            })
        })
        .collect();
    assert_eq!(y, want);
    // in a divergent branch (threadIdx.x < 8), idx 0 within segments of 16: lanes 0..7
    // read lane 0; lanes 8..31 do not run the shuffle (y stays 0).
    let c = Expr::Bin(warpcert::core::BinOp::Lt, tid(), int(8));
    let p = prog(
        &[("x", Ty::Int), ("y", Ty::Int), ("c", Ty::Bool)],
        vec![
            Stmt::Assign(
                "x".into(),
                Expr::Bin(warpcert::core::BinOp::Add, tid(), int(100)),
                Default::default(),
            ),
            Stmt::If(
                c,
                Box::new(shfl("y", ShflKind::Idx, 16, var("x"), int(0))),
                Box::new(Stmt::Skip),
                Default::default(),
            ),
        ],
    );
    let (y, _) = run_y(&p, 32, "y");
    let want: Vec<Value> = (0..32)
        .map(|l| Value::Int(if l < 8 { 100 } else { 0 }))
        .collect();
    assert_eq!(y, want);
}

#[test]
fn votes_over_the_active_lanes() {
    // even lanes: ballot 0x55555555; any 1; all 0; under `threadIdx.x < 8` with the
    // predicate true the ballot is 0xff (only the active lanes).
    let even = Expr::Bin(warpcert::core::BinOp::Eq, var("m"), int(0));
    let vote = |y: &str, kind| {
        Stmt::Warp(
            y.into(),
            WarpOp::Vote {
                kind,
                pred: var("e"),
            },
            Default::default(),
        )
    };
    let p = prog(
        &[
            ("m", Ty::Int),
            ("e", Ty::Bool),
            ("b", Ty::Int),
            ("a", Ty::Int),
            ("l", Ty::Int),
            ("s", Ty::Int),
        ],
        vec![
            Stmt::Assign(
                "m".into(),
                Expr::Bin(warpcert::core::BinOp::Rem, tid(), int(2)),
                Default::default(),
            ),
            Stmt::Assign("e".into(), even, Default::default()),
            vote("b", VoteKind::Ballot),
            vote("a", VoteKind::Any),
            vote("l", VoteKind::All),
            Stmt::If(
                Expr::Bin(warpcert::core::BinOp::Lt, tid(), int(8)),
                Box::new(Stmt::Warp(
                    "s".into(),
                    WarpOp::Vote {
                        kind: VoteKind::Ballot,
                        pred: Operand::Const(Const::Bool(true)),
                    },
                    Default::default(),
                )),
                Box::new(Stmt::Skip),
                Default::default(),
            ),
        ],
    );
    for (x, want) in [("b", 0x5555_5555), ("a", 1), ("l", 0)] {
        let (v, _) = run_y(&p, 32, x);
        assert!(v.iter().all(|v| *v == Value::Int(want)), "{x}: {v:?}");
    }
    let (s, _) = run_y(&p, 32, "s");
    assert_eq!(s[0], Value::Int(0xff));
    assert_eq!(s[8], Value::Int(0));
}

#[test]
fn intrinsics_lower_to_warp_statements() {
    let p = load(&root().join("examples/warp_reduce.cu"), 256);
    let text = p.body.to_string();
    assert!(text.contains("shfl_down<32>"), "{text}");
    assert!(text.contains("shfl_xor<8>"), "{text}");
    assert!(text.contains("vote_any("), "{text}");
}

/// The shuffle reduction's certificates are accepted for every metric, and each bound is
/// at least the largest per-warp cost the lock-step semantics measures over a range of `n`
/// (empty, one element, partial last warp, full grid, beyond it) and input contents (zero:
/// `__any_sync` false; random: true). The largest costs by hand (warp 0 of block 0):
/// sectors 5 (32 consecutive floats of `in` are 4 sectors, the write of `out` 1);
/// conflicts 0 (one lane writes `sums`, 8 lanes read 8 consecutive words); divwarps 4 at
/// `n = 1` (`i < n` splits, then `lane == 0`, `threadIdx.x < 8`, `threadIdx.x == 0`).
#[test]
fn warp_reduce_bounds_cover_the_semantics() {
    let p = load(&root().join("examples/warp_reduce.cu"), 256);
    let l = Launch {
        block: [256, 1, 1],
        grid: Some([16, 1, 1]),
    };
    let mut worst: BTreeMap<MetricName, num_rational::BigRational> = BTreeMap::new();
    for m in MetricName::ALL {
        let a = bound(&p, m, 256);
        warpcert_kernel::check(&a.certificate).unwrap_or_else(|r| panic!("{m}: {r}"));
        for n in [0, 1, 100, 4090, 4096, 100_000] {
            for input in [Inputs::zero(), Inputs::random(7)] {
                let params = Params::from([("n".to_string(), Value::Int(n))]);
                let r = run_kernel(&p, &[Metric::standard(m)], &hw(), &l, &params, &input)
                    .unwrap_or_else(|e| panic!("{e}"));
                let b = a.bound.eval(&BTreeMap::from([("n".to_string(), n)]));
                let got = r.metrics[0].max_per_warp.clone();
                assert!(got <= b, "{m} n={n}: semantics {got} > bound {b}");
                let w = worst.entry(m).or_insert(got.clone());
                if got > *w {
                    *w = got;
                }
            }
        }
    }
    for (m, w) in [
        (MetricName::Sectors, 5),
        (MetricName::Conflicts, 0),
        (MetricName::Divwarps, 4),
    ] {
        assert_eq!(
            worst[&m],
            num_rational::BigRational::from_integer(w.into()),
            "{m}"
        );
    }
}
