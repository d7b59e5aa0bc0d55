// warpcert (issue 15), not in the precision table: a modulus whose wrap does NOT keep the
// banks, m = 48 with 4-byte elements (48·4 = 192 bytes, not a multiple of 32 banks × 4
// bytes). Counting s[(threadIdx.x + 32) % 48] as its lane stride (threadIdx.x + 32: 32
// words in 32 banks, 1-way) would be unsound; tests/wrap.rs checks that the bound is the
// window's. Launch: block [32], one block; parameter n (rounds).
//
// Exact per-warp worst cost, conflicts (hand derivation): the writes s[threadIdx.x] (32
// floats) and, by lanes 0…15, s[threadIdx.x + 32] are 1-way. In every round the index
// (t + 32) % 48 for t = 0…31 is 32…47 (t < 16: banks 0…15) and 0…15 (t ≥ 16: banks
// 0…15): each of banks 0…15 holds two distinct words, 2-way, 1 conflict per round.
// Total: max(0, n).
__global__ void mod48(float *out, int n) {
  __shared__ float s[48];
  s[threadIdx.x] = 1.0f;
  if (threadIdx.x < 16) {
    s[threadIdx.x + 32] = 2.0f;
  }
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < n; k++) {
    acc = acc + s[(threadIdx.x + 32) % 48];
  }
  out[threadIdx.x] = acc;
}
