#!/usr/bin/env python3
"""Write the host side and the plan of fixtures/clean-mixed-fabric: a fabric mixing the NOSes
fabric-audit reads besides NX-OS and EOS.

  spine1 cumulus (NVUE)   spine2 junos
  leaf1, leaf2 sonic      leaf3 onyx      leaf4 os10
  gpu01, gpu02: eth2 -> leaf1, eth3 -> leaf2
  gpu03, gpu04: eth2 -> leaf3, eth3 -> leaf4

The GPU hosts are those of fixtures/clean-fabric with their LLDP neighbors rewritten to this
cabling. Switch configs (configs/<switch>.*) are written by hand, one per platform, and are not
touched here.

fixtures/demo-mixed-fabric is the clean mixed fabric with the faults of the rule cases listed in
DEMO_CASES applied together (their edits, in order), and expected-faults.toml made from those
cases' expectations; tests/spec/mixed_fabric.rs checks that the audit reports every one of them.

Run from the repository root: python3 scripts/gen-mixed-fabric.py
"""
import json
import re
import os
import shutil

SRC = "fixtures/clean-fabric/devices"
OUT = "fixtures/clean-mixed-fabric"

SWITCHES = [
    ("spine1", "cumulus", "spine"),
    ("spine2", "junos", "spine"),
    ("leaf1", "sonic", "leaf"),
    ("leaf2", "sonic", "leaf"),
    ("leaf3", "onyx", "leaf"),
    ("leaf4", "os10", "leaf"),
]
# leaf -> (host ports in order of hosts, uplink to spine1, uplink to spine2)
LEAF_PORTS = {
    "leaf1": (["Ethernet0", "Ethernet8"], "Ethernet240", "Ethernet248"),
    "leaf2": (["Ethernet0", "Ethernet8"], "Ethernet240", "Ethernet248"),
    "leaf3": (["Eth1/1", "Eth1/2"], "Eth1/31", "Eth1/32"),
    "leaf4": (["ethernet1/1/1", "ethernet1/1/2"], "ethernet1/1/31", "ethernet1/1/32"),
}
SPINE_PORTS = {
    "spine1": ["swp1", "swp2", "swp3", "swp4"],
    "spine2": ["et-0/0/0", "et-0/0/1", "et-0/0/2", "et-0/0/3"],
}
HOSTS = {
    "gpu01": ("leaf1", "leaf2", 0),
    "gpu02": ("leaf1", "leaf2", 1),
    "gpu03": ("leaf3", "leaf4", 0),
    "gpu04": ("leaf3", "leaf4", 1),
}
DESCR = {
    "sonic": "SONiC Software Version: SONiC.202311.1 - HwSku: Mellanox-SN4700",
    "onyx": "Mellanox Onyx SN2700 3.10.4000",
    "os10": "Dell SmartFabric OS10 Enterprise 10.5.5.1",
}
PLATFORM = {n: p for n, p, _ in SWITCHES}


def links():
    out = []
    for h, (a, b, i) in HOSTS.items():
        out.append((f"{h}:eth2", f"{a}:{LEAF_PORTS[a][0][i]}"))
        out.append((f"{h}:eth3", f"{b}:{LEAF_PORTS[b][0][i]}"))
    for li, leaf in enumerate(["leaf1", "leaf2", "leaf3", "leaf4"]):
        _, up1, up2 = LEAF_PORTS[leaf]
        out.append((f"{leaf}:{up1}", f"spine1:{SPINE_PORTS['spine1'][li]}"))
        out.append((f"{leaf}:{up2}", f"spine2:{SPINE_PORTS['spine2'][li]}"))
    return out


