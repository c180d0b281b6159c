//! JSON Schemas (schemars) of the documents fabric-audit writes or reads: the JSON report
//! (`fabric-audit/report/v1`), the change report (`fabric-audit/diff/v1`) and the inventory
//! (TOML, validated as the JSON it maps to). `fabric-audit schema NAME` prints one; the
//! repository publishes them in `schemas/`, and the tests check that the published files equal
//! these and that the CLI's output validates against them.
//!
//! The report types are described here as they are serialized (the serializing types live in
//! lower layers and carry no schema); keys are closed (`additionalProperties: false`) so an
//! output field the schema does not describe fails the validation test.

use schemars::{JsonSchema, schema_for};
use std::collections::BTreeMap;

/// Which document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Doc {
    /// `audit --format json`, `probe --out`.
    Report,
    /// `diff --format json`, `review --format json`.
    Diff,
    /// The TOML inventory of `collect`, `audit --inventory` and `probe`.
    Inventory,
}

impl Doc {
    pub const ALL: [Doc; 3] = [Doc::Report, Doc::Diff, Doc::Inventory];

    /// The published file name (`schemas/<name>`).
    pub fn file_name(self) -> &'static str {
        match self {
            Doc::Report => "report.schema.json",
            Doc::Diff => "diff.schema.json",
            Doc::Inventory => "inventory.schema.json",
        }
    }

    /// The schema, pretty-printed with a final newline.
    pub fn render(self) -> String {
        let v = match self {
            Doc::Report => serde_json::to_value(schema_for!(Report)),
            Doc::Diff => serde_json::to_value(schema_for!(Diff)),
            Doc::Inventory => serde_json::to_value(crate::collect::inventory::json_schema()),
        };
        let v = v.unwrap_or_default();
        serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
    }
}

