// Includes the histogram sample's common header, which is not beside this file: the
// built-in stand-in supplies HISTOGRAM256_BIN_COUNT, UMAD and uint.
#include "histogram_common.h"

__global__ void bins(uint *h)
{
    h[UMAD(blockIdx.x, HISTOGRAM256_BIN_COUNT, threadIdx.x)] = 0;
}

__global__ void unknown(uint *h)
{
    h[threadIdx.x] = MISSING_FROM_HEADER;
}
