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



# ---------------------------------------------------------------------------------- host hardware
# Each GPU host: two sockets; per socket a PCIe Gen5 switch under one root port, holding two
# H100 GPUs and one ConnectX-7 (socket 0 also a local NVMe drive for GPUDirect Storage). eth0
# (Intel X710) sits on its own root port. NVMe-oF: one RDMA target with a path per RoCE port.

GPU_DESC = "NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)"
CX7_DESC = "Mellanox Technologies MT2910 Family [ConnectX-7]"
SWITCH_DESC = "Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)"
ROOT_DESC = "Intel Corporation Device 352a (rev 04)"
NVME_DESC = "Samsung Electronics Co Ltd NVMe SSD Controller PM9A1/PM9A3/980PRO (prog-if 02 [NVM Express])"
NQN_LOCAL = "nqn.1994-11.com.samsung:nvme:PM9A3:2.5-inch:S64HNE0T{:06d}"
NQN_TARGET = "nqn.2026-05.com.example:storage01:gds-pool"
HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0047-3510-8052-b3c04f4{:05d}"
STORAGE_ADDR = ("10.30.1.1", "10.30.2.1")

STD_CTL = ("\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx+\n"
           "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-\n")


def fmt_gts(g):
    return f"{g:g}"


def express(off, ptype, port, cap, width, sta=None, sta_w=None, slot=None, root=False, endpoint=True):
    sta = cap if sta is None else sta
    sta_w = width if sta_w is None else sta_w
    sq = "ok" if sta >= cap else "downgraded"
    wq = "ok" if sta_w >= width else "downgraded"
    t = f"\tCapabilities: [{off}] Express (v2) {ptype}, MSI 00\n"
    if endpoint:
        t += ("\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0, Latency L0s unlimited, L1 unlimited\n"
              "\t\t\tExtTag+ AttnBtn- AttnInd- PwrInd- RBE+ FLReset+ SlotPowerLimit 75.000W\n"
              "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq+\n"
              "\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-\n"
              "\t\t\tMaxPayload 256 bytes, MaxReadReq 4096 bytes\n")
    else:
        t += ("\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0\n"
              "\t\t\tExtTag+ RBE+\n"
              "\t\tDevCtl:\tCorrErr+ NonFatalErr+ FatalErr+ UnsupReq+\n"
              "\t\t\tRlxdOrd- ExtTag+ PhantFunc- AuxPwr- NoSnoop-\n"
              "\t\t\tMaxPayload 256 bytes, MaxReadReq 128 bytes\n")
    t += ("\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-\n"
          f"\t\tLnkCap:\tPort #{port}, Speed {fmt_gts(cap)}GT/s, Width x{width}, ASPM not supported\n"
          f"\t\t\tClockPM- Surprise- LLActRep{'+' if not endpoint else '-'} BwNot{'+' if not endpoint else '-'} ASPMOptComp+\n"
          "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+\n"
          "\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-\n"
          f"\t\tLnkSta:\tSpeed {fmt_gts(sta)}GT/s ({sq}), Width x{sta_w} ({wq})\n"
          f"\t\t\tTrErr- Train- SlotClk+ DLActive{'+' if not endpoint else '-'} BWMgmt- ABWMgmt-\n")
    if slot is not None:
        t += ("\t\tSltCap:\tAttnBtn- PwrCtrl- MRL- AttnInd- PwrInd- HotPlug- Surprise-\n"
              f"\t\t\tSlot #{slot}, PowerLimit 75.000W; Interlock- NoCompl-\n"
              "\t\tSltCtl:\tEnable: AttnBtn- PwrFlt- MRL- PresDet- CmdCplt- HPIrq- LinkChg-\n"
              "\t\t\tControl: AttnInd Unknown, PwrInd Unknown, Power- Interlock-\n"
              "\t\tSltSta:\tStatus: AttnBtn- PowerFlt- MRL- CmdCplt- PresDet+ Interlock-\n"
              "\t\t\tChanged: MRL- PresDet- LinkState-\n")
    if root:
        t += ("\t\tRootCap: CRSVisible-\n"
              "\t\tRootCtl: ErrCorrectable- ErrNon-Fatal- ErrFatal- PMEIntEna+ CRSVisible-\n"
              "\t\tRootSta: PME ReqID 0000, PMEStatus- PMEPending-\n")
    t += ("\t\tDevCap2: Completion Timeout: Range ABCD, TimeoutDis+ NROPrPrP- LTR-\n"
          "\t\t\t 10BitTagComp+ 10BitTagReq- OBFF Not Supported, ExtFmt+ EETLPPrefix-\n"
          "\t\t\t EmergencyPowerReduction Not Supported, EmergencyPowerReductionInit-\n"
          "\t\t\t FRS- TPHComp- ExtTPHComp-\n"
          "\t\t\t AtomicOpsCap: 32bit+ 64bit+ 128bitCAS+\n"
          "\t\tDevCtl2: Completion Timeout: 50us to 50ms, TimeoutDis- LTR- OBFF Disabled,\n"
          "\t\t\t AtomicOpsCtl: ReqEn+\n"
          f"\t\tLnkCap2: Supported Link Speeds: 2.5-{fmt_gts(cap)}GT/s, Crosslink- Retimer+ 2Retimers+ DRS-\n"
          f"\t\tLnkCtl2: Target Link Speed: {fmt_gts(cap)}GT/s, EnterCompliance- SpeedDis-\n"
          "\t\t\t Transmit Margin: Normal Operating Range, EnterModifiedCompliance- ComplianceSOS-\n"
          "\t\t\t Compliance Preset/De-emphasis: -6dB de-emphasis, 0dB preshoot\n"
          "\t\tLnkSta2: Current De-emphasis Level: -6dB, EqualizationComplete+ EqualizationPhase1+\n"
          "\t\t\t EqualizationPhase2+ EqualizationPhase3+ LinkEqualizationRequest-\n"
          "\t\t\t Retimer- 2Retimers- CrosslinkRes: unsupported\n")
    return t


def acs(off, ctl="-"):
    bits = ["SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans"]
    cap = " ".join(b + "+" for b in bits)
    c = " ".join(b + (ctl if b not in ("TransBlk", "DirectTrans") else "-") for b in bits)
    return (f"\tCapabilities: [{off} v1] Access Control Services\n"
            f"\t\tACSCap:\t{cap}\n"
            f"\t\tACSCtl:\t{c}\n")


