//--blockDim=[64] --gridDim=[1]
// Written for warpcert's Coq export test (tests/coq_export.rs): a uniform branch that
// the constraints do not decide (Q:IF1) and a loop whose condition differs between the
// lanes of a warp (Q:WHILE2).
__global__ void if1_while2(float *A, int w, int h) {
  int j = 0;
  if (w < h) {
    A[j] = 1.0f;
  } else {
    A[j + 1] = 2.0f;
  }
  int k = threadIdx.x;
  while (k < 4) {
    k = k + 1;
  }
  A[k] = 3.0f;
}
