// issue 18: real macro recursion is an error
#define A B + 1
#define B A
__global__ void k(int *a, int n) {
a[threadIdx.x] = A;
}
