// Cooperative groups inside a block and a SharedMemory<T>-style helper.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
template <class T> struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};
__global__ void sum(float *a) {
  cg::thread_block b = cg::this_thread_block();
  float *s = SharedMemory<float>();
  unsigned r = b.thread_rank();
  s[r] = a[r];
  b.sync();
  if (r == 0) a[0] = s[0] + s[b.size() - 1];
}
