__global__ void k(int *a, int *b) {
  if (threadIdx.x == 0) a = b;
}
// expect: 2:25 depend on control flow
