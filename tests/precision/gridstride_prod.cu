// warpcert precision suite (issue 12), pattern "grid-stride loop whose stride is a product of
// launch dimensions" (`gridDim.x·gridDim.y·blockDim.x`, as cooperative groups' grid size is).
// Launch: block [256], a symbolic grid (the simulation runs G blocks along x); parameter n.
//
// The block's linear index `blockIdx.y·gridDim.x + blockIdx.x` and the stride are products
// of launch quantities: Q:VWRITE1's lower bounding substitution for products (spec/logic.md
// §4 "Products") bounds them below (`gridDim.x·gridDim.y ≥ gridDim.x + gridDim.y − 1 ≥ 1`,
// `blockIdx.y·gridDim.x ≥ blockIdx.y`).
//
// Exact per-warp worst cost, sectors (hand derivation): with the grid [G, 1, 1] the stride
// is S = 256·G and blockIdx.y = 0, so the rounds are those of gridstride.cu: warp 0 of
// block 0 has the most, in round j its lanes i = jS + l (l < 32) with i < n read and write
// ⌈min(32, n − jS)·4 / 32⌉ sectors each. With q = ⌊n / S⌋, r = n − qS:
// 2·(4q + ⌈min(32, r) / 8⌉) sectors (n ≥ 0).
__global__ void gridstride_prod(float *out, const float *in, int n) {
  int block = blockIdx.y * gridDim.x + blockIdx.x;
  for (int i = block * blockDim.x + threadIdx.x; i < n; i += gridDim.x * gridDim.y * blockDim.x) {
    out[i] = in[i] * 3.0f;
  }
}
