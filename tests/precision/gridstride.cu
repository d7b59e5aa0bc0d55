// warpcert precision suite (issue 15), pattern "grid-stride loop". Launch: block [256], a
// concrete grid of G blocks (the analysis is given the grid); parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): the stride is S = 256·G. Warp 0 of
// block 0 (start 0) has the most rounds: in round j its lanes i = jS + l (l < 32) with
// i < n are active, min(32, n − jS) of them, and read and write
// ⌈min(32, n − jS)·4 / 32⌉ sectors each (consecutive floats from a multiple of 32 bytes).
// With q = ⌊n / S⌋, r = n − qS: 2·(4q + ⌈min(32, r) / 8⌉) sectors (n ≥ 0).
__global__ void gridstride(float *out, const float *in, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    out[i] = in[i] * 3.0f;
  }
}
