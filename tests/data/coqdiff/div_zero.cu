// Written for warpcert's Rust/Coq differential test: a division by the parameter q; with
// q = 0 no rule applies and both the Rust run and the Coq interpreter fail.
__global__ void div_zero(int *A, int q) {
  A[threadIdx.x / q] = 1;
}
