//--blockDim=128
// Cooperative-groups warp tiles of 16 lanes: a tile reduction with shfl_down.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void tile_sum(const int *in, int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = tile.size() / 2; o > 0; o /= 2) {
        v += tile.shfl_down(v, o);
    }
    tile.sync();
    if (tile.thread_rank() == 0) {
        out[(blockIdx.x * blockDim.x + threadIdx.x) / 16] = v;
    }
}
