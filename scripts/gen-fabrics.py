#!/usr/bin/env python3
"""Write fixtures/clean-fabric (a correct lossless RoCE fabric) and fixtures/demo-fabric (the
same fabric with a handful of planted faults, listed in expected-faults.toml).

2 spines (spine1 NX-OS, spine2 EOS), 4 leaves (leaf1/leaf2 NX-OS, leaf3/leaf4 EOS), 8 GPU hosts
(gpu01-gpu08, two ConnectX-7 RoCE ports each: eth2 -> mlx5_0, eth3 -> mlx5_1). Every file is in
the format the device prints. Run from the repository root; the output is deterministic.
"""
import json, os, re, shutil, textwrap

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
HOSTS = [f"gpu{h:02d}" for h in range(1, 9)]
NXOS_LEAVES = ["leaf1", "leaf2"]
EOS_LEAVES = ["leaf3", "leaf4"]
LEAVES = NXOS_LEAVES + EOS_LEAVES


def host_leaves(h):
    """(leaf of eth2, leaf of eth3, port number on those leaves)."""
    i = HOSTS.index(h)
    if i < 4:
        return "leaf1", "leaf2", i + 1
    return "leaf3", "leaf4", i - 3


def cmd_file(cmd):
    return re.sub(r"[^A-Za-z0-9._-]", "_", cmd) + ".txt"


# ---------------------------------------------------------------------------------- NX-OS
def nxos_config(name, role, ports, version="10.3(4a)"):
    """ports: list of (ifname, description, peer-facing cable) for RoCE ports."""
    out = f"""!Command: show running-config
!Running configuration last done at: Mon Nov 23 14:02:11 2026
!Time: Mon Nov 30 03:00:05 2026

version {version} Bios:version 01.07
hostname {name}
vdc {name} id 1
  limit-resource vlan minimum 16 maximum 4094
  limit-resource vrf minimum 2 maximum 4096
  limit-resource port-channel minimum 0 maximum 511
  limit-resource m4route-mem minimum 58 maximum 58
  limit-resource m6route-mem minimum 8 maximum 8

feature bgp
feature lacp
feature lldp

no password strength-check
username admin password 5 $5$Hq1Nn0Zx$T2u7Vb9eXwq0Jt3mYk6Lr1pSd8Fz4Gc5Ha7Qb2Ne9Wo  role network-admin
ip domain-lookup
copp profile strict
snmp-server community fabric-ro group network-operator
ntp server 192.0.2.10 use-vrf management

priority-flow-control watch-dog-interval on
priority-flow-control watch-dog interval 100
priority-flow-control watch-dog shutdown-multiplier 2
priority-flow-control auto-restore multiplier 4

class-map type qos match-any ROCE
  match dscp 26
class-map type qos match-any CNP
  match dscp 48
policy-map type qos ROCE-CLASSIFY
  class ROCE
    set qos-group 3
  class CNP
    set qos-group 6
policy-map type queuing ROCE-EGRESS
  class type queuing c-out-8q-q7
    bandwidth remaining percent 0
  class type queuing c-out-8q-q6
    priority level 1
  class type queuing c-out-8q-q5
    bandwidth remaining percent 0
  class type queuing c-out-8q-q4
    bandwidth remaining percent 0
  class type queuing c-out-8q-q3
    bandwidth remaining percent 60
    random-detect minimum-threshold 150 kbytes maximum-threshold 1500 kbytes drop-probability 100 weight 0 ecn
  class type queuing c-out-8q-q2
    bandwidth remaining percent 0
  class type queuing c-out-8q-q1
    bandwidth remaining percent 0
  class type queuing c-out-8q-q-default
    bandwidth remaining percent 40
policy-map type network-qos ROCE-NQ
  class type network-qos c-8q-nq3
    mtu 9216
    pause pfc-cos 3
    pause buffer-size 2100000 pause-threshold 2000000 resume-threshold 1900000
  class type network-qos c-8q-nq-default
    mtu 9216
system qos
  service-policy type network-qos ROCE-NQ
  service-policy type queuing output ROCE-EGRESS
  service-policy type qos input ROCE-CLASSIFY

vrf context management
  ip route 0.0.0.0/0 192.0.2.1

"""
    for n, (ifname, descr) in enumerate(ports):
        out += f"""interface {ifname}
  description {descr}
  no switchport
  speed 100000
  mtu 9214
  priority-flow-control mode on
  ip address 10.{20 if role == 'spine' else 1}.{LEAVES.index(name) + 1 if name in LEAVES else 9}.{2 * n}/31
  no shutdown

"""
    out += f"""interface Ethernet1/{60 if role == 'leaf' else 30}
  description spare
  shutdown

interface mgmt0
  vrf member management
  ip address 192.0.2.{30 + (LEAVES.index(name) if name in LEAVES else 8)}/24
line console
  exec-timeout 30
line vty
  exec-timeout 30
router bgp {65100 + (LEAVES.index(name) + 1 if name in LEAVES else 0)}
  router-id 10.255.0.{(LEAVES.index(name) + 1) if name in LEAVES else 100}
  address-family ipv4 unicast
    maximum-paths 64
"""
    return out


