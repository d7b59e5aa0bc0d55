// warpcert precision suite (issue 15), pattern "loop left by return". Launch: block [32], one
// block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): in round i the active lanes write
// out[32i + threadIdx.x] and read in[32i + threadIdx.x] (4 sectors each with all 32 lanes:
// 128 aligned bytes; fewer lanes touch at most as many sectors); a lane that reads a negative
// value returns and does nothing more. At most n rounds run (the counter is the same in every
// lane that stays), then the lanes that did not return write out[threadIdx.x] (at most 4
// sectors). Worst, with no negative input: 8·max(0, n) + 4.
__global__ void for_return(float *out, const float *in, int n) {
  for (int i = 0; i < n; i++) {
    out[32 * i + threadIdx.x] = 1.0f;
    if (in[32 * i + threadIdx.x] < 0.0f) {
      return;
    }
  }
  out[threadIdx.x] = 2.0f;
}
