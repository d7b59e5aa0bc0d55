// A warp reduction with shuffles: not modelled yet, a located error naming the shuffle.
__global__ void reduce(float *a) {
  float v = a[threadIdx.x];
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_down_sync(0xffffffff, v, o);
  if (threadIdx.x == 0) a[0] = v;
}
