//! The last lines a process wrote to stderr: harness diagnostics for an error message, never
//! logged (they could quote a prompt).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::watch;

/// At most this many lines…
const MAX_LINES: usize = 20;
/// …and this many bytes of them.
const MAX_BYTES: usize = 8 * 1024;
/// A longer line is cut here (on a character boundary) and ends with `…`.
const MAX_LINE: usize = 512;

/// The tail of a process's stderr, bounded in lines and bytes. Clones share it.
#[derive(Clone)]
pub struct StderrTail {
    lines: Arc<Mutex<Lines>>,
    /// `true` once stderr reached its end.
    closed: Arc<watch::Sender<bool>>,
}

#[derive(Default)]
struct Lines {
    lines: VecDeque<String>,
    bytes: usize,
    /// The line being read; never longer than `MAX_LINE` + a character.
    partial: Vec<u8>,
    cut: bool,
}

impl Lines {
    fn push(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() {
            let (line, rest, ended) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (&chunk[..i], &chunk[i + 1..], true),
                None => (chunk, &[][..], false),
            };
            let room = (MAX_LINE + 4).saturating_sub(self.partial.len());
            self.partial
                .extend_from_slice(&line[..line.len().min(room)]);
            self.cut |= line.len() > room;
            if ended {
                self.end_line();
            }
            chunk = rest;
        }
    }

    fn end_line(&mut self) {
        let text = line_text(&self.partial, self.cut);
        self.partial.clear();
        self.cut = false;
        if text.is_empty() {
            return;
        }
        self.bytes += text.len();
        self.lines.push_back(text);
        while self.lines.len() > MAX_LINES || self.bytes > MAX_BYTES {
            match self.lines.pop_front() {
                Some(old) => self.bytes -= old.len(),
                None => break,
            }
        }
    }

    fn text(&self) -> String {
        let partial = line_text(&self.partial, self.cut);
        let mut all: Vec<&str> = self.lines.iter().map(String::as_str).collect();
        if !partial.is_empty() {
            all.push(&partial);
        }
        all.join("\n")
    }
}

fn line_text(bytes: &[u8], cut: bool) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    if text.len() <= MAX_LINE && !cut {
        return text.to_owned();
    }
    let mut end = text.len().min(MAX_LINE);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

impl StderrTail {
    fn new() -> Self {
        StderrTail {
            lines: Arc::default(),
            closed: Arc::new(watch::Sender::new(false)),
        }
    }

    /// A tail with nothing to read.
    pub(crate) fn closed() -> Self {
        let tail = StderrTail::new();
        tail.closed.send_replace(true);
        tail
    }

    /// Reads `pipe` to its end into a new tail, on a task of its own.
    pub(crate) fn collect(pipe: impl AsyncRead + Unpin + Send + 'static) -> Self {
        let tail = StderrTail::new();
        let writer = tail.clone();
        tokio::spawn(async move {
            let mut pipe = pipe;
            let mut buf = vec![0u8; 4096];
            loop {
                match pipe.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => writer.push(&buf[..n]),
                }
            }
            writer.finish();
        });
        tail
    }

    fn push(&self, bytes: &[u8]) {
        lock(&self.lines).push(bytes);
    }

    fn finish(&self) {
        let mut lines = lock(&self.lines);
        if !lines.partial.is_empty() {
            lines.end_line();
        }
        drop(lines);
        self.closed.send_replace(true);
    }

    /// The kept lines, oldest first.
    pub fn text(&self) -> String {
        lock(&self.lines).text()
    }

    /// Waits up to `limit` for stderr to reach its end (so the tail holds the last words); a
    /// tool that inherited the pipe may keep it open, hence the limit. True if it ended.
    pub async fn wait_closed(&self, limit: Duration) -> bool {
        let mut closed = self.closed.subscribe();
        let ended = tokio::time::timeout(limit, closed.wait_for(|c| *c)).await;
        matches!(ended, Ok(Ok(_)))
    }
}

impl std::fmt::Debug for StderrTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StderrTail")
            .field("lines", &lock(&self.lines).lines.len())
            .finish()
    }
}

/// A poisoned lock only means a reader panicked mid-push; the lines are still usable.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tail_of(chunks: &[&[u8]]) -> String {
        let tail = StderrTail::new();
        for chunk in chunks {
            tail.push(chunk);
        }
        tail.finish();
        tail.text()
    }

    #[test]
    fn keeps_the_last_lines() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let tail = tail_of(&[text.as_bytes()]);
        assert_eq!(tail.lines().count(), MAX_LINES);
        assert!(tail.starts_with("line 80\n"), "{tail}");
        assert!(tail.ends_with("line 99"), "{tail}");
    }

    #[test]
    fn bounds_bytes_and_cuts_long_lines_on_a_character() {
        let long = format!("{}\n", "é".repeat(2000));
        let text = long.repeat(30);
        let tail = tail_of(&[text.as_bytes()]);
        assert!(tail.len() <= MAX_BYTES + MAX_LINES, "{}", tail.len());
        for line in tail.lines() {
            assert!(line.ends_with('…'), "{line}");
            assert!(line.len() <= MAX_LINE + '…'.len_utf8());
        }
        assert!(tail.lines().count() < MAX_LINES);
    }

    #[test]
    fn lines_split_across_reads_stay_whole_and_blank_lines_go() {
        let e = "é".as_bytes();
        let tail = tail_of(&[
            b"first ha",
            b"lf\n\n   \nsecond ",
            &e[..1],
            &e[1..],
            b"\r\nthird, no newline",
        ]);
        assert_eq!(tail, "first half\nsecond é\nthird, no newline");
    }

    #[test]
    fn an_endless_line_stays_bounded() {
        let tail = StderrTail::new();
        for _ in 0..1000 {
            tail.push(&[b'x'; 4096]);
        }
        let text = tail.text();
        assert_eq!(text.len(), MAX_LINE + '…'.len_utf8());
    }

    #[tokio::test]
    async fn collects_a_pipe_to_its_end() {
        let (mut w, r) = tokio::io::duplex(64);
        let tail = StderrTail::collect(r);
        assert!(!tail.wait_closed(Duration::from_millis(20)).await);
        tokio::io::AsyncWriteExt::write_all(&mut w, b"boom\nlast words")
            .await
            .unwrap();
        drop(w);
        assert!(tail.wait_closed(Duration::from_secs(5)).await);
        assert_eq!(tail.text(), "boom\nlast words");
    }
}
