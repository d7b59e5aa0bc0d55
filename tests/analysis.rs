//! End-to-end tests of the inference (`warpcert::analysis::analyze`) on hand-lowered
//! three-address versions of RaCUDA's benchmark kernels (`addSub0..3`, `vectorAdd`).
//!
//! Expected bounds are derived by hand in the comments (and compared with RaCUDA's
//! published per-warp bounds, which ours must not exceed); none is copied from the output.

use std::collections::BTreeMap;
use warpcert::analysis::{analyze, Analysis, AnalysisOptions};
use warpcert::core::metric::{q, Q};
use warpcert::core::*;

// ------------------------------------------------------------------ builders

fn v(x: &str) -> Operand {
    Operand::Var(x.into())
}
fn p(x: &str) -> Operand {
    Operand::Param(x.into())
}
fn c(n: i64) -> Operand {
    Operand::Const(Const::Int(n))
}
fn tid() -> Operand {
    Operand::Tid(Dim::X)
}
fn opd(o: Operand) -> Expr {
    Expr::Opd(o)
}
fn bin(op: BinOp, a: Operand, b: Operand) -> Expr {
    Expr::Bin(op, a, b)
}
fn rd(a: &str, o: Operand) -> Expr {
    Expr::Read(a.into(), o)
}
fn asg(x: &str, e: Expr) -> Stmt {
    Stmt::Assign(x.into(), e, Loc::default())
}
fn wr(a: &str, o: Operand, e: Expr) -> Stmt {
    Stmt::Write(a.into(), o, e, Loc::default())
}
fn wh(e: Expr, body: Vec<Stmt>) -> Stmt {
    Stmt::While(e, Box::new(Stmt::seq(body)), Loc { line: 2, col: 3 })
}
fn ite(e: Expr, a: Vec<Stmt>, b: Vec<Stmt>) -> Stmt {
    Stmt::If(
        e,
        Box::new(Stmt::seq(a)),
        Box::new(Stmt::seq(b)),
        Loc::default(),
    )
}
fn garr(name: &str, elem: Ty) -> ArrayDecl {
    ArrayDecl {
        name: name.into(),
        space: Space::Global,
        elem,
        elem_bytes: 4,
        len: None,
    }
}
fn iparams(names: &[&str]) -> Vec<ParamDecl> {
    names
        .iter()
        .map(|n| ParamDecl {
            name: n.to_string(),
            ty: Ty::Int,
        })
        .collect()
}
fn ilocals(names: &[&str]) -> Vec<(String, Ty)> {
    names.iter().map(|n| (n.to_string(), Ty::Int)).collect()
}

fn launch(bx: u32) -> Launch {
    Launch {
        block: [bx, 1, 1],
        grid: None,
    }
}

fn run(prog: &Program, m: MetricName, bx: u32) -> Analysis {
    run_form(prog, m, bx, true)
}

/// As [`run`]; `floor = false` is the polynomial form (`--form polynomial`, RaCUDA's).
fn run_form(prog: &Program, m: MetricName, bx: u32, floor: bool) -> Analysis {
    let a = analyze(
        prog,
        &Metric::standard(m),
        &Hardware::default(),
        &launch(bx),
        &AnalysisOptions {
            degree: 2,
            floor,
            align: false,
        },
    );
    let a = match a {
        Ok(a) => a,
        Err(e) => panic!("{} / {m}: {e}", prog.name),
    };
    // every certificate must be accepted by the independent checker, which prints the
    // same bound from its own parse
    match warpcert_kernel::check(&a.certificate) {
        Ok(v) => assert_eq!(v.bound, a.bound.to_bound_string(), "{} / {m}", prog.name),
        Err(r) => panic!(
            "{} / {m}: kernel rejected the certificate: {r:?}",
            prog.name
        ),
    }
    a
}

fn env(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|(k, x)| (k.to_string(), *x)).collect()
}

// ------------------------------------------------------------------ kernels

/// `vectorAdd` (CUDA SDK): `i = blockDim.x*blockIdx.x + threadIdx.x; if (i < n) C[i] = A[i] + B[i]`,
/// block 256 (blockDim.x = 256 is a constant of the launch).
fn vector_add() -> Program {
    Program {
        name: "vectorAdd".into(),
        params: iparams(&["numElements", "blockIdx.x"]),
        arrays: vec![
            garr("A", Ty::Float),
            garr("B", Ty::Float),
            garr("C", Ty::Float),
        ],
        locals: vec![
            ("t0".into(), Ty::Int),
            ("i".into(), Ty::Int),
            ("a".into(), Ty::Float),
            ("b".into(), Ty::Float),
            ("s".into(), Ty::Float),
        ],
        body: Stmt::seq(vec![
            asg("t0", bin(BinOp::Mul, p("blockIdx.x"), c(256))),
            asg("i", bin(BinOp::Add, v("t0"), tid())),
            ite(
                bin(BinOp::Lt, v("i"), p("numElements")),
                vec![
                    asg("a", rd("A", v("i"))),
                    asg("b", rd("B", v("i"))),
                    asg("s", bin(BinOp::Add, v("a"), v("b"))),
                    wr("C", v("i"), opd(v("s"))),
                ],
                vec![Stmt::Skip],
            ),
        ]),
    }
}

/// One `B[k] op= X[i]` in three-address form: `k ← t0 + i; a ← B[k]; b ← X[i]; c ← a op b; B[k] ← c`.
fn update(op: BinOp, src: &str) -> Vec<Stmt> {
    vec![
        asg("k", bin(BinOp::Add, v("t0"), v("i"))),
        asg("a", rd("B", v("k"))),
        asg("b", rd(src, v("i"))),
        asg("c", bin(op, v("a"), v("b"))),
        wr("B", v("k"), opd(v("c"))),
    ]
}

/// addSub2/addSub3 loop: `for (j = 0; j < h; j += 2) { B[j*w+i] += X[i]; B[(j+1)*w+i] -= X[i]; }`.
fn addsub_loop(src: &str) -> Stmt {
    let mut body = vec![asg("t0", bin(BinOp::Mul, v("j"), p("w")))];
    body.extend(update(BinOp::Add, src));
    body.push(asg("t1", bin(BinOp::Add, v("j"), c(1))));
    body.push(asg("t0", bin(BinOp::Mul, v("t1"), p("w"))));
    body.extend(update(BinOp::Sub, src));
    body.push(asg("j", bin(BinOp::Add, v("j"), c(2))));
    wh(bin(BinOp::Lt, v("j"), p("h")), body)
}

fn addsub_prog(name: &str, shared: bool) -> Program {
    let mut arrays = vec![garr("A", Ty::Int), garr("B", Ty::Int)];
    let mut body = vec![
        asg("t0", bin(BinOp::Mul, p("blockIdx.x"), c(1024))),
        asg("i", bin(BinOp::Add, v("t0"), tid())),
    ];
    if shared {
        arrays.push(ArrayDecl {
            name: "As".into(),
            space: Space::Shared,
            elem: Ty::Int,
            elem_bytes: 4,
            len: Some(1024),
        });
        body.push(wr("As", tid(), rd("A", v("i"))));
    }
    body.push(asg("j", opd(c(0))));
    body.push(addsub_loop(if shared { "As" } else { "A" }));
    Program {
        name: name.into(),
        params: iparams(&["w", "h", "blockIdx.x"]),
        arrays,
        locals: ilocals(&["t0", "t1", "i", "j", "k", "a", "b", "c"]),
        body: Stmt::seq(body),
    }
}

