//! `~/.ssh/config` reader: enough of OpenSSH's client configuration (ssh_config(5)) to know how
//! `ssh HOST` would connect — host name, user, port, keys, jump hosts, known-hosts file, host key
//! policy and connect timeout.
//!
//! Semantics follow OpenSSH: keywords are case-insensitive, `Key Value` and `Key=Value` both
//! work, arguments may be quoted, and for each keyword the first value obtained from the blocks
//! that match (in file order) wins, except `IdentityFile`, which accumulates. `Host` patterns
//! take `*` / `?` globs and `!` negation. `Include` is followed (relative paths are relative to
//! `~/.ssh`, a `*` glob in the file name is allowed). `Match` blocks are not evaluated: they are
//! skipped and reported by [`SshConfig::warnings`]. Unknown keywords are ignored, as there are
//! hundreds; a line that is broken (no value, unterminated quote, bad port or time) is an error
//! naming `file:line`.

use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};

/// OpenSSH's own limit on nested `Include`s.
const MAX_INCLUDE_DEPTH: usize = 16;

/// What `ssh` would use for one host, as far as this reader knows. `None` / empty means the
/// configuration does not say (OpenSSH then uses its defaults: port 22, the local user, ...).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostConfig {
    pub hostname: Option<String>,
    pub user: Option<String>,
    pub port: Option<u16>,
    pub identity_files: Vec<PathBuf>,
    /// Raw value, e.g. `user@bastion:2222`, `a,b` or `none`.
    pub proxy_jump: Option<String>,
    pub user_known_hosts_file: Option<PathBuf>,
    pub strict_host_key_checking: Option<String>,
    /// Seconds; `None` also when the configuration says `ConnectTimeout none`.
    pub connect_timeout: Option<u64>,
}

/// A parsed client configuration (one file and everything it includes).
#[derive(Debug, Clone)]
pub struct SshConfig {
    blocks: Vec<Block>,
    warnings: Vec<String>,
    env: Env,
}

/// Settings that apply when every condition holds (lines before the first `Host` have none).
#[derive(Debug, Clone)]
struct Block {
    conds: Vec<Cond>,
    settings: Vec<Setting>,
}

#[derive(Debug, Clone)]
enum Cond {
    /// A `Host` line: applies when a pattern matches and no negated pattern does.
    Host(Vec<HostPattern>),
    /// A skipped `Match` block: never applies.
    Never,
}

#[derive(Debug, Clone)]
struct HostPattern {
    negated: bool,
    /// Lower-cased glob.
    glob: Vec<char>,
}

/// One supported keyword with its checked value. Values with `%` tokens or `~` stay raw until
/// [`SshConfig::resolve`] knows the host.
#[derive(Debug, Clone)]
enum Setting {
    HostName(String),
    User(String),
    Port(u16),
    IdentityFile(String),
    ProxyJump(String),
    UserKnownHostsFile(String),
    StrictHostKeyChecking(String),
    /// `None` for `ConnectTimeout none`.
    ConnectTimeout(Option<u64>),
}

/// The parts of the process environment the semantics depend on, kept so tests can fix them.
#[derive(Debug, Clone)]
struct Env {
    home: Option<PathBuf>,
    local_user: String,
}

impl Env {
    fn from_process() -> Env {
        Env {
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            local_user: std::env::var("USER").unwrap_or_default(),
        }
    }
}

impl SshConfig {
    /// Parse configuration text; `file` names it in errors and warnings. `Include`d files are
    /// read from disk.
    pub fn parse(text: &str, file: &str) -> Result<SshConfig> {
        Self::parse_with_env(text, file, Env::from_process())
    }

    /// `~/.ssh/config` (via `$HOME`) if it exists; `Ok(None)` if not.
    pub fn load_user() -> Result<Option<SshConfig>> {
        let env = Env::from_process();
        let Some(home) = env.home.clone() else {
            return Ok(None);
        };
        let path = home.join(".ssh").join("config");
        if !path.is_file() {
            return Ok(None);
        }
        let text = read_text(&path)?;
        Self::parse_with_env(&text, &path.display().to_string(), env).map(Some)
    }

    /// Read and parse one configuration file.
    pub fn load(path: &Path) -> Result<SshConfig> {
        let text = read_text(path)?;
        Self::parse(&text, &path.display().to_string())
    }

