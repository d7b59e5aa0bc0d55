// A device function over a `thread_group`, called with the block and with warp tiles of 8
// lanes (written for warpcert's tests).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ int group_sum(cg::thread_group g, int *x, int v) {
  int lane = g.thread_rank();
  for (int i = g.size() / 2; i > 0; i /= 2) {
    x[lane] = v;
    g.sync();
    if (lane < i) v += x[lane + i];
    g.sync();
  }
  return v;
}
__global__ void sums(int *out) {
  __shared__ int work[64];
  cg::thread_block b = cg::this_thread_block();
  int r = b.thread_rank();
  int all = group_sum(b, work, r);
  if (r == 0) out[0] = all;
  b.sync();
  cg::thread_block_tile<8> t = cg::tiled_partition<8>(b);
  int part = group_sum(t, work + (r - t.thread_rank()), r);
  if (t.thread_rank() == 0) out[1 + r / 8] = part;
}
