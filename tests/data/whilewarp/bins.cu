// Q:WHILEWARP (spec/logic.md §4): a block of 192 threads clears 256 bins, `b = threadIdx.x`
// then `b + 192`. Launch: block [192], one block.
//
// Divwarps (hand derivation): warp w has lanes 32w … 32w + 31. Round 0: every b < 192 < 256,
// all lanes pass. Round 1: b = 192 + 32w + l passes iff 32w + l < 64, i.e. iff w < 2 (for
// every lane l of the warp alike). Round 2: b ≥ 384, all fail. Every bound 256 − 192·j is a
// multiple of 32, so no test splits a warp: 0 divergent tests for every warp.
__global__ void bins(int *hist) {
  for (int b = threadIdx.x; b < 256; b += 192) {
    hist[256 * blockIdx.x + b] = 0;
  }
}
