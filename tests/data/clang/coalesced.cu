// Coalesced groups (spec/lowering.md §9.5): kernels written for tests/clang_coalesced.rs.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// rank, size and rank-0 shuffle of the lanes that took a divergent branch
__global__ void ranks(int *rank, int *size, int *lead, int *vote, const int *in) {
  int t = threadIdx.x;
  rank[t] = -1;
  size[t] = -1;
  lead[t] = -1;
  vote[t] = -1;
  if (in[t] > 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    rank[t] = g.thread_rank();
    size[t] = g.size();
    lead[t] = g.shfl(t + 100, 0);
    vote[t] = 2 * g.any(in[t] > 5) + g.all(in[t] > 1);
  }
}

// one atomic per warp hands out consecutive slots to the lanes that reach it
__device__ int claim_slot(int *next) {
  cg::coalesced_group here = cg::coalesced_threads();
  int first = 0;
  unsigned me = here.thread_rank();
  if (me == 0) {
    first = atomicAdd(next, (int)here.size());
  }
  return here.shfl(first, 0) + me;
}

__global__ void keep_positive(int *kept, int *next, const int *in, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    int x = in[t];
    if (x > 0) {
      kept[claim_slot(next)] = x;
    }
  }
}

// parity classes of a warp: their sums and sizes
__global__ void parity(int *sum, int *count, int *rank, const int *in) {
  int t = threadIdx.x;
  cg::thread_block blk = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(blk);
  int v = in[t];
  cg::coalesced_group cls = cg::binary_partition(warp, (v & 1) != 0);
  sum[t] = cg::reduce(cls, v, cg::plus<int>());
  count[t] = cls.size();
  rank[t] = cls.thread_rank();
}

// groups of equal keys among the lanes with t % 4 != 1
__global__ void by_key(int *hi, int *lo, int *count, const int *in, const int *key) {
  int t = threadIdx.x;
  hi[t] = -1;
  lo[t] = -1;
  count[t] = -1;
  if (t % 4 != 1) {
    cg::coalesced_group act = cg::coalesced_threads();
    cg::coalesced_group same = cg::labeled_partition(act, key[t]);
    hi[t] = cg::reduce(same, in[t], cg::greater<int>());
    lo[t] = cg::reduce(same, in[t], cg::less<int>());
    count[t] = same.size();
  }
}

// the bit intrinsics with exact values
__global__ void bits(int *pc, int *ff, int *pcl, int *ffl, const int *in) {
  int t = threadIdx.x;
  int x = in[t];
  pc[t] = __popc(x);
  ff[t] = __ffs(x);
  pcl[t] = __popcll((long long)x);
  ffl[t] = __ffsll((long long)x);
}

// a source rank other than 0 stays a located error (line 82)
__global__ void other_rank(int *a) {
  cg::coalesced_group g = cg::coalesced_threads();
  a[threadIdx.x] = g.shfl(a[threadIdx.x], 1);
}
