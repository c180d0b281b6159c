//! `--format model`: the fabric as [`Fabric`] serializes, with every port's entry-by-entry QoS
//! maps filled (switch ports from their value vectors, host RDMA ports from theirs), one
//! device at a time.
//!
//! The maps are filled for this output only, on a copy. A copy of the whole fabric with every
//! port's maps complete was the peak of a model report (issue 19: 1.1 GB for 1 MiB of EOS
//! stanzas before the output was streamed; after, the copy and its maps were still most of
//! it); now each port that gets maps is copied, completed, written and dropped before the next
//! (`model::maps::serialize_ports`).

use crate::model::{Device, Fabric};
use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

/// The fabric, written as `Fabric` is, its devices with their maps.
pub struct WithMaps<'a>(pub &'a Fabric);

/// The devices of [`WithMaps`], each written with its ports completed.
struct Devices<'a>(&'a [Device]);

impl Serialize for WithMaps<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The fields of `Fabric`, in its order (a test compares this with its own form).
        let Fabric {
            devices,
            links,
            policy,
            notices,
        } = self.0;
        let mut st = s.serialize_struct("Fabric", 4)?;
        st.serialize_field("devices", &Devices(devices))?;
        st.serialize_field("links", links)?;
        st.serialize_field("policy", policy)?;
        st.serialize_field("notices", notices)?;
        st.end()
    }
}

impl Serialize for Devices<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for d in self.0 {
            let fill = crate::platform::maps::model_fill(d);
            crate::model::maps::with_fill(fill, || seq.serialize_element(d))?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::WithMaps;
    use crate::model::{Device, Fabric, Interface};

    /// Without maps to fill, the output is the fabric's own serialized form: the fields and
    /// their order are `Fabric`'s.
    #[test]
    fn written_as_the_fabric_is() {
        let mut d = Device {
            name: "h1".into(),
            platform: "linux".into(),
            ..Default::default()
        };
        d.interfaces.push(Interface::new("lo", "loopback"));
        let mut f = Fabric {
            devices: vec![d],
            ..Default::default()
        };
        f.policy.insert("mtu".into(), 9216.into());
        let ours = serde_json::to_string_pretty(&WithMaps(&f)).unwrap_or_default();
        let theirs = serde_json::to_string_pretty(&f).unwrap_or_default();
        assert!(!ours.is_empty());
        assert_eq!(ours, theirs);
    }
}
