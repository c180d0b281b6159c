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
    /// A list of names (strings), shared: the interfaces a "could not decide" finding is about,
    /// the same list for each rule that could not decide on them and the names the findings'
    /// own (issue 19: 48 bytes a name in each finding's copy as `Array`, 16 here, once).
    /// Written as `Array` of `String` is.
    Names(std::sync::Arc<[std::sync::Arc<str>]>),
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

    /// How many items a list (`Array` or `Names`) holds.
    pub fn list_len(&self) -> Option<usize> {
        match self {
            Value::Array(a) => Some(a.len()),
            Value::Names(n) => Some(n.len()),
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
            Value::Names(n) => s.collect_seq(n.iter().map(|n| &**n)),
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

type Pairs = Vec<(Box<str>, Value)>;

/// The evidence of one finding: its keys in order, each once (a key inserted again replaces
/// its value, as in a map). Empty evidence allocates nothing.
///
/// Shared: the findings of one rule on thousands of ports mostly read the same values (`q: 3,
/// tc: 3`), and [`Evidence::shared`] gives them one copy (issue 19: a copy per finding was a
/// tenth of the audit's peak on a config whose every port draws six findings). A change to
/// shared evidence copies it first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evidence(Option<std::sync::Arc<Pairs>>);

/// The evidence met so far, to share equal ones ([`Evidence::shared`]).
#[derive(Default)]
pub struct Shared {
    by_hash: std::collections::HashMap<u64, std::sync::Arc<Pairs>>,
}

impl Evidence {
    pub fn new() -> Evidence {
        Evidence::default()
    }

    fn pairs(&self) -> &[(Box<str>, Value)] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.pairs().binary_search_by(|(k, _)| (**k).cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.find(key).ok().map(|i| &self.pairs()[i].1)
    }

    pub fn insert(&mut self, key: &str, value: serde_json::Value) {
        self.put(key, Value::from(value));
    }

    /// `insert` of a list of names, held shared (see [`Value::Names`]).
    pub fn insert_names(&mut self, key: &str, names: std::sync::Arc<[std::sync::Arc<str>]>) {
        self.put(key, Value::Names(names));
    }

    fn put(&mut self, key: &str, value: Value) {
        let found = self.find(key);
        let pairs = std::sync::Arc::make_mut(self.0.get_or_insert_with(Default::default));
        match found {
            Ok(i) => pairs[i].1 = value,
            Err(i) => pairs.insert(i, (key.into(), value)),
        }
    }

    /// `insert` of what `v` serializes to, built without a `serde_json::Value` in between
    /// (the same value; see `to_value`). What cannot be serialized is `null`, as
    /// `serde_json::to_value(..).unwrap_or(Null)` gave.
    pub fn insert_serialized<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) {
        self.put(key, to_value::to_value(v).unwrap_or(Value::Null));
    }

    pub fn is_empty(&self) -> bool {
        self.pairs().is_empty()
    }

    /// Gives back the room a list grown one key at a time keeps (a first key makes room for
    /// four): for evidence that is built once, then held for as long as its finding.
    pub fn shrink_to_fit(&mut self) {
        if let Some(p) = self.0.as_mut().and_then(std::sync::Arc::get_mut) {
            p.shrink_to_fit();
        }
    }

    /// This evidence, as the copy `seen` already holds of equal evidence when there is one
    /// (equal to the bit: `0.0` and `-0.0` are told apart), else shrunk and recorded there.
    pub fn shared(mut self, seen: &mut Shared) -> Evidence {
        let Some(p) = &self.0 else { return self };
        let h = hash_pairs(p);
        if let Some(q) = seen.by_hash.get(&h)
            && same_pairs(p, q)
        {
            return Evidence(Some(q.clone()));
        }
        self.shrink_to_fit();
        if let Some(p) = &self.0 {
            seen.by_hash.entry(h).or_insert_with(|| p.clone());
        }
        self
    }

    pub fn len(&self) -> usize {
        self.pairs().len()
    }

    /// True when both are the same copy (or both empty): after [`Evidence::shared`], equal
    /// evidence is one copy, and this tells it apart in O(1) (`finding::Kinds`).
    pub(crate) fn same_copy(&self, other: &Evidence) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Where the copy is (0 when empty): hashes as [`Evidence::same_copy`] compares.
    pub(crate) fn copy_address(&self) -> usize {
        self.0
            .as_ref()
            .map_or(0, |a| std::sync::Arc::as_ptr(a) as usize)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.pairs().iter().map(|(k, v)| (&**k, v))
    }
}

fn hash_pairs(p: &[(Box<str>, Value)]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    fn value(v: &Value, h: &mut impl Hasher) {
        match v {
            Value::Null => 0u8.hash(h),
            Value::Bool(b) => (1u8, b).hash(h),
            Value::Number(n) => (2u8, n.as_u64(), n.as_i64(), n.as_f64().map(f64::to_bits)).hash(h),
            Value::String(s) => (3u8, s).hash(h),
            Value::Array(a) => {
                (4u8, a.len()).hash(h);
                a.iter().for_each(|v| value(v, h));
            }
            Value::Object(m) => {
                (5u8, m.len()).hash(h);
                for (k, v) in m.iter() {
                    k.hash(h);
                    value(v, h);
                }
            }
            Value::Names(n) => (6u8, n).hash(h),
        }
    }
    p.len().hash(&mut h);
    for (k, v) in p {
        k.hash(&mut h);
        value(v, &mut h);
    }
    h.finish()
}

fn same_pairs(a: &[(Box<str>, Value)], b: &[(Box<str>, Value)]) -> bool {
    fn value(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                x.as_u64() == y.as_u64()
                    && x.as_i64() == y.as_i64()
                    && x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
                    && x.is_f64() == y.is_f64()
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| value(x, y))
            }
            (Value::Object(x), Value::Object(y)) => same_pairs(x, y),
            _ => a == b,
        }
    }
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && value(va, vb))
}

