//! The miniCUDA core language (RaCUDA §3, Fig. 2, extended with `sync`), the resource
//! metrics of RaCUDA Table 1, the hardware functions `MemReads` / `Conflicts`, and the
//! assertions `(P, D, Q)` of the quantitative logic ([`assertion`], `spec/logic.md` §1).
//!
//! Everything after the front end works on these types: the executable semantics
//! (`crate::semantics`), the inference (`crate::analysis`) and the certificate writer
//! (`crate::certificate`). The normative definition is `spec/minicuda.md`.

pub mod assertion;
pub mod hardware;
pub mod ir;
pub mod metric;
pub mod print;
pub mod stack;

pub use hardware::{conflicts, mem_reads, Hardware, Launch};
pub use ir::*;
pub use metric::{Metric, MetricName};
