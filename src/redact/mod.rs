//! Secrets never reach the disk or a report: every text a device sends and every file a snapshot
//! holds passes through [`redact`] (by `collect` before it writes, by the snapshot reader before
//! anything is parsed or reported), which replaces passwords, keys, communities, hashes and
//! tokens with `<redacted>` and keeps the rest of the line so the structure stays readable
//! (`snmp-server community <redacted> ro`).
//!
//! The rules of all eight platforms apply to every text, whatever platform it is said to be:
//! a hand-made snapshot may be misdetected, a Linux host may run FRR, a Cumulus switch prints
//! Linux files. They are written from each vendor's command reference:
//! - NX-OS: Cisco, "Cisco Nexus 9000 Series NX-OS Security Configuration Guide" (`username …
//!   password 5`, `tacacs-server key 7`, `snmp-server user … auth md5 0x… priv 0x… localizedkey`),
//!   <https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus9000/sw/93x/security/configuration/guide/b-cisco-nexus-9000-nx-os-security-configuration-guide-93x.html>
//! - EOS: Arista, "EOS User Manual" (`username … secret sha512`, `aaa root secret`, `daemon
//!   TerminAttr` `-cvauth=key,…`), <https://www.arista.com/en/um-eos>
//! - Junos: Juniper, "authentication-key (NTP)" (`authentication-key N type md5 value "…"`),
//!   <https://www.juniper.net/documentation/us/en/software/junos/time-mgmt/topics/concept/ntp-authentication-keys.html>;
//!   Junos marks every secret it prints with `## SECRET-DATA`.
//! - Cumulus: NVIDIA, "NVUE Command Reference: SNMP Server" (`readonly-community`, `username …
//!   auth-md5 … encrypt-aes …`),
//!   <https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/SNMP-Server/>
//! - SONiC: sonic-net, "MACsec SONiC High Level Design" (`MACSEC_PROFILE` `primary_cak`,
//!   `primary_ckn`), <https://github.com/sonic-net/SONiC/blob/master/doc/macsec/MACsec_hld.md>;
//!   config DB `TACPLUS`/`RADIUS` `passkey`, `LDAP` `bind_password`, `SNMP_COMMUNITY`.
//! - Onyx: NVIDIA, "Onyx User Manual" (`username … password 7`, `snmp-server user … v3 auth
//!   sha … priv aes-128 …`), <https://docs.nvidia.com/networking/display/onyxv3104100>
//! - OS10/OS9: Dell, "SmartFabric OS10 User Guide" (`password 9 …` under a BGP neighbor,
//!   `system-user … password`), <https://www.dell.com/support/manuals/en-us/smartfabric-os10-emp-partner>
//! - Linux: "nvme-connect(1)" (`--dhchap-secret=DHHC-1:…`, `--dhchap-ctrl-secret`),
//!   <https://www.mankier.com/1/nvme-connect>; open-iscsi `iscsid.conf`
//!   (`node.session.auth.password`); wpa_supplicant `psk=`; PEM private key blocks.
//!
//! Every rule is applied to one line at a time; a rule is either anchored at the line start
//! (one attempt per line) or starts with a literal keyword and ends its value at white space,
//! so a text is read in time linear in its size (the `regex` crate has no backtracking). Three
//! constructs span lines and are followed by a small state machine instead of a regex: PEM
//! private key blocks, YAML keys whose children are secrets (`readonly-community:` then the
//! community names), and JSON documents (keys and values by name, at any nesting).
//! Redaction never adds or removes a line, so line numbers in reports stay those of the file,
//! and keeps a line's structure: a rule's capture is narrowed to the secret itself (a quoted
//! value's inside, a string's part up to its closing quote, a JSON or YAML flow value without
//! the `,` `]` `}` after it; see `syntax.rs`), so JSON stays JSON and YAML stays YAML.

mod syntax;
mod words;

use regex::Regex;
use std::sync::LazyLock;

/// What replaces a secret.
pub const MARK: &str = "<redacted>";

/// Whether `s` is what redaction wrote: [`MARK`], or the mark of a secret key after the first
/// of its object or YAML mapping (`<redacted-2>`, ...: two keys of one mapping stay two).
pub fn is_mark(s: &str) -> bool {
    s == MARK
        || s.strip_prefix("<redacted-")
            .and_then(|r| r.strip_suffix('>'))
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
}

/// The mark of the `n`-th secret key (from 1) of one mapping: [`MARK`], then `<redacted-2>`, ...
fn key_mark(n: usize) -> std::borrow::Cow<'static, str> {
    if n <= 1 {
        std::borrow::Cow::Borrowed(MARK)
    } else {
        std::borrow::Cow::Owned(format!("<redacted-{n}>"))
    }
}

/// A value: a double- or single-quoted string, or a token up to white space.
const V: &str = r#"("[^"]*"|'[^']*'|[^\s"']+)"#;
/// A value in a command line or `key=value` list: stops at `,` `;` `&` too.
const VA: &str = r#"("[^"]*"|'[^']*'|[^\s"',;&]+)"#;

