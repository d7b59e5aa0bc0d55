__global__ void k(int *a) {
  int x = 1;
    a[1] = atomicFoo(a, x);
}
// expect: 3:12 atomic operation `atomicFoo`
