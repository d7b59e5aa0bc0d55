//! Bound expressions as strings in the contract's grammar (integers, rationals `p/q`,
//! identifiers, `+ - *`, parentheses, `max(a, b)`, `min`, `floor`, `ceil`), and the
//! whole-kernel product `warps × per_warp`.

use crate::core::metric::Q;
use num_traits::{One, Zero};
use std::str::FromStr;

/// Formats an exact rational as `n` or `p/q` (the certificate's number syntax).
pub use crate::core::assertion::linear::fmt_q as rational;

/// Parses an integer or `p/q` rational; `None` for anything else.
pub fn parse_rational(s: &str) -> Option<Q> {
    let s = s.trim();
    match s.split_once('/') {
        Some((p, q)) => {
            let p = num_bigint::BigInt::from_str(p.trim()).ok()?;
            let q = num_bigint::BigInt::from_str(q.trim()).ok()?;
            if q.is_zero() {
                None
            } else {
                Some(Q::new(p, q))
            }
        }
        None => num_bigint::BigInt::from_str(s).ok().map(Q::from_integer),
    }
}

/// `warps × per_warp` as a bound string: multiplied out when the per-warp bound is a
/// number, `warps*(per_warp)` otherwise, and `per_warp` itself when there is one warp.
pub fn times(warps: &str, per_warp: &str) -> String {
    match (parse_rational(warps), parse_rational(per_warp)) {
        (Some(w), Some(b)) => rational(&(w * b)),
        (Some(w), None) if w.is_one() => per_warp.to_string(),
        (Some(w), None) if w.is_zero() => "0".into(),
        (_, Some(b)) if b.is_zero() => "0".into(),
        (_, Some(b)) if b.is_one() => warps.to_string(),
        _ => format!("{warps}*({per_warp})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products() {
        assert_eq!(times("16", "12"), "192");
        assert_eq!(times("16", "1/2"), "8");
        assert_eq!(
            times("16", "4 + 10*max(0, h + 1)"),
            "16*(4 + 10*max(0, h + 1))"
        );
        assert_eq!(times("1", "w"), "w");
        assert_eq!(times("gridDim.x*8", "0"), "0");
        assert_eq!(times("gridDim.x*8", "12"), "gridDim.x*8*(12)");
    }
}
