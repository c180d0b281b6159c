//! A finding's message, held once for every port that draws the same words.
//!
//! A rule that fails on 16,000 ports says the same thing 16,000 times but for the port's name
//! ("PFC is not enabled for lossless priority 3 on Ethernet7 (…)"). Each finding held its
//! own copy of the text, about a hundred bytes: a seventh of the audit's peak (10 of 72 MB)
//! on a config whose every port draws six findings (issue 19: memory within 20 times the
//! input). Here such a message is its *shape* ([`Shape`]), the text with the port's name taken
//! out, held by the finding's shared kind (`finding::Kind`, one for every port that draws the
//! same words); the port's name is the finding's own interface, and the text is put back
//! together when it is read ([`Message`], a view of the two). A message that does not name its
//! port, or that holds the byte the shape marks the name with (NUL, from device text), is kept
//! whole, and shared the same way.

use serde::{Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// Where a shape had the port's name.
const MARK: char = '\u{0}';

/// A message as a finding's kind holds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Shape {
    /// The text as written.
    Whole(Arc<str>),
    /// The text with every occurrence of the finding's interface name replaced by NUL.
    Named(Arc<str>),
}

impl Shape {
    /// `text`, with `name` (the finding's interface) taken out when it names it.
    pub(crate) fn of(text: String, name: Option<&str>) -> Shape {
        match name.filter(|n| !n.is_empty() && !n.contains(MARK)) {
            Some(n) if !text.contains(MARK) && text.contains(n) => {
                Shape::Named(text.replace(n, "\u{0}").into())
            }
            _ => Shape::Whole(text.into()),
        }
    }

    /// The shared text (the shape, or the whole text).
    pub(crate) fn stored(&self) -> &Arc<str> {
        match self {
            Shape::Whole(t) | Shape::Named(t) => t,
        }
    }

    /// The same shape holding `stored` (an equal text shared with other kinds).
    pub(crate) fn with_stored(&self, stored: Arc<str>) -> Shape {
        match self {
            Shape::Whole(_) => Shape::Whole(stored),
            Shape::Named(_) => Shape::Named(stored),
        }
    }
}

/// A finding's message: its kind's shape read with its interface's name (see the module).
#[derive(Clone, Copy)]
pub struct Message<'a> {
    shape: &'a Shape,
    name: &'a str,
}

impl<'a> Message<'a> {
    pub(crate) fn new(shape: &'a Shape, name: Option<&'a str>) -> Message<'a> {
        Message {
            shape,
            name: name.unwrap_or(""),
        }
    }

    /// The text.
    pub fn text(&self) -> Cow<'a, str> {
        match self.shape {
            Shape::Whole(t) => Cow::Borrowed(t),
            Shape::Named(shape) => Cow::Owned(shape.replace(MARK, self.name)),
        }
    }

    /// The text with every `name` replaced by NUL (how `report::groups` tells the same fault
    /// on two ports apart from two faults): the shape itself when the message was shaped on
    /// `name`.
    pub fn without(&self, name: &str) -> Cow<'a, str> {
        match self.shape {
            Shape::Named(shape) if self.name == name => Cow::Borrowed(shape),
            _ => Cow::Owned(self.text().replace(name, "\u{0}")),
        }
    }

    pub fn contains(&self, pat: &str) -> bool {
        self.text().contains(pat)
    }
}

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.shape {
            Shape::Whole(t) => f.write_str(t),
            Shape::Named(shape) => {
                let mut parts = shape.split(MARK);
                if let Some(p) = parts.next() {
                    f.write_str(p)?;
                }
                for p in parts {
                    f.write_str(self.name)?;
                    f.write_str(p)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.text(), f)
    }
}

impl PartialEq for Message<'_> {
    fn eq(&self, other: &Message) -> bool {
        self.text() == other.text()
    }
}

impl PartialEq<str> for Message<'_> {
    fn eq(&self, other: &str) -> bool {
        self.text() == other
    }
}

impl PartialEq<&str> for Message<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.text() == *other
    }
}

impl Eq for Message<'_> {}

impl PartialOrd for Message<'_> {
    fn partial_cmp(&self, other: &Message) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Message<'_> {
    fn cmp(&self, other: &Message) -> std::cmp::Ordering {
        self.text().cmp(&other.text())
    }
}

impl Serialize for Message<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_naming_its_port_is_held_as_its_shape_and_reads_back_whole() {
        let a = Shape::of("PFC off on Ethernet1 (Ethernet1)".into(), Some("Ethernet1"));
        let b = Shape::of("PFC off on Ethernet2 (Ethernet2)".into(), Some("Ethernet2"));
        assert!(matches!(a, Shape::Named(_)));
        assert_eq!(a, b, "two ports drawing the same words share a shape");
        let (ma, mb) = (
            Message::new(&a, Some("Ethernet1")),
            Message::new(&b, Some("Ethernet2")),
        );
        assert_eq!(ma.text(), "PFC off on Ethernet1 (Ethernet1)");
        assert_eq!(mb.to_string(), "PFC off on Ethernet2 (Ethernet2)");
        assert_eq!(ma.without("Ethernet1"), mb.without("Ethernet2"));
        assert_eq!(ma.without("Ethernet9"), "PFC off on Ethernet1 (Ethernet1)");
        assert_eq!(
            serde_json::to_string(&ma).ok().as_deref(),
            Some("\"PFC off on Ethernet1 (Ethernet1)\"")
        );
        assert!(ma < mb);
    }

    #[test]
    fn a_message_holding_the_mark_or_not_naming_the_port_is_kept_whole() {
        for t in ["odd \u{0} on Ethernet1", "nothing about a port", ""] {
            let s = Shape::of(t.into(), Some("Ethernet1"));
            assert!(matches!(s, Shape::Whole(_)), "{t:?}");
            assert_eq!(Message::new(&s, Some("Ethernet1")).text(), t);
        }
        let s = Shape::of("on ".into(), Some(""));
        assert!(matches!(s, Shape::Whole(_)));
        assert_eq!(Message::new(&s, Some("")).text(), "on ");
        let s = Shape::of("on eth1".into(), None);
        assert!(matches!(s, Shape::Whole(_)));
        // A name that holds the mark is never taken out.
        let s = Shape::of("x a\u{0}b".into(), Some("a\u{0}b"));
        assert!(matches!(s, Shape::Whole(_)));
        assert_eq!(Message::new(&s, Some("a\u{0}b")).text(), "x a\u{0}b");
    }
}
