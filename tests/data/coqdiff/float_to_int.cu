// Written for warpcert's Rust/Coq differential test: indices computed from floats by
// truncating conversions (negative values included), int to float conversions.
__global__ void float_to_int(float *X, int *A) {
  int t = threadIdx.x;
  float f = X[t] * 20.0f - 10.0f;
  int k = (int)f;
  A[k + 16] = k;
  float g = (float)(t - 7) / 2.0f;
  A[(int)g * 32] = (int)g + k - k;
}
