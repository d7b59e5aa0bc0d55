// warpcert precision suite (issue 15), pattern "triangular loop nest". Launch: block [32],
// one block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): the inner body runs for
// 0 ≤ i ≤ j < n, n(n + 1)/2 times (n ≥ 0); each run reads in[j] (one float for every lane:
// the same address, 1 sector). The final store writes 32 consecutive floats: 4 sectors.
// Total n(n + 1)/2 + 4.
__global__ void triangular(float *out, const float *in, int n) {
  float acc = 0.0f;
  for (int i = 0; i < n; i++) {
    for (int j = i; j < n; j++) {
      acc = acc + in[j];
    }
  }
  out[threadIdx.x] = acc;
}
