//! Parameter hypotheses of lower-bound certificates (spec/logic.md §4b, L:HYP): the facts
//! over `int` parameters under which every lane passes a guard ([`guard_hypotheses`]) or
//! two lanes of a warp split it ([`split_hypotheses`], for L:IFDIV), their reader's text
//! ([`Hypotheses::text`]) and a witness point where they and the launch facts hold
//! ([`witness_point`]). Heuristic and untrusted: the kernel checks the certificates.

use crate::analysis::linear::{cond, lin_expr};
use crate::core::assertion::{CKind, Cstr, Lin};
use crate::core::ir::{Expr, Program, Stmt};
use crate::core::metric::Q;
use crate::core::{Hardware, Launch};
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

/// Parameter hypotheses `H` of a lower-bound certificate and its witness point
/// (spec/logic.md §4b, L:HYP): linear facts over `int` parameters and one integer per
/// parameter the launch facts and `H` mention, at which all of them hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Hypotheses {
    /// The facts `H` (each `L ≤ 0`), in order.
    pub facts: Vec<Cstr>,
    /// The witness point, by parameter name.
    pub witness: Vec<(String, i64)>,
}

impl Hypotheses {
    /// The facts as a reader would write them, `, `-separated: `L ≤ 0` as
    /// `numElements - 256*blockIdx.x >= 256` (the negative terms moved right).
    pub fn text(&self) -> String {
        let term = |v: &str, k: &Q| {
            if k.is_one() {
                v.to_string()
            } else {
                format!("{k}*{v}")
            }
        };
        self.facts
            .iter()
            .map(|c| {
                // L ≤ 0 as Σ(−a_v)·v ≥ c, positive terms first
                let neg = c.lin.scale(&-Q::one());
                let mut pos: Vec<String> = Vec::new();
                let mut negs: Vec<String> = Vec::new();
                for (v, k) in neg.terms.iter() {
                    if k.is_positive() {
                        pos.push(term(v, k));
                    } else {
                        negs.push(term(v, &-k.clone()));
                    }
                }
                let lhs = match (pos.is_empty(), negs.is_empty()) {
                    (false, true) => pos.join(" + "),
                    (false, false) => format!("{} - {}", pos.join(" + "), negs.join(" - ")),
                    (true, _) => format!("-{}", negs.join(" - ")),
                };
                if let CKind::Mod(m, rs) = &c.kind {
                    // a congruence over parameters: `wA ≡ 1 (mod 8)`
                    let rs: Vec<String> = rs.iter().map(i64::to_string).collect();
                    return format!("{} ≡ {} (mod {m})", c.lin, rs.join("|"));
                }
                let op = if matches!(c.kind, CKind::Eq) {
                    "="
                } else {
                    ">="
                };
                format!("{lhs} {op} {}", -neg.c.clone())
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The parameter hypotheses under which every guard `if (e)` of `prog` outside loops whose
/// test is a comparison of linear forms passes on every lane of the block (`launch.block`)
/// at every block index: `cond(e)` with the locals replaced by their linear values (the
/// straight-line assignments before the guard) and each `threadIdx.d` by its worst value
/// (`B_d − 1` for a positive coefficient, else 0), a fact over `int` parameters alone
/// (spec/logic.md §4b, L:HYP; L:IF2 then decides the guard). Guards whose test mentions a
/// local without such a value, or a non-linear one, give nothing. Heuristic and
/// untrusted: the kernel checks the certificate that uses them.
pub fn guard_hypotheses(prog: &Program, launch: &Launch) -> Vec<Cstr> {
    let mut out = Vec::new();
    each_guard(prog, &prog.body, &mut Default::default(), &mut |e, env| {
        let (ce, _, can_t, _) = cond(prog, e);
        for c in ce.iter().filter(|c| can_t && !matches!(c.kind, CKind::Eq)) {
            if let Some(h) = close(prog, &c.lin, env).and_then(|l| worst_lanes(&l, launch)) {
                if !h.is_const() && !out.contains(&Cstr::le(h.clone())) {
                    out.push(Cstr::le(h));
                }
            }
        }
    });
    out
}

/// The parameter hypotheses under which every guard `if (e)` of `prog` outside loops
/// whose test is a comparison of linear forms both ways (not `==`, `!=`) **splits** warp
/// `warp`: `cond(e)` at its first lane and `cond(¬e)` at its last (or the reverse), the
/// locals replaced by their linear values and `threadIdx.d` by the lane's index, facts
/// over `int` parameters alone; an orientation is kept when [`witness_point`] finds a
/// point of `launch_p`, the facts so far and it. L:IFDIV then charges `M^div` for each
/// guard (spec/logic.md §4b). Empty when the warp has fewer than 2 lanes or no guard
/// splits. Heuristic and untrusted, as [`guard_hypotheses`].
pub fn split_hypotheses(
    prog: &Program,
    launch: &Launch,
    hw: &Hardware,
    launch_p: &[Cstr],
    warp: u32,
) -> Vec<Cstr> {
    let mut out: Vec<Cstr> = Vec::new();
    let total = warpcert_kernel::access::block_threads(launch.block).unwrap_or(0);
    let first = u64::from(hw.warp_size) * u64::from(warp);
    let last = (first + u64::from(hw.warp_size))
        .min(total)
        .saturating_sub(1);
    if last <= first {
        return out;
    }
    let at = |l: &Lin, t: u64| {
        let tid = warpcert_kernel::access::thread_index(launch.block, t);
        ["threadIdx.x", "threadIdx.y", "threadIdx.z"]
            .iter()
            .zip(tid)
            .fold(l.clone(), |l, (v, k)| {
                l.subst(v, &Lin::constant(Q::from_integer(BigInt::from(k))))
            })
    };
    each_guard(prog, &prog.body, &mut Default::default(), &mut |e, env| {
        let (ct, cf, can_t, can_f) = cond(prog, e);
        if !(can_t && can_f) || ct.is_empty() || cf.is_empty() {
            return;
        }
        for (ta, tb) in [(first, last), (last, first)] {
            let facts: Option<Vec<Cstr>> = ct
                .iter()
                .map(|c| (c, ta))
                .chain(cf.iter().map(|c| (c, tb)))
                .map(|(c, t)| {
                    close(prog, &c.lin, env).map(|l| Cstr {
                        lin: at(&l, t),
                        ..c.clone()
                    })
                })
                .collect();
            let Some(facts) = facts else { return };
            let mut all = out.clone();
            all.extend(facts.iter().filter(|c| !c.lin.is_const()).cloned());
            if facts.iter().any(|c| {
                c.lin.is_const()
                    && (c.lin.c.is_positive()
                        || (matches!(c.kind, CKind::Eq) && !c.lin.c.is_zero()))
            }) {
                continue;
            }
            if witness_point(launch_p, &all).is_some() {
                out = all;
                return;
            }
        }
    });
    out
}

/// Calls `visit(e, env)` for every `if (e)` of `s` outside loops, `env` the linear values
/// of the locals assigned before it (straight-line assignments of linear expressions).
fn each_guard(
    prog: &Program,
    s: &Stmt,
    env: &mut std::collections::BTreeMap<String, Lin>,
    visit: &mut dyn FnMut(&Expr, &std::collections::BTreeMap<String, Lin>),
) {
    for item in s.seq_items() {
        match item {
            Stmt::Seq(..) => each_guard(prog, item, env, visit),
            Stmt::Assign(x, e, _) => match lin_expr(prog, e).and_then(|l| close(prog, &l, env)) {
                Some(l) => {
                    env.insert(x.clone(), l);
                }
                None => {
                    env.remove(x);
                }
            },
            Stmt::If(e, s1, s2, _) => {
                visit(e, env);
                let (mut e1, mut e2) = (env.clone(), env.clone());
                each_guard(prog, s1, &mut e1, visit);
                each_guard(prog, s2, &mut e2, visit);
                for x in item.writes() {
                    env.remove(&x);
                }
            }
            _ => {
                for x in item.writes() {
                    env.remove(&x);
                }
            }
        }
    }
}

/// `l` with every local replaced by its value in `env` (`None`: a local without one).
fn close(prog: &Program, l: &Lin, env: &std::collections::BTreeMap<String, Lin>) -> Option<Lin> {
    let mut out = l.clone();
    for v in l.terms.keys() {
        if prog.local_ty(v).is_some() {
            out = out.subst(v, env.get(v)?);
        }
    }
    Some(out)
}

/// `l` with each `threadIdx.d` replaced by the value that makes it largest in a block of
/// `launch.block` threads: the fact `l' ≤ 0` over parameters implies `l ≤ 0` on every lane.
fn worst_lanes(l: &Lin, launch: &Launch) -> Option<Lin> {
    let mut out = l.clone();
    for d in crate::core::Dim::ALL {
        let t = crate::core::assertion::linear::tid_name(d);
        let k = l.coef(&t);
        let worst = if k.is_positive() {
            Q::from_integer(BigInt::from(launch.block[d.index()]) - 1)
        } else {
            Q::zero()
        };
        out = out.subst(&t, &Lin::constant(worst));
    }
    Some(out)
}

/// A witness point of the launch facts `launch_p` and the hypotheses `h` (spec/logic.md
/// §4b): block indices 0, grid sizes 1, other parameters 0, then each violated fact is
/// repaired by raising a parameter with a negative coefficient (one that is not a block
/// index first), a few rounds. `None` when that does not find one.
pub fn witness_point(launch_p: &[Cstr], h: &[Cstr]) -> Option<Vec<(String, i64)>> {
    let facts: Vec<&Cstr> = launch_p.iter().chain(h).collect();
    let mut at: std::collections::BTreeMap<String, i64> = Default::default();
    for c in &facts {
        for v in c.lin.terms.keys() {
            if !v.starts_with("threadIdx.") {
                at.entry(v.clone())
                    .or_insert(i64::from(v.starts_with("gridDim.")));
            }
        }
    }
    let val = |c: &Cstr, at: &std::collections::BTreeMap<String, i64>| {
        let mut x = c.lin.c.clone();
        for (v, k) in c.lin.terms.iter() {
            x += k * Q::from_integer(BigInt::from(*at.get(v).unwrap_or(&0)));
        }
        x
    };
    for _ in 0..8 {
        let mut changed = false;
        for c in facts.iter().filter(|c| !c.is_lane()) {
            let x = val(c, &at);
            if matches!(c.kind, CKind::Eq) && !x.is_zero() {
                return None;
            }
            if !x.is_positive() {
                continue;
            }
            let pick = c
                .lin
                .terms
                .iter()
                .filter(|(v, k)| k.is_negative() && at.contains_key(*v))
                .min_by_key(|(v, _)| v.starts_with("blockIdx.") || v.starts_with("gridDim."))?;
            let raise = (x / -pick.1.clone()).ceil().to_integer();
            let r: i64 = raise.try_into().ok()?;
            *at.get_mut(pick.0)? += r;
            changed = true;
        }
        if !changed {
            return Some(at.into_iter().collect());
        }
    }
    None
}
