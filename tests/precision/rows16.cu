// warpcert precision suite (issue 15), pattern "2-D blocks narrower than a warp": a 16×16
// block, so warp w holds rows 2w and 2w+1 (16 lanes each), indexing `row * W + col` with a
// symbolic row length W. Launch: block [16,16], one block.
//
// Exact per-warp worst cost, sectors (hand derivation, W ≥ 24): each access of a warp reads
// two runs of 16 floats = 64 bytes, starting at byte 4·r·W for rows r = 2w, 2w+1. A 64-byte
// run covers 2 sectors when its start is a multiple of 32, else 3; for W ≥ 24 two rows are
// ≥ 96 bytes apart, so they share no sector. Row r is aligned iff r·W ≡ 0 (mod 8). Per warp
// and access: W ≡ 0 (mod 8): every row aligned, 2 + 2; W ≡ 4 (mod 8): rows of one parity
// aligned, 2 + 3; otherwise warp 1 (rows 2, 3: 2W, 3W ≢ 0 mod 8) 3 + 3. Two accesses (the
// read of `in`, the write of `out`): 8, 10 or 12 sectors.
__global__ void rows16(float *out, const float *in, int W) {
  int row = threadIdx.y;
  int col = threadIdx.x;
  out[row * W + col] = 2.0f * in[row * W + col];
}
