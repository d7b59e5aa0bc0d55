// Vector types: fields of an array of float4 are accesses at their real byte addresses
// (tests/clang_frontend.rs derives the sectors by hand).
__global__ void fields(const float4 *__restrict__ v, float *out) {
  int i = threadIdx.x;
  float4 q = __ldg(&v[i]);
  out[i] = q.x + v[i].w;
}
