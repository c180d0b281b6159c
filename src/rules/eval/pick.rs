//! One field of a serialized object, as JSON, without serializing the others: what
//! `serde_json::to_value(x)?[name]` gives, for a struct or a map, at the cost of that field
//! alone. A finding's source lookup (`source_of`) needs one field of a device, not the device.
//!
//! `Pick(name)` is a serializer whose output is `Some(value)` when the object serialized into
//! it is a struct or map holding `name`, `None` when it holds no such key, and an error for
//! anything else (a sequence, a scalar). `Option`s and newtypes are looked through, as
//! `serde_json` does.

use serde::ser::{self, Impossible, Serialize};
use serde_json::{Error, Value};

/// The serializer: picks the field `.0`.
pub struct Pick<'a>(pub &'a str);

fn not_an_object() -> Error {
    ser::Error::custom("not a struct or a map")
}

/// A struct's fields: the one named is converted, the others are passed over unserialized.
pub struct Fields<'a> {
    name: &'a str,
    found: Option<Value>,
}

/// A map's entries: a key equal to the name (as JSON turns it into a string) marks its value.
pub struct Entries<'a> {
    name: &'a str,
    found: Option<Value>,
    take_next: bool,
}

impl<'a> ser::Serializer for Pick<'a> {
    type Ok = Option<Value>;
    type Error = Error;
    type SerializeSeq = Impossible<Option<Value>, Error>;
    type SerializeTuple = Impossible<Option<Value>, Error>;
    type SerializeTupleStruct = Impossible<Option<Value>, Error>;
    type SerializeTupleVariant = Impossible<Option<Value>, Error>;
    type SerializeMap = Entries<'a>;
    type SerializeStruct = Fields<'a>;
    type SerializeStructVariant = Impossible<Option<Value>, Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'a>, Error> {
        Ok(Fields {
            name: self.0,
            found: None,
        })
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Entries<'a>, Error> {
        Ok(Entries {
            name: self.0,
            found: None,
            take_next: false,
        })
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Option<Value>, Error> {
        v.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Option<Value>, Error> {
        v.serialize(self)
    }

    fn serialize_none(self) -> Result<Option<Value>, Error> {
        Ok(None)
    }

    fn serialize_unit(self) -> Result<Option<Value>, Error> {
        Ok(None)
    }

    fn serialize_bool(self, _: bool) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_i8(self, _: i8) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_i16(self, _: i16) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_i32(self, _: i32) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_i64(self, _: i64) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_u8(self, _: u8) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_u16(self, _: u16) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_u32(self, _: u32) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_u64(self, _: u64) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_f32(self, _: f32) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_f64(self, _: f64) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_char(self, _: char) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_str(self, _: &str) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Option<Value>, Error> {
        Err(not_an_object())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_an_object())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_an_object())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_an_object())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_an_object())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_an_object())
    }
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = Option<Value>;
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        // A later field of the same name replaces an earlier one, as in a JSON object.
        if key == self.name {
            self.found = Some(serde_json::to_value(value)?);
        }
        Ok(())
    }

    fn end(self) -> Result<Option<Value>, Error> {
        Ok(self.found)
    }
}

impl ser::SerializeMap for Entries<'_> {
    type Ok = Option<Value>;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.take_next = match serde_json::to_value(key)? {
            Value::String(k) => k == self.name,
            _ => false,
        };
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if std::mem::take(&mut self.take_next) {
            self.found = Some(serde_json::to_value(value)?);
        }
        Ok(())
    }

    fn end(self) -> Result<Option<Value>, Error> {
        Ok(self.found)
    }
}

#[cfg(test)]
mod tests {
    use super::Pick;
    use serde::Serialize;
    use std::collections::BTreeMap;

    /// A field that fails to serialize: picking another field must not touch it.
    struct Poison;
    impl Serialize for Poison {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("serialized although not picked"))
        }
    }

    #[derive(Serialize)]
    struct Inner {
        value: u32,
        file: &'static str,
    }

    #[derive(Serialize)]
    struct Outer {
        name: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        absent: Option<u32>,
        inner: Inner,
        list: Vec<u32>,
        poison: Poison,
    }

    fn outer() -> Outer {
        Outer {
            name: "sw1",
            absent: None,
            inner: Inner {
                value: 9216,
                file: "configs/sw1.cfg",
            },
            list: vec![1, 2],
            poison: Poison,
        }
    }

    #[test]
    fn a_field_is_what_the_whole_object_holds_under_its_name() {
        let o = outer();
        assert_eq!(
            o.serialize(Pick("inner")).unwrap(),
            Some(serde_json::json!({"value": 9216, "file": "configs/sw1.cfg"}))
        );
        assert_eq!(
            o.serialize(Pick("list")).unwrap(),
            Some(serde_json::json!([1, 2]))
        );
        assert_eq!(
            o.serialize(Pick("name")).unwrap(),
            Some(serde_json::json!("sw1"))
        );
        // Skipped or unknown: no such key, as `to_value(o).get(name)` is None.
        assert_eq!(o.serialize(Pick("absent")).unwrap(), None);
        assert_eq!(o.serialize(Pick("nothing")).unwrap(), None);
        // Only the field picked is serialized.
        assert!(o.serialize(Pick("poison")).is_err());
    }

    #[test]
    fn maps_options_and_newtypes_are_looked_through() {
        let mut m = BTreeMap::new();
        m.insert("a", 1);
        m.insert("b", 2);
        assert_eq!(
            Some(&m).serialize(Pick("b")).unwrap(),
            Some(serde_json::json!(2))
        );
        assert_eq!(m.serialize(Pick("c")).unwrap(), None);
        assert!(vec![1].serialize(Pick("a")).is_err());
        assert!(5u32.serialize(Pick("a")).is_err());
    }
}
