//! Differential test of the executable semantics (issue 13, item 5): on generated race-free
//! kernels, the whole-grid lock-step run (`run_kernel`: lanes evaluated over slices, blocks
//! in parallel on overlay stores, dense array cells) and the interleaving semantics (every
//! thread stepping alone under a random schedule, one lane at a time, race checking on) must
//! leave the same array contents, and the lock-step run must agree with itself on one and
//! on two rayon threads (memory and every metric's maximum and total).
//!
//! The reference is the other semantics: each kernel writes only its own cells
//! (`out[gid]`, `outf[gid]`) and reads only arrays it never writes, so every schedule —
//! lock-step warps or single threads in any order — computes the same final store
//! (Collingbourne et al. 2013, Thm. 1: race-free kernels are deterministic). Kernels mix
//! integer and float arithmetic, comparisons, divergent `if`s and divergent loops on
//! values read from random inputs.

mod common;

use common::rng::Rng;
use warpcert::core::BinOp;
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
use warpcert::semantics::interleaving::{
    run_interleaving, InterleavingOptions, Outcome, Scheduler,
};
use warpcert::semantics::value::{apply_bin, apply_bin_lanes};
use warpcert::semantics::{run_kernel, Inputs, KernelRun, Memory, Params, Value};

/// A random race-free kernel of about `len` statements over int locals `x0..` and float
/// locals `f0..` (all initialized from the inputs), ending with one write per thread.
fn kernel(seed: u64, len: usize) -> String {
    let mut r = Rng::new(seed);
    let mut body = String::from(
        "    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n    int x0 = a[gid];\n    \
         int x1 = threadIdx.x;\n    float f0 = fa[gid];\n",
    );
    let (mut xs, mut fs) = (2usize, 1usize);
    for i in 0..len {
        let (nx, nf) = (xs as u64, fs as u64);
        let x = |r: &mut Rng| format!("x{}", r.below(nx));
        let f = |r: &mut Rng| format!("f{}", r.below(nf));
        let line = match r.below(7) {
            0 | 1 => {
                let op = ["+", "-", "*", "&", "^", "<<"][r.below(6) as usize];
                let rhs = if op == "<<" {
                    format!("({} & 7)", x(&mut r))
                } else {
                    x(&mut r)
                };
                let s = format!("int x{xs} = ({} {op} {rhs}) & 4095;", x(&mut r));
                xs += 1;
                s
            }
            2 => {
                let op = ["+", "-", "*"][r.below(3) as usize];
                let s = format!("float f{fs} = {} {op} {} * 0.5f;", f(&mut r), f(&mut r));
                fs += 1;
                s
            }
            3 => {
                let (a, b, c) = (x(&mut r), x(&mut r), x(&mut r));
                let cmp = ["<", "<=", "==", "!="][r.below(4) as usize];
                format!(
                    "if ({a} {cmp} {b}) {{ {c} = {a} + 3; }} else {{ {c} = ({b} - 1) & 4095; }}"
                )
            }
            4 => {
                let (a, b) = (x(&mut r), x(&mut r));
                format!(
                    "for (int k{i} = 0; k{i} < ({a} & 3); k{i}++) {{ {b} = ({b} + k{i}) & 4095; }}"
                )
            }
            5 => {
                let (a, g, h) = (x(&mut r), f(&mut r), f(&mut r));
                format!("if ({g} < {h}) {{ {a} = {a} + 1; }}")
            }
            _ => {
                let s = format!("int x{xs} = a[({} & 255)] + x1;", x(&mut r));
                xs += 1;
                s
            }
        };
        body.push_str("    ");
        body.push_str(&line);
        body.push('\n');
    }
    let (lx, lf) = (xs - 1, fs - 1);
    format!(
        "__global__ void k(const int *a, const float *fa, int *out, float *outf) {{\n{body}    \
         out[gid] = x{lx};\n    outf[gid] = f{lf};\n}}\n"
    )
}

fn lower(src: &str, launch: &Launch) -> Program {
    common::lower_str("gen.cu", src, launch)
}

fn written(m: &Memory, name: &str) -> Vec<(i64, Value)> {
    m.array(name).map(|a| a.written()).unwrap_or_default()
}

