// warpcert precision suite (issue 15), pattern "while loop left by return, the counter
// updated after the return". Launch: block [32], one block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): as for_return.cu. In round i the
// active lanes write out[32i + threadIdx.x] and read in[32i + threadIdx.x] (at most 4 sectors
// each, 4 with all 32 lanes); a lane that reads a negative value returns; the others add 1 to
// i, which therefore stays the same in every lane that stays. At most n rounds run, then
// the lanes that did not return write out[threadIdx.x] (at most 4 sectors). Worst, with no
// negative input: 8·max(0, n) + 4.
__global__ void while_return(float *out, const float *in, int n) {
  int i = 0;
  while (i < n) {
    out[32 * i + threadIdx.x] = 1.0f;
    if (in[32 * i + threadIdx.x] < 0.0f) {
      return;
    }
    i++;
  }
  out[threadIdx.x] = 2.0f;
}
