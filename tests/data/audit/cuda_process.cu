// Singhania 2019, Fig. 5.1 (from the CUDA SDK sample simpleCUDA2GL), written as CUDA with a
// flattened output array: x and y are global thread ids, so the kernel is block-size
// independent (Fig. 5.5). Written for warpcert's tests.
__device__ unsigned int rgbToInt(unsigned int r, unsigned int g, unsigned int b) {
    return (b << 16) | (g << 8) | r;
}

__global__ void cudaProcess(unsigned int *g_odata, int imgw) {
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bw = blockDim.x;
    int bh = blockDim.y;
    int x = blockIdx.x * bw + tx;
    int y = blockIdx.y * bh + ty;
    unsigned int r = (x & 0x20) ? 100 : 0;
    unsigned int b = (y & 0x20) ? 100 : 0;
    g_odata[y * imgw + x] = rgbToInt(r, 0, b);
}
