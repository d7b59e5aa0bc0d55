// Atomics are outside miniCUDA: warpcert must refuse, naming the construct and its location.
__global__ void count(int *hist, const int *data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&hist[data[i]], 1);
}
