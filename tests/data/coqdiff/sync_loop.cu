// Written for warpcert's Rust/Coq differential test: a uniform loop with a barrier and a
// shared array in its body.
__global__ void sync_loop(int *A, int n) {
  __shared__ int S[64];
  for (int k = 0; k < n; k++) {
    S[threadIdx.x] = k + threadIdx.x;
    __syncthreads();
    A[k * 32 + threadIdx.x] = S[(threadIdx.x + k) % 32];
    __syncthreads();
  }
}
