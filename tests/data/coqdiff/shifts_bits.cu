// Written for warpcert's Rust/Coq differential test: shifts and bitwise operators on
// negative and positive values, used as indices.
__global__ void shifts_bits(int *A, int m) {
  int t = threadIdx.x;
  int a = (t - 8) >> 2;
  int b = (t << 3) | 5;
  int c = (t ^ m) & 15;
  int d = ~t;
  A[a] = 3 * a + 1;
  A[c * 9] = c - b % 2 + b % 2;
  A[b] = d;
  A[d] = a;
}
