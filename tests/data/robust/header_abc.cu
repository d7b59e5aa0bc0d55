//--gridDim=[abc]
// issue 18: a malformed launch header (was: silently ignored)
__global__ void k(int *a, int n) {
a[threadIdx.x] = 1;
}
