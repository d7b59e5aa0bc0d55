__global__ void k(int *a) {
  printf("x");
}
// expect: 2:3 printf
