__global__ void broken(int *A, int n) {
  int i = threadIdx.x
  A[i] = n;
}
// expect: 3:3
