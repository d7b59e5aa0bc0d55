__global__ void k(int *a) {
  int x; int *p = &x;
}
// expect: 2:19 address-of
