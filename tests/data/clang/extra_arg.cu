// `--extra-arg` reaches clang (tests/clang_lambdas.rs): REPS stores of 32 consecutive
// floats per warp, 4 sectors each (by hand): 4 sectors by default, 12 with
// `--extra-arg=-DREPS=3`.
#ifndef REPS
#define REPS 1
#endif
__global__ void stores(float *a) {
    for (int i = 0; i < REPS; i++)
        a[threadIdx.x + 32 * i] = 1.0f;
}