/// Line rules, most specific first. Every capture group that takes part in a match is a secret.
fn rule_sources() -> Vec<String> {
    // The YAML keys whose value is a secret, as one alternation (two rules use it).
    let yaml_keys = YAML_SECRET_KEYS
        .iter()
        .chain(YAML_PARENTS)
        .copied()
        .collect::<Vec<_>>()
        .join("|");
    let v = V;
    let va = VA;
    vec![
        // ---- SNMP (NX-OS, EOS, Onyx, OS10/OS9) ----
        r"^\s*snmp-server community (\S+)".into(),
        r"^\s*snmp-server host \S+ .*?\bversion (?:1|2c|3 (?:auth|noauth|priv)) (\S+)".into(),
        r"^\s*snmp-server host \S+ (?:vrf \S+ )?(?:traps|informs) (\S+)(?: udp-port \d+)?\s*$".into(),
        r"^\s*snmp-server user \S+ .*?\bauth (?:md5|sha\S*) (\S+)".into(),
        r"^\s*snmp-server user \S+ .*?\bpriv (?:(?:aes-?\d*|des\d*|3des)\s+)?(\S+)".into(),
        // ---- TACACS+/RADIUS/LDAP servers ----
        r"^\s*(?:tacacs|radius)-server (?:host \S+ .*?)?key (?:\d+ )?(\S+)".into(),
        r"^\s*(?:tacacs|radius|ldap)-server .*?\b(?:key|password|bind-password) (?:\d+ )?(\S+)".into(),
        // ---- keys of routing protocols, NTP, key chains, MACsec ----
        r"^\s*key-string (?:\d+ )?(\S+)".into(),
        r"^\s*key config-key ascii (\S+)".into(),
        r"\bauthentication (?:text|md5 key-string(?: \d)?|key-string) (\S+)".into(),
        r"\bmessage-digest-key \d+ \S+ (?:\d )?(\S+)".into(),
        format!(
            r"\bauthentication-key (?:\d+ )?(?:type \S+ value |(?:md5|sha\S*|text|cmac\S*) )?(?:(?:encrypted|plaintext|\d+) )?{v}"
        ),
        r"\bisis authentication key (?:\d )?(\S+)".into(),
        // EOS key chain / MACsec profile: `key 7 SECRET`, `key CKN 7 CAK`
        r"^\s*key (?:(?:0|7|8a) (\S+)|(\S+) (?:0|7|8a) (\S+))".into(),
        format!(r#"(?:^|\s)(?:ckn|cak) ("[^"]*"|[^\s;"]+)"#),
        format!(r"\bpre-shared-key (?:\d+ |(?:ascii-text|hexadecimal) ){v}"),
        r#"\bpre-shared-key ("[^"]*")"#.into(),
        // ---- users, enable, root ----
        r"^\s*username \S+ (?:ssh-?key|sshkey) (?:(?:ssh|ecdsa|sk)-\S+ )?(\S+)".into(),
        // EOS CloudVision agent key in `daemon TerminAttr` / `exec /usr/bin/TerminAttr`
        r"-cvauth[= ](?:key|token|token-secure|certs),(\S+)".into(),
        r"-cvopt[= ]\S+\.auth=(?:key|token|token-secure|certs),(\S+)".into(),
        // ---- Junos ----
        format!(
            r#"\b(?:encrypted-password|authentication-password|privacy-password|secret|authentication-key|simple-password|ascii-text|hexadecimal|pre-shared-key|key|value) ("[^"]*")"#
        ),
        r#"\b(?:ssh-rsa|ssh-dsa|ssh-dss|ssh-ecdsa|ssh-ed25519) ("[^"]*")"#.into(),
        r"^\s*(?:inactive: )?community (\S+) \{".into(),
        r"^set snmp community (\S+)".into(),
        r"^set snmp v3 usm .*?\b(?:authentication|privacy)-(?:password|key) (\S+)".into(),
        // ---- Cumulus NVUE / NCLU, snmpd.conf, ntp.keys ----
        r"\breadonly-community(?:-v6)? (\S+)".into(),
        r"\b(?:auth-md5|auth-sha|auth-sha256|encrypt-aes|encrypt-des) (\S+)".into(),
        format!(r"^\s*createUser (?:-e \S+ )?\S+ (?:MD5|SHA\S*) {v}(?: (?:AES\S*|DES) {v})?"),
        r"^\s*r[ow]community6? (\S+)".into(),
        r"^\s*(?:trap2sink|trapsink|informsink) \S+ (\S+)".into(),
        r"^\s*trapcommunity (\S+)".into(),
        r"^\s*com2sec6? (?:-Cn \S+ )?\S+ \S+ (\S+)".into(),
        r"^\s*\d+ (?:M|MD5|SHA1?|SHA256|AES128CMAC) (\S+)".into(),
        // ---- Linux command lines and files ----
        r"\bDHHC-1:[0-9]{2}:([A-Za-z0-9+/=]+):?".into(),
        format!(
            r"(?i)(?:^|\s)--(?:password|passwd|secret|dhchap-secret|dhchap-ctrl-secret|dhchap-key|token|api-key|psk|passphrase|key|cak|ckn|community)\s+{va}"
        ),
        format!(r"(?:^|\s)(?:-n|--name)\s+\S*auth\.password\S*\s+(?:-v|--value)\s+{va}"),
        r"\bsshpass -p ?(\S+)".into(),
        r"\bipmitool\b.*?\s-P ?(\S+)".into(),
        r"(?:^|\s)(?:-u|--user)\s+[^\s:]+:(\S+)".into(),
        r"://[^\s/:@]+:([^\s/@]+)@".into(),
        r"(?i)\bbearer\s+([A-Za-z0-9._~+/=-]+)".into(),
        r"(?i)\bauthorization:\s*(?:basic|token|digest)\s+(\S+)".into(),
        r"\bsa \d+ (?:pn \d+ )?(?:on |off )?key \S+ (\S+)".into(),
        r"\b(?:auth|auth-trunc|enc|aead) (?:'[^']*'|\S+) (0x\S+)".into(),
        // `key = value` and `--key=value` where the key names a secret
        format!(
            r"(?i)(?:^|[\s,;({{&?])(?:--?)?(?:[\w.-]*(?:password|passwd|passphrase|passkey|secret|token|psk|privatekey|presharedkey|apikey|api_key|api-key|credential|dhchap)[\w.-]*|(?:[\w.-]*[_.-])?(?:key|cak|ckn)|pwd|bindpw|community)\s*=\s*{va}"
        ),
        // ---- any platform: `password [type] VALUE`, `secret [type] VALUE` ----
        format!(
            r"(?i)(?:^|[\s,;{{(])(?:password|passwd|hashed-password|secret|passphrase|passkey|bind-password|community-password|shared-secret|auth-password|priv-password)(?: level \d+)?(?: (?:\d{{1,2}}|sha512|sha256|md5|encrypted|plaintext|cleartext|hashed|clear))? {v}"
        ),
        // YAML / `show` output: `password: VALUE` (and a secret parent's own value,
        // `auth-md5: VALUE`)
        format!(
            r#"(?i)^\s*(?:-\s+)?["']?(?:{})["']?:[ \t]+(\S.*?)\s*$"#,
            yaml_keys
        ),
        // YAML flow mappings: `{user: admin, password: VALUE}` (a value up to `,` `}` `]`)
        format!(
            r#"(?i)[{{,][ \t]*["']?(?:{})["']?[ \t]*:[ \t]*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s,{{}}\[\]"'](?:[^,{{}}\[\]]*[^\s,{{}}\[\]])?)"#,
            yaml_keys
        ),
        // JSON pairs inside any text (a whole JSON document is also walked, see `json`)
        r#"(?i)"(?:password|passwd|passkey|secret|shared_secret|auth_password|bind_password|bindpw|key|auth_key|auth-key|hashed-password|community-password|encrypt-aes|encrypt-des|psk|token|access_token|api_key|private_key|primary_cak|primary_ckn|fallback_cak|fallback_ckn|snmp_user_auth_password|snmp_user_encryption_password|dhchap_key|dhchap_ctrl_key|dhchap_secret)"\s*:\s*"((?:[^"\\]|\\.)*)""#.into(),
        r#""type"\s*:\s*"(?:md5|sha\d*)"\s*,\s*"value"\s*:\s*"((?:[^"\\]|\\.)*)""#.into(),
        r#""SNMP_COMMUNITY\|([^"]+)""#.into(),
        r#""([^"]+)"\s*:\s*\{\s*"TYPE"\s*:\s*"R[OW]""#.into(),
        // crypt(3) hashes and Junos `$9$` anywhere
        r"(\$(?:1|2[aby]|5|6|9|y|sha1|md5)\$[^\s\x22';,]+)".into(),
    ]
}

/// Keys of `key: value` lines (YAML, `show` output) whose value is a secret, compared ASCII
/// case aside; a block scalar under one (`password: |`) is a secret line by line.
const YAML_SECRET_KEYS: &[&str] = &[
    "password",
    "hashed-password",
    "secret",
    "key",
    "auth-key",
    "authentication-key",
    "passkey",
    "bind-password",
    "bind_password",
    "community-password",
    "encrypt-aes",
    "encrypt-des",
    "psk",
    "pre-shared-key",
    "token",
    "private-key",
    "cak",
    "ckn",
    "primary-cak",
    "primary-ckn",
    "fallback-cak",
    "fallback-ckn",
    "shared-secret",
    "snmp_rocommunity",
    "snmp_rwcommunity",
];

/// Lines worth running the rules on: everything else is copied as is.
const TRIGGER: &str = r"(?i)pass|secret|key|communit|auth|psk|token|bearer|cak|ckn|dhchap|dhhc-|private|credential|pwd|bindpw|\$[0-9a-z]{1,4}\$|://|createuser|sink|ipmitool|encrypt-|## secret-data|snmp|-u |com2sec|^\s*\d+ (?:M|MD5|SHA1?|SHA256|AES128CMAC) ";

/// YAML keys whose value, or whose child keys when they have no value, are secrets.
/// (Each one holds a word of `TRIGGER`: the reader tests the trigger before the key.)
const YAML_PARENTS: &[&str] = &[
    "readonly-community",
    "readonly-community-v6",
    "community-password",
    "auth-md5",
    "auth-sha",
    "auth-sha256",
    "encrypt-aes",
    "encrypt-des",
    "snmp_community",
];

/// JSON keys (compared lowercased, `-` as `_`) whose string values are secrets.
const JSON_VALUE_KEYS: &[&str] = &[
    "password",
    "passwd",
    "passkey",
    "secret",
    "shared_secret",
    "auth_password",
    "priv_password",
    "bind_password",
    "bindpw",
    "key",
    "auth_key",
    "authentication_key",
    "hashed_password",
    "community_password",
    "encrypt_aes",
    "encrypt_des",
    "psk",
    "pre_shared_key",
    "token",
    "access_token",
    "api_key",
    "private_key",
    "client_secret",
    "primary_cak",
    "primary_ckn",
    "fallback_cak",
    "fallback_ckn",
    "cak",
    "ckn",
    "snmp_user_auth_password",
    "snmp_user_encryption_password",
    "dhchap_key",
    "dhchap_ctrl_key",
    "dhchap_secret",
    "dhchap_ctrl_secret",
    "snmp_rocommunity",
    "snmp_rwcommunity",
    "community",
];

/// JSON keys whose object's keys are secrets (community names, NVUE passwords as keys).
const JSON_PARENT_KEYS: &[&str] = &[
    "snmp_community",
    "readonly_community",
    "readonly_community_v6",
    "community_password",
    "auth_md5",
    "auth_sha",
    "auth_sha256",
    "encrypt_aes",
    "encrypt_des",
];

/// JSON tables under which a `value` is a key (SONiC `NTP_KEY`).
const JSON_KEY_TABLES: &[&str] = &["ntp_key", "authentication_key"];

/// Words of which every line a rule could change holds one (ASCII case aside): the words of
/// `TRIGGER` (its `\$…\$` hashes by `$`, its `^\s*\d+ M …` key-file lines by ` m ` and the
/// other digests with their spaces), `-----begin` for PEM blocks, `encrypt_` for JSON keys
/// (`encrypt_aes` is compared with `_`), and the two non-ASCII letters Unicode case folding
/// turns into ASCII ones (`K` Kelvin sign → k, `ſ` long s → s), which `(?i)` matches too.
/// One scan over the whole text finds the lines that hold one; every other line is copied as
/// it is without a regex.
///
/// The order is for speed only (any order finds the same lines): the packed searcher puts the
/// i-th word of three bytes or more in bucket 15 - i % 16 (words sharing the low nibbles of
/// their first three bytes go together), and every position whose bytes a bucket's nibble masks
/// accept is verified against each word of the bucket. This order, found by a search that
/// counted those verifications on `show interface` output and the fixtures, pairs words whose
/// masks accept few common bytes together: the search costs about a third fewer instructions
/// than with the words grouped by topic as they were (a 1,000-switch snapshot: 352 M -> about
/// 240 M). `$` and `ſ` are searched apart, so their place does not count.
const PREFILTER_WORDS: &[&str] = &[
    "## secret-data",
    " m ",
    " aes128cmac ",
    " sha ",
    "auth",
    "://",
    "bearer",
    "credential",
    "cak",
    "private",
    "key",
    "dhchap",
    "pwd",
    "encrypt_",
    "secret",
    "bindpw",
    // From here, word i joins the bucket of word i - 16.
    " sha1 ",
    "\u{212A}",
    "communit",
    "-u ",
    "encrypt-",
    "pass",
    "createuser",
    "snmp",
    "sink",
    "psk",
    "token",
    "dhhc-",
    "ckn",
    " sha256 ",
    "com2sec",
    "ipmitool",
    "-----begin",
    " md5 ",
    "$",
    "\u{017F}",
];

struct Redactor {
    rules: Vec<Regex>,
    trigger: Regex,
    yaml_key: Regex,
    begin_key: Regex,
    quoted: Regex,
    prefilter: &'static words::WordFinder,
}

/// The trigger words' search alone, built apart from the rules: a text that holds none of the
/// words is handed back as it is without the rules ever being compiled (compiling them was
/// about 2 % of an audit of a 1,000-switch `show interface` snapshot, which holds none).
static PREFILTER: LazyLock<Option<words::WordFinder>> =
    LazyLock::new(|| words::WordFinder::new(PREFILTER_WORDS));

static REDACTOR: LazyLock<Option<Redactor>> = LazyLock::new(|| {
    let rules = rule_sources()
        .iter()
        .map(|s| Regex::new(s))
        .collect::<Result<Vec<_>, _>>()
        .ok()?;
    Some(Redactor {
        rules,
        trigger: Regex::new(TRIGGER).ok()?,
        yaml_key: Regex::new(
            r#"^(\s*)(?:-\s+)?("[^"]*"|'[^']*'|[^\s:#"'][^:]*?):(?:[ \t]+(\S.*?))?\s*$"#,
        )
        .ok()?,
        begin_key: Regex::new(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----").ok()?,
        quoted: Regex::new(r#""([^"]*)""#).ok()?,
        prefilter: PREFILTER.as_ref()?,
    })
});

/// Replace every secret in `text`; returns the text and how many secrets were replaced.
pub fn redact(text: &str) -> (String, usize) {
    redact_with(text, &[])
}

/// [`redact`] of an owned text: handed back as it is, without a copy, when it holds no secret
/// (what the snapshot reader does with every file it reads).
pub fn redact_owned(text: String) -> (String, usize) {
    match redact_cow(&text, &[], false) {
        (std::borrow::Cow::Borrowed(_), n) => (text, n),
        (std::borrow::Cow::Owned(t), n) => (t, n),
    }
}

/// [`redact`], then `extra` rules (a vendor file's own `redact` list) applied line by line.
pub fn redact_with(text: &str, extra: &[Regex]) -> (String, usize) {
    let (t, n) = redact_cow(text, extra, false);
    (t.into_owned(), n)
}

/// The redacted text, borrowed when nothing changed. `every_line` runs the line rules on every
/// line rather than on the lines the prefilter picks (the tests compare the two).
fn redact_cow<'t>(
    text: &'t str,
    extra: &[Regex],
    every_line: bool,
) -> (std::borrow::Cow<'t, str>, usize) {
    use std::borrow::Cow;
    // No word anywhere (and not a JSON document, which is walked whole): every line would be
    // skipped below, so the text is its own redaction.
    if !every_line
        && !looks_like_json(text)
        && let Some(f) = PREFILTER.as_ref()
        && f.scan(text.as_bytes()).next(0).is_none()
    {
        return (Cow::Borrowed(text), 0);
    }
    let Some(r) = REDACTOR.as_ref() else {
        // The built-in rules are tested to compile; were they not to, nothing is shown.
        return (
            Cow::Owned(text.lines().map(|_| MARK).collect::<Vec<_>>().join("\n")),
            1,
        );
    };
    let mut count = 0;
    // The JSON document the text is, or ends with, walked whole (keys and values by name).
    let json_from = json_start(text);
    let json_done = json_from.map(|p| {
        let (t, n) = json(&text[p..]);
        count += n;
        format!("{}{t}", &text[..p])
    });
    let src = json_done.as_deref().unwrap_or(text);
    let bytes = src.as_bytes();
    let mut lines = Lines {
        r,
        extra,
        in_json: false,
        pem: false,
        yaml: None,
        block: None,
        count,
    };
    // `out` holds the redacted text up to `flushed` once a line has changed; until then the
    // text is its own redaction.
    let mut out = String::new();
    let mut flushed = 0;
    let mut pos = 0;
    let mut scan = r.prefilter.scan(bytes);
    while pos < bytes.len() {
        if !every_line && !lines.pem && lines.yaml.is_none() && lines.block.is_none() {
            // Nothing carries over from the line before: go to the next line with a word.
            let Some(hit) = scan.next(pos) else {
                break;
            };
            pos = memchr::memrchr(b'\n', &bytes[pos..hit]).map_or(pos, |p| pos + p + 1);
        }
        let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |p| pos + p + 1);
        let raw = &src[pos..end];
        let body_len = raw.trim_end_matches(['\n', '\r']).len();
        let (line, eol) = raw.split_at(body_len);
        lines.in_json = json_from.is_some_and(|p| pos >= p);
        if let Cow::Owned(new) = lines.line(line) {
            out.push_str(&src[flushed..pos]);
            out.push_str(&new);
            out.push_str(eol);
            flushed = end;
        }
        pos = end;
    }
    let count = lines.count;
    drop(scan);
    if flushed == 0 {
        return match json_done {
            Some(t) => (Cow::Owned(t), count),
            None => (Cow::Borrowed(text), count),
        };
    }
    out.push_str(&src[flushed..]);
    (Cow::Owned(out), count)
}

/// The line-by-line state of a redaction: inside a PEM block, under a YAML parent key, in a
/// YAML block scalar that is a secret.
struct Lines<'a> {
    r: &'a Redactor,
    extra: &'a [Regex],
    /// The line is part of the JSON document the text is or ends with (walked by [`json`]).
    in_json: bool,
    pem: bool,
    /// YAML: (indent of the parent key, indent of its children once seen, keys redacted)
    yaml: Option<(usize, Option<usize>, usize)>,
    /// YAML: the column of a secret key whose value is a block scalar (`password: |`): the
    /// lines indented more are its value.
    block: Option<usize>,
    count: usize,
}

