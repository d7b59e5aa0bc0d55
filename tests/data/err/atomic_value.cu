__global__ void k(int *a) {
  int x = 1;
    a[1] = atomicAdd(a, x);
}
// expect: 3:12 value returned by `atomicAdd`
