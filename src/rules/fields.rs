//! One field of a serializable struct, as the rules see it, without serializing the others.
//!
//! Rules read a handful of fields of each interface (`i.roce`, `i.mtu`); converting the whole
//! model into minijinja values up front cost more memory than the model itself. These helpers
//! run the struct's own `Serialize` impl (so field names, `skip_serializing_if` and the
//! plain-value form of `Sourced` are exactly what a full conversion gives) and convert only the
//! field asked for, or only list the field names.

use minijinja::value::{Serde, Value};
use serde::Serialize;
use serde::ser::{self, Impossible, SerializeStruct, Serializer};
use std::fmt;

/// Why the walk stopped: the value is not a struct, or the wanted field was found.
#[derive(Debug)]
enum Stop {
    NotAStruct,
    Found,
    Custom(String),
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::NotAStruct => f.write_str("not a struct"),
            Stop::Found => f.write_str("found"),
            Stop::Custom(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Stop::Custom(msg.to_string())
    }
}

/// The value of field `key` of struct `v` as a full conversion would give it, with the field's
/// name as the struct spells it (`'static`); `None` when the struct has no such field or skips
/// it (an unknown fact).
pub fn named_field<T: Serialize + ?Sized>(v: &T, key: &str) -> Option<(&'static str, Value)> {
    let mut w = Walk {
        want: Some(key),
        found: None,
        keys: Vec::new(),
    };
    // `Found` ends the walk early; any other outcome leaves `found` as it is.
    let _ = v.serialize(&mut w);
    w.found
}

/// The names of the fields struct `v` serializes (skipped fields left out), in field order.
pub fn keys<T: Serialize + ?Sized>(v: &T) -> Vec<&'static str> {
    let mut w = Walk {
        want: None,
        found: None,
        keys: Vec::new(),
    };
    let _ = v.serialize(&mut w);
    w.keys
}

struct Walk<'k> {
    want: Option<&'k str>,
    found: Option<(&'static str, Value)>,
    keys: Vec<&'static str>,
}

impl SerializeStruct for &mut Walk<'_> {
    type Ok = ();
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        match self.want {
            None => {
                self.keys.push(key);
                Ok(())
            }
            Some(w) if w == key => {
                self.found = Some((key, Value::from(Serde(value))));
                Err(Stop::Found)
            }
            Some(_) => Ok(()),
        }
    }

    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

type No = Impossible<(), Stop>;

impl<'a, 'k> Serializer for &'a mut Walk<'k> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = No;
    type SerializeTuple = No;
    type SerializeTupleStruct = No;
    type SerializeTupleVariant = No;
    type SerializeMap = No;
    type SerializeStruct = &'a mut Walk<'k>;
    type SerializeStructVariant = No;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Stop> {
        Ok(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_i8(self, _: i8) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_i16(self, _: i16) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_i32(self, _: i32) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_i64(self, _: i64) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_u8(self, _: u8) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_u16(self, _: u16) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_u32(self, _: u32) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_u64(self, _: u64) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_f32(self, _: f32) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_f64(self, _: f64) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_char(self, _: char) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_str(self, _: &str) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_none(self) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_unit(self) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<No, Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_tuple(self, _: usize) -> Result<No, Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<No, Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<No, Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<No, Stop> {
        Err(Stop::NotAStruct)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<No, Stop> {
        Err(Stop::NotAStruct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct S {
        a: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        c: Vec<u8>,
    }

    #[test]
    fn one_field_as_a_full_conversion_gives_it() {
        let s = S {
            a: 7,
            b: None,
            c: vec![1, 2],
        };
        let full = Value::from(Serde(&s));
        for k in ["a", "b", "c", "nope"] {
            let got = named_field(&s, k).map(|(_, v)| v);
            let want = full.get_attr(k).ok().filter(|v| !v.is_undefined());
            assert_eq!(got, want, "{k}");
        }
        assert_eq!(keys(&s), vec!["a", "c"]);
        assert_eq!(named_field(&3u8, "a"), None);
        assert!(keys(&3u8).is_empty());
    }
}
