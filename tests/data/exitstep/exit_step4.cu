// An exit loop whose counter steps by a constant c = 4 (issue 15, mandel20): the shape of
// NVIDIA's CalcMandelbrot (`do { …exits…; i -= 20; if (i <= 0) return; } while (1)`) at a
// smaller scale, three data exits a round and the counter's uniform exit after its update.
// `in[96·r + 32·e + t] < 0` sends lane t out at exit e (0, 1, 2) of round r (`n − i = 4r`).
//
// Hand worst `divwarps` of one warp (block 32) for n ≥ 1: the loop runs R = ⌈n/4⌉ rounds
// (R = 1 for n ≤ 0: the body runs once). Each data exit splits the warp when some active
// lanes leave there and some stay (at most 3 a round, and at most 31 in all: every split
// sends a lane out for good and keeps one); the exit `i <= 0` is uniform (no split); the
// loop test splits after a round in which some lanes returned and some stay, so not after
// the last round (every lane returns at `i <= 0`). For 3R ≤ 31 all of these are reached at
// once: lane 3r + e leaves alone at exit e of round r (r < R), the others stay to the end:
// 3R exit splits + (R − 1) test splits = 4R − 1 (3 at n ≤ 4, 7 at n = 8, 11 at n = 12,
// 39 at n = 40).
//
// Bound (Q:WHILEEXIT2 with the exit loop's floor atom, spec/logic.md §4a): the invariant
// `I = 3 + 4·⌊(i − 1)/4⌋⁺` pays a round's 3 exits and, when some lane stays
// (`i − 4 ≥ 1` after the update), the next test's split and `I` again by the ishift of
// `⌊(i + 3)/4⌋⁺`; with the first and last tests (`2k = 2`): `5 + 4·⌊(n − 1)/4⌋⁺ = 4R + 1`
// for n ≥ 1, 1.18× the hand worst at R = 3 (the max0 form `5 + max(0, n)` is 1.55× there).
__global__ void exitStep4(float *out, const float *in, int n)
{
    int i = n;
    do {
        if (in[24 * (n - i) + threadIdx.x] < 0.0f) {
            return;
        }
        if (in[24 * (n - i) + 32 + threadIdx.x] < 0.0f) {
            return;
        }
        if (in[24 * (n - i) + 64 + threadIdx.x] < 0.0f) {
            return;
        }
        i -= 4;
        if (i <= 0) {
            return;
        }
    } while (1);
}