    fn parse_with_env(text: &str, file: &str, env: Env) -> Result<SshConfig> {
        let mut reader = Reader {
            env: &env,
            blocks: Vec::new(),
            warnings: Vec::new(),
        };
        reader.read(text, file, &[], 0)?;
        let Reader {
            blocks, warnings, ..
        } = reader;
        Ok(SshConfig {
            blocks,
            warnings,
            env,
        })
    }

    /// Lines that were skipped (unsupported keywords such as `Match` blocks), as
    /// `file:line: why`.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Settings for `host` (the name the user typed), with OpenSSH semantics: first obtained
    /// value wins, `IdentityFile` accumulates, `~` and `%` tokens expanded.
    pub fn resolve(&self, host: &str) -> HostConfig {
        let host_lc = host.to_lowercase();
        let mut hostname: Option<&str> = None;
        let mut user: Option<&str> = None;
        let mut port: Option<u16> = None;
        let mut identity: Vec<&str> = Vec::new();
        let mut proxy_jump: Option<&str> = None;
        let mut known_hosts: Option<&str> = None;
        let mut strict: Option<&str> = None;
        let mut timeout: Option<Option<u64>> = None;
        for block in self.blocks.iter().filter(|b| b.applies_to(&host_lc)) {
            for setting in &block.settings {
                match setting {
                    Setting::HostName(v) => {
                        hostname.get_or_insert(v);
                    }
                    Setting::User(v) => {
                        user.get_or_insert(v);
                    }
                    Setting::Port(v) => {
                        port.get_or_insert(*v);
                    }
                    Setting::IdentityFile(v) => identity.push(v),
                    Setting::ProxyJump(v) => {
                        proxy_jump.get_or_insert(v);
                    }
                    Setting::UserKnownHostsFile(v) => {
                        known_hosts.get_or_insert(v);
                    }
                    Setting::StrictHostKeyChecking(v) => {
                        strict.get_or_insert(v);
                    }
                    Setting::ConnectTimeout(v) => {
                        timeout.get_or_insert(*v);
                    }
                }
            }
        }

        let hostname = hostname.map(|h| expand_tokens(h, &[('h', host)]));
        let remote_host = hostname.as_deref().unwrap_or(host);
        let port_text = port.unwrap_or(22).to_string();
        let home = self
            .env
            .home
            .as_ref()
            .map(|h| h.display().to_string())
            .unwrap_or_default();
        let tokens = [
            ('h', remote_host),
            ('r', user.unwrap_or(&self.env.local_user)),
            ('p', port_text.as_str()),
            ('u', self.env.local_user.as_str()),
            ('d', home.as_str()),
            ('n', host),
        ];
        let path_of = |raw: &str| {
            let tilde = expand_tilde(raw, self.env.home.as_deref());
            PathBuf::from(expand_tokens(&tilde, &tokens))
        };
        HostConfig {
            user: user.map(str::to_string),
            port,
            identity_files: identity.into_iter().map(path_of).collect(),
            proxy_jump: proxy_jump.map(str::to_string),
            user_known_hosts_file: known_hosts.map(path_of),
            strict_host_key_checking: strict.map(str::to_string),
            connect_timeout: timeout.flatten(),
            hostname,
        }
    }
}

impl Block {
    fn applies_to(&self, host_lc: &str) -> bool {
        let host: Vec<char> = host_lc.chars().collect();
        self.conds.iter().all(|cond| match cond {
            Cond::Never => false,
            Cond::Host(patterns) => {
                let mut any = false;
                for p in patterns {
                    if glob_match(&p.glob, &host) {
                        if p.negated {
                            return false;
                        }
                        any = true;
                    }
                }
                any
            }
        })
    }
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path)
        .with_context(|| format!("cannot read SSH config {}", path.display()))
}

/// Accumulates blocks while reading a file and its includes.
struct Reader<'a> {
    env: &'a Env,
    blocks: Vec<Block>,
    warnings: Vec<String>,
}

