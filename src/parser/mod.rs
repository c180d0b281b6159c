//! The vendor-parser engine: compiles `vendor-parsers/*.toml` and turns raw text into records.
//!
//! A command's output (or a config file) is read line by line. Lines nest by indentation; each
//! line is either extracted into a record (a regex with named captures, optionally allowed only
//! under given parent kinds), explicitly ignored (a line, or a whole block), or reported as
//! unrecognized with its line number. Platform semantics live in `crate::platform::*`, which
//! walks the records. Patterns are dispatched by the first byte of the line and checked
//! against their literal prefix before any regex runs, which keeps the hot loop cheap.

pub mod allow;
pub mod configdb;
pub mod json;
mod memo;
/// The size of text from which a command keeps its line memo (a fixed table per command and
/// thread, made once): the fuzz harness warms each file kind with this much so that the table
/// is counted with the loaded parsers, not as the first measured input's cost.
pub const MEMO_MIN_TEXT: usize = memo::MIN_TEXT;
pub mod spec;
pub mod yaml;

use crate::model::{ParseStatus, Unrecognized};
use regex::{Regex, RegexBuilder};
use regex_automata::{Input, dfa::dense, meta};
use spec::{CommandSpec, PlatformSpec};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

/// A load error in a parser file, with its position.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}:{col}: {msg}")]
pub struct SpecError {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub msg: String,
}

impl SpecError {
    /// An error placed at the first occurrence of `needle` in the file (0:0 when absent).
    fn near(file: &str, text: &str, needle: &str, msg: String) -> SpecError {
        let (line, col) = text
            .find(needle)
            .map(|o| line_col(text, o))
            .unwrap_or((0, 0));
        SpecError {
            file: file.into(),
            line,
            col,
            msg,
        }
    }
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let col = before.rfind('\n').map(|p| offset - p).unwrap_or(offset + 1);
    (line, col)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Lines,
    Json,
    /// JSON read as structure (`json::parse`), presented to the record patterns as canonical
    /// lines (`json::render`): one key per line, nested by depth, at the key's source line.
    JsonLines,
    /// `JsonLines` for a SONiC CONFIG_DB document in any of its layouts, normalized to
    /// TABLE → key → field first (`configdb::normalize`), every value as a string.
    ConfigDb,
    /// YAML (or JSON) read as structure (`yaml::parse_json_or_yaml`), presented to the record
    /// patterns as canonical block YAML (`yaml::render`), at each key's source line.
    YamlLines,
}

#[derive(Debug)]
enum Action {
    Record(u16),
    IgnoreLine,
    IgnoreBlock,
    /// Ignore up to the first line matching the end template (`{delim}` filled from the start).
    IgnoreUntil(String),
}

#[derive(Debug)]
enum ParentRule {
    TopLevel,
    Any,
    Kinds(Vec<u16>),
}

#[derive(Debug)]
struct Pattern {
    action: Action,
    /// The regex as written (syntax checked when the file loads).
    src: String,
    /// Compiled on first use: an audit compiles only the commands its snapshot holds, which
    /// keeps start-up short with every platform's files embedded.
    compiled: OnceLock<meta::Regex>,
    /// The same pattern compiled for ASCII text (see [`build_ascii`]), used on ASCII lines;
    /// `compiled` itself when the pattern has no ASCII form.
    ascii: OnceLock<meta::Regex>,
    /// For an ignore pattern: its ASCII form as a full DFA (see [`build_dfa`]), which answers
    /// "does it match" on an ASCII line.
    dfa: OnceLock<Option<dense::DFA<Vec<u32>>>>,
    /// Literal the trimmed line must start with (derived from the regex).
    prefix: String,
    /// The first (up to 8) bytes of `prefix` as a little-endian word, and the mask of those
    /// bytes: a one-instruction reject before the full prefix comparison.
    head: u64,
    head_mask: u64,
    /// The whole pattern is a literal: compare strings, run no regex.
    literal: Option<Literal>,
    parent: ParentRule,
    /// Capture group names by group index (0 = whole match, unnamed).
    names: Vec<Option<String>>,
}

/// Size limit of one compiled pattern (as the file loader has always used).
const PATTERN_SIZE_LIMIT: usize = 1 << 22;

/// Size limit of one pattern's one-pass DFA (the fastest way to its captures; the regex
/// crate's default allows a megabyte each); a pattern whose DFA would be larger finds its
/// captures with the other engines. The patterns used by an audit of the mixed fabric held
/// about 23 MB of one-pass DFAs with the default; with 64 KiB the 5,000-device audit peaks
/// 14 MiB lower (696 -> 682 MiB) at the same CPU time.
const ONEPASS_SIZE_LIMIT: usize = 64 << 10;

/// Compile a pattern whose syntax was checked at load. Only a pattern beyond the size limit
/// can fail here; it then matches nothing (`Platform::compile_all` reports it, and a test runs
/// that over every embedded file).
fn build_meta(src: &str) -> Result<meta::Regex, String> {
    meta::Builder::new()
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(PATTERN_SIZE_LIMIT))
                .onepass_size_limit(Some(ONEPASS_SIZE_LIMIT)),
        )
        .build(src)
        .map_err(|e| e.to_string())
}

/// The syntax of a pattern's ASCII form: no Unicode classes, matching bytes (what
/// [`build_ascii`] and [`build_dfa`] compile).
fn ascii_syntax() -> regex_automata::util::syntax::Config {
    regex_automata::util::syntax::Config::new()
        .unicode(false)
        .utf8(false)
}

/// The pattern compiled with Unicode mode off, for ASCII lines only; None when the pattern is
/// not ASCII itself or needs Unicode mode (`\p{..}`).
///
/// On an ASCII haystack an ASCII pattern matches the same text with the same captures either
/// way: each Unicode class (`\d`, `\w`, `\s`, `[^,]`, `.`, `\b`) restricted to ASCII is its
/// ASCII-mode counterpart, and simple case folding maps ASCII letters only to each other
/// (besides non-ASCII letters, absent from the line). The ASCII form is several times smaller
/// (`\d` is one byte range instead of dozens of UTF-8 sequences), so its one-pass DFA fits
/// `ONEPASS_SIZE_LIMIT` and its lazy DFA has fewer states: the Unicode form of
/// `^MTU (?P<v>\d+) bytes` takes 72 KiB of one-pass DFA and so was searched by the slower
/// engines. A test compares both forms over every fixture line.
fn build_ascii(src: &str) -> Option<meta::Regex> {
    if !src.is_ascii() {
        return None;
    }
    meta::Builder::new()
        .syntax(ascii_syntax())
        .configure(
            meta::Config::new()
                .nfa_size_limit(Some(PATTERN_SIZE_LIMIT))
                .onepass_size_limit(Some(ONEPASS_SIZE_LIMIT)),
        )
        .build(src)
        .ok()
}

/// Size limit of an ignore pattern's full DFA; a pattern whose DFA would be larger is
/// searched with its lazy DFA (`meta::Regex::search_half`) instead.
const DFA_SIZE_LIMIT: usize = 256 << 10;

/// The ASCII form of an ignore pattern always anchored at the line start, as a full DFA. Only
/// whether it matches is asked, and most of the lines of command output are answered by such a
/// pattern (the counters of `show interface`); the full DFA answers that with a few
/// instructions per byte and none of the lazy DFA's per-search set-up (which cost as much as
/// the search on a short line). `None` when the pattern is not ASCII, not anchored, or too
/// large.
fn build_dfa(src: &str) -> Option<dense::DFA<Vec<u32>>> {
    use regex_syntax::hir::Look;
    if !src.is_ascii() {
        return None;
    }
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(false)
        .build()
        .parse(src)
        .ok()?;
    if !hir.properties().look_set_prefix().contains(Look::Start) {
        return None;
    }
    dense::Builder::new()
        .syntax(ascii_syntax())
        .thompson(
            regex_automata::nfa::thompson::Config::new().nfa_size_limit(Some(PATTERN_SIZE_LIMIT)),
        )
        .configure(
            dense::Config::new()
                .start_kind(regex_automata::dfa::StartKind::Anchored)
                .dfa_size_limit(Some(DFA_SIZE_LIMIT))
                .determinize_size_limit(Some(DFA_SIZE_LIMIT)),
        )
        .build(src)
        .ok()
}

impl Pattern {
    fn new(src: &str, action: Action, parent: ParentRule, names: Vec<Option<String>>) -> Self {
        Pattern {
            action,
            src: src.to_string(),
            compiled: OnceLock::new(),
            ascii: OnceLock::new(),
            dfa: OnceLock::new(),
            prefix: literal_prefix(src),
            head: 0,
            head_mask: 0,
            literal: None,
            parent,
            names,
        }
    }

    fn re(&self) -> &meta::Regex {
        self.compiled.get_or_init(|| {
            build_meta(&self.src).unwrap_or_else(|_| {
                meta::Regex::new_many::<&str>(&[])
                    .unwrap_or_else(|_| unreachable!("an empty pattern set always compiles"))
            })
        })
    }

    /// Whether the pattern matches an ASCII line, by its full DFA; None without one.
    fn dfa_match(&self, line: &str) -> Option<bool> {
        use regex_automata::dfa::Automaton;
        let dfa = self.dfa.get_or_init(|| build_dfa(&self.src)).as_ref()?;
        let input = Input::new(line)
            .anchored(regex_automata::Anchored::Yes)
            .earliest(true);
        dfa.try_search_fwd(&input).ok().map(|m| m.is_some())
    }

    /// The regex for a line: its ASCII form when the line is ASCII (see [`build_ascii`]).
    fn engine(&self, ascii_line: bool) -> &meta::Regex {
        if ascii_line {
            self.ascii
                .get_or_init(|| build_ascii(&self.src).unwrap_or_else(|| self.re().clone()))
        } else {
            self.re()
        }
    }
}

/// When a parser file's regexes are checked. The embedded files are checked by the tests
/// (`every_embedded_pattern_compiles`, `capture_names_scanned_as_parsed`), so an audit
/// compiles only the regexes its snapshot uses; a user's file (`--parsers DIR`) is checked
/// whole when it loads, each error named with its file:line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Now,
    Tested,
}

/// A regex compiled when its file loads (`Check::Now`) or on first use (`Check::Tested`).
#[derive(Debug)]
pub struct LazyRegex {
    src: String,
    size_limit: Option<usize>,
    re: OnceLock<Option<Regex>>,
}

impl LazyRegex {
    fn build(src: &str, size_limit: Option<usize>) -> Result<Regex, regex::Error> {
        let mut b = RegexBuilder::new(src);
        if let Some(n) = size_limit {
            b.size_limit(n);
        }
        b.build()
    }

