// warpcert precision suite (issue 15), pattern "loop left by return". Launch: block [32], one
// block; parameter n.
//
// Exact per-warp worst cost, sectors (hand derivation): in round i the active lanes write
// out[32i + threadIdx.x] and read in[32i + threadIdx.x] (4 sectors each with all 32 lanes:
// 128 aligned bytes; fewer lanes touch at most as many sectors); a lane that reads a negative
// value returns and does nothing more. At most n rounds run (the counter is the same in every
// lane that stays), then the lanes that did not return write out[threadIdx.x] (at most 4
// sectors). Worst, with no negative input: 8·max(0, n) + 4.
//
// Worst divwarps (hand derivation, from the lowered loop `if t < 0 then jmp ← 3 …; if jmp < 2
// then { …; g ← i < n } else g ← false`, then `if jmp == 0` after the loop): i is the same
// on every lane that stays. In a round the return `if` splits iff some but not all active
// lanes read a negative value; then the flag test splits too, and the loop test unless the
// round is the last (i + 1 = n); a lane that returned stays out, so at most 31 rounds
// split. The flag test after the loop splits iff some lane returned and some did not.
// Total: 0 for n ≤ 0, 3n for 1 ≤ n ≤ 31 (lane k returns in round k), 3·31 + 1 = 94 for
// n ≥ 32 (lanes 0 … 30 return in rounds 0 … 30, lane 31 never). Confirmed by lock-step runs
// in tests/whileguard.rs (return_loops_divwarps_hand_derivation_and_bound).
__global__ void for_return(float *out, const float *in, int n) {
  for (int i = 0; i < n; i++) {
    out[32 * i + threadIdx.x] = 1.0f;
    if (in[32 * i + threadIdx.x] < 0.0f) {
      return;
    }
  }
  out[threadIdx.x] = 2.0f;
}
