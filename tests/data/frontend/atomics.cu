// Atomics as statements (spec/lowering.md §6, atomics); used by tests/frontend.rs.
__global__ void hist(int *a, float *f)
{
    __shared__ int h[64];
    atomicAdd(&h[threadIdx.x % 64], 2);
    atomicMax(a + threadIdx.x, 7);
    atomicExch(f, 1);
}
