//! TOML documents read one top-level piece at a time, so that memory stays in proportion to the
//! text (issue 19: peak memory within 20 times the input).
//!
//! The `toml` crate parses a document whole: every token (24 bytes), then every parser event
//! (24 bytes), then a tree of hash tables, all alive at once. On a dense file (a thousand short
//! `[[link]]` tables, or a file of garbage) that is 50 to 70 times the text before the first
//! field is read. Here the document is lexed as a stream (no token kept), checked for syntax
//! errors a few kilobytes at a time, and cut where TOML itself cuts it: the keys before the first
//! table header, each top-level table, and each element of a top-level array of tables with the
//! sub-tables that follow it. `toml` parses each piece alone, at its place in the document
//! (positions are shifted back to the whole document's), and the caller's type reads the pieces
//! in document order, one array element at a time: the largest tree alive is one piece's.
//!
//! What `toml` would say is kept: values, key order (the crate keeps keys in document order),
//! every position, and errors with toml's own message and position. A top-level table defined
//! in several places (`[policy]`, other tables, then `[policy.ecn]` or `[policy]` again) is
//! parsed as its places joined, positions moved back. A document whose pieces depend on one
//! another otherwise (a sub-table of an array of tables after another table, a root dotted key
//! naming a table defined by a header) is handed to `toml` whole: such files are unusual, and
//! correct either way.
//!
//! The syntax check holds one stretch's tokens at a time (24 bytes each; 16 times the text for
//! 1 MiB of `[{"a":`, up to 24 times for one token per byte) and words the parser's first error
//! as toml does, without parsing the stretch again. It uses toml's parser, not its decoder: an
//! error toml finds only while decoding (an empty or badly escaped key, an invalid number) is
//! found when its piece is parsed. A long table header line has its keys decoded one by one,
//! without the line's parse tree: a 1 MiB header line of `[{"a":` costs 17 times its size (its
//! tokens), not 45. What stays at toml's own cost is one piece: a valid value or table of
//! several megabytes on its own is parsed by `toml` whole (about 45 times its text).
//! One difference is known: in a document with both a TOML error inside a later array element
//! (a key defined twice in it) and a type error in an earlier one, the type error is named,
//! where whole-document parsing names the TOML error.

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml_parser::Source;
use toml_parser::lexer::TokenKind;
use toml_parser::parser::{RecursionGuard, ValidateWhitespace};

/// A TOML error: toml's message and its byte span in the whole document.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    message: String,
    span: Option<Range<usize>>,
}

impl Error {
    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn span(&self) -> Option<Range<usize>> {
        self.span.clone()
    }

    fn from_toml(e: &toml::de::Error, by: usize) -> Self {
        Error {
            message: e.message().to_string(),
            span: e.span().map(|s| s.start + by..s.end + by),
        }
    }

    fn or_span(mut self, span: &Range<usize>) -> Self {
        if self.span.is_none() {
            self.span = Some(span.clone());
        }
        self
    }
}

impl From<&toml::de::Error> for Error {
    fn from(e: &toml::de::Error) -> Self {
        Error::from_toml(e, 0)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            message: msg.to_string(),
            span: None,
        }
    }
}

/// Deserializes a TOML document, as `toml::from_str` does, a piece at a time.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    match plan(text) {
        Plan::Failed(e) => return Err(e),
        Plan::HeaderFailed { before, error } => {
            // No syntax error anywhere: toml names the first error its decoder meets, in
            // document order, so one before this header comes first.
            return match from_str::<de::IgnoredAny>(&text[..before]) {
                Err(e) => Err(e),
                Ok(_) => Err(error),
            };
        }
        Plan::Pieces(p) => {
            let joined = join_split_tables(text, &p);
            if let Some(root) = Root::new(text, p, &joined)? {
                return T::deserialize(root);
            }
        }
        Plan::Whole => {}
    }
    toml::from_str(text).map_err(|e| Error::from_toml(&e, 0))
}

/// Syntax is checked in pieces of about this many bytes, cut between two lines.
const CHECK_BYTES: usize = 4096;

/// A stretch without a line break outside brackets (a long line, a long multi-line array) is
/// checked in prefixes, from this many bytes on, doubling, and then whole: an early error is
/// found early, and no check holds more than the stretch's tokens.
const FIRST_PREFIX: usize = 4 * CHECK_BYTES;

/// toml's nesting limit (its `parse_document`), applied to the pieces checked.
const NESTING_LIMIT: u32 = 80;

/// A table header line: where it starts and where its line ends (before the newline).
struct Header {
    start: usize,
    line_end: usize,
}

enum Plan {
    Pieces(Pieces),
    /// The first syntax error of the document, as toml names it.
    Failed(Error),
    /// No syntax error, but a long header line (starting at `before`) with a key toml cannot
    /// decode: `error`, unless toml meets another error before that header.
    HeaderFailed {
        before: usize,
        error: Error,
    },
    Whole,
}

/// The document cut into pieces: the root keys, then each top-level key's table or elements.
struct Pieces {
    root: Range<usize>,
    groups: Vec<Group>,
}

struct Group {
    /// The key, spanned where a header names it first.
    key: Spanned<String>,
    /// That header's line (toml's span of an array of tables).
    first_header: Range<usize>,
    kind: GroupKind,
}

