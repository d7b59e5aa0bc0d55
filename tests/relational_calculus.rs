//! Theorem 5.12 of Pico as an executable oracle (notes §8.1 item 7): for random protocols
//! over a small grammar, the relational analysis' closed form equals (`exact`) or bounds
//! (`upper`) the cost given by the protocol semantics `⟨p, t^W, σ⟩ ⇓_M i` of Fig. 2, for the
//! metrics `M_E`, `ua`, `bc`, warp sizes 4 and 8, and parameter values 0..4. Deterministic
//! pseudo-random generation (fixed seeds).

mod common;

use common::rng::Rng;
use std::collections::BTreeMap;
use warpcert::core::metric::q;
use warpcert::core::Space;
use warpcert::relational::analysis::analyze_warp;
use warpcert::relational::calculus::{
    eval_proto, Access, COp, Cond, Lanes, Mode, NExpr, NOp, PicoMetric, Proto, Range, Step, VEnv,
};
use warpcert::relational::cost::closed_form;

fn lit(i: i64) -> NExpr {
    NExpr::Lit(i)
}
fn bin(op: NOp, a: NExpr, b: NExpr) -> NExpr {
    NExpr::bin(op, a, b)
}

fn index(r: &mut Rng, vars: &[String]) -> NExpr {
    let t = NExpr::tid;
    let base = match r.below(9) {
        0 => lit(r.below(8) as i64),
        1 => t(),
        2 => bin(NOp::Mul, t(), lit(1 + r.below(8) as i64)),
        3 => bin(NOp::Mul, t(), NExpr::param("n")),
        4 => bin(NOp::Mod, t(), lit(2)),
        5 => bin(NOp::Div, t(), lit(2)),
        6 => NExpr::param("n"),
        7 => bin(NOp::Add, t(), lit(32)),
        _ => bin(NOp::Add, bin(NOp::Mul, NExpr::param("n"), lit(64)), t()),
    };
    if !vars.is_empty() && r.below(2) == 0 {
        let x = NExpr::var(&vars[r.below(vars.len() as u64) as usize]);
        let x = if r.below(2) == 0 {
            x
        } else {
            bin(NOp::Mul, x, lit(8))
        };
        bin(NOp::Add, base, x)
    } else {
        base
    }
}

fn cond(r: &mut Rng, vars: &[String]) -> Cond {
    let t = NExpr::tid;
    match r.below(6) {
        0 => Cond::Cmp(COp::Eq, bin(NOp::Mod, t(), lit(2)), lit(0)),
        1 => Cond::Cmp(COp::Lt, t(), lit(r.below(8) as i64)),
        2 => Cond::Cmp(COp::Gt, NExpr::param("n"), lit(2)),
        3 => Cond::Cmp(COp::Lt, t(), NExpr::param("n")),
        4 if !vars.is_empty() => Cond::Cmp(
            COp::Lt,
            NExpr::var(&vars[r.below(vars.len() as u64) as usize]),
            t(),
        ),
        _ => Cond::negate(Cond::Cmp(COp::Eq, bin(NOp::Mod, t(), lit(4)), lit(1))),
    }
}

fn range(r: &mut Rng) -> Range {
    let t = NExpr::tid;
    match r.below(6) {
        0 => Range::upto(lit(0), lit(r.below(5) as i64)),
        1 => Range::upto(lit(0), t()),
        2 => Range::upto(lit(0), bin(NOp::Sub, NExpr::param("n"), lit(1))),
        3 => Range::upto(t(), lit(7)),
        4 => Range {
            lo: lit(1),
            hi: lit(16),
            step: Step::Mul(lit(2)),
        },
        _ => Range {
            lo: lit(0),
            hi: bin(NOp::Sub, NExpr::param("n"), lit(1)),
            step: Step::Add(lit(2)),
        },
    }
}

fn proto(r: &mut Rng, depth: u32, vars: &mut Vec<String>, id: &mut u32) -> Proto {
    *id += 1;
    let choice = if depth == 0 { 0 } else { r.below(4) };
    match choice {
        0 => Proto::Acc(Access {
            array: "A".into(),
            index: index(r, vars),
            space: if r.below(2) == 0 {
                Space::Global
            } else {
                Space::Shared
            },
            elem_bytes: 4,
            mode: Mode::Read,
            line: 0,
            id: *id,
        }),
        1 => Proto::Seq(vec![
            proto(r, depth - 1, vars, id),
            proto(r, depth - 1, vars, id),
        ]),
        2 => {
            let c = cond(r, vars);
            let me = *id;
            Proto::If(me, c, Box::new(proto(r, depth - 1, vars, id)))
        }
        _ => {
            let x = format!("x{}", vars.len());
            let rg = range(r);
            let me = *id;
            vars.push(x.clone());
            let body = proto(r, depth - 1, vars, id);
            vars.pop();
            Proto::For(me, x, rg, Box::new(body))
        }
    }
}

#[test]
fn theorem_5_12_on_random_protocols() {
    let mut exact_seen = 0;
    let mut total = 0;
    for seed in 0..300u64 {
        let mut r = Rng::new(seed);
        let p = proto(&mut r, 3, &mut Vec::new(), &mut 0);
        for w in [4usize, 8] {
            let lanes = Lanes::pico(w);
            for m in [
                PicoMetric::ActiveThreads,
                PicoMetric::Ua { sector_bytes: 32 },
                PicoMetric::Bc {
                    banks: w as u32,
                    bank_bytes: 4,
                },
            ] {
                let a = analyze_warp(&p, &lanes, m).unwrap();
                if !a.failures.is_empty() {
                    continue;
                }
                let c = closed_form(&a.stmt).unwrap();
                for n in 0..4i64 {
                    let mut env = VEnv::default();
                    env.params.insert("n".into(), n);
                    let mut fuel = 100_000;
                    let cost =
                        eval_proto(&p, &vec![true; w], &lanes, &mut env, m, &mut fuel).unwrap();
                    let params: BTreeMap<String, i64> = [("n".to_string(), n)].into();
                    let bound = c
                        .poly
                        .eval(&|atom| warpcert::relational::eval_atom(atom, &params))
                        .unwrap_or_else(|| panic!("cannot evaluate {}", c.poly));
                    let ctx = format!(
                        "seed {seed} W={w} {m:?} n={n}\n{p}\n⇒ {} (exact {})",
                        c.poly,
                        a.exact && c.exact
                    );
                    if a.exact && c.exact {
                        assert_eq!(bound, q(cost as i64), "{ctx}");
                        exact_seen += 1;
                    } else {
                        assert!(bound >= q(cost as i64), "{ctx}: semantics {cost}");
                    }
                    total += 1;
                }
            }
        }
    }
    eprintln!("{exact_seen}/{total} cases exact");
    assert!(
        total > 5000 && exact_seen > total / 4,
        "{exact_seen}/{total} exact"
    );
}
