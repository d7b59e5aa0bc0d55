#include "not_a_header_anyone_has.h"
__global__ void k(int *a) { a[threadIdx.x] = 0; }