enum GroupKind {
    /// `[k]` (or `[k.x]`...): each contiguous stretch of its headers, in document order; one
    /// stretch is parsed alone, several are parsed joined (see [`Joined`]).
    Table(Vec<Range<usize>>),
    /// `[[k]]` elements, each with the `[k.x]` sub-tables right after it.
    Array(Vec<Range<usize>>),
}

/// Lexes the whole document once as a stream, finding the table headers and checking syntax in
/// pieces; then groups the headers by their top-level key.
fn plan(text: &str) -> Plan {
    let mut headers = Vec::new();
    match scan(text, &mut headers) {
        Scan::Clean => {}
        Scan::Error(e) => return Plan::Failed(e),
    }
    match group(text, &headers) {
        Ok(Some(p)) => Plan::Pieces(p),
        Ok(None) => Plan::Whole,
        Err((before, error)) => Plan::HeaderFailed { before, error },
    }
}

enum Scan {
    Clean,
    Error(Error),
}

fn scan(text: &str, headers: &mut Vec<Header>) -> Scan {
    let source = Source::new(text);
    // Brackets and braces open in a value (a header's own brackets are not counted).
    let mut depth = 0usize;
    let mut line_start = true;
    let mut in_header: Option<usize> = None;
    // The stretch not yet checked starts here; `limit` is when a stretch without a line break
    // at depth 0 is checked next (as a prefix).
    let mut piece = 0usize;
    let mut limit = FIRST_PREFIX;
    for token in source.lex() {
        let span = token.span();
        match token.kind() {
            TokenKind::Newline => {
                if let Some(start) = in_header.take() {
                    headers.push(Header {
                        start,
                        line_end: span.start(),
                    });
                }
                if depth == 0 {
                    line_start = true;
                    if span.end() - piece >= CHECK_BYTES {
                        if let Some(e) = check(text, piece..span.end(), false) {
                            return Scan::Error(e);
                        }
                        piece = span.end();
                        limit = FIRST_PREFIX;
                    }
                }
                continue;
            }
            TokenKind::Whitespace | TokenKind::Comment => {}
            TokenKind::Eof => {
                if let Some(start) = in_header.take() {
                    headers.push(Header {
                        start,
                        line_end: span.start(),
                    });
                }
            }
            TokenKind::LeftSquareBracket if line_start && depth == 0 && in_header.is_none() => {
                in_header = Some(span.start());
            }
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket if in_header.is_none() => {
                depth += 1
            }
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket if in_header.is_none() => {
                depth = depth.saturating_sub(1)
            }
            _ => {}
        }
        if !matches!(token.kind(), TokenKind::Whitespace) {
            line_start = false;
        }
        // (The end is checked below, as a whole.)
        if span.start() - piece >= limit && !matches!(token.kind(), TokenKind::Eof) {
            // A long stretch: check what precedes this token. An error there is the
            // document's (the parser has not seen what follows); none means look again later.
            if let Some(e) = check(text, piece..span.start(), true) {
                return Scan::Error(e);
            }
            limit = limit.saturating_mul(2);
        }
    }
    if piece < text.len()
        && let Some(e) = check(text, piece..text.len(), false)
    {
        return Scan::Error(e);
    }
    Scan::Clean
}

/// Every token of `source`, in a vector of the exact size: the tokens of a long piece are its
/// largest cost (24 bytes each, up to one per byte), and a vector grown by doubling can hold
/// twice that. Lexing twice is cheap.
fn tokens_of(source: Source<'_>) -> Vec<toml_parser::lexer::Token> {
    let mut tokens = Vec::with_capacity(source.lex().count());
    tokens.extend(source.lex());
    tokens
}

/// The first syntax error in `text[r]`, as toml names it for the whole document. With
/// `prefix`, `r` ends mid-stretch: only an error before the prefix's last significant token
/// counts (an error the cut causes is placed at or after it: toml names an unclosed bracket
/// right after the last token before the end).
fn check(text: &str, r: Range<usize>, prefix: bool) -> Option<Error> {
    let piece = &text[r.clone()];
    let source = Source::new(piece);
    let tokens = tokens_of(source);
    let last_significant = tokens
        .iter()
        .rev()
        .find(|t| {
            !matches!(
                t.kind(),
                TokenKind::Whitespace | TokenKind::Comment | TokenKind::Newline | TokenKind::Eof
            )
        })
        .map_or(0, |t| t.span().start());
    let mut first: Option<toml_parser::ParseError> = None;
    let mut sink = |e: toml_parser::ParseError| {
        if first.is_none() {
            first = Some(e);
        }
    };
    let mut nothing = ();
    let mut ws = ValidateWhitespace::new(&mut nothing, source);
    let mut guard = RecursionGuard::new(&mut ws, NESTING_LIMIT);
    toml_parser::parser::parse_document(&tokens, &mut guard, &mut sink);
    drop(tokens);
    let e = first?;
    let at = e
        .unexpected()
        .or(e.context())
        .map_or(piece.len(), |s| s.start());
    if prefix && at >= last_significant {
        return None;
    }
    // The parser's first error is toml's first error for the piece (its decoder runs after
    // the parser): written as toml writes it, without parsing the piece again.
    Some(Error {
        message: toml_message(&e),
        span: e
            .unexpected()
            .map(|s| s.start() + r.start..s.end() + r.start),
    })
}

