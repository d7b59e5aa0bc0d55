// Written for warpcert's tests: each thread stores the number of blocks. A block-size change
// that keeps the grid's thread count changes `gridDim.x`, so the kernel is block-size
// dependent (Singhania 2019, Def. 5.1).
__global__ void grid_dim_write(int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = gridDim.x;
}
