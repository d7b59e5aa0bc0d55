// warpcert precision suite (issue 15), pattern "grid-stride loop" (accumulating into a
// register, one store at the end). Launch: block [128], a concrete grid of G blocks;
// parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): stride S = 128·G; warp 0 of block 0
// reads ⌈min(32, n − jS)/8⌉ sectors in round j (as gridstride.cu), then every lane stores
// one float of out[0 … 31]: 4 sectors. With q = ⌊n/S⌋, r = n − qS:
// 4q + ⌈min(32, r)/8⌉ + 4.
__global__ void gridstride_sum(float *out, const float *in, int n) {
  float acc = 0.0f;
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = gid; i < n; i += blockDim.x * gridDim.x) {
    acc = acc + in[i];
  }
  out[gid] = acc;
}
