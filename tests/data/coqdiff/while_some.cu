// Written for warpcert's Rust/Coq differential test: a loop that the lanes leave at
// different iterations (SC:WHILESOME at every iteration until the last lane leaves).
__global__ void while_some(int *A) {
  int k = 0;
  while (k < threadIdx.x) {
    A[k * 32 + threadIdx.x] = k;
    k = k + 3;
  }
}
