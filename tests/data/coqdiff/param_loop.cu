// Written for warpcert's Rust/Coq differential test: a uniform loop whose bound and step
// are parameters, with a global read and write per iteration.
__global__ void param_loop(float *A, int n, int step) {
  for (int i = threadIdx.x; i < n; i += step) {
    A[i] = A[i + n] * 2.0f;
  }
}
