__global__ void k(int *a, int *b) {
  a = b;
}
// expect: 2:3 pointer aliasing
