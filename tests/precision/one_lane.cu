// warpcert precision suite (issue 15), pattern "one-lane store" (`if (tid == 0) out[b] = …`).
// Launch: block [128], a symbolic grid.
//
// Exact per-warp worst cost, sectors (hand derivation): every lane reads in[i] for its own
// consecutive i (32 floats from a multiple of 32 bytes: 4 sectors); only lane 0 of warp 0
// stores, one float: 1 sector. Worst (warp 0): 5.
__global__ void one_lane(float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  if (threadIdx.x == 0) {
    out[blockIdx.x] = v;
  }
}
