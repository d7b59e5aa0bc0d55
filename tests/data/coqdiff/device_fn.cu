// Written for warpcert's Rust/Coq differential test: an inlined device function with a
// loop and a return value.
__device__ int sum_to(int *A, int k) {
  int s = 0;
  for (int i = 0; i <= k; i++) {
    s += A[i * 16];
  }
  return s;
}

__global__ void device_fn(int *A, int *B) {
  int t = threadIdx.x;
  B[t] = sum_to(A, t % 5);
}
