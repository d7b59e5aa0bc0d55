// Written for warpcert's Rust/Coq differential test: nested loops whose inner trip count
// depends on the thread (SC:WHILESOME) and on the outer index.
__global__ void nested_loops(int *A, int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i + threadIdx.x % 4; j++) {
      acc += A[i * 8 + j];
    }
  }
  A[threadIdx.x] = acc;
}
