// warpcert precision suite (issue 15), pattern "loop left by a warp-uniform break". Launch:
// block [32], one block; parameter n.
//
// Exact per-warp worst cost, divwarps (hand derivation): the break condition reads in[k] at
// the counter k, which is the same in every lane (k starts at 0 and every lane that stays
// adds 1), so all 32 lanes read the same value and take the same branch; the jump flag, the
// loop guard and the counter therefore stay equal in all lanes, and neither the `if`, the
// flag test nor the loop test ever splits the warp. Total: 0 for every n and input.
__global__ void uniform_break(float *out, const float *in, int n) {
  float acc = 0.0f;
  for (int k = 0; k < n; k++) {
    if (in[k] < 0.0f) {
      break;
    }
    acc = acc + in[32 * k + threadIdx.x];
  }
  out[threadIdx.x] = acc;
}