# ---------------------------------------------------------------------------------- EOS
def eos_config(name, role, ports):
    model = "DCS-7060DX5-64S" if role == "leaf" else "DCS-7800R3-36P-LC"
    out = f"""! Command: show running-config
! device: {name} ({model}, EOS-4.31.2F)
!
! boot system flash:/EOS-4.31.2F.swi
!
no aaa root
!
username admin privilege 15 role network-admin secret sha512 <redacted>
!
service routing protocols model multi-agent
!
hostname {name}
ip name-server vrf MGMT 192.0.2.53
!
spanning-tree mode none
!
vrf instance MGMT
!
management api http-commands
   no shutdown
   !
   vrf MGMT
      no shutdown
!
qos map dscp 26 to traffic-class 3
qos map dscp 48 to traffic-class 6
!
priority-flow-control pause watchdog action drop
priority-flow-control pause watchdog default timeout 0.2
priority-flow-control pause watchdog default polling-interval 0.1
priority-flow-control pause watchdog default recovery-time 0.4
!
qos profile ROCE
   qos trust dscp
   priority-flow-control on
   priority-flow-control priority 3 no-drop
   priority-flow-control pause watchdog
   !
   tx-queue 0
      no priority
      bandwidth percent 40
   !
   tx-queue 3
      no priority
      bandwidth percent 60
      random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes max-mark-probability 100
   !
   tx-queue 6
      priority strict
!
"""
    base = LEAVES.index(name) + 1 if name in LEAVES else 9
    for n, (ifname, descr) in enumerate(ports):
        out += f"""interface {ifname}
   description {descr}
   mtu 9214
   speed 100g
   no switchport
   ip address 10.{20 if role == 'spine' else 1}.{base}.{2 * n}/31
   service-profile ROCE
!
"""
    out += f"""interface Ethernet1/{60 if role == 'leaf' else 30}
   description spare
   shutdown
!
interface Management1
   vrf MGMT
   ip address 192.0.2.{30 + (base - 1)}/24
!
ip routing
no ip routing vrf MGMT
!
ip route vrf MGMT 0.0.0.0/0 192.0.2.1
!
router bgp {65100 + (base if name in LEAVES else 0)}
   router-id 10.255.0.{base}
   maximum-paths 64
!
end
"""
    return out


# ---------------------------------------------------------------------------------- hosts
def mac(h, n):
    i = HOSTS.index(h) + 1
    return f"b8:3f:d2:{i:02x}:10:{n:02x}"


