// Q:WHILELASTALIGN's side condition (spec/logic.md §4): the loop bound `m` is part of the
// test's uniform part X and the body writes it. Launch: block [32], one block; parameter n.
//
// Divergent tests per warp at n = 32 (hand derivation): round 0 tests i = l < 32 (l the
// lane): all pass. The body makes i = l + 32, m = 33; round 1 tests l + 32 < 33: lane 0
// passes, lanes 1..31 fail — one split, although 32 | n at entry. Round 2 tests
// 64 < 34 on lane 0: it fails alone (no split). So divwarps = 1 at n = 32, and a charge
// [32 ∤ n] (0 at n = 32) would be unsound.
__global__ void moving_bound(float *out, int n) {
  int m = n;
  for (int i = threadIdx.x; i < m; i += 32) {
    out[i] = 1.0f;
    m = m + 1;
  }
}