    /// Compiled now: the error, if any, is the caller's to report.
    fn now(src: String, size_limit: Option<usize>) -> Result<LazyRegex, regex::Error> {
        let re = Self::build(&src, size_limit)?;
        Ok(LazyRegex {
            src,
            size_limit,
            re: OnceLock::from(Some(re)),
        })
    }

    fn later(src: String, size_limit: Option<usize>) -> LazyRegex {
        LazyRegex {
            src,
            size_limit,
            re: OnceLock::new(),
        }
    }

    /// The regex; None only when an embedded one does not compile (which a test reports).
    pub fn get(&self) -> Option<&Regex> {
        self.re
            .get_or_init(|| Self::build(&self.src, self.size_limit).ok())
            .as_ref()
    }

    /// Why it does not compile, if it does not.
    fn error(&self) -> Option<String> {
        Self::build(&self.src, self.size_limit)
            .err()
            .map(|e| e.to_string())
    }
}

/// Capture names by group index, read from the text of a pattern whose syntax is known to be
/// valid (an embedded one): each `(` that is not escaped, not inside a class and not followed
/// by `?` opens an unnamed group, `(?P<name>` and `(?<name>` a named one. Parsing every pattern
/// of every platform with `regex_syntax` was a fifth of an audit's start-up; the tests compare
/// this with [`capture_names`] for every embedded pattern.
fn scan_capture_names(re: &str) -> Vec<Option<String>> {
    let b = re.as_bytes();
    let mut names = vec![None];
    let mut class = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' => {
                if class > 0
                    && b.get(i + 1) == Some(&b':')
                    && let Some(end) = re[i..].find(":]")
                {
                    i += end + 2;
                    continue;
                }
                class += 1;
                // `]` first in a class (after an optional `^`) is a literal.
                if b.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if b.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b']' if class > 0 => class -= 1,
            b'(' if class == 0 => {
                if b.get(i + 1) == Some(&b'?') {
                    let rest = &re[i + 2..];
                    if let Some(n) = rest.strip_prefix("P<").or_else(|| rest.strip_prefix('<'))
                        && let Some(end) = n.find('>')
                    {
                        names.push(Some(n[..end].to_string()));
                    }
                } else {
                    names.push(None);
                }
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// A pattern's capture names: parsed (its syntax checked, errors recorded) or scanned.
fn pattern_names(
    check: Check,
    file: &str,
    text: &str,
    re: &toml::Spanned<String>,
    errors: &mut Vec<SpecError>,
) -> Option<Vec<Option<String>>> {
    match check {
        Check::Now => check_syntax(file, text, re, errors),
        Check::Tested => Some(scan_capture_names(re.get_ref())),
    }
}

/// Check a pattern's syntax and read its capture names without compiling it.
fn check_syntax(
    file: &str,
    text: &str,
    re: &toml::Spanned<String>,
    errors: &mut Vec<SpecError>,
) -> Option<Vec<Option<String>>> {
    match regex_syntax::Parser::new().parse(re.get_ref()) {
        Ok(hir) => {
            let mut names = vec![None];
            capture_names(&hir, &mut names);
            Some(names)
        }
        Err(e) => {
            bad_regex(file, text, re, &e, errors);
            None
        }
    }
}

/// Record a pattern that does not compile, at its file:line:col.
fn bad_regex(
    file: &str,
    text: &str,
    re: &toml::Spanned<String>,
    e: &dyn std::fmt::Display,
    errors: &mut Vec<SpecError>,
) {
    let (line, col) = line_col(text, re.span().start);
    errors.push(SpecError {
        file: file.into(),
        line,
        col,
        msg: format!("bad regex: {e}"),
    });
}

/// Capture names by group index, from a parsed pattern.
fn capture_names(hir: &regex_syntax::hir::Hir, out: &mut Vec<Option<String>>) {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Capture(c) => {
            let i = c.index as usize;
            if out.len() <= i {
                out.resize(i + 1, None);
            }
            out[i] = c.name.as_deref().map(String::from);
            capture_names(&c.sub, out);
        }
        HirKind::Repetition(r) => capture_names(&r.sub, out),
        HirKind::Concat(v) | HirKind::Alternation(v) => {
            for h in v {
                capture_names(h, out);
            }
        }
        _ => {}
    }
}

/// Per-thread search caches and capture slots of one command's patterns. A `Regex` keeps a
/// pool of caches with a fast path only for the first thread that used it; parsing runs on
/// every rayon thread, so each thread keeps its own caches here instead, keyed by command.
struct Scratch {
    /// By pattern, for the regex as written ([0]) and for its ASCII form ([1], made when the
    /// first ASCII line needs a regex).
    engines: [Option<Engines>; 2],
    /// What recently seen lines were found to be (see [`memo`]).
    memo: memo::Memo,
    /// The end regexes of delimited blocks (banners, EOS `comment` ... `EOF`), by their text
    /// once the delimiter is in it: compiled once, not at each block. A compile cost about
    /// 300 KiB for a moment and ~50 µs, per block (issue 19: EOS configs replicated to 16 KiB
    /// peaked at 21.6× their size, all of it one compile).
    until: HashMap<String, Regex>,
}

/// Distinct block ends kept per command; past it the cache starts over (a config naming
/// thousands of delimiters compiles each, as before, without holding them all).
const UNTIL_CACHE: usize = 64;

/// By pattern: its search cache and capture slots, made when the pattern first runs a regex.
/// Patterns answered by their literal or their full DFA never do, and their regex (and its
/// ASCII form) is then never compiled: making them all up front for a command was 0.8 % of an
/// audit of a 1,000-switch `show interface` snapshot.
struct Engines {
    slots: Vec<Option<(meta::Cache, regex_automata::util::captures::Captures)>>,
}

impl Scratch {
    /// The cache and capture slots of pattern `pi` (an index into `patterns`).
    fn engine(
        &mut self,
        patterns: &[Pattern],
        ascii_line: bool,
        pi: usize,
    ) -> &mut (meta::Cache, regex_automata::util::captures::Captures) {
        let e = self.engines[usize::from(ascii_line)].get_or_insert_with(|| Engines {
            slots: patterns.iter().map(|_| None).collect(),
        });
        e.slots[pi].get_or_insert_with(|| {
            let re = patterns[pi].engine(ascii_line);
            (re.create_cache(), re.create_captures())
        })
    }
}

thread_local! {
    static SCRATCH: RefCell<HashMap<u64, Scratch>> = RefCell::new(HashMap::new());
}

/// Unique id of each compiled command (keys `SCRATCH`; addresses could be reused).
static NEXT_UID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A compiled command parser.
#[derive(Debug)]
pub struct Command {
    uid: u64,
    pub cmd: String,
    pub id: String,
    pub config: bool,
    pub format: Format,
    pub per: String,
    pub optional: bool,
    /// Whether `collect` runs it (see `CommandSpec::collect`).
    pub collect: bool,
    /// Read before and after probes (see `CommandSpec::counters`).
    pub counters: bool,
    /// Metacharacters the allow-list accepts in this command (see `crate::parser::allow`).
    pub allow_chars: String,
    /// Model fields the output fills (see `CommandSpec::fills`).
    pub fills: Vec<String>,
    /// Matches a concrete command line against the template (placeholders become captures).
    matcher: LazyRegex,
    kinds: Vec<String>,
    patterns: Vec<Pattern>,
    /// Candidate patterns by first byte of the trimmed line.
    dispatch: Vec<Vec<u16>>,
    /// The default file name of a templated command as a regex and its placeholders, built on
    /// first use (`crate::device`) and kept: file-name matching runs for every file.
    pub file_matcher: std::sync::OnceLock<Option<(Regex, Vec<String>)>>,
}

/// A compiled platform: detection, commands, redaction.
#[derive(Debug)]
pub struct Platform {
    pub id: String,
    pub name: String,
    pub source: String,
    pub session_mode: Option<String>,
    pub prompt: Option<String>,
    pub paging_off: Vec<String>,
    detect: Vec<(LazyRegex, u32, String)>,
    min_score: u32,
    /// The file's own `redact` rules (see [`Platform::redact`]).
    redact_src: Vec<String>,
    redact: OnceLock<Vec<Regex>>,
    pub commands: Vec<Command>,
}

/// The compiled set of platforms.
#[derive(Debug, Default)]
pub struct Parsers {
    pub platforms: Vec<Platform>,
}

/// Literal prefix of an anchored regex: the characters after `^` up to the first metachar.
fn literal_prefix(re: &str) -> String {
    let Some(rest) = re.strip_prefix('^') else {
        return String::new();
    };
    let mut out = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek().copied() {
                Some(n) if "/-.:()[]{}*+?|^$\\ #".contains(n) => {
                    chars.next();
                    out.push(n);
                }
                _ => break,
            },
            '.' | '+' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '$' | '^' => break,
            '*' | '?' => {
                out.pop();
                break;
            }
            c => out.push(c),
        }
        if let Some(&n) = chars.peek()
            && (n == '*' || n == '?' || n == '{')
        {
            out.pop();
            break;
        }
    }
    out
}

/// The first up-to-8 bytes of `b` as a little-endian word, with the mask of the bytes present.
fn word_head(b: &[u8]) -> (u64, u64) {
    // Most lines are longer than 8 bytes: one load, no copy of a variable length.
    if let Some(w) = b.first_chunk::<8>() {
        return (u64::from_le_bytes(*w), u64::MAX);
    }
    let n = b.len().min(8);
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(&b[..n]);
    let mask = if n == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    };
    (u64::from_le_bytes(buf), mask)
}

/// How a regex without metacharacters can be matched by string comparison alone:
/// `^text$` is equality, `^text` is a prefix test (the literal prefix itself).
#[derive(Debug, Clone, PartialEq)]
enum Literal {
    Exact(String),
    Prefix,
}

fn plain_literal(re: &str) -> Option<Literal> {
    let body = re.strip_prefix('^')?;
    // A last `$` is the end anchor unless it is escaped (`\$`, but `\\$` is a `\` at the end).
    let (body, exact) = match body.strip_suffix('$') {
        Some(b) if b.bytes().rev().take_while(|&c| c == b'\\').count() % 2 == 0 => (b, true),
        _ => (body, false),
    };
    if body.is_empty() {
        return None;
    }
    // The text the body stands for: escaped punctuation (`\(`, `\.`) is itself; any other
    // escape (`\d`) or metacharacter means the pattern is not plain text.
    let mut text = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n) if "/-.:()[]{}*+?|^$\\ #".contains(n) => text.push(n),
                _ => return None,
            },
            '.' | '+' | '*' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '$' | '^' => {
                return None;
            }
            c => text.push(c),
        }
    }
    let lit = literal_prefix(&format!("^{body}"));
    if lit != text {
        return None;
    }
    Some(if exact {
        Literal::Exact(lit)
    } else {
        Literal::Prefix
    })
}

