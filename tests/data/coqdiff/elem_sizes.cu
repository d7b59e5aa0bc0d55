// Written for warpcert's Rust/Coq differential test: elements of 1, 2, 8 bytes (char,
// short, double arrays) and their sectors.
__global__ void elem_sizes(char *C, short *S, double *D) {
  int t = threadIdx.x;
  C[3 * t] = 1;
  S[5 * t] = C[t];
  D[t] = D[t + 7] * 2.0;
}
