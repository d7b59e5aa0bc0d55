//! The values of the warp operations (rules `SC:SHFL` and `SC:VOTE` of
//! `spec/semantics.md` §3): which lane a shuffle reads, and what a vote returns.
//!
//! Pure functions of the active threads (block-linear ids, ascending), the operand
//! families and the warp size, shared by every semantics that runs a warp's lanes together
//! (lock-step, SIMT machine). Mirrors `shfl_src`, `shfl_fam` and `vote_val` of
//! `coq-export/theories/Semantics.v`.

use super::value::Value;
use super::SemError;
use crate::core::{ShflKind, VoteKind};

/// The block-linear id of the thread whose value thread `t` reads in a shuffle of mode
/// `kind` over segments of `width` lanes with argument `arg` (source lane, delta or xor
/// mask), in warps of `warp` lanes; `None` when the source lies outside the reader's
/// segment (the reader then keeps its own value).
///
/// With `lane = t mod W`, `b = arg mod W` (PTX's `b[4:0]` for `W = 32`) and
/// `seg = lane − lane mod width`: `idx` reads lane `seg + arg mod width`; `up` reads
/// `lane − b` if `≥ seg`; `down` reads `lane + b` and `xor` reads `lane xor b` if
/// `< seg + width`; any lane `≥ W` is outside (PTX ISA, `shfl.sync`).
pub fn shfl_source(kind: ShflKind, width: u32, warp: u32, t: u32, arg: i64) -> Option<u32> {
    if width == 0 || warp == 0 {
        return None;
    }
    let (w, wp, t) = (i64::from(width), i64::from(warp), i64::from(t));
    let lane = t.rem_euclid(wp);
    let base = t - lane;
    let b = arg.rem_euclid(wp);
    let seg = lane - lane.rem_euclid(w);
    let (j, ok) = match kind {
        ShflKind::Idx => {
            let j = seg + arg.rem_euclid(w);
            (j, j < seg + w)
        }
        ShflKind::Up => {
            let j = lane - b;
            (j, j >= seg)
        }
        ShflKind::Down => {
            let j = lane + b;
            (j, j < seg + w)
        }
        ShflKind::Xor => {
            let j = lane ^ b;
            (j, j < seg + w)
        }
    };
    if ok && (0..wp).contains(&j) {
        u32::try_from(base + j).ok()
    } else {
        None
    }
}

/// `SC:SHFL`'s result family: for each active thread `ids[i]`, the value `values[k]` of
/// the active thread `ids[k]` it reads, or its own value `values[i]` when the source lane
/// is outside its segment or not active (CUDA leaves a read of an inactive lane undefined;
/// warpcert fixes it to the reader's own value, `spec/semantics.md` §3).
///
/// Errors: an `args` value that is not an `int`.
pub fn shfl_values(
    kind: ShflKind,
    width: u32,
    warp: u32,
    ids: &[u32],
    values: &[Value],
    args: &[Value],
) -> Result<Vec<Value>, SemError> {
    let mut out = Vec::with_capacity(ids.len());
    for (i, (&t, a)) in ids.iter().zip(args).enumerate() {
        let Value::Int(arg) = *a else {
            return Err(SemError::Type(format!(
                "shuffle lane must be int, got {}",
                a.ty().keyword()
            )));
        };
        let src = shfl_source(kind, width, warp, t, arg)
            .and_then(|j| ids.binary_search(&j).ok())
            .unwrap_or(i);
        out.push(values.get(src).copied().unwrap_or(values[i]));
    }
    Ok(out)
}

/// `SC:VOTE`'s result on the active threads `ids` of one warp with predicates `preds`:
/// the ballot `Σ 2^(t mod W)` over the threads whose predicate holds, or 1/0 for
/// `any`/`all`.
///
/// Errors: a predicate that is not a `bool`; a ballot bit beyond `i64` (warp size > 63).
pub fn vote_value(
    kind: VoteKind,
    warp: u32,
    ids: &[u32],
    preds: &[Value],
) -> Result<i64, SemError> {
    let mut bits: i64 = 0;
    let (mut any, mut all) = (false, true);
    for (&t, p) in ids.iter().zip(preds) {
        let Value::Bool(b) = *p else {
            return Err(SemError::Type(format!(
                "vote predicate must be bool, got {}",
                p.ty().keyword()
            )));
        };
        any |= b;
        all &= b;
        if b && kind == VoteKind::Ballot {
            let lane = t % warp.max(1);
            let bit = 1i64
                .checked_shl(lane)
                .filter(|_| lane < 63)
                .ok_or_else(|| {
                    SemError::Type(format!("ballot of lane {lane} does not fit in 63 bits"))
                })?;
            bits |= bit;
        }
    }
    Ok(match kind {
        VoteKind::Ballot => bits,
        VoteKind::Any => i64::from(any),
        VoteKind::All => i64::from(all),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected source lanes by hand from the PTX ISA's `shfl.sync` pseudo-code
    // (W = 32, c = ((32 − width) << 8) | 0x1f, 0 for up).
    #[test]
    fn sources_follow_ptx() {
        assert_eq!(shfl_source(ShflKind::Down, 32, 32, 3, 16), Some(19));
        assert_eq!(shfl_source(ShflKind::Down, 32, 32, 20, 16), None);
        assert_eq!(shfl_source(ShflKind::Up, 32, 32, 3, 4), None);
        assert_eq!(shfl_source(ShflKind::Up, 32, 32, 35, 2), Some(33));
        assert_eq!(shfl_source(ShflKind::Xor, 32, 32, 5, 1), Some(4));
        assert_eq!(shfl_source(ShflKind::Xor, 8, 32, 5, 8), None);
        assert_eq!(shfl_source(ShflKind::Idx, 32, 32, 40, 0), Some(32));
        assert_eq!(shfl_source(ShflKind::Idx, 8, 32, 13, 9), Some(9));
        assert_eq!(shfl_source(ShflKind::Down, 8, 32, 6, 1), Some(7));
        assert_eq!(shfl_source(ShflKind::Down, 8, 32, 7, 1), None);
    }

    #[test]
    fn inactive_source_gives_own_value() {
        let ids = [0, 1, 3];
        let v = [Value::Int(10), Value::Int(11), Value::Int(13)];
        let a = [Value::Int(1); 3];
        let r = shfl_values(ShflKind::Down, 32, 32, &ids, &v, &a).unwrap();
        // 0 reads 1; 1 reads 2 (inactive: own); 3 reads 4 (inactive: own)
        assert_eq!(r, vec![Value::Int(11), Value::Int(11), Value::Int(13)]);
    }

    #[test]
    fn votes() {
        let ids = [0, 2, 5];
        let p = [Value::Bool(true), Value::Bool(false), Value::Bool(true)];
        assert_eq!(
            vote_value(VoteKind::Ballot, 32, &ids, &p).unwrap(),
            0b100001
        );
        assert_eq!(vote_value(VoteKind::Any, 32, &ids, &p).unwrap(), 1);
        assert_eq!(vote_value(VoteKind::All, 32, &ids, &p).unwrap(), 0);
        assert!(vote_value(VoteKind::Any, 32, &ids, &[Value::Int(1); 3]).is_err());
    }
}