/// A parser error's message as toml words it (`toml::de::Error`: the description, then
/// ", expected " and what was expected, literals in backquotes). Unit tests compare it with
/// toml's own on every mutated document.
fn toml_message(e: &toml_parser::ParseError) -> String {
    let mut m = e.description().to_string();
    if let Some(expected) = e.expected() {
        m.push_str(", expected ");
        if expected.is_empty() {
            m.push_str("nothing");
        }
        for (i, x) in expected.iter().enumerate() {
            if i != 0 {
                m.push_str(", ");
            }
            match x {
                toml_parser::Expected::Literal(l) => match *l {
                    "\n" => m.push_str("newline"),
                    "`" => m.push_str("'`'"),
                    l if l.chars().all(|c| c.is_ascii_control()) => {
                        m.push_str(&format!("`{}`", l.escape_debug()))
                    }
                    l => m.push_str(&format!("`{l}`")),
                },
                toml_parser::Expected::Description(d) => m.push_str(d),
                _ => m.push_str("etc"),
            }
        }
    }
    m
}

/// A header's top-level key, whether it is `[[k]]`, and whether it names `k` alone.
struct HeaderKey {
    key: Spanned<String>,
    /// The span toml gives the value the header opens.
    value: Range<usize>,
    array: bool,
    alone: bool,
}

/// `Err` with toml's error when a long header line has a key toml cannot decode; `None` when
/// the header is not one the pieces can follow (the document is parsed whole).
fn header_key(text: &str, h: &Header) -> Result<Option<HeaderKey>, Error> {
    let line = &text[h.start..h.line_end];
    if line.len() > CHECK_BYTES
        && let Some(e) = undecodable_key(line)
    {
        return Err(Error {
            span: e.span.map(|s| shift(s, h.start)),
            ..e
        });
    }
    match header_key_parsed(h, line) {
        Some(k) => Ok(Some(k)),
        // A header line that is not a document by itself has a key toml's decoder refuses
        // (a NUL in a bare key): the document is in error, so it need not be read whole
        // (issue 19: toml's tree of a whole malformed inventory, 96 times its size, was built
        // only to name that error). toml names the first error it meets: one before this
        // header comes first (`Plan::HeaderFailed`).
        None => match DeTable::parse(line) {
            Err(e) => Err(Error::from_toml(&e, h.start)),
            Ok(_) => Ok(None),
        },
    }
}

fn header_key_parsed(h: &Header, line: &str) -> Option<HeaderKey> {
    let doc = DeTable::parse(line).ok()?.into_inner();
    let mut it = doc.into_iter();
    let (k, v) = it.next()?;
    if it.next().is_some() {
        return None;
    }
    let value = shift(v.span(), h.start);
    let (array, inner) = match v.into_inner() {
        DeValue::Array(a) if a.len() == 1 => match a.into_iter().next()?.into_inner() {
            DeValue::Table(t) => (true, t),
            _ => return None,
        },
        DeValue::Table(t) => (false, t),
        _ => return None,
    };
    let span = shift(k.span(), h.start);
    Some(HeaderKey {
        key: Spanned::new(span, k.into_inner().into_owned()),
        value,
        array,
        alone: inner.is_empty(),
    })
}

/// The first key of a header line (checked for syntax) that toml's decoder refuses, with toml's
/// own message and its span in `line`.
///
/// toml finds such an error only after parsing the whole line into tokens (24 bytes each) and
/// events (24 more): a 1 MiB line of `[{"a":` cost 45 times its size. Here the line's tokens are
/// parsed with no event kept and each key is decoded as it comes; toml's message comes from
/// parsing a header holding that one key, and is used only if it points at the same place.
fn undecodable_key(line: &str) -> Option<Error> {
    struct FirstBadKey<'i> {
        source: Source<'i>,
        found: Option<(toml_parser::Span, Range<usize>)>,
    }
    impl toml_parser::parser::EventReceiver for FirstBadKey<'_> {
        fn simple_key(
            &mut self,
            span: toml_parser::Span,
            kind: Option<toml_parser::decoder::Encoding>,
            _error: &mut dyn toml_parser::ErrorSink,
        ) {
            if self.found.is_some() {
                return;
            }
            let Some(raw) = self.source.get(span) else {
                return;
            };
            let raw = toml_parser::Raw::new_unchecked(raw.as_str(), kind, span);
            let mut at: Option<Range<usize>> = None;
            let mut sink = |e: toml_parser::ParseError| {
                if at.is_none() {
                    let s = e.unexpected().unwrap_or(span);
                    at = Some(s.start()..s.end());
                }
            };
            let mut decoded = std::borrow::Cow::Borrowed("");
            raw.decode_key(&mut decoded, &mut sink);
            if let Some(at) = at {
                self.found = Some((span, at));
            }
        }
    }
    let source = Source::new(line);
    let tokens = tokens_of(source);
    let mut receiver = FirstBadKey {
        source,
        found: None,
    };
    let mut ignore = |_: toml_parser::ParseError| {};
    toml_parser::parser::parse_document(&tokens, &mut receiver, &mut ignore);
    drop(tokens);
    let (key, at) = receiver.found?;
    let alone = format!("[{}]", &line[key.start()..key.end()]);
    let e = DeTable::parse(&alone).err()?;
    let by = key.start().checked_sub(1)?;
    let e = Error::from_toml(&e, by);
    (e.span.as_ref() == Some(&at)).then_some(e)
}

