// Written for warpcert's Rust/Coq differential test: a loop with continue and a
// thread-dependent break.
__global__ void break_continue(int *A, int n) {
  int s = 0;
  for (int k = 0; k < n; k++) {
    if (k % 3 == 1) continue;
    s += A[k + threadIdx.x];
    if (s > 20 + threadIdx.x) break;
  }
  A[threadIdx.x + 512] = s;
}
