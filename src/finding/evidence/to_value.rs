//! Any `Serialize` value straight into an evidence [`Value`], with the result
//! `serde_json::to_value` followed by `Value::from` gives, without the `serde_json::Value` tree
//! in between: a parse entry's evidence holds one object per unrecognized line, and that tree
//! (a B-tree of 632 bytes or more per object) was most of the audit's peak on a file of short
//! unrecognized lines (issue 19: 67 times the input in the `reports` fuzz target on an 18 KB
//! file of JSON read as an EOS config). Objects are sorted by key and a key given twice keeps
//! its last value, as `serde_json::Map` does.

use super::Value;
use serde::ser::{self, Serialize};

pub fn to_value<T: Serialize + ?Sized>(v: &T) -> Result<Value, serde_json::Error> {
    v.serialize(Build)
}

struct Build;

fn object(mut pairs: Vec<(Box<str>, Value)>) -> Value {
    // Stable: of equal keys the last given stays last, and is the one kept.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(Box<str>, Value)> = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        match out.last_mut() {
            Some(last) if last.0 == k => last.1 = v,
            _ => out.push((k, v)),
        }
    }
    Value::Object(out.into_boxed_slice())
}

fn tagged(variant: &str, v: Value) -> Value {
    Value::Object(vec![(variant.into(), v)].into_boxed_slice())
}

fn float(f: f64) -> Value {
    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
}

impl ser::Serializer for Build {
    type Ok = Value;
    type Error = serde_json::Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Map;
    type SerializeStruct = Map;
    type SerializeStructVariant = Map;

    fn serialize_bool(self, v: bool) -> Result<Value, Self::Error> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Self::Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Self::Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Self::Error> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Self::Error> {
        Ok(Value::Number(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<Value, Self::Error> {
        serde_json::to_value(v).map(Value::from)
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Self::Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Self::Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Self::Error> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Self::Error> {
        Ok(Value::Number(v.into()))
    }
    fn serialize_u128(self, v: u128) -> Result<Value, Self::Error> {
        serde_json::to_value(v).map(Value::from)
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Self::Error> {
        serde_json::to_value(v).map(Value::from)
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Self::Error> {
        Ok(float(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, Self::Error> {
        Ok(Value::String(v.to_string().into()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Self::Error> {
        Ok(Value::String(v.into()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Self::Error> {
        Ok(Value::Array(
            v.iter().map(|b| Value::Number((*b).into())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Value, Self::Error> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Value, Self::Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Self::Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, Self::Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value, Self::Error> {
        Ok(Value::String(variant.into()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Value, Self::Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Value, Self::Error> {
        Ok(tagged(variant, v.serialize(Build)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Self::Error> {
        Ok(Seq {
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Self::Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq, Self::Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq, Self::Error> {
        let mut s = self.serialize_seq(Some(len))?;
        s.variant = Some(variant);
        Ok(s)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Map, Self::Error> {
        Ok(Map {
            pairs: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Map, Self::Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Map, Self::Error> {
        let mut m = self.serialize_map(Some(len))?;
        m.variant = Some(variant);
        Ok(m)
    }
}

struct Seq {
    items: Vec<Value>,
    variant: Option<&'static str>,
}

impl Seq {
    fn done(self) -> Value {
        let a = Value::Array(self.items.into_boxed_slice());
        match self.variant {
            Some(v) => tagged(v, a),
            None => a,
        }
    }
}

impl ser::SerializeSeq for Seq {
    type Ok = Value;
    type Error = serde_json::Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Self::Error> {
        self.items.push(v.serialize(Build)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Self::Error> {
        Ok(self.done())
    }
}

/// The tuple forms are sequences: each element pushed as `SerializeSeq` does.
macro_rules! seq_like {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Seq {
            type Ok = Value;
            type Error = serde_json::Error;
            fn $method<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Self::Error> {
                ser::SerializeSeq::serialize_element(self, v)
            }
            fn end(self) -> Result<Value, Self::Error> {
                Ok(self.done())
            }
        }
    )*};
}

seq_like!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

struct Map {
    pairs: Vec<(Box<str>, Value)>,
    key: Option<Box<str>>,
    variant: Option<&'static str>,
}

impl Map {
    fn done(self) -> Value {
        let o = object(self.pairs);
        match self.variant {
            Some(v) => tagged(v, o),
            None => o,
        }
    }
}

impl ser::SerializeMap for Map {
    type Ok = Value;
    type Error = serde_json::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Self::Error> {
        // A key as serde_json words it: a string, or a number, bool or char as its text.
        let key = match k.serialize(Build)? {
            Value::String(s) => s,
            Value::Number(n) => n.to_string().into(),
            Value::Bool(b) => b.to_string().into(),
            _ => return Err(ser::Error::custom("key must be a string")),
        };
        self.key = Some(key);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Self::Error> {
        let k = self
            .key
            .take()
            .ok_or_else(|| <serde_json::Error as ser::Error>::custom("a value without a key"))?;
        self.pairs.push((k, v.serialize(Build)?));
        Ok(())
    }
    fn end(self) -> Result<Value, Self::Error> {
        Ok(self.done())
    }
}

impl ser::SerializeStruct for Map {
    type Ok = Value;
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Self::Error> {
        self.pairs.push((key.into(), v.serialize(Build)?));
        Ok(())
    }
    fn end(self) -> Result<Value, Self::Error> {
        Ok(self.done())
    }
}

impl ser::SerializeStructVariant for Map {
    type Ok = Value;
    type Error = serde_json::Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Self::Error> {
        ser::SerializeStruct::serialize_field(self, key, v)
    }
    fn end(self) -> Result<Value, Self::Error> {
        Ok(self.done())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    enum E {
        Unit,
        New(u8),
        Tuple(i32, String),
        Struct { z: f64, a: Option<bool> },
    }

    #[derive(Serialize)]
    struct S<'a> {
        z: &'a str,
        line: u32,
        neg: i64,
        big: u128,
        f: f32,
        nan: f64,
        unit: (),
        c: char,
        bytes: &'a [u8],
        list: Vec<E>,
        nested: BTreeMap<u16, Vec<Option<&'a str>>>,
        text: String,
    }

    /// Whatever the shape, the same value as converting through `serde_json::Value`.
    #[test]
    fn builds_what_the_serde_json_tree_converts_to() {
        let s = S {
            z: "last",
            line: 6,
            neg: -4,
            big: 1 << 70,
            f: 0.1,
            nan: f64::NAN,
            unit: (),
            c: 'é',
            bytes: b"ab",
            list: vec![
                E::Unit,
                E::New(3),
                E::Tuple(-1, "x".into()),
                E::Struct {
                    z: 2.5e300,
                    a: None,
                },
            ],
            nested: [(10, vec![Some("a"), None]), (2, vec![])]
                .into_iter()
                .collect(),
            text: "\u{1b}]52;c;AAAA\u{7}".into(),
        };
        let via_tree = serde_json::to_value(&s).map(Value::from).ok();
        assert_eq!(to_value(&s).ok(), via_tree);
        // A key given twice keeps its last value, in key order, as serde_json's map does.
        let pairs: Vec<(&str, i32)> = vec![("b", 1), ("a", 2), ("b", 3)];
        struct Twice<'a>(&'a [(&'a str, i32)]);
        impl Serialize for Twice<'_> {
            fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        assert_eq!(
            to_value(&Twice(&pairs)).ok(),
            serde_json::to_value(Twice(&pairs)).map(Value::from).ok()
        );
    }
}
