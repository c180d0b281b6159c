//! A finding's evidence (the values its rule read), kept small in memory.
//!
//! Why not `serde_json::Map`: it is a B-tree whose first node has room for eleven entries
//! (632 bytes) however few keys it holds, and every object nested in a value is another one. A
//! parse entry's evidence (PARSE001, PARSE002) holds one object per unrecognized line and per
//! undefined reference: on a 1 MiB configuration of repeated stanzas, 7,600 of them in each of
//! the two findings were 11 MB, most of the audit's peak (issue 19: peak memory within 20 times
//! the input). Here an object is a slice of (key, value) pairs sorted by key, the order the
//! B-tree iterated them in, and a value serializes with the same serde calls as
//! `serde_json::Value`: every report stays byte for byte what it was.

mod to_value;

use serde::ser::{Serialize, SerializeMap, Serializer};

/// A JSON value: `serde_json::Value` with its objects as sorted slices.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(Box<str>),
    Array(Box<[Value]>),
    Object(Box<[(Box<str>, Value)]>),
}

impl Value {
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

impl From<serde_json::Value> for Value {
    /// Taken apart as it is converted: each nested object is freed once copied, so converting
    /// a large value costs little more than the value itself.
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n),
            serde_json::Value::String(s) => Value::String(s.into_boxed_str()),
            serde_json::Value::Array(a) => Value::Array(a.into_iter().map(Value::from).collect()),
            // A `serde_json::Map` iterates in key order: the slice is sorted as it is built.
            serde_json::Value::Object(m) => Value::Object(
                m.into_iter()
                    .map(|(k, v)| (k.into_boxed_str(), Value::from(v)))
                    .collect(),
            ),
        }
    }
}

impl Serialize for Value {
    /// The calls `serde_json::Value` makes, in the same order.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(t) => s.serialize_str(t),
            Value::Array(a) => a.serialize(s),
            Value::Object(m) => serialize_pairs(m, s),
        }
    }
}

fn serialize_pairs<S: Serializer>(pairs: &[(Box<str>, Value)], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(pairs.len()))?;
    for (k, v) in pairs {
        map.serialize_entry(&**k, v)?;
    }
    map.end()
}

/// The evidence of one finding: its keys in order, each once (a key inserted again replaces
/// its value, as in a map). Empty evidence allocates nothing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evidence(Vec<(Box<str>, Value)>);

impl Evidence {
    pub fn new() -> Evidence {
        Evidence::default()
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| (**k).cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    pub fn insert(&mut self, key: &str, value: serde_json::Value) {
        self.put(key, Value::from(value));
    }

    fn put(&mut self, key: &str, value: Value) {
        match self.find(key) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key.into(), value)),
        }
    }

    /// `insert` of what `v` serializes to, built without a `serde_json::Value` in between
    /// (the same value; see `to_value`). What cannot be serialized is `null`, as
    /// `serde_json::to_value(..).unwrap_or(Null)` gave.
    pub fn insert_serialized<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) {
        self.put(key, to_value::to_value(v).unwrap_or(Value::Null));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Gives back the room a list grown one key at a time keeps (a first key makes room for
    /// four): for evidence that is built once, then held for as long as its finding.
    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }
}

impl Serialize for Evidence {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_pairs(&self.0, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The same JSON as the map it replaces, compact and pretty, nested objects included.
    #[test]
    fn serializes_as_a_json_map_does() {
        let entries = [
            (
                "undefined",
                json!([{"name": "Q3", "line": 25, "kind": "wred"}, {"b": null}]),
            ),
            ("status", json!("partial")),
            ("missing", json!(["i.pfc", 3, -4, 2.5, 1e300, true])),
            ("a", json!({"z": {"y": [], "x": {}}, "é": 1, "B": 2})),
            ("status", json!("replaced")),
            ("", json!(null)),
        ];
        let mut map = serde_json::Map::new();
        let mut ev = Evidence::new();
        for (k, v) in entries {
            map.insert(k.to_string(), v.clone());
            ev.insert(k, v);
        }
        assert_eq!(ev.len(), map.len());
        for pretty in [false, true] {
            let show = |v: &dyn Json| v.json(pretty);
            assert_eq!(show(&ev), show(&map));
        }
        assert_eq!(ev.get("status").and_then(Value::as_str), Some("replaced"));
        assert_eq!(
            ev.get("missing").and_then(Value::as_array).map(<[_]>::len),
            Some(6)
        );
        assert!(ev.get("nothing").is_none());
        assert_eq!(
            serde_json::to_string(&Evidence::new()).ok().as_deref(),
            Some("{}")
        );
    }

    trait Json {
        fn json(&self, pretty: bool) -> String;
    }

    impl<T: Serialize> Json for T {
        fn json(&self, pretty: bool) -> String {
            let r = if pretty {
                serde_json::to_string_pretty(self)
            } else {
                serde_json::to_string(self)
            };
            r.unwrap_or_default()
        }
    }
}
