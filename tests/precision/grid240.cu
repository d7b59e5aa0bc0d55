// warpcert precision suite (issue 15), pattern "concrete large grid" (`--grid 240`): the
// vector addition of NVIDIA's vectorAdd with the grid given. Launch: block [256], grid
// [240]; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): a warp covers 32 consecutive
// i = 256·b + 32w + l from a multiple of 32 bytes; when i < n for all of them (n ≥ 32) it
// reads A[i], B[i] and writes C[i]: 3·4 = 12 sectors. Worst for n ≥ 32: 12.
__global__ void grid240(const float *A, const float *B, float *C, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) {
    C[i] = A[i] + B[i];
  }
}
