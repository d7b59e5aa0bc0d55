// warpcert precision suite (issue 15), pattern "index reduced by a constant modulus inside a
// loop", with a modulus that is NOT a multiple of the bank count: m = 16 with 4-byte
// elements (m·4 = 64 bytes, not a multiple of 32 banks × 4 bytes), so the wrapped entry of
// spec/logic.md §2 is not counted as its lane stride and the index is bounded by its window.
// Launch: block [32], one block; parameter n (rounds).
//
// Exact per-warp worst cost, conflicts (hand derivation): the write s[threadIdx.x] of 32
// floats is 1-way. In round k lane t reads s[(2t + k) % 16]: 2t + k ≥ 0, so the word is
// (2t + k) mod 16, one of the 8 words of k's parity, each read by 4 lanes (the same word is
// one access); 8 distinct words in 8 distinct banks (word mod 32 = word): 1-way, 0
// conflicts. Total 0 for every n. (Counted as the lane stride 2, 2t + k, it would be 2-way.)
__global__ void mod16(float *out, int n) {
  __shared__ float s[32];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < n; k++) {
    acc = acc + s[(2 * threadIdx.x + k) % 16];
  }
  out[threadIdx.x] = acc;
}
