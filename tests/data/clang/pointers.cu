// Pointer variables that move (spec/lowering.md §5): `p += s` in a loop, a parameter moved
// at the top, `*p++`, pointer comparison and difference, and a pointer whose array would
// depend on control flow (a located error). tests/clang_frontend.rs derives the values and
// sectors by hand.

// With a[k] = k and one block of 32: lane t sums a[t], a[t+32], a[t+64], a[t+96] = 4t + 192.
// Sectors per warp: 4 reads of 32 consecutive aligned floats (4 sectors each) and one write
// of 32 floats (4 sectors): 20.
__global__ void strided_walk(const float *a, float *out) {
  const float *p = a + blockIdx.x * 128;
  float s = 0.0f;
  for (int k = 0; k < 4; k++) {
    s += p[threadIdx.x];
    p += 32;
  }
  out[threadIdx.x] = s;
}

// The parameter moved at the top (the samples' `d_Src += blockIdx.x * N + threadIdx.x`),
// then `*p++` twice and a comparison and a difference of pointers into one array:
// lane t reads src[2t], src[2t+1], and stores at dst[t] the sum plus (q - src) - 2t = 2.
__global__ void post_increment(int *dst, const int *src) {
  src += 2 * threadIdx.x;
  const int *q = src;
  int x = *q++;
  x += *q++;
  if (q > src) {
    x += (int)(q - src);
  }
  dst += threadIdx.x;
  *dst = x;
}

// `p` points into `a` or `b` depending on a branch: not expressible, a located error.
__global__ void which_array(float *a, float *b, float *out) {
  float *p = a;
  if (threadIdx.x < 16) {
    p = b;
  }
  out[threadIdx.x] = p[threadIdx.x];
}

// References to array cells (the samples' `Comparator(uint &keyA, …)`): `order` reads and
// writes the cells themselves. With v[k] = 63 - k lane t orders the pair (63-2t, 62-2t),
// so afterwards v[k] = 62 - k for even k and 64 - k for odd k.
__device__ void order(int &a, int &b) {
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
}

__global__ void sort_pairs(int *v) {
  __shared__ int s[64];
  s[threadIdx.x] = v[threadIdx.x];
  s[threadIdx.x + 32] = v[threadIdx.x + 32];
  __syncthreads();
  order(s[2 * threadIdx.x], s[2 * threadIdx.x + 1]);
  __syncthreads();
  v[threadIdx.x] = s[threadIdx.x];
  v[threadIdx.x + 32] = s[threadIdx.x + 32];
}
