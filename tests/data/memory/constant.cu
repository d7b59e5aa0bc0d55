//--blockDim=64
// A `__constant__` array read at a uniform index (a broadcast) and at a lane index.
__constant__ float coef[64];

__global__ void scale(float *out)
{
    out[threadIdx.x] = coef[3] * coef[threadIdx.x];
}
