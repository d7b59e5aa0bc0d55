// warpcert precision suite (issue 15), pattern "loop whose lanes disagree only in the last
// round". Launch: block [32], one block; parameter n.
//
// Exact per-warp worst cost, divwarps (hand derivation): lane l runs the rounds
// j ≥ 0 with l + 32j < n. At the test of round j the active lanes are those of round j − 1;
// the test splits them iff some but not all have l + 32j < n, i.e. iff 32j < n < 32j + 32
// with n ≢ 0 (mod 32) — for exactly one j when n > 0 and n mod 32 ≠ 0, for none otherwise.
// The body has no branch. Total: 1 if n > 0 and n mod 32 ≠ 0, else 0.
__global__ void last_round(float *out, int n) {
  for (int i = threadIdx.x; i < n; i += 32) {
    out[i] = 1.0f;
  }
}
