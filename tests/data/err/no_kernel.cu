// A file with a device helper but no __global__ function.
__device__ int twice(int x) { return 2 * x; }
// expect: 1:1 no `__global__` kernel
