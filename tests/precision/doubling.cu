// warpcert precision suite (issue 15), pattern "doubling loop" (`i *= 2`). Launch: block
// [32], one block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): the loop runs once per
// i = 1, 2, 4, … < n, i.e. ⌈log2 n⌉ rounds for n ≥ 1 (0 for n ≤ 1); each round writes
// out[threadIdx.x] (4 sectors): 4·⌈log2 n⌉ sectors.
__global__ void doubling(float *out, int n) {
  for (int i = 1; i < n; i *= 2) {
    out[threadIdx.x] = (float)i;
  }
}
