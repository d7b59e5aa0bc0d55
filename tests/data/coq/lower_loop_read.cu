// Written for the lower-bound export test (tests/coq_export.rs): a uniform counted loop
// with one global read per round. Per round the 32 lanes of a warp read 32 consecutive
// ints A[32·i .. 32·i + 31] (128 bytes from a 128-byte-aligned address: 4 sectors of 32
// bytes); after the loop they write 32 consecutive ints of B (4 sectors). Sectors of a
// warp: 4·n + 4 for n ≥ 0 (4 for n ≤ 0).
__global__ void lowerLoopRead(int *A, int *B, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    s = s + A[i * 32 + threadIdx.x];
  }
  B[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
