//! Congruence hypotheses for lower-bound certificates with warp-exact products
//! (spec/logic.md §4b "Warp-exact products"): `p ≡ 1 (mod m)` for every `int` parameter,
//! with their witness point. Heuristic and untrusted: the kernel checks the certificate.

use super::{witness_point, Hypotheses};
use crate::core::assertion::{CKind, Cstr, Lin};
use crate::core::ir::Program;
use crate::core::Hardware;

/// Congruence hypotheses for a lower certificate with warp-exact products (spec/logic.md
/// §4b "Warp-exact products"): every `int` parameter of the kernel's signature
/// `p ≡ 1 (mod m)`, `m` the sector size in 4-byte words (so that a row of 4-byte elements
/// starting `p` elements after an aligned base is misaligned), with the witness point of
/// the launch facts (`witness_point`) where each such `p` is 1. `None` without `int`
/// parameters. Heuristic and untrusted: the kernel checks the certificate.
pub fn congruence_hypotheses(
    prog: &Program,
    hw: &Hardware,
    launch_p: &[Cstr],
) -> Option<(Hypotheses, crate::analysis::derive::Congruences)> {
    let m = i64::from((hw.sector_bytes / 4).max(1));
    let params: Vec<&str> = prog
        .params
        .iter()
        .filter(|p| p.ty == crate::core::Ty::Int && !p.name.contains('.'))
        .map(|p| p.name.as_str())
        .collect();
    if params.is_empty() {
        return None;
    }
    let mut witness: std::collections::BTreeMap<String, i64> =
        witness_point(launch_p, &[])?.into_iter().collect();
    let mut facts = Vec::new();
    let mut cong = Vec::new();
    for p in params {
        facts.push(Cstr {
            kind: CKind::Mod(m, vec![1 % m]),
            lin: Lin::var(p),
        });
        cong.push((p.to_string(), 1 % m, m));
        witness.insert(p.to_string(), 1);
    }
    let witness = witness.into_iter().collect();
    Some((Hypotheses { facts, witness }, cong))
}