def ip_link_json(h):
    def nd(idx, name, mtu, state, extra=None):
        d = {"ifindex": idx, "ifname": name, "flags": ["BROADCAST", "MULTICAST", "UP", "LOWER_UP"],
             "mtu": mtu, "qdisc": "mq", "operstate": state, "linkmode": "DEFAULT", "group": "default",
             "txqlen": 1000, "link_type": "ether", "address": mac(h, idx), "broadcast": "ff:ff:ff:ff:ff:ff",
             "promiscuity": 0, "allmulti": 0, "min_mtu": 68, "max_mtu": 9978,
             "inet6_addr_gen_mode": "eui64", "num_tx_queues": 256, "num_rx_queues": 64,
             "gso_max_size": 65536, "gso_max_segs": 65535, "parentbus": "pci"}
        if extra:
            d.update(extra)
        return d
    lo = {"ifindex": 1, "ifname": "lo", "flags": ["LOOPBACK", "UP", "LOWER_UP"], "mtu": 65536,
          "qdisc": "noqueue", "operstate": "UNKNOWN", "linkmode": "DEFAULT", "group": "default",
          "txqlen": 1000, "link_type": "loopback", "address": "00:00:00:00:00:00",
          "broadcast": "00:00:00:00:00:00", "promiscuity": 0, "allmulti": 0, "min_mtu": 0, "max_mtu": 0,
          "inet6_addr_gen_mode": "eui64", "num_tx_queues": 1, "num_rx_queues": 1,
          "gso_max_size": 65536, "gso_max_segs": 65535}
    devs = [lo,
            nd(2, "eth0", 1500, "UP", {"parentdev": "0000:c1:00.0", "altnames": ["enp193s0f0"]}),
            nd(4, "eth2", 9000, "UP", {"parentdev": "0000:0c:00.0", "altnames": ["enp12s0np0"]}),
            nd(5, "eth3", 9000, "UP", {"parentdev": "0000:8a:00.0", "altnames": ["enp138s0np0"]})]
    return json.dumps(devs, separators=(",", ":")) + "\n"


def rdma_link_json(h):
    return json.dumps([
        {"ifindex": 0, "ifname": "mlx5_0", "port": 1, "state": "ACTIVE", "physical_state": "LINK_UP", "netdev": "eth2", "netdev_index": 4},
        {"ifindex": 1, "ifname": "mlx5_1", "port": 1, "state": "ACTIVE", "physical_state": "LINK_UP", "netdev": "eth3", "netdev_index": 5},
    ], separators=(",", ":")) + "\n"


ETHTOOL_MODES = ["100000baseKR4/Full", "100000baseSR4/Full", "100000baseCR4/Full", "100000baseLR4_ER4/Full",
                 "200000baseKR4/Full", "200000baseSR4/Full", "200000baseCR4/Full", "400000baseCR4/Full"]


def ethtool(ifname):
    modes = ("\n" + "\t" + " " * 24).join(ETHTOOL_MODES)
    return (f"Settings for {ifname}:\n"
            f"\tSupported ports: [ Backplane ]\n"
            f"\tSupported link modes:   {modes}\n"
            f"\tSupported pause frame use: Symmetric\n"
            f"\tSupports auto-negotiation: Yes\n"
            f"\tSupported FEC modes: None\t RS\t BASER\n"
            f"\tAdvertised link modes:  {modes}\n"
            f"\tAdvertised pause frame use: No\n"
            f"\tAdvertised auto-negotiation: Yes\n"
            f"\tAdvertised FEC modes: RS\n"
            f"\tLink partner advertised link modes:  Not reported\n"
            f"\tLink partner advertised pause frame use: No\n"
            f"\tLink partner advertised auto-negotiation: Yes\n"
            f"\tLink partner advertised FEC modes: Not reported\n"
            f"\tSpeed: 100000Mb/s\n"
            f"\tLanes: 4\n"
            f"\tDuplex: Full\n"
            f"\tAuto-negotiation: on\n"
            f"\tPort: Direct Attach Copper\n"
            f"\tPHYAD: 0\n"
            f"\tTransceiver: internal\n"
            f"\tSupports Wake-on: d\n"
            f"\tWake-on: d\n"
            f"        Current message level: 0x00000004 (4)\n"
            f"                               link\n"
            f"\tLink detected: yes\n")


