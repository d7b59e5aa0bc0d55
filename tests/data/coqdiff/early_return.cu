// Written for warpcert's Rust/Coq differential test: an early return of some lanes
// (lowered to a flag and guarded statements).
__global__ void early_return(float *A, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  A[i] = 1.0f;
  if (i % 2 == 1) return;
  A[i + 64] = 2.0f;
}
