//! Probes: run the tools RDMA engineers trust (perftest, qperf, `ping -M do`) between pairs of
//! hosts over SSH, read the hosts' counters before and after, and turn what was measured into
//! PROBE findings tied to the config findings on the same path.
//!
//! - `plan`: which host pairs (path classes from the model's links), which tests.
//! - `remote`: a process on a host: started in its own session under `timeout`, ended by its
//!   process group on every way out (success, failure, our deadline, Ctrl-C).
//! - `output`: what the tools print, read into numbers or the tool's own message.
//! - `counters`: `ethtool -S` before and after, deltas per path port.
//! - `run`: one probe run end to end.
//!
//! The table of pairs is drawn by `report::probes`; the tie between PROBE findings and config
//! findings is made by the audit (`audit::probe_tie`).

pub mod counters;
pub mod output;
pub mod plan;
pub mod remote;
pub mod run;

pub use crate::model::probe::{Deltas, PathMtu, Probe, full_probe};
