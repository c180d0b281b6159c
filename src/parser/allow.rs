//! Read-only by construction: the only commands fabric-audit will ever send to a device are
//! those this allow-list accepts for the device's platform. The check is code, not convention:
//! a vendor-parser file that asks for anything else is refused when it loads.
//!
//! A command is accepted when (1) it is one line of printable text, (2) it holds no shell or
//! CLI metacharacter (`; | & > < $ \` ( ) { } [ ] * ? \ ! #` and quotes) except those the
//! vendor file declares for that command (`allow_chars`, e.g. `*` for a sysfs glob), (3) no
//! word of it is a verb that changes state, and (4) it has the platform's read-only shape:
//! `show …` on switch CLIs, and on Linux one of a fixed set of programs used in their
//! read-only forms (`ethtool` without setters, `mlnx_qos -i IF` with no option, …).

/// Characters never sent unless the vendor file declares them for the command.
const META: &[char] = &[
    ';', '|', '&', '>', '<', '$', '`', '(', ')', '{', '}', '[', ']', '*', '?', '\\', '!', '#', '"',
    '\'', '~',
];

/// Words that change state on some platform; never part of a collected command.
const VERBS: &[&str] = &[
    "configure",
    "conf",
    "write",
    "copy",
    "reload",
    "delete",
    "del",
    "erase",
    "clear",
    "debug",
    "undebug",
    "reboot",
    "restart",
    "shutdown",
    "format",
    "install",
    "rm",
    "mv",
    "dd",
    "tee",
    "kill",
    "killall",
    "set",
    "unset",
    "commit",
    "rollback",
    "request",
    "start",
    "stop",
    "load",
    "save",
    "apply",
    "add",
    "change",
    "replace",
    "flush",
    "modprobe",
    "rmmod",
    "insmod",
    "sudo",
    "su",
    "chmod",
    "chown",
    "mount",
    "umount",
    "systemctl",
    "service",
    "sh",
    "bash",
    "exec",
    "eval",
    "reset",
    "upgrade",
    "boot",
    "redirect",
    "append",
];

/// Why `cmd` may not be sent to a device of `platform`; `None` when it may.
pub fn refuse(platform: &str, cmd: &str, allow_chars: &str) -> Option<String> {
    let cmd = cmd.trim();
    if cmd.is_empty() {
        return Some("empty command".into());
    }
    if let Some(c) = cmd.chars().find(|c| c.is_control()) {
        return Some(format!("control character {c:?} in the command"));
    }
    if let Some(c) = cmd
        .chars()
        .find(|c| META.contains(c) && !allow_chars.contains(*c))
    {
        return Some(format!(
            "metacharacter {c:?} (not declared in allow_chars for this command)"
        ));
    }
    let words: Vec<&str> = cmd.split_whitespace().collect();
    // A word after `display` names an output format (Junos `| display set`), not an action.
    let verb = words.iter().enumerate().find(|(i, w)| {
        (*i == 0 || words[i - 1] != "display")
            && VERBS.contains(&w.trim_start_matches('-').to_ascii_lowercase().as_str())
    });
    if let Some((_, w)) = verb {
        return Some(format!("{w:?} changes state"));
    }
    let shape = match platform {
        "linux" => linux_shape(&words),
        "cumulus" => match words.as_slice() {
            ["nv", "show", ..] | ["nv", "config", "show", ..] | ["net", "show", ..] => None,
            ["cat", paths @ ..] if !paths.is_empty() => None,
            // lldpd's client and iproute2's `ip`, in the query forms the Linux hosts are allowed
            ["lldpctl", ..] | ["ip", ..] => linux_shape(&words),
            _ => Some(
                "Cumulus commands must be `nv show …`, `nv config show …`, `net show …`, `lldpctl -f FORMAT`, `ip … show` or `cat FILE`",
            ),
        },
        "sonic" => match words.as_slice() {
            ["show", ..] | ["pfcwd", "show", ..] | ["ecnconfig", "-l"] | ["mmuconfig", "-l"] => {
                None
            }
            ["sonic-cfggen", "-d", "--print-data"] => None,
            ["cat", paths @ ..] if !paths.is_empty() => None,
            _ => Some(
                "SONiC commands must be `show …`, `pfcwd show …`, `ecnconfig -l`, `mmuconfig -l`, `sonic-cfggen -d --print-data` or `cat FILE`",
            ),
        },
        // Switch CLIs: show commands only (the paging-off commands of a session are checked
        // separately, see `refuse_session`).
        _ => match words.first() {
            Some(&"show") => None,
            _ => Some("switch commands must start with `show`"),
        },
    };
    shape.map(|s| format!("not a read-only command: {s}"))
}

