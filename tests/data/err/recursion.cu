__device__ int f(int x) { return f(x - 1); }
__global__ void k(int *a) { a[0] = f(3); }
// expect: 1:34 recursi
