//! Differential test of the one-lane rules (`src/semantics/lockstep/scalar.rs`, the thread
//! steps of the interleaving semantics) against the family rules of `lockstep.rs` (issue 13,
//! item 5).
//!
//! The reference is the lock-step run of the same grid with blocks of **one thread**: each
//! block is one warp of one lane, run with the family rules on the active set `{0}`, blocks
//! in linear order sharing the global arrays. The interleaving semantics on that grid runs
//! the same blocks in the same order, each block's only thread stepping alone through the
//! one-lane rules, so the two runs must charge the same usage (every resource constant,
//! hence the same cost under every metric), leave the same arrays (same bits) and stop with
//! the same error at the same location. Generated kernels mix int and float arithmetic,
//! divisions by values that may be zero and products that may overflow (errors), global
//! arrays read and written at data-dependent indices (blocks communicate through them),
//! shared arrays, branches, loops and barriers.

mod common;

use common::rng::Rng;
use quickcheck::{QuickCheck, TestResult};
use warpcert::core::{Hardware, Launch, Metric, MetricName, Program};
use warpcert::semantics::interleaving::{
    run_interleaving, InterleavingOptions, Outcome, Scheduler,
};
use warpcert::semantics::{run_kernel, Inputs, Memory, Params, SemError};

/// One random statement over int locals `x0..xs` and float locals `f0..fs` (new locals
/// are declared by incrementing the counts).
fn statement(r: &mut Rng, i: usize, xs: &mut usize, fs: &mut usize) -> String {
    let (nx, nf) = (*xs as u64, *fs as u64);
    let x = |r: &mut Rng| format!("x{}", r.below(nx));
    let f = |r: &mut Rng| format!("f{}", r.below(nf));
    match r.below(12) {
        0 | 1 => {
            let op = ["+", "-", "*", "&", "^", "|", "<<", ">>"][r.below(8) as usize];
            let rhs = if op == "<<" || op == ">>" {
                format!("({} & 7)", x(r))
            } else {
                x(r)
            };
            *xs += 1;
            format!("int x{} = ({} {op} {rhs}) & 4095;", *xs - 1, x(r))
        }
        2 => {
            // division or remainder by a value that is zero a quarter of the time
            let op = ["/", "%"][r.below(2) as usize];
            *xs += 1;
            format!("int x{} = {} {op} ({} & 3);", *xs - 1, x(r), x(r))
        }
        3 => {
            // a product of six values below 4096 may leave i64: overflow
            let fs: Vec<String> = (0..6).map(|_| x(r)).collect();
            *xs += 1;
            format!("int x{} = {};", *xs - 1, fs.join(" * "))
        }
        4 => {
            let op = ["+", "-", "*", "/"][r.below(4) as usize];
            *fs += 1;
            format!("float f{} = {} {op} {} * 0.5f;", *fs - 1, f(r), f(r))
        }
        5 => {
            let (a, b, c) = (x(r), x(r), x(r));
            let cmp = ["<", "<=", "==", "!=", ">"][r.below(5) as usize];
            format!("if ({a} {cmp} {b}) {{ {c} = {a} + 3; }} else {{ {c} = ({b} - 1) & 4095; }}")
        }
        6 => {
            let (a, b) = (x(r), x(r));
            format!("for (int k{i} = 0; k{i} < ({a} & 3); k{i}++) {{ {b} = ({b} + k{i}) & 4095; }}")
        }
        7 => {
            let (a, g, h) = (x(r), f(r), f(r));
            format!("if ({g} < {h}) {{ {a} = -{a}; }}")
        }
        8 => {
            *xs += 1;
            format!(
                "int x{} = a[({} & 255)] + out[({} & 15)];",
                *xs - 1,
                x(r),
                x(r)
            )
        }
        9 => format!("out[({} & 15)] = {};", x(r), x(r)),
        10 => {
            let (a, b) = (x(r), x(r));
            format!("s[{a} & 63] = {b}; __syncthreads(); {b} = s[({a} + 1) & 63];")
        }
        _ => format!("outf[({} & 15)] = {};", x(r), f(r)),
    }
}

/// A random kernel of `len` statements; every thread ends by writing `out[gid]`.
fn kernel(seed: u64, len: usize) -> String {
    let mut r = Rng::new(seed);
    let mut body = String::from(
        "    __shared__ int s[64];\n    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n    \
         int x0 = a[gid];\n    int x1 = gid;\n    float f0 = fa[gid];\n",
    );
    let (mut xs, mut fs) = (2usize, 1usize);
    for i in 0..len {
        let line = statement(&mut r, i, &mut xs, &mut fs);
        body.push_str("    ");
        body.push_str(&line);
        body.push('\n');
    }
    format!(
        "__global__ void k(const int *a, const float *fa, int *out, float *outf) {{\n{body}    \
         out[gid + 16] = x{};\n}}\n",
        xs - 1
    )
}

