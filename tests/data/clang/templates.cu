// Template kernels: one explicit instantiation, one instance launched from host code with
// #define'd sizes, and a plain kernel (tests/clang_frontend.rs).
#define THREADS 64
#define BLOCKS 8

template <typename T, int N>
__global__ void scale(T *a, T s, int n) {
  int i = blockIdx.x * N + threadIdx.x;
  if (i < n) a[i] = a[i] * s;
}

template __global__ void scale<float, 128>(float *, float, int);

__global__ void plain(int *a) { a[threadIdx.x] = 1; }

void host(int *d, int n) {
  dim3 grid(BLOCKS);
  scale<int, THREADS><<<grid, THREADS>>>(d, 3, n);
}
