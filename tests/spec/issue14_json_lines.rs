//! Issue 14, "What to build" 1, for the outputs read with `format = "json"` (Linux `ip -j`,
//! `rdma link show -j`, `lldpctl -f json`/`json0`, `nvme list-subsys -o json`, Onyx
//! `| json-print`): every value read cites the line where it (or its key) is written, as shown
//! by `fabric-audit audit --format model`. (Before: every value cited line 1, even in a
//! pretty-printed file where the value sits on line 49.) A compact, one-line document keeps
//! citing line 1: that is the value's line.
//!
//! The fixtures are ours, written in the layouts the tools print: iproute2's `-j -p` (a
//! document opened with `[ {`, members indented 8 spaces, string lists on one line, `},{`
//! between netdevs; `rdma` shares its JSON writer), lldpd's `-f json` (2-space indentation,
//! `interface` a list of one-member objects when there are several neighbors).

use crate::cli::{Scratch, bin};
use serde_json::Value;
use std::path::Path;

/// `ip -d -j -p link show` of a host: lo, a management port and a RoCE port at MTU 9000.
const IP_LINK_PRETTY: &str = r#"[ {
        "ifindex": 1,
        "ifname": "lo",
        "flags": [ "LOOPBACK","UP","LOWER_UP" ],
        "mtu": 65536,
        "qdisc": "noqueue",
        "operstate": "UNKNOWN",
        "linkmode": "DEFAULT",
        "group": "default",
        "txqlen": 1000,
        "link_type": "loopback",
        "address": "00:00:00:00:00:00",
        "broadcast": "00:00:00:00:00:00",
        "promiscuity": 0,
        "min_mtu": 0,
        "max_mtu": 0,
        "inet6_addr_gen_mode": "eui64",
        "num_tx_queues": 1,
        "num_rx_queues": 1,
        "gso_max_size": 65536,
        "gso_max_segs": 65535
    },{
        "ifindex": 2,
        "ifname": "eth0",
        "flags": [ "BROADCAST","MULTICAST","UP","LOWER_UP" ],
        "mtu": 1500,
        "qdisc": "mq",
        "operstate": "UP",
        "linkmode": "DEFAULT",
        "group": "default",
        "txqlen": 1000,
        "link_type": "ether",
        "address": "3c:ec:ef:10:20:30",
        "broadcast": "ff:ff:ff:ff:ff:ff",
        "promiscuity": 0,
        "min_mtu": 68,
        "max_mtu": 9000,
        "inet6_addr_gen_mode": "eui64",
        "num_tx_queues": 8,
        "num_rx_queues": 8,
        "gso_max_size": 65536,
        "gso_max_segs": 65535,
        "parentbus": "pci",
        "parentdev": "0000:01:00.0"
    },{
        "ifindex": 4,
        "ifname": "eth2",
        "flags": [ "BROADCAST","MULTICAST","UP","LOWER_UP" ],
        "mtu": 9000,
        "qdisc": "mq",
        "operstate": "UP",
        "linkmode": "DEFAULT",
        "group": "default",
        "txqlen": 1000,
        "link_type": "ether",
        "address": "b8:3f:d2:aa:00:02",
        "broadcast": "ff:ff:ff:ff:ff:ff",
        "promiscuity": 0,
        "min_mtu": 68,
        "max_mtu": 9978,
        "inet6_addr_gen_mode": "eui64",
        "num_tx_queues": 252,
        "num_rx_queues": 63,
        "gso_max_size": 65536,
        "gso_max_segs": 65535,
        "parentbus": "pci",
        "parentdev": "0000:17:00.0",
        "vfinfo_list": [ ]
    } ]
"#;

/// `rdma link show -j -p`: the RDMA port behind eth2.
const RDMA_LINK_PRETTY: &str = r#"[ {
        "ifindex": 0,
        "ifname": "mlx5_0",
        "port": 1,
        "state": "ACTIVE",
        "physical_state": "LINK_UP",
        "netdev": "eth2",
        "netdev_index": 4
    } ]
"#;

/// `lldpctl -f json` with two neighbors: the management switch on eth0, leaf1 on eth2.
const LLDPCTL_JSON: &str = r#"{
  "lldp": {
    "interface": [
      {
        "eth0": {
          "via": "LLDP",
          "rid": "1",
          "age": "0 day, 04:10:31",
          "chassis": {
            "oob-sw1": {
              "id": {
                "type": "mac",
                "value": "c0:d6:82:4e:01:0b"
              },
              "descr": "Cisco NX-OS(tm) n3000",
              "capability": [
                {
                  "type": "Bridge",
                  "enabled": true
                }
              ]
            }
          },
          "port": {
            "id": {
              "type": "ifname",
              "value": "Ethernet1/10"
            },
            "descr": "gpu01 oob",
            "ttl": "120"
          }
        }
      },
      {
        "eth2": {
          "via": "LLDP",
          "rid": "2",
          "age": "0 day, 04:10:29",
          "chassis": {
            "leaf1": {
              "id": {
                "type": "mac",
                "value": "0c:42:a1:10:00:01"
              },
              "descr": "SONiC Software Version: SONiC.202311",
              "mgmt-ip": "192.0.2.11"
            }
          },
          "port": {
            "id": {
              "type": "local",
              "value": "Ethernet0"
            },
            "descr": "gpu01 eth2",
            "ttl": "120"
          }
        }
      }
    ]
  }
}
"#;

