//! Small readers shared by the platform modules: number lists, units, speeds; the value-with-
//! its-line type of the vendor structures ([`At`]) and the rule by which an operational output
//! completes the config ([`fill`]).

use crate::model::{Field, Src};

/// A value of a vendor structure with the line that stated it.
#[derive(Debug, Clone)]
pub struct At<T> {
    pub v: T,
    pub src: Src,
}

/// `Some(At { v, src })`.
pub fn at<T>(v: T, src: &Src) -> Option<At<T>> {
    Some(At {
        v,
        src: src.clone(),
    })
}

/// Set `f` from an operational output unless the config stated it (a platform default or an
/// unknown is replaced, a stated value is kept).
pub fn fill<T>(f: &mut Field<T>, v: Field<T>) {
    if v.is_some() && f.as_ref().is_none_or(|s| s.default) {
        *f = v;
    }
}

/// The model kind of an interface name from a platform's families (name prefix, kind), the
/// first that matches; `other` when none does.
pub fn kind_by_prefix(name: &str, families: &[(&str, &'static str)]) -> &'static str {
    families
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map_or("other", |(_, kind)| kind)
}

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
///
/// Read as the text with its spaces taken out and lowercased: the number (digits and dots)
/// at its start, then the unit its next character names. Read in place: every port of a
/// `show interface` snapshot goes through here, and building the lowercased copies cost
/// more than a thousand instructions a port (`speed_read_in_place_as_from_a_copy`).
pub fn speed_gbps(s: &str) -> Option<f64> {
    let mut num = [0u8; 24];
    let mut len = 0;
    let mut unit = None;
    for c in s.trim().chars() {
        if c == ' ' {
            continue;
        }
        if c.is_ascii_digit() || c == '.' {
            // A number too long for the buffer is read the long way.
            let Some(slot) = num.get_mut(len) else {
                return speed_gbps_copied(s);
            };
            *slot = c as u8;
            len += 1;
        } else {
            unit = Some(c.to_ascii_lowercase());
            break;
        }
    }
    let digits = &num[..len];
    // Up to 15 digits are an integer an f64 holds exactly, as `parse` would give it.
    let v: f64 = if !digits.is_empty() && len <= 15 && digits.iter().all(u8::is_ascii_digit) {
        digits
            .iter()
            .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0')) as f64
    } else {
        std::str::from_utf8(digits).ok()?.parse().ok()?
    };
    speed_in_unit(v, unit)
}

/// A value in the unit its next character names: `g`, `m`, `k`, or none (Mb/s).
fn speed_in_unit(v: f64, unit: Option<char>) -> Option<f64> {
    match unit {
        Some('g') => Some(v),
        Some('m') => Some(v / 1000.0),
        Some('k') => Some(v / 1_000_000.0),
        // bare numbers are Mb/s on most platforms (NX-OS `speed 100000`)
        None => Some(v / 1000.0),
        Some(_) => None,
    }
}

/// [`speed_gbps`] from a lowercased copy without spaces (for a number longer than 24
/// characters, and the tests' reference).
fn speed_gbps_copied(s: &str) -> Option<f64> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let digits: String = t
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let v: f64 = digits.parse().ok()?;
    speed_in_unit(v, t[digits.len()..].chars().next())
}

/// A full 64-entry DSCP → TC map where DSCP d maps to d >> 3 (the common default).
pub fn dscp_div8() -> Vec<u8> {
    (0..64u8).map(|d| d >> 3).collect()
}

/// Most names one `interface` range line may stand for (a larger count is not expanded).
pub const MAX_RANGE: usize = 4096;

/// The range budget of the device being built (`platform::build` starts it).
#[derive(Clone, Copy)]
struct RangeBudget {
    /// The ports the device keeps ([`port_limit`]).
    ports: usize,
    /// Port names its range lines have stood for so far.
    used: usize,
    /// The most they may stand for ([`start_range_budget`]).
    limit: usize,
}

thread_local! {
    static RANGE_BUDGET: std::cell::Cell<RangeBudget> = const {
        std::cell::Cell::new(RangeBudget {
            ports: crate::model::MAX_INTERFACES,
            used: 0,
            limit: crate::model::MAX_INTERFACES,
        })
    };
}

/// Port names a device's range lines may stand for, per port it keeps: a real configuration
/// names the same ports by one range on many lines (Onyx writes `interface ethernet 1/1-1/32
/// ...` once per setting: 20 lines, 640 names, 32 ports), and each line is counted, because
/// each costs its reader a copy per name (EOS copies the block for every port of the range).
pub const RANGE_NAMES_PER_PORT: usize = 16;

/// A device's files start being read (`platform::build`); it keeps at most `ports` ports. Its
/// range lines may name [`RANGE_NAMES_PER_PORT`] times that between them, at most
/// [`crate::model::MAX_INTERFACES`]. Each range line is bounded, but a file of such lines was
/// not: 14 KB of `interface Ethernet2-4094` blocks made 8,000 copies of a port's settings
/// (55 MB; found by the EOS fuzz target, issue 19). Counting a range repeated on many lines
/// once instead let 26 KB of one repeated `interface Ethernet5/1-611` block make 7,300 copies
/// (13.8 MB; the EOS fuzz target again), so every line counts.
pub fn start_range_budget(ports: usize) {
    RANGE_BUDGET.with(|b| {
        b.set(RangeBudget {
            ports,
            used: 0,
            limit: ports
                .saturating_mul(RANGE_NAMES_PER_PORT)
                .min(crate::model::MAX_INTERFACES),
        })
    });
}

/// The ports the device being built keeps ([`crate::model::Device::port_limit`]), for a
/// reader's own table of ports: one kept beyond it would never reach the device.
pub fn port_limit() -> usize {
    RANGE_BUDGET.with(|b| b.get().ports)
}

/// Count the port names the range from `a` to `b` stands for. An error, and nothing counted, once the device's
/// range lines would name more than their budget. The caller reports the line as not
/// expanded, with this reason.
pub fn spend_range(a: u32, b: u32) -> Result<(), String> {
    let n = (b.saturating_sub(a) as usize).saturating_add(1);
    RANGE_BUDGET.with(|cell| {
        let budget = cell.get();
        let used = budget.used.saturating_add(n);
        if used > budget.limit {
            return Err(format!(
                "the interface ranges of this device's files name more than {} ports between them ({} for each port it keeps for files of their size): not expanded",
                budget.limit, RANGE_NAMES_PER_PORT
            ));
        }
        cell.set(RangeBudget { used, ..budget });
        Ok(())
    })
}

/// Expand an interface list as NX-OS and EOS write it after `interface`: `Ethernet1/1`,
/// `Ethernet1/1-4`, `Ethernet 1/17-1/32` (the end repeats the stem), `Ethernet1-4`,
/// `Ethernet3/1-3/4`, `Ethernet1/1-4, Ethernet1/10`, `ethernet 1/1/1 - 2` and `Ethernet1/1,1/3`
/// (an item without a name keeps the previous one). Each name goes through `canon`. Only the
/// last number of a name varies; a range whose ends differ before it (`Ethernet1/1-4/1`, which
/// covers every port between whatever the hardware has) cannot be expanded from the text, and
/// is an error that says why, as is anything else that is not such a list.
pub fn expand_if_list(spec: &str, canon: impl Fn(&str) -> String) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut family = String::new();
    for item in spec.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let Some(digits_at) = item.find(|c: char| c.is_ascii_digit()) else {
            return Err(format!("{item:?} has no interface number"));
        };
        let (word, nums) = item.split_at(digits_at);
        let word = word.trim();
        if !word.is_empty() {
            if !word.chars().all(|c| c.is_ascii_alphabetic() || c == '-') {
                return Err(format!("{word:?} is not an interface type"));
            }
            family = word.to_string();
        } else if family.is_empty() {
            return Err(format!("{item:?} has no interface type"));
        }
        let nums: String = nums.chars().filter(|c| !c.is_whitespace()).collect();
        let is_path = |s: &str| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_digit() || c == '/' || c == '.')
                && s.split(['/', '.']).all(|p| !p.is_empty())
        };
        let (first, last) = match nums.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (nums.as_str(), None),
        };
        if !is_path(first) || last.is_some_and(|l| !is_path(l)) {
            return Err(format!(
                "{item:?} is not a number, a name or a range of them"
            ));
        }
        let Some(last) = last else {
            out.push(canon(&format!("{family}{first}")));
            continue;
        };
        let split = |s: &str| match s.rfind(['/', '.']) {
            Some(p) => (s[..=p].to_string(), s[p + 1..].to_string()),
            None => (String::new(), s.to_string()),
        };
        let (stem, a) = split(first);
        let (last_stem, b) = split(last);
        if !last_stem.is_empty() && last_stem != stem {
            return Err(format!(
                "range {first}-{last} spans more than its last number: the ports between depend on the hardware"
            ));
        }
        let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) else {
            return Err(format!("{item:?}: range bounds are not numbers"));
        };
        if a > b {
            return Err(format!("range {first}-{last} runs backwards"));
        }
        if (b - a) as usize >= MAX_RANGE || out.len() + (b - a) as usize >= MAX_RANGE {
            return Err(format!(
                "range {first}-{last} is longer than {MAX_RANGE} interfaces"
            ));
        }
        spend_range(a, b)?;
        for n in a..=b {
            out.push(canon(&format!("{family}{stem}{n}")));
        }
    }
    if out.is_empty() {
        return Err("no interface named".into());
    }
    Ok(out)
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

    #[test]
    fn speed_read_in_place_as_from_a_copy() {
        let long = format!("{}G", "9".repeat(30));
        let cases = [
            "100G",
            "100000",
            "100 Gb/s",
            "100000Mb/s",
            "10 Gbps",
            "400g",
            "auto",
            "25 Gb/s",
            "1000 Mb/s",
            "10 Kb/s",
            "1 0 0 G",
            " 40G ",
            "\u{2003}40G",
            "2.5G",
            "2.5.1G",
            ".",
            "..G",
            "",
            " ",
            "G",
            "100x",
            "100\u{e9}",
            "1e3G",
            "-100G",
            "+100G",
            "0",
            "007G",
            "999999999999999",
            "9999999999999999",
            "99999999999999999999G",
            "1234567.891011M",
            "100\tG",
            "100\u{212A}",
            "100Kb/s",
            "1.G",
            ".5G",
            &long,
        ];
        for s in cases {
            let (a, b) = (speed_gbps(s), speed_gbps_copied(s));
            assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{s:?}");
        }
    }
    #[test]
    fn interface_lists() {
        let id = |s: &str| s.replace(' ', "");
        let ok = |s: &str| expand_if_list(s, id).unwrap();
        assert_eq!(ok("Ethernet1/1"), vec!["Ethernet1/1"]);
        assert_eq!(
            ok("Ethernet 1/17-1/19"),
            vec!["Ethernet1/17", "Ethernet1/18", "Ethernet1/19"]
        );
        assert_eq!(
            ok("Ethernet1-3"),
            vec!["Ethernet1", "Ethernet2", "Ethernet3"]
        );
        assert_eq!(ok("Ethernet3/1-3/2"), vec!["Ethernet3/1", "Ethernet3/2"]);
        assert_eq!(
            ok("Ethernet1/1-2, Ethernet1/10"),
            vec!["Ethernet1/1", "Ethernet1/2", "Ethernet1/10"]
        );
        assert_eq!(ok("Ethernet1/1,1/3"), vec!["Ethernet1/1", "Ethernet1/3"]);
        assert_eq!(
            ok("ethernet 1/1/1 - 2"),
            vec!["ethernet1/1/1", "ethernet1/1/2"]
        );
        assert_eq!(
            ok("Ethernet1/1.10-11"),
            vec!["Ethernet1/1.10", "Ethernet1/1.11"]
        );
        for bad in [
            "Ethernet1/1-4/1",
            "Ethernet1/9-2",
            "Ethernet1/1-999999",
            "",
            "1/1",
            "Ethernet1/x",
            "Ethernet1//2",
            "loopbackloopback0x-",
        ] {
            assert!(expand_if_list(bad, id).is_err(), "{bad}");
        }
    }
}
