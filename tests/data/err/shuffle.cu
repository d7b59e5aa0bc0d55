__global__ void k(int *a) {
  a[0] = __shfl_sync(0, 1, 2, 3);
}
// expect: 2:10 is not a power of two
