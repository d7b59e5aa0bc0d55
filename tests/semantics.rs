//! Tests of the executable lock-step cost semantics (RaCUDA §3, Fig. 5).
//!
//! Expected values come from the paper (Examples 1 and 2, Table 1) or are derived by hand in
//! the comments; none is copied from the program's output.

use warpcert::core::metric::{q, Q};
use warpcert::core::{
    ArrayDecl, BinOp, Const, Dim, Expr, Hardware, Launch, Loc, Metric, MetricName, Operand,
    ParamDecl, Program, Space, Stmt, Ty, UnOp,
};
use warpcert::semantics::store::random_value;
use warpcert::semantics::value::{apply_bin, apply_un};
use warpcert::semantics::*;

// ---------------------------------------------------------------- builders

fn var(x: &str) -> Operand {
    Operand::Var(x.into())
}
fn int(n: i64) -> Operand {
    Operand::Const(Const::Int(n))
}
fn param(p: &str) -> Operand {
    Operand::Param(p.into())
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
fn read(a: &str, o: Operand) -> Expr {
    Expr::Read(a.into(), o)
}
fn assign(x: &str, e: Expr) -> Stmt {
    Stmt::Assign(x.into(), e, Loc::default())
}
fn write(a: &str, o: Operand, e: Expr) -> Stmt {
    Stmt::Write(a.into(), o, e, Loc::default())
}
fn if_(e: Expr, s1: Stmt, s2: Stmt) -> Stmt {
    Stmt::If(e, Box::new(s1), Box::new(s2), Loc::default())
}
fn while_(e: Expr, s: Stmt) -> Stmt {
    Stmt::While(e, Box::new(s), Loc::default())
}
fn arr(name: &str, space: Space, elem: Ty, bytes: u32) -> ArrayDecl {
    ArrayDecl {
        name: name.into(),
        space,
        elem,
        elem_bytes: bytes,
        len: None,
    }
}
fn program(
    params: &[(&str, Ty)],
    arrays: Vec<ArrayDecl>,
    locals: &[(&str, Ty)],
    body: Stmt,
) -> Program {
    Program {
        name: "k".into(),
        params: params
            .iter()
            .map(|(n, t)| ParamDecl {
                name: n.to_string(),
                ty: *t,
            })
            .collect(),
        arrays,
        locals: locals.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
        body,
    }
}

fn all_metrics() -> Vec<Metric> {
    MetricName::ALL
        .iter()
        .map(|m| Metric::standard(*m))
        .collect()
}
fn launch1(threads: u32) -> Launch {
    Launch {
        block: [threads, 1, 1],
        grid: Some([1, 1, 1]),
    }
}
fn traced() -> RunOptions {
    RunOptions {
        derivation: true,
        ..RunOptions::default()
    }
}
/// Costs in the order sectors, conflicts, divwarps, steps.
fn qs(v: [i64; 4]) -> Vec<Q> {
    v.iter().map(|&n| q(n)).collect()
}

fn run1(prog: &Program, hw: &Hardware, threads: u32, input: &Inputs) -> Result<WarpRun, SemError> {
    run_warp(
        prog,
        &all_metrics(),
        hw,
        &launch1(threads),
        [0, 0, 0],
        0,
        &Params::new(),
        input,
        &traced(),
    )
}

// ---------------------------------------------------------------- Example 1 (Fig. 6)

/// `if tid < 16 then (t ← tid * 4; G[t] ← 0) else G[tid] ← 0`: the paper's
/// `if tid < 16 then G[tid * 4] ← 0 else G[tid] ← 0` in three-address form (an array index
/// must be an operand, so `tid * 4` goes through the temporary `t`).
fn example1() -> Program {
    program(
        &[],
        vec![arr("G", Space::Global, Ty::Int, 4)],
        &[("t", Ty::Int)],
        if_(
            bin(BinOp::Lt, tid(), int(16)),
            Stmt::seq(vec![
                assign("t", bin(BinOp::Mul, tid(), int(4))),
                write("G", var("t"), opd(int(0))),
            ]),
            write("G", tid(), opd(int(0))),
        ),
    )
}

#[test]
fn racuda_example1_fig6() {
    // 128-byte segments as in RaCUDA §3.
    let hw = Hardware {
        sector_bytes: 128,
        ..Hardware::default()
    };
    let input = Inputs::zero().with_array("G", ArrayInit::Fill(Value::Int(7)));
    let r = run1(&example1(), &hw, 32, &input).expect("runs");
    // Paper: C = 4M^const + 3M^var + 2M^op + M^gwrite(2) + M^if + M^gwrite(1) + M^div.
    //   sectors = 2 + 1 = 3, conflicts = 0, divwarps = 1,
    //   steps = 4 + 3 + 2 + 2 + 1 + 1 + 1 = 14 for the paper's program.
    // Our three-address program additionally assigns the temporary t (M^vwrite) and reads it
    // as the index (M^var): by hand, cond tid<16 = 3, M^if = 1, then-branch
    // (t ← tid*4: 1+1+1+1 = 4; G[t] ← 0: 1+1+gwrite(2)=2 → 4) = 8, else-branch
    // (G[tid] ← 0: 1+1+gwrite(1)=1) = 3, M^div = 1: 3+1+8+3+1 = 16 = 14 + 2.
    assert_eq!(r.costs, qs([3, 0, 1, 16]));
    // Final store: G[4x] = 0 for x ∈ [0,15], G[x] = 0 for x ∈ [16,31], nothing else written.
    let mut expected: Vec<i64> = (0..16).map(|x| 4 * x).chain(16..32).collect();
    expected.sort();
    expected.dedup();
    let g = r.memory.array("G").expect("G");
    let written: Vec<i64> = g.written().iter().map(|(i, _)| *i).collect();
    assert_eq!(written, expected);
    assert!(g.written().iter().all(|(_, v)| *v == Value::Int(0)));
    assert_eq!(r.memory.read("G", 1), Some(Value::Int(7)));
    assert_eq!(r.memory.read("G", 33), Some(Value::Int(7)));
    // Derivation: SC:IFD with DCond, DThen (SC:SEQ), DElse (SC:GWRITE).
    let d = r.derivation.expect("derivation");
    assert_eq!(
        d.rules_preorder(),
        vec![
            "SC:IFD",
            "EC:OP",
            "OC:TID",
            "OC:CONST",
            "SC:SEQ",
            "SC:VWRITE",
            "EC:OP",
            "OC:TID",
            "OC:CONST",
            "SC:GWRITE",
            "OC:VAR",
            "OC:CONST",
            "SC:GWRITE",
            "OC:TID",
            "OC:CONST",
        ]
    );
    assert_eq!(d.threads, (0..32).collect::<Vec<u32>>());
    assert_eq!(d.cost, qs([3, 0, 1, 16]));
    assert_eq!(d.children[1].threads, (0..16).collect::<Vec<u32>>());
    assert_eq!(d.children[2].threads, (16..32).collect::<Vec<u32>>());
    // DElse alone: M^var + M^const + M^gwrite(1) (paper) = 3 steps, 1 sector.
    assert_eq!(d.children[2].cost, qs([1, 0, 0, 3]));
    // DCond: M^var + M^const + M^op = 3 steps.
    assert_eq!(d.children[0].cost, qs([0, 0, 0, 3]));
    let text = d.render();
    assert_eq!(text.lines().count(), d.size());
    assert!(text.starts_with("SC:IFD  T={0-31}"));
    assert!(text.contains("\n  SC:SEQ  T={0-15}"));
    let labelled = d.render_with_metrics(&all_metrics());
    assert!(labelled.starts_with(
        "SC:IFD  T={0-31}  cost=sectors:3,conflicts:0,divwarps:1,steps:16  if threadIdx.x < 16"
    ));
}

// ---------------------------------------------------------------- Example 2 (Fig. 7)

/// `t ← i * 16; while (tid >= t) { i ← i + 1; t ← i * 16 }`: the paper's
/// `while (tid ≥ i * 16) i ← i + 1` in three-address form (the condition's `i * 16` is kept
/// in the temporary `t`, recomputed at the end of the body).
fn example2() -> Program {
    program(
        &[],
        vec![],
        &[("i", Ty::Int), ("t", Ty::Int)],
        Stmt::seq(vec![
            assign("t", bin(BinOp::Mul, var("i"), int(16))),
            while_(
                bin(BinOp::Ge, tid(), var("t")),
                Stmt::seq(vec![
                    assign("i", bin(BinOp::Add, var("i"), int(1))),
                    assign("t", bin(BinOp::Mul, var("i"), int(16))),
                ]),
            ),
        ]),
    )
}

#[test]
fn racuda_example2_fig7() {
    let r = run1(&example2(), &Hardware::default(), 32, &Inputs::zero()).expect("runs");
    // By hand (steps): C_e (tid >= t) = M^var + M^var + M^op = 3;
    // C_s (i ← i+1; t ← i*16) = (1+1+1+1) + (1+1+1+1) = 8; M^if = M^div = 1.
    // Loop (paper): 3C_e + 2C_s + 3M^if + M^div = 9 + 16 + 3 + 1 = 29.
    // Plus the initial t ← i*16 = 4: total 33. divwarps = 1 (one WHILESOME).
    assert_eq!(r.costs, qs([0, 0, 1, 33]));
    for x in 0..16 {
        assert_eq!(r.local("i", x), Some(Value::Int(1)), "thread {x}");
    }
    for x in 16..32 {
        assert_eq!(r.local("i", x), Some(Value::Int(2)), "thread {x}");
    }
    let d = r.derivation.expect("derivation");
    assert_eq!(d.rule, "SC:SEQ");
    let w_all = &d.children[1];
    assert_eq!(w_all.rule, "SC:WHILEALL");
    assert_eq!(w_all.threads, (0..32).collect::<Vec<u32>>());
    assert_eq!(w_all.cost[3], q(29));
    let w_some = &w_all.children[2];
    assert_eq!(w_some.rule, "SC:WHILESOME");
    assert_eq!(w_some.threads, (0..32).collect::<Vec<u32>>());
    // D2: 2C_e + C_s + 2M^if + M^div = 6 + 8 + 2 + 1 = 17.
    assert_eq!(w_some.cost, qs([0, 0, 1, 17]));
    // The body of the WHILESOME iteration runs on 𝒯_T = threads 16–31.
    assert_eq!(w_some.children[1].threads, (16..32).collect::<Vec<u32>>());
    let w_none = &w_some.children[2];
    assert_eq!(w_none.rule, "SC:WHILENONE");
    assert_eq!(w_none.threads, (16..32).collect::<Vec<u32>>());
    // D1: C_e + M^if = 4.
    assert_eq!(w_none.cost, qs([0, 0, 0, 4]));
    let loops: Vec<&str> = d
        .rules_preorder()
        .into_iter()
        .filter(|r| r.starts_with("SC:WHILE"))
        .collect();
    assert_eq!(loops, vec!["SC:WHILEALL", "SC:WHILESOME", "SC:WHILENONE"]);
}

// ---------------------------------------------------------------- values

#[test]
fn integer_division_truncates_like_c() {
    let d = |a, b| apply_bin(BinOp::Div, Value::Int(a), Value::Int(b));
    let r = |a, b| apply_bin(BinOp::Rem, Value::Int(a), Value::Int(b));
    assert_eq!(d(-7, 2), Ok(Value::Int(-3)));
    assert_eq!(r(-7, 2), Ok(Value::Int(-1)));
    assert_eq!(d(7, -2), Ok(Value::Int(-3)));
    assert_eq!(r(7, -2), Ok(Value::Int(1)));
    assert!(matches!(d(1, 0), Err(SemError::DivByZero(_))));
    assert!(matches!(r(1, 0), Err(SemError::DivByZero(_))));
    assert!(matches!(d(i64::MIN, -1), Err(SemError::Overflow(_))));
}

#[test]
fn integer_overflow_and_shifts() {
    let b = |op, a, c| apply_bin(op, Value::Int(a), Value::Int(c));
    assert!(matches!(
        b(BinOp::Add, i64::MAX, 1),
        Err(SemError::Overflow(_))
    ));
    assert!(matches!(
        b(BinOp::Sub, i64::MIN, 1),
        Err(SemError::Overflow(_))
    ));
    assert!(matches!(
        b(BinOp::Mul, 1 << 40, 1 << 40),
        Err(SemError::Overflow(_))
    ));
    assert_eq!(b(BinOp::Shl, 1, 62), Ok(Value::Int(1 << 62)));
    assert!(matches!(b(BinOp::Shl, 1, 63), Err(SemError::Overflow(_))));
    assert_eq!(b(BinOp::Shl, -1, 63), Ok(Value::Int(i64::MIN)));
    assert_eq!(b(BinOp::Shr, -8, 1), Ok(Value::Int(-4)));
    assert_eq!(b(BinOp::Shl, 1, -1), Err(SemError::BadShift(-1)));
    assert_eq!(b(BinOp::Shr, 1, 64), Err(SemError::BadShift(64)));
    assert!(matches!(
        apply_un(UnOp::Neg, Value::Int(i64::MIN)),
        Err(SemError::Overflow(_))
    ));
}

#[test]
fn value_types_and_conversions() {
    assert!(matches!(
        apply_bin(BinOp::Add, Value::Int(1), Value::Float(1.0)),
        Err(SemError::Type(_))
    ));
    assert!(matches!(
        apply_bin(BinOp::Add, Value::Bool(true), Value::Bool(true)),
        Err(SemError::Type(_))
    ));
    assert!(matches!(
        apply_bin(BinOp::BitAnd, Value::Float(1.0), Value::Float(1.0)),
        Err(SemError::Type(_))
    ));
    assert_eq!(
        apply_bin(BinOp::Div, Value::Float(1.0), Value::Float(4.0)),
        Ok(Value::Float(0.25))
    );
    assert_eq!(
        apply_bin(BinOp::Lt, Value::Int(-1), Value::Int(0)),
        Ok(Value::Bool(true))
    );
    assert_eq!(
        apply_bin(BinOp::And, Value::Bool(true), Value::Bool(false)),
        Ok(Value::Bool(false))
    );
    assert_eq!(
        apply_bin(BinOp::Max, Value::Int(-3), Value::Int(2)),
        Ok(Value::Int(2))
    );
    assert_eq!(
        apply_un(UnOp::ToInt, Value::Float(-2.7)),
        Ok(Value::Int(-2))
    );
    assert!(matches!(
        apply_un(UnOp::ToInt, Value::Float(f64::NAN)),
        Err(SemError::Overflow(_))
    ));
    assert!(matches!(
        apply_un(UnOp::ToInt, Value::Float(1e19)),
        Err(SemError::Overflow(_))
    ));
    assert_eq!(
        apply_un(UnOp::ToFloat, Value::Int(3)),
        Ok(Value::Float(3.0))
    );
    assert_eq!(apply_un(UnOp::ToBool, Value::Int(3)), Ok(Value::Bool(true)));
    assert_eq!(
        apply_un(UnOp::Not, Value::Bool(true)),
        Ok(Value::Bool(false))
    );
    assert_eq!(apply_un(UnOp::BitNot, Value::Int(0)), Ok(Value::Int(-1)));
    // popc/ffs on the 64-bit two's complement (hand derivation): -1 has 64 ones, -8 is
    // ...11111000 (61 ones, lowest 1 at index 3), 0 has none (ffs 0), 2^40 is bit 40
    for (x, pc, ff) in [
        (0, 0, 0),
        (-1, 64, 1),
        (-8, 61, 4),
        (1 << 40, 1, 41),
        (12, 2, 3),
    ] {
        assert_eq!(
            apply_un(UnOp::Popc, Value::Int(x)),
            Ok(Value::Int(pc)),
            "popc {x}"
        );
        assert_eq!(
            apply_un(UnOp::Ffs, Value::Int(x)),
            Ok(Value::Int(ff)),
            "ffs {x}"
        );
    }
    assert!(matches!(
        apply_un(UnOp::Popc, Value::Bool(true)),
        Err(SemError::Type(_))
    ));
    assert_eq!(UnOp::from_name("popc"), Some(UnOp::Popc));
    assert_eq!(UnOp::from_name(UnOp::Ffs.name()), Some(UnOp::Ffs));
    assert!(matches!(
        apply_un(UnOp::Not, Value::Int(0)),
        Err(SemError::Type(_))
    ));
}

#[test]
fn runtime_errors_are_values_with_location() {
    // x ← 1 / tid: thread 0 divides by zero.
    let loc = Loc { line: 3, col: 5 };
    let p = program(
        &[],
        vec![],
        &[("x", Ty::Int)],
        Stmt::Assign("x".into(), bin(BinOp::Div, int(1), tid()), loc),
    );
    let e = run1(&p, &Hardware::default(), 32, &Inputs::zero()).unwrap_err();
    assert!(matches!(e, SemError::At { loc: l, .. } if l == loc));
    assert!(matches!(e.root(), SemError::DivByZero(_)));
    // Assigning a float to an int local is a type error, not a panic.
    let p = program(
        &[],
        vec![],
        &[("x", Ty::Int)],
        assign("x", opd(Operand::Const(Const::Float(1.0)))),
    );
    let e = run1(&p, &Hardware::default(), 4, &Inputs::zero()).unwrap_err();
    assert!(matches!(e.root(), SemError::Type(_)));
    // An undeclared local.
    let p = program(&[], vec![], &[], assign("y", opd(int(1))));
    let e = run1(&p, &Hardware::default(), 4, &Inputs::zero()).unwrap_err();
    assert!(matches!(
        e.root(),
        SemError::Undeclared { kind: "local", .. }
    ));
}

// ---------------------------------------------------------------- races, fuel, sync

#[test]
fn write_write_race_is_reported() {
    // G[0] ← tid on 32 threads: threads 0 and 1 write 0 and 1 to G[0].
    let p = program(
        &[],
        vec![arr("G", Space::Global, Ty::Int, 4)],
        &[],
        write("G", int(0), opd(tid())),
    );
    let e = run1(&p, &Hardware::default(), 32, &Inputs::zero()).unwrap_err();
    match e.root() {
        SemError::Race {
            array,
            index,
            t1,
            t2,
            ..
        } => {
            assert_eq!(array, "G");
            assert_eq!(*index, 0);
            assert_eq!((*t1, *t2), (0, 1));
        }
        other => panic!("expected a race, got {other}"),
    }
    // The same on a shared array, index tid/2 (pairs of threads collide).
    let p = program(
        &[],
        vec![arr("S", Space::Shared, Ty::Int, 4)],
        &[("h", Ty::Int)],
        Stmt::seq(vec![
            assign("h", bin(BinOp::Div, tid(), int(2))),
            write("S", var("h"), opd(tid())),
        ]),
    );
    let e = run1(&p, &Hardware::default(), 32, &Inputs::zero()).unwrap_err();
    assert!(matches!(e.root(), SemError::Race { array, index: 0, .. } if array == "S"));
}

#[test]
fn writes_of_equal_values_are_not_races() {
    // G[0] ← 5 on all threads: documented choice, the store gets 5.
    // One cell, one sector: sectors = 1; steps = M^const + M^const + M^gwrite(1) = 3.
    let p = program(
        &[],
        vec![arr("G", Space::Global, Ty::Int, 4)],
        &[],
        write("G", int(0), opd(int(5))),
    );
    let r = run1(&p, &Hardware::default(), 32, &Inputs::zero()).expect("no race");
    assert_eq!(r.memory.read("G", 0), Some(Value::Int(5)));
    assert_eq!(r.costs, qs([1, 0, 0, 3]));
}

#[test]
fn nontermination_runs_out_of_fuel() {
    let p = program(
        &[],
        vec![],
        &[],
        while_(opd(Operand::Const(Const::Bool(true))), Stmt::Skip),
    );
    let opts = RunOptions {
        fuel: 10_000,
        derivation: false,
    };
    let e = run_warp(
        &p,
        &all_metrics(),
        &Hardware::default(),
        &launch1(32),
        [0, 0, 0],
        0,
        &Params::new(),
        &Inputs::zero(),
        &opts,
    )
    .unwrap_err();
    assert_eq!(e.root(), &SemError::OutOfFuel(10_000));
    // The same through a kernel run names the warp.
    let e = run_kernel_with(
        &p,
        &all_metrics(),
        &Hardware::default(),
        &launch1(32),
        &Params::new(),
        &Inputs::zero(),
        &opts,
    )
    .unwrap_err();
    assert!(matches!(e, SemError::InWarp { warp: 0, .. }));
}

#[test]
fn sync_costs_m_sync_and_uniform_ifs_do_not_diverge() {
    // if (p < 3) then sync else skip, with p = 1: SC:IFT, uniform.
    // steps: M^param + M^const + M^op = 3, M^if = 1, M^sync = 1: 5; divwarps 0.
    let p = program(
        &[("p", Ty::Int)],
        vec![],
        &[],
        if_(
            bin(BinOp::Lt, param("p"), int(3)),
            Stmt::Sync(Loc::default()),
            Stmt::Skip,
        ),
    );
    let params: Params = [("p".to_string(), Value::Int(1))].into_iter().collect();
    let run = |params: &Params| {
        run_warp(
            &p,
            &all_metrics(),
            &Hardware::default(),
            &launch1(32),
            [0, 0, 0],
            0,
            params,
            &Inputs::zero(),
            &traced(),
        )
    };
    let r = run(&params).expect("runs");
    assert_eq!(r.costs, qs([0, 0, 0, 5]));
    let d = r.derivation.expect("derivation");
    assert_eq!(d.rules_preorder()[0], "SC:IFT");
    assert_eq!(d.children[1].rule, "SC:SYNC");
    // p = 5: SC:IFF, skip costs 0: steps 3 + 1 = 4.
    let params: Params = [("p".to_string(), Value::Int(5))].into_iter().collect();
    let r = run(&params).expect("runs");
    assert_eq!(r.costs, qs([0, 0, 0, 4]));
    assert_eq!(
        r.derivation.expect("derivation").rules_preorder(),
        vec!["SC:IFF", "EC:OP", "OC:PARAM", "OC:CONST", "SC:SKIP"]
    );
    // Missing parameter value: a clear error listing it.
    let e = run(&Params::new()).unwrap_err();
    assert_eq!(e, SemError::MissingParams(vec!["p".into()]));
    // Wrong type.
    let params: Params = [("p".to_string(), Value::Bool(true))].into_iter().collect();
    assert!(matches!(run(&params), Err(SemError::ParamType { .. })));
}

// ---------------------------------------------------------------- shared memory

#[test]
fn shared_accesses_charge_conflicts() {
    // h ← tid * 2; S[h] ← 1; x ← S[h]  (int, 4 bytes, 32 banks of 4 bytes).
    // Stride 2 over 32 threads: indices 0..62 step 2, banks 0,2,..,30 each hit by two distinct
    // addresses: Conflicts = 2 for the write and the read.
    // conflicts metric: (2-1) + (2-1) = 2.
    // steps: h ← tid*2: 4; S[h] ← 1: 1 + 1 + swrite(2)=2 → 4; x ← S[h]: 1 + sread(2)=2 + 1 → 4.
    // Total 12.
    let p = program(
        &[],
        vec![arr("S", Space::Shared, Ty::Int, 4)],
        &[("h", Ty::Int), ("x", Ty::Int)],
        Stmt::seq(vec![
            assign("h", bin(BinOp::Mul, tid(), int(2))),
            write("S", var("h"), opd(int(1))),
            assign("x", read("S", var("h"))),
        ]),
    );
    let r = run1(&p, &Hardware::default(), 32, &Inputs::zero()).expect("runs");
    assert_eq!(r.costs, qs([0, 2, 0, 12]));
    assert_eq!(r.local("x", 31), Some(Value::Int(1)));
    let rules = r.derivation.expect("derivation").rules_preorder();
    assert!(rules.contains(&"SC:SWRITE") && rules.contains(&"EC:SARR"));
}

#[test]
fn shared_memory_is_per_block_and_global_memory_is_shared() {
    // x ← S[tid]; S[tid] ← 9; G[g] ← x with g = blockIdx.x * 32 + tid: every block must read
    // the shared input (0), not the previous block's 9.
    let p = program(
        &[("blockIdx.x", Ty::Int)],
        vec![
            arr("G", Space::Global, Ty::Int, 4),
            arr("S", Space::Shared, Ty::Int, 4),
        ],
        &[("x", Ty::Int), ("g", Ty::Int)],
        Stmt::seq(vec![
            assign("x", read("S", tid())),
            write("S", tid(), opd(int(9))),
            assign("g", bin(BinOp::Mul, param("blockIdx.x"), int(32))),
            assign("g", bin(BinOp::Add, var("g"), tid())),
            write("G", var("g"), opd(var("x"))),
        ]),
    );
    let launch = Launch {
        block: [32, 1, 1],
        grid: Some([3, 1, 1]),
    };
    let input = Inputs::zero().with_array("G", ArrayInit::Fill(Value::Int(-1)));
    let r = run_kernel(
        &p,
        &all_metrics(),
        &Hardware::default(),
        &launch,
        &Params::new(),
        &input,
    )
    .expect("runs");
    assert_eq!((r.blocks, r.warps), (3, 3));
    for i in 0..96 {
        assert_eq!(r.memory.read("G", i), Some(Value::Int(0)), "G[{i}]");
    }
    assert_eq!(r.memory.read("G", 96), Some(Value::Int(-1)));
}

// ---------------------------------------------------------------- inputs

#[test]
fn random_inputs_are_deterministic_and_in_range() {
    for i in -5..200 {
        let a = random_value(42, "A", i, Ty::Int);
        assert_eq!(a, random_value(42, "A", i, Ty::Int));
        assert!(matches!(a, Value::Int(n) if (0..=255).contains(&n)));
        let f = random_value(42, "F", i, Ty::Float);
        assert!(matches!(f, Value::Float(x) if (0.0..1.0).contains(&x)));
    }
    // Different seeds, names and indices give different values somewhere.
    let seq = |seed, name: &str| -> Vec<Value> {
        (0..64)
            .map(|i| random_value(seed, name, i, Ty::Int))
            .collect()
    };
    assert_ne!(seq(1, "A"), seq(2, "A"));
    assert_ne!(seq(1, "A"), seq(1, "B"));
    let s = seq(1, "A");
    assert!(s.iter().any(|v| *v != s[0]));
    // A program reading the input sees exactly these values, in every run.
    let p = program(
        &[],
        vec![arr("A", Space::Global, Ty::Int, 4)],
        &[("x", Ty::Int)],
        assign("x", read("A", tid())),
    );
    for _ in 0..2 {
        let r = run1(&p, &Hardware::default(), 32, &Inputs::random(7)).expect("runs");
        for t in 0..32u32 {
            assert_eq!(
                r.local("x", t),
                Some(random_value(7, "A", t as i64, Ty::Int))
            );
        }
    }
}

#[test]
fn explicit_array_contents() {
    let p = program(
        &[],
        vec![arr("A", Space::Global, Ty::Int, 4)],
        &[("x", Ty::Int)],
        assign("x", read("A", tid())),
    );
    let input =
        Inputs::random(3).with_array("A", ArrayInit::Values(vec![Value::Int(10), Value::Int(11)]));
    let r = run1(&p, &Hardware::default(), 4, &input).expect("runs");
    assert_eq!(r.local("x", 0), Some(Value::Int(10)));
    assert_eq!(r.local("x", 1), Some(Value::Int(11)));
    assert_eq!(r.local("x", 2), Some(random_value(3, "A", 2, Ty::Int)));
    // Wrong element type or unknown array: BadInput.
    let bad = Inputs::zero().with_array("A", ArrayInit::Fill(Value::Float(1.0)));
    assert!(matches!(
        run1(&p, &Hardware::default(), 4, &bad),
        Err(SemError::BadInput(_))
    ));
    let bad = Inputs::zero().with_array("Z", ArrayInit::Fill(Value::Int(1)));
    assert!(matches!(
        run1(&p, &Hardware::default(), 4, &bad),
        Err(SemError::BadInput(_))
    ));
}

#[test]
fn locals_start_at_default_values() {
    let p = program(
        &[],
        vec![],
        &[("i", Ty::Int), ("b", Ty::Bool), ("f", Ty::Float)],
        Stmt::Skip,
    );
    let r = run1(&p, &Hardware::default(), 3, &Inputs::random(1)).expect("runs");
    assert_eq!(r.local("i", 2), Some(Value::Int(0)));
    assert_eq!(r.local("b", 2), Some(Value::Bool(false)));
    assert_eq!(r.local("f", 2), Some(Value::Float(0.0)));
    assert_eq!(r.costs, qs([0, 0, 0, 0]));
}

// ---------------------------------------------------------------- kernels and launches

/// vectorAdd: `t ← blockIdx.x * 256; i ← t + tid; p ← i < n;
/// if p then (a ← A[i]; b ← B[i]; c ← a + b; C[i] ← c) else skip`.
fn vector_add() -> Program {
    program(
        &[("n", Ty::Int), ("blockIdx.x", Ty::Int)],
        vec![
            arr("A", Space::Global, Ty::Float, 4),
            arr("B", Space::Global, Ty::Float, 4),
            arr("C", Space::Global, Ty::Float, 4),
        ],
        &[
            ("t", Ty::Int),
            ("i", Ty::Int),
            ("p", Ty::Bool),
            ("a", Ty::Float),
            ("b", Ty::Float),
            ("c", Ty::Float),
        ],
        Stmt::seq(vec![
            assign("t", bin(BinOp::Mul, param("blockIdx.x"), int(256))),
            assign("i", bin(BinOp::Add, var("t"), tid())),
            assign("p", bin(BinOp::Lt, var("i"), param("n"))),
            if_(
                opd(var("p")),
                Stmt::seq(vec![
                    assign("a", read("A", var("i"))),
                    assign("b", read("B", var("i"))),
                    assign("c", bin(BinOp::Add, var("a"), var("b"))),
                    write("C", var("i"), opd(var("c"))),
                ]),
                Stmt::Skip,
            ),
        ]),
    )
}

#[test]
fn vector_add_kernel_2_pow_16_threads() {
    // 256 blocks of 256 threads = 65536 threads = 2048 warps; n = 65528.
    // By hand, a full warp (32 aligned consecutive floats = 4 sectors of 32 bytes):
    //   t ← bx*256: 4; i ← t+tid: 4; p ← i<n: 4; if p: M^var + M^if = 2;
    //   a ← A[i]: 1 + 4 + 1 = 6; b ← B[i]: 6; c ← a+b: 4; C[i] ← c: 1 + 1 + 4 = 6
    //   steps = 36, sectors = 12.
    // The last warp (threads 65504..65535, 24 active): SC:IFD, then-branch on 24 floats
    // = 96 aligned bytes = 3 sectors: 5 + 5 + 4 + 5 = 19, else skip = 0, M^div = 1:
    //   steps = 12 + 2 + 19 + 1 = 34, sectors = 9, divwarps = 1.
    // Totals: steps 2047·36 + 34 = 73726, sectors 2047·12 + 9 = 24573.
    let launch = Launch {
        block: [256, 1, 1],
        grid: Some([256, 1, 1]),
    };
    let params: Params = [("n".to_string(), Value::Int(65528))].into_iter().collect();
    let r = run_kernel(
        &vector_add(),
        &all_metrics(),
        &Hardware::default(),
        &launch,
        &params,
        &Inputs::random(11),
    )
    .expect("runs");
    assert_eq!(r.warps, 2048);
    let by = |m: MetricName| r.metrics.iter().find(|x| x.metric == m).expect("metric");
    assert_eq!(by(MetricName::Steps).max_per_warp, q(36));
    assert_eq!(by(MetricName::Steps).total, q(73726));
    assert_eq!(by(MetricName::Sectors).max_per_warp, q(12));
    assert_eq!(by(MetricName::Sectors).total, q(24573));
    assert_eq!(by(MetricName::Divwarps).max_per_warp, q(1));
    assert_eq!(by(MetricName::Divwarps).total, q(1));
    assert_eq!(by(MetricName::Divwarps).worst_warp, Some(([255, 0, 0], 7)));
    assert_eq!(by(MetricName::Conflicts).total, q(0));
    // C[i] = A[i] + B[i] below n, untouched above.
    for i in [0i64, 1, 255, 256, 40000, 65527] {
        let (Value::Float(a), Value::Float(b)) = (
            random_value(11, "A", i, Ty::Float),
            random_value(11, "B", i, Ty::Float),
        ) else {
            panic!("float inputs")
        };
        assert_eq!(r.memory.read("C", i), Some(Value::Float(a + b)));
    }
    assert_eq!(
        r.memory.read("C", 65530),
        Some(random_value(11, "C", 65530, Ty::Float))
    );
}

#[test]
fn partial_last_warp_and_2d_blocks() {
    // Block 8×5 = 40 threads: warp 0 has threads 0..31, warp 1 threads 32..39, whose
    // threadIdx = (t mod 8, t / 8): thread 39 is (7, 4).
    let p = program(
        &[],
        vec![],
        &[("x", Ty::Int), ("y", Ty::Int)],
        Stmt::seq(vec![
            assign("x", opd(tid())),
            assign("y", opd(Operand::Tid(Dim::Y))),
        ]),
    );
    let launch = Launch {
        block: [8, 5, 1],
        grid: None,
    };
    let r = run_warp(
        &p,
        &all_metrics(),
        &Hardware::default(),
        &launch,
        [0, 0, 0],
        1,
        &Params::new(),
        &Inputs::zero(),
        &RunOptions::default(),
    )
    .expect("runs");
    assert_eq!(r.threads, (32..40).collect::<Vec<u32>>());
    assert_eq!(r.local("x", 39), Some(Value::Int(7)));
    assert_eq!(r.local("y", 39), Some(Value::Int(4)));
    assert!(r.derivation.is_none());
    // Warp 2 does not exist.
    let e = run_warp(
        &p,
        &all_metrics(),
        &Hardware::default(),
        &launch,
        [0, 0, 0],
        2,
        &Params::new(),
        &Inputs::zero(),
        &RunOptions::default(),
    );
    assert!(matches!(e, Err(SemError::BadLaunch(_))));
    // A kernel run needs a concrete grid.
    let e = run_kernel(
        &p,
        &all_metrics(),
        &Hardware::default(),
        &launch,
        &Params::new(),
        &Inputs::zero(),
    );
    assert_eq!(e.unwrap_err(), SemError::SymbolicGrid);
}

// ---------------------------------------------------------------- rule names

#[test]
fn rule_names_match_spec() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/semantics.md");
    let text = std::fs::read_to_string(&path).expect("spec/semantics.md exists");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("semantic-rules:"))
        .expect("a `semantic-rules:` line");
    let names: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(names, RULES.to_vec());
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "duplicate rule names");
}

