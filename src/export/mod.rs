//! Export of checked certificates to other proof checkers (the stage between the kernel
//! and the report, see `ARCHITECTURE.md`). Today: Coq (`coq`), for the theories in
//! `coq-export/theories/`.

pub mod coq;
pub mod coq_context;
pub mod coq_lower;
pub mod coq_run;
