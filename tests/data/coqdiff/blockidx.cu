// Written for warpcert's Rust/Coq differential test: blockIdx, blockDim and gridDim as
// parameters (the run is of block 2 of a grid of 3).
__global__ void blockidx(int *A) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  A[i] = gridDim.x;
  if (blockIdx.x == 2 && threadIdx.x < 5) {
    A[i + 1000] = i;
  }
}
