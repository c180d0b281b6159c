//! Issue 16 item 3: the documented scheduler examples of README "Scale" (docs/scale/) are
//! complete. Each is read as its scheduler would run it, for every shard index it starts: the
//! shell assignments and expansions of its scripts are evaluated, every `fabric-audit`
//! command line goes through this version's argument parser, the shards collected are
//! 1..=N of one N, each once, into distinct folders, and the audit reads exactly those folders.

use fabric_audit::cli::{Cli, Command};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn doc(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/scale")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

type Vars = BTreeMap<String, String>;

/// The value of a `$((NAME + INT))` or `$((NAME))` arithmetic expansion.
fn arithmetic(expr: &str, vars: &Vars) -> String {
    let parts: Vec<&str> = expr.split('+').map(str::trim).collect();
    let num = |t: &str| -> i64 {
        t.parse().unwrap_or_else(|_| {
            vars[t]
                .parse()
                .unwrap_or_else(|_| panic!("{t} in $(({expr}))"))
        })
    };
    parts.iter().map(|t| num(t)).sum::<i64>().to_string()
}

/// Shell (and GitHub expression) expansion of one line: `${{ x }}`, `$((a + 1))`, `${X}`,
/// `$X`, then `{a..b}` brace ranges; an unknown variable fails the test.
fn expand(line: &str, vars: &Vars) -> String {
    let mut s = line.to_string();
    while let Some(i) = s.find("${{") {
        let j = i + s[i..].find("}}").unwrap();
        let key = s[i + 3..j].trim().to_string();
        let v = vars.get(&key).cloned().unwrap_or_else(|| "x".into());
        s.replace_range(i..j + 2, &v);
    }
    while let Some(i) = s.find("$((") {
        let j = i + s[i..].find("))").unwrap();
        let v = arithmetic(&s[i + 3..j], vars);
        s.replace_range(i..j + 2, &v);
    }
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, skip) = match after.strip_prefix('{') {
            Some(b) => {
                let end = b.find('}').unwrap();
                (&b[..end], end + 2)
            }
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        let v = vars
            .get(name)
            .unwrap_or_else(|| panic!("${name} is not set in {line:?}"));
        out.push_str(v);
        rest = &after[skip..];
    }
    out.push_str(rest);
    out
}

/// Words of a command line, quotes removed, `{a..b}` ranges expanded.
fn words(line: &str) -> Vec<String> {
    let mut w = Vec::new();
    for word in line.split_whitespace() {
        let word = word.replace(['"', '\''], "");
        match word.find('{').zip(word.find("..")) {
            Some((i, d)) if word.ends_with('}') && d > i => {
                let (a, b) = (&word[i + 1..d], &word[d + 2..word.len() - 1]);
                let (a, b): (u32, u32) = (a.parse().unwrap(), b.parse().unwrap());
                for n in a..=b {
                    w.push(format!("{}{n}", &word[..i]));
                }
            }
            _ => w.push(word),
        }
    }
    w
}

/// Run a script as a shell would, for what matters here: continuation lines joined,
/// `NAME=value` assignments kept, every `fabric-audit ...` line expanded and split.
fn fabric_audit_lines(script: &str, vars: &mut Vars) -> Vec<Vec<String>> {
    let joined = script.replace("\\\n", " ");
    let mut cmds = Vec::new();
    for line in joined.lines().map(str::trim) {
        if line.starts_with('#') {
            continue;
        }
        if let Some((name, value)) = line.split_once('=')
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        {
            let v = expand(value, vars);
            vars.insert(name.into(), v);
            continue;
        }
        if let Some(i) = line.find("fabric-audit ") {
            cmds.push(words(&expand(&line[i..], vars)));
        }
    }
    cmds
}

/// What the commands of every shard index, and of the audit, do.
#[derive(Default, Debug)]
struct Plan {
    shards: Vec<(u32, u32)>,
    outs: Vec<PathBuf>,
    audited: Vec<Vec<PathBuf>>,
    commands: usize,
}

impl Plan {
    fn add(&mut self, cmd: &[String]) {
        self.commands += 1;
        let cli = <Cli as clap::Parser>::try_parse_from(cmd)
            .unwrap_or_else(|e| panic!("{}\nis refused by the command line: {e}", cmd.join(" ")));
        match cli.command {
            Command::Collect(c) => {
                let s = c.shard.expect("a collect command without --shard");
                self.shards.push((s.index, s.count));
                self.outs.push(c.out);
            }
            Command::Audit(a) => self.audited.push(a.snapshot),
            _ => {}
        }
    }

    /// Shards 1..=n, each once, into distinct folders, and every audit reads those folders.
    fn check(mut self, n: u32, what: &str) {
        self.shards.sort();
        let want: Vec<(u32, u32)> = (1..=n).map(|k| (k, n)).collect();
        assert_eq!(self.shards, want, "{what}: the shards collected");
        let mut outs = self.outs.clone();
        outs.sort();
        outs.dedup();
        assert_eq!(
            outs.len(),
            n as usize,
            "{what}: shard folders {:?}",
            self.outs
        );
        assert!(!self.audited.is_empty(), "{what}: no audit of the shards");
        for mut a in self.audited {
            a.sort();
            assert_eq!(a, outs, "{what}: the audit does not read every shard once");
        }
    }
}