def ethtool_pause(ifname):
    return f"Pause parameters for {ifname}:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n"


def mlnx_qos(ifname, cable=7):
    prios = "".join(
        f"\tprio:{p} dscp:" + ",".join(f"{d:02d}" for d in range(8 * p + 7, 8 * p - 1, -1)) + ",\n"
        for p in range(8))
    tcs = ""
    for tc in range(8):
        if tc == 6:
            tcs += f"tc: {tc} ratelimit: unlimited, tsa: strict\n"
        else:
            bw = {0: 40, 3: 60}.get(tc, 0)
            tcs += f"tc: {tc} ratelimit: unlimited, tsa: ets, bw: {bw}%\n"
        tcs += f"\t priority:  {tc}\n"
    return ("DCBX mode: OS controlled\n"
            "Priority trust state: dscp\n"
            "dscp2prio mapping:\n" + prios +
            "default priority:\n"
            "Receive buffer size (bytes): 130944,261888,0,0,0,0,0,0,max_buffer_size=2097152\n"
            f"Cable len: {cable}\n"
            "PFC configuration:\n"
            "\tpriority    0   1   2   3   4   5   6   7\n"
            "\tenabled     0   0   0   1   0   0   0   0   \n"
            "\tbuffer      0   0   0   1   0   0   0   0   \n" + tcs)


def sysfs_ecn(ifname):
    lines = [f"/sys/class/net/{ifname}/ecn/roce_np/enable/{p}:1" for p in range(8)]
    lines += [f"/sys/class/net/{ifname}/ecn/roce_rp/enable/{p}:1" for p in range(8)]
    lines += [f"/sys/class/net/{ifname}/ecn/roce_np/cnp_dscp:48",
              f"/sys/class/net/{ifname}/ecn/roce_np/cnp_802p_prio:6"]
    return "\n".join(lines) + "\n"


def sysfs_cmd(ifname):
    return (f"grep -H . /sys/class/net/{ifname}/ecn/roce_np/enable/* /sys/class/net/{ifname}/ecn/roce_rp/enable/* "
            f"/sys/class/net/{ifname}/ecn/roce_np/cnp_dscp /sys/class/net/{ifname}/ecn/roce_np/cnp_802p_prio")


