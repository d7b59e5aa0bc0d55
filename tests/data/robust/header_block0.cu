//--blockDim=[0]
// issue 18: a zero block from the header (was: exit 1)
__global__ void k(int *a, int n) {
a[threadIdx.x] = 1;
}
