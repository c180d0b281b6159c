//! Small readers shared by the platform modules: number lists, units, speeds.

/// Parse "3", "3,4", "0-7", "1 2 3", "24-31,40" into sorted unique numbers ≤ `max`.
pub fn num_list(s: &str, max: u32) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in s.split([',', ' ', '\t']).filter(|p| !p.is_empty()) {
        if let Some((a, b)) = part.split_once('-') {
            let a: u32 = a.trim().parse().ok()?;
            let b: u32 = b.trim().parse().ok()?;
            if a > b || b > max {
                return None;
            }
            out.extend(a..=b);
        } else {
            let v: u32 = part.trim().parse().ok()?;
            if v > max {
                return None;
            }
            out.push(v);
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// Bytes from a value and a unit word (bytes, kbytes, mbytes, KB, MB, ...). `None` for units
/// that are not byte sizes (percent, segments, cells).
pub fn to_bytes(value: f64, unit: &str) -> Option<u64> {
    let u = unit.trim().to_ascii_lowercase();
    let mult = match u.as_str() {
        "" | "b" | "byte" | "bytes" => 1.0,
        "k" | "kb" | "kbyte" | "kbytes" | "kilobytes" => 1024.0,
        "m" | "mb" | "mbyte" | "mbytes" | "megabytes" => 1024.0 * 1024.0,
        "g" | "gb" | "gbyte" | "gbytes" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let v = value * mult;
    if v.is_finite() && v >= 0.0 {
        Some(v.round() as u64)
    } else {
        None
    }
}

/// Speed in Gb/s from forms like "100G", "100000", "100 Gb/s", "100000Mb/s", "10 Gbps",
/// "400g", "auto" (None).
pub fn speed_gbps(s: &str) -> Option<f64> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let digits: String = t
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let v: f64 = digits.parse().ok()?;
    let rest = &t[digits.len()..];
    let g = if rest.starts_with('g') {
        v
    } else if rest.starts_with('m') {
        v / 1000.0
    } else if rest.starts_with('k') {
        v / 1_000_000.0
    } else if rest.is_empty() {
        // bare numbers are Mb/s on most platforms (NX-OS `speed 100000`)
        v / 1000.0
    } else {
        return None;
    };
    Some(g)
}

/// A full 64-entry DSCP → TC map where DSCP d maps to d >> 3 (the common default).
pub fn dscp_div8() -> Vec<u8> {
    (0..64u8).map(|d| d >> 3).collect()
}

/// Identity map of 8 entries.
pub fn identity8() -> Vec<u8> {
    (0..8u8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn lists() {
        assert_eq!(num_list("3,4", 7), Some(vec![3, 4]));
        assert_eq!(
            num_list("24-31 40", 63),
            Some((24..=31).chain([40]).collect())
        );
        assert_eq!(num_list("9", 7), None);
        assert_eq!(num_list("x", 7), None);
    }
    #[test]
    fn units() {
        assert_eq!(to_bytes(150.0, "kbytes"), Some(153600));
        assert_eq!(to_bytes(3.0, "mbytes"), Some(3145728));
        assert_eq!(to_bytes(100.0, "segments"), None);
        assert_eq!(speed_gbps("100G"), Some(100.0));
        assert_eq!(speed_gbps("100000"), Some(100.0));
        assert_eq!(speed_gbps("25000Mb/s"), Some(25.0));
        assert_eq!(speed_gbps("auto"), None);
    }
}
