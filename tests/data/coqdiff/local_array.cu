// Written for warpcert's Rust/Coq differential test: a thread-local array (EC:LARR,
// SC:LWRITE; spec/lowering.md §5) written and read at data-dependent indices, in a
// divergent branch.
__global__ void local_array(int *A, int *B) {
  int t = threadIdx.x;
  int r[4];
  for (int j = 0; j < 4; j++) {
    r[j] = A[t + j];
  }
  if (t % 2 == 0) {
    r[A[t] & 3] = t;
  }
  B[t] = r[0] + r[1] * 2 + r[2] * 3 + r[3] * 4;
}