/// Groups the headers by top-level key; `None` when the pieces would depend on one another;
/// `Err` with the header's start when a header has a key toml cannot decode.
fn group(text: &str, headers: &[Header]) -> Result<Option<Pieces>, (usize, Error)> {
    let root_end = headers.first().map_or(text.len(), |h| h.start);
    let mut groups: Vec<Group> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    let mut previous: Option<usize> = None;
    for (i, h) in headers.iter().enumerate() {
        let end = headers.get(i + 1).map_or(text.len(), |n| n.start);
        let Some(hk) = header_key(text, h).map_err(|e| (h.start, e))? else {
            return Ok(None);
        };
        let piece = h.start..end;
        match index.get(hk.key.get_ref().as_str()).copied() {
            None => {
                // `[[k.x]]` or `[k.x]` first makes `k` a table.
                let kind = if hk.array && hk.alone {
                    GroupKind::Array(vec![piece])
                } else {
                    GroupKind::Table(vec![piece])
                };
                index.insert(hk.key.get_ref().clone(), groups.len());
                previous = Some(groups.len());
                groups.push(Group {
                    key: hk.key,
                    first_header: hk.value,
                    kind,
                });
            }
            Some(g) => {
                let contiguous = previous == Some(g);
                match &mut groups[g].kind {
                    GroupKind::Array(elements) if hk.array && hk.alone => elements.push(piece),
                    GroupKind::Array(elements) if contiguous && !hk.alone => {
                        let Some(last) = elements.last_mut() else {
                            return Ok(None);
                        };
                        last.end = end
                    }
                    GroupKind::Table(stretches) if !hk.array || !hk.alone => {
                        match stretches.last_mut() {
                            Some(last) if contiguous => last.end = end,
                            _ => stretches.push(piece),
                        }
                    }
                    _ => return Ok(None),
                }
                previous = Some(g);
            }
        }
    }
    Ok(Some(Pieces {
        root: 0..root_end,
        groups,
    }))
}

/// Parses `text[r]` as a document, positions shifted to the whole document's.
fn parse_piece<'i>(text: &'i str, r: &Range<usize>) -> Result<DeTable<'i>, Error> {
    DeTable::parse(&text[r.clone()])
        .map(|t| shift_table(t.into_inner(), r.start))
        .map_err(|e| Error::from_toml(&e, r.start))
}

/// The one top-level entry of a piece's document (its key `k`).
fn only_entry<'i>(
    doc: DeTable<'i>,
) -> Result<(Spanned<toml::de::DeString<'i>>, Spanned<DeValue<'i>>), Error> {
    let mut it = doc.into_iter();
    match (it.next(), it.next()) {
        (Some(kv), None) => Ok(kv),
        _ => Err(de::Error::custom("a TOML piece held other than one table")),
    }
}

fn shift(r: Range<usize>, by: usize) -> Range<usize> {
    r.start + by..r.end + by
}

fn shift_table(t: DeTable<'_>, by: usize) -> DeTable<'_> {
    if by == 0 {
        return t;
    }
    move_table(t, &|r| shift(r, by))
}

/// Every span of `v` moved by `to`.
fn move_value<'i>(
    v: Spanned<DeValue<'i>>,
    to: &dyn Fn(Range<usize>) -> Range<usize>,
) -> Spanned<DeValue<'i>> {
    let span = to(v.span());
    let inner = match v.into_inner() {
        DeValue::Array(a) => DeValue::Array(a.into_iter().map(|x| move_value(x, to)).collect()),
        DeValue::Table(t) => DeValue::Table(move_table(t, to)),
        other => other,
    };
    Spanned::new(span, inner)
}

fn move_table<'i>(t: DeTable<'i>, to: &dyn Fn(Range<usize>) -> Range<usize>) -> DeTable<'i> {
    let mut out = DeTable::with_capacity(t.len());
    for (k, v) in t {
        let ks = to(k.span());
        out.insert(Spanned::new(ks, k.into_inner()), move_value(v, to));
    }
    out
}

/// A top-level table defined in several stretches of the document (`[policy]`, then other
/// tables, then `[policy.thresholds]`), its stretches joined in document order. Tables of other
/// keys cannot make it valid or not, so toml says of the joined text what it says of the
/// document; positions are moved back stretch by stretch. Without this, such a document was
/// parsed whole (about 50 times its text: a second `[policy]` at the end of a 170 KB
/// fabric.toml took 8.8 MB, 2.8 MB without it).
struct Joined {
    group: usize,
    text: String,
    /// Each stretch: where it starts in `text` and in the document.
    starts: Vec<(usize, usize)>,
}

impl Joined {
    /// The stretch holding `text` offset `at` (the last one starting at or before it).
    fn stretch(&self, at: usize) -> (usize, usize) {
        let i = self.starts.partition_point(|&(j, _)| j <= at);
        self.starts
            .get(i.saturating_sub(1))
            .copied()
            .unwrap_or((0, 0))
    }

    /// A span of `text` as a span of the document.
    fn place(&self, r: Range<usize>) -> Range<usize> {
        let (j, d) = self.stretch(r.start);
        let end = r.end.max(r.start + 1) - 1;
        let (je, de) = self.stretch(end);
        r.start - j + d..r.end - je + de
    }

