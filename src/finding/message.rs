//! A finding's message, held once for every port that draws the same words.
//!
//! A rule that fails on 16,000 ports says the same thing 16,000 times but for the port's name
//! ("PFC is not enabled for lossless priority 3 on Ethernet7 (…)"). Each finding held its
//! own copy of the text, about a hundred bytes: a seventh of the audit's peak (10 of 72 MB)
//! on a config whose every port draws six findings (issue 19: memory within 20 times the
//! input). Here such a message is its *shape*, the text with the port's name taken out,
//! shared by every finding that has it, and the port's name, shared with the finding; the
//! text is put back together when it is read. A message that does not name its port, or that
//! holds the byte the shape marks the name with (NUL, from device text), is kept whole.

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

/// Where a shape had the port's name.
const MARK: char = '\u{0}';

#[derive(Clone)]
enum Repr {
    Whole(Box<str>),
    Shaped { shape: Arc<str>, name: Arc<str> },
}

/// A finding's message (see the module).
#[derive(Clone)]
pub struct Message(Repr);

/// The shapes met so far, to share each one (one per evaluation of a device).
#[derive(Default)]
pub struct Shapes(HashSet<Arc<str>>);

impl Message {
    /// `text`, held as its shape when it names `name` (the finding's interface).
    pub fn shaped(text: String, name: Option<&Arc<str>>, shapes: &mut Shapes) -> Message {
        let Some(name) = name.filter(|n| !n.is_empty() && !n.contains(MARK)) else {
            return Message::from(text);
        };
        if text.contains(MARK) || !text.contains(&**name) {
            return Message::from(text);
        }
        let shape = text.replace(&**name, "\u{0}");
        Message(Repr::Shaped {
            shape: crate::model::sharing::one_copy(&mut shapes.0, shape),
            name: name.clone(),
        })
    }

    /// The text.
    pub fn text(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Whole(t) => Cow::Borrowed(t),
            Repr::Shaped { shape, name } => Cow::Owned(shape.replace(MARK, name)),
        }
    }

    /// The text with every `name` replaced by NUL (how `report::groups` tells the same fault
    /// on two ports apart from two faults): the shape itself when the message was shaped on
    /// `name`.
    pub fn without(&self, name: &str) -> Cow<'_, str> {
        match &self.0 {
            Repr::Shaped { shape, name: n } if **n == *name => Cow::Borrowed(shape),
            _ => Cow::Owned(self.text().replace(name, "\u{0}")),
        }
    }

    pub fn contains(&self, pat: &str) -> bool {
        self.text().contains(pat)
    }
}

impl From<String> for Message {
    fn from(t: String) -> Message {
        Message(Repr::Whole(t.into_boxed_str()))
    }
}

impl From<&str> for Message {
    fn from(t: &str) -> Message {
        Message(Repr::Whole(t.into()))
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Whole(t) => f.write_str(t),
            Repr::Shaped { shape, name } => {
                let mut parts = shape.split(MARK);
                if let Some(p) = parts.next() {
                    f.write_str(p)?;
                }
                for p in parts {
                    f.write_str(name)?;
                    f.write_str(p)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text(), f)
    }
}

impl PartialEq for Message {
    fn eq(&self, other: &Message) -> bool {
        self.text() == other.text()
    }
}

impl PartialEq<str> for Message {
    fn eq(&self, other: &str) -> bool {
        self.text() == other
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, other: &&str) -> bool {
        self.text() == *other
    }
}

impl Eq for Message {}

impl PartialOrd for Message {
    fn partial_cmp(&self, other: &Message) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Message {
    fn cmp(&self, other: &Message) -> std::cmp::Ordering {
        self.text().cmp(&other.text())
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Whole(t) => s.serialize_str(t),
            Repr::Shaped { .. } => s.serialize_str(&self.text()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_naming_its_port_shares_its_shape_and_reads_back_whole() {
        let mut shapes = Shapes::default();
        let e1: Arc<str> = "Ethernet1".into();
        let e2: Arc<str> = "Ethernet2".into();
        let a = Message::shaped(
            "PFC off on Ethernet1 (Ethernet1)".into(),
            Some(&e1),
            &mut shapes,
        );
        let b = Message::shaped(
            "PFC off on Ethernet2 (Ethernet2)".into(),
            Some(&e2),
            &mut shapes,
        );
        assert_eq!(a.text(), "PFC off on Ethernet1 (Ethernet1)");
        assert_eq!(b.to_string(), "PFC off on Ethernet2 (Ethernet2)");
        assert_eq!(shapes.0.len(), 1);
        match (&a.0, &b.0) {
            (Repr::Shaped { shape: x, .. }, Repr::Shaped { shape: y, .. }) => {
                assert!(Arc::ptr_eq(x, y))
            }
            _ => panic!("both should be shaped"),
        }
        assert_eq!(a.without("Ethernet1"), b.without("Ethernet2"));
        assert_eq!(a.without("Ethernet9"), "PFC off on Ethernet1 (Ethernet1)");
        assert_eq!(
            serde_json::to_string(&a).ok().as_deref(),
            Some("\"PFC off on Ethernet1 (Ethernet1)\"")
        );
    }

    #[test]
    fn a_message_holding_the_mark_or_not_naming_the_port_is_kept_whole() {
        let mut shapes = Shapes::default();
        let e1: Arc<str> = "Ethernet1".into();
        for t in ["odd \u{0} on Ethernet1", "nothing about a port", ""] {
            let m = Message::shaped(t.into(), Some(&e1), &mut shapes);
            assert!(matches!(m.0, Repr::Whole(_)), "{t:?}");
            assert_eq!(m.text(), t);
        }
        let empty: Arc<str> = "".into();
        let m = Message::shaped("on ".into(), Some(&empty), &mut shapes);
        assert_eq!(m.text(), "on ");
        assert!(shapes.0.is_empty());
        // A name that holds the mark is never taken out.
        let odd: Arc<str> = "a\u{0}b".into();
        let m = Message::shaped("x a\u{0}b".into(), Some(&odd), &mut shapes);
        assert_eq!(m.text(), "x a\u{0}b");
        let (a, b) = (Message::from("a"), Message::from(String::from("b")));
        assert_eq!(a.cmp(&b), std::cmp::Ordering::Less);
    }
}
