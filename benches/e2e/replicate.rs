// Replicating a snapshot into pods (shared by the end-to-end bench and the scale test).
//
// The same transformation as the peer benchmark's `scale/replicate.py`: every device name of the
// source snapshot (from `fabric.toml`, `configs/` and `devices/`) gets a `-pK` suffix wherever it
// appears as a whole word, in every file, so links, LLDP neighbors and device.toml stay consistent
// inside each copy. `fabric.toml` keeps its policy and repeats every `[[device]]` block (and the
// links after them) once per pod.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

/// What to do with each host's `device.toml` in the copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meta {
    /// Keep it: every file is mapped to its command.
    Keep,
    /// Drop it: files are matched to commands by their default names, the platform is detected.
    Drop,
}

fn device_names(src: &Path) -> io::Result<BTreeSet<String>> {
    let fabric = std::fs::read_to_string(src.join("fabric.toml"))?;
    let doc: toml::Table = toml::from_str(&fabric).map_err(io::Error::other)?;
    let mut names: BTreeSet<String> = doc
        .get("device")
        .and_then(|d| d.as_array())
        .into_iter()
        .flatten()
        .filter_map(|d| d.get("name").and_then(|n| n.as_str()).map(String::from))
        .collect();
    for (dir, stem) in [("configs", true), ("devices", false)] {
        let Ok(rd) = std::fs::read_dir(src.join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let n = if stem { p.file_stem() } else { p.file_name() };
            if let Some(n) = n.and_then(|n| n.to_str()) {
                names.insert(n.to_string());
            }
        }
    }
    Ok(names)
}

fn files_under(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(root, &p, out)?;
        } else if let Ok(r) = p.strip_prefix(root) {
            out.push(r.to_path_buf());
        }
    }
    Ok(())
}

/// Copy `src` into `out` as `pods` renamed copies; returns the number of devices written.
pub fn replicate(src: &Path, out: &Path, pods: usize, meta: Meta) -> io::Result<usize> {
    let names = device_names(src)?;
    let mut by_len: Vec<&String> = names.iter().collect();
    by_len.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let alt: Vec<String> = by_len.iter().map(|n| regex::escape(n)).collect();
    let pat = regex::Regex::new(&format!(r"\b({})\b", alt.join("|"))).map_err(io::Error::other)?;
    let mut files = Vec::new();
    files_under(src, src, &mut files)?;
    if out.exists() {
        std::fs::remove_dir_all(out)?;
    }
    let fabric = std::fs::read_to_string(src.join("fabric.toml"))?;
    let mut parts = fabric.split("[[device]]");
    let mut fabric_out = parts.next().unwrap_or("").to_string();
    let bodies: Vec<&str> = parts.collect();
    let texts: Vec<(PathBuf, Vec<u8>)> = files
        .into_iter()
        .filter(|r| {
            let s = r.to_string_lossy();
            s != "fabric.toml" && !s.ends_with("expected-faults.toml")
        })
        .filter(|r| !(meta == Meta::Drop && r.file_name().is_some_and(|f| f == "device.toml")))
        .map(|r| std::fs::read(src.join(&r)).map(|t| (r, t)))
        .collect::<io::Result<_>>()?;
    for k in 0..pods {
        let rename = |s: &str| pat.replace_all(s, format!("${{1}}-p{k}")).into_owned();
        for (rel, text) in &texts {
            let mut comps: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if comps.len() > 1 && comps[0] == "configs" {
                let p = Path::new(&comps[1]);
                let stem = p
                    .file_stem()
                    .map(|s| s.to_string_lossy())
                    .unwrap_or_default();
                let ext = p
                    .extension()
                    .map(|e| format!(".{}", e.to_string_lossy()))
                    .unwrap_or_default();
                comps[1] = format!("{stem}-p{k}{ext}");
            } else if comps.len() > 1 && comps[0] == "devices" {
                comps[1] = format!("{}-p{k}", comps[1]);
            }
            let dst: PathBuf = out.join(comps.iter().collect::<PathBuf>());
            if let Some(parent) = dst.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let body = String::from_utf8_lossy(text);
            std::fs::write(&dst, rename(&body))?;
        }
        for b in &bodies {
            fabric_out.push_str("[[device]]");
            fabric_out.push_str(&rename(b));
        }
    }
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("fabric.toml"), fabric_out)?;
    Ok(pods * names.len())
}
