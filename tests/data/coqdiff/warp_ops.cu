// Written for warpcert's Rust/Coq differential test: every warp operation (SC:SHFL idx,
// up, down, xor with widths 32, 8 and 4; SC:VOTE ballot, any, all), on the full warp and on
// the partial lane set of a divergent branch (inactive source lanes, spec/semantics.md §3).
__global__ void warp_ops(int *A, int *B, int n) {
  int t = threadIdx.x;
  int v = A[t];
  int a = __shfl_sync(0xffffffff, v, n);
  int b = __shfl_up_sync(0xffffffff, v, 3, 8);
  int c = __shfl_down_sync(0xffffffff, v, 5);
  int d = __shfl_xor_sync(0xffffffff, v, 6, 4);
  int e = __ballot_sync(0xffffffff, v > 4);
  B[t] = a + b + c + d + e;
  if (t % 3 != 1) {
    int f = __shfl_down_sync(0xffffffff, v, 1);
    int g = __any_sync(0xffffffff, v > 10);
    int h = __all_sync(0xffffffff, v > -5);
    B[t + 64] = f + g + h;
  }
}
