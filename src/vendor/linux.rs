//! Platform semantics for `linux` (see vendor-parsers/linux.toml for the patterns).

use super::{BuildNotes, Output};
use crate::model::Device;

pub fn build(_dev: &mut Device, _outs: &[Output]) -> BuildNotes {
    BuildNotes::default()
}

pub fn canonical_ifname(name: &str) -> String {
    name.to_string()
}
