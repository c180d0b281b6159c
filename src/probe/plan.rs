//! The probe plan: which host pairs, on which path class.
//!
//! A host's leaf is the device at the other end of its probe interface: from the model's links
//! (cabling plan or LLDP seen from both sides) or, failing that, from the host's own LLDP
//! neighbor (a switch that is not in the snapshot still names the leaf). The default plan
//! covers every host and every path class with few pairs: within each leaf the hosts are paired
//! in a chain (h1–h2, h3–h4, an odd one out with the first), and every two leaves get one
//! cross-leaf pair.

use crate::model::{Endpoint, Fabric};
use anyhow::{Result, bail};
use std::collections::BTreeMap;
use std::path::Path;

/// A host that takes part in probes.
#[derive(Debug, Clone, PartialEq)]
pub struct HostPort {
    pub host: String,
    pub iface: String,
    /// The switch port the interface is cabled to, when known.
    pub leaf: Option<Endpoint>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub a: HostPort,
    pub b: HostPort,
    /// same-leaf | cross-leaf | unknown
    pub class: String,
}

impl Pair {
    /// Ports along the path from `a` to `b` (spines of a cross-leaf path are not known: ECMP).
    pub fn path(&self, reverse: bool) -> Vec<Endpoint> {
        let (x, y) = if reverse {
            (&self.b, &self.a)
        } else {
            (&self.a, &self.b)
        };
        let mut p = vec![Endpoint {
            device: x.host.clone(),
            interface: x.iface.clone(),
        }];
        p.extend(x.leaf.clone());
        p.extend(y.leaf.clone());
        p.push(Endpoint {
            device: y.host.clone(),
            interface: y.iface.clone(),
        });
        p
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Pairs {
    Default,
    All,
    CrossLeaf,
    File(std::path::PathBuf),
}

impl std::str::FromStr for Pairs {
    type Err = String;
    fn from_str(s: &str) -> Result<Pairs, String> {
        Ok(match s {
            "default" => Pairs::Default,
            "all" => Pairs::All,
            "cross-leaf" => Pairs::CrossLeaf,
            f => Pairs::File(f.into()),
        })
    }
}

/// The switch port a host interface is cabled to.
pub fn leaf_of(fabric: Option<&Fabric>, host: &str, iface: &str) -> Option<Endpoint> {
    let f = fabric?;
    for l in &f.links {
        if l.a.device == host && l.a.interface == iface {
            return Some(l.b.clone());
        }
        if l.b.device == host && l.b.interface == iface {
            return Some(l.a.clone());
        }
    }
    let d = f.devices.iter().find(|d| d.name == host)?;
    let i = d.interfaces.iter().find(|i| i.name == iface)?;
    i.lldp_neighbor.as_ref().map(|n| Endpoint {
        device: n.device.clone(),
        interface: n.port.clone(),
    })
}

fn class(a: &HostPort, b: &HostPort) -> String {
    match (&a.leaf, &b.leaf) {
        (Some(x), Some(y)) if x.device == y.device => "same-leaf",
        (Some(_), Some(_)) => "cross-leaf",
        _ => "unknown",
    }
    .to_string()
}

fn pair(a: &HostPort, b: &HostPort) -> Pair {
    Pair {
        a: a.clone(),
        b: b.clone(),
        class: class(a, b),
    }
}

/// Build the pairs for `hosts` (in inventory order).
pub fn pairs(hosts: &[HostPort], how: &Pairs) -> Result<Vec<Pair>> {
    let mut out = Vec::new();
    match how {
        Pairs::All => {
            for (i, a) in hosts.iter().enumerate() {
                for b in &hosts[i + 1..] {
                    out.push(pair(a, b));
                }
            }
        }
        Pairs::Default | Pairs::CrossLeaf => {
            // Leaves in order of first appearance; hosts without a known leaf form one group.
            let mut groups: Vec<(Option<String>, Vec<&HostPort>)> = Vec::new();
            for h in hosts {
                let key = h.leaf.as_ref().map(|l| l.device.clone());
                match groups.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push(h),
                    None => groups.push((key, vec![h])),
                }
            }
            if *how == Pairs::Default {
                for (_, g) in &groups {
                    let mut k = 0;
                    while k + 1 < g.len() {
                        out.push(pair(g[k], g[k + 1]));
                        k += 2;
                    }
                    if g.len() % 2 == 1 && g.len() > 1 {
                        out.push(pair(g[g.len() - 1], g[0]));
                    }
                }
            }
            let known: Vec<&(Option<String>, Vec<&HostPort>)> =
                groups.iter().filter(|(k, _)| k.is_some()).collect();
            for (i, (_, ga)) in known.iter().enumerate() {
                for (_, gb) in &known[i + 1..] {
                    out.push(pair(ga[0], gb[0]));
                }
            }
        }
        Pairs::File(path) => out = from_file(path, hosts)?,
    }
    Ok(out)
}

/// A pairs file: one pair per line, `a b` or `a,b`; `#` starts a comment.
fn from_file(path: &Path, hosts: &[HostPort]) -> Result<Vec<Pair>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read pairs file {}: {e}", path.display()))?;
    let by_name: BTreeMap<&str, &HostPort> = hosts.iter().map(|h| (h.host.as_str(), h)).collect();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let names: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .collect();
        let at = format!("{}:{}", path.display(), n + 1);
        if names.len() != 2 {
            bail!("{at}: expected two host names (\"a b\" or \"a,b\"), found {line:?}");
        }
        let get = |h: &str| -> Result<&HostPort> {
            by_name.get(h).copied().ok_or_else(|| {
                anyhow::anyhow!(
                    "{at}: {h:?} is not a probe host of the inventory (hosts: {})",
                    by_name.keys().cloned().collect::<Vec<_>>().join(", ")
                )
            })
        };
        let (a, b) = (get(names[0])?, get(names[1])?);
        if a.host == b.host {
            bail!("{at}: a host cannot be probed against itself ({})", a.host);
        }
        out.push(pair(a, b));
    }
    if out.is_empty() {
        bail!("{}: no pair in the pairs file", path.display());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(name: &str, leaf: Option<&str>) -> HostPort {
        HostPort {
            host: name.into(),
            iface: "eth2".into(),
            leaf: leaf.map(|l| Endpoint {
                device: l.into(),
                interface: format!("p-{name}"),
            }),
        }
    }

    fn names(p: &[Pair]) -> Vec<String> {
        p.iter()
            .map(|p| format!("{}-{} {}", p.a.host, p.b.host, p.class))
            .collect()
    }

    #[test]
    fn default_covers_every_host_and_path_class() {
        let hosts = [
            h("a1", Some("l1")),
            h("a2", Some("l1")),
            h("a3", Some("l1")),
            h("b1", Some("l2")),
            h("b2", Some("l2")),
        ];
        let p = pairs(&hosts, &Pairs::Default).unwrap();
        assert_eq!(
            names(&p),
            [
                "a1-a2 same-leaf",
                "a3-a1 same-leaf",
                "b1-b2 same-leaf",
                "a1-b1 cross-leaf"
            ]
        );
        assert_eq!(pairs(&hosts, &Pairs::All).unwrap().len(), 10);
        assert_eq!(
            names(&pairs(&hosts, &Pairs::CrossLeaf).unwrap()),
            ["a1-b1 cross-leaf"]
        );
        let path = p[3].path(false);
        assert_eq!(path.len(), 4);
        assert_eq!(path[1].device, "l1");
    }

    #[test]
    fn pairs_file_errors_name_the_line() {
        let dir = std::env::temp_dir().join(format!("fa-pairs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("pairs.txt");
        std::fs::write(&f, "# pairs\na1 a2\na1,zz\n").unwrap();
        let e = pairs(&[h("a1", None), h("a2", None)], &Pairs::File(f.clone()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("pairs.txt:3") && e.contains("\"zz\""), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
