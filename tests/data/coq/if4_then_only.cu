//--blockDim=[32] --gridDim=[1]
// Written for tests/coq_export.rs: the condition holds in every thread, so only the (empty)
// then branch runs; the else branch is a uniform loop whose weakened post potential is 32.
// tests/data/coq/if4_then_only.sectors.cert (written by hand) derives the bound max(0, w)
// with Q:IF4; at w = 0 the write costs 32 sectors (warpcert run --param w=0).
__global__ void cx(float *A, int w) {
  if (threadIdx.x >= 0) {
  } else {
    while (w < 32) {
    }
  }
  A[threadIdx.x * 32] = 1.0f;
}
