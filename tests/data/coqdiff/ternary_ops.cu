// Written for warpcert's Rust/Coq differential test: the conditional operator, compound
// assignments, increments and array compound updates.
__global__ void ternary_ops(int *A, int n) {
  int t = threadIdx.x;
  int a = t > n ? t - n : n - t;
  a *= 3;
  a -= 1;
  a++;
  A[a] += 1;
  A[t + 64]++;
}