impl Lines<'_> {
    /// One line (without its end of line), redacted; borrowed when unchanged.
    fn line<'l>(&mut self, line: &'l str) -> std::borrow::Cow<'l, str> {
        use std::borrow::Cow;
        let r = self.r;
        if self.pem {
            if line.contains("-----END") {
                self.pem = false;
                return Cow::Borrowed(line);
            }
            // The indentation stays (a key in a YAML block scalar stays in it).
            let body = line.trim_start();
            if body == MARK {
                return Cow::Borrowed(line);
            }
            self.count += 1;
            return Cow::Owned(format!("{}{MARK}", &line[..line.len() - body.len()]));
        }
        if let Some(col) = self.block {
            let body = line.trim_start();
            let indent = line.len() - body.len();
            if body.is_empty() {
                return Cow::Borrowed(line);
            }
            if indent > col {
                if body == MARK {
                    return Cow::Borrowed(line);
                }
                self.count += 1;
                return Cow::Owned(format!("{}{MARK}", &line[..indent]));
            }
            self.block = None;
        }
        let mut line = Cow::Borrowed(line);
        if let Some(m) = r.begin_key.find(&line) {
            let rest = &line[m.end()..];
            if let Some(end) = rest.find("-----END") {
                // A whole key on one line (a JSON string with `\n` escapes).
                let (s, e) = (m.end(), m.end() + end);
                if !is_mark(&line[s..e]) {
                    line = Cow::Owned(format!("{}{MARK}{}", &line[..s], &line[e..]));
                    self.count += 1;
                }
            } else if let Some(Some(c)) = syntax::Syntax::new(&line).string_at(m.end()) {
                // A key cut short inside a string that ends on this line: its inside only, and
                // the lines after it are no key.
                let s = m.end();
                if s < c && !is_mark(&line[s..c]) {
                    line = Cow::Owned(format!("{}{MARK}{}", &line[..s], &line[c..]));
                    self.count += 1;
                }
            } else {
                self.pem = true;
                if !rest.trim().is_empty() && rest != MARK {
                    self.count += 1;
                    line = Cow::Owned(format!("{}{MARK}", &line[..m.end()]));
                }
                return line;
            }
        }
        // YAML children of a secret parent.
        if let Some((pi, ci, n)) = self.yaml {
            let indent = line.len() - line.trim_start().len();
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                // blank or comment: keeps the state
            } else if indent <= pi {
                self.yaml = None;
            } else {
                let ci = ci.unwrap_or(indent);
                self.yaml = Some((pi, Some(ci), n));
                if indent == ci
                    && let Some(c) = r.yaml_key.captures(&line)
                    && let Some(k) = c.get(2)
                {
                    let (s, e) = unquote(k.start(), k.end(), &line);
                    if s < e {
                        // Each key its own mark: two community names stay two keys.
                        self.yaml = Some((pi, Some(ci), n + 1));
                        if !is_mark(&line[s..e]) {
                            let mark = key_mark(n + 1);
                            line = Cow::Owned(format!("{}{mark}{}", &line[..s], &line[e..]));
                            self.count += 1;
                        }
                    }
                }
            }
        }
        // Every parent key holds a trigger word: the cheap test first, captures only then.
        if r.trigger.is_match(&line)
            && let Some(c) = r.yaml_key.captures(&line)
            && let (Some(i), Some(k)) = (c.get(1), c.get(2))
        {
            let key = k.as_str().trim_matches(['"', '\'']).to_ascii_lowercase();
            match c.get(3) {
                None if self.yaml.is_none() && YAML_PARENTS.contains(&key.as_str()) => {
                    self.yaml = Some((i.as_str().len(), None, 0));
                }
                // `password: |`: the header stays (see `syntax`), the lines under it go.
                Some(v)
                    if syntax::block_header(v.as_str())
                        && YAML_SECRET_KEYS
                            .iter()
                            .chain(YAML_PARENTS)
                            .any(|s| s.eq_ignore_ascii_case(&key)) =>
                {
                    self.block = Some(k.start());
                }
                _ => {}
            }
        }
        // A JSON document on one line of another text (`nv config show -o json` in a log).
        if !self.in_json && looks_like_json(&line) {
            let (t, n) = json(&line);
            if n > 0 {
                self.count += n;
                line = Cow::Owned(t);
            }
        }
        if r.trigger.is_match(&line) {
            if line.contains("## SECRET-DATA") {
                line = self.replace(line, &r.quoted);
            }
            for re in r.rules.iter().chain(self.extra) {
                line = self.replace(line, re);
            }
        }
        line
    }

    /// [`replace_groups`] on `line`, counted.
    fn replace<'l>(
        &mut self,
        line: std::borrow::Cow<'l, str>,
        re: &Regex,
    ) -> std::borrow::Cow<'l, str> {
        match replace_groups(&line, re) {
            Some((t, n)) => {
                self.count += n;
                std::borrow::Cow::Owned(t)
            }
            None => line,
        }
    }
}

