//--blockDim=256 --gridDim=16
// warpcert example: element-wise sum of two float vectors, one element per thread.
// Written for warpcert (not copied from any SDK). Guarded so that threads past the end
// of the vectors do nothing; global accesses are coalesced (consecutive threads touch
// consecutive floats).

__global__ void vector_add(const float *x, const float *y, float *out, int len)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < len) {
        out[gid] = x[gid] + y[gid];
    }
}
