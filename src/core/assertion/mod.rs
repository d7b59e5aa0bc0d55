//! Assertions of the quantitative logic (`spec/logic.md` §1): the linear constraints `P`,
//! the thread-dependence map `D` and the potential `Q` (a polynomial over `max0` atoms).
//!
//! These are the data that certificates are made of: the analysis computes them, the
//! certificate writer prints them (`crate::certificate`). They live in `core` so that the
//! certificate writer does not depend on the inference.

pub mod linear;
pub mod poly;
pub mod sorted;

pub use linear::{param_name, param_sym, CKind, Cstr, Dep, DepMap, EntryKind, Lin, RowMul};
pub use poly::Poly;
