// Written for warpcert's Rust/Coq differential test: branches on float values read from
// memory (the float model decides the control flow), float arithmetic and comparisons.
__global__ void float_branch(float *X, float *Y) {
  int t = threadIdx.x;
  float x = X[t] * 0.5f - 0.125f;
  if (x > 0.25f) {
    Y[t] = x / 3.0f;
  } else if (x <= -0.0625f) {
    Y[2 * t] = x * x;
  } else {
    Y[4 * t] = x + 1.0f;
  }
  float y = X[t + 32];
  while (y < 4.0f) {
    y = y * 2.0f + 0.1f;
  }
  Y[t + 64] = y;
}
