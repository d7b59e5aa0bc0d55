// A warp reduction with shuffles (lowered to the core warp statement, spec/lowering.md §9.5).
__global__ void reduce(float *a) {
  float v = a[threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x == 0) a[0] = v;
}