impl Reader<'_> {
    /// Read one file's text. `outer` are the conditions in force where it was included (empty at
    /// the top); a `Host` line inside adds to them, as OpenSSH evaluates an included file only
    /// when the including block is active.
    fn read(&mut self, text: &str, file: &str, outer: &[Cond], depth: usize) -> Result<()> {
        let mut conds: Vec<Cond> = outer.to_vec();
        self.blocks.push(Block {
            conds: conds.clone(),
            settings: Vec::new(),
        });
        for (idx, raw) in text.lines().enumerate() {
            let loc = format!("{file}:{}", idx + 1);
            let Some((keyword, args)) =
                split_line(raw).map_err(|why| anyhow::anyhow!("{loc}: {why}"))?
            else {
                continue;
            };
            let kw = keyword.to_ascii_lowercase();
            let skipping = conds.iter().any(|c| matches!(c, Cond::Never));
            match kw.as_str() {
                "host" => {
                    let patterns = host_patterns(&args, &loc)?;
                    conds = outer.to_vec();
                    conds.push(Cond::Host(patterns));
                    self.blocks.push(Block {
                        conds: conds.clone(),
                        settings: Vec::new(),
                    });
                }
                "match" => {
                    if args.is_empty() {
                        bail!("{loc}: Match needs a criterion");
                    }
                    self.warnings.push(format!(
                        "{loc}: Match block skipped (Match is not supported); its settings, up to \
                         the next Host or Match line, are ignored"
                    ));
                    conds = outer.to_vec();
                    conds.push(Cond::Never);
                    self.blocks.push(Block {
                        conds: conds.clone(),
                        settings: Vec::new(),
                    });
                }
                "include" => {
                    if args.is_empty() || args.iter().any(String::is_empty) {
                        bail!("{loc}: Include needs a file name");
                    }
                    if skipping {
                        continue;
                    }
                    if depth + 1 > MAX_INCLUDE_DEPTH {
                        bail!("{loc}: Include nested more than {MAX_INCLUDE_DEPTH} levels deep");
                    }
                    for arg in &args {
                        for path in self.include_paths(arg, &loc) {
                            if path.is_dir() {
                                continue;
                            }
                            let text = std::fs::read_to_string(&path).with_context(|| {
                                format!("{loc}: cannot read included file {}", path.display())
                            })?;
                            self.read(&text, &path.display().to_string(), &conds, depth + 1)?;
                        }
                    }
                    // Lines after the Include belong to the including block again.
                    self.blocks.push(Block {
                        conds: conds.clone(),
                        settings: Vec::new(),
                    });
                }
                _ => {
                    if let Some(setting) = self.setting(&kw, &keyword, &args, &loc)?
                        && let Some(block) = self.blocks.last_mut()
                    {
                        block.settings.push(setting);
                    }
                }
            }
        }
        Ok(())
    }

    /// Check one keyword line; `Some` for the keywords kept, `None` for ignored ones.
    fn setting(
        &mut self,
        kw: &str,
        keyword: &str,
        args: &[String],
        loc: &str,
    ) -> Result<Option<Setting>> {
        if args.is_empty() {
            bail!("{loc}: {keyword} has no value");
        }
        let setting = match kw {
            "hostname" => {
                let v = single(keyword, args, loc)?;
                self.check_tokens(v, &['h'], keyword, loc)?;
                Setting::HostName(v.to_string())
            }
            "user" => Setting::User(single(keyword, args, loc)?.to_string()),
            "port" => {
                let v = single(keyword, args, loc)?;
                match v.parse::<u16>() {
                    Ok(p) if p > 0 && v.bytes().all(|b| b.is_ascii_digit()) => Setting::Port(p),
                    _ => bail!("{loc}: Port must be a number from 1 to 65535, found '{v}'"),
                }
            }
            "identityfile" => {
                let v = single(keyword, args, loc)?;
                self.check_tokens(v, &PATH_TOKENS, keyword, loc)?;
                Setting::IdentityFile(v.to_string())
            }
            "proxyjump" => Setting::ProxyJump(single(keyword, args, loc)?.to_string()),
            "userknownhostsfile" => {
                // Several files may follow; the first is the one new keys are written to.
                let v = non_empty(keyword, &args[0], loc)?;
                self.check_tokens(v, &PATH_TOKENS, keyword, loc)?;
                Setting::UserKnownHostsFile(v.to_string())
            }
            "stricthostkeychecking" => {
                Setting::StrictHostKeyChecking(single(keyword, args, loc)?.to_string())
            }
            "connecttimeout" => {
                let v = single(keyword, args, loc)?;
                if v.eq_ignore_ascii_case("none") {
                    Setting::ConnectTimeout(None)
                } else {
                    match parse_time(v) {
                        Some(secs) => Setting::ConnectTimeout(Some(secs)),
                        None => bail!(
                            "{loc}: ConnectTimeout must be seconds or a time such as 1m30s, \
                             found '{v}'"
                        ),
                    }
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(setting))
    }

    /// `%` tokens this reader cannot expand are left as written and reported; `%` at the end is
    /// an error (OpenSSH refuses it too).
    fn check_tokens(
        &mut self,
        value: &str,
        allowed: &[char],
        keyword: &str,
        loc: &str,
    ) -> Result<()> {
        let mut chars = value.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                continue;
            }
            match chars.next() {
                None => {
                    bail!("{loc}: {keyword} ends with a lone '%' (write %% for a percent sign)")
                }
                Some('%') => {}
                Some(t) if allowed.contains(&t) => {}
                Some(t) => self.warnings.push(format!(
                    "{loc}: %{t} in {keyword} is not supported here and is left as written"
                )),
            }
        }
        Ok(())
    }

    /// Files an `Include` argument names, in the order OpenSSH reads them.
    fn include_paths(&mut self, arg: &str, loc: &str) -> Vec<PathBuf> {
        let expanded = expand_tilde(arg, self.env.home.as_deref());
        let path = if Path::new(&expanded).is_absolute() {
            PathBuf::from(&expanded)
        } else if let Some(home) = &self.env.home {
            home.join(".ssh").join(&expanded)
        } else {
            self.warnings.push(format!(
                "{loc}: Include {arg} skipped: relative path and $HOME is not set"
            ));
            return Vec::new();
        };
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            self.warnings
                .push(format!("{loc}: Include {arg} skipped: not a file name"));
            return Vec::new();
        };
        let parent = path.parent().unwrap_or(Path::new("/"));
        if parent.to_string_lossy().contains(['*', '?']) {
            self.warnings.push(format!(
                "{loc}: Include {arg} skipped: wildcards are supported in the file name only"
            ));
            return Vec::new();
        }
        if !name.contains(['*', '?']) {
            if !path.exists() {
                self.warnings.push(format!(
                    "{loc}: Include {} skipped: no such file",
                    path.display()
                ));
                return Vec::new();
            }
            return vec![path];
        }
        let glob: Vec<char> = name.chars().collect();
        let Ok(entries) = std::fs::read_dir(parent) else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| {
                let entry_name = e.file_name();
                let entry_name = entry_name.to_string_lossy();
                // As glob(3): a leading dot is matched only by a leading dot.
                (!entry_name.starts_with('.') || name.starts_with('.'))
                    && glob_match(&glob, &entry_name.chars().collect::<Vec<_>>())
            })
            .map(|e| e.path())
            .collect();
        found.sort();
        found
    }
}