def ibv_devinfo(h, dev, n):
    i = HOSTS.index(h) + 1
    guid = f"b83f:d203:00{i:02x}:10{n:02x}"
    return textwrap.dedent(f"""\
    hca_id:\t{dev}
    \ttransport:\t\t\tInfiniBand (0)
    \tfw_ver:\t\t\t\t28.41.1000
    \tnode_guid:\t\t\t{guid}
    \tsys_image_guid:\t\t\t{guid}
    \tvendor_id:\t\t\t0x02c9
    \tvendor_part_id:\t\t\t4129
    \thw_ver:\t\t\t\t0x0
    \tboard_id:\t\t\tMT_0000000838
    \tphys_port_cnt:\t\t\t1
    \tmax_mr_size:\t\t\t0xffffffffffffffff
    \tpage_size_cap:\t\t\t0xfffffffffffff000
    \tmax_qp:\t\t\t\t131072
    \tmax_qp_wr:\t\t\t32768
    \tmax_sge:\t\t\t30
    \tmax_cq:\t\t\t\t16777216
    \tmax_cqe:\t\t\t4194303
    \tmax_mr:\t\t\t\t16777216
    \tmax_pd:\t\t\t\t8388608
    \tmax_qp_rd_atom:\t\t\t16
    \tmax_res_rd_atom:\t\t2097152
    \tmax_qp_init_rd_atom:\t\t16
    \tatomic_cap:\t\t\tATOMIC_HCA (1)
    \tmax_mcast_grp:\t\t\t2097152
    \tmax_mcast_qp_attach:\t\t240
    \tmax_total_mcast_qp_attach:\t503316480
    \tmax_ah:\t\t\t\t2147483647
    \tmax_srq:\t\t\t8388608
    \tmax_srq_wr:\t\t\t32767
    \tmax_srq_sge:\t\t\t31
    \tmax_pkeys:\t\t\t128
    \tlocal_ca_ack_delay:\t\t16
    \tnum_comp_vectors:\t\t63
    \t\tport:\t1
    \t\t\tstate:\t\t\tPORT_ACTIVE (4)
    \t\t\tmax_mtu:\t\t4096 (5)
    \t\t\tactive_mtu:\t\t4096 (5)
    \t\t\tsm_lid:\t\t\t0
    \t\t\tport_lid:\t\t0
    \t\t\tport_lmc:\t\t0x00
    \t\t\tlink_layer:\t\tEthernet
    \t\t\tmax_msg_sz:\t\t0x40000000
    \t\t\tport_cap_flags:\t\t0x04010000
    \t\t\tport_cap_flags2:\t0x0000
    \t\t\tmax_vl_num:\t\tinvalid value (0)
    \t\t\tbad_pkey_cntr:\t\t0x0
    \t\t\tqkey_viol_cntr:\t\t0x0
    \t\t\tsm_sl:\t\t\t0
    \t\t\tpkey_tbl_len:\t\t1
    \t\t\tgid_tbl_len:\t\t255
    \t\t\tsubnet_timeout:\t\t0
    \t\t\tinit_type_reply:\t0
    \t\t\tactive_width:\t\t4X (2)
    \t\t\tactive_speed:\t\t25.0 Gbps (32)
    \t\t\tphys_state:\t\tLINK_UP (5)
    \t\t\tGID[  0]:\t\tfe80:0000:0000:0000:ba3f:d2ff:fe{i:02x}:10{n:02x}, RoCE v1
    \t\t\tGID[  1]:\t\tfe80::ba3f:d2ff:fe{i:02x}:10{n:02x}, RoCE v2
    \t\t\tGID[  2]:\t\t0000:0000:0000:0000:0000:ffff:0a01:{i:02x}{n:02x}, RoCE v1
    \t\t\tGID[  3]:\t\t::ffff:10.1.{i}.{n}, RoCE v2

    """)


def lldp_neighbor(ifname, chassis, descr, port, rid, mgmt):
    return {ifname: {
        "via": "LLDP", "rid": str(rid), "age": "6 days, 02:11:09",
        "chassis": {chassis: {"id": {"type": "mac", "value": f"c0:d6:82:4e:{rid:02x}:0b"},
                              "descr": descr, "mgmt-ip": mgmt, "mgmt-iface": "1",
                              "capability": [{"type": "Bridge", "enabled": True}, {"type": "Router", "enabled": True}]}},
        "port": {"id": {"type": "ifname", "value": port}, "descr": f"{ifname} uplink", "ttl": "120", "mfs": "9236"},
    }}


def sw_descr(leaf):
    if leaf in NXOS_LEAVES:
        return "Cisco Nexus Operating System (NX-OS) Software 10.3(4a)"
    return "Arista Networks EOS version 4.31.2F running on an Arista Networks DCS-7060DX5-64S"


def lldpctl(h):
    a, b, port = host_leaves(h)
    items = [lldp_neighbor("eth0", "oob-sw1", "Cisco Nexus Operating System (NX-OS) Software 9.3(10)", f"Ethernet1/{HOSTS.index(h) + 10}", 1, "192.0.2.5"),
             lldp_neighbor("eth2", a, sw_descr(a), f"Ethernet1/{port}", 2, f"192.0.2.{30 + LEAVES.index(a)}"),
             lldp_neighbor("eth3", b, sw_descr(b), f"Ethernet1/{port}", 3, f"192.0.2.{30 + LEAVES.index(b)}")]
    return json.dumps({"lldp": {"interface": items}}, indent=2) + "\n"


