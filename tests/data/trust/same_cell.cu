//--blockDim=32 --gridDim=1
// Every lane writes its thread index to the same cell: a write-write data race
// (Collingbourne et al. Def. 3.1). The sectors bound (1 per warp) assumes race freedom.
__global__ void same_cell(int *out)
{
    out[0] = threadIdx.x;
}