// ---------------------------------------------------------------- loops

#[test]
fn gradually_shrinking_loop_pays_div_each_split() {
    // while (i < tid) i ← i + 1, 32 threads, i = 0 initially. By hand: at iteration k
    // (k = 1..31) the active threads are k-1..31 and thread k-1 (i = k-1) leaves, so the
    // set splits every time: 31 × SC:WHILESOME; iteration 32 runs on {31} with i = 31:
    // SC:WHILENONE. Steps: 32 conditions × (M^var + M^var + M^op + M^if = 4) = 128,
    // 31 bodies × (1 + 1 + 1 + 1 = 4) = 124, 31 × M^div: 283. divwarps 31.
    let p = program(
        &[],
        vec![],
        &[("i", Ty::Int)],
        while_(
            bin(BinOp::Lt, var("i"), tid()),
            assign("i", bin(BinOp::Add, var("i"), int(1))),
        ),
    );
    let r = run1(&p, &Hardware::default(), 32, &Inputs::zero()).expect("runs");
    assert_eq!(r.costs, qs([0, 0, 31, 283]));
    for t in 0..32u32 {
        assert_eq!(r.local("i", t), Some(Value::Int(t as i64)));
    }
    let rules = r.derivation.expect("derivation").rules_preorder();
    let loops: Vec<&str> = rules
        .into_iter()
        .filter(|r| r.starts_with("SC:WHILE"))
        .collect();
    let mut expected = vec!["SC:WHILESOME"; 31];
    expected.push("SC:WHILENONE");
    assert_eq!(loops, expected);
}