PM = ("\tCapabilities: [40] Power Management version 3\n"
      "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0+,D1-,D2-,D3hot+,D3cold+)\n"
      "\t\tStatus: D0 NoSoftRst+ PME-Enable- DSel=0 DScale=0 PME-\n")
AER = ("\tCapabilities: [100 v1] Advanced Error Reporting\n"
       "\t\tUESta:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-\n"
       "\t\tUEMsk:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt+ RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-\n"
       "\t\tUESvrt:\tDLP+ SDES- TLP+ FCP+ CmpltTO+ CmpltAbrt+ UnxCmplt- RxOF+ MalfTLP+ ECRC+ UnsupReq- ACSViol-\n"
       "\t\tCESta:\tRxErr- BadTLP- BadDLLP- Rollover- Timeout- AdvNonFatalErr-\n"
       "\t\tCEMsk:\tRxErr- BadTLP+ BadDLLP+ Rollover+ Timeout+ AdvNonFatalErr+\n"
       "\t\tAERCap:\tFirst Error Pointer: 00, ECRCGenCap+ ECRCGenEn- ECRCChkCap+ ECRCChkEn-\n"
       "\t\t\tMultHdrRecCap- MultHdrRecEn- TLPPfxPres- HdrLogCap-\n"
       "\t\tHeaderLog: 00000000 00000000 00000000 00000000\n")


def bridge(addr, desc, numa, pri, sec, sub, ptype, port, slot=None, root=False, acs_ctl="-"):
    return (f"{addr} PCI bridge: {desc}\n"
            f"\tSubsystem: {'Intel Corporation Device 0000' if root else 'Broadcom / LSI Device a064'}\n"
            "\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR+ FastB2B- DisINTx+\n"
            "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-\n"
            "\tLatency: 0, Cache Line Size: 64 bytes\n"
            f"\tInterrupt: pin A routed to IRQ {24 + int(sec, 16) % 64}\n"
            f"\tNUMA node: {numa}\n"
            f"\tBus: primary={pri}, secondary={sec}, subordinate={sub}, sec-latency=0\n"
            "\tI/O behind bridge: [disabled] [16-bit]\n"
            "\tMemory behind bridge: a4000000-a6ffffff [size=48M] [32-bit]\n"
            "\tPrefetchable memory behind bridge: 20000000000-21fffffffff [size=128G] [32-bit]\n"
            "\tSecondary status: 66MHz- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- <SERR- <PERR-\n"
            "\tBridgeCtl: Parity- SERR+ NoISA- VGA- VGA16- MAbort- >Reset- FastB2B-\n"
            "\t\tPriDiscTmr- SecDiscTmr- DiscTmrStat- DiscTmrSERREn-\n"
            + PM
            + express("68", ptype, port, 32, 16, slot=slot, root=root, endpoint=False)
            + AER
            + acs("148", acs_ctl)
            + "\tCapabilities: [a30 v1] Secondary PCI Express\n"
              "\t\tLnkCtl3: LnkEquIntrruptEn- PerformEqu-\n"
              "\t\tLaneErrStat: 0\n"
            + "\tKernel driver in use: pcieport\n\n")


def gpu(addr, numa, irq, serial):
    return (f"{addr} 3D controller: {GPU_DESC}\n"
            "\tSubsystem: NVIDIA Corporation Device 16c1\n" + STD_CTL +
            "\tLatency: 0\n"
            f"\tInterrupt: pin A routed to IRQ {irq}\n"
            f"\tNUMA node: {numa}\n"
            "\tRegion 0: Memory at a4000000 (32-bit, non-prefetchable) [size=16M]\n"
            "\tRegion 1: Memory at 20000000000 (64-bit, prefetchable) [size=128G]\n"
            "\tRegion 3: Memory at 21000000000 (64-bit, prefetchable) [size=32M]\n"
            "\tCapabilities: [60] Power Management version 3\n"
            "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0-,D1-,D2-,D3hot-,D3cold-)\n"
            "\t\tStatus: D0 NoSoftRst+ PME-Enable- DSel=0 DScale=0 PME-\n"
            "\tCapabilities: [68] Null\n"
            # an idle H100 trains its link down to 2.5GT/s to save power; it speeds up under load
            + express("78", "Endpoint", 0, 32, 16, sta=2.5)
            + "\tCapabilities: [b4] Vendor Specific Information: Len=14 <?>\n"
              "\tCapabilities: [c8] MSI-X: Enable+ Count=6 Masked-\n"
              "\t\tVector table: BAR=0 offset=00b90000\n"
              "\t\tPBA: BAR=0 offset=00ba0000\n"
              "\tCapabilities: [100 v1] Virtual Channel\n"
              "\t\tCaps:\tLPEVC=0 RefClk=100ns PATEntryBits=1\n"
              "\t\tArb:\tFixed- WRR32- WRR64- WRR128-\n"
              "\t\tCtrl:\tArbSelect=Fixed\n"
              "\t\tStatus:\tInProgress-\n"
              "\t\tVC0:\tCaps:\tPATOffset=00 MaxTimeSlots=1 RejSnoopTrans-\n"
              "\t\t\tArb:\tFixed- WRR32- WRR64- WRR128- TWRR128- WRR256-\n"
              "\t\t\tCtrl:\tEnable+ ID=0 ArbSelect=Fixed TC/VC=ff\n"
              "\t\t\tStatus:\tNegoPending- InProgress-\n"
            + AER.replace("[100 v1]", "[420 v2]")
            + "\tCapabilities: [600 v1] Vendor Specific Information: ID=0001 Rev=1 Len=024 <?>\n"
              "\tCapabilities: [900 v1] Secondary PCI Express\n"
              "\t\tLnkCtl3: LnkEquIntrruptEn- PerformEqu-\n"
              "\t\tLaneErrStat: 0\n"
              "\tCapabilities: [bb0 v1] Physical Resizable BAR\n"
              "\t\tBAR 0: current size: 16MB, supported: 16MB\n"
              "\t\tBAR 1: current size: 128GB, supported: 64MB 128MB 256MB 512MB 1GB 2GB 4GB 8GB 16GB 32GB 64GB 128GB\n"
              "\t\tBAR 3: current size: 32MB, supported: 32MB\n"
              "\tKernel driver in use: nvidia\n"
              "\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n\n")


