// Constructs of the CUDA samples: unsigned aliases, warpSize, 2-D/3-D indices, __umul24,
// casts (C and functional), #pragma unroll, const locals, bit operations.
#include <cuda_runtime.h>
#include <helper_math.h>

__global__ void samples(uint *out, const unsigned int n)
{
    const uint lane = threadIdx.x & (warpSize - 1);
    const uint row = __umul24(blockIdx.y, blockDim.y) + threadIdx.y;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        out[row * n + lane] = (uint)(lane >> 1) | uint(k) ^ threadIdx.z;
    }
}
