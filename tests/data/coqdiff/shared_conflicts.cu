// Written for warpcert's Rust/Coq differential test: shared-memory writes and reads with
// a parameter stride (bank conflicts), a barrier between them.
__global__ void shared_conflicts(float *out, int stride) {
  __shared__ float S[4096];
  int t = threadIdx.x;
  S[stride * t] = (float)t;
  __syncthreads();
  out[t] = S[(stride * t + 1) % 64] + S[t / 2];
}