type Any = serde_json::Value;
type Object = serde_json::Map<String, serde_json::Value>;

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Severity {
    Error,
    Warning,
    Info,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Tool {
    name: String,
    version: String,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Endpoint {
    device: String,
    interface: String,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Location {
    file: String,
    line: u32,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Remediation {
    platform: String,
    snippet: String,
    /// safe | needs-review
    safety: String,
    /// The device the fix goes on, when it is not the finding's own (the other end of a link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    device: Option<String>,
}

/// One finding.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Finding {
    /// Rule id, e.g. PFC001.
    rule: String,
    severity: Severity,
    title: String,
    message: String,
    /// Device name, or "(fabric)" for a fabric-wide finding.
    device: String,
    #[serde(default)]
    interface: Option<String>,
    /// The other end of the link, when the finding is about a link.
    #[serde(default)]
    peer: Option<Endpoint>,
    /// The file and line that define the faulty value.
    #[serde(default)]
    source: Option<Location>,
    /// The values the rule read (`undecided: true` when it could not decide).
    evidence: Evidence,
    /// The snippet that fixes it, where the platform has one.
    #[serde(default)]
    remediation: Option<Remediation>,
}

/// What a finding's rule read: the rule's own values (named by its `let`s and its check, so
/// open: one rule's `missing` is a list of priorities) and the keys fabric-audit itself writes,
/// whose types are fixed.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Evidence {
    /// The rule could not decide (an input it needs is not known): a coverage entry (JUnit
    /// skipped, the terminal's coverage section), not a fault.
    #[serde(default)]
    undecided: Option<bool>,
    /// When undecided: the interfaces it could not decide on.
    #[serde(default)]
    interfaces: Option<Vec<String>>,
    /// When undecided: the unknown inputs as fields of the model
    /// (`interfaces[].pgs[].headroom_bytes`).
    #[serde(default)]
    missing_fields: Option<Vec<String>>,
    /// When undecided: why each of `missing_fields` is unknown.
    #[serde(default)]
    why: Option<BTreeMap<String, Missing>>,
    /// Change review: the line the rule cited, when the finding was moved to the changed line.
    #[serde(default)]
    cited_line: Option<u32>,
    /// Change review: the changed line as the fix would rewrite it (a GitHub suggestion).
    #[serde(default)]
    suggestion: Option<String>,
    #[serde(flatten)]
    rule_values: Object,
}

/// Why an input is unknown.
#[derive(JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Missing {
    /// A command of the platform states it; its output was not read for the device.
    NotCollected,
    /// The outputs that can state it were read and do not.
    NotStated,
    /// No input of the platform that fabric-audit reads states it.
    NeverProvided,
}

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum Cause {
    Fix,
    Line,
    Same,
    Single,
}

/// Findings that share a root cause.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Group {
    id: usize,
    severity: Severity,
    cause: Cause,
    device: String,
    rules: Vec<String>,
    /// Indexes into `findings`.
    members: Vec<usize>,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Unrecognized {
    line: u32,
    text: String,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct UndefinedRef {
    kind: String,
    name: String,
    line: u32,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Conflict {
    what: String,
    first: String,
    first_line: u32,
    value: String,
    line: u32,
}

#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(dead_code)]
enum ParseStatus {
    Passed,
    Partial,
    Failed,
}

/// How one input file parsed.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct FileParse {
    device: String,
    file: String,
    platform: String,
    /// The command whose output the file is ("config" for configs/ files).
    command: String,
    status: ParseStatus,
    unrecognized: Vec<Unrecognized>,
    #[serde(default)]
    undefined: Vec<UndefinedRef>,
    /// References found past the 64 listed.
    #[serde(default)]
    undefined_not_listed: u64,
    #[serde(default)]
    gaps: Vec<UndefinedRef>,
    #[serde(default)]
    conflicts: Vec<Conflict>,
    /// Conflicts found past the 64 listed.
    #[serde(default)]
    conflicts_not_listed: u64,
    #[serde(default)]
    error: Option<String>,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Counts {
    error: usize,
    warning: usize,
    info: usize,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ParseCounts {
    passed: usize,
    partial: usize,
    failed: usize,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Summary {
    devices: usize,
    interfaces: usize,
    links: usize,
    rules: usize,
    findings: Counts,
    causes: usize,
    undecided: usize,
    parse: ParseCounts,
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Waiver {
    rule: String,
    device: String,
    object: String,
    reason: String,
    owner: String,
    expires: String,
    file: String,
    line: u32,
}

/// A finding a waiver accepted, with its waiver.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Waived {
    finding: Finding,
    waiver: Waiver,
}

/// One probe between two hosts (see README "Probing").
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Probe {
    src: String,
    dst: String,
    tool: String,
    test: String,
    kind: String,
    /// ok | failed | invalid | timeout | interrupted | skipped
    status: String,
    #[serde(flatten)]
    rest: BTreeMap<String, Any>,
}

/// The JSON report (`audit --format json`).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "fabric-audit/report/v1")]
#[allow(dead_code)]
struct Report {
    /// Always "fabric-audit/report/v1".
    schema: String,
    tool: Tool,
    summary: Summary,
    findings: Vec<Finding>,
    groups: Vec<Group>,
    parse: Vec<FileParse>,
    #[serde(default)]
    probes: Vec<Probe>,
    #[serde(default)]
    waived: Vec<Waived>,
}

/// What a change report compares.
#[derive(JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
#[allow(dead_code)]
enum Scope {
    Audit {
        snapshot: String,
    },
    Diff {
        before: String,
        after: String,
    },
    Git {
        repo: String,
        path: String,
        base: String,
        head: String,
        base_commit: String,
        head_commit: String,
    },
}

#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DiffSummary {
    headline: String,
    new: Counts,
    fixed: Counts,
    unchanged: Counts,
    waived: usize,
}

/// The change report (`diff --format json`, `review --format json`).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "fabric-audit/diff/v1")]
#[allow(dead_code)]
struct Diff {
    /// Always "fabric-audit/diff/v1".
    schema: String,
    tool: Tool,
    scope: Scope,
    summary: DiffSummary,
    new: Vec<Finding>,
    fixed: Vec<Finding>,
    unchanged: Vec<Finding>,
    waived: Vec<Waived>,
}

/// `schema NAME`: print one schema.
#[derive(clap::Args, Debug)]
pub struct SchemaArgs {
    /// The document: report, diff or inventory.
    #[arg(value_enum)]
    pub doc: Doc,
}

pub fn run(a: SchemaArgs) -> anyhow::Result<super::ExitStatus> {
    super::emit(&a.doc.render(), None)?;
    Ok(super::ExitStatus::Success)
}
