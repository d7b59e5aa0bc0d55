// Written for the lower-bound export test (tests/coq_export_lower.rs): a uniform counted
// loop reading a shared array with stride 2. The 32 lanes of a warp read S[2·t],
// t = 0..31: byte addresses 8·t, bank (2·t) mod 32, so each even bank holds two distinct
// words (t and t + 16) and each round is a 2-way bank conflict (1 conflict); the final
// global write has no shared access. Conflicts of a warp: n for n ≥ 0 (0 for n ≤ 0).
__global__ void lowerSharedStride(int *B, int n) {
  __shared__ int S[512];
  int s = 0;
  for (int i = 0; i < n; i++) {
    s = s + S[2 * threadIdx.x];
  }
  B[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