/// Tokens expanded in `IdentityFile` and `UserKnownHostsFile`.
const PATH_TOKENS: [char; 6] = ['h', 'r', 'p', 'u', 'd', 'n'];

fn single<'a>(keyword: &str, args: &'a [String], loc: &str) -> Result<&'a str> {
    if args.len() > 1 {
        bail!(
            "{loc}: {keyword} takes one value, found {} (quote a value that has spaces)",
            args.len()
        );
    }
    non_empty(keyword, &args[0], loc)
}

fn non_empty<'a>(keyword: &str, value: &'a str, loc: &str) -> Result<&'a str> {
    if value.is_empty() {
        bail!("{loc}: {keyword} has an empty value");
    }
    Ok(value)
}

fn host_patterns(args: &[String], loc: &str) -> Result<Vec<HostPattern>> {
    if args.is_empty() {
        bail!("{loc}: Host needs at least one pattern");
    }
    let mut out = Vec::with_capacity(args.len());
    for arg in args {
        let (negated, glob) = match arg.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, arg.as_str()),
        };
        if glob.is_empty() {
            bail!("{loc}: empty Host pattern");
        }
        out.push(HostPattern {
            negated,
            glob: glob.to_lowercase().chars().collect(),
        });
    }
    Ok(out)
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\x0b' | '\x0c')
}

/// Split a line into keyword and arguments as OpenSSH does: the keyword ends at whitespace or
/// `=`; one `=` may separate it from the value; arguments are whitespace-separated and may be
/// quoted with `"` or `'`; `\` escapes a quote, a backslash or (outside quotes) a space; an
/// unquoted `#` at the start of an argument begins a comment. `Ok(None)` for blank and comment
/// lines.
fn split_line(line: &str) -> Result<Option<(String, Vec<String>)>, String> {
    let line = line.trim_matches(is_space);
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let end = line
        .find(|c: char| is_space(c) || c == '=')
        .unwrap_or(line.len());
    let keyword = &line[..end];
    if keyword.is_empty() {
        return Err("expected a keyword before '='".to_string());
    }
    let mut rest = line[end..].trim_start_matches(is_space);
    if let Some(r) = rest.strip_prefix('=') {
        rest = r.trim_start_matches(is_space);
    }
    Ok(Some((keyword.to_string(), split_args(rest)?)))
}

