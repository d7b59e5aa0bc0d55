//! [`SortedMap`]: the terms of linear forms ([`super::linear::Lin`]) and potentials
//! ([`super::poly::PolyT`]) as a vector of entries sorted by key (issue 13: a `BTreeMap`
//! allocates an eleven-entry node, about 1 kB, for its first entry).
//!
//! The map is the trusted kernel's own (`warpcert_kernel::sorted`, tested there against
//! `BTreeMap`): the inference may use the kernel's data structures, the kernel never the
//! inference's, so one copy serves both (iteration in key order; equality and ordering
//! those of the sorted entry sequence, as for `BTreeMap`).

pub use warpcert_kernel::sorted::SortedMap;