/// addSub0: `for (i = 0; i < w; i++) { j = blockIdx.x*blockDim.x + threadIdx.x;
/// if (j % 2 == 0) B[j*w+i] += A[i]; else B[j*w+i] -= A[i]; }`.
fn addsub0() -> Program {
    let branch = |op| {
        let mut s = vec![asg("t0", bin(BinOp::Mul, v("j"), p("w")))];
        s.extend(update(op, "A"));
        s
    };
    let body = vec![
        asg("t1", bin(BinOp::Mul, p("blockIdx.x"), c(1024))),
        asg("j", bin(BinOp::Add, v("t1"), tid())),
        asg("r", bin(BinOp::Rem, v("j"), c(2))),
        ite(
            bin(BinOp::Eq, v("r"), c(0)),
            branch(BinOp::Add),
            branch(BinOp::Sub),
        ),
        asg("i", bin(BinOp::Add, v("i"), c(1))),
    ];
    Program {
        name: "addSub0".into(),
        params: iparams(&["w", "h", "blockIdx.x"]),
        arrays: vec![garr("A", Ty::Int), garr("B", Ty::Int)],
        locals: ilocals(&["t0", "t1", "i", "j", "k", "r", "a", "b", "c"]),
        body: Stmt::seq(vec![
            asg("i", opd(c(0))),
            wh(bin(BinOp::Lt, v("i"), p("w")), body),
        ]),
    }
}

/// Nested loops `for (i = 0; i < n; i++) for (j = 0; j < m; j++) x = A[j];` (degree 2).
fn nested() -> Program {
    Program {
        name: "nested".into(),
        params: iparams(&["n", "m"]),
        arrays: vec![garr("A", Ty::Int)],
        locals: ilocals(&["i", "j", "x"]),
        body: Stmt::seq(vec![
            asg("i", opd(c(0))),
            wh(
                bin(BinOp::Lt, v("i"), p("n")),
                vec![
                    asg("j", opd(c(0))),
                    wh(
                        bin(BinOp::Lt, v("j"), p("m")),
                        vec![
                            asg("x", rd("A", v("j"))),
                            asg("j", bin(BinOp::Add, v("j"), c(1))),
                        ],
                    ),
                    asg("i", bin(BinOp::Add, v("i"), c(1))),
                ],
            ),
        ]),
    }
}

// ------------------------------------------------------------------ tests

/// vectorAdd, sectors: A[i], B[i], C[i] with i = threadIdx.x + 256·blockIdx.x are aligned
/// (the constant part is a multiple of 256 elements = 1024 bytes), so each access of a
/// 32-lane warp touches 128 bytes = 4 sectors: 3·4 = 12 (RaCUDA: 12).
#[test]
fn vector_add_sectors() {
    let a = run(&vector_add(), MetricName::Sectors, 256);
    assert_eq!(a.bound.to_bound_string(), "12");
    assert_eq!(a.rules_used.get("Q:IF4"), Some(&1));
}

/// vectorAdd, divwarps: one possibly divergent `if` (Q:IF4) = 1 (RaCUDA: 1).
#[test]
fn vector_add_divwarps() {
    let a = run(&vector_add(), MetricName::Divwarps, 256);
    assert_eq!(a.bound.to_bound_string(), "1");
}

/// vectorAdd, conflicts: no shared memory = 0 (RaCUDA: 0).
#[test]
fn vector_add_conflicts() {
    let a = run(&vector_add(), MetricName::Conflicts, 256);
    assert_eq!(a.bound.to_bound_string(), "0");
}

/// vectorAdd, steps, by hand on our three-address form: `t0 ← b*256` 4 (param, const, op,
/// vwrite); `i ← t0 + tid` 4; the test `i < n` 3 + M^if + M^div = 5; `a ← A[i]` 1 + 4 + 1 = 6;
/// `b ← B[i]` 6; `s ← a + b` 4; `C[i] ← s` 1 + 1 + 4 = 6; total 35.
#[test]
fn vector_add_steps() {
    let a = run(&vector_add(), MetricName::Steps, 256);
    assert_eq!(a.bound.to_bound_string(), "35");
}

/// addSub2, sectors: per iteration two `B[k] ±= A[i]`, each 5 (read B, unaligned: the
/// constant part of k is only known even / arbitrary) + 4 (A[i], aligned) + 5 (write B) = 14,
/// so 28 per iteration of `j += 2`, at most (h + 1)/2 iterations: 14·max(0, h + 1)
/// (RaCUDA: 14 max(0, 1 + h)); exactly ⌈h/2⌉ = ⌊(h + 1)/2⌋ iterations: the floor form
/// 28·⌊(h + 1)/2⌋⁺ (spec/logic.md §1 "Floor atoms"), below the polynomial one at even `h`.
#[test]
fn addsub2_sectors() {
    let a = run(&addsub_prog("addSub2", false), MetricName::Sectors, 1024);
    assert_eq!(a.bound.to_bound_string(), "28*max(0, ⌊(h + 1)/2⌋)");
    assert_eq!(a.bound.eval(&env(&[("h", 9)])), q(140));
    assert_eq!(a.bound.eval(&env(&[("h", 8)])), q(112));
    assert_eq!(a.rules_used.get("Q:WHILE1"), Some(&1));
    let p = run_form(
        &addsub_prog("addSub2", false),
        MetricName::Sectors,
        1024,
        false,
    );
    assert_eq!(p.bound.to_bound_string(), "14*max(0, h + 1)");
    assert_eq!(p.bound.eval(&env(&[("h", 8)])), q(126));
}

/// addSub3, sectors: `As[tid] = A[i]` reads 4 sectors, then per iteration 2·(5 + 5) = 20
/// (shared reads cost no sectors): 4 + 10·max(0, h + 1) (RaCUDA: 4 + 10 max(0, 1 + h));
/// with ⌊(h + 1)/2⌋ iterations (`j += 2`): 4 + 20·⌊(h + 1)/2⌋⁺ in the floor form.
#[test]
fn addsub3_sectors() {
    let a = run(&addsub_prog("addSub3", true), MetricName::Sectors, 1024);
    assert_eq!(a.bound.to_bound_string(), "4 + 20*max(0, ⌊(h + 1)/2⌋)");
    let p = run_form(
        &addsub_prog("addSub3", true),
        MetricName::Sectors,
        1024,
        false,
    );
    assert_eq!(p.bound.to_bound_string(), "4 + 10*max(0, h + 1)");
}

/// addSub3, conflicts: `As[threadIdx.x]` and `As[i]` have stride 1: conflict-free, 0.
#[test]
fn addsub3_conflicts() {
    let a = run(&addsub_prog("addSub3", true), MetricName::Conflicts, 1024);
    assert_eq!(a.bound.to_bound_string(), "0");
}

/// addSub2/3, divwarps: the loop is uniform (WHILE1) and has no `if`: 0 (RaCUDA: 0).
#[test]
fn addsub_divwarps() {
    for shared in [false, true] {
        let a = run(&addsub_prog("addSub", shared), MetricName::Divwarps, 1024);
        assert_eq!(a.bound.to_bound_string(), "0");
    }
}