def cx7(addr, numa, irq, serial, sta=32, sta_w=16):
    return (f"{addr} Ethernet controller: {CX7_DESC}\n"
            "\tSubsystem: Mellanox Technologies Device 0051\n" + STD_CTL +
            "\tLatency: 0, Cache Line Size: 64 bytes\n"
            f"\tInterrupt: pin A routed to IRQ {irq}\n"
            f"\tNUMA node: {numa}\n"
            "\tRegion 0: Memory at 22000000000 (64-bit, prefetchable) [size=32M]\n"
            "\tExpansion ROM at a6000000 [disabled] [size=1M]\n"
            + express("60", "Endpoint", 0, 32, 16, sta=sta, sta_w=sta_w)
            + "\tCapabilities: [48] Vital Product Data\n"
              "\t\tProduct Name: NVIDIA ConnectX-7 HHHL Adapter Card, 400GbE / NDR IB (default mode), Single-port OSFP, PCIe 5.0 x16, Crypto Disabled, Secure Boot Enabled\n"
              "\t\tRead-only fields:\n"
              "\t\t\t[PN] Part number: MCX75310AAS-NEAT\n"
              "\t\t\t[EC] Engineering changes: A7\n"
              f"\t\t\t[SN] Serial number: MT2335X{serial:05d}\n"
              "\t\t\t[V0] Vendor specific: PCIeGen5 x16\n"
              "\t\t\t[RV] Reserved: checksum good, 1 byte(s) reserved\n"
              "\t\tEnd\n"
              "\tCapabilities: [9c] MSI-X: Enable+ Count=64 Masked-\n"
              "\t\tVector table: BAR=0 offset=00002000\n"
              "\t\tPBA: BAR=0 offset=00003000\n"
              "\tCapabilities: [c0] Vendor Specific Information: Len=18 <?>\n"
            + PM
            + AER
            + "\tCapabilities: [150 v1] Alternative Routing-ID Interpretation (ARI)\n"
              "\t\tARICap:\tMFVC- ACS-, Next Function: 0\n"
              "\t\tARICtl:\tMFVC- ACS-, Function Group: 0\n"
            + acs("230")
            + "\tCapabilities: [420 v1] Data Link Feature <?>\n"
              "\tKernel driver in use: mlx5_core\n"
              "\tKernel modules: mlx5_core\n\n")


def nvme_ctrl(addr, numa, irq):
    return (f"{addr} Non-Volatile memory controller: {NVME_DESC}\n"
            "\tSubsystem: Samsung Electronics Co Ltd Device a813\n" + STD_CTL +
            "\tLatency: 0, Cache Line Size: 64 bytes\n"
            f"\tInterrupt: pin A routed to IRQ {irq}\n"
            f"\tNUMA node: {numa}\n"
            "\tRegion 0: Memory at a5e10000 (64-bit, non-prefetchable) [size=32K]\n"
            "\tExpansion ROM at a5e00000 [disabled] [size=64K]\n"
            + PM
            + "\tCapabilities: [50] MSI: Enable- Count=1/32 Maskable- 64bit+\n"
              "\t\tAddress: 0000000000000000  Data: 0000\n"
            + express("70", "Endpoint", 0, 16, 4)
            + "\tCapabilities: [b0] MSI-X: Enable+ Count=130 Masked-\n"
              "\t\tVector table: BAR=0 offset=00003000\n"
              "\t\tPBA: BAR=0 offset=00002000\n"
            + AER
            + "\tKernel driver in use: nvme\n"
              "\tKernel modules: nvme\n\n")


def other(addr, cls, desc, numa, driver=None):
    t = (f"{addr} {cls}: {desc}\n"
         "\tSubsystem: Intel Corporation Device 0000\n"
         "\tControl: I/O- Mem- BusMaster- SpecCycle- MemWINV- VGASnoop- ParErr+ Stepping- SERR+ FastB2B- DisINTx-\n"
         "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-\n"
         f"\tNUMA node: {numa}\n"
         "\tCapabilities: [40] Express (v2) Root Complex Integrated Endpoint, MSI 00\n"
         "\t\tDevCap:\tMaxPayload 128 bytes, PhantFunc 0\n"
         "\t\t\tExtTag- RBE- FLReset-\n"
         "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-\n"
         "\t\t\tRlxdOrd- ExtTag- PhantFunc- AuxPwr- NoSnoop- FLReset-\n"
         "\t\t\tMaxPayload 128 bytes, MaxReadReq 128 bytes\n"
         "\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-\n"
         "\tCapabilities: [e0] Power Management version 3\n"
         "\t\tFlags: PMEClk- DSI- D1- D2- AuxCurrent=0mA PME(D0-,D1-,D2-,D3hot-,D3cold-)\n"
         "\t\tStatus: D0 NoSoftRst- PME-Enable- DSel=0 DScale=0 PME-\n")
    if driver:
        t += f"\tKernel driver in use: {driver}\n"
    return t + "\n"


def x710(addr, numa, irq):
    return (f"{addr} Ethernet controller: Intel Corporation Ethernet Controller X710 for 10GbE SFP+ (rev 02)\n"
            "\tSubsystem: Intel Corporation Ethernet Converged Network Adapter X710-2\n" + STD_CTL +
            "\tLatency: 0, Cache Line Size: 64 bytes\n"
            f"\tInterrupt: pin A routed to IRQ {irq}\n"
            f"\tNUMA node: {numa}\n"
            "\tRegion 0: Memory at c6000000 (64-bit, prefetchable) [size=8M]\n"
            "\tRegion 3: Memory at c7008000 (64-bit, prefetchable) [size=32K]\n"
            + PM
            + express("a0", "Endpoint", 0, 8, 8)
            + AER
            + "\tKernel driver in use: i40e\n"
              "\tKernel modules: i40e\n\n")


