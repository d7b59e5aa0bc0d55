// warpcert precision suite (issue 15), pattern "loop left by break, the break before the
// cost". Launch: block [32], one block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): in round k the active lanes read
// in[32k + threadIdx.x] and, those that do not break, write out[32k + threadIdx.x]: 32
// consecutive 4-byte cells starting at a multiple of 32 cells (128 bytes), so at most 4
// sectors each, exactly 4 when all 32 lanes take part. The counter k is the same in every
// lane that stays, and at most n rounds run (k < n), so the cost is at most 8·max(0, n); with
// no negative input no lane breaks, every round has all 32 lanes, and the cost is 8·max(0, n).
__global__ void break_before(float *out, const float *in, int n) {
  for (int k = 0; k < n; k++) {
    if (in[32 * k + threadIdx.x] < 0.0f) {
      break;
    }
    out[32 * k + threadIdx.x] = 1.0f;
  }
}
