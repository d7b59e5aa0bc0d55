//--blockDim=4 --gridDim=1
// A spin lock between the lanes of one warp, after Habermaier's liveness counterexample
// (report §6, Programs 6.1/6.2), written for warpcert without atomics: lane t waits until
// the turn counter G[0] equals t, then passes the turn on. Under a fair interleaving of the
// threads it terminates; in lock-step (and on a SIMT machine with a reconvergence stack)
// lane 0 leaves the loop first and waits for the others to leave it, which they never do.
// The kernel is racy by design (the turn counter is read and written without a barrier).
__global__ void spinlock(int *G) {
    int x = G[0];
    while (x != threadIdx.x) {
        x = G[0];
    }
    G[0] = threadIdx.x + 1;
}
