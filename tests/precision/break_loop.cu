// warpcert precision suite (issue 15), pattern "loop left by break". Launch: block [32], one
// block; parameter n.
//
// Exact per-warp worst cost, divwarps (hand derivation, from the lowered loop: `if (in[…] <
// 0) jmp = 2 else acc += 1; if (jmp < 2) { k++; g = k < n } else g = false; while (g)`):
// the counter k is uniform. In a round where some but not all active lanes read a negative
// value, the `if`, the jump-flag test and (unless it is the last round, k + 1 = n, where
// every lane fails the test) the loop test each split the warp; a lane that broke stays
// out. Each split removes at least one lane and needs two, so at most 31 rounds split;
// the worst input lets lane k break in round k (in[33k] < 0). Total: 0 for n ≤ 0,
// 3n − 1 for 1 ≤ n ≤ 31, 3·31 = 93 for n ≥ 32.
__global__ void break_loop(float *out, const float *in, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; k++) {
    if (in[32 * k + threadIdx.x] < 0.0f) {
      break;
    }
    acc = acc + 1.0f;
  }
  out[threadIdx.x] = acc;
}