/// The inside of a quoted span, or the span itself.
fn unquote(s: usize, e: usize, line: &str) -> (usize, usize) {
    let t = &line[s..e];
    if t.len() >= 2
        && ((t.starts_with('"') && t.ends_with('"')) || (t.starts_with('\'') && t.ends_with('\'')))
    {
        (s + 1, e - 1)
    } else {
        (s, e)
    }
}

/// Words that follow `password`/`secret` in settings that hold no secret
/// (NX-OS `no password strength-check`, `feature password encryption aes`).
const NOT_SECRETS: &[&str] = &["strength-check", "encryption", "prompt"];

/// Replace every participating capture group of every match of `re` in `line` (the parts of it
/// that are the secret, so that the line keeps its structure: see [`syntax`]): the new line and
/// how many secrets it replaced, `None` when nothing changed.
fn replace_groups(line: &str, re: &Regex) -> Option<(String, usize)> {
    let mut spans = Vec::new();
    let mut syn: Option<syntax::Syntax<'_>> = None;
    for c in re.captures_iter(line) {
        let mut groups: Vec<_> = c.iter().skip(1).flatten().collect();
        if groups.is_empty() {
            groups.extend(c.get(0));
        }
        for m in groups {
            let syn = syn.get_or_insert_with(|| syntax::Syntax::new(line));
            spans.extend(syntax::pieces(line, syn, m.start(), m.end()));
        }
    }
    let mut n = 0;
    let mut out = String::with_capacity(line.len());
    let mut last = 0;
    for syntax::Piece { s, e, quoted } in spans {
        if s < last || s >= e {
            continue;
        }
        let v = &line[s..e];
        if is_mark(v) || v.is_empty() || NOT_SECRETS.contains(&v) {
            continue;
        }
        out.push_str(&line[last..s]);
        if quoted {
            out.push('"');
            out.push_str(MARK);
            out.push('"');
        } else {
            out.push_str(MARK);
        }
        last = e;
        n += 1;
    }
    if n == 0 {
        return None;
    }
    out.push_str(&line[last..]);
    Some((out, n))
}

