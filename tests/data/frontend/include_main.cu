//--blockDim=128
#include "include/defs.h"
#include "include/defs.h"
#include <cuda_runtime.h>
#pragma once

__global__ void scaled(int *out)
{
    out[threadIdx.x] = twice(threadIdx.x) + TILE;
}

__global__ void bad(int *c)
{
    dec(c);
}
