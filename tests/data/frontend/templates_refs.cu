// Templates (explicit and deduced arguments, functional casts) and reference parameters of
// inlined device functions; used by tests/frontend.rs.
template <typename T>
__device__ T scale(T x, T k)
{
    return x * k + T(1);
}

__device__ void twoSum(float &s, float &e, const float a, const float b)
{
    s = a + b;
    e = b - (s - a);
}

__global__ void tmpl(float *a, int *b)
{
    a[threadIdx.x] = scale<float>(a[threadIdx.x], 2.0f);
    b[threadIdx.x] = scale(b[threadIdx.x], 3);
}

__global__ void refs(float *o)
{
    float hi, lo;
    twoSum(hi, lo, o[0], 1.0f);
    o[1] = hi + lo;
}

__global__ void badref(float *o)
{
    float lo;
    twoSum(o[0], lo, 1.0f, 2.0f);
}