#[test]
fn github_actions_matrix_collects_every_shard_then_audits_them_all() {
    use yaml_rust2::YamlLoader;
    let wf = &YamlLoader::load_from_str(&doc("github-actions-shards.yml")).unwrap()[0];
    let collect = &wf["jobs"]["collect"];
    let audit = &wf["jobs"]["audit"];
    assert_eq!(
        audit["needs"].as_str(),
        Some("collect"),
        "audit must wait for the shards"
    );
    let matrix: Vec<i64> = collect["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let runs = |job: &yaml_rust2::Yaml| -> String {
        job["steps"]
            .as_vec()
            .unwrap()
            .iter()
            .filter_map(|s| s["run"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut plan = Plan::default();
    for k in &matrix {
        let mut vars = Vars::from([("matrix.shard".to_string(), k.to_string())]);
        for c in fabric_audit_lines(&runs(collect), &mut vars) {
            plan.add(&c);
        }
    }
    for c in fabric_audit_lines(&runs(audit), &mut Vars::new()) {
        plan.add(&c);
    }
    // Artifacts: each shard uploads the folder it wrote; the audit downloads them all.
    let upload = collect["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .expect("no artifact upload");
    assert_eq!(
        upload["with"]["path"].as_str(),
        Some("snapshots/shard-${{ matrix.shard }}")
    );
    assert!(plan.commands >= 3);
    plan.check(matrix.len() as u32, "github-actions-shards.yml");
}

#[test]
fn slurm_array_collects_every_shard_then_audits_them_all() {
    let script = doc("slurm-collect.sbatch");
    let array = script
        .lines()
        .find_map(|l| l.strip_prefix("#SBATCH --array="))
        .expect("no #SBATCH --array");
    let (a, b) = array.split_once('-').unwrap();
    let (a, b): (u32, u32) = (a.parse().unwrap(), b.trim().parse().unwrap());
    let mut plan = Plan::default();
    for task in a..=b {
        let mut vars = Vars::from([("SLURM_ARRAY_TASK_ID".to_string(), task.to_string())]);
        for c in fabric_audit_lines(&script, &mut vars) {
            plan.add(&c);
        }
    }
    for c in fabric_audit_lines(&doc("slurm-audit.sbatch"), &mut Vars::new()) {
        plan.add(&c);
    }
    // The submit line of the collect script's header names both scripts.
    assert!(script.contains("--dependency=afterany:$jid docs/scale/slurm-audit.sbatch"));
    plan.check(b - a + 1, "slurm-collect.sbatch");
}

#[test]
fn kubernetes_indexed_job_collects_every_shard_then_audits_them_all() {
    use yaml_rust2::YamlLoader;
    let docs = YamlLoader::load_from_str(&doc("kubernetes-indexed-job.yaml")).unwrap();
    let job = |name: &str| {
        docs.iter()
            .find(|d| d["metadata"]["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("no Job {name}"))
    };
    let (collect, audit) = (job("fabric-collect"), job("fabric-audit"));
    assert_eq!(collect["spec"]["completionMode"].as_str(), Some("Indexed"));
    let n = collect["spec"]["completions"].as_i64().unwrap() as u32;
    let script = |j: &yaml_rust2::Yaml| -> String {
        j["spec"]["template"]["spec"]["containers"][0]["args"][0]
            .as_str()
            .unwrap()
            .to_string()
    };
    let mut plan = Plan::default();
    for index in 0..n {
        let mut vars = Vars::from([("JOB_COMPLETION_INDEX".to_string(), index.to_string())]);
        for c in fabric_audit_lines(&script(collect), &mut vars) {
            plan.add(&c);
        }
    }
    for c in fabric_audit_lines(&script(audit), &mut Vars::new()) {
        plan.add(&c);
    }
    // The audit starts after every index completed.
    let wait = audit["spec"]["template"]["spec"]["initContainers"][0]["command"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(wait.contains("--for=condition=complete") && wait.contains("job/fabric-collect"));
    plan.check(n, "kubernetes-indexed-job.yaml");
}

#[test]
fn the_checker_catches_a_missing_shard() {
    // The check itself can fail: an audit that leaves out a shard's folder is caught.
    let mut plan = Plan::default();
    for k in 1..=3 {
        plan.add(&words(&format!(
            "fabric-audit collect --inventory i.toml --out s/{k} --shard {k}/3"
        )));
    }
    plan.add(&words("fabric-audit audit s/1 s/2"));
    let r = std::panic::catch_unwind(move || plan.check(3, "test"));
    assert!(r.is_err());
    assert_eq!(
        words("fabric-audit audit snapshots/shard-{1..3}")[2..],
        [
            "snapshots/shard-1",
            "snapshots/shard-2",
            "snapshots/shard-3"
        ]
    );
}
