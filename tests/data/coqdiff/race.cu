// Written for warpcert's Rust/Coq differential test: lanes 0 and 1 write different values
// to A[0] (a write-write race: no rule of the lock-step semantics applies, both the Rust
// run and the Coq interpreter fail).
__global__ void race(int *A) {
  A[threadIdx.x / 2] = threadIdx.x;
}