def lspci(h):
    """lspci -D -vvv of a GPU host (see the layout above)."""
    s = HOSTS.index(h) * 10
    t = other("0000:00:00.0", "Host bridge", "Intel Corporation Device 09a2 (rev 20)", 0)
    t += other("0000:00:17.0", "SATA controller", "Intel Corporation Device 1bf2 (rev 11) (prog-if 01 [AHCI 1.0])", 0, "ahci")
    # socket 0: root port 00:01.0 -> switch 01:00.0 -> GPU0 03:00.0, GPU1 04:00.0, eth2 0c:00.0, NVMe 0d:00.0
    t += bridge("0000:00:01.0", ROOT_DESC, 0, "00", "01", "0d", "Root Port (Slot+)", 0, slot=1, root=True)
    t += bridge("0000:01:00.0", SWITCH_DESC, 0, "01", "02", "0d", "Upstream Port", 0)
    for n, (dev, sec) in enumerate((("00", "03"), ("01", "04"), ("02", "0c"), ("03", "0d"))):
        t += bridge(f"0000:02:{dev}.0", SWITCH_DESC, 0, "02", sec, sec, "Downstream Port (Slot-)", n + 1, slot=None)
    t += gpu("0000:03:00.0", 0, 120, s + 1)
    t += gpu("0000:04:00.0", 0, 121, s + 2)
    t += cx7("0000:0c:00.0", 0, 122, s + 3)
    t += nvme_ctrl("0000:0d:00.0", 0, 123)
    # socket 1: root port 80:01.0 -> switch 81:00.0 -> GPU2 83:00.0, GPU3 84:00.0, eth3 8a:00.0
    t += other("0000:80:00.0", "Host bridge", "Intel Corporation Device 09a2 (rev 20)", 1)
    t += bridge("0000:80:01.0", ROOT_DESC, 1, "80", "81", "8a", "Root Port (Slot+)", 0, slot=2, root=True)
    t += bridge("0000:81:00.0", SWITCH_DESC, 1, "81", "82", "8a", "Upstream Port", 0)
    for n, (dev, sec) in enumerate((("00", "83"), ("01", "84"), ("02", "8a"))):
        t += bridge(f"0000:82:{dev}.0", SWITCH_DESC, 1, "82", sec, sec, "Downstream Port (Slot-)", n + 1, slot=None)
    t += gpu("0000:83:00.0", 1, 130, s + 4)
    t += gpu("0000:84:00.0", 1, 131, s + 5)
    t += cx7("0000:8a:00.0", 1, 132, s + 6)
    # management NIC eth0 on its own root port
    t += bridge("0000:c0:01.1", ROOT_DESC, 1, "c0", "c1", "c1", "Root Port (Slot+)", 0, slot=3, root=True)
    t += x710("0000:c1:00.0", 1, 140)
    return t


def topo():
    nic = lambda a, b: [a, b]
    rows = [("GPU0", ["X", "NV18", "NV18", "NV18", "PIX", "SYS"], "0-31,64-95", "0"),
            ("GPU1", ["NV18", "X", "NV18", "NV18", "PIX", "SYS"], "0-31,64-95", "0"),
            ("GPU2", ["NV18", "NV18", "X", "NV18", "SYS", "PIX"], "32-63,96-127", "1"),
            ("GPU3", ["NV18", "NV18", "NV18", "X", "SYS", "PIX"], "32-63,96-127", "1")]
    cell = lambda c: " X " if c == "X" else c
    t = "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    for name, cells, cpus, numa in rows:
        t += name + "\t" + "\t".join(cell(c) for c in cells) + f"\t{cpus}\t{numa}\t\tN/A\n"
    t += "NIC0\tPIX\tPIX\tSYS\tSYS\t X \tSYS\t\t\t\t\n"
    t += "NIC1\tSYS\tSYS\tPIX\tPIX\tSYS\t X \t\t\t\t\n"
    t += ("\nLegend:\n\n"
          "  X    = Self\n"
          "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
          "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
          "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
          "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
          "  PIX  = Connection traversing at most a single PCIe bridge\n"
          "  NV#  = Connection traversing a bonded set of # NVLinks\n"
          "\nNIC Legend:\n\n"
          "  NIC0: mlx5_0\n"
          "  NIC1: mlx5_1\n\n")
    return t


def ethtool_i(ifname):
    bus = {"eth2": "0000:0c:00.0", "eth3": "0000:8a:00.0"}[ifname]
    return ("driver: mlx5_core\n"
            "version: 24.10-1.1.4\n"
            "firmware-version: 28.41.1000 (MT_0000000838)\n"
            "expansion-rom-version: \n"
            f"bus-info: {bus}\n"
            "supports-statistics: yes\n"
            "supports-test: yes\n"
            "supports-eeprom-access: no\n"
            "supports-register-dump: no\n"
            "supports-priv-flags: yes\n")


def sysfs_pci_cmd(ifname):
    base = f"/sys/class/net/{ifname}/device"
    return f"grep -H . {base}/numa_node {base}/*_link_*"


def sysfs_pci(ifname):
    base = f"/sys/class/net/{ifname}/device"
    numa = {"eth2": 0, "eth3": 1}[ifname]
    return (f"{base}/numa_node:{numa}\n"
            f"{base}/current_link_speed:32.0 GT/s PCIe\n"
            f"{base}/current_link_width:16\n"
            f"{base}/max_link_speed:32.0 GT/s PCIe\n"
            f"{base}/max_link_width:16\n")


