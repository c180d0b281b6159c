//! Every switch port's QoS maps, entry by entry (`crate::model::maps`): what the platform module
//! filled itself (Junos, SONiC) is kept; the rest comes from the port's value vectors, with the
//! platform's reason for the entries no line states (its registry entry's `map_notes`, written
//! beside the platform's code: `nxos::MAP_NOTES`, `sonic::MAP_NOTES`, `junos::MAP_NOTES`).

use crate::model::Device;
use crate::model::maps::{Fill, Notes};

/// Why a platform's entries are what they are where no line states them (the platform
/// registry's `map_notes`; a platform without an entry gives none).
fn notes(platform: &str) -> Notes<'static> {
    super::registry::get(platform).map_or_else(Notes::default, |e| e.map_notes)
}

/// How `--format model` completes the maps of `dev`'s ports as it writes them.
pub fn model_fill(dev: &Device) -> Fill {
    Fill {
        switch: (!super::registry::is_host(&dev.platform)).then(|| notes(&dev.platform)),
        host_rdma: crate::model::maps::fills_host_maps(dev),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sai_is_cited_for_sonic() {
        let n = super::notes("sonic");
        for s in [n.tc_to_queue, n.tc_to_pg, n.pfc_priority_to_queue] {
            assert!(s.is_some_and(|s| s.contains("saiport.h")));
        }
    }
}
