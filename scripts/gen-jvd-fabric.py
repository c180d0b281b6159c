#!/usr/bin/env python3
"""Write fixtures/jvd-ai-fabric (plan, hosts) and its faulted twin fixtures/demo-jvd-ai-fabric.

The switches follow the class of service of Juniper's AI data center JVD (QFX5240 back-end GPU
fabric, Junos OS Evolved): RoCE (DSCP 26) in forwarding class NO-LOSS on queue 4 with PFC
priority 3, CNPs (DSCP 48) in class CNP on queue 3, strict-high at 5 %, bound to every et-* port
by wildcard. Their configs (configs/*.conf) are written by hand, see the fixture's README.md;
this script does not touch them in the clean fabric.

  leaf1, leaf2, spine1, spine2 junos
  gpu01, gpu02: eth2 -> leaf1, eth3 -> leaf2 (et-0/0/0, et-0/0/1)
  leafN et-0/0/30 -> spine1, et-0/0/31 -> spine2

The GPU hosts are those of fixtures/clean-fabric with their LLDP neighbors rewritten to this
cabling. The twin applies FAULTS (edits of the clean configs) and lists them in its
expected-faults.toml; tests/spec/jvd_fabric.rs checks both.

Run from the repository root: python3 scripts/gen-jvd-fabric.py
"""
import json
import os
import re
import shutil

SRC = "fixtures/clean-fabric/devices"
OUT = "fixtures/jvd-ai-fabric"
DEMO = "fixtures/demo-jvd-ai-fabric"

SWITCHES = [
    ("spine1", "spine"),
    ("spine2", "spine"),
    ("leaf1", "leaf"),
    ("leaf2", "leaf"),
]
HOSTS = {"gpu01": 0, "gpu02": 1}
HOST_PORTS = ["et-0/0/0", "et-0/0/1"]
DESCR = "Juniper Networks, Inc. qfx5240-64od Ethernet Switch, kernel JUNOS 23.4R2-S4.11-EVO"

# (description, rule, device, interface or None, severity, file, replace, with)
FAULTS = [
    (
        "leaf1's RoCE scheduler s1 lost `explicit-congestion-notification`: queue 4 (NO-LOSS) never marks CE",
        "ECN001", "leaf1", "et-0/0/0", "error", "configs/leaf1.conf",
        "            explicit-congestion-notification;\n", "",
    ),
    (
        "spine1's CNP scheduler is `priority low` instead of strict-high: CNPs on queue 3 wait behind data",
        "SCHED001", "spine1", "et-0/0/0", "error", "configs/spine1.conf",
        "            priority strict-high;\n", "            priority low;\n",
    ),
    (
        "leaf2 gives forwarding class NO-LOSS pfc-priority 4: RoCE (DSCP 26, queue 4) pauses a priority that is not lossless",
        "DSCP002", "leaf2", "et-0/0/0", "error", "configs/leaf2.conf",
        "class NO-LOSS queue-num 4 no-loss pfc-priority 3;", "class NO-LOSS queue-num 4 no-loss pfc-priority 4;",
    ),
]


def links():
    out = []
    for h, i in HOSTS.items():
        out.append((f"{h}:eth2", f"leaf1:{HOST_PORTS[i]}"))
        out.append((f"{h}:eth3", f"leaf2:{HOST_PORTS[i]}"))
    for li, leaf in enumerate(["leaf1", "leaf2"]):
        out.append((f"{leaf}:et-0/0/30", f"spine1:et-0/0/{li}"))
        out.append((f"{leaf}:et-0/0/31", f"spine2:et-0/0/{li}"))
    return out


def write_fabric():
    lines = [
        "# Cabling plan and intent of a back-end GPU fabric after Juniper's AI data center JVD",
        "# (scripts/gen-jvd-fabric.py; README.md cites the design). No cable lengths: the design",
        "# does not state them.",
        "[policy]",
        "lossless_priorities = [3]",
        "roce_dscp = 26",
        "cnp_dscp = 48",
        "mtu = 9000",
        "",
    ]
    for n, r in SWITCHES:
        lines += ["[[device]]", f'name = "{n}"', 'platform = "junos"', f'role = "{r}"', ""]
    for a, b in links():
        lines += ["[[link]]", f'a = "{a}"', f'b = "{b}"', ""]
    with open(f"{OUT}/fabric.toml", "w") as f:
        f.write("\n".join(lines))


def rewrite_lldp(h, text):
    d = json.loads(text)
    want = {"eth2": ("leaf1", HOST_PORTS[HOSTS[h]]), "eth3": ("leaf2", HOST_PORTS[HOSTS[h]])}
    for item in d["lldp"]["interface"]:
        for ifname, n in item.items():
            if ifname not in want:
                continue
            sw, port = want[ifname]
            (old, ch), = n["chassis"].items()
            ch["descr"] = DESCR
            n["chassis"] = {sw: ch}
            n["port"]["id"]["value"] = port
    return json.dumps(d, indent=2) + "\n"


def write_hosts():
    for h in HOSTS:
        dst = f"{OUT}/devices/{h}"
        if os.path.exists(dst):
            shutil.rmtree(dst)
        shutil.copytree(f"{SRC}/{h}", dst)
        p = f"{dst}/lldpctl_-f_json.txt"
        with open(p) as f:
            new = rewrite_lldp(h, f.read())
        with open(p, "w") as f:
            f.write(new)
        # Keep device.toml's byte count of the rewritten file true.
        meta = f"{dst}/device.toml"
        with open(meta) as f:
            m = f.read()
        head, sep, tail = m.partition('cmd = "lldpctl -f json"')
        tail = re.sub(r"bytes = \d+", f"bytes = {len(new.encode())}", tail, count=1)
        with open(meta, "w") as f:
            f.write(head + sep + tail)


def toml_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_demo():
    if os.path.exists(DEMO):
        shutil.rmtree(DEMO)
    shutil.copytree(OUT, DEMO, ignore=shutil.ignore_patterns("README.md"))
    lines = [
        "# The faults planted in the JVD demo fabric (scripts/gen-jvd-fabric.py) and the finding",
        "# that must report each one. tests/spec/jvd_fabric.rs checks that every one is reported and",
        "# that no device outside this list (nor a link to one) gets an error.",
        "",
    ]
    for desc, rule, dev, iface, sev, path, old, new in FAULTS:
        p = f"{DEMO}/{path}"
        with open(p) as f:
            text = f.read()
        assert text.count(old) == 1, (path, old)
        with open(p, "w") as f:
            f.write(text.replace(old, new))
        lines += ["[[fault]]", f"description = {toml_str(desc)}", f'rule = "{rule}"', f'device = "{dev}"']
        if iface:
            lines.append(f'interface = "{iface}"')
        lines += [f'severity = "{sev}"', ""]
    with open(f"{DEMO}/expected-faults.toml", "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    write_fabric()
    write_hosts()
    write_demo()