def ethtool_s(h, ifname):
    """ethtool -S of a ConnectX-7 port (mlx5 names), 8 channels; PFC on priority 3 only."""
    k = HOSTS.index(h) + 1 + (10 if ifname == "eth3" else 0)
    rx_pk, tx_pk = 9_812_345_678 + 1_003 * k, 9_734_567_890 + 997 * k
    rx_by, tx_by = rx_pk * 4_100, tx_pk * 4_090
    c = [("rx_packets", 3_215_876 + k), ("rx_bytes", 412_331_902 + k), ("tx_packets", 3_198_221 + k),
         ("tx_bytes", 398_770_114 + k), ("tx_tso_packets", 0), ("tx_tso_bytes", 0), ("rx_lro_packets", 0),
         ("rx_lro_bytes", 0), ("rx_ecn_mark", 0), ("rx_csum_unnecessary", 3_215_800 + k), ("rx_csum_none", 76),
         ("rx_csum_complete", 0), ("tx_csum_partial", 1_022_114), ("tx_csum_none", 2_176_107 + k),
         ("tx_queue_stopped", 0), ("tx_queue_dropped", 0), ("tx_xmit_more", 1_115), ("tx_recover", 0),
         ("tx_cqes", 3_197_106 + k), ("tx_queue_wake", 0), ("tx_cqe_err", 0), ("rx_wqe_err", 0),
         ("rx_buff_alloc_err", 0), ("rx_cqe_compress_blks", 0), ("rx_cqe_compress_pkts", 0),
         ("rx_congst_umr", 0), ("rx_arfs_err", 0), ("rx_recover", 0), ("ch_events", 4_117_226),
         ("ch_poll", 4_203_551), ("ch_arm", 4_116_903), ("ch_aff_change", 0), ("ch_force_irq", 0),
         ("ch_eq_rearm", 0),
         ("rx_out_of_buffer", 0), ("rx_if_down_packets", 0), ("rx_steer_missed_packets", 0),
         ("rx_vport_unicast_packets", 3_100_221 + k), ("rx_vport_unicast_bytes", 401_998_117 + k),
         ("tx_vport_unicast_packets", 3_090_110 + k), ("tx_vport_unicast_bytes", 390_117_220 + k),
         ("rx_vport_multicast_packets", 115_655), ("rx_vport_multicast_bytes", 10_333_785),
         ("tx_vport_multicast_packets", 108_111), ("tx_vport_multicast_bytes", 8_652_894),
         ("rx_vport_broadcast_packets", 0), ("rx_vport_broadcast_bytes", 0),
         ("tx_vport_broadcast_packets", 0), ("tx_vport_broadcast_bytes", 0),
         ("rx_vport_rdma_unicast_packets", rx_pk), ("rx_vport_rdma_unicast_bytes", rx_by),
         ("tx_vport_rdma_unicast_packets", tx_pk), ("tx_vport_rdma_unicast_bytes", tx_by),
         ("rx_vport_rdma_multicast_packets", 0), ("rx_vport_rdma_multicast_bytes", 0),
         ("tx_vport_rdma_multicast_packets", 0), ("tx_vport_rdma_multicast_bytes", 0),
         ("tx_packets_phy", tx_pk + 3_198_221 + k), ("rx_packets_phy", rx_pk + 3_215_876 + k),
         ("rx_crc_errors_phy", 0), ("tx_bytes_phy", tx_by + 411_563_398), ("rx_bytes_phy", rx_by + 425_195_405),
         ("tx_multicast_phy", 108_111), ("tx_broadcast_phy", 0), ("rx_multicast_phy", 115_655),
         ("rx_broadcast_phy", 0), ("rx_in_range_len_errors_phy", 0), ("rx_out_of_range_len_phy", 0),
         ("rx_oversize_pkts_phy", 0), ("rx_symbol_err_phy", 0), ("tx_mac_control_phy", 1_533 + k),
         ("rx_mac_control_phy", 2_871 + k), ("rx_unsupported_op_phy", 0), ("rx_pause_ctrl_phy", 0),
         ("tx_pause_ctrl_phy", 0), ("rx_discards_phy", 0), ("tx_discards_phy", 0), ("tx_errors_phy", 0),
         ("rx_undersize_pkts_phy", 0), ("rx_fragments_phy", 0), ("rx_jabbers_phy", 0),
         ("rx_64_bytes_phy", 1_221_034), ("rx_65_to_127_bytes_phy", 9_011_554),
         ("rx_128_to_255_bytes_phy", 4_551_209), ("rx_256_to_511_bytes_phy", 1_100_887),
         ("rx_512_to_1023_bytes_phy", 812_903), ("rx_1024_to_1518_bytes_phy", 611_557),
         ("rx_1519_to_2047_bytes_phy", 208_112), ("rx_2048_to_4095_bytes_phy", 48_177_201),
         ("rx_4096_to_8191_bytes_phy", rx_pk - 66_000_000), ("rx_8192_to_10239_bytes_phy", 0),
         ("link_down_events_phy", 1), ("rx_pcs_symbol_err_phy", 0), ("rx_corrected_bits_phy", 1_092),
         ("rx_err_lane_0_phy", 0), ("rx_err_lane_1_phy", 0), ("rx_err_lane_2_phy", 0), ("rx_err_lane_3_phy", 0),
         ("rx_buffer_passed_thres_phy", 0), ("rx_pci_signal_integrity", 0), ("tx_pci_signal_integrity", 0),
         ("outbound_pci_stalled_rd", 0), ("outbound_pci_stalled_wr", 0),
         ("outbound_pci_stalled_rd_events", 0), ("outbound_pci_stalled_wr_events", 0),
         ("dev_out_of_buffer", 0), ("tx_pause_storm_warning_events", 0), ("tx_pause_storm_error_events", 0),
         ("module_unplug", 0), ("module_bus_stuck", 0), ("module_high_temp", 0), ("module_bad_shorted", 0)]
    for p in range(8):
        share = rx_pk // 2 if p == 3 else (3_000_000 if p == 0 else (412_000 if p == 6 else 0))
        c += [(f"rx_prio{p}_bytes", share * (4_100 if p == 3 else 120)), (f"rx_prio{p}_packets", share),
              (f"rx_prio{p}_discards", 0),
              (f"tx_prio{p}_bytes", share * (4_090 if p == 3 else 118)), (f"tx_prio{p}_packets", share)]
        if p == 3:
            c += [("rx_prio3_pause", 1_533 + k), ("rx_prio3_pause_duration", 88_120 + k),
                  ("tx_prio3_pause", 2_871 + k), ("tx_prio3_pause_duration", 151_772 + k),
                  ("rx_prio3_pause_transition", 1_533 + k)]
    for ch in range(8):
        c += [(f"ch{ch}_events", 514_653 + ch), (f"ch{ch}_poll", 525_443 + ch), (f"ch{ch}_arm", 514_612 + ch),
              (f"ch{ch}_aff_change", 0), (f"ch{ch}_force_irq", 0), (f"ch{ch}_eq_rearm", 0)]
    for ch in range(8):
        c += [(f"rx{ch}_packets", 401_984 + ch), (f"rx{ch}_bytes", 51_541_487 + ch),
              (f"rx{ch}_csum_complete", 0), (f"rx{ch}_csum_unnecessary", 401_975 + ch), (f"rx{ch}_csum_none", 9),
              (f"rx{ch}_xdp_drop", 0), (f"rx{ch}_xdp_redirect", 0), (f"rx{ch}_wqe_err", 0),
              (f"rx{ch}_buff_alloc_err", 0), (f"rx{ch}_recover", 0)]
    for ch in range(8):
        c += [(f"tx{ch}_packets", 399_777 + ch), (f"tx{ch}_bytes", 49_846_264 + ch), (f"tx{ch}_nop", 0),
              (f"tx{ch}_csum_none", 272_013 + ch), (f"tx{ch}_stopped", 0), (f"tx{ch}_dropped", 0),
              (f"tx{ch}_xmit_more", 139), (f"tx{ch}_recover", 0), (f"tx{ch}_cqes", 399_638 + ch),
              (f"tx{ch}_wake", 0), (f"tx{ch}_cqe_err", 0)]
    return "NIC statistics:\n" + "".join(f"     {n}: {v}\n" for n, v in c)


