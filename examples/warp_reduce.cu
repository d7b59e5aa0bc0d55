//--blockDim=256 --gridDim=16
// warpcert example (written for warpcert): a block sum in the shape of the CUDA
// Programming Guide's warp-shuffle reduction. Each thread loads one element, each warp
// adds its 32 values with `__shfl_down_sync` over offsets 16, 8, 4, 2, 1 (lane 0 ends with
// the warp's sum), lane 0 of every warp writes that sum to shared memory, and after the
// barrier the first warp reduces the 8 warp sums with `__shfl_xor_sync` (every lane of
// warp 0 ends with the block's sum) and thread 0 writes it out. `__any_sync` skips the
// store of a warp whose sums are all zero (a vote: the same value on every lane).

__global__ void warp_reduce(const float *in, float *out, int n)
{
    __shared__ float sums[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = 0.0f;
    if (i < n) {
        v = in[i];
    }
    for (int off = 16; off > 0; off /= 2) {
        v += __shfl_down_sync(0xffffffff, v, off);
    }
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x >> 5;
    if (__any_sync(0xffffffff, v != 0.0f)) {
        if (lane == 0) {
            sums[warp] = v;
        }
    } else if (lane == 0) {
        sums[warp] = 0.0f;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        float s = 0.0f;
        if (threadIdx.x < 8) {
            s = sums[threadIdx.x];
        }
        for (int m = 4; m > 0; m /= 2) {
            s += __shfl_xor_sync(0xffffffff, s, m, 8);
        }
        if (threadIdx.x == 0) {
            out[blockIdx.x] = s;
        }
    }
}