/// Session setup commands (paging off) are terminal settings, allowed only in these forms.
pub fn refuse_session(cmd: &str) -> Option<String> {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    match words.as_slice() {
        ["terminal", "length", "0"] | ["terminal", "width", _] | ["terminal", "pager", "0"] => None,
        ["terminal", "dont-ask"] | ["no", "page"] | ["screen-length", "0", "temporary"] => None,
        ["set", "cli", "screen-length", "0"] | ["set", "cli", "screen-width", _] => None,
        ["cli", "session", "paginate", "disable"]
        | ["no", "cli", "session", "paginate", "enable"]
        | ["no", "cli", "session", "paging", "enable"] => None,
        _ => Some(format!("{cmd:?} is not a known paging/terminal setting")),
    }
}

fn linux_shape(words: &[&str]) -> Option<&'static str> {
    let args = &words[1..];
    let has = |w: &str| args.contains(&w);
    match words[0] {
        // ip/rdma: listing subcommands only.
        "ip" | "rdma" => {
            if has("show") || has("list") || has("ls") {
                None
            } else {
                Some("ip/rdma must be used with show/list")
            }
        }
        // ethtool: the query forms, never a setter.
        "ethtool" => {
            let setter = args.iter().any(|a| {
                matches!(
                    *a,
                    "-A" | "-s"
                        | "-K"
                        | "-G"
                        | "-C"
                        | "-L"
                        | "-E"
                        | "-f"
                        | "-X"
                        | "-N"
                        | "-U"
                        | "-r"
                        | "-p"
                        | "-t"
                        | "-W"
                        | "-u"
                        | "-P"
                        | "--pause"
                        | "--change"
                        | "--features"
                        | "--offload"
                        | "--coalesce"
                        | "--set-ring"
                        | "--set-channels"
                        | "--flash"
                        | "--identify"
                        | "--test"
                        | "--negotiate"
                        | "--config-nfc"
                        | "--config-ntuple"
                        | "--set-priv-flags"
                        | "--set-eee"
                        | "--set-fec"
                        | "--set-rxfh-indir"
                        | "--set-tunable"
                        | "--set-phy-tunable"
                        | "--set-dump"
                        | "--set-module"
                ) || a.starts_with("--set")
            });
            if setter {
                Some("ethtool setters are not allowed")
            } else {
                None
            }
        }
        // mlnx_qos prints with -i IF alone; every other option changes the NIC.
        "mlnx_qos" => match args {
            ["-i", _] => None,
            _ => Some("mlnx_qos is allowed only as `mlnx_qos -i IF`"),
        },
        // cma_roce_tos/mode print without -t/-m.
        "cma_roce_tos" => match args {
            ["-d", _] | ["-d", _, "-p", _] => None,
            _ => Some("cma_roce_tos is allowed only as `cma_roce_tos -d DEV [-p PORT]`"),
        },
        "cma_roce_mode" => match args {
            ["-d", _, "-p", _] | ["-d", _] => None,
            _ => Some("cma_roce_mode is allowed only as `cma_roce_mode -d DEV -p PORT`"),
        },
        "mlxconfig" => match args {
            ["-d", _, "q"] | ["-d", _, "query"] => None,
            _ => Some("mlxconfig is allowed only as `mlxconfig -d DEV q`"),
        },
        "lldpctl" => {
            if args.iter().any(|a| {
                !a.starts_with('-')
                    && !matches!(*a, "json" | "json0" | "keyvalue" | "xml" | "plain")
            }) && !args.is_empty()
                && args.first() != Some(&"-f")
            {
                Some("lldpctl is allowed only with output options")
            } else {
                None
            }
        }
        "nvme" => match args.first() {
            Some(&("list" | "list-subsys" | "show-topology" | "id-ctrl" | "id-ns")) => None,
            _ => Some("nvme is allowed only with list, list-subsys, show-topology, id-ctrl, id-ns"),
        },
        "grep" | "cat" | "ibv_devinfo" | "show_gids" | "ibdev2netdev" | "lspci" | "uname"
        | "hostname" => None,
        "gdscheck" | "/usr/local/cuda/gds/tools/gdscheck" => match args {
            ["-p"] => None,
            _ => Some("gdscheck is allowed only as `gdscheck -p`"),
        },
        "nvidia-smi" => match args {
            ["topo", "-m"] => None,
            _ => Some("nvidia-smi is allowed only as `nvidia-smi topo -m`"),
        },
        _ => Some("program not in the Linux read-only allow-list"),
    }
}