HW_COUNTERS = ["duplicate_request", "implied_nak_seq_err", "lifespan", "local_ack_timeout_err",
               "np_cnp_sent", "np_ecn_marked_roce_packets", "out_of_buffer", "out_of_sequence",
               "packet_seq_err", "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors",
               "req_remote_invalid_request", "req_rnr_retries_exceeded", "req_transport_retries_exceeded",
               "resp_cqe_error", "resp_cqe_flush_error", "resp_local_length_error",
               "resp_remote_access_errors", "rnr_nak_retry_err", "roce_adp_retrans", "roce_adp_retrans_to",
               "roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans", "rp_cnp_handled",
               "rp_cnp_ignored", "rx_atomic_requests", "rx_dct_connect", "rx_icrc_encapsulated",
               "rx_read_requests", "rx_write_requests"]


def hw_counters(h, dev):
    k = HOSTS.index(h) + 1
    v = {"lifespan": 10, "np_cnp_sent": 18_442 + k, "np_ecn_marked_roce_packets": 18_442 + k,
         "rp_cnp_handled": 16_907 + k, "rx_read_requests": 1_204_551 + k, "rx_write_requests": 88_120_334 + k,
         "req_cqe_flush_error": 12, "resp_cqe_flush_error": 12}
    base = f"/sys/class/infiniband/{dev}/ports/1/hw_counters"
    return "".join(f"{base}/{n}:{v.get(n, 0)}\n" for n in HW_COUNTERS)


def proc_cmdline():
    return ("BOOT_IMAGE=/vmlinuz-5.15.0-105-generic root=UUID=5d1c8f3e-2a7b-4e61-9c0f-3b8e2d4a6f10 ro "
            "console=tty0 console=ttyS0,115200n8 intel_iommu=off pci=realloc=off "
            "transparent_hugepage=madvise\n")


MODULES = [("nvidia_fs", 262144, 0, "-"), ("nvme_rdma", 49152, 2, "-"), ("nvme_fabrics", 32768, 1, "nvme_rdma,"),
           ("rpcrdma", 339968, 1, "-"), ("nfsv4", 1081344, 1, "-"),
           ("nvidia_uvm", 4956160, 0, "-"), ("nvidia_drm", 122880, 0, "-"), ("nvidia_modeset", 1519616, 1, "nvidia_drm,"),
           ("nvidia", 56729600, 52, "nvidia_uvm,nvidia_modeset,"), ("rdma_ucm", 28672, 0, "-"),
           ("rdma_cm", 139264, 3, "nvme_rdma,rpcrdma,rdma_ucm,"), ("iw_cm", 53248, 1, "rdma_cm,"),
           ("ib_ipoib", 151552, 0, "-"), ("ib_cm", 131072, 2, "rdma_cm,ib_ipoib,"), ("ib_umad", 40960, 0, "-"),
           ("mlx5_ib", 462848, 0, "-"), ("ib_uverbs", 180224, 2, "rdma_ucm,mlx5_ib,"),
           ("ib_core", 454656, 9, "nvme_rdma,rpcrdma,rdma_ucm,rdma_cm,iw_cm,ib_ipoib,ib_cm,ib_umad,mlx5_ib,ib_uverbs,"),
           ("mlx5_core", 2244608, 1, "mlx5_ib,"), ("mlxfw", 36864, 1, "mlx5_core,"), ("i40e", 532480, 0, "-"),
           ("nvme", 53248, 2, "-"), ("nvme_core", 180224, 6, "nvme_rdma,nvme_fabrics,nvme,")]


def proc_modules():
    return "".join(f"{n} {size} {refs} {deps} Live 0x0000000000000000{' (OE)' if n.startswith('nvidia') or n.startswith('mlx') or n.startswith('ib_') or n.startswith('rdma') or n.startswith('nvme') else ''}\n"
                   for n, size, refs, deps in MODULES)


def proc_mounts():
    return ("sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
            "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
            "udev /dev devtmpfs rw,nosuid,relatime,size=1056345672k,nr_inodes=264086418,mode=755,inode64 0 0\n"
            "devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000 0 0\n"
            "tmpfs /run tmpfs rw,nosuid,nodev,noexec,relatime,size=211274488k,mode=755,inode64 0 0\n"
            "/dev/sda2 / ext4 rw,relatime 0 0\n"
            "tmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0\n"
            "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot 0 0\n"
            "/dev/sda1 /boot/efi vfat rw,relatime,fmask=0077,dmask=0077,codepage=437,iocharset=iso8859-1,shortname=mixed,errors=remount-ro 0 0\n"
            "/dev/nvme0n1 /raid xfs rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota 0 0\n"
            "/dev/nvme1n1 /data ext4 rw,relatime,data=ordered 0 0\n"
            "10.30.0.5:/datasets /datasets nfs4 rw,relatime,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,proto=rdma,nconnect=8,port=20049,timeo=600,retrans=2,sec=sys,clientaddr=10.30.0.21,local_lock=none,addr=10.30.0.5 0 0\n")


