__global__ void k(float *a) {
  a[0] = mySqrt(a[1]);
}
// expect: 2:10 unknown function `mySqrt`
