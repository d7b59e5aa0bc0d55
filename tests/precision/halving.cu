// warpcert precision suite (issue 15), pattern "halving loop" (`s >>= 1`). Launch: block
// [32], one block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): the loop runs once per value
// s = n, ⌊n/2⌋, … ≥ 1, i.e. ⌊log2 n⌋ + 1 rounds for n ≥ 1 (0 for n ≤ 0); each round reads
// and writes out[threadIdx.x] (32 floats, 4 sectors each): 8·(⌊log2 n⌋ + 1) sectors.
__global__ void halving(float *out, int n) {
  for (int s = n; s > 0; s >>= 1) {
    out[threadIdx.x] = out[threadIdx.x] + 1.0f;
  }
}
