// Atomics whose value is used (spec/lowering.md §6): the value is the cell before the
// warp's atomic; tests/clang_frontend.rs derives the results and bounds by hand.

// Distinct cells: with a[k] = k lane t gets old = t and leaves a[t] = t + 5.
__global__ void fetch_add(int *a, int *out) {
  int old = atomicAdd(&a[threadIdx.x], 5);
  out[threadIdx.x] = old;
}

// One counter for the warp: on the hardware the lanes get 0, 1, …, 31 in some order, so
// the branch splits the warp; the bound must count that divergence (1 per warp).
__global__ void ticket(int *c, int *out) {
  int old = atomicAdd(&c[0], 1);
  if (old < 4) {
    out[threadIdx.x] = 1;
  }
}
