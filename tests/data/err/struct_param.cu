struct S { int v; };
__global__ void k(S *s) {
  s->v = 1;
}
// expect: 2:22 type `S`
