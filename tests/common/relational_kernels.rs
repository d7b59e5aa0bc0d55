//! The small relational test kernels (`tests/relational.rs`'s exhaustive launches and
//! `tests/relational_property.rs`): each exercises one loop or metric case of
//! `spec/relational.md` §4.

/// Kernels for the property tests: (name, source). Parameters: `n`.
pub const KERNELS: &[(&str, &str)] = &[
    (
        "divergent_loop",
        "__global__ void k(int *A) { for (int x = 0; x <= threadIdx.x; x++) { A[0] = 1; } }",
    ),
    (
        "divergent_if",
        "__global__ void k(int *A) { if (threadIdx.x % 2 == 0) { A[threadIdx.x * 3] = 1; } }",
    ),
    (
        "param_loop",
        "__global__ void k(int *A, int n) { for (int i = 0; i < n; i++) { A[i * blockDim.x + threadIdx.x] = 0; } }",
    ),
    (
        "strided_shared",
        "__global__ void k(int *A, int n) { __shared__ int S[64]; for (int i = 0; i < n; i++) { S[threadIdx.x * 2] = 0; S[(threadIdx.x * 4) % 16] = 1; } }",
    ),
    (
        "tree_reduction",
        "__global__ void k(int *A) { __shared__ int S[64]; S[threadIdx.x] = A[blockIdx.x * blockDim.x + threadIdx.x]; for (int s = 1; s < blockDim.x; s *= 2) { if (threadIdx.x % (2 * s) == 0) { S[threadIdx.x] += S[threadIdx.x + s]; } } if (threadIdx.x == 0) { A[blockIdx.x] = S[0]; } }",
    ),
    (
        "grid_stride",
        "__global__ void k(int *A, int n) { for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) { A[i] = 0; } }",
    ),
    (
        "tid_dependent_bound",
        "__global__ void k(int *A, int n) { for (int x = threadIdx.x; x < 2 * threadIdx.x + 1; x++) { A[x + n] = 0; } }",
    ),
];