impl Serialize for Evidence {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_pairs(self.pairs(), s)
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

    #[test]
    fn equal_evidence_is_shared_and_a_change_copies_it() {
        let mut seen = Shared::default();
        let make = |q: serde_json::Value| {
            let mut e = Evidence::new();
            e.insert("q", q);
            e.insert("tc", json!(3));
            e
        };
        let a = make(json!(3)).shared(&mut seen);
        let b = make(json!(3)).shared(&mut seen);
        let c = make(json!(4)).shared(&mut seen);
        let (Some(pa), Some(pb), Some(pc)) = (&a.0, &b.0, &c.0) else {
            panic!("evidence should not be empty")
        };
        assert!(std::sync::Arc::ptr_eq(pa, pb));
        assert!(!std::sync::Arc::ptr_eq(pa, pc));
        // 0.0 and -0.0 compare equal as numbers but print differently: never shared.
        let z = make(json!(0.0)).shared(&mut seen);
        let nz = make(json!(-0.0)).shared(&mut seen);
        assert_eq!(
            serde_json::to_string(&nz).ok().as_deref(),
            Some(r#"{"q":-0.0,"tc":3}"#)
        );
        assert_eq!(
            serde_json::to_string(&z).ok().as_deref(),
            Some(r#"{"q":0.0,"tc":3}"#)
        );
        // 3 and 3.0 neither.
        let f = make(json!(3.0)).shared(&mut seen);
        assert_eq!(
            serde_json::to_string(&f).ok().as_deref(),
            Some(r#"{"q":3.0,"tc":3}"#)
        );
        let mut b = b;
        b.insert("q", json!(9));
        assert_eq!(
            a.get("q").and_then(|v| if let Value::Number(n) = v {
                n.as_u64()
            } else {
                None
            }),
            Some(3)
        );
        assert_eq!(
            serde_json::to_string(&b).ok().as_deref(),
            Some(r#"{"q":9,"tc":3}"#)
        );
        assert!(Evidence::new().shared(&mut seen).is_empty());
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