def write_host(base, h):
    d = os.path.join(base, "devices", h)
    os.makedirs(d, exist_ok=True)
    outputs = [("ip -d -j link show", ip_link_json(h)), ("rdma link show -j", rdma_link_json(h))]
    for ifname, dev in (("eth2", "mlx5_0"), ("eth3", "mlx5_1")):
        outputs += [(f"ethtool {ifname}", ethtool(ifname)),
                    (f"ethtool -a {ifname}", ethtool_pause(ifname)),
                    (f"ethtool --get-tunable {ifname} pfc-prevention-tout", "pfc-prevention-tout: 100\n"),
                    (f"mlnx_qos -i {ifname}", mlnx_qos(ifname)),
                    (sysfs_cmd(ifname), sysfs_ecn(ifname))]
    for n, (ifname, dev) in enumerate((("eth2", "mlx5_0"), ("eth3", "mlx5_1"))):
        outputs += [(f"cma_roce_tos -d {dev}", "106\n"),
                    (f"cma_roce_mode -d {dev} -p 1", "RoCE v2\n"),
                    (f"ibv_devinfo -v -d {dev}", ibv_devinfo(h, dev, n + 2))]
    outputs.append(("lldpctl -f json", lldpctl(h)))
    meta = [f'platform = "linux"', f'role = "host"', f'address = "192.0.2.{100 + HOSTS.index(h)}"',
            'collected_at = "2026-11-30T03:00:00Z"', ""]
    for n, (cmd, text) in enumerate(outputs):
        f = cmd_file(cmd)
        with open(os.path.join(d, f), "w") as fh:
            fh.write(text)
        meta += ["[[command]]", f"cmd = {json.dumps(cmd)}", f"file = {json.dumps(f)}", "exit = 0",
                 f"duration_ms = {40 + 7 * n}", f"bytes = {len(text.encode())}", ""]
    with open(os.path.join(d, "device.toml"), "w") as fh:
        fh.write("\n".join(meta))


def write_fabric(base):
    if os.path.exists(base):
        shutil.rmtree(base)
    os.makedirs(os.path.join(base, "configs"))
    links = []
    leaf_ports = {l: [] for l in LEAVES}
    for h in HOSTS:
        a, b, port = host_leaves(h)
        leaf_ports[a].append((f"Ethernet1/{port}", f"{h} eth2"))
        leaf_ports[b].append((f"Ethernet1/{port}", f"{h} eth3"))
        links.append((f"{h}:eth2", f"{a}:Ethernet1/{port}", 3))
        links.append((f"{h}:eth3", f"{b}:Ethernet1/{port}", 3))
    spine_ports = {"spine1": [], "spine2": []}
    for n, leaf in enumerate(LEAVES):
        for k, sp in enumerate(("spine1", "spine2")):
            lp = f"Ethernet1/{49 + k}"
            spp = f"Ethernet1/{n + 1}"
            leaf_ports[leaf].append((lp, f"{sp} {spp}"))
            spine_ports[sp].append((spp, f"{leaf} {lp}"))
            links.append((f"{leaf}:{lp}", f"{sp}:{spp}", 30))
    for leaf in NXOS_LEAVES:
        open(os.path.join(base, "configs", f"{leaf}.cfg"), "w").write(nxos_config(leaf, "leaf", leaf_ports[leaf]))
    for leaf in EOS_LEAVES:
        open(os.path.join(base, "configs", f"{leaf}.cfg"), "w").write(eos_config(leaf, "leaf", leaf_ports[leaf]))
    open(os.path.join(base, "configs", "spine1.cfg"), "w").write(nxos_config("spine1", "spine", spine_ports["spine1"]))
    open(os.path.join(base, "configs", "spine2.cfg"), "w").write(eos_config("spine2", "spine", spine_ports["spine2"]))
    for h in HOSTS:
        write_host(base, h)
    ft = ["# Cabling plan and intent of the demo fabric.", "[policy]", "lossless_priorities = [3]",
          "roce_dscp = 26", "cnp_dscp = 48", "mtu = 9000", ""]
    for name, plat, role in ([("spine1", "nxos", "spine"), ("spine2", "eos", "spine")] +
                             [(l, "nxos", "leaf") for l in NXOS_LEAVES] + [(l, "eos", "leaf") for l in EOS_LEAVES]):
        ft += ["[[device]]", f'name = "{name}"', f'platform = "{plat}"', f'role = "{role}"', ""]
    for a, b, m in links:
        ft += ["[[link]]", f'a = "{a}"', f'b = "{b}"', f"cable_m = {m}", ""]
    open(os.path.join(base, "fabric.toml"), "w").write("\n".join(ft))