/// Load the embedded parsers, then files from `dir` (same platform id replaces, new ones add).
/// The embedded set alone is compiled once per process and shared.
pub fn load_parsers(dir: Option<&std::path::Path>) -> anyhow::Result<std::sync::Arc<Parsers>> {
    static EMBEDDED: std::sync::OnceLock<Result<std::sync::Arc<Parsers>, String>> =
        std::sync::OnceLock::new();
    let embedded_files = || -> Vec<(String, String)> {
        crate::embedded::PARSERS
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    };
    // The embedded files first (`Check::Tested`), then the user's (`Check::Now`).
    let compile = |files: &[(String, String)]| {
        let embedded = crate::embedded::PARSERS.len();
        let checks = (0..files.len()).map(|i| {
            if i < embedded {
                Check::Tested
            } else {
                Check::Now
            }
        });
        Parsers::load_checked(files.iter().zip(checks).map(|((f, t), c)| (f, t, c)))
            .map(std::sync::Arc::new)
            .map_err(|errs| {
                format!(
                    "invalid vendor parser file(s):\n{}",
                    errs.iter()
                        .map(|e| format!("  {e}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            })
    };
    match dir {
        None => EMBEDDED
            .get_or_init(|| compile(&embedded_files()))
            .clone()
            .map_err(|e| anyhow::anyhow!(e)),
        Some(d) => {
            let mut files = embedded_files();
            files.extend(crate::embedded::read_toml_dir(d)?);
            let parsers = compile(&files).map_err(|e| anyhow::anyhow!(e))?;
            // A user's file is compiled whole now, so a pattern too large fails here, named.
            let bad: Vec<String> = parsers
                .platforms
                .iter()
                .flat_map(|p| p.compile_all())
                .collect();
            if !bad.is_empty() {
                anyhow::bail!("invalid vendor parser file(s):\n  {}", bad.join("\n  "));
            }
            Ok(parsers)
        }
    }
}

#[cfg(test)]
fn exact_literal(re: &str) -> Option<String> {
    match plain_literal(re) {
        Some(Literal::Exact(s)) => Some(s),
        _ => None,
    }
}

/// The bytes an anchored regex can start with, when that is easy to tell: a literal, `\d`, a
/// simple class `[...]`, or a group of alternatives (`(?:RX|TX)`, `(?P<no>no )?shutdown`,
/// where an optional group adds what follows it). `None` means any byte.
fn first_bytes(re: &str) -> Option<Vec<u8>> {
    let mut out = start_bytes(re.strip_prefix('^')?, 0)?;
    out.sort_unstable();
    out.dedup();
    Some(out)
}

fn start_bytes(rest: &str, depth: u8) -> Option<Vec<u8>> {
    if depth > 4 {
        return None;
    }
    let b = rest.as_bytes();
    match *b.first()? {
        b'\\' => match b.get(1)? {
            b'd' => Some((b'0'..=b'9').collect()),
            c if !c.is_ascii_alphanumeric() => Some(vec![*c]),
            _ => None,
        },
        b'[' => {
            let class = &rest[1..];
            if class.starts_with('^') {
                return None;
            }
            let end = class.find(']')?;
            let body = &class.as_bytes()[..end];
            let mut out = Vec::new();
            let mut i = 0;
            while i < body.len() {
                match body[i] {
                    b'\\' => {
                        match body.get(i + 1) {
                            Some(b'd') => out.extend(b'0'..=b'9'),
                            Some(&c) if !c.is_ascii_alphanumeric() => out.push(c),
                            _ => return None,
                        }
                        i += 2;
                    }
                    a if body.get(i + 1) == Some(&b'-') && i + 2 < body.len() => {
                        out.extend(a..=body[i + 2]);
                        i += 3;
                    }
                    c => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            Some(out)
        }
        b'(' => {
            // The group's body, its alternatives, and what may follow an optional group.
            let mut level = 0usize;
            let mut close = None;
            let mut escaped = false;
            for (i, &c) in b.iter().enumerate() {
                match c {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'(' => level += 1,
                    b')' => {
                        level -= 1;
                        if level == 0 {
                            close = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let close = close?;
            let mut body = &rest[1..close];
            if let Some(x) = body.strip_prefix("?:") {
                body = x;
            } else if let Some(x) = body.strip_prefix("?P<") {
                body = &x[x.find('>')? + 1..];
            } else if body.starts_with('?') {
                return None;
            }
            let mut out = Vec::new();
            let (mut level, mut escaped, mut start) = (0usize, false, 0usize);
            let bb = body.as_bytes();
            let mut alts = Vec::new();
            for (i, &c) in bb.iter().enumerate() {
                match c {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'(' | b'[' => level += 1,
                    b')' | b']' => level = level.saturating_sub(1),
                    b'|' if level == 0 => {
                        alts.push(&body[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            alts.push(&body[start..]);
            for alt in alts {
                out.extend(start_bytes(alt, depth + 1)?);
            }
            match b.get(close + 1) {
                Some(b'?') | Some(b'*') => out.extend(start_bytes(&rest[close + 2..], depth + 1)?),
                _ => {}
            }
            Some(out)
        }
        b'.' | b'^' | b'$' | b'|' | b')' | b'*' | b'+' | b'?' | b'{' => None,
        c => {
            // A literal byte, unless a quantifier makes it optional.
            match b.get(1) {
                Some(b'?') | Some(b'*') => {
                    let mut out = vec![c];
                    out.extend(start_bytes(&rest[2..], depth + 1)?);
                    Some(out)
                }
                Some(b'{') => None,
                _ => Some(vec![c]),
            }
        }
    }
}

/// The regex (as text) matching a concrete command line against the template `cmd`.
fn template_matcher(cmd: &str) -> Result<String, String> {
    let mut re = String::from("^");
    let mut rest = cmd;
    let mut seen: Vec<&str> = Vec::new();
    while let Some(start) = rest.find('{') {
        re.push_str(&regex::escape(&rest[..start]));
        let end = rest[start..]
            .find('}')
            .ok_or_else(|| format!("unclosed placeholder in command {cmd:?}"))?;
        let name = &rest[start + 1..start + end];
        if !matches!(name, "if" | "dev") {
            return Err(format!(
                "unknown placeholder {{{name}}} in command {cmd:?} (expected {{if}} or {{dev}})"
            ));
        }
        // A placeholder may appear several times (`/sys/class/net/{if}/a /sys/class/net/{if}/b`):
        // the first occurrence captures, later ones must match a name too.
        if seen.contains(&name) {
            re.push_str("[A-Za-z0-9._:@/-]+");
        } else {
            let _ = write!(re, "(?P<{name}>[A-Za-z0-9._:@/-]+)");
            seen.push(name);
        }
        rest = &rest[start + end + 1..];
    }
    re.push_str(&regex::escape(rest));
    re.push('$');
    Ok(re)
}

impl Parsers {
    /// Compile all specs; `files` are (file name, text). Later files with the same platform id
    /// replace earlier ones (that is how `--parsers DIR` overrides the embedded set).
    pub fn load(files: &[(String, String)]) -> Result<Parsers, Vec<SpecError>> {
        Self::load_checked(files.iter().map(|(f, t)| (f, t, Check::Now)))
    }

    fn load_checked<'a>(
        files: impl Iterator<Item = (&'a String, &'a String, Check)>,
    ) -> Result<Parsers, Vec<SpecError>> {
        let mut errors = Vec::new();
        let mut platforms: Vec<Platform> = Vec::new();
        for (file, text, check) in files {
            match Platform::compile_checked(file, text, check) {
                Ok(p) => {
                    if let Some(pos) = platforms.iter().position(|q| q.id == p.id) {
                        platforms[pos] = p;
                    } else {
                        platforms.push(p);
                    }
                }
                Err(mut e) => errors.append(&mut e),
            }
        }
        if errors.is_empty() {
            platforms.sort_by(|a, b| a.id.cmp(&b.id));
            Ok(Parsers { platforms })
        } else {
            Err(errors)
        }
    }

    pub fn platform(&self, id: &str) -> Option<&Platform> {
        self.platforms.iter().find(|p| p.id == id)
    }

    /// Detect the platform of a config from its content. Returns (platform, evidence) or the
    /// reason detection failed.
    pub fn detect(&self, text: &str) -> Result<(String, String), String> {
        let mut scored: Vec<(u32, &Platform, Vec<String>)> = Vec::new();
        for p in &self.platforms {
            let mut score = 0;
            let mut why = Vec::new();
            for (re, s, w) in &p.detect {
                if let Some(m) = re.get().and_then(|re| re.find(text)) {
                    score += s;
                    // A pattern may begin with the JSON punctuation and line break before a key
                    // (`[{,]\s*"DEVICE_METADATA"`): the evidence is the key's line.
                    let lead = m
                        .as_str()
                        .find(|c: char| !(c.is_whitespace() || "{[,:".contains(c)))
                        .unwrap_or(0);
                    let (line, _) = line_col(text, m.start() + lead);
                    why.push(format!("{w} (line {line})"));
                }
            }
            if score > 0 {
                scored.push((score, p, why));
            }
        }
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
        match scored.as_slice() {
            [] => Err("no platform's detection patterns match".into()),
            [(s, p, why), rest @ ..] => {
                if *s < p.min_score {
                    return Err(format!(
                        "best guess {} scored {s} < {} needed: {}",
                        p.id,
                        p.min_score,
                        why.join("; ")
                    ));
                }
                if let Some((s2, p2, _)) = rest.first()
                    && s2 == s
                {
                    return Err(format!("ambiguous: {} and {} both score {s}", p.id, p2.id));
                }
                Ok((p.id.clone(), why.join("; ")))
            }
        }
    }
}

impl Platform {
    /// The `allow_chars` of the command with id `id`.
    pub fn allow_chars(&self, id: &str) -> Option<&str> {
        self.commands
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.allow_chars.as_str())
    }

    pub fn compile(file: &str, text: &str) -> Result<Platform, Vec<SpecError>> {
        Self::compile_checked(file, text, Check::Now)
    }

    fn compile_checked(file: &str, text: &str, check: Check) -> Result<Platform, Vec<SpecError>> {
        let spec: PlatformSpec = toml::from_str(text).map_err(|e| {
            let (line, col) = e.span().map(|s| line_col(text, s.start)).unwrap_or((0, 0));
            vec![SpecError {
                file: file.into(),
                line,
                col,
                msg: e.message().to_string(),
            }]
        })?;
        let mut errors = Vec::new();
        let mut detect = Vec::new();
        let mut min_score = u32::MAX;
        if let Some(d) = &spec.detect {
            min_score = d.min_score;
            for ev in &d.evidence {
                let src = format!("(?m){}", ev.regex.get_ref());
                let re = match check {
                    Check::Tested => LazyRegex::later(src, Some(1 << 22)),
                    Check::Now => match LazyRegex::now(src, Some(1 << 22)) {
                        Ok(r) => r,
                        Err(e) => {
                            bad_regex(file, text, &ev.regex, &e, &mut errors);
                            continue;
                        }
                    },
                };
                detect.push((re, ev.score, ev.why.clone()));
            }
        }
        let redact = OnceLock::new();
        if check == Check::Now {
            let mut rules = Vec::new();
            for r in &spec.redact {
                match Regex::new(r) {
                    Ok(re) => rules.push(re),
                    Err(e) => errors.push(SpecError {
                        file: file.into(),
                        line: 0,
                        col: 0,
                        msg: format!("bad redact regex {r:?}: {e}"),
                    }),
                }
            }
            let _ = redact.set(rules);
        }
        // Read-only by construction: a file asking for a command the allow-list refuses for
        // this platform does not load.
        for c in &spec.commands {
            let probe = c.cmd.replace("{if}", "eth0").replace("{dev}", "dev0");
            if let Some(why) = crate::parser::allow::refuse(&spec.platform, &probe, &c.allow_chars)
            {
                errors.push(SpecError::near(
                    file,
                    text,
                    &format!("cmd = {:?}", c.cmd),
                    format!(
                        "command {:?} refused by the read-only allow-list: {why}",
                        c.cmd
                    ),
                ));
            }
        }
        for p in spec.session.iter().flat_map(|s| s.paging_off.iter()) {
            if let Some(why) = crate::parser::allow::refuse_session(p) {
                errors.push(SpecError::near(
                    file,
                    text,
                    p,
                    format!("session setting refused: {why}"),
                ));
            }
        }
        let mut commands = Vec::new();
        for c in &spec.commands {
            let shared = match &c.records_from {
                None => None,
                Some(id) => match spec
                    .commands
                    .iter()
                    .find(|o| &o.id == id && o.records_from.is_none())
                {
                    Some(o) => Some(o),
                    None => {
                        errors.push(SpecError::near(
                            file,
                            text,
                            &format!("records_from = \"{id}\""),
                            format!(
                                "command {:?}: records_from {id:?} names no command of this file (or one that itself uses records_from)",
                                c.cmd
                            ),
                        ));
                        continue;
                    }
                },
            };
            if let Some(cmd) = Command::compile(file, text, c, shared, check, &mut errors) {
                commands.push(cmd);
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let session = spec.session.as_ref();
        Ok(Platform {
            id: spec.platform.clone(),
            name: spec.name.clone(),
            source: file.to_string(),
            session_mode: session.map(|s| s.mode.clone()),
            prompt: session.and_then(|s| s.prompt.clone()),
            paging_off: session.map(|s| s.paging_off.clone()).unwrap_or_default(),
            detect,
            min_score,
            redact_src: spec.redact.clone(),
            redact,
            commands,
        })
    }

    /// Compile every pattern now; returns those that cannot be (only the size limit can refuse
    /// a pattern whose syntax loaded). Audits compile lazily; this is for checks and tests.
    pub fn compile_all(&self) -> Vec<String> {
        let mut bad = Vec::new();
        for (re, _, _) in &self.detect {
            if let Some(e) = re.error() {
                bad.push(format!("{} detect regex {:?}: {e}", self.source, re.src));
            }
        }
        for r in &self.redact_src {
            if let Err(e) = Regex::new(r) {
                bad.push(format!("{} redact regex {r:?}: {e}", self.source));
            }
        }
        for c in &self.commands {
            if let Some(e) = c.matcher.error() {
                bad.push(format!("{} command {:?}: {e}", self.source, c.cmd));
            }
            for p in &c.patterns {
                if let Err(e) = build_meta(&p.src) {
                    bad.push(format!(
                        "{} {:?} pattern {:?}: {e}",
                        self.source, c.cmd, p.src
                    ));
                }
                let _ = p.re();
                let _ = p.engine(true);
            }
        }
        bad
    }

    /// Replace every secret in `text`: the rules of every platform (`crate::redact`), then this
    /// platform file's own `redact` patterns, line by line; returns the text and how many
    /// secrets were replaced.
    pub fn redact(&self, text: &str) -> (String, usize) {
        let rules = self.redact.get_or_init(|| {
            self.redact_src
                .iter()
                .filter_map(|r| Regex::new(r).ok())
                .collect()
        });
        crate::redact::redact_with(text, rules)
    }

    /// The command parser for a concrete command line, with its placeholder values.
    pub fn command_for(&self, concrete: &str) -> Option<(&Command, HashMap<String, String>)> {
        let concrete = concrete.trim();
        for c in &self.commands {
            if let Some(caps) = c.matcher.get().and_then(|m| m.captures(concrete)) {
                let mut args = HashMap::new();
                for name in ["if", "dev"] {
                    if let Some(m) = caps.name(name) {
                        args.insert(name.to_string(), m.as_str().to_string());
                    }
                }
                return Some((c, args));
            }
        }
        None
    }

    /// The command whose patterns read config files: the first of the platform's config
    /// forms, the one whose file in `configs/` is reported as `config` and gets remediation.
    pub fn config_command(&self) -> Option<&Command> {
        self.commands.iter().find(|c| c.config)
    }

    /// Every form a config file of this platform may take (`config = true`), primary first.
    pub fn config_commands(&self) -> impl Iterator<Item = &Command> {
        self.commands.iter().filter(|c| c.config)
    }

    pub fn command_by_id(&self, id: &str) -> Option<&Command> {
        self.commands.iter().find(|c| c.id == id)
    }
}

impl Command {
    fn compile(
        file: &str,
        text: &str,
        c: &CommandSpec,
        shared: Option<&CommandSpec>,
        check: Check,
        errors: &mut Vec<SpecError>,
    ) -> Option<Command> {
        let err_at = |errors: &mut Vec<SpecError>, msg: String| {
            errors.push(SpecError::near(
                file,
                text,
                &format!("id = \"{}\"", c.id),
                msg,
            ));
        };
        let format = match c.format.as_str() {
            "lines" => Format::Lines,
            "json" => Format::Json,
            "json-lines" => Format::JsonLines,
            "config-db" => Format::ConfigDb,
            "yaml-lines" => Format::YamlLines,
            other => {
                err_at(
                    errors,
                    format!(
                        "command {:?}: format {other:?}, expected lines, json, json-lines, config-db or yaml-lines",
                        c.cmd
                    ),
                );
                return None;
            }
        };
        if !matches!(c.per.as_str(), "once" | "per-interface" | "per-rdma-device") {
            err_at(
                errors,
                format!(
                    "command {:?}: per {:?}, expected once, per-interface or per-rdma-device",
                    c.cmd, c.per
                ),
            );
        }
        let matcher = match template_matcher(&c.cmd).and_then(|src| match check {
            Check::Tested => Ok(LazyRegex::later(src, None)),
            Check::Now => LazyRegex::now(src, None).map_err(|e| e.to_string()),
        }) {
            Ok(m) => m,
            Err(e) => {
                err_at(errors, e);
                return None;
            }
        };
        let records: Vec<&spec::RecordSpec> = shared
            .iter()
            .flat_map(|o| o.records.iter())
            .chain(c.records.iter())
            .collect();
        let ignore_lines: Vec<&toml::Spanned<String>> = shared
            .iter()
            .flat_map(|o| o.ignore.lines.iter())
            .chain(c.ignore.lines.iter())
            .collect();
        let ignore_blocks: Vec<&toml::Spanned<String>> = shared
            .iter()
            .flat_map(|o| o.ignore.blocks.iter())
            .chain(c.ignore.blocks.iter())
            .collect();
        let ignore_until: Vec<&spec::UntilSpec> = shared
            .iter()
            .flat_map(|o| o.ignore.until.iter())
            .chain(c.ignore.until.iter())
            .collect();
        let mut kinds: Vec<String> = Vec::new();
        for r in &records {
            if !kinds.contains(&r.kind) {
                kinds.push(r.kind.clone());
            }
        }
        let kind_idx = |k: &str| kinds.iter().position(|x| x == k).map(|p| p as u16);
        let mut patterns = Vec::new();
        let n_before = errors.len();
        for r in &records {
            let Some(names) = pattern_names(check, file, text, &r.regex, errors) else {
                continue;
            };
            let parent = match &r.parent {
                None => ParentRule::TopLevel,
                Some(p) => {
                    let list = p.list();
                    if list.iter().any(|k| k == "*") {
                        ParentRule::Any
                    } else {
                        let mut ks = Vec::new();
                        for k in &list {
                            match kind_idx(k) {
                                Some(i) => ks.push(i),
                                None => {
                                    let (line, col) = line_col(text, r.regex.span().start);
                                    errors.push(SpecError {
                                        file: file.into(),
                                        line,
                                        col,
                                        msg: format!(
                                            "record {:?}: parent kind {k:?} is not a record kind of command {:?}",
                                            r.kind, c.cmd
                                        ),
                                    });
                                }
                            }
                        }
                        ParentRule::Kinds(ks)
                    }
                }
            };
            patterns.push(Pattern::new(
                r.regex.get_ref(),
                Action::Record(kind_idx(&r.kind).unwrap_or(0)),
                parent,
                names,
            ));
        }
        let ignores = ignore_lines
            .iter()
            .map(|re| (*re, Action::IgnoreLine))
            .chain(ignore_blocks.iter().map(|re| (*re, Action::IgnoreBlock)))
            .chain(
                ignore_until
                    .iter()
                    .map(|u| (&u.start, Action::IgnoreUntil(u.end.clone()))),
            );
        for (re, action) in ignores {
            let Some(names) = pattern_names(check, file, text, re, errors) else {
                continue;
            };
            let mut p = Pattern::new(re.get_ref(), action, ParentRule::Any, names);
            p.literal = plain_literal(re.get_ref());
            patterns.push(p);
        }
        if errors.len() > n_before {
            return None;
        }
        for p in patterns.iter_mut() {
            (p.head, p.head_mask) = word_head(p.prefix.as_bytes());
        }
        let mut dispatch = vec![Vec::new(); 256];
        for (i, p) in patterns.iter().enumerate() {
            match p.prefix.as_bytes().first() {
                Some(&b) => dispatch[b as usize].push(i as u16),
                None => {
                    let first = first_bytes(&p.src);
                    for (b, d) in dispatch.iter_mut().enumerate() {
                        if first.as_ref().is_none_or(|set| set.contains(&(b as u8))) {
                            d.push(i as u16);
                        }
                    }
                }
            }
        }
        Some(Command {
            uid: NEXT_UID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            cmd: c.cmd.clone(),
            id: c.id.clone(),
            config: c.config,
            format,
            per: c.per.clone(),
            optional: c.optional,
            collect: c.collect,
            counters: c.counters,
            allow_chars: c.allow_chars.clone(),
            fills: c.fills.clone(),
            matcher,
            kinds,
            patterns,
            dispatch,
            file_matcher: std::sync::OnceLock::new(),
        })
    }

    /// Whether some pattern accepts `line` under a parent of kind `parent_kind`.
    fn would_match(&self, line: &str, parent_kind: Option<u16>) -> bool {
        let Some(&first) = line.as_bytes().first() else {
            return false;
        };
        self.dispatch[first as usize].iter().any(|&pi| {
            let p = &self.patterns[pi as usize];
            let parent_ok = match &p.parent {
                ParentRule::Any => true,
                ParentRule::TopLevel => parent_kind.is_none(),
                ParentRule::Kinds(ks) => parent_kind.is_some_and(|k| ks.contains(&k)),
            };
            parent_ok && line.starts_with(p.prefix.as_str()) && p.re().is_match(line)
        })
    }

    /// Parse `text` (line format). Never panics; binary or empty input yields a failed status.
    pub fn parse<'t>(&'t self, text: &'t str) -> Parsed<'t> {
        let mut out = Parsed {
            cmd: self,
            text,
            records: Vec::new(),
            spans: Vec::new(),
            unrecognized: Vec::new(),
            status: ParseStatus::Passed,
            error: None,
            json: None,
            canonical: None,
        };
        if let Some(e) = text_problem(text) {
            out.status = ParseStatus::Failed;
            out.error = Some(e);
            return out;
        }
        // The command echoed above its output (a session copied from a terminal): ignored.
        let echo = echo_line(text, &self.cmd);
        let unechoed = echo.as_ref().map(|(_, r)| blank_range(text, r.clone()));
        let doc_text = unechoed.as_deref().unwrap_or(text);
        if self.format == Format::Json {
            read_json(doc_text, &mut out);
            return out;
        }
        // Structured input: the canonical lines are parsed instead of the text; `lines` maps
        // each canonical line (1-based) to its source line.
        let mut src_lines: Option<Vec<u32>> = None;
        let mut json_error = None;
        if matches!(
            self.format,
            Format::JsonLines | Format::ConfigDb | Format::YamlLines
        ) {
            let doc = match self.format {
                Format::YamlLines => yaml::parse_json_or_yaml(doc_text),
                _ => json::parse(doc_text),
            };
            let as_strings = self.format == Format::ConfigDb;
            let root = match (self.format, doc.root) {
                (Format::ConfigDb, Some(r)) => Some(configdb::normalize(r)),
                (_, r) => r,
            };
            let render = |r: &json::Node| match self.format {
                Format::YamlLines => yaml::render(r),
                _ => json::render(r, as_strings),
            };
            let mut canon = String::new();
            let mut map = vec![0u32];
            for l in root.iter().flat_map(render) {
                for _ in 0..l.depth {
                    canon.push_str("  ");
                }
                canon.push_str(&l.text);
                canon.push('\n');
                map.push(l.src_line);
            }
            out.canonical = Some(canon);
            src_lines = Some(map);
            json_error = doc.error;
        }
        let mut scratch = SCRATCH
            .with(|m| m.borrow_mut().remove(&self.uid))
            .unwrap_or_else(|| Scratch {
                engines: [None, None],
                memo: memo::Memo::new(),
                until: HashMap::new(),
            });
        match out.canonical.take() {
            Some(canon) => {
                // Records capture spans of the canonical text, which `out` keeps.
                let mut sub = Parsed {
                    cmd: self,
                    text: &canon,
                    records: Vec::new(),
                    spans: Vec::new(),
                    unrecognized: Vec::new(),
                    status: ParseStatus::Passed,
                    error: None,
                    json: None,
                    canonical: None,
                };
                self.parse_lines(&canon, &mut sub, &mut scratch, 0);
                let map = src_lines.unwrap_or_default();
                let at = |l: u32| map.get(l as usize).copied().unwrap_or(l);
                out.records = sub.records;
                out.spans = sub.spans;
                out.unrecognized = sub.unrecognized;
                for r in &mut out.records {
                    r.line = at(r.line);
                }
                for u in &mut out.unrecognized {
                    u.line = at(u.line);
                }
                out.canonical = Some(canon);
            }
            None => {
                let skip = echo.as_ref().map_or(0, |(line, _)| *line);
                self.parse_lines(text, &mut out, &mut scratch, skip)
            }
        }
        SCRATCH.with(|m| {
            let mut m = m.borrow_mut();
            // Parsers loaded and dropped (tests, --parsers runs) leave entries behind: bound it.
            if m.len() >= 256 {
                m.clear();
            }
            m.insert(self.uid, scratch);
        });
        if let Some(e) = json_error {
            // The document stops here (cut off, or not JSON from here on): what came before
            // was read; the reason is listed at its line.
            let what = match (self.format, e.truncated) {
                (Format::YamlLines, true) => "the document ends early",
                (Format::YamlLines, false) => "invalid YAML",
                (_, true) => "JSON ends early",
                (_, false) => "invalid JSON",
            };
            out.unrecognized.push(Unrecognized {
                line: e.line,
                text: format!("{what} at line {} column {}: {}", e.line, e.col, e.msg).into(),
            });
            out.unrecognized.sort_by_key(|u| u.line);
            out.error = Some(format!(
                "{what} at line {} column {}: {}{}",
                e.line,
                e.col,
                e.msg,
                if out.records.is_empty() {
                    ""
                } else {
                    "; the part before it was read"
                }
            ));
        }
        out.status = if out.records.is_empty() && !out.unrecognized.is_empty() {
            if out.error.is_none() {
                out.error = Some("no line of the output was recognized".into());
            }
            ParseStatus::Failed
        } else if !out.unrecognized.is_empty() {
            ParseStatus::Partial
        } else {
            ParseStatus::Passed
        };
        out
    }

    /// The pattern that takes `trimmed` under a parent of kind `parent_kind`: the first in
    /// dispatch order whose literal head, parent rule and regex accept it. A function of those
    /// two alone (and of the command), which is what lets [`memo`] keep its answers.
    fn classify(&self, trimmed: &str, parent_kind: Option<u16>, scratch: &mut Scratch) -> Hit {
        // Whether the line is ASCII, found out when a regex first needs to know.
        let mut ascii: Option<bool> = None;
        let (line_head, _) = word_head(trimmed.as_bytes());
        let Some(first) = trimmed.as_bytes().first() else {
            return Hit::None;
        };
        for &pi in &self.dispatch[*first as usize] {
            let p = &self.patterns[pi as usize];
            if line_head & p.head_mask != p.head
                || (p.prefix.len() > 8 && !trimmed.starts_with(p.prefix.as_str()))
            {
                continue;
            }
            let parent_ok = match &p.parent {
                ParentRule::Any => true,
                ParentRule::TopLevel => parent_kind.is_none(),
                ParentRule::Kinds(ks) => parent_kind.is_some_and(|k| ks.contains(&k)),
            };
            if !parent_ok {
                continue;
            }
            let kind = match &p.action {
                Action::IgnoreLine | Action::IgnoreBlock => {
                    // The prefix test above already passed.
                    let hit = match &p.literal {
                        Some(Literal::Exact(lit)) => trimmed == lit,
                        Some(Literal::Prefix) => true,
                        None => {
                            let a = *ascii.get_or_insert_with(|| trimmed.is_ascii());
                            if a && let Some(hit) = p.dfa_match(trimmed) {
                                hit
                            } else {
                                p.engine(a)
                                    .search_half_with(
                                        &mut scratch.engine(&self.patterns, a, pi as usize).0,
                                        &Input::new(trimmed).earliest(true),
                                    )
                                    .is_some()
                            }
                        }
                    };
                    if !hit {
                        continue;
                    }
                    return Hit::Ignore(pi);
                }
                Action::IgnoreUntil(end_t) => {
                    let mut caps = p.re().create_captures();
                    p.re().captures(trimmed, &mut caps);
                    let Some(whole) = caps.get_match() else {
                        continue;
                    };
                    let delim = caps
                        .get_group_by_name("delim")
                        .and_then(|m| trimmed.get(m.range()))
                        .map(regex::escape);
                    let end_re = end_t.replace("{delim}", delim.as_deref().unwrap_or(""));
                    let rest = trimmed.get(whole.end()..).unwrap_or("");
                    let mut until = None;
                    let compiled = match scratch.until.get(&end_re) {
                        Some(re) => Ok(re.clone()),
                        None => Regex::new(&end_re).inspect(|re| {
                            if scratch.until.len() >= UNTIL_CACHE {
                                scratch.until.clear();
                            }
                            scratch.until.insert(end_re.clone(), re.clone());
                        }),
                    };
                    if let Ok(re) = compiled {
                        // A one-line block holds its own end after the opening.
                        if !(delim.is_some() && re.is_match(rest)) {
                            until = Some(re);
                        }
                    }
                    return Hit::Until(until);
                }
                Action::Record(kind) => *kind,
            };
            let a = *ascii.get_or_insert_with(|| trimmed.is_ascii());
            let (cache, caps) = scratch.engine(&self.patterns, a, pi as usize);
            p.engine(a)
                .search_captures_with(cache, &Input::new(trimmed), caps);
            if caps.is_match() {
                // The captures stay in the scratch slots of (pattern, `a`) for the caller.
                return Hit::Record(pi, kind, a);
            }
        }
        Hit::None
    }

    /// Read `text` line by line into records; line `skip` (1-based; 0 = none) is ignored.
    fn parse_lines<'t>(
        &'t self,
        text: &'t str,
        out: &mut Parsed<'t>,
        scratch: &mut Scratch,
        skip: u32,
    ) {
        #[derive(Clone, Copy)]
        enum Ctx {
            Rec(u32),
            Block,
            Unknown,
        }
        let mut stack: Vec<(usize, Ctx)> = Vec::new();
        let bytes = text.as_bytes();
        let mut pos = 0usize;
        let mut lineno = 0u32;
        // Inside a delimited block (banner): the regex that ends it.
        let mut until: Option<Regex> = None;
        // Context entries closed by the current line (restored if it turns out to be a wrap).
        let mut popped: Vec<(usize, Ctx)> = Vec::new();
        // The last recognized line: text, parent kind, indentation.
        let mut prev: Option<(&str, Option<u16>, usize, bool)> = None;
        // The capture spans of the current record line, relative to the line's start
        // (`usize::MAX` for a group that did not take part).
        let mut rel: Vec<(usize, usize)> = Vec::new();
        let memo_on_text = memo::enabled() && scratch.memo.ready(text);
        while pos < bytes.len() {
            lineno += 1;
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |p| pos + p);
            let line_start = pos;
            pos = end + 1;
            let mut raw = &text[line_start..end];
            if let Some(r) = raw.strip_suffix('\r') {
                raw = r;
            }
            if lineno == skip {
                continue;
            }
            if let Some(re) = &until {
                if re.is_match(raw) {
                    until = None;
                }
                continue;
            }
            // Byte tests for what `trim_start_matches([' ', '\t'])` and `trim_end` take off:
            // both are ASCII, and a line that ends in a printable ASCII byte has nothing to
            // trim at its end (anything else goes through `trim_end`).
            let indent = raw
                .bytes()
                .position(|b| b != b' ' && b != b'\t')
                .unwrap_or(raw.len());
            let trimmed = &raw[indent..];
            let trimmed = match trimmed.as_bytes().last() {
                Some(&b) if b > b' ' && b < 0x7f => trimmed,
                _ => trimmed.trim_end(),
            };
            if trimmed.is_empty() {
                continue;
            }
            popped.clear();
            while let Some(&(ind, c)) = stack.last() {
                if ind >= indent {
                    stack.pop();
                    popped.push((ind, c));
                } else {
                    break;
                }
            }
            let ctx = stack.last().map(|&(_, c)| c);
            match ctx {
                Some(Ctx::Block) => continue,
                Some(Ctx::Unknown) => {
                    out.unrecognized.push(Unrecognized {
                        line: lineno,
                        text: clip_line(trimmed).into(),
                    });
                    stack.push((indent, Ctx::Unknown));
                    continue;
                }
                _ => {}
            }
            let parent_kind = match ctx {
                Some(Ctx::Rec(r)) => Some(out.records[r as usize].kind),
                _ => None,
            };
            let offset = trimmed.as_ptr() as usize - text.as_ptr() as usize;
            let line = trimmed.as_bytes();
            let memo_on = memo_on_text && line.len() <= memo::MAX_LINE;
            let hash = if memo_on {
                memo::hash(line, parent_kind)
            } else {
                0
            };
            let known = if memo_on {
                scratch.memo.get(hash, line, parent_kind)
            } else {
                None
            };
            let outcome = match known {
                Some((o, spans)) => {
                    if matches!(o, memo::Outcome::Record { .. }) {
                        rel.clear();
                        rel.extend(spans.iter().map(|&(s, e)| {
                            if s == u32::MAX {
                                (usize::MAX, usize::MAX)
                            } else {
                                (s as usize, e as usize)
                            }
                        }));
                    }
                    o
                }
                None => {
                    let o = match self.classify(trimmed, parent_kind, scratch) {
                        Hit::None => memo::Outcome::Unmatched,
                        Hit::Ignore(pi) => memo::Outcome::Ignore(pi),
                        Hit::Until(end) => {
                            // Outside a delimited block here, so `until` was None.
                            until = end;
                            memo::Outcome::Until
                        }
                        Hit::Record(pi, kind, a) => {
                            let caps = &scratch.engine(&self.patterns, a, pi as usize).1;
                            rel.clear();
                            rel.extend((0..caps.group_len()).map(|g| {
                                caps.get_group(g)
                                    .map_or((usize::MAX, usize::MAX), |sp| (sp.start, sp.end))
                            }));
                            memo::Outcome::Record { pi, kind }
                        }
                    };
                    if memo_on {
                        scratch.memo.put(hash, line, parent_kind, o, &rel);
                    }
                    o
                }
            };
            let mut matched = false;
            match outcome {
                memo::Outcome::Unmatched => {}
                memo::Outcome::Until => matched = true,
                memo::Outcome::Ignore(pi) => {
                    matched = true;
                    if self
                        .patterns
                        .get(pi as usize)
                        .is_some_and(|p| matches!(p.action, Action::IgnoreBlock))
                    {
                        stack.push((indent, Ctx::Block));
                    }
                }
                memo::Outcome::Record { pi, kind } => {
                    matched = true;
                    let caps_at = out.spans.len() as u32;
                    out.spans.extend(rel.iter().map(|&(s, e)| {
                        if s == usize::MAX {
                            (u32::MAX, u32::MAX)
                        } else {
                            ((offset + s) as u32, (offset + e) as u32)
                        }
                    }));
                    let idx = out.records.len() as u32;
                    out.records.push(Record {
                        kind,
                        line: lineno,
                        parent: match ctx {
                            Some(Ctx::Rec(r)) => Some(r),
                            _ => None,
                        },
                        pattern: pi,
                        caps_at,
                    });
                    stack.push((indent, Ctx::Rec(idx)));
                }
            }
            if !matched {
                // Terminal line-wrap: a line at column 0 inside an indented block that completes
                // the previous line (`address: 4874` + `.1039.e2e8 (bia ...)`) continues it.
                // If the previous line was a record its value may be cut short, so the wrap is
                // still reported; either way the block's context survives it.
                if let Some((prev_text, prev_parent, prev_indent, prev_record)) = prev
                    && indent == 0
                    && prev_indent > 0
                {
                    let joined = format!("{prev_text}{trimmed}");
                    if self.would_match(&joined, prev_parent) {
                        while let Some(x) = popped.pop() {
                            stack.push(x);
                        }
                        if prev_record {
                            out.unrecognized.push(Unrecognized {
                                line: lineno,
                                text: format!(
                                    "{} (continues line {}, whose value may be cut)",
                                    clip_line(trimmed),
                                    lineno - 1
                                )
                                .into(),
                            });
                        }
                        continue;
                    }
                }
                out.unrecognized.push(Unrecognized {
                    line: lineno,
                    text: clip_line(trimmed).into(),
                });
                stack.push((indent, Ctx::Unknown));
            } else {
                let was_record = out.records.last().is_some_and(|r| r.line == lineno);
                prev = Some((trimmed, parent_kind, indent, was_record));
            }
        }
        // A file whose last line has no line end and is not understood was probably cut off.
        if let Some(u) = out.unrecognized.last_mut()
            && !text.ends_with('\n')
            && u.line == lineno
        {
            u.text = format!("{} (last line, no line end: truncated?)", u.text).into();
        }
    }
}

/// What [`Command::classify`] found a line to be.
enum Hit {
    None,
    /// An ignore pattern (line or block).
    Ignore(u16),
    /// The start of a delimited block, with the regex of its end (None: it ends on the same
    /// line, or the end does not compile).
    Until(Option<Regex>),
    /// A record pattern, its kind, and whether its ASCII engines were used (their capture slot
    /// for the pattern holds the match).
    Record(u16, u16, bool),
}

/// Why a text cannot be parsed at all (empty, binary), if it cannot.
pub fn text_problem(text: &str) -> Option<String> {
    if text.trim().is_empty() {
        return Some("the file is empty".into());
    }
    if let Some(pos) = memchr::memchr(0, text.as_bytes()) {
        let (line, _) = line_col(text, pos);
        return Some(format!(
            "binary data (NUL byte at line {line}), not command output"
        ));
    }
    None
}

/// At most this many characters of an unrecognized line are kept in the model and reports.
pub const LINE_SHOWN_CHARS: usize = 200;

/// A line of input as reports show it: the first [`LINE_SHOWN_CHARS`] characters, and when it
/// is longer, `… (N bytes)` with its full length. One 100 MiB line stays a 200-character line in
/// every format instead of being copied whole into each.
pub fn clip_line(s: &str) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(LINE_SHOWN_CHARS) {
        None => std::borrow::Cow::Borrowed(s),
        Some((at, _)) => std::borrow::Cow::Owned(format!("{} … ({} bytes)", &s[..at], s.len())),
    }
}

/// Read a file as text; what cannot be text is reported with its position, not a panic.
///
/// Line endings are made uniform before any parser sees the text: CRLF (Windows, and what a
/// terminal capture or a TFTP transfer in ASCII mode leaves) and a lone CR (classic Mac OS,
/// some copy-pastes) both become LF, so a CR-only NX-OS or EOS config, which opens with a `!`
/// comment, is read line by line instead of as one comment line. A CRLF pair becomes one line
/// end, so line numbers match what an editor shows. A UTF-8 byte-order mark is dropped (it
/// would make the first line unrecognized). UTF-16 text or invalid UTF-8 is reported (line,
/// column); a NUL byte is reported when the file is parsed ([`text_problem`]): such a file is
/// binary, or was saved in another encoding or padded with zeros, and reading around it would
/// audit something else than the device has.
pub fn decode(bytes: Vec<u8>) -> Result<String, String> {
    let mut bytes = bytes;
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    } else if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(
            "UTF-16 text (byte-order mark at the start): save it as UTF-8 (iconv -f UTF-16 -t UTF-8)"
                .into(),
        );
    }
    let position = |bytes: &[u8], at: usize| -> (usize, usize) {
        let before = &bytes[..at];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
        let col = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
        (line, col)
    };
    if memchr::memchr(b'\r', &bytes).is_some() {
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'\r' {
                out.push(b'\n');
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
            } else {
                out.push(b);
            }
            i += 1;
        }
        bytes = out;
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let (line, col) = position(e.as_bytes(), at);
        format!("not UTF-8 text (invalid byte at line {line}, column {col}): binary data?")
    })
}

/// The first non-blank line of `text` when it is the command echoed, as a terminal session
/// copied with its output shows it: optional indentation, an optional prompt ending in `#`,
/// `>`, `$` or `%` (`leaf1#`, `cumulus@sw:~$`, `[admin@h ~]$`), optional `sudo`, then the
/// command (up to its first `{placeholder}`), followed by the end of the line, a space (its
/// arguments) or `|` (a filter). Its 1-based line number and byte range.
fn echo_line(text: &str, cmd: &str) -> Option<(u32, std::ops::Range<usize>)> {
    let head = cmd.split('{').next().unwrap_or("").trim();
    if head.is_empty() {
        return None;
    }
    let mut start = 0usize;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let end = start + raw.len();
        let line = raw.trim();
        if line.is_empty() {
            start = end;
            continue;
        }
        let at = line.find(head)?;
        let prompt = line[..at].trim_end();
        let prompt_ok = prompt.is_empty()
            || (prompt.len() <= 80 && prompt.ends_with(['#', '>', '$', '%']))
            || prompt
                .strip_suffix("sudo")
                .is_some_and(|p| p.trim_end().ends_with(['#', '>', '$', '%']));
        let rest = &line[at + head.len()..];
        let tail_ok = rest.is_empty() || rest.starts_with([' ', '|']);
        return (prompt_ok && tail_ok).then(|| (i as u32 + 1, start..end));
    }
    None
}

/// `text` with the bytes of `r` turned into spaces (line ends kept, so lines keep their numbers).
fn blank_range(text: &str, r: std::ops::Range<usize>) -> String {
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..r.start]);
    out.extend(
        text[r.clone()]
            .chars()
            .map(|c| if c == '\n' || c == '\r' { c } else { ' ' }),
    );
    out.push_str(&text[r.end..]);
    out
}

#[derive(Debug, Clone, Copy)]
pub struct Record {
    kind: u16,
    pub line: u32,
    pub parent: Option<u32>,
    pattern: u16,
    caps_at: u32,
}

/// The records extracted from one file.
pub struct Parsed<'t> {
    cmd: &'t Command,
    text: &'t str,
    pub records: Vec<Record>,
    spans: Vec<(u32, u32)>,
    pub unrecognized: Vec<Unrecognized>,
    pub status: ParseStatus,
    pub error: Option<String>,
    /// The document, for json-format commands, every value with its line.
    pub json: Option<json::Node>,
    /// For json-lines and config-db commands: the canonical lines the records were read from
    /// (record captures point into it; record lines are the source text's).
    canonical: Option<String>,
}

impl<'t> Parsed<'t> {
    /// The whole text the records were read from.
    pub fn text(&self) -> &'t str {
        self.text
    }
    pub fn kind(&self, r: &Record) -> &str {
        &self.cmd.kinds[r.kind as usize]
    }
    /// A named capture of the record, if it participated in the match.
    pub fn get(&self, r: &Record, name: &str) -> Option<&str> {
        let p = &self.cmd.patterns[r.pattern as usize];
        let g = p.names.iter().position(|n| n.as_deref() == Some(name))?;
        let (s, e) = self.spans[r.caps_at as usize + g];
        if s == u32::MAX {
            return None;
        }
        self.canonical
            .as_deref()
            .unwrap_or(self.text)
            .get(s as usize..e as usize)
    }
    /// A capture parsed as a number.
    pub fn num<T: std::str::FromStr>(&self, r: &Record, name: &str) -> Option<T> {
        self.get(r, name).and_then(|s| s.trim().parse().ok())
    }
    pub fn parent(&self, r: &Record) -> Option<&Record> {
        r.parent.map(|p| &self.records[p as usize])
    }
    /// Index of a record in `records` (records are stored in line order).
    pub fn index(&self, r: &Record) -> usize {
        (r as *const Record as usize - self.records.as_ptr() as usize)
            / std::mem::size_of::<Record>()
    }
    /// Records directly under the record at `idx`.
    pub fn children(&self, idx: usize) -> impl Iterator<Item = &Record> {
        self.records
            .iter()
            .skip(idx + 1)
            .filter(move |r| r.parent == Some(idx as u32))
    }
}

/// `format = "json"` output, read once by the span-keeping reader ([`json::parse`]) so that
/// every value keeps its line for the readers' sources. A document cut short (a transfer that
/// stopped) is read up to the cut, `partial` with the reason at the line where it stops; any
/// other error (not JSON) fails the file, naming where.
fn read_json(text: &str, out: &mut Parsed<'_>) {
    let doc = json::parse(text);
    match (doc.root, doc.error) {
        (Some(root), None) => out.json = Some(root),
        (Some(root), Some(cut)) if cut.truncated => {
            out.json = Some(root);
            let why = format!(
                "JSON ends early at line {} column {}: {}",
                cut.line, cut.col, cut.msg
            );
            out.unrecognized.push(Unrecognized {
                line: cut.line,
                text: why.as_str().into(),
            });
            out.error = Some(format!("{why}; the part before it was read"));
            out.status = ParseStatus::Partial;
        }
        (_, e) => {
            out.status = ParseStatus::Failed;
            // serde_json's wording, as before this reader read these files (this path only
            // runs for a file that is not JSON)
            out.error = Some(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Err(se) => format!(
                    "invalid JSON at line {} column {}: {se}",
                    se.line(),
                    se.column()
                ),
                Ok(_) => format!(
                    "invalid JSON at {}",
                    e.map(|e| e.to_string())
                        .unwrap_or_else(|| "line 1 column 1: no JSON value".into())
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_commands_are_found_with_or_without_a_prompt() {
        let cmd = "show interface priority-flow-control";
        let at = |t: &str| echo_line(t, cmd).map(|(l, _)| l);
        assert_eq!(at("show interface priority-flow-control\nx\n"), Some(1));
        assert_eq!(
            at("\n  leaf1# show interface priority-flow-control\nx"),
            Some(2)
        );
        assert_eq!(
            at("leaf1#show interface priority-flow-control | no-more\n"),
            Some(1)
        );
        assert_eq!(
            at("admin@sw:~$ sudo show interface priority-flow-control\n"),
            Some(1)
        );
        // not an echo: other text first, another command, a longer word, no prompt character
        assert_eq!(
            at("Port Mode\nshow interface priority-flow-control\n"),
            None
        );
        assert_eq!(at("show interface\n"), None);
        assert_eq!(at("show interface priority-flow-controls\n"), None);
        assert_eq!(at("Note: show interface priority-flow-control\n"), None);
        // placeholders: the command up to its first argument
        assert_eq!(
            echo_line("$ ethtool eth2\n", "ethtool {if}").map(|(l, _)| l),
            Some(1)
        );
        let t = "sw# show x\r\nrest\n";
        let (_, r) = echo_line(t, "show x").unwrap();
        assert_eq!(blank_range(t, r), "          \r\nrest\n");
    }

    #[test]
    fn every_embedded_pattern_compiles() {
        let parsers = crate::parser::load_parsers(None).unwrap();
        let bad: Vec<String> = parsers
            .platforms
            .iter()
            .flat_map(|p| p.compile_all())
            .collect();
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn capture_names_scanned_as_parsed() {
        // The embedded files' capture names are scanned, not parsed (`Check::Tested`).
        let parsers = crate::parser::load_parsers(None).unwrap();
        let mut n = 0;
        for pl in &parsers.platforms {
            for c in &pl.commands {
                for p in &c.patterns {
                    let hir = regex_syntax::Parser::new().parse(&p.src).unwrap();
                    let mut parsed = vec![None];
                    capture_names(&hir, &mut parsed);
                    assert_eq!(p.names, parsed, "{} {:?} {:?}", pl.source, c.cmd, p.src);
                    n += 1;
                }
            }
        }
        assert!(n > 1000, "{n} patterns");
        for (re, want) in [
            (
                r"^a(b)(?P<x>c)(?:d)(?<y>e)(?i)f",
                vec![None, None, Some("x"), Some("y")],
            ),
            (
                r"^[(][^)(\]][[:alpha:](]\((?P<z>[]])",
                vec![None, Some("z")],
            ),
            (r"^\\(a)[\[(](b)", vec![None, None, None]),
        ] {
            let want: Vec<Option<String>> = want.iter().map(|w| w.map(String::from)).collect();
            let hir = regex_syntax::Parser::new().parse(re).unwrap();
            let mut parsed = vec![None];
            capture_names(&hir, &mut parsed);
            assert_eq!(parsed, want, "{re}");
            assert_eq!(scan_capture_names(re), want, "{re}");
        }
    }

    /// Every line of the fixtures' text files, trimmed as the parser trims it, once each.
    fn fixture_lines() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut out = std::collections::BTreeSet::new();
        for p in crate::fuzzing::smoke::files_under(&root) {
            if let Ok(t) = std::fs::read_to_string(&p) {
                for l in t.lines() {
                    let l = l.trim_start_matches([' ', '\t']).trim_end();
                    if !l.is_empty() {
                        out.insert(l.to_string());
                    }
                }
            }
        }
        out.into_iter().collect()
    }

    #[test]
    fn ascii_forms_match_as_written() {
        // Each embedded pattern's ASCII form finds the same match and captures as the pattern
        // itself on every ASCII fixture line that passes its prefix test, plus lines made to
        // touch the classes whose Unicode and ASCII forms differ.
        let parsers = crate::parser::load_parsers(None).unwrap();
        let mut lines = fixture_lines();
        lines.extend(
            [
                "Ethernet1/1 is up",
                "MTU 9216 bytes, BW 100000000 Kbit, DLY 10 usec",
                "key 7 0x1F\x0b",
                "a\u{b}b\u{c}c\u{1c}d",
                "_ word-boundary_x 09 AZaz",
            ]
            .map(String::from),
        );
        let lines: Vec<&str> = lines
            .iter()
            .map(String::as_str)
            .filter(|l| l.is_ascii())
            .collect();
        let (mut compared, mut matched, mut with_dfa) = (0usize, 0usize, 0usize);
        for pl in &parsers.platforms {
            for c in &pl.commands {
                for p in &c.patterns {
                    let (uni, ascii) = (p.re(), p.engine(true));
                    let (mut cu, mut ca) = (uni.create_captures(), ascii.create_captures());
                    for l in lines.iter().filter(|l| l.starts_with(p.prefix.as_str())) {
                        uni.captures(*l, &mut cu);
                        ascii.captures(*l, &mut ca);
                        let groups = |c: &regex_automata::util::captures::Captures| {
                            (0..c.group_len())
                                .map(|g| c.get_group(g))
                                .collect::<Vec<_>>()
                        };
                        assert_eq!(
                            groups(&cu),
                            groups(&ca),
                            "{} {:?} on {l:?}",
                            pl.source,
                            p.src
                        );
                        let half = |r: &meta::Regex| r.search_half(&Input::new(*l).earliest(true));
                        let hit = half(uni).is_some();
                        assert_eq!(hit, half(ascii).is_some(), "{:?} on {l:?}", p.src);
                        if let Some(d) = p.dfa_match(l) {
                            assert_eq!(hit, d, "full DFA of {:?} on {l:?}", p.src);
                            with_dfa += 1;
                        }
                        compared += 1;
                        matched += usize::from(cu.is_match());
                    }
                }
            }
        }
        assert!(
            compared > 100_000 && matched > 10_000 && with_dfa > 10_000,
            "{compared} {matched} {with_dfa}"
        );
    }

    #[test]
    fn lines_answered_from_the_memo_parse_as_matched_afresh() {
        // Every fixture file of a command, repeated past the memo's size threshold, parsed
        // with the memo (twice: the second time from a warm table) and without it.
        let parsers = crate::parser::load_parsers(None).unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let seen = |p: &Parsed<'_>| {
            format!(
                "{:?} {:?} {:?} {:?} {:?}",
                p.records, p.spans, p.unrecognized, p.status, p.error
            )
        };
        let (mut files, mut records) = (0usize, 0usize);
        for pl in &parsers.platforms {
            for c in &pl.commands {
                let dir = root.join(&pl.id).join(&c.id);
                if !dir.is_dir() {
                    continue;
                }
                for f in crate::fuzzing::smoke::files_under(&dir) {
                    let Ok(t) = std::fs::read_to_string(&f) else {
                        continue;
                    };
                    if t.trim().is_empty() {
                        continue;
                    }
                    let mut text = String::new();
                    while text.len() < memo::MIN_TEXT {
                        text.push_str(&t);
                        text.push('\n');
                    }
                    memo::set_enabled(false);
                    let want = seen(&c.parse(&text));
                    memo::set_enabled(true);
                    for _ in 0..2 {
                        let got = c.parse(&text);
                        records += got.records.len();
                        assert_eq!(seen(&got), want, "{}", f.display());
                    }
                    files += 1;
                }
            }
        }
        assert!(
            files > 100 && records > 10_000,
            "{files} files, {records} records"
        );
    }

    #[test]
    fn first_byte_sets() {
        assert_eq!(first_bytes(r"^\d+ packets").map(|v| v.len()), Some(10));
        assert_eq!(first_bytes(r"^[A-Ca]x"), Some(vec![b'A', b'B', b'C', b'a']));
        assert_eq!(first_bytes(r"^(a|b)"), Some(vec![b'a', b'b']));
        assert_eq!(first_bytes(r"^(?:RX|TX|Rx|Tx)$"), Some(vec![b'R', b'T']));
        assert_eq!(
            first_bytes(r"^(?P<no>no )?shutdown$"),
            Some(vec![b'n', b's'])
        );
        assert_eq!(first_bytes(r"^(?:Up|Down) \d"), Some(vec![b'D', b'U']));
        assert_eq!(first_bytes(r"^(?P<dev>\S+)$"), None);
        assert_eq!(first_bytes(r"^[^a]"), None);
        assert_eq!(first_bytes(r"^(a|)b"), None);
    }

    #[test]
    fn literal_prefixes() {
        assert_eq!(literal_prefix(r"^mtu (?P<m>\d+)$"), "mtu ");
        assert_eq!(literal_prefix(r"^interface\s+(\S+)"), "interface");
        assert_eq!(literal_prefix(r"^no shutdown$"), "no shutdown");
        assert_eq!(literal_prefix(r"^pauses?"), "pause");
        assert_eq!(literal_prefix(r"^Eth(ernet)?\d"), "Eth");
        assert_eq!(literal_prefix(r"\d+ packets"), "");
        assert_eq!(literal_prefix(r"^a\.b"), "a.b");
    }

    const SPEC: &str = r#"
platform = "t"
name = "Test"
[[command]]
cmd = "show run"
id = "run"
config = true
[[command.record]]
kind = "interface"
regex = '^interface (?P<name>\S+)$'
[[command.record]]
kind = "mtu"
parent = "interface"
regex = '^mtu (?P<mtu>\d+)$'
[command.ignore]
lines = ['^!']
blocks = ['^router ']
"#;

    /// `format = "json"`: one read keeps each value's line (pretty: its own line; compact:
    /// line 1), a cut document is `partial` at the cut, other text fails with serde_json's
    /// wording as before.
    #[test]
    fn json_format_keeps_lines_and_reads_cut_documents() {
        let spec = "platform = \"t\"\nname = \"T\"\n[[command]]\ncmd = \"show links | json\"\nallow_chars = \"|\"\nid = \"j\"\nformat = \"json\"\n";
        let p = Platform::compile("t.toml", spec).unwrap_or_else(|e| panic!("{e:?}"));
        let c = p.command_by_id("j").unwrap();
        let mtu_line = |t: &str| {
            let parsed = c.parse(t);
            assert_eq!(parsed.status, ParseStatus::Passed, "{:?}", parsed.error);
            let root = parsed.json.as_ref().and_then(json::Node::as_array).unwrap();
            let eth2 = &root[1];
            assert_eq!(
                eth2.get("ifname").and_then(json::Node::as_str),
                Some("eth2")
            );
            let mtu = eth2.get("mtu").unwrap();
            (mtu.as_u64(), mtu.line)
        };
        let pretty = "[ {\n    \"ifname\": \"lo\",\n    \"mtu\": 65536\n  },{\n    \"ifname\": \"eth2\",\n    \"mtu\": 9000\n  } ]\n";
        assert_eq!(mtu_line(pretty), (Some(9000), 6));
        let compact = r#"[{"ifname":"lo","mtu":65536},{"ifname":"eth2","mtu":9000}]"#;
        assert_eq!(mtu_line(compact), (Some(9000), 1));
        let cut = c.parse(&pretty[..pretty.find("9000").unwrap_or(0) + 2]);
        assert_eq!(cut.status, ParseStatus::Partial);
        assert_eq!(cut.unrecognized[0].line, 6, "{:?}", cut.unrecognized);
        let bad = c.parse("Device \"eth9\" does not exist.\n");
        assert_eq!(bad.status, ParseStatus::Failed);
        assert!(bad.json.is_none());
        let e = bad.error.unwrap_or_default();
        assert!(e.starts_with("invalid JSON at line 1 column 1: "), "{e}");
    }

    #[test]
    fn nesting_ignores_and_unrecognized() {
        let p = Platform::compile("t.toml", SPEC).unwrap();
        let c = p.config_command().unwrap();
        let text = "!\ninterface e1\r\n  mtu 9216\n  bogus\n    deeper\nrouter bgp 1\n  neighbor x\nmtu 5\n";
        let parsed = c.parse(text);
        assert_eq!(parsed.records.len(), 2);
        let mtu = &parsed.records[1];
        assert_eq!(parsed.kind(mtu), "mtu");
        assert_eq!(parsed.get(mtu, "mtu"), Some("9216"));
        assert_eq!(parsed.get(parsed.parent(mtu).unwrap(), "name"), Some("e1"));
        let lines: Vec<u32> = parsed.unrecognized.iter().map(|u| u.line).collect();
        assert_eq!(lines, vec![4, 5, 8]);
        assert_eq!(parsed.status, ParseStatus::Partial);
    }

    #[test]
    fn delimited_blocks_shared_records_and_exact_literals() {
        let spec = r#"
platform = "t"
name = "Test"
[[command]]
cmd = "show run"
id = "run"
[[command.record]]
kind = "interface"
regex = '^interface (?P<name>\S+)$'
[command.ignore]
lines = ['^end$']
until = [{ start = '^banner motd (?P<delim>\S)', end = '{delim}' }, { start = '^banner login$', end = '^EOF$' }]
[[command]]
cmd = "show run interface {if}"
id = "run-if"
records_from = "run"
"#;
        let p = Platform::compile("t.toml", spec).unwrap();
        let c = p.command_by_id("run").unwrap();
        let text = "banner motd #\nWelcome\n  interface fake\n#\nbanner motd %one line%\nbanner login\nhello\nEOF\ninterface e1\nend\n";
        let parsed = c.parse(text);
        assert!(parsed.unrecognized.is_empty(), "{:?}", parsed.unrecognized);
        assert_eq!(parsed.records.len(), 1);
        assert_eq!(parsed.records[0].line, 9);
        let (c2, args) = p.command_for("show run interface Ethernet1/1").unwrap();
        assert_eq!(args["if"], "Ethernet1/1");
        assert_eq!(c2.parse("interface e2\nend\n").records.len(), 1);
        assert_eq!(exact_literal("^RX$").as_deref(), Some("RX"));
        assert_eq!(exact_literal("^a.b$"), None);
        assert_eq!(exact_literal("^ab+$"), None);
        assert_eq!(plain_literal("^Hardware: "), Some(Literal::Prefix));
        // Escaped punctuation is plain text; `\$` at the end is a dollar, not the anchor.
        assert_eq!(plain_literal("^a\\.b"), Some(Literal::Prefix));
        assert_eq!(
            exact_literal(r"^EEE \(efficient-ethernet\) :$").as_deref(),
            Some("EEE (efficient-ethernet) :")
        );
        assert_eq!(plain_literal(r"^cost \$"), Some(Literal::Prefix));
        assert_eq!(exact_literal(r"^a\\$").as_deref(), Some("a\\"));
        assert_eq!(plain_literal(r"^a\d"), None);
        assert_eq!(plain_literal(r"^a\(?b"), None);
    }

    #[test]
    fn terminal_line_wrap_continues_the_previous_line() {
        let p = Platform::compile("t.toml", SPEC).unwrap();
        let c = p.config_command().unwrap();
        let parsed = c.parse("interface e1\n  mtu 92\n16\n  mtu 9000\n");
        // `  mtu 92` + `16` = `mtu 9216`: a wrap, so `  mtu 9000` stays under the interface;
        // the cut record value is reported, not trusted silently.
        assert_eq!(parsed.unrecognized.len(), 1, "{:?}", parsed.unrecognized);
        assert_eq!(parsed.unrecognized[0].line, 3);
        assert_eq!(parsed.records.len(), 3);
        let ign = SPEC.replace("lines = ['^!']", "lines = ['^!', '^description .+$']");
        let p = Platform::compile("t.toml", &ign).unwrap();
        let parsed = p
            .config_command()
            .unwrap()
            .parse("interface e1\n  description a\nb c\n  mtu 9000\n");
        assert!(parsed.unrecognized.is_empty(), "{:?}", parsed.unrecognized);
        assert_eq!(parsed.records.len(), 2);
        let parsed = c.parse("interface e1\n  mtu 9000\nbogus block\n  mtu 1500\n");
        assert_eq!(parsed.unrecognized.len(), 2);
    }

    #[test]
    fn empty_and_binary_fail() {
        let p = Platform::compile("t.toml", SPEC).unwrap();
        let c = p.config_command().unwrap();
        assert_eq!(c.parse("").status, ParseStatus::Failed);
        assert_eq!(c.parse("\n \n").status, ParseStatus::Failed);
        assert_eq!(c.parse("ab\0cd").status, ParseStatus::Failed);
        assert_eq!(c.parse("garbage only\n").status, ParseStatus::Failed);
    }

    #[test]
    fn spec_errors_name_the_line() {
        let bad = SPEC.replace(r"^mtu (?P<mtu>\d+)$", r"^mtu (?P<mtu>\d+$");
        let e = Platform::compile("t.toml", &bad).unwrap_err();
        assert_eq!(e[0].line, 14, "{e:?}");
        let bad = SPEC.replace("kind = \"mtu\"", "knd = \"mtu\"");
        let e = Platform::compile("t.toml", &bad).unwrap_err();
        assert!(e[0].msg.contains("knd"), "{e:?}");
        assert_eq!(e[0].line, 12);
    }

    #[test]
    fn templates_match_concrete_commands() {
        let m = Regex::new(&template_matcher("ethtool -a {if}").unwrap()).unwrap();
        let c = m.captures("ethtool -a eth2").unwrap();
        assert_eq!(&c["if"], "eth2");
        assert!(m.captures("ethtool -a eth2; reboot").is_none());
        let m = Regex::new(
            &template_matcher("grep -H . /sys/class/net/{if}/a/* /sys/class/net/{if}/b").unwrap(),
        )
        .unwrap();
        let c = m
            .captures("grep -H . /sys/class/net/eth2/a/* /sys/class/net/eth2/b")
            .unwrap();
        assert_eq!(&c["if"], "eth2");
    }
}
