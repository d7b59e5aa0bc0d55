// warpcert precision suite (issue 15), pattern "nest whose inner loop starts at the outer
// counter, with another bound", block-strided as in scalarProdGPU (outer counter from
// threadIdx.x by blockDim.x, inner by a constant stride). Launch: block [32], one block;
// parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): the warp's lanes l = 0 … 31 run
// the outer rounds i = l + 32k, k = 0 … 7, together. In round k the inner loop reads
// in[l + 32k + 256t] for t = 0, 1, … while some lane has l + 32k + 256t < n: with
// u = k + 8t (each u ≥ 0 once), the lanes l < n − 32u read consecutive floats from the
// 128-byte aligned address 128u: ⌈min(32, n − 32u)/8⌉ sectors for every u with 32u < n.
// Summed: 4·⌊n/32⌋ + ⌈(n mod 32)/8⌉ = ⌈n/8⌉ for n ≥ 0. The final store writes 32
// consecutive floats: 4 sectors. Total ⌈max(0, n)/8⌉ + 4.
__global__ void nest_entry_stride(float *out, const float *in, int n) {
  float acc = 0.0f;
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    for (int j = i; j < n; j += 256) {
      acc = acc + in[j];
    }
  }
  out[threadIdx.x] = acc;
}
