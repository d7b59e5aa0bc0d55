//--blockDim=64
// A thread-local array of 4 floats (spec/lowering.md §5): loaded with a stride, summed.
__global__ void local_sum(const float *in, float *out)
{
    float r[4];
    for (int j = 0; j < 4; j++) {
        r[j] = in[4 * threadIdx.x + j];
    }
    float s = 0.0f;
    for (int j = 0; j < 4; j++) {
        s += r[j];
    }
    out[threadIdx.x] = s;
}
