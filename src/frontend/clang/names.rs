//! Prelude functions recognized by name (`spec/lowering.md` §9.4): GPUVerify's annotations
//! (dropped; the list is the builtin lowering's) and the math functions and integer intrinsics that become opaque operations.

pub(super) use crate::frontend::lower::is_annotation;

/// Math functions and integer intrinsics that become an opaque operation (`Opaque`,
/// `spec/lowering.md` §9.4): the lowering handles the others it knows (`min`, `max`, `abs`,
/// `fabsf`, `fma`, `__fdividef`, rounding-mode arithmetic, `_rz`/`_rn` conversions,
/// `__mul24`, atomics, `__syncthreads`).
pub(super) fn is_opaque_math(name: &str) -> bool {
    let stem = name.trim_start_matches("__");
    let stem = stem.strip_suffix('f').unwrap_or(stem);
    matches!(
        stem,
        "sqrt"
            | "rsqrt"
            | "cbrt"
            | "exp"
            | "exp2"
            | "exp10"
            | "expm1"
            | "log"
            | "log2"
            | "log10"
            | "log1p"
            | "sin"
            | "cos"
            | "tan"
            | "asin"
            | "acos"
            | "atan"
            | "sinh"
            | "cosh"
            | "tanh"
            | "floor"
            | "ceil"
            | "round"
            | "rint"
            | "trunc"
            | "erf"
            | "erfc"
            | "sinpi"
            | "cospi"
            | "normcdf"
            | "normcdfinv"
            | "lgamma"
            | "tgamma"
            | "pow"
            | "atan2"
            | "fmod"
            | "hypot"
            | "copysign"
            | "fdim"
            | "remainder"
            | "saturate"
            | "frcp_rn"
            | "fsqrt_rn"
            | "isnan"
            | "isinf"
            | "isfinite"
    ) || matches!(
        name,
        "__clz"
            | "__clzll"
            | "__brev"
            | "__byte_perm"
            | "__umulhi"
            | "__mulhi"
            | "__sad"
            | "__usad"
            | "__float2int_rn"
            | "__float2int_ru"
            | "__float2int_rd"
            | "__float2uint_rn"
            | "__double2int_rn"
            | "__int_as_float"
            | "__float_as_int"
            | "__uint_as_float"
            | "__float_as_uint"
            | "__double_as_longlong"
            | "__longlong_as_double"
    )
}

/// The prelude's half-precision intrinsics (`__hadd2`, `__float2half2_rn`, `__low2float`,
/// …, spec/lowering.md §9.4): pure functions of their arguments, converted as opaque
/// operations on the scalar leaves of their arguments (one per leaf of the result).
pub(super) fn is_half_intrinsic(name: &str) -> bool {
    (name.starts_with("__h") && !name.starts_with("__hiloint"))
        || name.contains("half")
        || matches!(name, "__low2float" | "__high2float")
}

/// `clock()`, `clock64()`: an opaque value without operands (spec/lowering.md §9.4).
pub(super) fn is_clock(name: &str) -> bool {
    matches!(name, "clock" | "clock64")
}
