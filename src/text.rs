//! Text helpers shared by every layer: ordering names the way people read them.

/// Compare names so that Ethernet1/2 < Ethernet1/10 (digit runs compare as numbers).
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let da = trim_zeros(&a[si..i]);
            let db = trim_zeros(&b[sj..j]);
            let o = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
            if o != Ordering::Equal {
                return o;
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let k = d.iter().position(|&c| c != b'0').unwrap_or(d.len());
    &d[k..]
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;
    use std::cmp::Ordering::*;

    #[test]
    fn natural_order() {
        assert_eq!(natural_cmp("Ethernet1/2", "Ethernet1/10"), Less);
        assert_eq!(natural_cmp("Ethernet1/10", "Ethernet1/2"), Greater);
        assert_eq!(natural_cmp("eth2", "eth2"), Equal);
        assert_eq!(natural_cmp("gpu01", "gpu1"), Equal);
        assert_eq!(natural_cmp("leaf", "leaf1"), Less);
        assert_eq!(natural_cmp("a", "B"), Greater);
        assert_eq!(natural_cmp("", "x"), Less);
    }
}

/// A 48-bit MAC address in any of the forms devices print (`0c:42:a1:b2:c3:d4`,
/// `0C-42-A1-B2-C3-D4`, `0c42.a1b2.c3d4`, `0c42a1b2c3d4`), as lowercase colon-separated text;
/// None for anything else and for the all-zero address (loopback, tunnels).
///
/// Read byte by byte into a fixed buffer: a `show interface` snapshot normalises one MAC per
/// port (52,000 in the 1,000-device benchmark), and splitting and joining strings cost about
/// 3,000 instructions each. A separator byte in a digit position fails the hex test, so each
/// form is exactly its layout (`mac_matches_the_split_and_join_reading` checks this).
pub fn mac(s: &str) -> Option<String> {
    let b = s.trim().as_bytes();
    // Which byte positions hold a separator, and which separator.
    let (sep, is_sep): (u8, fn(usize) -> bool) = match b.len() {
        17 => {
            let sep = *b.get(2)?;
            if sep != b':' && sep != b'-' {
                return None;
            }
            (sep, |i| i % 3 == 2)
        }
        14 => (b'.', |i| i == 4 || i == 9),
        12 => (0, |_| false),
        _ => return None,
    };
    let mut hex = [0u8; 12];
    let mut n = 0;
    for (i, &c) in b.iter().enumerate() {
        if is_sep(i) {
            if c != sep {
                return None;
            }
        } else {
            if !c.is_ascii_hexdigit() {
                return None;
            }
            // 12 digit positions in each layout.
            *hex.get_mut(n)? = c.to_ascii_lowercase();
            n += 1;
        }
    }
    if hex.iter().all(|&c| c == b'0') {
        return None;
    }
    let mut out = String::with_capacity(17);
    for (k, pair) in hex.chunks(2).enumerate() {
        if k > 0 {
            out.push(':');
        }
        out.push(char::from(pair[0]));
        out.push(char::from(pair[1]));
    }
    Some(out)
}

#[cfg(test)]
mod mac_tests {
    use super::mac;

    #[test]
    fn mac_forms() {
        let want = Some("0c:42:a1:b2:c3:d4".to_string());
        assert_eq!(mac("0c:42:a1:b2:c3:d4"), want);
        assert_eq!(mac("0C-42-A1-B2-C3-D4"), want);
        assert_eq!(mac("0c42.a1b2.c3d4"), want);
        assert_eq!(mac("0c42a1b2c3d4"), want);
        assert_eq!(mac("00:00:00:00:00:00"), None);
        assert_eq!(mac("Ethernet1/1"), None);
        assert_eq!(mac("eth2"), None);
        assert_eq!(mac("0c:42:a1:b2:c3"), None);
        assert_eq!(mac("0c:42:a1:b2:c3:zz"), None);
        assert_eq!(mac("Ethernet1/12"), None);
    }

    /// The reading before it was done byte by byte, kept to compare with.
    fn split_and_join(s: &str) -> Option<String> {
        let s = s.trim();
        let hex: String = match s.len() {
            17 => {
                let sep = s.as_bytes().get(2).copied()?;
                if sep != b':' && sep != b'-' {
                    return None;
                }
                let parts: Vec<&str> = s.split(sep as char).collect();
                if parts.len() != 6 || parts.iter().any(|p| p.len() != 2) {
                    return None;
                }
                parts.concat()
            }
            14 => {
                let parts: Vec<&str> = s.split('.').collect();
                if parts.len() != 3 || parts.iter().any(|p| p.len() != 4) {
                    return None;
                }
                parts.concat()
            }
            12 => s.to_string(),
            _ => return None,
        };
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) || hex.bytes().all(|b| b == b'0') {
            return None;
        }
        let hex = hex.to_ascii_lowercase();
        let pairs: Vec<&str> = (0..6).filter_map(|k| hex.get(2 * k..2 * k + 2)).collect();
        Some(pairs.join(":"))
    }

    #[test]
    fn mac_matches_the_split_and_join_reading() {
        let mut inputs: Vec<String> = [
            "0c:42:a1:b2:c3:d4",
            "0C-42-A1-B2-C3-D4",
            "0c42.a1b2.c3d4",
            "0c42a1b2c3d4",
            " 0c42.A1B2.c3d4\t",
            "0c:42-a1:b2:c3:d4",
            "0c:42:a1:b2:c3:d:",
            "0c::2:a1:b2:c3:d4",
            "0c.42.a1.b2.c3.d4",
            "0c42.a1b2.c3d4.",
            "0c42..1b2.c3d4",
            ".c42.a1b2.c3d4",
            "0c42:a1b2:c3d4",
            "000000000000",
            "0000.0000.0000",
            "00-00-00-00-00-00",
            "0c42a1b2c3dg",
            "0c42a1b2c3\u{e9}",
            "0c:42:a1:b2:c3\u{e9}",
            "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}",
            "\u{2003}0c42a1b2c3d4\u{2003}",
            "",
            ":",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every byte in every position of each layout.
        for base in ["0c:42:a1:b2:c3:d4", "0c42.a1b2.c3d4", "0c42a1b2c3d4"] {
            for i in 0..base.len() {
                for c in [b'0', b'9', b'a', b'F', b'g', b':', b'-', b'.', b' ', b'x'] {
                    let mut b = base.as_bytes().to_vec();
                    b[i] = c;
                    inputs.extend(String::from_utf8(b).ok());
                }
            }
        }
        for s in &inputs {
            assert_eq!(mac(s), split_and_join(s), "{s:?}");
        }
    }
}
