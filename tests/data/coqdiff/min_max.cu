// Written for warpcert's Rust/Coq differential test: integer and float min/max, abs.
__global__ void min_max(int *A, float *F, int n) {
  int t = threadIdx.x;
  int a = min(t, n) - max(t - 20, 3);
  int b = abs(a - 5);
  A[b * 4] = b;
  float f = fminf(F[t], 0.5f) + fmaxf(F[t + 1], -1.0f);
  if (f > 0.75f) {
    A[t + 200] = b;
  }
}