def write_fabric():
    lines = [
        "# Cabling plan and intent of the mixed-NOS fabric (scripts/gen-mixed-fabric.py).",
        "[policy]",
        "lossless_priorities = [3]",
        "roce_dscp = 26",
        "cnp_dscp = 48",
        "mtu = 9000",
        "",
    ]
    for n, p, r in SWITCHES:
        lines += ["[[device]]", f'name = "{n}"', f'platform = "{p}"', f'role = "{r}"', ""]
    for a, b in links():
        lines += ["[[link]]", f'a = "{a}"', f'b = "{b}"', "cable_m = 3", ""]
    with open(f"{OUT}/fabric.toml", "w") as f:
        f.write("\n".join(lines))


def rewrite_lldp(h, text):
    d = json.loads(text)
    a, b, i = HOSTS[h]
    want = {"eth2": (a, LEAF_PORTS[a][0][i]), "eth3": (b, LEAF_PORTS[b][0][i])}
    for item in d["lldp"]["interface"]:
        for ifname, n in item.items():
            if ifname not in want:
                continue
            sw, port = want[ifname]
            (old, ch), = n["chassis"].items()
            ch["descr"] = DESCR[PLATFORM[sw]]
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
            text = f.read()
        new = rewrite_lldp(h, text)
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


# Rule cases (fixtures/rules/<RULE>/<case>.toml) planted together in the demo, one or more per
# platform of the mix.
DEMO_CASES = [
    "PFC001/cumulus-roce-mode-lossy",
    "ECN001/junos-ecn-inactive",
    "MTU003/junos-default-mtu",
    "PFC001/onyx-priority-3-not-enabled",
    "ECN001/os10-queue-without-wred",
    "DSCP002/sonic-dscp-26-to-tc-4",
    "WDG001/sonic-no-pfc-wd-ethernet0",
]

DEMO = "fixtures/demo-mixed-fabric"


def toml_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_demo():
    import tomllib
    if os.path.exists(DEMO):
        shutil.rmtree(DEMO)
    shutil.copytree(OUT, DEMO)
    faults = []
    for case in DEMO_CASES:
        with open(f"fixtures/rules/{case}.toml", "rb") as f:
            c = tomllib.load(f)
        for e in c.get("edit", []):
            path = f"{DEMO}/{e['file']}"
            with open(path) as f:
                text = f.read()
            if e["replace"] not in text:
                raise SystemExit(f"{case}: edit does not apply to {e['file']}")
            text = text.replace(e["replace"], e["with"], -1 if e.get("all") else 1)
            with open(path, "w") as f:
                f.write(text)
        for a in c.get("add", []):
            with open(f"{DEMO}/{a['file']}", "w") as f:
                f.write(a["content"])
        for r in c.get("remove", []):
            os.remove(f"{DEMO}/{r}")
        rule = case.split("/")[0]
        for x in c.get("expect", []):
            faults.append((c["description"], rule, x))
    lines = [
        "# The faults planted in the mixed-NOS demo fabric (scripts/gen-mixed-fabric.py, from the",
        "# rule cases in DEMO_CASES) and the finding that must report each one.",
        "",
    ]
    for desc, rule, x in faults:
        lines += ["[[fault]]", f"description = {toml_str(desc)}", f'rule = "{rule}"',
                  f'device = "{x["device"]}"']
        if "interface" in x:
            lines.append(f'interface = "{x["interface"]}"')
        if "severity" in x:
            lines.append(f'severity = "{x["severity"]}"')
        lines.append("")
    with open(f"{DEMO}/expected-faults.toml", "w") as f:
        f.write("\n".join(lines))


def write_emulated_junos():
    """The emulated Junos spine of the collection tests answers `show configuration | display
    set` (what collect asks a Junos device for) with the set form of the demo's curly config."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "junos_display_set", os.path.join(os.path.dirname(__file__), "junos-display-set.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with open(f"{DEMO}/configs/spine2.conf") as f:
        text = mod.display_set(f.read())
    with open("fixtures/emulator/mixed/spine2-display-set.txt", "w") as f:
        f.write(text)


if __name__ == "__main__":
    os.makedirs(f"{OUT}/configs", exist_ok=True)
    write_fabric()
    write_hosts()
    if DEMO_CASES:
        write_demo()
        write_emulated_junos()