/// A name from a device or the inventory that may go into a command line unquoted: plain
/// characters only, never an option (a leading `-`) and never a step out of a folder (`.` or
/// `..` between slashes), so a name can neither change what a command does nor where it looks.
pub fn safe_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && !s.starts_with('-')
        && !s.split('/').any(|step| step == "." || step == "..")
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_.:@/+-%".contains(&b))
}

/// Platforms whose interface names are Linux network device names. The kernel refuses a
/// netdev name holding `/`, `:` or white space, and the names `.` and `..` (`dev_valid_name`
/// in net/core/dev.c, https://github.com/torvalds/linux/blob/master/net/core/dev.c), so a
/// name with a slash from one of these devices is not an interface, whatever it claims.
fn linux_netdev_names(platform: &str) -> bool {
    matches!(platform, "linux" | "cumulus" | "sonic")
}

/// An interface or RDMA device name reported by a device (or listed in the inventory) that may
/// be put into one of `platform`'s commands: a [`safe_word`] of at most 64 characters, no path
/// (`/dev/sda`, `a//b`, `x/`), and no `/` or `:` at all where the platform's names never have
/// one (Linux netdevs; switch names such as `Ethernet1/1` keep theirs).
pub fn safe_interface(platform: &str, s: &str) -> bool {
    safe_word(s)
        && s.len() <= 64
        && !s.contains(['+', '%'])
        && !s.starts_with('/')
        && !s.ends_with('/')
        && !s.contains("//")
        && !(linux_netdev_names(platform) && s.contains(['/', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_words_go_into_commands() {
        assert!(safe_word("mlx5_0") && safe_word("10.0.0.1") && safe_word("fe80::1%eth2"));
        assert!(!safe_word("a;b") && !safe_word("-x") && !safe_word("$(id)") && !safe_word(""));
        assert!(safe_word("/tmp/fabric-audit-probe.x1"));
        for path in ["..", ".", "../etc", "a/../b", "/x/.", "x/./y"] {
            assert!(!safe_word(path), "{path}");
        }
    }

    #[test]
    fn interface_names_are_never_paths() {
        for ok in [
            "eth2",
            "enp1s0f0np0",
            "mlx5_0",
            "swp1s0",
            "Ethernet0",
            "eth2.100",
        ] {
            for p in ["linux", "cumulus", "sonic", "nxos"] {
                assert!(safe_interface(p, ok), "{p} {ok}");
            }
        }
        for p in ["nxos", "eos", "onyx", "os10", "junos"] {
            assert!(safe_interface(p, "Ethernet1/1") && safe_interface(p, "et-0/0/0:1"));
        }
        for p in ["linux", "cumulus", "sonic", "nxos", "onyx"] {
            for bad in [
                "..",
                ".",
                "/dev/sda",
                "-a",
                "--help",
                "eth0/../..",
                "x/",
                "a//b",
                "../../x",
                "eth0;reboot",
                "a b",
                "",
            ] {
                assert!(!safe_interface(p, bad), "{p} {bad:?}");
            }
        }
        for bad in ["eth0/1", "dev/sda", "eth0:1", "mlx5_0/1"] {
            assert!(!safe_interface("linux", bad), "{bad}");
        }
    }

    #[test]
    fn switch_show_commands_pass_and_changes_do_not() {
        for p in ["nxos", "eos", "onyx", "os10", "junos"] {
            assert_eq!(refuse(p, "show running-config", ""), None);
            assert_eq!(refuse(p, "show interface priority-flow-control", ""), None);
            assert!(refuse(p, "configure terminal", "").is_some());
            assert!(refuse(p, "show running-config | redirect bootflash:x", "").is_some());
            assert!(refuse(p, "show run > bootflash:x", "").is_some());
            assert!(refuse(p, "copy running-config startup-config", "").is_some());
            assert!(refuse(p, "reload", "").is_some());
            assert!(refuse(p, "show clock\nreload", "").is_some());
            assert!(refuse(p, "write memory", "").is_some());
            assert!(refuse(p, "clear counters", "").is_some());
        }
        assert!(refuse("junos", "show configuration | display set", "").is_some());
        assert_eq!(
            refuse("junos", "show configuration | display set", "|"),
            None
        );
    }

    #[test]
    fn cumulus_read_only_forms() {
        for ok in [
            "nv show interface lldp",
            "nv config show -o json",
            "net show configuration commands",
            "cat /etc/cumulus/datapath/traffic.conf",
            "lldpctl -f json",
            "ip -d -j link show",
        ] {
            assert_eq!(refuse("cumulus", ok, ""), None, "{ok}");
        }
        for bad in [
            "nv set interface swp1 qos pfc-watchdog",
            "nv config apply",
            "lldpctl update",
            "ethtool -s swp1 speed 100000",
            "ip link set swp1 down",
        ] {
            assert!(refuse("cumulus", bad, "").is_some(), "{bad}");
        }
    }

    #[test]
    fn linux_read_only_forms() {
        for ok in [
            "ip -d -j link show",
            "rdma link show -j",
            "ethtool eth2",
            "ethtool -a eth2",
            "ethtool -S eth2",
            "ethtool --get-tunable eth2 pfc-prevention-tout",
            "mlnx_qos -i eth2",
            "cma_roce_tos -d mlx5_0",
            "cma_roce_mode -d mlx5_0 -p 1",
            "ibv_devinfo -v -d mlx5_0",
            "lldpctl -f json",
            "mlxconfig -d mlx5_0 q",
        ] {
            assert_eq!(refuse("linux", ok, ""), None, "{ok}");
        }
        assert_eq!(
            refuse(
                "linux",
                "grep -H . /sys/class/net/eth2/ecn/roce_np/enable/* /sys/class/net/eth2/ecn/roce_np/cnp_dscp",
                "*"
            ),
            None
        );
        for bad in [
            "ethtool -A eth2 rx off tx off",
            "ethtool -s eth2 speed 100000",
            "ethtool --set-tunable eth2 pfc-prevention-tout 100",
            "mlnx_qos -i eth2 --pfc 0,0,0,1,0,0,0,0",
            "mlnx_qos -i eth2 --trust dscp",
            "cma_roce_tos -d mlx5_0 -t 106",
            "cma_roce_mode -d mlx5_0 -p 1 -m 2",
            "ip link set eth2 mtu 9000",
            "ip addr add 10.0.0.1/24 dev eth2",
            "rm -rf /",
            "sh -c ls",
            "cat /etc/shadow; reboot",
            "lldpcli configure system hostname x",
            "mlxconfig -d mlx5_0 set ROCE_CC_PRIO_MASK_P1=255",
        ] {
            assert!(refuse("linux", bad, "").is_some(), "{bad} must be refused");
        }
        // Globs only where the vendor file declares them.
        assert!(refuse("linux", "grep -H . /sys/class/net/eth2/ecn/*", "").is_some());
    }

    #[test]
    fn session_settings() {
        assert_eq!(refuse_session("terminal length 0"), None);
        assert_eq!(refuse_session("terminal width 511"), None);
        assert!(refuse_session("configure terminal").is_some());
    }
}
