// A grid-stride copy, written for warpcert's tests: the stride `blockDim.x * gridDim.x` is
// the grid's thread count, which a block-size change keeps (Singhania 2019, Def. 5.1 and
// its CUDA note), so the kernel is block-size independent.
__global__ void grid_stride_copy(float *out, const float *in, int n) {
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        out[i] = in[i];
    }
}