#[test]
fn deep_derivations_do_not_overflow_the_stack() {
    // while (i < 20000) i ← i + 1 with the derivation built: 20001 nested loop nodes.
    // Steps by hand: 20001 conditions × 4 + 20000 bodies × 4 = 160004.
    let p = program(
        &[],
        vec![],
        &[("i", Ty::Int)],
        while_(
            bin(BinOp::Lt, var("i"), int(20_000)),
            assign("i", bin(BinOp::Add, var("i"), int(1))),
        ),
    );
    let r = run1(&p, &Hardware::default(), 32, &Inputs::zero()).expect("runs");
    assert_eq!(r.costs, qs([0, 0, 0, 160_004]));
    let d = r.derivation.expect("derivation");
    // Nodes per WHILEALL iteration: loop, EC:OP, 2 operands, VWRITE, EC:OP, 2 operands = 8;
    // the final WHILENONE: 4.
    assert_eq!(d.size(), 20_000 * 8 + 4);
    assert_eq!(d.render().lines().count(), d.size());
    drop(d);
}

#[test]
fn kernel_run_agrees_with_warp_runs() {
    // Example 2 on a block of 64 threads: warp 0 as in Fig. 7 (33 steps); warp 1 (threads
    // 32..63) by hand: i=0,t=0: all true (WHILEALL); i=1,t=16: all true (WHILEALL);
    // i=2,t=32: all true (WHILEALL); i=3,t=48: 48..63 true (WHILESOME, body on 16
    // threads); i=4,t=64: none. 5 conditions × 4 + 4 bodies × 8 + 1 div + initial 4 = 57.
    let launch = Launch {
        block: [64, 1, 1],
        grid: Some([1, 1, 1]),
    };
    let metrics = all_metrics();
    let r = run_kernel(
        &example2(),
        &metrics,
        &Hardware::default(),
        &launch,
        &Params::new(),
        &Inputs::zero(),
    )
    .expect("runs");
    let steps = r
        .metrics
        .iter()
        .find(|m| m.metric == MetricName::Steps)
        .expect("steps");
    assert_eq!(steps.max_per_warp, q(57));
    assert_eq!(steps.total, q(33 + 57));
    assert_eq!(steps.worst_warp, Some(([0, 0, 0], 1)));
    let w1 = run_warp(
        &example2(),
        &metrics,
        &Hardware::default(),
        &launch,
        [0, 0, 0],
        1,
        &Params::new(),
        &Inputs::zero(),
        &RunOptions::default(),
    )
    .expect("runs");
    assert_eq!(w1.costs, qs([0, 0, 1, 57]));
    assert_eq!(w1.local("i", 63), Some(Value::Int(4)));
    assert_eq!(w1.local("i", 40), Some(Value::Int(3)));
}

