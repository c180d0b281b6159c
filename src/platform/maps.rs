//! Every switch port's QoS maps, entry by entry (`crate::model::maps`): what the platform module
//! filled itself (Junos, SONiC) is kept; the rest comes from the port's value vectors, with the
//! platform's reason for the entries no line states.
//!
//! SONiC programs its maps through the SAI port attributes: SAI, inc/saiport.h,
//! <https://github.com/opencomputeproject/SAI/blob/master/inc/saiport.h>.
//!
//! Evidence markers: [V] read in the vendor's own text, [R] recalled, not re-read, [I] our
//! inference or design choice.

use crate::model::Device;
use crate::model::maps::{Notes, complete, share};

/// Why a platform's entries are what they are where no line states them.
fn notes(platform: &str) -> Notes<'static> {
    match platform {
        // [V SAI saiport.h]
        "sonic" => Notes {
            dscp_to_tc: Some(
                "no DSCP_TO_TC_MAP bound: every packet in TC 0 (SAI_PORT_ATTR_QOS_DSCP_TO_TC_MAP, default no map) [R]",
            ),
            pcp_to_tc: Some("no DOT1P_TO_TC_MAP bound (SAI: \"Default no map\")"),
            tc_to_queue: Some(
                "no TC_TO_QUEUE_MAP bound: SAI_PORT_ATTR_QOS_TC_TO_QUEUE_MAP \"Default no map i.e All packets to queue 0\" (SAI inc/saiport.h) [V]",
            ),
            tc_to_pg: Some(
                "no TC_TO_PRIORITY_GROUP_MAP bound: SAI_PORT_ATTR_QOS_TC_TO_PRIORITY_GROUP_MAP \"Default no map\", no mapping stated (SAI inc/saiport.h) [V]",
            ),
            tc_to_pfc_priority: Some(
                "the priority whose pause the TC's PG sends (PFC_PRIORITY_TO_PRIORITY_GROUP_MAP) and whose received pause stops the TC's queue (MAP_PFC_PRIORITY_TO_QUEUE); unknown when one of the four maps is not bound (SAI: \"Default no map\") [I]",
            ),
            pfc_priority_to_queue: Some(
                "no MAP_PFC_PRIORITY_TO_QUEUE bound: SAI_PORT_ATTR_QOS_PFC_PRIORITY_TO_QUEUE_MAP \"Default no map\" (SAI inc/saiport.h) [V]",
            ),
        },
        "nxos" => Notes {
            dscp_to_tc: Some(
                "qos-group set by the `type qos` input policy; without a match, qos-group 0",
            ),
            tc_to_queue: Some(
                "qos-group N is queued in the system-defined queuing class c-out-8q-qN (queue N): Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide, \"Configuring Queuing and Scheduling\", https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus9000/sw/7-x/qos/configuration/guide/b_Cisco_Nexus_9000_Series_NX-OS_Quality_of_Service_Configuration_Guide_7x.html [R]",
            ),
            tc_to_pg: Some(
                "qos-group N fills the ingress priority group of network-qos class c-8q-nqN [I]",
            ),
            tc_to_pfc_priority: Some(
                "the `pause pfc-cos` of the network-qos class that matches the qos-group",
            ),
            ..Notes::default()
        },
        "junos" => Notes {
            dscp_to_tc: Some(
                "the forwarding class of the DSCP classifier (default classifier: cs6/cs7 network-control, all else best-effort), numbered by its queue-num",
            ),
            tc_to_queue: Some(
                "a Junos forwarding class is known by its output queue (queue-num): the model's traffic class is the queue number [I]",
            ),
            tc_to_pg: Some(
                "no configurable TC → priority group map on QFX: the lossless buffer follows the no-loss class of each queue [I]",
            ),
            tc_to_pfc_priority: Some(
                "the forwarding class's pfc-priority (DSCP-based PFC), else the queue number",
            ),
            ..Notes::default()
        },
        _ => Notes::default(),
    }
}

/// Fill the maps of every port of a switch.
pub fn fill(platform: &str, dev: &mut Device) {
    if platform == "linux" {
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
