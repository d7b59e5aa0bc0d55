// Written for warpcert's Rust/Coq differential test: C's truncating / and % on negative
// operands, used as global and shared indices.
__global__ void div_mod_neg(int *A, int q) {
  __shared__ int S[256];
  int t = threadIdx.x - 13;
  int a = t / q;
  int b = t % q;
  S[b + 40] = 2 * b;
  A[a * 32 + b] = S[(t * 7) % 32 + 64];
}
