// Written for warpcert's Rust/Coq differential test: indices read from memory (the array
// contents decide the accesses, negative values included), histogram-like updates.
__global__ void data_index(int *Idx, int *H, int *D) {
  int t = threadIdx.x;
  int j = Idx[t];
  int v = D[j];
  if (v > 3) {
    H[j * 8] = v;
  }
  D[Idx[t + 32] + 100] = 7;
}
