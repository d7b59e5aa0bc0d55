//--blockDim=256 --gridDim=16
// warpcert example in the style of RaCUDA's addSub kernels (written for warpcert):
// thread `row` walks along one row of a `rows x cols` row-major matrix M and adds
// (even rows) or subtracts (odd rows) the vector V. The branch on `row % 2` diverges
// inside every warp, and the accesses M[row * cols + k] are strided by `cols`
// (uncoalesced), which is what the `divwarps` and `sectors` metrics expose.

__device__ int cell(int r, int c, int cols)
{
    return r * cols + c;
}

__global__ void add_sub(int *M, const int *V, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < cols; k++) {
        int at = cell(row, k, cols);
        if (row % 2 == 0) {
            M[at] += V[k];
        } else {
            M[at] -= V[k];
        }
    }
}