fn looks_like_json(text: &str) -> bool {
    matches!(
        text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
            .as_bytes()
            .first(),
        Some(b'{' | b'[')
    )
}

/// Where the JSON document the text is, or ends with, starts: the text's start when it opens
/// like one (after a byte order mark, as `json::parse` reads it; it may be cut or malformed and
/// is walked all the same), else the first line that opens one when the rest of the text parses
/// as JSON (a document under the command echoed above it, `admin@sonic:~$ show
/// runningconfiguration all`). `None` for any other text.
fn json_start(text: &str) -> Option<usize> {
    if looks_like_json(text) {
        return Some(0);
    }
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(i) = memchr::memchr2(b'{', b'[', &b[from..]).map(|i| from + i) {
        let line_start = memchr::memrchr(b'\n', &b[..i]).map_or(0, |p| p + 1);
        if b[line_start..i]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r'))
        {
            return serde_json::from_str::<serde::de::IgnoredAny>(&text[line_start..])
                .is_ok()
                .then_some(line_start);
        }
        // Not at a line's start: on to the next line (each byte is looked at a bounded number
        // of times).
        from = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p + 1);
    }
    None
}

fn norm(key: &str) -> String {
    key.to_ascii_lowercase().replace('-', "_")
}

/// One open JSON container.
struct Frame {
    object: bool,
    /// The key this container is the value of (normalized).
    key: String,
    /// Keys of this object are secrets.
    secret_keys: bool,
    /// Inside a table of keys (`NTP_KEY`): `value` is a secret.
    key_table: bool,
    /// Keys of this object redacted so far (each gets its own mark).
    marks: usize,
}

