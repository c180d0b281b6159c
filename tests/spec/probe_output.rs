//! Golden test of the probe tools' outputs written for this project (fixtures/probe: each
//! perftest form, qperf, ping): what each gives, against fixtures/probe/expected.tsv (reviewed
//! by hand; UPDATE_GOLDEN=1 rewrites it). The published outputs of ../shared/corpus go through
//! the same reader in tests/corpus.rs.

use std::path::Path;

#[test]
fn probe_outputs_give_their_figures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/probe");
    let mut got = String::from("# file\tsummary\n");
    for tool in ["perftest", "qperf", "ping"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(tool))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            // perftest fixtures are named after the binary that printed them.
            let t = if tool == "perftest" {
                name.split('-').next().unwrap().to_string()
            } else {
                tool.to_string()
            };
            let text = std::fs::read_to_string(&f).unwrap();
            let s = fabric_audit::probe::output::summary(&t, &text).unwrap();
            got.push_str(&format!("{tool}/{name}\t{s}\n"));
        }
    }
    let exp = root.join("expected.tsv");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&exp, &got).unwrap();
        return;
    }
    assert_eq!(std::fs::read_to_string(&exp).unwrap_or_default(), got);
}
