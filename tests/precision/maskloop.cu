// warpcert precision suite (issue 15), pattern "index reduced by a mask inside a loop".
// Launch: block [64], one block; parameter n (rounds).
//
// Exact per-warp worst cost, conflicts (hand derivation): in round k lane t of warp w
// (t = 32w + l) reads s[(2t + k) & 63] for a 64-float table. The 32 lanes' indices
// 2l + 64w + k (mod 64) = (2l + k) mod 64 are 32 distinct words; their banks (index mod 32)
// take each value of one parity twice (l and l + 16 share a bank): 2-way, 1 conflict per
// round. The write s[threadIdx.x] before the loop is 1-way. Total: n conflicts (n ≥ 0).
__global__ void maskloop(float *out, int n) {
  __shared__ float s[64];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < n; k++) {
    acc = acc + s[(2 * threadIdx.x + k) & 63];
  }
  out[threadIdx.x] = acc;
}
