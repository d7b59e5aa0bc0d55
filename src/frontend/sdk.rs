//! Built-in stand-ins for helper headers of NVIDIA's CUDA Samples that kernels include but
//! that are not shipped beside them (the corpus keeps only the kernel files).
//!
//! A stand-in is used only when `#include "name"` cannot be read from disk (or the source
//! was given as text); a warning names it. Each stand-in holds only the definitions a
//! kernel of the sample needs, with the values of the upstream header (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/histogram/histogram_common.h`, BSD-3-Clause, read at
//! commit c94ff366…); host prototypes are left out. Names a missing header would define and
//! that are not here stay undefined and give the lowering's "unknown identifier" error.

/// `(header file name, text)` of every stand-in.
pub const STAND_INS: &[(&str, &str)] = &[("histogram_common.h", HISTOGRAM_COMMON)];

/// The definitions of the histogram sample's common header used by `histogram256.cu`
/// (and `histogram64.cu`): bin counts, warp geometry, block size and shared-memory size of
/// the 256-bin kernel (6 warps of 32 threads, one 256-bin sub-histogram per warp), and the
/// `UMUL`/`UMAD` 24-bit-multiply helpers (plain multiplication in current samples).
const HISTOGRAM_COMMON: &str = "\
#define HISTOGRAM64_BIN_COUNT 64
#define HISTOGRAM256_BIN_COUNT 256
#define UINT_BITS 32
typedef unsigned int uint;
typedef unsigned char uchar;
#define LOG2_WARP_SIZE 5U
#define WARP_SIZE (1U << LOG2_WARP_SIZE)
#define SHARED_MEMORY_BANKS 16
#define HISTOGRAM64_THREADBLOCK_SIZE (4 * SHARED_MEMORY_BANKS)
#define WARP_COUNT 6
#define HISTOGRAM256_THREADBLOCK_SIZE (WARP_COUNT * WARP_SIZE)
#define HISTOGRAM256_THREADBLOCK_MEMORY (WARP_COUNT * HISTOGRAM256_BIN_COUNT)
#define UMUL(a, b) ((a) * (b))
#define UMAD(a, b, c) (UMUL((a), (b)) + (c))
";

/// The stand-in for `#include "name"` (matched on the last path component), if any.
pub fn stand_in(name: &str) -> Option<&'static str> {
    let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
    STAND_INS.iter().find(|(n, _)| *n == file).map(|(_, t)| *t)
}

/// System and toolkit headers whose contents warpcert knows as built-ins (CUDA built-in
/// variables, `__syncthreads`, `min`/`max`, atomics …) or does not need (C library): an
/// `#include <…>` of one of these is skipped silently; any other `<…>` header is skipped
/// with a warning.
pub fn is_known_system_header(name: &str) -> bool {
    matches!(
        name,
        "stdio.h"
            | "stdlib.h"
            | "string.h"
            | "assert.h"
            | "math.h"
            | "stdint.h"
            | "stddef.h"
            | "limits.h"
            | "float.h"
            | "stdbool.h"
            | "cstdio"
            | "cstdlib"
            | "cstring"
            | "cassert"
            | "cmath"
            | "cstdint"
            | "iostream"
            | "cuda.h"
            | "cuda_runtime.h"
            | "cuda_runtime_api.h"
            | "device_launch_parameters.h"
            | "device_functions.h"
            | "sm_20_atomic_functions.h"
            | "cooperative_groups.h"
    )
}
