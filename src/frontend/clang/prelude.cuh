// warpcert's CUDA prelude for the clang front end (src/frontend/clang/): passed to clang with
// -include, in place of the CUDA toolkit headers (clang runs with -nocudainc). It declares
// what device code uses: the built-in variables, vector types and make_*, dim3, atomics,
// math functions and intrinsics, warp primitives, cooperative groups inside a block,
// half precision and the host API names sample code uses around its launches. Functions
// declared here are never analysed by body: the converter knows each by name
// (spec/lowering.md §9). Declarations only: nothing here is executed.
#ifndef WARPCERT_PRELUDE
#define WARPCERT_PRELUDE 1
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH__ 800
#define CUDART_VERSION 11080
#define __CUDACC_VER_MAJOR__ 11
#define __CUDACC_VER_MINOR__ 8
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __device_builtin__
#define __cudart_builtin__
#define CUDART_CB

typedef __SIZE_TYPE__ size_t;
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;
typedef long clock_t;
typedef unsigned long long __warpcert_u64;

#define WARPCERT_VEC(T, N, A, ...) struct __attribute__((aligned(A))) N { __VA_ARGS__ };
#define WARPCERT_VECS(T, P, S)                                          \
  struct __attribute__((aligned(S))) P##1 { T x; };                     \
  struct __attribute__((aligned(2 * S))) P##2 { T x, y; };              \
  struct P##3 { T x, y, z; };                                           \
  struct __attribute__((aligned((4 * S) > 16 ? 16 : 4 * S))) P##4 { T x, y, z, w; }; \
  __host__ __device__ P##1 make_##P##1(T x);                            \
  __host__ __device__ P##2 make_##P##2(T x, T y);                       \
  __host__ __device__ P##3 make_##P##3(T x, T y, T z);                  \
  __host__ __device__ P##4 make_##P##4(T x, T y, T z, T w);
WARPCERT_VECS(signed char, char, 1)
WARPCERT_VECS(unsigned char, uchar, 1)
WARPCERT_VECS(short, short, 2)
WARPCERT_VECS(unsigned short, ushort, 2)
WARPCERT_VECS(int, int, 4)
WARPCERT_VECS(unsigned int, uint, 4)
WARPCERT_VECS(long, long, 8)
WARPCERT_VECS(unsigned long, ulong, 8)
WARPCERT_VECS(long long, longlong, 8)
WARPCERT_VECS(unsigned long long, ulonglong, 8)
WARPCERT_VECS(float, float, 4)
WARPCERT_VECS(double, double, 8)
#undef WARPCERT_VECS
#undef WARPCERT_VEC

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef int cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
                      cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
#define cudaSuccess 0
extern "C" int cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0,
                                 cudaStream_t stream = 0);

// barriers and fences
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ long long clock64();
__device__ clock_t clock();

// atomics (T: int, unsigned, unsigned long long, float, double); the value's type is
// taken from the pointer (not deduced), as CUDA's overloads convert it
template <class T> struct __warpcert_id { typedef T type; };
#define WARPCERT_ATOMIC(NAME)                                                                \
  template <class T> __device__ T NAME(T *address, typename __warpcert_id<T>::type val);    \
  template <class T> __device__ T NAME##_block(T *address, typename __warpcert_id<T>::type val); \
  template <class T> __device__ T NAME##_system(T *address, typename __warpcert_id<T>::type val);
WARPCERT_ATOMIC(atomicAdd)
WARPCERT_ATOMIC(atomicSub)
WARPCERT_ATOMIC(atomicExch)
WARPCERT_ATOMIC(atomicMin)
WARPCERT_ATOMIC(atomicMax)
WARPCERT_ATOMIC(atomicAnd)
WARPCERT_ATOMIC(atomicOr)
WARPCERT_ATOMIC(atomicXor)
WARPCERT_ATOMIC(atomicInc)
WARPCERT_ATOMIC(atomicDec)
#undef WARPCERT_ATOMIC
template <class T> __device__ T atomicCAS(T *address, typename __warpcert_id<T>::type compare,
                                          typename __warpcert_id<T>::type val);

// min/max/abs on any arithmetic types (usual arithmetic conversions)
template <class A, class B> __host__ __device__ auto min(A a, B b) -> decltype(a < b ? a : b);
template <class A, class B> __host__ __device__ auto max(A a, B b) -> decltype(a < b ? a : b);
__host__ __device__ unsigned int umin(unsigned int, unsigned int);
__host__ __device__ unsigned int umax(unsigned int, unsigned int);
__host__ __device__ int abs(int);
__host__ __device__ long labs(long);
__host__ __device__ long long llabs(long long);

