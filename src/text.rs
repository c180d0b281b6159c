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
pub fn mac(s: &str) -> Option<String> {
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
}