fn model_of(snap: &Path) -> Value {
    let out = bin()
        .arg("audit")
        .arg(snap)
        .args(["--format", "model"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "model: {e}: {}",
            String::from_utf8_lossy(&out.stderr)
                .chars()
                .take(2000)
                .collect::<String>()
        )
    })
}

fn port(model: &Value, device: &str, name: &str) -> Value {
    model["devices"]
        .as_array()
        .and_then(|a| a.iter().find(|d| d["name"] == device))
        .and_then(|d| d["interfaces"].as_array())
        .and_then(|a| a.iter().find(|i| i["name"] == name))
        .cloned()
        .unwrap_or_else(|| panic!("{device}:{name} not in the model: {model}"))
}

/// 1-based line of the first line holding `needle` after the first line holding `after`.
fn line_of(text: &str, after: &str, needle: &str) -> u64 {
    let start = text
        .lines()
        .position(|l| l.contains(after))
        .unwrap_or_else(|| panic!("{after:?} not in the fixture"));
    let at = text
        .lines()
        .skip(start)
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not after {after:?}"));
    (start + at + 1) as u64
}

/// The same document on one line (what `ip -j` without `-p` prints).
fn compact(text: &str) -> String {
    let v: Value = serde_json::from_str(text).unwrap();
    serde_json::to_string(&v).unwrap() + "\n"
}

fn host(tag: &str, files: &[(&str, &str)]) -> Scratch {
    let s = Scratch::new(tag);
    s.write("devices/gpu01/device.toml", "platform = \"linux\"\n");
    for (name, text) in files {
        s.write(&format!("devices/gpu01/{name}"), text);
    }
    s
}

const IP_FILE: &str = "devices/gpu01/ip_-d_-j_link_show.txt";

/// A pretty-printed `ip -d -j link show`: the RoCE netdev's MTU cites the line of `"mtu": 9000`
/// (49 here, not 1), its admin state the `flags` line, carrier the `operstate` line, MAC the
/// `address` line; the same document compacted to one line cites line 1 for all of them.
#[test]
fn pretty_ip_link_json_cites_each_values_line() {
    let s = host("i14-json-ip", &[("ip_-d_-j_link_show.txt", IP_LINK_PRETTY)]);
    let eth2 = port(&model_of(&s.0), "gpu01", "eth2");
    let at = |needle: &str| line_of(IP_LINK_PRETTY, "\"ifname\": \"eth2\"", needle);
    for (field, needle) in [
        ("mtu", "\"mtu\": 9000"),
        ("mtu_raw", "\"mtu\": 9000"),
        ("admin_up", "\"flags\""),
        ("oper_up", "\"operstate\""),
        ("mac", "\"address\""),
    ] {
        assert_eq!(eth2[field]["file"], IP_FILE, "{field}: {eth2}");
        assert_eq!(eth2[field]["line"], at(needle), "{field}: {eth2}");
    }
    assert!(at("\"mtu\": 9000") > 1);
    assert_eq!(eth2["mtu"]["value"], 9000, "{eth2}");
    assert_eq!(eth2["defined_at"]["line"], at("\"ifname\""), "{eth2}");
    let eth0 = port(&model_of(&s.0), "gpu01", "eth0");
    let mtu0 = line_of(IP_LINK_PRETTY, "\"ifname\": \"eth0\"", "\"mtu\"");
    assert_eq!(eth0["mtu"]["line"], mtu0, "{eth0}");

    let one = host(
        "i14-json-ip-compact",
        &[("ip_-d_-j_link_show.txt", &compact(IP_LINK_PRETTY))],
    );
    let eth2 = port(&model_of(&one.0), "gpu01", "eth2");
    for field in ["mtu", "mtu_raw", "admin_up", "oper_up", "mac"] {
        assert_eq!(eth2[field]["line"], 1, "{field}: {eth2}");
    }
    assert_eq!(eth2["mtu"]["value"], 9000, "{eth2}");
}

