// warpcert precision suite (issue 15), pattern "guard inside a device function". Launch:
// block [256], a symbolic grid; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): a warp of block b covers the 32
// consecutive indices i = 256b + 32w + l. The guarded read `g[i]` runs on the lanes with
// i < n: at most 32 consecutive floats from a multiple of 32 bytes, 4 sectors; the store
// out[i] of every lane, 4 sectors. Worst (a warp wholly below n, n ≥ 32): 8.
__device__ float load_or_zero(const float *g, int i, int n) {
  float v = 0.0f;
  if (i < n) {
    v = g[i];
  }
  return v;
}

__global__ void guard_device(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = load_or_zero(in, i, n);
}