def edit(base, rel, old, new, count=1):
    p = os.path.join(base, rel)
    s = open(p).read()
    assert old in s, (rel, old)
    open(p, "w").write(s.replace(old, new, count))


def main():
    clean = os.path.join(ROOT, "clean-fabric")
    demo = os.path.join(ROOT, "demo-fabric")
    write_fabric(clean)
    write_fabric(demo)
    # Planted faults (each listed in demo-fabric/expected-faults.toml).
    # 1. leaf2 Ethernet1/3 lost its `priority-flow-control mode on` line: NX-OS runs auto.
    edit(demo, "configs/leaf2.cfg", "  description gpu03 eth3\n  no switchport\n  speed 100000\n  mtu 9214\n  priority-flow-control mode on\n",
         "  description gpu03 eth3\n  no switchport\n  speed 100000\n  mtu 9214\n")
    # 2. gpu06 eth3 left at MTU 1500 on a 9000 fabric.
    edit(demo, "devices/gpu06/ip_-d_-j_link_show.txt", '"ifname":"eth3","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":9000',
         '"ifname":"eth3","flags":["BROADCAST","MULTICAST","UP","LOWER_UP"],"mtu":1500')
    #    (its RDMA port then runs RoCE at 1024 B, as the kernel derives it from the netdev MTU)
    edit(demo, "devices/gpu06/ibv_devinfo_-v_-d_mlx5_1.txt", "active_mtu:\t\t4096 (5)", "active_mtu:\t\t1024 (3)")
    # 3. leaf3: the ECN minimum above the maximum on the RoCE queue (typo 1500/150 swapped).
    edit(demo, "configs/leaf3.cfg", "random-detect ecn minimum-threshold 150 kbytes maximum-threshold 1500 kbytes",
         "random-detect ecn minimum-threshold 1500 kbytes maximum-threshold 150 kbytes")
    # 4. spine1 classifies RoCE with the wrong DSCP (24 instead of 26).
    edit(demo, "configs/spine1.cfg", "class-map type qos match-any ROCE\n  match dscp 26", "class-map type qos match-any ROCE\n  match dscp 24")
    # 5. gpu02 eth2 reverted to factory trust (pcp) after a reboot.
    edit(demo, "devices/gpu02/mlnx_qos_-i_eth2.txt", "Priority trust state: dscp", "Priority trust state: pcp")
    # 6. gpu07 mlx5_0 RDMA-CM default ToS left at 0 (RoCE sent best effort, not ECN-capable).
    edit(demo, "devices/gpu07/cma_roce_tos_-d_mlx5_0.txt", "106", "0")
    # 7. leaf4: the spine2 uplink's ECN-capable queue lost its profile (interface without service-profile).
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo-expected-faults.toml"),
                os.path.join(demo, "expected-faults.toml"))
    edit(demo, "configs/leaf4.cfg", "   description spine2 Ethernet1/4\n   mtu 9214\n   speed 100g\n   no switchport\n   ip address 10.1.4.10/31\n   service-profile ROCE\n",
         "   description spine2 Ethernet1/4\n   mtu 9214\n   speed 100g\n   no switchport\n   ip address 10.1.4.10/31\n")


if __name__ == "__main__":
    main()
