// Written for warpcert's Rust/Coq differential test: a shared 2-D tile written by rows and
// read by columns (bank conflicts), with a barrier.
__global__ void transpose_tile(float *in, float *out, int w) {
  __shared__ float tile[16][17];
  int x = threadIdx.x;
  int y = threadIdx.y;
  tile[y][x] = in[y * w + x];
  __syncthreads();
  out[x * w + y] = tile[x][y];
}
