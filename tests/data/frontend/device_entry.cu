// A file without __global__ functions: a __device__ function is the entry.
template <class T>
__device__ int steps(const T x0, const int limit)
{
    T x = x0;
    int i = 0;
    while (i < limit && x < T(100)) {
        x = x * T(2);
        i++;
    }
    return i;
}

__device__ void plain(float *a, int n)
{
    if (threadIdx.x < n)
        a[threadIdx.x] = 0.0f;
}
