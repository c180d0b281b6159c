//! Issue 46 item 1, "Redaction breaks structured files": redaction keeps a file's structure. A
//! secret in a JSON string stays a JSON string, a YAML value stays a scalar, no line is added or
//! removed, and the rest of the tree is what it was.
//!
//! Every fixture file and every file of the corpus of real published outputs (the folder
//! `FABRIC_AUDIT_CORPUS` names, else `/work/shared/corpus`; read-only, never copied into the
//! project; skipped, and said so, when neither is there) is redacted and read again: JSON by
//! serde_json, YAML by yaml-rust2 (the YAML crate of the project), and by the project's own
//! JSON and YAML readers. Then a SONiC CONFIG_DB with AAA secrets ahead of its QoS tables is
//! audited through the CLI.

use crate::cli::{Scratch, bin};
use fabric_audit::redact::{MARK, redact};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The corpus folder: `FABRIC_AUDIT_CORPUS` (which must then be a folder), else the shared
/// corpus where this machine has it.
fn corpus_root() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("FABRIC_AUDIT_CORPUS") {
        let p = PathBuf::from(v);
        assert!(
            p.is_dir(),
            "FABRIC_AUDIT_CORPUS={} is set but is not a folder",
            p.display()
        );
        return Some(p);
    }
    let p = PathBuf::from("/work/shared/corpus");
    p.is_dir().then_some(p)
}

/// (name, text) of every fixture file and corpus file.
fn texts() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = vec![("fixtures".to_string(), root.join("fixtures"))];
    match corpus_root() {
        Some(c) => dirs.push(("corpus".to_string(), c)),
        None => eprintln!(
            "SKIPPED (corpus part): FABRIC_AUDIT_CORPUS is not set and /work/shared/corpus is \
             missing; the fixtures alone are checked"
        ),
    }
    let mut out = Vec::new();
    for (tag, dir) in dirs {
        let mut files = fabric_audit::fuzzing::smoke::files_under(&dir);
        files.sort();
        for p in files {
            let Ok(b) = std::fs::read(&p) else { continue };
            let rel = p.strip_prefix(&dir).unwrap_or(&p).display().to_string();
            out.push((
                format!("{tag}/{rel}"),
                String::from_utf8_lossy(&b).into_owned(),
            ));
        }
    }
    out
}

/// A parsed document reduced to what the comparison needs: scalars as (kind, text).
#[derive(Debug)]
enum Tree {
    Leaf(char, String),
    Seq(Vec<Tree>),
    Map(Vec<(String, Tree)>),
}

fn from_json(v: &serde_json::Value) -> Tree {
    use serde_json::Value as V;
    match v {
        V::Null => Tree::Leaf('z', "null".into()),
        V::Bool(b) => Tree::Leaf('b', b.to_string()),
        V::Number(n) => Tree::Leaf('n', n.to_string()),
        V::String(s) => Tree::Leaf('s', s.clone()),
        V::Array(a) => Tree::Seq(a.iter().map(from_json).collect()),
        V::Object(m) => Tree::Map(m.iter().map(|(k, v)| (k.clone(), from_json(v))).collect()),
    }
}

fn from_yaml(y: &yaml_rust2::Yaml) -> Tree {
    use yaml_rust2::Yaml as Y;
    match y {
        Y::Real(s) => Tree::Leaf('n', s.clone()),
        Y::Integer(i) => Tree::Leaf('n', i.to_string()),
        Y::String(s) => Tree::Leaf('s', s.clone()),
        Y::Boolean(b) => Tree::Leaf('b', b.to_string()),
        Y::Null => Tree::Leaf('z', String::new()),
        Y::Array(a) => Tree::Seq(a.iter().map(from_yaml).collect()),
        Y::Hash(h) => Tree::Map(
            h.iter()
                .map(|(k, v)| {
                    let key = match from_yaml(k) {
                        Tree::Leaf(_, t) => t,
                        other => format!("{other:?}"),
                    };
                    (key, from_yaml(v))
                })
                .collect(),
        ),
        Y::Alias(a) => Tree::Leaf('a', a.to_string()),
        Y::BadValue => Tree::Leaf('?', String::new()),
    }
}

