// Written for warpcert's Rust/Coq differential test: nested divergent ifs (SC:IFD inside
// SC:IFD), a uniform if on a parameter and writes on the partial thread sets.
__global__ void diverge_if(float *A, int *B, int n) {
  int t = threadIdx.x;
  if (t % 3 == 0) {
    A[t] = 1.0f;
    if (t < 10) {
      B[2 * t] = t;
    } else {
      B[t + 100] = -t;
    }
  } else {
    if (n > 4) {
      A[32 * t] = 2.0f;
    }
  }
}
