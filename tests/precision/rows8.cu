// warpcert precision suite (issue 15), pattern "2-D blocks narrower than a warp": an 8×32
// block, so warp w holds rows 4w … 4w+3 (8 lanes each), indexing `row * W + col` with a
// symbolic row length W. Launch: block [8,32], one block.
//
// Exact per-warp worst cost, sectors (hand derivation, W ≥ 16): each access of a warp reads
// four runs of 8 floats = 32 bytes starting at byte 4·r·W (rows r = 4w … 4w+3); a run covers
// 1 sector when r·W ≡ 0 (mod 8), else 2, and rows ≥ 64 bytes apart share no sector. Per
// access, worst warp: W ≡ 0 (mod 8): 4; W ≡ 4 (mod 8): odd rows misaligned, 6; W ≡ 2 (mod 4):
// rows r ≢ 0 (mod 4) misaligned, 7; W odd: rows r ≢ 0 (mod 8) misaligned, warp 1 (rows
// 4…7) 8. Two accesses: 8, 12, 14 or 16 sectors.
__global__ void rows8(float *out, const float *in, int W) {
  int idx = threadIdx.y * W + threadIdx.x;
  out[idx] = in[idx] + 1.0f;
}
