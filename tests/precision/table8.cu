// warpcert precision suite (issue 15), pattern "data-dependent index into a small __shared__
// table", index masked to the table. Launch: block [32], one block.
//
// Exact per-warp worst cost, conflicts (hand derivation): the index in[t] & 7 lies in
// [0, 7]: 8 consecutive 4-byte words of a 256-word table, in 8 distinct banks, so every
// bank holds at most one distinct address: 1-way, 0 conflicts. The fill s[threadIdx.x] is
// 1-way (8 writes per lane, stride 32: one bank per word, distinct addresses per bank are
// the lanes' own, 1-way). Total 0.
__global__ void table8(int *out, const int *in) {
  __shared__ int s[256];
  for (int j = 0; j < 8; j++) {
    s[threadIdx.x + 32 * j] = j;
  }
  __syncthreads();
  out[threadIdx.x] = s[in[threadIdx.x] & 7];
}
