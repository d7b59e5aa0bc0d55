// Written for warpcert's Rust/Coq differential test: a do-while loop left by a
// thread-dependent break.
__global__ void do_while(int *A, int n) {
  int k = threadIdx.x;
  do {
    A[k] = k;
    k = k + 7;
    if (k > n + threadIdx.x) break;
  } while (k < 3 * n);
  A[k + 300] = 1;
}