#[test]
fn bad_hardware_is_an_error() {
    let hw = Hardware {
        sector_bytes: 0,
        ..Hardware::default()
    };
    assert!(matches!(
        run1(&example1(), &hw, 32, &Inputs::zero()),
        Err(SemError::BadLaunch(_))
    ));
    let launch = Launch {
        block: [u32::MAX, u32::MAX, 2],
        grid: Some([1, 1, 1]),
    };
    let e = run_kernel(
        &example1(),
        &all_metrics(),
        &Hardware::default(),
        &launch,
        &Params::new(),
        &Inputs::zero(),
    );
    assert!(matches!(e, Err(SemError::BadLaunch(_))));
}

#[test]
fn rational_metrics_are_exact() {
    // Example 1 (our three-address form) charges, by hand: 4 × M^var (tid in the condition,
    // tid in t ← tid*4, t as index, tid as index), 4 × M^const, 2 × M^op, 1 × M^vwrite,
    // M^if, M^div, and M^gwrite(2) + M^gwrite(1).
    // A steps-like metric with M^var = 1/3 and M^gwrite(n) = 3/2·n + 1/4:
    //   4/3 + 4 + 2 + 1 + 1 + 1 + (3/2·2 + 1/4) + (3/2·1 + 1/4) = 46/3.
    use warpcert::core::metric::Affine;
    let mut m = Metric::standard(MetricName::Steps);
    m.var = Q::new(1.into(), 3.into());
    m.gwrite = Affine {
        mul: Q::new(3.into(), 2.into()),
        add: Q::new(1.into(), 4.into()),
    };
    let hw = Hardware {
        sector_bytes: 128,
        ..Hardware::default()
    };
    let r = run_warp(
        &example1(),
        &[m, Metric::standard(MetricName::Steps)],
        &hw,
        &launch1(32),
        [0, 0, 0],
        0,
        &Params::new(),
        &Inputs::zero(),
        &traced(),
    )
    .expect("runs");
    assert_eq!(r.costs, vec![Q::new(46.into(), 3.into()), q(16)]);
    assert_eq!(r.derivation.expect("derivation").cost, r.costs);
}