    /// Where, in the document, the stretch holding document offset `at` starts.
    fn stretch_start(&self, at: usize) -> usize {
        let i = self.starts.partition_point(|&(_, d)| d <= at);
        self.starts.get(i.saturating_sub(1)).map_or(0, |&(_, d)| d)
    }

    fn parse(&self) -> Result<DeTable<'_>, Error> {
        match DeTable::parse(&self.text) {
            Ok(t) => Ok(move_table(t.into_inner(), &|r| self.place(r))),
            Err(e) => Err(Error {
                message: e.message().to_string(),
                span: e.span().map(|s| self.place(s)),
            }),
        }
    }
}

/// A table in several stretches: its first error (a table or key defined twice, say) is the
/// document's when nothing before that stretch is in error, as for a header toml cannot
/// decode. Checked before anything is read, as toml finds it before decoding. `Err(None)`:
/// an error without a place, left to toml whole.
///
/// Each joined table is parsed here and again when it is read: keeping the trees would hold
/// them all at once.
fn check_joined(text: &str, joined: &[Joined]) -> Result<(), Option<Error>> {
    // The earliest error in the document: (its place, where its stretch starts, the error).
    let mut first: Option<(usize, usize, Error)> = None;
    for j in joined {
        if let Err(e) = DeTable::parse(&j.text) {
            let Some(at) = e.span().map(|s| j.place(s)) else {
                return Err(None);
            };
            if first
                .as_ref()
                .is_none_or(|(earliest, _, _)| at.start < *earliest)
            {
                let before = j.stretch_start(at.start);
                let e = Error {
                    message: e.message().to_string(),
                    span: Some(at.clone()),
                };
                first = Some((at.start, before, e));
            }
        }
    }
    if let Some((_, before, error)) = first {
        return Err(Some(match from_str::<de::IgnoredAny>(&text[..before]) {
            Err(e) => e,
            Ok(_) => error,
        }));
    }
    Ok(())
}

/// The tables of `p` defined in more than one stretch, joined.
fn join_split_tables(text: &str, p: &Pieces) -> Vec<Joined> {
    let mut out = Vec::new();
    for (group, g) in p.groups.iter().enumerate() {
        let GroupKind::Table(stretches) = &g.kind else {
            continue;
        };
        if stretches.len() < 2 {
            continue;
        }
        let mut j = Joined {
            group,
            text: String::with_capacity(stretches.iter().map(|r| r.len() + 1).sum()),
            starts: Vec::with_capacity(stretches.len()),
        };
        for r in stretches {
            j.starts.push((j.text.len(), r.start));
            j.text.push_str(&text[r.clone()]);
        }
        out.push(j);
    }
    out
}

/// One entry of the root table, in document order.
enum Entry<'i> {
    Value(Spanned<toml::de::DeString<'i>>, Spanned<DeValue<'i>>),
    /// A key defined by headers: its index in [`Pieces::groups`].
    Group(usize),
}

/// The document as a table whose entries are parsed as they are read.
struct Root<'i> {
    text: &'i str,
    pieces: Pieces,
    /// The tables in several stretches, joined, in group order.
    joined: &'i [Joined],
    entries: std::vec::IntoIter<Entry<'i>>,
    /// The value of the entry whose key was just read.
    pending: Option<Entry<'i>>,
}

impl<'i> Root<'i> {
    /// The root keys parsed and the groups after them; `None` when a root key is also a
    /// header's (a dotted key `k.x = 1` before `[k.y]`): the document is parsed whole.
    fn new(text: &'i str, pieces: Pieces, joined: &'i [Joined]) -> Result<Option<Self>, Error> {
        let mut root = parse_piece(text, &pieces.root)?;
        if pieces
            .groups
            .iter()
            .any(|g| root.contains_key(g.key.get_ref().as_str()))
        {
            return Ok(None);
        }
        if !joined.is_empty() {
            // The root's tree is not kept while the joined tables are checked.
            drop(root);
            match check_joined(text, joined) {
                Ok(()) => {}
                Err(Some(e)) => return Err(e),
                Err(None) => return Ok(None),
            }
            root = parse_piece(text, &pieces.root)?;
        }
        let mut entries: Vec<Entry<'i>> = Vec::with_capacity(root.len() + pieces.groups.len());
        entries.extend(root.into_iter().map(|(k, v)| Entry::Value(k, v)));
        entries.extend((0..pieces.groups.len()).map(Entry::Group));
        Ok(Some(Root {
            text,
            pieces,
            joined,
            entries: entries.into_iter(),
            pending: None,
        }))
    }
}

/// What both of this module's deserializers do alike: an option is present, a newtype is its
/// content, and every other request is answered as `deserialize_any` answers it (a map for the
/// document, a sequence for an array of tables), as toml's own deserializers do.
macro_rules! present_fields {
    () => {
        fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.visit_some(self)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            visitor: V,
        ) -> Result<V::Value, Error> {
            visitor.visit_newtype_struct(self)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
        }
    };
}

impl<'de> de::Deserializer<'de> for Root<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let whole = 0..self.text.len();
        visitor.visit_map(self).map_err(|e| e.or_span(&whole))
    }

    present_fields!();
}

