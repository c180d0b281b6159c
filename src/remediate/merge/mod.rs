//! Merging remediation snippets into a copy of a device's config file. One module per config
//! style; `[merge] kind` in the platform's template file picks it.

pub mod junos_set;
pub mod keyed_json;
pub mod nvue;
pub mod stanza;

use super::spec::MergeSpec;

/// Merge kinds this build implements.
pub const KINDS: &[&str] = &["stanza", "junos_set", "sonic_db", "nvue"];

/// Merge `snippet` into `config` the way the device would apply it.
pub fn merge(spec: &MergeSpec, config: &str, snippet: &str) -> Result<String, String> {
    match spec.kind.as_str() {
        "stanza" => stanza::merge(config, snippet, &spec.replace, spec.flat),
        "junos_set" => junos_set::merge(config, snippet, spec),
        "sonic_db" => keyed_json::merge(config, snippet),
        "nvue" => nvue::merge(config, snippet, &spec.replace),
        k => Err(format!("no merge of kind {k:?}")),
    }
}