/// Checks, for every node of `d`, that its cost (index `k` = the steps metric) is the sum
/// of its premises' costs plus the rule's own charge under Table 1's steps metric:
/// 1 for operands, operators, assignments, `M^if`, `M^sync`; `M^if + M^div` = 2 for
/// SC:IFD and SC:WHILESOME; 0 for SC:SKIP and SC:SEQ; `n ≥ 1` for memory accesses
/// (returned in pre-order so callers can check them).
fn check_composition(d: &Derivation, k: usize) -> Vec<Q> {
    let mut accesses = Vec::new();
    let mut stack = vec![d];
    while let Some(n) = stack.pop() {
        let kids: Q = n.children.iter().map(|c| c.cost[k].clone()).sum();
        let own = n.cost[k].clone() - kids;
        match n.rule {
            "SC:SKIP" | "SC:SEQ" => assert_eq!(own, q(0), "{}", n.rule),
            "SC:IFD" | "SC:WHILESOME" => assert_eq!(own, q(2), "{}", n.rule),
            "EC:GARR" | "EC:SARR" | "SC:GWRITE" | "SC:SWRITE" => {
                assert!(own >= q(1), "{}", n.rule);
                accesses.push(own);
            }
            r => {
                assert!(RULES.contains(&r));
                assert_eq!(own, q(1), "{r}");
            }
        }
        stack.extend(n.children.iter().rev());
    }
    accesses
}

#[test]
fn derivation_costs_compose() {
    let steps = 3; // index of steps in all_metrics()
    let hw = Hardware {
        sector_bytes: 128,
        ..Hardware::default()
    };
    let d1 = run1(&example1(), &hw, 32, &Inputs::zero())
        .expect("runs")
        .derivation
        .expect("derivation");
    // The two writes of Fig. 6: MemReads 2 (then) and 1 (else).
    assert_eq!(check_composition(&d1, steps), vec![q(2), q(1)]);
    let r2 = run1(&example2(), &Hardware::default(), 32, &Inputs::zero()).expect("runs");
    let d2 = r2.derivation.as_ref().expect("derivation");
    assert!(check_composition(d2, steps).is_empty());
    // Fuel = rule applications = derivation nodes (spec/semantics.md §7).
    assert_eq!(r2.rule_applications, d2.size() as u64);
}
