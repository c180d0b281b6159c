//! junos: platform semantics (being written; until then a junos device parses to no facts, and
//! every rule that needs one reports that it could not decide).

use super::{BuildNotes, Output};
use crate::model::Device;

pub fn build(_dev: &mut Device, _outs: &[Output]) -> BuildNotes {
    BuildNotes::default()
}

/// Interface names as the platform prints them.
pub fn canonical_ifname(name: &str) -> String {
    name.to_string()
}
