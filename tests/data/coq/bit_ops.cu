// Written for tests/coq_export.rs: the core operators popc and ffs (from `__popc`, `__ffs`,
// `__popcll`) in a kernel whose certificates are exported to Coq.
__global__ void bit_ops(int *A, int *B) {
  int t = threadIdx.x;
  int p = __popc(A[t]);
  int f = __ffs(t);
  B[t] = p + f;
  if (__popcll((long long)t) > 2) {
    B[t + 64] = p;
  }
}
