// Half precision and clock() (spec/lowering.md §9.4): opaque operations whose operands
// are the scalar leaves of their arguments; each argument read from memory is read once.
#include <cuda_fp16.h>

// One warp: __hadd2 reads a[i] and b[i] (two 2-byte leaves each), `a[i] * b[i]` reads
// them again, r[i] is one float write. Every read is 32 lanes x 2 bytes at a 4-byte
// stride (128 bytes, 4 sectors of 32 bytes): 8 leaf reads x 4 + 4 for r = 36 sectors.
__global__ void halves(const half2 *a, const half2 *b, float *r)
{
    int   i = threadIdx.x;
    half2 s = __hadd2(a[i], b[i]);
    half2 t = a[i] * b[i] + s;
    r[i]    = __low2float(t) + (float)t.y;
}

// clock() is an unconstrained value; the shared array of half2 is implicitly constructed
// (no initializer). One warp: lane 0 writes timer[0] (1 sector), out[i] (4 sectors).
__global__ void timed(long *timer, float *out)
{
    __shared__ half2 sh[32];
    if (threadIdx.x == 0)
        timer[blockIdx.x] = clock();
    sh[threadIdx.x] = __float2half2_rn(1.0f);
    out[threadIdx.x] = __low2float(sh[threadIdx.x]);
}