/// `lldpctl -f json`: each neighbor cites the line of its system name (the chassis member
/// `"leaf1": {`), not line 1; its port is read from the same entry.
#[test]
fn lldpctl_json_neighbors_cite_their_own_lines() {
    let s = host(
        "i14-json-lldp",
        &[
            ("ip_-d_-j_link_show.txt", IP_LINK_PRETTY),
            ("lldpctl_-f_json.txt", LLDPCTL_JSON),
        ],
    );
    let model = model_of(&s.0);
    for (ifname, system, port_id) in [
        ("eth2", "leaf1", "Ethernet0"),
        ("eth0", "oob-sw1", "Ethernet1/10"),
    ] {
        let i = port(&model, "gpu01", ifname);
        let nb = &i["lldp_neighbor"];
        assert_eq!(nb["device"], system, "{i}");
        assert_eq!(nb["port"], port_id, "{i}");
        assert_eq!(
            nb["src"]["file"], "devices/gpu01/lldpctl_-f_json.txt",
            "{i}"
        );
        let want = line_of(
            LLDPCTL_JSON,
            &format!("\"{ifname}\": {{"),
            &format!("\"{system}\""),
        );
        assert!(want > 1);
        assert_eq!(nb["src"]["line"], want, "{i}");
    }
}

/// `rdma link show -j`, pretty-printed: the RDMA port state of eth2 cites its `"state"` line.
#[test]
fn pretty_rdma_link_json_state_cites_its_line() {
    let s = host(
        "i14-json-rdma",
        &[
            ("ip_-d_-j_link_show.txt", IP_LINK_PRETTY),
            ("rdma_link_show_-j.txt", RDMA_LINK_PRETTY),
        ],
    );
    let eth2 = port(&model_of(&s.0), "gpu01", "eth2");
    let state = &eth2["rdma"]["state"];
    assert_eq!(state["value"], "ACTIVE", "{eth2}");
    assert_eq!(
        state["file"], "devices/gpu01/rdma_link_show_-j.txt",
        "{eth2}"
    );
    assert_eq!(
        state["line"],
        line_of(RDMA_LINK_PRETTY, "\"ifname\": \"mlx5_0\"", "\"state\""),
        "{eth2}"
    );
}

/// Onyx `show interfaces ethernet | json-print` (the layout the Ansible onyx modules read: a
/// list of objects, one per port, named by `header`).
const ONYX_INTERFACES_JSON: &str = r#"[
    {
        "Fec": "auto",
        "Mac address": "1c:34:da:77:10:00",
        "Actual speed": "200 Gbps",
        "MTU": "9216 bytes(Maximum packet size 9238 bytes)",
        "Flow-control": "receive off send off",
        "header": "Eth1/1",
        "Admin state": "Enabled",
        "Operational state": "Up"
    },
    {
        "Fec": "auto",
        "Mac address": "1c:34:da:77:10:04",
        "Actual speed": "200 Gbps",
        "MTU": "1500 bytes(Maximum packet size 1522 bytes)",
        "Flow-control": "receive on send on",
        "header": "Eth1/2",
        "Admin state": "Enabled",
        "Operational state": "Down"
    }
]
"#;

/// Onyx `json-print`: each port's MTU, speed, admin and operational state cite their own lines.
/// (Before: the line of the port's `header`, found by searching the text for its name.)
#[test]
fn onyx_json_print_interface_values_cite_their_lines() {
    let s = Scratch::new("i14-json-onyx");
    s.write(
        "devices/sw1/device.toml",
        "platform = \"onyx\"\n\n[[command]]\ncmd = \"show interfaces ethernet | json-print\"\n\
         file = \"show_interfaces_ethernet_json.txt\"\nexit = 0\n",
    );
    s.write(
        "devices/sw1/show_interfaces_ethernet_json.txt",
        ONYX_INTERFACES_JSON,
    );
    let model = model_of(&s.0);
    let lines: Vec<&str> = ONYX_INTERFACES_JSON.lines().collect();
    for (name, mtu) in [("Eth1/1", 9216), ("Eth1/2", 1500)] {
        let i = port(&model, "sw1", name);
        // the port's object: from the `{` above its `header` to the next `}`
        let header = lines
            .iter()
            .position(|l| l.contains(&format!("\"header\": \"{name}\"")))
            .unwrap_or_else(|| panic!("{name} not in the fixture"));
        let open = (0..header)
            .rev()
            .find(|&n| lines[n].trim() == "{")
            .unwrap_or(0);
        let at = |needle: &str| {
            (open..lines.len())
                .find(|&n| lines[n].contains(needle))
                .map(|n| n as u64 + 1)
                .unwrap_or_else(|| panic!("{needle} not in {name}'s object"))
        };
        assert_eq!(i["mtu"]["value"], mtu, "{i}");
        for (field, needle) in [
            ("mtu", "\"MTU\""),
            ("mtu_raw", "\"MTU\""),
            ("speed_gbps", "\"Actual speed\""),
            ("admin_up", "\"Admin state\""),
            ("oper_up", "\"Operational state\""),
        ] {
            assert_eq!(
                i[field]["file"], "devices/sw1/show_interfaces_ethernet_json.txt",
                "{field}: {i}"
            );
            assert_eq!(i[field]["line"], at(needle), "{field}: {i}");
        }
    }
}