def qos_boot():
    files = [("/etc/systemd/system/roce-qos.service", 6),
             ("/etc/systemd/system/multi-user.target.wants/roce-qos.service", 6),
             ("/etc/systemd/system/multi-user.target.wants/lldpd.service", 0),
             ("/etc/systemd/system/multi-user.target.wants/nvidia-persistenced.service", 0),
             ("/etc/systemd/system/multi-user.target.wants/nvmf-autoconnect.service", 0),
             ("/etc/systemd/system/multi-user.target.wants/ssh.service", 0),
             ("/etc/systemd/system/sshd.service", 0),
             ("/etc/systemd/system/dbus-org.freedesktop.resolve1.service", 0),
             ("/etc/udev/rules.d/70-mlnx-names.rules", 0),
             ("/etc/rc.local", 0)]
    return "".join(f"{p}:{n}\n" for p, n in files)


QOS_BOOT_CMD = ("grep -R -c -e mlnx_qos -e cma_roce_ -e ecn/roce_ "
                "/etc/systemd/system /etc/udev/rules.d /etc/NetworkManager/dispatcher.d /etc/networkd-dispatcher "
                "/etc/network/if-up.d /etc/rc.local")

NVMF_CMD = ("grep -H . /sys/module/nvme_core/parameters/multipath "
            + " ".join(f"/sys/class/nvme/*/{a}" for a in
                       ("transport", "address", "state", "subsysnqn", "*_tmo", "reconnect_delay")))


def host_addr(h, port):
    return f"10.{port}.{HOSTS.index(h) + 1}.2"


def sysfs_nvmf(h):
    """grep over /sys/class/nvme/*/...: the local PCIe controller nvme0 has no fabrics timers,
    so the globs *_tmo and reconnect_delay expand to the fabrics controllers' files only."""
    k = HOSTS.index(h) + 1
    base = "/sys/class/nvme"
    fab = [("nvme1", STORAGE_ADDR[0], host_addr(h, 30 + 1)), ("nvme2", STORAGE_ADDR[1], host_addr(h, 30 + 2))]
    t = "/sys/module/nvme_core/parameters/multipath:Y\n"
    t += f"{base}/nvme0/transport:pcie\n" + "".join(f"{base}/{c}/transport:rdma\n" for c, _, _ in fab)
    t += f"{base}/nvme0/address:0000:0d:00.0\n"
    t += "".join(f"{base}/{c}/address:traddr={tr},trsvcid=4420,host_traddr={src}\n" for c, tr, src in fab)
    t += f"{base}/nvme0/state:live\n" + "".join(f"{base}/{c}/state:live\n" for c, _, _ in fab)
    t += f"{base}/nvme0/subsysnqn:{NQN_LOCAL.format(k)}\n" + "".join(f"{base}/{c}/subsysnqn:{NQN_TARGET}\n" for c, _, _ in fab)
    for c, _, _ in fab:
        t += f"{base}/{c}/ctrl_loss_tmo:600\n{base}/{c}/fast_io_fail_tmo:5\n"
    t += "".join(f"{base}/{c}/reconnect_delay:10\n" for c, _, _ in fab)
    return t


def list_subsys(h):
    k = HOSTS.index(h) + 1
    d = [{"HostNQN": HOSTNQN.format(k), "HostID": f"4c4c4544-0047-3510-8052-b3c04f4{k:05d}",
          "Subsystems": [
              {"Name": "nvme-subsys0", "NQN": NQN_LOCAL.format(k), "IOPolicy": "numa",
               "Paths": [{"Name": "nvme0", "Transport": "pcie", "Address": "0000:0d:00.0", "State": "live"}]},
              {"Name": "nvme-subsys1", "NQN": NQN_TARGET, "IOPolicy": "numa",
               "Paths": [{"Name": "nvme1", "Transport": "rdma",
                          "Address": f"traddr={STORAGE_ADDR[0]},trsvcid=4420,host_traddr={host_addr(h, 31)}",
                          "State": "live"},
                         {"Name": "nvme2", "Transport": "rdma",
                          "Address": f"traddr={STORAGE_ADDR[1]},trsvcid=4420,host_traddr={host_addr(h, 32)}",
                          "State": "live"}]}]}]
    # json-c pretty printing, as nvme-cli 2.x prints it
    return json.dumps(d, indent=2, separators=(",", ":")) + "\n"


def show_topology(h):
    k = HOSTS.index(h) + 1
    pad = " " * 15
    return (f"nvme-subsys0 - NQN={NQN_LOCAL.format(k)}\n"
            f"{pad}hostnqn={HOSTNQN.format(k)}\n"
            f"{pad}iopolicy=numa\n"
            "\\\n"
            " +- ns 1\n"
            " \\\n"
            "  +- nvme0 pcie 0000:0d:00.0 live\n"
            f"nvme-subsys1 - NQN={NQN_TARGET}\n"
            f"{pad}hostnqn={HOSTNQN.format(k)}\n"
            f"{pad}iopolicy=numa\n"
            "\\\n"
            " +- ns 1\n"
            " \\\n"
            f"  +- nvme1 rdma traddr={STORAGE_ADDR[0]},trsvcid=4420,host_traddr={host_addr(h, 31)} live optimized\n"
            f"  +- nvme2 rdma traddr={STORAGE_ADDR[1]},trsvcid=4420,host_traddr={host_addr(h, 32)} live non-optimized\n")


def discovery_conf(h):
    return ("# Used for extracting default parameters for discovery\n"
            "#\n"
            "# Example:\n"
            "# --transport=<trtype> --traddr=<traddr> --trsvcid=<trsvcid> --host-traddr=<host-traddr> --host-iface=<host-iface>\n"
            f"--transport=rdma --traddr={STORAGE_ADDR[0]} --trsvcid=4420 --host-traddr={host_addr(h, 31)} --fast_io_fail_tmo=5 --tos=42\n"
            f"--transport=rdma --traddr={STORAGE_ADDR[1]} --trsvcid=4420 --host-traddr={host_addr(h, 32)} --fast_io_fail_tmo=5 --tos=42\n")


