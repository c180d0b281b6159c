// The secrets of the redaction test: (platform, line), `{M}` standing for the row's unique
// marker. Written in each vendor's syntax (see the references in src/redact.rs); the values are
// made up. A row may hold `\n` (a block) or the marker twice (two secrets of one statement).

pub const ROWS: &[(&str, &str)] = &[
    // ---------------- NX-OS ----------------
    (
        "nxos",
        "username admin password 5 $5$Hq1N{M}$T2u7Vb9eXwq0Jt3mYk6Lr1pSd8  role network-admin",
    ),
    ("nxos", "username ops password 0 {M} role network-operator"),
    ("nxos", "tacacs-server key 7 \"{M}\""),
    ("nxos", "tacacs-server host 192.0.2.9 key 7 \"{M}\""),
    ("nxos", "radius-server key 7 \"{M}\""),
    (
        "nxos",
        "radius-server host 192.0.2.10 key 7 {M} authentication accounting",
    ),
    ("nxos", "snmp-server community {M} group network-operator"),
    ("nxos", "snmp-server host 192.0.2.11 traps version 2c {M}"),
    (
        "nxos",
        "snmp-server host 192.0.2.12 informs version 2c {M} udp-port 1162",
    ),
    (
        "nxos",
        "snmp-server user admin network-admin auth md5 0x{M}a1 priv 0x{M}b2 localizedkey",
    ),
    (
        "nxos",
        "snmp-server user monitor network-operator auth sha {M}a priv aes-128 {M}b",
    ),
    ("nxos", "  key-string 7 {M}"),
    ("nxos", "    password 3 {M}"),
    ("nxos", "  ip ospf message-digest-key 1 md5 3 {M}"),
    ("nxos", "  ip ospf authentication-key 3 {M}"),
    ("nxos", "ntp authentication-key 1 md5 {M} 7"),
    ("nxos", "    authentication md5 key-string {M}"),
    (
        "nxos",
        "ldap-server host 192.0.2.13 rootDN \"cn=reader\" password 7 {M} port 389",
    ),
    ("nxos", "  pre-shared-key 0 {M}"),
    (
        "nxos",
        "username admin sshkey ssh-rsa AAAAB3NzaC1yc2E{M}xyz admin@host",
    ),
    ("nxos", "    authentication text {M}"),
    (
        "nxos",
        "feature password encryption aes\nkey config-key ascii {M}",
    ),
    // ---------------- EOS ----------------
    ("eos", "aaa root secret sha512 $6${M}$Vq0Z9kQ1Yc"),
    (
        "eos",
        "username admin privilege 15 role network-admin secret sha512 $6$ab{M}$Xy",
    ),
    ("eos", "username viewer secret 0 {M}"),
    ("eos", "enable password sha512 $6$en{M}$Zz"),
    ("eos", "enable secret 5 $1${M}$abc"),
    ("eos", "tacacs-server host 192.0.2.9 vrf MGMT key 7 {M}"),
    ("eos", "radius-server key 7 {M}"),
    ("eos", "radius-server host 192.0.2.10 vrf MGMT key 7 {M}"),
    ("eos", "snmp-server community {M} ro"),
    ("eos", "snmp-server host 192.0.2.11 vrf MGMT version 2c {M}"),
    (
        "eos",
        "snmp-server host 192.0.2.12 traps version 2c {M} udp-port 162",
    ),
    (
        "eos",
        "snmp-server user ops netops v3 auth sha512 {M}a priv aes256 {M}b",
    ),
    (
        "eos",
        "snmp-server user ops2 netops v3 localized 0x8000 auth sha {M}a priv aes {M}b",
    ),
    ("eos", "   neighbor 10.1.1.1 password 7 {M}"),
    ("eos", "   neighbor SPINES password 7 {M}="),
    ("eos", "   ip ospf authentication-key 7 {M}"),
    ("eos", "   ip ospf message-digest-key 1 sha512 7 {M}"),
    ("eos", "   isis authentication key 7 {M}"),
    (
        "eos",
        "daemon TerminAttr\n   exec /usr/bin/TerminAttr -cvaddr=192.0.2.20:9910 -cvauth=key,{M} -cvvrf=MGMT -taillogs\n   no shutdown",
    ),
    (
        "eos",
        "   exec /usr/bin/TerminAttr -cvopt DC1.addr=192.0.2.21:9910 -cvopt DC1.auth=key,{M} -cvopt DC1.vrf=MGMT",
    ),
    ("eos", "ntp authentication-key 1 md5 7 {M}"),
    (
        "eos",
        "username admin ssh-key ssh-rsa AAAAB3{M}Nza admin@host",
    ),
    ("eos", "   key 7 {M}"),
    ("eos", "mac security\n   profile MS1\n      key {M}a 7 {M}b"),
    (
        "eos",
        "management security\n   shared-secret profile P1\n      secret 0 {M}",
    ),
    // ---------------- Cumulus (NVUE, NCLU, FRR, snmpd.conf, ntp.keys) ----------------
    (
        "cumulus",
        "nv set system aaa user admin hashed-password $6$rounds=5000${M}$Q",
    ),
    (
        "cumulus",
        "nv set service snmp-server readonly-community {M} access any",
    ),
    (
        "cumulus",
        "nv set service snmp-server username snmpv3 auth-md5 {M}a encrypt-aes {M}b",
    ),
    (
        "cumulus",
        "nv set service snmp-server username u2 auth-sha {M}a encrypt-des {M}b",
    ),
    (
        "cumulus",
        "nv set service snmp-server trap-destination 192.0.2.30 community-password {M} version 2c",
    ),
    (
        "cumulus",
        "nv set vrf default router bgp neighbor 10.0.0.1 password {M}",
    ),
    ("cumulus", "nv set system aaa tacacs server 1 secret {M}"),
    (
        "cumulus",
        "nv set system aaa radius server 192.0.2.31 secret '{M}'",
    ),
    (
        "cumulus",
        "net add snmp-server readonly-community {M} access any",
    ),
    ("cumulus", "net add bgp neighbor swp51 password {M}"),
    (
        "cumulus",
        "net add snmp-server username u3 auth-sha {M}a encrypt-aes {M}b",
    ),
    ("cumulus", "net add username netops password {M}"),
    ("cumulus", "createUser snmpuser SHA \"{M}a\" AES \"{M}b\""),
    ("cumulus", "rocommunity {M} default"),
    ("cumulus", "rwcommunity6 {M} default"),
    ("cumulus", "trap2sink 192.0.2.32 {M}"),
    ("cumulus", "com2sec readonly default {M}"),
    ("cumulus", "1 M {M}"),
    ("cumulus", " neighbor 10.0.0.2 password {M}"),
    ("cumulus", " ip ospf message-digest-key 1 md5 {M}"),
    (
        "cumulus",
        "service:\n  snmp-server:\n    readonly-community:\n      {M}:\n        access:\n          any: {}\n    enable: on",
    ),
    (
        "cumulus",
        "system:\n  aaa:\n    user:\n      admin:\n        hashed-password: $6${M}$abc",
    ),
    (
        "cumulus",
        "          neighbor:\n            10.0.0.3:\n              password: {M}",
    ),
    ("cumulus", "      tacacs:\n        secret: '{M}'"),
    (
        "cumulus",
        "{\"service\": {\"snmp-server\": {\"readonly-community\": {\"{M}\": {\"access\": {\"any\": {}}}}}}}",
    ),
    (
        "cumulus",
        "nv set system dot1x radius server 192.0.2.33 shared-secret {M}",
    ),
    // ---------------- SONiC (config DB JSON, FRR, snmp.yml) ----------------
    (
        "sonic",
        "\"LDAP\": {\"global\": {\"bind_dn\": \"cn=admin\", \"bind_password\": \"{M}\"}}",
    ),
    (
        "sonic",
        "\"TACPLUS\": {\"global\": {\"auth_type\": \"pap\", \"passkey\": \"{M}\"}}",
    ),
    (
        "sonic",
        "\"TACPLUS_SERVER\": {\"192.0.2.40\": {\"priority\": \"1\", \"passkey\": \"{M}\", \"tcp_port\": \"49\"}}",
    ),
    ("sonic", "\"RADIUS\": {\"global\": {\"passkey\": \"{M}\"}}"),
    (
        "sonic",
        "\"RADIUS_SERVER\": {\"192.0.2.41\": {\"passkey\": \"{M}\", \"auth_port\": \"1812\"}}",
    ),
    (
        "sonic",
        "\"MACSEC_PROFILE\": {\"MP1\": {\"priority\": \"64\", \"cipher_suite\": \"GCM-AES-128\", \"primary_cak\": \"{M}a\", \"primary_ckn\": \"{M}b\"}}",
    ),
    (
        "sonic",
        "\"MACSEC_PROFILE\": {\n        \"MP2\": {\n            \"fallback_cak\": \"{M}a\",\n            \"fallback_ckn\": \"{M}b\"\n        }\n    }",
    ),
    ("sonic", "\"SNMP_COMMUNITY\": {\"{M}\": {\"TYPE\": \"RO\"}}"),
    (
        "sonic",
        "\"SNMP_COMMUNITY\": {\n        \"{M}\": {\n            \"TYPE\": \"RW\"\n        }\n    }",
    ),
    ("sonic", "\"SNMP_COMMUNITY|{M}\": {\"TYPE\": \"RO\"}"),
    (
        "sonic",
        "\"SNMP_USER\": {\"u1\": {\"SNMP_USER_AUTH_PASSWORD\": \"{M}a\", \"SNMP_USER_ENCRYPTION_PASSWORD\": \"{M}b\"}}",
    ),
    (
        "sonic",
        "\"NTP_KEY\": {\"1\": {\"type\": \"md5\", \"value\": \"{M}\", \"trusted\": \"yes\"}}",
    ),
    (
        "sonic",
        "\"NTP_KEY\": {\n        \"2\": {\n            \"trusted\": \"yes\",\n            \"type\": \"sha1\",\n            \"value\": \"{M}\"\n        }\n    }",
    ),
    (
        "sonic",
        "\"BGP_NEIGHBOR\": {\"10.0.0.5\": {\"asn\": \"65100\", \"password\": \"{M}\"}}",
    ),
    (
        "sonic",
        "\"SNMP_AGENT\": {\"x\": {\"snmp_rocommunity\": \"{M}\"}}",
    ),
    ("sonic", "\"USER\": {\"admin\": {\"secret\": \"{M}\"}}"),
    ("sonic", "\"KDUMP\": {\"config\": {\"key\": \"{M}\"}}"),
    (
        "sonic",
        "\"TACPLUS_SERVER|192.0.2.42\": {\"passkey\": \"{M}\"}",
    ),
    (
        "sonic",
        "\"BGP_PEER_RANGE\": {\"R1\": {\"auth_password\": \"{M}\"}}",
    ),
    (
        "sonic",
        "\"DEVICE_METADATA\": {\"localhost\": {\"api_key\": \"{M}\"}}",
    ),
    // ---------------- Onyx ----------------
    ("onyx", "username admin password 7 $6${M}$zzz"),
    ("onyx", "username monitor password 0 {M}"),
    ("onyx", "snmp-server community {M} ro"),
    ("onyx", "snmp-server community {M} rw"),
    (
        "onyx",
        "snmp-server user u1 v3 auth sha {M}a priv aes-128 {M}b",
    ),
    (
        "onyx",
        "snmp-server user u2 v3 encrypted auth sha 0x{M}a priv aes-128 0x{M}b",
    ),
    ("onyx", "snmp-server host 192.0.2.50 traps version 2c {M}"),
    ("onyx", "snmp-server host 192.0.2.51 informs {M}"),
    ("onyx", "radius-server key {M}"),
    ("onyx", "radius-server host 192.0.2.52 key 7 {M}"),
    ("onyx", "tacacs-server key 7 {M}"),
    ("onyx", "tacacs-server host 192.0.2.53 key 7 {M}"),
    ("onyx", "ldap bind-password {M}"),
    (
        "onyx",
        "router bgp 65000 vrf default neighbor 10.0.0.6 password 7 {M}",
    ),
    ("onyx", "ntp authentication-key 1 md5 encrypted {M}"),
    ("onyx", "ntp authentication-key 2 sha1 plaintext {M}"),
    (
        "onyx",
        "interface ethernet 1/1 ip ospf authentication-key {M}",
    ),
    (
        "onyx",
        "interface ethernet 1/2 ip ospf message-digest-key 1 md5 {M}",
    ),
    ("onyx", "username oper password 7 {M}"),
    (
        "onyx",
        "   snmp-server user u3 v3 capability admin auth sha256 {M}",
    ),
    // ---------------- Junos ----------------
    (
        "junos",
        "        encrypted-password \"$6${M}$abc\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "set system root-authentication encrypted-password \"$6${M}$def\"",
    ),
    (
        "junos",
        "set system login user ops authentication encrypted-password \"$6${M}$x\"",
    ),
    ("junos", "            secret \"$9${M}\"; ## SECRET-DATA"),
    (
        "junos",
        "set system tacplus-server 192.0.2.60 secret \"$9${M}\"",
    ),
    (
        "junos",
        "set system radius-server 192.0.2.61 secret \"$9${M}\"",
    ),
    (
        "junos",
        "        authentication-key \"$9${M}\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "set protocols bgp group EBGP authentication-key \"$9${M}\"",
    ),
    (
        "junos",
        "    authentication-key 1 type md5 value \"$9${M}\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "set system ntp authentication-key 2 type sha256 value \"$9${M}\"",
    ),
    ("junos", "set snmp community {M} authorization read-only"),
    (
        "junos",
        "    community {M} {\n        authorization read-only;\n    }",
    ),
    (
        "junos",
        "set snmp v3 usm local-engine user ops authentication-sha authentication-password {M}",
    ),
    (
        "junos",
        "set snmp v3 usm local-engine user ops privacy-aes128 privacy-password {M}",
    ),
    (
        "junos",
        "                    authentication-password \"$9${M}\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "                    privacy-password \"$9${M}\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "set protocols ospf area 0.0.0.0 interface xe-0/0/0.0 authentication md5 1 key \"$9${M}\"",
    ),
    (
        "junos",
        "set security ike policy P1 pre-shared-key ascii-text \"$9${M}\"",
    ),
    (
        "junos",
        "            ckn {M};\n            cak \"$9${M}\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "set security macsec connectivity-association CA1 pre-shared-key ckn {M}a cak \"$9${M}b\"",
    ),
    (
        "junos",
        "            ssh-rsa \"ssh-rsa AAAAB3{M}Nza ops@host\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "            simple-password \"{M}\"; ## SECRET-DATA",
    ),
    (
        "junos",
        "set system login user ops authentication plain-text-password-value \"{M}\"; ## SECRET-DATA",
    ),
    // ---------------- OS10 / OS9 ----------------
    (
        "os10",
        "username admin password $6$rounds=656000${M}$x role sysadmin priv-lvl 15",
    ),
    ("os10", "system-user linuxadmin password $6${M}$y"),
    ("os10", "username ops password 7 {M} privilege 15"),
    ("os10", "enable password 7 {M}"),
    ("os10", "enable password level 15 7 {M}"),
    ("os10", "enable secret 5 {M}"),
    ("os10", "snmp-server community {M} ro"),
    (
        "os10",
        "snmp-server host 192.0.2.70 traps version 2c {M} udp-port 162",
    ),
    ("os10", "snmp-server host 192.0.2.71 version 1 {M}"),
    (
        "os10",
        "snmp-server user u1 g1 3 auth sha {M}a priv aes {M}b",
    ),
    ("os10", "radius-server host 192.0.2.72 key 9 {M}"),
    ("os10", "tacacs-server host 192.0.2.73 key 9 {M}"),
    ("os10", "  neighbor 10.0.0.7\n   password 9 {M}"),
    ("os10", "   password {M}"),
    ("os10", "ntp authentication-key 1 md5 0 {M}"),
    ("os10", "ntp authentication-key 2 sha1 9 {M}"),
    ("os10", " ip ospf message-digest-key 1 md5 9 {M}"),
    ("os10", " ip ospf authentication-key 7 {M}"),
    ("os10", " neighbor 10.0.0.8 password 7 {M}"),
    ("os10", "ldap-server bind-password 9 {M}"),
    ("os10", "username netops secret 5 {M} privilege 15"),
    // ---------------- Linux hosts ----------------
    (
        "linux",
        "root      4242  0.0  0.0  10240  2048 ?  Ss  10:00  0:00 nvme connect -t rdma -a 192.0.2.80 -n nqn.2014-08.org.example:s1 --dhchap-secret=DHHC-1:00:{M}a: --dhchap-ctrl-secret=DHHC-1:01:{M}b:",
    ),
    (
        "linux",
        "nvme connect -t tcp -a 192.0.2.81 -n nqn.x --dhchap-secret DHHC-1:02:{M}:",
    ),
    (
        "linux",
        "--transport=rdma --traddr=192.0.2.82 --trsvcid=4420 --nqn=nqn.y --dhchap-secret=DHHC-1:00:{M}:",
    ),
    ("linux", "node.session.auth.password = {M}"),
    ("linux", "node.session.auth.password_in = {M}"),
    ("linux", "discovery.sendtargets.auth.password = {M}"),
    (
        "linux",
        "root  77  iscsiadm -m node -T iqn.2001-05.com.example:t1 -o update -n node.session.auth.password -v {M}",
    ),
    ("linux", "wpa_passphrase={M}"),
    ("linux", "\tpsk=\"{M}\""),
    (
        "linux",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEow{M}IBAAKCAQEA\nQ2{M}xyz\n-----END RSA PRIVATE KEY-----",
    ),
    (
        "linux",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{M}\n-----END OPENSSH PRIVATE KEY-----",
    ),
    ("linux", "Authorization: Bearer eyJhbGciOi{M}.payload.sig"),
    (
        "linux",
        "curl -H \"Authorization: Bearer {M}\" https://cv.example/api",
    ),
    (
        "linux",
        "//nas1/share /mnt/share cifs rw,relatime,vers=3.0,username=svc,password={M},uid=0 0 0",
    ),
    ("linux", "mysql -u root --password={M} -e status"),
    ("linux", "sshpass -p {M} ssh admin@192.0.2.83"),
    (
        "linux",
        "ipmitool -I lanplus -H 192.0.2.84 -U admin -P {M} chassis status",
    ),
    ("linux", "git clone https://deploy:{M}@git.example/repo.git"),
    ("linux", "AWS_SECRET_ACCESS_KEY={M}"),
    ("linux", "PrivateKey = {M}="),
    ("linux", "net.ipv4.tcp_fastopen_key = {M}"),
    ("linux", "curl -u admin:{M} https://bmc.example/redfish"),
    (
        "linux",
        "ip xfrm state add src 192.0.2.85 dst 192.0.2.86 proto esp spi 0x100 auth-trunc 'hmac(sha256)' 0x{M}00 128 enc 'cbc(aes)' 0x{M}11",
    ),
    ("linux", "ip macsec add macsec0 tx sa 0 pn 1 on key 02 {M}"),
    (
        "linux",
        "{\"Subsystems\": [{\"NQN\": \"nqn.z\", \"dhchap_key\": \"{M}\"}]}",
    ),
    (
        "linux",
        "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro rd.iscsi.initiator=iqn.x rd.iscsi.password={M}",
    ),
    ("linux", "export API_TOKEN={M}"),
    ("linux", "snmpd -c /etc/snmp/snmpd.conf --community {M}"),
    ("linux", "rocommunity {M} 10.0.0.0/8"),
    (
        "linux",
        "-----BEGIN EC PRIVATE KEY-----\n{M}AwEHoUQDQgAE\n-----END EC PRIVATE KEY-----",
    ),
];
