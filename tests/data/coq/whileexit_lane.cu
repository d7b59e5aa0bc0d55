//--blockDim=[32] --gridDim=[1]
// Written for tests/coq_export.rs: x = threadIdx.x % 2 has the remainder entry
// (rem x 1 0 0 0 2); the odd lanes enter the loop and leave it through the uniform exit
// x = 0. tests/data/coq/whileexit_lane.sectors.cert (written by hand) derives the bound 16
// with Q:WHILEEXIT2 and a Q:IFEXIT1 exit: the loop's post P ∧ ¬e carries the lane fact
// threadIdx.x mod 2 ∈ {0} (lane_D(¬(x != 0)) with the pre's map), false for the odd lanes
// that left by the exit, so N* of the write keeps 16 lanes; at p = 0 the write costs 32
// sectors (warpcert run --param p=0).
__global__ void lx(float *A, int p) {
  int x = threadIdx.x % 2;
  while (x != 0) {
    if (p >= 0) {
      x = 0;
    } else {
    }
  }
  A[threadIdx.x * 32] = 1.0f;
}