/// Whether `s` is a mark: `<redacted>`, or `<redacted-N>` (the N-th secret key of a mapping).
fn is_mark(s: &str) -> bool {
    s == MARK
        || s.strip_prefix("<redacted-")
            .and_then(|r| r.strip_suffix('>'))
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
}

/// `s` with the marks of second and later secret keys of a mapping (`<redacted-2>`) as
/// `<redacted>`.
fn one_mark(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<redacted") {
        out.push_str(&rest[..i]);
        match rest[i..].find('>') {
            Some(j) if is_mark(&rest[i..i + j + 1]) => {
                out.push_str(MARK);
                rest = &rest[i + j + 1..];
            }
            _ => {
                out.push_str("<redacted");
                rest = &rest[i + "<redacted".len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether `red`, each mark in it standing for any text, is `orig`.
fn same_but_marks(orig: &str, red: &str) -> bool {
    let red = one_mark(red);
    let parts: Vec<&str> = red.split(MARK).collect();
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return orig == red;
    };
    if parts.len() == 1 {
        return orig == red;
    }
    let Some(mut rest) = orig.strip_prefix(first) else {
        return false;
    };
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Every way `red` differs from `orig` other than a secret replaced by `<redacted>`: a value,
/// a key or a kind of node changed, an entry lost or added.
fn differences(orig: &Tree, red: &Tree, path: &str, out: &mut Vec<String>) {
    match (orig, red) {
        (Tree::Leaf(_, o), Tree::Leaf('s', r)) if one_mark(r).contains(MARK) => {
            if !same_but_marks(o, r) {
                out.push(format!("{path}: {o:?} became {r:?}"));
            }
        }
        (Tree::Leaf(ko, o), Tree::Leaf(kr, r)) => {
            if (ko, o) != (kr, r) {
                out.push(format!("{path}: {ko}:{o:?} became {kr}:{r:?}"));
            }
        }
        (Tree::Seq(a), Tree::Seq(b)) => {
            if a.len() != b.len() {
                out.push(format!("{path}: {} items became {}", a.len(), b.len()));
            }
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(x, y, &format!("{path}[{i}]"), out);
            }
        }
        (Tree::Map(a), Tree::Map(b)) => {
            let red: BTreeMap<&str, &Tree> = b.iter().map(|(k, v)| (k.as_str(), v)).collect();
            let orig_keys: BTreeSet<&str> = a.iter().map(|(k, _)| k.as_str()).collect();
            // Keys that are secrets (community names) are replaced too, and two replaced keys
            // are one (a JSON reader keeps the last).
            let marked: Vec<(&str, &Tree)> = b
                .iter()
                .filter(|(k, _)| !orig_keys.contains(k.as_str()))
                .map(|(k, v)| (k.as_str(), v))
                .collect();
            for (k, _) in &marked {
                if !one_mark(k).contains(MARK) {
                    out.push(format!("{path}: key {k:?} added"));
                }
            }
            for (k, v) in a {
                let p = format!("{path}/{k}");
                match red.get(k.as_str()) {
                    Some(r) => differences(v, r, &p, out),
                    None => {
                        let fits: Vec<&Tree> = marked
                            .iter()
                            .filter(|(rk, _)| same_but_marks(k, rk))
                            .map(|(_, v)| *v)
                            .collect();
                        if fits.is_empty() {
                            out.push(format!("{p}: key lost"));
                        } else if !fits.iter().any(|r| {
                            let mut d = Vec::new();
                            differences(v, r, &p, &mut d);
                            d.is_empty()
                        }) && fits.len() == 1
                        {
                            differences(v, fits[0], &p, out);
                        }
                    }
                }
            }
        }
        (o, r) => out.push(format!("{path}: {o:?} became {r:?}")),
    }
}

/// A text without the byte order mark readers skip.
fn unmarked(t: &str) -> &str {
    t.strip_prefix('\u{feff}').unwrap_or(t)
}

fn json_tree(t: &str) -> Result<Tree, String> {
    serde_json::from_str::<serde_json::Value>(unmarked(t))
        .map(|v| from_json(&v))
        .map_err(|e| e.to_string())
}

fn yaml_trees(t: &str) -> Result<Vec<Tree>, String> {
    yaml_rust2::YamlLoader::load_from_str(unmarked(t))
        .map(|docs| docs.iter().map(from_yaml).collect())
        .map_err(|e| e.to_string())
}

/// How one text fared: whether it parses as JSON, as YAML, and how many secrets it held.
struct Checked {
    json: bool,
    yaml: bool,
    secrets: usize,
}

/// Redacts `text` and adds to `bad` every way the redacted text differs from it other than its
/// secrets: a line added or removed, a JSON or YAML document that no longer parses, a value,
/// key or entry changed.
fn check(name: &str, text: &str, bad: &mut Vec<String>) -> Checked {
    let (red, n) = redact(text);
    if red.lines().count() != text.lines().count() {
        bad.push(format!(
            "{name}: {} lines became {}",
            text.lines().count(),
            red.lines().count()
        ));
    }
    let mut c = Checked {
        json: false,
        yaml: false,
        secrets: n,
    };
    if let Ok(orig) = json_tree(text) {
        c.json = true;
        match json_tree(&red) {
            Ok(r) => {
                let mut d = Vec::new();
                differences(&orig, &r, "", &mut d);
                bad.extend(d.into_iter().take(5).map(|d| format!("{name} (JSON): {d}")));
            }
            Err(e) => bad.push(format!("{name}: JSON no longer parses: {e}")),
        }
    }
    if let Ok(orig) = yaml_trees(text) {
        c.yaml = true;
        match yaml_trees(&red) {
            Ok(r) if r.len() == orig.len() => {
                let mut d = Vec::new();
                for (o, r) in orig.iter().zip(&r) {
                    differences(o, r, "", &mut d);
                }
                bad.extend(d.into_iter().take(5).map(|d| format!("{name} (YAML): {d}")));
            }
            Ok(r) => bad.push(format!(
                "{name}: {} YAML documents became {}",
                orig.len(),
                r.len()
            )),
            Err(e) => bad.push(format!("{name}: YAML no longer parses: {e}")),
        }
    }
    c
}

fn report(bad: &[String]) {
    assert!(
        bad.is_empty(),
        "{} differences:\n{}",
        bad.len(),
        bad.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Structured files (every file that parses as JSON or as YAML) keep their tree apart from the
/// secret values, and every file its number of lines.
#[test]
fn structured_files_keep_their_tree_apart_from_secrets() {
    let all = texts();
    assert!(all.len() > 1000, "{} files", all.len());
    let mut bad = Vec::new();
    let (mut json, mut yaml, mut with_secrets) = (0, 0, 0);
    for (name, text) in &all {
        let c = check(name, text, &mut bad);
        json += usize::from(c.json);
        yaml += usize::from(c.yaml);
        with_secrets += usize::from((c.json || c.yaml) && c.secrets > 0);
    }
    eprintln!(
        "{} files: {json} parse as JSON, {yaml} as YAML; {with_secrets} of those hold a secret",
        all.len()
    );
    assert!(
        json > 100 && yaml > 100 && with_secrets > 10,
        "{json} {yaml} {with_secrets}"
    );
    report(&bad);
}

/// Structured texts made here, each secret a `Qz…` marker: the AAA fixture in every layout a
/// CONFIG_DB comes in (compact, tab-indented, with a byte order mark, under a command echo
/// line), NVUE-style YAML with secrets in block, quoted, flow and block-scalar values and as
/// keys. Same checks, and no marker left.
#[test]
fn made_structured_texts_keep_their_tree_and_lose_their_secrets() {
    let pretty = std::fs::read_to_string(aaa_fixture().join("configs/leaf1.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    let doc: serde_json::Value = serde_json::from_str(&pretty).unwrap_or_else(|e| panic!("{e}"));
    let compact = serde_json::to_string(&doc).unwrap_or_default();
    let nvue = "- set:\n    system:\n      aaa:\n        tacacs:\n          secret: 'Qz01'\n          server:\n            1:\n              secret: \"Qz02\" # the first\n              port: 49\n        radius:\n          server:\n            192.0.2.1:\n              secret: Qz03\n              priority: 1\n    service:\n      snmp-server:\n        readonly-community:\n          Qz04:\n            access:\n              any: {}\n          Qz05:\n            access:\n              any: {}\n        username:\n          u1:\n            auth-md5: Qz06\n            encrypt-aes: Qz07\n    interface:\n      swp1:\n        link:\n          mtu: 9216\n- login: {user: admin, password: Qz08}\n  tokens:\n    token: [Qz09, 12345]\n  keys:\n    key: {\"id\": \"Qz10\", \"n\": 7}\n  private-key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    Qz11\n    -----END RSA PRIVATE KEY-----\n  psk: >-\n    Qz12\n    Qz13\n  after: kept\n";
    let made = [
        ("pretty".to_string(), pretty.clone()),
        ("compact".to_string(), compact),
        ("tabs".to_string(), pretty.replace("    ", "\t")),
        ("bom".to_string(), format!("\u{feff}{pretty}")),
        (
            "echo".to_string(),
            format!("admin@leaf1:~$ show runningconfiguration all\n{pretty}"),
        ),
        ("nvue".to_string(), nvue.to_string()),
    ];
    let mut bad = Vec::new();
    for (name, text) in &made {
        let c = check(name, text, &mut bad);
        let (red, _) = redact(text);
        for s in SECRETS {
            if red.contains(s) {
                bad.push(format!("{name}: {s} left"));
            }
        }
        if let Some(i) = red.find("Qz") {
            bad.push(format!(
                "{name}: a secret left: {}",
                &red[i..(i + 4).min(red.len())]
            ));
        }
        assert!(c.secrets > 0, "{name}");
        // The echo line aside, every one is JSON or YAML.
        assert!(c.json || c.yaml || name == "echo", "{name}");
    }
    report(&bad);
}

/// Redaction is never why a file does not parse: whatever reader accepts the original (serde_json,
/// yaml-rust2, the project's JSON and YAML readers) accepts the redacted text.
#[test]
fn redaction_is_never_why_a_file_does_not_parse() {
    type Reader = (&'static str, fn(&str) -> bool);
    let readers: [Reader; 4] = [
        ("serde_json", |t| {
            serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok()
        }),
        ("yaml-rust2", |t| {
            yaml_rust2::YamlLoader::load_from_str(t).is_ok()
        }),
        ("fabric_audit json", |t| {
            fabric_audit::parser::json::parse(t).error.is_none()
        }),
        ("fabric_audit yaml", |t| {
            fabric_audit::parser::yaml::parse_json_or_yaml(t)
                .error
                .is_none()
        }),
    ];
    let mut bad = Vec::new();
    let mut checked = 0;
    for (name, text) in texts() {
        let (red, n) = redact(&text);
        if n == 0 {
            continue;
        }
        for (reader, ok) in &readers {
            if ok(&text) {
                checked += 1;
                if !ok(&red) {
                    bad.push(format!(
                        "{name}: {reader} reads the original, not the redacted"
                    ));
                }
            }
        }
    }
    assert!(checked > 20, "{checked}");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The fixture: our own leaf's CONFIG_DB in the layout `config save` writes (`sonic-cfggen -d
/// --print-data`: json.dump, indent 4, keys sorted, one key a line), holding the AAA tables as
/// the SONiC Configuration wiki (sonic-net/SONiC wiki "Configuration": `TACPLUS|global` and
/// `TACPLUS_SERVER|<ip>` `passkey`, `RADIUS|global` and `RADIUS_SERVER|<ip>` `passkey`) and
/// sonic-utilities (`config tacacs passkey`, `config radius passkey`, `config ldap global
/// --bind-password`; the `LDAP|global` fields of sonic-net/SONiC's LDAP HLD and
/// `sonic-system-ldap.yang`) write them. Sorted, `LDAP` comes before `PORT`, `PORT_QOS_MAP`
/// and `QUEUE`, and `TACPLUS` before `WRED_PROFILE`.
fn aaa_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/redaction/sonic-aaa-before-qos")
}

const SECRETS: [&str; 5] = [
    "Ld4pBindSecret",
    "R4diusGlobalKey",
    "R4diusServerKey",
    "T4cplusGlobalKey",
    "T4cplusServerKey",
];

fn audit(snap: &Path, format: &str) -> (serde_json::Value, String) {
    let out = bin()
        .arg("audit")
        .arg(snap)
        .args(["--format", format])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{format}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, text)
}

/// What the CLI says of a snapshot whose CONFIG_DB is `file`: the file is read whole,
/// no PARSE finding of an error or of a lost table, every port and every queue's WRED profile
/// there, no secret anywhere in the report or the model.
fn read_whole(snap: &Path, file: &str, what: &str) {
    let (report, text) = audit(snap, "json");
    let (model, model_text) = audit(snap, "model");
    for s in SECRETS {
        assert!(
            !text.contains(s) && !model_text.contains(s),
            "{what}: {s} leaked"
        );
    }
    let parse = report["parse"]
        .as_array()
        .and_then(|a| a.iter().find(|p| p["file"] == file))
        .unwrap_or_else(|| panic!("{what}: no parse entry: {}", report["parse"]));
    assert_eq!(parse["platform"], "sonic", "{what}: {parse}");
    assert_eq!(parse["status"], "passed", "{what}: {parse}");
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let parse_findings: Vec<String> = findings
        .iter()
        .filter(|f| {
            let rule = f["rule"].as_str().unwrap_or("");
            rule.starts_with("PARSE")
                && (f["severity"] == "error"
                    || matches!(rule, "PARSE001" | "PARSE002" | "PARSE008"))
        })
        .map(|f| format!("{} {} {}", f["rule"], f["severity"], f["message"]))
        .collect();
    assert!(parse_findings.is_empty(), "{what}: {parse_findings:#?}");
    assert!(
        !findings.iter().any(|f| {
            let m = f["message"].as_str().unwrap_or("");
            m.contains("WRED_PROFILE") && (m.contains("never defined") || f["rule"] == "PARSE002")
        }),
        "{what}: {findings:#?}"
    );
    let ports = model["devices"][0]["interfaces"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: BTreeSet<&str> = ports.iter().filter_map(|p| p["name"].as_str()).collect();
    assert_eq!(
        names,
        BTreeSet::from(["Ethernet0", "Ethernet120", "Ethernet4", "Ethernet8"]),
        "{what}"
    );
}

/// Issue 46 item 1 end to end: LDAP `bind_password`, RADIUS and TACACS+ `passkey` ahead of the
/// QoS tables. Before the fix the first secret became an unquoted `<redacted>` without its
/// comma, the JSON reader stopped there ("invalid JSON … found '<'"), the file was `partial`,
/// and every table after it was lost: with LDAP, every port (PARSE008); with TACACS+ alone,
/// WRED_PROFILE (PARSE002: the queues' profile never defined).
#[test]
fn sonic_aaa_secrets_ahead_of_the_qos_tables_lose_no_table() {
    read_whole(
        &aaa_fixture(),
        "configs/leaf1.json",
        "LDAP, RADIUS and TACPLUS",
    );
    // TACACS+ alone, between QUEUE and WRED_PROFILE; and the same under a command echo line.
    let text = std::fs::read_to_string(aaa_fixture().join("configs/leaf1.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    if let Some(m) = doc.as_object_mut() {
        for t in ["LDAP", "LDAP_SERVER", "RADIUS", "RADIUS_SERVER"] {
            m.remove(t);
        }
    }
    let mut pretty = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut pretty, fmt);
    serde::Serialize::serialize(&doc, &mut ser).unwrap_or_else(|e| panic!("{e}"));
    let pretty = String::from_utf8_lossy(&pretty).into_owned();
    assert!(
        pretty.contains("\"passkey\": \"T4cplusGlobalKey\",\n"),
        "{pretty}"
    );
    let s = Scratch::new("redact-tacplus");
    s.write("configs/leaf1.json", format!("{pretty}\n"));
    read_whole(&s.0, "configs/leaf1.json", "TACPLUS alone");
    // A collected device's output with the command echoed above it (a terminal session): the
    // reader skips the echo line, the redactor walks the document under it.
    let s = Scratch::new("redact-echo");
    s.write(
        "devices/leaf1/device.toml",
        "platform = \"sonic\"\n\n[[command]]\ncmd = \"sonic-cfggen -d --print-data\"\nfile = \"config_db.json\"\n",
    );
    s.write(
        "devices/leaf1/config_db.json",
        format!("admin@leaf1:~$ sonic-cfggen -d --print-data\n{text}"),
    );
    read_whole(
        &s.0,
        "devices/leaf1/config_db.json",
        "under a command echo line",
    );
}
