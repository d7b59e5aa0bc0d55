// Written for warpcert's Rust/Coq differential test: bool locals, && || ! and a bool
// array.
__global__ void bool_locals(bool *F, int *A, int n) {
  int t = threadIdx.x;
  bool a = t < n;
  bool b = (t % 4 == 1) || !a;
  bool c = a && F[t];
  if (b && !c) {
    A[t] = 1;
  }
  F[t + 32] = b || c;
}
