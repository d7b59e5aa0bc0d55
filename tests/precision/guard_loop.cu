// warpcert precision suite (issue 15), pattern "guard inside a loop" (a bounds guard on the
// global index, tested in every round). Launch: block [256], a symbolic grid; parameters
// n, m.
//
// Exact per-warp worst cost, divwarps (hand derivation): the loop test `k < m` is uniform.
// A warp of block b holds the 32 consecutive indices i = 256b + 32w + l; the guard `i < n`
// splits it iff 256b + 32w < n < 256b + 32w + 32, which one warp of the grid meets exactly
// when 32 ∤ n (the grid covering n). That warp splits once per round: m rounds for m ≥ 0.
// Total: max(0, m) if 32 ∤ n, else 0.
__global__ void guard_loop(float *out, const float *in, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < m; k++) {
    if (i < n) {
      acc = acc + in[i];
    }
  }
  out[i] = acc;
}