fn split_args(s: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = s.chars().collect();
    let mut args = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if is_space(chars[i]) {
            i += 1;
            continue;
        }
        if chars[i] == '#' {
            break;
        }
        let mut arg = String::new();
        let mut quote: Option<char> = None;
        while i < chars.len() {
            let c = chars[i];
            if quote.is_none() && is_space(c) {
                break;
            }
            if c == '\\'
                && let Some(&next) = chars.get(i + 1)
                && (matches!(next, '"' | '\'' | '\\') || (quote.is_none() && is_space(next)))
            {
                arg.push(next);
                i += 2;
                continue;
            }
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => arg.push(c),
                None if c == '"' || c == '\'' => quote = Some(c),
                None => arg.push(c),
            }
            i += 1;
        }
        if let Some(q) = quote {
            return Err(format!("unterminated {q}quoted{q} argument"));
        }
        args.push(arg);
    }
    Ok(args)
}

/// OpenSSH time format: `90`, `90s`, `1m30s`, `1h`, units s m h d w (either case).
fn parse_time(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    let mut number: Option<u64> = None;
    for c in s.chars() {
        if let Some(d) = c.to_digit(10) {
            number = Some(
                number
                    .unwrap_or(0)
                    .checked_mul(10)?
                    .checked_add(u64::from(d))?,
            );
            continue;
        }
        let scale = match c.to_ascii_lowercase() {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return None,
        };
        total = total.checked_add(number.take()?.checked_mul(scale)?)?;
    }
    match number {
        Some(n) => total.checked_add(n),
        None => Some(total),
    }
}

/// `~` or `~/…` → the home directory; other values unchanged.
fn expand_tilde(value: &str, home: Option<&Path>) -> String {
    match (home, value.strip_prefix('~')) {
        (Some(home), Some(rest)) if rest.is_empty() || rest.starts_with('/') => {
            format!("{}{rest}", home.display())
        }
        _ => value.to_string(),
    }
}

/// Replace `%x` for the given tokens and `%%`; anything else is left as written.
fn expand_tokens(value: &str, tokens: &[(char, &str)]) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some(t) => match tokens.iter().find(|(k, _)| *k == t) {
                Some((_, v)) => out.push_str(v),
                None => {
                    out.push('%');
                    out.push(t);
                }
            },
            None => out.push('%'),
        }
    }
    out
}

