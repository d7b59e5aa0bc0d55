// Local lambdas, `switch` and the pieces of warp-tile code around them
// (spec/lowering.md §9.8). Expected values are derived by hand in the comments; the
// tests (tests/clang_lambdas.rs) compare them with the lock-step semantics.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// by reference: the body updates the caller's variable; out[t] = t + 2t = 3t
__global__ void lam_ref(int *out) {
    int t = threadIdx.x;
    int acc = 0;
    auto add = [&acc](int v) { acc += v; };
    add(t);
    add(2 * t);
    out[t] = acc;
}

// by value: the copy is made where the lambda is declared, so the later store to `base`
// is not seen; out[t] = (10t + 1) + 1000
__global__ void lam_value(int *out) {
    int t = threadIdx.x;
    int base = t;
    auto f = [=](int v) { return base * 10 + v; };
    base = 1000;
    out[t] = f(1) + base;
}

// mutable by-value capture: the closure's copy persists between calls and the
// variable itself is unchanged; a = t + 1, b = t + 2, out[t] = 100a + b + t = 102t + 102
__global__ void lam_mutable(int *out) {
    int t = threadIdx.x;
    int cnt = t;
    auto next = [cnt]() mutable { cnt += 1; return cnt; };
    int a = next();
    int b = next();
    out[t] = 100 * a + b + cnt;
}

struct pair4 {
    int4 lo, hi;
};

// a record-valued lambda with a switch (labels 1 and 2 share a case) and `return {}`
// (zero) when no case returns. With in[k] = k in the int view:
// t % 4 == 0: in[t] = (4t, 4t+1, 4t+2, 4t+3); 1, 2: in[t + 32] = (4t+128, …, 4t+131);
// 3: (0, 0, 0, 0).
__global__ void pick(const int4 *in, int4 *out) {
    int t = threadIdx.x;
    pair4 q;
    q.lo = in[t];
    q.hi = in[t + 32];
    auto sel = [&q](int w) -> int4 {
        switch (w) {
        case 0:
            return q.lo;
        case 1:
        case 2:
            return q.hi;
        }
        return {};
    };
    out[t] = sel(t % 4);
}

// fall-through: t % 4 == 0 runs cases 0 and 1 (r = 11), 1 runs case 1 (10), 2 runs case 2
// and default (1100), 3 runs default (1000)
__global__ void fall(int *a) {
    int t = threadIdx.x;
    int r = 0;
    switch (t % 4) {
    case 0:
        r += 1;
    case 1:
        r += 10;
        break;
    case 2:
        r += 100;
    default:
        r += 1000;
    }
    a[t] = r;
}

// a thread-local array with an initializer list (the rest zero), memcpy into a vector,
// a tile shuffle of the vector and the tile's index in the block. For lane t of a block
// of 64: v = (t, 7, 0, 0, 0, 0, 5, 0); a = v[0..4] shuffled from lane t ^ 1 =
// (t ^ 1, 7, 0, 0); b = v[4..8] = (0, 0, 5, 0); out[t] = (t ^ 1, 7, 5 + t / 32, 0)
__global__ void packed(uint4 *out) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    unsigned int v[8] = {threadIdx.x, 7, 0, 0, 0, 0, 5};
    uint4 a, b;
    memcpy(&a, v, sizeof(a));
    memcpy(&b, v + 4, sizeof(b));
    a = tile.shfl_xor(a, 1);
    out[threadIdx.x] = make_uint4(a.x, a.y, b.z + tile.meta_group_rank(), a.w);
}

// a lambda in a device function (capturing a pointer by value, a default argument, a
// constant it does not capture), `[&]` capturing a thread-local array, the block and a
// tile, and a lambda declared in a loop capturing the counter by value. loc = (0, 1, 2, 3):
// sum() = 6 + 6 = 12 (every lane's s is 6); acc = 12·0 + 12·1 + 12·2 = 36;
// helper = (3a[t] + 2) + 3a[t]; with a[k] = k: out[t] = 36 + 6t + 2 = 6t + 38
__device__ int helper(int *p, int x) {
    const int K = 3;
    auto f = [p](int i, int d = 2) { return p[i] * K + d; };
    return f(x) + f(x, 0);
}

__global__ void nested(int *a, int *out) {
    auto cta = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(cta);
    int loc[4];
    for (int i = 0; i < 4; i++)
        loc[i] = i;
    auto sum = [&]() {
        int s = 0;
        for (int i = 0; i < 4; i++)
            s += loc[i];
        cta.sync();
        return s + tile.shfl_xor(s, 1);
    };
    int acc = 0;
    for (int j = 0; j < 3; j++) {
        auto inner = [&acc, j](int v) { acc += v * j; };
        inner(sum());
    }
    out[threadIdx.x] = acc + helper(a, threadIdx.x);
}

// A `__shared__` array named by a lambda without a capture (static storage: C++ does not
// capture it; warpcert passes it by reference): s[t] = 2t, then out[t] = s[t ^ 1] + 1 =
// 2(t ^ 1) + 1. Conflicts by hand: the store `s[t]` and the read `s[t ^ 1]` each touch 32
// consecutive words of one warp (a permutation of them), one per bank: no conflict.
__global__ void lam_shared(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    auto f = [](int j) { return s[j] + 1; };
    s[t] = 2 * t;
    __syncthreads();
    out[t] = f(t ^ 1);
}
