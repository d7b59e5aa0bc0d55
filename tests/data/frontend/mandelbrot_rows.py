# The search behind the adversarial Mandelbrot rows of `warpcert bench` (src/cli/bench.rs,
# issue 15): pixel rows (xOff, yOff, scale) whose 32 lanes leave NVIDIA's CalcMandelbrot at
# many distinct iterations, spread over many rounds of its 20-fold unrolled loop.
#
# Model (checked against the bench's lock-step simulation, `warpcert bench --only
# mandelbrot`): floats are doubles as in warpcert's semantics, the escape test and the
# update in CalcMandelbrot's order; the loop is `while (jmp < 2)` (spec/lowering.md §6), so a
# warp splits at an exit check where some but not all active lanes return, and at the loop
# test after a round in which some lanes returned and some stay; the 20th check of the last
# round (`i <= 0`) returns every lane left. The wrapper adds a split for a block the image
# edge cuts (`ix < imageW`). One warp runs every block (grid 1).
#
# Hand maxima of a warp's divwarps (bench comment's "at most"): a call of crunch = 20R has R
# rounds; its exit splits are at most 31 (each leaves a lane behind) and at most 20R − 1 (the
# last round's 20th check returns every lane), its loop-test splits at most R − 1 (not after
# the last round) and 31; a block cut by the image edge adds 1 and has 8 lanes (at most 7
# exit splits). crunch 20: 19; crunch 100, blocks 2 full + 2 cut: 2·(31 + 4) + 2·(1 + 7 + 4)
# = 94; crunch 200, 3 full blocks: 3·(31 + 9) = 120; crunch 1000, 1 block: 31 + 31 = 62.
#
# Search: uniform random (xOff in [-2, 0.5], yOff in [-1.2, 1.2], |scale| in [1e-6, 10^-1.5],
# either sign), then hill climbing with Gaussian steps; score = the model's divwarps of the
# warp. Usage: python3 mandelbrot_rows.py CRUNCH NUMBLOCKS IMAGEW IMAGEH GRIDWIDTH SEED TRIES
# CLIMBS; prints (score, (xOff, yOff, scale)).
import random
import sys


def esc(xC, yC, crunch):
    x = y = xx = yy = 0.0
    k = 0
    while k < crunch:
        if xx + yy > 4.0:
            return k
        y = x * y * 2.0 + yC
        x = xx - yy + xC
        yy = y * y
        xx = x * x
        k += 1
    return crunch

def call_divwarps(ks, crunch):
    """ks: escape index per active lane. Returns splits (exit splits + loop-test splits)."""
    last = (crunch + 19) // 20 - 1  # last round index
    final = 20 * last + 19
    ks = [min(k, final) for k in ks]
    active = len(ks)
    d = 0
    for r in range(last + 1):
        left_round = 0
        for p in range(20):
            k = 20 * r + p
            n = sum(1 for x in ks if x == k)
            if n and n < active:
                d += 1
            active -= n
            left_round += n
            if active == 0:
                return d
        if left_round and active:
            d += 1  # the loop test jmp < 2 splits
    return d

def warp_total(xo, yo, sc, crunch, numBlocks, imageW, imageH, gridWidth):
    tot = 0
    for b in range(numBlocks):
        bx, by = b % gridWidth, b // gridWidth
        lanes = [32 * bx + t for t in range(32) if 32 * bx + t < imageW]
        if by >= imageH or not lanes:
            continue
        if len(lanes) < 32:
            tot += 1  # ix < imageW splits
        ks = [esc(ix * sc + xo, by * sc + yo, crunch) for ix in lanes]
        tot += call_divwarps(ks, crunch)
    return tot

def search(cfg, seed, tries, climbs):
    rnd = random.Random(seed)
    best = (-1,)
    def score(p):
        return warp_total(p[0], p[1], p[2], *cfg)
    for _ in range(tries):
        # near the boundary: a point of the set's edge region, a random scale
        p = (rnd.uniform(-2.0, 0.5), rnd.uniform(-1.2, 1.2),
             10 ** rnd.uniform(-6, -1.5) * rnd.choice([1, -1]))
        s = score(p)
        if s > best[0]:
            best = (s, p)
    s, p = best
    for i in range(climbs):
        f = 10 ** rnd.uniform(-4, -1)
        q = (p[0] + rnd.gauss(0, 1) * abs(p[2]) * 32 * f, p[1] + rnd.gauss(0, 1) * abs(p[2]) * 32 * f,
             p[2] * (1 + rnd.gauss(0, 1) * f))
        t = score(q)
        if t >= s:
            s, p = t, q
    return s, p

if __name__ == "__main__":
    crunch, nb, w, h, gw, seed, tries, climbs = (int(a) for a in sys.argv[1:9])
    print(search((crunch, nb, w, h, gw), seed, tries, climbs))
