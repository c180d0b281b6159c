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
