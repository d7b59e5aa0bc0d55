// warpcert precision suite (issue 15), pattern "data-dependent index into a small __shared__
// table": 256 ints, index in[t] & 255 (NVIDIA histogram's byte bins). Launch: block [32].
//
// Exact per-warp worst cost, conflicts (hand derivation): the 256-int table holds 8 words
// per bank (word i in bank i mod 32); 32 lanes can name at most 8 distinct words of one
// bank (inputs 32·(t mod 8)), so the fullest bank has 8 addresses: 7 conflicts on the read.
// The fill (8 writes of s[threadIdx.x + 32 j]) is 1-way. Total 7.
__global__ void table_words(int *out, const int *in) {
  __shared__ int s[256];
  for (int j = 0; j < 8; j++) {
    s[threadIdx.x + 32 * j] = j;
  }
  __syncthreads();
  out[threadIdx.x] = s[in[threadIdx.x] & 255];
}
