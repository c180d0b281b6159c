//! A report written a piece at a time: the text is made into a buffer and sent on to the
//! writer whenever a piece is done and the buffer holds [`Out::SPILL`] bytes or more.
//!
//! A report's rows are its bulk (a few hundred bytes to 1 KiB a finding), and building a whole
//! report first held it all (issue 19: on a config whose interface ranges name hundreds of
//! ports, the HTML page, then the JUnit document and the GitHub annotations, were each the
//! audit's peak memory in turn; on a large fabric, megabytes).

/// The buffer and the writer it is sent on to; the first write error is kept, and nothing is
/// written after it.
pub struct Out<'w> {
    buf: String,
    w: &'w mut dyn std::io::Write,
    err: Option<std::io::Error>,
}

impl<'w> Out<'w> {
    /// 8 KiB, as `std::io::BufWriter`'s own: every report keeps one while it is written, so
    /// it is part of what any audit costs, however small (64 KiB grown by doubling to 128
    /// before: issue 19, the report writers were a third of the peak on 16 KiB inputs).
    pub const SPILL: usize = 1 << 13;

    pub fn new(w: &'w mut dyn std::io::Write) -> Out<'w> {
        Out {
            buf: String::new(),
            w,
            err: None,
        }
    }

    /// Send what is held on if it is [`Out::SPILL`] bytes or more.
    pub fn spill(&mut self) {
        if self.buf.len() >= Self::SPILL {
            self.send();
        }
    }

    fn send(&mut self) {
        if self.err.is_none()
            && let Err(e) = self.w.write_all(self.buf.as_bytes())
        {
            self.err = Some(e);
        }
        self.buf.clear();
    }

    /// Send the rest and flush; the first error met, if any.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.send();
        match self.err {
            Some(e) => Err(e),
            None => self.w.flush(),
        }
    }
}

impl std::ops::Deref for Out<'_> {
    type Target = String;
    fn deref(&self) -> &String {
        &self.buf
    }
}

impl std::ops::DerefMut for Out<'_> {
    fn deref_mut(&mut self) -> &mut String {
        &mut self.buf
    }
}

/// What `write` writes, as one string (a report rendered in memory: tests, and the formats
/// a caller wants as text).
pub fn to_string(write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> String {
    let mut out = Vec::new();
    // Writing into a Vec fails only if memory does.
    let _ = write(&mut out);
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