/// The mark of the next secret key of the innermost object, `None` when the key `s` is one
/// already (it counts all the same, so that the marks of an object stay distinct).
fn next_key_mark(stack: &mut [Frame], s: &str) -> Option<std::borrow::Cow<'static, str>> {
    let n = stack.last_mut().map_or(1, |f| {
        f.marks += 1;
        f.marks
    });
    (!is_mark(s)).then(|| key_mark(n))
}

/// Walk a JSON document (lenient: it may be cut or malformed) and redact string values whose
/// key names a secret, and keys of objects whose own key lists secrets. Only the insides of
/// strings change; every other byte, new lines included, is kept.
fn json(text: &str) -> (String, usize) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut expect_key = false;
    let mut cur_key = String::new();
    let mut count = 0;
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = j.min(b.len());
                let s = &text[start..end];
                let is_key = expect_key && stack.last().is_some_and(|f| f.object);
                let secret = if is_key {
                    let f = stack.last().is_some_and(|f| f.secret_keys);
                    cur_key = norm(s);
                    if let Some(p) = s.find('|')
                        && norm(&s[..p]) == "snmp_community"
                        && let Some(mark) = next_key_mark(&mut stack, &s[p + 1..])
                    {
                        out.push_str(&text[last..start + p + 1]);
                        out.push_str(&mark);
                        last = end;
                        count += 1;
                    }
                    f
                } else {
                    let top = stack.last();
                    let in_array_of = top
                        .filter(|f| !f.object)
                        .map(|f| f.key.as_str())
                        .unwrap_or("");
                    let k = if top.is_some_and(|f| f.object) {
                        cur_key.as_str()
                    } else {
                        in_array_of
                    };
                    JSON_VALUE_KEYS.contains(&k)
                        || (k == "value" && top.is_some_and(|f| f.key_table))
                };
                if secret && !s.is_empty() && last <= start {
                    let mark = if is_key {
                        next_key_mark(&mut stack, s)
                    } else {
                        (!is_mark(s)).then_some(std::borrow::Cow::Borrowed(MARK))
                    };
                    if let Some(mark) = mark {
                        out.push_str(&text[last..start]);
                        out.push_str(&mark);
                        last = end;
                        count += 1;
                    }
                }
                i = end + 1;
                continue;
            }
            c @ (b'{' | b'[') => {
                let parent = stack.last();
                let key = if parent.is_some_and(|f| f.object) {
                    cur_key.clone()
                } else {
                    parent.map(|f| f.key.clone()).unwrap_or_default()
                };
                let key_table =
                    parent.is_some_and(|f| f.key_table) || JSON_KEY_TABLES.contains(&key.as_str());
                stack.push(Frame {
                    object: c == b'{',
                    secret_keys: c == b'{' && JSON_PARENT_KEYS.contains(&key.as_str()),
                    key_table,
                    key,
                    marks: 0,
                });
                expect_key = c == b'{';
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
            }
            b':' => expect_key = false,
            b',' => expect_key = stack.last().is_some_and(|f| f.object),
            _ => {}
        }
        i += 1;
    }
    out.push_str(&text[last.min(text.len())..]);
    (out, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_yaml_parent_holds_a_trigger_word() {
        let t = Regex::new(TRIGGER).unwrap();
        for p in YAML_PARENTS.iter().chain(YAML_SECRET_KEYS) {
            assert!(t.is_match(p), "{p} would be skipped by the trigger test");
        }
    }

    #[test]
    fn rules_compile() {
        for s in rule_sources() {
            assert!(Regex::new(&s).is_ok(), "{s}");
        }
        assert!(REDACTOR.is_some());
    }

    #[test]
    fn structure_stays_and_redaction_is_idempotent() {
        let t = "snmp-server community Abc123 ro\ninterface Ethernet1/1\n  mtu 9216\n";
        let (o, n) = redact(t);
        assert_eq!(
            o,
            "snmp-server community <redacted> ro\ninterface Ethernet1/1\n  mtu 9216\n"
        );
        assert_eq!(n, 1);
        assert_eq!(redact(&o), (o.clone(), 0));
    }

    #[test]
    fn pem_blocks_keep_their_line_count() {
        let t = "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n-----END OPENSSH PRIVATE KEY-----\nb\n";
        let (o, _) = redact(t);
        assert_eq!(o.lines().count(), t.lines().count());
        assert!(
            !o.contains("AAAA") && !o.contains("BBBB") && o.ends_with("b\n"),
            "{o}"
        );
    }

    #[test]
    fn json_keys_and_values_by_name() {
        let t = r#"{"SNMP_COMMUNITY": {"c0mm": {"TYPE": "RO"}}, "LDAP": {"global": {"bind_password": "pw1"}},
 "NTP_KEY": {"1": {"type": "md5", "value": "k3y"}}, "PORT": {"Ethernet0": {"mtu": "9100"}}}"#;
        let (o, n) = redact(t);
        for s in ["c0mm", "pw1", "k3y"] {
            assert!(!o.contains(s), "{s}: {o}");
        }
        assert!(o.contains(r#""mtu": "9100""#), "{o}");
        assert_eq!(n, 3, "{o}");
    }

    #[test]
    fn yaml_children_of_a_secret_parent() {
        let t = "snmp-server:\n  readonly-community:\n    c0mm:\n      access:\n        any: {}\n  enable: on\n";
        let (o, _) = redact(t);
        assert!(
            !o.contains("c0mm") && o.contains("access:") && o.contains("enable: on"),
            "{o}"
        );
    }
}

#[cfg(test)]
mod structure_tests {
    //! Issue 46 item 1: a secret in a JSON string stays a JSON string, a YAML value a scalar.
    use super::*;

    /// `doc` pretty-printed one key a line (indent 4), as SONiC's `config save` writes it.
    fn pretty(doc: &serde_json::Value) -> String {
        serde_json::to_string_pretty(doc)
            .unwrap_or_default()
            .replace("  ", "    ")
    }

    /// Redacts `text`, checks it parses as JSON with the secrets (and only they) replaced.
    fn redacts_as_json(text: &str, secrets: &[&str]) -> serde_json::Value {
        let (o, n) = redact(text);
        assert_eq!(o.lines().count(), text.lines().count(), "{o}");
        let v: serde_json::Value = match serde_json::from_str(
            o.trim_start_matches(|c: char| c == '\u{feff}' || !matches!(c, '{' | '[')),
        ) {
            Ok(v) => v,
            Err(e) => panic!("{e}:\n{o}"),
        };
        for s in secrets {
            assert!(!o.contains(s), "{s} left in {o}");
        }
        assert_eq!(n, secrets.len(), "{o}");
        assert_eq!(redact(&o), (o.clone(), 0), "not idempotent");
        v
    }

    fn sample(table: &str, entry: &str, fields: &[(&str, &str)]) -> serde_json::Value {
        let f: serde_json::Map<String, serde_json::Value> = fields
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
            .collect();
        serde_json::json!({"SAMPLE": {table: {entry: f}}, "WRED_PROFILE": {"P": {"ecn": "ecn_all"}}})
    }

    #[test]
    fn ldap_bind_password_in_pretty_json_stays_a_string() {
        let doc = sample(
            "LDAP",
            "global",
            &[
                ("bind_dn", "x"),
                ("bind_password", "secret"),
                ("bind_timeout", "5"),
            ],
        );
        let text = pretty(&doc);
        assert!(
            text.contains("\n                \"bind_password\": \"secret\",\n"),
            "{text}"
        );
        let v = redacts_as_json(&text, &["secret"]);
        let g = &v["SAMPLE"]["LDAP"]["global"];
        assert_eq!(g["bind_password"], MARK);
        assert_eq!(
            (g["bind_dn"].as_str(), g["bind_timeout"].as_str()),
            (Some("x"), Some("5"))
        );
        assert_eq!(
            v["WRED_PROFILE"]["P"]["ecn"], "ecn_all",
            "the tables after it stay"
        );
    }

    #[test]
    fn tacplus_and_radius_passkeys_stay_strings() {
        for (table, entry, fields) in [
            (
                "TACPLUS",
                "global",
                vec![("auth_type", "pap"), ("passkey", "abc"), ("timeout", "5")],
            ),
            (
                "TACPLUS_SERVER",
                "10.0.0.9",
                vec![("passkey", "abc"), ("priority", "1")],
            ),
            (
                "RADIUS",
                "global",
                vec![("auth_type", "pap"), ("passkey", "abc")],
            ),
            (
                "RADIUS_SERVER",
                "10.0.0.8",
                vec![
                    ("auth_port", "1812"),
                    ("passkey", "abc"),
                    ("retransmit", "3"),
                ],
            ),
        ] {
            let text = pretty(&sample(table, entry, &fields));
            // With the comma (a key after it) or without (the last key of its object).
            let v = redacts_as_json(&text, &["abc"]);
            assert_eq!(v["SAMPLE"][table][entry]["passkey"], MARK, "{table}");
            for (k, val) in fields.iter().filter(|(k, _)| *k != "passkey") {
                assert_eq!(v["SAMPLE"][table][entry][*k], *val, "{table} {k}");
            }
            // Under a line that is not JSON (the command echoed above its output), with a byte
            // order mark, compact, and tab-indented.
            for t in [
                format!("admin@sonic:~$ show runningconfiguration all\n{text}"),
                format!("\u{feff}{text}"),
                serde_json::to_string(&sample(table, entry, &fields)).unwrap_or_default(),
                text.replace("    ", "\t"),
            ] {
                redacts_as_json(&t, &["abc"]);
            }
        }
    }

    #[test]
    fn json_lines_that_are_not_a_whole_document_keep_their_structure() {
        // A document cut short (the walk does not see it whole): each line on its own.
        let t = "{\n    \"TACPLUS\": {\n        \"global\": {\n            \"passkey\": \"abc\",\n            \"timeout\": \"5\"\n";
        let (o, _) = redact(&format!("junk\n{t}"));
        assert!(o.contains("\"passkey\": \"<redacted>\",\n"), "{o}");
        // Numbers and literals under a secret key become a JSON string.
        let (o, _) = redact("x\n{\n\"key\": 5,\n\"password\": null\n}x");
        assert!(
            o.contains("\"key\": \"<redacted>\",\n\"password\": \"<redacted>\""),
            "{o}"
        );
        // A secret in a string of a JSON line is cut at the string's end.
        let (o, _) = redact("log: {\"cmd\": \"readonly-community pub1\", \"x\": 1}");
        assert_eq!(
            o,
            "log: {\"cmd\": \"readonly-community <redacted>\", \"x\": 1}"
        );
    }

    #[test]
    fn yaml_values_stay_scalars() {
        let t = "aaa:\n  tacacs:\n    secret: 'a b'\n    key: \"k1\" # c\n    password: abc\n    token: [t1, 22]\n    psk: {v: x1, w: 'y1'}\n    private-key: |\n      line1: x\n      line2\n    after: kept\n";
        let (o, _) = redact(t);
        assert_eq!(o.lines().count(), t.lines().count(), "{o}");
        for s in ["a b", "k1", "abc", "t1", "22", "x1", "y1", "line1", "line2"] {
            assert!(!o.contains(s), "{s}: {o}");
        }
        let docs = match yaml_rust2::YamlLoader::load_from_str(&o) {
            Ok(d) => d,
            Err(e) => panic!("{e}:\n{o}"),
        };
        let tac = &docs[0]["aaa"]["tacacs"];
        assert_eq!(tac["secret"].as_str(), Some(MARK), "{o}");
        assert_eq!(tac["token"][1].as_str(), Some(MARK), "{o}");
        assert_eq!(tac["psk"]["w"].as_str(), Some(MARK), "{o}");
        assert_eq!(tac["after"].as_str(), Some("kept"), "{o}");
        assert_eq!(redact(&o), (o.clone(), 0), "not idempotent");
    }

    #[test]
    fn secret_keys_of_one_mapping_stay_distinct() {
        let t = "{\n    \"SNMP_COMMUNITY\": {\n        \"c0mm\": {\n            \"TYPE\": \"RO\"\n        },\n        \"c1mm\": {\n            \"TYPE\": \"RW\"\n        }\n    },\n    \"SNMP_COMMUNITY|f0\": {},\n    \"SNMP_COMMUNITY|f1\": {}\n}\n";
        let v = redacts_as_json(t, &["c0mm", "c1mm", "f0", "f1"]);
        assert_eq!(v["SNMP_COMMUNITY"]["<redacted-2>"]["TYPE"], "RW", "{v}");
        assert!(v["SNMP_COMMUNITY|<redacted-2>"].is_object(), "{v}");
        let t = "snmp-server:\n  readonly-community:\n    c0mm:\n      access: any\n    c1mm:\n      access: any\n";
        let (o, n) = redact(t);
        assert_eq!(n, 2, "{o}");
        assert!(
            o.contains("    <redacted>:\n") && o.contains("    <redacted-2>:\n"),
            "{o}"
        );
        assert!(yaml_rust2::YamlLoader::load_from_str(&o).is_ok(), "{o}");
        assert_eq!(redact(&o), (o.clone(), 0), "not idempotent");
        assert!(is_mark("<redacted-12>") && !is_mark("<redacted-x>") && !is_mark("<redacted->"));
    }

    #[test]
    fn a_command_line_token_stays_one_token() {
        for (t, want) in [
            (
                "tacacs-server host 10.0.0.1 key 7 \"a b\"",
                "tacacs-server host 10.0.0.1 key 7 \"<redacted>\"",
            ),
            (
                "snmp-server community abc, ro",
                "snmp-server community <redacted> ro",
            ),
            (
                "username a password 7 1234",
                "username a password 7 <redacted>",
            ),
        ] {
            assert_eq!(redact(t).0, want);
        }
    }
}

#[cfg(test)]
mod prefilter_tests {
    //! The prefilter only skips lines: redaction with it is the same as redaction of every line.
    use super::*;
    use std::path::Path;

    /// Every file under `dir`, as text.
    fn texts_under(dir: &Path, out: &mut Vec<String>) {
        for p in crate::fuzzing::smoke::files_under(dir) {
            if let Ok(b) = std::fs::read(&p) {
                out.push(String::from_utf8_lossy(&b).into_owned());
            }
        }
    }

    /// Lines a rule changes although they hold few of the usual words.
    const CRAFTED: &str = "1 M s3cr3t\n 42 MD5 abc\n7 sha256 zzz\n3 AES128CMAC 0011\n\
        password \u{212A}ey\nusername a \u{017F}ecret 5 $1$x$y\n\u{212A}ey-string 7 ABC\n\
        {\"encrypt_aes\": {\"p4ss\": {}}, \"x\": 1}\n{\"ENCRYPT-DES\": \"v\"}\n\
        [{\"ntp_key\": {\"1\": {\"value\": \"k\"}}}]\n  {\"a\": {\"b\": \"c\"}}\n\
        snmp-server:\n  readonly-community:\n    c0mm:\n      access: any\n  enable: on\n\
        -----BEGIN RSA PRIVATE KEY-----\nAAAA\n\nBBBB\n-----END RSA PRIVATE KEY-----\n\
        curl -u admin:pw http://x\nhttps://u:p@host/\nx $6$salt$hash y\r\nlast line no eol";

    fn corpus() -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = vec![CRAFTED.to_string()];
        texts_under(&root.join("fixtures"), &mut texts);
        texts_under(&root.join("tests/system/secrets"), &mut texts);
        // Each line alone too, so a line at the start or end of a text is covered.
        let lines: Vec<String> = texts
            .iter()
            .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
            .collect();
        texts.extend(lines);
        texts
    }

    #[test]
    fn skipping_lines_without_a_word_changes_nothing() {
        let texts = corpus();
        assert!(texts.len() > 1000, "{} texts", texts.len());
        let mut changed = 0;
        for t in &texts {
            let (fast, n1) = redact_cow(t, &[], false);
            let (slow, n2) = redact_cow(t, &[], true);
            assert_eq!((fast.as_ref(), n1), (slow.as_ref(), n2), "{t}");
            changed += usize::from(n1 > 0);
        }
        assert!(changed > 100, "only {changed} texts hold a secret");
    }

    #[test]
    fn every_line_the_trigger_or_a_pem_start_matches_holds_a_word() {
        let Some(r) = REDACTOR.as_ref() else {
            panic!("rules do not compile")
        };
        for t in corpus() {
            for l in t.lines() {
                if r.trigger.is_match(l) || r.begin_key.is_match(l) {
                    assert!(r.prefilter.is_match(l), "{l:?}");
                }
            }
        }
    }

    #[test]
    fn an_unchanged_text_is_not_copied() {
        let t = "interface Ethernet1/1\n  mtu 9216\n".to_string();
        let p = t.as_ptr();
        let (o, n) = redact_owned(t);
        assert_eq!((o.as_ptr(), n), (p, 0));
        let (o, n) = redact_owned("a\nsnmp-server community x ro\nb".to_string());
        assert_eq!(
            (o.as_str(), n),
            ("a\nsnmp-server community <redacted> ro\nb", 1)
        );
    }
}