impl<'de> MapAccess<'de> for Root<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(entry) = self.entries.next() else {
            return Ok(None);
        };
        let (name, span): (&str, Range<usize>) = match &entry {
            Entry::Value(k, _) => (k.get_ref().as_ref(), k.span()),
            Entry::Group(g) => {
                let k = &self.pieces.groups[*g].key;
                (k.get_ref().as_str(), k.span())
            }
        };
        let key = seed
            .deserialize(de::value::StrDeserializer::<Error>::new(name))
            .map_err(|e| e.or_span(&span))?;
        self.pending = Some(entry);
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.pending.take() {
            Some(Entry::Value(_, v)) => value(seed, v),
            Some(Entry::Group(g)) => match &self.pieces.groups[g].kind {
                GroupKind::Table(stretches) => {
                    let doc = match stretches.as_slice() {
                        [one] => parse_piece(self.text, one)?,
                        _ => {
                            let Some(j) = self.joined.iter().find(|j| j.group == g) else {
                                return Err(de::Error::custom("a TOML table was not joined"));
                            };
                            j.parse()?
                        }
                    };
                    let (_, v) = only_entry(doc)?;
                    value(seed, v)
                }
                GroupKind::Array(elements) => {
                    let span = self.pieces.groups[g].first_header.clone();
                    seed.deserialize(Elements {
                        text: self.text,
                        elements: elements.iter(),
                        span: span.clone(),
                    })
                    .map_err(|e| e.or_span(&span))
                }
            },
            None => Err(de::Error::custom("a TOML value was read before its key")),
        }
    }
}

/// Deserializes one parsed value through toml's own deserializer.
fn value<'de, V: DeserializeSeed<'de>>(
    seed: V,
    v: Spanned<DeValue<'de>>,
) -> Result<V::Value, Error> {
    let span = v.span();
    seed.deserialize(ValueDeserializer::from(v))
        .map_err(|e| Error::from_toml(&e, 0).or_span(&span))
}

/// A top-level array of tables, each element parsed when it is read.
struct Elements<'a, 'i> {
    text: &'i str,
    elements: std::slice::Iter<'a, Range<usize>>,
    span: Range<usize>,
}

