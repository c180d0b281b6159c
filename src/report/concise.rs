//! The concise format: one line per finding, worst first, in the shape editors and `grep`
//! read (`path:line: severity RULE device[/interface] message`):
//!
//! ```text
//! fixtures/demo-fabric/configs/spine1.cfg:67: error DSCP002 spine1/Ethernet1/1 RoCE DSCP 26 is ...
//! ```
//!
//! `path` is the finding's source file joined to the snapshot folder as the user named it, so
//! it opens from the working directory. A finding that cites no file names the snapshot
//! folder, without a line (`path: severity ...`). Checks that could not be decided are not
//! findings: they are left out (`--verbose` keeps them).

use super::input::{Review, Scope};
use crate::finding::Finding;
use std::path::Path;

/// The folder a review's source files are relative to, as the user named it.
fn base(r: &Review) -> String {
    match &r.scope {
        Scope::Audit { snapshot } => snapshot.clone(),
        Scope::Diff { after, .. } => after.clone(),
        Scope::Git { repo, path, .. } => Path::new(repo).join(path).display().to_string(),
    }
}

/// One finding's line.
pub fn line(base: &str, f: &Finding) -> String {
    let place = match &f.source {
        Some(s) if s.line > 0 => format!("{}:{}", Path::new(base).join(s.file).display(), s.line),
        Some(s) => Path::new(base).join(s.file).display().to_string(),
        None => base.to_string(),
    };
    let what = match &f.interface {
        Some(i) => format!("{}/{i}", f.device),
        None => f.device.to_string(),
    };
    let text = format!(
        "{place}: {} {} {what} {}",
        f.severity().as_str(),
        f.rule(),
        f.message()
    );
    super::terminal_safe(&text, false).into_owned()
}

/// The findings a review introduces (every finding of a plain audit), one line each.
pub fn render(r: &Review, verbose: bool) -> String {
    let mut out = Vec::new();
    // Writing into memory cannot fail.
    let _ = write(r, verbose, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// [`render`], written a line at a time: the text is ~200 bytes a finding, and a config whose
/// every port draws findings made it the largest thing held while the report was written
/// (issue 19: 20 MB for the 96,000 findings of a 1 MiB config).
pub fn write(r: &Review, verbose: bool, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    use std::io::Write as _;
    let base = base(r);
    let mut w = std::io::BufWriter::with_capacity(super::spill::Out::SPILL, w);
    for i in super::groups::order(&r.new) {
        let f = &r.new[i as usize];
        if f.undecided() && !verbose {
            continue;
        }
        w.write_all(line(&base, f).as_bytes())?;
        w.write_all(b"\n")?;
    }
    w.flush()
}
