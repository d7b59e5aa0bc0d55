// A loop nest whose inner range starts at the outer counter, with symbolic steps (issue 14).
// Hand count at n = m = 5, s1 = s2 = 1: the inner loop runs 5 + 4 + 3 + 2 + 1 = 15 times,
// one uniform read of A[j] each (1 sector), then one store of 32 consecutive floats
// (4 sectors): 19 sectors per warp.
__global__ void triangular_step(float *A, float *out, int n, int m, int s1, int s2) {
  float acc = 0;
  for (int i = 0; i < n; i += s1)
    for (int j = i; j < m; j += s2)
      acc += A[j];
  out[threadIdx.x] = acc;
}