def gdscheck():
    drivers = [("NVMe P2PDMA", "Unsupported"), ("NVMe", "Supported"), ("NVMeOF", "Supported"), ("SCSI", "Unsupported"),
               ("ScaleFlux CSD", "Unsupported"), ("NVMesh", "Unsupported"), ("DDN EXAScaler", "Unsupported"),
               ("IBM Spectrum Scale", "Unsupported"), ("NFS", "Supported"), ("BeeGFS", "Unsupported"),
               ("ScaTeFS", "Unsupported"), ("WekaFS", "Unsupported"), ("Userspace RDMA", "Unsupported")]
    cfg = ["properties.use_pci_p2pdma : false", "properties.use_compat_mode : true",
           "properties.force_compat_mode : false", "properties.gds_rdma_write_support : true",
           "properties.use_poll_mode : false", "properties.poll_mode_max_size_kb : 4",
           "properties.max_batch_io_size : 128", "properties.max_batch_io_timeout_msecs : 5",
           "properties.max_direct_io_size_kb : 16384", "properties.max_device_cache_size_kb : 131072",
           "properties.max_device_pinned_mem_size_kb : 33554432", "properties.posix_pool_slab_size_kb : 4 1024 16384 ",
           "properties.posix_pool_slab_count : 128 64 64 ", "properties.rdma_peer_affinity_policy : RoundRobin",
           "properties.rdma_dynamic_routing : 0", "fs.generic.posix_unaligned_writes : false",
           "fs.lustre.posix_gds_min_kb: 0", "fs.beegfs.posix_gds_min_kb: 0", "fs.weka.rdma_write_support: false",
           "fs.gpfs.gds_write_support: false", "fs.gpfs.gds_async_support: true", "profile.nvtx : false",
           "profile.cufile_stats : 0", "miscellaneous.api_check_aggressive : false", "execution.max_io_threads : 4",
           "execution.max_io_queue_depth : 128", "execution.parallel_io : true",
           "execution.min_io_threshold_size_kb : 8192", "execution.max_request_parallelism : 4",
           "properties.force_odirect_mode : false", "properties.prefer_iouring : false"]
    t = (" GDS release version: 1.13.1.3\n"
         " nvidia_fs version:  2.24 libcufile version: 2.12\n"
         " Platform: x86_64\n"
         " ============\n ENVIRONMENT:\n ============\n"
         " =====================\n DRIVER CONFIGURATION:\n =====================\n")
    t += "".join(f" {n:<19}: {s}\n" for n, s in drivers)
    t += (" --Mellanox PeerDirect : Enabled\n"
          " --rdma library        : Not Loaded (libcufile_rdma.so)\n"
          " --rdma devices        : Not configured\n"
          " --rdma_device_status  : Up: 0 Down: 0\n"
          " =====================\n CUFILE CONFIGURATION:\n =====================\n")
    t += "".join(f" {c}\n" for c in cfg)
    t += " =========\n GPU INFO:\n =========\n"
    t += "".join(f" GPU index {i} NVIDIA H100 80GB HBM3 bar:1 bar size (MiB):131072 supports GDS, IOMMU State: Disabled\n"
                 for i in range(4))
    t += (" ==============\n PLATFORM INFO:\n ==============\n"
          " IOMMU: disabled\n"
          " Nvidia Driver Info Status: Supported(Nvidia Open Driver Installed)\n"
          " Cuda Driver Version Installed:  12040\n"
          " Platform: PowerEdge XE9680, Arch: x86_64(Linux 5.15.0-105-generic)\n"
          " Platform verification succeeded\n")
    return t


NCCL_CONF = ("NCCL_IB_HCA=mlx5_0,mlx5_1\n"
             "NCCL_IB_GID_INDEX=3\n"
             "NCCL_IB_TC=106\n"
             "NCCL_IB_TIMEOUT=20\n"
             "NCCL_IB_RETRY_CNT=7\n"
             "NCCL_SOCKET_IFNAME=eth0\n")

OPTIONAL = {"ibdev2netdev", "lspci -D -vvv", "nvidia-smi topo -m", QOS_BOOT_CMD, "cat /etc/nccl.conf",
            "nvme list-subsys -o json", "nvme show-topology", NVMF_CMD, "cat /etc/nvme/discovery.conf",
            "/usr/local/cuda/gds/tools/gdscheck -p"}


def host_hw_outputs(h):
    """The host-wide and per-port hardware outputs, in collection order after the existing ones."""
    per_if, per_dev, once = [], [], []
    for ifname in ("eth2", "eth3"):
        per_if += [(f"ethtool -S {ifname}", ethtool_s(h, ifname)),
                   (f"ethtool -i {ifname}", ethtool_i(ifname)),
                   (sysfs_pci_cmd(ifname), sysfs_pci(ifname))]
    for dev in ("mlx5_0", "mlx5_1"):
        per_dev.append((f"grep -H . /sys/class/infiniband/{dev}/ports/*/hw_counters/*", hw_counters(h, dev)))
    once += [("ibdev2netdev", "mlx5_0 port 1 ==> eth2 (Up)\nmlx5_1 port 1 ==> eth3 (Up)\n"),
             ("lspci -D -vvv", lspci(h)),
             ("nvidia-smi topo -m", topo()),
             ("cat /proc/cmdline", proc_cmdline()),
             ("uname -m", "x86_64\n"),
             ("cat /proc/modules", proc_modules()),
             ("cat /proc/mounts", proc_mounts()),
             (QOS_BOOT_CMD, qos_boot()),
             ("cat /etc/nccl.conf", NCCL_CONF),
             ("nvme list-subsys -o json", list_subsys(h)),
             ("nvme show-topology", show_topology(h)),
             (NVMF_CMD, sysfs_nvmf(h)),
             ("cat /etc/nvme/discovery.conf", discovery_conf(h)),
             ("/usr/local/cuda/gds/tools/gdscheck -p", gdscheck())]
    return per_if, per_dev, once


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
    per_if, per_dev, once = host_hw_outputs(h)
    outputs += per_if + per_dev + once
    meta = [f'platform = "linux"', f'role = "host"', f'address = "192.0.2.{100 + HOSTS.index(h)}"',
            'collected_at = "2026-11-30T03:00:00Z"', ""]
    for n, (cmd, text) in enumerate(outputs):
        f = cmd_file(cmd)
        with open(os.path.join(d, f), "w") as fh:
            fh.write(text)
        meta += ["[[command]]", f"cmd = {json.dumps(cmd)}", f"file = {json.dumps(f)}", "exit = 0",
                 f"duration_ms = {40 + 7 * n}", f"bytes = {len(text.encode())}"]
        if cmd in OPTIONAL or "pfc-prevention-tout" in cmd:
            meta.append("optional = true")
        meta.append("")
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
