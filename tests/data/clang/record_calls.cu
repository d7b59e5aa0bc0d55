// Record-valued device functions and operators (spec/lowering.md §9.3): scalarized, one
// result per field. tests/clang_frontend.rs derives the results by hand.
__device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }

__device__ float2 scaled(float2 a, float s) {
  float2 r;
  r.x = a.x * s;
  r.y = a.y * s;
  return r;
}

__device__ void operator+=(float2 &a, float2 b) {
  a.x += b.x;
  a.y += b.y;
}

// With the float view v[j] = j: v[i] = (2i, 2i+1), v[i+32] = (2i+64, 2i+65), so
// a = (6i+128, 6i+131), then a += v[i] gives out[i] = (8i+128, 8i+132).
__global__ void combine(const float2 *v, float2 *out) {
  int i = threadIdx.x;
  float2 a = v[i] + scaled(v[i + 32], 2.0f);
  a += v[i];
  out[i] = a;
}

// A record-valued call in a loop condition is a located error.
__global__ void in_condition(const float2 *v, float *out) {
  int k = 0;
  while (scaled(v[k], 2.0f).x < 10.0f) {
    k++;
  }
  out[threadIdx.x] = k;
}
