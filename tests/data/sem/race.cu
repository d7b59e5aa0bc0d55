//--blockDim=8 --gridDim=1
// Written for warpcert's tests: every thread writes its id into A[0] (a write-write race
// between threads 0 and 1 at line 5 under any schedule).
__global__ void race(int *A) {
    A[0] = threadIdx.x;
}
