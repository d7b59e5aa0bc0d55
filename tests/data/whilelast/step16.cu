// Q:WHILELAST's side condition fails (tests/whilelast.rs): block [32], parameter n. The
// step 16 is below the lane spread 31 of `i = threadIdx.x + c`, so the test can split the
// warp in two rounds: at n = 40, round 1 keeps lanes l < 24 and round 2 lanes l < 8
// (l + 16j < n), 2 divwarps (hand derivation; the lock-step semantics agrees in the test).
__global__ void step16(float *out, int n) {
  for (int i = threadIdx.x; i < n; i += 16) {
    out[i] = 1.0f;
  }
}
