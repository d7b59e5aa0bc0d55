// Singhania 2019, Sect. 5.1: Fig. 5.1 with `y = bid[1]*bw + ty` — y uses blockDim.x where
// blockDim.y is meant, so the kernel is block-size dependent (invisible while the block is
// square). Written for warpcert's tests.
__device__ unsigned int rgbToInt(unsigned int r, unsigned int g, unsigned int b) {
    return (b << 16) | (g << 8) | r;
}

__global__ void cudaProcess(unsigned int *g_odata, int imgw) {
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bw = blockDim.x;
    int x = blockIdx.x * bw + tx;
    int y = blockIdx.y * bw + ty;
    unsigned int r = (x & 0x20) ? 100 : 0;
    unsigned int b = (y & 0x20) ? 100 : 0;
    g_odata[y * imgw + x] = rgbToInt(r, 0, b);
}
