// Grid-wide cooperative groups, `cg::reduce` on warp tiles and group parameters spelled
// through a namespace alias (tests/clang_groups.rs; spec/lowering.md §9.5, §9.6).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// a grid-stride loop: with 2 blocks of 32 threads and n = 100, element i is written by
// the thread of grid rank i mod 64, in block (i mod 64) / 32: a[i] = 1000 * that + 2
__global__ void grid_stride(int *a, int n) {
  cg::grid_group grid = cg::this_grid();
  for (int i = grid.thread_rank(); i < n; i += grid.size()) {
    a[i] = 1000 * grid.block_rank() + grid.num_blocks();
  }
}

// the same work on either side of a grid barrier (twice, two spellings) ...
__global__ void phases_grid(int *a, int *b) {
  cg::grid_group grid = cg::this_grid();
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = g;
  grid.sync();
  b[g] = a[g] * 2;
  cg::sync(grid);
  a[g] = b[g] + 1;
}

// ... and on either side of block barriers
__global__ void phases_block(int *a, int *b) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  a[g] = g;
  __syncthreads();
  b[g] = a[g] * 2;
  __syncthreads();
  a[g] = b[g] + 1;
}

// the grid passed to a device function
__device__ void fill(int *a, const cg::grid_group &grid) {
  a[grid.thread_rank()] = grid.num_threads();
}
__global__ void grid_param(int *a) {
  fill(a, cg::this_grid());
}

// a block group passed as `const cg::thread_block &` (a namespace alias clang does not
// desugar) and reductions over tiles of 32, 16 and 8 lanes
__device__ int tile_sums(const int *a, const cg::thread_block &cta, int *mins, int *maxs) {
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(cta);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(cta);
  int r = cta.thread_rank();
  mins[r] = cg::reduce(t8, a[r], cg::less<int>());
  maxs[r] = cg::reduce(t8, a[r], cg::greater<int>());
  return cg::reduce(t16, a[r], cg::plus<int>());
}
__global__ void reductions(const int *a, int *s32, int *s16, int *mins, int *maxs) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
  int r = block.thread_rank();
  s32[r] = cg::reduce(t32, a[r], cg::plus<int>());
  s16[r] = tile_sums(a, block, mins, maxs);
}

// still a located error: a coalesced group's shuffle from rank 2 (line 66), the grid's
// is_valid (line 70), a reduction over the whole block (line 74)
__global__ void coalesced(int *a) {
  cg::coalesced_group active = cg::coalesced_threads();
  a[threadIdx.x] = active.shfl(a[threadIdx.x], 2);
}
__global__ void valid(int *a) {
  cg::grid_group grid = cg::this_grid();
  a[threadIdx.x] = grid.is_valid();
}
__global__ void block_reduce(int *a) {
  cg::thread_block block = cg::this_thread_block();
  a[threadIdx.x] = cg::reduce(block, a[threadIdx.x], cg::plus<int>());
}
