//! The model as rules see it: minijinja objects over the model's own structs.
//!
//! A device (`d`, with or without its `interfaces`) or an interface (`i`, `peer`, `a`, `b`) is a
//! view that converts a field into a minijinja value the first time a rule reads it and keeps
//! it for the other rules on the same object. Nothing is converted that no rule reads, and a
//! view lives only as long as the rules of its object run, so the audit never holds a second,
//! larger copy of the model. The values are those a full serde conversion gives (same names,
//! same skipped unknown fields, keys listed in the same order); `tests` check that.

use super::fields;
use crate::model::Device;
use minijinja::value::{Enumerator, Object, ObjectRepr, Value};
use std::sync::{Arc, Mutex, OnceLock};

/// The devices the views read (moved out of the fabric while rules run).
pub type Devices = Arc<Vec<Device>>;

/// Which object of the model a view shows.
#[derive(Debug, Clone, Copy)]
enum At {
    /// A device without its interfaces (`d` next to an interface, `ad`, `peer_d`).
    Head(usize),
    /// A device with its interfaces (`d` of a device rule, an item of `devices`).
    Full(usize),
    /// Interface `.1` of device `.0`.
    Iface(usize, usize),
}

/// A device or interface as a map of its fields (see the module doc).
pub struct View {
    devices: Devices,
    at: At,
    /// Every field name, listed only when a rule enumerates the object.
    fields: OnceLock<Fields>,
    /// The fields read so far by name, with their values (None: skipped or no such field).
    read: Mutex<Vec<(Box<str>, Option<Value>)>>,
}

/// The fields a view's object serializes, in field order.
struct Fields {
    keys: Vec<&'static str>,
}

const INTERFACES: &str = "interfaces";

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").field("at", &self.at).finish()
    }
}

/// A device without its interfaces.
pub fn head(devices: &Devices, di: usize) -> Value {
    view(devices, At::Head(di))
}

/// A device with its interfaces.
pub fn full(devices: &Devices, di: usize) -> Value {
    view(devices, At::Full(di))
}

/// Interface `ii` of device `di`.
pub fn iface(devices: &Devices, di: usize, ii: usize) -> Value {
    view(devices, At::Iface(di, ii))
}

/// Every device with its interfaces (`devices` of a fabric rule), each made when read.
pub fn all(devices: &Devices) -> Value {
    Value::from_object(Seq {
        devices: devices.clone(),
        of: None,
    })
}

fn view(devices: &Devices, at: At) -> Value {
    Value::from_object(View {
        devices: devices.clone(),
        at,
        fields: OnceLock::new(),
        // Room for the fields the rules of one object usually read, allocated once.
        read: Mutex::new(Vec::with_capacity(8)),
    })
}

impl View {
    fn fields(&self) -> &Fields {
        self.fields.get_or_init(|| {
            let keys: Vec<&'static str> = match self.at {
                At::Head(di) => fields::keys(&self.devices[di])
                    .into_iter()
                    .filter(|k| *k != INTERFACES)
                    .collect(),
                At::Full(di) => fields::keys(&self.devices[di]),
                At::Iface(di, ii) => fields::keys(&self.devices[di].interfaces[ii]),
            };
            Fields { keys }
        })
    }

    /// Field `key` as the full conversion gives it; None when skipped or absent.
    fn read(&self, key: &str) -> Option<Value> {
        match self.at {
            At::Full(di) if key == INTERFACES => Some(Value::from_object(Seq {
                devices: self.devices.clone(),
                of: Some(di),
            })),
            At::Head(_) if key == INTERFACES => None,
            At::Head(di) | At::Full(di) => fields::field(&self.devices[di], key),
            At::Iface(di, ii) => fields::field(&self.devices[di].interfaces[ii], key),
        }
    }

    /// [`View::read`], once per key and view: rules of one object read the same fields.
    fn cached(&self, key: &str) -> Option<Value> {
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, v)) = read.iter().find(|(k, _)| &**k == key) {
            return v.clone();
        }
        let v = self.read(key);
        read.push((Box::from(key), v.clone()));
        v
    }
}

impl Object for View {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        self.get_value_by_str(key.as_str()?)
    }

    fn get_value_by_str(self: &Arc<Self>, key: &str) -> Option<Value> {
        self.cached(key)
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        // Keys in the order the full conversion listed them.
        let mut keys = self.fields().keys.clone();
        match self.at {
            // a device with interfaces was a map sorted by key
            At::Full(_) => keys.sort_unstable(),
            // a device without them listed `roce_scope` last
            At::Head(_) => {
                if let Some(n) = keys.iter().position(|k| *k == "roce_scope") {
                    let k = keys.remove(n);
                    keys.push(k);
                }
            }
            // an interface: its fields in order
            At::Iface(..) => {}
        }
        Enumerator::Values(keys.into_iter().map(Value::from).collect())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.fields().keys.len())
    }
}

/// The interfaces of device `of`, or every device when `of` is `None`; each item a fresh view.
#[derive(Debug)]
struct Seq {
    devices: Devices,
    of: Option<usize>,
}

impl Seq {
    fn len(&self) -> usize {
        match self.of {
            Some(di) => self.devices[di].interfaces.len(),
            None => self.devices.len(),
        }
    }
}

impl Object for Seq {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let n = key.as_usize()?;
        if n >= self.len() {
            return None;
        }
        Some(match self.of {
            Some(di) => iface(&self.devices, di, n),
            None => full(&self.devices, n),
        })
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.len())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Interface, known};

    fn json(v: &Value) -> String {
        serde_json::to_string(v).unwrap_or_default()
    }

    #[test]
    fn views_read_as_the_full_conversion() {
        let file: Arc<str> = Arc::from("configs/leaf1.cfg");
        let src = crate::model::Src::new(&file, 3);
        let mut i = Interface::new("Ethernet1/1", "ethernet");
        i.mtu = known(9216, &src);
        i.roce = true;
        let d = Device {
            name: "leaf1".into(),
            platform: "nxos".into(),
            is_switch: true,
            interfaces: vec![i, Interface::new("Ethernet1/2", "ethernet")],
            roce_scope: Some(Default::default()),
            error: Some("x".into()),
            ..Default::default()
        };
        // What the rules read before views: the full conversion of the device.
        let old = super::super::eval::dev_vals(&d, &Default::default());
        let devs: Devices = Arc::new(vec![d]);
        for (ii, want) in old.ifaces.iter().enumerate() {
            let got = iface(&devs, 0, ii);
            assert_eq!(&got, want);
            assert_eq!(json(&got), json(want));
            assert_eq!(got.to_string(), want.to_string());
        }
        let vi = iface(&devs, 0, 0);
        assert!(vi.get_attr("lldp_peer").is_ok_and(|v| v.is_undefined()));
        assert_eq!(
            vi.get_attr("mtu").ok().map(|v| v.to_string()).as_deref(),
            Some("9216")
        );
        let vh = head(&devs, 0);
        assert!(vh.get_attr(INTERFACES).is_ok_and(|v| v.is_undefined()));
        assert_eq!(json(&vh), json(&old.head));
        assert_eq!(vh, old.head);
        let vd = full(&devs, 0);
        assert_eq!(json(&vd), json(&old.full));
        assert_eq!(vd, old.full);
        assert_eq!(vd.to_string(), old.full.to_string());
        assert_eq!(json(&all(&devs)), json(&Value::from(vec![old.full])));
    }
}
