// Written for warpcert's Rust/Coq differential test: the core operators popc and ffs
// (`__popc`, `__ffs` on the low 32 bits, `__popcll`, `__ffsll` on 64 bits), whose values
// choose the cells written (sectors), a loop's trip count and a divergent branch.
__global__ void bit_counts(int *A, int *B, int m) {
  int t = threadIdx.x;
  int v = A[t] * m;
  int p = __popc(v);
  int f = __ffs(v);
  int q = __popcll((long long)v);
  int g = __ffsll((long long)(v - 7));
  B[(p * 8 + f) * 32 + t] = q;
  for (int k = 0; k < g; k++) {
    B[4000 + k * 32 + t] = t;
  }
  if (q > 40) {
    B[t + 9000] = 1;
  }
}
