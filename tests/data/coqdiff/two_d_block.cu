// Written for warpcert's Rust/Coq differential test: a 2-D block (threadIdx.y varies inside
// a warp) and a row-major access with a parameter width.
__global__ void two_d_block(float *M, int w) {
  int x = threadIdx.x;
  int y = threadIdx.y;
  M[y * w + x] = M[x * w + y] + 1.0f;
  if (y == 1) {
    M[x] = 0.0f;
  }
}