fn lower(src: &str, launch: &Launch) -> Program {
    common::lower_str("gen.cu", src, launch)
}

/// Every written cell of every array, as bits (floats by bit pattern).
fn cells(m: &Memory) -> Vec<(String, Vec<(i64, u64)>)> {
    m.arrays
        .iter()
        .filter(|a| a.space == warpcert::core::Space::Global)
        .map(|a| {
            let w = a.written().into_iter().map(|(i, v)| {
                let bits = match v {
                    warpcert::semantics::Value::Int(n) => n as u64,
                    warpcert::semantics::Value::Bool(b) => b as u64,
                    warpcert::semantics::Value::Float(x) => x.to_bits(),
                };
                (i, bits)
            });
            (a.name.clone(), w.collect())
        })
        .collect()
}

/// Runs kernel `seed` of `len` statements on `blocks` one-thread blocks both ways and
/// compares; `Err` describes the first difference.
fn compare(seed: u64, len: usize, blocks: u32) -> Result<(), String> {
    let src = kernel(seed, len);
    let launch = Launch {
        block: [1, 1, 1],
        grid: Some([blocks, 1, 1]),
    };
    let prog = lower(&src, &launch);
    let hw = Hardware::default();
    let (params, input) = (Params::new(), Inputs::random(seed));
    let metrics: Vec<Metric> = MetricName::ALL
        .iter()
        .map(|&m| Metric::standard(m))
        .collect();
    let family = run_kernel(&prog, &metrics, &hw, &launch, &params, &input);
    let opts = InterleavingOptions {
        scheduler: Scheduler::Random(seed),
        max_steps: 10_000_000,
        detect_races: false,
        benign_equal_writes: false,
        trace: false,
    };
    let one = run_interleaving(&prog, &hw, &launch, &params, &input, &opts)
        .map_err(|e| format!("interleaving refused the run: {e}\n{src}"))?;
    match (family, one.outcome) {
        (Ok(k), Outcome::Terminated) => {
            if k.usage != one.usage {
                return Err(format!("usage {:?} vs {:?}\n{src}", k.usage, one.usage));
            }
            if cells(&k.memory) != cells(&one.memory) {
                return Err(format!("arrays differ\n{src}"));
            }
            Ok(())
        }
        (Err(SemError::InWarp { error, .. }), Outcome::Error(e)) if *error == e => Ok(()),
        (f, o) => Err(format!(
            "outcomes differ: lock-step {:?}, interleaving {o:?}\n{src}",
            f.map(|k| k.usage)
        )),
    }
}

/// Fixed seeds first (deterministic coverage of every statement kind and of both kinds of
/// ending, checked by counting), then quickcheck's random ones.
#[test]
fn one_lane_rules_agree_with_the_family_rules() {
    let (mut ok, mut failed) = (0, 0);
    for seed in 1..=40u64 {
        if let Err(e) = compare(seed, 4 + seed as usize % 12, 5) {
            panic!("seed {seed}: {e}");
        }
        // which way did it end? (both runs agree, so ask the interleaving alone)
        let launch = Launch {
            block: [1, 1, 1],
            grid: Some([5, 1, 1]),
        };
        let src = kernel(seed, 4 + seed as usize % 12);
        let prog = lower(&src, &launch);
        let opts = InterleavingOptions {
            detect_races: false,
            ..InterleavingOptions::default()
        };
        let r = run_interleaving(
            &prog,
            &Hardware::default(),
            &launch,
            &Params::new(),
            &Inputs::random(seed),
            &opts,
        )
        .expect("run");
        match r.outcome {
            Outcome::Terminated => ok += 1,
            _ => failed += 1,
        }
    }
    // the generator must exercise both completed runs and run-time errors
    assert!(ok >= 5 && failed >= 5, "terminated {ok}, errors {failed}");
    fn prop(seed: u64, len: u8, blocks: u8) -> TestResult {
        match compare(seed, 1 + len as usize % 24, 1 + blocks as u32 % 6) {
            Ok(()) => TestResult::passed(),
            Err(e) => TestResult::error(e),
        }
    }
    QuickCheck::new()
        .tests(60)
        .quickcheck(prop as fn(u64, u8, u8) -> TestResult);
}