/// addSub0, divwarps: one divergent `if (j % 2 == 0)` per iteration, w iterations:
/// max(0, w) (RaCUDA: max(0, w)).
#[test]
fn addsub0_divwarps() {
    let a = run(&addsub0(), MetricName::Divwarps, 1024);
    assert_eq!(a.bound.to_bound_string(), "max(0, w)");
}

/// addSub0, sectors: per iteration both branches run (Q:IF4); each does a B read and a B
/// write with an index whose thread dependence is unknown (j·w), on the lanes the branch
/// keeps — `j = 1024·blockIdx.x + threadIdx.x`, so `j % 2 == 0` holds on the 16 even lanes
/// and fails on the 16 odd ones (remainder entry and lane facts, spec/logic.md §2): 16
/// sectors each, and A[i] with a uniform i: 1 sector; 2·(16 + 1 + 16) = 66 per iteration,
/// Pico's bound (RaCUDA's rules give 2·(32 + 1 + 32) = 130 ≤ its 132).
#[test]
fn addsub0_sectors() {
    let a = run(&addsub0(), MetricName::Sectors, 1024);
    assert_eq!(a.bound.to_bound_string(), "66*max(0, w)");
    assert!(a.certificate.contains("(rem r 1 0 0 0 2)"));
    assert!(a.certificate.contains("(mod (lin 0 (1 threadIdx.x)) 2 1)"));
    // divwarps does not depend on access counts: no lane facts in its certificate (it
    // stays in the fragment the Coq theories formalize)
    let d = run(&addsub0(), MetricName::Divwarps, 1024);
    assert!(!d.certificate.contains("(rem ") && !d.certificate.contains("(mod "));
}

/// Steps: some bound for every kernel (no published value to match).
#[test]
fn steps_bounds_exist() {
    for prog in [
        addsub_prog("addSub2", false),
        addsub_prog("addSub3", true),
        addsub0(),
    ] {
        let a = run(&prog, MetricName::Steps, 1024);
        assert!(a.bound.degree() == 1, "{}", a.bound.to_bound_string());
    }
}

/// Nested loops, sectors: A[j] with a uniform j is 1 sector, m·n times: max(0, m)·max(0, n).
#[test]
fn nested_degree_two() {
    let a = run(&nested(), MetricName::Sectors, 32);
    assert_eq!(a.bound.to_bound_string(), "max(0, m)*max(0, n)");
}

/// Certificates are deterministic and start with the version line.
#[test]
fn certificate_deterministic() {
    let a = run(&addsub_prog("addSub3", true), MetricName::Sectors, 1024);
    let b = run(&addsub_prog("addSub3", true), MetricName::Sectors, 1024);
    assert_eq!(a.certificate, b.certificate);
    assert!(a.certificate.starts_with("warpcert-certificate 6\n"));
}

/// A tampered certificate (smaller bound, or a smaller access count) is rejected.
#[test]
fn tampered_certificates_rejected() {
    let a = run_form(
        &addsub_prog("addSub3", true),
        MetricName::Sectors,
        1024,
        false,
    );
    let smaller = a
        .certificate
        .replacen("(bound (poly (4) (10", "(bound (poly (4) (9", 1);
    assert_ne!(smaller, a.certificate);
    let r = warpcert_kernel::check(&smaller).expect_err("lowered bound accepted");
    assert!(
        matches!(r.reason, warpcert_kernel::Reason::BoundMismatch { .. }),
        "{r}"
    );
    let fewer = a.certificate.replacen("(n 5)", "(n 4)", 1);
    assert_ne!(fewer, a.certificate);
    let r = warpcert_kernel::check(&fewer).expect_err("lowered access count accepted");
    assert!(
        matches!(
            r.reason,
            warpcert_kernel::Reason::AccessBound { required: 5, .. }
        ),
        "{r}"
    );
}

/// Uniform `if` (Q:IF1), statically true `if` (Q:IF2), statically false `if` (Q:IF3), `sync`.
fn branches() -> Program {
    Program {
        name: "branches".into(),
        params: iparams(&["w", "h"]),
        arrays: vec![garr("A", Ty::Float)],
        locals: vec![("j".into(), Ty::Int), ("x".into(), Ty::Float)],
        body: Stmt::seq(vec![
            asg("j", opd(c(0))),
            ite(
                bin(BinOp::Lt, p("w"), p("h")),
                vec![asg("x", rd("A", v("j")))],
                vec![Stmt::Skip],
            ),
            ite(
                bin(BinOp::Lt, v("j"), c(1)),
                vec![Stmt::Sync(Loc::default())],
                vec![asg("x", rd("A", v("j")))],
            ),
            ite(
                bin(BinOp::Gt, v("j"), c(5)),
                vec![Stmt::Sync(Loc::default())],
                vec![Stmt::Skip],
            ),
        ]),
    }
}

/// Steps by hand: `j ← 0` 2; IF1: test `w < h` 3 + M^if 1, then-branch `x ← A[j]` (j = 0 for
/// every thread: 1 sector) 1 + 1 + 1 = 3, else 0, so 4 + 3 = 7; IF2 (`j < 1` holds): 3 + 1 +
/// sync 1 = 5; IF3 (`j > 5` fails): 3 + 1 + skip 0 = 4. Total 18. Sectors: 1 (the IF1 read).
#[test]
fn if1_if2_if3_sync() {
    let a = run(&branches(), MetricName::Steps, 64);
    assert_eq!(a.bound.to_bound_string(), "18");
    for r in ["Q:IF1", "Q:IF2", "Q:IF3", "Q:SYNC"] {
        assert_eq!(a.rules_used.get(r), Some(&1), "{r}");
    }
    let a = run(&branches(), MetricName::Sectors, 64);
    assert_eq!(a.bound.to_bound_string(), "1");
    let a = run(&branches(), MetricName::Divwarps, 64);
    assert_eq!(a.bound.to_bound_string(), "0");
}

/// `k ← threadIdx.x; while (k < 4) k ← k + 1; A[k] ← 1.0`: the loop condition is not uniform
/// (Q:WHILE2), so after the loop k has no known thread dependence and the write may touch
/// one sector per lane: 32 sectors (block of 32). The loop itself costs no sectors.
fn divergent_loop() -> Program {
    Program {
        name: "divloop".into(),
        params: vec![],
        arrays: vec![garr("A", Ty::Float)],
        locals: ilocals(&["k"]),
        body: Stmt::seq(vec![
            asg("k", opd(tid())),
            wh(
                bin(BinOp::Lt, v("k"), c(4)),
                vec![asg("k", bin(BinOp::Add, v("k"), c(1)))],
            ),
            wr("A", v("k"), opd(Operand::Const(Const::Float(1.0)))),
        ]),
    }
}

