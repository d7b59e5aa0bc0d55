// Written for warpcert's Rust/Coq differential test (tests/coq_semantics_diff.rs):
// global reads and writes at negative indices (floor division of negative byte offsets
// by the sector size), with a stride given as a parameter.
__global__ void neg_index(int *A, int *B, int s) {
  int i = threadIdx.x - 16;
  int j = -3 * threadIdx.x - 1;
  A[i] = B[j] + B[s * i];
  A[j * s] = i;
}
