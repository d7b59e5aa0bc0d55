// warpcert precision suite (issue 15), pattern "nest whose inner loop starts at the outer
// counter, with another bound" (the shape of scalarProdGPU's accumulator loops). Launch:
// block [32], one block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): for each i < 64 the inner loop runs
// max(0, n − i) times; each run reads in[j] (the same address for every lane: 1 sector).
// The final store writes 32 consecutive floats: 4 sectors. Total
// Σ_{i<64} max(0, n − i) + 4: n(n + 1)/2 + 4 for 0 ≤ n ≤ 64, 64·n − 2016 + 4 for n ≥ 64
// (Σ_{i<64} (n − i) = 64·n − 63·64/2), 4 for n ≤ 0.
__global__ void nest_entry(float *out, const float *in, int n) {
  float acc = 0.0f;
  for (int i = 0; i < 64; i++) {
    for (int j = i; j < n; j++) {
      acc = acc + in[j];
    }
  }
  out[threadIdx.x] = acc;
}
