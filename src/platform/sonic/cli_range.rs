//! `interface range` of Enterprise SONiC's `sonic-cli`: which ports a range line configures.
//!
//! The CLI configures "only existing interfaces in range": the management framework's
//! interface actioner (sonic-net/sonic-mgmt-framework, `CLI/actioner/sonic-cli-if.py`,
//! `eth_intf_range_expand` / `check_in_range`) takes the port table's names (`Eth…` or
//! `Ethernet…`) and keeps those whose number falls in one of the comma-separated parts
//! (`Ethernet0-16,20`, `Eth1/1-1/10,1/5/2`), a part's ends in either order; the SONiC
//! auto-negotiation design (sonic-net/SONiC, "SONiC Auto-Negotiation and Link Training",
//! CLI section) shows `interface range Ethernet 0-16` answered with
//! "%Info: Configuring only existing interfaces in range".
//!
//! Standard names (`Eth1/1-1/4`) are numbered port by port, so every name of the range is a
//! port. Native names number ports by their first SerDes lane (`Ethernet0`, `Ethernet4`, …), so
//! which numbers exist is not in the range: the ports that exist are the ones the same
//! configuration (or CONFIG_DB's `PORT` table, when read with it) names. A native range none of
//! whose numbers names a known port is not expanded, and says why.

use std::collections::BTreeSet;

/// Most ports one part of a range may name (a typo such as `Eth1/1-1/10000` stays bounded).
const MAX_PART: u32 = 512;

/// The ports `spec` (the text after `interface range`) configures, given the numbers of the
/// native-named ports known to exist; Err names why it cannot be expanded.
pub(super) fn range_ports(spec: &str, native: &BTreeSet<u32>) -> Result<Vec<String>, String> {
    let spec = spec.trim();
    let lower = spec.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("ethernet") {
        return native_ports(rest, native);
    }
    let Some(rest) = lower.strip_prefix("eth") else {
        return Err("not a range of Ethernet ports".into());
    };
    let mut out = Vec::new();
    for part in rest.split(',') {
        let names = standard_part(part.trim())
            .ok_or_else(|| format!("{:?} is not a range of Eth<slot>/<port> names", part.trim()))?;
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    Ok(out)
}

/// `1/1-1/4`, `1/5-6` or `1/5/2` → the standard names it covers.
fn standard_part(part: &str) -> Option<Vec<String>> {
    let Some((a, b)) = part.split_once('-') else {
        return (part.contains('/') && part.chars().all(|c| c.is_ascii_digit() || c == '/'))
            .then(|| vec![format!("Eth{part}")]);
    };
    let (slot, first) = a.trim().rsplit_once('/')?;
    let last = match b.trim().rsplit_once('/') {
        Some((slot_b, last)) if slot_b == slot => last,
        Some(_) => return None,
        None => b.trim(),
    };
    let (x, y): (u32, u32) = (first.parse().ok()?, last.parse().ok()?);
    let (lo, hi) = (x.min(y), x.max(y));
    if hi - lo >= MAX_PART {
        return None;
    }
    crate::platform::util::spend_range(lo, hi).ok()?;
    Some((lo..=hi).map(|n| format!("Eth{slot}/{n}")).collect())
}

/// ` 0-16,20` (after `Ethernet`) → the known native ports in it, in port order.
fn native_ports(rest: &str, native: &BTreeSet<u32>) -> Result<Vec<String>, String> {
    let mut bounds = Vec::new();
    for part in rest.split(',') {
        let part = part.trim();
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (Ok(x), Ok(y)) = (a.trim().parse::<u32>(), b.trim().parse::<u32>()) else {
            return Err(format!("{part:?} is not a range of port numbers"));
        };
        bounds.push((x.min(y), x.max(y)));
    }
    let ports: Vec<String> = native
        .iter()
        .filter(|n| bounds.iter().any(|(lo, hi)| (lo..=hi).contains(n)))
        .map(|n| format!("Ethernet{n}"))
        .collect();
    if ports.is_empty() {
        return Err(
            "a range of native port names, none of which this configuration names as a port \
             (the CLI configures only the existing ports of a range)"
                .into(),
        );
    }
    Ok(ports)
}

/// The number of a native port name (`Ethernet8` → 8); None for standard names and others.
pub(super) fn native_number(name: &str) -> Option<u32> {
    name.strip_prefix("Ethernet")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(v: &[u32]) -> BTreeSet<u32> {
        v.iter().copied().collect()
    }

    #[test]
    fn standard_name_ranges() {
        let none = known(&[]);
        assert_eq!(
            range_ports("Eth1/1-1/3", &none),
            Ok(vec!["Eth1/1".into(), "Eth1/2".into(), "Eth1/3".into()])
        );
        assert_eq!(range_ports("Eth 1/5-6", &none).map(|v| v.len()), Ok(2));
        assert_eq!(
            range_ports("Eth1/1-1/2,1/5/2", &none),
            Ok(vec!["Eth1/1".into(), "Eth1/2".into(), "Eth1/5/2".into()])
        );
        // ends in either order, as the CLI's check_in_range takes them
        assert_eq!(range_ports("Eth1/4-1/2", &none).map(|v| v.len()), Ok(3));
        assert!(range_ports("Eth1/40-2/4", &none).is_err());
        assert!(range_ports("Eth1/1-1/100000", &none).is_err());
    }

    #[test]
    fn native_ranges_keep_the_existing_ports() {
        let ports = known(&[0, 4, 8, 12, 16, 20, 124, 128]);
        assert_eq!(
            range_ports("Ethernet 0-16", &ports),
            Ok([
                "Ethernet0",
                "Ethernet4",
                "Ethernet8",
                "Ethernet12",
                "Ethernet16"
            ]
            .map(String::from)
            .to_vec())
        );
        assert_eq!(
            range_ports("Ethernet0-4,124", &ports),
            Ok(["Ethernet0", "Ethernet4", "Ethernet124"]
                .map(String::from)
                .to_vec())
        );
        assert_eq!(
            range_ports("ethernet 20-12", &ports).map(|v| v.len()),
            Ok(3)
        );
        assert!(range_ports("Ethernet 200-300", &ports).is_err());
        assert!(range_ports("Ethernet 0-124", &known(&[])).is_err());
        assert!(range_ports("Ethernet a-b", &ports).is_err());
        assert!(range_ports("Vlan 10-20", &ports).is_err());
    }
}
