// The value an atomic returns is outside miniCUDA: warpcert must refuse, naming the construct and its location.
__global__ void count(int *hist, const int *data, int *slots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int slot = atomicAdd(&hist[data[i]], 1); slots[i] = slot;
}
// expect: 4:14 atomicAdd
