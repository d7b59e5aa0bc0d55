//--blockDim=64 --gridDim=1
// The `tricky` kernel of RaCUDA §5 / Fig. 13, written for warpcert: warp 0 writes before the
// barrier, warp 1 after it. Per warp one global write; the block's span counts two, because
// warp 1 waits at the barrier for warp 0. No warp diverges.
__global__ void tricky(int *A) {
    if (threadIdx.x < 32) {
        A[threadIdx.x] = 42;
    }
    __syncthreads();
    if (threadIdx.x >= 32) {
        A[threadIdx.x] = 42;
    }
}
