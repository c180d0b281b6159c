//! Every switch port's QoS maps, entry by entry (`crate::model::maps`): what the platform module
//! filled itself (Junos, SONiC) is kept; the rest comes from the port's value vectors, with the
//! platform's reason for the entries no line states (its registry entry's `map_notes`, written
//! beside the platform's code: `nxos::MAP_NOTES`, `sonic::MAP_NOTES`, `junos::MAP_NOTES`).

use crate::model::Device;
use crate::model::maps::{Notes, complete, share};

/// Why a platform's entries are what they are where no line states them (the platform
/// registry's `map_notes`; a platform without an entry gives none).
fn notes(platform: &str) -> Notes<'static> {
    super::registry::get(platform).map_or_else(Notes::default, |e| e.map_notes)
}

/// Fill the maps of every port of a switch.
pub fn fill(platform: &str, dev: &mut Device) {
    if super::registry::is_host(platform) {
        return;
    }
    let n = notes(platform);
    for i in dev
        .interfaces
        .iter_mut()
        .filter(|i| matches!(i.kind.as_str(), "ethernet" | "port-channel"))
    {
        complete(i, &n);
    }
    share(&mut dev.interfaces);
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
