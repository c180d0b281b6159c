//! The file name a fact cites, interned: four bytes in every fact instead of a shared string.
//!
//! Every known value of the model carries its source (`Src`: file and line). With the file as a
//! shared string (`Arc<str>`, 16 bytes) the source was 24 bytes and a known number 40; a port
//! has over a hundred such fields (eight queues, eight priority groups), so sources were the
//! largest part of a large fabric's model. A file name is now a number into one process-wide
//! table of names, each stored once for the life of the process (a snapshot has a few files per
//! device; the names are what the reports print anyway). It reads, compares, orders, hashes,
//! prints and serializes as the name itself.

use serde::{Serialize, Serializer};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::num::NonZeroU32;
use std::ops::Deref;
use std::sync::{Arc, LazyLock, RwLock};

/// A file name of the snapshot (see the module doc).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileName(NonZeroU32);

#[derive(Default)]
struct Table {
    names: Vec<&'static str>,
    ids: HashMap<&'static str, NonZeroU32>,
}

static TABLE: LazyLock<RwLock<Table>> = LazyLock::new(Default::default);

thread_local! {
    /// The last name this thread interned, kept alive so its allocation is not reused: a
    /// platform reader makes thousands of sources from one file's shared name.
    static LAST: RefCell<Option<(Arc<str>, FileName)>> = const { RefCell::new(None) };
}

impl FileName {
    /// Not a file: the mark of [`super::Src::port_line`] (no interned name has this id).
    pub const PORT_LINE: FileName = FileName(NonZeroU32::MAX);

    /// The interned name `name`.
    pub fn of(name: &Arc<str>) -> FileName {
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            if let Some((a, id)) = last.as_ref()
                && Arc::ptr_eq(a, name)
            {
                return *id;
            }
            let id = FileName::intern(name);
            *last = Some((name.clone(), id));
            id
        })
    }

    /// The interned name `name` (a lookup in the table; [`FileName::of`] is cheaper in loops).
    pub fn intern(name: &str) -> FileName {
        if let Some(&id) = TABLE
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .ids
            .get(name)
        {
            return FileName(id);
        }
        let mut t = TABLE.write().unwrap_or_else(|p| p.into_inner());
        if let Some(&id) = t.ids.get(name) {
            return FileName(id);
        }
        let stored: &'static str = Box::leak(name.to_string().into_boxed_str());
        t.names.push(stored);
        // Ids start at 1 (so an absent source costs no space) and stop below u32::MAX
        // (`PORT_LINE`); more distinct names than that cannot be held in memory anyway.
        let n = u32::try_from(t.names.len()).map_or(u32::MAX - 1, |n| n.min(u32::MAX - 1));
        let id = NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        t.ids.insert(stored, id);
        FileName(id)
    }

    pub fn as_str(&self) -> &'static str {
        let t = TABLE.read().unwrap_or_else(|p| p.into_inner());
        t.names
            .get(self.0.get() as usize - 1)
            .copied()
            .unwrap_or("")
    }
}

impl Deref for FileName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for FileName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<std::path::Path> for FileName {
    fn as_ref(&self) -> &std::path::Path {
        std::path::Path::new(self.as_str())
    }
}

impl PartialOrd for FileName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By name, as the sources were ordered when they held the name.
impl Ord for FileName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        if self.0 == other.0 {
            return std::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialEq<Arc<str>> for FileName {
    fn eq(&self, other: &Arc<str>) -> bool {
        self.as_str() == &**other
    }
}

impl PartialEq<FileName> for Arc<str> {
    fn eq(&self, other: &FileName) -> bool {
        &**self == other.as_str()
    }
}

impl PartialEq<str> for FileName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl fmt::Display for FileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for FileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for FileName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_compares_and_orders_as_the_name() {
        let a: Arc<str> = Arc::from("configs/leaf2.cfg");
        let b: Arc<str> = Arc::from("configs/leaf10.cfg");
        let fa = FileName::of(&a);
        let fb = FileName::of(&b);
        assert_eq!(FileName::of(&Arc::from("configs/leaf2.cfg")), fa);
        assert_eq!(FileName::intern("configs/leaf2.cfg"), fa);
        assert_eq!(&*fa, "configs/leaf2.cfg");
        assert_eq!(fa.to_string(), "configs/leaf2.cfg");
        assert_eq!(format!("{fa:?}"), "\"configs/leaf2.cfg\"");
        // Both directions of the comparison with the name (two impls).
        assert!(fa == a);
        assert!(a == fa);
        assert!(fa != b);
        assert_eq!(fa.cmp(&fb), "configs/leaf2.cfg".cmp("configs/leaf10.cfg"));
        assert_eq!(
            serde_json::to_string(&fb).unwrap_or_default(),
            "\"configs/leaf10.cfg\""
        );
        assert_eq!(std::mem::size_of::<Option<crate::model::Src>>(), 8);
    }
}
