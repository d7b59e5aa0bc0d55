//! The choice between the floor form and the polynomial form of a bound (issue 14 item 4,
//! issue 15): a bound with floor atoms `⌊L/c⌋⁺` (spec/logic.md §1) replaces the polynomial
//! `max(0, …)` bound only where it is at least as tight at every sampled parameter point.
//! Both are certified; sampling only chooses which one is printed, it proves nothing.

use crate::core::assertion::poly::{Atom, Poly};
use std::collections::BTreeMap;

/// Sampled values of each parameter: around 0, the warp and block sizes and their
/// neighbours, and a few large and negative values.
const VALUES: [i64; 30] = [
    -100, -33, -32, -1, 0, 1, 2, 3, 5, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129,
    255, 256, 257, 1000, 1023, 1024, 10007,
];

/// Whether `p` has a floor atom or a log atom (spec/logic.md §1 "Log atoms", which the
/// floor form adds for halving loops).
pub fn has_floor(p: &Poly) -> bool {
    p.terms.keys().flatten().any(|a| {
        matches!(
            a,
            Atom::Floor(..) | Atom::FloorSym(..) | Atom::Log(_) | Atom::LogQ(..)
        )
    })
}

/// Whether `floor ≤ poly` at every sampled point of their variables: the full grid of
/// [`VALUES`] for at most two variables, else 4 000 points drawn from it by a fixed
/// generator (the same points on every run).
pub fn at_most_everywhere(floor: &Poly, poly: &Poly) -> bool {
    min_at_most_everywhere(&[floor], poly)
}

/// Whether `min(floors) ≤ poly` at every sampled point of their variables (the points of
/// [`at_most_everywhere`]); `floors` non-empty, else `true`.
pub fn min_at_most_everywhere(floors: &[&Poly], poly: &Poly) -> bool {
    let mut vars: Vec<String> = floors.iter().flat_map(|f| f.vars()).collect();
    vars.extend(poly.vars());
    vars.sort();
    vars.dedup();
    let below = |env: &BTreeMap<String, i64>| floors.iter().any(|f| f.eval(env) <= poly.eval(env));
    match vars.len() {
        0 => below(&BTreeMap::new()),
        1 | 2 => {
            let y = vars.get(1);
            VALUES.iter().all(|a| {
                VALUES.iter().all(|b| {
                    let mut env = BTreeMap::from([(vars[0].clone(), *a)]);
                    if let Some(y) = y {
                        env.insert(y.clone(), *b);
                    }
                    below(&env)
                })
            })
        }
        _ => {
            let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
            (0..4000).all(|_| {
                let env = vars
                    .iter()
                    .map(|v| {
                        s = s
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        (
                            v.clone(),
                            VALUES[((s >> 33) % VALUES.len() as u64) as usize],
                        )
                    })
                    .collect();
                below(&env)
            })
        }
    }
}
