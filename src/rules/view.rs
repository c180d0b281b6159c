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
use std::borrow::Cow;
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
    /// What the view keeps, made when it first keeps something: a device rule that reads
    /// only plain fields of every port (`selectattr('roce')`) makes none, and a port's view
    /// is 48 bytes, not 96 (the list of a device's interfaces keeps its port views while the
    /// device's rules run: 1.2 MB of 16,000 ports; issue 19).
    kept: OnceLock<Box<Kept>>,
}

#[derive(Default)]
struct Kept {
    /// Every field name, listed only when a rule enumerates the object.
    fields: OnceLock<Fields>,
    /// The fields read so far by name, with their values (None: skipped or no such field).
    /// A field's name is the struct's own (no copy); only a name it lacks is copied.
    read: Mutex<Vec<(Cow<'static, str>, Option<Value>)>>,
}

/// The fields a view's object serializes, in field order.
struct Fields {
    keys: Vec<&'static str>,
}

const INTERFACES: &str = "interfaces";
const PARSE: &str = "parse";

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
    Value::from_object(Seq::new(devices.clone(), None))
}

fn view(devices: &Devices, at: At) -> Value {
    Value::from_object(View {
        devices: devices.clone(),
        at,
        kept: OnceLock::new(),
    })
}

impl View {
    fn kept(&self) -> &Kept {
        self.kept.get_or_init(Box::default)
    }