// integer intrinsics
__device__ int __mul24(int, int);
__device__ unsigned int __umul24(unsigned int, unsigned int);
__device__ int __mulhi(int, int);
__device__ unsigned int __umulhi(unsigned int, unsigned int);
__device__ int __popc(unsigned int);
__device__ int __popcll(unsigned long long);
__device__ int __clz(int);
__device__ int __clzll(long long);
__device__ int __ffs(int);
__device__ int __ffsll(long long);
__device__ unsigned int __brev(unsigned int);
__device__ unsigned int __byte_perm(unsigned int, unsigned int, unsigned int);
__device__ int __sad(int, int, unsigned int);
__device__ unsigned int __usad(unsigned int, unsigned int, unsigned int);

// math functions (float and double forms)
#define WARPCERT_M1(F) __host__ __device__ float F##f(float); __host__ __device__ double F(double);
#define WARPCERT_M2(F) __host__ __device__ float F##f(float, float); __host__ __device__ double F(double, double);
WARPCERT_M1(sqrt) WARPCERT_M1(rsqrt) WARPCERT_M1(cbrt) WARPCERT_M1(exp) WARPCERT_M1(exp2)
WARPCERT_M1(exp10) WARPCERT_M1(expm1) WARPCERT_M1(log) WARPCERT_M1(log2) WARPCERT_M1(log10)
WARPCERT_M1(log1p) WARPCERT_M1(sin) WARPCERT_M1(cos) WARPCERT_M1(tan) WARPCERT_M1(asin)
WARPCERT_M1(acos) WARPCERT_M1(atan) WARPCERT_M1(sinh) WARPCERT_M1(cosh) WARPCERT_M1(tanh)
WARPCERT_M1(floor) WARPCERT_M1(ceil) WARPCERT_M1(round) WARPCERT_M1(rint) WARPCERT_M1(trunc)
WARPCERT_M1(fabs) WARPCERT_M1(erf) WARPCERT_M1(erfc) WARPCERT_M1(sinpi) WARPCERT_M1(cospi)
WARPCERT_M1(normcdf) WARPCERT_M1(normcdfinv) WARPCERT_M1(lgamma) WARPCERT_M1(tgamma)
WARPCERT_M2(pow) WARPCERT_M2(atan2) WARPCERT_M2(fmod) WARPCERT_M2(hypot) WARPCERT_M2(fmin)
WARPCERT_M2(fmax) WARPCERT_M2(copysign) WARPCERT_M2(fdim) WARPCERT_M2(remainder)
#undef WARPCERT_M1
#undef WARPCERT_M2
__host__ __device__ float fmaf(float, float, float);
__host__ __device__ double fma(double, double, double);
__device__ void sincosf(float, float *, float *);
__device__ void sincos(double, double *, double *);
__device__ float __expf(float);
__device__ float __exp10f(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __log10f(float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ float __powf(float, float);
__device__ float __fdividef(float, float);
__device__ float fdividef(float, float);
__device__ float __saturatef(float);
__device__ float __frcp_rn(float);
__device__ float __fsqrt_rn(float);
__device__ void __sincosf(float, float *, float *);
#define WARPCERT_R(OP)                                                                     \
  __device__ float __f##OP##_rn(float, float); __device__ float __f##OP##_rz(float, float); \
  __device__ float __f##OP##_ru(float, float); __device__ float __f##OP##_rd(float, float); \
  __device__ double __d##OP##_rn(double, double); __device__ double __d##OP##_rz(double, double);
WARPCERT_R(add) WARPCERT_R(sub) WARPCERT_R(mul) WARPCERT_R(div)
#undef WARPCERT_R
__device__ float __fmaf_rn(float, float, float);
__device__ double __fma_rn(double, double, double);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ int __float2int_ru(float);
__device__ int __float2int_rd(float);
__device__ unsigned int __float2uint_rn(float);
__device__ unsigned int __float2uint_rz(float);
__device__ int __double2int_rn(double);
__device__ int __double2int_rz(double);
__device__ float __int2float_rn(int);
__device__ float __uint2float_rn(unsigned int);
__device__ double __int2double_rn(int);
__device__ double __uint2double_rn(unsigned int);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ float __uint_as_float(unsigned int);
__device__ unsigned int __float_as_uint(float);
__device__ long long __double_as_longlong(double);
__device__ double __longlong_as_double(long long);
__device__ int isnan(float);
__device__ int isinf(float);
__device__ int isfinite(float);

// read-only loads
template <class T> __device__ T __ldg(const T *ptr);
template <class T> __device__ T __ldcg(const T *ptr);
template <class T> __device__ T __ldca(const T *ptr);
template <class T> __device__ T __ldcs(const T *ptr);

// warp shuffles and votes (a located error in the converter: not modelled yet)
template <class T> __device__ T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32);
template <class T> __device__ T __shfl(T var, int srcLane, int width = 32);
template <class T> __device__ T __shfl_up(T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_down(T var, unsigned delta, int width = 32);
template <class T> __device__ T __shfl_xor(T var, int laneMask, int width = 32);
__device__ unsigned int __ballot_sync(unsigned mask, int predicate);
__device__ int __any_sync(unsigned mask, int predicate);
__device__ int __all_sync(unsigned mask, int predicate);
__device__ unsigned int __ballot(int predicate);
__device__ int __any(int predicate);
__device__ int __all(int predicate);
__device__ unsigned int __activemask();
template <class T> __device__ unsigned int __match_any_sync(unsigned mask, T value);
__device__ unsigned int __lanemask_lt();

// library calls inside kernels
extern "C" __host__ __device__ int printf(const char *, ...);
extern "C" __host__ __device__ void __assert_fail(const char *, const char *, unsigned int, const char *);
extern "C" __host__ __device__ void *malloc(size_t);
extern "C" __host__ __device__ void free(void *);
extern "C" __host__ __device__ void *memcpy(void *, const void *, size_t);
extern "C" __host__ __device__ void *memset(void *, int, size_t);

// half precision (cuda_fp16.h): the types, conversions, constructors and arithmetic
// operators; each is an opaque operation on the leaves of its operands in the converter
// (clang/opaque.rs)
struct __attribute__((aligned(2))) __half {
  unsigned short __x;
  __half() = default;
  __host__ __device__ __half(float);
  __host__ __device__ operator float() const;
};
struct __attribute__((aligned(4))) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ __half2(const __half &, const __half &);
};
__device__ __half operator+(const __half &, const __half &);
__device__ __half operator-(const __half &, const __half &);
__device__ __half operator*(const __half &, const __half &);
__device__ __half operator/(const __half &, const __half &);
__device__ __half2 operator+(const __half2 &, const __half2 &);
__device__ __half2 operator-(const __half2 &, const __half2 &);
__device__ __half2 operator*(const __half2 &, const __half2 &);
__device__ __half2 operator/(const __half2 &, const __half2 &);
typedef __half half;
typedef __half2 half2;
__host__ __device__ __half __float2half(float);
__host__ __device__ float __half2float(__half);
__host__ __device__ __half2 __float2half2_rn(float);
__host__ __device__ __half2 __floats2half2_rn(float, float);
__host__ __device__ float __low2float(__half2);
__host__ __device__ float __high2float(__half2);
__device__ __half2 __hadd2(__half2, __half2);
__device__ __half2 __hmul2(__half2, __half2);
__device__ __half2 __hfma2(__half2, __half2, __half2);
__device__ __half __hadd(__half, __half);
__device__ __half __hmul(__half, __half);

// cooperative groups (cooperative_groups.h): the block, warp tiles and (per block, see
// clang/grid.rs) the grid group are modelled; other groups are a located error
namespace cooperative_groups {
class thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
};
class thread_block : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
};
__device__ thread_block this_thread_block();
template <unsigned int N> class thread_block_tile : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long meta_group_rank() const;
  __device__ unsigned long long meta_group_size() const;
  template <class T> __device__ T shfl(T var, int srcLane) const;
  template <class T> __device__ T shfl_down(T var, unsigned delta) const;
  template <class T> __device__ T shfl_up(T var, unsigned delta) const;
  template <class T> __device__ T shfl_xor(T var, unsigned mask) const;
  __device__ int any(int) const;
  __device__ int all(int) const;
  __device__ unsigned ballot(int) const;
};
class coalesced_group : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long meta_group_rank() const;
  __device__ unsigned long long meta_group_size() const;
  template <class T> __device__ T shfl(T var, int srcLane) const;
  template <class T> __device__ T shfl_down(T var, unsigned delta) const;
  template <class T> __device__ T shfl_up(T var, unsigned delta) const;
  __device__ int any(int) const;
  __device__ int all(int) const;
  __device__ unsigned ballot(int) const;
};
__device__ coalesced_group coalesced_threads();
template <unsigned int N, class P> __device__ thread_block_tile<N> tiled_partition(const P &);
__device__ thread_group tiled_partition(const thread_group &, unsigned int);
__device__ coalesced_group labeled_partition(const coalesced_group &, int);
__device__ coalesced_group binary_partition(const coalesced_group &, bool);
template <unsigned int N> __device__ coalesced_group labeled_partition(const thread_block_tile<N> &, int);
template <unsigned int N> __device__ coalesced_group binary_partition(const thread_block_tile<N> &, bool);
class grid_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long block_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ bool is_valid() const;
};
__device__ grid_group this_grid();
template <class G> __device__ void sync(const G &);
template <class G> __device__ void synchronize(const G &);
template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class G, class T, class Op> __device__ T reduce(const G &, T, Op);
template <class G, class T, class Op> __device__ T inclusive_scan(const G &, T, Op);
template <class G, class T, class Op> __device__ T exclusive_scan(const G &, T, Op);
}  // namespace cooperative_groups

