//! The one pseudo-random generator of the integration tests' property checks.
//!
//! xorshift64* (Marsaglia's xorshift with Vigna's multiplier): fixed, seeded and
//! platform-independent, so every run of a property test samples the same cases and a
//! failure names a seed that reproduces it.

/// A seeded xorshift64* generator.
pub struct Rng(u64);

impl Rng {
    /// The generator for `seed`. Seeds are spread by the golden-ratio constant (so seeds
    /// 0, 1, 2 … start far apart) and forced odd (the all-zero state is a fixed point).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 31-bit value (the high bits of the scrambled state).
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33
    }

    /// A value in `0 .. n` (`n ≥ 1`; `n = 0` is treated as 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A value in `lo ..= hi` (`lo ≤ hi`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1).max(1) as u64) as i64
    }
}
