//! warpcert: certified cost bounds for CUDA kernels.
//!
//! The pipeline, one module per stage (see `ARCHITECTURE.md`):
//! `frontend` (CUDA text → AST) → `core` (miniCUDA) → `semantics` (executable cost
//! semantics, the oracle) → `analysis` (abstract interpretation, quantitative logic, LP) →
//! `certificate` (derivations written in the certificate format) → the `warpcert-kernel`
//! crate (independent checker) → `report` (text and JSON) → `cli`.

pub mod analysis;
pub mod audit;
pub mod certificate;
pub mod claim;
pub mod cli;
pub mod core;
pub mod export;
pub mod frontend;
pub mod relational;
pub mod report;
pub mod semantics;
