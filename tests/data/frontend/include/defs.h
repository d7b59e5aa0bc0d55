// Header for tests/frontend.rs::include_and_macros_from_files (line numbers matter).
#ifndef DEFS_H
#define DEFS_H
#define HALF 16
#define TILE (2 * HALF)
__device__ int twice(int x) { return 2 * x; }
__device__ void dec(int *p)
{
    atomicFoo(p, 1);
}
#endif
