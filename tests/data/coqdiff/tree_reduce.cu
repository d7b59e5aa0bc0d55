// Written for warpcert's Rust/Coq differential test: a shared-memory tree reduction with a
// halving stride, divergence and barriers.
__global__ void tree_reduce(int *in, int *out) {
  __shared__ int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int d = 32; d > 0; d >>= 1) {
    if (t < d) {
      s[t] = s[t] + s[t + d];
    }
    __syncthreads();
  }
  if (t == 0) {
    out[0] = s[0];
  }
}
