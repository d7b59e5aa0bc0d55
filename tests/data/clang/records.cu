// A struct local copied from and to an array of structs, its fields updated in between
// (tests/clang_frontend.rs runs it and checks the memory).
struct Pair { int a; int b; };
namespace util {
__device__ inline int twice(int x, int k = 2) { return k * x; }
}
__global__ void swap_pairs(Pair *p) {
  int i = threadIdx.x;
  Pair q = p[i];
  int t = q.a;
  q.a = q.b;
  q.b = util::twice(t);
  p[i] = q;
}