    fn fields(&self) -> &Fields {
        self.kept().fields.get_or_init(|| {
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

    /// Field `key` as the full conversion gives it, with the field's own name; None when
    /// skipped or absent.
    fn read(&self, key: &str) -> Option<(&'static str, Value)> {
        match self.at {
            At::Full(di) if key == INTERFACES => Some((
                INTERFACES,
                Value::from_object(Seq::new(self.devices.clone(), Some(di))),
            )),
            At::Head(_) if key == INTERFACES => None,
            At::Head(di) | At::Full(di) if key == PARSE => Some((
                PARSE,
                Value::from_object(Parse {
                    devices: self.devices.clone(),
                    di,
                    file: None,
                }),
            )),
            At::Head(di) | At::Full(di) => fields::named_field(&self.devices[di], key),
            At::Iface(di, ii) => fields::named_field(&self.devices[di].interfaces[ii], key),
        }
    }

    /// [`View::read`], once per key and view: rules of one object read the same fields.
    fn cached(&self, key: &str) -> Option<Value> {
        if let Some(v) = self.plain(key) {
            return Some(v);
        }
        if matches!(self.at, At::Iface(..)) && SCALARS.contains(&key) {
            return self.read(key).map(|(_, v)| v);
        }
        let mut read = self.kept().read.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, v)) = read.iter().find(|(k, _)| k == key) {
            return v.clone();
        }
        match self.read(key) {
            Some((name, v)) => {
                read.push((Cow::Borrowed(name), Some(v.clone())));
                Some(v)
            }
            None => {
                read.push((Cow::Owned(key.to_string()), None));
                None
            }
        }
    }
}

impl View {
    /// A plain field of an interface: it costs less to read again than to keep.
    fn plain(&self, key: &str) -> Option<Value> {
        match self.at {
            At::Iface(di, ii) => plain_field(&self.devices[di].interfaces[ii], key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Field `key` of `v` (a view or any other value) as `v.get_attr(key)` gives it, not kept on
/// the view. For a helper that walks every port of the fabric once (ECN008's
/// `roce_queue_settings`): the list of a device's interfaces keeps its port views, and each
/// port's converted maps and queues kept on its view until the walk was done were 9 MB on a
/// 1 MiB Junos configuration, 9 times the input (issue 19).
pub fn read_once(v: &Value, key: &str) -> Result<Value, minijinja::Error> {
    match v.downcast_object_ref::<View>() {
        Some(view) => Ok(view
            .plain(key)
            .or_else(|| view.read(key).map(|(_, v)| v))
            .unwrap_or(Value::UNDEFINED)),
        None => v.get_attr(key),
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

/// Interface fields that are one number, bool or short string: read again each time, not kept
/// on the port's view. A device rule that reads one of every port
/// (`d.interfaces | selectattr('roce') | map(attribute='mtu_raw') | max`, MTU rules) kept a
/// list of reads on each of 15,554 port views, 3 MB at once (issue 19).
const SCALARS: [&str; 9] = [
    "admin_up",
    "oper_up",
    "speed_gbps",
    "mtu",
    "mtu_raw",
    "switchport",
    "trust",
    "cable_m",
    "lldp_in_fabric",
];

/// The interface fields that device rules test on every port (`selectattr('roce')`,
/// `map(attribute='name')`), read directly: each is always serialized, as a plain bool or
/// string, so the value is the one the serialization walk finds (a test compares them).
fn plain_field(i: &crate::model::Interface, key: &str) -> Option<(&'static str, Value)> {
    Some(match key {
        "name" => ("name", Value::from(i.name.as_str())),
        "kind" => ("kind", Value::from(&*i.kind)),
        "roce" => ("roce", Value::from(i.roce)),
        "idle" => ("idle", Value::from(i.idle)),
        _ => return None,
    })
}

/// The interfaces of device `of`, or every device when `of` is `None`.
///
/// A device's interfaces are made into views once, when first read, and kept as long as the
/// list: the rules of a device walk its interfaces several times (`selectattr('roce')` in one
/// rule, `selectattr('idle')` in the next), and each view keeps the fields read from it. The
/// list of every device makes a fresh view per read, so a fabric rule never holds them all.
#[derive(Debug)]
struct Seq {
    devices: Devices,
    of: Option<usize>,
    /// The interface views made so far (empty for the list of devices).
    items: Vec<OnceLock<Value>>,
}

impl Seq {
    fn new(devices: Devices, of: Option<usize>) -> Seq {
        let items = match of {
            Some(di) => (0..devices[di].interfaces.len())
                .map(|_| OnceLock::new())
                .collect(),
            None => Vec::new(),
        };
        Seq { devices, of, items }
    }

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
            Some(di) => self.items[n]
                .get_or_init(|| iface(&self.devices, di, n))
                .clone(),
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

/// A device's `parse` list (`file: None`), one file's entry, or that file's `unrecognized`
/// lines, each made as it is read. PARSE001 reads every file's unrecognized lines, and converted
/// whole they were a minijinja map per line, 12 times a file of short unrecognized lines for as
/// long as the device's rules ran (issue 19: the `reports` fuzz target, 18 KB of JSON read as
/// an EOS config). The values are those of the full conversion (a test compares them).
#[derive(Debug)]
struct Parse {
    devices: Devices,
    di: usize,
    /// `(file, true)`: that file's unrecognized lines; `(file, false)`: the file's entry.
    file: Option<(usize, bool)>,
}

impl Parse {
    fn files(&self) -> &[crate::model::FileParse] {
        &self.devices[self.di].parse
    }

    fn at(&self, file: Option<(usize, bool)>) -> Value {
        Value::from_object(Parse {
            devices: self.devices.clone(),
            di: self.di,
            file,
        })
    }

    fn len(&self) -> usize {
        match self.file {
            None => self.files().len(),
            Some((f, true)) => self.files()[f].unrecognized.len(),
            Some((f, false)) => fields::keys(&self.files()[f]).len(),
        }
    }
}

impl Object for Parse {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        match self.file {
            Some((_, false)) => ObjectRepr::Map,
            _ => ObjectRepr::Seq,
        }
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        match self.file {
            None => {
                let n = key.as_usize()?;
                (n < self.files().len()).then(|| self.at(Some((n, false))))
            }
            Some((f, true)) => {
                let line = self.files()[f].unrecognized.get(key.as_usize()?)?;
                Some(Value::from(minijinja::value::Serde(line)))
            }
            Some((f, false)) => match key.as_str()? {
                "unrecognized" => Some(self.at(Some((f, true)))),
                k => fields::named_field(&self.files()[f], k).map(|(_, v)| v),
            },
        }
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        match self.file {
            Some((f, false)) => Enumerator::Values(
                fields::keys(&self.files()[f])
                    .into_iter()
                    .map(Value::from)
                    .collect(),
            ),
            _ => Enumerator::Seq(self.len()),
        }
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

    /// A view that keeps nothing is its devices, its place and an empty slot: the list of a
    /// device's interfaces holds one per port while the device's rules run (issue 19).
    #[test]
    fn a_port_view_that_keeps_nothing_is_48_bytes_and_reads_scalars_each_time() {
        assert!(
            std::mem::size_of::<View>() <= 48,
            "{}",
            std::mem::size_of::<View>()
        );
        let mut i = Interface::new("Ethernet1/1", "ethernet");
        i.mtu_raw = known(9214, &crate::model::Src::new(&Arc::from("leaf1.cfg"), 3));
        let devices: Devices = Arc::new(vec![Device {
            name: "leaf1".into(),
            interfaces: vec![i],
            ..Default::default()
        }]);
        let v = iface(&devices, 0, 0);
        assert_eq!(json(&v.get_attr("mtu_raw").unwrap()), "9214");
        assert_eq!(json(&v.get_attr("name").unwrap()), "\"Ethernet1/1\"");
        let view = v.downcast_object_ref::<View>().unwrap();
        assert!(
            view.kept.get().is_none(),
            "plain and scalar fields are not kept"
        );
        let _ = v.get_attr("pfc").unwrap();
        assert!(
            view.kept.get().is_some(),
            "a map field is kept for the next rule"
        );
    }

    #[test]
    fn plain_fields_read_as_the_walk() {
        for (roce, idle) in [(false, false), (true, false), (false, true)] {
            let mut i = Interface::new("Ethernet1/1", "ethernet");
            i.roce = roce;
            i.idle = idle;
            for key in ["name", "kind", "roce", "idle"] {
                let fast = plain_field(&i, key);
                let walk = fields::named_field(&i, key);
                assert!(fast.is_some(), "{key}");
                assert_eq!(fast, walk, "{key}");
                let json = |v: Option<(&str, Value)>| v.map(|(_, v)| json(&v));
                assert_eq!(
                    json(plain_field(&i, key)),
                    json(fields::named_field(&i, key))
                );
            }
        }
        assert!(plain_field(&Interface::new("e", "ethernet"), "mtu").is_none());
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
            parse: vec![
                crate::model::FileParse {
                    device: "leaf1".into(),
                    file: "configs/leaf1.cfg".into(),
                    platform: "nxos".into(),
                    command: "config".into(),
                    status: crate::model::ParseStatus::Partial,
                    unrecognized: vec![
                        crate::model::Unrecognized {
                            line: 7,
                            text: "frobnicate 1".into(),
                        },
                        crate::model::Unrecognized {
                            line: 9,
                            text: "\"quoted\"".into(),
                        },
                    ],
                    undefined: Vec::new(),
                    undefined_not_listed: 0,
                    gaps: Vec::new(),
                    conflicts: Vec::new(),
                    conflicts_not_listed: 0,
                    error: None,
                },
                crate::model::FileParse {
                    device: "leaf1".into(),
                    file: "devices/leaf1/show_version.txt".into(),
                    platform: "nxos".into(),
                    command: "show version".into(),
                    status: crate::model::ParseStatus::Passed,
                    unrecognized: Vec::new(),
                    undefined: Vec::new(),
                    undefined_not_listed: 0,
                    gaps: Vec::new(),
                    conflicts: Vec::new(),
                    conflicts_not_listed: 0,
                    error: Some("e".into()),
                },
            ],
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
        assert_eq!(
            json(&all(&devs)),
            json(&Value::from(vec![old.full.clone()]))
        );
        // The parse list as PARSE001 reads it: a lazy list, with the conversion's values.
        let env = minijinja::Environment::new();
        for expr in [
            "d.parse | selectattr('unrecognized') | list",
            "(d.parse | selectattr('unrecognized') | first).unrecognized | length",
            "(d.parse | first).unrecognized[1].text",
            "(d.parse | first).unrecognized[0].line",
            "d.parse | rejectattr('status', 'eq', 'failed') | list | length",
            "d.parse | selectattr('error', 'defined') | map(attribute='file') | list",
            "d.parse[1].unrecognized | length",
            "d.parse[1].unrecognized[0] is undefined",
            "(d.parse | first) | list",
        ] {
            let Ok(e) = env.compile_expression(expr) else {
                panic!("{expr} does not compile")
            };
            let got = e.eval(minijinja::context! { d => full(&devs, 0) });
            let want = e.eval(minijinja::context! { d => old.full.clone() });
            let (Ok(got), Ok(want)) = (got, want) else {
                panic!("{expr} fails")
            };
            assert_eq!(json(&got), json(&want), "{expr}");
            assert_eq!(got.to_string(), want.to_string(), "{expr}");
            assert_eq!(got.is_true(), want.is_true(), "{expr}");
        }
    }
}
