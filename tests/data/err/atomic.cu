// atomicInc on a float cell has no core counterpart: warpcert must refuse, naming the construct and its location.
__global__ void count(float *hist, const int *data, int *slots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned slot = atomicInc(&hist[data[i]], 1u); slots[i] = slot;
}
// expect: 4:19 `atomicInc` on a non-integer array
