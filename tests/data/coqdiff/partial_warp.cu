// Written for warpcert's Rust/Coq differential test: a block of 40 threads (the second
// warp has 8 lanes).
__global__ void partial_warp(int *A) {
  int t = threadIdx.x;
  A[t * 5] = A[t] + t;
  if (t > 35) {
    A[t] = 0;
  }
}