fn lockstep(threads: usize, prog: &Program, launch: &Launch, seed: u64) -> KernelRun {
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    pool.install(|| {
        run_kernel(
            prog,
            &metrics,
            &Hardware::default(),
            launch,
            &Params::new(),
            &Inputs::random(seed),
        )
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

fn same(a: &[(i64, Value)], b: &[(i64, Value)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((i, v), (j, w))| i == j && v.same_bits(*w))
}

#[test]
fn lockstep_and_interleaving_agree_on_generated_race_free_kernels() {
    // 3 blocks of 96 threads: three warps per block, the last ones full; several blocks so
    // that the lock-step run uses overlays.
    let launch = Launch {
        block: [96, 1, 1],
        grid: Some([3, 1, 1]),
    };
    let threads = 96 * 3;
    for seed in 1..=24u64 {
        let src = kernel(seed, 6 + (seed as usize % 10));
        let prog = lower(&src, &launch);
        let one = lockstep(1, &prog, &launch, seed);
        let two = lockstep(2, &prog, &launch, seed);
        for name in ["out", "outf"] {
            let w = written(&one.memory, name);
            assert_eq!(
                w.len(),
                threads,
                "seed {seed}: every thread writes {name}\n{src}"
            );
            assert!(
                same(&w, &written(&two.memory, name)),
                "seed {seed}: 1 vs 2 threads"
            );
        }
        assert_eq!(
            one.metrics, two.metrics,
            "seed {seed}: costs on 1 vs 2 threads"
        );
        let opts = InterleavingOptions {
            scheduler: Scheduler::Random(seed),
            max_steps: 10_000_000,
            detect_races: true,
            benign_equal_writes: false,
            trace: false,
        };
        let il = run_interleaving(
            &prog,
            &Hardware::default(),
            &launch,
            &Params::new(),
            &Inputs::random(seed),
            &opts,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(il.outcome, Outcome::Terminated, "seed {seed}\n{src}");
        for name in ["out", "outf"] {
            assert!(
                same(&written(&one.memory, name), &written(&il.memory, name)),
                "seed {seed}: lock-step and interleaving disagree on {name}\n{src}"
            );
        }
    }
}

/// `apply_bin_lanes` (EC:OP over a family, with an inlined fast path for common int/float
/// cases) gives, lane by lane, exactly `apply_bin`'s value (same bits) or its error — the
/// reference is `apply_bin`, the per-thread definition of EC:OP — on every operator and
/// every pair of edge values (extremes, zero, ±1, NaN, ±∞, −0.0, booleans), and on a
/// family of all pairs at once (the first error in lane order).
#[test]
fn ec_op_over_a_family_is_apply_bin_lane_by_lane() {
    use BinOp::*;
    let ops = [
        Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor, Lt, Le, Gt, Ge, Eq, Ne, And, Or,
        Min, Max,
    ];
    let mut vals = vec![Value::Bool(false), Value::Bool(true)];
    for i in [
        i64::MIN,
        i64::MIN + 1,
        -7,
        -1,
        0,
        1,
        3,
        64,
        i64::MAX - 1,
        i64::MAX,
    ] {
        vals.push(Value::Int(i));
    }
    for f in [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        1.5,
        -3.25,
        f64::MAX,
        f64::MIN_POSITIVE,
    ] {
        vals.push(Value::Float(f));
    }
    for op in ops {
        let (mut xs, mut ys) = (Vec::new(), Vec::new());
        for &a in &vals {
            for &b in &vals {
                let want = apply_bin(op, a, b);
                let mut x = [a];
                let got = apply_bin_lanes(op, &mut x, &[b]).map(|()| x[0]);
                match (&got, &want) {
                    (Ok(g), Ok(w)) => assert!(g.same_bits(*w), "{op:?} {a} {b}: {g} vs {w}"),
                    _ => assert_eq!(got, want, "{op:?} {a} {b}"),
                }
                xs.push(a);
                ys.push(b);
            }
        }
        // the whole family: the first error in lane order, else every lane's value
        let want: Result<Vec<Value>, _> = xs
            .iter()
            .zip(&ys)
            .map(|(&a, &b)| apply_bin(op, a, b))
            .collect();
        let got = apply_bin_lanes(op, &mut xs, &ys).map(|()| xs.clone());
        match (got, want) {
            (Ok(g), Ok(w)) => assert!(g.iter().zip(&w).all(|(a, b)| a.same_bits(*b))),
            (g, w) => assert_eq!(g.err(), w.err(), "{op:?}"),
        }
    }
}