// host API names sample code uses around its launches (host code is not analysed; these
// only let clang read it)
extern "C" {
cudaError_t cudaMalloc(void **, size_t);
cudaError_t cudaMallocManaged(void **, size_t, unsigned int flags = 1);
cudaError_t cudaMallocHost(void **, size_t);
cudaError_t cudaFree(void *);
cudaError_t cudaFreeHost(void *);
cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
cudaError_t cudaMemcpyAsync(void *, const void *, size_t, cudaMemcpyKind, cudaStream_t s = 0);
cudaError_t cudaMemcpyToSymbol(const void *, const void *, size_t, size_t o = 0,
                               cudaMemcpyKind k = cudaMemcpyHostToDevice);
cudaError_t cudaMemset(void *, int, size_t);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaGetLastError();
const char *cudaGetErrorString(cudaError_t);
}
// textures and surfaces (a located error in the converter)
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
template <class T> __device__ T tex1D(cudaTextureObject_t, float);
template <class T> __device__ T tex1Dfetch(cudaTextureObject_t, int);
template <class T> __device__ T tex2D(cudaTextureObject_t, float, float);
template <class T> __device__ T tex3D(cudaTextureObject_t, float, float, float);
template <class T> __device__ void surf2Dwrite(T, cudaSurfaceObject_t, int, int);

