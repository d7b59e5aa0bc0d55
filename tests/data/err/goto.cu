__global__ void k(int *a) {
  goto done;
}
// expect: 2:3 goto
