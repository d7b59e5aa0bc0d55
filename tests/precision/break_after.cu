// warpcert precision suite (issue 15), pattern "loop left by break, the break after the
// cost". Launch: block [32], one block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): in round k the active lanes write
// out[32k + threadIdx.x] and read in[32k + threadIdx.x] (then those that read a negative
// value break): 32 consecutive 4-byte cells starting at a multiple of 32 cells (128 bytes),
// at most 4 sectors each, exactly 4 with all 32 lanes. At most n rounds run (the counter k
// is the same in every lane that stays, k < n), so the cost is at most 8·max(0, n); with no
// negative input every round has all 32 lanes: 8·max(0, n).
__global__ void break_after(float *out, const float *in, int n) {
  for (int k = 0; k < n; k++) {
    out[32 * k + threadIdx.x] = 1.0f;
    if (in[32 * k + threadIdx.x] < 0.0f) {
      break;
    }
  }
}