// GPUVerify annotations (dropped by the converter, as by the builtin parser) and the
// predicates used inside them
#define WARPCERT_ANN(N) template <class... A> __device__ void N(A...);
#define WARPCERT_PRED(N) template <class... A> __device__ int N(A...);
WARPCERT_ANN(__requires) WARPCERT_ANN(__ensures) WARPCERT_ANN(__invariant)
WARPCERT_ANN(__global_invariant) WARPCERT_ANN(__candidate_invariant) WARPCERT_ANN(__global_requires)
WARPCERT_ANN(__global_ensures) WARPCERT_ANN(__function_wide_invariant)
WARPCERT_ANN(__function_wide_candidate_invariant) WARPCERT_ANN(__assert) WARPCERT_ANN(__global_assert)
WARPCERT_ANN(__assume) WARPCERT_ANN(__barrier_invariant) WARPCERT_ANN(__barrier_invariant_binary)
WARPCERT_PRED(__no_read) WARPCERT_PRED(__no_write) WARPCERT_PRED(__read) WARPCERT_PRED(__write)
WARPCERT_PRED(__read_offset_bytes) WARPCERT_PRED(__write_offset_bytes) WARPCERT_PRED(__implies)
WARPCERT_PRED(__return_val_int) WARPCERT_PRED(__return_val_bool) WARPCERT_PRED(__other_int)
WARPCERT_PRED(__other_bool) WARPCERT_PRED(__uniform_int) WARPCERT_PRED(__uniform_bool)
WARPCERT_PRED(__distinct_int) WARPCERT_PRED(__same_group) WARPCERT_PRED(__enabled)
WARPCERT_PRED(__ptr_base) WARPCERT_PRED(__ptr_offset_bytes) WARPCERT_PRED(__add_noovfl)
#undef WARPCERT_ANN
#undef WARPCERT_PRED
#endif