impl<'de> de::Deserializer<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_seq(self)
    }

    present_fields!();
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(r) = self.elements.next() else {
            return Ok(None);
        };
        let (_, v) = only_entry(parse_piece(self.text, r)?)?;
        let DeValue::Array(a) = v.into_inner() else {
            return Err(de::Error::custom(
                "a TOML array element was not an array of tables",
            ));
        };
        let Some(element) = a.into_iter().next() else {
            return Err(de::Error::custom("a TOML array element was empty"));
        };
        value(seed, element)
            .map(Some)
            .map_err(|e| e.or_span(&self.span))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.elements.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// What `toml` says of `text` (whole) and what this module says, as the same type.
    fn both<T: DeserializeOwned>(text: &str) -> (Result<T, Error>, Result<T, Error>) {
        let whole = toml::from_str::<T>(text).map_err(|e| Error::from_toml(&e, 0));
        (whole, from_str::<T>(text))
    }

    fn same(text: &str) {
        let (whole, pieces) = both::<toml::Table>(text);
        if whole != pieces {
            let short = |r: &Result<toml::Table, Error>| match r {
                Ok(t) => format!("Ok({} keys)", t.len()),
                Err(e) => format!("{e:?}"),
            };
            panic!(
                "{} bytes starting {:?}: toml {}, pieces {}",
                text.len(),
                &text[..text.floor_char_boundary(200)],
                short(&whole),
                short(&pieces)
            );
        }
    }

    /// Every TOML file of the repository: rules, vendor parsers, fixtures.
    fn repository_files() -> Vec<(String, String)> {
        fn walk(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
            let Ok(rd) = std::fs::read_dir(dir) else {
                return;
            };
            let mut v: Vec<_> = rd.flatten().map(|e| e.path()).collect();
            v.sort();
            for p in v {
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|e| e == "toml")
                    && let Ok(t) = std::fs::read_to_string(&p)
                {
                    out.push((p.display().to_string(), t));
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for d in ["rules", "vendor-parsers", "fixtures"] {
            walk(&root.join(d), &mut out);
        }
        out
    }

    #[test]
    fn every_toml_file_of_the_repository_reads_as_toml_reads_it() {
        let files = repository_files();
        assert!(files.len() > 400, "{}", files.len());
        for (name, text) in &files {
            let (whole, pieces) = both::<toml::Table>(text);
            assert!(whole == pieces, "{name}");
        }
    }

    /// Mutations at many places of real files (a byte dropped, a bracket, quote, `=` or line
    /// break added, a line repeated): the same value or the same error, at the same place.
    #[test]
    fn mutated_files_fail_or_read_as_toml_says() {
        let files = repository_files();
        let mut tried = 0;
        for (name, text) in files.iter().step_by(7) {
            let b = text.as_bytes();
            let step = (b.len() / 23).max(1);
            for at in (0..b.len()).step_by(step) {
                if !text.is_char_boundary(at) {
                    continue;
                }
                let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
                let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let mut variants = vec![
                    format!(
                        "{}{}",
                        &text[..at],
                        &text[at..].chars().skip(1).collect::<String>()
                    ),
                    format!("{}{}", &text[..line_end], &text[line_start..]),
                ];
                for ins in ["[", "]", "\"", "=", "\n", "[[", "{", "'''"] {
                    variants.push(format!("{}{ins}{}", &text[..at], &text[at..]));
                }
                for v in &variants {
                    let (whole, pieces) = both::<toml::Table>(v);
                    assert!(
                        whole == pieces,
                        "{name} mutated at {at}: toml {:?}, pieces {:?}",
                        whole.as_ref().err(),
                        pieces.as_ref().err()
                    );
                    tried += 1;
                }
            }
        }
        assert!(tried > 5000, "{tried}");
    }

    /// Tables defined in several stretches (valid, a table or key defined twice, a key then a
    /// table of that name, with errors before, between and after the stretches): every sequence
    /// of up to four blocks reads as toml reads it, and is no longer handed to toml whole.
    #[test]
    fn tables_in_several_stretches_read_as_toml_reads_them() {
        let blocks = [
            "[a]\nk = 1\n",
            "[b]\nk = 2\n",
            "[a.x]\nn = 3\n",
            "[a]\nx = 4\n",
            "[[c]]\nm = 5\n",
            "[b]\nk = 6\nk = 7\n",
            "# note\n[a.y] # c\nv = [1, 2]\n",
            "[c.z]\nq = 8\n",
        ];
        let mut joined = 0;
        let mut docs = 0;
        let n = blocks.len();
        for len in 1..=4u32 {
            for code in 0..n.pow(len) {
                let mut doc = String::from("top = 0\n");
                let mut c = code;
                for _ in 0..len {
                    doc.push_str(blocks[c % n]);
                    c /= n;
                }
                same(&doc);
                docs += 1;
                if let Plan::Pieces(p) = plan(&doc) {
                    joined += usize::from(!join_split_tables(&doc, &p).is_empty());
                }
            }
        }
        assert!(
            docs > 4000 && joined > 1000,
            "{docs} documents, {joined} joined"
        );
        // The shape the fuzzer met: a second `[policy]` after many `[[device]]` tables.
        let mut doc = String::from("[policy]\nmtu = 9000\n");
        for i in 0..2000 {
            doc.push_str(&format!("[[device]]\nname = \"d{i}\"\n"));
        }
        same(&format!("{doc}[policy]\nroce_dscp = 26\n"));
        same(&format!("{doc}[policy.ecn]\nmin = 1\n"));
        let (_, pieces) = both::<toml::Table>(&format!("{doc}[policy]\nroce_dscp = 26\n"));
        let e = pieces.unwrap_err();
        assert_eq!(e.span(), Some(doc.len() + 1..doc.len() + 7), "{e:?}");
    }

    /// Long documents, cut in many pieces: dense arrays of tables, sub-tables, a long
    /// multi-line array, long lines, and errors deep inside them.
    #[test]
    fn long_documents_read_as_toml_reads_them() {
        let mut links = String::from("title = \"x\"\n[policy]\nmtu = 9216\n");
        for i in 0..3000 {
            links.push_str(&format!("[[link]]\na = \"s{i}:e1\"\nb = \"t{i}:e2\"\n"));
            if i % 100 == 0 {
                links.push_str(&format!("[link.extra]\nn = {i}\n[[link.more]]\nm = 1\n"));
            }
        }
        same(&links);
        let mut array = String::from("a = [\n");
        for i in 0..20000 {
            array.push_str(&format!("  {i},\n"));
        }
        array.push_str("]\n[[t]]\nx = 1\n");
        same(&array);
        same(&format!("a = \"{}\"\n", "x".repeat(100_000)));
        same(&format!("a = [{}1]\n", "1, ".repeat(100_000)));
        // Errors late, early and in the middle, on long lines and in long documents.
        for at in [10, 5000, 40_000, 99_000] {
            let mut t = links.clone();
            let p = t.len() * at / 100_000;
            let p = t[p..].find('\n').map_or(p, |i| p + i + 1);
            t.insert_str(p, "oops\n");
            same(&t);
            let mut line = "1, ".repeat(40_000);
            line.insert_str(at.min(line.len()), "x x");
            same(&format!("a = [{line}]\n"));
        }
        same(&"a\n".repeat(50_000));
        same(&"[{\"a\":".repeat(20_000));
        // Stretches longer than the prefixes checked double up to (over 1 MiB): checked to
        // their end, not handed to toml whole.
        let deep = "[{\"a\":".repeat(400_000);
        assert!(matches!(plan(&deep), Plan::HeaderFailed { before: 0, .. }));
        same(&deep);
        let late = format!("a = [{}= ]\n", "1, ".repeat(500_000));
        assert!(matches!(plan(&late), Plan::Failed(_)));
        same(&late);
        same(&format!("a = [{}x]\n", "1, ".repeat(500_000)));
        same(&format!("a = [{}\n", "1, ".repeat(500_000)));
        same(&format!("a = \"{}\u{1}\"\n", "y".repeat(1_200_000)));
        same(&"x".repeat(200_000));
        same(&"[a]\n".repeat(3));
        same("[[a]]\nx=1\n[b]\n[a.c]\n");
        same("a.b = 1\n[a.c]\nd = 2\n");
        same("[[a]]\n[a]\n");
        same("[a.b]\n[[a]]\n");
        same("[[a.b]]\nx=1\n[a]\ny=2\n");
        same("[a]\nx=1\n[b]\n[a]\ny=2\n");
        same("\u{feff}[[a]]\r\nx = 1\r\n[[a]]\r\nx = 2\r\n");
        same("");
        same("# only a comment");
    }

    /// Long header lines with a key toml's decoder refuses are answered without parsing the
    /// line whole, and as toml answers: with an earlier error first, and any syntax error
    /// (even a later one) before them all.
    #[test]
    fn long_header_lines_with_undecodable_keys_fail_as_toml_says() {
        let deep = "[{\"a\":".repeat(2_000);
        let dotted_bad = format!("[{}.\"\\x\"]", "a.".repeat(3_000));
        let escaped = format!("[\"{}\\q\"]", "y".repeat(9_000));
        let spaced = format!("[ {}]", " ".repeat(9_000));
        for header in [&deep, &dotted_bad, &escaped, &spaced] {
            assert!(
                matches!(plan(header), Plan::HeaderFailed { before: 0, .. }),
                "{}",
                &header[..40]
            );
            same(header);
            same(&format!("{header}\n"));
            same(&format!("a = 1\n[[t]]\nx = 1\n{header}\n[[t]]\nx = 2\n"));
            // An earlier decoding error, in the root and in a table.
            same(&format!("a = 1\na = 2\n{header}\n"));
            same(&format!("[t]\n\"\\x\" = 1\n{header}\n"));
            same(&format!("[t]\nx = 1\n[t]\n{header}\n"));
            // A syntax error after the header is named first.
            same(&format!("{header}\n[u]\nx = = 1\n"));
            // And a typed read: toml's error, not the type's.
            let (whole, pieces) = both::<File>(&format!("[[link]]\nz = 1\n{header}\n"));
            assert_eq!(whole.map(|_| ()), pieces.map(|_| ()));
        }
        // A long header the decoder accepts is read as before.
        same(&format!("[{}]\nx = 1\n", "a".repeat(9_000)));
        same(&format!("[\"{}\"]\nx = 1\n", "y".repeat(9_000)));
    }

    /// Issue 19: a short header line whose key toml's decoder refuses (a NUL in a bare key,
    /// as the `inventory_toml` fuzz run wrote one) made the document unfit for pieces, and it
    /// was read whole by toml (its tree 96 times the text) only to name the error. Such a
    /// header now fails the plan like a long one, with toml's own first error.
    #[test]
    fn short_header_lines_with_undecodable_keys_fail_as_toml_says() {
        let tables = "[[device]]\nname = \"a\"\n[[link]]\na = \"x:1\"\n".repeat(50);
        for header in ["[[link\0dev]]", "[dev\u{1}ice]"] {
            let text = format!("{tables}{header}\n[[device]]\nname = \"b\"\n");
            assert!(
                matches!(plan(&text), Plan::HeaderFailed { .. }),
                "{header:?}"
            );
            same(&text);
            same(&format!("{header}\n"));
            // An earlier decoding error is named first.
            same(&format!("a = 1\na = 2\n{text}"));
        }
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        #[serde(default)]
        policy: toml::Table,
        #[serde(default)]
        link: Vec<Spanned<Link>>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Link {
        a: Spanned<String>,
        #[serde(default)]
        cable_m: Option<f64>,
    }

    /// Each link's span, its `a`'s span and value, and its cable length.
    type LinkSeen = (Range<usize>, Range<usize>, String, Option<f64>);

    fn spans(f: &File) -> Vec<LinkSeen> {
        f.link
            .iter()
            .map(|l| {
                (
                    l.span(),
                    l.get_ref().a.span(),
                    l.get_ref().a.get_ref().clone(),
                    l.get_ref().cable_m,
                )
            })
            .collect()
    }

    #[test]
    fn typed_reads_keep_every_position_and_error() {
        let text = "[policy]\nmtu = 9216\n\n[[link]]\na = \"s1:e1\"\ncable_m = 3.0\n\n[[link]]\n# c\na = \"s2:e1\"\n";
        let (whole, pieces) = both::<File>(text);
        let (whole, pieces) = (whole.unwrap(), pieces.unwrap());
        assert_eq!(spans(&whole), spans(&pieces));
        assert_eq!(whole.policy, pieces.policy);
        for bad in [
            "[[link]]\na = \"x\"\nb = 1\n",
            "[[link]]\nb = 1\n",
            "[[link]]\na = 1\n",
            "[polcy]\nx = 1\n",
            "extra = 1\n[[link]]\na = \"x\"\n",
            "policy = 3\n",
            "[[policy]]\nx = 1\n",
            "\n [[policy]]  # c\nx = 1\n",
            "[[link]]  # c\na = \"x\"\n[[link.b]]\n[[policy.a]]\nx = 1\nb = 2\n[[link]]\n",
            "[link]\na = \"x\"\n",
            "[[link]]\na = \"x\"\ncable_m = \"long\"\n",
        ] {
            let (whole, pieces) = both::<File>(bad);
            match (whole, pieces) {
                (Err(w), Err(p)) => assert_eq!(w, p, "{bad:?}"),
                (Ok(w), Ok(p)) => assert_eq!(spans(&w), spans(&p), "{bad:?}"),
                (w, p) => panic!("{bad:?}: toml {w:?}, pieces {p:?}"),
            }
        }
    }
}
