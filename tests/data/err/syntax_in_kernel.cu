__global__ void k(int *a) {
  a[0] = ;
}
// expect: 2:10
