// warpcert precision suite (issue 15), pattern "index reduced by a constant modulus inside a
// loop". Launch: block [32], one block; parameter n (rounds).
//
// Exact per-warp worst cost, conflicts (hand derivation): in round k the 32 lanes write
// s[(threadIdx.x + k) % 32]: the indices (t + k) mod 32 for t = 0 … 31 are a permutation
// of 0 … 31, 32 distinct words in 32 distinct banks (4-byte elements): 1-way, 0 conflicts
// per access; the read of s[threadIdx.x] is likewise 1-way. Total 0 for every n.
__global__ void modloop(float *out, int n) {
  __shared__ float s[32];
  for (int k = 0; k < n; k++) {
    s[(threadIdx.x + k) % 32] = (float)k;
  }
  out[threadIdx.x] = s[threadIdx.x];
}