/// `*` matches any run of characters, `?` exactly one (the shared matcher, [`crate::glob`]).
fn glob_match(pattern: &[char], text: &[char]) -> bool {
    let pattern: String = pattern.iter().collect();
    let text: String = text.iter().collect();
    crate::glob::matches(&pattern, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env {
            home: Some(PathBuf::from("/home/tester")),
            local_user: "tester".to_string(),
        }
    }

    fn parse(text: &str) -> SshConfig {
        match SshConfig::parse_with_env(text, "cfg", env()) {
            Ok(c) => c,
            Err(e) => panic!("parse failed: {e:#}"),
        }
    }

    fn parse_err(text: &str) -> String {
        match SshConfig::parse_with_env(text, "cfg", env()) {
            Ok(_) => panic!("expected an error for {text:?}"),
            Err(e) => format!("{e:#}"),
        }
    }

    #[test]
    fn first_obtained_value_wins() {
        let cfg = parse(
            "Host leaf1\n  User admin\n  Port 2222\n\
             Host leaf*\n  User other\n  Port 22\n  HostName %h.lab\n\
             Host *\n  User fallback\n  ConnectTimeout 1m30s\n",
        );
        let hc = cfg.resolve("leaf1");
        assert_eq!(hc.user.as_deref(), Some("admin"));
        assert_eq!(hc.port, Some(2222));
        assert_eq!(hc.hostname.as_deref(), Some("leaf1.lab"));
        assert_eq!(hc.connect_timeout, Some(90));
        let hc = cfg.resolve("leaf2");
        assert_eq!(hc.user.as_deref(), Some("other"));
        assert_eq!(hc.port, Some(22));
        assert_eq!(cfg.resolve("spine1").user.as_deref(), Some("fallback"));
    }

    #[test]
    fn negated_pattern_excludes_block() {
        let cfg = parse("Host leaf* !leaf9 spine?\n  User fabric\nHost *\n  User other\n");
        assert_eq!(cfg.resolve("leaf1").user.as_deref(), Some("fabric"));
        assert_eq!(cfg.resolve("spine3").user.as_deref(), Some("fabric"));
        assert_eq!(cfg.resolve("leaf9").user.as_deref(), Some("other"));
        assert_eq!(cfg.resolve("spine10").user.as_deref(), Some("other"));
        // Host matching ignores case, as ssh lower-cases the host name.
        assert_eq!(cfg.resolve("LEAF1").user.as_deref(), Some("fabric"));
    }

    #[test]
    fn identity_files_accumulate_and_expand() {
        let cfg = parse(
            "IdentityFile ~/.ssh/global\n\
             Host leaf1\n  HostName 10.0.0.1\n  User ops\n  Port 830\n\
               IdentityFile ~/.ssh/%h_%r_%p\n\
             Host *\n  IdentityFile /keys/%u/%n-100%%\n  IdentityFile ~\n",
        );
        let hc = cfg.resolve("leaf1");
        assert_eq!(
            hc.identity_files,
            vec![
                PathBuf::from("/home/tester/.ssh/global"),
                PathBuf::from("/home/tester/.ssh/10.0.0.1_ops_830"),
                PathBuf::from("/keys/tester/leaf1-100%"),
                PathBuf::from("/home/tester"),
            ]
        );
        // Without HostName/User/Port: %h is the host, %r the local user, %p 22.
        let cfg = parse("IdentityFile ~/k/%h-%r-%p\n");
        assert_eq!(
            cfg.resolve("x").identity_files,
            vec![PathBuf::from("/home/tester/k/x-tester-22")]
        );
    }

    #[test]
    fn key_equals_value_forms() {
        let cfg =
            parse("Host=a\nUser=alice\nPort =2200\nHostName= a.example\nconnecttimeout = 7\n");
        let hc = cfg.resolve("a");
        assert_eq!(hc.user.as_deref(), Some("alice"));
        assert_eq!(hc.port, Some(2200));
        assert_eq!(hc.hostname.as_deref(), Some("a.example"));
        assert_eq!(hc.connect_timeout, Some(7));
    }

    #[test]
    fn quoted_values_and_comments() {
        let cfg = parse(
            "# a comment\n\nHost \"my host\" other # trailing comment\n  \
             IdentityFile \"/keys/with space/id\"\n  UserKnownHostsFile '/k h/known' /second\n  \
             StrictHostKeyChecking accept-new\n  ProxyJump ops@bastion:2222\n",
        );
        let hc = cfg.resolve("my host");
        assert_eq!(
            hc.identity_files,
            vec![PathBuf::from("/keys/with space/id")]
        );
        assert_eq!(hc.user_known_hosts_file, Some(PathBuf::from("/k h/known")));
        assert_eq!(hc.strict_host_key_checking.as_deref(), Some("accept-new"));
        assert_eq!(hc.proxy_jump.as_deref(), Some("ops@bastion:2222"));
        assert_eq!(
            cfg.resolve("other").proxy_jump.as_deref(),
            Some("ops@bastion:2222")
        );
        let err = parse_err("Host a\n  IdentityFile \"/unterminated\n");
        assert!(err.starts_with("cfg:2:"), "{err}");
        assert!(err.contains("unterminated"), "{err}");
    }

    #[test]
    fn include_relative_and_glob() {
        let dir = std::env::temp_dir().join(format!("fabric-audit-ssh-{}", std::process::id()));
        let ssh = dir.join(".ssh");
        let confd = ssh.join("conf.d");
        let write = |p: &Path, s: &str| {
            if let Err(e) = std::fs::write(p, s) {
                panic!("write {}: {e}", p.display());
            }
        };
        if let Err(e) = std::fs::create_dir_all(&confd) {
            panic!("mkdir {}: {e}", confd.display());
        }
        write(&confd.join("10-lab.conf"), "Host lab*\n  User labuser\n");
        write(&confd.join("20-all.conf"), "User included\n");
        write(&confd.join("ignored.txt"), "User never\n");
        write(
            &ssh.join("extra"),
            "Port 2022\nHost spine1\n  User spineuser\n",
        );
        let text = "Include conf.d/*.conf\nHost leaf1\n  Include extra\n  User leafuser\n";
        let env = Env {
            home: Some(dir.clone()),
            local_user: "t".to_string(),
        };
        let result = SshConfig::parse_with_env(text, "cfg", env);
        let _ = std::fs::remove_dir_all(&dir);
        let cfg = match result {
            Ok(c) => c,
            Err(e) => panic!("{e:#}"),
        };
        assert_eq!(cfg.resolve("lab1").user.as_deref(), Some("labuser"));
        assert_eq!(cfg.resolve("other").user.as_deref(), Some("included"));
        // The included file's top lines apply within the including Host block only.
        assert_eq!(cfg.resolve("leaf1").port, Some(2022));
        assert_eq!(cfg.resolve("other").port, None);
        // A Host inside an include under `Host leaf1` needs both to match.
        assert_eq!(cfg.resolve("spine1").user.as_deref(), Some("included"));
        assert_eq!(cfg.resolve("leaf1").user.as_deref(), Some("included"));
        assert!(cfg.warnings().is_empty(), "{:?}", cfg.warnings());
    }

    #[test]
    fn include_depth_is_limited() {
        let dir =
            std::env::temp_dir().join(format!("fabric-audit-ssh-loop-{}", std::process::id()));
        if let Err(e) = std::fs::create_dir_all(&dir) {
            panic!("mkdir: {e}");
        }
        let file = dir.join("self");
        if let Err(e) = std::fs::write(&file, format!("Include {}\n", file.display())) {
            panic!("write: {e}");
        }
        let result =
            SshConfig::parse_with_env(&format!("Include {}\n", file.display()), "cfg", env());
        let _ = std::fs::remove_dir_all(&dir);
        match result {
            Ok(_) => panic!("self-include must fail"),
            Err(e) => assert!(format!("{e:#}").contains("nested more than 16"), "{e:#}"),
        }
    }

    #[test]
    fn match_block_skipped_with_warning() {
        let cfg =
            parse("Match host leaf1 exec \"true\"\n  User matched\nHost leaf1\n  User hostuser\n");
        assert_eq!(cfg.resolve("leaf1").user.as_deref(), Some("hostuser"));
        assert_eq!(cfg.warnings().len(), 1);
        assert!(
            cfg.warnings()[0].starts_with("cfg:1: Match block skipped"),
            "{:?}",
            cfg.warnings()
        );
    }

    #[test]
    fn broken_lines_are_errors_with_location() {
        let err = parse_err("Host a\n  Port 70000\n");
        assert!(err.starts_with("cfg:2: Port must be a number"), "{err}");
        assert!(parse_err("Port abc\n").starts_with("cfg:1:"));
        assert!(parse_err("Port 0\n").starts_with("cfg:1:"));
        assert!(parse_err("\n\nUser\n").starts_with("cfg:3: User has no value"));
        assert!(parse_err("SomeUnknownOption\n").starts_with("cfg:1:"));
        assert!(parse_err("ConnectTimeout 5x\n").starts_with("cfg:1:"));
        assert!(parse_err("Host\n").starts_with("cfg:1:"));
    }

    #[test]
    fn unknown_keywords_ignored_and_unnamed_host_gets_globals() {
        let cfg = parse(
            "ServerAliveInterval 30\nUser global\nHost leaf1\n  User leafuser\n  Port 2222\n\
             Host *\n  StrictHostKeyChecking no\n  ConnectTimeout none\n",
        );
        let hc = cfg.resolve("never-named");
        assert_eq!(
            hc,
            HostConfig {
                user: Some("global".to_string()),
                strict_host_key_checking: Some("no".to_string()),
                ..HostConfig::default()
            }
        );
        assert!(cfg.warnings().is_empty());
    }

    #[test]
    fn glob_matching() {
        let m = |p: &str, t: &str| {
            glob_match(
                &p.chars().collect::<Vec<_>>(),
                &t.chars().collect::<Vec<_>>(),
            )
        };
        assert!(m("*", ""));
        assert!(m("a*b*c", "axxbyyc"));
        assert!(m("10.0.?.*", "10.0.1.25"));
        assert!(!m("10.0.?.*", "10.0.12.25"));
        assert!(!m("a*b", "ac"));
    }
}
