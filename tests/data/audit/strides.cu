// Hand-derivable per-access costs for `warpcert audit` (tests/audit.rs), launched with one
// warp: block 32x1x1, lanes t = 0..31, 4-byte floats, 32-byte sectors, 32 banks of 4 bytes.
// Written for warpcert's tests.
__global__ void strides(float *a, float *b, float *c, float *d, int n) {
    __shared__ float s[1024];
    int t = threadIdx.x;
    float x = a[32 * t];
    float y = b[t];
    s[32 * t] = x;
    s[t] = y;
    float sum = 0;
    for (int i = 0; i < n; i++) {
        sum += d[t + 32 * i];
    }
    if (t < n) {
        c[t] = s[t] + sum;
    }
}