#[test]
fn while2_divergent_loop() {
    let a = run(&divergent_loop(), MetricName::Sectors, 32);
    assert_eq!(a.bound.to_bound_string(), "32");
    assert_eq!(a.rules_used.get("Q:WHILE2"), Some(&1));
    // divwarps: the counter is not uniform, but `4 − k + threadIdx.x` is (D(k) has
    // threadIdx.x coefficient 1) and drops by 1 per iteration from 4: lane 0 tests the
    // condition 5 times (k = 0…4), each test of a Q:WHILE2 loop costs M^div = 1: bound 5.
    let d = run(&divergent_loop(), MetricName::Divwarps, 32);
    assert_eq!(d.bound.to_bound_string(), "5");
    // A counter with no linear thread dependence (read from memory) has no ranking form:
    // the error names the loop (line 2, column 3 in the builder) and the reason.
    let mut prog = divergent_loop();
    prog.arrays.push(garr("K", Ty::Int));
    if let Stmt::Seq(first, _) = &mut prog.body {
        **first = asg("k", rd("K", tid()));
    }
    let e = analyze(
        &prog,
        &Metric::standard(MetricName::Divwarps),
        &Hardware::default(),
        &launch(32),
        &AnalysisOptions::default(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("2:3"), "{msg}");
    assert!(msg.contains("thread dependence"), "{msg}");
}

/// A multiplicative counter (`i ← 2·i`, issue 15) is bounded (it was an error): by the
/// quotient log atom `⌊log2 ((2n − 2)/i)⌋⁺` (spec/logic.md §1 "Quotient log atoms").
#[test]
fn doubling_update_has_a_log_bound() {
    let prog = Program {
        name: "mul".into(),
        params: iparams(&["n"]),
        arrays: vec![garr("A", Ty::Float)],
        locals: vec![("i".into(), Ty::Int), ("x".into(), Ty::Float)],
        body: Stmt::seq(vec![
            asg("i", opd(c(1))),
            wh(
                bin(BinOp::Lt, v("i"), p("n")),
                vec![
                    asg("x", rd("A", v("i"))),
                    asg("i", bin(BinOp::Mul, v("i"), c(2))),
                ],
            ),
        ]),
    };
    // each round reads the uniform `A[i]` (1 sector): hand-derived bound the number of
    // rounds `i = 1, 2, 4, … < n`, counted here (`⌈log2 n⌉` for n ≥ 1, 0 for n ≤ 1; the
    // linear ranking `n − i` gave `max(0, n − 1)` before)
    let a = run(&prog, MetricName::Sectors, 32);
    for n in [-2i64, 0, 1, 2, 5, 64, 65, 1000] {
        let got = a
            .bound
            .eval(&std::collections::BTreeMap::from([("n".to_string(), n)]));
        let (mut i, mut rounds) = (1i64, 0i64);
        while i < n {
            i *= 2;
            rounds += 1;
        }
        assert_eq!(got, warpcert::core::metric::q(rounds), "n = {n}");
    }
    // the same loop costs nothing under `conflicts`: bound 0, certified
    let a = run(&prog, MetricName::Conflicts, 32);
    assert_eq!(a.bound.to_bound_string(), "0");
}

// ------------------------------------------------------------------ semantics oracle

/// The executable lock-step semantics (`warpcert::semantics`) is the oracle: for every
/// kernel above, metric, a grid of parameter values (negative, zero, odd and even), three
/// block indices and every warp of the block, the measured per-warp cost is at most the
/// inferred bound evaluated at those parameter values.
#[test]
fn bounds_dominate_the_semantics() {
    use warpcert::semantics::{run_warp, Inputs, Params, RunOptions, Value};
    let cases: Vec<(Program, u32)> = vec![
        (vector_add(), 256),
        (addsub_prog("addSub2", false), 1024),
        (addsub_prog("addSub3", true), 1024),
        (addsub0(), 64),
        (nested(), 32),
        (branches(), 64),
        (divergent_loop(), 32),
        (lane_split(), 32),
        (lane_split(), 64),
        (byte_bins(), 64),
    ];
    let hw = Hardware::default();
    for (prog, bx) in cases {
        let l = launch(bx);
        let user: Vec<String> = prog
            .params
            .iter()
            .filter(|p| !p.name.contains('.'))
            .map(|p| p.name.clone())
            .collect();
        for m in MetricName::ALL {
            let metric = Metric::standard(m);
            let Ok(a) = analyze(&prog, &metric, &hw, &l, &AnalysisOptions::default()) else {
                continue; // (a program without a bound for this metric)
            };
            for vals in [[-3i64, 2], [0, 0], [1, 5], [4, 3], [7, 7], [300, 9]] {
                let mut params = Params::new();
                let mut envm = BTreeMap::new();
                for (k, name) in user.iter().enumerate() {
                    params.insert(name.clone(), Value::Int(vals[k % 2]));
                    envm.insert(name.clone(), vals[k % 2]);
                }
                for blk in [0u32, 1, 3] {
                    envm.insert("blockIdx.x".to_string(), blk as i64);
                    let bound = a.bound.eval(&envm);
                    for w in 0..l.warps_per_block(&hw) {
                        for input in [Inputs::zero(), Inputs::random(7)] {
                            let run = run_warp(
                                &prog,
                                std::slice::from_ref(&metric),
                                &hw,
                                &l,
                                [blk, 0, 0],
                                w,
                                &params,
                                &input,
                                &RunOptions::default(),
                            )
                            .unwrap_or_else(|e| panic!("{} run: {e:?}", prog.name));
                            assert!(
                                run.costs[0] <= bound,
                                "{} / {m} params {vals:?} block {blk} warp {w}: cost {} > bound {}",
                                prog.name,
                                run.costs[0],
                                a.bound.to_bound_string()
                            );
                        }
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------ building blocks

/// Canonical atoms, substitution, the shift rewrite and bound printing, by hand:
/// `max0(2h + 2) = 2·max0(h + 1)`; `max0(h − j + 1)[j ← j + 2] = max0(h − j − 1)`;
/// shifting `max0(h − j + 1)` by 2 gives `max0(h − j − 1) + 2`; a constant atom evaluates.
#[test]
fn polynomials() {
    use warpcert::core::assertion::linear::Lin;
    use warpcert::core::assertion::poly::Poly;
    let h = Lin::var("h");
    let j = Lin::var("j");
    let mut p = Poly::zero();
    p.add_raw_term(&[h.scale(&q(2)).plus_const(&q(2))], q(3));
    assert_eq!(p.to_bound_string(), "6*max(0, h + 1)");
    assert_eq!(p.eval(&env(&[("h", 4)])), q(30));
    assert_eq!(p.eval(&env(&[("h", -7)])), q(0));
    let a = h.sub(&j).plus_const(&q(1));
    let mut r = Poly::zero();
    r.add_raw_term(std::slice::from_ref(&a), q(1));
    let s = r.subst("j", &j.plus_const(&q(2)));
    assert_eq!(s.to_bound_string(), "max(0, h - j - 1)");
    let sh = r.shift(&a, &q(2));
    assert_eq!(sh.to_bound_string(), "2 + max(0, h - j - 1)");
    let k = r
        .subst("h", &Lin::constant(q(5)))
        .subst("j", &Lin::constant(q(1)));
    assert_eq!(k.to_bound_string(), "5");
    // degree 2 and a rational coefficient
    let mut d2 = Poly::zero();
    d2.add_raw_term(&[Lin::var("m"), Lin::var("n")], Q::new(3.into(), 2.into()));
    assert_eq!(d2.to_bound_string(), "3/2*max(0, m)*max(0, n)");
    assert_eq!(d2.eval(&env(&[("m", 2), ("n", 3)])), q(9));
}

/// `N*` by hand (RaCUDA §4 Fig. 9, §7): 32 consecutive ints aligned to 128 bytes touch 4
/// sectors; with a constant part only known to be even, 5 (8-byte offsets); stride 2 in
/// shared memory is a 2-way conflict; a uniform index is 1 sector / conflict-free; an
/// unknown dependence counts every active lane.
#[test]
fn access_bounds() {
    use warpcert::analysis::access::{n_star, AccessKind};
    use warpcert::analysis::derive::launch_facts;
    use warpcert::core::assertion::linear::Dep;
    let hw = Hardware::default();
    let l = launch(1024);
    let prog = addsub_prog("x", false);
    let facts = launch_facts(&prog, &l);
    let tid_plus = |g: i64| Dep::new([1, 0, 0], 0, g);
    let mr = AccessKind::MemReads;
    let cf = AccessKind::Conflicts;
    assert_eq!(n_star(&facts, tid_plus(1024), 4, mr, &hw, &l), 4);
    assert_eq!(n_star(&facts, tid_plus(2), 4, mr, &hw, &l), 5);
    assert_eq!(n_star(&facts, tid_plus(1), 4, mr, &hw, &l), 5);
    assert_eq!(n_star(&facts, Dep::new([2, 0, 0], 0, 0), 4, cf, &hw, &l), 2);
    assert_eq!(n_star(&facts, Dep::new([1, 0, 0], 0, 0), 4, cf, &hw, &l), 1);
    assert_eq!(n_star(&facts, Some(Dep::exact(5)), 4, mr, &hw, &l), 1);
    assert_eq!(n_star(&facts, Some(Dep::exact(5)), 4, cf, &hw, &l), 1);
    assert_eq!(n_star(&facts, None, 4, mr, &hw, &l), 32);
    // 8-byte elements, stride 1, aligned: 256 bytes = 8 sectors
    assert_eq!(n_star(&facts, tid_plus(0), 8, mr, &hw, &l), 8);
}

/// Farkas witnesses: `x ≤ 3 ∧ y − x ≤ 0 ⇒ y ≤ 5` (λ = 1, 1), and no witness for `y ≤ 2`.
#[test]
fn entailment() {
    use warpcert::analysis::entail::{check_farkas, entails};
    use warpcert::core::assertion::linear::{Cstr, Lin};
    let x = Lin::var("x");
    let y = Lin::var("y");
    let p = vec![Cstr::le(x.plus_const(&q(-3))), Cstr::le(y.sub(&x))];
    let t = Cstr::le(y.plus_const(&q(-5)));
    let w = entails(&p, &t).expect("entailed");
    assert!(check_farkas(&p, &t, &w));
    assert!(entails(&p, &Cstr::le(y.plus_const(&q(-2)))).is_none());
}

// ------------------------------------------------------------------ random programs

/// A small generator of well-typed random programs: int locals `i`, `j`, float `f`, bool
/// `bb`, loop counters `k0`, `k1` (only touched by `for`-shaped loops), params `n`, `m`,
/// `blockIdx.x`, a global int array `G` and a shared float array `S`.
struct Gen(rand::rngs::StdRng);

impl Gen {
    fn pick(&mut self, n: usize) -> usize {
        use rand::Rng;
        self.0.gen_range(0..n)
    }
    fn int_opd(&mut self) -> Operand {
        match self.pick(6) {
            0 => v("i"),
            1 => v("j"),
            2 => p(["n", "m", "blockIdx.x"][self.pick(3)]),
            3 => c(self.pick(7) as i64 - 2),
            4 => tid(),
            _ => c(1),
        }
    }
    fn int_expr(&mut self) -> Expr {
        use BinOp::*;
        match self.pick(6) {
            0 => opd(self.int_opd()),
            1 => rd("G", self.int_opd()),
            _ => {
                let op = [Add, Sub, Mul, Rem, Add, Max][self.pick(6)];
                let a = self.int_opd();
                let b = if op == Rem { c(2) } else { self.int_opd() };
                bin(op, a, b)
            }
        }
    }
    fn cond(&mut self) -> Expr {
        use BinOp::*;
        let op = [Lt, Le, Gt, Ge, Eq, Ne][self.pick(6)];
        bin(op, self.int_opd(), self.int_opd())
    }
    fn stmt(&mut self, depth: usize) -> Stmt {
        let k = if depth >= 2 {
            self.pick(5)
        } else {
            self.pick(8)
        };
        match k {
            0 | 1 => asg(["i", "j"][self.pick(2)], self.int_expr()),
            2 => wr("G", self.int_opd(), opd(self.int_opd())),
            3 => match self.pick(3) {
                0 => asg("f", rd("S", self.int_opd())),
                1 => wr("S", self.int_opd(), opd(v("f"))),
                _ => asg("bb", self.cond()),
            },
            4 => Stmt::Sync(Loc::default()),
            5 | 6 => {
                let a = self.block(depth + 1);
                let b = self.block(depth + 1);
                ite(self.cond(), a, b)
            }
            _ => {
                let ctr = if depth == 0 { "k0" } else { "k1" };
                let mut body = self.block(depth + 1);
                body.push(asg(
                    ctr,
                    bin(BinOp::Add, v(ctr), c(1 + self.pick(3) as i64)),
                ));
                let bound = p(["n", "m"][self.pick(2)]);
                let ub = if depth == 0 { "u0" } else { "u1" };
                if self.pick(3) == 0 {
                    // bound recomputed in the body, as the front end lowers `k < n - 1`
                    let def = bin(BinOp::Sub, bound, c(1));
                    body.push(asg(ub, def.clone()));
                    Stmt::seq(vec![
                        asg(ctr, opd(c(0))),
                        asg(ub, def),
                        wh(bin(BinOp::Lt, v(ctr), v(ub)), body),
                    ])
                } else {
                    Stmt::seq(vec![
                        asg(ctr, opd(c(0))),
                        wh(bin(BinOp::Lt, v(ctr), bound), body),
                    ])
                }
            }
        }
    }
    fn block(&mut self, depth: usize) -> Vec<Stmt> {
        let n = 1 + self.pick(3);
        (0..n).map(|_| self.stmt(depth)).collect()
    }
    fn program(&mut self) -> Program {
        let mut locals = ilocals(&["i", "j", "k0", "k1", "u0", "u1"]);
        locals.push(("f".into(), Ty::Float));
        locals.push(("bb".into(), Ty::Bool));
        Program {
            name: "random".into(),
            params: iparams(&["n", "m", "blockIdx.x"]),
            arrays: vec![
                garr("G", Ty::Int),
                ArrayDecl {
                    name: "S".into(),
                    space: Space::Shared,
                    elem: Ty::Float,
                    elem_bytes: 4,
                    len: Some(64),
                },
            ],
            locals,
            body: Stmt::seq(self.block(0)),
        }
    }
}

/// On random programs: the analysis never panics; every certificate it produces is accepted
/// by the kernel; and every bound dominates the semantics on a few parameter values (runs
/// that fail in the semantics, e.g. by running out of fuel, are skipped).
#[test]
fn random_programs() {
    use rand::SeedableRng;
    use warpcert::semantics::{run_warp, Inputs, Params, RunOptions, Value};
    let hw = Hardware::default();
    let l = launch(64);
    let mut gen = Gen(rand::rngs::StdRng::seed_from_u64(2021));
    let (mut ok, mut total) = (0, 0);
    for _ in 0..60 {
        let prog = gen.program();
        for m in MetricName::ALL {
            total += 1;
            let metric = Metric::standard(m);
            let Ok(a) = analyze(&prog, &metric, &hw, &l, &AnalysisOptions::default()) else {
                continue;
            };
            ok += 1;
            if let Err(r) = warpcert_kernel::check(&a.certificate) {
                panic!("rejected: {r:?}\n{prog}\n{}", a.certificate);
            }
            for (nv, mv, blk) in [(5i64, 3i64, 0u32), (0, 7, 1), (-2, 4, 2)] {
                let params: Params = [("n", nv), ("m", mv)]
                    .iter()
                    .map(|(k, x)| (k.to_string(), Value::Int(*x)))
                    .collect();
                let envm = env(&[("n", nv), ("m", mv), ("blockIdx.x", blk as i64)]);
                let bound = a.bound.eval(&envm);
                for w in 0..l.warps_per_block(&hw) {
                    let opts = RunOptions {
                        fuel: 200_000,
                        derivation: false,
                    };
                    let Ok(run) = run_warp(
                        &prog,
                        std::slice::from_ref(&metric),
                        &hw,
                        &l,
                        [blk, 0, 0],
                        w,
                        &params,
                        &Inputs::random(3),
                        &opts,
                    ) else {
                        continue;
                    };
                    assert!(
                        run.costs[0] <= bound,
                        "{m}: cost {} > bound {}\n{prog}",
                        run.costs[0],
                        a.bound.to_bound_string()
                    );
                }
            }
        }
    }
    // most random programs get a bound (loops are `for`-shaped with uniform bounds)
    assert!(ok * 2 > total, "{ok} of {total}");
}

/// Three nested loops: `for (i = 0; i < h; i += 2) for (j = 0; j < m; j++) for (k = 0;
/// k < n; k++) x = A[k];`. By hand: at most (h + 1)/2 outer iterations, m·n reads of one
/// sector each: (1/2)·max(0, h + 1)·max(0, m)·max(0, n), a degree-3 bound. The default
/// options find it (the degree is chosen per nest: chain monomials of
/// `analysis/derive/nest.rs`), as does an explicit `degree: 3`.
#[test]
fn triple_nesting_gets_degree_three_by_default() {
    let inner = wh(
        bin(BinOp::Lt, v("k"), p("n")),
        vec![
            asg("x", rd("A", v("k"))),
            asg("k", bin(BinOp::Add, v("k"), c(1))),
        ],
    );
    let mid = wh(
        bin(BinOp::Lt, v("j"), p("m")),
        vec![
            asg("k", opd(c(0))),
            inner,
            asg("j", bin(BinOp::Add, v("j"), c(1))),
        ],
    );
    let outer = wh(
        bin(BinOp::Lt, v("i"), p("h")),
        vec![
            asg("j", opd(c(0))),
            mid,
            asg("i", bin(BinOp::Add, v("i"), c(2))),
        ],
    );
    let prog = Program {
        name: "triple".into(),
        params: iparams(&["n", "m", "h"]),
        arrays: vec![garr("A", Ty::Int)],
        locals: ilocals(&["i", "j", "k", "x"]),
        body: Stmt::seq(vec![asg("i", opd(c(0))), outer]),
    };
    let metric = Metric::standard(MetricName::Sectors);
    let hw = Hardware::default();
    // the polynomial form (the `i += 2` loop would get a floor atom): the degree is tested
    for options in [
        AnalysisOptions {
            degree: 2,
            floor: false,
            align: false,
        },
        AnalysisOptions {
            degree: 3,
            floor: false,
            align: false,
        },
    ] {
        let a = analyze(&prog, &metric, &hw, &launch(32), &options).unwrap();
        assert_eq!(
            a.bound.to_bound_string(),
            "1/2*max(0, m)*max(0, n)*max(0, h + 1)"
        );
        let v = warpcert_kernel::check(&a.certificate).expect("accepted");
        assert_eq!(v.bound, a.bound.to_bound_string());
    }
}

/// A loop whose bound is recomputed in the body, as the front end lowers
/// `for (i = 0; i < n - 1; i++) A[i] = 1.0;`: `t ← n − 1; while (i < t) { A[i] ← 1.0;
/// i ← i + 1; t ← n − 1 }`. The invariant keeps `t = n − 1`, so the ranking atom is
/// `max0(n − 1 − i)`; one sector per iteration (uniform index): max(0, n − 1).
#[test]
fn recomputed_linear_bound() {
    let prog = Program {
        name: "recomputed".into(),
        params: iparams(&["n"]),
        arrays: vec![garr("A", Ty::Float)],
        locals: ilocals(&["i", "t"]),
        body: Stmt::seq(vec![
            asg("i", opd(c(0))),
            asg("t", bin(BinOp::Sub, p("n"), c(1))),
            wh(
                bin(BinOp::Lt, v("i"), v("t")),
                vec![
                    wr("A", v("i"), opd(Operand::Const(Const::Float(1.0)))),
                    asg("i", bin(BinOp::Add, v("i"), c(1))),
                    asg("t", bin(BinOp::Sub, p("n"), c(1))),
                ],
            ),
        ]),
    };
    let a = run(&prog, MetricName::Sectors, 32);
    assert_eq!(a.bound.to_bound_string(), "max(0, n - 1)");
}

/// A long straight-line kernel (3000 statements, right-nested sequence): no stack overflow,
/// and the bound is the hand count: 1000 uniform reads `x ← A[i]` of one sector each.
#[test]
fn long_program() {
    let mut body = Vec::new();
    for _ in 0..1000 {
        body.push(asg("x", rd("A", v("i"))));
        body.push(asg("i", bin(BinOp::Add, v("i"), c(1))));
        body.push(Stmt::Skip);
    }
    let prog = Program {
        name: "long".into(),
        params: vec![],
        arrays: vec![garr("A", Ty::Int)],
        locals: ilocals(&["i", "x"]),
        body: body
            .into_iter()
            .rev()
            .reduce(|acc, s| Stmt::Seq(Box::new(s), Box::new(acc)))
            .unwrap_or(Stmt::Skip),
    };
    let a = run(&prog, MetricName::Sectors, 32);
    assert_eq!(a.bound.to_bound_string(), "1000");
}

/// A decreasing counter: `for (j = n; j > 0; j -= 3) A[0] = 1.0;`. By hand: ⌈n/3⌉ ≤ (n + 2)/3
/// iterations of one sector: (1/3)·max(0, n + 2); exactly ⌈n/3⌉ = ⌊(n + 2)/3⌋⁺ in the floor
/// form.
#[test]
fn decreasing_loop() {
    let prog = Program {
        name: "down".into(),
        params: iparams(&["n"]),
        arrays: vec![garr("A", Ty::Float)],
        locals: ilocals(&["j"]),
        body: Stmt::seq(vec![
            asg("j", opd(p("n"))),
            wh(
                bin(BinOp::Gt, v("j"), c(0)),
                vec![
                    wr("A", c(0), opd(Operand::Const(Const::Float(1.0)))),
                    asg("j", bin(BinOp::Sub, v("j"), c(3))),
                ],
            ),
        ]),
    };
    let a = run(&prog, MetricName::Sectors, 32);
    assert_eq!(a.bound.to_bound_string(), "max(0, ⌊(n + 2)/3⌋)");
    assert_eq!(a.bound.eval(&env(&[("n", 7)])), q(3));
    assert_eq!(a.bound.eval(&env(&[("n", 6)])), q(2));
    let p = run_form(&prog, MetricName::Sectors, 32, false);
    assert_eq!(p.bound.to_bound_string(), "1/3*max(0, n + 2)");
}

// ------------------------------------------------------------------ issues 3 and 4

fn sarr(name: &str, len: u64) -> ArrayDecl {
    ArrayDecl {
        name: name.into(),
        space: Space::Shared,
        elem: Ty::Int,
        elem_bytes: 4,
        len: Some(len),
    }
}

/// `r ← threadIdx.x % 2; t ← threadIdx.x * w; if (r == 0) A[t] ← 1 else A[t] ← 2`: the index
/// has no known thread dependence (`threadIdx.x * w`, `w` unknown), so each write may touch
/// one sector per lane it runs on.
fn lane_split() -> Program {
    Program {
        name: "lanesplit".into(),
        params: iparams(&["w"]),
        arrays: vec![garr("A", Ty::Int)],
        locals: ilocals(&["r", "t"]),
        body: Stmt::seq(vec![
            asg("r", bin(BinOp::Rem, tid(), c(2))),
            asg("t", bin(BinOp::Mul, tid(), p("w"))),
            ite(
                bin(BinOp::Eq, v("r"), c(0)),
                vec![wr("A", v("t"), opd(c(1)))],
                vec![wr("A", v("t"), opd(c(2)))],
            ),
        ]),
    }
}

/// Lane facts (spec/logic.md §2): the then branch runs on the 16 even lanes, the else
/// branch on the 16 odd ones, so `16 + 16 = 32` sectors per warp (RaCUDA's rules: 64). With
/// `w = 8` every lane writes its own sector (32-byte stride) and the semantics measures 32:
/// the bound is exact there.
#[test]
fn lane_facts_filter_divergent_branches() {
    use warpcert::semantics::{run_warp, Inputs, Params, RunOptions, Value};
    let a = run(&lane_split(), MetricName::Sectors, 32);
    assert_eq!(a.bound.to_bound_string(), "32");
    let params = Params::from([("w".to_string(), Value::Int(8))]);
    let hw = Hardware::default();
    let run = run_warp(
        &lane_split(),
        &[Metric::standard(MetricName::Sectors)],
        &hw,
        &launch(32),
        [0, 0, 0],
        0,
        &params,
        &Inputs::zero(),
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(run.costs[0], q(32));
}

/// The grid-stride loop `pos ← 64·blockIdx.x + threadIdx.x; while (pos < n) { A[pos] ← 0;
/// t ← 64·gridDim.x; pos ← pos + t }`, block 64, symbolic grid. `pos` is not uniform and the
/// step is symbolic: the ranking form `n − pos + threadIdx.x + 63` is uniform, each
/// iteration lowers it by `64·gridDim.x ≥ 64` (launch fact `gridDim.x ≥ 1`; shift by 64,
/// then a `mono` rewrite), and the root drops `−64·blockIdx.x` (`blockIdx.x ≥ 0`). Each
/// iteration writes 32 consecutive aligned ints: 4 sectors. By hand, warp 0 of block 0 runs
/// `⌈n/64⌉ = ⌊(n + 63)/64⌋` rounds at `gridDim.x = 1` (lane 0 starts at 0, the stride is 64),
/// so `4·⌊(n + 63)/64⌋` is attained. The floor ranking atom of a symbolic step whose lower
/// bound 64 is an integer (spec/logic.md §1 "Floor atoms"): shift by 1 round (`ishift`),
/// then `imono` to the atom the real step `64·gridDim.x ≥ 64` leaves.
fn grid_stride() -> Program {
    Program {
        name: "gridstride".into(),
        params: iparams(&["n", "blockIdx.x", "gridDim.x"]),
        arrays: vec![garr("A", Ty::Int)],
        locals: ilocals(&["t0", "pos", "t1"]),
        body: Stmt::seq(vec![
            asg("t0", bin(BinOp::Mul, p("blockIdx.x"), c(64))),
            asg("pos", bin(BinOp::Add, v("t0"), tid())),
            wh(
                bin(BinOp::Lt, v("pos"), p("n")),
                vec![
                    wr("A", v("pos"), opd(c(0))),
                    asg("t1", bin(BinOp::Mul, c(64), p("gridDim.x"))),
                    asg("pos", bin(BinOp::Add, v("pos"), v("t1"))),
                ],
            ),
        ]),
    }
}

/// The analysis of [`grid_stride`] (sectors, block 64), whose first bound must be the
/// constant-divisor `4·⌊(n + 63)/64⌋⁺` derived above (both grid-stride tests pin it).
fn grid_stride_analysis() -> Analysis {
    let a = run(&grid_stride(), MetricName::Sectors, 64);
    assert_eq!(a.bound.to_bound_string(), "4*max(0, ⌊(n + 63)/64⌋)");
    a
}

/// The largest per-warp `sectors` cost of [`grid_stride`] by the lock-step semantics
/// (`run_kernel`, the oracle of both grid-stride tests): block 64, grid `g` blocks,
/// parameter `n`, zero inputs.
fn grid_stride_truth(n: i64, g: u32) -> Q {
    use warpcert::semantics::{run_kernel, Inputs, Params, Value};
    let params = Params::from([("n".to_string(), Value::Int(n))]);
    let l = Launch {
        block: [64, 1, 1],
        grid: Some([g, 1, 1]),
    };
    let r = run_kernel(
        &grid_stride(),
        &[Metric::standard(MetricName::Sectors)],
        &Hardware::default(),
        &l,
        &params,
        &Inputs::zero(),
    )
    .unwrap();
    r.metrics[0].max_per_warp.clone()
}

#[test]
fn grid_stride_loop_with_symbolic_step() {
    let a = grid_stride_analysis();
    assert!(a.certificate.contains("(imono "));
    assert_eq!(a.rules_used.get("Q:WHILE2"), Some(&1));
    for n in [-5, 0, 1, 63, 64, 65, 200, 1000, 1024] {
        for g in [1, 2, 3] {
            let truth = grid_stride_truth(n, g);
            let bound = a.bound.eval(&env(&[("n", n)]));
            assert!(truth <= bound, "n={n} grid={g}");
            // one block, n a multiple of 64: every iteration of every warp is a full one, 4
            // sectors, n/64 of them (the bound's 4·(n + 63)/64 is exact up to the ceiling)
            if g == 1 && n > 0 && n % 64 == 0 {
                assert_eq!(truth, q(4 * ((n + 63) / 64)));
            }
        }
    }
}

/// The same grid-stride loop with the symbolic floor atom (spec/logic.md §1 "Symbolic
/// divisors", issue 14): the analysis' chain ends with a second bound B whose ranking atom
/// divides by the step itself, `4·⌊(n + 64·gridDim.x − 1)/(64·gridDim.x)⌋⁺`, certified by
/// the kernel on its own; the answer is `min(A, B)`. Hand derivation: warp 0 of block 0 (the
/// most rounds) visits `pos = 64·g·k < n`, `⌈n/(64g)⌉ = ⌊(n + 64g − 1)/(64g)⌋` rounds of at
/// most 4 sectors (32 consecutive aligned ints), so B is sound at every grid `g` and equal
/// to A at `g = 1`; at `g = 2`, `n = 1000`: 8 rounds, 32 sectors, where A says
/// `4·⌊1063/64⌋ = 64`. Oracle: the lock-step semantics (`run_kernel`) at grids 1, 2 and 4.
#[test]
fn grid_stride_loop_with_symbolic_divisor() {
    let a = grid_stride_analysis();
    let chain = a.chain();
    let b = chain.last().expect("the chain has the first bound");
    assert_eq!(chain.len(), 2, "A and the symbolic-divisor bound B");
    assert_eq!(
        b.bound.to_bound_string(),
        "4*max(0, ⌊(64*gridDim.x + n - 1)/(64*gridDim.x)⌋)"
    );
    assert!(b.certificate.contains("(floors "));
    let v = warpcert_kernel::check(&b.certificate).expect("the kernel accepts B");
    assert_eq!(v.bound, b.bound.to_bound_string());
    // the Coq export prints the symbolic atom (`KFloorS`; coqc accepts such an export in
    // tests/coq_symdiv.rs)
    let v = warpcert::export::coq::export(&b.certificate).expect("B exports to Coq");
    assert!(v.contains("KFloorS") && v.contains("RSShift"), "{v}");
    let mut tighter = 0;
    for n in [-5, 0, 1, 63, 64, 65, 127, 128, 129, 200, 1000, 1024] {
        for g in [1u32, 2, 4] {
            let at = env(&[("n", n), ("gridDim.x", i64::from(g))]);
            let (old, new) = (a.bound.eval(&at), b.bound.eval(&at));
            let truth = grid_stride_truth(n, g);
            assert!(truth <= new, "B unsound at n={n} grid={g}");
            // the hand count ⌈n/(64g)⌉ rounds of 4 sectors
            let rounds = if n > 0 {
                (n + 64 * i64::from(g) - 1) / (64 * i64::from(g))
            } else {
                0
            };
            assert_eq!(new, q(4 * rounds), "n={n} grid={g}");
            if g == 1 {
                assert_eq!(new, old, "n={n}");
            } else if new < old {
                tighter += 1;
            }
            // n a multiple of 64g: every round of warp 0 is full, B is attained
            if n > 0 && n % (64 * i64::from(g)) == 0 {
                assert_eq!(truth, new, "n={n} grid={g}");
            }
        }
    }
    assert!(
        tighter >= 10,
        "B below A at grids 2 and 4 ({tighter} points)"
    );
}

/// A remainder by a constant (issue 15): `v ← D[threadIdx.x]; t ← v % 32; i ← t + 32;
/// S[i] ← 1` (block 32, conflicts). C's truncating `v % 32` lies in `[−31, 31]` whatever
/// the sign of `v`, so `t` has the range entry `(rng t 62)` and `i` the window `[1, 63]`:
/// 63 consecutive ints hold at most 2 addresses of one bank (by hand: banks `i mod 32`,
/// each residue at most twice in 63 consecutive integers), `N* = 2`, cost 1 (before the
/// `%` width rule: `⊤`, 32 lanes, cost 31). With `D[0] = 5`, `D[1] = −27` and 0 elsewhere
/// lanes 0 and 1 write `S[37]` and `S[5]` (bank 5), the others `S[32]`: the semantics
/// measures 1, so the bound is exact.
fn rem_bins() -> Program {
    Program {
        name: "rembins".into(),
        params: vec![],
        arrays: vec![garr("D", Ty::Int), sarr("S", 64)],
        locals: ilocals(&["v", "t", "i"]),
        body: Stmt::seq(vec![
            asg("v", rd("D", tid())),
            asg("t", bin(BinOp::Rem, v("v"), c(32))),
            asg("i", bin(BinOp::Add, v("t"), c(32))),
            wr("S", v("i"), opd(c(1))),
        ]),
    }
}

#[test]
fn remainder_widths_bound_rem_bins() {
    use warpcert::semantics::{run_warp, ArrayInit, Inputs, Params, RunOptions, Value};
    let a = run(&rem_bins(), MetricName::Conflicts, 32);
    assert_eq!(a.bound.to_bound_string(), "1");
    assert!(a.certificate.contains("(rng t 62)"));
    let cells = (0..32)
        .map(|l| {
            Value::Int(match l {
                0 => 5,
                1 => -27,
                _ => 0,
            })
        })
        .collect();
    let input = Inputs::zero().with_array("D", ArrayInit::Values(cells));
    let run = run_warp(
        &rem_bins(),
        &[Metric::standard(MetricName::Conflicts)],
        &Hardware::default(),
        &launch(32),
        [0, 0, 0],
        0,
        &Params::new(),
        &input,
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(run.costs[0], q(1));
}

/// The histogram256 pattern: `w ← threadIdx.x >> 5; b ← w·256; v ← D[threadIdx.x];
/// t ← v & 255; i ← b + t; S[i] ← 1` (block 64, conflicts). `w` is the warp index (the `>>`
/// rule: uniform in each warp), `t` and `i` have range entries of width 255, and 32 lanes'
/// indices in one window of 256 ints hold at most 256/32 = 8 distinct addresses of one bank
/// (by hand): `N* = 8`, cost 7 (RaCUDA's rules: 32, cost 31). With `D[l] = 32·(l mod 8)` the
/// lanes hit 8 distinct bins of bank 0: the semantics measures 7, so the bound is exact.
fn byte_bins() -> Program {
    Program {
        name: "bytebins".into(),
        params: vec![],
        arrays: vec![garr("D", Ty::Int), sarr("S", 512)],
        locals: ilocals(&["w", "b", "v", "t", "i"]),
        body: Stmt::seq(vec![
            asg("w", bin(BinOp::Shr, tid(), c(5))),
            asg("b", bin(BinOp::Mul, v("w"), c(256))),
            asg("v", rd("D", tid())),
            asg("t", bin(BinOp::BitAnd, v("v"), c(255))),
            asg("i", bin(BinOp::Add, v("b"), v("t"))),
            wr("S", v("i"), opd(c(1))),
        ]),
    }
}

#[test]
fn range_entries_bound_byte_bins() {
    use warpcert::semantics::{run_warp, ArrayInit, Inputs, Params, RunOptions, Value};
    let a = run(&byte_bins(), MetricName::Conflicts, 64);
    assert_eq!(a.bound.to_bound_string(), "7");
    assert!(a.certificate.contains("(rng i 255)"));
    let cells = (0..64).map(|l| Value::Int(32 * (l % 8))).collect();
    let input = Inputs::zero().with_array("D", ArrayInit::Values(cells));
    for w in 0..2 {
        let run = run_warp(
            &byte_bins(),
            &[Metric::standard(MetricName::Conflicts)],
            &Hardware::default(),
            &launch(64),
            [0, 0, 0],
            w,
            &Params::new(),
            &input,
            &RunOptions::default(),
        )
        .unwrap();
        assert_eq!(run.costs[0], q(7), "warp {w}");
    }
}
